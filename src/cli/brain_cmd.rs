//! `ttt-referee brain`: an engine as a Gomocup brain on standard input and
//! output, for piskvork, liskvork or any manager of the Gomocup protocol.

use std::io;

use clap::Args;

use super::CliError;
use super::error::EXIT_SUCCESS;
use crate::arena::brain;
use crate::engine::EngineKind;

pub(super) const AFTER_HELP: &str = "\
Speaks the Gomocup protocol (https://plastovicka.github.io/protocl2en.htm)
as a brain on standard input and output: START N or RECTSTART W,H (sides 5
to 100; ERROR for a board the engine cannot play), RESTART, BEGIN, TURN X,Y,
BOARD ... DONE, TAKEBACK X,Y, INFO (timeout_turn, time_left and
timeout_match time its moves: half the turn time, at most a twentieth of
what is left), ABOUT and END. Coordinates are 0-based, X the column. It
plays five in a row, five or more winning.

Example (a manager's brain command, or by hand):
  printf 'START 15\\nBEGIN\\nEND\\n' | ttt-referee brain --engine minimax";

#[derive(Debug, Args)]
pub(super) struct BrainArgs {
    /// The engine that plays (perfect plays boards of at most 64 squares).
    #[arg(long, value_name = "ENGINE", default_value = "minimax", value_parser = engine)]
    engine: EngineKind,

    /// The seed of its random choices.
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

fn engine(name: &str) -> Result<EngineKind, String> {
    EngineKind::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = EngineKind::ALL.iter().map(|k| k.name()).collect();
        format!("`{name}` is not an engine; expected one of {}", names.join(", "))
    })
}

pub(super) fn run(args: &BrainArgs) -> Result<u8, CliError> {
    brain::serve(io::stdin().lock(), io::stdout().lock(), args.engine, args.seed)
        .map_err(CliError::stdout)?;
    Ok(EXIT_SUCCESS)
}
