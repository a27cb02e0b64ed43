//! What became of one game of a match or tournament: who sat where, how it
//! ended, and where its record is. Played now or read back from its record
//! on a resumed run, it is the same.

use std::path::PathBuf;

use crate::player::Mark;

use super::contest::{Ending, Score};

/// One game's result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameResult {
    /// The game's number, from 1.
    pub number: u64,
    /// The participants (indices into the event's list), in turn order.
    pub seats: Vec<usize>,
    /// Their marks, in turn order.
    pub marks: Vec<Mark>,
    /// How many valid moves were made (the opening's among them).
    pub moves: usize,
    /// How it ended.
    pub ending: Ending,
    /// Its record, relative to the report directory (`games/001.txt`);
    /// `None` without `--report`.
    pub record: Option<PathBuf>,
    /// What each seat left on standard error, in turn order; `None` for a
    /// game read back from its record (a resumed run does not keep it).
    pub stderr: Option<Vec<String>>,
    /// Whether it was read back from its record rather than played.
    pub resumed: bool,
}

impl GameResult {
    /// The result of the participant in `seat`.
    #[must_use]
    pub fn score(&self, seat: usize) -> Score {
        self.ending.score(seat, self.seats.len())
    }
}
