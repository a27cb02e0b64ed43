//! The wire protocol between the grader and the guard: everything both
//! sides must agree on, and nothing else.
//!
//! The grader ([`host`](super::host), [`launcher`](super::launcher))
//! starts the guard with one of the stage arguments, writes it a
//! [`Config`] as one line of JSON, lays out a run's area with the file
//! names below, and reads back the guard's [`Line`]s, at most
//! [`REPORT_CAP`] bytes of them. The guard ([`guard`](super::guard)) reads
//! the same [`Config`], finds its files by the same names, and writes the
//! same lines. A change here is a change to both sides at once: this file
//! imports nothing of either, only the public data of a job: the
//! [`Limits`] it carries, and the [`Fault`]s a test may inject.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::job::Fault;
use crate::outcome::Limits;

/// The first argument that starts this binary as the guard rather than as
/// the command line (never shown in `--help`).
pub const GUARD_ARG: &str = "__sandbox-guard";
/// The first argument of the guard's second stage, process 1 of a run.
pub const INIT_ARG: &str = "__sandbox-init";
/// The first argument of a launcher: the guard's first stage kept for run
/// after run.
pub const LAUNCH_ARG: &str = "__sandbox-launcher";

/// Where a run's input files wait for init, in its area.
pub(super) const FILES: &str = "files";
/// The run's standard input, in its area's input directory.
pub(super) const STDIN: &str = "stdin";
/// A live run's standard input, a FIFO in its area's input directory: the
/// grader holds its writing end.
pub(super) const LIVE_IN: &str = "live-in";
/// A live run's standard output, a FIFO in its area's output directory:
/// the grader holds its reading end.
pub(super) const LIVE_OUT: &str = "live-out";
/// A FIFO in a live run's input directory that the grader writes to, or
/// closes, when it is done with the run: the guard then ends the program.
pub(super) const LIVE_END: &str = "live-end";
/// What process 1 of a launcher's run wrote on standard error, in its area.
pub(super) const GUARD_ERRORS: &str = "guard.err";

/// The most a guard may report for one run, in bytes.
pub(super) const REPORT_CAP: usize = 1 << 16;

/// What the grader tells the guard (as JSON on its standard input).
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct Config {
    pub(super) job: Plan,
    /// The parts of the container's root every run shares.
    pub(super) skeleton: PathBuf,
    /// The directory the container's root is made on, this run's alone.
    pub(super) root: PathBuf,
    /// Copies of the referee under the system directories, masked in the
    /// container.
    pub(super) hide: Vec<PathBuf>,
    /// Whether the run is in a memory cgroup (so the address space need
    /// not be limited).
    pub(super) memory_cgroup: bool,
    /// The box's size and its number of files.
    pub(super) box_bytes: u64,
    pub(super) box_inodes: u64,
    /// What the guard must have in force before it starts the program:
    /// what the grading was promised.
    pub(super) required: Required,
    /// Failures a test injected; empty in a grading.
    #[serde(default)]
    pub(super) faults: Vec<Fault>,
}

/// The protections the guard must put in force or start nothing (as each
/// of isolate's set-up steps dies rather than be skipped): those the
/// sandbox promised when its probe found them on this machine. Before the
/// probe nothing is required, and the guard runs a program with what it
/// can have, saying what is missing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Required {
    /// The container: without one, the program is not run bare.
    pub(super) container: bool,
    /// Landlock's rules.
    pub(super) landlock: bool,
    /// The seccomp filter.
    pub(super) seccomp: bool,
}

/// A [`Job`](super::Job) as the guard sees it: its files already in the run's area.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct Plan {
    pub(super) argv: Vec<String>,
    pub(super) area: PathBuf,
    pub(super) start: Option<PathBuf>,
    pub(super) files: Vec<String>,
    pub(super) stdin: bool,
    /// The program's standard input and output are the live FIFOs
    /// ([`LIVE_IN`], [`LIVE_OUT`]), and [`LIVE_END`] ends it.
    pub(super) live: bool,
    pub(super) collect: Bring,
    pub(super) limits: Limits,
    pub(super) env: Vec<(String, String)>,
}

/// [`Collect`](super::Collect) without the grader's paths.
#[derive(Debug, Serialize, Deserialize)]
pub(super) enum Bring {
    File(String),
    Tree,
    Nothing,
}

/// A line a guard stage reports to the grader.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(super) enum Line {
    /// Whether the container was made, and if not why.
    Namespaces(Option<String>),
    /// Just before the program starts: whether Landlock and the seccomp
    /// filter are in force, and if not why.
    Confined { landlock: Option<String>, seccomp: Option<String> },
    /// How the program ended.
    Ended {
        code: Option<i32>,
        signal: Option<i32>,
        cpu_us: u64,
        max_rss_kb: u64,
        written: u64,
        full: bool,
        /// Why there is no answer, when one was asked for.
        answer: Option<String>,
        /// The guard killed the program at its wall-clock limit (what it
        /// wrote until then is handed out all the same).
        #[serde(default)]
        timed_out: bool,
    },
    /// It could not go on.
    Failed(String),
    /// A launcher is done with a job: its container is gone.
    Closed(Closed),
}

/// How a launcher closed a job.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(super) enum Closed {
    /// The run's container ran and is gone.
    Done,
    /// The container or its process 1 failed, and why.
    Failed(String),
    /// No container could be made here, and why: nothing ran.
    NoContainer(String),
}

/// What the complete lines of a guard's report say so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Said {
    Nothing,
    /// The run was contained and its program ended: process 1 says so
    /// only once it has killed and reaped everything else in its PID
    /// namespace and handed out the answer.
    Reported,
    /// A launcher closed the job first.
    Closed,
}

/// The first of [`Said::Reported`] and [`Said::Closed`] in `report`.
pub(super) fn said(report: &[u8]) -> Said {
    let mut contained = false;
    for line in lines(report) {
        match serde_json::from_slice::<Line>(line) {
            Ok(Line::Namespaces(None)) => contained = true,
            Ok(Line::Ended { .. }) if contained => return Said::Reported,
            Ok(Line::Closed(_)) => return Said::Closed,
            _ => {}
        }
    }
    Said::Nothing
}

/// How a launcher closed its job, if `report` holds that line.
pub(super) fn closing(report: &[u8]) -> Option<Closed> {
    lines(report).find_map(|line| match serde_json::from_slice::<Line>(line) {
        Ok(Line::Closed(closed)) => Some(closed),
        _ => None,
    })
}

/// The complete lines of `report`.
fn lines(report: &[u8]) -> impl Iterator<Item = &[u8]> {
    report.split_inclusive(|&b| b == b'\n').filter(|line| line.ends_with(b"\n"))
}
