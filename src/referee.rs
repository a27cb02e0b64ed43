//! Refereeing a whole move file: the reader's records go through the rule
//! engine, and each ruling goes to a [`Recorder`] (the text transcript, or
//! JSON) as it is made.

use std::io::{self, BufRead, Write};

use thiserror::Error;

use crate::board::{Geometry, MAX_DENSE_CELLS, Storage};
use crate::game::{Game, Move, Violation};
use crate::json::JsonWriter;
use crate::movefile::{MoveReader, MoveRecord, ParseError};
use crate::transcript::{Layout, MAX_PRINTED_CELLS, TranscriptWriter};

/// The output formats of a referee run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Format {
    /// The exact text transcript.
    #[default]
    #[value(help = "the exact text transcript")]
    Text,
    /// One JSON document per game, as FORMAT.md describes.
    #[value(help = "one JSON document per game (see FORMAT.md)")]
    Json,
}

/// How to referee: the output's format and layout, and the board's storage.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// The text transcript's look (JSON ignores it).
    pub layout: Layout,
    /// How the board keeps its marks; rulings are the same either way.
    pub storage: Storage,
    /// Text transcript or JSON.
    pub format: Format,
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
    /// The transcript was asked to print a board too big to print.
    #[error(
        "a {}x{} board has {} squares, too many to print (at most {}); use --boards none",
        .0.rows(), .0.cols(), .0.cells(), MAX_PRINTED_CELLS
    )]
    TooBigToPrint(Geometry),
    /// The output could not be written.
    #[error("cannot write the transcript: {0}")]
    Write(#[source] io::Error),
}

/// Receives a referee run's rulings as they are made: one output format.
///
/// The referee calls [`Recorder::start`] once, [`Recorder::ruling`] for each
/// move line (with the game as it stands after the ruling), then
/// [`Recorder::finish`].
pub trait Recorder {
    /// Whether this output can be made for a board of `geometry`; checked
    /// before anything is written.
    ///
    /// # Errors
    /// The reason it cannot.
    fn accepts(&self, geometry: Geometry) -> Result<(), RefereeError> {
        let _ = geometry;
        Ok(())
    }

    /// The header has been read; no move yet.
    fn start(&mut self, game: &Game) -> io::Result<()>;
    /// One move line and its ruling.
    fn ruling(
        &mut self,
        record: &MoveRecord<'_>,
        ruling: Result<Move, Violation>,
        game: &Game,
    ) -> io::Result<()>;
    /// The game is over, or the moves ran out.
    fn finish(&mut self, game: &Game) -> io::Result<()>;
}

/// Referees the move file `input`, writing its output to `out` in the format
/// `options` asks for. `out` is not flushed.
///
/// # Errors
/// As [`referee_with`].
pub fn referee<R: BufRead, W: Write>(input: R, out: W, options: &Options) -> Result<Report, RefereeError> {
    match options.format {
        Format::Text => {
            referee_with(input, &mut TranscriptWriter::new(out, options.layout.clone()), options.storage)
        }
        Format::Json => referee_with(input, &mut JsonWriter::new(out), options.storage),
    }
}

/// Referees the move file `input`, handing every ruling to `recorder`.
///
/// Reading stops at the end of the game: lines after it are never read, so
/// they cannot make the file malformed.
///
/// # Errors
/// [`RefereeError::Parse`] for a malformed file, [`RefereeError::Write`] if
/// the recorder fails, [`RefereeError::TooBigForDense`] if `storage` cannot
/// hold the board. Part of the output may have been written by then.
pub fn referee_with<R: BufRead>(
    input: R,
    recorder: &mut impl Recorder,
    storage: Storage,
) -> Result<Report, RefereeError> {
    let mut reader = MoveReader::new(input)?;
    let header = reader.header().clone();
    if !storage.fits(header.geometry) {
        return Err(RefereeError::TooBigForDense(header.geometry));
    }
    recorder.accepts(header.geometry)?;
    let mut game = Game::new(header.players, header.geometry, storage);
    recorder.start(&game).map_err(RefereeError::Write)?;
    let mut violations = 0;

    while game.outcome().is_none() {
        let Some(record) = reader.next_record()? else { break };
        let ruling = game.play(record.label, record.square);
        violations += u64::from(ruling.is_err());
        recorder.ruling(&record, ruling, &game).map_err(RefereeError::Write)?;
    }

    recorder.finish(&game).map_err(RefereeError::Write)?;
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
