//! The plan of a grading: the tests, how submissions are built and run,
//! how they read and write, the limits, and what the sandbox must give
//! ([`Plan`]); the defaults of each.

use std::time::Duration;

use super::calls::{Api, CaseOptions};
use super::io::Io;
use super::result::WARNINGS_TEST;
use super::shrink::Budget;
use super::suite::Test;
use crate::check::CheckOptions;
use crate::referee;
use crate::sandbox::{Limits, copy};
use crate::workshop::provided::Provided;
use crate::workshop::recipe::{Programs, Recipe};

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
    /// The seed the graded games, cases or generated tests came from, when
    /// any did: drawn anew for each grading unless `--seed` gave it, and
    /// said in every report, so a regrade with `--seed` plays them again.
    pub seed: Option<u64>,
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
    /// The most games `vs-random` samples a side, when its odds cannot be
    /// worked out exactly.
    pub games: u64,
    /// The share of games against uniformly random play it must win, as X
    /// and as O (0 to 1).
    pub bars: [f64; 2],
    /// The most games each of `vs-perfect`'s and an exact `vs-random`'s
    /// trees may take; beyond, they are a sample, said so.
    pub proof_games: u64,
    /// Tests the TA added (`--versus`): games against an engine, after the
    /// built-in ones.
    pub versus: Vec<Versus>,
    /// The time each answer may take.
    pub move_time: Duration,
    /// How much longer a game's first answer may take (a JVM's start).
    pub startup: Duration,
    /// The seed of `random`'s games.
    pub seed: u64,
}

/// A test of games against an opponent the TA chose (`--versus`).
#[derive(Clone, Debug, PartialEq)]
pub struct Versus {
    /// The test's name, `vs-` and the opponent's (`vs-rules`,
    /// `vs-reference`): made once for the process from the command line, it
    /// names records as the built-in tests' names do.
    pub test: &'static str,
    /// The opponent.
    pub opponent: Opponent,
    /// The share of points (a win 1, a draw ½) it must score against it,
    /// as X and as O (0 to 1).
    pub bars: [f64; 2],
}

/// Who a [`Versus`] test's games are played against.
#[derive(Clone, Debug, PartialEq)]
pub enum Opponent {
    /// One of the built-in engines.
    Engine(crate::engine::EngineKind),
    /// A reference bot: its source directory, built once for the grading as
    /// a submission is, and run in the same sandbox with the same limits.
    /// Its own forfeits judge nothing of the student's: the test is then
    /// the grader's error.
    Bot(std::path::PathBuf),
}

/// `vs-strong`'s bar by default, as X and as O: the share of points a bot
/// must score against `strong` where it replaces `vs-perfect` (GUIDE.md
/// says why this much).
pub const STRONG_BARS: [f64; 2] = [0.25, 0.0];

/// The most games a sampled test plays a side on a board `perfect` cannot
/// play (a game there is tens of moves, each of them an engine's search).
pub const BIG_BOARD_GAMES: u64 = 20;

impl PlayPlan {
    /// Whether `perfect` can play the board, and so `vs-perfect` be run:
    /// at most 64 squares, K or more in a row winning.
    #[must_use]
    pub fn perfect_plays(&self) -> bool {
        self.geometry.cells() <= crate::engine::MAX_CELLS
            && self.geometry.rule() == crate::board::WinRule::AtLeast
    }

    /// Where `perfect` cannot play, a `vs-strong` test first among the
    /// TA's (at [`STRONG_BARS`]) unless the TA asked for one.
    #[must_use]
    pub fn strong_where_perfect_cannot(mut self) -> PlayPlan {
        let strong = crate::engine::EngineKind::Strong;
        if !self.perfect_plays() && self.versus.iter().all(|v| v.opponent != Opponent::Engine(strong)) {
            self.versus.insert(
                0,
                Versus { test: "vs-strong", opponent: Opponent::Engine(strong), bars: STRONG_BARS },
            );
        }
        self
    }

    /// The most games a sampled test plays a side: [`PlayPlan::games`],
    /// at most [`BIG_BOARD_GAMES`] where `perfect` cannot play.
    #[must_use]
    pub fn sampled_games(&self) -> u64 {
        if self.perfect_plays() { self.games } else { self.games.min(BIG_BOARD_GAMES) }
    }

    /// The tests of each bot, in report order: all of [`PLAY_TESTS`] (but
    /// `vs-perfect` on a board `perfect` cannot play), then the TA's.
    #[must_use]
    pub fn tests(&self) -> Vec<&'static str> {
        let [perfect, random, legal] = PLAY_TESTS;
        let perfect = self.perfect_plays().then_some(perfect);
        perfect.into_iter().chain([random]).chain(self.versus.iter().map(|v| v.test)).chain([legal]).collect()
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
    /// How each submission is made runnable for these tests: the answers'
    /// names cleared from its copy and build (where the answer is a file),
    /// and a console program found from its files started as its handout
    /// starts it (URI CSC 212 Deep Dive 4's starter plays its AI when
    /// given one argument).
    #[must_use]
    pub fn recipe(&self) -> Recipe {
        let clear = if self.io.answers_in_a_file() {
            let (input, output) = self.io.names();
            vec![output.to_owned(), input.to_owned()]
        } else {
            Vec::new()
        };
        let args = match &self.io {
            Io::Console { profile, sides, .. } => {
                profile.program_args(*sides).iter().map(|&arg| arg.to_owned()).collect()
            }
            Io::Files { .. } | Io::Stdout | Io::Args => Vec::new(),
        };
        Recipe { programs: self.programs.clone(), provided: self.provided.clone(), clear, args }
    }

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
                warnings.into_iter().chain(play.tests().into_iter().map(str::to_owned)).collect()
            }
            Mode::Program(program) => {
                let warnings = program.warnings.then(|| WARNINGS_TEST.to_owned());
                warnings.into_iter().chain(program.tests.iter().map(|t| t.name.clone())).collect()
            }
        }
    }
}
