//! The transcript: the exact text a referee run writes, which grading scripts
//! diff byte for byte. This module owns the layout; it writes to any
//! [`io::Write`] and knows nothing of files or rules.
//!
//! ```text
//! Programmer: Dwight Barnette
//! CS 1044 Project 6 Spring 2002
//!
//! Tic-Tac-Toe game: X: D Barnette O: D Allison
//!
//! Move 1: X 6
//! - - -
//! - - X
//! - - -
//!
//! Y 5 illegal player
//!
//! Winner: Cat
//! ```

use std::io::{self, Write};

use crate::board::{Board, Geometry, Square};
use crate::game::{Game, Move, Outcome, Violation};
use crate::movefile::MoveRecord;
use crate::player::Players;
use crate::recorder::{Recorder, RefereeError};
use crate::render::{MAX_PRINTED_CELLS, Renderer, Style};

/// Which boards a transcript shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Boards {
    /// The board after every valid move (the classic layout).
    #[default]
    Each,
    /// No board after the moves; the board as it stands at the end, once,
    /// just before the `Winner:` line.
    Final,
    /// No boards at all.
    None,
}

/// A group is written out once it holds this many bytes, so that printing a
/// big board never holds it in memory whole.
const FLUSH_AT: usize = 64 << 10;

/// Everything about a transcript's look that a user can choose.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// The name on the first line, after `Programmer: `.
    pub programmer: String,
    /// The whole second line.
    pub project: String,
    /// How boards are drawn.
    pub style: Style,
    /// Which boards are shown.
    pub boards: Boards,
}

impl Layout {
    /// The programmer named in CS 1044 Project 6's sample transcript.
    pub const DEFAULT_PROGRAMMER: &'static str = "Dwight Barnette";
    /// The project line of CS 1044 Project 6's sample transcript.
    pub const DEFAULT_PROJECT: &'static str = "CS 1044 Project 6 Spring 2002";
}

impl Default for Layout {
    /// The layout of CS 1044 Project 6's sample transcript.
    fn default() -> Layout {
        Layout {
            programmer: Layout::DEFAULT_PROGRAMMER.to_owned(),
            project: Layout::DEFAULT_PROJECT.to_owned(),
            style: Style::Classic,
            boards: Boards::Each,
        }
    }
}

/// Writes one game's transcript, group by group, as the referee rules.
///
/// Call [`TranscriptWriter::header`] first, then one method per move line,
/// then [`TranscriptWriter::finish`].
pub struct TranscriptWriter<W> {
    out: W,
    layout: Layout,
    /// Set by the header, once the players' marks are known.
    renderer: Option<Renderer>,
    /// One group's bytes, reused so that writing allocates nothing per move.
    group: Vec<u8>,
}

impl<W: Write> TranscriptWriter<W> {
    /// A writer of transcripts in `layout` to `out`; writes nothing yet.
    pub fn new(out: W, layout: Layout) -> TranscriptWriter<W> {
        TranscriptWriter { out, layout, renderer: None, group: Vec::with_capacity(256) }
    }

    /// The underlying writer, unflushed.
    pub fn into_inner(self) -> W {
        self.out
    }

    /// Writes the header: programmer, project and the normalised players line.
    ///
    /// # Errors
    /// Any error of the underlying writer.
    pub fn header(&mut self, players: &Players) -> io::Result<()> {
        let g = &mut self.group;
        g.clear();
        g.extend_from_slice(b"Programmer: ");
        g.extend_from_slice(self.layout.programmer.as_bytes());
        g.push(b'\n');
        g.extend_from_slice(self.layout.project.as_bytes());
        g.extend_from_slice(b"\n\nTic-Tac-Toe game: ");
        for (id, player) in players.iter() {
            if id.index() > 0 {
                g.push(b' ');
            }
            push_char(g, player.mark.char());
            g.extend_from_slice(b": ");
            g.extend_from_slice(player.name.as_bytes());
        }
        g.extend_from_slice(b"\n\n");
        self.renderer = Some(Renderer::new(self.layout.style, players));
        self.out.write_all(g)
    }

    /// Writes a valid move's group: `Move N: L S`, the board unless the layout
    /// leaves it out, and a blank line.
    ///
    /// # Errors
    /// Any error of the underlying writer.
    pub fn valid_move(&mut self, number: u64, label: &str, square: Square, board: &Board) -> io::Result<()> {
        let g = &mut self.group;
        g.clear();
        g.extend_from_slice(b"Move ");
        g.extend_from_slice(itoa::Buffer::new().format(number).as_bytes());
        g.extend_from_slice(b": ");
        g.extend_from_slice(label.as_bytes());
        g.push(b' ');
        g.extend_from_slice(itoa::Buffer::new().format(square.number()).as_bytes());
        g.push(b'\n');
        if self.layout.boards == Boards::Each {
            self.draw(board)?;
        }
        self.group.push(b'\n');
        self.out.write_all(&self.group)
    }

    /// Appends `board` to the group, writing the group out whenever it grows
    /// past [`FLUSH_AT`] so that a big board is never in memory whole.
    fn draw(&mut self, board: &Board) -> io::Result<()> {
        let Some(renderer) = &self.renderer else { return Ok(()) };
        let out = &mut self.out;
        renderer.board_flushing(board, &mut self.group, FLUSH_AT, |g| {
            out.write_all(g)?;
            g.clear();
            Ok(())
        })
    }

    /// Writes a violation's group: both fields as written, the message, and a
    /// blank line.
    ///
    /// # Errors
    /// Any error of the underlying writer.
    pub fn violation(&mut self, label: &str, square: &str, violation: Violation) -> io::Result<()> {
        let g = &mut self.group;
        g.clear();
        g.extend_from_slice(label.as_bytes());
        g.push(b' ');
        g.extend_from_slice(square.as_bytes());
        g.push(b' ');
        g.extend_from_slice(violation.message().as_bytes());
        g.extend_from_slice(b"\n\n");
        self.out.write_all(g)
    }

    /// Writes the end: the final board if the layout asks for it, then
    /// `Winner: X`, `Winner: Cat` or, if the game never ended, `Winner: None`.
    ///
    /// # Errors
    /// Any error of the underlying writer.
    pub fn finish(&mut self, outcome: Option<Outcome>, players: &Players, board: &Board) -> io::Result<()> {
        self.group.clear();
        if self.layout.boards == Boards::Final {
            self.draw(board)?;
            self.group.push(b'\n');
        }
        let g = &mut self.group;
        g.extend_from_slice(b"Winner: ");
        match outcome {
            Some(Outcome::Win(player)) => push_char(g, players.get(player).mark.char()),
            Some(Outcome::Cat) => g.extend_from_slice(b"Cat"),
            None => g.extend_from_slice(b"None"),
        }
        g.push(b'\n');
        self.out.write_all(g)
    }
}

impl<W: Write> Recorder for TranscriptWriter<W> {
    fn accepts(&self, geometry: Geometry) -> Result<(), RefereeError> {
        if self.layout.boards != Boards::None && geometry.cells() > MAX_PRINTED_CELLS {
            return Err(RefereeError::TooBigToPrint(geometry));
        }
        Ok(())
    }

    fn start(&mut self, game: &Game) -> io::Result<()> {
        self.header(game.players())
    }

    fn ruling(
        &mut self,
        record: &MoveRecord<'_>,
        ruling: Result<Move, Violation>,
        game: &Game,
    ) -> io::Result<()> {
        match ruling {
            Ok(mv) => self.valid_move(game.moves_made(), record.label, mv.square, game.board()),
            Err(violation) => self.violation(record.label, record.square, violation),
        }
    }

    fn finish(&mut self, game: &Game) -> io::Result<()> {
        TranscriptWriter::finish(self, game.outcome(), game.players(), game.board())
    }
}

fn push_char(out: &mut Vec<u8>, c: char) {
    out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Geometry, Storage};
    use crate::player::PlayerId;

    fn text(bytes: Vec<u8>) -> String {
        String::from_utf8(bytes).unwrap()
    }

    #[test]
    fn writes_the_exact_layout() {
        let players = Players::classic("D Barnette", "D Allison");
        let mut board = Board::new(Geometry::CLASSIC, Storage::Auto);
        let mut t = TranscriptWriter::new(Vec::new(), Layout::default());
        t.header(&players).unwrap();
        let six = Square::from_index(5);
        board.set(six, PlayerId::new(0));
        t.valid_move(1, "X", six, &board).unwrap();
        t.violation("Y", "05", Violation::IllegalPlayer).unwrap();
        t.finish(Some(Outcome::Cat), &players, &board).unwrap();
        assert_eq!(
            text(t.into_inner()),
            "Programmer: Dwight Barnette\nCS 1044 Project 6 Spring 2002\n\n\
             Tic-Tac-Toe game: X: D Barnette O: D Allison\n\n\
             Move 1: X 6\n- - -\n- - X\n- - -\n\n\
             Y 05 illegal player\n\n\
             Winner: Cat\n"
        );
    }

    #[test]
    fn boards_final_and_none_leave_out_the_per_move_boards() {
        let players = Players::classic("a", "b");
        let mut board = Board::new(Geometry::CLASSIC, Storage::Auto);
        board.set(Square::from_index(0), PlayerId::new(1));
        let layout =
            |boards| Layout { programmer: "P".into(), project: "Q".into(), boards, style: Style::Grid };

        let mut t = TranscriptWriter::new(Vec::new(), layout(Boards::Final));
        t.header(&players).unwrap();
        t.valid_move(1, "O", Square::from_index(0), &board).unwrap();
        t.finish(None, &players, &board).unwrap();
        let out = text(t.into_inner());
        assert!(out.ends_with("Move 1: O 1\n\nO| | \n-+-+-\n | | \n-+-+-\n | | \n\nWinner: None\n"), "{out}");

        let mut t = TranscriptWriter::new(Vec::new(), layout(Boards::None));
        t.header(&players).unwrap();
        t.valid_move(1, "O", Square::from_index(0), &board).unwrap();
        t.finish(Some(Outcome::Win(PlayerId::new(1))), &players, &board).unwrap();
        let out = text(t.into_inner());
        assert_eq!(out, "Programmer: P\nQ\n\nTic-Tac-Toe game: X: a O: b\n\nMove 1: O 1\n\nWinner: O\n");
    }
}
