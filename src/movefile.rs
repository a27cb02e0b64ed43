//! Reading move files: the header (title, players, optional board line) and
//! then one record per move line, each with its line number; and writing
//! them ([`header`], [`move_line`]), for the games consoles record and the
//! corpora `gen` makes.
//!
//! The reader checks syntax only. It never judges a move: `Y 5` and `X 99` are
//! well-formed records, and ruling on them is the job of [`crate::game`].
//! Lines are read one at a time into one buffer, so memory stays flat however
//! long the file is, and nothing after the last record asked for is read.
//! Line numbers start at 1. The format is described in FORMAT.md.

mod lines;

use std::fmt::Write as _;
use std::io::BufRead;

use thiserror::Error;

use crate::board::{Geometry, GeometryError, MAX_SIDE};
use crate::player::{Mark, Player, Players, PlayersError};
use lines::{LineError, Lines};

/// The longest line a move file may have, in bytes.
pub const MAX_LINE_LEN: usize = 1 << 20;

/// What a move file says before its moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The players, in the turn order of the players line.
    pub players: Players,
    /// The board: the board line's, or the classic 3 × 3, three in a row.
    pub geometry: Geometry,
}

/// One move line: the two fields exactly as written, and where.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveRecord<'a> {
    /// The line number (1-based).
    pub line: u64,
    /// The first field: who claims to move.
    pub label: &'a str,
    /// The second field: the square, as written (`05` stays `05`).
    pub square: &'a str,
}

/// A move file is malformed: what is wrong, on which line.
#[derive(Debug, Error)]
#[error("line {line}: {kind}")]
pub struct ParseError {
    line: u64,
    kind: ParseErrorKind,
}

impl ParseError {
    fn new(line: u64, kind: ParseErrorKind) -> ParseError {
        ParseError { line, kind }
    }

    /// The line the problem is on (1-based).
    #[must_use]
    pub fn line(&self) -> u64 {
        self.line
    }

    /// What is wrong.
    #[must_use]
    pub fn kind(&self) -> &ParseErrorKind {
        &self.kind
    }
}

/// The ways a move file can be malformed; each message says what was expected.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// The input could not be read at all (an I/O failure mid-file).
    #[error("cannot read: {0}")]
    Io(#[source] std::io::Error),
    /// No bytes at all.
    #[error("the file is empty; expected a title line, then a players line such as `X: Ann Lee O: Bo Chan`")]
    Empty,
    /// Only a title line.
    #[error("the file ends after the title line; expected a players line such as `X: Ann Lee O: Bo Chan`")]
    MissingPlayers,
    /// The players line holds only whitespace.
    #[error("the players line is blank; expected players such as `X: Ann Lee O: Bo Chan`")]
    BlankPlayers,
    /// The players line does not open with a mark.
    #[error("the players line starts with `{found}`; expected a mark and a colon such as `X:`")]
    PlayersStart {
        /// The first field, as written.
        found: String,
    },
    /// A mark is followed by another mark or the end of the line.
    #[error("player `{mark}` has no name; expected a name after `{mark}:`")]
    NoName {
        /// The mark without a name.
        mark: Mark,
    },
    /// A mark uses a reserved character.
    #[error("`{found}` cannot be a mark; expected one character other than `-`, `:`, `|` or whitespace")]
    ReservedMark {
        /// The character used as a mark.
        found: char,
    },
    /// Two players share a mark.
    #[error("mark `{mark}` is declared twice; expected a different mark for every player")]
    DuplicateMark {
        /// The repeated mark.
        mark: Mark,
    },
    /// Too few or too many players.
    #[error("{count} {} declared; expected 2 to 10", plural(*.count, "player"))]
    PlayerCount {
        /// How many were declared.
        count: usize,
    },
    /// A board line that does not read as one.
    #[error("`{found}` is not a board line; expected one such as `Board: 5x7, 4 in a row`")]
    BoardSyntax {
        /// The line, as written (shortened if long).
        found: String,
    },
    /// A side outside 1..=1,000,000.
    #[error("a {rows}x{cols} board is out of range; expected rows and columns from 1 to 1000000")]
    BoardSize {
        /// Rows as written.
        rows: u64,
        /// Columns as written.
        cols: u64,
    },
    /// A winning length that cannot fit on the board.
    #[error("{win} in a row does not fit a {rows}x{cols} board; expected 1 to {max}")]
    WinLength {
        /// The winning length as written.
        win: u64,
        /// Rows.
        rows: u32,
        /// Columns.
        cols: u32,
        /// The largest winning length the board allows.
        max: u32,
    },
    /// A board line after the moves began.
    #[error("a board line must be line 3, right after the players line; expected a move `LABEL SQUARE`")]
    MisplacedBoard,
    /// A move line with other than two fields.
    #[error(
        "`{found}` has {count} {}; expected a move with two, `LABEL SQUARE`, such as `X 5`",
        plural(*.count, "field")
    )]
    MoveFields {
        /// How many whitespace-separated fields the line has.
        count: usize,
        /// The line, as written (shortened if long).
        found: String,
    },
    /// Bytes that are not UTF-8.
    #[error("byte 0x{byte:02X} at column {column} is not UTF-8 text; expected a UTF-8 text file")]
    NotUtf8 {
        /// The first offending byte.
        byte: u8,
        /// Its 1-based byte column.
        column: usize,
    },
    /// A line longer than [`MAX_LINE_LEN`].
    #[error("the line is longer than {max} bytes; expected a short move line")]
    LineTooLong {
        /// The limit.
        max: usize,
    },
}

/// Reads a move file: [`MoveReader::new`] reads the header, then
/// [`MoveReader::next_record`] hands out one move line at a time.
pub struct MoveReader<R> {
    lines: Lines<R>,
    header: Header,
    /// Line 3 was read to look for a board line and turned out to be a move
    /// line (or blank): it is still in the buffer, waiting to be handed out.
    pending: bool,
}

impl<R: BufRead> MoveReader<R> {
    /// Reads the title, players line and optional board line of `input`.
    ///
    /// # Errors
    /// A [`ParseError`] if the header is malformed or cannot be read.
    pub fn new(input: R) -> Result<MoveReader<R>, ParseError> {
        let mut lines = Lines::new(input, MAX_LINE_LEN);

        // The title is skipped, but it must be there, and be text.
        read_text(&mut lines)?.ok_or_else(|| ParseError::new(1, ParseErrorKind::Empty))?;

        let players = match read_text(&mut lines)? {
            Some(text) => parse_players(text).map_err(|kind| ParseError::new(2, kind))?,
            None => return Err(ParseError::new(2, ParseErrorKind::MissingPlayers)),
        };

        let (geometry, pending) = match read_text(&mut lines)? {
            Some(text) if text.trim_start().starts_with("Board:") => {
                (parse_board(text.trim()).map_err(|kind| ParseError::new(3, kind))?, false)
            }
            Some(_) => (Geometry::CLASSIC, true),
            None => (Geometry::CLASSIC, false),
        };

        Ok(MoveReader { lines, header: Header { players, geometry }, pending })
    }

    /// The header read by [`MoveReader::new`].
    #[must_use]
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The next move line, skipping blank lines; `None` at the end of input.
    ///
    /// # Errors
    /// A [`ParseError`] for a line that is not a move line or cannot be read.
    pub fn next_record(&mut self) -> Result<Option<MoveRecord<'_>>, ParseError> {
        let (label, square) = loop {
            if self.pending {
                self.pending = false;
            } else if !advance(&mut self.lines)? {
                return Ok(None);
            }
            let text = current_text(&self.lines)?;
            let mut fields = text.split_whitespace();
            match (fields.next(), fields.next(), fields.next()) {
                (None, _, _) => {}
                (Some(label), Some(square), None) => {
                    let line = self.lines.current();
                    break (span(line, label), span(line, square));
                }
                (Some(first), ..) => {
                    let kind = if first == "Board:" {
                        ParseErrorKind::MisplacedBoard
                    } else {
                        ParseErrorKind::MoveFields {
                            count: text.split_whitespace().count(),
                            found: shorten(text.trim()),
                        }
                    };
                    return Err(ParseError::new(self.lines.number(), kind));
                }
            }
        };
        // Both fields were checked as UTF-8 with their line above; the borrow
        // checker only needs them borrowed anew, a few bytes each.
        let line = self.lines.current();
        let field = |range| std::str::from_utf8(&line[range]).expect("checked as UTF-8 above");
        Ok(Some(MoveRecord { line: self.lines.number(), label: field(label), square: field(square) }))
    }
}

/// Where `field`, a subslice of `line`, lies in it.
fn span(line: &[u8], field: &str) -> std::ops::Range<usize> {
    let start = field.as_ptr() as usize - line.as_ptr() as usize;
    start..start + field.len()
}

/// Reads the next line; false at the end of input.
fn advance<R: BufRead>(lines: &mut Lines<R>) -> Result<bool, ParseError> {
    match lines.next_line() {
        Ok(line) => Ok(line.is_some()),
        Err(e) => {
            let kind = match e {
                LineError::Io(e) => ParseErrorKind::Io(e),
                LineError::TooLong => ParseErrorKind::LineTooLong { max: MAX_LINE_LEN },
            };
            Err(ParseError::new(lines.number(), kind))
        }
    }
}

/// Reads the next line as text; `None` at the end of input.
fn read_text<R: BufRead>(lines: &mut Lines<R>) -> Result<Option<&str>, ParseError> {
    if advance(lines)? { current_text(lines).map(Some) } else { Ok(None) }
}

/// The line last read, as UTF-8 text without a leading byte-order mark.
fn current_text<R>(lines: &Lines<R>) -> Result<&str, ParseError> {
    let mut bytes = lines.current();
    if lines.number() == 1 {
        bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    }
    std::str::from_utf8(bytes).map_err(|e| {
        let at = e.valid_up_to();
        let kind = ParseErrorKind::NotUtf8 { byte: bytes[at], column: at + 1 };
        ParseError::new(lines.number(), kind)
    })
}

/// Parses `X: D Barnette O: D Allison` (any 2–10 one-character marks).
fn parse_players(text: &str) -> Result<Players, ParseErrorKind> {
    let mut players: Vec<Player> = Vec::new();
    for field in text.split_whitespace() {
        if let Some(c) = mark_field(field) {
            if let Some(last) = players.last().filter(|p| p.name.is_empty()) {
                return Err(ParseErrorKind::NoName { mark: last.mark });
            }
            let mark = Mark::new(c).ok_or(ParseErrorKind::ReservedMark { found: c })?;
            players.push(Player { mark, name: String::new() });
        } else if let Some(player) = players.last_mut() {
            if !player.name.is_empty() {
                player.name.push(' ');
            }
            player.name.push_str(field);
        } else {
            return Err(ParseErrorKind::PlayersStart { found: shorten(field) });
        }
    }
    match players.last() {
        None => return Err(ParseErrorKind::BlankPlayers),
        Some(last) if last.name.is_empty() => {
            return Err(ParseErrorKind::NoName { mark: last.mark });
        }
        Some(_) => {}
    }
    Players::new(players).map_err(|e| match e {
        PlayersError::Count(count) => ParseErrorKind::PlayerCount { count },
        PlayersError::DuplicateMark(mark) => ParseErrorKind::DuplicateMark { mark },
    })
}

/// The mark character if `field` is a mark declaration such as `X:`.
fn mark_field(field: &str) -> Option<char> {
    let mut chars = field.chars();
    match (chars.next(), chars.next(), chars.next()) {
        (Some(c), Some(':'), None) => Some(c),
        _ => None,
    }
}

/// Parses `Board: RxC, K in a row` (spaces around `x` and `,` optional).
fn parse_board(text: &str) -> Result<Geometry, ParseErrorKind> {
    let syntax = || ParseErrorKind::BoardSyntax { found: shorten(text) };
    let rest = text.strip_prefix("Board:").ok_or_else(syntax)?;
    let mut scan = Scanner(rest);
    scan.spaces();
    let rows = scan.number().ok_or_else(syntax)?;
    scan.spaces();
    if !scan.eat_any(&["x", "X", "×"]) {
        return Err(syntax());
    }
    scan.spaces();
    let cols = scan.number().ok_or_else(syntax)?;
    scan.spaces();
    if !scan.eat_any(&[","]) {
        return Err(syntax());
    }
    scan.spaces();
    let win = scan.number().ok_or_else(syntax)?;
    for word in ["in", "a", "row"] {
        if !scan.spaces() || !scan.eat_any(&[word]) {
            return Err(syntax());
        }
    }
    scan.spaces();
    if !scan.0.is_empty() {
        return Err(syntax());
    }

    let size = ParseErrorKind::BoardSize { rows, cols };
    let (Ok(r), Ok(c)) = (u32::try_from(rows), u32::try_from(cols)) else {
        return Err(size);
    };
    let win_u32 = u32::try_from(win).unwrap_or(u32::MAX);
    Geometry::new(r, c, win_u32).map_err(|e| match e {
        GeometryError::Side => size,
        GeometryError::Win => {
            ParseErrorKind::WinLength { win, rows: r, cols: c, max: r.max(c).min(MAX_SIDE) }
        }
    })
}

/// A cursor over the rest of a board line.
struct Scanner<'a>(&'a str);

impl Scanner<'_> {
    /// Skips whitespace; true if there was any.
    fn spaces(&mut self) -> bool {
        let rest = self.0.trim_start();
        let skipped = rest.len() < self.0.len();
        self.0 = rest;
        skipped
    }

    /// Takes the first of `options` that the rest starts with.
    fn eat_any(&mut self, options: &[&str]) -> bool {
        for option in options {
            if let Some(rest) = self.0.strip_prefix(option) {
                self.0 = rest;
                return true;
            }
        }
        false
    }

    /// Takes a decimal number; a value past `u64` reads as `u64::MAX`.
    fn number(&mut self) -> Option<u64> {
        let end = self.0.find(|c: char| !c.is_ascii_digit()).unwrap_or(self.0.len());
        if end == 0 {
            return None;
        }
        let (digits, rest) = self.0.split_at(end);
        self.0 = rest;
        Some(digits.parse().unwrap_or(u64::MAX))
    }
}

/// `noun`, with an `s` unless `count` is 1.
fn plural(count: usize, noun: &str) -> String {
    if count == 1 { noun.to_owned() } else { format!("{noun}s") }
}

/// `text`, cut to a length that reads well inside an error message.
fn shorten(text: &str) -> String {
    const MAX_CHARS: usize = 60;
    match text.char_indices().nth(MAX_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

/// A move file's header as this crate writes it: the title, the players,
/// a `Board:` line unless the board is the classic 3 × 3, and the blank line
/// before the moves.
#[must_use]
pub fn header(title: &str, players: &Players, geometry: Geometry) -> String {
    let mut text = format!("{title}\n{players}\n");
    if geometry != Geometry::CLASSIC {
        let _ = writeln!(text, "Board: {geometry}");
    }
    text.push('\n');
    text
}

/// Appends one move line to `text`: the label and the square, a tab apart.
pub fn move_line(text: &mut String, label: &dyn std::fmt::Display, square: &dyn std::fmt::Display) {
    let _ = writeln!(text, "{label}\t{square}");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::player::PlayerId;

    fn reader(text: &str) -> Result<MoveReader<&[u8]>, ParseError> {
        MoveReader::new(text.as_bytes())
    }

    fn error(text: &str) -> (u64, String) {
        let mut r = match reader(text) {
            Ok(r) => r,
            Err(e) => return (e.line(), e.kind().to_string()),
        };
        loop {
            match r.next_record() {
                Ok(Some(_)) => {}
                Ok(None) => panic!("no error in {text:?}"),
                Err(e) => return (e.line(), e.kind().to_string()),
            }
        }
    }

    fn records(text: &str) -> Vec<(u64, String, String)> {
        let mut r = reader(text).unwrap();
        let mut out = Vec::new();
        while let Some(rec) = r.next_record().unwrap() {
            out.push((rec.line, rec.label.to_owned(), rec.square.to_owned()));
        }
        out
    }

    #[test]
    fn reads_the_seed_header_and_moves() {
        let r = reader("Tic-Tac-Toe Game Data\nX: D Barnette O: D Allison\n\nX\t6\nO\t9\n").unwrap();
        assert_eq!(r.header().players.to_string(), "X: D Barnette O: D Allison");
        assert_eq!(r.header().geometry, Geometry::CLASSIC);
        let recs = records("t\nX: a O: b\n\nX\t6\n\n  O   9  \n");
        assert_eq!(recs, [(4, "X".into(), "6".into()), (6, "O".into(), "9".into())]);
    }

    #[test]
    fn players_are_normalised_in_file_order() {
        let r = reader("\n  O:  Bo   Chan\tX: Ann \n").unwrap();
        assert_eq!(r.header().players.to_string(), "O: Bo Chan X: Ann");
        assert_eq!(r.header().players.find("O"), Some(PlayerId::new(0)));
    }

    #[test]
    fn line_three_may_be_a_move() {
        assert_eq!(records("t\nX: a O: b\nX 5"), [(3, "X".into(), "5".into())]);
    }

    #[test]
    fn strips_a_bom_and_accepts_every_line_end() {
        let recs = records("\u{feff}t\r\nX: a O: b\r\n\r\nX 1\rO 2\r\n");
        assert_eq!(recs, [(4, "X".into(), "1".into()), (5, "O".into(), "2".into())]);
    }

    #[test]
    fn reads_board_lines() {
        let g = |line: &str| reader(&format!("t\nX: a O: b\n{line}\n")).map(|r| r.header().geometry);
        assert_eq!(g("Board: 5x7, 4 in a row").unwrap(), Geometry::new(5, 7, 4).unwrap());
        assert_eq!(g("  Board:5 x 7 ,4  in a row ").unwrap(), Geometry::new(5, 7, 4).unwrap());
        assert_eq!(
            g("Board: 1000000X1000000, 5 in a row").unwrap(),
            Geometry::new(1_000_000, 1_000_000, 5).unwrap()
        );
    }

    #[test]
    fn errors_name_the_line_and_what_was_expected() {
        let cases: &[(&str, u64, &str)] = &[
            ("", 1, "the file is empty"),
            ("title only", 2, "ends after the title line"),
            ("t\n   \n", 2, "players line is blank"),
            ("t\nD Barnette X: a\n", 2, "starts with `D`; expected a mark"),
            ("t\nX: O: b\n", 2, "player `X` has no name"),
            ("t\nX: a O:\n", 2, "player `O` has no name"),
            ("t\nX: a -: b\n", 2, "`-` cannot be a mark"),
            ("t\nX: a X: b\n", 2, "mark `X` is declared twice"),
            ("t\nX: a\n", 2, "1 player declared; expected 2 to 10"),
            ("t\nA: a B: b C: c D: d E: e F: f G: g H: h I: i J: j K: k\n", 2, "11 players declared"),
            ("t\nX: a O: b\nBoard: 3 by 3\n", 3, "is not a board line"),
            ("t\nX: a O: b\nBoard: 0x3, 1 in a row\n", 3, "0x3 board is out of range"),
            ("t\nX: a O: b\nBoard: 3x1000001, 1 in a row\n", 3, "out of range"),
            ("t\nX: a O: b\nBoard: 3x99999999999999999999999, 1 in a row\n", 3, "out of range"),
            (
                "t\nX: a O: b\nBoard: 3x4, 5 in a row\n",
                3,
                "5 in a row does not fit a 3x4 board; expected 1 to 4",
            ),
            ("t\nX: a O: b\n\nBoard: 3x3, 3 in a row\n", 4, "board line must be line 3"),
            ("t\nX: a O: b\n\nX 5\nX\n", 5, "`X` has 1 field; expected a move with two"),
            ("t\nX: a O: b\n\nX 5 6\n", 4, "has 3 fields"),
        ];
        for (text, line, message) in cases {
            let (l, m) = error(text);
            assert_eq!((l, m.contains(message)), (*line, true), "{text:?} gave {l}: {m}");
        }
    }

    #[test]
    fn non_utf8_bytes_are_reported_with_their_column() {
        let mut r = MoveReader::new(&b"t\nX: a O: b\n\nX \xff\n"[..]).unwrap();
        let e = r.next_record().unwrap_err();
        assert_eq!(e.line(), 4);
        assert_eq!(
            e.kind().to_string(),
            "byte 0xFF at column 3 is not UTF-8 text; expected a UTF-8 text file"
        );
    }

    #[test]
    fn long_fields_are_shortened_in_messages() {
        let long = "y".repeat(500);
        let (_, m) = error(&format!("t\nX: a O: b\n\n{long}\n"));
        assert!(m.len() < 200, "{m}");
        assert!(m.contains('…'));
    }
}
