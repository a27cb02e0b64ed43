//! seeds/002's minimax, literally:
//!
//! ```text
//! if the board is terminal: return its value (1 MAX won, -1 MIN won, 0 tie)
//! update the current player
//! assume the best value is a tie
//! if within MAX_DEPTH: for each move left, recur with depth + 1, and keep
//!   the max (MAX) or the min (MIN) of the best value and the new value
//! return the best value
//! ```
//!
//! Player 1 (the first declared) is MAX, player 2 is MIN, `MAX_DEPTH` is 5.
//! The engine tries each empty square in ascending order, searches the
//! position after it from depth 1, recursing while `depth < MAX_DEPTH`, and
//! takes the best value for its side, the lowest square among equals.

use super::bits::{Lines, position};
use crate::board::Square;
use crate::game::Game;
use crate::player::PlayerId;

/// seeds/002's search depth.
pub const MAX_DEPTH: u32 = 5;

pub(super) fn choose(game: &Game) -> Square {
    let lines = Lines::new(game.board().geometry());
    let (first, second) = position(game);
    let max_to_move = game.next_player() == PlayerId::new(0);
    let mut best: Option<(i8, u32)> = None;
    for s in 0..lines.cells {
        let bit = 1u64 << s;
        if (first | second) & bit != 0 {
            continue;
        }
        let (x, o) = if max_to_move { (first | bit, second) } else { (first, second | bit) };
        let value = minimax(&lines, x, o, max_to_move, 1);
        let better = match best {
            None => true,
            Some((b, _)) => (max_to_move && value > b) || (!max_to_move && value < b),
        };
        if better {
            best = Some((value, s));
        }
    }
    Square::from_index(u64::from(best.expect("a legal move exists").1))
}

/// The value of the position (`x` MAX's marks, `o` MIN's) whose last move
/// was MAX's if `last_was_max`.
fn minimax(lines: &Lines, x: u64, o: u64, last_was_max: bool, depth: u32) -> i8 {
    if won(lines, x) {
        return 1;
    }
    if won(lines, o) {
        return -1;
    }
    let taken = x | o;
    if taken == lines.full() {
        return 0;
    }
    let max_moves = !last_was_max; // update the current player
    let mut best = 0; // assume the best value is a tie
    if depth < MAX_DEPTH {
        let mut free = lines.full() & !taken;
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free &= free - 1;
            let value = if max_moves {
                minimax(lines, x | bit, o, true, depth + 1)
            } else {
                minimax(lines, x, o | bit, false, depth + 1)
            };
            best = if max_moves { best.max(value) } else { best.min(value) };
        }
    }
    best
}

fn won(lines: &Lines, bits: u64) -> bool {
    let mut rest = bits;
    while rest != 0 {
        let s = rest.trailing_zeros();
        if lines.wins_at(bits, s) {
            return true;
        }
        rest &= rest - 1;
    }
    false
}
