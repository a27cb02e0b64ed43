//! A computer player from outside the library's engines, seated at a
//! console by whoever makes it ([`Side::Program`](super::Side::Program)):
//! `play --x BOT_DIR` seats a bot built and run as a match runs it, asked
//! for each of its moves through the bot protocol. The console only asks
//! it for squares and tells it when the game is over; whether its answer
//! is a free square, and how long it may take, is its maker's to judge.

use crate::board::Square;
use crate::game::Game;

/// A program that plays one side of a console's games.
pub trait Program {
    /// Its name, as the record's players line names it.
    fn name(&self) -> &str;

    /// Its square in `game` (not over; its turn), a free one, or why it
    /// forfeits the game. `seed` is the game's (the console's engines are
    /// seeded from it), for a program that draws at random.
    ///
    /// # Errors
    /// [`Forfeited`]: it gave no free square (none in time, a taken one, it
    /// crashed, …).
    fn answer(&mut self, game: &Game, seed: u64) -> Result<Square, Forfeited>;

    /// The game is over, or stopped: let it go.
    fn finish(&mut self);
}

/// Why a program lost its game without finishing it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Forfeited {
    /// What happened, in words, on one line (made inert by its maker).
    pub why: String,
    /// For an answer that is a number but no free square (taken, or off
    /// the board), the square field the record writes for it, so the
    /// referee rules the move illegal as the console did.
    pub refused: Option<String>,
}
