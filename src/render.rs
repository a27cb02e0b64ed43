//! Board renderings: `classic`, `grid` and `table`, each exact to the byte.
//!
//! Every rendering appends to a byte buffer and ends each line with `\n`.

use std::io;

use crate::board::Board;
use crate::player::{MAX_PLAYERS, PlayerId, Players};

/// The most squares a board may have for a transcript to print it: printing
/// more (a 1,000,000 × 1,000,000 board would be terabytes) is refused with
/// advice to use `--boards none`.
pub const MAX_PRINTED_CELLS: u64 = 1 << 24;

/// How a board is drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Style {
    /// Marks or `-`, one space between cells: `X - O` (CS 1044 Project 6).
    #[default]
    Classic,
    /// Cells joined by `|`, rows separated by `-+-+-`, a space for an empty
    /// cell (StFX asn3).
    Grid,
    /// A table with numbered rows and columns from 0 (Clemson CPSC 2150).
    Table,
}

/// Draws boards of one game: the players' marks encoded once, ready to copy.
///
/// Building one allocates nothing, so a renderer per transcript costs nothing.
#[derive(Clone, Debug)]
pub struct Renderer {
    style: Style,
    /// UTF-8 bytes of each player's mark, by player index, and their lengths.
    marks: [([u8; 4], u8); MAX_PLAYERS],
    /// Whether every mark is one ASCII byte (the usual case, and the fast one).
    ascii: bool,
}

impl Renderer {
    /// A renderer for `players`' boards in `style`.
    #[must_use]
    pub fn new(style: Style, players: &Players) -> Renderer {
        let mut marks = [([0; 4], 0); MAX_PLAYERS];
        for ((_, player), (bytes, len)) in players.iter().zip(&mut marks) {
            *len = u8::try_from(player.mark.char().encode_utf8(bytes).len()).expect("at most 4 bytes");
        }
        let ascii = players.iter().all(|(_, p)| p.mark.char().is_ascii());
        Renderer { style, marks, ascii }
    }

    /// Appends the whole board to `out`.
    pub fn board(&self, board: &Board, out: &mut Vec<u8>) {
        let never_full: io::Result<()> = self.board_flushing(board, out, usize::MAX, |_| Ok(()));
        never_full.expect("appending to a Vec cannot fail");
    }

    /// Appends the whole board to `buf`, row by row, calling `flush` (which
    /// must empty `buf`) whenever it holds `limit` bytes or more, so that a
    /// big board never sits in memory whole.
    ///
    /// # Errors
    /// Any error `flush` returns.
    pub fn board_flushing(
        &self,
        board: &Board,
        buf: &mut Vec<u8>,
        limit: usize,
        mut flush: impl FnMut(&mut Vec<u8>) -> io::Result<()>,
    ) -> io::Result<()> {
        let g = board.geometry();
        if self.style == Style::Table {
            buf.extend_from_slice(b"   ");
            let mut number = itoa::Buffer::new();
            for col in 0..g.cols() {
                right_align_2(number.format(col), buf);
                buf.push(b'|');
            }
            buf.push(b'\n');
        }
        for row in 0..g.rows() {
            if row > 0 && self.style == Style::Grid {
                buf.push(b'-');
                for _ in 1..g.cols() {
                    buf.extend_from_slice(b"+-");
                }
                buf.push(b'\n');
            }
            self.row(board, row, buf);
            if buf.len() >= limit {
                flush(buf)?;
            }
        }
        Ok(())
    }

    /// Appends one row of the board, with its line end, to `out`.
    ///
    /// In `table` style the row starts with its number.
    pub fn row(&self, board: &Board, row: u32, out: &mut Vec<u8>) {
        let cells = board.row(row);
        match self.style {
            Style::Classic => {
                out.reserve(2 * cells.len());
                for (col, cell) in cells.enumerate() {
                    if col > 0 {
                        out.push(b' ');
                    }
                    self.push_cell(cell, b'-', out);
                }
            }
            Style::Grid => {
                out.reserve(2 * cells.len());
                for (col, cell) in cells.enumerate() {
                    if col > 0 {
                        out.push(b'|');
                    }
                    self.push_cell(cell, b' ', out);
                }
            }
            Style::Table => {
                right_align_2(itoa::Buffer::new().format(row), out);
                out.push(b'|');
                out.reserve(3 * cells.len());
                for cell in cells {
                    self.push_cell(cell, b' ', out);
                    out.extend_from_slice(b" |");
                }
            }
        }
        out.push(b'\n');
    }

    /// Appends the mark at `row`, `col`, or `empty` if the square is empty.
    pub fn cell(&self, board: &Board, row: u32, col: u32, empty: u8, out: &mut Vec<u8>) {
        self.push_cell(board.at(row, col), empty, out);
    }

    #[inline]
    fn push_cell(&self, cell: Option<PlayerId>, empty: u8, out: &mut Vec<u8>) {
        match cell {
            None => out.push(empty),
            Some(player) => {
                let (bytes, len) = &self.marks[player.index()];
                if self.ascii {
                    out.push(bytes[0]);
                } else {
                    out.extend_from_slice(&bytes[..usize::from(*len)]);
                }
            }
        }
    }
}

/// Appends `digits` right-aligned in a field of width 2.
fn right_align_2(digits: &str, out: &mut Vec<u8>) {
    if digits.len() < 2 {
        out.push(b' ');
    }
    out.extend_from_slice(digits.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Geometry, Storage};

    fn draw(style: Style, rows: u32, cols: u32, marks: &[(u32, u32, usize)]) -> String {
        let g = Geometry::new(rows, cols, 1.max(rows.min(cols))).unwrap();
        let mut board = Board::new(g, Storage::Auto);
        for &(r, c, p) in marks {
            board.set(g.square(r, c).unwrap(), PlayerId::new(p));
        }
        let mut out = Vec::new();
        Renderer::new(style, &Players::classic("a", "b")).board(&board, &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn classic_uses_dashes_and_single_spaces() {
        assert_eq!(draw(Style::Classic, 3, 3, &[(1, 2, 0), (2, 2, 1)]), "- - -\n- - X\n- - O\n");
    }

    #[test]
    fn grid_matches_seed_003() {
        assert_eq!(draw(Style::Grid, 1, 1, &[(0, 0, 1)]), "O\n");
        assert_eq!(draw(Style::Grid, 2, 2, &[(0, 0, 0), (1, 1, 0)]), "X| \n-+-\n |X\n");
    }

    #[test]
    fn table_matches_seed_004() {
        assert_eq!(
            draw(Style::Table, 3, 3, &[(0, 0, 0)]),
            "    0| 1| 2|\n 0|X |  |  |\n 1|  |  |  |\n 2|  |  |  |\n"
        );
        let wide = draw(Style::Table, 1, 12, &[]);
        assert!(wide.starts_with("    0| 1| 2| 3| 4| 5| 6| 7| 8| 9|10|11|\n 0|"), "{wide}");
    }
}
