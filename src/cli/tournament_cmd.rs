//! `ttt-referee tournament`: a round robin, every pair (or group of
//! `--players`) playing from every side, `--rounds` times, from each
//! opening of `--openings`.

use clap::Args;

use super::CliError;
use super::arena_cmd::{self, ArenaArgs, OpeningsArg, Planned};
use crate::arena::schedule;

pub(super) const AFTER_HELP: &str = "\
A participant is an engine (perfect, strong, minimax, rules or random) or a directory
holding a bot's source. Each round, every pair plays twice, each moving first
once; with --players N every group of N plays once in each rotation of its
seats. The first round starts from the empty board, and each later one from
an opening of its own, drawn from --seed: a random first move for each
player (never one that ends the game), so bots that always answer alike
still meet new games; every pair plays each round's opening from both
sides. With --openings FILE each game of a round is played once from every
opening of the file instead, from each side. An openings file holds one
opening a line: the squares of its first moves, such as `5 1` (players in
turn order, X first); blank lines and lines starting with # are skipped.
With --openings random:N each round is played from an opening of N random
moves near the centre (drawn from --seed), every pair from both sides.

Games run --jobs at a time. Each is recorded the moment it ends with --report
DIR, so an interrupted tournament loses only the games in progress: run the
same command again to resume it. At the end the standings (points, forfeits,
Elo with its 95% interval) and the cross table are printed, and written to
DIR as standings.txt, results.json and report.html.

Example:
  ttt-referee tournament perfect minimax rules random --rounds 2 --jobs 4 --report class/";

#[derive(Debug, Args)]
pub(super) struct TournamentArgs {
    /// The participants: engines (perfect, strong, minimax, rules, random) or bot
    /// directories; at least two.
    #[arg(value_name = super::values::PARTICIPANT, num_args = 2.., required = true)]
    participants: Vec<String>,

    /// How many times the whole round robin is played: the first from the
    /// empty board, each later one from a random opening of its own (unless
    /// --openings gives them).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    rounds: u64,

    /// Openings to play every game from, one a line (see below); or
    /// random:N, each round from an opening of N random moves near the
    /// centre drawn from --seed.
    #[arg(long, value_name = "FILE|random:N", value_parser = arena_cmd::parse_openings)]
    openings: Option<OpeningsArg>,

    /// How many players each game seats, 2 to 10.
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u8).range(2..=10))]
    players: u8,

    #[command(flatten)]
    arena: ArenaArgs,
}

pub(super) fn run(args: &TournamentArgs) -> Result<u8, CliError> {
    let geometry = args.arena.geometry()?;
    let players = usize::from(args.players);
    let participants = arena_cmd::participants(&args.participants);
    if players > participants.len() {
        return Err(CliError::TooFewParticipants { players, count: participants.len() });
    }
    let (fixtures, openings) = match &args.openings {
        Some(OpeningsArg::Random(plies)) => (
            schedule::varied_round_robin(participants.len(), players, args.rounds),
            schedule::random_openings(
                geometry,
                &arena_cmd::marks(players),
                args.rounds,
                *plies,
                args.arena.seed,
            ),
        ),
        Some(OpeningsArg::File(path)) => {
            let openings = arena_cmd::openings(path, geometry, players)?;
            (schedule::round_robin(participants.len(), players, args.rounds, openings.len()), openings)
        }
        None if args.rounds > 1 => (
            schedule::varied_round_robin(participants.len(), players, args.rounds),
            schedule::varied_openings(geometry, &arena_cmd::marks(players), args.rounds, args.arena.seed),
        ),
        None => (schedule::round_robin(participants.len(), players, 1, 0), Vec::new()),
    };
    let planned = Planned { kind: "Tournament", fixtures, participants, players, openings, sprt: None };
    arena_cmd::run(&args.arena, geometry, planned)
}
