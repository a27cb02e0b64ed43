//! The `smalltalk` console profile: seeds/001's program (Smalltalk,
//! `TicTacToe new startGame`). The seed fixes what it does, not its words; no
//! original program is public, so the wording is this project's (FORMAT.md).
//!
//! ```text
//! Type of Player X (human or computer)?
//! Type of Player O (human or computer)?
//! - - -
//! - - -
//! - - -
//!
//! Player X, enter a square (1-9):
//! ```
//!
//! It asks the type of Player X, then of Player O (the seed's two dialog
//! boxes); anything but `human` or `computer` (or `h`, `c`, in any case) is
//! asked again. X moves first. A person types a square 1–9; an invalid or
//! taken square is asked again with the same question, as the seed's dialog
//! box pops up again. A computer plays seeds/001's strategy (the `rules`
//! engine, seeded). Whenever the board changes it is printed anew, after the
//! screen is cleared if the console is a terminal (the seed's Transcript
//! window). The game ends with `Player X wins!`, `Player O wins!` or `It's a
//! tie!`. One game per run.

use std::io::{BufRead, Write};

use super::{Console, PlayError, Played, Side, Thinking, engines, players, read_line, show};
use crate::board::{Geometry, Storage};
use crate::engine::EngineKind;
use crate::game::{Game, Move, Outcome};
use crate::render::{Renderer, Style};

/// The terminal's sequence to clear the screen and put the cursor at the top.
pub const CLEAR_SCREEN: &str = "\x1b[H\x1b[2J";

/// seeds/001's console: one game on the classic board.
pub struct Smalltalk<R, W> {
    thinking: Thinking,
    clear_screen: bool,
    input: R,
    output: W,
}

impl<R: BufRead, W: Write> Smalltalk<R, W> {
    /// The console over `input` and `output`; `clear_screen` when the output
    /// is a terminal, so each board replaces the last.
    pub fn new(thinking: Thinking, clear_screen: bool, input: R, output: W) -> Smalltalk<R, W> {
        Smalltalk { thinking, clear_screen, input, output }
    }

    /// Asks the type of the player with `mark` until the answer is one;
    /// `None` at the end of the input.
    fn side(&mut self, mark: char) -> Result<Option<Side>, PlayError> {
        let mut line = String::new();
        loop {
            writeln!(self.output, "Type of Player {mark} (human or computer)?")?;
            self.output.flush()?;
            if !read_line(&mut self.input, &mut line)? {
                return Ok(None);
            }
            match line.trim().to_lowercase().as_str() {
                "human" | "h" => return Ok(Some(Side::Human)),
                "computer" | "c" => return Ok(Some(Side::Engine(EngineKind::Rules))),
                _ => {}
            }
        }
    }

    /// Clears the screen (on a terminal) and prints the board.
    fn redraw(&mut self, renderer: &Renderer, game: &Game) -> Result<(), PlayError> {
        if self.clear_screen {
            self.output.write_all(CLEAR_SCREEN.as_bytes())?;
        }
        show(renderer, game, &mut self.output)?;
        Ok(())
    }
}

impl<R: BufRead, W: Write> Console for Smalltalk<R, W> {
    fn game(&mut self, seed: u64) -> Result<Option<Played>, PlayError> {
        let Some(x) = self.side('X')? else { return Ok(None) };
        let Some(o) = self.side('O')? else { return Ok(None) };
        let sides = [x, o];
        let players = players(sides);
        let renderer = Renderer::new(Style::Classic, &players);
        let mut game = Game::new(players, Geometry::CLASSIC, Storage::Auto);
        let mut engines = engines(&sides, seed, self.thinking);
        let mut moves = Vec::new();
        let mut line = String::new();
        self.redraw(&renderer, &game)?;
        while game.outcome().is_none() {
            let player = game.next_player();
            let mark = game.players().get(player).mark;
            let square = if let Some(engine) = &mut engines[player.index()] {
                engine.choose(&game)?.square
            } else {
                loop {
                    writeln!(self.output, "Player {mark}, enter a square (1-9):")?;
                    self.output.flush()?;
                    if !read_line(&mut self.input, &mut line)? {
                        writeln!(self.output)?;
                        return Ok(Some(Played { game, moves }));
                    }
                    match Geometry::CLASSIC.parse_square(line.trim()) {
                        Some(square) if game.board().get(square).is_none() => break square,
                        _ => {}
                    }
                }
            };
            let mv = Move { player, square };
            game.play_unchecked(mv);
            moves.push(mv);
            self.redraw(&renderer, &game)?;
        }
        match game.outcome() {
            Some(Outcome::Win(p)) => writeln!(self.output, "Player {} wins!", game.players().get(p).mark)?,
            _ => writeln!(self.output, "It's a tie!")?,
        }
        Ok(Some(Played { game, moves }))
    }

    /// seeds/001's program plays one game; so does its profile.
    fn again(&mut self) -> Result<bool, PlayError> {
        Ok(false)
    }
}
