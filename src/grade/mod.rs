//! `grade`: run people's programs against tests in the [`sandbox`] and say
//! how each did.
//!
//! A [`Grader`] is made from a [`Plan`] and grades each submission through
//! one pipeline, a file a stage; each [`Mode`] is one arm of it:
//!
//! - [`plan`]: what to grade and how — the [`Mode`] (whole programs on
//!   tests, with their [`Io`], or an assignment's functions), the limits;
//! - [`suite`]: the tests, found and answered; [`language`]: how a
//!   submission is built and run, found from its files;
//! - [`class`]: the submissions given, sorted out;
//! - [`grader`]: a submission at a time, each stopped at its own boundary,
//!   telling a [`report::Sink`] as it goes;
//! - [`intake`]: the grader's steps with a submission's files, each failing
//!   that submission alone;
//! - [`provided`]: the course's provided files, written over each copy;
//! - [`build`]: the one build, and the test its warnings make;
//! - [`run`]: one test in the sandbox, a `time-limit` confirmed;
//! - [`calls`]: an assignment's functions, a call at a time through its
//!   harness;
//! - [`play`]: bots graded by how they play, games against the engines;
//! - [`verdict`]: the verdict on a finished run, decided without running
//!   anything;
//! - [`shrink`]: the smallest failing input;
//! - [`result`]: what a grading finds;
//! - [`report`]: the sinks that show and write it (the progress bar, the
//!   table, the report files, Gradescope's);
//! - [`package`]: a grading packaged for Gradescope or GitHub.
//!
//! [`sandbox`]: crate::sandbox

pub mod build;
pub mod calls;
pub mod class;
pub mod grader;
pub mod intake;
pub mod language;
pub mod package;
pub mod plan;
pub mod play;
pub mod provided;
pub mod report;
pub mod result;
pub mod run;
pub mod shrink;
pub mod suite;
pub mod verdict;

pub use self::build::BUILD_LOG_BYTES;
pub use self::calls::{Api, CaseOptions};
pub use self::class::{Class, ClassError, submission_name};
pub use self::grader::{GradeError, Grader, Prepared};
pub use self::intake::{Faults, Step};
pub use self::language::{Commands, Languages};
pub use self::plan::{
    CallsPlan, DEFAULT_INPUT, DEFAULT_OUTPUT, Io, Mode, PLAY_TESTS, Plan, PlayPlan, Program, Programs,
    TEST_LIMITS, build_limits, harness_limits,
};
pub use self::provided::{Provided, ProvidedError};
pub use self::result::{
    Graded, SHOWN_BYTES, SHOWN_LINES, STDERR_BYTES, STDERR_LINES, Stopped, SubmissionResult, TestResult,
    Verdict, WARNINGS_TEST,
};
pub use self::shrink::{Budget, Evidence, Smallest};
pub use self::suite::Test;
pub use self::verdict::signal_name;
