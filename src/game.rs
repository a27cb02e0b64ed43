//! The rule engine: rules on each move in the fixed order of the spec, keeps
//! the board and whose turn it is, and says when the game is over.
//!
//! A move breaks at most one rule: the first in this order is reported,
//! [`Violation::IllegalPlayer`], [`Violation::IllegalSquare`],
//! [`Violation::DoubleMove`], [`Violation::OutOfTurn`] (three or more players
//! only), [`Violation::MarkedSquare`]. A move that breaks a rule changes
//! nothing: not the board, not whose turn it is.

use std::fmt;

use crate::board::{Board, Geometry, Square, Storage};
use crate::player::{PlayerId, Players};

/// The rule a move breaks. Its [`fmt::Display`] is the transcript's message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Violation {
    /// The label is not a declared mark.
    IllegalPlayer,
    /// The square is not a number from 1 to rows × columns.
    IllegalSquare,
    /// The player made the last valid move too.
    DoubleMove,
    /// With three or more players: not the next player in the cyclic order.
    OutOfTurn,
    /// The square already holds a mark.
    MarkedSquare,
    /// The game has ended; no move is legal. The referee never reads a move
    /// after the end, so no transcript shows this.
    GameOver,
}

impl Violation {
    /// The message the transcript prints after the move's two fields.
    #[must_use]
    pub fn message(self) -> &'static str {
        match self {
            Violation::IllegalPlayer => "illegal player",
            Violation::IllegalSquare => "illegal square",
            Violation::DoubleMove => "double move",
            Violation::OutOfTurn => "out of turn",
            Violation::MarkedSquare => "marked square",
            Violation::GameOver => "game over",
        }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

/// How a finished game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// The player completed a winning line.
    Win(PlayerId),
    /// The board filled with no winning line: a "cat" game.
    Cat,
}

/// A legal move: who plays, and where.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    /// The player moving.
    pub player: PlayerId,
    /// The square taken.
    pub square: Square,
}

/// A game in progress or finished, refereed one move at a time.
#[derive(Clone, Debug)]
pub struct Game {
    players: Players,
    board: Board,
    last: Option<PlayerId>,
    outcome: Option<Outcome>,
}

impl Game {
    /// A new game on an empty board.
    #[must_use]
    pub fn new(players: Players, geometry: Geometry, storage: Storage) -> Game {
        Game { players, board: Board::new(geometry, storage), last: None, outcome: None }
    }

    /// The players, in turn order.
    #[must_use]
    pub fn players(&self) -> &Players {
        &self.players
    }

    /// The board as it stands.
    #[must_use]
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// How many valid moves have been made.
    #[must_use]
    pub fn moves_made(&self) -> u64 {
        self.board.filled()
    }

    /// How the game ended, or `None` while it goes on.
    #[must_use]
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    /// Who made the last valid move, if anyone has.
    #[must_use]
    pub fn last_mover(&self) -> Option<PlayerId> {
        self.last
    }

    /// Who must move next; `None` before the first valid move, which anyone
    /// may make.
    #[must_use]
    pub fn to_move(&self) -> Option<PlayerId> {
        self.last.map(|last| self.players.next_after(last))
    }

    /// Who moves next in a game that computer players drive: the player after
    /// the last mover, or the first declared player before any move.
    #[must_use]
    pub fn next_player(&self) -> PlayerId {
        self.to_move().unwrap_or(PlayerId::new(0))
    }

    /// The legal moves of [`Game::next_player`]: every empty square in
    /// ascending order, none once the game is over.
    pub fn legal_moves(&self) -> impl Iterator<Item = Move> + '_ {
        let player = self.next_player();
        let cells = if self.outcome.is_some() { 0 } else { self.board.geometry().cells() };
        (0..cells)
            .map(Square::from_index)
            .filter(|&square| self.board.get(square).is_none())
            .map(move |square| Move { player, square })
    }

    /// Rules on the move `label square`, with both fields as a move file
    /// writes them, without playing it.
    ///
    /// # Errors
    /// The first [`Violation`] the move commits, in the spec's order.
    pub fn check(&self, label: &str, square: &str) -> Result<Move, Violation> {
        if self.outcome.is_some() {
            return Err(Violation::GameOver);
        }
        let player = self.players.find(label).ok_or(Violation::IllegalPlayer)?;
        let square = self.board.geometry().parse_square(square).ok_or(Violation::IllegalSquare)?;
        if self.last == Some(player) {
            return Err(Violation::DoubleMove);
        }
        if self.to_move().is_some_and(|next| next != player) {
            return Err(Violation::OutOfTurn);
        }
        if self.board.get(square).is_some() {
            return Err(Violation::MarkedSquare);
        }
        Ok(Move { player, square })
    }

    /// Rules on `label square` and, if it is legal, plays it.
    ///
    /// # Errors
    /// The first [`Violation`] the move commits; the game is then unchanged.
    pub fn play(&mut self, label: &str, square: &str) -> Result<Move, Violation> {
        let mv = self.check(label, square)?;
        self.play_unchecked(mv);
        Ok(mv)
    }

    /// Plays `mv`, which must be legal (from [`Game::check`] or a search that
    /// only generates legal moves), and returns the outcome if it ends the game.
    ///
    /// # Panics
    /// If the square is already marked.
    pub fn play_unchecked(&mut self, mv: Move) -> Option<Outcome> {
        self.board.set(mv.square, mv.player);
        self.last = Some(mv.player);
        if self.board.wins_through(mv.square, mv.player) {
            self.outcome = Some(Outcome::Win(mv.player));
        } else if self.board.is_full() {
            self.outcome = Some(Outcome::Cat);
        }
        self.outcome
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::player::{Mark, Player};

    fn classic() -> Game {
        Game::new(Players::classic("a", "b"), Geometry::CLASSIC, Storage::Auto)
    }

    fn three_players() -> Game {
        let players =
            "XOZ".chars().map(|c| Player { mark: Mark::new(c).unwrap(), name: c.to_string() }).collect();
        Game::new(Players::new(players).unwrap(), Geometry::new(4, 4, 3).unwrap(), Storage::Auto)
    }

    #[test]
    fn rules_are_checked_in_order() {
        let mut g = classic();
        assert_eq!(g.play("Z", "0"), Err(Violation::IllegalPlayer));
        assert_eq!(g.play("X", "0"), Err(Violation::IllegalSquare));
        g.play("X", "5").unwrap();
        assert_eq!(g.play("X", "10"), Err(Violation::IllegalSquare));
        assert_eq!(g.play("X", "5"), Err(Violation::DoubleMove));
        assert_eq!(g.play("O", "5"), Err(Violation::MarkedSquare));
        assert_eq!(g.moves_made(), 1);
    }

    #[test]
    fn a_violation_changes_nothing() {
        let mut g = classic();
        g.play("O", "1").unwrap();
        let before = format!("{:?}", g.board());
        assert_eq!(g.play("O", "2"), Err(Violation::DoubleMove));
        assert_eq!(format!("{:?}", g.board()), before);
        assert_eq!(g.to_move(), g.players().find("X"));
    }

    #[test]
    fn either_player_may_start() {
        let mut g = classic();
        assert_eq!(g.to_move(), None);
        assert!(g.play("O", "1").is_ok());
        assert!(g.play("X", "2").is_ok());
    }

    #[test]
    fn wins_and_cat_end_the_game() {
        let mut g = classic();
        for (l, s) in [("X", "1"), ("O", "4"), ("X", "2"), ("O", "5")] {
            assert_eq!(g.play(l, s).map(|_| g.outcome()), Ok(None));
        }
        g.play("X", "3").unwrap();
        assert_eq!(g.outcome(), Some(Outcome::Win(PlayerId::new(0))));
        assert_eq!(g.play("O", "6"), Err(Violation::GameOver));

        let mut g = classic();
        for (i, s) in ["6", "9", "7", "4", "1", "3", "5", "2", "8"].iter().enumerate() {
            g.play(if i % 2 == 0 { "X" } else { "O" }, s).unwrap();
        }
        assert_eq!(g.outcome(), Some(Outcome::Cat));
    }

    #[test]
    fn three_players_take_turns_cyclically_from_the_first_mover() {
        let mut g = three_players();
        g.play("O", "1").unwrap();
        assert_eq!(g.play("X", "2"), Err(Violation::OutOfTurn));
        assert_eq!(g.play("O", "2"), Err(Violation::DoubleMove));
        assert_eq!(g.play("Z", "1"), Err(Violation::MarkedSquare));
        g.play("Z", "2").unwrap();
        g.play("X", "3").unwrap();
        assert_eq!(g.to_move(), g.players().find("O"));
    }

    /// Counts the 3 × 3 game tree: nodes per ply, finished games by outcome,
    /// and distinct positions.
    fn perft(
        game: &Game,
        ply: usize,
        nodes: &mut [u64; 10],
        ends: &mut [u64; 3],
        seen: &mut std::collections::HashSet<String>,
    ) {
        nodes[ply] += 1;
        seen.insert(format!(
            "{:?}",
            (0..9).map(|i| game.board().get(Square::from_index(i))).collect::<Vec<_>>()
        ));
        match game.outcome() {
            Some(Outcome::Win(p)) => ends[p.index()] += 1,
            Some(Outcome::Cat) => ends[2] += 1,
            None => {
                for mv in game.legal_moves() {
                    let mut next = game.clone();
                    next.play_unchecked(mv);
                    perft(&next, ply + 1, nodes, ends, seen);
                }
            }
        }
    }

    #[test]
    fn the_move_generator_matches_the_published_counts() {
        let (mut nodes, mut ends, mut seen) = ([0; 10], [0; 3], std::collections::HashSet::new());
        perft(&classic(), 0, &mut nodes, &mut ends, &mut seen);
        assert_eq!(nodes, [1, 9, 72, 504, 3024, 15120, 54720, 148_176, 200_448, 127_872]);
        assert_eq!(ends, [131_184, 77_904, 46_080]);
        assert_eq!(ends.iter().sum::<u64>(), 255_168);
        assert_eq!(seen.len(), 5478);
    }

    #[test]
    fn out_of_turn_comes_before_marked_square() {
        let mut g = three_players();
        g.play("X", "1").unwrap();
        assert_eq!(g.play("Z", "1"), Err(Violation::OutOfTurn));
    }
}
