//! Bots: people's programs as entrants. Each game a bot plays is one live
//! run of it in the sandbox ([`Sandbox::start`]), started for that game in
//! a working directory of its own, told each position on its standard input
//! and read one answer line from its standard output, every read with the
//! move time as its deadline (the first with a start-up allowance too).
//! What goes wrong with the program is a forfeit of the right kind: no
//! answer in time, an answer line that never ends, output closed, an exit
//! or crash before the game's end, a sandbox limit.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::entrant::{Entrant, Finished, Forfeit, ForfeitKind, Position, Seat, Setup};
use crate::outcome::{End, megabytes, seconds, signal_name};
use crate::sandbox::{Collect, Job, Limits, Run, Sandbox, Session, Silence};
use crate::text;
use crate::workshop::Built;

/// The most an answer line may hold, in bytes: a square's number needs a
/// few; more is a flood, cut off here (the referee never holds more).
pub const ANSWER_BYTES: usize = 4096;

/// How long a bot has to exit once its game is over (its input closed)
/// before it is ended.
pub const EXIT_GRACE: Duration = Duration::from_millis(500);

/// The most of a bot's standard error a game keeps, in lines and bytes.
const STDERR_LINES: usize = 40;
const STDERR_BYTES: usize = 4096;

/// A bot, built: the command that runs it, where its runs start, and the
/// sandbox and limits they run with.
pub struct Bot {
    name: String,
    sandbox: Arc<Sandbox>,
    argv: Vec<String>,
    start: PathBuf,
    limits: Limits,
    startup: Duration,
}

impl Bot {
    /// The bot `built` (made runnable by the workshop), each game a run of
    /// it in `sandbox` within `limits` (memory, processes, files; its time
    /// is the game's); its first answer of a game may take `startup` more
    /// than the move time (a JVM must fit).
    #[must_use]
    pub fn new(built: &Built, sandbox: Arc<Sandbox>, limits: Limits, startup: Duration) -> Bot {
        Bot {
            name: built.name.clone(),
            sandbox,
            argv: built.argv.clone(),
            start: built.start.clone(),
            limits,
            startup,
        }
    }
}

impl Entrant for Bot {
    fn name(&self) -> &str {
        &self.name
    }

    fn join(&self, setup: &Setup, _seat: usize) -> Result<Box<dyn Seat>, Forfeit> {
        // The run's own limits are a backstop: every answer has its own
        // deadline, and the whole game cannot take longer than every move
        // at its limit (and the waiting on others the setup allows).
        let moves = u32::try_from(setup.geometry.cells()).unwrap_or(u32::MAX);
        let game =
            self.startup + setup.move_time.saturating_mul(moves) + setup.waiting + Duration::from_secs(5);
        let limits = Limits { wall: game, cpu: game, ..self.limits };
        let job = Job {
            argv: self.argv.clone(),
            start: Some(self.start.clone()),
            files: Vec::new(),
            stdin: None,
            collect: Collect::Nothing,
            limits,
            env: Vec::new(),
        };
        let session = self
            .sandbox
            .start(&job)
            .map_err(|e| Forfeit::new(ForfeitKind::Exited, format!("it could not be started: {e}")))?;
        Ok(Box::new(BotSeat {
            session: Some(session),
            first: true,
            startup: self.startup,
            move_time: setup.move_time,
            limits,
            run: None,
        }))
    }
}

/// A bot that could not be built or found: it forfeits every game it is
/// seated in, saying why, and the others play on.
pub struct Unbuilt {
    name: String,
    why: String,
}

impl Unbuilt {
    /// The bot `name`, which cannot run because of `why`.
    #[must_use]
    pub fn new(name: String, why: &str) -> Unbuilt {
        Unbuilt { name, why: text::said(why, 300).into_owned() }
    }
}

impl Entrant for Unbuilt {
    fn name(&self) -> &str {
        &self.name
    }

    fn join(&self, _setup: &Setup, _seat: usize) -> Result<Box<dyn Seat>, Forfeit> {
        Err(Forfeit::new(ForfeitKind::Exited, format!("it could not be started: {}", self.why)))
    }
}

/// A bot's seat in one game: its live run.
struct BotSeat {
    session: Option<Session>,
    /// No answer asked for yet: the next has the start-up allowance.
    first: bool,
    startup: Duration,
    move_time: Duration,
    limits: Limits,
    /// What became of the run, once it is over.
    run: Option<Result<Run, String>>,
}

impl Seat for BotSeat {
    fn answer(&mut self, position: &Position) -> Result<String, Forfeit> {
        let allowance = if self.first { self.move_time + self.startup } else { self.move_time };
        self.first = false;
        let deadline = Instant::now() + allowance;
        let Some(session) = self.session.as_mut() else {
            return Err(Forfeit::new(ForfeitKind::Exited, "it had already ended"));
        };
        let mut line = position.line();
        line.push('\n');
        let sent = session.send(line.as_bytes(), deadline);
        let answer = sent.and_then(|()| session.receive(deadline, ANSWER_BYTES));
        match answer {
            Ok(bytes) => Ok(String::from_utf8_lossy(&bytes).into_owned()),
            Err(Silence::Time) => Err(Forfeit::new(
                ForfeitKind::Time,
                format!(
                    "no answer within {} (an answer is one line, flushed: `print(..., flush=True)` in \
                     Python, `std::endl` in C++, `System.out.flush()` in Java)",
                    seconds(allowance)
                ),
            )),
            Err(Silence::TooLong(most)) => Err(Forfeit::new(
                ForfeitKind::NotANumber,
                format!("its answer ran past {most} bytes without a line end"),
            )),
            Err(Silence::Closed) => Err(self.closed()),
        }
    }

    fn finish(mut self: Box<Self>) -> Finished {
        if let Some(session) = self.session.take() {
            self.run = Some(session.end(EXIT_GRACE).map_err(|e| e.to_string()));
        }
        let stderr = match &self.run {
            Some(Ok(run)) => text::tail(&run.stderr, STDERR_LINES, STDERR_BYTES),
            Some(Err(why)) => format!("[the sandbox: {why}]"),
            None => String::new(),
        };
        Finished { stderr }
    }
}

impl BotSeat {
    /// The bot's output closed: its run is ended (given the grace to exit
    /// on its own) and the forfeit says why it closed.
    fn closed(&mut self) -> Forfeit {
        let Some(session) = self.session.take() else {
            return Forfeit::new(ForfeitKind::Exited, "it had already ended");
        };
        let run = session.end(EXIT_GRACE);
        let forfeit = match &run {
            Ok(run) => why_closed(run, &self.limits),
            Err(e) => Forfeit::new(ForfeitKind::Exited, format!("its run failed: {e}")),
        };
        self.run = Some(run.map_err(|e| e.to_string()));
        forfeit
    }
}

/// Why a bot whose output closed mid-game did, read from how its run
/// ended ([`End`], as every run's end is read): a sandbox limit, an exit or
/// crash, or its output closed while it ran on (it was ended after the
/// grace, with the one signal the referee sends, `SIGKILL`).
fn why_closed(run: &Run, limits: &Limits) -> Forfeit {
    let limit = |what: String| Forfeit::new(ForfeitKind::Limit, what);
    let exited = |what: String| Forfeit::new(ForfeitKind::Exited, what);
    match End::of(run, limits) {
        End::TimeLimit => limit(format!("it ran past the game's time ({})", seconds(limits.wall))),
        End::CpuLimit(_) => limit(format!("it used up its CPU time ({})", seconds(limits.cpu))),
        End::OutputLimit => limit(format!("it filled its disk ({})", megabytes(limits.output))),
        End::OutOfMemory => limit(format!("it ran out of memory ({})", megabytes(limits.memory))),
        End::Killed(nix::libc::SIGKILL) => Forfeit::new(
            ForfeitKind::OutputClosed,
            "it closed its standard output before the game ended".to_owned(),
        ),
        End::Killed(signal) => exited(format!("it crashed ({}) before the game ended", signal_name(signal))),
        End::Exited(code) => exited(format!("it exited with status {code} before the game ended")),
        End::Clean => exited("it exited with status 0 before the game ended".to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::Ending;
    use crate::outcome::made_up;
    use nix::libc::{SIGKILL, SIGSEGV, SIGXCPU};

    /// A game's limits: 30 s.
    const LIMITS: Limits =
        Limits { wall: Duration::from_secs(30), cpu: Duration::from_secs(30), ..made_up::LIMITS };

    fn run(ending: Ending, change: &dyn Fn(&mut Run)) -> Run {
        let mut run = made_up::run(ending);
        change(&mut run);
        run
    }

    /// Every way a bot's run can end once its output closed, and the
    /// forfeit it makes: the same classes, in the same order, as a test's
    /// verdict (`grade::verdict`).
    #[test]
    fn a_closed_output_forfeits_for_how_the_run_ended() {
        let same = &|_: &mut Run| ();
        let cases: Vec<(&str, Run, ForfeitKind, &str)> = vec![
            (
                "the game's time",
                run(Ending::TimedOut, same),
                ForfeitKind::Limit,
                "it ran past the game's time (30 s)",
            ),
            (
                "the CPU limit",
                run(Ending::Signalled(SIGXCPU), same),
                ForfeitKind::Limit,
                "it used up its CPU time (30 s)",
            ),
            (
                "the CPU limit's SIGKILL",
                run(Ending::Signalled(SIGKILL), &|r| r.outcome.cpu = Duration::from_secs(31)),
                ForfeitKind::Limit,
                "it used up its CPU time (30 s)",
            ),
            (
                "its box full",
                run(Ending::Exited(1), &|r| r.outcome.disk_full = true),
                ForfeitKind::Limit,
                "it filled its disk (16 MB)",
            ),
            (
                "the cgroup's OOM kill",
                run(Ending::Signalled(SIGKILL), &|r| r.outcome.out_of_memory = true),
                ForfeitKind::Limit,
                "it ran out of memory (512 MB)",
            ),
            (
                "no cgroup: std::bad_alloc",
                run(Ending::Signalled(nix::libc::SIGABRT), &|r| r.stderr = b"std::bad_alloc\n".to_vec()),
                ForfeitKind::Limit,
                "it ran out of memory (512 MB)",
            ),
            (
                "no cgroup: grown to the limit",
                run(Ending::Signalled(SIGSEGV), &|r| r.outcome.max_rss = 500 << 20),
                ForfeitKind::Limit,
                "it ran out of memory (512 MB)",
            ),
            (
                "ended by the referee after the grace",
                run(Ending::Signalled(SIGKILL), same),
                ForfeitKind::OutputClosed,
                "it closed its standard output before the game ended",
            ),
            (
                "a crash",
                run(Ending::Signalled(SIGSEGV), same),
                ForfeitKind::Exited,
                "it crashed (SIGSEGV) before the game ended",
            ),
            (
                "an exit",
                run(Ending::Exited(3), same),
                ForfeitKind::Exited,
                "it exited with status 3 before the game ended",
            ),
            (
                "exit 0",
                run(Ending::Exited(0), same),
                ForfeitKind::Exited,
                "it exited with status 0 before the game ended",
            ),
        ];
        for (case, ran, kind, detail) in cases {
            let forfeit = why_closed(&ran, &LIMITS);
            assert_eq!((forfeit.kind, forfeit.detail.as_str()), (kind, detail), "{case}");
        }
    }
}
