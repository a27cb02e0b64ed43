//! Refereeing a whole move file: the reader's records go through the rule
//! engine, and each ruling goes to the transcript as it is made.

use std::io::{self, BufRead, Write};

use thiserror::Error;

use crate::board::{Geometry, MAX_DENSE_CELLS, Storage};
use crate::game::Game;
use crate::movefile::{MoveReader, ParseError};
use crate::transcript::{Layout, TranscriptWriter};

/// How to referee: the transcript's layout and the board's storage.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// The transcript's look.
    pub layout: Layout,
    /// How the board keeps its marks; rulings are the same either way.
    pub storage: Storage,
}

/// What a referee run found.
#[derive(Clone, Debug)]
pub struct Report {
    /// The game as it stood when refereeing stopped: its players, board and
    /// outcome (`None` if the moves ran out first).
    pub game: Game,
    /// How many move lines broke a rule.
    pub violations: u64,
}

/// Why a move file could not be refereed.
#[derive(Debug, Error)]
pub enum RefereeError {
    /// The move file is malformed (or could not be read).
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// `--storage dense` was asked for a board too big to keep densely.
    #[error(
        "a {}x{} board has {} squares, more than dense storage holds ({}); use --storage sparse or auto",
        .0.rows(), .0.cols(), .0.cells(), MAX_DENSE_CELLS
    )]
    TooBigForDense(Geometry),
    /// The transcript could not be written.
    #[error("cannot write the transcript: {0}")]
    Write(#[source] io::Error),
}

/// Referees the move file `input`, writing its transcript to `out`.
///
/// Reading stops at the end of the game: lines after it are never read, so
/// they cannot make the file malformed. `out` is not flushed.
///
/// # Errors
/// [`RefereeError::Parse`] for a malformed file, [`RefereeError::Write`] if
/// `out` fails. Part of the transcript may have been written by then.
pub fn referee<R: BufRead, W: Write>(input: R, out: W, options: &Options) -> Result<Report, RefereeError> {
    let mut reader = MoveReader::new(input)?;
    let header = reader.header().clone();
    if !options.storage.fits(header.geometry) {
        return Err(RefereeError::TooBigForDense(header.geometry));
    }
    let mut game = Game::new(header.players, header.geometry, options.storage);
    let mut transcript =
        TranscriptWriter::start(out, &options.layout, game.players()).map_err(RefereeError::Write)?;
    let mut violations = 0;

    while game.outcome().is_none() {
        let Some(record) = reader.next_record()? else {
            break;
        };
        let written = match game.play(record.label, record.square) {
            Ok(mv) => transcript.valid_move(game.moves_made(), record.label, mv.square, game.board()),
            Err(violation) => {
                violations += 1;
                transcript.violation(record.label, record.square, violation)
            }
        };
        written.map_err(RefereeError::Write)?;
    }

    transcript.finish(game.outcome(), game.players(), game.board()).map_err(RefereeError::Write)?;
    Ok(Report { game, violations })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Outcome;

    fn run(input: &str) -> (Result<Report, RefereeError>, String) {
        let mut out = Vec::new();
        let result = referee(input.as_bytes(), &mut out, &Options::default());
        (result, String::from_utf8(out).unwrap())
    }

    #[test]
    fn stops_reading_at_the_end_of_the_game() {
        let (report, out) = run("t\nX: a O: b\n\nX 1\nO 4\nX 2\nO 5\nX 3\nthis line is not a move line\n");
        let report = report.unwrap();
        assert!(matches!(report.game.outcome(), Some(Outcome::Win(_))));
        assert!(out.ends_with("Winner: X\n"));
    }

    #[test]
    fn counts_violations_and_reports_an_unfinished_game() {
        let (report, out) = run("t\nX: a O: b\n\nY 5\nX 5\nX 6\n");
        let report = report.unwrap();
        assert_eq!((report.violations, report.game.moves_made(), report.game.outcome()), (2, 1, None));
        assert!(out.ends_with("X 6 double move\n\nWinner: None\n"));
    }

    #[test]
    fn a_malformed_line_is_an_error_with_its_line() {
        let (result, _) = run("t\nX: a O: b\n\nX 5\nO\n");
        match result {
            Err(RefereeError::Parse(e)) => assert_eq!(e.line(), 5),
            other => panic!("{other:?}"),
        }
    }
}
