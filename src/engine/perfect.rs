//! The perfect player: negamax with alpha-beta pruning, a transposition table
//! keyed by the position up to the board's symmetries, immediate wins and
//! forced blocks found before searching, and centre-first move ordering.
//!
//! Scores are from the side to move: a win when the board holds `n` marks
//! scores `cells + 1 - n`, so a quicker win scores higher and a later loss
//! scores less badly; a draw scores 0.

use std::collections::HashMap;

use super::Value;
use super::bits::{Lines, position};
use crate::board::Square;
use crate::game::Game;
use crate::player::PlayerId;

#[derive(Clone, Copy)]
enum Bound {
    Exact,
    Lower,
    Upper,
}

struct Solver<'a> {
    lines: &'a Lines,
    table: HashMap<(u64, u64), (i32, Bound)>,
    /// Positions searched, for benchmarks.
    nodes: u64,
}

pub(super) fn choose(game: &Game) -> (Square, Value) {
    let (square, value, _) = choose_counting(game);
    (square, value)
}

/// As [`choose`], also counting the positions searched.
pub(super) fn choose_counting(game: &Game) -> (Square, Value, u64) {
    let lines = Lines::new(game.board().geometry());
    let (first, second) = position(game);
    let (mine, theirs) =
        if game.next_player() == PlayerId::new(0) { (first, second) } else { (second, first) };
    let mut solver = Solver { lines: &lines, table: HashMap::new(), nodes: 0 };
    let taken = mine | theirs;
    let mut best: Option<(i32, u32)> = None;
    for &s in &lines.centre_first {
        let bit = 1u64 << s;
        if taken & bit != 0 {
            continue;
        }
        let score = if lines.wins_at(mine | bit, s) {
            solver.win_score(taken.count_ones() + 1)
        } else {
            -solver.negamax(theirs, mine | bit, -i32::MAX, i32::MAX)
        };
        // The best score; among equals, the lowest square.
        let better = match best {
            None => true,
            Some((b, bs)) => score > b || (score == b && s < bs),
        };
        if better {
            best = Some((score, s));
        }
    }
    let (score, s) = best.expect("a legal move exists");
    let value = match score.signum() {
        1 => Value::Win,
        0 => Value::Draw,
        _ => Value::Loss,
    };
    (Square::from_index(u64::from(s)), value, solver.nodes)
}

impl Solver<'_> {
    /// The score of a win completed when the board holds `marks` marks
    /// (zero or less for a win past the last square: none).
    fn win_score(&self, marks: u32) -> i32 {
        let cells = i32::try_from(self.lines.cells).expect("at most 64");
        cells + 1 - i32::try_from(marks).expect("at most 67")
    }

    /// The score for the side to move (`mine`), whose opponent has not won.
    fn negamax(&mut self, mine: u64, theirs: u64, mut alpha: i32, mut beta: i32) -> i32 {
        self.nodes += 1;
        let taken = mine | theirs;
        let free = self.lines.full() & !taken;
        if free == 0 {
            return 0;
        }
        let marks = taken.count_ones();
        let mut threats = 0u64;
        let mut rest = free;
        while rest != 0 {
            let s = rest.trailing_zeros();
            let bit = 1u64 << s;
            if self.lines.wins_at(mine | bit, s) {
                return self.win_score(marks + 1);
            }
            if self.lines.wins_at(theirs | bit, s) {
                threats |= bit;
            }
            rest &= rest - 1;
        }
        if threats.count_ones() >= 2 {
            // One block is possible; the other threat wins next move.
            return -self.win_score(marks + 2);
        }

        // No score can beat a win on the next move but one.
        let ceiling = self.win_score(marks + 3).max(0);
        if beta > ceiling {
            beta = ceiling;
            if alpha >= beta {
                return beta;
            }
        }

        let key = self.lines.canonical(mine, theirs);
        if let Some(&(score, bound)) = self.table.get(&key) {
            match bound {
                Bound::Exact => return score,
                Bound::Lower => alpha = alpha.max(score),
                Bound::Upper => beta = beta.min(score),
            }
            if alpha >= beta {
                return score;
            }
        }

        let original_alpha = alpha;
        let mut best = -i32::MAX;
        let forced = threats != 0;
        for i in 0..self.lines.centre_first.len() {
            let s = self.lines.centre_first[i];
            let bit = 1u64 << s;
            if free & bit == 0 || (forced && threats & bit == 0) {
                continue;
            }
            let score = -self.negamax(theirs, mine | bit, -beta, -alpha);
            best = best.max(score);
            alpha = alpha.max(score);
            if alpha >= beta {
                break;
            }
        }
        let bound = if best <= original_alpha {
            Bound::Upper
        } else if best >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        self.table.insert(key, (best, bound));
        best
    }
}
