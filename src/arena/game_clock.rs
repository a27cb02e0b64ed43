//! Game clocks (`--clock BASE+INC`, as cutechess's `tc=`): each player has
//! BASE seconds for the whole game, and INC more after each of its moves.
//! Each answer may take what is left on its clock, and at most the move
//! time too when one is given; a forfeit on time says which ran out.

use std::fmt;
use std::time::Duration;

/// A game clock's setting: BASE seconds, INC more after each move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    /// Each player's time for the whole game.
    pub base: Duration,
    /// What each of its moves adds.
    pub increment: Duration,
}

impl Clock {
    /// Parses `BASE+INC` or `BASE` (seconds, decimals allowed: `60+0.5`).
    ///
    /// # Errors
    /// What was expected, in words.
    pub fn parse(text: &str) -> Result<Clock, String> {
        let bad = || format!("`{text}` is not a clock; expected BASE+INC in seconds, such as 60+1 or 10+0.1");
        let (base, increment) = text.split_once('+').unwrap_or((text, "0"));
        let seconds = |s: &str| -> Result<Duration, String> {
            match s.trim().parse::<f64>() {
                Ok(v) if v.is_finite() && (0.0..=1e9).contains(&v) => Ok(Duration::from_secs_f64(v)),
                _ => Err(bad()),
            }
        };
        let clock = Clock { base: seconds(base)?, increment: seconds(increment)? };
        if clock.base.is_zero() {
            return Err(bad());
        }
        Ok(clock)
    }
}

impl fmt::Display for Clock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}+{}", self.base.as_secs_f64(), self.increment.as_secs_f64())
    }
}

/// Which limit an answer's allowance came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The move time.
    Move,
    /// What was left on the player's game clock.
    Clock,
}

/// One player's clock in one game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Remaining {
    clock: Clock,
    left: Duration,
    moves: u32,
}

impl Remaining {
    /// A full clock of `clock`.
    #[must_use]
    pub fn new(clock: Clock) -> Remaining {
        Remaining { clock, left: clock.base, moves: 0 }
    }

    /// The time left.
    #[must_use]
    pub fn left(&self) -> Duration {
        self.left
    }

    /// What each move adds.
    #[must_use]
    pub fn increment(&self) -> Duration {
        self.clock.increment
    }

    /// The next answer's allowance with `move_time` the most any answer may
    /// take, and which of the two bounds it.
    #[must_use]
    pub fn allowance(&self, move_time: Duration) -> (Duration, Bound) {
        if self.left < move_time { (self.left, Bound::Clock) } else { (move_time, Bound::Move) }
    }

    /// An answer took `used`: taken off the clock, then the increment added.
    pub fn charge(&mut self, used: Duration) {
        self.left = self.left.saturating_sub(used) + self.clock.increment;
        self.moves += 1;
    }

    /// How a time forfeit's detail says the clock ran out.
    #[must_use]
    pub fn ran_out(&self) -> String {
        format!(
            "its game clock ran out ({:.2} s left of {} after {} moves)",
            self.left.as_secs_f64(),
            self.clock,
            self.moves
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn a_clock_is_base_plus_increment_in_seconds() {
        assert_eq!(
            Clock::parse("60+1"),
            Ok(Clock { base: Duration::from_mins(1), increment: Duration::from_secs(1) })
        );
        assert_eq!(Clock::parse("10+0.1"), Ok(Clock { base: Duration::from_secs(10), increment: ms(100) }));
        assert_eq!(Clock::parse("5"), Ok(Clock { base: Duration::from_secs(5), increment: Duration::ZERO }));
        for bad in ["", "+1", "0+1", "x+1", "1+y", "-1+1", "1+-1", "inf+0", "NaN"] {
            assert_eq!(
                Clock::parse(bad).unwrap_err(),
                format!("`{bad}` is not a clock; expected BASE+INC in seconds, such as 60+1 or 10+0.1")
            );
        }
        assert_eq!(Clock::parse("60+0.5").unwrap().to_string(), "60+0.5");
    }

    #[test]
    fn each_answer_takes_its_time_off_and_adds_the_increment() {
        let mut left = Remaining::new(Clock::parse("2+0.5").unwrap());
        assert_eq!(left.allowance(Duration::from_secs(1)), (Duration::from_secs(1), Bound::Move));
        left.charge(ms(1800));
        assert_eq!(left.left(), ms(700));
        // Less left than the move time: the clock bounds the answer.
        assert_eq!(left.allowance(Duration::from_secs(1)), (ms(700), Bound::Clock));
        left.charge(ms(900));
        assert_eq!(left.left(), ms(500));
        assert_eq!(left.ran_out(), "its game clock ran out (0.50 s left of 2+0.5 after 2 moves)");
    }
}
