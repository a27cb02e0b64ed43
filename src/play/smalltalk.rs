//! The `smalltalk` console profile: the Smalltalk exercise's program (Smalltalk,
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
//! box pops up again. A computer plays the Smalltalk exercise's strategy (the `rules`
//! engine, seeded). Whenever the board changes it is printed anew, after the
//! screen is cleared if the console is a terminal (the seed's Transcript
//! window). The game ends with `Player X wins!`, `Player O wins!` or `It's a
//! tie!`. One game per run.

use std::io::{BufRead, Write};

use super::dialect::{Decider, Dialect, Lines, Setting, Typed, Typing, square_number};
use super::{Answer, Console, Dialogue, PlayError, Refusal, Setup, Side, players, read_line, show};
use crate::board::{Geometry, Square};
use crate::engine::{EngineKind, rules};
use crate::game::{Game, Move, Outcome};
use crate::render::{Renderer, Style};

/// The answer for a person, and for the computer, to the type of a player.
const HUMAN: &str = "human";
const COMPUTER: &str = "computer";

/// The Smalltalk exercise's dialect: its words are free, its game is not.
pub struct SmalltalkDialect;

impl Dialect for SmalltalkDialect {
    fn console<'a>(
        &self,
        setting: Setting,
        input: Box<dyn BufRead + 'a>,
        output: Box<dyn Write + 'a>,
    ) -> Box<dyn Console + 'a> {
        let smalltalk = Smalltalk::new(setting.terminal, input, output);
        setting.drive(smalltalk)
    }

    fn asks_its_own_players(&self) -> bool {
        true
    }

    /// Both sides are asked; this is never used.
    fn default_second(&self) -> Side {
        Side::Human
    }

    /// No original program is public: only the boards and the result.
    fn fixed_lines(&self) -> Lines {
        Lines::BoardsAndResult
    }

    /// The Smalltalk exercise's strategy, rule by rule.
    fn allowed(&self, game: &Game, _own: Square) -> (Vec<Square>, Decider) {
        let (squares, rule) = rules::allowed(game);
        (squares, Decider::Strategy(rule))
    }

    /// X a person (sometimes after a refused type), O a person or the
    /// computer; squares by number. The computer leaves corners to chance,
    /// so a script keeps all the person's squares.
    fn typing(&self) -> &'static Typing {
        &Typing {
            setup: &[
                Typed::Sometimes(&["robot", "person", ""]),
                Typed::Always(HUMAN),
                Typed::Either(COMPUTER, HUMAN),
            ],
            junk: &["0", "10", "abc"],
            square: square_number,
            decline: None,
            shortest: false,
        }
    }
}

/// The terminal's sequence to clear the screen and put the cursor at the top.
pub const CLEAR_SCREEN: &str = "\x1b[H\x1b[2J";

/// The Smalltalk exercise's console: one game on the classic board.
pub struct Smalltalk<R, W> {
    clear_screen: bool,
    input: R,
    output: W,
    line: String,
    /// The board's rendering (the marks are always X and O).
    renderer: Renderer,
}

impl<R: BufRead, W: Write> Smalltalk<R, W> {
    /// The console over `input` and `output`; `clear_screen` when the output
    /// is a terminal, so each board replaces the last.
    pub fn new(clear_screen: bool, input: R, output: W) -> Smalltalk<R, W> {
        let renderer = Renderer::new(Style::Classic, &players([Side::Human, Side::Human]));
        Smalltalk { clear_screen, input, output, line: String::new(), renderer }
    }

    /// Asks the type of the player with `mark` until the answer is one;
    /// `None` at the end of the input.
    fn side(&mut self, mark: char) -> Result<Option<Side>, PlayError> {
        loop {
            writeln!(self.output, "Type of Player {mark} (human or computer)?")?;
            self.output.flush()?;
            if !read_line(&mut self.input, &mut self.line)? {
                return Ok(None);
            }
            match self.line.trim().to_lowercase().as_str() {
                HUMAN | "h" => return Ok(Some(Side::Human)),
                COMPUTER | "c" => return Ok(Some(Side::Engine(EngineKind::Rules))),
                _ => {}
            }
        }
    }

    /// Clears the screen (on a terminal) and prints the board.
    fn redraw(&mut self, game: &Game) -> Result<(), PlayError> {
        if self.clear_screen {
            self.output.write_all(CLEAR_SCREEN.as_bytes())?;
        }
        show(&self.renderer, game, &mut self.output)?;
        Ok(())
    }
}

impl<R: BufRead, W: Write> Dialogue for Smalltalk<R, W> {
    /// The type of Player X, then of Player O.
    fn setup(&mut self) -> Result<Option<Setup>, PlayError> {
        let Some(x) = self.side('X')? else { return Ok(None) };
        let Some(o) = self.side('O')? else { return Ok(None) };
        Ok(Some(Setup::two([x, o], Geometry::CLASSIC)))
    }

    fn turn(&mut self, game: &Game) -> Result<(), PlayError> {
        self.redraw(game)
    }

    /// The computer's move shows only in the board that follows.
    fn announce(&mut self, _game: &Game, _mv: Move) -> Result<(), PlayError> {
        Ok(())
    }

    fn ask(&mut self, game: &Game) -> Result<Answer, PlayError> {
        let mark = game.players().get(game.next_player()).mark;
        writeln!(self.output, "Player {mark}, enter a square (1-9):")?;
        self.output.flush()?;
        if !read_line(&mut self.input, &mut self.line)? {
            return Ok(Answer::End);
        }
        Ok(Geometry::CLASSIC.parse_square(self.line.trim()).map_or(Answer::Unreadable, Answer::Square))
    }

    /// The same question again, as the seed's dialog box pops up again.
    fn refuse(&mut self, _game: &Game, _why: Refusal) -> Result<(), PlayError> {
        Ok(())
    }

    fn input_ended(&mut self) -> Result<(), PlayError> {
        Ok(writeln!(self.output)?)
    }

    fn end(&mut self, game: &Game, outcome: Outcome) -> Result<(), PlayError> {
        self.redraw(game)?;
        match outcome {
            Outcome::Win(p) => writeln!(self.output, "Player {} wins!", game.players().get(p).mark)?,
            Outcome::Cat => writeln!(self.output, "It's a tie!")?,
        }
        Ok(())
    }
}
