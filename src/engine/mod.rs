//! Computer players: `rules` (the Smalltalk exercise's strategy), `minimax` (URI CSC 212 Deep Dive 4's
//! depth-limited search, move for move), `perfect` (a full solver, up to 64
//! squares), `strong` (a gomoku player for boards of any size) and
//! `random` (any legal move, uniformly: the weakest opponent, for matches).
//!
//! Every engine is deterministic given its seed: the same position and seed
//! give the same move, so every game replays.

mod bits;
mod minimax;
mod perfect;
mod random;
pub mod rules;
mod strong;
mod table;
mod value;

use std::fmt;
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use thiserror::Error;

use crate::board::Square;
use crate::game::Game;

pub use bits::MAX_CELLS;
pub use value::{Progress, Search, Value};

/// What an engine tells how its search goes ([`Engine::on_progress`]): the
/// command line's spinner, say. It is `Send`, so an engine can play its
/// games on another thread (the arena's `--jobs`).
pub type Watcher = Box<dyn FnMut(Progress) + Send>;

/// The computer players.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EngineKind {
    /// The Smalltalk exercise: win, else block, else the centre, else a random corner,
    /// else a random square.
    Rules,
    /// URI CSC 212 Deep Dive 4's depth-limited minimax, exactly as written there.
    Minimax,
    /// Never loses; wins as fast as it can, loses as slowly as it must.
    Perfect,
    /// A uniformly random legal move: the baseline every bot should beat.
    Random,
    /// A threat-space and alpha-beta gomoku player for boards of any size:
    /// the opponent where `perfect` cannot play.
    Strong,
}

impl EngineKind {
    /// Every engine, in the order help texts list them.
    pub const ALL: [EngineKind; 5] =
        [EngineKind::Perfect, EngineKind::Strong, EngineKind::Minimax, EngineKind::Rules, EngineKind::Random];

    /// The engine's name on the command line and in records: `perfect`,
    /// `strong`, `minimax`, `rules` or `random`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Rules => "rules",
            EngineKind::Minimax => "minimax",
            EngineKind::Perfect => "perfect",
            EngineKind::Random => "random",
            EngineKind::Strong => "strong",
        }
    }

    /// The engine named `name` (as [`EngineKind::name`] writes it).
    #[must_use]
    pub fn from_name(name: &str) -> Option<EngineKind> {
        EngineKind::ALL.into_iter().find(|kind| kind.name() == name)
    }
}

/// An engine's move, and (for `perfect`) what the position is worth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice {
    /// The square to take.
    pub square: Square,
    /// The position's value for the player to move, when the engine has
    /// proven it (`perfect` only; `None` if its time ran out first).
    pub value: Option<Value>,
    /// How the search went (`perfect` only).
    pub search: Option<Search>,
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
    /// The engine cannot honour the exact rule.
    #[error("the {0} engine plays only the rule where K or more in a row win, not --rule exact")]
    ExactRule(&'static str),
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

/// The most squares the `rules`, `minimax` and `random` engines scan (each
/// move looks at every square).
pub const SCAN_MAX_CELLS: u64 = 1 << 20;

/// The `perfect` engine's transposition table by default, in MiB: a search
/// of any length stays within it (and a little more).
pub const DEFAULT_HASH_MB: u32 = 256;

/// The smallest transposition table, in MiB.
pub const MIN_HASH_MB: u32 = 1;

/// The largest transposition table, in MiB (64 GiB).
pub const MAX_HASH_MB: u32 = 65_536;

/// A callback told how a long search goes.
type ProgressFn = Box<dyn FnMut(Progress) + Send>;

/// A computer player with its own seeded randomness.
pub struct Engine {
    kind: EngineKind,
    rng: ChaCha8Rng,
    /// `perfect` draws among equally good moves from `rng` (else it takes
    /// the lowest).
    random_ties: bool,
    time_limit: Option<Duration>,
    hash_mb: u32,
    progress: Option<ProgressFn>,
}

impl fmt::Debug for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Engine")
            .field("kind", &self.kind)
            .field("time_limit", &self.time_limit)
            .field("hash_mb", &self.hash_mb)
            .field("progress", &self.progress.is_some())
            .finish_non_exhaustive()
    }
}

impl Engine {
    /// An engine of `kind` whose random choices come from `seed`, searching
    /// without a time limit, with a [`DEFAULT_HASH_MB`] table.
    #[must_use]
    pub fn new(kind: EngineKind, seed: u64) -> Engine {
        Engine {
            kind,
            rng: ChaCha8Rng::seed_from_u64(seed),
            random_ties: false,
            time_limit: None,
            hash_mb: DEFAULT_HASH_MB,
            progress: None,
        }
    }

    /// Gives each `perfect` search a transposition table of `megabytes` MiB
    /// (clamped to [`MIN_HASH_MB`]..=[`MAX_HASH_MB`]), so its memory is
    /// bounded however long it searches; a smaller table only costs time.
    #[must_use]
    pub fn hash_mb(mut self, megabytes: u32) -> Engine {
        self.hash_mb = megabytes.clamp(MIN_HASH_MB, MAX_HASH_MB);
        self
    }

    /// Has `perfect` choose at random (from the engine's seed) among the
    /// moves it proves equally good, instead of the lowest: a graded game
    /// against it cannot be known in advance, so no table of positions
    /// covers it, while every move it plays is still perfect.
    #[must_use]
    pub fn random_ties(mut self) -> Engine {
        self.random_ties = true;
        self
    }

    /// Limits each `perfect` choice to `limit` of search (`None`: search until
    /// the value is proven). When time runs out the engine plays the best
    /// move of the deepest step it finished, and says the value is unknown.
    /// `strong` searches as many positions as `limit` is worth (a second's
    /// with `None`; see its module).
    #[must_use]
    pub fn time_limit(mut self, limit: Option<Duration>) -> Engine {
        self.time_limit = limit;
        self
    }

    /// Has `progress` told, now and then, how a `perfect` search goes (for a
    /// spinner).
    #[must_use]
    pub fn on_progress(mut self, progress: impl FnMut(Progress) + Send + 'static) -> Engine {
        self.progress = Some(Box::new(progress));
        self
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
            EngineKind::Rules => {
                Choice { square: rules::choose(game, &mut self.rng), value: None, search: None }
            }
            EngineKind::Minimax => Choice { square: minimax::choose(game), value: None, search: None },
            EngineKind::Random => {
                Choice { square: random::choose(game, &mut self.rng), value: None, search: None }
            }
            EngineKind::Strong => {
                let (square, _) = strong::choose(game, self.time_limit, &mut self.rng);
                Choice { square, value: None, search: None }
            }
            EngineKind::Perfect => {
                let started = Instant::now();
                let limits = perfect::Limits {
                    started,
                    deadline: self.time_limit.map(|limit| started + limit),
                    progress: self.progress.as_mut().map(|p| p.as_mut() as &mut dyn FnMut(Progress)),
                    hash_mb: self.hash_mb,
                    ties: if self.random_ties { Some(&mut self.rng) } else { None },
                };
                let (square, value, search) = perfect::choose(game, limits);
                if let Some(progress) = self.progress.as_mut() {
                    let (depth, nodes, elapsed) = (search.depth, search.nodes, started.elapsed());
                    progress(Progress { depth, nodes, elapsed, done: true });
                }
                Choice { square, value, search: Some(search) }
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
        let name = self.kind.name();
        let max = match self.kind {
            EngineKind::Rules | EngineKind::Minimax | EngineKind::Random => SCAN_MAX_CELLS,
            EngineKind::Perfect => MAX_CELLS,
            EngineKind::Strong => u64::MAX,
        };
        if cells > max {
            return Err(EngineError::BoardTooBig { engine: name, max, cells });
        }
        if self.kind == EngineKind::Perfect && game.board().geometry().rule() == crate::board::WinRule::Exact
        {
            // Its bitboard lines are runs of exactly K squares: an overline
            // holds one, so it would count an overline as a win.
            return Err(EngineError::ExactRule(name));
        }
        let any_players = matches!(self.kind, EngineKind::Rules | EngineKind::Random);
        if !any_players && game.players().len() != 2 {
            return Err(EngineError::TwoPlayersOnly(name));
        }
        Ok(())
    }
}

/// The table each of [`move_values`]' searches shares, in MiB.
const VALUES_HASH_MB: u32 = 64;

/// The proven value of every move of the player to move in `game`, for
/// that player, square by square in order: the moves worth the most are the
/// ones a perfect player may choose among.
///
/// # Errors
/// [`EngineError`]: the game is over, or `perfect` cannot play it (more than
/// 64 squares, more than two players).
pub fn move_values(game: &Game) -> Result<Vec<(Square, Value)>, EngineError> {
    Engine::new(EngineKind::Perfect, 0).check(game)?;
    if game.outcome().is_some() {
        return Err(EngineError::GameOver);
    }
    Ok(perfect::values(game, VALUES_HASH_MB))
}

/// The value of the position in `game` for the player to move, with perfect
/// play (two players, at most 64 squares, game not over).
#[must_use]
pub fn solve(game: &Game) -> Value {
    solve_counting(game).0
}

/// As [`solve`], also returning how many positions the search visited (for
/// benchmarks: positions per second).
#[must_use]
pub fn solve_counting(game: &Game) -> (Value, u64) {
    let limits = perfect::Limits {
        started: Instant::now(),
        deadline: None,
        progress: None,
        hash_mb: DEFAULT_HASH_MB,
        ties: None,
    };
    let (_, value, search) = perfect::choose(game, limits);
    (value.expect("a search without a time limit proves the value"), search.nodes)
}
