//! A live run's CPU clock: how much CPU time the run's processes have used
//! so far, read while it runs. A bot's move time counts its CPU time as
//! well as the wall clock (`arena::move_clock`): a bot that waited for a
//! core is given the rest, and one that used no CPU was blocked.
//!
//! The best source the run has:
//!
//! - a cgroup v2 group: `cpu.stat`'s `usage_usec`, every process the group
//!   ever held, to the microsecond;
//! - a cgroup v1 group: the processes its `cgroup.procs` lists, each one's
//!   user and system time and its waited-for children's, from
//!   `/proc/PID/stat` (clock ticks, usually 10 ms);
//! - no cgroup: the same, over the run's first process (its guard or
//!   launcher) and every descendant of it found in `/proc`.
//!
//! The run's thread sets the source once the run's first process is in its
//! group ([`CpuClock::set`]), and the clock counts from then; until then it
//! reads zero. Once the run is over it reads nothing ([`CpuClock::stop`]):
//! a launcher goes on to other runs. The guard's own time counts too: it
//! mostly sleeps while the program runs.
//!
//! The clock also tells whether the program is computing at this moment
//! ([`CpuClock::computing`]): whether a thread of the run's processes,
//! the guard's aside (those running the run's first process's binary), is
//! running or waiting for a core (state `R`). A bot that waits for a core
//! on a crowded machine is computing, however little CPU it got.

use std::fs;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// Where a run's CPU time is read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Source {
    /// A cgroup's directory (v2: its `cpu.stat`; v1: its processes), and
    /// the run's first process.
    Group {
        /// The group's directory.
        dir: PathBuf,
        /// Whether it is a cgroup v2 group.
        v2: bool,
        /// The run's first process (its launcher or guard).
        first: u32,
    },
    /// The process tree from this process.
    Tree(u32),
}

/// The CPU time a live run has used, shared between the run's thread
/// (which sets where to read it) and the session (which reads it).
#[derive(Clone, Debug, Default)]
pub struct CpuClock {
    state: Arc<Mutex<State>>,
}

#[derive(Debug, Default)]
struct State {
    source: Option<Source>,
    /// The source's reading when it was set.
    base: Duration,
    /// The most read so far: the clock never goes back (a process that
    /// exited takes its time along until its parent waits for it).
    most: Duration,
    /// The run is over.
    over: bool,
    /// For a [`Source::Tree`], the processes found in the last full look.
    known: Vec<u32>,
}

impl CpuClock {
    /// Reads the run's CPU time from `source` from now on, counting from
    /// its present reading.
    pub(super) fn set(&self, source: Source) {
        let mut known = Vec::new();
        let base = read(&source, &mut known, true).unwrap_or_default();
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        *state = State { source: Some(source), base, most: Duration::ZERO, over: false, known };
    }

    /// The run is over: the clock reads nothing more.
    pub(super) fn stop(&self) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.over = true;
        state.source = None;
    }

    /// Whether the program is computing now: whether a thread of the run's
    /// processes but the guard's is running or waiting for a core; `None`
    /// when that cannot be told (no source, or the run is over).
    #[must_use]
    pub fn computing(&self) -> Option<bool> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let source = state.source.clone()?;
        let (pids, first) = match &source {
            Source::Group { dir, first, .. } => (listed(&dir.join("cgroup.procs"))?, *first),
            Source::Tree(first) => {
                let (pids, _) = tree(*first)?;
                state.known.clone_from(&pids);
                (pids, *first)
            }
        };
        drop(state);
        let guard = binary(first)?;
        Some(pids.into_iter().any(|pid| binary(pid).is_some_and(|b| b != guard) && runnable(pid)))
    }

    /// The CPU time the run has used since its source was set (zero before
    /// it was), or `None` when it cannot be read: the run is over, or its
    /// group or processes cannot be read. `fresh` looks for processes a
    /// process tree has started since the last fresh look (a cgroup needs
    /// no look: it holds them all); without it a reading is cheap enough
    /// for every move.
    #[must_use]
    pub fn used(&self, fresh: bool) -> Option<Duration> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if state.over {
            return None;
        }
        let Some(source) = state.source.clone() else { return Some(Duration::ZERO) };
        let now = read(&source, &mut state.known, fresh)?;
        state.most = state.most.max(now.saturating_sub(state.base));
        Some(state.most)
    }
}

/// `source`'s reading now: a process tree looks again for its processes
/// when `fresh` or when one it knew is gone.
fn read(source: &Source, known: &mut Vec<u32>, fresh: bool) -> Option<Duration> {
    match source {
        Source::Group { dir, v2: true, .. } => {
            let text = fs::read_to_string(dir.join("cpu.stat")).ok()?;
            let micros = text.lines().find_map(|line| line.strip_prefix("usage_usec "))?;
            micros.trim().parse().ok().map(Duration::from_micros)
        }
        Source::Group { dir, v2: false, .. } => {
            let pids = listed(&dir.join("cgroup.procs"))?;
            Some(from_ticks(pids.into_iter().filter_map(|pid| process(pid).map(|(_, ticks)| ticks)).sum()))
        }
        Source::Tree(root) => {
            if !fresh && !known.is_empty() {
                let times: Option<u64> = known.iter().map(|&pid| process(pid).map(|(_, t)| t)).sum();
                if let Some(ticks) = times {
                    return Some(from_ticks(ticks));
                }
            }
            let (pids, ticks) = tree(*root)?;
            *known = pids;
            Some(from_ticks(ticks))
        }
    }
}

/// The processes a `cgroup.procs` lists.
fn listed(file: &std::path::Path) -> Option<Vec<u32>> {
    let text = fs::read_to_string(file).ok()?;
    Some(text.split_whitespace().filter_map(|pid| pid.parse().ok()).collect())
}

/// The binary process `pid` runs, as its device and inode, if it can be
/// told.
fn binary(pid: u32) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let meta = fs::metadata(format!("/proc/{pid}/exe")).ok()?;
    Some((meta.dev(), meta.ino()))
}

/// Whether a thread of process `pid` is running or waiting for a core.
fn runnable(pid: u32) -> bool {
    let Ok(tasks) = fs::read_dir(format!("/proc/{pid}/task")) else { return false };
    tasks.flatten().any(|task| {
        fs::read_to_string(task.path().join("stat")).is_ok_and(|text| {
            text.rsplit_once(')').is_some_and(|(_, rest)| rest.split_whitespace().next() == Some("R"))
        })
    })
}

/// Process `pid`'s parent and CPU time in clock ticks, or `None` if it is
/// gone.
fn process(pid: u32) -> Option<(u32, u64)> {
    stat(&fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// The parent and the CPU time (its own user and system time, and its
/// waited-for children's, in clock ticks) the text of a `/proc/PID/stat`
/// says. The command's name, in parentheses, may hold anything, `)` too:
/// the fields are read after the last one.
fn stat(text: &str) -> Option<(u32, u64)> {
    let (_, rest) = text.rsplit_once(')')?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // After the name: state (field 3), ppid (4), …, utime (14), stime,
    // cutime, cstime (17).
    let parent = fields.get(1)?.parse().ok()?;
    let ticks = fields.get(11..15)?.iter().map(|f| f.parse::<u64>().ok()).sum::<Option<u64>>()?;
    Some((parent, ticks))
}

/// `root` and every descendant of it in `/proc`, and their CPU time in
/// clock ticks; `None` if `root` is gone.
fn tree(root: u32) -> Option<(Vec<u32>, u64)> {
    let (_, root_ticks) = process(root)?;
    let mut all = Vec::new();
    for entry in fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
        if pid != root
            && let Some((parent, ticks)) = process(pid)
        {
            all.push((pid, parent, ticks));
        }
    }
    let mut pids = vec![root];
    let mut ticks = root_ticks;
    let mut at = 0;
    while at < pids.len() {
        let parent = pids[at];
        for &(pid, _, t) in all.iter().filter(|(_, p, _)| *p == parent) {
            if !pids.contains(&pid) {
                pids.push(pid);
                ticks += t;
            }
        }
        at += 1;
    }
    Some((pids, ticks))
}

/// Clock ticks as a duration.
fn from_ticks(ticks: u64) -> Duration {
    let per_second = nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK)
        .ok()
        .flatten()
        .and_then(|n| u64::try_from(n).ok())
        .filter(|&n| n > 0)
        .unwrap_or(100);
    Duration::from_nanos(ticks.saturating_mul(1_000_000_000 / per_second))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Child, Command, Stdio};

    #[test]
    fn a_stat_line_is_read_after_the_last_parenthesis() {
        let line = "4242 (a (b) c) S 17 4242 4242 0 -1 4194560 100 0 0 0 250 30 7 3 20 0 1 0 55 0 0\n";
        assert_eq!(stat(line), Some((17, 250 + 30 + 7 + 3)));
        assert_eq!(stat("4242 (x) S 17"), None);
        assert_eq!(stat("no parenthesis"), None);
        assert_eq!(from_ticks(0), Duration::ZERO);
    }

    /// A shell that, given a line, counts to 300,000 (far more than a clock
    /// tick of CPU), says `done`, and waits for another line.
    fn counter() -> Child {
        Command::new("sh")
            .arg("-c")
            .arg("read x; i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done; echo done; read y")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap()
    }

    /// Counts from the moment it is set: nothing before the count, the
    /// count's time after it, and nothing once the run is over.
    fn counts(child: &mut Child, clock: &CpuClock) {
        let before = clock.used(true).unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(b"go\n").unwrap();
        let mut said = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut said).unwrap();
        assert_eq!(said, "done\n");
        let after = clock.used(true).unwrap();
        assert!(after > before, "{before:?} then {after:?}");
        assert!(clock.used(false).unwrap() >= after);
        clock.stop();
        assert_eq!(clock.used(true), None);
        drop(stdin);
        child.wait().unwrap();
    }

    #[test]
    fn a_process_trees_time_is_counted() {
        let clock = CpuClock::default();
        assert_eq!(clock.used(true), Some(Duration::ZERO), "not set yet");
        let mut child = counter();
        clock.set(Source::Tree(child.id()));
        counts(&mut child, &clock);
    }

    #[test]
    fn a_groups_time_is_counted() {
        let Ok(cgroups) = crate::sandbox::cgroup::Cgroups::open() else {
            eprintln!("skipped: no cgroups here");
            return;
        };
        let group = cgroups.create(64 << 20, 8).unwrap();
        let mut child = counter();
        group.add(child.id()).unwrap();
        let clock = CpuClock::default();
        clock.set(group.cpu_source(child.id()));
        counts(&mut child, &clock);
    }

    /// A run: a shell that, told to go, becomes `timeout` (the run's first
    /// process, as a guard would be) over a shell running `script`.
    fn run(script: &str) -> (Child, std::process::ChildStdin) {
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(format!("read go; exec timeout 60 sh -c '{script}'"))
            .stdin(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        (child, stdin)
    }

    /// Reads `clock` until it says `computing`: the run's shell takes a
    /// moment to start and to spin or block. Bounded: after 60 s the run
    /// is gone, and the clock reads nothing.
    fn until_computing_is(clock: &CpuClock, computing: bool) {
        loop {
            match clock.computing() {
                Some(now) if now == computing => return,
                None => panic!("the run ended and was never seen computing: {computing}"),
                Some(_) => {}
            }
        }
    }

    /// A run whose program spins is computing (its thread is running or
    /// waiting for a core); one whose program waits for input is not, nor
    /// is its first process ever counted (waiting for its child, or not).
    #[test]
    fn a_run_is_computing_while_a_thread_of_its_program_can_run() {
        let cgroups = crate::sandbox::cgroup::Cgroups::open().ok();
        let cases = [("while :; do :; done", true), ("read x", false)];
        for ((script, computing), grouped) in cases.into_iter().flat_map(|case| [(case, false), (case, true)])
        {
            let clock = CpuClock::default();
            assert_eq!(clock.computing(), None, "not set yet");
            let (mut child, mut stdin) = run(script);
            let group =
                cgroups.as_ref().filter(|_| grouped).map(|cgroups| cgroups.create(64 << 20, 8).unwrap());
            match &group {
                Some(group) => {
                    group.add(child.id()).unwrap();
                    clock.set(group.cpu_source(child.id()));
                }
                None => clock.set(Source::Tree(child.id())),
            }
            stdin.write_all(b"go\n").unwrap();
            until_computing_is(&clock, computing);
            clock.stop();
            assert_eq!(clock.computing(), None);
            // `timeout` passes SIGTERM on to its shell.
            let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap());
            nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).unwrap();
            child.wait().unwrap();
            drop(group);
        }
    }

    /// The run's first process (the guard, as it were) spinning is not the
    /// program computing: its binary's processes are never counted. Its
    /// program here is `sleep`, blocked.
    #[test]
    fn the_guards_own_processes_are_not_the_program() {
        // At most 30 s of CPU; `sleep` ends by itself.
        let mut first = Command::new("sh")
            .arg("-c")
            .arg("ulimit -t 30; read go; sleep 30 & while :; do :; done")
            .stdin(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = first.stdin.take().unwrap();
        let clock = CpuClock::default();
        clock.set(Source::Tree(first.id()));
        stdin.write_all(b"go\n").unwrap();
        let guard = binary(first.id());
        // Until `sleep` runs beside the spinning shell and is seen, with
        // the shell, as not computing; should the shell be counted, it
        // spins until its CPU limit ends it.
        loop {
            let computing = clock.computing();
            let program = tree(first.id()).is_some_and(|(pids, _)| {
                pids.iter().any(|&pid| pid != first.id() && binary(pid).is_some_and(|b| Some(b) != guard))
            });
            assert!(first.try_wait().unwrap().is_none(), "the shell ran out of CPU: it was counted");
            if program && computing == Some(false) {
                break;
            }
        }
        first.kill().unwrap();
        first.wait().unwrap();
    }
}
