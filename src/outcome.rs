//! What a run may use and what became of it: plain data the sandbox fills
//! and the verdicts read. A run is given its [`Limits`]; it gives back a
//! [`Run`]: its [`Outcome`] and [`Ending`], its output and answer, and the
//! [`Gaps`] in its protections. Nothing here runs anything, so the pure
//! verdict on a run (`grade::verdict`) and a grading's results need
//! nothing of the [`sandbox`](crate::sandbox) that makes runs, which
//! re-exports all of it.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// What a run may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Wall-clock time; the run is killed when it is up.
    pub wall: Duration,
    /// CPU time of each process (the kernel sends `SIGXCPU`).
    pub cpu: Duration,
    /// Memory of the whole run (its cgroup), or of each process's address
    /// space where no cgroup can be had; in bytes.
    pub memory: u64,
    /// The most the run may write, in bytes: every file at any depth, its
    /// standard output and error, `/tmp` and `/dev/shm` together.
    pub output: u64,
    /// How many processes the run may have at once.
    pub processes: u64,
    /// The most file descriptors each process of the run may hold
    /// (`RLIMIT_NOFILE`, soft and hard alike). Open files come out of a
    /// table the whole machine shares: a run holding hundreds of thousands
    /// would leave no unprivileged process on the machine able to open a
    /// file. The limit is per process, so a run holds at most about
    /// `processes` times this many (64 processes of 256: some 16,000).
    pub open_files: u64,
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind", content = "value")]
pub enum Ending {
    /// The program exited with this status.
    Exited(i32),
    /// The program was killed by this signal.
    Signalled(i32),
    /// The wall-clock limit ran out and the run was killed.
    TimedOut,
}

/// What became of a run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Outcome {
    /// How it ended.
    pub ending: Ending,
    /// Wall-clock time from start to end.
    pub wall: Duration,
    /// CPU time its processes used (user and system), when it ended by
    /// itself.
    pub cpu: Duration,
    /// The most memory it held: the whole run's peak from its cgroup, or
    /// else the largest resident size of any one process; in bytes.
    pub max_rss: u64,
    /// How many bytes it wrote (its box's growth).
    pub written: u64,
    /// Whether its box filled up: it tried to write more than the limit.
    pub disk_full: bool,
    /// Whether the kernel stopped it at the memory limit (from its cgroup).
    pub out_of_memory: bool,
}

/// A finished run: how it went and what it gave back.
#[derive(Clone, Debug)]
pub struct Run {
    /// How it ended.
    pub outcome: Outcome,
    /// Its standard output, up to the output limit.
    pub stdout: Vec<u8>,
    /// Its standard error, up to the output limit.
    pub stderr: Vec<u8>,
    /// With [`Collect::File`](crate::sandbox::Collect::File), the file's contents up to the output limit,
    /// or why there is none (missing, a FIFO, a link…).
    pub answer: Result<Vec<u8>, String>,
    /// The protections this run asked for and did not get.
    pub gaps: Gaps,
}

/// The protections a run asked for and did not get, each with why
/// (`None`: in force).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Gaps {
    /// The container: user, mount, PID, network, IPC and UTS namespaces,
    /// its own root, the box.
    pub namespaces: Option<String>,
    /// Landlock's file system and network rules.
    pub landlock: Option<String>,
    /// The seccomp filter.
    pub seccomp: Option<String>,
    /// The run's cgroup.
    pub cgroup: Option<String>,
    /// The `cpu` controller on the run's cgroup: a share of the CPU equal
    /// to every other run's, however many processes it has.
    pub cpu: Option<String>,
}
