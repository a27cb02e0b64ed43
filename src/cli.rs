//! The command line: parses arguments, opens files, reports errors and decides
//! the exit status, all in one place.
//!
//! Exit status: 0 success; 1 a check found differences; 2 a usage error,
//! unreadable or malformed input, or an I/O failure.

mod arena_cmd;
mod autograder_cmd;
mod check_cmd;
mod completions_cmd;
mod entrants;
mod gen_cmd;
mod grade_cmd;
mod hint_cmd;
mod manpage_cmd;
mod match_cmd;
mod play_cmd;
mod tournament_cmd;
mod values;

use std::ffi::OsString;
use std::fmt;
use std::fs;
use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use thiserror::Error;

use crate::arena::EventError;
use crate::arena::schedule::OpeningError;
use crate::batch::{self, JobError, Summary};
use crate::board::{Geometry, Storage};
use crate::check;
use crate::corpus::GenError;
use crate::engine::EngineError;
use crate::grade::language::ConfigError;
use crate::grade::package::PackageError;
use crate::grade::report::ReportError;
use crate::grade::report::gradescope::ScoringError;
use crate::grade::suite::SuiteError;
use crate::grade::{ClassError, GradeError, ProvidedError};
use crate::movefile::ParseError;
use crate::output::{self, Durability, Staged};
use crate::play::{PlayError, Profile};
use crate::player::Mark;
use crate::referee::{self, Format, Options, RefereeError, Report};
use crate::render::Style;
use crate::sandbox;
use crate::text;
use crate::transcript::{Boards, Layout};

/// Exit status of a successful run.
pub const EXIT_SUCCESS: u8 = 0;
/// Exit status when a check finds differences.
pub const EXIT_DIFFERENCES: u8 = 1;
/// Exit status for usage errors, unreadable or malformed input, and I/O failures.
pub const EXIT_ERROR: u8 = 2;
/// Exit status: stopped by Ctrl-C or SIGTERM (what was finished is kept).
pub const EXIT_INTERRUPTED: u8 = 130;

const EXAMPLES: &str = "\
Examples:
  ttt-referee TTTmoves.txt -o TTTgame.txt    referee a move file into a transcript
  ttt-referee - < TTTmoves.txt               read standard input, write standard output
  ttt-referee submissions/ --out-dir out/    referee every file in a directory, in parallel
  ttt-referee check TTTmoves.txt student.txt compare a student's transcript with the referee's
  ttt-referee gen --count 20 --seed 7 --out-dir corpus/ --with-transcripts
  ttt-referee hint TTTmoves.txt              the best square for the side to move
  ttt-referee play --o perfect --record game.txt -o transcript.txt
  ttt-referee match perfect random --games 10 --report out/
  ttt-referee tournament perfect minimax rules random --jobs 4 --report out/
  ttt-referee grade --tests tests/ --build 'g++ -O2 -o prog *.cpp' students/*

Exit status: 0 success; 1 check found differences, or grade a test that did
not pass; 2 usage error, unreadable or malformed input, or an I/O failure;
130 grade, match or tournament stopped by Ctrl-C.";

/// Referee tic-tac-toe move files into exact transcripts.
#[derive(Debug, Parser)]
#[command(
    name = "ttt-referee",
    version,
    about,
    after_help = EXAMPLES,
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,

    #[command(flatten)]
    referee: RefereeArgs,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Compare a transcript someone produced with the referee's own.
    #[command(after_help = check_cmd::AFTER_HELP)]
    Check(check_cmd::CheckArgs),
    /// Referee a move file, then name the square an engine would take next.
    #[command(after_help = hint_cmd::AFTER_HELP)]
    Hint(hint_cmd::HintArgs),
    /// Play a game (people, computer players or both) and record it.
    #[command(after_help = play_cmd::AFTER_HELP)]
    Play(play_cmd::PlayArgs),
    /// Play games between engines (or bots) live, record them and keep the standings.
    #[command(after_help = match_cmd::AFTER_HELP)]
    Match(match_cmd::MatchArgs),
    /// A round robin between engines (or bots): every pair from both sides.
    #[command(after_help = tournament_cmd::AFTER_HELP)]
    Tournament(tournament_cmd::TournamentArgs),
    /// Generate seeded move files (and their transcripts) for a test corpus.
    #[command(after_help = gen_cmd::AFTER_HELP)]
    Gen(gen_cmd::GenArgs),
    /// Run students' programs against tests in a sandbox and report.
    #[command(after_help = grade_cmd::AFTER_HELP)]
    Grade(Box<grade_cmd::GradeArgs>),
    /// Package a grading for Gradescope or GitHub Classroom: the grader, the
    /// tests and grade's options.
    Autograder {
        #[command(subcommand)]
        command: Box<autograder_cmd::AutograderCommand>,
    },
    /// Print a shell completion script.
    #[command(after_help = completions_cmd::AFTER_HELP)]
    Completions(completions_cmd::CompletionsArgs),
    /// Print the man page (roff), or with --out-dir write every command's page.
    #[command(after_help = manpage_cmd::AFTER_HELP)]
    Manpage(manpage_cmd::ManpageArgs),
}

#[derive(Debug, Args)]
struct RefereeArgs {
    /// Move files to referee; `-` reads standard input. Several files, or
    /// directories (every *.txt file in them), need --out-dir.
    #[arg(value_name = "MOVES", required = true)]
    moves: Vec<PathBuf>,

    /// Write the transcript to FILE, replacing it only once the transcript is
    /// complete; `-` (or no -o) writes standard output.
    #[arg(short, long, value_name = "FILE", conflicts_with = "out_dir")]
    output: Option<PathBuf>,

    /// Referee every input in parallel, writing each output to DIR under the
    /// input's file name (with `.json` for --format json), and print a summary.
    #[arg(long, value_name = "DIR")]
    out_dir: Option<PathBuf>,

    /// The output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,

    #[command(flatten)]
    layout: LayoutArgs,
}

/// How transcripts look: shared by every command that writes or rebuilds one.
#[derive(Debug, Args)]
struct LayoutArgs {
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

impl LayoutArgs {
    fn options(&self, format: Format) -> Options {
        Options {
            layout: Layout {
                programmer: self.programmer.clone(),
                project: self.project.clone(),
                style: self.style,
                boards: self.boards,
            },
            storage: self.storage,
            format,
        }
    }
}

/// How `--header` compares the first two lines (programmer and project);
/// shared by the commands that compare transcripts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum HeaderArg {
    /// Compare them like any other line.
    Exact,
    /// Compare only each expected line's label, up to and including its
    /// first `:` (`Programmer:`); a line without a `:` is compared whole.
    Label,
    /// Leave them out of the comparison.
    Skip,
}

impl From<HeaderArg> for check::Header {
    fn from(header: HeaderArg) -> check::Header {
        match header {
            HeaderArg::Exact => check::Header::Exact,
            HeaderArg::Label => check::Header::Label,
            HeaderArg::Skip => check::Header::Skip,
        }
    }
}

/// A board chosen on the command line (for games that have no move file).
#[derive(Debug, Args)]
struct BoardArgs {
    /// The board, as `ROWSxCOLS` (default 3x3).
    #[arg(long, value_name = "RxC", value_parser = parse_size)]
    board: Option<(u32, u32)>,

    /// Marks in a row to win (default 3, or the longer side if smaller).
    #[arg(long, value_name = "K")]
    win: Option<u32>,
}

impl BoardArgs {
    fn geometry(&self) -> Result<Geometry, CliError> {
        let (rows, cols) = self.board.unwrap_or((3, 3));
        let win = self.win.unwrap_or_else(|| rows.max(cols).min(3));
        Geometry::new(rows, cols, win).map_err(|_| CliError::Board { rows, cols, win })
    }
}

fn parse_size(text: &str) -> Result<(u32, u32), String> {
    let (rows, cols) = text.split_once(['x', 'X']).ok_or("expected ROWSxCOLS, such as 5x7")?;
    let number =
        |s: &str| s.trim().parse::<u32>().map_err(|_| format!("`{s}` is not a number of rows or columns"));
    Ok((number(rows)?, number(cols)?))
}

/// A search time in seconds: a positive number, such as `5` or `0.5`.
fn parse_seconds(text: &str) -> Result<Duration, String> {
    match text.parse::<f64>() {
        Ok(seconds) if seconds > 0.0 && seconds <= 1e9 => Ok(Duration::from_secs_f64(seconds)),
        _ => Err(format!("`{text}` is not a time; expected a number of seconds above 0, such as 5 or 0.5")),
    }
}

/// Parses `--hash`: a whole number of MiB within the engine's limits.
fn parse_hash_mb(text: &str) -> Result<u32, String> {
    use crate::engine::{MAX_HASH_MB, MIN_HASH_MB};
    match text.parse::<u32>() {
        Ok(mb) if (MIN_HASH_MB..=MAX_HASH_MB).contains(&mb) => Ok(mb),
        _ => Err(format!(
            "`{text}` is not a table size; expected a whole number of megabytes from {MIN_HASH_MB} to {MAX_HASH_MB}, such as 256"
        )),
    }
}

/// Accepts a value that fits on one transcript line.
fn one_line(value: &str) -> Result<String, String> {
    if value.contains(['\n', '\r']) { Err("must be a single line".to_owned()) } else { Ok(value.to_owned()) }
}

/// Why a run failed. Every message that concerns a file starts with its path;
/// each usage mistake clap cannot see has its own variant. All exit with
/// [`EXIT_ERROR`] (but for [`CliError::BrokenPipe`]).
#[derive(Debug, Error)]
enum CliError {
    /// A move file is malformed.
    #[error("{path}:{}: {}", .error.line(), .error.kind())]
    Malformed { path: Shown, error: ParseError },
    /// The referee cannot play a move file through (a board too big for the
    /// options given).
    #[error("{path}: {error}")]
    Unplayable { path: Shown, error: RefereeError },
    #[error("{path}: cannot open: {}", describe(.source))]
    Open { path: Shown, source: io::Error },
    #[error("{path}: cannot read: {}", describe(.source))]
    Read { path: Shown, source: io::Error },
    #[error("{path}: is a directory; expected a move file (or use --out-dir to referee every file in it)")]
    Directory { path: Shown },
    #[error("{path}: cannot write: {}", describe(.source))]
    Write { path: Shown, source: io::Error },
    /// The output named is the move file itself.
    #[error("{path}: is the input file; refusing to overwrite it (choose another output)")]
    SameFile { path: Shown },

    /// `--board` and `--win` that make no board.
    #[error(
        "--board {rows}x{cols} --win {win} is not a playable board; expected sides from 1 to {max} and a win from 1 to the longer side",
        max = crate::board::MAX_SIDE
    )]
    Board { rows: u32, cols: u32, win: u32 },
    /// Several move files without `--out-dir`.
    #[error("{count} move files given; several files need --out-dir DIR")]
    SeveralInputs { count: usize },
    /// `-` among the inputs of `--out-dir`.
    #[error("standard input (`-`) cannot be refereed with --out-dir")]
    StdinInBatch,
    /// Two batch inputs with one file name: the later one is refused.
    #[error("{}: another input has the same file name; its output would overwrite {}", .input.display(), .output.display())]
    SameOutput { input: PathBuf, output: PathBuf },
    /// A directory `check` or `grade` was given that is none.
    #[error("{path}: {}; expected {what}", .error.as_ref().map_or_else(|| "not a directory".to_owned(), |e| format!("cannot open: {}", describe(e))))]
    NoDirectory { path: Shown, what: &'static str, error: Option<io::Error> },
    /// A first move file that is no file but looks like a mistyped command.
    #[error("{given}: neither a move file nor a command; did you mean `ttt-referee {command}`?")]
    UnknownCommand { given: String, command: String },
    /// `check` with neither a pair of files nor a pair of directories (clap
    /// prevents it; kept as an error, not a panic).
    #[error("check needs MOVES TRANSCRIPT, or --moves DIR --transcripts DIR")]
    CheckInputs,
    /// `hint` on a finished game.
    #[error("{path}: the game is over (Winner: {}); there is no move to hint", winner_name(*.winner))]
    GameOver { path: Shown, winner: Option<Mark> },
    /// The engine asked for a hint cannot play this game.
    #[error("{path}: {error}")]
    Engine { path: Shown, error: EngineError },
    /// `gen --within cs1044` with another board or player count.
    #[error("--within cs1044: {0}; drop --board, --win and --players")]
    Within(GenError),
    /// `gen` made a move file the referee rejects (a bug in the generator).
    #[error("{}: generated a file the referee rejects: {error}", .path.display())]
    Generated { path: PathBuf, error: RefereeError },
    /// `play --board`/`--win` with a profile that asks for the board itself.
    #[error("--board and --win do not apply to a profile that asks for the board itself; leave them out")]
    BoardWithProfile { profile: Profile },
    /// `play --x`/`--o` with a profile that asks who plays each side.
    #[error("--x and --o do not apply to a profile that asks who plays each side; leave them out")]
    SidesWithProfile { profile: Profile },
    /// A game `play` recorded does not referee (a bug in the console); the
    /// path is the transcript that could not be made.
    #[error("{}: the recorded game does not referee: {error}", .path.display())]
    Recorded { path: PathBuf, error: RefereeError },
    /// A computer player cannot play the game `play` set up.
    #[error(transparent)]
    Play(PlayError),
    /// `grade --io` with `--profile`.
    #[error(
        "--io does not apply with --profile: a console program reads its script on standard input and answers on standard output"
    )]
    IoWithProfile,
    /// `grade --open-files` above the grader's own hard limit, which no
    /// run can be given more than.
    #[error(
        "--open-files {asked} is more than this grader may give a run: its own hard limit on open files is {hard} (`ulimit -Hn`)"
    )]
    OpenFilesAboveHard { asked: u64, hard: u64 },
    /// The tests cannot be read or answered (each names its file).
    #[error(transparent)]
    Suite(SuiteError),
    /// The languages file (`grade.toml`, `--config`) is not valid.
    #[error(transparent)]
    Config(ConfigError),
    /// The provided directory cannot be used (`--provided`).
    #[error(transparent)]
    Provided(ProvidedError),
    /// `--points` or a visibility pattern that is not one.
    #[error(transparent)]
    Scoring(ScoringError),
    /// `--gradescope` with more than one submission.
    #[error("--gradescope writes the results of one submission; {count} were given")]
    GradescopeNeedsOne { count: usize },
    /// `--classroom` was given several submissions.
    #[error("--classroom writes the feedback of one submission; {count} were given")]
    ClassroomNeedsOne { count: usize },
    /// The submissions given cannot be graded (none, or two of one name).
    #[error(transparent)]
    Class(ClassError),
    /// The grader cannot start (the sandbox, `--run`, `--require-sandbox`).
    #[error(transparent)]
    Grade(GradeError),
    /// Grading started, then could not go on.
    #[error("grading stopped: {0}")]
    GradingStopped(GradeError),
    /// The autograder commands cannot find this program to package it.
    #[error("cannot find this program to package it: {}; pass --binary", describe(.0))]
    CurrentExe(io::Error),
    /// A binary the autograder commands would package, which the platform
    /// could not start.
    #[error(transparent)]
    NotPortable(PackageError),
    /// A match or tournament participant that is neither an engine nor a
    /// directory.
    #[error(
        "`{arg}` is not a participant: expected an engine (perfect, minimax, rules or random) or a directory holding a bot's source"
    )]
    NotAParticipant { arg: String },
    /// More wins asked of `grade --play` than it plays games.
    #[error("--min-wins {min_wins}: more than the {games} games against random (--games)")]
    MinWins { min_wins: u64, games: u64 },
    /// Two participants of one name.
    #[error("`{name}` names two participants; each must have a name of its own")]
    SameName { name: String },
    /// An engine that cannot play the board or the number of players asked.
    #[error("{name}: {error}")]
    EngineCannotPlay { name: String, error: EngineError },
    /// A board too large for a match.
    #[error(
        "--board {}x{}: matches are played on boards of up to {max} squares (the bot protocol sends the whole board with every move)",
        .geometry.rows(), .geometry.cols(), max = arena_cmd::MAX_SQUARES
    )]
    ArenaBoard { geometry: Geometry },
    /// A match with fewer than 2 or more than 10 participants.
    #[error("{count} participants: a match seats 2 to 10 (every participant plays every game)")]
    MatchPlayers { count: usize },
    /// `tournament --players N` with fewer participants.
    #[error("--players {players} with {count} participants; a game needs {players}")]
    TooFewParticipants { players: usize, count: usize },
    /// An openings file that is not text.
    #[error("{}: not UTF-8 text; expected openings, one a line, such as `5 1`", .path.display())]
    OpeningsNotText { path: PathBuf },
    /// An openings file with an opening that cannot be played.
    #[error("{}", openings_message(.path, .error))]
    Openings { path: PathBuf, error: OpeningError },
    /// A match or tournament that could not be run through (its report).
    #[error(transparent)]
    Arena(EventError),
    /// Standard output was closed by its reader: not worth a message.
    #[error("broken pipe")]
    BrokenPipe,
}

impl CliError {
    fn write(path: &Path, source: io::Error) -> CliError {
        CliError::Write { path: Shown::output(Some(path)), source }
    }

    /// A package the autograder commands could not write.
    fn package(error: PackageError) -> CliError {
        match error {
            PackageError::Read { path, source } => CliError::Read { path: Shown::input(&path), source },
            PackageError::Open { path, source } => CliError::Open { path: Shown::input(&path), source },
            PackageError::Write { path, source } => CliError::write(&path, source),
            e @ PackageError::NotPortable { .. } => CliError::NotPortable(e),
        }
    }

    /// A grading's report that could not be written.
    fn report(error: ReportError) -> CliError {
        match error.path {
            Some(path) => CliError::write(&path, error.source),
            None => CliError::stdout(error.source),
        }
    }

    /// An error writing standard output: quiet if its reader went away.
    fn stdout(source: io::Error) -> CliError {
        if source.kind() == io::ErrorKind::BrokenPipe {
            CliError::BrokenPipe
        } else {
            CliError::Write { path: Shown::output(None), source }
        }
    }

    /// The referee's `error` refereeing `moves` into `output` (standard
    /// output if `None`), with the path each concerns: the one conversion of
    /// a [`RefereeError`] on a file someone gave.
    fn referee(error: RefereeError, moves: &Path, output: Option<&Path>) -> CliError {
        match error {
            RefereeError::Parse(error) => CliError::Malformed { path: Shown::input(moves), error },
            RefereeError::Write(source) => CliError::Write { path: Shown::output(output), source },
            error @ (RefereeError::TooBigForDense(_) | RefereeError::TooBigToPrint(_)) => {
                CliError::Unplayable { path: Shown::input(moves), error }
            }
        }
    }
}

impl From<JobError> for CliError {
    fn from(error: JobError) -> CliError {
        match error {
            JobError::Open { path, source } => CliError::Open { path: Shown::input(&path), source },
            JobError::Directory { path } => CliError::Directory { path: Shown::input(&path) },
            JobError::SameFile { path } => CliError::SameFile { path: Shown::Path(path) },
            // A write error is `JobError::Write`, never inside `Referee`.
            JobError::Referee { path, error } => CliError::referee(error, &path, None),
            JobError::Write { path, source } => CliError::write(&path, source),
        }
    }
}

impl From<SuiteError> for CliError {
    fn from(error: SuiteError) -> CliError {
        match error {
            SuiteError::Malformed { path, error } => {
                CliError::referee(RefereeError::Parse(error), &path, None)
            }
            SuiteError::Unplayable { path, error } => CliError::referee(error, &path, None),
            SuiteError::Read { path, source } => CliError::Read { path: Shown::Path(path), source },
            error => CliError::Suite(error),
        }
    }
}

impl From<ConfigError> for CliError {
    fn from(error: ConfigError) -> CliError {
        match error {
            ConfigError::Read { path, source } => CliError::Read { path: Shown::Path(path), source },
            error @ ConfigError::Invalid { .. } => CliError::Config(error),
        }
    }
}

impl From<PlayError> for CliError {
    fn from(error: PlayError) -> CliError {
        match error {
            PlayError::Output(source) => CliError::stdout(source),
            PlayError::Input(source) => CliError::Read { path: Shown::Stdin, source },
            error @ (PlayError::Engine(_) | PlayError::EngineMove { .. }) => CliError::Play(error),
        }
    }
}

/// An openings file's error, `PATH:LINE: why` for a line.
fn openings_message(path: &Path, error: &OpeningError) -> String {
    match error {
        OpeningError::Line { line, why } => format!("{}:{line}: {why}", path.display()),
        OpeningError::Empty => format!("{}: {error}", path.display()),
    }
}

/// The winner as a transcript's `Winner:` line names it: a mark, or `Cat`.
fn winner_name(winner: Option<Mark>) -> String {
    winner.map_or_else(|| "Cat".to_owned(), |mark| mark.to_string())
}

/// A path as messages show it: `<stdin>` and `<stdout>` for `-`, any
/// other made inert ([`text::inert`]: a student's file name is shown, never
/// obeyed).
#[derive(Debug)]
enum Shown {
    Stdin,
    Stdout,
    Path(PathBuf),
}

impl Shown {
    fn input(path: &Path) -> Shown {
        if is_dash(path) { Shown::Stdin } else { Shown::Path(path.to_owned()) }
    }

    fn output(path: Option<&Path>) -> Shown {
        path.map_or(Shown::Stdout, |p| Shown::Path(p.to_owned()))
    }
}

impl fmt::Display for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Shown::Stdin => f.write_str("<stdin>"),
            Shown::Stdout => f.write_str("<stdout>"),
            Shown::Path(path) => f.write_str(&text::inert(&path.display().to_string())),
        }
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
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    // The grader's guard is this binary in a hidden mode (see `sandbox`).
    if let Some(stage) = args.get(1).and_then(|a| a.to_str())
        && [sandbox::GUARD_ARG, sandbox::INIT_ARG, sandbox::LAUNCH_ARG].contains(&stage)
    {
        sandbox::guard_main(stage, &args[2..]);
    }
    // The common case, one move file and perhaps `-o FILE`, skips clap:
    // building the whole command tree (every subcommand's arguments and help)
    // is most of a one-file run's own work (BENCHMARKS.md).
    if let Some(referee) = plain_referee_args(&args[1..]) {
        return finish(run_referee(&referee));
    }
    // The matches are kept: the autograder commands pass on the grade
    // options given, as given.
    let parsed = Cli::command().try_get_matches_from(args).and_then(|m| Ok((Cli::from_arg_matches(&m)?, m)));
    let (cli, matches) = match parsed {
        Ok(parsed) => parsed,
        Err(e) => {
            // Printing help into a closed pipe is not worth a second error.
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { EXIT_ERROR } else { EXIT_SUCCESS });
        }
    };
    let status = match cli.command {
        None => run_referee(&cli.referee),
        Some(Command::Check(args)) => check_cmd::run(&args),
        Some(Command::Gen(args)) => gen_cmd::run(&args),
        Some(Command::Hint(args)) => hint_cmd::run(&args),
        Some(Command::Play(args)) => play_cmd::run(&args),
        Some(Command::Match(args)) => match_cmd::run(&args),
        Some(Command::Tournament(args)) => tournament_cmd::run(&args),
        Some(Command::Grade(args)) => grade_cmd::run(&args),
        Some(Command::Autograder { command }) => {
            let sub = matches.subcommand().and_then(|(_, m)| m.subcommand()).map(|(_, m)| m);
            autograder_cmd::run(&command, sub.unwrap_or(&matches))
        }
        Some(Command::Completions(args)) => completions_cmd::run(&args, Cli::command()),
        Some(Command::Manpage(args)) => manpage_cmd::run(&args, Cli::command()),
    };
    finish(status)
}

fn finish(status: Result<u8, CliError>) -> ExitCode {
    match status {
        Ok(code) => ExitCode::from(code),
        Err(CliError::BrokenPipe) => ExitCode::from(EXIT_SUCCESS),
        Err(e) => {
            // An error may quote a student's file or program: inert, line by line.
            eprintln!("ttt-referee: {}", text::inert_lines(&e.to_string()));
            ExitCode::from(EXIT_ERROR)
        }
    }
}

/// The arguments clap would parse from `args` (without the program name)
/// when they are exactly one move file and at most one `-o FILE`,
/// `--output FILE` or `--output=FILE`, in either order; `None` for anything
/// else, which clap then parses. Only forms clap reads the same way are
/// taken: a move file that could be a word for a command (only lowercase
/// letters and hyphens, `-` included), an empty value or one that begins
/// with `-`, and arguments that are not UTF-8 all go to clap.
fn plain_referee_args(args: &[OsString]) -> Option<RefereeArgs> {
    let value = |arg: &str| (!arg.is_empty() && !arg.starts_with('-')).then(|| PathBuf::from(arg));
    let mut moves = None;
    let mut output = None;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let arg = arg.to_str()?;
        let given = if arg == "-o" || arg == "--output" {
            &mut output
        } else if let Some(rest) = arg.strip_prefix("--output=") {
            if output.replace(value(rest)?).is_some() {
                return None;
            }
            continue;
        } else if arg.bytes().all(|b| b.is_ascii_lowercase() || b == b'-') {
            return None;
        } else {
            if moves.replace(value(arg)?).is_some() {
                return None;
            }
            continue;
        };
        if given.replace(value(args.next()?.to_str()?)?).is_some() {
            return None;
        }
    }
    Some(RefereeArgs {
        moves: vec![moves?],
        output,
        out_dir: None,
        format: Format::Text,
        layout: LayoutArgs {
            programmer: Layout::DEFAULT_PROGRAMMER.to_owned(),
            project: Layout::DEFAULT_PROJECT.to_owned(),
            style: Style::Classic,
            boards: Boards::Each,
            storage: Storage::Auto,
        },
    })
}

fn run_referee(args: &RefereeArgs) -> Result<u8, CliError> {
    let options = args.layout.options(args.format);
    if let Some(out_dir) = &args.out_dir {
        return run_batch(&args.moves, out_dir, &options);
    }
    if let Some(error) = mistyped_command(&args.moves) {
        return Err(error);
    }
    let [moves] = args.moves.as_slice() else {
        return Err(CliError::SeveralInputs { count: args.moves.len() });
    };
    let output = args.output.as_deref().filter(|p| !is_dash(p));
    // Renamed into place whole: a kill or a failure never leaves half a file.
    // A sync as well would triple the run's time (README, Performance).
    let report = referee_file(moves, output, &options, Durability::Renamed)?;
    if report.game.outcome().is_none() {
        let _ = writeln!(
            io::stderr(),
            "ttt-referee: warning: {}: the moves ran out before the game ended (Winner: None)",
            Shown::input(moves)
        );
    }
    Ok(EXIT_SUCCESS)
}

/// The error for a first "move file" that does not exist and is a word
/// close to a command's name (`chek` for `check`): clap takes any word that
/// is not a command for a move file.
fn mistyped_command(moves: &[PathBuf]) -> Option<CliError> {
    let given = moves.first()?.to_str()?;
    if given.is_empty()
        || !given.bytes().all(|b| b.is_ascii_lowercase() || b == b'-')
        || Path::new(given).exists()
    {
        return None;
    }
    let commands = Cli::command();
    let names: Vec<&str> =
        commands.get_subcommands().filter(|c| !c.is_hide_set()).map(clap::Command::get_name).collect();
    // The nearest name within a typo or two, else the only one it begins.
    let near = names
        .iter()
        .map(|name| (edit_distance(given, name), *name))
        .filter(|&(distance, name)| distance <= if name.len() <= 4 { 1 } else { 2 })
        .min();
    let command = near.map(|(_, name)| name).or_else(|| {
        let mut starting = names.iter().filter(|name| given.len() >= 3 && name.starts_with(given));
        starting.next().filter(|_| starting.next().is_none()).copied()
    })?;
    Some(CliError::UnknownCommand { given: given.to_owned(), command: command.to_owned() })
}

/// The edits (insertions, deletions, substitutions, swaps of neighbours)
/// that turn `a` into `b`.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut rows = vec![(0..=b.len()).collect::<Vec<usize>>()];
    for i in 1..=a.len() {
        let mut row = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            row[j] = (rows[i - 1][j] + 1).min(row[j - 1] + 1).min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                row[j] = row[j].min(rows[i - 2][j - 2] + 1);
            }
        }
        rows.push(row);
    }
    rows[a.len()][b.len()]
}

/// Referees `moves` into `output` (standard output if `None`), all or nothing.
fn referee_file(
    moves: &Path,
    output: Option<&Path>,
    options: &Options,
    durability: Durability,
) -> Result<Report, CliError> {
    let input = open_input(moves, output)?;
    let mut staged = match output {
        Some(path) => Staged::file(path, durability).map_err(|source| CliError::write(path, source))?,
        None => Staged::stdout(),
    };
    let report =
        referee::referee(input, &mut staged, options).map_err(|e| CliError::referee(e, moves, output))?;
    staged.commit().map_err(|source| match output {
        Some(path) => CliError::write(path, source),
        None => CliError::stdout(source),
    })?;
    Ok(report)
}

/// Referees every file of `inputs` into `out_dir` in parallel; reports each
/// failure, then a summary, on standard error.
fn run_batch(inputs: &[PathBuf], out_dir: &Path, options: &Options) -> Result<u8, CliError> {
    if inputs.iter().any(|p| is_dash(p)) {
        return Err(CliError::StdinInBatch);
    }
    fs::create_dir_all(out_dir).map_err(|source| CliError::write(out_dir, source))?;
    let jobs = batch::jobs(inputs, out_dir, options.format)
        .map_err(|(path, source)| CliError::Open { path: Shown::input(&path), source })?;

    // Two inputs with one file name would overwrite each other's output: the
    // first keeps the name, the others fail.
    let mut seen = std::collections::HashSet::new();
    let (jobs, clashes): (Vec<_>, Vec<_>) = jobs.into_iter().partition(|job| seen.insert(job.output.clone()));
    let clashes =
        clashes.into_iter().map(|job| Err(CliError::SameOutput { input: job.input, output: job.output }));
    let results = batch::run_all(&jobs, options).into_iter().map(|result| result.map_err(CliError::from));

    let mut summary = Summary::default();
    let mut stderr = io::stderr().lock();
    for result in clashes.chain(results) {
        match &result {
            Ok(report) => summary.add(report),
            Err(e) => {
                summary.failed += 1;
                let _ = writeln!(stderr, "ttt-referee: {}", text::inert_lines(&e.to_string()));
            }
        }
    }
    let _ = writeln!(stderr, "ttt-referee: {summary}");
    Ok(if summary.failed > 0 { EXIT_ERROR } else { EXIT_SUCCESS })
}

/// Writes `path` whole through `write`: the file appears, renamed into
/// place, only once everything is written.
fn write_whole(
    path: &Path,
    durability: Durability,
    write: impl FnOnce(&mut Staged) -> io::Result<()>,
) -> Result<(), CliError> {
    output::write_whole(path, durability, write).map_err(|source| CliError::write(path, source))
}

/// Opens a move file, refusing an output path that is the same file.
fn open_input(path: &Path, output: Option<&Path>) -> Result<Box<dyn BufRead>, CliError> {
    if is_dash(path) {
        return Ok(Box::new(io::stdin().lock()));
    }
    Ok(Box::new(batch::open_move_file(path, output)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn the_plain_referee_path_parses_as_clap_does() {
        let taken: &[&[&str]] = &[
            &["TTTmoves.txt"],
            &["TTTmoves.txt", "-o", "out.txt"],
            &["-o", "out.txt", "moves/a.txt"],
            &["TTTmoves.txt", "--output", "out"],
            &["TTTmoves.txt", "--output=out.txt"],
            &["./check", "-o", "x"],
        ];
        let left: &[&[&str]] = &[
            &[],
            &["-"],
            &["check"],
            &["chek"],
            &["help"],
            &[""],
            &["a.txt", "b.txt"],
            &["a.txt", "-o"],
            &["a.txt", "-o", ""],
            &["a.txt", "-o", "-"],
            &["a.txt", "-o", "x", "-o", "y"],
            &["a.txt", "--output="],
            &["a.txt", "-ox"],
            &["a.txt", "-o=x"],
            &["a.txt", "--out-dir", "d"],
            &["a.txt", "--format", "json"],
            &["a.txt", "--"],
            &["--version"],
            &["-o", "x"],
        ];
        for args in taken {
            let plain = plain_referee_args(&args.iter().map(OsString::from).collect::<Vec<_>>())
                .unwrap_or_else(|| panic!("{args:?} should be taken"));
            let cli =
                Cli::try_parse_from(std::iter::once("ttt-referee").chain(args.iter().copied())).unwrap();
            assert!(cli.command.is_none(), "{args:?}");
            assert_eq!(format!("{plain:?}"), format!("{:?}", cli.referee), "{args:?}");
        }
        for args in left {
            let os: Vec<OsString> = args.iter().map(OsString::from).collect();
            assert!(plain_referee_args(&os).is_none(), "{args:?} should be left to clap");
        }
    }

    /// The referee's error on `text`.
    fn refereed(text: &str, options: &Options) -> RefereeError {
        referee::referee(text.as_bytes(), io::sink(), options).unwrap_err()
    }

    fn too_big_to_print() -> RefereeError {
        RefereeError::TooBigToPrint(Geometry::new(5000, 5000, 3).unwrap())
    }

    #[test]
    fn referee_errors_name_the_file_they_concern() {
        let malformed = CliError::referee(refereed("", &Options::default()), Path::new("-"), None);
        assert!(matches!(malformed, CliError::Malformed { path: Shown::Stdin, .. }), "{malformed:?}");
        assert!(malformed.to_string().starts_with("<stdin>:1: the file is empty; expected a title line"));

        let unplayable = CliError::referee(too_big_to_print(), Path::new("big.txt"), None);
        assert!(
            matches!(&unplayable, CliError::Unplayable { path: Shown::Path(p), .. } if p == Path::new("big.txt"))
        );
        assert_eq!(
            unplayable.to_string(),
            "big.txt: a 5000x5000 board has 25000000 squares, too many to print (at most 16777216); use --boards none"
        );

        let write = RefereeError::Write(io::Error::from_raw_os_error(28));
        let unwritable = CliError::referee(write, Path::new("in.txt"), Some(Path::new("out.txt")));
        assert_eq!(unwritable.to_string(), "out.txt: cannot write: No space left on device");
        let write = RefereeError::Write(io::Error::from_raw_os_error(28));
        assert_eq!(
            CliError::referee(write, Path::new("in.txt"), None).to_string(),
            "<stdout>: cannot write: No space left on device"
        );
    }

    #[test]
    fn errors_no_command_line_should_reach_still_say_what_and_where() {
        assert_eq!(
            CliError::CheckInputs.to_string(),
            "check needs MOVES TRANSCRIPT, or --moves DIR --transcripts DIR"
        );
        let generated =
            CliError::Generated { path: "corpus/game-0001.txt".into(), error: too_big_to_print() };
        assert!(
            generated.to_string().starts_with(
                "corpus/game-0001.txt: generated a file the referee rejects: a 5000x5000 board has"
            ),
            "{generated}"
        );
        let recorded = CliError::Recorded { path: "game-2.out".into(), error: too_big_to_print() };
        assert!(
            recorded
                .to_string()
                .starts_with("game-2.out: the recorded game does not referee: a 5000x5000 board"),
            "{recorded}"
        );
        assert_eq!(
            CliError::CurrentExe(io::Error::from_raw_os_error(2)).to_string(),
            "cannot find this program to package it: No such file or directory; pass --binary"
        );
        assert_eq!(
            CliError::Board { rows: 0, cols: 3, win: 3 }.to_string(),
            "--board 0x3 --win 3 is not a playable board; expected sides from 1 to 1000000 and a win from 1 to the longer side"
        );
        // clap already refuses --points 0.
        assert_eq!(
            CliError::Scoring(ScoringError::Points(0.0)).to_string(),
            "0 points: expected a number above 0"
        );
        assert_eq!(
            CliError::GameOver { path: Shown::Path("won.txt".into()), winner: Some(Mark::X) }.to_string(),
            "won.txt: the game is over (Winner: X); there is no move to hint"
        );
    }

    #[test]
    fn a_grading_that_cannot_start_its_threads_says_so_without_a_path() {
        let source = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .spawn_handler(|_| Err(io::Error::from_raw_os_error(11)))
            .build()
            .unwrap_err();
        let stopped = CliError::GradingStopped(GradeError::Threads { jobs: 3, source });
        assert_eq!(
            stopped.to_string(),
            "grading stopped: cannot start 3 worker threads: Resource temporarily unavailable (os error 11)"
        );
    }

    #[test]
    fn io_errors_lose_the_os_error_suffix() {
        let e = io::Error::from_raw_os_error(2);
        assert_eq!(describe(&e), "No such file or directory");
    }
}
