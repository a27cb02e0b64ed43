//! The perfect player: negamax with alpha-beta pruning, a transposition table
//! keyed by the position up to the board's symmetries, immediate wins and
//! forced blocks found before searching, and centre-first move ordering.
//!
//! Scores are from the side to move: a win when the board holds `n` marks
//! scores `cells + 1 - n`, so a quicker win scores higher and a later loss
//! less badly; a draw scores 0.
//!
//! The search deepens in steps (1, 2, 4, 8 … moves ahead, then straight to
//! the end once a step would look past a quarter of the free squares) so
//! that a time budget can stop it with the best move found so far. A step
//! scores the positions at its horizon as 0, as if drawn: a win or loss it
//! finds is proven, and a draw is proven only by a step that reached no
//! horizon. A subtree searched to the end is exact and kept for later steps;
//! so the last step costs what a single full search would.

use std::time::Instant;

use super::bits::{Lines, position};
use super::table::{Bound, Entry, Table};
use super::{Progress, Search, Value};
use crate::board::Square;
use crate::game::Game;
use crate::player::PlayerId;

/// How many positions are searched between looks at the clock.
const CLOCK_EVERY: u64 = 4096;

/// When to stop, and whom to tell how it goes.
pub(super) struct Limits<'a> {
    /// Stop when this instant passes, keeping the last finished step's move.
    pub deadline: Option<Instant>,
    /// Told the depth and positions searched now and then.
    pub progress: Option<&'a mut dyn FnMut(Progress)>,
    /// The transposition table's size, in MiB.
    pub hash_mb: u32,
}

struct Solver<'a, 'p> {
    lines: &'a Lines,
    table: Table,
    /// Positions searched, for benchmarks and progress.
    nodes: u64,
    /// The step's horizon: positions with this many marks score 0, unsearched.
    horizon: u32,
    /// How many times this step stopped at its horizon (or used a result that did).
    cut: u64,
    limits: Limits<'p>,
    depth: u32,
    stopped: bool,
}

/// The move for the side to move in `game`, searched within `limits`.
pub(super) fn choose(game: &Game, limits: Limits<'_>) -> (Square, Option<Value>, Search) {
    let lines = Lines::new(game.board().geometry());
    let (first, second) = position(game);
    let (mine, theirs) =
        if game.next_player() == PlayerId::new(0) { (first, second) } else { (second, first) };
    let taken = mine | theirs;
    let marks = taken.count_ones();
    let free = lines.cells - marks;
    // No search meets more positions than 3 ^ free; a small one needs no
    // big table.
    let positions = 3u64.checked_pow(free).unwrap_or(u64::MAX);
    let table = Table::new(limits.hash_mb, positions);
    let mut solver =
        Solver { lines: &lines, table, nodes: 0, horizon: 0, cut: 0, limits, depth: 0, stopped: false };

    // Before any step: the lowest free square in centre-first order.
    let fallback = lines.centre_first.iter().copied().find(|&s| taken & (1 << s) == 0);
    let mut best = (fallback.expect("a legal move exists"), None, 0);
    let mut depth = 0;
    while depth < free {
        // Double the depth, but go to the end once that is near: a step
        // almost as deep as the last costs almost as much, and proves less.
        depth = if depth * 4 > free { free } else { (depth * 2).max(1) };
        solver.depth = depth;
        solver.horizon = marks + depth;
        solver.cut = 0;
        let Some((score, s)) = solver.root(mine, theirs) else { break };
        let value = match score.signum() {
            1 => Some(Value::Win),
            -1 => Some(Value::Loss),
            _ => (solver.cut == 0).then_some(Value::Draw),
        };
        best = (s, value, depth);
        if value.is_some() {
            break;
        }
    }
    let (s, value, depth) = best;
    (Square::from_index(u64::from(s)), value, Search { depth, nodes: solver.nodes })
}

impl Solver<'_, '_> {
    /// One step at the root: every move's score with a full window, and the
    /// best. Among equals, the lowest square if the step reached no horizon
    /// (the proven choice), else the nearest the centre. `None` if the budget
    /// ran out.
    fn root(&mut self, mine: u64, theirs: u64) -> Option<(i32, u32)> {
        let taken = mine | theirs;
        let cut_before = self.cut;
        let mut scores = Vec::new();
        let mut top: Option<i32> = None;
        for i in 0..self.lines.centre_first.len() {
            let s = self.lines.centre_first[i];
            let bit = 1u64 << s;
            if taken & bit != 0 {
                continue;
            }
            let score = if self.lines.wins_at(mine | bit, s) {
                self.win_score(taken.count_ones() + 1)
            } else if let Some(top) = top {
                // Only whether the move is below, level with or above the
                // best so far matters: a window around it says so, cheaply.
                let score = -self.negamax(theirs, mine | bit, -(top + 1), -(top - 1));
                if score > top { -self.negamax(theirs, mine | bit, -i32::MAX, i32::MAX) } else { score }
            } else {
                -self.negamax(theirs, mine | bit, -i32::MAX, i32::MAX)
            };
            if self.stopped {
                return None;
            }
            top = Some(top.map_or(score, |top| top.max(score)));
            scores.push((score, s));
        }
        let top = scores.iter().map(|&(score, _)| score).max()?;
        let mut best = scores.into_iter().filter(|&(score, _)| score == top);
        // A win or loss is proven even if the step reached a horizon.
        if self.cut == cut_before || top != 0 { best.min_by_key(|&(_, s)| s) } else { best.next() }
    }

    /// The score of a win completed when the board holds `marks` marks
    /// (zero or less for a win past the last square: none).
    fn win_score(&self, marks: u32) -> i32 {
        let cells = i32::try_from(self.lines.cells).expect("at most 64");
        cells + 1 - i32::try_from(marks).expect("at most 67")
    }

    /// Whether the budget is spent; looks at the clock now and then, and
    /// tells the progress callback how the search goes.
    fn out_of_time(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        if self.nodes.is_multiple_of(CLOCK_EVERY) {
            if let Some(progress) = self.limits.progress.as_mut() {
                progress(Progress { depth: self.depth, nodes: self.nodes, done: false });
            }
            if self.limits.deadline.is_some_and(|deadline| Instant::now() >= deadline) {
                self.stopped = true;
            }
        }
        self.stopped
    }

    /// The score for the side to move (`mine`), whose opponent has not won.
    fn negamax(&mut self, mine: u64, theirs: u64, mut alpha: i32, mut beta: i32) -> i32 {
        self.nodes += 1;
        if self.out_of_time() {
            return 0;
        }
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
        if marks >= self.horizon {
            self.cut += 1;
            return 0;
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
        if let Some(entry) = self.table.get(key) {
            match entry.step {
                // A whole-subtree result holds in every step.
                None => {}
                Some(step) if step == self.horizon => self.cut += 1,
                Some(_) => return self.search(mine, theirs, alpha, beta, threats, key),
            }
            let score = entry.score;
            match entry.bound {
                Bound::Exact => return score,
                Bound::Lower => alpha = alpha.max(score),
                Bound::Upper => beta = beta.min(score),
            }
            if alpha >= beta {
                return score;
            }
        }
        self.search(mine, theirs, alpha, beta, threats, key)
    }

    /// Searches every move (only the forced block if there is a threat) and
    /// records the result.
    fn search(
        &mut self,
        mine: u64,
        theirs: u64,
        mut alpha: i32,
        beta: i32,
        threats: u64,
        key: (u64, u64),
    ) -> i32 {
        let free = self.lines.full() & !(mine | theirs);
        let cut_before = self.cut;
        let original_alpha = alpha;
        let mut best = -i32::MAX;
        for i in 0..self.lines.centre_first.len() {
            let s = self.lines.centre_first[i];
            let bit = 1u64 << s;
            if free & bit == 0 || (threats != 0 && threats & bit == 0) {
                continue;
            }
            let score = -self.negamax(theirs, mine | bit, -beta, -alpha);
            best = best.max(score);
            alpha = alpha.max(score);
            if alpha >= beta {
                break;
            }
        }
        if self.stopped {
            return 0;
        }
        let bound = if best <= original_alpha {
            Bound::Upper
        } else if best >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        let step = (self.cut != cut_before).then_some(self.horizon);
        let work = free.count_ones();
        self.table.put(key, Entry { score: best, bound, step, best: None, work }, self.horizon);
        best
    }
}
