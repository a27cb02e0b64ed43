//! The perfect player: negamax with alpha-beta pruning, a transposition table
//! keyed by the position up to the board's symmetries, immediate wins and
//! forced blocks found before searching.
//!
//! Dead lines prune most of a k-in-a-row search: a line holding both sides'
//! marks can never be completed. A position with no live line is a draw
//! however play goes; a side with none cannot win (its score is at most 0);
//! and a square on no live line is never tried, since a mark there can never
//! matter and so is worth no more than a mark on any live square.
//!
//! A pairing strategy proves more: if disjoint pairs of free squares can be
//! chosen so that each line a side can still complete holds a whole pair,
//! that side never completes one (its opponent answers in the pair), and
//! the side to move may first take one square to make such a pairing (see
//! [`Solver::pairing_holds`]). With the potential bounds this gives each
//! side's "cannot win" at every position: both, a draw at once.
//!
//! Moves are tried in order: the best move the table remembers (mapped back
//! from the key's orientation), then squares that make a threat or stop one
//! being made (on a live line one mark short of a threat), then the rest
//! centre-first. At the root each move is first searched with a window
//! around 0 (win, draw or loss), and only a win or loss is searched again
//! for how fast.
//!
//! Scores are from the side to move: a win when the board holds `n` marks
//! scores `cells + 1 - n`, so a quicker win scores higher and a later loss
//! less badly; a draw scores 0.
//!
//! The search deepens in steps (1, 2, 4, 8 … moves ahead, then straight to
//! the end once a step would look past a quarter of the free squares: a
//! win found within a step's horizon is proven, and the steps find the
//! wins of 5 × 8 and 6 × 8 with 4 in a row that a whole search does not
//! within 10 s) so
//! that a time budget can stop it with the best move found so far. A step
//! scores the positions at its horizon as 0, as if drawn: a win or loss it
//! finds is proven, and a draw is proven only by a step that reached no
//! horizon. A subtree searched to the end is exact and kept for later steps;
//! so the last step costs what a single full search would.

use std::time::Instant;

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use super::bits::{Lines, position};
use super::table::{Bound, Entry, Table};
use super::value::{Progress, Search, Value};
use crate::board::Square;
use crate::game::Game;
use crate::player::PlayerId;

/// Below how many times 1 a side's potential must be for a pairing to be
/// looked for.
const PAIRING_POTENTIAL: u64 = 4;

/// How many choices of pair a search for a pairing strategy may undo.
const PAIRING_RETRIES: u32 = 8;

/// How many positions are searched between looks at the clock.
const CLOCK_EVERY: u64 = 4096;

/// When to stop, and whom to tell how it goes.
pub(super) struct Limits<'a> {
    /// When the search began (the deadline counts from it).
    pub started: Instant,
    /// Stop when this instant passes, keeping the last finished step's move.
    pub deadline: Option<Instant>,
    /// Told the depth and positions searched now and then.
    pub progress: Option<&'a mut dyn FnMut(Progress)>,
    /// The transposition table's size, in MiB.
    pub hash_mb: u32,
    /// Where to draw from among moves proven equally good (`None`: the
    /// lowest square).
    pub ties: Option<&'a mut ChaCha8Rng>,
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
    /// The root's moves in the order the next step tries them.
    order: Vec<u32>,
    /// The root moves the current step has proven, each with the sign of
    /// its score (1 a win, 0 a draw, -1 a loss).
    proven: Vec<(u32, i32)>,
    /// A potential of 1 in units of 2^-win (`None` for a win too long for
    /// the sums to fit a `u64`: no potential bounds then).
    one: Option<u64>,
    /// How many times a pairing strategy proved a side cannot win (for
    /// tests and benchmarks).
    pairings: u64,
}

/// What one pass over a position's lines finds (see [`Solver::scan`]).
struct Scan {
    /// The opponent's threats: squares that complete its line next move.
    threats: u64,
    /// Squares that make a threat, or stop one being made: tried first.
    hot: u64,
    /// The squares of the lines each side can still complete.
    mine_live: u64,
    theirs_live: u64,
    /// Each side's Erdős–Selfridge potential, in units of 2^-win: a live
    /// line holding `j` of its marks weighs 2^j.
    mine_potential: u64,
    theirs_potential: u64,
    /// What each free square adds to the mover's potential if the mover
    /// takes it.
    mine_weight: [u64; 64],
    /// What each free square adds to the opponent's potential if the
    /// opponent takes it.
    theirs_weight: [u64; 64],
    /// The sum of the two: the
    /// weights that order the moves (the breaker's choice in Erdős and
    /// Selfridge's strategy, for either side).
    weight: [u64; 64],
}

/// 2^win, if every potential of a board with lines of `win` fits a `u64`
/// (at most 256 lines, each weighing under 2^win).
fn unit_one(win: u32) -> Option<u64> {
    (win <= 55).then(|| 1u64 << win)
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
    let mut solver = Solver {
        lines: &lines,
        table,
        nodes: 0,
        horizon: 0,
        cut: 0,
        limits,
        depth: 0,
        stopped: false,
        one: unit_one(lines.win),
        order: Vec::new(),
        proven: Vec::new(),
        pairings: 0,
    };

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
        let Some((score, s)) = solver.root(mine, theirs) else {
            let (s, value) = solver.cut_short((best.0, best.1));
            best = (s, value, best.2);
            break;
        };
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

/// The proven value of each move of the side to move in `game` (two
/// players, at most 64 squares, not over), square by square in order: what
/// `grade --play` needs to play every equally good reply, not one. One
/// table of `hash_mb` MiB serves all the moves' searches.
pub(super) fn values(game: &Game, hash_mb: u32) -> Vec<(Square, Value)> {
    let lines = Lines::new(game.board().geometry());
    let (first, second) = position(game);
    let (mine, theirs) =
        if game.next_player() == PlayerId::new(0) { (first, second) } else { (second, first) };
    let taken = mine | theirs;
    let free = lines.cells - taken.count_ones();
    let positions = 3u64.checked_pow(free).unwrap_or(u64::MAX);
    let limits = Limits { started: Instant::now(), deadline: None, progress: None, hash_mb, ties: None };
    let table = Table::new(hash_mb, positions);
    // No horizon: every search goes to the end, so each value is proven.
    let mut solver = Solver {
        lines: &lines,
        table,
        nodes: 0,
        horizon: lines.cells + 1,
        cut: 0,
        limits,
        depth: free,
        stopped: false,
        one: unit_one(lines.win),
        order: Vec::new(),
        proven: Vec::new(),
        pairings: 0,
    };
    (0..lines.cells)
        .filter(|&s| taken & (1u64 << s) == 0)
        .map(|s| {
            let bit = 1u64 << s;
            let value = if lines.wins_at(mine | bit, s) {
                Value::Win
            } else {
                match (-solver.negamax(theirs, mine | bit, -1, 1)).signum() {
                    1 => Value::Win,
                    -1 => Value::Loss,
                    _ => Value::Draw,
                }
            };
            (Square::from_index(u64::from(s)), value)
        })
        .collect()
}

impl Solver<'_, '_> {
    /// One step at the root: the best score and a move that makes it.
    /// Among equals, the lowest square if the step reached no horizon (the
    /// proven choice), else the first found. `None` if the budget ran out.
    ///
    /// The first move gets its exact score; each later one only a null
    /// window (does it beat the best so far?), re-searched in full if it
    /// does: this proves the best score as cheaply as a plain search. Only
    /// then are the lowest squares checked, one by one, for equalling it
    /// (all of them when ties are drawn at random).
    fn root(&mut self, mine: u64, theirs: u64) -> Option<(i32, u32)> {
        let taken = mine | theirs;
        let cut_before = self.cut;
        // Each move's score, exact or (`false`) an upper bound.
        let mut scores: Vec<(i32, u32, bool)> = Vec::new();
        let mut top: Option<(i32, u32)> = None;
        self.proven.clear();
        if self.order.is_empty() {
            self.order = self.lines.centre_first.iter().copied().filter(|&s| taken & (1 << s) == 0).collect();
        }
        for i in 0..self.order.len() {
            let s = self.order[i];
            let bit = 1u64 << s;
            let cut_move = self.cut;
            let (score, exact) = if self.lines.wins_at(mine | bit, s) {
                (self.win_score(taken.count_ones() + 1), true)
            } else if let Some((top, _)) = top {
                let score = -self.negamax(theirs, mine | bit, -(top + 1), -top);
                if score > top {
                    (-self.negamax(theirs, mine | bit, -i32::MAX, i32::MAX), true)
                } else {
                    (score, false)
                }
            } else {
                // Win, draw or loss first (a window around 0), then, for a
                // win or loss, how fast.
                let score = -self.negamax(theirs, mine | bit, -1, 1);
                if score == 0 {
                    (score, true)
                } else {
                    (-self.negamax(theirs, mine | bit, -i32::MAX, i32::MAX), true)
                }
            };
            if self.stopped {
                return None;
            }
            // A win or loss is proven at any horizon, as is a bound below
            // 0; a draw only if no horizon was met.
            if exact && (score != 0 || self.cut == cut_move) {
                self.proven.push((s, score.signum()));
            } else if !exact && score < 0 {
                self.proven.push((s, -1));
            }
            if top.is_none_or(|(top, _)| score > top) {
                top = Some((score, s));
            }
            scores.push((score, s, exact));
        }
        // The next step tries the moves best first (a stable sort keeps
        // equals in this step's order), so a step cut short has proven the
        // likeliest moves first.
        let mut ranked = scores.clone();
        ranked.sort_by_key(|&(score, _, _)| std::cmp::Reverse(score));
        self.order = ranked.into_iter().map(|(_, s, _)| s).collect();
        let (top, found) = top?;
        // A win or loss is proven even if the step reached a horizon.
        if self.cut != cut_before && top == 0 {
            return Some((top, found));
        }
        scores.sort_unstable_by_key(|&(_, s, _)| s);
        let mut best = Vec::new();
        for (score, s, exact) in scores {
            let equal = if exact || score < top {
                score == top
            } else {
                // Worth at most `top`: is it worth at least that?
                let score = -self.negamax(theirs, mine | 1 << s, -top, -(top - 1));
                if self.stopped {
                    // The value is proven; `found` makes it.
                    return Some((top, found));
                }
                score >= top
            };
            if equal {
                best.push(s);
                if self.limits.ties.is_none() {
                    break;
                }
            }
        }
        match self.limits.ties.as_deref_mut() {
            Some(rng) => Some((top, best[rng.random_range(0..best.len())])),
            None => best.first().map(|&s| (top, s)),
        }
    }

    /// The move to play when the budget ran out during a step, given the
    /// last finished step's choice `last` (its square and what it proved):
    /// a move this step proved to win; else `last` unless this step proved
    /// it loses or it is unproven while another move was proven to draw (a
    /// drawn position is never given away for a guess); else the move the
    /// last step ranked best that this step has not proven to lose.
    fn cut_short(&self, last: (u32, Option<Value>)) -> (u32, Option<Value>) {
        if let Some(&(s, _)) = self.proven.iter().find(|&&(_, sign)| sign > 0) {
            return (s, Some(Value::Win));
        }
        if last.1.is_some() {
            return last;
        }
        let sign_of = |square: u32| self.proven.iter().find(|&&(s, _)| s == square).map(|&(_, sign)| sign);
        if sign_of(last.0) == Some(0) {
            return last;
        }
        if let Some(&(s, _)) = self.proven.iter().find(|&&(_, sign)| sign == 0) {
            return (s, None);
        }
        let proven_lost = |square: u32| sign_of(square).is_some_and(|sign| sign < 0);
        if !proven_lost(last.0) {
            return last;
        }
        // Every move proven lost so far: the position is lost if all are.
        match self.order.iter().copied().find(|&s| !proven_lost(s)) {
            Some(s) => (s, None),
            None => (last.0, Some(Value::Loss)),
        }
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
            // One reading of the clock both decides and is told.
            let now = Instant::now();
            if self.limits.deadline.is_some_and(|deadline| now >= deadline) {
                self.stopped = true;
            }
            let elapsed = now.saturating_duration_since(self.limits.started);
            if let Some(progress) = self.limits.progress.as_mut() {
                progress(Progress { depth: self.depth, nodes: self.nodes, elapsed, done: false });
            }
        }
        self.stopped
    }

    /// Whether the side to move (`mine`, the maker here) can never complete a
    /// line, by the Erdős–Selfridge bound: its potential is `potential`
    /// (units of 2^-win, over its live lines). After its move to a square
    /// `x` the potential is the old one plus the weight of its live lines
    /// through `x`; if that is below 1 whatever `x`, the opponent, then to
    /// move, keeps it below 1 for ever by [`Self::breaker_to_move_holds`]'s
    /// strategy. The cheap test first: below 1/2, no move can double it
    /// past 1.
    fn maker_to_move_fails(&self, potential: u64, added: &[u64; 64]) -> bool {
        let Some(one) = self.one else { return false };
        if potential < one / 2 {
            return true;
        }
        if potential >= one {
            return false;
        }
        // `added`: the weight each free square would add, the lines through
        // it that the mover can still complete.
        added.iter().all(|&w| potential + w < one)
    }

    /// Whether the side not to move (the maker, `potential` its potential in
    /// units of 2^-win, `added` what each free square adds to it) can never
    /// complete a line, the side to move playing the breaker: by Erdős and
    /// Selfridge, a potential below 1 with the breaker to move stays below 1
    /// (each breaker move on the square of most weight takes off at least
    /// what the maker's reply adds), and a completed line alone weighs 1.
    /// One move further: the breaker takes the square of most weight `w1`,
    /// which takes `w1` off; the maker, then to move, adds at most the
    /// second most `w2` (its lines through the breaker's square are dead), so
    /// `potential - w1 + w2 < 1` is enough, as [`Self::maker_to_move_fails`]
    /// says.
    fn breaker_to_move_holds(&self, potential: u64, added: &[u64; 64]) -> bool {
        let Some(one) = self.one else { return false };
        if potential < one {
            return true;
        }
        let (mut w1, mut w2) = (0, 0);
        for &w in added {
            if w > w1 {
                (w1, w2) = (w, w1);
            } else if w > w2 {
                w2 = w;
            }
        }
        potential - w1 + w2 < one
    }

    /// Whether a side of potential `potential` (units of 2^-win) is worth
    /// looking for a pairing against: below [`PAIRING_POTENTIAL`] times 1.
    /// Where the potentials are large (4 in a row on 7 × 8: 107 lines,
    /// 6.7 at the start) a pairing is rare and looking costs.
    fn pairing_likely(&self, potential: u64) -> bool {
        self.one.is_some_and(|one| potential < PAIRING_POTENTIAL * one)
    }

    /// Whether the maker (the opponent of `breaker`, whose marks are not
    /// needed) can never complete a line against a pairing strategy,
    /// whoever is to move: if disjoint pairs of free squares can be chosen
    /// so that every line the maker can still complete (none of
    /// `breaker`'s marks) holds both squares of some pair, the breaker
    /// answers each of the maker's moves into a pair with the pair's other
    /// square (and plays anywhere otherwise), so every such line keeps a
    /// free square of its pair until the breaker takes it. A move of the
    /// breaker's into a pair only kills the lines that pair serves.
    ///
    /// The pairs are chosen greedily (lines with fewest free squares first,
    /// each unserved line given the pair of its free unpaired squares that
    /// serves most unserved lines), undoing at most [`PAIRING_RETRIES`]
    /// choices that lead nowhere (also for each square the breaker tries
    /// first: with the greedy choice alone there, 4,8,4 took 10.7 CPU-s,
    /// not 9.9): a pairing found proves the bound; none found proves
    /// nothing.
    fn pairing_holds(&mut self, breaker: u64, free: u64) -> bool {
        self.pairing(breaker, free).is_ok()
    }

    /// [`Self::pairing_holds`] with the breaker to move, given one move
    /// first: if no pairing is found, the breaker tries each free square
    /// of the line the greedy choice could not serve (`stuck`) and looks
    /// for a pairing after taking it. A pairing found then proves the
    /// maker cannot win: the breaker takes that square and plays the
    /// pairing strategy.
    fn pairing_after_a_move(&mut self, breaker: u64, free: u64) -> bool {
        let Err(stuck) = self.pairing(breaker, free) else { return true };
        let mut cells = stuck;
        while cells != 0 {
            let bit = cells & cells.wrapping_neg();
            cells &= cells - 1;
            if self.pairing(breaker | bit, free & !bit).is_ok() {
                return true;
            }
        }
        false
    }

    /// The greedy pairing of [`Self::pairing_holds`]: `Err` with the free
    /// squares of the first line it could not serve.
    fn pairing(&mut self, breaker: u64, free: u64) -> Result<(), u64> {
        let all = &self.lines.all;
        let mut order = [0u32; 256];
        let mut n = 0;
        for (i, &line) in (0u32..).zip(all) {
            if line & breaker == 0 {
                let open = (line & free).count_ones();
                if open < 2 {
                    return Err(line & free);
                }
                order[n] = open << 16 | i;
                n += 1;
            }
        }
        let order = &mut order[..n];
        order.sort_unstable();
        let mut budget = PAIRING_RETRIES;
        self.pair_from(order, [0; 4], 0, breaker, free, &mut budget)?;
        self.pairings += 1;
        Ok(())
    }

    /// Serves the lines of `order` (line indices in their low 16 bits)
    /// not yet `served` with pairs of free squares not yet `used`, the
    /// first unserved line first, each with the pairs that serve most
    /// unserved lines tried first; a choice that leads nowhere is undone
    /// and the next tried while `budget` lasts. `Err`: the free squares of
    /// the first line found that could not be served.
    fn pair_from(
        &self,
        order: &[u32],
        served: [u64; 4],
        used: u64,
        breaker: u64,
        free: u64,
        budget: &mut u32,
    ) -> Result<(), u64> {
        let all = &self.lines.all;
        let is_served = |served: &[u64; 4], i: u16| served[usize::from(i >> 6)] >> (i & 63) & 1 != 0;
        let Some(at) = order.iter().position(|&key| !is_served(&served, (key & 0xffff) as u16)) else {
            return Ok(());
        };
        let i = (order[at] & 0xffff) as u16;
        let open = all[usize::from(i)] & free & !used;
        if open.count_ones() < 2 {
            return Err(all[usize::from(i)] & free);
        }
        // Each pair with how many unserved lines it serves, most first.
        let mut pairs = [(0usize, 0u32, 0u32); 64];
        let mut n = 0;
        let mut a_cells = open;
        while a_cells != 0 {
            let a = a_cells.trailing_zeros();
            a_cells &= a_cells - 1;
            let mut b_cells = a_cells;
            while b_cells != 0 && n < pairs.len() {
                let b = b_cells.trailing_zeros();
                b_cells &= b_cells - 1;
                let gain = self
                    .lines
                    .lines_holding(a, b)
                    .iter()
                    .filter(|&&j| all[usize::from(j)] & breaker == 0 && !is_served(&served, j))
                    .count();
                pairs[n] = (gain, a, b);
                n += 1;
            }
        }
        let pairs = &mut pairs[..n];
        pairs.sort_by_key(|&(gain, _, _)| std::cmp::Reverse(gain));
        let mut first_error = None;
        let rest = &order[at + 1..];
        for &(_, a, b) in pairs.iter() {
            let mut now = served;
            for &j in self.lines.lines_holding(a, b) {
                now[usize::from(j >> 6)] |= 1 << (j & 63);
            }
            match self.pair_from(rest, now, used | 1 << a | 1 << b, breaker, free, budget) {
                Ok(()) => return Ok(()),
                Err(stuck) => {
                    let stuck = *first_error.get_or_insert(stuck);
                    if *budget == 0 {
                        return Err(stuck);
                    }
                    *budget -= 1;
                }
            }
        }
        Err(first_error.unwrap_or(open))
    }

    /// One pass over the lines of a position whose free squares are
    /// `free`: `None` if the side to move (`mine`) completes a line at once,
    /// else the opponent's threats, both sides' live lines, potentials and
    /// weights.
    fn scan(&self, mine: u64, theirs: u64, free: u64) -> Option<Scan> {
        let near = self.lines.win - 1;
        let mut scan = Scan {
            threats: 0,
            hot: 0,
            mine_live: 0,
            theirs_live: 0,
            mine_potential: 0,
            theirs_potential: 0,
            mine_weight: [0; 64],
            theirs_weight: [0; 64],
            weight: [0; 64],
        };
        for &line in &self.lines.all {
            let (a, b) = (line & mine, line & theirs);
            if b == 0 {
                let j = a.count_ones();
                if j == near {
                    return None;
                }
                if j + 1 == near {
                    scan.hot |= line;
                }
                scan.mine_live |= line;
                scan.mine_potential += 1 << j;
                let mut cells = line & free;
                while cells != 0 {
                    let s = cells.trailing_zeros() as usize;
                    scan.mine_weight[s] += 1 << j;
                    scan.weight[s] += 1 << j;
                    cells &= cells - 1;
                }
            }
            if a == 0 {
                let j = b.count_ones();
                if j == near {
                    scan.threats |= line & !theirs;
                }
                if j + 1 == near {
                    scan.hot |= line;
                }
                scan.theirs_live |= line;
                scan.theirs_potential += 1 << j;
                let mut cells = line & free;
                while cells != 0 {
                    let s = cells.trailing_zeros() as usize;
                    scan.theirs_weight[s] += 1 << j;
                    scan.weight[s] += 1 << j;
                    cells &= cells - 1;
                }
            }
        }
        Some(scan)
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
        let Some(scan) = self.scan(mine, theirs, free) else {
            return self.win_score(marks + 1);
        };
        let Scan { threats, hot, mine_live, theirs_live, mine_potential, theirs_potential, .. } = scan;
        if threats.count_ones() >= 2 {
            // One block is possible; the other threat wins next move.
            return -self.win_score(marks + 2);
        }
        if mine_live | theirs_live == 0 {
            // No line can be completed by anyone: a draw, however play goes.
            return 0;
        }
        let mut mine_cannot_win =
            mine_live == 0 || self.maker_to_move_fails(mine_potential, &scan.mine_weight);
        let mut theirs_cannot_win =
            theirs_live == 0 || self.breaker_to_move_holds(theirs_potential, &scan.theirs_weight);
        // Pairings are looked for only where a side's potential is small
        // enough that one is likely (a cost, not a question of exactness).
        if !theirs_cannot_win && alpha < 0 && self.pairing_likely(theirs_potential) {
            // The side to move breaks: it may take one square first.
            theirs_cannot_win = self.pairing_after_a_move(mine, free);
        }
        if !mine_cannot_win && beta > 0 && self.pairing_likely(mine_potential) {
            mine_cannot_win = self.pairing_holds(theirs, free);
        }
        if mine_cannot_win && theirs_cannot_win {
            // Neither side can ever complete a line: a draw.
            return 0;
        }
        if marks >= self.horizon {
            self.cut += 1;
            return 0;
        }

        // No score can beat a win on the next move but one; a side that
        // cannot complete a line cannot win at all.
        let mut ceiling = self.win_score(marks + 3).max(0);
        if mine_cannot_win {
            ceiling = 0;
        }
        if beta > ceiling {
            beta = ceiling;
            if alpha >= beta {
                return beta;
            }
        }
        if theirs_cannot_win && alpha < 0 {
            alpha = 0;
            if alpha >= beta {
                return alpha;
            }
        }

        // A square on no line either side can still complete is worth no
        // more than any other move: its mark can never matter.
        let moves = if threats == 0 { free & (mine_live | theirs_live) } else { threats };
        let hot = hot & moves;
        let (key, symmetry) = self.lines.canonical(mine, theirs);
        let mut first = None;
        if let Some(entry) = self.table.get(key) {
            first = entry.best.map(|s| self.lines.preimage_of(symmetry, s));
            match entry.step {
                // A whole-subtree result holds in every step.
                None => {}
                Some(step) if step == self.horizon => self.cut += 1,
                Some(_) => {
                    return self.search(
                        mine,
                        theirs,
                        alpha,
                        beta,
                        (moves, hot, &scan.weight),
                        key,
                        symmetry,
                        first,
                    );
                }
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
        self.search(mine, theirs, alpha, beta, (moves, hot, &scan.weight), key, symmetry, first)
    }

    /// Searches `moves` (the best move found before, `first`, first) and
    /// records the result, with the best move, under `key`, the position's
    /// image by `symmetry`.
    #[allow(clippy::too_many_arguments, reason = "one search's state, passed down a hot path")]
    fn search(
        &mut self,
        mine: u64,
        theirs: u64,
        mut alpha: i32,
        beta: i32,
        (moves, hot, weight): (u64, u64, &[u64; 64]),
        key: (u64, u64),
        symmetry: usize,
        first: Option<u32>,
    ) -> i32 {
        let free = self.lines.full() & !(mine | theirs);
        let cut_before = self.cut;
        let original_alpha = alpha;
        let mut best = -i32::MAX;
        let mut best_move = None;
        let first = first.filter(|&s| moves & (1 << s) != 0);
        let rest = moves & !first.map_or(0, |s| 1 << s);
        // The rest by weight (most first), then nearest the centre.
        let mut order = [0u64; 64];
        let mut n = 0;
        let mut cells = rest;
        while cells != 0 {
            let s = cells.trailing_zeros();
            let rank = u64::from(self.lines.centre_rank[s as usize]);
            let hot_bit = u64::from(hot & (1 << s) != 0);
            order[n] = (hot_bit << 63 | weight[s as usize] << 16 | (255 - rank) << 8) | u64::from(s);
            n += 1;
            cells &= cells - 1;
        }
        let order = &mut order[..n];
        order.sort_unstable_by(|a, b| b.cmp(a));
        let sorted = order.iter().map(|&key| (key & 0xff) as u32);
        for s in first.into_iter().chain(sorted) {
            let bit = 1u64 << s;
            let score = -self.negamax(theirs, mine | bit, -beta, -alpha);
            if score > best {
                best = score;
                best_move = Some(s);
            }
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
        let image = best_move.map(|s| self.lines.image_of(symmetry, s));
        self.table.put(key, Entry { score: best, bound, step, best: image, work }, self.horizon);
        best
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::board::Geometry;

    /// A solver for one whole search (no horizon), with a `megabytes` table.
    fn solver(lines: &Lines, megabytes: u32) -> Solver<'_, 'static> {
        let limits = Limits {
            started: Instant::now(),
            deadline: None,
            progress: None,
            hash_mb: megabytes,
            ties: None,
        };
        let table = Table::new(megabytes, u64::MAX);
        Solver {
            lines,
            table,
            nodes: 0,
            horizon: u32::MAX,
            cut: 0,
            limits,
            depth: 0,
            stopped: false,
            one: unit_one(lines.win),
            order: Vec::new(),
            proven: Vec::new(),
            pairings: 0,
        }
    }

    /// The exact score by plain negamax over every free square: no pruning,
    /// no symmetry, no dead squares; the oracle the solver must agree with.
    fn oracle(lines: &Lines, mine: u64, theirs: u64, memo: &mut HashMap<(u64, u64), i32>) -> i32 {
        if let Some(&score) = memo.get(&(mine, theirs)) {
            return score;
        }
        let taken = mine | theirs;
        let free = lines.full() & !taken;
        let cells = i32::try_from(lines.cells).unwrap();
        let marks = i32::try_from(taken.count_ones()).unwrap();
        let mut best = if free == 0 { 0 } else { -i32::MAX };
        for s in 0..lines.cells {
            let bit = 1u64 << s;
            if free & bit == 0 {
                continue;
            }
            let score = if lines.wins_at(mine | bit, s) {
                cells + 1 - (marks + 1)
            } else {
                -oracle(lines, theirs, mine | bit, memo)
            };
            best = best.max(score);
        }
        memo.insert((mine, theirs), best);
        best
    }

    /// A random position with `marks` marks, the first player's turn if
    /// `marks` is even, in which nobody has won yet.
    fn random_position(lines: &Lines, marks: u32, rng: &mut ChaCha8Rng) -> (u64, u64) {
        'again: loop {
            let (mut sides, mut taken) = ([0u64; 2], 0u64);
            for n in 0..marks {
                let s = loop {
                    let s = rng.random_range(0..lines.cells);
                    if taken & (1 << s) == 0 {
                        break s;
                    }
                };
                let side = &mut sides[(n % 2) as usize];
                *side |= 1 << s;
                taken |= 1 << s;
                if lines.wins_at(*side, s) {
                    continue 'again;
                }
            }
            // The side to move is the one with fewer (or as many) marks.
            return if marks.is_multiple_of(2) { (sides[0], sides[1]) } else { (sides[1], sides[0]) };
        }
    }

    #[test]
    fn a_position_where_no_line_can_be_completed_is_a_draw_at_once() {
        // 4 × 4, four in a row: every row, column and diagonal holds both
        // marks, with eight squares free.
        let lines = Lines::new(Geometry::new(4, 4, 4).unwrap());
        let (x, o) =
            ((1 << 2) | (1 << 5) | (1 << 11) | (1 << 12), (1 << 3) | (1 << 4) | (1 << 10) | (1 << 13));
        let mut solver = solver(&lines, 1);
        assert_eq!(solver.negamax(x, o, -i32::MAX, i32::MAX), 0);
        assert_eq!(solver.nodes, 1);
        assert_eq!(oracle(&lines, x, o, &mut HashMap::new()), 0);
    }

    #[test]
    fn a_best_move_maps_to_the_key_and_back() {
        for (rows, cols) in [(5, 5), (4, 6)] {
            let lines = Lines::new(Geometry::new(rows, cols, 4).unwrap());
            let (mine, theirs) = (0b1_0110, 1 << 9);
            let (key, symmetry) = lines.canonical(mine, theirs);
            for s in 0..lines.cells {
                let image = lines.image_of(symmetry, s);
                assert_eq!(lines.preimage_of(symmetry, image), s);
                // The square's mark lands where the key has it.
                assert_eq!(key.0 | 1 << image, permuted(&lines, symmetry, mine | 1 << s));
            }
        }
    }

    /// `bits` as symmetry `symmetry` maps it.
    fn permuted(lines: &Lines, symmetry: usize, bits: u64) -> u64 {
        (0..lines.cells)
            .filter(|&s| bits & 1 << s != 0)
            .fold(0, |out, s| out | 1 << lines.image_of(symmetry, s))
    }

    #[test]
    fn the_pruned_search_agrees_with_plain_negamax() {
        let mut rng = ChaCha8Rng::seed_from_u64(20);
        let mut seen = std::collections::BTreeSet::new();
        // How often a pairing strategy proved a side cannot win.
        let mut pairings = 0;
        for (geometry, marks, count) in [
            ((4, 4, 4), 2..=10, 60),
            ((5, 5, 4), 12..=16, 40),
            ((4, 5, 3), 4..=12, 40),
            ((6, 6, 5), 25..=28, 30),
            ((4, 6, 4), 12..=16, 40),
            ((5, 6, 5), 18..=22, 40),
        ] {
            let lines = Lines::new(Geometry::new(geometry.0, geometry.1, geometry.2).unwrap());
            let mut memo = HashMap::new();
            for _ in 0..count {
                let n = rng.random_range(marks.clone());
                let (mine, theirs) = random_position(&lines, n, &mut rng);
                let truth = oracle(&lines, mine, theirs, &mut memo);
                seen.insert(truth.signum());
                let mut full = solver(&lines, 1);
                assert_eq!(
                    full.negamax(mine, theirs, -i32::MAX, i32::MAX),
                    truth,
                    "{geometry:?} {mine:#x} {theirs:#x}"
                );
                // A window around 0 tells win, draw or loss.
                let mut sign = solver(&lines, 1);
                let score = sign.negamax(mine, theirs, -1, 1);
                assert_eq!(score.signum(), truth.signum(), "{geometry:?} {mine:#x} {theirs:#x}");
                pairings += full.pairings + sign.pairings;
            }
        }
        // Wins, draws and losses were all compared, and pairings fired.
        assert_eq!(seen.into_iter().collect::<Vec<_>>(), [-1, 0, 1]);
        assert!(pairings > 40, "{pairings}");
    }

    /// A step cut short never gives a drawn position away for a guess: a
    /// move it proved to draw beats the last step's unproven choice, a move
    /// it proved to win beats everything, and a move it proved lost is
    /// never played while another is not.
    #[test]
    fn a_step_cut_short_plays_what_it_proved() {
        let lines = Lines::new(Geometry::new(4, 4, 4).unwrap());
        let mut solver = solver(&lines, 1);
        solver.order = vec![5, 6, 9, 10];
        // The last step chose 5 (unproven); this one proved 5 loses and 9 draws.
        solver.proven = vec![(5, -1), (9, 0)];
        assert_eq!(solver.cut_short((5, None)), (9, None));
        // Proved 5 draws: it stays.
        solver.proven = vec![(5, 0), (9, 0)];
        assert_eq!(solver.cut_short((5, None)), (5, None));
        // Proved 5 loses and nothing else: the next best-ranked move.
        solver.proven = vec![(5, -1)];
        assert_eq!(solver.cut_short((5, None)), (6, None));
        // Nothing proved: the last step's choice.
        solver.proven = vec![];
        assert_eq!(solver.cut_short((5, None)), (5, None));
        // A proved win wins.
        solver.proven = vec![(5, 0), (10, 1)];
        assert_eq!(solver.cut_short((5, None)), (10, Some(Value::Win)));
    }

    /// The potential bounds: 5 × 5 with 5 in a row (12 lines, each weighing
    /// 2^-5: 3/8 < 1/2) and 5 × 6 with 6 (five lines) are draws at the root,
    /// searching one position; on 6 × 6 with 5 (32 lines: a potential of 1)
    /// the bound alone proves nothing at the root.
    #[test]
    fn potential_bounds_prove_draws_at_the_root() {
        for (rows, cols, win) in [(5, 5, 5), (5, 6, 6)] {
            let lines = Lines::new(Geometry::new(rows, cols, win).unwrap());
            let mut solver = solver(&lines, 1);
            assert_eq!(solver.negamax(0, 0, -i32::MAX, i32::MAX), 0);
            assert_eq!(solver.nodes, 1, "{rows}x{cols} k={win}");
        }
        let lines = Lines::new(Geometry::new(6, 6, 5).unwrap());
        let solver = solver(&lines, 1);
        // On the empty board a square adds one (2^0) per line through it.
        let mut added = [0u64; 64];
        for &line in &lines.all {
            for (s, w) in added.iter_mut().enumerate() {
                *w += line >> s & 1;
            }
        }
        assert!(!solver.maker_to_move_fails(32, &added));
        assert!(!solver.breaker_to_move_holds(32, &added));
        assert!(solver.breaker_to_move_holds(31, &added));
        // One move further: a potential of 1 or more still holds if taking
        // the heaviest square leaves less than 1 with the next heaviest
        // added (32 is 1 here).
        let mut uneven = [0u64; 64];
        (uneven[3], uneven[9], uneven[10]) = (20, 5, 1);
        assert!(solver.breaker_to_move_holds(40, &uneven));
        assert!(solver.breaker_to_move_holds(46, &uneven));
        assert!(!solver.breaker_to_move_holds(47, &uneven));
        uneven[10] = 13;
        assert!(!solver.breaker_to_move_holds(40, &uneven));
        // The mover's bound counts what its best square adds: at most 7
        // lines (of weight 1 here) pass through one square of 6 × 6.
        assert_eq!(added.iter().max(), Some(&7));
        assert!(solver.maker_to_move_fails(24, &added));
        assert!(!solver.maker_to_move_fails(25, &added));
    }

    /// A pairing strategy proves a side cannot win where the potential
    /// bound does not; a line with one free square, or two lines that need
    /// the same square, admit none. 2 × 8 with 4 in a row: ten lines, all
    /// rows (squares 0-7 the first, 8-15 the second).
    #[test]
    fn a_pairing_strategy_proves_a_side_cannot_win() {
        let lines = Lines::new(Geometry::new(2, 8, 4).unwrap());
        let mut solver = solver(&lines, 1);
        let full = lines.full();
        // The maker on the fourth square of the first row and the fifth of
        // the second: a potential of 18 sixteenths, so the bound proves
        // nothing, but pairs 1-2 and 4-5 (and 10-11, 12-13 or the like)
        // serve every line.
        let maker = 1 << 3 | 1 << 12;
        let scan = solver.scan(maker, 0, full & !maker).unwrap();
        assert_eq!(scan.mine_potential, 18);
        assert!(!solver.maker_to_move_fails(scan.mine_potential, &scan.mine_weight));
        assert!(!solver.breaker_to_move_holds(scan.mine_potential, &scan.mine_weight));
        assert!(solver.pairing_holds(0, full & !maker));
        assert_eq!(solver.pairings, 1);
        // Three in a row with the fourth square free: a threat, no pair.
        let (maker, breaker) = (0b111, 1 << 7);
        assert!(!solver.pairing_holds(breaker, full & !maker & !breaker));
        // The maker on 0, 1, 5 and 6: the line 0-3 needs the pair 2-3, the
        // line 3-6 the pair 3-4 (and the maker wins by playing 3).
        let (maker, breaker) = (0b110_0011, 1 << 7);
        assert!(!solver.pairing_holds(breaker, full & !maker & !breaker));
        assert_eq!(oracle(&lines, maker, breaker, &mut HashMap::new()), 16 + 1 - 8);
        assert_eq!(solver.pairings, 1);
    }

    /// With random ties, `perfect` plays every move it proves best, one
    /// drawn from the seed: on the empty board (all nine squares draw) the
    /// seeds spread over the squares, and each move keeps the draw.
    #[test]
    fn random_ties_draw_among_the_moves_proven_best() {
        let empty = Game::new(
            crate::player::Players::classic("X", "O"),
            Geometry::CLASSIC,
            crate::board::Storage::Auto,
        );
        let mut seen = std::collections::BTreeSet::new();
        for seed in 0..40 {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let limits = Limits {
                started: Instant::now(),
                deadline: None,
                progress: None,
                hash_mb: 1,
                ties: Some(&mut rng),
            };
            let (square, value, _) = choose(&empty, limits);
            assert_eq!(value, Some(Value::Draw));
            seen.insert(square.index());
        }
        assert!(seen.len() >= 6, "{seen:?}");
        // Without, the lowest square, whatever the seed.
        let limits =
            Limits { started: Instant::now(), deadline: None, progress: None, hash_mb: 1, ties: None };
        assert_eq!(choose(&empty, limits).0.index(), 0);
    }
}

#[cfg(test)]
mod probe {
    use super::*;
    use crate::board::Geometry;

    /// Not a test: `PROBE=6,6,5 cargo test --lib probe -- --ignored --nocapture`.
    #[test]
    #[ignore = "a measurement"]
    fn probe() {
        let spec = std::env::var("PROBE").unwrap_or_else(|_| "6,6,5".into());
        for board in spec.split(' ') {
            let v: Vec<u32> = board.split(',').map(|x| x.parse().unwrap()).collect();
            let geometry = Geometry::new(v[0], v[1], v[2]).unwrap();
            let lines = Lines::new(geometry);
            let limits =
                Limits { started: Instant::now(), deadline: None, progress: None, hash_mb: 256, ties: None };
            let mut solver = Solver {
                lines: &lines,
                table: Table::new(256, u64::MAX),
                nodes: 0,
                horizon: u32::MAX,
                cut: 0,
                limits,
                depth: 0,
                stopped: false,
                one: unit_one(lines.win),
                order: Vec::new(),
                proven: Vec::new(),
                pairings: 0,
            };
            let secs: u64 = std::env::var("PROBE_SECS").map_or(10, |s| s.parse().unwrap());
            solver.limits.deadline = Some(Instant::now() + std::time::Duration::from_secs(secs));
            let t = Instant::now();
            let score = solver.negamax(0, 0, -1, 1);
            eprintln!(
                "{board}: full window(-1,1) {score} stopped {} nodes {} in {:?}",
                solver.stopped,
                solver.nodes,
                t.elapsed()
            );
            let game =
                Game::new(crate::player::Players::classic("X", "O"), geometry, crate::board::Storage::Auto);
            let t = Instant::now();
            let deadline = Some(Instant::now() + std::time::Duration::from_secs(secs));
            let limits =
                Limits { started: Instant::now(), deadline, progress: None, hash_mb: 256, ties: None };
            let (s, value, search) = choose(&game, limits);
            eprintln!("{board}: choose {s:?} {value:?} {search:?} in {:?}", t.elapsed());
        }
    }
}
