//! The `extended` console profile: Clemson CPSC 2150's program, Extended Tic Tac Toe.
//!
//! ```text
//! How many players?
//! Enter the character to represent player 1
//! How many rows?
//! How many columns?
//! How many in a row to win?
//! Would you like a Fast Game (F/f) or a Memory Efficient Game (M/m)?
//!    0| 1| 2|
//!  0|  |  |  |
//! …
//! Player X Please enter your ROW
//! Player X Please enter your COLUMN
//! ```
//!
//! Every prompt is a line of its own, as Java's `System.out.println` writes
//! it, and answers are read a word at a time, as `Scanner` reads them. The
//! limits are Clemson CPSC 2150's: 2 to 10 players, each a distinct character; 3 to
//! 100 rows and columns; 3 to 25 in a row to win (and no more than the
//! board's longer side, or no one could win). A refused answer prints why
//! and asks again. A fast game keeps a cell per square, a memory-efficient
//! one only the marked squares. Rows and columns count from 0 at the top
//! left; a square off the board, taken or unreadable prints the board and
//! `That space is unavailable, please pick again`. The game ends with
//! `Player X wins!` or `It's a draw!` and the board, then `Would you like to
//! play again? Y/N`; yes sets up a new game from the number of players on.

use std::io::{BufRead, Write};
use std::ops::RangeInclusive;

use super::dialect::{Dialect, Lines, Setting, Typed, Typing, names_a_winner};
use super::{Answer, Console, Dialogue, PlayError, Refusal, Setup, Side, Words, show};
use crate::board::{Geometry, Storage};
use crate::game::{Game, Move, Outcome};
use crate::player::{Mark, Player, Players};
use crate::render::{Renderer, Style};

/// Clemson CPSC 2150's limits.
const PLAYERS: RangeInclusive<u32> = 2..=10;
const SIDE: RangeInclusive<u32> = 3..=100;
const WIN: RangeInclusive<u32> = 3..=25;

/// The draw line: free in a program's own words.
const DRAW: &str = "It's a draw!";
/// How each refusal of the number to win begins: free in a program's own
/// words (the official session shows none).
const WIN_REFUSED: &str = "The number to win cannot";
/// The refusal of a token longer than one character: free.
const NOT_SINGLE: &str = "Please enter a single character";
/// How the refusal of a token that cannot mark a board ends: free.
const CANNOT_REPRESENT: &str = "cannot represent a player, please pick again";

/// Clemson CPSC 2150's dialect: every line the official session shows is
/// fixed; the draw line and the refusals it does not show are free.
pub struct ExtendedDialect;

impl Dialect for ExtendedDialect {
    fn console<'a>(
        &self,
        setting: Setting,
        input: Box<dyn BufRead + 'a>,
        output: Box<dyn Write + 'a>,
    ) -> Box<dyn Console + 'a> {
        let extended = Extended::new(setting.sides, input, output);
        setting.drive(extended)
    }

    /// Clemson CPSC 2150's game is for people.
    fn default_second(&self) -> Side {
        Side::Human
    }

    fn fixed_lines(&self) -> Lines {
        Lines::AllButFree
    }

    /// Its board is a table (`0|X |O | |`), not rows of cells the judge
    /// reads; every board line is fixed, so a computer move other than the
    /// console's own shows as a board line that differs.
    fn reads_computer_moves(&self) -> bool {
        false
    }

    fn is_free(&self, line: &str) -> bool {
        line == DRAW
            || line.starts_with(WIN_REFUSED)
            || line == NOT_SINGLE
            || line.ends_with(CANNOT_REPRESENT)
    }

    /// A line of a board's table, or a line that names a winner in any
    /// words (`Player O wins`, `X won!`): a win is told only by its own
    /// fixed line, so a free line can never stand for one.
    fn is_never_free(&self, line: &str) -> bool {
        line.contains('|') || names_a_winner(line)
    }

    /// Two players, X and O (sometimes a refused count, or O typed as X
    /// again), a 3 by 3 board and 3 to win (sometimes a refused number
    /// first), a fast or a memory-efficient game; then the row and the
    /// column, each on its own line; `n` declines another game.
    fn typing(&self) -> &'static Typing {
        &Typing {
            setup: &[
                Typed::Sometimes(&["11", "1"]),
                Typed::Always("2"),
                Typed::Always("X"),
                Typed::Sometimes(&["x", "X"]),
                Typed::Always("O"),
                Typed::Sometimes(&["2", "101"]),
                Typed::Always("3"),
                Typed::Always("3"),
                Typed::Always("3"),
                Typed::Sometimes(&["q", "fast"]),
                Typed::Either("F", "m"),
            ],
            junk: &["-1\n0", "3\n3"],
            square: |row, col| format!("{row}\n{col}"),
            decline: Some("n"),
            shortest: true,
        }
    }
}

/// Clemson CPSC 2150's console. Player 1 and player 2 are the two given sides;
/// players 3 and on are people.
pub struct Extended<R, W> {
    sides: [Side; 2],
    words: Words<R>,
    output: W,
    /// The board's rendering, for the game set up last.
    renderer: Option<Renderer>,
}

impl<R: BufRead, W: Write> Extended<R, W> {
    /// The console over `input` and `output`, player 1 and 2 played by `sides`.
    pub fn new(sides: [Side; 2], input: R, output: W) -> Extended<R, W> {
        Extended { sides, words: Words::new(input), output, renderer: None }
    }

    /// Prints `prompt` on its own line and reads one word; `None` at the end
    /// of the input.
    fn question(&mut self, prompt: &str) -> Result<Option<String>, PlayError> {
        writeln!(self.output, "{prompt}")?;
        self.output.flush()?;
        self.words.next()
    }

    /// Asks for a whole number in `range` until one is given, printing
    /// `too_low` or `too_high` for one outside it.
    fn number(
        &mut self,
        prompt: &str,
        range: RangeInclusive<u32>,
        too_low: &str,
        too_high: &str,
    ) -> Result<Option<u32>, PlayError> {
        loop {
            let Some(word) = self.question(prompt)? else { return Ok(None) };
            let refusal = match word.parse::<i64>() {
                Ok(n) if n < i64::from(*range.start()) => too_low,
                Ok(n) if n > i64::from(*range.end()) => too_high,
                Ok(n) => return Ok(Some(u32::try_from(n).expect("within a u32 range"))),
                // A whole number too long for an i64 is still out of range.
                Err(_) if is_integer(&word) => {
                    if word.starts_with('-') {
                        too_low
                    } else {
                        too_high
                    }
                }
                Err(_) => "Please enter a whole number",
            };
            writeln!(self.output, "{refusal}")?;
        }
    }

    /// Asks for player `number`'s character until it is one character that
    /// can mark a board and no earlier player has.
    fn mark(&mut self, number: usize, taken: &[Mark]) -> Result<Option<Mark>, PlayError> {
        loop {
            let Some(word) = self.question(&format!("Enter the character to represent player {number}"))?
            else {
                return Ok(None);
            };
            let mut chars = word.chars();
            let mark = chars.next().map(upper_case).and_then(Mark::new);
            let refusal = match mark {
                _ if chars.next().is_some() => NOT_SINGLE.to_owned(),
                Some(mark) if taken.contains(&mark) => format!("{mark} is already taken as a player token!"),
                Some(mark) => return Ok(Some(mark)),
                None => format!("{word} {CANNOT_REPRESENT}"),
            };
            writeln!(self.output, "{refusal}")?;
        }
    }

    /// Asks for the whole setup: players, their marks, the board and its
    /// storage. `None` if the input ends first.
    fn questions(&mut self) -> Result<Option<Setup>, PlayError> {
        let (low, high) = ("Must be at least 2 players", "Must be 10 players or fewer");
        let Some(count) = self.number("How many players?", PLAYERS, low, high)? else { return Ok(None) };
        let mut marks = Vec::new();
        for number in 1..=count as usize {
            let Some(mark) = self.mark(number, &marks)? else { return Ok(None) };
            marks.push(mark);
        }
        let rows_out = "Rows must be between 3 and 100";
        let Some(rows) = self.number("How many rows?", SIDE, rows_out, rows_out)? else { return Ok(None) };
        let cols_out = "Columns must be between 3 and 100";
        let Some(cols) = self.number("How many columns?", SIDE, cols_out, cols_out)? else { return Ok(None) };
        let most = rows.min(cols).min(*WIN.end());
        let (low, high) =
            (format!("{WIN_REFUSED} be lower than {}", WIN.start()), format!("{WIN_REFUSED} exceed {most}"));
        let Some(win) = self.number("How many in a row to win?", *WIN.start()..=most, &low, &high)? else {
            return Ok(None);
        };
        let storage = loop {
            let prompt = "Would you like a Fast Game (F/f) or a Memory Efficient Game (M/m)?";
            let Some(word) = self.question(prompt)? else { return Ok(None) };
            match word.as_str() {
                "F" | "f" => break Storage::Dense,
                "M" | "m" => break Storage::Sparse,
                _ => {
                    writeln!(self.output, "Please enter F or M")?;
                }
            }
        };
        let sides: Vec<Side> = (0..marks.len()).map(|i| self.side(i)).collect();
        let players = marks
            .into_iter()
            .zip(&sides)
            .map(|(mark, side)| Player { mark, name: side.name().to_owned() })
            .collect();
        let players = Players::new(players).expect("2 to 10 distinct marks");
        let geometry = Geometry::new(rows, cols, win).expect("3 to 100 a side, 3 to the longer side to win");
        Ok(Some(Setup { players, sides, geometry, storage }))
    }

    /// Who plays player `index` (from 0).
    fn side(&self, index: usize) -> Side {
        self.sides.get(index).copied().unwrap_or(Side::Human)
    }

    /// Shows the board as it stands.
    fn show(&mut self, game: &Game) -> Result<(), PlayError> {
        let renderer = self.renderer.get_or_insert_with(|| Renderer::new(Style::Table, game.players()));
        Ok(show(renderer, game, &mut self.output)?)
    }
}

impl<R: BufRead, W: Write> Dialogue for Extended<R, W> {
    fn setup(&mut self) -> Result<Option<Setup>, PlayError> {
        let setup = self.questions()?;
        self.renderer = setup.as_ref().map(|setup| Renderer::new(Style::Table, &setup.players));
        Ok(setup)
    }

    fn turn(&mut self, game: &Game) -> Result<(), PlayError> {
        self.show(game)
    }

    /// The two prompts, each followed by the answer as if typed.
    fn announce(&mut self, game: &Game, mv: Move) -> Result<(), PlayError> {
        let mark = game.players().get(mv.player).mark;
        let (row, col) = game.board().geometry().coords(mv.square);
        writeln!(self.output, "Player {mark} Please enter your ROW\n{row}")?;
        writeln!(self.output, "Player {mark} Please enter your COLUMN\n{col}")?;
        Ok(())
    }

    /// The row, then the column; a row that is no row number is refused
    /// before the column is asked.
    fn ask(&mut self, game: &Game) -> Result<Answer, PlayError> {
        let mark = game.players().get(game.next_player()).mark;
        let Some(row) = self.question(&format!("Player {mark} Please enter your ROW"))? else {
            return Ok(Answer::End);
        };
        if !is_integer(&row) {
            return Ok(Answer::Unreadable);
        }
        let Some(col) = self.question(&format!("Player {mark} Please enter your COLUMN"))? else {
            return Ok(Answer::End);
        };
        // A negative or huge number is a square off the board.
        let number = |word: &str| word.parse::<u32>().ok();
        let square =
            number(&row).zip(number(&col)).and_then(|(row, col)| game.board().geometry().square(row, col));
        Ok(square.map_or(Answer::Unreadable, Answer::Square))
    }

    fn refuse(&mut self, game: &Game, _why: Refusal) -> Result<(), PlayError> {
        self.show(game)?;
        Ok(writeln!(self.output, "That space is unavailable, please pick again")?)
    }

    fn input_ended(&mut self) -> Result<(), PlayError> {
        Ok(writeln!(self.output)?)
    }

    fn end(&mut self, game: &Game, outcome: Outcome) -> Result<(), PlayError> {
        match outcome {
            Outcome::Win(p) => writeln!(self.output, "Player {} wins!", game.players().get(p).mark)?,
            Outcome::Cat => writeln!(self.output, "{DRAW}")?,
        }
        self.show(game)
    }

    /// `Would you like to play again? Y/N`, asked until the answer is one of
    /// those (either case).
    fn again(&mut self) -> Result<bool, PlayError> {
        Ok(matches!(self.question("Would you like to play again? Y/N")?.as_deref(), Some("Y" | "y")))
    }
}

/// `c` in upper case, as Java's `Character.toUpperCase` gives it: unchanged
/// if its upper case is more than one character.
fn upper_case(c: char) -> char {
    let mut upper = c.to_uppercase();
    match (upper.next(), upper.next()) {
        (Some(u), None) => u,
        _ => c,
    }
}

/// Whether `word` is a whole number, however long: digits after an optional
/// sign.
fn is_integer(word: &str) -> bool {
    let digits = word.strip_prefix(['+', '-']).unwrap_or(word);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}
