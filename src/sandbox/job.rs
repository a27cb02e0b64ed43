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
    /// The run would have had less protection than the sandbox promised
    /// when its probe ([`Sandbox::probe`](super::Sandbox::probe)) found
    /// what holds on this machine: a container, Landlock or the seccomp
    /// filter that could not be had this time, or a cgroup without what
    /// the others had. The program was not started (or, should a
    /// protection be found missing only once the run is over, nothing it
    /// did is handed back): nothing of it may count.
    #[error(
        "the run was refused: it lacked protections the sandbox promised when the grading began: {}",
        Missing::list(.missing)
    )]
    Unprotected {
        /// Each protection promised and missing, with why.
        missing: Vec<Missing>,
    },
}

/// A protection a run was promised and did not get ([`SandboxError::Unprotected`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Missing {
    /// Which: "the container", "Landlock", "the seccomp filter", "the
    /// cgroup", "the CPU share".
    pub protection: &'static str,
    /// Why it was missing, as the guard or the kernel said.
    pub why: String,
}

impl Missing {
    /// `protection: why`, each, joined by `; `.
    fn list(missing: &[Missing]) -> String {
        missing.iter().map(|m| format!("{}: {}", m.protection, m.why)).collect::<Vec<_>>().join("; ")
    }
}

/// A failure a test makes the sandbox meet, to show what it does then
/// ([`Sandbox::inject_fault`](super::Sandbox::inject_fault)). A grading
/// never sets one.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Fault {
    /// Every container the guard is asked for from now on fails to be
    /// made, as where namespaces cannot be had.
    NoContainer,
    /// The seccomp filter fails to be installed from now on.
    NoSeccomp,
    /// No launcher is used from now on: every run starts a guard of its
    /// own.
    NoLaunchers,
}
