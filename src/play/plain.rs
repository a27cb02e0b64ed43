//! The `default` console profile: a plain prompt, the board, `X to move
//! (1-9): `, square numbers, on any board the command line gives.

use std::io::{BufRead, Write};

use super::dialect::{Dialect, Setting, Typing, square_number};
use super::{
    Answer, Console, Dialogue, Forfeited, PlayError, Refusal, Setup, Side, players, read_line, show,
};
use crate::board::Geometry;
use crate::engine::EngineKind;
use crate::game::{Game, Move, Outcome, Violation};
use crate::render::{Renderer, Style};

/// The default console's dialect.
pub struct PlainDialect;

impl Dialect for PlainDialect {
    fn console<'a>(
        &self,
        setting: Setting,
        input: Box<dyn BufRead + 'a>,
        output: Box<dyn Write + 'a>,
    ) -> Box<dyn Console + 'a> {
        let plain = Plain::new(setting.sides, setting.geometry, input, output);
        setting.drive(plain)
    }

    fn sets_up_its_own_board(&self) -> bool {
        false
    }

    fn default_second(&self) -> Side {
        Side::Engine(EngineKind::Perfect)
    }

    fn typing(&self) -> &'static Typing {
        &Typing {
            setup: &[],
            junk: &["0", "10", "abc"],
            square: square_number,
            decline: Some("n"),
            shortest: true,
        }
    }
}

/// The default console: the board, `X to move (1-9): `, square numbers.
pub struct Plain<R, W> {
    sides: [Side; 2],
    geometry: Geometry,
    renderer: Renderer,
    input: R,
    output: W,
    /// The last answer read, for the refusal that quotes it.
    line: String,
}

impl<R: BufRead, W: Write> Plain<R, W> {
    /// The console over `input` and `output`, X and O played by `sides` on
    /// `geometry`.
    pub fn new(sides: [Side; 2], geometry: Geometry, input: R, output: W) -> Plain<R, W> {
        let renderer = Renderer::new(Style::Classic, &players(sides));
        Plain { sides, geometry, renderer, input, output, line: String::new() }
    }
}

impl<R: BufRead, W: Write> Dialogue for Plain<R, W> {
    fn setup(&mut self) -> Result<Option<Setup>, PlayError> {
        Ok(Some(Setup::two(self.sides, self.geometry)))
    }

    fn turn(&mut self, game: &Game) -> Result<(), PlayError> {
        Ok(show(&self.renderer, game, &mut self.output)?)
    }

    fn announce(&mut self, game: &Game, mv: Move) -> Result<(), PlayError> {
        let mark = game.players().get(mv.player).mark;
        Ok(writeln!(self.output, "{mark} plays {}", mv.square.number())?)
    }

    fn ask(&mut self, game: &Game) -> Result<Answer, PlayError> {
        let mark = game.players().get(game.next_player()).mark;
        write!(self.output, "{mark} to move (1-{}): ", self.geometry.cells())?;
        self.output.flush()?;
        if !read_line(&mut self.input, &mut self.line)? {
            return Ok(Answer::End);
        }
        Ok(self.geometry.parse_square(self.line.trim()).map_or(Answer::Unreadable, Answer::Square))
    }

    fn refuse(&mut self, _game: &Game, why: Refusal) -> Result<(), PlayError> {
        match why {
            Refusal::Broke(Violation::MarkedSquare) => {
                writeln!(self.output, "Square {} is taken; choose another.", self.line.trim())?;
            }
            _ => writeln!(self.output, "Enter a square from 1 to {}.", self.geometry.cells())?,
        }
        Ok(())
    }

    /// `O forfeits: time: no answer within 1 s.`, then the board and
    /// `X wins by forfeit.` (with two players the other one wins).
    fn forfeit(&mut self, game: &Game, forfeited: &Forfeited) -> Result<(), PlayError> {
        let players = game.players();
        let offender = game.next_player();
        writeln!(self.output, "{} forfeits: {}.", players.get(offender).mark, forfeited.why)?;
        show(&self.renderer, game, &mut self.output)?;
        let winner = players.get(players.next_after(offender)).mark;
        Ok(writeln!(self.output, "{winner} wins by forfeit.")?)
    }

    fn input_ended(&mut self) -> Result<(), PlayError> {
        Ok(writeln!(self.output)?)
    }

    fn end(&mut self, game: &Game, outcome: Outcome) -> Result<(), PlayError> {
        show(&self.renderer, game, &mut self.output)?;
        match outcome {
            Outcome::Win(p) => writeln!(self.output, "{} wins.", game.players().get(p).mark)?,
            Outcome::Cat => writeln!(self.output, "Cat's game: a draw.")?,
        }
        Ok(())
    }

    /// `Play again? [y/N] ` when a person plays; yes only for an answer
    /// starting with `y`.
    fn again(&mut self) -> Result<bool, PlayError> {
        if !self.sides.contains(&Side::Human) {
            return Ok(false);
        }
        write!(self.output, "Play again? [y/N] ")?;
        self.output.flush()?;
        let mut answer = String::new();
        if !read_line(&mut self.input, &mut answer)? {
            writeln!(self.output)?;
        }
        Ok(answer.trim_start().starts_with(['y', 'Y']))
    }
}
