//! Matches and tournaments played live: participants ([`Entrant`]s, the
//! engines here and students' bots) are asked for each move in turn, every
//! answer is judged, a forfeit ends the game, each game is recorded as a
//! move file the referee replays, and the standings are kept.
//!
//! The files, one job each:
//! - [`entrant`]: the contract a participant keeps ([`Entrant`], [`Seat`]);
//! - [`engines`]: the computer engines as participants;
//! - [`bot`]: people's programs as participants, each game a live run in
//!   the sandbox; [`move_clock`] the time of each answer (the wall clock,
//!   and the bot's CPU time on a busy machine); [`streak`] the bot given up
//!   on after K time forfeits in a row;
//!   [`gomocup`] the Gomocup protocol a brain speaks instead, the
//!   manager's side; [`game_clock`] the game clocks (`--clock`);
//! - [`brain`]: an engine as a Gomocup brain (`ttt-referee brain`);
//! - [`answer`]: judging an answer's text;
//! - [`contest`]: one game between seats;
//! - [`record`]: a game's record, written and read back; [`seal`] the
//!   keyed digest beside it, so a resumed event trusts only its own;
//! - [`schedule`]: who plays whom (a match, a round robin, openings);
//! - [`event`]: running the games, side by side, resuming a run; [`part`]
//!   an event split across machines (`--partition`), and its parts merged;
//! - [`result`]: one game's result;
//! - [`standings`] and [`elo`]: the table; [`sprt`] a match's sequential
//!   test;
//! - [`report`]: `results.json`, `standings.txt`, `report.html`.

pub mod answer;
pub mod bot;
pub mod brain;
pub mod contest;
pub mod elo;
pub mod engines;
pub mod entrant;
pub mod event;
pub mod explore;
pub mod game_clock;
pub mod gomocup;
pub mod move_clock;
pub mod part;
pub mod record;
pub mod report;
pub mod result;
pub mod schedule;
pub mod seal;
pub mod sprt;
pub mod standings;
pub mod streak;

pub use bot::{Bot, GIVE_UP_AFTER, Unbuilt, not_asked};
pub use contest::{Ending, Played, Score};
pub use engines::EngineEntrant;
pub use entrant::{Entrant, Finished, Forfeit, ForfeitKind, Position, Seat, Setup};
pub use event::{Distrust, Event, EventError, Progress};
pub use result::GameResult;
pub use schedule::Fixture;
pub use standings::Standings;
