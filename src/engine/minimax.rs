//! URI CSC 212 Deep Dive 4's minimax:
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
//!
//! Because every node's best value *starts at a tie*, the search needs no
//! searching. A node where MAX is to move is worth `max(0, children)`; a
//! child is worth 1 only if it is terminal with MAX's line (a node where MIN
//! is to move is worth at most 0, by the mirror argument), so the node is
//! worth 1 if MAX can complete a line at once and 0 otherwise. Mirrored for
//! MIN. So a root move is worth a win if it completes the mover's line, a
//! loss if it leaves the opponent a square that completes theirs, and a tie
//! otherwise; and the engine takes the lowest winning square, else the
//! opponent's only winning square if they have exactly one, else the lowest
//! free square. [`choose`] computes exactly that, in time linear in the
//! board, where the literal search costs about cells⁵ (six seconds a move on
//! 7×7). The literal search is kept in the tests, which check that both
//! choose the same square in every reachable 3×3 position and in random
//! positions on other boards.

use crate::board::Square;
use crate::game::Game;

pub(super) fn choose(game: &Game) -> Square {
    let board = game.board();
    let me = game.next_player();
    let opponent = game.players().next_after(me);
    let mut lowest_free = None;
    // The opponent's winning squares: the first, and whether there is another.
    let mut threat = None;
    let mut threats = 0u32;
    for square in (0..board.geometry().cells()).map(Square::from_index) {
        if board.get(square).is_some() {
            continue;
        }
        if board.would_win(square, me) {
            return square;
        }
        lowest_free.get_or_insert(square);
        if threats < 2 && board.would_win(square, opponent) {
            threat.get_or_insert(square);
            threats += 1;
        }
    }
    match threat {
        Some(square) if threats == 1 => square,
        _ => lowest_free.expect("a legal move exists"),
    }
}

/// URI CSC 212 Deep Dive 4's search, literally, as the tests' oracle for [`choose`].
#[cfg(test)]
mod literal {
    use crate::board::Square;
    use crate::engine::bits::{Lines, position};
    use crate::game::Game;
    use crate::player::PlayerId;

    /// URI CSC 212 Deep Dive 4's search depth (it never binds; see the module documentation).
    const MAX_DEPTH: u32 = 5;

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
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use rand::{RngExt as _, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::{choose, literal};
    use crate::board::{Geometry, Square, Storage};
    use crate::game::Game;
    use crate::player::{PlayerId, Players};

    fn new_game(geometry: Geometry) -> Game {
        Game::new(Players::classic("a", "b"), geometry, Storage::Dense)
    }

    fn cells(game: &Game) -> Vec<Option<usize>> {
        let g = game.board().geometry();
        (0..g.cells()).map(|i| game.board().get(Square::from_index(i)).map(PlayerId::index)).collect()
    }

    #[test]
    fn agrees_with_the_literal_search_in_every_reachable_classic_position() {
        let mut seen = HashSet::new();
        let mut stack = vec![new_game(Geometry::CLASSIC)];
        while let Some(game) = stack.pop() {
            if game.outcome().is_some() || !seen.insert(cells(&game)) {
                continue;
            }
            assert_eq!(choose(&game), literal::choose(&game), "{:?}", cells(&game));
            for mv in game.legal_moves_of(game.next_player()).collect::<Vec<_>>() {
                let mut next = game.clone();
                next.play_unchecked(mv);
                stack.push(next);
            }
        }
        // Positions with a move to make: 5,478 reachable, less the 958 ended.
        assert_eq!(seen.len(), 5478 - 958);
    }

    #[test]
    fn agrees_with_the_literal_search_on_other_boards() {
        let mut rng = ChaCha8Rng::seed_from_u64(2002);
        for (rows, cols, win, fewest_marks) in
            [(4, 4, 3, 3), (4, 4, 4, 4), (3, 5, 3, 3), (5, 5, 4, 11), (2, 6, 2, 2)]
        {
            let geometry = Geometry::new(rows, cols, win).unwrap();
            for _ in 0..60 {
                let mut game = new_game(geometry);
                let marks = rng.random_range(fewest_marks..geometry.cells());
                for _ in 0..marks {
                    let moves: Vec<_> = game.legal_moves_of(game.next_player()).collect();
                    if game.outcome().is_some() {
                        break;
                    }
                    game.play_unchecked(moves[rng.random_range(0..moves.len())]);
                }
                if game.outcome().is_none() {
                    assert_eq!(choose(&game), literal::choose(&game), "{geometry}: {:?}", cells(&game));
                }
            }
        }
    }
}
