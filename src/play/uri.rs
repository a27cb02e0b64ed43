//! The `uri` console profile: seeds/002's program, the URI CSC 212 deep dive,
//! where the AI (its depth-limited minimax) is always player 2.
//!
//! ```text
//! ***********************
//! Welcome to Tic Tac Toe!
//! ***********************
//! Player 1 (X) vs. the AI (O)
//!
//!  1 | 2 | 3
//! ---+---+---
//!  4 | 5 | 6
//! ---+---+---
//!  7 | 8 | 9
//! Player 1 make your move: 5
//!
//!  1 | 2 | 3
//! ---+---+---
//!  4 | X | 6
//! ---+---+---
//!  7 | 8 | 9
//! AI's move: 1
//! ```
//!
//! The board is 3×3 and shows each free square's number. A person types a
//! square number (read a word at a time, as C++'s `cin >>` does); one that is
//! not a free square prints `Invalid move, please try again.` and the prompt
//! again. A computer player's move is announced as `AI's move: N`. Each move
//! is followed by a blank line and the board; the game ends with `Player 1
//! wins!`, `Player 2 wins!` or `It's a draw!`, and the program with it.

use std::io::{BufRead, Write};

use super::{Console, PlayError, Played, Side, Thinking, Words, engines, players};
use crate::board::{Geometry, Storage};
use crate::game::{Game, Move, Outcome};

/// seeds/002's console: one game on the classic board.
pub struct Uri<R, W> {
    sides: [Side; 2],
    thinking: Thinking,
    words: Words<R>,
    output: W,
}

impl<R: BufRead, W: Write> Uri<R, W> {
    /// The console over `input` and `output`, player 1 (X) and player 2 (O)
    /// played by `sides`.
    pub fn new(sides: [Side; 2], thinking: Thinking, input: R, output: W) -> Uri<R, W> {
        Uri { sides, thinking, words: Words::new(input), output }
    }

    /// The board with each free square's number: ` 1 | X | 3`.
    fn board(&mut self, game: &Game) -> Result<(), PlayError> {
        let geometry = game.board().geometry();
        for row in 0..geometry.rows() {
            if row > 0 {
                writeln!(self.output, "---+---+---")?;
            }
            let cells: Vec<String> = (0..geometry.cols())
                .map(|col| {
                    let square = geometry.square(row, col).expect("on the board");
                    match game.board().get(square) {
                        Some(player) => game.players().get(player).mark.to_string(),
                        None => square.number().to_string(),
                    }
                })
                .collect();
            writeln!(self.output, " {}", cells.join(" | "))?;
        }
        Ok(())
    }

    /// What the banner calls player `index` (from 0).
    fn who(&self, index: usize) -> String {
        match self.sides[index] {
            Side::Human => format!("Player {}", index + 1),
            Side::Engine(_) => "the AI".to_owned(),
        }
    }
}

impl<R: BufRead, W: Write> Console for Uri<R, W> {
    fn game(&mut self, seed: u64) -> Result<Option<Played>, PlayError> {
        let sides = self.sides;
        let mut game = Game::new(players(sides), Geometry::CLASSIC, Storage::Auto);
        let mut engines = engines(&sides, seed, self.thinking);
        for engine in engines.iter().flatten() {
            engine.check(&game)?;
        }
        let mut moves = Vec::new();
        writeln!(self.output, "***********************")?;
        writeln!(self.output, "Welcome to Tic Tac Toe!")?;
        writeln!(self.output, "***********************")?;
        writeln!(self.output, "{} (X) vs. {} (O)\n", capitalised(&self.who(0)), self.who(1))?;
        self.board(&game)?;

        while game.outcome().is_none() {
            let player = game.next_player();
            let square = if let Some(engine) = &mut engines[player.index()] {
                let square = engine.choose(&game)?.square;
                writeln!(self.output, "AI's move: {}", square.number())?;
                square
            } else {
                loop {
                    write!(self.output, "Player {} make your move: ", player.index() + 1)?;
                    self.output.flush()?;
                    let Some(word) = self.words.next()? else {
                        writeln!(self.output)?;
                        return Ok(Some(Played { game, moves }));
                    };
                    match Geometry::CLASSIC.parse_square(&word) {
                        Some(square) if game.board().get(square).is_none() => break square,
                        _ => {
                            writeln!(self.output, "Invalid move, please try again.")?;
                            self.words.discard_line();
                        }
                    }
                }
            };
            let mv = Move { player, square };
            game.play_unchecked(mv);
            moves.push(mv);
            writeln!(self.output)?;
            self.board(&game)?;
        }
        match game.outcome() {
            Some(Outcome::Win(p)) => writeln!(self.output, "Player {} wins!", p.index() + 1)?,
            _ => writeln!(self.output, "It's a draw!")?,
        }
        Ok(Some(Played { game, moves }))
    }

    /// seeds/002's program plays one game and ends; so does its profile.
    fn again(&mut self) -> Result<bool, PlayError> {
        Ok(false)
    }
}

/// `text` with its first letter upper case: the banner starts a sentence.
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or_default()
}
