//! The grader's side of launchers: stage 1 of the guard ([`LAUNCH_ARG`]),
//! kept for run after run so that a run need not start a process of its
//! own (each start costs over a millisecond).
//!
//! A launcher is ready when its last container is gone and it sits in a
//! fresh cgroup with the limits of the next run: the grader hands it one
//! job, and reads the report. Once the run has reported, a thread waits
//! for the launcher to close the job, moves it into a new cgroup, removes
//! the old one, and puts it back among the ready ones, while the grader
//! goes on. A launcher that timed out, failed or was interrupted is killed
//! with all of its process group and cgroup.

use std::io::{self, Write};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::Limits;
use super::cgroup::{Cgroups, RunGroup};
use super::protocol::{LAUNCH_ARG, closing};
use super::wait::{Waited, kill_group, wait};

/// How long a launcher may take to close a job after its run reported
/// (its container going away) before it is killed.
const CLOSING: Duration = Duration::from_secs(10);

/// One launcher process and the cgroup its next run is counted in.
#[derive(Debug)]
pub(super) struct Launcher {
    pub(super) process: Child,
    input: ChildStdin,
    pub(super) output: Option<ChildStdout>,
    /// The cgroup it sits in, or why there is none.
    pub(super) group: Result<RunGroup, String>,
    /// The limits written to its cgroup: bytes of memory, processes.
    limits: (u64, u64),
}

impl Launcher {
    /// Hands it a job: one line of JSON.
    pub(super) fn send(&mut self, config: &[u8]) -> io::Result<()> {
        self.input.write_all(config)?;
        self.input.write_all(b"\n")?;
        self.input.flush()
    }

    /// Kills it, with everything left in its process group and cgroup,
    /// and reaps it; its cgroup stays until it is dropped.
    pub(super) fn end(&mut self) {
        kill_group(&self.process);
        let _ = self.process.kill();
        // Reaped first: a zombie still counts as a member of its group.
        let _ = self.process.wait();
        if let Ok(group) = &self.group {
            group.kill_all();
        }
    }

    /// Ends it ([`Launcher::end`]) and removes its cgroup.
    pub(super) fn discard(mut self) {
        self.end();
    }
}

/// The launchers of one sandbox.
#[derive(Debug)]
pub(super) struct Launchers {
    guard: PathBuf,
    run_as: Option<u32>,
    cgroups: Arc<Result<Cgroups, String>>,
    stop: Arc<AtomicBool>,
    /// Ready launchers, the most recently readied last.
    ready: Arc<Mutex<Vec<Launcher>>>,
    /// The threads readying launchers again.
    readying: Mutex<Vec<JoinHandle<()>>>,
    /// Whether launchers can make containers here (until one says not).
    usable: AtomicBool,
    /// The thread launchers are started from, started with the first.
    spawner: Mutex<Option<Spawner>>,
}

/// A thread that starts launchers and lives as long as the sandbox: a
/// launcher dies with the thread that started it (its parent-death signal
/// is tied to that thread), not with the grader's thread that first
/// needed it, which may end before the launcher's last run.
#[derive(Debug)]
struct Spawner {
    requests: Sender<Sender<io::Result<Child>>>,
    thread: JoinHandle<()>,
}

impl Launchers {
    pub(super) fn new(
        guard: PathBuf,
        run_as: Option<u32>,
        cgroups: Arc<Result<Cgroups, String>>,
        stop: Arc<AtomicBool>,
    ) -> Launchers {
        Launchers {
            guard,
            run_as,
            cgroups,
            stop,
            ready: Arc::new(Mutex::new(Vec::new())),
            readying: Mutex::new(Vec::new()),
            usable: AtomicBool::new(true),
            spawner: Mutex::new(None),
        }
    }

    /// Starts a launcher process, from the spawner thread.
    fn spawn(&self) -> io::Result<Child> {
        let mut spawner = self.spawner.lock().unwrap_or_else(PoisonError::into_inner);
        if spawner.is_none() {
            let (requests, received) = channel::<Sender<io::Result<Child>>>();
            let (guard, run_as) = (self.guard.clone(), self.run_as);
            let thread = std::thread::Builder::new().name("ttt-spawner".to_owned()).spawn(move || {
                for answer in received {
                    let mut command = Command::new(&guard);
                    command
                        .arg(LAUNCH_ARG)
                        .env_clear()
                        .stdin(Stdio::piped())
                        .stdout(Stdio::piped())
                        .stderr(Stdio::null());
                    if let Some(uid) = run_as {
                        command.uid(uid).gid(uid);
                    }
                    let _ = answer.send(spawn(&mut command));
                }
            })?;
            *spawner = Some(Spawner { requests, thread });
        }
        let (answer, answered) = channel();
        let gone = || io::Error::other("the launchers' spawner thread is gone");
        spawner.as_ref().ok_or_else(gone)?.requests.send(answer).map_err(|_| gone())?;
        drop(spawner);
        answered.recv().map_err(|_| gone())?
    }

    /// A ready launcher with these limits on its cgroup, started if none
    /// is ready; `None` when launchers cannot be had here, or the start
    /// failed (the caller then starts a guard for the run).
    pub(super) fn take(&self, limits: &Limits) -> Option<Launcher> {
        if !self.usable.load(Ordering::SeqCst) {
            return None;
        }
        let wanted = (limits.memory, limits.processes);
        let mut launcher = loop {
            let ready = self.ready.lock().unwrap_or_else(PoisonError::into_inner).pop();
            let Some(mut launcher) = ready else { break self.start(wanted).ok()? };
            if matches!(launcher.process.try_wait(), Ok(None)) {
                break launcher;
            }
            // One killed while it waited is dropped.
            launcher.end();
        };
        if launcher.limits != wanted {
            if let Ok(group) = &launcher.group
                && group.limit(wanted.0, wanted.1).is_err()
            {
                launcher.discard();
                return None;
            }
            launcher.limits = wanted;
        }
        Some(launcher)
    }

    /// Starts a launcher in a new cgroup with these limits.
    fn start(&self, limits: (u64, u64)) -> io::Result<Launcher> {
        let mut process = self.spawn()?;
        let (Some(input), output) = (process.stdin.take(), process.stdout.take()) else {
            let _ = process.kill();
            let _ = process.wait();
            return Err(io::Error::other("the launcher's pipes"));
        };
        let group = match self.cgroups.as_ref() {
            Ok(cgroups) => match enter(cgroups, limits, &process) {
                Ok(group) => Ok(group),
                Err(e) => {
                    let _ = process.kill();
                    let _ = process.wait();
                    return Err(e);
                }
            },
            Err(why) => Err(why.clone()),
        };
        Ok(Launcher { process, input, output, group, limits })
    }

    /// Takes back a launcher whose run has ended (`report` is what it
    /// reported so far): once it has closed the job, and sits in a fresh
    /// cgroup, it is ready again. A launcher that does not close the job in
    /// time, or cannot be moved, is killed instead.
    pub(super) fn give_back(&self, launcher: Launcher, report: Vec<u8>) {
        let ready = Arc::clone(&self.ready);
        let cgroups = Arc::clone(&self.cgroups);
        let stop = Arc::clone(&self.stop);
        let thread = std::thread::Builder::new().name("ttt-launcher".to_owned()).spawn(move || {
            if let Some(launcher) = ready_again(launcher, report, &cgroups, &stop) {
                ready.lock().unwrap_or_else(PoisonError::into_inner).push(launcher);
            }
        });
        let mut readying = self.readying.lock().unwrap_or_else(PoisonError::into_inner);
        readying.retain(|thread| !thread.is_finished());
        // A thread that cannot be started drops its launcher, which then
        // ends at the end of its input; so does its container.
        if let Ok(thread) = thread {
            readying.push(thread);
        }
    }

    /// The process ids of the launchers ready for a run.
    pub(super) fn ready_ids(&self) -> Vec<u32> {
        self.ready.lock().unwrap_or_else(PoisonError::into_inner).iter().map(|l| l.process.id()).collect()
    }

    /// From now on, every run starts a guard of its own.
    pub(super) fn give_up(&self) {
        self.usable.store(false, Ordering::SeqCst);
    }

    /// Waits for the launchers being readied, then kills every launcher.
    pub(super) fn shut(&self) {
        let threads: Vec<JoinHandle<()>> =
            self.readying.lock().unwrap_or_else(PoisonError::into_inner).drain(..).collect();
        for thread in threads {
            let _ = thread.join();
        }
        let ready: Vec<Launcher> =
            self.ready.lock().unwrap_or_else(PoisonError::into_inner).drain(..).collect();
        for launcher in ready {
            launcher.discard();
        }
        let spawner = self.spawner.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(Spawner { requests, thread }) = spawner {
            drop(requests);
            let _ = thread.join();
        }
    }
}

/// Puts `process` in a new cgroup with these limits.
fn enter(cgroups: &Cgroups, (memory, processes): (u64, u64), process: &Child) -> io::Result<RunGroup> {
    let group = cgroups.create(memory, processes)?;
    group.add(process.id())?;
    Ok(group)
}

/// Waits for `launcher` to close its job, then moves it into a new cgroup
/// with the same limits and removes the one it leaves (empty by then):
/// the launcher, ready again, or `None` when it was killed.
fn ready_again(
    mut launcher: Launcher,
    mut report: Vec<u8>,
    cgroups: &Result<Cgroups, String>,
    stop: &AtomicBool,
) -> Option<Launcher> {
    let closed = |report: &[u8]| closing(report).map(|_| Waited::Closed);
    let waited = if closed(&report).is_some() {
        Waited::Closed
    } else {
        let deadline = Instant::now() + CLOSING;
        wait(&mut launcher.process, &mut launcher.output, &mut report, deadline, stop, closed)
    };
    if waited != Waited::Closed {
        launcher.discard();
        return None;
    }
    if let Ok(cgroups) = cgroups {
        let Ok(group) = enter(cgroups, launcher.limits, &launcher.process) else {
            launcher.discard();
            return None;
        };
        // The old group is empty once the launcher has left it.
        drop(std::mem::replace(&mut launcher.group, Ok(group)));
    }
    Some(launcher)
}

/// Starts `command`, tried again when the kernel says its executable is
/// busy (`ETXTBSY`): the guard's copy was just written, and a child another
/// thread forked in that instant holds the written file open until it
/// execs. A well-known race of threaded programs that write an executable
/// and run it (Go's issue 22315); it passes in microseconds.
pub(super) fn spawn(command: &mut Command) -> io::Result<Child> {
    let mut tries = 0u32;
    loop {
        match command.spawn() {
            Err(e) if e.raw_os_error() == Some(nix::libc::ETXTBSY) && tries < 100 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(u64::from(tries)));
            }
            spawned => return spawned,
        }
    }
}
