//! seeds/001's computer player, in its order: win if a square wins; else
//! block a square where an opponent would win next; else take the centre;
//! else a random free corner; else a random free square. Among several
//! winning (or blocking) squares it takes the lowest; on boards with an even
//! side the centre is the middle two or four squares, taken at random.

use rand::RngExt;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;

use crate::board::Square;
use crate::game::Game;

pub(super) fn choose(game: &Game, rng: &mut ChaCha8Rng) -> Square {
    let board = game.board();
    let g = board.geometry();
    let me = game.next_player();
    let free: Vec<Square> = game.legal_moves_of(me).map(|mv| mv.square).collect();

    if let Some(&s) = free.iter().find(|&&s| board.would_win(s, me)) {
        return s;
    }
    let opponents: Vec<_> = game.players().iter().map(|(id, _)| id).filter(|&id| id != me).collect();
    if let Some(&s) = free.iter().find(|&&s| opponents.iter().any(|&p| board.would_win(s, p))) {
        return s;
    }
    let middle = |n: u32| if n % 2 == 1 { vec![n / 2] } else { vec![n / 2 - 1, n / 2] };
    let centre: Vec<Square> = middle(g.rows())
        .into_iter()
        .flat_map(|r| middle(g.cols()).into_iter().filter_map(move |c| g.square(r, c)))
        .filter(|&s| board.get(s).is_none())
        .collect();
    if let Some(&s) = centre.choose(rng) {
        return s;
    }
    let mut corners: Vec<Square> =
        [(0, 0), (0, g.cols() - 1), (g.rows() - 1, 0), (g.rows() - 1, g.cols() - 1)]
            .into_iter()
            .filter_map(|(r, c)| g.square(r, c))
            .filter(|&s| board.get(s).is_none())
            .collect();
    corners.sort();
    corners.dedup();
    if let Some(&s) = corners.choose(rng) {
        return s;
    }
    free[rng.random_range(0..free.len())]
}
