//! The seam between refereeing and output: a [`Recorder`] receives each
//! ruling as it is made, and [`referee_with`] runs a move file through the rule
//! engine into one. The output formats ([`crate::transcript`],
//! [`crate::json`]) implement the trait above this module; choosing one is
//! [`crate::referee`]'s job, above them.

use std::io::{self, BufRead};

use thiserror::Error;

use crate::board::{Geometry, MAX_DENSE_CELLS, Storage};
use crate::game::{Game, Move, Violation};
use crate::movefile::{MoveReader, MoveRecord, ParseError};
use crate::render::MAX_PRINTED_CELLS;

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
