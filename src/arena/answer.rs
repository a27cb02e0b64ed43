//! Judging a seat's answer: the text of its one line, read as a square of
//! the position it answered, or the forfeit it earns.
//!
//! Spaces around the number and a CR before the line end are forgiven; a
//! number is decimal digits with an optional sign, leading zeros allowed
//! (as in move files). Anything else is `not-a-number`; a number that is no
//! square is `off-board`; a square that holds a mark is `taken-square`.

use std::borrow::Cow;

use crate::board::Square;
use crate::game::Game;
use crate::text;

use super::entrant::{Forfeit, ForfeitKind};

/// The most of an answer a forfeit's detail quotes, in bytes.
const QUOTED: usize = 64;

/// The most digits a recorded off-board number keeps: any more are beyond
/// every board (which has at most 10^12 squares), and cut they still are.
const RECORDED_DIGITS: usize = 20;

/// A judged answer that is no move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    /// The forfeit it earns.
    pub forfeit: Forfeit,
    /// For a number that is no free square (`taken-square`, `off-board`),
    /// the square field the record writes, so refereeing the record rules
    /// the move illegal as the arena did; `None` for an answer that is not
    /// a number, which no move line records.
    pub recorded: Option<String>,
}

/// The square `answer` takes for the player to move in `game` (not over).
///
/// # Errors
/// [`Refused`]: the answer is not a number, not a square, or a taken one.
pub fn judge(game: &Game, answer: &str) -> Result<Square, Refused> {
    let geometry = game.board().geometry();
    let cells = geometry.cells();
    let trimmed = answer.strip_suffix('\n').unwrap_or(answer);
    let trimmed = trimmed.strip_suffix('\r').unwrap_or(trimmed).trim_matches([' ', '\t']);
    let (negative, digits) = match trimmed.as_bytes().first() {
        Some(b'-') => (true, &trimmed[1..]),
        Some(b'+') => (false, &trimmed[1..]),
        _ => (false, trimmed),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        let detail = if trimmed.is_empty() {
            format!("answered an empty line; expected a square from 1 to {cells}")
        } else {
            format!("answered `{}`; expected a square from 1 to {cells}", quoted(answer))
        };
        return Err(Refused { forfeit: Forfeit::new(ForfeitKind::NotANumber, detail), recorded: None });
    }
    let significant = digits.trim_start_matches('0');
    let square = (!negative).then(|| geometry.parse_square(digits)).flatten();
    let Some(square) = square else {
        let number = if significant.is_empty() { "0" } else { text::prefix(significant, RECORDED_DIGITS) };
        let recorded =
            if negative && !significant.is_empty() { format!("-{number}") } else { number.to_owned() };
        let detail = format!(
            "answered {}; the board's squares are 1 to {cells}",
            quoted(answer.trim_matches(is_space))
        );
        return Err(Refused {
            forfeit: Forfeit::new(ForfeitKind::OffBoard, detail),
            recorded: Some(recorded),
        });
    };
    if game.board().get(square).is_some() {
        let detail = format!("answered {}, which is taken", square.number());
        return Err(Refused {
            forfeit: Forfeit::new(ForfeitKind::Taken, detail),
            recorded: Some(square.number().to_string()),
        });
    }
    Ok(square)
}

fn is_space(c: char) -> bool {
    c.is_whitespace()
}

/// An answer as a detail quotes it: on one line, inert, at most [`QUOTED`]
/// bytes with its length said beyond.
fn quoted(answer: &str) -> Cow<'_, str> {
    match text::said(answer, QUOTED) {
        Cow::Borrowed(short) => text::inert(short),
        Cow::Owned(long) => Cow::Owned(text::inert(&long).into_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Geometry, Storage};
    use crate::game::Move;
    use crate::player::{PlayerId, Players};

    fn game() -> Game {
        let mut game = Game::new(Players::classic("a", "b"), Geometry::CLASSIC, Storage::Auto);
        game.play_unchecked(Move { player: PlayerId::new(0), square: Square::from_index(4) });
        game
    }

    fn refused(answer: &str) -> (ForfeitKind, String, Option<String>) {
        let r = judge(&game(), answer).unwrap_err();
        (r.forfeit.kind, r.forfeit.detail, r.recorded)
    }

    #[test]
    fn spaces_a_cr_a_plus_and_leading_zeros_are_forgiven() {
        for answer in ["1", " 1 ", "1\r", "1\r\n", "\t+01 \r\n", "0001"] {
            assert_eq!(judge(&game(), answer), Ok(Square::from_index(0)), "{answer:?}");
        }
    }

    #[test]
    fn each_wrong_answer_is_its_own_forfeit() {
        assert_eq!(
            refused("abc"),
            (ForfeitKind::NotANumber, "answered `abc`; expected a square from 1 to 9".into(), None)
        );
        assert_eq!(
            refused("\r\n"),
            (ForfeitKind::NotANumber, "answered an empty line; expected a square from 1 to 9".into(), None)
        );
        assert_eq!(refused("5 6").0, ForfeitKind::NotANumber);
        assert_eq!(refused("5.0").0, ForfeitKind::NotANumber);
        assert_eq!(refused("\u{1b}[2J").1, "answered `\\u{1b}[2J`; expected a square from 1 to 9");
        assert_eq!(
            refused("10"),
            (ForfeitKind::OffBoard, "answered 10; the board's squares are 1 to 9".into(), Some("10".into()))
        );
        assert_eq!(refused("0").2, Some("0".into()));
        assert_eq!(refused("-3").2, Some("-3".into()));
        assert_eq!(refused("-0").2, Some("0".into()));
        let huge = "9".repeat(300);
        let (kind, detail, recorded) = refused(&huge);
        assert_eq!(kind, ForfeitKind::OffBoard);
        assert!(detail.contains("… (300 bytes in all)"), "{detail}");
        assert_eq!(recorded, Some("9".repeat(20)));
        assert_eq!(refused("5"), (ForfeitKind::Taken, "answered 5, which is taken".into(), Some("5".into())));
    }

    #[test]
    fn a_recorded_refusal_is_ruled_illegal_by_the_referee_rules() {
        for (answer, violation) in [
            ("10", crate::game::Violation::IllegalSquare),
            ("-3", crate::game::Violation::IllegalSquare),
            (&"9".repeat(300), crate::game::Violation::IllegalSquare),
            ("05", crate::game::Violation::MarkedSquare),
        ] {
            let recorded = judge(&game(), answer).unwrap_err().recorded.unwrap();
            assert_eq!(game().check("O", &recorded), Err(violation), "{answer}");
        }
    }
}
