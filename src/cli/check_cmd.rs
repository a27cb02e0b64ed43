//! `ttt-referee check`: compare transcripts with the referee's, one pair or a
//! directory of them.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use clap::Args;
use rayon::prelude::*;
use serde::Serialize;

use super::{
    CliError, EXIT_DIFFERENCES, EXIT_ERROR, EXIT_SUCCESS, LayoutArgs, RefereeError, Shown, is_dash,
    open_input,
};
use crate::batch;
use crate::check::{CheckOptions, Comparison, compare};
use crate::referee::{self, Format, Options};

pub(super) const AFTER_HELP: &str = "\
By default the comparison is tolerant, as the original grading system was:
runs of spaces and tabs, leading and trailing spaces, CRLF line ends and blank
lines at the end are forgiven; tokens run together (`Move1:`) are not.

Exit status: 0 the transcripts match, 1 they differ (or a transcript is
missing), 2 an error (such as a malformed move file).";

#[derive(Debug, Args)]
pub(super) struct CheckArgs {
    /// The move file the transcript was made from.
    #[arg(value_name = "MOVES", required_unless_present = "moves_dir", requires = "transcript")]
    moves: Option<PathBuf>,

    /// The transcript to check; `-` reads standard input.
    #[arg(value_name = "TRANSCRIPT")]
    transcript: Option<PathBuf>,

    /// Check every move file in DIR against the transcript of the same file
    /// name in --transcripts DIR, one row per file.
    #[arg(long = "moves", value_name = "DIR", requires = "transcripts_dir", conflicts_with_all = ["moves", "transcript"])]
    moves_dir: Option<PathBuf>,

    /// The directory of transcripts to check, with --moves.
    #[arg(long = "transcripts", value_name = "DIR", requires = "moves_dir")]
    transcripts_dir: Option<PathBuf>,

    /// Compare bytes exactly instead of tolerantly.
    #[arg(long)]
    exact: bool,

    /// Leave out the first two lines (programmer and project) of both.
    #[arg(long)]
    skip_header: bool,

    /// How to print the rows of a directory check.
    #[arg(long, value_enum, default_value_t = TableFormat::Text)]
    format: TableFormat,

    #[command(flatten)]
    layout: LayoutArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum TableFormat {
    /// Aligned columns.
    Text,
    /// Comma-separated values with a header row.
    Csv,
    /// A JSON array of objects.
    Json,
}

pub(super) fn run(args: &CheckArgs) -> Result<u8, CliError> {
    let options = args.layout.options(Format::Text);
    let check = CheckOptions { exact: args.exact, skip_header: args.skip_header };
    match (&args.moves_dir, &args.transcripts_dir, &args.moves, &args.transcript) {
        (Some(moves), Some(transcripts), _, _) => run_dirs(moves, transcripts, &options, check, args.format),
        (_, _, Some(moves), Some(transcript)) => run_one(moves, transcript, &options, check),
        _ => Err(CliError::Message(
            "check needs MOVES TRANSCRIPT, or --moves DIR --transcripts DIR".to_owned(),
        )),
    }
}

/// The referee's transcript of `moves`.
fn expected(moves: &Path, options: &Options) -> Result<Vec<u8>, CliError> {
    let mut transcript = Vec::new();
    referee::referee(open_input(moves, None)?, &mut transcript, options).map_err(|e| match e {
        RefereeError::Parse(error) => CliError::Malformed { path: Shown::input(moves), error },
        other => CliError::Unplayable { path: Shown::input(moves), error: other },
    })?;
    Ok(transcript)
}

fn read_transcript(path: &Path) -> Result<Vec<u8>, CliError> {
    let open = |source| CliError::Open { path: Shown::input(path), source };
    if is_dash(path) {
        let mut bytes = Vec::new();
        io::Read::read_to_end(&mut io::stdin().lock(), &mut bytes).map_err(open)?;
        Ok(bytes)
    } else {
        fs::read(path).map_err(open)
    }
}

fn run_one(moves: &Path, transcript: &Path, options: &Options, check: CheckOptions) -> Result<u8, CliError> {
    let expected = expected(moves, options)?;
    let actual = read_transcript(transcript)?;
    let comparison = compare(&expected, &actual, check);
    let mut out = io::stdout().lock();
    let (shown, of) = (Shown::input(transcript), Shown::input(moves));
    let score = score_text(&comparison);
    let written = match &comparison.first_difference {
        None => writeln!(out, "{shown}: matches the referee's transcript of {of}: {score}"),
        Some(difference) => {
            writeln!(
                out,
                "{shown}: differs from the referee's transcript of {of}\n{difference}\nscore: {score}"
            )
        }
    };
    written.and_then(|()| out.flush()).map_err(CliError::stdout)?;
    Ok(if comparison.matches() { EXIT_SUCCESS } else { EXIT_DIFFERENCES })
}

/// `50/52 lines (96.2%)`.
fn score_text(c: &Comparison) -> String {
    format!("{}/{} lines ({:.1}%)", c.matched, c.expected, 100.0 * c.score())
}

/// One row of a directory check.
#[derive(Debug, Serialize)]
struct Row {
    file: String,
    status: &'static str,
    #[serde(flatten)]
    comparison: Option<Comparison>,
    score: Option<f64>,
    error: Option<String>,
}

fn run_dirs(
    moves: &Path,
    transcripts: &Path,
    options: &Options,
    check: CheckOptions,
    format: TableFormat,
) -> Result<u8, CliError> {
    let jobs = batch::jobs(&[moves.to_path_buf()], transcripts, Format::Text)
        .map_err(|(path, source)| CliError::Open { path: Shown::input(&path), source })?;
    let rows: Vec<Row> = jobs
        .par_iter()
        .map(|job| {
            let file = job.input.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            match expected(&job.input, options) {
                Err(e) => {
                    Row { file, status: "error", comparison: None, score: None, error: Some(e.to_string()) }
                }
                Ok(expected) => {
                    let (status, actual) = match fs::read(&job.output) {
                        Ok(actual) => ("", actual),
                        Err(_) => ("missing", Vec::new()),
                    };
                    let comparison = compare(&expected, &actual, check);
                    let status = match (status, comparison.matches()) {
                        ("missing", _) => "missing",
                        (_, true) => "match",
                        (_, false) => "differ",
                    };
                    Row {
                        file,
                        status,
                        score: Some(comparison.score()),
                        comparison: Some(comparison),
                        error: None,
                    }
                }
            }
        })
        .collect();

    let mut out = io::stdout().lock();
    write_rows(&mut out, &rows, format).and_then(|()| out.flush()).map_err(CliError::stdout)?;
    Ok(if rows.iter().any(|r| r.status == "error") {
        EXIT_ERROR
    } else if rows.iter().any(|r| r.status != "match") {
        EXIT_DIFFERENCES
    } else {
        EXIT_SUCCESS
    })
}

fn write_rows(out: &mut impl Write, rows: &[Row], format: TableFormat) -> io::Result<()> {
    let line =
        |side: &Option<(usize, String)>| side.as_ref().map_or_else(String::new, |(n, _)| n.to_string());
    match format {
        TableFormat::Json => {
            serde_json::to_writer_pretty(&mut *out, rows)?;
            writeln!(out)
        }
        TableFormat::Csv => {
            writeln!(out, "file,status,matched,expected,score,expected_line,found_line,error")?;
            for row in rows {
                let (matched, expected, e_line, f_line) = match &row.comparison {
                    Some(c) => {
                        let d = c.first_difference.as_ref();
                        let e_line = d.map_or_else(String::new, |d| line(&d.expected));
                        let f_line = d.map_or_else(String::new, |d| line(&d.actual));
                        (c.matched.to_string(), c.expected.to_string(), e_line, f_line)
                    }
                    None => Default::default(),
                };
                let score = row.score.map_or_else(String::new, |s| format!("{s:.4}"));
                let error = row.error.as_deref().unwrap_or_default();
                writeln!(
                    out,
                    "{},{},{matched},{expected},{score},{e_line},{f_line},{}",
                    csv_field(&row.file),
                    row.status,
                    csv_field(error)
                )?;
            }
            Ok(())
        }
        TableFormat::Text => {
            let width = rows.iter().map(|r| r.file.chars().count()).max().unwrap_or(0).max(4);
            writeln!(out, "{:width$}  {:7}  {:>20}  first difference", "file", "status", "score")?;
            for row in rows {
                let score = row.comparison.as_ref().map_or_else(|| "-".to_owned(), score_text);
                let detail = match (&row.comparison, &row.error) {
                    (_, Some(error)) => error.clone(),
                    (Some(c), None) => c.first_difference.as_ref().map_or_else(String::new, |d| {
                        format!(
                            "expected line {}, found line {}",
                            or_end(&line(&d.expected)),
                            or_end(&line(&d.actual))
                        )
                    }),
                    (None, None) => String::new(),
                };
                writeln!(out, "{:width$}  {:7}  {score:>20}  {detail}", row.file, row.status)?;
            }
            Ok(())
        }
    }
}

fn or_end(line: &str) -> &str {
    if line.is_empty() { "(end of file)" } else { line }
}

/// A CSV field, quoted when it must be.
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_owned()
    }
}
