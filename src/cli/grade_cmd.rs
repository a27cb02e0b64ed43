//! `ttt-referee grade`: run submissions against tests in the sandbox, print
//! a table, write the reports.

use std::io::{self, Write};
use std::path::PathBuf;

use std::time::Duration;

use clap::{Args, ValueEnum};

use super::{CliError, EXIT_DIFFERENCES, EXIT_SUCCESS, HeaderArg, LayoutArgs};
use crate::board::Geometry;
use crate::check::CheckOptions;
use crate::engine::EngineKind;
use crate::grade::play_config::PlayConfig;
use crate::grade::report::gradescope::{Gradescope, Scoring, Visibility};
use crate::grade::suite::{self, SuiteError};
use crate::grade::{
    self, Api, CallsPlan, CaseOptions, Class, GradeError, Grader, Io, Languages, Mode, Opponent, Partition,
    Plan, PlayPlan, Program, Programs, Provided, Versus, report,
};
use crate::grade::{Fingerprint, report::part::Part};
use crate::play::{Profile, Side};
use crate::player::Mark;
use crate::referee::Format;
use crate::sandbox::{Limits, copy};

/// The exit status of a grading stopped by Ctrl-C or SIGTERM (128 + SIGINT,
/// as a shell reports it).
use super::EXIT_INTERRUPTED;

/// After `grade -h`: where the rest is.
pub(super) const SHORT_AFTER_HELP: &str = "\
--help says more: the tests' layout, each verdict, the reports, and examples.";

pub(super) const AFTER_HELP: &str = "\
Each SUBMISSION is a directory named after its author (a file among them is
skipped with a warning). It is copied, built once in the sandbox, and run once
per test in a fresh copy, from which any answer file the author left is
removed first. The expected answer of each test is the referee's own
transcript (with the referee's layout options), or with --profile the
console's session, so no expected files are needed.

Without --build and --run, each submission's language is found from its
files, first match wins: a Makefile (make, then ./prog), Java (javac; the
class declaring main, with JVM flags that fit --memory), C++ (g++ on every
.cpp/.cc/.cxx), C (gcc on every .c), Python (python3 on the only .py, the
one testing __main__, or main.py). grade.toml beside the tests (or --config)
adds or changes languages; --build/--run give the same commands to everyone.

Verdicts: pass, wrong, no-output, time-limit, crashed, output-limit,
build-failed; when several apply, time-limit wins over output-limit over
crashed over no-output over wrong. A test scores 1 or 0 (with --partial, a
wrong answer scores 2 x lines matched / (lines expected + lines written),
blank lines not counted, so extra lines cost as much as missing ones; at
most 0.99); a submission's score is out of 100.

A wrong or crashed test is shrunk: move lines are deleted (chunks, then
pairs) and squares made smaller while the program still fails the same way
on the referee's answer, within --shrink-runs and --shrink-time per test; the
smallest game found is shown first in every report (--no-shrink: none).

--api grades an assignment's functions one by one instead of a whole program:
  xtreme      StFX asn3's asn3.py (or the submission's only .py): setup_game,
              parse_move, is_move_valid, apply_move, check_row, check_column,
              check_down_diagonal, check_up_diagonal, check_for_winner,
              render_cell, render_row, render_board
  igameboard  Clemson CPSC 2150's Java classes, found by name in any package:
              GameBoard and GameBoardMem through IGameBoard's methods, each
              Class.method one test
Each function is called on the assignment's published examples and --cases
random ones (seeded by --seed), every answer checked against the referee's
rule engine; a wrong value, a changed argument or shared rows is wrong, an
exception crashed, a call running past --time time-limit (the rest of that
function's cases are then not run), a file that does not import or compile
build-failed. A failing function is shown its smallest failing call.

--play grades bots by their games (see --play above), chosen at random from
--seed: each grading draws a fresh one and says it, and --seed N plays the
same games again. With --report DIR, each failing test's game is written as
DIR/games/SUBMISSION/TEST.txt, a move file to replay (`ttt-referee FILE`) or
to play on from (`ttt-referee match BOT perfect --from FILE --after N`), and
report.html shows it move by move.

--warnings makes the build's compiler warnings a test, build-warnings, listed
first: pass when no line of the build's output says `warning:` (C and C++ are
built with -Wall), else wrong, showing the warnings. --provided DIR writes the
course's files under DIR over each submission's copy before the build; the
reports name those a student lacked or changed.

--generate N adds N tests to the given ones, within CS 1044's guarantees as
`gen --within cs1044` writes them (with --profile, scripts as `gen --profile`
does), named gen-0001.txt, ...; the same --seed gives the same tests.

Every run starts by saying on standard error which protections are in force
on this machine: one line when all are, else each reason one is missing, once,
with its remedy. -v/--verbose lists every protection and tells, for each
submission, the files copied, the provided files placed, the build and run
commands, and the limits.
Exit status: 0 when every test passed, 1 when any did not, 2 when grading
could not be done, 130 when Ctrl-C or SIGTERM stopped it.

Examples:
  ttt-referee grade --tests tests/ students/*
  ttt-referee grade --tests tests/ --build 'g++ -O2 -o prog *.cpp' students/*
  ttt-referee grade --tests tests/ --io args --run 'python3 ttt.py {moves} {out}' students/*
  ttt-referee grade --tests tests/ --warnings --provided starter/ students/*
  ttt-referee grade --tests scripts/ --profile uri --build 'g++ -o prog *.cpp' students/*";

/// How a program receives its test and gives its answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum IoMode {
    /// The program reads TTTmoves.txt and writes TTTgame.txt in its directory.
    Files,
    /// The transcript is the program's standard output.
    Stdout,
    /// `{moves}` and `{out}` in --run are the input and output paths.
    Args,
}

#[derive(Debug, Args)]
pub(super) struct GradeArgs {
    /// The submissions: a directory each, named after its author.
    #[arg(value_name = "SUBMISSION", required = true)]
    submissions: Vec<PathBuf>,

    #[command(flatten)]
    plan: PlanArgs,

    /// Write grades.csv, results.json, junit.xml and report.html into DIR.
    #[arg(help_heading = "Reports", long, value_name = "DIR")]
    report: Option<PathBuf>,

    /// Grade only part K of N of the class (K from 1), for a fleet of
    /// machines: `slice:K/N` deals the submissions round-robin in the order
    /// given, `hash:K/N` by a stable hash of each one's name. --report DIR
    /// also gets part.json; `ttt-referee merge` puts the parts together.
    #[arg(help_heading = "Reports", long, value_name = "slice|hash:K/N", requires = "report", conflicts_with_all = ["gradescope", "classroom"])]
    partition: Option<Partition>,

    /// Write Gradescope's results.json for the (one) submission, also when
    /// grading cannot be done (saying why).
    #[arg(help_heading = "Reports", long, value_name = "FILE")]
    gradescope: Option<PathBuf>,

    /// Write GitHub Classroom's feedback for the (one) submission into DIR:
    /// summary.md (Markdown for the run's step summary) and result.json
    /// (for Classroom's grading reporter), also when grading cannot be done.
    #[arg(help_heading = "Reports", long, value_name = "DIR")]
    classroom: Option<PathBuf>,

    #[command(flatten, next_help_heading = "Points (Gradescope, Classroom)")]
    scoring: ScoringArgs,

    #[command(flatten, next_help_heading = "Reports")]
    colour: super::args::ColourArgs,

    /// Tell on standard error what the grader did with each submission: the
    /// files copied, the provided files placed, the build and run commands,
    /// and the limits; and list every protection.
    #[arg(help_heading = "Reports", short, long)]
    verbose: bool,
}

/// What makes a [`grade::Plan`]: the tests, the programs, the limits. The
/// autograder commands pass these on to `grade` as given.
#[derive(Debug, Args)]
pub(super) struct PlanArgs {
    /// The tests: move files `*.txt` (with --profile, typed scripts `*.stdin`).
    #[arg(long, value_name = "DIR", required_unless_present_any = ["api", "play"], conflicts_with_all = ["api", "play"])]
    pub(super) tests: Option<PathBuf>,

    #[command(flatten, next_help_heading = "Bots graded by their games (--play)")]
    play: PlayArgs,

    /// Grade an assignment's functions one by one instead of whole programs
    /// on tests (see below).
    #[arg(long, value_name = "ASSIGNMENT", conflicts_with_all = ["profile", "build", "run", "io", "generate", "config"])]
    api: Option<Api>,

    /// With --api, random cases per function, besides the assignment's
    /// published examples [default: 200].
    #[arg(long, value_name = "N", requires = "api", conflicts_with = "tests", value_parser = clap::value_parser!(u64).range(0..=100_000))]
    cases: Option<u64>,

    /// Languages to add or change (TOML; see FORMAT.md) [default: DIR/grade.toml
    /// in the tests' directory, if there is one].
    #[arg(help_heading = "Building and running", long, value_name = "FILE")]
    pub(super) config: Option<PathBuf>,

    /// Build every submission with this command, run once in its copy
    /// (through /bin/sh) [default: found from its files].
    #[arg(help_heading = "Building and running", long, value_name = "CMD")]
    build: Option<String>,

    /// Run every submission with this command line, split into words as a
    /// shell would [default: found from its files; ./prog with --build].
    #[arg(help_heading = "Building and running", long, value_name = "CMD")]
    run: Option<String>,

    /// How the program receives its test and gives its transcript.
    #[arg(help_heading = "Building and running", long, value_enum, default_value_t = IoMode::Files)]
    io: IoMode,

    /// The move file's name in the run directory, with --io files.
    // Not `--input-name`: see `transcript_file`.
    #[arg(help_heading = "Building and running", long, value_name = "NAME", default_value = grade::DEFAULT_INPUT, value_parser = plain_name)]
    moves_file: String,

    /// The name of the transcript the program writes in its run directory,
    /// with --io files.
    // Not `--output-name`: clap offered that spelling for a mistyped
    // `--output`, and an autograder built with `--output-name x.zip` failed
    // every student. No long option near `--output`/`--out` names a file
    // the student's program writes.
    #[arg(help_heading = "Building and running", long, value_name = "NAME", default_value = grade::DEFAULT_OUTPUT, value_parser = plain_name)]
    transcript_file: String,

    /// Grade a console program: each script is its standard input, and its
    /// standard output must be what `play --profile P` prints.
    #[arg(long, value_enum, value_name = "P")]
    profile: Option<Profile>,

    /// With --profile, who plays X (as `play --x`) [default: human].
    #[arg(long, value_name = "PLAYER", value_enum, requires = "profile")]
    x: Option<Side>,

    /// With --profile, who plays O (as `play --o`) [default: the profile's:
    /// minimax with uri, the original program's AI; `--o human` grades
    /// two-person games, started with no argument].
    #[arg(long, value_name = "PLAYER", value_enum, requires = "profile")]
    o: Option<Side>,

    /// The seed of the graded games (--play), the cases (--api), the
    /// profile's computer players (as `play --seed`) and the tests
    /// --generate adds [default: drawn anew for each grading, and said in
    /// the reports, so no one knows the games in advance and a regrade with
    /// --seed plays them again].
    #[arg(long)]
    seed: Option<u64>,

    /// Add N generated tests to the given ones, as `gen --within cs1044`
    /// (with --profile, `gen --profile`) writes them: gen-0001.txt, ...
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=100_000))]
    generate: u64,

    /// Wall-clock time per test, in seconds (also the CPU time limit).
    #[arg(help_heading = "Limits and sandbox", long, value_name = "SECONDS", default_value = "2", value_parser = super::parse_seconds)]
    time: Duration,

    /// Memory per run, in MB: all its processes together where a memory
    /// cgroup can be had, else each process's address space.
    #[arg(help_heading = "Limits and sandbox", long, value_name = "MB", default_value_t = grade::TEST_LIMITS.memory >> 20, value_parser = clap::value_parser!(u64).range(16..=1 << 20))]
    memory: u64,

    /// The most a run may write, in MB: standard output, standard error and
    /// files together, and each one.
    #[arg(help_heading = "Limits and sandbox", long, value_name = "MB", default_value_t = grade::TEST_LIMITS.output >> 20, value_parser = clap::value_parser!(u64).range(1..=1 << 20))]
    output_limit: u64,

    /// How many processes a run may have at once.
    #[arg(help_heading = "Limits and sandbox", long, value_name = "N", default_value_t = grade::TEST_LIMITS.processes, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    processes: u64,

    /// How many files each process of a run may hold open at once: open
    /// files come out of a table the whole machine shares, which a run
    /// left unlimited could fill. Builds get at least 1024.
    #[arg(help_heading = "Limits and sandbox", long, value_name = "N", default_value_t = grade::TEST_LIMITS.open_files, value_parser = clap::value_parser!(u64).range(16..=1 << 20))]
    open_files: u64,

    /// The most a submission may hold, in MB (sparse files count at their
    /// full size); a larger one is refused, and the others are graded.
    #[arg(help_heading = "Limits and sandbox", long, value_name = "MB", default_value_t = copy::Caps::SUBMISSION.bytes >> 20, value_parser = clap::value_parser!(u64).range(1..=1 << 20))]
    submission_limit: u64,

    /// The most files and directories a submission may hold.
    #[arg(help_heading = "Limits and sandbox", long, value_name = "N", default_value_t = copy::Caps::SUBMISSION.files, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    submission_files: u64,

    /// How many builds and tests run at once [default: the number of CPUs].
    #[arg(help_heading = "Limits and sandbox", long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1024))]
    jobs: Option<u64>,

    /// Score a wrong answer by how alike it is instead of 0: 2 x lines
    /// matched / (lines expected + lines written), blank lines not counted,
    /// at most 0.99.
    #[arg(help_heading = "Judging answers", long)]
    partial: bool,

    /// Compare bytes exactly instead of forgiving spacing and line ends.
    #[arg(help_heading = "Judging answers", long)]
    exact: bool,

    /// The header lines (programmer and project): by default only their
    /// labels are checked, so students may put their own names there.
    #[arg(help_heading = "Judging answers", long, value_enum, value_name = "MODE", default_value_t = HeaderArg::Label)]
    header: HeaderArg,

    /// Refuse to grade unless every protection is in force.
    #[arg(help_heading = "Limits and sandbox", long)]
    require_sandbox: bool,

    #[command(flatten, next_help_heading = "Judging answers")]
    criteria: CriteriaArgs,

    #[command(flatten, next_help_heading = "The smallest failing input")]
    shrink: ShrinkArgs,

    #[command(flatten, next_help_heading = "The referee's transcripts")]
    layout: LayoutArgs,
}

/// A course's criteria besides the games: a build without warnings, and
/// the files students must not change.
#[derive(Debug, Args)]
struct CriteriaArgs {
    /// Make the build's compiler warnings a test of their own,
    /// `build-warnings`, listed first: pass when no line of the build's
    /// output says `warning:`, else wrong, showing them.
    #[arg(long, conflicts_with = "api")]
    warnings: bool,

    /// The course's provided files, which students must not change: each
    /// file under DIR is written over the submission's copy (at the same
    /// path) before the build; the reports name those it lacked or changed.
    #[arg(long, value_name = "DIR", conflicts_with = "api")]
    provided: Option<PathBuf>,
}

/// How each wrong or crashed test is shrunk to the smallest input on which
/// the program still fails the same way.
#[derive(Debug, Args)]
struct ShrinkArgs {
    /// The most runs of the program spent shrinking each wrong or crashed
    /// test (the run confirming the result among them).
    #[arg(long, value_name = "N", default_value_t = grade::Budget::DEFAULT.runs as u64, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    shrink_runs: u64,

    /// The most wall-clock time spent shrinking each wrong or crashed test,
    /// in seconds.
    #[arg(long, value_name = "SECONDS", default_value = "2", value_parser = super::parse_seconds)]
    shrink_time: Duration,

    /// Do not shrink failing tests.
    #[arg(long, conflicts_with_all = ["shrink_runs", "shrink_time"])]
    no_shrink: bool,
}

impl ShrinkArgs {
    /// The budget of each failing test's shrinking; `None` for none.
    fn budget(&self) -> Option<grade::Budget> {
        (!self.no_shrink).then(|| grade::Budget {
            runs: usize::try_from(self.shrink_runs).unwrap_or(usize::MAX),
            time: self.shrink_time,
        })
    }
}

/// Gradescope's results.json: out of how many points, and which tests
/// students see when. The autograder commands pass these on to `grade`.
#[derive(Debug, Args)]
pub(super) struct ScoringArgs {
    /// The assignment's points on Gradescope, shared among the tests in
    /// hundredths that add up exactly.
    #[arg(long, value_name = "N", default_value_t = 100.0, value_parser = positive_points)]
    points: f64,

    /// Tests whose names match PATTERN (a glob such as 'hidden-*') are
    /// hidden from students; repeatable.
    #[arg(long, value_name = "PATTERN")]
    hidden: Vec<String>,

    /// Tests matching PATTERN are shown after the due date; repeatable.
    #[arg(long, value_name = "PATTERN")]
    after_due_date: Vec<String>,

    /// Tests matching PATTERN are shown once grades are published; repeatable.
    #[arg(long, value_name = "PATTERN")]
    after_published: Vec<String>,
}

impl ScoringArgs {
    /// The scoring these flags describe (hidden patterns first, then after
    /// the due date, then after publication).
    pub(super) fn scoring(&self) -> Result<Scoring, CliError> {
        let rules: Vec<(String, Visibility)> = [
            (&self.hidden, Visibility::Hidden),
            (&self.after_due_date, Visibility::AfterDueDate),
            (&self.after_published, Visibility::AfterPublished),
        ]
        .into_iter()
        .flat_map(|(patterns, v)| patterns.iter().map(move |p| (p.clone(), v)))
        .collect();
        Scoring::new(self.points, &rules).map_err(CliError::Scoring)
    }
}

pub(super) fn positive_points(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(points) if points.is_finite() && points > 0.0 && points <= 1e6 => Ok(points),
        _ => Err("expected a number of points above 0, such as 100 or 12.5".to_owned()),
    }
}

fn plain_name(text: &str) -> Result<String, String> {
    if text.is_empty() || text.contains('/') || text == "." || text == ".." {
        Err("expected a file name without a directory, such as TTTmoves.txt".to_owned())
    } else {
        Ok(text.to_owned())
    }
}

/// Bots graded by how they play (`--play`).
#[derive(Debug, Args)]
pub(super) struct PlayArgs {
    /// Grade each submission as a bot (the bot protocol, FORMAT.md) by
    /// games: tests vs-perfect (it never loses to any equally good reply of
    /// perfect's, as either side, from every first move: proved on 3x3),
    /// vs-random (it wins --bar against random play, as X and as O) and
    /// legal (it forfeits none), instead of --tests. The games come from
    /// --seed (drawn anew each grading unless given).
    #[arg(long, conflicts_with_all = ["api", "profile", "generate"])]
    play: bool,

    /// With --play: the board, as `ROWSxCOLS` (default 3x3; perfect plays
    /// boards of up to 64 squares).
    #[arg(long, value_name = "RxC", value_parser = super::parse_size, requires = "play")]
    board: Option<(u32, u32)>,

    /// With --play: marks in a row to win (default 3, or the longer side if
    /// smaller).
    #[arg(long, value_name = "K", requires = "play")]
    win: Option<u32>,

    /// With --play: which lines win, K or more in a row or exactly K (an
    /// overline does not win; vs-perfect cannot run under it).
    #[arg(long, value_enum, value_name = "RULE", default_value_t = crate::board::WinRule::AtLeast, requires = "play")]
    rule: crate::board::WinRule,

    /// With --play: the share of games against uniformly random play it
    /// must win, as X and as O, in percent (`80,55`, the default: a perfect
    /// player wins at least 83% as X and 57% as O on 3x3; GUIDE.md). Worked
    /// out exactly on 3x3 where a bot answers each position one way, else
    /// sampled.
    #[arg(long, value_name = "X,O", value_parser = parse_bars, requires = "play")]
    bar: Option<[f64; 2]>,

    /// With --play: the most games vs-random samples a side, when its odds
    /// cannot be worked out exactly (a sequential test stops sooner once
    /// the verdict is clear) [default: 1000].
    #[arg(long, value_name = "N", value_parser = parse_games)]
    games: Option<u64>,

    /// With --play: a test of its own against an engine (strong, minimax or rules)
    /// or a reference bot's directory (built once, run as the students'
    /// are), named `vs-ENGINE` or `vs-DIRNAME`, as X and as O: its share of
    /// points (a win 1, a draw ½) must reach the bar, in percent (40,40
    /// unless given as `rules=60,40`: a bot that draws every game scores
    /// 50%); games sampled, a sequential test deciding.
    #[arg(long, value_name = super::values::OPPONENT, value_parser = parse_versus, requires = "play")]
    versus: Vec<(Opponent, [f64; 2])>,

    /// With --play: the most games a tree of vs-perfect's (every equally
    /// good reply of perfect's to each answer) or of an exact vs-random's
    /// may take; beyond, the verdict says it sampled.
    /// [default: 2000]
    #[arg(long, value_name = "N", value_parser = parse_proof_games)]
    proof_games: Option<u64>,

    /// With --play: the most time a bot may take over each answer, in
    /// seconds (a bot still computing when it has passed, on a busy
    /// machine, is given it in CPU time, up to 10 times it on the clock).
    /// A bot that runs out of time in 3 games of a test in a row is not
    /// asked again in that test.
    /// [default: 1]
    #[arg(long, value_name = "SECONDS", value_parser = super::parse_seconds)]
    move_time: Option<Duration>,

    /// With --play: how much longer a bot's first answer of a game may
    /// take, in seconds (its start: a JVM's, say).
    /// [default: 5]
    #[arg(long, value_name = "SECONDS", value_parser = super::parse_seconds)]
    startup: Option<Duration>,
}

impl PlanArgs {
    /// The plan these flags describe, with its tests read and answered.
    pub(super) fn plan(&self) -> Result<Plan, CliError> {
        let seed = self.seed.unwrap_or_else(fresh_seed);
        if self.profile.is_some() && self.io != IoMode::Files {
            return Err(CliError::IoWithProfile);
        }
        let limits = Limits {
            wall: self.time,
            cpu: self.time,
            memory: self.memory << 20,
            output: self.output_limit << 20,
            processes: self.processes,
            open_files: self.open_files,
        };
        // A run cannot be given more than the grader itself may have.
        if let Ok((_, hard)) = nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE)
            && limits.open_files > hard
        {
            return Err(CliError::OpenFilesAboveHard { asked: limits.open_files, hard });
        }
        let mode = match self.api {
            Some(api) => Mode::Calls(CallsPlan {
                api,
                cases: CaseOptions {
                    per_function: self.cases.map_or(CaseOptions::DEFAULT.per_function, |n| {
                        usize::try_from(n).unwrap_or(usize::MAX)
                    }),
                    seed,
                },
            }),
            None if self.play.play => Mode::Play(self.play_plan(seed)?),
            None => Mode::Program(self.program(seed)?),
        };
        Ok(Plan {
            mode,
            limits,
            build_limits: grade::build_limits(&limits),
            jobs: self.jobs.map_or_else(
                || std::thread::available_parallelism().map_or(1, std::num::NonZero::get),
                |n| usize::try_from(n).unwrap_or(1),
            ),
            partial: self.partial,
            check: CheckOptions { exact: self.exact, header: self.header.into() },
            copy_caps: copy::Caps {
                bytes: self.submission_limit << 20,
                files: self.submission_files,
                depth: copy::Caps::SUBMISSION.depth,
            },
            require_sandbox: self.require_sandbox,
            shrink: self.shrink.budget(),
            // Said in the reports where games, cases or generated tests come
            // from it.
            seed: (self.api.is_some() || self.play.play || self.profile.is_some() || self.generate > 0)
                .then_some(seed),
        })
    }

    /// Bots graded by play: how they are built and run, the board and the
    /// games.
    fn play_plan(&self, seed: u64) -> Result<PlayPlan, CliError> {
        let play = &self.play;
        // The course's `[play]` table, where a flag is not given.
        let config = match suite::config_file(self.config.as_deref(), self.tests.as_deref()) {
            Some(path) => PlayConfig::from_file(&path)?,
            None => PlayConfig::default(),
        };
        let board = setting(play.board, &config, "board", super::parse_size)?;
        let (rows, cols) = board.unwrap_or((3, 3));
        let win = setting(play.win, &config, "win", |s| {
            s.parse::<u32>().map_err(|_| format!("`{s}` is not a number of marks in a row"))
        })?;
        let win = win.unwrap_or_else(|| rows.max(cols).min(3));
        let geometry = Geometry::new(rows, cols, win)
            .map(|g| g.with_rule(play.rule))
            .map_err(|_| CliError::Board { rows, cols, win })?;
        crate::arena::engines::check(EngineKind::Random, geometry, &[Mark::X, Mark::O])
            .map_err(|error| CliError::EngineCannotPlay { name: "random".to_owned(), error })?;
        let mut program = self.program(seed)?;
        program.io = Io::Stdout;
        // `--versus` flags replace the file's list; the file's reference
        // bots are found from its directory.
        let versus = if play.versus.is_empty() {
            config
                .values("versus")
                .map(|s| {
                    opponent(&s.value, |name| config.path_in(name))
                        .map_err(|message| CliError::from(config.refused(s, &message)))
                })
                .collect::<Result<Vec<_>, _>>()?
        } else {
            play.versus.clone()
        };
        Ok(PlayPlan {
            program,
            geometry,
            games: setting(play.games, &config, "games", parse_games)?.unwrap_or(1000),
            bars: setting(play.bar, &config, "bar", parse_bars)?.unwrap_or([0.8, 0.55]),
            proof_games: setting(play.proof_games, &config, "proof-games", parse_proof_games)?
                .unwrap_or(2000),
            versus: versus_tests(&versus)?,
            move_time: setting(play.move_time, &config, "move-time", super::parse_seconds)?
                .unwrap_or(Duration::from_secs(1)),
            startup: setting(play.startup, &config, "startup", super::parse_seconds)?
                .unwrap_or(Duration::from_secs(5)),
            seed,
        }
        .strong_where_perfect_cannot())
    }

    /// Whole programs: the tests read and answered, the commands given or
    /// the languages to find them from, the I/O convention.
    fn program(&self, seed: u64) -> Result<Program, CliError> {
        let io = match (self.profile, self.io) {
            (Some(profile), _) => {
                if profile.asks_its_own_players() && (self.x.is_some() || self.o.is_some()) {
                    return Err(CliError::SidesWithProfile { profile });
                }
                Io::Console { profile, sides: profile.sides(self.x, self.o), seed }
            }
            (None, IoMode::Files) => {
                Io::Files { input: self.moves_file.clone(), output: self.transcript_file.clone() }
            }
            (None, IoMode::Stdout) => Io::Stdout,
            (None, IoMode::Args) => Io::Args,
        };
        let layout = self.layout.options(Format::Text);
        let mut tests = Vec::new();
        if let Some(dir) = &self.tests {
            tests = match suite::load(dir, &io, &layout) {
                // Generated tests may be all there is.
                Err(SuiteError::Empty { .. }) if self.generate > 0 => Ok(Vec::new()),
                loaded => loaded,
            }?;
        }
        tests.extend(suite::generate(&io, &layout, self.generate, seed)?);
        let programs = if self.build.is_some() || self.run.is_some() {
            Programs::Given {
                build: self.build.clone(),
                run: self.run.clone().unwrap_or_else(|| "./prog".to_owned()),
            }
        } else {
            let config = suite::config_file(self.config.as_deref(), self.tests.as_deref());
            Programs::Detected(match config {
                Some(path) => Languages::from_config(&path)?,
                None => Languages::builtin(),
            })
        };
        let provided =
            self.criteria.provided.as_deref().map(Provided::load).transpose().map_err(CliError::Provided)?;
        Ok(Program { tests, programs, io, layout, warnings: self.criteria.warnings, provided })
    }
}

pub(super) fn run(args: &GradeArgs) -> Result<u8, CliError> {
    // Every output path is checked before any work (and before a failure's
    // own report below would try to write there).
    check_outputs(args)?;
    let status = grade(args);
    // Gradescope shows a student nothing at all without results.json.
    if let (Err(e), Some(path)) = (&status, &args.gradescope) {
        Gradescope::failed(path, &e.to_string()).map_err(CliError::report)?;
    }
    if let (Err(e), Some(dir)) = (&status, &args.classroom) {
        report::Classroom::failed(dir, &e.to_string(), args.scoring.points).map_err(CliError::report)?;
    }
    status
}

/// Fails at once, exit status 2, when something is in the way of an output:
/// a file where `--report` or `--classroom` names a directory, a directory
/// where `--gradescope` names a file, a file where a directory above any
/// of them must be, or a `--report` directory of files that are no report.
fn check_outputs(args: &GradeArgs) -> Result<(), CliError> {
    let outputs = [
        (args.report.as_deref(), "--report", true),
        (args.classroom.as_deref(), "--classroom", true),
        (args.gradescope.as_deref(), "--gradescope", false),
    ];
    for (path, option, dir) in outputs {
        if let Some(path) = path {
            super::files::check_output_path(path, option, dir)?;
        }
    }
    if let Some(dir) = &args.report {
        super::files::check_report_dir(dir, "--report")?;
    }
    Ok(())
}

fn grade(args: &GradeArgs) -> Result<u8, CliError> {
    let scoring = args.scoring.scoring()?;
    if args.gradescope.is_some() && args.submissions.len() != 1 {
        return Err(CliError::GradescopeNeedsOne { count: args.submissions.len() });
    }
    if args.classroom.is_some() && args.submissions.len() != 1 {
        return Err(CliError::ClassroomNeedsOne { count: args.submissions.len() });
    }
    // A mistyped path is an error, not a student skipped.
    for submission in &args.submissions {
        if let Err(error) = std::fs::metadata(submission) {
            return Err(CliError::NoDirectory {
                path: super::Shown::input(submission),
                what: "a submission directory (one per student)",
                error: Some(error),
            });
        }
    }
    let class = Class::sort(&args.submissions);
    for skipped in &class.skipped {
        let _ = writeln!(
            io::stderr(),
            "ttt-referee: warning: {}: not a directory; skipped (a submission is a directory)",
            crate::text::inert(&skipped.display().to_string())
        );
    }
    class.check().map_err(CliError::Class)?;
    let plan = args.plan.plan()?;
    if let Mode::Program(program) = &plan.mode {
        for name in program.unfinished_scripts() {
            let _ = writeln!(
                io::stderr(),
                "ttt-referee: warning: {}: the script ends before its game does; what the program shows is \
                 judged, and what it does at the end of its input is not held against it",
                crate::text::inert(name)
            );
        }
    }
    if let Mode::Play(play) = &plan.mode
        && !play.perfect_plays()
    {
        let g = play.geometry;
        let _ = writeln!(
            io::stderr(),
            "ttt-referee: warning: --board {}x{}{}: vs-perfect cannot run (perfect plays boards of up to {} \
             squares, K or more in a row winning; this one has {}): vs-strong plays in its place, and \
             sampled tests play at most {} games a side",
            g.rows(),
            g.cols(),
            if g.rule() == crate::board::WinRule::Exact { " --rule exact" } else { "" },
            crate::engine::MAX_CELLS,
            g.cells(),
            crate::grade::plan::BIG_BOARD_GAMES
        );
    }
    if let (Some(seed), None) = (plan.seed, args.plan.seed) {
        let _ = writeln!(
            io::stderr(),
            "ttt-referee: seed {seed}, drawn for this grading (`--seed {seed}` grades the same games again)"
        );
    }
    let (submissions, part) = partition(args, &plan, &class)?;
    let mut sinks = terminal_sinks(args, &plan, &submissions);
    let grader = Grader::new(plan).map_err(CliError::Grade)?;
    let _ = write!(io::stderr(), "{}", super::protections::said(grader.protections(), args.verbose));
    grader.stop_on_signals(EXIT_INTERRUPTED);

    if let Some(dir) = &args.report {
        let report = report::ReportDir::new(dir.clone());
        sinks.push(match part {
            Some(part) => report.part(part),
            None => report,
        });
    }
    if let Some(path) = &args.gradescope {
        sinks.push(Gradescope::new(path.clone(), scoring.clone()));
    }
    if let Some(dir) = &args.classroom {
        sinks.push(report::Classroom::new(dir.clone(), scoring));
    }
    let outcome = grader.grade(&submissions, &mut sinks).map_err(|e| match e {
        GradeError::Report(e) => CliError::report(e),
        // Found before any submission is graded: nothing has started.
        e @ GradeError::Reference { .. } => CliError::Grade(e),
        e => CliError::GradingStopped(e),
    })?;
    if !outcome.not_graded.is_empty() {
        let names: Vec<String> =
            outcome.not_graded.iter().map(|n| crate::text::inert(n).into_owned()).collect();
        let _ = writeln!(
            io::stderr(),
            "ttt-referee: interrupted: {} of {} submissions graded; not graded: {}",
            outcome.results.len(),
            submissions.len(),
            names.join(", ")
        );
        return Ok(EXIT_INTERRUPTED);
    }
    Ok(if outcome.all_passed() { EXIT_SUCCESS } else { EXIT_DIFFERENCES })
}

/// The sinks on the terminal: the progress bar, or with --verbose the
/// trace of what the grader did in its place (the two would overwrite each
/// other), then the table.
fn terminal_sinks(args: &GradeArgs, plan: &Plan, submissions: &[PathBuf]) -> report::Sinks {
    let mut sinks = report::Sinks::new();
    if args.verbose {
        sinks.push(super::verbose::Verbose::new(plan.clone(), submissions));
    } else {
        sinks.push(report::Progress::default());
    }
    sinks.push(report::Table { colour: args.colour.stdout() });
    sinks
}

/// The submissions this run grades: the class, or with `--partition` its
/// part, with what the part's report says of it.
fn partition(args: &GradeArgs, plan: &Plan, class: &Class) -> Result<(Vec<PathBuf>, Option<Part>), CliError> {
    let Some(partition) = args.partition else {
        return Ok((class.submissions.clone(), None));
    };
    // Every part must grade the same games, cases and generated tests.
    if plan.seed.is_some() && args.plan.seed.is_none() {
        return Err(CliError::PartitionNeedsSeed { partition });
    }
    let names: Vec<String> = class.submissions.iter().map(|p| grade::submission_name(p)).collect();
    let submissions = partition.select(&class.submissions);
    let _ = writeln!(
        io::stderr(),
        "ttt-referee: part {partition}: {} of the class's {} submissions",
        submissions.len(),
        names.len()
    );
    Ok((submissions, Some(Part { partition, fingerprint: Fingerprint::of(plan, &names), class: names })))
}

/// A seed no one can know before the grading: 64 bits from the operating
/// system (the clock's nanoseconds, mixed, where it has none to give).
fn fresh_seed() -> u64 {
    getrandom::u64().unwrap_or_else(|_| {
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        crate::arena::event::game_seed(
            now.as_secs(),
            u64::from(now.subsec_nanos()) ^ u64::from(std::process::id()),
        )
    })
}

/// `--bar X,O`: two percentages, 0 to 100, as shares.
fn parse_bars(text: &str) -> Result<[f64; 2], String> {
    let share = |part: &str| -> Result<f64, String> {
        let part = part.trim().trim_end_matches('%');
        match part.parse::<f64>() {
            Ok(p) if (0.0..=100.0).contains(&p) => Ok(p / 100.0),
            _ => Err(format!("`{part}` is not a percentage from 0 to 100")),
        }
    };
    match text.split_once(',') {
        Some((x, o)) => Ok([share(x)?, share(o)?]),
        None => Err("expected two percentages, as X and as O, such as `80,55`".to_owned()),
    }
}

/// A `--play` setting: the flag's value when given, else the course's
/// `[play]` key read by the flag's own parser (its error names the file's
/// line), else none (the caller's default).
fn setting<T>(
    flag: Option<T>,
    config: &PlayConfig,
    key: &str,
    parse: impl Fn(&str) -> Result<T, String>,
) -> Result<Option<T>, CliError> {
    if flag.is_some() {
        return Ok(flag);
    }
    match config.values(key).last() {
        Some(s) => parse(&s.value).map(Some).map_err(|message| config.refused(s, &message).into()),
        None => Ok(None),
    }
}

/// `--games`: 1 to 100,000.
fn parse_games(text: &str) -> Result<u64, String> {
    match text.parse::<u64>() {
        Ok(n) if (1..=100_000).contains(&n) => Ok(n),
        _ => Err(format!("`{text}` is not a number of games from 1 to 100000")),
    }
}

/// `--proof-games`: 1 to 1,000,000.
fn parse_proof_games(text: &str) -> Result<u64, String> {
    match text.parse::<u64>() {
        Ok(n) if (1..=1_000_000).contains(&n) => Ok(n),
        _ => Err(format!("`{text}` is not a number of games from 1 to 1000000")),
    }
}

/// `--versus OPPONENT[=X,O]`: an engine or a reference bot's directory to
/// play a test against, and its bar (40,40 unless given). A name that is an
/// engine's is the engine; a bot's directory named like one is written
/// as a path (`./minimax`).
fn parse_versus(text: &str) -> Result<(Opponent, [f64; 2]), String> {
    opponent(text, |name| PathBuf::from(name))
}

/// As [`parse_versus`], a bot's directory found by `dir` from its name as
/// written (a course file's start at the file's directory).
fn opponent(text: &str, dir: impl Fn(&str) -> PathBuf) -> Result<(Opponent, [f64; 2]), String> {
    let (name, bars) = match text.rsplit_once('=') {
        Some((name, bars)) => (name, parse_bars(bars)?),
        None => (text, [0.4, 0.4]),
    };
    let engines = || super::values::versus_engines().join(", ");
    match EngineKind::from_name(name) {
        Some(EngineKind::Perfect | EngineKind::Random) => Err(format!(
            "vs-{name} is a test already (--bar sets vs-random's bar); choose another engine ({}) or a bot's \
             directory",
            engines()
        )),
        Some(engine) => Ok((Opponent::Engine(engine), bars)),
        None if dir(name).is_dir() => Ok((Opponent::Bot(dir(name)), bars)),
        None => Err(format!("`{name}` is neither an engine ({}) nor a reference bot's directory", engines())),
    }
}

/// The `--versus` tests, each named once for the whole run (its name is
/// leaked to be `'static`, as the built-in tests' are: a handful of bytes a
/// grading): `vs-` and the engine's name, or the reference bot's
/// directory's, which must be a plain name a report's table can carry.
fn versus_tests(given: &[(Opponent, [f64; 2])]) -> Result<Vec<Versus>, CliError> {
    let mut tests: Vec<Versus> = Vec::new();
    for (opponent, bars) in given {
        let name = match opponent {
            Opponent::Engine(engine) => engine.name().to_owned(),
            Opponent::Bot(dir) => {
                let name = crate::workshop::submission_name(dir);
                let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
                if name.is_empty() || !name.chars().all(plain) {
                    return Err(CliError::VersusName { name: crate::text::inert(&name).into_owned() });
                }
                name
            }
        };
        let test = format!("vs-{name}");
        if grade::PLAY_TESTS.contains(&test.as_str()) || tests.iter().any(|t| t.test == test) {
            return Err(CliError::VersusTwice { test });
        }
        tests.push(Versus { test: test.leak(), opponent: opponent.clone(), bars: *bars });
    }
    Ok(tests)
}
