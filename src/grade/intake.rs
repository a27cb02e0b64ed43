//! The grader's own steps with a submission's files — the copy, placing
//! the course's provided files, clearing old answers, the hand-over to the
//! run user, placing a harness, the clean-up — each of which fails that submission alone (`build-failed`, with why), and
//! the faults a test can inject in them.

use std::fs;
use std::io;
use std::path::Path;
use std::sync::Arc;

use super::grader::Grader;
use super::result::Stopped;
use crate::sandbox;
use crate::text;

/// A step the grader takes with one submission's files, each of which can
/// fail that submission alone (`build-failed`, with the reason).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Step {
    /// Copying the submission into the grader's scratch directory.
    Copy,
    /// Removing answers left in the copy (or the build) from its author's
    /// own runs.
    ClearAnswers,
    /// Giving a copy or a build to the user the runs are made as.
    HandOver,
    /// Placing a function-level harness's files.
    PlaceHarness,
    /// Writing the course's provided files over the copy (`--provided`).
    PlaceProvided,
    /// Removing the submission's scratch directory once it is graded.
    CleanUp,
}

impl Step {
    /// What the step does, in words for a report.
    fn doing(self) -> &'static str {
        match self {
            Step::Copy => "copying the submission",
            Step::ClearAnswers => "clearing old answers from the copy",
            Step::HandOver => "handing the copy to the run user",
            Step::PlaceHarness => "placing the harness's files",
            Step::PlaceProvided => "placing the course's provided files",
            Step::CleanUp => "removing the copy",
        }
    }
}

/// Called before each [`Step`] with a submission's name: an error makes
/// that step fail there (fault injection, for tests).
pub type Faults = Arc<dyn Fn(Step, &str) -> io::Result<()> + Send + Sync>;

/// One submission could not be graded: the reason, shown in its reports.
/// It fails that submission alone; the grading goes on.
#[derive(Debug)]
pub(in crate::grade) struct Failed(pub(in crate::grade) String);

/// Why a submission's grading did not run to its end: a step failed (that
/// submission alone), or the whole grading was stopped.
#[derive(Debug)]
pub(in crate::grade) enum Halt {
    /// A step failed on this submission: the reason for its reports.
    Failed(String),
    /// The grading was stopped: the submission is not graded.
    Stopped,
}

impl From<Failed> for Halt {
    fn from(Failed(why): Failed) -> Halt {
        Halt::Failed(why)
    }
}

impl From<Stopped> for Halt {
    fn from(Stopped: Stopped) -> Halt {
        Halt::Stopped
    }
}

impl Failed {
    pub(in crate::grade) fn step(step: Step, path: &Path, area: &Path, e: &io::Error) -> Failed {
        let shown = path.strip_prefix(area).unwrap_or(path);
        if shown.as_os_str().is_empty() {
            Failed(format!("the grader failed {}: {e}", step.doing()))
        } else {
            Failed(format!(
                "the grader failed {} ({}): {e}",
                step.doing(),
                text::cut(&shown.to_string_lossy(), 200)
            ))
        }
    }
}

impl Grader {
    /// Makes each [`Step`] call `faults` first, for a submission, with its
    /// name: an error there fails the step. For tests of the grader's own
    /// failures; a grading never sets it.
    #[doc(hidden)]
    pub fn inject_faults(&mut self, faults: Faults) {
        self.faults = Some(faults);
    }

    /// Whether `step` may go ahead on the submission `name` (always, but
    /// where a test injected a fault).
    pub(in crate::grade) fn check(&self, step: Step, name: &str) -> io::Result<()> {
        self.faults.as_ref().map_or(Ok(()), |faults| faults(step, name))
    }

    /// Gives `path` in `area` to the run user, as [`Step::HandOver`].
    pub(in crate::grade) fn hand_over(&self, name: &str, path: &Path, area: &Path) -> Result<(), Failed> {
        self.check(Step::HandOver, name)
            .and_then(|()| self.sandbox.hand_over(path))
            .map_err(|e| Failed::step(Step::HandOver, path, area, &e))
    }

    /// Removes what is at `output` (an old answer, or whatever stands where
    /// the test goes) in `dir` in `area`, as [`Step::ClearAnswers`].
    pub(in crate::grade) fn clear_answer(
        &self,
        name: &str,
        dir: &Path,
        output: &str,
        area: &Path,
    ) -> Result<(), Failed> {
        let path = dir.join(output);
        self.check(Step::ClearAnswers, name)
            .and_then(|()| remove_entry(&path))
            .map_err(|e| Failed::step(Step::ClearAnswers, &path, area, &e))
    }
}

/// Removes whatever is at `path`, a file or a directory; nothing there is
/// fine.
pub(in crate::grade) fn remove_entry(path: &Path) -> io::Result<()> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => {
            sandbox::remove_all(path);
            Ok(())
        }
        Ok(_) => fs::remove_file(path),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}
