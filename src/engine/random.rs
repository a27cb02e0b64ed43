//! The `random` engine: a uniformly random legal move, from the engine's
//! seeded generator, so the same seed replays the same game.

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use crate::board::Square;
use crate::game::Game;

/// A free square for the player to move in `game` (not over), each with the
/// same chance.
pub(super) fn choose(game: &Game, rng: &mut ChaCha8Rng) -> Square {
    let me = game.next_player();
    let free = game.legal_moves_of(me).count();
    let pick = rng.random_range(0..free);
    game.legal_moves_of(me).nth(pick).map(|mv| mv.square).expect("a free square: the game is not over")
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use rand::SeedableRng;

    use super::*;
    use crate::board::{Geometry, Storage};
    use crate::game::Move;
    use crate::player::{PlayerId, Players};

    fn classic() -> Game {
        Game::new(Players::classic("a", "b"), Geometry::CLASSIC, Storage::Auto)
    }

    #[test]
    fn the_same_seed_gives_the_same_moves() {
        let pick = |seed| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            (0..20).map(|_| choose(&classic(), &mut rng)).collect::<Vec<_>>()
        };
        assert_eq!(pick(7), pick(7));
        assert_ne!(pick(7), pick(8));
    }

    #[test]
    fn every_free_square_comes_up_and_no_taken_one() {
        let mut game = classic();
        game.play_unchecked(Move { player: PlayerId::new(0), square: Square::from_index(4) });
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut counts: HashMap<u64, u32> = HashMap::new();
        for _ in 0..8000 {
            *counts.entry(choose(&game, &mut rng).number()).or_default() += 1;
        }
        assert!(!counts.contains_key(&5), "{counts:?}");
        assert_eq!(counts.len(), 8, "{counts:?}");
        // Uniform: each of the 8 squares near 1000 times.
        assert!(counts.values().all(|&n| (850..1150).contains(&n)), "{counts:?}");
    }
}
