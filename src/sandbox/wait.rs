//! Waiting for a guard: until it exits, its report says the wait is over,
//! the run's wall-clock limit passes or the grading is stopped; and killing
//! what is left of it (its process group) when the wait ends otherwise.

use std::io::Read;
use std::process::{Child, ChildStdout};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::protocol::REPORT_CAP;

/// How long past a run's wall-clock limit the grader waits for its guard:
/// the guard kills the program at the limit itself and hands out what it
/// wrote (a console judged by its game is judged on it), which takes a
/// moment; a guard that has not reported by then is killed with its run.
pub(super) const GRACE: Duration = Duration::from_secs(2);

/// How waiting for a guard ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Waited {
    Exited,
    /// Process 1 of its container reported the program's end: everything
    /// the program started is gone, and only the container is left to go.
    Reported,
    /// A launcher closed the job (its container is gone) without that
    /// report: the run failed, or no container could be made.
    Closed,
    TimedOut,
    Stopped,
}

/// Waits for the guard to exit, or for `until` to see in its report (read
/// into `report` as it comes, at most [`REPORT_CAP`] bytes) that the wait
/// is over; kills its process group when the deadline passes or `stop` is
/// set (looked at every tenth of a second).
pub(super) fn wait(
    child: &mut Child,
    stdout: &mut Option<ChildStdout>,
    report: &mut Vec<u8>,
    deadline: Instant,
    stop: &AtomicBool,
    until: impl Fn(&[u8]) -> Option<Waited>,
) -> Waited {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    let pidfd = rustix::process::Pid::from_raw(pid(child).as_raw())
        .and_then(|p| rustix::process::pidfd_open(p, rustix::process::PidfdFlags::empty()).ok());
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let stopped = stop.load(Ordering::SeqCst);
        if left.is_zero() || stopped {
            kill_group(child);
            return if stopped { Waited::Stopped } else { Waited::TimedOut };
        }
        // Without a pidfd (an old kernel), look every millisecond.
        let slice = left.min(Duration::from_millis(if pidfd.is_some() { 100 } else { 1 }));
        let timeout = Timespec::try_from(slice).unwrap_or(Timespec { tv_sec: 0, tv_nsec: 1_000_000 });
        let reading = stdout.as_ref().filter(|_| report.len() < REPORT_CAP);
        let mut fds = Vec::with_capacity(2);
        if let Some(fd) = &pidfd {
            fds.push(PollFd::new(fd, PollFlags::IN));
        }
        if let Some(out) = reading {
            fds.push(PollFd::new(out, PollFlags::IN));
        }
        let _ = poll(&mut fds, Some(&timeout));
        let exited = match &pidfd {
            Some(_) => !fds[0].revents().is_empty(),
            None => child.try_wait().ok().flatten().is_some(),
        };
        let readable = reading.is_some() && fds.last().is_some_and(|fd| !fd.revents().is_empty());
        drop(fds);
        if readable && let Some(out) = stdout.as_mut() {
            let mut chunk = [0; 4096];
            match out.read(&mut chunk) {
                Ok(0) | Err(_) => *stdout = None,
                Ok(n) => {
                    report.extend_from_slice(&chunk[..n]);
                    if let Some(waited) = until(report) {
                        return waited;
                    }
                }
            }
        }
        if exited {
            return Waited::Exited;
        }
    }
}

fn pid(child: &Child) -> nix::unistd::Pid {
    #[allow(clippy::cast_possible_wrap, reason = "process ids fit in an i32")]
    nix::unistd::Pid::from_raw(child.id() as i32)
}

/// Kills the guard's process group (it made itself a session and group
/// leader), which holds everything of the run that did not leave it; the
/// PID namespace and the cgroup take the rest.
pub(super) fn kill_group(child: &Child) {
    let _ = nix::sys::signal::killpg(pid(child), nix::sys::signal::Signal::SIGKILL);
}
