//! Giving up on a bot that keeps running out of time
//! ([`Bot::give_up_after`](super::Bot::give_up_after)): once it has
//! forfeited on time in K games in a row, it is not asked again; each game
//! left is a time forfeit that says so.
//!
//! Games run side by side, so the row is in the order games end, and a game
//! is held back while it could not change the verdict: while the time
//! forfeits of the row so far and the games under way in which the bot has
//! not yet answered make K, a new game waits for one of them to settle (an
//! answer in time lets it go on, a time forfeit may end the row). So a bot
//! that never answers is asked in exactly K games, however many run at
//! once. A game waits at most its patience (then it is asked anyway), so
//! that games waiting on each other can never hang.

use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// The row of one bot's games.
#[derive(Debug)]
pub struct Streak {
    /// K: the time forfeits in a row after which it is not asked.
    after: u32,
    state: Mutex<State>,
    /// Told whenever a game settles.
    settled: Condvar,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct State {
    /// The time forfeits in a row so far.
    timeouts: u32,
    /// The games under way in which it has not yet answered in time.
    doubtful: u32,
}

/// What a new game does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Admit {
    /// It is played.
    Ask,
    /// It waits for a game under way to settle.
    Wait,
    /// It is not asked: the row has reached K.
    Refuse,
}

/// The decision, on the row's state and K.
fn admit(state: State, after: u32) -> Admit {
    if state.timeouts >= after {
        Admit::Refuse
    } else if state.timeouts + state.doubtful >= after {
        Admit::Wait
    } else {
        Admit::Ask
    }
}

impl Streak {
    /// A row that ends the bot's asking after `after` time forfeits (at
    /// least 1).
    #[must_use]
    pub fn new(after: u32) -> Arc<Streak> {
        Arc::new(Streak { after: after.max(1), state: Mutex::new(State::default()), settled: Condvar::new() })
    }

    /// K.
    #[must_use]
    pub fn after(&self) -> u32 {
        self.after
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A new game: its ticket once it may be played (waiting at most
    /// `patience`), or `None` when the bot is not asked.
    #[must_use]
    pub fn enter(self: &Arc<Self>, patience: Duration) -> Option<Ticket> {
        let until = Instant::now() + patience;
        let mut state = self.lock();
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match admit(*state, self.after) {
                Admit::Refuse => return None,
                Admit::Wait if !left.is_zero() => {
                    state = self.settled.wait_timeout(state, left).unwrap_or_else(PoisonError::into_inner).0;
                }
                Admit::Ask | Admit::Wait => {
                    state.doubtful += 1;
                    return Some(Ticket {
                        streak: Arc::clone(self),
                        doubtful: true,
                        answered: false,
                        timed_out: false,
                    });
                }
            }
        }
    }
}

/// One game's place in the row; dropped when the game is over.
#[derive(Debug)]
pub struct Ticket {
    streak: Arc<Streak>,
    /// Counted among the games in which the bot has not answered.
    doubtful: bool,
    answered: bool,
    timed_out: bool,
}

impl Ticket {
    /// It answered in time.
    pub fn answered(&mut self) {
        self.answered = true;
        self.settle(|_| ());
    }

    /// It forfeited on time: the row grows.
    pub fn timed_out(&mut self) {
        if !self.timed_out {
            self.timed_out = true;
            self.settle(|state| state.timeouts += 1);
        }
    }

    /// No longer doubtful, `change` made, and the waiting games told.
    fn settle(&mut self, change: impl FnOnce(&mut State)) {
        let mut state = self.streak.lock();
        if std::mem::take(&mut self.doubtful) {
            state.doubtful = state.doubtful.saturating_sub(1);
        }
        change(&mut state);
        drop(state);
        self.streak.settled.notify_all();
    }
}

impl Drop for Ticket {
    /// The game is over: one it answered in and did not run out of time in
    /// breaks the row.
    fn drop(&mut self) {
        let breaks = self.answered && !self.timed_out;
        self.settle(|state| {
            if breaks {
                state.timeouts = 0;
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_is_asked_while_the_row_cannot_reach_k() {
        let state = |timeouts, doubtful| State { timeouts, doubtful };
        assert_eq!(admit(state(0, 0), 3), Admit::Ask);
        assert_eq!(admit(state(1, 1), 3), Admit::Ask);
        assert_eq!(admit(state(0, 3), 3), Admit::Wait);
        assert_eq!(admit(state(2, 1), 3), Admit::Wait);
        assert_eq!(admit(state(3, 0), 3), Admit::Refuse);
        assert_eq!(admit(state(3, 5), 3), Admit::Refuse);
    }

    const LONG: Duration = Duration::from_mins(10);

    /// K games that never answer: the next one waits, and is not asked
    /// once they have all run out of time.
    #[test]
    fn after_k_time_forfeits_in_a_row_it_is_not_asked() {
        let streak = Streak::new(3);
        let mut games: Vec<Ticket> = (0..3).map(|_| streak.enter(LONG).unwrap()).collect();
        let waiting = {
            let streak = Arc::clone(&streak);
            std::thread::spawn(move || streak.enter(LONG).is_some())
        };
        for game in &mut games {
            game.timed_out();
        }
        assert!(!waiting.join().unwrap(), "asked after three time forfeits");
        drop(games);
        assert!(streak.enter(LONG).is_none());
    }

    /// An answer in time lets a waiting game go on; a game answered in
    /// and finished breaks the row.
    #[test]
    fn an_answer_in_time_lets_the_next_game_go_on_and_breaks_the_row() {
        let streak = Streak::new(2);
        let mut a = streak.enter(LONG).unwrap();
        a.timed_out();
        let mut b = streak.enter(LONG).unwrap();
        let waiting = {
            let streak = Arc::clone(&streak);
            std::thread::spawn(move || streak.enter(LONG))
        };
        b.answered();
        let c = waiting.join().unwrap().expect("asked once the game under way answered");
        drop((a, b));
        assert_eq!(*streak.lock(), State { timeouts: 0, doubtful: 1 });
        drop(c);
        assert_eq!(*streak.lock(), State::default());
    }

    /// A game that ends without an answer (its bot crashed at once, say)
    /// neither grows nor breaks the row.
    #[test]
    fn a_game_with_no_answer_and_no_time_forfeit_leaves_the_row() {
        let streak = Streak::new(2);
        let mut a = streak.enter(LONG).unwrap();
        a.timed_out();
        drop(a);
        drop(streak.enter(LONG).unwrap());
        assert_eq!(*streak.lock(), State { timeouts: 1, doubtful: 0 });
    }

    /// Out of patience, a game is asked anyway.
    #[test]
    fn a_game_out_of_patience_is_asked() {
        let streak = Streak::new(1);
        let _a = streak.enter(LONG).unwrap();
        assert!(streak.enter(Duration::ZERO).is_some());
        assert_eq!(streak.after(), 1);
    }
}
