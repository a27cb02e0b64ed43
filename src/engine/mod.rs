//! Computer players: `rules` (seeds/001's strategy), `minimax` (seeds/002's
//! depth-limited search, move for move) and `perfect` (a full solver).
//!
//! Every engine is deterministic given its seed: the same position and seed
//! give the same move, so every game replays.

mod bits;
mod minimax;
mod perfect;
mod rules;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use thiserror::Error;

use crate::board::Square;
use crate::game::Game;

pub use bits::MAX_CELLS;

/// The computer players.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum EngineKind {
    /// seeds/001: win, else block, else the centre, else a random corner,
    /// else a random square.
    #[value(help = "win, else block, else the centre, else a random corner, else any square (seeds/001)")]
    Rules,
    /// seeds/002's depth-limited minimax, exactly as written there.
    #[value(help = "depth-limited minimax exactly as seeds/002 writes it (MAX_DEPTH 5)")]
    Minimax,
    /// Never loses; wins as fast as it can, loses as slowly as it must.
    #[value(help = "a full solver: never loses, wins fastest, loses slowest")]
    Perfect,
}

/// What a position is worth to the player to move, with perfect play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// The player to move can force a win.
    Win,
    /// Neither side can force a win.
    Draw,
    /// The opponent can force a win.
    Loss,
}

impl Value {
    /// `win`, `draw` or `loss`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Value::Win => "win",
            Value::Draw => "draw",
            Value::Loss => "loss",
        }
    }
}

/// An engine's move, and (for `perfect`) what the position is worth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice {
    /// The square to take.
    pub square: Square,
    /// The position's value for the player to move, if the engine knows it.
    pub value: Option<Value>,
}

/// Why an engine cannot choose a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum EngineError {
    /// No move is legal: the game is over.
    #[error("the game is over; there is no move to choose")]
    GameOver,
    /// The search engines play two-player games only.
    #[error("the {0} engine plays two-player games only")]
    TwoPlayersOnly(&'static str),
    /// The board is too big for the engine.
    #[error("the {engine} engine plays boards of up to {max} squares; this one has {cells}")]
    BoardTooBig {
        /// The engine's name.
        engine: &'static str,
        /// Its limit.
        max: u64,
        /// The board's squares.
        cells: u64,
    },
}

/// The most squares the `rules` and `minimax` engines scan (each move looks
/// at every square).
pub const SCAN_MAX_CELLS: u64 = 1 << 20;

/// A computer player with its own seeded randomness.
pub struct Engine {
    kind: EngineKind,
    rng: ChaCha8Rng,
}

impl Engine {
    /// An engine of `kind` whose random choices come from `seed`.
    #[must_use]
    pub fn new(kind: EngineKind, seed: u64) -> Engine {
        Engine { kind, rng: ChaCha8Rng::seed_from_u64(seed) }
    }

    /// The engine's move for the player to move in `game`.
    ///
    /// # Errors
    /// [`EngineError`]: the game is over, or the engine cannot play this game.
    pub fn choose(&mut self, game: &Game) -> Result<Choice, EngineError> {
        if game.outcome().is_some() {
            return Err(EngineError::GameOver);
        }
        self.check(game)?;
        Ok(match self.kind {
            EngineKind::Rules => Choice { square: rules::choose(game, &mut self.rng), value: None },
            EngineKind::Minimax => Choice { square: minimax::choose(game), value: None },
            EngineKind::Perfect => {
                let (square, value) = perfect::choose(game);
                Choice { square, value: Some(value) }
            }
        })
    }

    /// Whether the engine can play `game`'s board with its number of players,
    /// so a console can say so before the first move.
    ///
    /// # Errors
    /// [`EngineError::BoardTooBig`] or [`EngineError::TwoPlayersOnly`].
    pub fn check(&self, game: &Game) -> Result<(), EngineError> {
        let cells = game.board().geometry().cells();
        let (name, max) = match self.kind {
            EngineKind::Rules => ("rules", SCAN_MAX_CELLS),
            EngineKind::Minimax => ("minimax", SCAN_MAX_CELLS),
            EngineKind::Perfect => ("perfect", MAX_CELLS),
        };
        if cells > max {
            return Err(EngineError::BoardTooBig { engine: name, max, cells });
        }
        if self.kind != EngineKind::Rules && game.players().len() != 2 {
            return Err(EngineError::TwoPlayersOnly(name));
        }
        Ok(())
    }
}

/// The value of the position in `game` for the player to move, with perfect
/// play (two players, at most 64 squares, game not over).
#[must_use]
pub fn solve(game: &Game) -> Value {
    perfect::choose(game).1
}

/// As [`solve`], also returning how many positions the search visited (for
/// benchmarks: positions per second).
#[must_use]
pub fn solve_counting(game: &Game) -> (Value, u64) {
    let (_, value, nodes) = perfect::choose_counting(game);
    (value, nodes)
}
