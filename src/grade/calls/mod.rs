//! Function-level grading (`grade --api`): a student's functions called one
//! by one, each answer checked against the referee's own rule engine.
//!
//! Each assignment ([`xtreme`], [`igameboard`]) is an [`Assignment`]: what
//! its functions are, how its harness is set up, and how to make cases for
//! them (its published examples, then seeded random boards) with their
//! expected values, how a case reads to a student, and which smaller cases
//! to try when one fails ([`Call`]). [`Api`], the `--api` value, only names
//! which one is graded. A small harness (Python or Java, shipped in the
//! binary) runs in the sandbox like any program: it is given every call as
//! a JSON line, answers each with what happened, and decides nothing. The
//! rest is the same for every assignment, a file a job:
//!
//! - `answer.rs`: the calls answered (a call that runs past its limit or
//!   kills the harness fails alone: the harness starts again on the calls
//!   left, and the rest of that function's cases are not run);
//! - `judge.rs`: each function's result;
//! - `shrink.rs`: a smaller failing call looked for, one step at a time;
//! - `run.rs`: the grader's side: the harness placed beside the submission's
//!   copy, built, and run in the sandbox.
//!
//! The harness's files are never in the submission's tree: the build and the
//! runs start in a directory of the grader's holding the submission's copy
//! as [`SUBMISSION_DIR`] and the harness in [`GRADER_DIR`] beside it, so no
//! name a submission holds can be in the way or stand in for the harness's
//! own. Nothing of the submission's is on the harness's import or class
//! path ahead of what the harness uses: Python runs isolated (`python3 -I`,
//! the student's file loaded by its path), and the Java harness is in a
//! package of its own, compiled alone, and first on the run's class path.

mod answer;
mod assignment;
mod call;
pub mod igameboard;
mod judge;
pub(in crate::grade) mod run;
mod shrink;
pub mod xtreme;

pub use self::answer::{Ran, Runner, Stop};
pub use self::assignment::{
    AnyAssignment, Assignment, CaseOptions, GRADER_DIR, Harness, JAVA_HARNESS, PYTHON_HARNESS,
    SUBMISSION_DIR, Times, does_not_load,
};
pub use self::call::{Call, Outcome, common, cut, quoted};
pub use self::judge::{Settings, grade};

/// The assignments whose functions can be graded one by one: the value of
/// `--api`, each naming its [`Assignment`] ([`Api::assignment`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Api {
    /// StFX asn3's `asn3.py`: twelve Python functions on n × n boards.
    Xtreme,
    /// Clemson CPSC 2150's Java `IGameBoard`, through both `GameBoard` and
    /// `GameBoardMem`.
    IGameBoard,
}

impl Api {
    /// The assignment it names.
    #[must_use]
    pub fn assignment(self) -> &'static dyn AnyAssignment {
        match self {
            Api::Xtreme => &xtreme::Xtreme,
            Api::IGameBoard => &igameboard::IGameBoard,
        }
    }

    /// Its assignment's tests, in report order ([`Assignment::functions`]).
    #[must_use]
    pub fn functions(self) -> Vec<String> {
        self.assignment().functions()
    }
}
