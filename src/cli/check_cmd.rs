//! `ttt-referee check`: compare transcripts with the referee's, one pair or a
//! directory of them.

use std::fmt;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use clap::Args;
use rayon::prelude::*;
use serde::Serialize;

use super::{
    CliError, EXIT_DIFFERENCES, EXIT_ERROR, EXIT_SUCCESS, HeaderArg, LayoutArgs, Shown, is_dash, open_input,
};
use crate::batch;
use crate::check::Difference;
use crate::check::{CheckOptions, Comparison, Header, compare};
use crate::referee::{self, Format, Options};
use crate::spreadsheet::CsvTable;
use crate::text::inert;

pub(super) const AFTER_HELP: &str = "\
By default the comparison is tolerant, as the original grading system was:
runs of spaces and tabs, leading and trailing spaces, CRLF line ends and blank
lines at the end are forgiven; tokens run together (`Move1:`) are not.

The first two lines (programmer and project) are compared like the rest
unless --header says otherwise: `label` asks only for each expected line's
label (`Programmer:`), `skip` leaves them out. Line numbers are always the
files' own. The first difference shown is the first that involves a line
that is not blank, where there is one.

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

    /// How to compare the first two lines (programmer and project).
    #[arg(long, value_enum, value_name = "MODE", default_value_t = HeaderArg::Exact)]
    header: HeaderArg,

    /// Leave out the first two lines of both: the same as --header skip.
    #[arg(long, conflicts_with = "header")]
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
    let header = if args.skip_header { HeaderArg::Skip } else { args.header };
    let check = CheckOptions { exact: args.exact, header: header.into() };
    match (&args.moves_dir, &args.transcripts_dir, &args.moves, &args.transcript) {
        (Some(moves), Some(transcripts), _, _) => run_dirs(moves, transcripts, &options, check, args.format),
        (_, _, Some(moves), Some(transcript)) => run_one(moves, transcript, &options, check),
        _ => Err(CliError::CheckInputs),
    }
}

/// The referee's transcript of `moves`.
fn expected(moves: &Path, options: &Options) -> Result<Vec<u8>, CliError> {
    let mut transcript = Vec::new();
    referee::referee(open_input(moves, None)?, &mut transcript, options)
        .map_err(|e| CliError::referee(e, moves, None))?;
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
            // The transcript's lines are someone else's text: inert on a terminal.
            let inert_side = |side: &Option<(usize, String)>| {
                side.as_ref().map(|(n, text)| (*n, inert(text).into_owned()))
            };
            let difference = Difference {
                expected: inert_side(&difference.expected),
                actual: inert_side(&difference.actual),
            };
            writeln!(
                out,
                "{shown}: differs from the referee's transcript of {of}\n{difference}\nscore: {score}"
            )
        }
    };
    written.and_then(|()| out.flush()).map_err(CliError::stdout)?;
    if !comparison.matches()
        && let Some(header) = passing_header(&expected, &actual, check)
    {
        let _ = writeln!(
            io::stderr(),
            "ttt-referee: note: {shown} differs only in its header (the programmer and project lines); {}",
            header_note(header, "it")
        );
    }
    Ok(if comparison.matches() { EXIT_SUCCESS } else { EXIT_DIFFERENCES })
}

/// The laxer `--header` under which `actual` would match, if the header is
/// all that keeps it from matching: `check` compares the header exactly by
/// default, `grade` only its labels, and a TA should not have to guess why
/// one passes what the other fails.
fn passing_header(expected: &[u8], actual: &[u8], check: CheckOptions) -> Option<Header> {
    let laxer: &[Header] = match check.header {
        Header::Exact => &[Header::Label, Header::Skip],
        Header::Label => &[Header::Skip],
        Header::Skip => &[],
    };
    laxer
        .iter()
        .copied()
        .find(|&header| compare(expected, actual, CheckOptions { header, ..check }).matches())
}

/// What `--header` would pass `them` (`it`, `them`).
fn header_note(header: Header, them: &str) -> String {
    match header {
        Header::Label => {
            format!(
                "`--header label` checks only their labels (`Programmer:`), as grade does by default, and passes {them}"
            )
        }
        Header::Skip | Header::Exact => format!("`--header skip` leaves them out and passes {them}"),
    }
}

/// `50/52 lines, 53 found (95.2%)`: the expected lines matched, how many
/// the transcript has, and the score ([`Comparison::score`]), which counts
/// extra lines as it counts missing ones.
fn score_text(c: &Comparison) -> String {
    format!("{}/{} lines, {} found ({:.1}%)", c.matched, c.expected, c.actual, 100.0 * c.score())
}

/// How one file of a directory check went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
enum Status {
    /// The transcript matches the referee's.
    Match,
    /// It differs.
    Differ,
    /// There is no transcript of that name (compared as an empty one).
    Missing,
    /// The move file could not be refereed.
    Error,
}

impl Status {
    /// The status as rows show it.
    fn name(self) -> &'static str {
        match self {
            Status::Match => "match",
            Status::Differ => "differ",
            Status::Missing => "missing",
            Status::Error => "error",
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

/// One row of a directory check.
#[derive(Debug, Serialize)]
struct Row {
    file: String,
    status: Status,
    #[serde(flatten)]
    comparison: Option<Comparison>,
    score: Option<f64>,
    error: Option<String>,
    /// The laxer `--header` that would pass a transcript that differs.
    #[serde(skip)]
    passes_with: Option<Header>,
}

fn run_dirs(
    moves: &Path,
    transcripts: &Path,
    options: &Options,
    check: CheckOptions,
    format: TableFormat,
) -> Result<u8, CliError> {
    // A mistyped directory is not a class that handed nothing in.
    directory(moves, "the directory of move files (--moves DIR)")?;
    directory(transcripts, "the directory of transcripts (--transcripts DIR)")?;
    let jobs = batch::jobs(&[moves.to_path_buf()], transcripts, Format::Text)
        .map_err(|(path, source)| CliError::Open { path: Shown::input(&path), source })?;
    let rows: Vec<Row> = jobs
        .par_iter()
        .map(|job| {
            let file = job.input.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            match expected(&job.input, options) {
                Err(e) => Row {
                    file,
                    status: Status::Error,
                    comparison: None,
                    score: None,
                    error: Some(e.to_string()),
                    passes_with: None,
                },
                Ok(expected) => {
                    let (missing, actual) = match fs::read(&job.output) {
                        Ok(actual) => (false, actual),
                        Err(_) => (true, Vec::new()),
                    };
                    let comparison = compare(&expected, &actual, check);
                    let passes_with = (!missing && !comparison.matches())
                        .then(|| passing_header(&expected, &actual, check))
                        .flatten();
                    let status = match (missing, comparison.matches()) {
                        (true, _) => Status::Missing,
                        (false, true) => Status::Match,
                        (false, false) => Status::Differ,
                    };
                    Row {
                        file,
                        status,
                        score: Some(comparison.score()),
                        comparison: Some(comparison),
                        error: None,
                        passes_with,
                    }
                }
            }
        })
        .collect();

    let mut out = io::stdout().lock();
    write_rows(&mut out, &rows, format).and_then(|()| out.flush()).map_err(CliError::stdout)?;
    for header in [Header::Label, Header::Skip] {
        let count = rows.iter().filter(|r| r.passes_with == Some(header)).count();
        if count > 0 {
            let (files, them) = if count == 1 { ("file differs", "it") } else { ("files differ", "them") };
            let _ = writeln!(
                io::stderr(),
                "ttt-referee: note: {count} {files} only in the header (the programmer and project lines); {}",
                header_note(header, them)
            );
        }
    }
    Ok(if rows.iter().any(|r| r.status == Status::Error) {
        EXIT_ERROR
    } else if rows.iter().any(|r| r.status != Status::Match) {
        EXIT_DIFFERENCES
    } else {
        EXIT_SUCCESS
    })
}

/// `Ok` if `path` is a directory, else an error naming it and `what` was
/// expected there.
pub(super) fn directory(path: &Path, what: &'static str) -> Result<(), CliError> {
    match fs::metadata(path) {
        Ok(metadata) if metadata.is_dir() => Ok(()),
        Ok(_) => Err(CliError::NoDirectory { path: Shown::input(path), what, error: None }),
        Err(error) => Err(CliError::NoDirectory { path: Shown::input(path), what, error: Some(error) }),
    }
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
            let mut table = CsvTable::new(&mut *out);
            table.row([
                "file",
                "status",
                "matched",
                "expected",
                "score",
                "expected_line",
                "found_line",
                "error",
            ])?;
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
                table.row([
                    &row.file,
                    row.status.name(),
                    &matched,
                    &expected,
                    &score,
                    &e_line,
                    &f_line,
                    error,
                ])?;
            }
            table.finish()
        }
        TableFormat::Text => {
            let width = rows.iter().map(|r| inert(&r.file).chars().count()).max().unwrap_or(0).max(4);
            writeln!(out, "{:width$}  {:7}  {:>30}  first difference", "file", "status", "score")?;
            for row in rows {
                let score = row.comparison.as_ref().map_or_else(|| "-".to_owned(), score_text);
                let detail = match (&row.comparison, &row.error) {
                    (_, Some(error)) => error.clone(),
                    (Some(c), None) => c.first_difference.as_ref().map_or_else(String::new, Difference::at),
                    (None, None) => String::new(),
                };
                writeln!(
                    out,
                    "{:width$}  {:7}  {score:>30}  {}",
                    inert(&row.file),
                    row.status,
                    inert(&detail)
                )?;
            }
            Ok(())
        }
    }
}
