//! A bot's time for one answer: the wall clock, and its own CPU time when
//! the machine is busy.
//!
//! A bot has its allowance (the move time, and for a game's first answer
//! the start-up time too) from the position written to its answer read.
//! When the allowance has passed on the wall clock, its CPU time decides:
//!
//! - no thread of it is running or waiting for a core, and it used almost
//!   no CPU over the last stretch (less than a tenth of it): it was
//!   **blocked**, waiting for input (most often for its own answer, written
//!   but not flushed) or asleep. It forfeits: more time would not help.
//! - it has used its allowance in CPU time: it was **computing** and had its
//!   time. It forfeits.
//! - otherwise it was computing but had less CPU than its allowance: it
//!   waited for a core while other runs had them. It is given what it is
//!   still owed, in wall time, and looked at again, up to [`CAP`] times its
//!   allowance from the start of the answer, when it forfeits as computing.
//!
//! So games side by side past the cores cost a busy bot wall time, not a
//! forfeit (as long as it gets a tenth of a core), and a blocked bot costs
//! its allowance, no more. Where the CPU time cannot be read, the wall
//! clock alone decides, as it always did.

use std::time::{Duration, Instant};

/// How many times its allowance a bot that waits for a core may take, in
/// wall time, before it forfeits all the same.
pub const CAP: u32 = 10;

/// The shortest stretch a bot is given and looked at again after (or a
/// tenth of its allowance, if more): long enough for a few of the clock
/// ticks `/proc` counts CPU time in.
const SHORTEST: Duration = Duration::from_millis(50);

/// One answer's clock.
#[derive(Clone, Debug)]
pub struct MoveClock {
    began: Instant,
    allowance: Duration,
    /// The run's CPU time when the answer was asked for.
    first: Option<Duration>,
    /// When it was last looked at, and its CPU time then.
    last: (Instant, Option<Duration>),
    deadline: Instant,
}

/// What a bot was doing when its time passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expiry {
    /// It was computing with less CPU than it is owed: wait until
    /// [`MoveClock::deadline`] and look again.
    Wait,
    /// It used (almost) no CPU: it was waiting for input, or asleep.
    Blocked,
    /// It was computing: `cpu` of CPU time in `wall` since it was asked
    /// (its whole allowance, or less when it reached [`CAP`] times it).
    Computing {
        /// The CPU time it used.
        cpu: Duration,
        /// The wall time since it was asked.
        wall: Duration,
    },
    /// Its CPU time cannot be read: the wall clock decided.
    Unknown,
}

impl MoveClock {
    /// The clock of an answer asked for at `began`, with `allowance`, when
    /// the run had used `cpu` (`None`: it cannot be told).
    #[must_use]
    pub fn new(began: Instant, allowance: Duration, cpu: Option<Duration>) -> MoveClock {
        MoveClock { began, allowance, first: cpu, last: (began, cpu), deadline: began + allowance }
    }

    /// When to look at the bot next, if it has not answered.
    #[must_use]
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// Its allowance.
    #[must_use]
    pub fn allowance(&self) -> Duration {
        self.allowance
    }

    /// The run's CPU time when the answer was asked for, if it could be read.
    #[must_use]
    pub fn first(&self) -> Option<Duration> {
        self.first
    }

    /// The deadline has passed with no answer: at `now` the run has used
    /// `cpu`, and a thread of it is running or waiting for a core
    /// (`computing`; `None`: it cannot be told). Whether to wait on (and
    /// [`MoveClock::deadline`] moves) or why it forfeits.
    pub fn expired(&mut self, now: Instant, cpu: Option<Duration>, computing: Option<bool>) -> Expiry {
        let (Some(first), Some(cpu)) = (self.first, cpu) else { return Expiry::Unknown };
        let (since, before) = self.last;
        self.last = (now, Some(cpu));
        let recent = cpu.saturating_sub(before.unwrap_or(first));
        let stretch = now.saturating_duration_since(since);
        if recent.saturating_mul(10) < stretch && computing != Some(true) {
            return Expiry::Blocked;
        }
        let used = cpu.saturating_sub(first);
        let wall = now.saturating_duration_since(self.began);
        let hard = self.began + self.allowance.saturating_mul(CAP);
        if used >= self.allowance || now >= hard {
            return Expiry::Computing { cpu: used, wall };
        }
        // Short stretches, so that a bot that stops computing (its answer
        // written but not flushed) is seen blocked soon.
        let shortest = SHORTEST.max(self.allowance / 10);
        let step = self.allowance.saturating_sub(used).min(self.allowance / 4).max(shortest);
        self.deadline = (now + step).min(hard.max(now + shortest));
        Expiry::Wait
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: Duration = Duration::from_secs(1);

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// Nothing of it can run: what its CPU time says decides.
    const IDLE: Option<bool> = Some(false);

    #[test]
    fn a_bot_that_used_no_cpu_and_cannot_run_was_blocked() {
        let t = Instant::now();
        let mut clock = MoveClock::new(t, SECOND, Some(ms(40)));
        assert_eq!(clock.deadline(), t + SECOND);
        assert_eq!(clock.expired(t + SECOND, Some(ms(40)), IDLE), Expiry::Blocked);
        // A start-up's worth is still blocked; so is one that cannot be
        // seen running.
        let mut clock = MoveClock::new(t, SECOND, Some(ms(0)));
        assert_eq!(clock.expired(t + SECOND, Some(ms(90)), None), Expiry::Blocked);
    }

    #[test]
    fn a_bot_that_had_its_cpu_time_was_computing() {
        let t = Instant::now();
        let mut clock = MoveClock::new(t, SECOND, Some(ms(500)));
        assert_eq!(
            clock.expired(t + SECOND, Some(ms(1500)), Some(true)),
            Expiry::Computing { cpu: SECOND, wall: SECOND }
        );
    }

    /// A bot that had half a core is given the rest of its second, looked
    /// at again in stretches of at most a quarter of it, and answers in
    /// time or forfeits once it has had its second of CPU.
    #[test]
    fn a_bot_that_waited_for_a_core_is_given_what_it_is_owed() {
        let t = Instant::now();
        let mut clock = MoveClock::new(t, SECOND, Some(Duration::ZERO));
        assert_eq!(clock.expired(t + SECOND, Some(ms(500)), IDLE), Expiry::Wait);
        assert_eq!(clock.deadline(), t + ms(1250));
        assert_eq!(clock.expired(t + ms(1250), Some(ms(625)), None), Expiry::Wait);
        assert_eq!(clock.deadline(), t + ms(1500));
        assert_eq!(clock.expired(t + ms(1500), Some(ms(750)), Some(true)), Expiry::Wait);
        // Owed a tenth: the shortest stretch.
        assert_eq!(clock.expired(t + ms(1800), Some(ms(900)), IDLE), Expiry::Wait);
        assert_eq!(clock.deadline(), t + ms(1900));
        assert_eq!(
            clock.expired(t + ms(2000), Some(ms(1000)), Some(true)),
            Expiry::Computing { cpu: SECOND, wall: ms(2000) }
        );
    }

    /// One that stops computing (it wrote its answer and did not flush it)
    /// is seen blocked at the next look.
    #[test]
    fn a_bot_that_stops_computing_is_blocked_at_the_next_look() {
        let t = Instant::now();
        let mut clock = MoveClock::new(t, SECOND, Some(Duration::ZERO));
        assert_eq!(clock.expired(t + SECOND, Some(ms(300)), IDLE), Expiry::Wait);
        assert_eq!(clock.expired(t + ms(1250), Some(ms(305)), IDLE), Expiry::Blocked);
    }

    /// On a crowded machine a bot gets less than a tenth of a core: it is
    /// computing all the same while it waits for one, and is waited for up
    /// to ten times its allowance, in stretches never shorter than the
    /// shortest; then it forfeits, computing.
    #[test]
    fn a_bot_waiting_for_a_core_is_waited_for_up_to_ten_times_its_allowance() {
        let t = Instant::now();
        let mut clock = MoveClock::new(t, SECOND, Some(Duration::ZERO));
        let mut now = t + SECOND;
        let mut cpu = ms(50);
        while clock.expired(now, Some(cpu), Some(true)) == Expiry::Wait {
            assert!(clock.deadline() <= t + SECOND * CAP + SHORTEST.max(SECOND / 10));
            assert!(clock.deadline() >= now + SHORTEST);
            cpu += (clock.deadline() - now).mul_f64(0.05);
            now = clock.deadline();
        }
        assert!(now >= t + SECOND * CAP, "{:?}", now - t);
        assert_eq!(
            clock.expired(now, Some(cpu + ms(100)), Some(true)),
            Expiry::Computing { cpu: cpu + ms(100), wall: now - t }
        );
        // Seen idle with as little CPU, it was blocked.
        let mut clock = MoveClock::new(t, SECOND, Some(Duration::ZERO));
        assert_eq!(clock.expired(t + SECOND, Some(ms(50)), IDLE), Expiry::Blocked);
    }

    #[test]
    fn without_a_cpu_time_the_wall_clock_decides() {
        let t = Instant::now();
        assert_eq!(MoveClock::new(t, SECOND, None).expired(t + SECOND, Some(SECOND), None), Expiry::Unknown);
        assert_eq!(
            MoveClock::new(t, SECOND, Some(ms(0))).expired(t + SECOND, None, Some(true)),
            Expiry::Unknown
        );
    }
}
