//! Running a stranger's program: containment, limits, and what became of it.
//!
//! Two sides, as `DOMjudge`'s runguard and isolate are separate programs,
//! and the protocol between them:
//!
//! - **the grader's side**: a [`Sandbox`] owns a private scratch directory
//!   (mode 0700), the run user, the control groups and the guard binary;
//!   [`Sandbox::run`] lays out one run's files, hands the job to a launcher
//!   (the guard's first stage, kept for run after run and sitting in the
//!   run's cgroup), or where containers cannot be made starts a guard for
//!   the run, and reads what came back. The guard stops the program at the
//!   run's wall-clock limit and still hands out what it wrote; the grader
//!   kills the whole run a moment later if the guard has not reported.
//! - **the guard's side**: the launcher or a run's own guard, the container
//!   (`hakoniwa`), process 1 inside it, and the program.
//! - **between them**: the stage arguments, the job as JSON, the run's file
//!   names and the report lines, which both sides must read alike.
//!
//! The crate forbids `unsafe`, so nothing here forks by hand: `hakoniwa`
//! does the namespaces, mounts and `pivot_root`; `seccompiler` the filter;
//! `landlock` the second wall; this module the cgroup files ([`cgroup`]).
//!
//! One file a job:
//!
//! - `job`: the public data: a [`Job`] and what to [`Collect`], and
//!   [`SandboxError`]. The [`Limits`] a job carries and the [`Run`] that
//!   comes back are [`crate::outcome`]'s, plain data below the sandbox
//!   that the verdicts read too; this module re-exports them.
//! - `host`: the [`Sandbox`]: the scratch, the run user, each run's area,
//!   handing the job to a launcher or a guard of its own.
//! - `launcher`: the grader's side of launchers, kept ready in fresh
//!   cgroups for run after run.
//! - `live`: a run the grader talks with while it runs, a line at a time,
//!   every read and write with a deadline (a [`Session`]).
//! - `wait`: waiting for a guard, up to the wall-clock limit, and killing
//!   what is left of it.
//! - `finish`: reading what came back (the report, the cgroup, the answer
//!   and output) into a [`Run`].
//! - `probe`: which [`Protections`] are in force on this machine.
//! - `promise`: what every run is promised once the probe has found it,
//!   and the check that refuses a run with less
//!   ([`SandboxError::Unprotected`]): the sandbox fails closed.
//! - `scratch`: where the scratch goes, the run user's id, where copies
//!   of the referee are installed, and removing the trees in the scratch.
//! - `files`: reading one file a run left without following a link or
//!   waiting on a FIFO, and measuring a tree; both sides use it.
//! - `root`: what a run's container holds, as a list of mounts (data, as
//!   bubblewrap's `SetupOp`s), which the guard makes the root from and
//!   the grader reads for the copies of the referee to mask and for its
//!   protections list.
//! - [`cgroup`]: the control groups.
//! - `cpu_clock`: a live run's CPU time, read while it runs (its cgroup,
//!   or its processes in `/proc`), the [`CpuClock`] a [`Session`] reads.
//! - `protocol`: what the grader and the guard must agree on: the stage
//!   arguments, the job (`Config`), the area's file names and
//!   the report lines (`Line`). It imports neither side.
//! - `guard`: the guard's side: launchers, the container, process 1 and
//!   its supervision, which takes the set-up steps before the program as a
//!   list and then watches it; `guard/setup.rs` holds those steps (umask,
//!   privileges, the run's files and streams, Landlock, containment, the
//!   limits), each saying why it comes where it does, and their
//!   `SetupError`.
//! - `seccomp`: the guard's seccomp filter.
//! - [`copy`]: the safe copy of untrusted trees, which both sides use.
//! - `in_flight`: setting off the kernel's collector of sockets left in
//!   flight, which both sides do after a run.

pub mod cgroup;
pub mod copy;
mod cpu_clock;
mod files;
mod finish;
mod guard;
mod host;
mod in_flight;
mod job;
mod launcher;
mod live;
mod probe;
mod promise;
mod protocol;
mod root;
mod scratch;
mod seccomp;
mod wait;

pub use crate::outcome::{Ending, Gaps, Limits, Outcome, Run};
pub use cpu_clock::CpuClock;
pub use files::read_capped;
pub use guard::guard_main;
pub use host::Sandbox;
pub use job::{Collect, Fault, Job, Missing, PATH, SandboxError};
pub use live::{Ender, Session, Silence};
pub use probe::{Protection, Protections};
pub use protocol::{GUARD_ARG, INIT_ARG, LAUNCH_ARG};
pub use scratch::remove_all;
