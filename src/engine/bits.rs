//! Bitboards for the two-player search engines: a board of at most 64
//! squares as two `u64`s, with every winning line precomputed.

use crate::board::{Geometry, Square};
use crate::game::Game;
use crate::player::PlayerId;

/// The most squares a bitboard holds.
pub const MAX_CELLS: u64 = 64;

/// A board's lines and symmetries, computed once per search.
pub struct Lines {
    /// Number of squares.
    pub cells: u32,
    /// For each square, the winning lines through it.
    through: Vec<Vec<u64>>,
    /// Every winning line.
    pub all: Vec<u64>,
    /// How many in a row win.
    pub win: u32,
    /// Each symmetry of the board as a permutation of squares.
    symmetries: Vec<Vec<u32>>,
    /// Each symmetry's inverse.
    inverses: Vec<Vec<u32>>,
    /// Each symmetry but the identity as lookup tables, one per byte of a
    /// bitboard: the image of a byte's squares, so a bitboard's image is
    /// eight lookups (keys are made at every position searched).
    bytes: Vec<[[u64; 256]; 8]>,
    /// Squares ordered from the centre outwards, for move ordering.
    pub centre_first: Vec<u32>,
    /// Each square's place in [`Lines::centre_first`].
    pub centre_rank: Vec<u32>,
    /// For each two squares `a`, `b` (`a * cells + b`), where the indices
    /// (in [`Lines::all`]) of the lines holding both begin in
    /// [`Lines::shared`], which end where the next pair's begin.
    shared_start: Vec<u32>,
    /// The line indices of every pair of squares, one pair after another.
    shared: Vec<u16>,
}

impl Lines {
    /// The lines of `geometry`, which must have at most [`MAX_CELLS`] squares.
    #[must_use]
    pub fn new(geometry: Geometry) -> Lines {
        let (rows, cols, win) = (geometry.rows(), geometry.cols(), geometry.win());
        let cells = u32::try_from(geometry.cells()).expect("at most 64 squares");
        assert!(u64::from(cells) <= MAX_CELLS, "a bitboard holds at most 64 squares");
        let index = |r: i64, c: i64| -> Option<u32> {
            let (r, c) = (u32::try_from(r).ok()?, u32::try_from(c).ok()?);
            (r < rows && c < cols).then_some(r * cols + c)
        };
        let mut through = vec![Vec::new(); cells as usize];
        let mut all = Vec::new();
        for r in 0..i64::from(rows) {
            for c in 0..i64::from(cols) {
                for (dr, dc) in [(0, 1), (1, 0), (1, 1), (-1, 1)] {
                    let squares: Option<Vec<u32>> =
                        (0..i64::from(win)).map(|k| index(r + k * dr, c + k * dc)).collect();
                    if let Some(squares) = squares {
                        let mask = squares.iter().fold(0u64, |m, &s| m | 1 << s);
                        all.push(mask);
                        for s in squares {
                            through[s as usize].push(mask);
                        }
                    }
                }
            }
        }
        let mut symmetries = vec![(0..cells).collect::<Vec<u32>>()];
        let map = |f: &dyn Fn(u32, u32) -> (u32, u32)| -> Vec<u32> {
            (0..cells).map(|s| f(s / cols, s % cols)).map(|(r, c)| r * cols + c).collect()
        };
        symmetries.push(map(&|r, c| (rows - 1 - r, c)));
        symmetries.push(map(&|r, c| (r, cols - 1 - c)));
        symmetries.push(map(&|r, c| (rows - 1 - r, cols - 1 - c)));
        if rows == cols {
            symmetries.push(map(&|r, c| (c, r)));
            symmetries.push(map(&|r, c| (cols - 1 - c, rows - 1 - r)));
            symmetries.push(map(&|r, c| (c, rows - 1 - r)));
            symmetries.push(map(&|r, c| (cols - 1 - c, r)));
        }
        let inverses = symmetries
            .iter()
            .map(|perm| {
                let mut inverse = vec![0; perm.len()];
                for (s, &t) in (0..cells).zip(perm) {
                    inverse[t as usize] = s;
                }
                inverse
            })
            .collect();
        let centre = |s: u32| {
            let (r, c) = (f64::from(s / cols), f64::from(s % cols));
            let (mr, mc) = (f64::from(rows - 1) / 2.0, f64::from(cols - 1) / 2.0);
            (r - mr).abs() + (c - mc).abs()
        };
        let mut centre_first: Vec<u32> = (0..cells).collect();
        centre_first.sort_by(|&a, &b| centre(a).total_cmp(&centre(b)).then(a.cmp(&b)));
        let bytes = symmetries
            .iter()
            .skip(1)
            .map(|perm| {
                let mut table = [[0u64; 256]; 8];
                for (i, byte) in table.iter_mut().enumerate() {
                    for (v, image) in (0u64..).zip(byte.iter_mut()) {
                        let bits = (v << (8 * i)) & if cells == 64 { u64::MAX } else { (1 << cells) - 1 };
                        *image = permute(bits, perm);
                    }
                }
                table
            })
            .collect();
        let mut centre_rank = vec![0; cells as usize];
        for (rank, &s) in (0..).zip(&centre_first) {
            centre_rank[s as usize] = rank;
        }
        let (shared_start, shared) = lines_by_pair(cells, &all);
        Lines {
            cells,
            through,
            all,
            win,
            symmetries,
            inverses,
            bytes,
            centre_first,
            centre_rank,
            shared_start,
            shared,
        }
    }

    /// The indices (in [`Lines::all`]) of the lines holding both squares
    /// `a` and `b` (none if `a == b`).
    #[must_use]
    pub fn lines_holding(&self, a: u32, b: u32) -> &[u16] {
        let i = a as usize * self.cells as usize + b as usize;
        &self.shared[self.shared_start[i] as usize..self.shared_start[i + 1] as usize]
    }

    /// Whether `bits` holds a winning line through square `s`.
    #[must_use]
    #[allow(clippy::manual_contains, reason = "the test is a subset check, not equality with an element")]
    pub fn wins_at(&self, bits: u64, s: u32) -> bool {
        self.through[s as usize].iter().any(|&m| bits & m == m)
    }

    /// A full board's mask.
    #[must_use]
    pub fn full(&self) -> u64 {
        if self.cells == 64 { u64::MAX } else { (1 << self.cells) - 1 }
    }

    /// The smallest of the position's symmetric images, and which symmetry
    /// makes it: positions that are the same up to symmetry get the same key.
    #[must_use]
    pub fn canonical(&self, mine: u64, theirs: u64) -> ((u64, u64), usize) {
        let mut best = ((mine, theirs), 0);
        let image = |bits: u64, table: &[[u64; 256]; 8]| {
            (0..8).fold(0, |out, i| out | table[i][((bits >> (8 * i)) & 0xff) as usize])
        };
        for (i, table) in (1..).zip(&self.bytes) {
            let image = (image(mine, table), image(theirs, table));
            if image < best.0 {
                best = (image, i);
            }
        }
        best
    }

    /// Square `s` as it lies in the image made by symmetry `symmetry`.
    #[must_use]
    pub fn image_of(&self, symmetry: usize, s: u32) -> u32 {
        self.symmetries[symmetry][s as usize]
    }

    /// The square that symmetry `symmetry` takes to `s` in its image.
    #[must_use]
    pub fn preimage_of(&self, symmetry: usize, s: u32) -> u32 {
        self.inverses[symmetry][s as usize]
    }
}

/// For each two squares (`a * cells + b`), where its lines begin in the
/// second list, and the indices in `all` of the lines holding both squares,
/// pair after pair.
fn lines_by_pair(cells: u32, all: &[u64]) -> (Vec<u32>, Vec<u16>) {
    let n = cells as usize;
    let mut start = Vec::with_capacity(n * n + 1);
    let mut shared = Vec::new();
    for a in 0..n {
        for b in 0..n {
            start.push(u32::try_from(shared.len()).expect("few lines"));
            let both = (1u64 << a) | (1u64 << b);
            if a != b {
                for (i, &line) in (0u16..).zip(all) {
                    if line & both == both {
                        shared.push(i);
                    }
                }
            }
        }
    }
    start.push(u32::try_from(shared.len()).expect("few lines"));
    (start, shared)
}

fn permute(mut bits: u64, perm: &[u32]) -> u64 {
    let mut out = 0;
    while bits != 0 {
        let s = bits.trailing_zeros();
        out |= 1 << perm[s as usize];
        bits &= bits - 1;
    }
    out
}

/// A game's position as bitboards: the first player's marks, the second's.
#[must_use]
pub fn position(game: &Game) -> (u64, u64) {
    let mut first = 0;
    let mut second = 0;
    for s in 0..game.board().geometry().cells() {
        match game.board().get(Square::from_index(s)) {
            Some(p) if p == PlayerId::new(0) => first |= 1 << s,
            Some(_) => second |= 1 << s,
            None => {}
        }
    }
    (first, second)
}
