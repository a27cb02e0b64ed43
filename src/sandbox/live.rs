//! A live run: a program kept running while the grader talks with it, a
//! line at a time, with a deadline on every write and read (a bot in a
//! match: one run a game, a line in and a line out each move).
//!
//! The run is made as every other run is (a launcher or a guard, the
//! container, every limit), on a thread of its own; its standard input and
//! output are FIFOs in its area, whose other ends the grader opened before
//! the guard was handed the job, so that neither side's open waits. A third
//! FIFO ends the run: when the grader writes to or closes it, the guard
//! kills the program, hands out its standard error and reports, as at the
//! end of any run. Whatever the program writes, the grader keeps at most
//! one line of a size it chose; whatever it does not read, the grader's
//! writes wait for only until their deadline.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec, poll};

use super::protocol::{LIVE_END, LIVE_IN, LIVE_OUT};
use super::{CpuClock, Job, Run, Sandbox, SandboxError};

/// How often a wait with nothing to read looks whether the run has ended
/// without its output closing (its guard failed before the program
/// started, say).
const LOOK: Duration = Duration::from_millis(50);

/// How long a program whose output closed is given to be over by itself
/// (its guard's report in) before it is ended: a program that died (killed
/// by someone else, say) must be told from one the grader ends.
const REPORTED: Duration = Duration::from_secs(2);

/// A program running in the sandbox that the grader talks with
/// ([`Sandbox::start`]).
#[derive(Debug)]
pub struct Session {
    /// The writing end of the program's standard input (gone once closed).
    input: Option<File>,
    /// The reading end of its standard output.
    output: File,
    /// The FIFO that ends the run.
    end: Option<File>,
    /// Bytes read past the last line handed out.
    pending: Vec<u8>,
    /// Bytes sent but not yet written (the program was not reading).
    outgoing: Vec<u8>,
    /// The CPU time the run has used.
    clock: CpuClock,
    /// Its output closed: nothing more will come.
    closed: bool,
    /// The run, on its own thread.
    run: Option<JoinHandle<Result<Run, SandboxError>>>,
}

/// Who ended a live run's program ([`Session::end_saying`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ender {
    /// Its run was over before the grader told it to end: it exited, or
    /// was killed by someone other than the grader.
    Itself,
    /// The grader told the guard to end it (a `SIGKILL`).
    Grader,
}

/// Why no line came from a live run, or could not be written to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Silence {
    /// The deadline passed first.
    #[error("the deadline passed")]
    Time,
    /// Its standard output is closed (it ended, or closed it) or its
    /// input is: nothing more can pass.
    #[error("its output is closed")]
    Closed,
    /// It wrote a line longer than the grader would keep.
    #[error("it wrote a line of more than {0} bytes")]
    TooLong(usize),
}

impl Sandbox {
    /// Starts `job` as a live run (its `stdin` is not used: the
    /// [`Session`] writes the program's input and reads its output) and
    /// returns at once. Its wall-clock limit bounds the whole conversation.
    pub fn start(self: &Arc<Self>, job: &Job) -> Result<Session, SandboxError> {
        if self.stopper().load(Ordering::SeqCst) {
            return Err(SandboxError::Interrupted);
        }
        let promise = self.promised();
        let (area, root) = self.place()?;
        let opened = self.prepare(job, &area, &root, true, promise).and_then(|config| {
            let fifo = |path: std::path::PathBuf, read: bool, write: bool| {
                OpenOptions::new()
                    .read(read)
                    .write(write)
                    .custom_flags(nix::libc::O_NONBLOCK | nix::libc::O_NOFOLLOW)
                    .open(path)
                    .map_err(SandboxError::Start)
            };
            // Read and write: the open waits for no reader, and writes
            // never fail for want of one.
            let input = fifo(area.join("in").join(LIVE_IN), true, true)?;
            let end = fifo(area.join("in").join(LIVE_END), true, true)?;
            let output = fifo(area.join("out").join(LIVE_OUT), true, false)?;
            Ok((config, input, end, output))
        });
        let (config, input, end, output) = match opened {
            Ok(opened) => opened,
            Err(e) => {
                self.clear(&area, root);
                return Err(e);
            }
        };
        let sandbox = Arc::clone(self);
        let job = job.clone();
        let clock = CpuClock::default();
        let run_clock = clock.clone();
        let run = std::thread::spawn(move || {
            let result = sandbox.run_in(&job, &config, &area, promise, Some(&run_clock));
            run_clock.stop();
            sandbox.clear(&area, root);
            result
        });
        Ok(Session {
            input: Some(input),
            output,
            end: Some(end),
            pending: Vec::new(),
            outgoing: Vec::new(),
            clock,
            closed: false,
            run: Some(run),
        })
    }
}

impl Session {
    /// Writes `bytes` to the program's standard input, waiting for room
    /// until `deadline`; on [`Silence::Time`] what is left is kept for
    /// [`Session::flush`] (and goes before what is sent next).
    pub fn send(&mut self, bytes: &[u8], deadline: Instant) -> Result<(), Silence> {
        self.outgoing.extend_from_slice(bytes);
        self.flush(deadline)
    }

    /// Writes what is left of the bytes sent, waiting for room until
    /// `deadline`.
    pub fn flush(&mut self, deadline: Instant) -> Result<(), Silence> {
        let Some(input) = self.input.as_mut() else { return Err(Silence::Closed) };
        while !self.outgoing.is_empty() {
            match input.write(&self.outgoing) {
                Ok(n) => {
                    self.outgoing.drain(..n);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    if ready(&*input, PollFlags::OUT, deadline).is_none() {
                        return Err(Silence::Time);
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return Err(Silence::Closed),
            }
        }
        Ok(())
    }

    /// The CPU time the run has used so far (from when its first process
    /// was in its group), or `None` when it cannot be told; `fresh` also
    /// counts processes it started since the last fresh reading, where no
    /// cgroup holds them all ([`CpuClock::used`]).
    #[must_use]
    pub fn cpu_used(&self, fresh: bool) -> Option<Duration> {
        self.clock.used(fresh)
    }

    /// Whether the program is computing now (a thread of it running or
    /// waiting for a core), or `None` when that cannot be told
    /// ([`CpuClock::computing`]).
    #[must_use]
    pub fn computing(&self) -> Option<bool> {
        self.clock.computing()
    }

    /// The program's next line of output, without its `\n`, waiting for
    /// it until `deadline`; a line of more than `most` bytes is
    /// [`Silence::TooLong`] (and at most that much is ever held).
    pub fn receive(&mut self, deadline: Instant, most: usize) -> Result<Vec<u8>, Silence> {
        loop {
            if let Some(at) = self.pending.iter().position(|&b| b == b'\n') {
                let mut line: Vec<u8> = self.pending.drain(..=at).collect();
                line.pop();
                return Ok(line);
            }
            if self.pending.len() > most {
                return Err(Silence::TooLong(most));
            }
            if self.closed {
                return Err(Silence::Closed);
            }
            // Read only what poll says is there: before the guard opens
            // the FIFO's writing end a read would say end of file, where
            // poll says nothing until a writer has come and gone.
            let until = deadline.min(Instant::now() + LOOK);
            match ready(&self.output, PollFlags::IN, until) {
                Some(events) if events.contains(PollFlags::IN) => {
                    let mut chunk = [0; 4096];
                    let room = (most + 1 - self.pending.len()).min(chunk.len());
                    match self.output.read(&mut chunk[..room]) {
                        Ok(0) => self.closed = true,
                        Ok(n) => self.pending.extend_from_slice(&chunk[..n]),
                        Err(e)
                            if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted) => {
                        }
                        Err(_) => self.closed = true,
                    }
                }
                Some(_) => self.closed = true,
                None if self.run.as_ref().is_none_or(JoinHandle::is_finished) => {
                    // The run is over, and its output never opened.
                    self.closed = true;
                }
                None if Instant::now() >= deadline => return Err(Silence::Time),
                None => {}
            }
        }
    }

    /// Closes the program's standard input, gives it `grace` to exit
    /// (what it writes meanwhile is read and dropped), ends it, and returns
    /// what became of the run: its standard error, how it ended, what it
    /// used.
    pub fn end(self, grace: Duration) -> Result<Run, SandboxError> {
        self.end_saying(grace).map(|(run, _)| run)
    }

    /// [`Session::end`], also saying who ended the program: [`Ender::Itself`]
    /// when its run was over before the grader told the guard to end it
    /// (it exited, or was killed by someone else: a `SIGKILL` it ended with
    /// was then not the grader's), [`Ender::Grader`] when the grader did.
    pub fn end_saying(mut self, grace: Duration) -> Result<(Run, Ender), SandboxError> {
        self.input = None;
        let deadline = Instant::now() + grace;
        while !self.closed && Instant::now() < deadline {
            self.pending.clear();
            if let Err(Silence::Time) = self.receive(deadline, 1 << 16) {
                break;
            }
        }
        // Its output closed: a program that died is reported by its guard
        // at once (on a busy machine, in a few hundred milliseconds: it is
        // given at least `REPORTED`); one still running is ended then.
        let reported = deadline.max(Instant::now() + REPORTED);
        while self.closed
            && Instant::now() < reported
            && self.run.as_ref().is_some_and(|run| !run.is_finished())
        {
            std::thread::sleep(Duration::from_millis(2));
        }
        let ender =
            if self.run.as_ref().is_none_or(JoinHandle::is_finished) { Ender::Itself } else { Ender::Grader };
        self.stop();
        self.run
            .take()
            .map_or(Err(SandboxError::Interrupted), |run| {
                run.join()
                    .unwrap_or_else(|_| Err(SandboxError::Guard("the run's thread panicked".to_owned())))
            })
            .map(|run| (run, ender))
    }

    /// Tells the guard to end the program. The FIFO stays open until the
    /// session is dropped, after the run is over: a FIFO no one holds open
    /// loses what was written to it, and a guard that opens it only now
    /// (its container still starting) would find nothing there and wait
    /// for the run's wall-clock limit.
    fn stop(&mut self) {
        if let Some(end) = self.end.as_mut() {
            let _ = end.write(b"\n");
        }
    }
}

impl Drop for Session {
    /// A session dropped without [`Session::end`] ends its program at
    /// once, and waits for the run to be over.
    fn drop(&mut self) {
        self.input = None;
        self.stop();
        if let Some(run) = self.run.take() {
            let _ = run.join();
        }
    }
}

/// Waits until `file` is ready for `flags` (or has hung up or failed), at
/// most until `deadline`: what it is ready for, or `None`.
fn ready(file: &File, flags: PollFlags, deadline: Instant) -> Option<PollFlags> {
    let left = deadline.saturating_duration_since(Instant::now());
    let timeout = Timespec::try_from(left).unwrap_or(Timespec { tv_sec: 0, tv_nsec: 0 });
    let mut fds = [PollFd::new(file, flags)];
    match poll(&mut fds, Some(&timeout)) {
        Ok(n) if n > 0 => Some(fds[0].revents()),
        _ => None,
    }
}
