//! The `perfect` engine's values checked against an independent solver: a
//! plain memoised negamax written here from the rules alone (its own board,
//! its own win test, every free square tried, no pruning, no bounds, no
//! symmetry), sharing no code with `src/engine`. Random positions on small
//! boards must get the same win, draw or loss from both, for the position
//! and for every move (`engine::move_values`).

use std::collections::HashMap;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use ttt_referee::board::{Geometry, Square, Storage};
use ttt_referee::engine::{self, Engine, EngineKind, Value};
use ttt_referee::game::{Game, Move};
use ttt_referee::player::Players;

/// A board for the independent solver: 0 empty, 1 the first player, 2 the
/// second, row by row.
struct Plain {
    rows: usize,
    cols: usize,
    win: usize,
    memo: HashMap<Vec<u8>, i8>,
}

impl Plain {
    fn new(rows: usize, cols: usize, win: usize) -> Plain {
        Plain { rows, cols, win, memo: HashMap::new() }
    }

    /// Whether `who` has `win` in a row through square `s` of `cells`.
    fn wins_through(&self, cells: &[u8], s: usize, who: u8) -> bool {
        let (r, c) = (s / self.cols, s % self.cols);
        // The square `k` steps from (r, c) along (dr, dc), if on the board.
        let step = |k: usize, (dr, dc): (isize, isize)| {
            let r = r.checked_add_signed(dr * isize::try_from(k).ok()?)?;
            let c = c.checked_add_signed(dc * isize::try_from(k).ok()?)?;
            (r < self.rows && c < self.cols).then_some(r * self.cols + c)
        };
        [(0, 1), (1, 0), (1, 1), (1, -1)].into_iter().any(|(dr, dc)| {
            let mut run = 1;
            for direction in [(dr, dc), (-dr, -dc)] {
                let mut k = 1;
                while step(k, direction).is_some_and(|t| cells[t] == who) {
                    run += 1;
                    k += 1;
                }
            }
            run >= self.win
        })
    }

    /// 1, 0 or -1: a win, draw or loss for `who`, to move, nobody having won.
    fn value(&mut self, cells: &mut Vec<u8>, who: u8) -> i8 {
        if let Some(&v) = self.memo.get(cells.as_slice()) {
            return v;
        }
        let mut best = if cells.contains(&0) { -1 } else { 0 };
        for s in 0..cells.len() {
            if cells[s] != 0 {
                continue;
            }
            cells[s] = who;
            let v = if self.wins_through(cells, s, who) { 1 } else { -self.value(cells, 3 - who) };
            cells[s] = 0;
            best = best.max(v);
            if best == 1 {
                break;
            }
        }
        self.memo.insert(cells.clone(), best);
        best
    }
}

fn value_of(v: i8) -> Value {
    match v {
        1 => Value::Win,
        0 => Value::Draw,
        _ => Value::Loss,
    }
}

/// A random position of `marks` marks that nobody has won, as the game
/// and the plain board.
fn random_position(geometry: Geometry, marks: u64, rng: &mut ChaCha8Rng) -> (Game, Vec<u8>) {
    'again: loop {
        let mut game = Game::new(Players::classic("X", "O"), geometry, Storage::Auto);
        let mut cells = vec![0u8; usize::try_from(geometry.cells()).unwrap()];
        for _ in 0..marks {
            let s = loop {
                let s = rng.random_range(0..cells.len());
                if cells[s] == 0 {
                    break s;
                }
            };
            let player = game.next_player();
            cells[s] = if game.moves_made().is_multiple_of(2) { 1 } else { 2 };
            let square = Square::from_index(u64::try_from(s).unwrap());
            if game.play_unchecked(Move { player, square }).is_some() {
                continue 'again;
            }
        }
        return (game, cells);
    }
}

#[test]
fn perfect_agrees_with_an_independent_solver_on_200_random_positions() {
    let mut rng = ChaCha8Rng::seed_from_u64(38);
    // 4 × 6 with 4, 5 × 6 with 5 and 2 × 8 with 4: boards where a pairing
    // strategy often proves a side cannot win.
    let boards = [
        (3, 3, 3),
        (3, 4, 3),
        (4, 4, 3),
        (3, 5, 3),
        (4, 4, 4),
        (4, 5, 3),
        (4, 5, 4),
        (5, 5, 4),
        (6, 6, 5),
        (4, 6, 4),
        (5, 6, 5),
        (2, 8, 4),
    ];
    let mut seen = std::collections::BTreeSet::new();
    for n in 0..200 {
        let (rows, cols, win) = boards[n % boards.len()];
        let geometry = Geometry::new(rows, cols, win).unwrap();
        let cells = geometry.cells();
        // Few enough free squares that the plain solver stays quick.
        let marks = rng.random_range(cells.saturating_sub(11).max(1)..cells - 1);
        let (game, mut plain_cells) = random_position(geometry, marks, &mut rng);
        let size = |n: u32| usize::try_from(n).unwrap();
        let mut plain = Plain::new(size(rows), size(cols), size(win));
        let who = if marks.is_multiple_of(2) { 1 } else { 2 };
        let truth = value_of(plain.value(&mut plain_cells, who));
        seen.insert(truth.name());
        assert_eq!(engine::solve(&game), truth, "{rows}x{cols} k={win} {plain_cells:?}");
        let choice = Engine::new(EngineKind::Perfect, 0).hash_mb(1).choose(&game).unwrap();
        assert_eq!(choice.value, Some(truth), "{rows}x{cols} k={win} {plain_cells:?}");
        // The chosen move keeps the value.
        let s = usize::try_from(choice.square.index()).unwrap();
        plain_cells[s] = who;
        let after = if plain.wins_through(&plain_cells, s, who) {
            Value::Win
        } else {
            value_of(-plain.value(&mut plain_cells, 3 - who))
        };
        plain_cells[s] = 0;
        assert_eq!(after, truth, "{rows}x{cols} k={win} {plain_cells:?} move {s}");
        if n % 4 == 0 {
            for (square, value) in engine::move_values(&game).unwrap() {
                let s = usize::try_from(square.index()).unwrap();
                plain_cells[s] = who;
                let v = if plain.wins_through(&plain_cells, s, who) {
                    Value::Win
                } else {
                    value_of(-plain.value(&mut plain_cells, 3 - who))
                };
                plain_cells[s] = 0;
                assert_eq!(value, v, "{rows}x{cols} k={win} {plain_cells:?} move {s}");
            }
        }
    }
    // Wins, draws and losses were all compared.
    assert_eq!(seen.len(), 3, "{seen:?}");
}
