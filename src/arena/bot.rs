//! Bots: people's programs as entrants. Each game a bot plays is one live
//! run of it in the sandbox ([`Sandbox::start`]), started for that game in
//! a working directory of its own, told each position on its standard input
//! and read one answer line from its standard output, every read with the
//! move time as its deadline (the first with a start-up allowance too),
//! counted in its CPU time as well when it waited for a core
//! ([`move_clock`](super::move_clock)). What goes wrong with the program is
//! a forfeit of the right kind: no answer in time (blocked or computing),
//! an answer line that never ends, output closed, an exit or crash before
//! the game's end, a sandbox limit. A bot may be given up on after K time
//! forfeits in a row ([`Bot::give_up_after`]).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::entrant::{Entrant, Finished, Forfeit, ForfeitKind, Position, Seat, Setup};
use super::game_clock::{Bound, Remaining};
use super::gomocup::{self, Heard, Manager};
use super::move_clock::{self, Expiry, MoveClock};
use super::streak::{Streak, Ticket};
use crate::outcome::{End, megabytes, seconds, signal_name};
use crate::sandbox::{Collect, Ender, Job, Limits, Run, Sandbox, SandboxError, Session, Silence};
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

/// After how many time forfeits in a row `grade --play` stops asking a bot
/// in a test ([`Bot::give_up_after`]).
pub const GIVE_UP_AFTER: u32 = 3;

/// How a game's forfeit for a bot that was not asked begins.
const NOT_ASKED: &str = "not asked: ";

/// What a time forfeit tells a bot that was blocked.
const FLUSH: &str = "an answer is one line, flushed: `print(..., flush=True)` in Python, `std::endl` in C++, \
                     `System.out.flush()` in Java";

/// A bot, built: the command that runs it, where its runs start, and the
/// sandbox and limits they run with.
pub struct Bot {
    name: String,
    sandbox: Arc<Sandbox>,
    argv: Vec<String>,
    start: PathBuf,
    limits: Limits,
    startup: Duration,
    /// Its time forfeits in a row, when it is given up on after K.
    streak: Option<Arc<Streak>>,
    /// It speaks the Gomocup protocol, not the bot protocol.
    gomocup: bool,
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
            streak: None,
            gomocup: false,
        }
    }

    /// The bot, speaking the Gomocup protocol ([`gomocup`]) instead of the
    /// bot protocol: a Gomocup brain.
    #[must_use]
    pub fn gomocup(mut self) -> Bot {
        self.gomocup = true;
        self
    }

    /// The bot, given up on once it has forfeited on time in `k` games in a
    /// row (in the order games end; 0: never): each game left is a time
    /// forfeit, "not asked: it ran out of time in K games in a row", with
    /// no run. Games side by side are held back so that a bot that never
    /// answers is asked in exactly `k` ([`streak`](super::streak)).
    #[must_use]
    pub fn give_up_after(mut self, k: u32) -> Bot {
        self.streak = (k > 0).then(|| Streak::new(k));
        self
    }
}

/// The forfeit of a game a bot given up on after `k` time forfeits in a
/// row is not asked in: a time forfeit.
fn given_up(k: u32) -> Forfeit {
    Forfeit::new(ForfeitKind::Time, format!("{NOT_ASKED}it ran out of time in {k} games in a row"))
}

/// Whether `forfeit` is a game a bot given up on was not asked in
/// ([`Bot::give_up_after`]).
#[must_use]
pub fn not_asked(forfeit: &Forfeit) -> bool {
    forfeit.kind == ForfeitKind::Time && forfeit.detail.starts_with(NOT_ASKED)
}

impl Entrant for Bot {
    fn name(&self) -> &str {
        &self.name
    }

    fn runs_apart(&self) -> bool {
        true
    }

    fn join(&self, setup: &Setup, _seat: usize) -> Result<Box<dyn Seat>, Forfeit> {
        // The run's own limits are a backstop: every answer has its own
        // deadline, and the whole game cannot take more CPU than every
        // move at its limit, nor longer than every move waited for to the
        // cap (and the waiting on others the setup allows).
        let manager = if self.gomocup {
            gomocup::check(setup.geometry, setup.marks.len())
                .map_err(|why| Forfeit::new(ForfeitKind::Limit, why))?;
            let limits = gomocup::Limits {
                turn: setup.move_time,
                game: setup.clock.map(|clock| clock.base),
                memory: self.limits.memory,
            };
            Some(Manager::new(setup, limits))
        } else {
            None
        };
        let moves = u32::try_from(setup.geometry.cells()).unwrap_or(u32::MAX);
        let mut thinking = self.startup + setup.move_time.saturating_mul(moves);
        if let Some(clock) = setup.clock {
            thinking = thinking.min(self.startup + clock.base + clock.increment.saturating_mul(moves));
        }
        let slack = Duration::from_secs(5);
        let limits = Limits {
            wall: thinking.saturating_mul(move_clock::CAP) + setup.waiting + slack,
            cpu: thinking + slack,
            ..self.limits
        };
        let ticket = match &self.streak {
            Some(streak) => {
                let patience = (self.startup + setup.move_time).saturating_mul(move_clock::CAP) + slack;
                let Some(ticket) = streak.enter(patience) else { return Err(given_up(streak.after())) };
                Some(ticket)
            }
            None => None,
        };
        let job = Job {
            argv: self.argv.clone(),
            start: Some(self.start.clone()),
            files: Vec::new(),
            stdin: None,
            collect: Collect::Nothing,
            limits,
            env: Vec::new(),
        };
        let session = self.sandbox.start(&job).map_err(|e| match e {
            SandboxError::Unprotected { .. } => Forfeit::new(ForfeitKind::Unprotected, e.to_string()),
            e => Forfeit::new(ForfeitKind::Exited, format!("it could not be started: {e}")),
        })?;
        Ok(Box::new(BotSeat {
            session: Some(session),
            first: true,
            startup: self.startup,
            move_time: setup.move_time,
            limits,
            run: None,
            ticket,
            clock: setup.clock.map(Remaining::new),
            manager,
            unprotected: None,
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
    /// Its place in the bot's row of time forfeits, if it has one.
    ticket: Option<Ticket>,
    /// Its game clock, if the game has one.
    clock: Option<Remaining>,
    /// A Gomocup brain's conversation; `None` for the bot protocol.
    manager: Option<Manager>,
    /// Why its run had less protection than promised, once that is known.
    unprotected: Option<String>,
}

impl Seat for BotSeat {
    fn answer(&mut self, position: &Position) -> Result<String, Forfeit> {
        let (move_time, bound) =
            self.clock.map_or((self.move_time, Bound::Move), |c| c.allowance(self.move_time));
        let allowance = if self.first { move_time + self.startup } else { move_time };
        self.first = false;
        let Some(session) = self.session.as_mut() else {
            return Err(Forfeit::new(ForfeitKind::Exited, "it had already ended"));
        };
        let began = Instant::now();
        let mut clock = MoveClock::new(began, allowance, session.cpu_used(false));
        let time_left = self.clock.map(|c| c.left());
        let asked = match &mut self.manager {
            Some(manager) => manager.ask(position, time_left),
            None => format!("{}\n", position.line()),
        };
        let mut sent = session.send(asked.as_bytes(), clock.deadline());
        let silence = loop {
            match sent.and_then(|()| session.receive(clock.deadline(), ANSWER_BYTES)) {
                Ok(bytes) => {
                    let heard = match &mut self.manager {
                        Some(manager) => manager.heard(&bytes),
                        None => Heard::Move(String::from_utf8_lossy(&bytes).into_owned()),
                    };
                    let answered = match heard {
                        Heard::Nothing => {
                            sent = Ok(());
                            continue;
                        }
                        Heard::Send(text) => {
                            sent = session.send(text.as_bytes(), clock.deadline());
                            continue;
                        }
                        Heard::Move(answer) => Ok(answer),
                        Heard::Forfeit(forfeit) => Err(forfeit),
                    };
                    if let Some(ticket) = &mut self.ticket {
                        ticket.answered();
                    }
                    if let Some(remaining) = &mut self.clock {
                        remaining.charge(charged(
                            began.elapsed(),
                            allowance,
                            session.cpu_used(true),
                            clock.first(),
                        ));
                    }
                    return answered;
                }
                Err(Silence::Time) => {
                    match clock.expired(Instant::now(), session.cpu_used(true), session.computing()) {
                        Expiry::Wait => sent = session.flush(clock.deadline()),
                        expiry => {
                            if let Some(ticket) = &mut self.ticket {
                                ticket.timed_out();
                            }
                            let mut forfeit = out_of_time(expiry, allowance);
                            if let (Bound::Clock, Some(remaining)) = (bound, &self.clock) {
                                forfeit.detail = format!("{}: {}", remaining.ran_out(), forfeit.detail);
                            }
                            return Err(forfeit);
                        }
                    }
                }
                Err(silence) => break silence,
            }
        };
        match silence {
            Silence::TooLong(most) => Err(Forfeit::new(
                ForfeitKind::NotANumber,
                format!("its answer ran past {most} bytes without a line end"),
            )),
            Silence::Time | Silence::Closed => Err(self.closed()),
        }
    }

    fn finish(mut self: Box<Self>) -> Finished {
        if let Some(mut session) = self.session.take() {
            if self.manager.is_some() {
                let _ = session.send(Manager::end().as_bytes(), Instant::now() + EXIT_GRACE);
            }
            let over = session.end(EXIT_GRACE);
            if let Err(e @ SandboxError::Unprotected { .. }) = &over {
                self.unprotected = Some(e.to_string());
            }
            self.run = Some(over.map_err(|e| e.to_string()));
        }
        let unprotected = self.unprotected.take();
        let mut stderr = match &self.run {
            Some(Ok(run)) => text::tail(&run.stderr, STDERR_LINES, STDERR_BYTES),
            Some(Err(why)) => format!("[the sandbox: {why}]"),
            None => String::new(),
        };
        if let Some(about) = self.manager.as_ref().and_then(Manager::about) {
            stderr = format!("[ABOUT: {about}]\n{stderr}");
        }
        Finished { stderr, unprotected }
    }
}

impl BotSeat {
    /// The bot's output closed: its run is ended (given the grace to exit
    /// on its own) and the forfeit says why it closed.
    fn closed(&mut self) -> Forfeit {
        let Some(session) = self.session.take() else {
            return Forfeit::new(ForfeitKind::Exited, "it had already ended");
        };
        let over = session.end_saying(EXIT_GRACE);
        let forfeit = match &over {
            Ok((run, ender)) => why_closed(run, &self.limits, *ender),
            Err(e @ SandboxError::Unprotected { .. }) => {
                self.unprotected = Some(e.to_string());
                Forfeit::new(ForfeitKind::Unprotected, e.to_string())
            }
            Err(e) => Forfeit::new(ForfeitKind::Exited, format!("its run failed: {e}")),
        };
        self.run = Some(over.map(|(run, _)| run).map_err(|e| e.to_string()));
        forfeit
    }
}

/// What an answer that took `wall` of an `allowance` costs its game
/// clock: its wall time, but when it took longer because it waited for a
/// core ([`move_clock`](super::move_clock)), the CPU time it used (from
/// `first`, its CPU time when asked, to `cpu`), at most the allowance.
fn charged(wall: Duration, allowance: Duration, cpu: Option<Duration>, first: Option<Duration>) -> Duration {
    if wall <= allowance {
        return wall;
    }
    match (cpu, first) {
        (Some(cpu), Some(first)) => cpu.saturating_sub(first).min(allowance),
        _ => wall,
    }
}

/// The forfeit of a bot that gave no answer within `allowance`: what it
/// was doing when its time passed ([`move_clock`](super::move_clock)).
fn out_of_time(expiry: Expiry, allowance: Duration) -> Forfeit {
    let within = format!("no answer within {}", seconds(allowance));
    let detail = match expiry {
        Expiry::Computing { cpu, wall } if cpu >= allowance => format!(
            "{within}: it was computing ({:.2} s of CPU time in {:.2} s)",
            cpu.as_secs_f64(),
            wall.as_secs_f64()
        ),
        Expiry::Computing { cpu, wall } => format!(
            "{within}: it was computing, and had only {:.2} s of CPU time in {:.2} s (the machine was busy; \
             a bot that waits for a core is waited for up to {} times its time)",
            cpu.as_secs_f64(),
            wall.as_secs_f64(),
            move_clock::CAP
        ),
        Expiry::Blocked => {
            format!("{within}, and it was not computing: it was waiting for input, or asleep ({FLUSH})")
        }
        Expiry::Wait | Expiry::Unknown => format!("{within} ({FLUSH})"),
    };
    Forfeit::new(ForfeitKind::Time, detail)
}

/// Why a bot whose output closed mid-game did, read from how its run
/// ended ([`End`], as every run's end is read): a sandbox limit, an exit or
/// crash, its output closed while it ran on (the referee ended it after
/// the grace, with the one signal it sends, `SIGKILL`: `ender` is
/// [`Ender::Grader`]), or a `SIGKILL` that was not the referee's (its run
/// was over before the referee ended it, at no limit: someone else killed
/// it — itself, or a person or program outside the referee).
#[must_use]
pub fn why_closed(run: &Run, limits: &Limits, ender: Ender) -> Forfeit {
    let limit = |what: String| Forfeit::new(ForfeitKind::Limit, what);
    let exited = |what: String| Forfeit::new(ForfeitKind::Exited, what);
    match End::of(run, limits) {
        End::TimeLimit => limit(format!("it ran past the game's time ({})", seconds(limits.wall))),
        End::CpuLimit(_) => limit(format!("it used up its CPU time ({})", seconds(limits.cpu))),
        End::OutputLimit => limit(format!("it filled its disk ({})", megabytes(limits.output))),
        End::OutOfMemory => limit(format!("it ran out of memory ({})", megabytes(limits.memory))),
        End::Killed(nix::libc::SIGKILL) if ender == Ender::Grader => Forfeit::new(
            ForfeitKind::OutputClosed,
            "it closed its standard output before the game ended".to_owned(),
        ),
        End::Killed(nix::libc::SIGKILL) => Forfeit::new(
            ForfeitKind::Killed,
            "it was killed (SIGKILL) before the game ended, not by the referee nor at a limit of the sandbox: \
             by itself, or by someone outside the referee"
                .to_owned(),
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

    /// A time forfeit says what the bot was doing: blocked (the flush
    /// hint), computing with its time had, or computing on a machine too
    /// busy to give it its time; without its CPU time, the hint as before.
    #[test]
    fn a_time_forfeit_says_whether_it_was_blocked_or_computing() {
        let second = Duration::from_secs(1);
        let cases = [
            (
                Expiry::Blocked,
                "no answer within 1 s, and it was not computing: it was waiting for input, or asleep (an answer \
                 is one line, flushed: `print(..., flush=True)` in Python, `std::endl` in C++, \
                 `System.out.flush()` in Java)",
            ),
            (
                Expiry::Computing { cpu: second, wall: Duration::from_millis(1500) },
                "no answer within 1 s: it was computing (1.00 s of CPU time in 1.50 s)",
            ),
            (
                Expiry::Computing { cpu: Duration::from_millis(600), wall: Duration::from_secs(4) },
                "no answer within 1 s: it was computing, and had only 0.60 s of CPU time in 4.00 s (the machine \
                 was busy; a bot that waits for a core is waited for up to 10 times its time)",
            ),
            (
                Expiry::Unknown,
                "no answer within 1 s (an answer is one line, flushed: `print(..., flush=True)` in Python, \
                 `std::endl` in C++, `System.out.flush()` in Java)",
            ),
        ];
        for (expiry, detail) in cases {
            let forfeit = out_of_time(expiry, second);
            assert_eq!((forfeit.kind, forfeit.detail.as_str()), (ForfeitKind::Time, detail), "{expiry:?}");
            assert!(!not_asked(&forfeit));
        }
    }

    /// A game a bot given up on is not asked in is a time forfeit, told
    /// apart from the others.
    #[test]
    fn a_game_not_asked_is_a_time_forfeit_that_says_so() {
        let forfeit = given_up(3);
        assert_eq!(forfeit.kind, ForfeitKind::Time);
        assert_eq!(forfeit.detail, "not asked: it ran out of time in 3 games in a row");
        assert!(not_asked(&forfeit));
        assert!(!not_asked(&Forfeit::new(ForfeitKind::Exited, forfeit.detail.clone())));
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
                "killed by someone else",
                run(Ending::Signalled(SIGKILL), same),
                ForfeitKind::Killed,
                "it was killed (SIGKILL) before the game ended, not by the referee nor at a limit of the sandbox: \
                 by itself, or by someone outside the referee",
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
            // Only a SIGKILL's sender matters: the referee ends every other
            // run too once its output closed.
            let ender = if case == "killed by someone else" { Ender::Itself } else { Ender::Grader };
            let forfeit = why_closed(&ran, &LIMITS, ender);
            if !matches!(ran.outcome.ending, Ending::Signalled(SIGKILL)) {
                assert_eq!(why_closed(&ran, &LIMITS, Ender::Itself), forfeit, "{case}");
            }
            assert_eq!((forfeit.kind, forfeit.detail.as_str()), (kind, detail), "{case}");
        }
    }
}
