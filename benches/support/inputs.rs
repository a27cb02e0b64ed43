//! Move files for benchmarks, built in memory: long games that never end
//! early, so every move is read, ruled on and (if asked) written.

use std::fmt::Write;

/// A two-player game on a `rows × cols` board, `win` ≥ 3 in a row, of `moves`
/// valid moves that fill the board row by row and never make three in a row:
/// the owner of (r, c) is `(c / 2 + r) % 2`, so every line alternates in runs
/// of at most two.
#[must_use]
pub fn long_game(rows: u32, cols: u32, win: u32, moves: u64) -> String {
    assert!(win >= 3 && moves <= u64::from(rows) * u64::from(cols));
    let mut x = Vec::new();
    let mut o = Vec::new();
    for cell in 0..moves {
        let (r, c) = (cell / u64::from(cols), cell % u64::from(cols));
        if (c / 2 + r) % 2 == 0 { x.push(cell + 1) } else { o.push(cell + 1) }
    }
    let mut text = format!("Benchmark\nX: Ann Lee O: Bo Chan\nBoard: {rows}x{cols}, {win} in a row\n\n");
    for (i, square) in interleave(&x, &o).enumerate() {
        let label = if i % 2 == 0 { 'X' } else { 'O' };
        writeln!(text, "{label}\t{square}").expect("writing to a String");
    }
    text
}

/// `moves` valid moves scattered over a 1,000,000 × 1,000,000 board, one per
/// row, far apart: a game for sparse storage that never ends.
#[must_use]
pub fn scattered_game(moves: u64) -> String {
    const SIDE: u64 = 1_000_000;
    assert!(moves <= SIDE);
    let mut text = format!("Benchmark\nX: Ann Lee O: Bo Chan\nBoard: {SIDE}x{SIDE}, 5 in a row\n\n");
    for row in 0..moves {
        let col = row * 7919 % SIDE;
        let label = if row % 2 == 0 { 'X' } else { 'O' };
        writeln!(text, "{label}\t{}", row * SIDE + col + 1).expect("writing to a String");
    }
    text
}

/// X's and O's squares alternately, X first, for as long as both last.
fn interleave<'a>(x: &'a [u64], o: &'a [u64]) -> impl Iterator<Item = u64> + 'a {
    x.iter().zip(o).flat_map(|(&a, &b)| [a, b])
}
