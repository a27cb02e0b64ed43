//! `ttt-referee match`: N games between two participants (or more, one a
//! seat), who moves first rotating each game.

use clap::Args;

use super::CliError;
use super::arena_cmd::{self, ArenaArgs, Planned};
use crate::arena::schedule;
use crate::player::{MAX_PLAYERS, MIN_PLAYERS};

pub(super) const AFTER_HELP: &str = "\
A participant is an engine (perfect, minimax, rules or random) or a directory
holding a bot's source. With two participants they take turns moving first;
with more, every game seats them all, the first mover rotating. A forfeit (a
taken square, one off the board, an answer that is not a number, out of time,
a crash) ends a game at once: the offender loses, or with three or more
players is ranked last and the others draw.

Prints a line per game on standard error as it ends, then the standings:
points (a win 1, a draw 1/2), forfeits, an Elo with its 95% interval, and the
cross table. With --report DIR every game is recorded as DIR/games/NNN.txt,
a move file `ttt-referee` referees to the same result (FORMAT.md, \"Matches
and tournaments\"); running again with the same DIR resumes.

Example:
  ttt-referee match perfect random --games 10 --seed 1 --report out/";

#[derive(Debug, Args)]
pub(super) struct MatchArgs {
    /// The participants: engines (perfect, minimax, rules, random) or bot
    /// directories; two or more, one a seat.
    #[arg(value_name = "PARTICIPANT", num_args = 2.., required = true)]
    participants: Vec<String>,

    /// How many games.
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    games: u64,

    #[command(flatten)]
    arena: ArenaArgs,
}

pub(super) fn run(args: &MatchArgs) -> Result<u8, CliError> {
    let geometry = args.arena.geometry()?;
    let participants = arena_cmd::participants(&args.participants);
    let players = participants.len();
    if !(MIN_PLAYERS..=MAX_PLAYERS).contains(&players) {
        return Err(CliError::MatchPlayers { count: players });
    }
    let planned = Planned {
        kind: "Match",
        participants,
        players,
        fixtures: schedule::match_games(players, args.games),
        openings: Vec::new(),
    };
    arena_cmd::run(&args.arena, geometry, planned)
}
