//! What every mode's stage is handed: the plan, the sandbox, the program
//! the workshop made runnable, and how to tell a sink of each test
//! ([`Stage`]); and the result of a submission that never ran
//! ([`not_run`]).

use std::path::Path;
use std::sync::Arc;

use super::plan::Plan;
use super::result::{SubmissionResult, TestResult, Verdict};
use crate::sandbox::Sandbox;
use crate::text;
use crate::workshop::{BUILD_LOG_BYTES, Built, Failure};

/// How a stage tells a sink of each test of one submission.
pub type Tell<'a> = dyn Fn(&TestResult) + Sync + 'a;

/// One submission's grading, handed to its mode's stage: everything a
/// stage reads, and nothing it could change.
#[derive(Clone, Copy)]
pub struct Stage<'a> {
    /// The plan of the grading.
    pub plan: &'a Plan,
    /// The sandbox its runs are made in.
    pub sandbox: &'a Arc<Sandbox>,
    /// The submission's area in the scratch directory: what a stage keeps
    /// of its own (the games' records) goes there.
    pub area: &'a Path,
    /// The program, made runnable (for function grading, the harness).
    pub built: &'a Built,
    /// The reference bots of the grading's `--versus` tests, each built once
    /// for the whole grading, by its test's name.
    pub references: &'a [(&'static str, Built)],
    /// Told of each test as it is decided.
    pub tell: &'a Tell<'a>,
    /// How many of its runs or games may go at once: the grading's jobs
    /// shared among the submissions graded side by side.
    pub jobs: usize,
}

impl Stage<'_> {
    /// The submission's result from its `tests`, with what the copy lacked
    /// or changed of the course's provided files.
    #[must_use]
    pub fn graded(&self, tests: Vec<TestResult>) -> SubmissionResult {
        let built = self.built;
        let mut result = SubmissionResult::graded(
            built.name.clone(),
            built.language.clone(),
            built.build_log.clone(),
            tests,
        );
        if let Some(placed) = &built.provided {
            result.provided_missing = Some(placed.missing.clone());
            result.provided_changed = Some(placed.changed.clone());
            result.provided_removed = Some(placed.removed.clone());
        }
        result
    }
}

/// The most of a reason every test of a submission not run repeats.
const DETAIL_BYTES: usize = 4 << 10;

/// The result of the submission `name`, every test of `plan` failed the
/// same way before anything ran (a refused copy, a failed build), each told
/// to `tell`. The reason may quote the student's files at length (a list of
/// their classes, say): the log is cut as a build log is, and the detail
/// every test repeats at [`DETAIL_BYTES`].
#[must_use]
pub fn not_run(plan: &Plan, name: &str, failure: &Failure, tell: &Tell<'_>) -> SubmissionResult {
    let tests = plan
        .test_names()
        .iter()
        .map(|test| {
            let test = TestResult::not_run(
                test,
                if failure.by_grader { Verdict::Error } else { Verdict::BuildFailed },
                text::said(&failure.detail, DETAIL_BYTES).into_owned(),
            );
            tell(&test);
            test
        })
        .collect();
    let log = &failure.log;
    SubmissionResult {
        submission: name.to_owned(),
        language: failure.language.clone(),
        score: 0.0,
        build_failed: !failure.by_grader,
        build_log: Some(if log.len() > BUILD_LOG_BYTES {
            text::said(log, BUILD_LOG_BYTES).into_owned()
        } else {
            log.clone()
        }),
        tests,
        provided_missing: failure.provided.as_ref().map(|p| p.missing.clone()),
        provided_changed: failure.provided.as_ref().map(|p| p.changed.clone()),
        provided_removed: failure.provided.as_ref().map(|p| p.removed.clone()),
    }
}
