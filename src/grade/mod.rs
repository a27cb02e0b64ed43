//! `grade`: run people's programs against tests in the [`sandbox`] and say
//! how each did.
//!
//! A [`Grader`] is made from a [`Plan`] and grades each submission through
//! one pipeline, a file a stage; each [`Mode`] is one arm of it:
//!
//! - [`plan`]: what to grade and how — the [`Mode`] (whole programs on
//!   tests, with their [`Io`], or an assignment's functions), the limits;
//! - [`io`]: how a program reads its test and gives its answer;
//! - [`suite`]: the tests, found and answered;
//! - [`class`]: the submissions given, sorted out;
//! - [`crate::partition`]: a class dealt among the machines of a fleet
//!   (`--partition`), and [`fingerprint`] what a grading is, so the parts
//!   of two gradings never merge;
//! - [`grader`]: a submission at a time, each made runnable by the
//!   [`workshop`](crate::workshop), then graded by its mode's stage, each
//!   stopped at its own boundary, telling a [`report::Sink`] as it goes;
//! - [`stage`]: what every mode's stage is handed ([`stage::Stage`]);
//! - [`program`]: whole programs on their tests, one test a sandboxed run, a
//!   `time-limit` confirmed;
//! - [`calls`]: an assignment's functions, a call at a time through its
//!   harness;
//! - [`play`]: bots graded by how they play, games against the engines
//!   played as the arena plays every game;
//! - [`verdict`]: the verdict on a finished run, and the test a build's
//!   warnings make, decided without running anything;
//! - [`shrink`]: the smallest failing input;
//! - [`result`]: what a grading finds;
//! - [`report`]: the sinks that show and write it (the progress bar, the
//!   table, the report files, Gradescope's; a part's `part.json`, and the
//!   parts merged into one grading's reports);
//! - [`package`]: a grading packaged for Gradescope or GitHub.
//!
//! [`sandbox`]: crate::sandbox

pub mod calls;
pub mod class;
pub mod fingerprint;
pub mod grader;
pub mod io;
pub mod package;
pub mod plan;
pub mod play;
pub mod play_config;
pub mod program;
pub mod report;
pub mod result;
pub mod shrink;
pub mod sprt;
pub mod stage;
pub mod suite;
pub mod verdict;

pub use self::calls::{Api, CaseOptions};
pub use self::class::{Class, ClassError};
pub use self::fingerprint::Fingerprint;
pub use self::grader::{GradeError, Grader};
pub use self::io::{DEFAULT_INPUT, DEFAULT_OUTPUT, Io};
pub use self::plan::{
    CallsPlan, Mode, Opponent, PLAY_TESTS, Plan, PlayPlan, Program, TEST_LIMITS, Versus, harness_limits,
};
pub use self::result::{Evidence, Smallest};
pub use self::result::{
    Graded, SHOWN_BYTES, SHOWN_LINES, STDERR_BYTES, STDERR_LINES, Stopped, SubmissionResult, TestResult,
    Verdict, WARNINGS_TEST,
};
pub use self::shrink::Budget;
pub use self::suite::Test;
pub use crate::outcome::signal_name;
pub use crate::partition::{Partition, PartitionError, Scheme};
pub use crate::workshop::intake::{Faults, Step};
pub use crate::workshop::language::{Commands, Languages};
pub use crate::workshop::provided::{Provided, ProvidedError};
pub use crate::workshop::recipe::{Programs, build_limits};
pub use crate::workshop::{BUILD_LOG_BYTES, submission_name};
