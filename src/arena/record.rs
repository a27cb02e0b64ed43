//! A game's record: a move file in the usual format, whose title line says
//! who played, how it ended and why, such as
//! `Match game 3 (seed 1): alice (X) vs bob (O): O wins by forfeit of X (time: no answer within 1 s)`.
//!
//! Refereed (`ttt-referee FILE`), a record replays the game to its result:
//! a win or `Cat` for a finished game; for a forfeit, the moves up to it
//! and `Winner: None`, with the illegal move itself as the last line when
//! the forfeit was for a taken square or one off the board (the referee
//! rules it `marked square` or `illegal square`). [`read`] reads a record
//! back, and refuses one that is not of the game asked for, so a resumed
//! tournament never counts a game it did not plan.

use std::fmt::Write as _;

use crate::board::Geometry;
use crate::game::{Game, Move, Outcome, Violation};
use crate::movefile::{self, MoveReader};
use crate::player::{Mark, Player, Players};
use crate::text;

use super::contest::Ending;
use super::entrant::{Forfeit, ForfeitKind};

/// The most of a forfeit's detail a record keeps, in bytes.
const DETAIL_BYTES: usize = 512;

/// Who played a game, and where it stands in its match or tournament: what
/// its record's title and players line are made of.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Heading {
    /// `Match` or `Tournament`.
    pub event: &'static str,
    /// The game's number, from 1.
    pub number: u64,
    /// The event's seed (`--seed`).
    pub seed: u64,
    /// The participants' names, in turn order.
    pub names: Vec<String>,
    /// Their marks, in turn order.
    pub marks: Vec<Mark>,
    /// The board.
    pub geometry: Geometry,
}

/// A game as its record tells it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recorded {
    /// The valid moves, in order.
    pub moves: Vec<Move>,
    /// The illegal square recorded for a forfeit, if one is.
    pub refused: Option<String>,
    /// How it ended.
    pub ending: Ending,
}

/// Why a record is not the one of the game asked for.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Mismatch(String);

impl Mismatch {
    /// A mismatch saying `why`.
    #[must_use]
    pub fn new(why: impl Into<String>) -> Mismatch {
        Mismatch(why.into())
    }
}

/// A name as records write it: white space and control characters become
/// `_`, and so does `:` (a word such as `X:` would declare a player); the
/// rest is made inert ([`text::inert`]: a bidirectional override or a
/// zero-width space is shown escaped, `##[` broken).
#[must_use]
pub fn name(name: &str) -> String {
    let name: String =
        name.chars().map(|c| if c.is_whitespace() || c.is_control() || c == ':' { '_' } else { c }).collect();
    if name.is_empty() { "_".to_owned() } else { text::inert(&name).into_owned() }
}

/// A forfeit's detail as records (and so every report) keep it: one line,
/// control characters shown escaped, at most [`DETAIL_BYTES`] with its
/// length said beyond.
#[must_use]
pub fn detail(detail: &str) -> String {
    text::inert(&text::said(detail, DETAIL_BYTES)).into_owned()
}

impl Heading {
    /// The players of the game, named as the record names them.
    #[must_use]
    pub fn players(&self) -> Players {
        let players =
            self.marks.iter().zip(&self.names).map(|(&mark, n)| Player { mark, name: name(n) }).collect();
        Players::new(players).unwrap_or_else(|_| unreachable!("one distinct mark per participant"))
    }

    /// The title up to its result: `Match game 3 (seed 1): alice (X) vs bob (O)`.
    #[must_use]
    pub fn prefix(&self) -> String {
        let mut text = format!("{} game {} (seed {}): ", self.event, self.number, self.seed);
        for (i, (n, mark)) in self.names.iter().zip(&self.marks).enumerate() {
            if i > 0 {
                text.push_str(" vs ");
            }
            let _ = write!(text, "{} ({mark})", name(n));
        }
        text
    }

    /// The whole title line.
    #[must_use]
    pub fn title(&self, ending: &Ending) -> String {
        format!("{}: {}", self.prefix(), result(ending, &self.marks))
    }

    /// The record of a game that went `moves`, then `refused` (an illegal
    /// square that forfeited), and ended so.
    #[must_use]
    pub fn write(&self, moves: &[Move], refused: Option<&str>, ending: &Ending) -> String {
        let players = self.players();
        let mut text = movefile::header(&self.title(ending), &players, self.geometry);
        for mv in moves {
            movefile::move_line(&mut text, &players.get(mv.player).mark, &mv.square.number());
        }
        if let (Some(square), Ending::Forfeit { seat, .. }) = (refused, ending) {
            movefile::move_line(&mut text, &self.marks[*seat], &square);
        }
        text
    }
}

/// A game's result as its title says it: `X wins`, `draw`, `O wins by
/// forfeit of X (time: …)`, or with more players `O and Z draw by forfeit
/// of X (…)`.
#[must_use]
pub fn result(ending: &Ending, marks: &[Mark]) -> String {
    match ending {
        Ending::Win(seat) => format!("{} wins", marks[*seat]),
        Ending::Draw => "draw".to_owned(),
        Ending::Forfeit { seat, forfeit } => {
            let others: Vec<String> =
                marks.iter().enumerate().filter(|(i, _)| i != seat).map(|(_, m)| m.to_string()).collect();
            let result = match others.as_slice() {
                [winner] => format!("{winner} wins"),
                [first @ .., last] => format!("{} and {last} draw", first.join(", ")),
                [] => "no one wins".to_owned(),
            };
            format!("{result} by forfeit of {} ({}: {})", marks[*seat], forfeit.kind, forfeit.detail)
        }
    }
}

/// Reads the record `text` of the game `heading` describes, which began
/// with `opening`.
///
/// # Errors
/// [`Mismatch`], saying how, when it is not a record of that game: another
/// title, players, board or opening, a result its moves do not bear out, or
/// a file that is no move file at all.
pub fn read(text: &str, heading: &Heading, opening: &[Move]) -> Result<Recorded, Mismatch> {
    let fail = |why: String| Err(Mismatch(why));
    let title = text.trim_start_matches('\u{feff}').split(['\n', '\r']).next().unwrap_or("");
    let prefix = format!("{}: ", heading.prefix());
    let Some(said) = title.strip_prefix(&prefix) else {
        return fail(format!(
            "its title is `{}`; expected one starting `{prefix}`",
            text::line(&text::inert(title))
        ));
    };
    let ending = parse_result(said, &heading.marks)
        .filter(|ending| heading.title(ending) == title)
        .ok_or_else(|| {
            Mismatch(format!(
                "its title's result `{}` is not one a game ends with",
                text::line(&text::inert(said))
            ))
        })?;
    let mut reader =
        MoveReader::new(text.as_bytes()).map_err(|e| Mismatch(format!("it is not a move file: {e}")))?;
    if reader.header().players != heading.players() {
        return fail(format!(
            "its players are `{}`; expected `{}`",
            reader.header().players,
            heading.players()
        ));
    }
    if reader.header().geometry != heading.geometry {
        return fail(format!("its board is {}; expected {}", reader.header().geometry, heading.geometry));
    }
    let mut game = Game::new(heading.players(), heading.geometry, crate::board::Storage::Auto);
    let mut moves = Vec::new();
    let mut refused = None;
    while let Some(record) =
        reader.next_record().map_err(|e| Mismatch(format!("it is not a move file: {e}")))?
    {
        if refused.is_some() {
            return fail(format!("line {}: a move after the forfeit", record.line));
        }
        match game.play(record.label, record.square) {
            Ok(mv) => moves.push(mv),
            Err(violation) => {
                let offender = match &ending {
                    Ending::Forfeit { seat, forfeit } => {
                        let expected = match forfeit.kind {
                            ForfeitKind::Taken => Some(Violation::MarkedSquare),
                            ForfeitKind::OffBoard => Some(Violation::IllegalSquare),
                            _ => None,
                        };
                        (expected == Some(violation)).then_some(heading.marks[*seat])
                    }
                    _ => None,
                };
                if offender.is_none_or(|mark| record.label != mark.to_string()) {
                    return fail(format!(
                        "line {}: `{} {}` is {violation}",
                        record.line, record.label, record.square
                    ));
                }
                refused = Some(record.square.to_owned());
            }
        }
    }
    if moves.len() < opening.len() || moves[..opening.len()] != *opening {
        return fail("its first moves are not the game's opening".to_owned());
    }
    let agrees = match (&ending, game.outcome()) {
        (Ending::Win(seat), Some(Outcome::Win(player))) => player.index() == *seat,
        (Ending::Draw, Some(Outcome::Cat)) => true,
        (Ending::Forfeit { forfeit, .. }, None) => {
            refused.is_some() == matches!(forfeit.kind, ForfeitKind::Taken | ForfeitKind::OffBoard)
        }
        _ => false,
    };
    if !agrees {
        let refereed = match game.outcome() {
            Some(Outcome::Win(player)) => format!("{} wins", heading.marks[player.index()]),
            Some(Outcome::Cat) => "Cat".to_owned(),
            None => "no winner yet".to_owned(),
        };
        return fail(format!("its title says `{said}`, but its moves referee to {refereed}"));
    }
    Ok(Recorded { moves, refused, ending })
}

/// The ending a title's result says, if it says one (checked by writing it
/// again).
fn parse_result(said: &str, marks: &[Mark]) -> Option<Ending> {
    let seat_of = |mark: &str| marks.iter().position(|m| m.to_string() == mark);
    if said == "draw" {
        return Some(Ending::Draw);
    }
    if let Some((_, rest)) = said.split_once(" by forfeit of ") {
        let (mark, rest) = rest.split_once(" (")?;
        let (kind, detail) = rest.strip_suffix(')')?.split_once(": ")?;
        let forfeit = Forfeit::new(ForfeitKind::from_name(kind)?, detail);
        return Some(Ending::Forfeit { seat: seat_of(mark)?, forfeit });
    }
    Some(Ending::Win(seat_of(said.strip_suffix(" wins")?)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Square;
    use crate::player::PlayerId;
    use crate::referee::{self, Format, Options};

    fn heading(players: usize) -> Heading {
        let marks: Vec<Mark> =
            crate::corpus::MARKS[..players].iter().map(|&c| Mark::new(c).unwrap()).collect();
        let names = ["alice", "bob smith", "X:"][..players].iter().map(|s| (*s).to_owned()).collect();
        Heading { event: "Match", number: 3, seed: 1, names, marks, geometry: Geometry::CLASSIC }
    }

    fn moves(squares: &[u64], players: usize) -> Vec<Move> {
        squares
            .iter()
            .enumerate()
            .map(|(i, &n)| Move { player: PlayerId::new(i % players), square: Square::from_index(n - 1) })
            .collect()
    }

    /// What the referee's JSON says of a record: its winner and verdicts.
    fn refereed(text: &str) -> serde_json::Value {
        let options = Options { format: Format::Json, ..Options::default() };
        let mut out = Vec::new();
        referee::referee(text.as_bytes(), &mut out, &options).unwrap();
        serde_json::from_slice(&out).unwrap()
    }

    fn forfeit(kind: ForfeitKind, detail: &str) -> Ending {
        Ending::Forfeit { seat: 1, forfeit: Forfeit::new(kind, detail) }
    }

    #[test]
    fn titles_say_who_played_the_result_and_why() {
        let h = heading(2);
        assert_eq!(h.title(&Ending::Win(0)), "Match game 3 (seed 1): alice (X) vs bob_smith (O): X wins");
        assert_eq!(h.title(&Ending::Draw), "Match game 3 (seed 1): alice (X) vs bob_smith (O): draw");
        assert_eq!(
            h.title(&forfeit(ForfeitKind::Time, "no answer within 1 s")),
            "Match game 3 (seed 1): alice (X) vs bob_smith (O): X wins by forfeit of O (time: no answer within 1 s)"
        );
        let h = heading(3);
        assert_eq!(
            result(
                &Ending::Forfeit { seat: 0, forfeit: Forfeit::new(ForfeitKind::Exited, "status 1") },
                &h.marks
            ),
            "O and Z draw by forfeit of X (exited: status 1)"
        );
        assert_eq!(name("a b\tc:\n"), "a_b_c__");
        assert_eq!(name(""), "_");
        assert_eq!(detail("line\nbreak"), "line\\u{a}break");
    }

    #[test]
    fn every_record_reads_back_and_referees_to_its_result() {
        let h = heading(2);
        let cases: Vec<(Vec<Move>, Option<&str>, Ending, serde_json::Value)> = vec![
            (moves(&[1, 4, 2, 5, 3], 2), None, Ending::Win(0), "X".into()),
            (moves(&[6, 9, 7, 4, 1, 3, 5, 2, 8], 2), None, Ending::Draw, "Cat".into()),
            (
                moves(&[1], 2),
                Some("1"),
                forfeit(ForfeitKind::Taken, "answered 1, which is taken"),
                serde_json::Value::Null,
            ),
            (
                moves(&[1], 2),
                Some("10"),
                forfeit(ForfeitKind::OffBoard, "answered 10"),
                serde_json::Value::Null,
            ),
            (
                moves(&[1], 2),
                None,
                forfeit(ForfeitKind::NotANumber, "answered `x (y: z)`"),
                serde_json::Value::Null,
            ),
            (vec![], None, forfeit(ForfeitKind::Exited, "exited with status 1"), serde_json::Value::Null),
        ];
        for (moves, refused, ending, winner) in cases {
            let text = h.write(&moves, refused, &ending);
            let recorded = read(&text, &h, &[]).unwrap_or_else(|e| panic!("{e}\n{text}"));
            assert_eq!(
                recorded,
                Recorded { moves: moves.clone(), refused: refused.map(str::to_owned), ending }
            );
            let json = refereed(&text);
            assert_eq!(json["winner"], winner, "{text}");
            let verdicts: Vec<&str> =
                json["moves"].as_array().unwrap().iter().map(|m| m["verdict"].as_str().unwrap()).collect();
            let expected_last = match refused {
                Some("1") => Some("marked square"),
                Some(_) => Some("illegal square"),
                None => None,
            };
            assert_eq!(verdicts.iter().filter(|v| **v == "ok").count(), moves.len(), "{text}");
            assert_eq!(verdicts.last().copied().filter(|v| *v != "ok"), expected_last, "{text}");
        }
    }

    #[test]
    fn a_record_of_another_game_is_refused_saying_how() {
        let h = heading(2);
        let text = h.write(&moves(&[1, 4, 2, 5, 3], 2), None, &Ending::Win(0));
        let why = |text: &str, h: &Heading, opening: &[Move]| read(text, h, opening).unwrap_err().to_string();
        let other_seed = Heading { seed: 2, ..h.clone() };
        assert_eq!(
            why(&text, &other_seed, &[]),
            "its title is `Match game 3 (seed 1): alice (X) vs bob_smith (O): X wins`; expected one starting `Match game 3 (seed 2): alice (X) vs bob_smith (O): `"
        );
        let lie = text.replace("X wins", "O wins");
        assert_eq!(why(&lie, &h, &[]), "its title says `O wins`, but its moves referee to X wins");
        let odd = text.replace("X wins", "X won");
        assert_eq!(why(&odd, &h, &[]), "its title's result `X won` is not one a game ends with");
        let bigger = Heading { geometry: Geometry::new(4, 4, 3).unwrap(), ..h.clone() };
        let text4 = bigger.write(&[], None, &forfeit(ForfeitKind::Time, "t"));
        assert_eq!(why(&text4, &h, &[]), "its board is 4x4, 3 in a row; expected 3x3, 3 in a row");
        let renamed = text.replace("O: bob_smith", "O: carol");
        assert_eq!(
            why(&renamed, &h, &[]),
            "its players are `X: alice O: carol`; expected `X: alice O: bob_smith`"
        );
        assert_eq!(why(&text, &h, &moves(&[5], 2)), "its first moves are not the game's opening");
        let illegal = format!("{text}O\t1\n");
        assert_eq!(why(&illegal, &h, &[]), "line 9: `O 1` is game over");
        let broken = text.replace("X\t1\n", "X 1 2\n");
        assert!(
            why(&broken, &h, &[]).starts_with("it is not a move file: line 4:"),
            "{}",
            why(&broken, &h, &[])
        );
        let after = h.write(&moves(&[1], 2), Some("1"), &forfeit(ForfeitKind::Taken, "t")) + "X\t2\n";
        assert_eq!(why(&after, &h, &[]), "line 6: a move after the forfeit");
    }
}
