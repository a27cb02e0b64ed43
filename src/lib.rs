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
//! 4. [`workshop`]: a submission made runnable once (copied, given the
//!    course's files, built), for grading and the arena alike.
//! 5. [`batch`]: referees many move files at once, with a summary.
//! 6. [`referee`]: picks an output format and runs a move file through it.
//! 7. [`play`]: people and computer players at a console, the game recorded
//!    as a move file.
//! 8. [`spinner`]: what long work shows on a terminal (a search's spinner,
//!    a batch's or a grading's progress bar).
//! 9. [`transcript`]: the transcript, one output format.
//! 10. [`json`]: the JSON output, another.
//! 11. [`recorder`]: runs records through the rules into an output format.
//! 12. [`engine`]: the computer players.
//! 13. [`corpus`]: seeded move files for test corpora.
//! 14. [`render`]: the board renderings.
//! 15. [`movefile`]: reads records and never judges them.
//! 16. [`game`]: judges moves on a [`board`].
//! 17. [`board`]: squares, lines and marks.
//! 18. [`sandbox`]: runs a program within limits; imports nothing else
//!     but [`outcome`].
//! 19. [`outcome`]: what a run may use and what became of it: plain data
//!     the sandbox fills and the verdicts read.
//! 20. [`check`]: compares a transcript with the referee's own.
//! 21. [`output`]: output that appears whole or not at all.
//! 22. [`player`]: marks, players and turn order.
//! 23. [`spreadsheet`]: CSV tables a spreadsheet reads, every field inert
//!     and never a formula.
//! 24. [`text`]: text from other people's programs, cut to size on
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
