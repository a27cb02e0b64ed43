//! The Smalltalk exercise's computer player, in its order: win if a square wins; else
//! block a square where an opponent would win next; else take the centre;
//! else a random free corner; else a random free square. Among several
//! winning (or blocking) squares it takes the lowest; on boards with an even
//! side the centre is the middle two or four squares, taken at random.
//!
//! [`allowed`] says which squares the strategy allows and by which rule, so
//! grading can hold a student's program to the same strategy
//! ([`crate::play::judge`]); [`choose`] is this engine's pick among them.

use rand::RngExt;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;

use crate::board::Square;
use crate::game::Game;

/// Which of the Smalltalk exercise's rules decides a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// A square that wins at once.
    Win,
    /// A square where an opponent would win next.
    Block,
    /// The centre (one square, or the middle two or four of an even board).
    Centre,
    /// A free corner.
    Corner,
    /// Any free square.
    Any,
}

impl Rule {
    /// Whether the strategy leaves the choice among the rule's squares to
    /// chance (a program may take any winning or blocking square it likes,
    /// but must not always take the same corner).
    #[must_use]
    pub fn by_chance(self) -> bool {
        matches!(self, Rule::Centre | Rule::Corner | Rule::Any)
    }

    /// The rule in words: `win`, `block`, `centre square`, `corner`, `square`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Rule::Win => "win",
            Rule::Block => "block",
            Rule::Centre => "centre square",
            Rule::Corner => "corner",
            Rule::Any => "square",
        }
    }
}

/// The squares the Smalltalk exercise's strategy allows the player to move in `game`
/// (in ascending order), and the rule that decides them. `game` is not over.
#[must_use]
pub fn allowed(game: &Game) -> (Vec<Square>, Rule) {
    let board = game.board();
    let g = board.geometry();
    let me = game.next_player();
    let free: Vec<Square> = game.legal_moves_of(me).map(|mv| mv.square).collect();

    let wins: Vec<Square> = free.iter().copied().filter(|&s| board.would_win(s, me)).collect();
    if !wins.is_empty() {
        return (wins, Rule::Win);
    }
    let opponents: Vec<_> = game.players().iter().map(|(id, _)| id).filter(|&id| id != me).collect();
    let blocks: Vec<Square> =
        free.iter().copied().filter(|&s| opponents.iter().any(|&p| board.would_win(s, p))).collect();
    if !blocks.is_empty() {
        return (blocks, Rule::Block);
    }
    let middle = |n: u32| if n % 2 == 1 { vec![n / 2] } else { vec![n / 2 - 1, n / 2] };
    let centre: Vec<Square> = middle(g.rows())
        .into_iter()
        .flat_map(|r| middle(g.cols()).into_iter().filter_map(move |c| g.square(r, c)))
        .filter(|&s| board.get(s).is_none())
        .collect();
    if !centre.is_empty() {
        return (centre, Rule::Centre);
    }
    let mut corners: Vec<Square> =
        [(0, 0), (0, g.cols() - 1), (g.rows() - 1, 0), (g.rows() - 1, g.cols() - 1)]
            .into_iter()
            .filter_map(|(r, c)| g.square(r, c))
            .filter(|&s| board.get(s).is_none())
            .collect();
    corners.sort();
    corners.dedup();
    if !corners.is_empty() {
        return (corners, Rule::Corner);
    }
    (free, Rule::Any)
}

/// This engine's move: the lowest winning or blocking square, else a random
/// one of the centre's, the free corners or the free squares.
pub(super) fn choose(game: &Game, rng: &mut ChaCha8Rng) -> Square {
    let (squares, rule) = allowed(game);
    match rule {
        Rule::Win | Rule::Block => squares[0],
        Rule::Centre | Rule::Corner => *squares.choose(rng).unwrap_or(&squares[0]),
        Rule::Any => squares[rng.random_range(0..squares.len())],
    }
}
