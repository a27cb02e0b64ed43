//! The board: its geometry (rows, columns, marks in a row to win), its squares,
//! and the storage of the marks, dense or sparse behind one type.

use std::collections::HashMap;
use std::fmt;

use crate::player::PlayerId;

/// The most rows or columns a board can have.
pub const MAX_SIDE: u32 = 1_000_000;

/// Boards with more cells than this use sparse storage under [`Storage::Auto`].
///
/// 16 Mi cells is 16 MiB of dense storage, the most a referee should take
/// before it knows how many moves will come.
pub const AUTO_DENSE_LIMIT: u64 = 1 << 24;

/// The most squares a dense board may have: 4 GiB of storage. Larger boards
/// must be sparse.
pub const MAX_DENSE_CELLS: u64 = 1 << 32;

/// Which lines win: `win` or more in a row (the default, tic-tac-toe's and
/// freestyle gomoku's), or exactly `win` (Gomocup's "standard" rule, where an
/// overline of `win + 1` or more does not win).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum WinRule {
    /// `win` or more in a row win.
    #[default]
    AtLeast,
    /// Exactly `win` in a row win; a longer run does not.
    Exact,
}

impl WinRule {
    /// `at-least` or `exact`, as the command line and records write it.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            WinRule::AtLeast => "at-least",
            WinRule::Exact => "exact",
        }
    }

    /// Whether a run of `run` marks wins when `win` in a row are needed.
    #[must_use]
    pub fn wins(self, run: u32, win: u32) -> bool {
        match self {
            WinRule::AtLeast => run >= win,
            WinRule::Exact => run == win,
        }
    }
}

/// A board's shape and winning line length: `rows × cols`, `win` in a row,
/// under a [`WinRule`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Geometry {
    rows: u32,
    cols: u32,
    win: u32,
    rule: WinRule,
}

/// Why a geometry is not playable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GeometryError {
    /// Rows or columns outside `1..=MAX_SIDE`.
    Side,
    /// `win` outside `1..=max(rows, cols)`.
    Win,
}

impl Geometry {
    /// The classic board: 3 × 3, three in a row.
    pub const CLASSIC: Geometry = Geometry { rows: 3, cols: 3, win: 3, rule: WinRule::AtLeast };

    /// A `rows × cols` board where `win` in a row wins.
    ///
    /// # Errors
    /// A side outside `1..=1,000,000`, or `win` outside `1..=max(rows, cols)`.
    pub fn new(rows: u32, cols: u32, win: u32) -> Result<Geometry, GeometryError> {
        let side = 1..=MAX_SIDE;
        if !side.contains(&rows) || !side.contains(&cols) {
            return Err(GeometryError::Side);
        }
        if !(1..=rows.max(cols)).contains(&win) {
            return Err(GeometryError::Win);
        }
        Ok(Geometry { rows, cols, win, rule: WinRule::AtLeast })
    }

    /// The same board under `rule` (a new geometry wins with `win` or more).
    #[must_use]
    pub fn with_rule(mut self, rule: WinRule) -> Geometry {
        self.rule = rule;
        self
    }

    /// Which lines win.
    #[must_use]
    pub fn rule(self) -> WinRule {
        self.rule
    }

    /// Number of rows.
    #[must_use]
    pub fn rows(self) -> u32 {
        self.rows
    }

    /// Number of columns.
    #[must_use]
    pub fn cols(self) -> u32 {
        self.cols
    }

    /// How many marks in a line win.
    #[must_use]
    pub fn win(self) -> u32 {
        self.win
    }

    /// Number of squares, `rows × cols`.
    #[must_use]
    pub fn cells(self) -> u64 {
        u64::from(self.rows) * u64::from(self.cols)
    }

    /// The square at `row`, `col` (0-based), if it is on the board.
    #[must_use]
    pub fn square(self, row: u32, col: u32) -> Option<Square> {
        (row < self.rows && col < self.cols)
            .then(|| Square(u64::from(row) * u64::from(self.cols) + u64::from(col)))
    }

    /// The row and column (0-based) of `square`.
    #[must_use]
    pub fn coords(self, square: Square) -> (u32, u32) {
        let cols = u64::from(self.cols);
        let row = u32::try_from(square.0 / cols).expect("square on the board");
        let col = u32::try_from(square.0 % cols).expect("column below cols");
        (row, col)
    }

    /// Reads a square token as a move file writes it: a decimal number from 1
    /// to [`Geometry::cells`], with an optional `+` and leading zeros.
    ///
    /// Anything else (`0`, `-1`, `5.0`, `abc`, a number of any length past the
    /// last square) is `None`; nothing overflows.
    #[must_use]
    pub fn parse_square(self, token: &str) -> Option<Square> {
        let digits = token.strip_prefix('+').unwrap_or(token);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let significant = digits.trim_start_matches('0');
        // u64::MAX has 20 digits; anything longer is past every board.
        if significant.len() > 20 {
            return None;
        }
        let number: u64 = if significant.is_empty() { 0 } else { significant.parse().ok()? };
        (1..=self.cells()).contains(&number).then(|| Square(number - 1))
    }
}

impl fmt::Display for Geometry {
    /// `5x7, 4 in a row`, as a board line writes it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}, {} in a row", self.rows, self.cols, self.win)
    }
}

/// Reads `x, y` coordinates the way StFX asn3's console takes them: the text
/// split on commas, the first two fields read as integers (x the column, y the
/// row, from 0), any further fields ignored.
///
/// The result may lie off the board; [`Geometry::square`] says whether it does.
///
/// ```
/// assert_eq!(ttt_referee::board::parse_xy("10, 11, 12"), Some((10, 11)));
/// assert_eq!(ttt_referee::board::parse_xy("1 2"), None);
/// ```
#[must_use]
pub fn parse_xy(text: &str) -> Option<(i64, i64)> {
    let mut fields = text.split(',').map(str::trim);
    let x = fields.next()?.parse().ok()?;
    let y = fields.next()?.parse().ok()?;
    Some((x, y))
}

/// A square of a board, numbered from 0 in row-major order from the top-left.
///
/// Move files number squares from 1; [`Square::number`] gives that number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u64);

impl Square {
    /// The square with 0-based row-major `index`.
    #[must_use]
    pub fn from_index(index: u64) -> Square {
        Square(index)
    }

    /// The 0-based row-major index.
    #[must_use]
    pub fn index(self) -> u64 {
        self.0
    }

    /// The 1-based number a move file uses for this square.
    #[must_use]
    pub fn number(self) -> u64 {
        self.0 + 1
    }
}

/// How a board keeps its marks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Storage {
    /// Dense for boards of up to [`AUTO_DENSE_LIMIT`] cells, sparse beyond.
    #[default]
    Auto,
    /// One byte per square: fastest, memory in proportion to the board.
    Dense,
    /// Only the occupied squares: memory in proportion to the moves.
    Sparse,
}

impl Storage {
    /// Whether a board of `geometry` can be kept this way: dense storage is
    /// limited to [`MAX_DENSE_CELLS`] squares; the others fit any board.
    #[must_use]
    pub fn fits(self, geometry: Geometry) -> bool {
        self != Storage::Dense || geometry.cells() <= MAX_DENSE_CELLS
    }
}

/// One of the four line directions a win can lie along.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Along a row.
    Horizontal,
    /// Along a column.
    Vertical,
    /// From the top-left towards the bottom-right.
    Diagonal,
    /// From the bottom-left towards the top-right.
    AntiDiagonal,
}

impl Direction {
    /// All four directions.
    pub const ALL: [Direction; 4] =
        [Direction::Horizontal, Direction::Vertical, Direction::Diagonal, Direction::AntiDiagonal];

    /// The (row, column) step of one square along the direction.
    fn step(self) -> (i64, i64) {
        match self {
            Direction::Horizontal => (0, 1),
            Direction::Vertical => (1, 0),
            Direction::Diagonal => (1, 1),
            Direction::AntiDiagonal => (-1, 1),
        }
    }
}

#[derive(Clone, Debug)]
enum Cells {
    /// 0 for an empty square, a player's index + 1 otherwise.
    Dense(Vec<u8>),
    Sparse(HashMap<u64, PlayerId>),
}

/// The marks on a board. Both storages answer every query identically.
#[derive(Clone, Debug)]
pub struct Board {
    geometry: Geometry,
    cells: Cells,
    filled: u64,
}

impl Board {
    /// An empty board of the given geometry, stored as `storage` asks.
    ///
    /// # Panics
    /// If `storage` does not [fit](Storage::fits) the board.
    #[must_use]
    pub fn new(geometry: Geometry, storage: Storage) -> Board {
        assert!(storage.fits(geometry), "a {geometry} board is too big for dense storage");
        let dense = match storage {
            Storage::Dense => true,
            Storage::Sparse => false,
            Storage::Auto => geometry.cells() <= AUTO_DENSE_LIMIT,
        };
        let cells = if dense {
            let len = usize::try_from(geometry.cells()).expect("dense board fits in memory");
            Cells::Dense(vec![0; len])
        } else {
            Cells::Sparse(HashMap::new())
        };
        Board { geometry, cells, filled: 0 }
    }

    /// The board's geometry.
    #[must_use]
    pub fn geometry(&self) -> Geometry {
        self.geometry
    }

    /// Whether the board keeps only its occupied squares.
    #[must_use]
    pub fn is_sparse(&self) -> bool {
        matches!(self.cells, Cells::Sparse(_))
    }

    /// Who holds `square`, if anyone.
    #[must_use]
    pub fn get(&self, square: Square) -> Option<PlayerId> {
        match &self.cells {
            Cells::Dense(cells) => {
                let cell = cells[usize::try_from(square.0).expect("dense index fits")];
                cell.checked_sub(1).map(|i| PlayerId::new(usize::from(i)))
            }
            Cells::Sparse(cells) => cells.get(&square.0).copied(),
        }
    }

    /// Puts `player`'s mark on `square`, which must be empty.
    ///
    /// # Panics
    /// If `square` is already marked (a rule engine checks first).
    pub fn set(&mut self, square: Square, player: PlayerId) {
        let fresh = match &mut self.cells {
            Cells::Dense(cells) => {
                let cell = &mut cells[usize::try_from(square.0).expect("dense index fits")];
                let fresh = *cell == 0;
                *cell = u8::try_from(player.index() + 1).expect("player index fits in u8");
                fresh
            }
            Cells::Sparse(cells) => cells.insert(square.0, player).is_none(),
        };
        assert!(fresh, "square {} marked twice", square.number());
        self.filled += 1;
    }

    /// How many squares hold a mark.
    #[must_use]
    pub fn filled(&self) -> u64 {
        self.filled
    }

    /// Whether every square holds a mark.
    #[must_use]
    pub fn is_full(&self) -> bool {
        self.filled == self.geometry.cells()
    }

    /// Every marked square and who holds it, in ascending order of square:
    /// a scan of the board when dense, of the marks alone when sparse (so a
    /// huge board costs what its moves do).
    #[must_use]
    pub fn marks(&self) -> Vec<(Square, PlayerId)> {
        match &self.cells {
            Cells::Dense(cells) => (0u64..)
                .zip(cells)
                .filter_map(|(i, &cell)| {
                    cell.checked_sub(1).map(|p| (Square(i), PlayerId::new(usize::from(p))))
                })
                .collect(),
            Cells::Sparse(cells) => {
                let mut marks: Vec<_> = cells.iter().map(|(&i, &p)| (Square(i), p)).collect();
                marks.sort_unstable_by_key(|&(square, _)| square);
                marks
            }
        }
    }

    /// Who holds the square at `row`, `col`; `None` when empty or off the board.
    #[must_use]
    pub fn at(&self, row: u32, col: u32) -> Option<PlayerId> {
        self.geometry.square(row, col).and_then(|sq| self.get(sq))
    }

    /// Who holds each square of `row`, left to right.
    ///
    /// # Panics
    /// If `row` is not on the board.
    #[must_use]
    pub fn row(&self, row: u32) -> impl ExactSizeIterator<Item = Option<PlayerId>> + '_ {
        let g = self.geometry;
        assert!(row < g.rows(), "row {row} is off the board");
        let start = u64::from(row) * u64::from(g.cols());
        let (dense, sparse) = match &self.cells {
            Cells::Dense(cells) => {
                let start = usize::try_from(start).expect("dense index fits");
                let end = start + usize::try_from(g.cols()).expect("columns fit");
                (Some(cells[start..end].iter()), None)
            }
            Cells::Sparse(cells) => (None, Some((start..start + u64::from(g.cols()), cells))),
        };
        RowCells { dense, sparse }
    }

    /// How many of `player`'s marks stand in an unbroken line through `square`
    /// along `direction`, counting `square` itself; 0 if `square` is not theirs.
    ///
    /// Counting stops at the winning length (one past it under
    /// [`WinRule::Exact`], which must see an overline), so the cost is
    /// O(win), never O(board).
    #[must_use]
    pub fn run_through(&self, square: Square, direction: Direction, player: PlayerId) -> u32 {
        if self.get(square) == Some(player) { self.run_if_placed(square, direction, player) } else { 0 }
    }

    /// The run [`Board::run_through`] would count if `player` held `square`,
    /// whoever holds it now.
    fn run_if_placed(&self, square: Square, direction: Direction, player: PlayerId) -> u32 {
        let win = self.geometry.win;
        let most = if self.geometry.rule == WinRule::Exact { win.saturating_add(1) } else { win };
        let (row, col) = self.geometry.coords(square);
        let (dr, dc) = direction.step();
        let mut count = 1;
        for sign in [1, -1] {
            let (mut r, mut c) = (i64::from(row), i64::from(col));
            while count < most {
                r += sign * dr;
                c += sign * dc;
                let on_board = u32::try_from(r).ok().zip(u32::try_from(c).ok());
                match on_board.and_then(|(r, c)| self.at(r, c)) {
                    Some(p) if p == player => count += 1,
                    _ => break,
                }
            }
        }
        count
    }

    /// Whether `player` would complete a winning line by taking `square`.
    #[must_use]
    pub fn would_win(&self, square: Square, player: PlayerId) -> bool {
        let g = self.geometry;
        Direction::ALL.into_iter().any(|d| g.rule.wins(self.run_if_placed(square, d, player), g.win))
    }

    /// Whether `player` has a winning line through `square` along `direction`.
    #[must_use]
    pub fn wins_along(&self, square: Square, direction: Direction, player: PlayerId) -> bool {
        self.geometry.rule.wins(self.run_through(square, direction, player), self.geometry.win)
    }

    /// Whether `player` has a winning line through `square` in any direction.
    #[must_use]
    pub fn wins_through(&self, square: Square, player: PlayerId) -> bool {
        Direction::ALL.into_iter().any(|d| self.wins_along(square, d, player))
    }
}

/// The squares of one row; see [`Board::row`].
struct RowCells<'a> {
    dense: Option<std::slice::Iter<'a, u8>>,
    sparse: Option<(std::ops::Range<u64>, &'a HashMap<u64, PlayerId>)>,
}

impl Iterator for RowCells<'_> {
    type Item = Option<PlayerId>;

    #[inline]
    fn next(&mut self) -> Option<Option<PlayerId>> {
        if let Some(cells) = &mut self.dense {
            let cell = *cells.next()?;
            return Some(cell.checked_sub(1).map(|i| PlayerId::new(usize::from(i))));
        }
        let (squares, cells) = self.sparse.as_mut()?;
        squares.next().map(|square| cells.get(&square).copied())
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let len = match (&self.dense, &self.sparse) {
            (Some(cells), _) => cells.len(),
            (None, Some((squares, _))) => usize::try_from(squares.end - squares.start).unwrap_or(usize::MAX),
            (None, None) => 0,
        };
        (len, Some(len))
    }
}

impl ExactSizeIterator for RowCells<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(n: u64) -> Square {
        Square::from_index(n - 1)
    }

    #[test]
    fn parses_square_tokens_without_overflow() {
        let g = Geometry::CLASSIC;
        assert_eq!(g.parse_square("5"), Some(sq(5)));
        assert_eq!(g.parse_square("05"), Some(sq(5)));
        assert_eq!(g.parse_square("+5"), Some(sq(5)));
        assert_eq!(g.parse_square("0009"), Some(sq(9)));
        for bad in [
            "0",
            "10",
            "-1",
            "abc",
            "5.0",
            "+",
            "",
            "++5",
            "-0",
            "٥",
            "99999999999999999999",
            "000000000000000000000000000001x",
        ] {
            assert_eq!(g.parse_square(bad), None, "{bad}");
        }
        assert_eq!(g.parse_square("0000000000000000000000000000001"), Some(sq(1)));
        let huge = Geometry::new(MAX_SIDE, MAX_SIDE, 5).unwrap();
        assert_eq!(huge.parse_square("1000000000000"), Some(sq(1_000_000_000_000)));
        assert_eq!(huge.parse_square("1000000000001"), None);
        assert_eq!(huge.parse_square("18446744073709551616"), None);
    }

    #[test]
    fn geometry_limits() {
        assert!(Geometry::new(1, 1, 1).is_ok());
        assert_eq!(Geometry::new(0, 3, 1), Err(GeometryError::Side));
        assert_eq!(Geometry::new(3, MAX_SIDE + 1, 1), Err(GeometryError::Side));
        assert_eq!(Geometry::new(3, 5, 6), Err(GeometryError::Win));
        assert_eq!(Geometry::new(3, 5, 0), Err(GeometryError::Win));
        assert!(Geometry::new(3, 5, 5).is_ok());
    }

    #[test]
    fn coords_round_trip() {
        let g = Geometry::new(5, 7, 4).unwrap();
        let s = g.square(3, 6).unwrap();
        assert_eq!(s.number(), 3 * 7 + 7);
        assert_eq!(g.coords(s), (3, 6));
        assert_eq!(g.square(5, 0), None);
    }

    #[test]
    fn an_overline_wins_only_under_the_default_rule() {
        let x = PlayerId::new(0);
        for storage in [Storage::Dense, Storage::Sparse] {
            for (rule, overline_wins) in [(WinRule::AtLeast, true), (WinRule::Exact, false)] {
                let g = Geometry::new(1, 9, 4).unwrap().with_rule(rule);
                let mut b = Board::new(g, storage);
                // X X _ X X: the gap makes five, one past four.
                for c in [0, 1, 3, 4] {
                    b.set(g.square(0, c).unwrap(), x);
                }
                let gap = g.square(0, 2).unwrap();
                assert_eq!(b.would_win(gap, x), overline_wins, "{rule:?}");
                // X X X X at columns 5..=8 after an empty 4th... exactly four wins either way.
                let mut b = Board::new(g, storage);
                for c in [5, 6, 7] {
                    b.set(g.square(0, c).unwrap(), x);
                }
                assert!(b.would_win(g.square(0, 8).unwrap(), x), "{rule:?}");
                b.set(g.square(0, 8).unwrap(), x);
                assert!(b.wins_through(g.square(0, 6).unwrap(), x));
                b.set(g.square(0, 4).unwrap(), x);
                assert_eq!(b.wins_through(g.square(0, 6).unwrap(), x), overline_wins, "{rule:?}");
            }
        }
    }

    #[test]
    fn runs_are_counted_through_a_square_in_both_storages() {
        let x = PlayerId::new(0);
        for storage in [Storage::Dense, Storage::Sparse] {
            let g = Geometry::new(4, 4, 3).unwrap();
            let mut b = Board::new(g, storage);
            for (r, c) in [(0, 0), (1, 1), (2, 2), (0, 3), (1, 2), (2, 1)] {
                b.set(g.square(r, c).unwrap(), x);
            }
            let mid = g.square(1, 1).unwrap();
            assert_eq!(b.run_through(mid, Direction::Diagonal, x), 3);
            assert!(b.wins_through(mid, x));
            let top_right = g.square(0, 3).unwrap();
            assert_eq!(b.run_through(top_right, Direction::AntiDiagonal, x), 3);
            assert_eq!(b.run_through(top_right, Direction::Horizontal, x), 1);
            assert_eq!(b.run_through(g.square(3, 3).unwrap(), Direction::Vertical, x), 0);
            assert_eq!(b.filled(), 6);
            let row1: Vec<_> = b.row(1).collect();
            assert_eq!(row1, [None, Some(x), Some(x), None]);
            assert!(!b.is_full());
        }
    }
}
