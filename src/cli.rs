//! The command line: parses arguments, opens files, reports errors and decides
//! the exit status, all in one place.
//!
//! Exit status: 0 success; 1 a check found differences; 2 a usage error,
//! unreadable or malformed input, or an I/O failure.

use std::ffi::OsString;
use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;
use thiserror::Error;

use crate::board::Storage;
use crate::movefile::ParseError;
use crate::output::Staged;
use crate::referee::{self, Options, RefereeError, Report};
use crate::render::Style;
use crate::transcript::{Boards, Layout};

/// Exit status of a successful run.
pub const EXIT_SUCCESS: u8 = 0;
/// Exit status when a check finds differences.
pub const EXIT_DIFFERENCES: u8 = 1;
/// Exit status for usage errors, unreadable or malformed input, and I/O failures.
pub const EXIT_ERROR: u8 = 2;

const EXAMPLES: &str = "\
Examples:
  ttt-referee TTTmoves.txt -o TTTgame.txt    referee a move file into a transcript
  ttt-referee - < TTTmoves.txt               read standard input, write standard output
  ttt-referee big.txt --style table --boards final

Exit status: 0 success, 1 differences found by a check, 2 usage error,
unreadable or malformed input, or an I/O failure.";

/// Referee tic-tac-toe move files into exact transcripts.
#[derive(Debug, Parser)]
#[command(name = "ttt-referee", version, about, after_help = EXAMPLES)]
pub struct Cli {
    /// The move file to referee; `-` reads standard input.
    #[arg(value_name = "MOVES")]
    moves: PathBuf,

    /// Write the transcript to FILE, replacing it only once the transcript is
    /// complete; `-` (or no -o) writes standard output.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,

    /// The programmer named on the transcript's first line.
    #[arg(long, value_name = "NAME", default_value = Layout::DEFAULT_PROGRAMMER, value_parser = one_line)]
    programmer: String,

    /// The transcript's second line.
    #[arg(long, value_name = "TEXT", default_value = Layout::DEFAULT_PROJECT, value_parser = one_line)]
    project: String,

    /// How boards are drawn.
    #[arg(long, value_enum, default_value_t = Style::Classic)]
    style: Style,

    /// Which boards the transcript shows.
    #[arg(long, value_enum, default_value_t = Boards::Each)]
    boards: Boards,

    /// How the board is stored in memory; rulings are identical either way.
    #[arg(long, value_enum, default_value_t = Storage::Auto)]
    storage: Storage,
}

/// Accepts a value that fits on one transcript line.
fn one_line(value: &str) -> Result<String, String> {
    if value.contains(['\n', '\r']) { Err("must be a single line".to_owned()) } else { Ok(value.to_owned()) }
}

/// Why a run failed. Each message starts with the path it concerns.
#[derive(Debug, Error)]
enum CliError {
    #[error("{path}:{}: {}", .error.line(), .error.kind())]
    Malformed { path: Shown, error: ParseError },
    #[error("{path}: {error}")]
    Unplayable { path: Shown, error: RefereeError },
    #[error("{path}: cannot open: {}", describe(.source))]
    Open { path: Shown, source: io::Error },
    #[error("{path}: is a directory; expected a move file")]
    Directory { path: Shown },
    #[error("{path}: cannot write: {}", describe(.source))]
    Write { path: Shown, source: io::Error },
    #[error("{path}: is the input file; refusing to overwrite it (choose another -o)")]
    SameFile { path: Shown },
    /// Standard output was closed by its reader: not worth a message.
    #[error("broken pipe")]
    BrokenPipe,
}

/// A path as messages show it: `<stdin>` and `<stdout>` for `-`.
#[derive(Debug)]
struct Shown(String);

impl Shown {
    fn input(path: &Path) -> Shown {
        Shown(if is_dash(path) { "<stdin>".to_owned() } else { path.display().to_string() })
    }

    fn output(path: Option<&Path>) -> Shown {
        Shown(path.map_or_else(|| "<stdout>".to_owned(), |p| p.display().to_string()))
    }
}

impl fmt::Display for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// An I/O error's text without Rust's ` (os error N)` suffix.
fn describe(error: &io::Error) -> String {
    let text = error.to_string();
    match text.rfind(" (os error ") {
        Some(cut) => text[..cut].to_owned(),
        None => text,
    }
}

fn is_dash(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Runs the program with the process's arguments and returns its exit status.
#[must_use]
pub fn main() -> ExitCode {
    main_with(std::env::args_os())
}

/// Runs the program with `args` (the first is the program name).
pub fn main_with<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            // Printing help into a closed pipe is not worth a second error.
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { EXIT_ERROR } else { EXIT_SUCCESS });
        }
    };
    match run(&cli) {
        Ok(()) | Err(CliError::BrokenPipe) => ExitCode::from(EXIT_SUCCESS),
        Err(e) => {
            eprintln!("ttt-referee: {e}");
            ExitCode::from(EXIT_ERROR)
        }
    }
}

fn run(cli: &Cli) -> Result<(), CliError> {
    let options = Options {
        layout: Layout {
            programmer: cli.programmer.clone(),
            project: cli.project.clone(),
            style: cli.style,
            boards: cli.boards,
        },
        storage: cli.storage,
    };
    let output = cli.output.as_deref().filter(|p| !is_dash(p));
    let input_name = Shown::input(&cli.moves);
    let output_name = Shown::output(output);

    let input = open_input(&cli.moves, output)?;
    let mut staged = match output {
        Some(path) => {
            Staged::file(path).map_err(|source| CliError::Write { path: Shown::output(output), source })?
        }
        None => Staged::stdout(),
    };
    let report = referee::referee(input, &mut staged, &options).map_err(|e| match e {
        RefereeError::Parse(error) => CliError::Malformed { path: input_name, error },
        RefereeError::Write(source) => CliError::Write { path: Shown::output(output), source },
        error @ RefereeError::TooBigForDense(_) => CliError::Unplayable { path: input_name, error },
    })?;
    staged.commit().map_err(|source| match source.kind() {
        io::ErrorKind::BrokenPipe if output.is_none() => CliError::BrokenPipe,
        _ => CliError::Write { path: output_name, source },
    })?;

    warn_if_unfinished(&report, &cli.moves);
    Ok(())
}

/// Opens the move file, refusing an output path that is the same file.
fn open_input(path: &Path, output: Option<&Path>) -> Result<Box<dyn BufRead>, CliError> {
    if is_dash(path) {
        return Ok(Box::new(io::stdin().lock()));
    }
    let open_error = |source| CliError::Open { path: Shown::input(path), source };
    let file = File::open(path).map_err(open_error)?;
    if file.metadata().map_err(open_error)?.is_dir() {
        return Err(CliError::Directory { path: Shown::input(path) });
    }
    if let Some(out) = output
        && same_file::is_same_file(path, out).unwrap_or(false)
    {
        return Err(CliError::SameFile { path: Shown::output(output) });
    }
    Ok(Box::new(BufReader::with_capacity(64 << 10, file)))
}

fn warn_if_unfinished(report: &Report, moves: &Path) {
    if report.game.outcome().is_none() {
        let _ = writeln!(
            io::stderr(),
            "ttt-referee: warning: {}: the moves ran out before the game ended (Winner: None)",
            Shown::input(moves)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn io_errors_lose_the_os_error_suffix() {
        let e = io::Error::from_raw_os_error(2);
        assert_eq!(describe(&e), "No such file or directory");
    }
}
