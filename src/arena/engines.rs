//! The computer engines as participants: each seat is an [`Engine`] in
//! this process, seeded from the game's seed and its seat, answering with
//! the square it chooses.

use crate::board::{Geometry, Storage};
use crate::engine::{Engine, EngineError, EngineKind};
use crate::game::Game;
use crate::player::{Mark, Player, Players};

use std::time::{Duration, Instant};

use super::entrant::{Entrant, Finished, Forfeit, ForfeitKind, Position, Seat, Setup};
use super::game_clock::{Bound, Remaining};

/// The `perfect` engine's table in a game, in MiB: games run side by side
/// (`--jobs`), each engine with its own.
const HASH_MB: u32 = 32;

/// An engine taking part under its own name (`perfect`, `minimax`, `rules`,
/// `random`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineEntrant {
    kind: EngineKind,
    name: String,
}

impl EngineEntrant {
    /// The engine `kind`, named as the command line names it.
    #[must_use]
    pub fn new(kind: EngineKind) -> EngineEntrant {
        EngineEntrant { kind, name: kind.name().to_owned() }
    }

    /// The same engine under another name (two of one engine in a
    /// tournament must be told apart).
    #[must_use]
    pub fn named(mut self, name: impl Into<String>) -> EngineEntrant {
        self.name = name.into();
        self
    }

    /// Which engine it is.
    #[must_use]
    pub fn kind(&self) -> EngineKind {
        self.kind
    }
}

/// Whether the engine `kind` can play games on `geometry` with `players`
/// players, so a match can refuse it before the first game.
///
/// # Errors
/// The [`EngineError`] that says why not (too big a board, too many players).
pub fn check(kind: EngineKind, geometry: Geometry, players: &[Mark]) -> Result<(), EngineError> {
    Engine::new(kind, 0).check(&empty_game(geometry, players))
}

fn empty_game(geometry: Geometry, marks: &[Mark]) -> Game {
    let players = marks.iter().map(|&mark| Player { mark, name: mark.to_string() }).collect();
    let players = Players::new(players).unwrap_or_else(|_| Players::classic("X", "O"));
    Game::new(players, geometry, Storage::Auto)
}

impl Entrant for EngineEntrant {
    fn name(&self) -> &str {
        &self.name
    }

    fn replays(&self) -> bool {
        true
    }

    fn join(&self, setup: &Setup, seat: usize) -> Result<Box<dyn Seat>, Forfeit> {
        check(self.kind, setup.geometry, &setup.marks)
            .map_err(|e| Forfeit::new(ForfeitKind::Limit, e.to_string()))?;
        let seed = setup.seed.wrapping_add(seat as u64);
        // Half the move time: an engine answers well within it, as a bot must.
        // `perfect` draws among equally good moves, so its games follow the
        // event's seed: nobody knows them before the seed is drawn.
        let engine = Engine::new(self.kind, seed).time_limit(Some(setup.move_time / 2)).hash_mb(HASH_MB);
        let engine = if self.kind == EngineKind::Perfect { engine.random_ties() } else { engine };
        Ok(Box::new(EngineSeat {
            engine: Some(engine),
            move_time: setup.move_time,
            clock: setup.clock.map(Remaining::new),
        }))
    }
}

/// An engine in one game.
struct EngineSeat {
    /// The engine (taken out only to be given its time for a move).
    engine: Option<Engine>,
    move_time: Duration,
    /// Its game clock, if the game has one.
    clock: Option<Remaining>,
}

impl Seat for EngineSeat {
    fn answer(&mut self, position: &Position) -> Result<String, Forfeit> {
        let Some(mut engine) = self.engine.take() else {
            return Err(Forfeit::new(ForfeitKind::Limit, "the engine was lost"));
        };
        // Half the move time, or with a clock a share of what is left: an
        // engine answers well within its allowance, as a bot must.
        if let Some(clock) = &self.clock {
            let (allowance, _) = clock.allowance(self.move_time);
            engine = engine.time_limit(Some(think(allowance, clock.left(), clock.increment())));
        }
        let began = Instant::now();
        let chosen = engine.choose(position.game());
        self.engine = Some(engine);
        if let Some(clock) = &mut self.clock {
            let (allowance, bound) = clock.allowance(self.move_time);
            let used = began.elapsed();
            if used > allowance {
                let within = format!("no answer within {:.2} s", allowance.as_secs_f64());
                let detail = match bound {
                    Bound::Clock => format!("{}: {within}", clock.ran_out()),
                    Bound::Move => within,
                };
                return Err(Forfeit::new(ForfeitKind::Time, detail));
            }
            clock.charge(used);
        }
        match chosen {
            Ok(choice) => Ok(choice.square.number().to_string()),
            Err(error) => Err(Forfeit::new(ForfeitKind::Limit, error.to_string())),
        }
    }

    fn finish(self: Box<Self>) -> Finished {
        Finished::default()
    }
}

/// An engine's search time for a move with a game clock: half its
/// allowance, and no more than a twentieth of what is left and half the
/// increment, so the clock lasts the game.
fn think(allowance: Duration, left: Duration, increment: Duration) -> Duration {
    (allowance / 2).min(left / 20 + increment / 2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::contest::tests::setup;
    use crate::arena::contest::{Ending, play};

    #[test]
    fn with_a_clock_an_engine_thinks_a_share_of_what_is_left() {
        let s = Duration::from_secs;
        assert_eq!(think(s(10), s(60), s(1)), s(3) + Duration::from_millis(500));
        assert_eq!(think(s(1), s(60), s(1)), Duration::from_millis(500));
        assert_eq!(think(s(2), s(2), Duration::ZERO), Duration::from_millis(100));
    }

    #[test]
    fn perfect_never_loses_to_random_and_games_replay_by_seed() {
        let perfect = EngineEntrant::new(EngineKind::Perfect);
        let random = EngineEntrant::new(EngineKind::Random);
        for seed in 0..10 {
            let mut setup = setup(2);
            setup.seed = seed;
            let one = play(&setup, &[], &[&random, &perfect]);
            assert_ne!(one.ending, Ending::Win(0), "seed {seed}");
            assert_eq!(one, play(&setup, &[], &[&random, &perfect]));
        }
    }

    #[test]
    fn an_engine_that_cannot_play_the_game_forfeits_at_the_start() {
        let minimax = EngineEntrant::new(EngineKind::Minimax).named("mm");
        assert_eq!(minimax.name(), "mm");
        let played = play(&setup(3), &[], &[&minimax, &EngineEntrant::new(EngineKind::Random), &minimax]);
        let Ending::Forfeit { seat: 0, forfeit } = played.ending else { panic!("{played:?}") };
        assert_eq!(forfeit.kind, ForfeitKind::Limit);
        assert_eq!(forfeit.detail, "the minimax engine plays two-player games only");
        let marks = setup(3).marks;
        assert!(check(EngineKind::Rules, Geometry::CLASSIC, &marks).is_ok());
        assert_eq!(
            check(EngineKind::Perfect, Geometry::new(15, 15, 5).unwrap(), &marks[..2])
                .unwrap_err()
                .to_string(),
            "the perfect engine plays boards of up to 64 squares; this one has 225"
        );
    }
}
