//! The contract between the arena and its participants: an [`Entrant`]
//! takes a [`Seat`] in each game it plays, and a seat answers each
//! [`Position`] with one line, as the bot protocol's bots do (FORMAT.md,
//! "Matches and tournaments"). Engines and bots are both entrants; judging
//! what a seat answers is the arena's job, never the seat's.

use std::fmt::{self, Write as _};
use std::time::Duration;

use serde::Serialize;

use super::game_clock::Clock;
use crate::board::{Geometry, Square};
use crate::game::Game;
use crate::player::Mark;

/// A participant: makes a player for each game it is seated in.
pub trait Entrant: Send + Sync {
    /// Its name in records and standings.
    fn name(&self) -> &str;
    /// A player for one game, seated as `seat` (0-based turn order). Err = it could not even start: a forfeit.
    fn join(&self, setup: &Setup, seat: usize) -> Result<Box<dyn Seat>, Forfeit>;
    /// Whether its moves follow from the game's setup and position alone
    /// (an engine, seeded from the game's seed), so the moves a record says
    /// it made can be checked by asking it again. A bot's cannot.
    fn replays(&self) -> bool {
        false
    }
    /// Whether its seats are processes of their own, slow to start and to
    /// end (a bot's run in its container): a game starts and ends such
    /// seats side by side.
    fn runs_apart(&self) -> bool {
        false
    }
}

/// One participant's player in one game.
pub trait Seat: Send {
    /// Its answer to the position, as the bot protocol's one line (e.g. "5"), or why it forfeits
    /// (time, exited, output closed, a sandbox limit) — judging the answer's text is the arena's job, not the seat's.
    fn answer(&mut self, position: &Position) -> Result<String, Forfeit>;
    /// The game is over: close its input, let it exit (a short grace), and say what it left (its stderr, capped).
    fn finish(self: Box<Self>) -> Finished;
}

/// What every seat of one game is told before it starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    /// The board: rows, columns and marks in a row to win.
    pub geometry: Geometry,
    /// The players' marks in turn order (`X`, `O`, then `Z`, … with more).
    pub marks: Vec<Mark>,
    /// The game's number in its match or tournament, from 1.
    pub game: u64,
    /// The game's own seed (derived from `--seed` and the number), for the
    /// random choices of whoever wants some.
    pub seed: u64,
    /// The time each answer may take (`--move-time`).
    pub move_time: Duration,
    /// Each player's game clock (`--clock`), if the game has one: an
    /// answer may take at most what is left on it too.
    pub clock: Option<Clock>,
    /// How long the game may wait on others besides its seats' answers:
    /// zero in a match; at `play`'s console, a person's turns. A bot's run
    /// may last that much longer.
    pub waiting: Duration,
}

/// The position a seat is asked to answer: the game so far, with the bot
/// protocol's line ([`Position::line`]) made from it.
#[derive(Clone, Debug)]
pub struct Position {
    game: Game,
}

impl Position {
    /// The position of `game` (not over), for its player to move.
    #[must_use]
    pub fn new(game: &Game) -> Position {
        Position { game: game.clone() }
    }

    /// The game as it stands, for players that run in-process (the engines).
    #[must_use]
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The board.
    #[must_use]
    pub fn geometry(&self) -> Geometry {
        self.game.board().geometry()
    }

    /// The mark of the player to move.
    #[must_use]
    pub fn mark(&self) -> Mark {
        self.game.players().get(self.game.next_player()).mark
    }

    /// Every player's mark, in turn order.
    #[must_use]
    pub fn marks(&self) -> Vec<Mark> {
        self.game.players().iter().map(|(_, p)| p.mark).collect()
    }

    /// The board's squares row by row from the top left, each a mark or `.`.
    #[must_use]
    pub fn board(&self) -> String {
        let board = self.game.board();
        let players = self.game.players();
        (0..board.geometry().cells())
            .map(|i| board.get(Square::from_index(i)).map_or('.', |p| players.get(p).mark.char()))
            .collect()
    }

    /// The bot protocol's line, without its line end: `ROWS COLS WIN MARK
    /// ORDER BOARD`, such as `3 3 3 O XO X...X....`.
    #[must_use]
    pub fn line(&self) -> String {
        let g = self.geometry();
        let mut line = format!("{} {} {} {} ", g.rows(), g.cols(), g.win(), self.mark());
        for mark in self.marks() {
            line.push(mark.char());
        }
        let _ = write!(line, " {}", self.board());
        line
    }
}

/// Why a player lost the game without finishing it: the kind, and the
/// detail a person needs to see what happened.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{kind}: {detail}")]
pub struct Forfeit {
    /// Which rule it broke.
    pub kind: ForfeitKind,
    /// What exactly happened, in words (one line).
    pub detail: String,
}

impl Forfeit {
    /// A forfeit of `kind`, saying `detail`.
    #[must_use]
    pub fn new(kind: ForfeitKind, detail: impl Into<String>) -> Forfeit {
        Forfeit { kind, detail: detail.into() }
    }
}

/// The ways to forfeit a game, as the records and `results.json` name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ForfeitKind {
    /// It answered a square that already holds a mark.
    #[serde(rename = "taken-square")]
    Taken,
    /// It answered a number that is no square of the board.
    OffBoard,
    /// Its answer was not a number.
    NotANumber,
    /// It did not answer within the move time.
    Time,
    /// It exited, or crashed, before the game ended.
    Exited,
    /// It closed its standard output before answering.
    OutputClosed,
    /// It was stopped at a limit of the sandbox (memory, output, processes…).
    Limit,
    /// It was killed (`SIGKILL`) by someone other than the referee, at no
    /// limit of the sandbox.
    Killed,
    /// Not the bot's: the sandbox could not give its run every protection
    /// the grading started with, and refused it. Never recorded or
    /// counted: a game that ends so stops the event
    /// ([`EventError::Unprotected`](super::EventError::Unprotected)), so
    /// it is not in [`ForfeitKind::ALL`] and no record can name it.
    Unprotected,
}

impl ForfeitKind {
    /// Every kind, in the order reports list them.
    pub const ALL: [ForfeitKind; 8] = [
        ForfeitKind::Taken,
        ForfeitKind::OffBoard,
        ForfeitKind::NotANumber,
        ForfeitKind::Time,
        ForfeitKind::Exited,
        ForfeitKind::OutputClosed,
        ForfeitKind::Limit,
        ForfeitKind::Killed,
    ];

    /// The kind's name in records and `results.json`: `taken-square`,
    /// `off-board`, `not-a-number`, `time`, `exited`, `output-closed`,
    /// `limit`, `killed`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            ForfeitKind::Taken => "taken-square",
            ForfeitKind::OffBoard => "off-board",
            ForfeitKind::NotANumber => "not-a-number",
            ForfeitKind::Time => "time",
            ForfeitKind::Exited => "exited",
            ForfeitKind::OutputClosed => "output-closed",
            ForfeitKind::Limit => "limit",
            ForfeitKind::Killed => "killed",
            ForfeitKind::Unprotected => "unprotected",
        }
    }

    /// The kind named `name` (as [`ForfeitKind::name`] writes it).
    #[must_use]
    pub fn from_name(name: &str) -> Option<ForfeitKind> {
        ForfeitKind::ALL.into_iter().find(|kind| kind.name() == name)
    }

    /// What the kind means, in one line.
    #[must_use]
    pub fn meaning(self) -> &'static str {
        match self {
            ForfeitKind::Taken => "it answered a square that already holds a mark",
            ForfeitKind::OffBoard => "it answered a number that is no square of the board",
            ForfeitKind::NotANumber => "its answer was not a square number",
            ForfeitKind::Time => "it did not answer within the move time",
            ForfeitKind::Exited => "it exited or crashed before the game ended",
            ForfeitKind::OutputClosed => "it closed its standard output",
            ForfeitKind::Limit => "it was stopped at a limit of the sandbox",
            ForfeitKind::Killed => "it was killed by someone other than the referee",
            ForfeitKind::Unprotected => {
                "the sandbox could not protect its run as promised (not the bot's doing)"
            }
        }
    }
}

impl fmt::Display for ForfeitKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a player left when its game was over.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Finished {
    /// The end of its standard error (already capped by the seat); empty
    /// for an engine.
    pub stderr: String,
    /// Why its run, checked once over, had less protection than the
    /// grading started with, if it had: its game judges nothing.
    pub unprotected: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Storage;
    use crate::game::Move;
    use crate::player::{PlayerId, Players};

    #[test]
    fn the_protocol_line_is_rows_cols_win_mark_order_board() {
        let mut game = Game::new(Players::classic("a", "b"), Geometry::CLASSIC, Storage::Auto);
        assert_eq!(Position::new(&game).line(), "3 3 3 X XO .........");
        game.play_unchecked(Move { player: PlayerId::new(0), square: Square::from_index(0) });
        game.play_unchecked(Move { player: PlayerId::new(1), square: Square::from_index(4) });
        game.play_unchecked(Move { player: PlayerId::new(0), square: Square::from_index(4 + 4) });
        // The example: O to move.
        assert_eq!(Position::new(&game).line(), "3 3 3 O XO X...O...X");
        let wide = Game::new(Players::classic("a", "b"), Geometry::new(2, 4, 2).unwrap(), Storage::Auto);
        assert_eq!(Position::new(&wide).line(), "2 4 2 X XO ........");
    }

    #[test]
    fn forfeit_kinds_round_trip_their_names_and_serialize_as_named() {
        for kind in ForfeitKind::ALL {
            assert_eq!(ForfeitKind::from_name(kind.name()), Some(kind));
            assert_eq!(serde_json::to_string(&kind).unwrap(), format!("\"{}\"", kind.name()));
            assert!(!kind.meaning().is_empty());
        }
        assert_eq!(ForfeitKind::from_name("late"), None);
        assert_eq!(
            Forfeit::new(ForfeitKind::Time, "no answer within 1 s").to_string(),
            "time: no answer within 1 s"
        );
    }
}
