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

    /// Whose turn it is: the player after the last mover, or before the
    /// first valid move the first declared player, who moves first when the
    /// program chooses (consoles, engines). The rules let any player make
    /// the first move: see [`Game::is_legal`] and [`Game::legal_moves`].
    #[must_use]
    pub fn next_player(&self) -> PlayerId {
        self.last.map_or(PlayerId::new(0), |last| self.players.next_after(last))
    }

    /// Whether `player` may move now: anyone before the first valid move,
    /// then only [`Game::next_player`]; no one once the game is over.
    fn may_move(&self, player: PlayerId) -> bool {
        self.outcome.is_none() && (self.last.is_none() || player == self.next_player())
    }

    /// Every legal move, by player in turn order and then by square in
    /// ascending order: before the first valid move every player's (any
    /// player may move first), then those of [`Game::next_player`]; none once
    /// the game is over.
    pub fn legal_moves(&self) -> impl Iterator<Item = Move> + '_ {
        self.players.iter().map(|(id, _)| id).flat_map(move |player| self.legal_moves_of(player))
    }

    /// The legal moves of `player`: every empty square in ascending order if
    /// it is a turn they may take, else none.
    pub fn legal_moves_of(&self, player: PlayerId) -> impl Iterator<Item = Move> + '_ {
        let cells = if self.may_move(player) { self.board.geometry().cells() } else { 0 };
        (0..cells)
            .map(Square::from_index)
            .filter(|&square| self.board.get(square).is_none())
            .map(move |square| Move { player, square })
    }

    /// The rule `mv` breaks, in the spec's order, or `Ok` if it is legal.
    fn rule_on(&self, mv: Move) -> Result<(), Violation> {
        if self.outcome.is_some() {
            return Err(Violation::GameOver);
        }
        if mv.player.index() >= self.players.len() {
            return Err(Violation::IllegalPlayer);
        }
        if mv.square.index() >= self.board.geometry().cells() {
            return Err(Violation::IllegalSquare);
        }
        if self.last == Some(mv.player) {
            return Err(Violation::DoubleMove);
        }
        if self.last.is_some() && mv.player != self.next_player() {
            return Err(Violation::OutOfTurn);
        }
        if self.board.get(mv.square).is_some() {
            return Err(Violation::MarkedSquare);
        }
        Ok(())
    }

    /// Whether `mv` breaks no rule now.
    #[must_use]
    pub fn is_legal(&self, mv: Move) -> bool {
        self.rule_on(mv).is_ok()
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
        let mv = Move { player, square };
        self.rule_on(mv).map(|()| mv)
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

    /// Rules on `mv` and, if it is legal, plays it, returning the outcome if
    /// it ends the game.
    ///
    /// # Errors
    /// The first [`Violation`] the move commits; the game is then unchanged.
    pub fn try_play(&mut self, mv: Move) -> Result<Option<Outcome>, Violation> {
        self.rule_on(mv)?;
        Ok(self.play_unchecked(mv))
    }

    /// Plays `mv`, which must be legal (from [`Game::check`], or a search
    /// that only generates legal moves: the fast path), and returns the outcome if it ends the game.
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
        assert_eq!(Some(g.next_player()), g.players().find("X"));
    }

    #[test]
    fn either_player_may_start() {
        let mut g = classic();
        assert_eq!(g.legal_moves().count(), 18);
        assert!(g.play("O", "1").is_ok());
        assert!(g.play("X", "2").is_ok());
    }

    #[test]
    fn an_overline_does_not_end_the_game_under_the_exact_rule() {
        use crate::board::WinRule;
        for (rule, ends) in [(WinRule::AtLeast, true), (WinRule::Exact, false)] {
            let g = Geometry::new(5, 5, 3).unwrap().with_rule(rule);
            let mut game = Game::new(Players::classic("a", "b"), g, Storage::Auto);
            // X at 1, 2, 4, 5 of the top row (O elsewhere), then 3 makes five.
            for (l, s) in
                [("X", "1"), ("O", "11"), ("X", "2"), ("O", "13"), ("X", "4"), ("O", "25"), ("X", "5")]
            {
                game.play(l, s).unwrap();
            }
            game.play("O", "23").unwrap();
            assert_eq!(game.outcome(), None);
            game.play("X", "3").unwrap();
            assert_eq!(game.outcome().is_some(), ends, "{rule:?}");
        }
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
        assert_eq!(Some(g.next_player()), g.players().find("O"));
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
                // X moves first, as in the published counts.
                for mv in game.legal_moves_of(game.next_player()) {
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

    /// Asserts that the typed rules agree with the move file's: for every
    /// declared player and one undeclared, and every square and one beyond
    /// the board, `try_play` breaks the rule `check` reports (or neither
    /// breaks one), `is_legal` says the same, and a refused move changes
    /// nothing.
    fn typed_agrees_with_check(game: &Game) -> Result<(), String> {
        let cells = game.board().geometry().cells();
        for player in (0..=game.players().len()).map(PlayerId::new) {
            let label = if player.index() < game.players().len() {
                game.players().get(player).mark.to_string()
            } else {
                "?".to_owned()
            };
            for square in (0..=cells).map(Square::from_index) {
                let mv = Move { player, square };
                let checked = game.check(&label, &square.number().to_string()).map(|_| ());
                let mut after = game.clone();
                let tried = after.try_play(mv).map(|_| ());
                if tried != checked || game.is_legal(mv) != checked.is_ok() {
                    return Err(format!(
                        "{label} {}: check {checked:?}, try_play {tried:?}",
                        square.number()
                    ));
                }
                let unchanged = format!("{:?}", (after.board(), after.last_mover(), after.outcome()))
                    == format!("{:?}", (game.board(), game.last_mover(), game.outcome()));
                if tried.is_ok() == unchanged {
                    return Err(format!(
                        "{label} {}: played {tried:?}, unchanged {unchanged}",
                        square.number()
                    ));
                }
            }
        }
        Ok(())
    }

    #[test]
    fn try_play_agrees_with_check_in_every_reachable_classic_position() {
        // Either player may move first, so this reaches O-first games too.
        let mut seen = std::collections::HashSet::new();
        let mut todo = vec![classic()];
        while let Some(game) = todo.pop() {
            let key = format!("{:?}", (game.board(), game.last_mover()));
            if !seen.insert(key) {
                continue;
            }
            typed_agrees_with_check(&game).unwrap();
            for mv in game.legal_moves().collect::<Vec<_>>() {
                let mut next = game.clone();
                next.try_play(mv).unwrap();
                todo.push(next);
            }
        }
        // 5,478 positions with X first, as many with O first less the empty
        // board, told apart by who moved last.
        assert_eq!(seen.len(), 5478 + 5477);
    }

    #[test]
    fn legal_moves_before_the_first_move_are_every_players() {
        for game in [classic(), three_players()] {
            let cells = game.board().geometry().cells();
            let moves: Vec<Move> = game.legal_moves().collect();
            assert_eq!(moves.len() as u64, cells * game.players().len() as u64);
            for (player, _) in game.players().iter() {
                assert_eq!(moves.iter().filter(|m| m.player == player).count() as u64, cells);
                assert!(game.is_legal(Move { player, square: Square::from_index(0) }));
            }
        }
        let mut g = three_players();
        g.play("Z", "1").unwrap();
        let moves: Vec<Move> = g.legal_moves().collect();
        assert!(moves.iter().all(|m| Some(m.player) == g.players().find("X")), "{moves:?}");
        assert_eq!(moves.len(), 15);
    }

    #[test]
    fn try_play_reports_each_rule() {
        let mut g = three_players();
        let (x, o, z) = (PlayerId::new(0), PlayerId::new(1), PlayerId::new(2));
        let at = Square::from_index;
        assert_eq!(
            g.try_play(Move { player: PlayerId::new(3), square: at(0) }),
            Err(Violation::IllegalPlayer)
        );
        assert_eq!(g.try_play(Move { player: o, square: at(16) }), Err(Violation::IllegalSquare));
        assert_eq!(g.try_play(Move { player: o, square: at(0) }), Ok(None));
        assert_eq!(g.try_play(Move { player: o, square: at(1) }), Err(Violation::DoubleMove));
        assert_eq!(g.try_play(Move { player: x, square: at(1) }), Err(Violation::OutOfTurn));
        assert_eq!(g.try_play(Move { player: z, square: at(0) }), Err(Violation::MarkedSquare));
        assert_eq!(g.next_player(), z);
    }

    proptest::proptest! {
        #[test]
        fn try_play_agrees_with_check_on_random_variant_positions(
            rows in 1u32..6,
            cols in 1u32..6,
            win in 1u32..6,
            count in 2usize..5,
            picks in proptest::collection::vec(0usize..1000, 0..30),
        ) {
            let Ok(geometry) = Geometry::new(rows, cols, win) else { return Ok(()) };
            let players = "XOZAB"
                .chars()
                .take(count)
                .map(|c| Player { mark: Mark::new(c).unwrap(), name: c.to_string() })
                .collect();
            let mut game = Game::new(Players::new(players).unwrap(), geometry, Storage::Auto);
            typed_agrees_with_check(&game).map_err(proptest::test_runner::TestCaseError::fail)?;
            for pick in picks {
                let moves: Vec<Move> = game.legal_moves().collect();
                if moves.is_empty() {
                    break;
                }
                game.try_play(moves[pick % moves.len()]).unwrap();
                typed_agrees_with_check(&game).map_err(proptest::test_runner::TestCaseError::fail)?;
            }
        }
    }

    #[test]
    fn out_of_turn_comes_before_marked_square() {
        let mut g = three_players();
        g.play("X", "1").unwrap();
        assert_eq!(g.play("Z", "1"), Err(Violation::OutOfTurn));
    }
}
