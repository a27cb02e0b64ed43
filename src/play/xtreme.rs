//! The `xtreme` console profile: StFX asn3's own program, its prompts and
//! messages exactly.
//!
//! ```text
//! Game Board Size: 3
//!  | |
//! -+-+-
//!  | |
//! -+-+-
//!  | |
//!
//! Move Counter: 0
//! X's move (x, y): 0, 2
//! ```
//!
//! The size is asked first (a whole number from 1 to 100, asked again until
//! it is one); the board is n × n and a win fills a whole row, column or
//! diagonal. Moves are `x, y` with x the column and y the row, from 0; one
//! that is off the board, taken or unreadable prints `INVALID MOVE --- TRY
//! AGAIN.` and the prompt again. A computer player's move is shown as if
//! typed after the prompt. The game ends with the board and `Player X won in
//! N moves.` (N counting both players' moves) or `Cat's game; no one wins.`

use std::io::{BufRead, Write};

use super::dialect::{Dialect, Setting, Typed, Typing};
use super::{Answer, Console, Dialogue, PlayError, Refusal, Setup, Side, players, read_line, show};
use crate::board::{Geometry, parse_xy};
use crate::engine::EngineKind;
use crate::game::{Game, Move, Outcome};
use crate::render::{Renderer, Style};

/// The largest board the size prompt accepts.
const MAX_SIZE: u32 = 100;

/// StFX asn3's dialect: every line is the program's.
pub struct XtremeDialect;

impl Dialect for XtremeDialect {
    fn console<'a>(
        &self,
        setting: Setting,
        input: Box<dyn BufRead + 'a>,
        output: Box<dyn Write + 'a>,
    ) -> Box<dyn Console + 'a> {
        let xtreme = Xtreme::new(setting.sides, input, output);
        setting.drive(xtreme)
    }

    fn default_second(&self) -> Side {
        Side::Engine(EngineKind::Perfect)
    }

    /// The size (sometimes a refused one first: too small, too large, a
    /// word), then `x, y` squares, the column first.
    fn typing(&self) -> &'static Typing {
        &Typing {
            setup: &[Typed::Sometimes(&["0", "101", "three"]), Typed::Always("3")],
            junk: &["5, 5", "1 1"],
            square: |row, col| format!("{col}, {row}"),
            decline: None,
            shortest: true,
        }
    }
}

/// StFX asn3's console: one game, X and O played by the given sides.
pub struct Xtreme<R, W> {
    sides: [Side; 2],
    renderer: Renderer,
    input: R,
    output: W,
    line: String,
}

impl<R: BufRead, W: Write> Xtreme<R, W> {
    /// The console over `input` and `output`, X and O played by `sides`.
    pub fn new(sides: [Side; 2], input: R, output: W) -> Xtreme<R, W> {
        let renderer = Renderer::new(Style::Grid, &players(sides));
        Xtreme { sides, renderer, input, output, line: String::new() }
    }

    /// `X's move (x, y): `, a computer player's answer or a person's.
    fn prompt(&mut self, game: &Game) -> Result<(), PlayError> {
        let mark = game.players().get(game.next_player()).mark;
        Ok(write!(self.output, "{mark}'s move (x, y): ")?)
    }
}

impl<R: BufRead, W: Write> Dialogue for Xtreme<R, W> {
    /// `Game Board Size: `, asked until the answer is a size from 1 to 100.
    fn setup(&mut self) -> Result<Option<Setup>, PlayError> {
        let size = loop {
            write!(self.output, "Game Board Size: ")?;
            self.output.flush()?;
            if !read_line(&mut self.input, &mut self.line)? {
                writeln!(self.output)?;
                return Ok(None);
            }
            match self.line.trim().parse::<u32>() {
                Ok(n) if (1..=MAX_SIZE).contains(&n) => break n,
                _ => writeln!(self.output, "INVALID SIZE --- TRY AGAIN.")?,
            }
        };
        let geometry = Geometry::new(size, size, size).expect("1 to 100 is a board");
        Ok(Some(Setup::two(self.sides, geometry)))
    }

    fn turn(&mut self, game: &Game) -> Result<(), PlayError> {
        show(&self.renderer, game, &mut self.output)?;
        Ok(writeln!(self.output, "Move Counter: {}", game.moves_made())?)
    }

    /// The prompt, then the move as if typed after it.
    fn announce(&mut self, game: &Game, mv: Move) -> Result<(), PlayError> {
        self.prompt(game)?;
        let (row, col) = game.board().geometry().coords(mv.square);
        Ok(writeln!(self.output, "{col}, {row}")?)
    }

    fn ask(&mut self, game: &Game) -> Result<Answer, PlayError> {
        self.prompt(game)?;
        self.output.flush()?;
        if !read_line(&mut self.input, &mut self.line)? {
            return Ok(Answer::End);
        }
        let square = parse_xy(&self.line)
            .and_then(|(x, y)| Some((u32::try_from(x).ok()?, u32::try_from(y).ok()?)))
            .and_then(|(x, y)| game.board().geometry().square(y, x));
        Ok(square.map_or(Answer::Unreadable, Answer::Square))
    }

    fn refuse(&mut self, _game: &Game, _why: Refusal) -> Result<(), PlayError> {
        Ok(writeln!(self.output, "INVALID MOVE --- TRY AGAIN.")?)
    }

    fn input_ended(&mut self) -> Result<(), PlayError> {
        Ok(writeln!(self.output)?)
    }

    fn end(&mut self, game: &Game, outcome: Outcome) -> Result<(), PlayError> {
        show(&self.renderer, game, &mut self.output)?;
        match outcome {
            Outcome::Win(p) => {
                let mark = game.players().get(p).mark;
                writeln!(self.output, "Player {mark} won in {} moves.", game.moves_made())?;
            }
            Outcome::Cat => writeln!(self.output, "Cat's game; no one wins.")?,
        }
        Ok(())
    }
}
