//! The plan of a grading: the tests, how submissions are built and run,
//! how they read and write, the limits, and what the sandbox must give
//! ([`Plan`]); the defaults of each.

use std::time::Duration;

use super::calls::{Api, CaseOptions};
use super::language::Languages;
use super::provided::Provided;
use super::result::WARNINGS_TEST;
use super::shrink::Budget;
use super::suite::Test;
use crate::check::CheckOptions;
use crate::play::{Profile, Side};
use crate::referee;
use crate::sandbox::{Limits, copy};

/// How a program receives its test and gives its answer, and so what its
/// tests are: move files answered by the referee's transcript, or a
/// console's typed scripts answered by its session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Io {
    /// CS 1044's convention: the test is `input` in the working directory,
    /// and the program writes `output` there.
    Files {
        /// The move file's name in the run directory.
        input: String,
        /// The transcript's name in the run directory.
        output: String,
    },
    /// The test is `TTTmoves.txt` and standard input; the answer is
    /// standard output.
    Stdout,
    /// `{moves}` and `{out}` in the run command are the test's and the
    /// answer's paths.
    Args,
    /// A console program: the test is a typed script, its standard input;
    /// the answer is its standard output, the session `play --profile`
    /// prints with its computer players seeded by `seed`. The one place a
    /// plan says "console".
    Console {
        /// The console whose session is expected.
        profile: Profile,
        /// Who plays X and O (where the profile does not ask).
        sides: [Side; 2],
        /// The seed of its computer players.
        seed: u64,
    },
}

impl Io {
    /// The test's and the answer's names in the run directory.
    pub(in crate::grade) fn names(&self) -> (&str, &str) {
        match self {
            Io::Files { input, output } => (input, output),
            _ => (DEFAULT_INPUT, DEFAULT_OUTPUT),
        }
    }

    /// Whether the answer is a file the program writes (not its standard
    /// output): an answer left in the submission could pass for one.
    pub(in crate::grade) fn answers_in_a_file(&self) -> bool {
        !matches!(self, Io::Console { .. })
    }
}

/// How each submission's build and run commands are found.
#[derive(Clone, Debug)]
pub enum Programs {
    /// The same commands for everyone (`--build`, `--run`).
    Given {
        /// A shell command run once in each submission's copy.
        build: Option<String>,
        /// The program's command line, split into words as a shell would.
        run: String,
    },
    /// Found for each submission from its files.
    Detected(Languages),
}

/// The limits of each test run unless the plan says otherwise: 2 s of wall
/// and CPU time, 512 MB, 16 MB written, 64 processes, 256 open files each
/// (a JVM with its jars needs well under that).
pub const TEST_LIMITS: Limits = Limits {
    wall: Duration::from_secs(2),
    cpu: Duration::from_secs(2),
    memory: 512 << 20,
    output: 16 << 20,
    processes: 64,
    open_files: 256,
};

/// The limits of a build, given a test's: two minutes, and at least 4 GB,
/// 256 MB written, 64 processes and 1024 open files each (compilers and
/// build tools need more than programs).
#[must_use]
pub fn build_limits(test: &Limits) -> Limits {
    Limits {
        wall: Duration::from_mins(2),
        cpu: Duration::from_mins(2),
        memory: test.memory.max(4 << 30),
        output: test.output.max(256 << 20),
        processes: test.processes.max(64),
        open_files: test.open_files.max(1024),
    }
}

/// Everything that says how to grade.
#[derive(Clone, Debug)]
pub struct Plan {
    /// What is graded: whole programs on tests, or an assignment's functions.
    pub mode: Mode,
    /// Limits for each test run (with [`Mode::Calls`], `wall` is the limit
    /// per call).
    pub limits: Limits,
    /// Limits for each build.
    pub build_limits: Limits,
    /// How many builds and tests run at once.
    pub jobs: usize,
    /// Score a wrong answer by how alike it is ([`crate::check::Comparison::score`]).
    pub partial: bool,
    /// How answers are compared (`check`'s comparison).
    pub check: CheckOptions,
    /// The most a submission may hold to be copied and graded.
    pub copy_caps: copy::Caps,
    /// Refuse to grade unless every protection is in force.
    pub require_sandbox: bool,
    /// Shrink each `wrong` or `crashed` test's input within this budget
    /// (`None`: do not); with [`Mode::Calls`], look for smaller failing calls.
    pub shrink: Option<Budget>,
}

/// What a grading grades: each mode is one arm of the pipeline after a
/// submission's intake.
#[derive(Clone, Debug)]
pub enum Mode {
    /// Whole programs, built once and run once a test.
    Program(Program),
    /// An assignment's functions one by one, through its harness (`--api`).
    Calls(CallsPlan),
    /// Bots graded by how they play (`--play`): each submission plays
    /// games against the engines by the bot protocol.
    Play(PlayPlan),
}

/// The tests of a bot graded by play ([`Mode::Play`]), in report order:
/// it never loses to `perfect`, it wins enough of its games against
/// `random`, and it forfeits none of them.
pub const PLAY_TESTS: [&str; 3] = ["vs-perfect", "vs-random", "legal"];

/// Bots graded by how they play.
#[derive(Clone, Debug)]
pub struct PlayPlan {
    /// How the bots are built and started (its `tests` are empty).
    pub program: Program,
    /// The board the games are played on.
    pub geometry: crate::board::Geometry,
    /// How many games `vs-random` plays, alternating sides.
    pub games: u64,
    /// How many of them it must win.
    pub min_wins: u64,
    /// The time each answer may take.
    pub move_time: Duration,
    /// How much longer a game's first answer may take (a JVM's start).
    pub startup: Duration,
    /// The seed of `random`'s games.
    pub seed: u64,
}

impl Plan {
    /// A plan with no tests, for [`Grader::prepare`](super::Grader::prepare)
    /// alone: submissions found and built as `programs` says, to be run by
    /// the caller within `limits` (bots in a match), `jobs` builds at once.
    #[must_use]
    pub fn preparing(programs: Programs, limits: Limits, jobs: usize) -> Plan {
        Plan {
            mode: Mode::Program(Program {
                tests: Vec::new(),
                programs,
                io: Io::Stdout,
                layout: referee::Options::default(),
                warnings: false,
                provided: None,
            }),
            limits,
            build_limits: build_limits(&limits),
            jobs,
            partial: false,
            check: CheckOptions::default(),
            copy_caps: copy::Caps::SUBMISSION,
            require_sandbox: false,
            shrink: None,
        }
    }
}

/// Whole programs on tests.
#[derive(Clone, Debug)]
pub struct Program {
    /// The tests, in the order reports list them, each with its expected
    /// answer.
    pub tests: Vec<Test>,
    /// How submissions are built and run.
    pub programs: Programs,
    /// How they read and write, and so what the tests are.
    pub io: Io,
    /// The referee's layout options, with which the expected transcripts
    /// were made (a shrunk input's is made the same way).
    pub layout: referee::Options,
    /// Whether the build's compiler warnings are a test of their own,
    /// [`WARNINGS_TEST`], listed first (`--warnings`): a course that asks
    /// for a build without warnings grades it like any test.
    pub warnings: bool,
    /// The course's provided files, written over each submission's copy
    /// before it is built (`--provided`): students must not change them.
    pub provided: Option<Provided>,
}

/// Function-level grading: which assignment, and its cases.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallsPlan {
    /// The assignment whose functions are graded.
    pub api: Api,
    /// How many random cases per function, from which seed.
    pub cases: CaseOptions,
}

/// The limits of one run of a function-level harness (many calls), given
/// the limit per call: at least 20 s (ten calls' worth) and 64 MB written.
#[must_use]
pub fn harness_limits(test: &Limits) -> Limits {
    let wall = (test.wall * 10).max(Duration::from_secs(20));
    Limits { wall, cpu: wall, output: test.output.max(64 << 20), ..*test }
}

impl Program {
    /// The console tests whose script ends before its game does: what the
    /// program shows is judged, and what it does at the end of its input is
    /// not held against it, so the TA is told.
    #[must_use]
    pub fn unfinished_scripts(&self) -> Vec<&str> {
        match self.io {
            Io::Console { .. } => {
                self.tests.iter().filter(|t| !t.complete).map(|t| t.name.as_str()).collect()
            }
            Io::Files { .. } | Io::Stdout | Io::Args => Vec::new(),
        }
    }
}

impl Plan {
    /// The name of every test of a submission, in report order: the test
    /// files (after [`WARNINGS_TEST`] with [`Program::warnings`]), or with
    /// [`Mode::Calls`] the functions.
    #[must_use]
    pub fn test_names(&self) -> Vec<String> {
        match &self.mode {
            Mode::Calls(calls) => calls.api.functions(),
            Mode::Play(play) => {
                let warnings = play.program.warnings.then(|| WARNINGS_TEST.to_owned());
                warnings.into_iter().chain(PLAY_TESTS.iter().map(|&t| t.to_owned())).collect()
            }
            Mode::Program(program) => {
                let warnings = program.warnings.then(|| WARNINGS_TEST.to_owned());
                warnings.into_iter().chain(program.tests.iter().map(|t| t.name.clone())).collect()
            }
        }
    }
}

/// The test's name in the run directory unless `--moves-file` says otherwise.
pub const DEFAULT_INPUT: &str = "TTTmoves.txt";
/// The answer's name in the run directory unless `--transcript-file` says otherwise.
pub const DEFAULT_OUTPUT: &str = "TTTgame.txt";
