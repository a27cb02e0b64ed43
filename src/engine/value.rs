//! What a search finds and tells: a position's value with perfect play
//! ([`Value`]), how far a search got ([`Search`]), and a search in progress
//! ([`Progress`]). Below the engines that fill them and the module that
//! hands them out.

use std::time::Duration;

/// What a position is worth to the player to move, with perfect play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// The player to move can force a win.
    Win,
    /// Neither side can force a win.
    Draw,
    /// The opponent can force a win.
    Loss,
}

impl Value {
    /// `win`, `draw` or `loss`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Value::Win => "win",
            Value::Draw => "draw",
            Value::Loss => "loss",
        }
    }
}

/// How far a `perfect` search got: the move chosen comes from the deepest
/// step it finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Search {
    /// How many moves ahead the deepest finished step looked (0: none
    /// finished, and the move is the first free square from the centre).
    pub depth: u32,
    /// Positions searched in all.
    pub nodes: u64,
}

/// A search in progress, as told to [`Engine::on_progress`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// The step being searched: how many moves ahead.
    pub depth: u32,
    /// Positions searched so far in this choice.
    pub nodes: u64,
    /// Time since the search began, read with the same clock reading that
    /// decides whether its time is up: a search stopped by its time limit
    /// tells, last before `done`, at least that limit, however loaded the
    /// machine.
    pub elapsed: Duration,
    /// The search is over (told once, last).
    pub done: bool,
}
