//! `ttt-referee match`: N games between two participants (or more, one a
//! seat), who moves first rotating each game.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use clap::Args;

use super::arena_cmd::{self, ArenaArgs, OpeningsArg, Planned};
use super::{CliError, Shown, is_dash};
use crate::arena::schedule;
use crate::arena::sprt::Sprt;
use crate::player::{MAX_PLAYERS, MIN_PLAYERS};

pub(super) const AFTER_HELP: &str = "\
A participant is an engine (perfect, strong, minimax, rules or random) or a directory
holding a bot's source. With two participants they take turns moving first;
with more, every game seats them all, the first mover rotating. A forfeit (a
taken square, one off the board, an answer that is not a number, out of time,
a crash) ends a game at once: the offender loses, or with three or more
players is ranked last and the others draw.

--from GAME plays every game on from the position a move file reaches (a
record from --report or from a grading's report, or any move file; --after N
stops after its first N moves): its board, its moves, then the participants
in their seats, the player to move next first, so with two participants and
--games 2 each plays on from the position as each side. Its players line
must declare as many players as there are participants; a move that is
illegal or ends the game is an error naming its line. --openings FILE plays
--games games from each opening of the file (one a line, as tournament's).

Prints a line per game on standard error as it ends, then the standings:
points (a win 1, a draw 1/2), forfeits, an Elo with its 95% interval, and the
cross table. With --report DIR every game is recorded as DIR/games/NNN.txt,
a move file `ttt-referee` referees to the same result (FORMAT.md, \"Matches
and tournaments\"); running again with the same DIR resumes.

--openings random:N draws one opening of N random moves near the centre
(from --seed) for every two games, each played from both sides.

--sprt elo0=E0 elo1=E1 alpha=A beta=B stops the match as soon as the
sequential test decides (--games is then the most, 1000 if not given):
fastchess's GSPRT with logistic Elo, on pairs of games when each opening is
played from both sides (pentanomial), else on games (trinomial), from the
first participant's side. Each game's line shows the LLR and its bounds; the
standings end with the test's result (also in results.json).

--clock BASE+INC gives each player a game clock (cutechess's tc=): BASE
seconds for the game, INC more after each move; a forfeit on time says
whether the move time or the game clock ran out.

A participant written gomocup:PATH is a Gomocup brain (a directory built as
a bot is, or an executable), spoken to in the Gomocup protocol, in the
sandbox as every bot (two players, five in a row, boards 5 to 100 a side).

Examples:
  ttt-referee match perfect random --games 10 --seed 1 --report out/
  ttt-referee match bots/new bots/reference --board 15x15 --win 5 --openings random:4 \\
      --sprt elo0=0 elo1=50 alpha=0.05 beta=0.05 --jobs 2
  ttt-referee match gomocup:brains/pbrain minimax --board 15x15 --win 5 --clock 10+0.1
  ttt-referee match bots/ann perfect --from report/games/ann/vs-perfect.txt --after 4";

#[derive(Debug, Args)]
pub(super) struct MatchArgs {
    /// The participants: engines (perfect, strong, minimax, rules, random) or bot
    /// directories; two or more, one a seat.
    #[arg(value_name = super::values::PARTICIPANT, num_args = 2.., required = true)]
    participants: Vec<String>,

    /// How many games (with --openings FILE or --from, from each opening;
    /// with --openings random:N in all, two from each opening; with --sprt
    /// the most, 1000 if not given); 2 if not given.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    games: Option<u64>,

    /// Stop as soon as a sequential probability ratio test decides whether
    /// the first participant is stronger than the second by elo1 (H1) or
    /// not by more than elo0 (H0): fastchess's GSPRT, logistic Elo, on
    /// pairs of games (pentanomial) when each opening is played from both
    /// sides, else on games; the LLR is shown after each game.
    #[arg(long, value_name = "elo0=E0 elo1=E1 alpha=A beta=B", num_args = 1..=4)]
    sprt: Option<Vec<String>>,

    /// Play every game on from the position a move file reaches (a game's
    /// record, or any move file): its board, its moves, then the seats in
    /// turn order, the player to move next first.
    #[arg(long, value_name = "GAME", conflicts_with_all = ["openings", "board", "win"])]
    from: Option<PathBuf>,

    /// With --from: play on after the file's first N moves, not all of them
    /// (0 is the empty board).
    #[arg(long, value_name = "N", requires = "from")]
    after: Option<u64>,

    /// Openings to play from: a file, one a line (as tournament's),
    /// --games games from each; or random:N, openings of N random moves
    /// near the centre drawn from --seed, one for each two games, each
    /// played from both sides.
    #[arg(long, value_name = "FILE|random:N", value_parser = arena_cmd::parse_openings)]
    openings: Option<OpeningsArg>,

    #[command(flatten)]
    arena: ArenaArgs,
}

pub(super) fn run(args: &MatchArgs) -> Result<u8, CliError> {
    let participants = arena_cmd::participants(&args.participants);
    let players = participants.len();
    if !(MIN_PLAYERS..=MAX_PLAYERS).contains(&players) {
        return Err(CliError::MatchPlayers { count: players });
    }
    let sprt = match &args.sprt {
        Some(words) => {
            if players != 2 {
                return Err(CliError::Sprt { why: format!("it compares two participants, not {players}") });
            }
            Some(Sprt::parse(words).map_err(|why| CliError::Sprt { why })?)
        }
        None => None,
    };
    let games = args.games.unwrap_or(if sprt.is_some() { 1000 } else { 2 });
    let (geometry, openings) = match (&args.from, &args.openings) {
        (Some(path), _) => {
            let start = start(path, args.after)?;
            if start.players != players {
                return Err(CliError::StartPlayers {
                    path: Shown::input(path),
                    found: start.players,
                    seats: players,
                });
            }
            (arena_cmd::fits(start.geometry.with_rule(args.arena.rule()))?, vec![start.moves])
        }
        (None, Some(OpeningsArg::File(path))) => {
            let geometry = args.arena.geometry()?;
            (geometry, arena_cmd::openings(path, geometry, players)?)
        }
        (None, Some(OpeningsArg::Random(plies))) => {
            let geometry = args.arena.geometry()?;
            let count = games.div_ceil(players as u64);
            let openings = schedule::random_openings(
                geometry,
                &arena_cmd::marks(players),
                count,
                *plies,
                args.arena.seed,
            );
            let fixtures = schedule::match_games(players, players as u64, openings.len());
            let planned = Planned { kind: "Match", participants, players, fixtures, openings, sprt };
            return arena_cmd::run(&args.arena, geometry, planned);
        }
        (None, None) => (args.arena.geometry()?, Vec::new()),
    };
    let planned = Planned {
        kind: "Match",
        participants,
        players,
        fixtures: schedule::match_games(players, games, openings.len()),
        openings,
        sprt,
    };
    arena_cmd::run(&args.arena, geometry, planned)
}

/// The position `--from` names: `path`'s (`-` standard input), after its
/// first `after` moves.
fn start(path: &Path, after: Option<u64>) -> Result<schedule::Start, CliError> {
    let shown = || Shown::input(path);
    let start = if is_dash(path) {
        schedule::start(io::stdin().lock(), after)
    } else {
        let file = fs::File::open(path).map_err(|source| CliError::Open { path: shown(), source })?;
        if file.metadata().is_ok_and(|m| m.is_dir()) {
            return Err(CliError::Directory { path: shown() });
        }
        schedule::start(io::BufReader::new(file), after)
    };
    start.map_err(|error| CliError::Start { path: shown(), error })
}
