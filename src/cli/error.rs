//! How a command ends: its exit statuses, and why it failed ([`CliError`]),
//! every message naming the file it concerns.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::arena::EventError;
use crate::arena::schedule::{OpeningError, StartError};
use crate::batch::JobError;
use crate::board::Geometry;
use crate::corpus::GenError;
use crate::engine::EngineError;
use crate::grade::package::PackageError;
use crate::grade::report::ReportError;
use crate::grade::report::gradescope::ScoringError;
use crate::grade::report::merge::MergeError;
use crate::grade::suite::SuiteError;
use crate::grade::{ClassError, GradeError, ProvidedError};
use crate::movefile::ParseError;
use crate::play::{PlayError, Profile};
use crate::player::Mark;
use crate::referee::RefereeError;
use crate::text;
use crate::workshop::language::ConfigError;

/// Exit status of a successful run.
pub const EXIT_SUCCESS: u8 = 0;
/// Exit status when a check finds differences.
pub const EXIT_DIFFERENCES: u8 = 1;
/// Exit status for usage errors, unreadable or malformed input, and I/O failures.
pub const EXIT_ERROR: u8 = 2;
/// Exit status: stopped by Ctrl-C or SIGTERM (what was finished is kept).
pub const EXIT_INTERRUPTED: u8 = 130;

/// Why a run failed. Every message that concerns a file starts with its path;
/// each usage mistake clap cannot see has its own variant. All exit with
/// [`EXIT_ERROR`] (but for [`CliError::BrokenPipe`]).
#[derive(Debug, Error)]
pub(super) enum CliError {
    /// A move file is malformed.
    #[error("{path}:{}: {}", .error.line(), .error.kind())]
    Malformed { path: Shown, error: ParseError },
    /// The referee cannot play a move file through (a board too big for the
    /// options given).
    #[error("{path}: {error}")]
    Unplayable { path: Shown, error: RefereeError },
    #[error("{path}: cannot open: {}", describe(.source))]
    Open { path: Shown, source: io::Error },
    /// A move file that is not there, beside one whose name is a letter or
    /// two away (`TTTmove.txt` for `TTTmoves.txt`).
    #[error("{path}: no such file; did you mean {near}?")]
    Mistyped { path: Shown, near: Shown },
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
    /// An output path with something of the wrong kind in its way, found
    /// before any work was done.
    #[error("{path}: {found} is in the way of {option} (expected {expected}); nothing was done")]
    InTheWay { path: Shown, option: &'static str, expected: &'static str, found: &'static str },
    /// `gen --out-dir DIR` into a directory that holds files, without --force.
    #[error(
        "{path}: not empty; gen writes a corpus into a new or empty directory (--force writes over the files of the same names)"
    )]
    NotEmpty { path: Shown },
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
    /// `--rule exact` where the games made are move files, which do not
    /// record the rule (`gen`): they would be refereed K-or-more.
    #[error("--rule exact does not apply to {command}: a move file does not record the rule; leave it out")]
    RuleNotRecorded { command: &'static str },
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
    /// `--partition` on a grading that draws its seed: each part would
    /// draw another.
    #[error(
        "--partition {partition}: this grading's games, cases or generated tests come from a seed, and each part would draw its own; give every part the same --seed N"
    )]
    PartitionNeedsSeed { partition: crate::grade::Partition },
    /// The parts given to `merge` cannot be merged.
    #[error("merge: {0}")]
    Merge(MergeError),
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
        "`{arg}` is not a participant: expected an engine (perfect, strong, minimax, rules or random) or a directory holding a bot's source, or gomocup:PATH (a Gomocup brain's directory or executable)"
    )]
    NotAParticipant { arg: String },
    /// `--sprt` that cannot be run.
    #[error("--sprt: {why}")]
    Sprt { why: String },
    /// A Gomocup brain given for games it cannot play.
    #[error("`{arg}` cannot play these games: {why}")]
    BrainCannotPlay { arg: String, why: String },
    /// `--partition` on an event with no report directory to hold the part.
    #[error(
        "--partition {partition}: a part is written to a report directory for `merge`; give --report DIR"
    )]
    PartNeedsReport { partition: crate::partition::Partition },
    /// `--partition` with `--sprt`, which decides game by game.
    #[error(
        "--partition {partition}: --sprt stops a match as soon as it decides, which a part cannot know; run it on one machine"
    )]
    PartWithSprt { partition: crate::partition::Partition },
    /// Parts of a split event that cannot be merged.
    #[error("{0}")]
    EventMerge(#[from] crate::arena::part::MergeError),
    /// A bot that cannot be built for a reason of the grader's (the
    /// sandbox refused or starved its build).
    #[error("{name}: it cannot be built here, through no fault of its own: {why}")]
    BotNotBuilt { name: String, why: String },
    /// A directory of kept builds (`--prebuilt`) that cannot be used.
    #[error("--prebuilt {0}")]
    Kept(#[from] crate::workshop::kept::KeptError),
    /// A bot `--prebuilt DIR` holds no build of.
    #[error(
        "{name}: --prebuilt {dir} holds no build of it; build every participant with `ttt-referee build PARTICIPANT... --out {dir}`"
    )]
    NotKept { name: String, dir: String },
    /// A bot whose source changed since `ttt-referee build` kept its build.
    #[error(
        "{name}: its source is not the one --prebuilt {dir} was built from (its digest is {now}, the build's {then}); build again"
    )]
    KeptStale { name: String, dir: String, now: String, then: String },
    /// A kept build that cannot be run as kept: never the bot's fault.
    #[error("{name}: its build in --prebuilt cannot be used: {why}")]
    KeptUnusable { name: String, why: String },
    /// `build --out` that cannot be written.
    #[error("{dir}: {why}")]
    BuildOut { dir: String, why: String },
    /// The key that seals an event's records cannot be used.
    #[error("{0}")]
    RecordKey(#[from] crate::arena::seal::KeyError),
    /// Two participants of one name.
    #[error("`{name}` names two participants; each must have a name of its own")]
    SameName { name: String },
    /// Two participants whose names records write alike.
    #[error(
        "`{first}` and `{second}` are both written `{recorded}` in game records (white space, `:` and control characters become `_`), which could not tell their games apart; rename one"
    )]
    SameRecordName { first: String, second: String, recorded: String },
    /// `--versus` names one test twice, or a built-in one.
    #[error(
        "--versus: a test named {test} is there already; each opponent is a test of its own name (rename a \
         reference bot's directory)"
    )]
    VersusTwice { test: String },
    /// A reference bot's directory whose name cannot name a test.
    #[error(
        "--versus: `{name}` cannot name a test: name a reference bot's directory with letters, digits, `.`, `_` \
         and `-`"
    )]
    VersusName { name: String },
    /// An engine that cannot play the board or the number of players asked.
    #[error("{name}: {error}")]
    EngineCannotPlay { name: String, error: EngineError },
    /// A board too large for a match.
    #[error(
        "--board {}x{}: matches are played on boards of up to {max} squares (the bot protocol sends the whole board with every move)",
        .geometry.rows(), .geometry.cols()
    )]
    ArenaBoard { geometry: Geometry, max: u64 },
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
    /// A move file `match --from` cannot play on from.
    #[error("{}", start_message(.path, .error))]
    Start { path: Shown, error: StartError },
    /// A move file `match --from` names another number of players.
    #[error("{path}: {found} players; this match has {seats} participants, each a player of every game")]
    StartPlayers { path: Shown, found: usize, seats: usize },
    /// `play --x BOT_DIR` (or `--o`) with a profile's console.
    #[error("a bot plays at the default console only; leave out --profile")]
    BotWithProfile { profile: Profile },
    /// A match or tournament that could not be run through (its report).
    #[error(transparent)]
    Arena(EventError),
    /// `autograder try` could not try the package.
    #[error(transparent)]
    Trial(crate::grade::package::trial::TrialError),
    /// Standard output was closed by its reader: not worth a message.
    #[error("broken pipe")]
    BrokenPipe,
}

impl CliError {
    pub(super) fn write(path: &Path, source: io::Error) -> CliError {
        CliError::Write { path: Shown::output(Some(path)), source }
    }

    /// A package the autograder commands could not write.
    pub(super) fn package(error: PackageError) -> CliError {
        match error {
            PackageError::Read { path, source } => CliError::Read { path: Shown::input(&path), source },
            PackageError::Open { path, source } => CliError::Open { path: Shown::input(&path), source },
            PackageError::Write { path, source } => CliError::write(&path, source),
            e @ PackageError::NotPortable { .. } => CliError::NotPortable(e),
        }
    }

    /// A grading's report that could not be written.
    pub(super) fn report(error: ReportError) -> CliError {
        match error.path {
            Some(path) => CliError::write(&path, error.source),
            None => CliError::stdout(error.source),
        }
    }

    /// An error writing standard output: quiet if its reader went away.
    pub(super) fn stdout(source: io::Error) -> CliError {
        if source.kind() == io::ErrorKind::BrokenPipe {
            CliError::BrokenPipe
        } else {
            CliError::Write { path: Shown::output(None), source }
        }
    }

    /// The referee's `error` refereeing `moves` into `output` (standard
    /// output if `None`), with the path each concerns: the one conversion of
    /// a [`RefereeError`] on a file someone gave.
    pub(super) fn referee(error: RefereeError, moves: &Path, output: Option<&Path>) -> CliError {
        match error {
            RefereeError::Parse(error) => CliError::Malformed { path: Shown::input(moves), error },
            RefereeError::Write(source) if output.is_none() => CliError::stdout(source),
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
            JobError::Open { path, source } => match near_name(&path, &source) {
                Some(near) => CliError::Mistyped { path: Shown::input(&path), near: Shown::Path(near) },
                None => CliError::Open { path: Shown::input(&path), source },
            },
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
            error @ (PlayError::Engine(_) | PlayError::EngineMove { .. } | PlayError::NoProgram { .. }) => {
                CliError::Play(error)
            }
        }
    }
}

/// An openings file's error, `PATH:LINE: why` for a line.
pub(super) fn openings_message(path: &Path, error: &OpeningError) -> String {
    match error {
        OpeningError::Line { line, why } => format!("{}:{line}: {why}", path.display()),
        OpeningError::Empty => format!("{}: {error}", path.display()),
    }
}

/// Why `match --from` cannot play on from a file: `PATH:LINE: why` for a
/// line.
pub(super) fn start_message(path: &Shown, error: &StartError) -> String {
    match error {
        StartError::Malformed(error) => format!("{path}:{}: {}", error.line(), error.kind()),
        StartError::Line { line, why } => format!("{path}:{line}: {why}"),
        StartError::Short { .. } => format!("{path}: {error}"),
    }
}

/// The winner as a transcript's `Winner:` line names it: a mark, or `Cat`.
pub(super) fn winner_name(winner: Option<Mark>) -> String {
    winner.map_or_else(|| "Cat".to_owned(), |mark| mark.to_string())
}

/// A path as messages show it: `<stdin>` and `<stdout>` for `-`, any
/// other made inert ([`text::inert`]: a student's file name is shown, never
/// obeyed).
#[derive(Debug)]
pub(super) enum Shown {
    Stdin,
    Stdout,
    Path(PathBuf),
}

impl Shown {
    pub(super) fn input(path: &Path) -> Shown {
        if is_dash(path) { Shown::Stdin } else { Shown::Path(path.to_owned()) }
    }

    pub(super) fn output(path: Option<&Path>) -> Shown {
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
/// For a file not found, the file beside it whose name is nearest, if it
/// is at most two edits away: what the user most likely meant.
fn near_name(path: &Path, error: &io::Error) -> Option<PathBuf> {
    if error.kind() != io::ErrorKind::NotFound {
        return None;
    }
    let name = path.file_name()?.to_str()?;
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|other| (strsim::levenshtein(name, &other), other))
        .filter(|(distance, _)| *distance <= 2)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, other)| path.with_file_name(other))
}

pub(super) fn describe(error: &io::Error) -> String {
    let text = error.to_string();
    match text.rfind(" (os error ") {
        Some(cut) => text[..cut].to_owned(),
        None => text,
    }
}

/// Whether `path` is `-`: standard input or output.
pub(super) fn is_dash(path: &Path) -> bool {
    path.as_os_str() == "-"
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The message of a bot the sandbox refused to build, which only a
    /// sandbox failing mid-event can give (a test-only fault, not one the
    /// command line can inject).
    #[test]
    fn a_bot_refused_its_build_says_it_is_not_its_fault() {
        let error = CliError::BotNotBuilt {
            name: "ann".to_owned(),
            why: "the sandbox refused the run: the container: it could not be made".to_owned(),
        };
        assert_eq!(
            error.to_string(),
            "ann: it cannot be built here, through no fault of its own: the sandbox refused the run: the container: it \
             could not be made"
        );
    }
}
