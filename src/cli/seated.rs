//! A bot seated at `play`'s console (`play --x BOT_DIR`): built as `match`
//! builds one ([`super::entrants`]), started anew for each game, and asked
//! for each of its moves through the bot protocol, its answer judged as a
//! match judges it (a forfeit ends the game). Its standard error is shown
//! on the grader's when each game ends.

use std::time::Duration;

use crate::arena::record;
use crate::arena::{Entrant, Forfeit, Position, Seat, Setup, answer};
use crate::board::Square;
use crate::game::Game;
use crate::play::{Forfeited, Program};
use crate::text;

/// How long a game with a bot in it may wait on the console's people, in
/// all: a bot's run is ended after this much more than its own answers'
/// time.
pub(super) const PEOPLE_TIME: Duration = Duration::from_hours(1);

/// A bot playing one side of the console's games.
pub(super) struct SeatedBot {
    entrant: Box<dyn Entrant>,
    /// Its run in the game under way, once it has been asked a move.
    seat: Option<Box<dyn Seat>>,
    move_time: Duration,
    /// Games it has joined.
    games: u64,
}

impl SeatedBot {
    /// `entrant` (a bot), each answer within `move_time`.
    pub(super) fn new(entrant: Box<dyn Entrant>, move_time: Duration) -> SeatedBot {
        SeatedBot { entrant, seat: None, move_time, games: 0 }
    }
}

/// A forfeit as the console says it: one line, inert, as records keep it.
fn forfeited(forfeit: &Forfeit, refused: Option<String>) -> Forfeited {
    Forfeited { why: record::detail(&forfeit.to_string()), refused }
}

impl Program for SeatedBot {
    fn name(&self) -> &str {
        self.entrant.name()
    }

    fn answer(&mut self, game: &Game, seed: u64) -> Result<Square, Forfeited> {
        let seat = if let Some(seat) = self.seat.take() {
            seat
        } else {
            self.games += 1;
            let setup = Setup {
                geometry: game.board().geometry(),
                marks: game.players().iter().map(|(_, p)| p.mark).collect(),
                game: self.games,
                seed,
                move_time: self.move_time,
                clock: None,
                waiting: PEOPLE_TIME,
            };
            let joined = self.entrant.join(&setup, game.next_player().index());
            joined.map_err(|forfeit| forfeited(&forfeit, None))?
        };
        let seat = self.seat.insert(seat);
        let line = seat.answer(&Position::new(game)).map_err(|forfeit| forfeited(&forfeit, None))?;
        answer::judge(game, &line).map_err(|refused| forfeited(&refused.forfeit, refused.recorded))
    }

    fn finish(&mut self) {
        let Some(seat) = self.seat.take() else { return };
        let stderr = seat.finish().stderr;
        if !stderr.trim().is_empty() {
            eprintln!(
                "ttt-referee: {} wrote on standard error:\n{}",
                text::inert(self.entrant.name()),
                text::inert_lines(stderr.trim_end())
            );
        }
    }
}
