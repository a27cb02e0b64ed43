//! `ttt-referee` referees tic-tac-toe and its larger relatives (m×n boards,
//! k in a row, 2–10 players): it reads a move file, rules on every move, and
//! writes a transcript whose layout is exact to the byte.
//!
//! The work is split into rooms that do not reach into each other. They are
//! listed here from the top of the stack down: each module imports only from
//! the ones after it in this list (`tests/integration/layering.rs` checks).
//!
//! 1. [`cli`]: the command line.
//! 2. [`grade`]: runs people's programs in the [`sandbox`] and compares their
//!    answers.
//! 3. [`arena`]: matches and tournaments played live between engines and
//!    bots, recorded as move files, with standings.
//! 4. [`partition`]: work dealt among the machines of a fleet
//!    (`--partition slice:K/N`): a class's submissions, an event's games.
//! 5. [`workshop`]: a submission made runnable once (copied, given the
//!    course's files, built), for grading and the arena alike.
//! 6. [`batch`]: referees many move files at once, with a summary.
//! 7. [`referee`]: picks an output format and runs a move file through it.
//! 8. [`play`]: people and computer players at a console, the game recorded
//!    as a move file.
//! 9. [`spinner`]: what long work shows on a terminal (a search's spinner,
//!    a batch's or a grading's progress bar).
//! 10. [`transcript`]: the transcript, one output format.
//! 11. [`json`]: the JSON output, another.
//! 12. [`recorder`]: runs records through the rules into an output format.
//! 13. [`engine`]: the computer players.
//! 14. [`corpus`]: seeded move files for test corpora.
//! 15. [`render`]: the board renderings.
//! 16. [`movefile`]: reads records and never judges them.
//! 17. [`game`]: judges moves on a [`board`].
//! 18. [`board`]: squares, lines and marks.
//! 19. [`sandbox`]: runs a program within limits; imports nothing else
//!     but [`outcome`].
//! 20. [`outcome`]: what a run may use and what became of it: plain data
//!     the sandbox fills and the verdicts read.
//! 21. [`check`]: compares a transcript with the referee's own.
//! 22. [`output`]: output that appears whole or not at all.
//! 23. [`player`]: marks, players and turn order.
//! 24. [`spreadsheet`]: CSV tables a spreadsheet reads, every field inert
//!     and never a formula.
//! 25. [`text`]: text from other people's programs, cut to size on
//!     character boundaries and made inert for reports.
//!
//! `cli`, `grade`, `arena`, `workshop`, `sandbox`, `outcome`, `batch`,
//! `spinner` and `spreadsheet` come with the `cli` feature (on by default);
//! without it the library is the core alone, with none of their
//! dependencies (clap, the sandbox, the reports).
//!
//! ```
//! use ttt_referee::referee::{referee, Options};
//!
//! let moves = "Game\nX: Ann O: Bo\n\nX 5\nO 5\nO 1\n";
//! let mut transcript = Vec::new();
//! let report = referee(moves.as_bytes(), &mut transcript, &Options::default()).unwrap();
//! assert_eq!(report.violations, 1);
//! assert!(String::from_utf8(transcript).unwrap().contains("O 5 marked square\n"));
//! ```

#[cfg(feature = "cli")]
pub mod arena;
#[cfg(feature = "cli")]
pub mod batch;
pub mod board;
pub mod check;
#[cfg(feature = "cli")]
pub mod cli;
pub mod corpus;
pub mod engine;
pub mod game;
#[cfg(feature = "cli")]
pub mod grade;
pub mod json;
pub mod movefile;
#[cfg(feature = "cli")]
pub mod outcome;
pub mod output;
#[cfg(feature = "cli")]
pub mod partition;
pub mod play;
pub mod player;
pub mod recorder;
pub mod referee;
pub mod render;
#[cfg(feature = "cli")]
pub mod sandbox;
#[cfg(feature = "cli")]
pub mod spinner;
#[cfg(feature = "cli")]
pub mod spreadsheet;
pub mod text;
pub mod transcript;
#[cfg(feature = "cli")]
pub mod workshop;
