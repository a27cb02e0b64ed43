//! Where a grading's results go: every report is a [`Sink`], told of the
//! grading as it happens, and each writes one thing.
//!
//! - [`formats`]: the writers, one a format — the terminal's table, CSV,
//!   JSON, `JUnit` XML and the HTML page;
//! - [`files`]: the report directory (`--report DIR`), written from them;
//! - [`games`]: a bot's failing games, as move files beside the report and
//!   move by move on its page;
//! - [`gradescope`]: Gradescope's `results.json`;
//! - [`classroom`]: GitHub Classroom's step summary and runner result;
//! - [`markdown`]: student text in Markdown feedback (both of the above);
//! - [`progress`]: the progress bar on standard error;
//! - [`part`]: a part of a split grading's own record, `part.json`, and
//!   [`merge`] the parts checked and put back together.
//!
//! A [`Grader`](super::Grader) takes one `&mut dyn Sink`; [`Sinks`] makes
//! several one, each told in turn.

pub mod classroom;
pub mod files;
pub mod formats;
pub mod games;
pub mod gradescope;
pub mod markdown;
pub mod merge;
pub mod part;
pub mod progress;

use std::io;
use std::path::{Path, PathBuf};

pub use self::classroom::Classroom;
pub use self::files::{ReportDir, Table};
pub use self::formats::{csv, html_page, json, junit, score, table, table_in_colour};
pub use self::gradescope::Gradescope;
pub use self::progress::Progress;
use super::result::{Graded, SubmissionResult, TestResult};
use crate::outcome::Limits;
use crate::output::{self, Durability};

/// What a grading is, told to every sink before the first result.
#[derive(Clone, Copy, Debug)]
pub struct Grading<'a> {
    /// The name of every test of a submission, in report order.
    pub tests: &'a [String],
    /// How many submissions are graded.
    pub submissions: usize,
    /// The limits of each test run.
    pub limits: &'a Limits,
    /// The protections in force, as the grading said them on standard error.
    pub protections: &'a str,
    /// The seed of the graded games, cases or generated tests, when any
    /// came from one ([`crate::grade::Plan::seed`]).
    pub seed: Option<u64>,
}

/// A report, told of a grading as it happens. The grader tells it of each
/// test and each submission as they are decided (from several threads, one
/// call at a time), and of the whole at the end.
pub trait Sink: Send {
    /// The grading begins.
    fn begin(&mut self, _grading: &Grading<'_>) {}

    /// One test of `submission` was decided, or left unrun (a failed build).
    fn test(&mut self, _submission: &str, _test: &TestResult) {}

    /// A submission was graded.
    fn submission(&mut self, _result: &SubmissionResult) {}

    /// The grading is over: write what this report writes.
    ///
    /// # Errors
    /// When it cannot be written.
    fn finish(&mut self, _graded: &Graded) -> Result<(), ReportError> {
        Ok(())
    }
}

/// Several sinks as one, each told in the order given (the progress bar
/// is cleared before the table is printed, the table before the files).
#[derive(Default)]
pub struct Sinks(Vec<Box<dyn Sink>>);

impl Sinks {
    /// No sinks yet.
    #[must_use]
    pub fn new() -> Sinks {
        Sinks::default()
    }

    /// Adds `sink`, told after those added before it.
    pub fn push(&mut self, sink: impl Sink + 'static) {
        self.0.push(Box::new(sink));
    }
}

impl Sink for Sinks {
    fn begin(&mut self, grading: &Grading<'_>) {
        self.0.iter_mut().for_each(|s| s.begin(grading));
    }

    fn test(&mut self, submission: &str, test: &TestResult) {
        self.0.iter_mut().for_each(|s| s.test(submission, test));
    }

    fn submission(&mut self, result: &SubmissionResult) {
        self.0.iter_mut().for_each(|s| s.submission(result));
    }

    /// Finishes each in turn; the first that cannot write stops the rest.
    fn finish(&mut self, graded: &Graded) -> Result<(), ReportError> {
        self.0.iter_mut().try_for_each(|s| s.finish(graded))
    }
}

/// A report that could not be written.
#[derive(Debug, thiserror::Error)]
#[error("{}: cannot write: {source}", .path.as_ref().map_or_else(|| "<stdout>".to_owned(), |p| p.display().to_string()))]
pub struct ReportError {
    /// The file, or `None` for standard output.
    pub path: Option<PathBuf>,
    /// Why.
    pub source: io::Error,
}

/// Writes the report file `path` whole (renamed into place once synced: a
/// gradebook never reads half a report).
fn write_file(
    path: &Path,
    write: impl FnOnce(&mut output::Staged) -> io::Result<()>,
) -> Result<(), ReportError> {
    output::replace_whole(path, Durability::Synced, write)
        .map_err(|source| ReportError { path: Some(path.to_owned()), source })
}
