//! One game between seats: each is asked in turn, its answer judged
//! ([`super::answer`]), and the first forfeit ends the game at once.
//!
//! With two players the one who forfeits loses; with three or more it is
//! ranked last and the others draw.

use std::sync::{Mutex, PoisonError};

use crate::board::Storage;
use crate::game::{Game, Move, Outcome};
use crate::player::{Player, PlayerId, Players};

use super::answer;
use super::entrant::{Entrant, Finished, Forfeit, Position, Seat, Setup};

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The seat (0-based turn order) completed a winning line.
    Win(usize),
    /// The board filled with no winning line.
    Draw,
    /// The seat forfeited: the game ended there.
    Forfeit {
        /// Who forfeited.
        seat: usize,
        /// Why.
        forfeit: Forfeit,
    },
}

/// One seat's result in a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Score {
    /// A win: 1 point.
    Win,
    /// A draw: ½ point.
    Draw,
    /// A loss: no point.
    Loss,
}

impl Score {
    /// The points, in halves (a win 2, a draw 1), so sums stay exact.
    #[must_use]
    pub fn half_points(self) -> u64 {
        match self {
            Score::Win => 2,
            Score::Draw => 1,
            Score::Loss => 0,
        }
    }
}

impl Ending {
    /// The result of `seat` in a game of `players` seats that ended so.
    #[must_use]
    pub fn score(&self, seat: usize, players: usize) -> Score {
        match self {
            Ending::Win(winner) if *winner == seat => Score::Win,
            Ending::Win(_) => Score::Loss,
            Ending::Forfeit { seat: offender, .. } if *offender == seat => Score::Loss,
            Ending::Forfeit { .. } if players == 2 => Score::Win,
            // A draw, or with three or more players someone else's forfeit.
            Ending::Draw | Ending::Forfeit { .. } => Score::Draw,
        }
    }

    /// The seat that won, if one did (a forfeit with two players makes the
    /// other the winner).
    #[must_use]
    pub fn winner(&self, players: usize) -> Option<usize> {
        (0..players).find(|&seat| self.score(seat, players) == Score::Win)
    }
}

/// A game as it was played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Played {
    /// The valid moves in order, the opening's first.
    pub moves: Vec<Move>,
    /// For a forfeit on a number that is no free square, the square field
    /// the record writes for it (see [`answer::Refused::recorded`]).
    pub refused: Option<String>,
    /// How it ended.
    pub ending: Ending,
    /// What each seat left, in turn order (empty for one that never joined).
    pub finished: Vec<Finished>,
}

/// Plays one game of `setup` between `entrants` (in turn order, one per
/// mark of the setup), from `opening`'s moves (legal, not ending the game).
///
/// Every entrant is seated first; one that cannot start forfeits the game
/// (the first such in turn order). Every seat that started is finished,
/// whatever happens.
///
/// The seats are started side by side and finished side by side: a bot's
/// start and end are its container's (most of what a game of quick bots
/// costs), and none waits on another's.
#[must_use]
pub fn play(setup: &Setup, opening: &[Move], entrants: &[&dyn Entrant]) -> Played {
    // Side by side only where two seats start slowly: an engine's seat
    // costs less than a thread.
    let apart = entrants.iter().filter(|e| e.runs_apart()).count() > 1;
    let joined =
        each(apart, entrants.iter().enumerate().collect(), |(index, entrant)| entrant.join(setup, index));
    let mut seats: Vec<Option<Box<dyn Seat>>> = Vec::with_capacity(entrants.len());
    let mut failed = None;
    for (index, joined) in joined.into_iter().enumerate() {
        match joined {
            Ok(seat) => seats.push(Some(seat)),
            Err(forfeit) => {
                seats.push(None);
                failed.get_or_insert(Ending::Forfeit { seat: index, forfeit });
            }
        }
    }
    let mut played = Played { moves: Vec::new(), refused: None, ending: Ending::Draw, finished: Vec::new() };
    played.ending = match failed {
        Some(ending) => ending,
        None => play_out(setup, opening, entrants, &mut seats, &mut played),
    };
    played.finished = each(apart, seats, |seat| seat.map(Seat::finish).unwrap_or_default());
    played
}

/// `work` done on every item, the results in the items' order: one after
/// another, or with `at_once` side by side, the first item on this thread
/// and each other on a thread of its own (on this one after the first when
/// no thread can be started).
fn each<T: Send, R: Send>(at_once: bool, items: Vec<T>, work: impl Fn(T) -> R + Sync) -> Vec<R> {
    if !at_once {
        return items.into_iter().map(work).collect();
    }
    let take = |slot: &Mutex<Option<T>>| slot.lock().unwrap_or_else(PoisonError::into_inner).take();
    let slots: Vec<Mutex<Option<T>>> = items.into_iter().map(|item| Mutex::new(Some(item))).collect();
    let (work, take) = (&work, &take);
    std::thread::scope(|scope| {
        let others: Vec<_> = slots
            .iter()
            .skip(1)
            .map(|slot| std::thread::Builder::new().spawn_scoped(scope, move || take(slot).map(work)))
            .collect();
        let mut results: Vec<R> = slots.first().and_then(take).map(work).into_iter().collect();
        for (slot, other) in slots.iter().skip(1).zip(others) {
            // A thread that could not be started left its item in its slot.
            let result = match other {
                Ok(handle) => handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                Err(_) => take(slot).map(work),
            };
            results.extend(result);
        }
        results
    })
}

/// The game itself, every seat started.
fn play_out(
    setup: &Setup,
    opening: &[Move],
    entrants: &[&dyn Entrant],
    seats: &mut [Option<Box<dyn Seat>>],
    played: &mut Played,
) -> Ending {
    let declared = setup
        .marks
        .iter()
        .zip(entrants)
        .map(|(&mark, entrant)| Player { mark, name: entrant.name().to_owned() })
        .collect();
    let Ok(players) = Players::new(declared) else {
        unreachable!("the setup's marks are distinct, one per entrant (the schedule makes them so)")
    };
    let mut game = Game::new(players, setup.geometry, Storage::Auto);
    for &mv in opening {
        if game.try_play(mv).is_ok() {
            played.moves.push(mv);
        }
    }
    loop {
        match game.outcome() {
            Some(Outcome::Win(winner)) => return Ending::Win(winner.index()),
            Some(Outcome::Cat) => return Ending::Draw,
            None => {}
        }
        let mover: PlayerId = game.next_player();
        let seat = mover.index();
        let Some(Some(sitting)) = seats.get_mut(seat) else {
            unreachable!("every seat started before the first move")
        };
        let answer = match sitting.answer(&Position::new(&game)) {
            Ok(answer) => answer,
            Err(forfeit) => return Ending::Forfeit { seat, forfeit },
        };
        match answer::judge(&game, &answer) {
            Ok(square) => {
                let mv = Move { player: mover, square };
                game.play_unchecked(mv);
                played.moves.push(mv);
            }
            Err(refused) => {
                played.refused = refused.recorded;
                return Ending::Forfeit { seat, forfeit: refused.forfeit };
            }
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use std::collections::VecDeque;
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use super::*;
    use crate::arena::entrant::ForfeitKind;
    use crate::board::{Geometry, Square};
    use crate::player::Mark;

    /// A participant that answers from a script, one answer a move,
    /// whatever the position; past its end it runs out of time.
    pub(in crate::arena) struct Scripted {
        pub name: String,
        pub answers: Vec<Result<String, Forfeit>>,
        pub fails_to_start: bool,
        pub asked: Arc<Mutex<Vec<String>>>,
        /// Set: it runs apart, and its seat's start and end each wait for
        /// every entrant sharing this to be at the same step.
        pub meet: Option<Arc<Meeting>>,
    }

    /// Where entrants that run apart wait for each other: how many came to
    /// each step (start, end), and the number expected.
    pub(in crate::arena) struct Meeting {
        came: Mutex<[usize; 2]>,
        all: std::sync::Condvar,
        expected: usize,
    }

    impl Meeting {
        /// Waits at `step` for every entrant expected; false when they
        /// did not all come (one at a time: the wait would never end, so
        /// it ends after a minute, to fail the test rather than hang it).
        fn wait(&self, step: usize) -> bool {
            let mut came = self.came.lock().unwrap();
            came[step] += 1;
            self.all.notify_all();
            let (came, _) = self
                .all
                .wait_timeout_while(came, Duration::from_mins(1), |came| came[step] < self.expected)
                .unwrap();
            came[step] >= self.expected
        }
    }

    impl Scripted {
        pub fn new(name: &str, answers: &[&str]) -> Scripted {
            Scripted {
                name: name.to_owned(),
                answers: answers.iter().map(|a| Ok((*a).to_owned())).collect(),
                fails_to_start: false,
                asked: Arc::default(),
                meet: None,
            }
        }

        pub fn failing(name: &str, answers: &[&str], forfeit: Forfeit) -> Scripted {
            let mut scripted = Scripted::new(name, answers);
            scripted.answers.push(Err(forfeit));
            scripted
        }
    }

    struct ScriptedSeat {
        answers: VecDeque<Result<String, Forfeit>>,
        asked: Arc<Mutex<Vec<String>>>,
        meet: Option<Arc<Meeting>>,
    }

    impl Entrant for Scripted {
        fn name(&self) -> &str {
            &self.name
        }

        fn runs_apart(&self) -> bool {
            self.meet.is_some()
        }

        fn join(&self, _: &Setup, _: usize) -> Result<Box<dyn Seat>, Forfeit> {
            if self.meet.as_ref().is_some_and(|meet| !meet.wait(0)) {
                return Err(Forfeit::new(ForfeitKind::Exited, "started alone"));
            }
            if self.fails_to_start {
                return Err(Forfeit::new(
                    ForfeitKind::Exited,
                    "exited with status 1 before its first answer",
                ));
            }
            Ok(Box::new(ScriptedSeat {
                answers: self.answers.clone().into(),
                asked: Arc::clone(&self.asked),
                meet: self.meet.clone(),
            }))
        }
    }

    impl Seat for ScriptedSeat {
        fn answer(&mut self, position: &Position) -> Result<String, Forfeit> {
            self.asked.lock().unwrap().push(position.line());
            self.answers
                .pop_front()
                .unwrap_or_else(|| Err(Forfeit::new(ForfeitKind::Time, "no answer within 1 s")))
        }

        fn finish(self: Box<Self>) -> Finished {
            if self.meet.as_ref().is_some_and(|meet| !meet.wait(1)) {
                return Finished { stderr: "ended alone".into(), unprotected: None };
            }
            Finished { stderr: format!("{} answers left", self.answers.len()), unprotected: None }
        }
    }

    pub fn setup(players: usize) -> Setup {
        Setup {
            geometry: Geometry::CLASSIC,
            marks: crate::corpus::MARKS[..players].iter().map(|&c| Mark::new(c).unwrap()).collect(),
            game: 1,
            seed: 0,
            move_time: Duration::from_secs(1),
            clock: None,
            waiting: Duration::ZERO,
        }
    }

    fn game(entrants: &[&Scripted], opening: &[Move]) -> Played {
        let entrants: Vec<&dyn Entrant> = entrants.iter().map(|e| *e as &dyn Entrant).collect();
        play(&setup(entrants.len()), opening, &entrants)
    }

    fn squares(played: &Played) -> Vec<u64> {
        played.moves.iter().map(|mv| mv.square.number()).collect()
    }

    #[test]
    fn a_win_and_a_draw_end_the_game() {
        let (x, o) = (Scripted::new("x", &["1", "2", "3"]), Scripted::new("o", &["4", "5"]));
        let played = game(&[&x, &o], &[]);
        assert_eq!(played.ending, Ending::Win(0));
        assert_eq!(squares(&played), [1, 4, 2, 5, 3]);
        assert_eq!(played.finished[0].stderr, "0 answers left");
        assert_eq!(o.asked.lock().unwrap()[0], "3 3 3 O XO X........");

        let x = Scripted::new("x", &["6", "7", "1", "5", "8"]);
        let o = Scripted::new("o", &["9", "4", "3", "2"]);
        assert_eq!(game(&[&x, &o], &[]).ending, Ending::Draw);
    }

    #[test]
    fn seats_that_run_apart_start_and_end_side_by_side() {
        // Each waits at its start and its end for the other: one at a time,
        // the first would start (or end) alone.
        let meeting =
            Arc::new(Meeting { came: Mutex::new([0, 0]), all: std::sync::Condvar::new(), expected: 2 });
        let mut x = Scripted::new("x", &["1", "2", "3"]);
        let mut o = Scripted::new("o", &["4", "5"]);
        x.meet = Some(Arc::clone(&meeting));
        o.meet = Some(Arc::clone(&meeting));
        let played = game(&[&x, &o], &[]);
        assert_eq!(played.ending, Ending::Win(0));
        assert_eq!(played.finished[0].stderr, "0 answers left");
        assert_eq!(played.finished[1].stderr, "0 answers left");
        // An engine beside a bot is seated on this thread: nothing waits.
        let lone = Scripted::new("o", &["4", "5"]);
        assert_eq!(game(&[&Scripted::new("x", &["1", "2", "3"]), &lone], &[]).ending, Ending::Win(0));
    }

    #[test]
    fn every_wrong_answer_forfeits_and_the_offender_loses() {
        for (answer, kind, refused) in [
            ("five", ForfeitKind::NotANumber, None),
            ("10", ForfeitKind::OffBoard, Some("10")),
            ("1", ForfeitKind::Taken, Some("1")),
        ] {
            let (x, o) = (Scripted::new("x", &["1", "2"]), Scripted::new("o", &[answer]));
            let played = game(&[&x, &o], &[]);
            let Ending::Forfeit { seat: 1, forfeit } = &played.ending else { panic!("{played:?}") };
            assert_eq!(forfeit.kind, kind, "{answer}");
            assert_eq!(played.refused.as_deref(), refused);
            assert_eq!(squares(&played), [1], "the game ends at once");
            assert_eq!(played.ending.winner(2), Some(0));
            assert_eq!(played.ending.score(1, 2), Score::Loss);
        }
        // Out of answers: the script runs out of time.
        let (x, o) = (Scripted::new("x", &["1"]), Scripted::new("o", &["5"]));
        let played = game(&[&x, &o], &[]);
        assert_eq!(
            played.ending,
            Ending::Forfeit { seat: 0, forfeit: Forfeit::new(ForfeitKind::Time, "no answer within 1 s") }
        );
        assert_eq!(played.ending.winner(2), Some(1));
        // A seat's own forfeit (a crash) ends it the same way.
        let crash = Forfeit::new(ForfeitKind::Exited, "killed by SIGSEGV");
        let (x, o) = (Scripted::failing("x", &["1"], crash.clone()), Scripted::new("o", &["5"]));
        assert_eq!(game(&[&x, &o], &[]).ending, Ending::Forfeit { seat: 0, forfeit: crash });
    }

    #[test]
    fn an_entrant_that_cannot_start_forfeits_and_the_others_are_finished() {
        let mut x = Scripted::new("x", &[]);
        x.fails_to_start = true;
        let o = Scripted::new("o", &["1"]);
        let played = game(&[&x, &o], &[]);
        assert!(
            matches!(&played.ending, Ending::Forfeit { seat: 0, forfeit } if forfeit.kind == ForfeitKind::Exited)
        );
        assert!(played.moves.is_empty());
        assert_eq!(
            played.finished,
            [Finished::default(), Finished { stderr: "1 answers left".into(), unprotected: None }]
        );
    }

    #[test]
    fn with_three_players_the_offender_is_last_and_the_others_draw() {
        let x = Scripted::new("x", &["1"]);
        let o = Scripted::new("o", &["2"]);
        let z = Scripted::new("z", &["1"]);
        let played = game(&[&x, &o, &z], &[]);
        assert!(
            matches!(&played.ending, Ending::Forfeit { seat: 2, forfeit } if forfeit.kind == ForfeitKind::Taken)
        );
        let scores: Vec<Score> = (0..3).map(|seat| played.ending.score(seat, 3)).collect();
        assert_eq!(scores, [Score::Draw, Score::Draw, Score::Loss]);
        assert_eq!(played.ending.winner(3), None);
        assert_eq!(z.asked.lock().unwrap()[0], "3 3 3 Z XOZ XO.......");
    }

    #[test]
    fn an_opening_is_played_before_anyone_is_asked() {
        let opening = [
            Move { player: PlayerId::new(0), square: Square::from_index(4) },
            Move { player: PlayerId::new(1), square: Square::from_index(0) },
        ];
        let (x, o) = (Scripted::new("x", &["2", "3"]), Scripted::new("o", &["9"]));
        let played = game(&[&x, &o], &opening);
        assert_eq!(x.asked.lock().unwrap()[0], "3 3 3 X XO O...X....");
        assert_eq!(&squares(&played)[..3], [5, 1, 2]);
    }
}
