//! Refereeing a whole move file into the output format asked for: this
//! module picks the [`Recorder`] (the text transcript, or JSON) and hands it to
//! [`referee_with`], which lives below both in [`crate::recorder`].

use std::io::{BufRead, Write};

use crate::board::Storage;
use crate::json::JsonWriter;
pub use crate::recorder::{Recorder, RefereeError, Report, referee_with};
use crate::transcript::{Layout, TranscriptWriter};

/// The output formats of a referee run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Format {
    /// The exact text transcript.
    #[default]
    Text,
    /// One JSON document per game, as FORMAT.md describes.
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
