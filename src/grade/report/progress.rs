//! The progress bar a grading shows on standard error: a tick a test.

use indicatif::ProgressBar;

use super::{Grading, ReportError, Sink};
use crate::grade::result::{Graded, TestResult};

/// A bar of every test of every submission, cleared when the grading is
/// over (so the table prints on a clean terminal). Shown only on a terminal.
#[derive(Debug, Default)]
pub struct Progress {
    bar: Option<ProgressBar>,
}

impl Sink for Progress {
    fn begin(&mut self, grading: &Grading<'_>) {
        let total = (grading.tests.len() * grading.submissions) as u64;
        self.bar = Some(crate::spinner::progress_bar(total, "tests"));
    }

    fn test(&mut self, _submission: &str, _test: &TestResult) {
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
    }

    fn finish(&mut self, _graded: &Graded) -> Result<(), ReportError> {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
        Ok(())
    }
}
