//! The one build of a submission (or of a harness beside it), in the
//! sandbox: the built tree and its log, or the log of a build that failed.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::outcome::{Stopped, describe_ending};
use crate::sandbox::{Collect, Ending, Job, Limits, Sandbox, SandboxError};
use crate::text;

/// The most of a build's output reports keep to show: half from its
/// standard output, half from its standard error.
pub const BUILD_LOG_BYTES: usize = 64 << 10;

/// How a build went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Build {
    /// It built: the tree to run from, and what the build said.
    Built {
        /// The build's directory.
        dir: PathBuf,
        /// Its log.
        log: String,
    },
    /// It failed: its log, ending with how.
    Failed {
        /// Its log.
        log: String,
    },
    /// The sandbox refused to run it: a protection promised when the
    /// grading began was missing. The grader's fault, not the build's.
    Refused {
        /// Why, in words.
        why: String,
    },
}

/// Builds the tree at `source` (in `area`) with the shell `command`, in
/// `sandbox` within `limits`: the build's directory (`area/built`) and its
/// log, or the log of a build that failed, ending with how it failed. For
/// submissions and harnesses alike.
///
/// # Errors
/// [`Stopped`] when the grading was stopped.
pub fn build(
    sandbox: &Sandbox,
    limits: Limits,
    area: &Path,
    source: PathBuf,
    command: &str,
) -> Result<Build, Stopped> {
    let built = area.join("built");
    let job = Job {
        argv: vec!["/bin/sh".to_owned(), "-c".to_owned(), command.to_owned()],
        start: Some(source),
        files: Vec::new(),
        stdin: None,
        collect: Collect::Tree(built.clone()),
        limits,
        env: Vec::new(),
    };
    let (ok, log) = match sandbox.run(&job) {
        Ok(run) => {
            // Each stream's start, cut on a character's boundary: what a
            // compiler says first is what matters.
            let mut log = text::shown(&run.stdout, BUILD_LOG_BYTES / 2);
            log.push_str(&text::shown(&run.stderr, BUILD_LOG_BYTES / 2));
            if run.outcome.ending == Ending::Exited(0) && run.answer.is_ok() {
                (true, log)
            } else {
                let why = run.answer.err().map(|e| format!(" ({})", text::cut(&e, 1000))).unwrap_or_default();
                let _ = write!(log, "\n[the build {}{why}]\n", describe_ending(&run.outcome, &limits));
                (false, log)
            }
        }
        Err(SandboxError::Interrupted) => return Err(Stopped),
        Err(e @ SandboxError::Unprotected { .. }) => return Ok(Build::Refused { why: e.to_string() }),
        Err(e) => (false, format!("[the sandbox could not run the build: {e}]\n")),
    };
    Ok(if ok { Build::Built { dir: built, log } } else { Build::Failed { log } })
}
