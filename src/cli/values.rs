//! How the library's enums are written on the command line: each value's
//! name and help. They live here, not beside the types, so the rule engine,
//! the renderings and the consoles build without clap (`cargo build --lib
//! --no-default-features`).

use clap::ValueEnum;
use clap::builder::PossibleValue;

use crate::engine::EngineKind;

/// The value name of a participant of `match` and `tournament`: an engine
/// or a bot's directory. The completion scripts offer both for it.
pub(super) const PARTICIPANT: &str = "PARTICIPANT";

/// The value name of `grade --versus`: an engine of its own or a reference
/// bot's directory. The completion scripts offer both for it.
pub(super) const OPPONENT: &str = "OPPONENT[=X,O]";

/// The value name of `play --x` and `--o`: `human`, an engine, or a bot's
/// directory. The completion scripts offer all three for it.
pub(super) const SEAT: &str = "WHO";

/// The engines `--versus` takes: every one but those whose test is built in
/// (`vs-perfect`, `vs-random`).
pub(super) fn versus_engines() -> Vec<&'static str> {
    EngineKind::ALL
        .into_iter()
        .filter(|&e| !matches!(e, EngineKind::Perfect | EngineKind::Random))
        .map(EngineKind::name)
        .collect()
}

/// `ValueEnum` for a library enum: each variant's name on the command line
/// and its help.
macro_rules! value_enum {
    ($ty:path { $($variant:ident => $name:literal: $help:literal),+ $(,)? }) => {
        impl ValueEnum for $ty {
            fn value_variants<'a>() -> &'a [Self] {
                &[$(Self::$variant),+]
            }

            fn to_possible_value(&self) -> Option<PossibleValue> {
                Some(match self {
                    $(Self::$variant => PossibleValue::new($name).help($help)),+
                })
            }
        }
    };
}

value_enum!(crate::engine::EngineKind {
    Rules => "rules": "win, else block, else the centre, else a random corner, else any square (the Smalltalk exercise)",
    Minimax => "minimax": "depth-limited minimax exactly as URI CSC 212 Deep Dive 4 writes it (MAX_DEPTH 5)",
    Perfect => "perfect": "a full solver: never loses, wins fastest, loses slowest",
    Random => "random": "a uniformly random legal move (seeded)",
    Strong => "strong": "a gomoku player for any board: threat search and pattern-scored alpha-beta within the move time",
});

value_enum!(crate::board::WinRule {
    AtLeast => "at-least": "K or more in a row win (tic-tac-toe's rule, freestyle gomoku's)",
    Exact => "exact": "exactly K in a row win; an overline does not (Gomocup's standard rule)",
});

value_enum!(crate::board::Storage {
    Auto => "auto": "dense up to 16,777,216 squares, sparse beyond",
    Dense => "dense": "one byte per square: fastest, memory in proportion to the board",
    Sparse => "sparse": "only the occupied squares: memory in proportion to the moves",
});

value_enum!(crate::play::Profile {
    Default => "default": "a plain prompt with square numbers; asks to play again when a person plays",
    Xtreme => "xtreme": "StFX asn3's console: `Game Board Size: `, `X's move (x, y): `",
    Extended => "extended": "Clemson CPSC 2150's console: `How many players?`, `Player X Please enter your ROW`",
    Smalltalk => "smalltalk": "the Smalltalk exercise's console: `Type of Player X (human or computer)?`, the board redrawn each move",
    Uri => "uri": "URI CSC 212 Deep Dive 4's console: `Player 1 make your move: `, `AI's move: N`",
});

value_enum!(crate::transcript::Boards {
    Each => "each": "the board after every valid move (the classic layout)",
    Final => "final": "only the final board, once, just before the `Winner:` line",
    None => "none": "no boards at all",
});

value_enum!(crate::referee::Format {
    Text => "text": "the exact text transcript",
    Json => "json": "one JSON document per game (see FORMAT.md)",
});

value_enum!(crate::render::Style {
    Classic => "classic": "marks or `-`, one space between cells: `X - O`",
    Grid => "grid": "cells joined by `|`, rows separated by `-+-+-`: `X| |O`",
    Table => "table": "a table with rows and columns numbered from 0: ` 0|X |  |  |`",
});

value_enum!(crate::grade::Api {
    Xtreme => "xtreme": "StFX asn3's asn3.py: setup_game, parse_move, ..., render_board, called one by one",
    IGameBoard => "igameboard": "Clemson CPSC 2150's Java IGameBoard, through GameBoard and GameBoardMem, method by method",
});

/// Who plays a side (`play --x`/`--o`, `grade --x`/`--o`): a list of values,
/// so that help and every shell's completion offer them.
impl ValueEnum for crate::play::Side {
    fn value_variants<'a>() -> &'a [Self] {
        use crate::engine::EngineKind;
        use crate::play::Side;
        &[
            Side::Human,
            Side::Engine(EngineKind::Rules),
            Side::Engine(EngineKind::Minimax),
            Side::Engine(EngineKind::Perfect),
            Side::Engine(EngineKind::Strong),
            Side::Engine(EngineKind::Random),
        ]
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(match self {
            crate::play::Side::Human => PossibleValue::new("human").help("a person, typing at the console"),
            crate::play::Side::Engine(engine) => engine.to_possible_value()?,
            // A program is seated by `play` itself, never named by a value.
            crate::play::Side::Program => return None,
        })
    }
}
