//! The `uri` console profile: URI CSC 212 Deep Dive 4's program, the URI CSC 212 deep
//! dive, exactly as its starter code prints and reads (FORMAT.md, "Consoles",
//! has every line).
//!
//! ```text
//!
//! WELCOME! Player 1 = X, AI = O
//!
//!
//!      |     |
//!   1  |  2  |  3
//! _____|_____|_____
//!      |     |
//!   4  |  5  |  6
//! _____|_____|_____
//!      |     |
//!   7  |  8  |  9
//!      |     |
//!
//! Player 1 make your move:
//! ```
//!
//! The spacer lines keep their trailing spaces (five after each `|`). A
//! person's answer is read as the starter reads it: one byte, then one byte
//! skipped (meant for the newline), so `12` plays 1 and leaves the newline to
//! be read, and refused, next. A refused answer prints `\nInvalid move! Try
//! again: `. The AI (`minimax`) chooses as the starter's `minimax_move` does
//! (see [`starter_move`]). At the end of the input the original loops
//! forever; the profile prints a newline and stops, the game unfinished.

use std::io::{BufRead, Write};

use super::dialect::{Decider, Dialect, Setting, Typing, square_number};
use super::{Answer, Console, Dialogue, PlayError, Refusal, Setup, Side};
use crate::board::{Geometry, Square};
use crate::engine::{Engine, EngineKind};
use crate::game::{Game, Move, Outcome};
use crate::player::PlayerId;

/// What the starter prints before its AI's square.
const AI_MOVE: &str = "AI's move:";

/// URI CSC 212 Deep Dive 4's dialect: every line is the starter's, and its
/// AI's moves are the starter's own.
pub struct UriDialect;

impl Dialect for UriDialect {
    fn console<'a>(
        &self,
        setting: Setting,
        input: Box<dyn BufRead + 'a>,
        output: Box<dyn Write + 'a>,
    ) -> Box<dyn Console + 'a> {
        let uri = Uri::new(setting.sides, input, output);
        setting.drive(uri)
    }

    /// The starter's AI is its minimax.
    fn default_second(&self) -> Side {
        Side::Engine(EngineKind::Minimax)
    }

    /// The starter plays its AI (as O) exactly when it is given one
    /// argument.
    fn program_args(&self, sides: [Side; 2]) -> &'static [&'static str] {
        match sides {
            [Side::Human, Side::Engine(_)] => &["ai"],
            _ => &[],
        }
    }

    fn computer(&self) -> &'static str {
        "the AI"
    }

    fn announced_move<'l>(&self, line: &'l str) -> Option<&'l str> {
        line.strip_prefix(AI_MOVE)
    }

    fn allowed(&self, game: &Game, _own: Square) -> (Vec<Square>, Decider) {
        (vec![starter_move(game)], Decider::Starter)
    }

    /// One byte a square: `0` is refused.
    fn typing(&self) -> &'static Typing {
        &Typing { setup: &[], junk: &["0"], square: square_number, decline: None, shortest: true }
    }
}

/// URI CSC 212 Deep Dive 4's console: one game on the classic board.
pub struct Uri<R, W> {
    sides: [Side; 2],
    input: R,
    output: W,
}

impl<R: BufRead, W: Write> Uri<R, W> {
    /// The console over `input` and `output`, player 1 (X) and player 2 (O)
    /// played by `sides`.
    pub fn new(sides: [Side; 2], input: R, output: W) -> Uri<R, W> {
        Uri { sides, input, output }
    }

    /// The starter's `draw_board`: a blank line, each row between spacer
    /// lines, free squares shown by their number, and a blank line.
    fn board(&mut self, game: &Game) -> Result<(), PlayError> {
        let geometry = game.board().geometry();
        let mut text = String::from("\n");
        for row in 0..geometry.rows() {
            if row > 0 {
                text.push_str("_____|_____|_____\n");
            }
            text.push_str("     |     |     \n");
            let cells: Vec<String> = (0..geometry.cols())
                .map(|col| {
                    let square = geometry.square(row, col).expect("on the board");
                    match game.board().get(square) {
                        Some(player) => game.players().get(player).mark.to_string(),
                        None => square.number().to_string(),
                    }
                })
                .collect();
            text.push_str("  ");
            text.push_str(&cells.join("  |  "));
            text.push('\n');
        }
        text.push_str("     |     |     \n\n");
        self.output.write_all(text.as_bytes())?;
        Ok(())
    }

    /// What the banner calls the side of player `index` (from 0).
    fn banner_name(&self, index: usize) -> String {
        match self.sides[index] {
            Side::Human => format!("Player {}", index + 1),
            Side::Engine(_) | Side::Program => "AI".to_owned(),
        }
    }

    /// One byte of input, as `cin.get` reads it; `None` at the end.
    fn get(&mut self) -> Result<Option<u8>, PlayError> {
        let buffer = self.input.fill_buf().map_err(PlayError::Input)?;
        let Some(&byte) = buffer.first() else { return Ok(None) };
        self.input.consume(1);
        Ok(Some(byte))
    }
}

impl<R: BufRead, W: Write> Dialogue for Uri<R, W> {
    fn setup(&mut self) -> Result<Option<Setup>, PlayError> {
        Ok(Some(Setup::two(self.sides, Geometry::CLASSIC)))
    }

    fn begin(&mut self, _game: &Game) -> Result<(), PlayError> {
        let banner = format!("\nWELCOME! {} = X, {} = O\n\n", self.banner_name(0), self.banner_name(1));
        Ok(self.output.write_all(banner.as_bytes())?)
    }

    /// The board, and a person's prompt (once a turn: a refusal asks again
    /// in its own words).
    fn turn(&mut self, game: &Game) -> Result<(), PlayError> {
        self.board(game)?;
        let player = game.next_player();
        if self.sides[player.index()] == Side::Human {
            write!(self.output, "Player {} make your move: ", player.index() + 1)?;
        }
        Ok(())
    }

    /// The AI as `minimax` is the starter's own [`starter_move`].
    fn choose(&mut self, game: &Game, engine: &mut Engine) -> Result<Square, PlayError> {
        if self.sides[game.next_player().index()] == Side::Engine(EngineKind::Minimax) {
            return Ok(starter_move(game));
        }
        Ok(engine.choose(game)?.square)
    }

    fn announce(&mut self, _game: &Game, mv: Move) -> Result<(), PlayError> {
        Ok(writeln!(self.output, "{AI_MOVE} {}", mv.square.number())?)
    }

    /// One byte, then one byte skipped (`cin.ignore()`, whatever it is).
    fn ask(&mut self, _game: &Game) -> Result<Answer, PlayError> {
        self.output.flush()?;
        let Some(byte) = self.get()? else { return Ok(Answer::End) };
        self.get()?;
        Ok(if (b'1'..=b'9').contains(&byte) {
            Answer::Square(Square::from_index(u64::from(byte - b'1')))
        } else {
            Answer::Unreadable
        })
    }

    fn refuse(&mut self, _game: &Game, _why: Refusal) -> Result<(), PlayError> {
        Ok(write!(self.output, "\nInvalid move! Try again: ")?)
    }

    fn input_ended(&mut self) -> Result<(), PlayError> {
        Ok(writeln!(self.output)?)
    }

    fn end(&mut self, game: &Game, outcome: Outcome) -> Result<(), PlayError> {
        self.board(game)?;
        match outcome {
            Outcome::Win(p) => writeln!(self.output, "Player {} wins!", p.index() + 1)?,
            Outcome::Cat => writeln!(self.output, "It's a draw!")?,
        }
        Ok(())
    }
}

/// The square the starter's `minimax_move` takes for the player to move.
///
/// It tries each free square in order, asks URI CSC 212 Deep Dive 4's minimax for the value
/// of the position after it, and keeps the square whenever the value is below
/// `MAX_VAL`; its best value is never updated, so the last such square stays.
/// Every node's best value starts at a tie, so a value is a win for the
/// opponent exactly when the opponent could then win at once. So: the last
/// free square where the mover wins at once or leaves the opponent no
/// immediate win; failing that, the first free square. For an AI playing X
/// (ours; the original's AI is always O) the rule is mirrored.
#[must_use]
pub fn starter_move(game: &Game) -> Square {
    let me = game.next_player();
    let them = PlayerId::new(1 - me.index());
    let board = game.board();
    let free: Vec<Square> =
        (0..board.geometry().cells()).map(Square::from_index).filter(|&s| board.get(s).is_none()).collect();
    let keeps = |square: &Square| {
        if board.would_win(*square, me) {
            return true;
        }
        let mut after = game.clone();
        after.play_unchecked(Move { player: me, square: *square });
        !free.iter().any(|&other| other != *square && after.board().would_win(other, them))
    };
    free.iter().rev().copied().find(keeps).unwrap_or(free[0])
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::board::Storage;
    use crate::player::Players;

    const LINES: [[usize; 3]; 8] =
        [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]];

    /// 1 if X (player 1, MAX) has a line, -1 if O has, 0 if full, else none.
    fn terminal(cells: &[u8; 9]) -> Option<i32> {
        for [a, b, c] in LINES {
            if cells[a] != 0 && cells[a] == cells[b] && cells[b] == cells[c] {
                return Some(if cells[a] == 1 { 1 } else { -1 });
            }
        }
        (!cells.contains(&0)).then_some(0)
    }

    /// URI CSC 212 Deep Dive 4's `minimax_algo`, line by line: `just_moved` has just moved.
    fn minimax_algo(cells: &mut [u8; 9], just_moved: u8, depth: u32) -> i32 {
        if let Some(value) = terminal(cells) {
            return value;
        }
        let player = 3 - just_moved;
        let mut best = 0;
        if depth < 5 {
            for i in 0..9 {
                if cells[i] == 0 {
                    cells[i] = player;
                    let new = minimax_algo(cells, player, depth + 1);
                    cells[i] = 0;
                    best = if player == 1 { best.max(new) } else { best.min(new) };
                }
            }
        }
        best
    }

    /// The starter's `minimax_move` for O, and its mirror for X.
    fn literal_move(cells: &mut [u8; 9], mover: u8) -> usize {
        let free: Vec<usize> = (0..9).filter(|&i| cells[i] == 0).collect();
        let mut chosen = free[0];
        for &i in &free {
            cells[i] = mover;
            let value = minimax_algo(cells, mover, 0);
            cells[i] = 0;
            if (mover == 2 && value < 1) || (mover == 1 && value > -1) {
                chosen = i;
            }
        }
        chosen
    }

    /// Every position reachable in play with a move to make, X first.
    fn positions(cells: &mut [u8; 9], mover: u8, out: &mut BTreeSet<([u8; 9], u8)>) {
        if terminal(cells).is_some() || !out.insert((*cells, mover)) {
            return;
        }
        for i in 0..9 {
            if cells[i] == 0 {
                cells[i] = mover;
                positions(cells, 3 - mover, out);
                cells[i] = 0;
            }
        }
    }

    #[test]
    fn starter_move_is_the_starters_minimax_move_in_every_position() {
        let mut all = BTreeSet::new();
        positions(&mut [0; 9], 1, &mut all);
        let mut checked = 0;
        for (cells, mover) in all {
            let mut game = Game::new(Players::classic("a", "b"), Geometry::CLASSIC, Storage::Auto);
            // Replay the marks alternately; the order does not change the position.
            let xs: Vec<usize> = (0..9).filter(|&i| cells[i] == 1).collect();
            let os: Vec<usize> = (0..9).filter(|&i| cells[i] == 2).collect();
            for k in 0..xs.len().max(os.len()) {
                for (marks, player) in [(&xs, 0), (&os, 1)] {
                    if let Some(&i) = marks.get(k) {
                        let square = Square::from_index(i as u64);
                        game.play_unchecked(Move { player: PlayerId::new(player), square });
                    }
                }
            }
            let wanted = literal_move(&mut cells.clone(), mover);
            assert_eq!(starter_move(&game).index(), wanted as u64, "{cells:?}, mover {mover}");
            checked += 1;
        }
        assert_eq!(checked, 4520);
    }

    #[test]
    fn the_ai_answers_a_first_x_on_9_with_8_and_any_other_with_9() {
        for first in 1..=9u64 {
            let mut game = Game::new(Players::classic("a", "b"), Geometry::CLASSIC, Storage::Auto);
            game.play_unchecked(Move { player: PlayerId::new(0), square: Square::from_index(first - 1) });
            assert_eq!(starter_move(&game).number(), if first == 9 { 8 } else { 9 });
        }
    }
}
