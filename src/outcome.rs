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

/// The grading or the event was stopped (Ctrl-C, SIGTERM, a stopper set):
/// the one way every stage says so, carried out by `?`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stopped;

/// How a run ended, classified once for every reader — a test's verdict, a
/// build's log, a function call, a bot's forfeit — in one order: the first
/// that applies wins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// Stopped at the wall-clock limit.
    TimeLimit,
    /// Killed at the CPU limit: `SIGXCPU` at the soft limit, `SIGKILL` at
    /// the hard one.
    CpuLimit(i32),
    /// Wrote more than the output limit (its box full, `SIGXFSZ`).
    OutputLimit,
    /// Ended badly at the memory limit, as far as can be told: its cgroup
    /// says so, or (where there is none) it grew to most of the limit or
    /// said it had no memory left.
    OutOfMemory,
    /// Killed by this signal, for no limit's sake.
    Killed(i32),
    /// Exited with this status, not 0.
    Exited(i32),
    /// Exited with status 0 within its limits.
    Clean,
}

/// What a program prints when it finds no memory left: C++, C, Python, Java.
const OUT_OF_MEMORY_SAID: [&str; 5] =
    ["bad_alloc", "Cannot allocate memory", "out of memory", "MemoryError", "OutOfMemoryError"];

impl End {
    /// How `run`, made within `limits`, ended.
    #[must_use]
    pub fn of(run: &Run, limits: &Limits) -> End {
        let outcome = &run.outcome;
        let signal = match outcome.ending {
            Ending::Signalled(s) => Some(s),
            _ => None,
        };
        match outcome.ending {
            Ending::TimedOut => return End::TimeLimit,
            Ending::Signalled(s) if out_of_cpu(outcome, limits) => return End::CpuLimit(s),
            _ => {}
        }
        if outcome.disk_full || signal == Some(nix::libc::SIGXFSZ) || outcome.written > limits.output {
            return End::OutputLimit;
        }
        match outcome.ending {
            Ending::Exited(0) => End::Clean,
            _ if ran_out_of_memory(outcome, &run.stderr, limits) => End::OutOfMemory,
            Ending::Exited(code) => End::Exited(code),
            Ending::Signalled(s) => End::Killed(s),
            Ending::TimedOut => End::TimeLimit,
        }
    }

    /// Whether it ran out of time, wall-clock or CPU.
    #[must_use]
    pub fn out_of_time(self) -> bool {
        matches!(self, End::TimeLimit | End::CpuLimit(_))
    }
}

/// Killed at the CPU limit: `SIGXCPU` at the soft limit, `SIGKILL` at the
/// hard one.
fn out_of_cpu(outcome: &Outcome, limits: &Limits) -> bool {
    match outcome.ending {
        Ending::Signalled(s) => {
            s == nix::libc::SIGXCPU || (s == nix::libc::SIGKILL && outcome.cpu >= limits.cpu)
        }
        _ => false,
    }
}

/// A bad end that the memory limit most likely caused: the cgroup says so,
/// or the program grew to most of the limit, or said it had no memory left.
fn ran_out_of_memory(outcome: &Outcome, stderr: &[u8], limits: &Limits) -> bool {
    let said = String::from_utf8_lossy(stderr);
    outcome.out_of_memory
        || outcome.max_rss >= limits.memory / 10 * 8
        || OUT_OF_MEMORY_SAID.iter().any(|s| said.contains(s))
}

/// How a run ended, in words that follow "it": `was stopped at the time
/// limit (2 s)`, `was killed by SIGSEGV`, `exited with status 3`.
#[must_use]
pub fn describe_ending(outcome: &Outcome, limits: &Limits) -> String {
    match outcome.ending {
        Ending::TimedOut => format!("was stopped at the time limit ({})", seconds(limits.wall)),
        Ending::Signalled(s) if out_of_cpu(outcome, limits) => {
            format!("used its CPU time ({}) and was killed by {}", seconds(limits.cpu), signal_name(s))
        }
        Ending::Signalled(s) => format!("was killed by {}", signal_name(s)),
        Ending::Exited(code) => format!("exited with status {code}"),
    }
}

/// `SIGSEGV` for 11, and so on; `signal 99` for a number that names none.
#[must_use]
pub fn signal_name(signal: i32) -> String {
    nix::sys::signal::Signal::try_from(signal)
        .map_or_else(|_| format!("signal {signal}"), |s| s.as_str().to_owned())
}

/// A time as every report says one: `2 s`, `1.5 s`.
#[must_use]
pub fn seconds(time: Duration) -> String {
    format!("{} s", time.as_secs_f64())
}

/// A size in whole megabytes, as limits are said: `512 MB`.
#[must_use]
pub fn megabytes(bytes: u64) -> String {
    format!("{} MB", bytes >> 20)
}

/// Runs made up for tests of what reads them: the verdicts', the bots'.
#[cfg(test)]
pub(crate) mod made_up {
    use super::*;

    /// A test's limits: 2 s, 512 MB, 16 MB written.
    pub(crate) const LIMITS: Limits = Limits {
        wall: Duration::from_secs(2),
        cpu: Duration::from_secs(2),
        memory: 512 << 20,
        output: 16 << 20,
        processes: 64,
        open_files: 256,
    };

    /// A small run that ended with `ending`: 10 ms, 1 MB, 100 bytes
    /// written, no output, no answer.
    pub(crate) fn run(ending: Ending) -> Run {
        Run {
            outcome: Outcome {
                ending,
                wall: Duration::from_millis(10),
                cpu: Duration::from_millis(5),
                max_rss: 1 << 20,
                written: 100,
                disk_full: false,
                out_of_memory: false,
            },
            stdout: Vec::new(),
            stderr: Vec::new(),
            answer: Err(String::new()),
            gaps: Gaps::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::made_up::{LIMITS, run};
    use super::*;
    use nix::libc::{SIGABRT, SIGKILL, SIGSEGV, SIGXCPU, SIGXFSZ};

    /// Every way a run can end, with what else could apply, and the one
    /// class that wins.
    #[test]
    fn the_first_end_that_applies_wins() {
        let with = |ending, change: &dyn Fn(&mut Run)| {
            let mut r = run(ending);
            change(&mut r);
            r
        };
        let cases: Vec<(&str, Run, End)> = vec![
            (
                "timed out, out of memory",
                with(Ending::TimedOut, &|r| r.outcome.out_of_memory = true),
                End::TimeLimit,
            ),
            (
                "SIGXCPU, over the output limit",
                with(Ending::Signalled(SIGXCPU), &|r| r.outcome.written = u64::MAX),
                End::CpuLimit(SIGXCPU),
            ),
            (
                "SIGKILL at the CPU limit",
                with(Ending::Signalled(SIGKILL), &|r| r.outcome.cpu = Duration::from_secs(3)),
                End::CpuLimit(SIGKILL),
            ),
            (
                "its box full, exit 0",
                with(Ending::Exited(0), &|r| r.outcome.disk_full = true),
                End::OutputLimit,
            ),
            ("SIGXFSZ", run(Ending::Signalled(SIGXFSZ)), End::OutputLimit),
            (
                "over the output limit, exit 3",
                with(Ending::Exited(3), &|r| r.outcome.written = (16 << 20) + 1),
                End::OutputLimit,
            ),
            (
                "the cgroup's OOM kill",
                with(Ending::Signalled(SIGKILL), &|r| r.outcome.out_of_memory = true),
                End::OutOfMemory,
            ),
            (
                "no cgroup: grown to the limit, then SIGSEGV",
                with(Ending::Signalled(SIGSEGV), &|r| r.outcome.max_rss = 500 << 20),
                End::OutOfMemory,
            ),
            (
                "no cgroup: said so, then exit 1",
                with(Ending::Exited(1), &|r| r.stderr = b"MemoryError\n".to_vec()),
                End::OutOfMemory,
            ),
            (
                "std::bad_alloc, then SIGABRT",
                with(Ending::Signalled(SIGABRT), &|r| r.stderr = b"what():  std::bad_alloc\n".to_vec()),
                End::OutOfMemory,
            ),
            ("SIGKILL from outside", run(Ending::Signalled(SIGKILL)), End::Killed(SIGKILL)),
            ("SIGSEGV", run(Ending::Signalled(SIGSEGV)), End::Killed(SIGSEGV)),
            ("exit 3", run(Ending::Exited(3)), End::Exited(3)),
            (
                "exit 0 having said `out of memory`",
                with(Ending::Exited(0), &|r| r.stderr = b"out of memory\n".to_vec()),
                End::Clean,
            ),
            ("exit 0", run(Ending::Exited(0)), End::Clean),
        ];
        for (case, ran, end) in cases {
            assert_eq!(End::of(&ran, &LIMITS), end, "{case}");
        }
    }

    #[test]
    fn endings_times_and_signals_in_words() {
        assert_eq!(
            describe_ending(&run(Ending::TimedOut).outcome, &LIMITS),
            "was stopped at the time limit (2 s)"
        );
        assert_eq!(
            describe_ending(&run(Ending::Signalled(SIGXCPU)).outcome, &LIMITS),
            "used its CPU time (2 s) and was killed by SIGXCPU"
        );
        assert_eq!(
            describe_ending(&run(Ending::Signalled(SIGSEGV)).outcome, &LIMITS),
            "was killed by SIGSEGV"
        );
        assert_eq!(describe_ending(&run(Ending::Exited(3)).outcome, &LIMITS), "exited with status 3");
        assert_eq!(signal_name(99), "signal 99");
        assert_eq!(
            (seconds(Duration::from_millis(1500)), seconds(Duration::from_secs(6))),
            ("1.5 s".into(), "6 s".into())
        );
        assert_eq!(megabytes(512 << 20), "512 MB");
    }
}
