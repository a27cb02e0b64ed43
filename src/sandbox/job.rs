//! What a run is: the public data the grader hands the sandbox ([`Job`],
//! what to [`Collect`]), and why a run could not be made
//! ([`SandboxError`]). What a run may use ([`Limits`]) and what comes back
//! ([`Run`](crate::outcome::Run)) are in [`crate::outcome`], below the
//! sandbox. Plain data: nothing here runs anything.

use std::io;
use std::path::PathBuf;

use crate::outcome::Limits;

/// The environment's search path: the only variable kept besides `HOME`
/// and `TMPDIR`.
pub const PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// What to bring back from a run besides its standard output and error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Collect {
    /// The file of this name in the run directory (the program's answer).
    File(String),
    /// The whole run directory (a build), moved to this path, which must
    /// not exist and must be in the sandbox's
    /// [`Sandbox::scratch`](super::Sandbox::scratch).
    Tree(PathBuf),
    /// Nothing more.
    Nothing,
}

/// One run: the program, what its directory starts with, and what it gives
/// back.
#[derive(Clone, Debug)]
pub struct Job {
    /// The program and its arguments; a program without `/` is looked up in
    /// [`PATH`].
    pub argv: Vec<String>,
    /// A directory whose contents the run directory starts as (copied, so
    /// the run cannot change it).
    pub start: Option<PathBuf>,
    /// Files placed in the run directory: name and contents.
    pub files: Vec<(String, Vec<u8>)>,
    /// The program's standard input (`/dev/null` if `None`).
    pub stdin: Option<Vec<u8>>,
    /// What to bring back.
    pub collect: Collect,
    /// The limits.
    pub limits: Limits,
    /// Variables set besides `PATH`, `HOME` and `TMPDIR`.
    pub env: Vec<(String, String)>,
}

/// Why a run could not be made.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// The guard could not be started, or the run's files not prepared.
    #[error("cannot start the guard: {0}")]
    Start(#[source] io::Error),
    /// The guard started but could not set the run up, or said something
    /// that is not a report.
    #[error("the guard failed: {0}")]
    Guard(String),
    /// The grading was interrupted
    /// ([`Sandbox::stopper`](super::Sandbox::stopper)); the run, if it had
    /// begun, was killed.
    #[error("interrupted")]
    Interrupted,
}
