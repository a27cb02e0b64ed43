//! The workshop's own steps with a submission's files — the copy, placing
//! the course's provided files, clearing old answers, the hand-over to the
//! run user, placing a harness, the clean-up — each of which fails that
//! submission alone, with why; and the faults a test can inject in them.

use std::fs;
use std::io;
use std::path::Path;
use std::sync::Arc;

use crate::sandbox::{self, Sandbox};
use crate::text;

/// A step the workshop takes with one submission's files, each of which
/// can fail that submission alone (`build-failed`, with the reason).
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

/// A step failed on one submission: the reason, shown in its reports. It
/// fails that submission alone; the grading goes on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failed(pub String);

/// The steps taken with one submission's files in its area: each checked
/// against the injected faults first, each failure said the same way.
#[derive(Clone, Copy)]
pub struct Steps<'a> {
    /// The submission's name, as faults are told it.
    pub name: &'a str,
    /// Its area in the scratch directory: paths in reasons are shown
    /// relative to it.
    pub area: &'a Path,
    /// Faults a test injected.
    pub faults: Option<&'a Faults>,
}

impl Steps<'_> {
    /// Whether `step` may go ahead (always, but where a test injected a
    /// fault).
    ///
    /// # Errors
    /// The injected fault.
    pub fn check(&self, step: Step) -> io::Result<()> {
        self.faults.map_or(Ok(()), |faults| faults(step, self.name))
    }

    /// Takes `step` on `path` by doing `work`, once the faults allow it:
    /// its failure said as every step's is.
    ///
    /// # Errors
    /// [`Failed`], naming the step and the path.
    pub fn take<T>(
        &self,
        step: Step,
        path: &Path,
        work: impl FnOnce() -> io::Result<T>,
    ) -> Result<T, Failed> {
        self.check(step).and_then(|()| work()).map_err(|e| self.failed(step, path, &e))
    }

    /// `step` failed on `path` with `e`, in words for a report.
    #[must_use]
    pub fn failed(&self, step: Step, path: &Path, e: &io::Error) -> Failed {
        let shown = path.strip_prefix(self.area).unwrap_or(path);
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

    /// Gives `path` to the run user, as [`Step::HandOver`].
    ///
    /// # Errors
    /// [`Failed`] when it cannot be.
    pub fn hand_over(&self, sandbox: &Sandbox, path: &Path) -> Result<(), Failed> {
        self.take(Step::HandOver, path, || sandbox.hand_over(path))
    }

    /// Removes what is at `name` in `dir` (an old answer, or whatever
    /// stands where the test goes), as [`Step::ClearAnswers`].
    ///
    /// # Errors
    /// [`Failed`] when it cannot be removed.
    pub fn clear(&self, dir: &Path, name: &str) -> Result<(), Failed> {
        let path = dir.join(name);
        self.take(Step::ClearAnswers, &path, || remove_entry(&path))
    }
}

/// Removes whatever is at `path`, a file or a directory; nothing there is
/// fine.
///
/// # Errors
/// When it is there and cannot be removed.
pub fn remove_entry(path: &Path) -> io::Result<()> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_step_names_itself_and_the_path_within_the_area() {
        let area = Path::new("/scratch/submission-0");
        let faults: Faults = Arc::new(|step, name| {
            if step == Step::HandOver && name == "ann" { Err(io::Error::other("injected")) } else { Ok(()) }
        });
        let steps = Steps { name: "ann", area, faults: Some(&faults) };
        assert_eq!(steps.take(Step::Copy, &area.join("source"), || Ok(7)), Ok(7));
        assert_eq!(
            steps.take(Step::HandOver, &area.join("built"), || Ok(())),
            Err(Failed("the grader failed handing the copy to the run user (built): injected".to_owned()))
        );
        assert_eq!(
            steps.failed(Step::CleanUp, area, &io::Error::other("busy")),
            Failed("the grader failed removing the copy: busy".to_owned())
        );
        let bo = Steps { name: "bo", ..steps };
        assert_eq!(bo.check(Step::HandOver).map_err(|e| e.to_string()), Ok(()));
    }

    #[test]
    fn removing_an_entry_takes_files_and_trees_and_nothing_is_fine() {
        let dir = tempfile::tempdir().unwrap();
        let (file, tree) = (dir.path().join("TTTgame.txt"), dir.path().join("out"));
        fs::write(&file, "old").unwrap();
        fs::create_dir_all(tree.join("deep")).unwrap();
        for path in [&file, &tree, &dir.path().join("absent")] {
            remove_entry(path).unwrap();
            assert!(fs::symlink_metadata(path).is_err(), "{}", path.display());
        }
    }
}
