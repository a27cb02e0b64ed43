//! What an assignment graded function by function supplies
//! ([`Assignment`]), the same trait whatever its calls' type
//! ([`AnyAssignment`]), its harness ([`Harness`], [`Times`]) and its cases
//! ([`CaseOptions`]); each assignment is a file implementing it, and
//! [`Api`](super::Api) names which.

use std::path::Path;
use std::time::Duration;

use super::answer::{Runner, Stop};
use super::call::Call;
use super::judge::{Settings, grade};
use crate::grade::TestResult;

/// The Python harness (`grade --api xtreme`), written into each run.
pub const PYTHON_HARNESS: &str = include_str!("harness.py");

/// The Java harness (`grade --api igameboard`), compiled beside each
/// submission (on its own: never with the submission's files).
pub const JAVA_HARNESS: &str = include_str!("Harness.java");

/// Where the submission's copy is, in the directory the harness is built
/// and run in: the student's `src/X.java` is `submission/src/X.java` there.
pub const SUBMISSION_DIR: &str = "submission";

/// The grader's own directory beside [`SUBMISSION_DIR`]: the harness's
/// files, and what is built from them. No file of the submission's can be
/// in it, whatever its name: a submission holding `ttt`, `.ttt-harness`
/// or `Harness.class` only has them under `submission/`.
pub const GRADER_DIR: &str = "ttt";

/// An assignment whose functions are graded one by one: what it supplies,
/// all else being the same for every assignment. A new assignment is a file
/// implementing it, and an arm of [`Api`].
pub trait Assignment: Sync {
    /// One call of one of its functions, with its expected value.
    type Call: Call;

    /// The tests of a submission, in report order: a function
    /// (`check_row`) or a class's method (`GameBoardMem.checkSpace`) each.
    /// A call's [`Call::function`] is an index into them.
    fn functions(&self) -> Vec<String>;

    /// How the harness is set up for the submission copied at `source`
    /// (which is [`SUBMISSION_DIR`] in the directory the build and the runs
    /// start in), with `memory` bytes and the clocks `times`: the files it
    /// adds, its build and its command.
    ///
    /// # Errors
    /// Why the submission cannot be graded at all (no `asn3.py`; no
    /// `BoardPosition.java`), which is its build failing.
    fn harness(&self, source: &Path, memory: u64, times: Times) -> Result<Harness, String>;

    /// Every case, covering every function: the published examples, then
    /// `options.per_function` seeded random ones per function. The same
    /// options give the same cases.
    fn cases(&self, options: CaseOptions) -> Vec<Self::Call>;

    /// What a build-failed test says of a file that did not load (`why`,
    /// the harness's account): [`does_not_load`], with a hint where the
    /// assignment knows a likely cause.
    fn not_loaded(&self, why: &str) -> String {
        does_not_load(why)
    }
}

/// An [`Assignment`] whatever the type of its calls, as [`Api`] hands it
/// out: its cases are made and graded in one step, [`AnyAssignment::grade`].
pub trait AnyAssignment: Sync {
    /// [`Assignment::functions`].
    fn functions(&self) -> Vec<String>;

    /// [`Assignment::harness`].
    ///
    /// # Errors
    /// Why the submission cannot be graded at all.
    fn harness(&self, source: &Path, memory: u64, times: Times) -> Result<Harness, String>;

    /// [`Assignment::not_loaded`].
    fn not_loaded(&self, why: &str) -> String;

    /// Grades each function on the cases `options` make, running the
    /// harness with `run`: [`grade`] on [`Assignment::cases`].
    ///
    /// # Errors
    /// [`Stop`] when the grading was interrupted or the file did not load.
    fn grade(
        &self,
        options: CaseOptions,
        settings: &Settings,
        run: &Runner<'_>,
    ) -> Result<Vec<TestResult>, Stop>;
}

impl<A: Assignment> AnyAssignment for A {
    fn functions(&self) -> Vec<String> {
        Assignment::functions(self)
    }

    fn harness(&self, source: &Path, memory: u64, times: Times) -> Result<Harness, String> {
        Assignment::harness(self, source, memory, times)
    }

    fn not_loaded(&self, why: &str) -> String {
        Assignment::not_loaded(self, why)
    }

    fn grade(
        &self,
        options: CaseOptions,
        settings: &Settings,
        run: &Runner<'_>,
    ) -> Result<Vec<TestResult>, Stop> {
        grade(&Assignment::functions(self), self.cases(options), settings, run)
    }
}

/// What a build-failed test says of a file that did not load: `it does not
/// load: ` and the first line of why.
#[must_use]
pub fn does_not_load(why: &str) -> String {
    format!("it does not load: {}", why.lines().next().unwrap_or_default())
}

/// The harness's two clocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Times {
    /// The most one call may take.
    pub call: Duration,
    /// After this long a run starts no more calls (and is started again for
    /// the rest), well before the sandbox's limit would stop it unheard.
    pub budget: Duration,
}

impl Times {
    /// The two as the harness's arguments: milliseconds, at least 1.
    pub(super) fn args(self) -> String {
        format!("{} {}", self.call.as_millis().max(1), self.budget.as_millis().max(1))
    }
}

/// How cases are made: how many random ones per function, from which seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CaseOptions {
    /// Random cases per function, besides the published examples.
    pub per_function: usize,
    /// The seed: the same seed gives the same cases.
    pub seed: u64,
}

impl CaseOptions {
    /// 200 random cases per function, seed 0.
    pub const DEFAULT: CaseOptions = CaseOptions { per_function: 200, seed: 0 };
}

/// The harness set up for one submission.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Harness {
    /// The language shown in reports, with the file graded.
    pub language: String,
    /// The harness's files (path relative to [`GRADER_DIR`], text), put
    /// beside the submission's copy, never in it.
    pub files: Vec<(String, &'static str)>,
    /// The build, run once through `/bin/sh` in the directory holding
    /// [`SUBMISSION_DIR`] and [`GRADER_DIR`], if there is one.
    pub build: Option<String>,
    /// The harness's command line (shell words), run in that directory as
    /// the build left it.
    pub run: String,
    /// Variables its runs need set.
    pub env: Vec<(String, String)>,
}
