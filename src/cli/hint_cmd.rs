//! `ttt-referee hint`: referee a move file, then say which square an engine
//! would take for the side to move.

use std::io::{self, Write};
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::{CliError, EXIT_SUCCESS, Shown, open_input};
use crate::engine::{EngineError, EngineKind};
use crate::game::Outcome;
use crate::play::Thinking;
use crate::referee::{self, Options};
use crate::transcript::{Boards, Layout};

pub(super) const AFTER_HELP: &str = "\
Prints one line: the square (numbered as in move files), and with the perfect
engine what the position is worth to the side to move, such as `5 draw`
(`win`, `draw` or `loss`). The value is printed only when the search has
proven it; if --time runs out first, the line is the best square found and
`unknown`, such as `15 unknown`, and standard error says how deep the search
got. Before any valid move, the first declared player is the side to move. A
finished game has no hint: that is an error (exit 2).";

#[derive(Debug, Args)]
pub(super) struct HintArgs {
    /// The move file; `-` reads standard input.
    #[arg(value_name = "MOVES")]
    moves: PathBuf,

    /// The engine to ask.
    #[arg(long, value_enum, default_value_t = EngineKind::Perfect)]
    engine: EngineKind,

    /// The seed for the engine's random choices (`rules` only).
    #[arg(long, default_value_t = 0)]
    seed: u64,

    /// The most time the perfect engine searches, in seconds.
    #[arg(long, value_name = "SECONDS", default_value = "5", value_parser = super::parse_seconds)]
    time: Duration,

    /// The perfect engine's transposition table, in megabytes: its search
    /// uses at most about this much memory however long it thinks.
    #[arg(long, value_name = "MB", default_value_t = crate::engine::DEFAULT_HASH_MB, value_parser = super::parse_hash_mb)]
    hash: u32,
}

pub(super) fn run(args: &HintArgs) -> Result<u8, CliError> {
    let path = || Shown::input(&args.moves);
    let options =
        Options { layout: Layout { boards: Boards::None, ..Layout::default() }, ..Options::default() };
    let report = referee::referee(open_input(&args.moves, None)?, io::sink(), &options)
        .map_err(|e| CliError::referee(e, &args.moves, None))?;
    let game = report.game;
    let thinking =
        Thinking { time_limit: Some(args.time), hash_mb: args.hash, watcher: Some(crate::spinner::watcher) };
    let choice = thinking.engine(args.engine, args.seed).choose(&game).map_err(|error| match error {
        EngineError::GameOver => CliError::GameOver {
            path: path(),
            winner: match game.outcome() {
                Some(Outcome::Win(p)) => Some(game.players().get(p).mark),
                _ => None,
            },
        },
        error => CliError::Engine { path: path(), error },
    })?;
    let mut out = io::stdout().lock();
    match (choice.value, choice.search) {
        (Some(value), _) => writeln!(out, "{} {}", choice.square.number(), value.name()),
        (None, Some(search)) => {
            eprintln!(
                "{}: the value is not proven: in {} s the search looked {} moves ahead ({} positions); \
                 give it more --time",
                path(),
                args.time.as_secs_f64(),
                search.depth,
                search.nodes
            );
            writeln!(out, "{} unknown", choice.square.number())
        }
        (None, None) => writeln!(out, "{}", choice.square.number()),
    }
    .and_then(|()| out.flush())
    .map_err(CliError::stdout)?;
    Ok(EXIT_SUCCESS)
}
