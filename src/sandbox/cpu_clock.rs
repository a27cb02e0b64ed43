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
//! sleeps while the program runs.

use std::fs;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// Where a run's CPU time is read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Source {
    /// A cgroup v2 group's `cpu.stat`.
    Usage(PathBuf),
    /// A cgroup v1 group's `cgroup.procs`.
    Procs(PathBuf),
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
        Source::Usage(file) => {
            let text = fs::read_to_string(file).ok()?;
            let micros = text.lines().find_map(|line| line.strip_prefix("usage_usec "))?;
            micros.trim().parse().ok().map(Duration::from_micros)
        }
        Source::Procs(file) => {
            let text = fs::read_to_string(file).ok()?;
            let ticks = text
                .split_whitespace()
                .filter_map(|pid| pid.parse::<u32>().ok())
                .filter_map(|pid| process(pid).map(|(_, ticks)| ticks))
                .sum();
            Some(from_ticks(ticks))
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
        clock.set(group.cpu_source());
        counts(&mut child, &clock);
    }
}
