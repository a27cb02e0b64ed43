//! The Gomocup protocol, the manager's side: what a Gomocup brain is told
//! in one game and how its lines are read (the protocol:
//! <https://plastovicka.github.io/protocl2en.htm>). Pure text: the live run
//! that carries it is a bot's ([`bot`](super::bot)), with every deadline
//! and forfeit a bot has.
//!
//! A game's conversation: `START N` (or `RECTSTART W,H` on a board that is
//! not square), answered `OK`; `ABOUT`, answered with one line about the
//! brain (kept for its report); the `INFO` lines (`timeout_turn`,
//! `timeout_match`, `max_memory`, `time_left`, `game_type`, `rule`); then
//! each move `BEGIN` (the empty board, it moves first), `TURN X,Y` (the
//! opponent's move since its last), or `BOARD` … `DONE` (any other
//! position: the first after an opening), answered `X,Y`; `END` when the
//! game is over. Coordinates are 0-based, X the column and Y the row.
//! `MESSAGE`, `DEBUG` and `SUGGEST` lines and empty ones are passed over;
//! `ERROR` or `UNKNOWN` instead of a move forfeits. Lines the manager sends
//! end with CR LF, as the protocol says; the brain's may end with either.

use std::fmt::Write as _;
use std::time::Duration;

use crate::board::Geometry;
use crate::text;

use super::entrant::{Forfeit, ForfeitKind, Position, Setup};

/// The marks in a row Gomocup brains play for.
pub const FIVE: u32 = 5;

/// The smallest and largest sides a brain is offered (Gomocup plays 15 and
/// 20; brains commonly accept 5 to 32 or more and answer `ERROR` to a size
/// they refuse).
pub const SIDES: std::ops::RangeInclusive<u32> = 5..=100;

/// The most of a brain's line a forfeit's detail quotes, in bytes.
const QUOTED: usize = 64;

/// Whether a Gomocup brain can play games of `setup`'s kind: two players,
/// five in a row, sides within [`SIDES`].
///
/// # Errors
/// Why not, in words.
pub fn check(geometry: Geometry, players: usize) -> Result<(), String> {
    if players != 2 {
        return Err(format!("a Gomocup brain plays two-player games only, not {players}"));
    }
    if geometry.win() != FIVE {
        return Err(format!("a Gomocup brain plays five in a row, not {} (--win 5)", geometry.win()));
    }
    if !SIDES.contains(&geometry.rows()) || !SIDES.contains(&geometry.cols()) {
        return Err(format!(
            "a Gomocup brain plays boards of {} to {} squares a side, not {}x{}",
            SIDES.start(),
            SIDES.end(),
            geometry.rows(),
            geometry.cols()
        ));
    }
    Ok(())
}

/// What the manager knows of the limits it tells a brain (`INFO`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The time of each move (`timeout_turn`).
    pub turn: Duration,
    /// The whole game's time, if it has a clock (`timeout_match`; 0 says
    /// none).
    pub game: Option<Duration>,
    /// The memory it may use, in bytes (`max_memory`).
    pub memory: u64,
}

/// Where the conversation is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Nothing said yet.
    New,
    /// `START` sent: waiting for `OK`.
    Starting,
    /// `ABOUT` sent: waiting for its line.
    About,
    /// A move asked for.
    Move,
}

/// One game's conversation with a brain, from the manager's side.
#[derive(Clone, Debug)]
pub struct Manager {
    geometry: Geometry,
    limits: Limits,
    phase: Phase,
    /// The board as the brain knows it (after its own last move), row by
    /// row as [`Position::board`] writes it; `None` before its first move.
    known: Option<String>,
    /// What the brain said to `ABOUT`.
    about: Option<String>,
    /// The position being answered, and its time left.
    asked: Option<(Position, Option<Duration>)>,
}

/// What a line from the brain means.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Heard {
    /// Nothing to act on (a message, a debug line, an empty line).
    Nothing,
    /// Send this next, and read on.
    Send(String),
    /// Its move: the square's number, as the bot protocol writes it.
    Move(String),
    /// It forfeits.
    Forfeit(Forfeit),
}

impl Manager {
    /// The conversation of a game of `setup` (which [`check`] allows), the
    /// brain told `limits`.
    #[must_use]
    pub fn new(setup: &Setup, limits: Limits) -> Manager {
        Manager { geometry: setup.geometry, limits, phase: Phase::New, known: None, about: None, asked: None }
    }

    /// What the brain said to `ABOUT`, if it has said it.
    #[must_use]
    pub fn about(&self) -> Option<&str> {
        self.about.as_deref()
    }

    /// The text to send to ask for a move in `position`, with `time_left`
    /// on its clock (if the game has one): `START` first in a game, else
    /// the move's commands.
    pub fn ask(&mut self, position: &Position, time_left: Option<Duration>) -> String {
        self.asked = Some((position.clone(), time_left));
        if self.phase == Phase::New {
            self.phase = Phase::Starting;
            let (rows, cols) = (self.geometry.rows(), self.geometry.cols());
            return if rows == cols {
                format!("START {cols}\r\n")
            } else {
                format!("RECTSTART {cols},{rows}\r\n")
            };
        }
        self.commands()
    }

    /// The text that tells the brain the game is over.
    #[must_use]
    pub fn end() -> &'static str {
        "END\r\n"
    }

    /// The `INFO` lines (the first move of a game: all of them; later only
    /// `time_left`) and the move's command.
    fn commands(&mut self) -> String {
        self.phase = Phase::Move;
        let Some((position, left)) = self.asked.clone() else { return String::new() };
        let mut out = String::new();
        if self.known.is_none() {
            let ms = |d: Duration| d.as_millis();
            let _ = write!(out, "INFO timeout_turn {}\r\n", ms(self.limits.turn));
            let _ = write!(out, "INFO timeout_match {}\r\n", self.limits.game.map_or(0, ms));
            let _ = write!(out, "INFO max_memory {}\r\n", self.limits.memory);
            out.push_str("INFO game_type 1\r\nINFO rule 0\r\n");
        }
        if let Some(left) = left {
            let _ = write!(out, "INFO time_left {}\r\n", left.as_millis());
        }
        out.push_str(&self.move_command(&position));
        out
    }

    /// `BEGIN`, `TURN X,Y` or `BOARD` … `DONE` for `position`.
    fn move_command(&self, position: &Position) -> String {
        let board = position.board();
        let cols = usize::try_from(self.geometry.cols()).unwrap_or(usize::MAX).max(1);
        if board.bytes().all(|b| b == b'.') {
            return "BEGIN\r\n".to_owned();
        }
        if let Some(known) = &self.known {
            let changed: Vec<usize> = board
                .bytes()
                .zip(known.bytes())
                .enumerate()
                .filter(|(_, (now, then))| now != then)
                .map(|(at, _)| at)
                .collect();
            if let [at] = changed[..]
                && known.as_bytes()[at] == b'.'
            {
                return format!("TURN {},{}\r\n", at % cols, at / cols);
            }
        }
        let mine = position.mark().char();
        let mut out = String::from("BOARD\r\n");
        for (at, c) in board.chars().enumerate().filter(|(_, c)| *c != '.') {
            let field = if c == mine { 1 } else { 2 };
            let _ = write!(out, "{},{},{field}\r\n", at % cols, at / cols);
        }
        out.push_str("DONE\r\n");
        out
    }

    /// What the brain's `line` (without its line end) means where the
    /// conversation is.
    pub fn heard(&mut self, line: &[u8]) -> Heard {
        let line = String::from_utf8_lossy(line);
        let line = line.trim_matches(|c: char| c == '\r' || c.is_ascii_whitespace());
        let word = line.split_ascii_whitespace().next().unwrap_or("").to_ascii_uppercase();
        if line.is_empty() || ["MESSAGE", "DEBUG", "SUGGEST"].contains(&word.as_str()) {
            return Heard::Nothing;
        }
        match self.phase {
            Phase::New => Heard::Nothing,
            Phase::Starting if word == "OK" => {
                self.phase = Phase::About;
                Heard::Send("ABOUT\r\n".to_owned())
            }
            Phase::Starting => {
                let (rows, cols) = (self.geometry.rows(), self.geometry.cols());
                Heard::Forfeit(Forfeit::new(
                    ForfeitKind::Limit,
                    format!("it refused the board ({cols}x{rows}): it answered `{}` to START", quoted(line)),
                ))
            }
            Phase::About => {
                self.about = Some(text::said(line, 300).into_owned());
                Heard::Send(self.commands())
            }
            Phase::Move => self.read_move(line),
        }
    }

    /// A move's answer: `X,Y` on a free square becomes its square's number.
    fn read_move(&mut self, line: &str) -> Heard {
        let Some((position, _)) = &self.asked else { return Heard::Nothing };
        let (rows, cols) = (self.geometry.rows(), self.geometry.cols());
        let parsed = line
            .split_once(',')
            .and_then(|(x, y)| Some((x.trim().parse::<i64>().ok()?, y.trim().parse::<i64>().ok()?)));
        let Some((x, y)) = parsed else {
            return Heard::Forfeit(Forfeit::new(
                ForfeitKind::NotANumber,
                format!("answered `{}`; expected a move X,Y (0-based, X the column)", quoted(line)),
            ));
        };
        let on_board = |v: i64, n: u32| u32::try_from(v).is_ok_and(|v| v < n);
        if !on_board(x, cols) || !on_board(y, rows) {
            return Heard::Forfeit(Forfeit::new(
                ForfeitKind::OffBoard,
                format!("answered {x},{y}; the board's squares are 0,0 to {},{}", cols - 1, rows - 1),
            ));
        }
        let (x, y) = (x.unsigned_abs(), y.unsigned_abs());
        let at = y * u64::from(cols) + x;
        let mut known = position.board().into_bytes();
        if let Some(cell) = usize::try_from(at).ok().and_then(|at| known.get_mut(at))
            && *cell == b'.'
        {
            *cell = u8::try_from(u32::from(position.mark().char())).unwrap_or(b'?');
        }
        self.known = Some(String::from_utf8_lossy(&known).into_owned());
        Heard::Move((at + 1).to_string())
    }
}

/// A brain's line as a detail quotes it: inert, cut.
fn quoted(line: &str) -> String {
    text::inert(&text::said(line, QUOTED)).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Square, Storage};
    use crate::game::{Game, Move};
    use crate::player::{Mark, PlayerId, Players};

    fn setup(rows: u32, cols: u32) -> Setup {
        Setup {
            geometry: Geometry::new(rows, cols, 5).unwrap(),
            marks: vec![Mark::X, Mark::O],
            game: 1,
            seed: 0,
            move_time: Duration::from_secs(1),
            clock: None,
            waiting: Duration::ZERO,
        }
    }

    const LIMITS: Limits = Limits { turn: Duration::from_secs(1), game: None, memory: 512 << 20 };

    fn game(rows: u32, cols: u32, squares: &[u64]) -> Game {
        let mut game =
            Game::new(Players::classic("a", "b"), Geometry::new(rows, cols, 5).unwrap(), Storage::Auto);
        for (i, &sq) in squares.iter().enumerate() {
            game.play_unchecked(Move { player: PlayerId::new(i % 2), square: Square::from_index(sq) });
        }
        game
    }

    #[test]
    fn a_game_starts_ok_about_info_and_begin_then_turns() {
        let mut m = Manager::new(&setup(15, 15), LIMITS);
        assert_eq!(m.ask(&Position::new(&game(15, 15, &[])), None), "START 15\r\n");
        assert_eq!(m.heard(b"MESSAGE hello"), Heard::Nothing);
        assert_eq!(m.heard(b"OK\r"), Heard::Send("ABOUT\r\n".into()));
        assert_eq!(
            m.heard(b"name=\"pbrain\", version=\"1.0\""),
            Heard::Send(
                "INFO timeout_turn 1000\r\nINFO timeout_match 0\r\nINFO max_memory 536870912\r\n\
                 INFO game_type 1\r\nINFO rule 0\r\nBEGIN\r\n"
                    .into()
            )
        );
        assert_eq!(m.about(), Some("name=\"pbrain\", version=\"1.0\""));
        assert_eq!(m.heard(b"DEBUG thinking"), Heard::Nothing);
        // 7,7 is row 7, column 7: square 7*15+7+1.
        assert_eq!(m.heard(b"7,7"), Heard::Move("113".into()));
        // The opponent answers at row 8, column 6 (index 126): a TURN.
        let pos = Position::new(&game(15, 15, &[112, 126]));
        assert_eq!(m.ask(&pos, Some(Duration::from_millis(4500))), "INFO time_left 4500\r\nTURN 6,8\r\n");
        assert_eq!(m.heard(b" 8 , 7 "), Heard::Move("114".into()));
    }

    #[test]
    fn an_opening_is_a_board_and_a_rectangle_a_rectstart() {
        let mut m = Manager::new(&setup(7, 9), LIMITS);
        // X at index 0 (0,0), O at index 10 (row 1, column 1): X to move.
        let pos = Position::new(&game(7, 9, &[0, 10]));
        assert_eq!(m.ask(&pos, None), "RECTSTART 9,7\r\n");
        m.heard(b"OK");
        let Heard::Send(sent) = m.heard(b"about") else { panic!() };
        assert!(sent.ends_with("BOARD\r\n0,0,1\r\n1,1,2\r\nDONE\r\n"), "{sent}");
    }

    #[test]
    fn every_wrong_answer_is_its_own_forfeit() {
        let mut m = Manager::new(&setup(15, 15), LIMITS);
        m.ask(&Position::new(&game(15, 15, &[])), None);
        let Heard::Forfeit(f) = m.heard(b"ERROR unsupported size") else { panic!() };
        assert_eq!(
            (f.kind, f.detail.as_str()),
            (
                ForfeitKind::Limit,
                "it refused the board (15x15): it answered `ERROR unsupported size` to START"
            )
        );
        let mut m = Manager::new(&setup(15, 15), LIMITS);
        m.ask(&Position::new(&game(15, 15, &[])), None);
        m.heard(b"OK");
        m.heard(b"about");
        for (line, kind, detail) in [
            (
                "UNKNOWN",
                ForfeitKind::NotANumber,
                "answered `UNKNOWN`; expected a move X,Y (0-based, X the column)",
            ),
            ("7 7", ForfeitKind::NotANumber, "answered `7 7`; expected a move X,Y (0-based, X the column)"),
            (
                "\u{1b}[2J",
                ForfeitKind::NotANumber,
                "answered `\\u{1b}[2J`; expected a move X,Y (0-based, X the column)",
            ),
            ("15,0", ForfeitKind::OffBoard, "answered 15,0; the board's squares are 0,0 to 14,14"),
            ("-1,3", ForfeitKind::OffBoard, "answered -1,3; the board's squares are 0,0 to 14,14"),
        ] {
            let Heard::Forfeit(f) = m.heard(line.as_bytes()) else { panic!("{line}") };
            assert_eq!((f.kind, f.detail.as_str()), (kind, detail), "{line}");
        }
    }

    #[test]
    fn only_two_players_five_in_a_row_and_sensible_sides() {
        assert!(check(Geometry::new(15, 15, 5).unwrap(), 2).is_ok());
        assert!(check(Geometry::new(20, 20, 5).unwrap(), 2).is_ok());
        assert_eq!(
            check(Geometry::new(15, 15, 4).unwrap(), 2).unwrap_err(),
            "a Gomocup brain plays five in a row, not 4 (--win 5)"
        );
        assert_eq!(
            check(Geometry::new(15, 15, 5).unwrap(), 3).unwrap_err(),
            "a Gomocup brain plays two-player games only, not 3"
        );
        assert!(check(Geometry::new(3, 5, 3).unwrap(), 2).is_err());
        assert!(check(Geometry::new(5, 101, 5).unwrap(), 2).unwrap_err().contains("5x101"));
    }
}
