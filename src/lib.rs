//! `ttt-referee` referees tic-tac-toe and its larger relatives (m×n boards,
//! k in a row, 2–10 players): it reads a move file, rules on every move, and
//! writes a transcript whose layout is exact to the byte.
//!
//! The work is split into rooms that do not reach into each other:
//! [`movefile`] reads records and never judges them, [`game`] judges moves on
//! a [`board`], [`recorder`] runs records through the rules into an output
//! format, [`transcript`] (with [`render`]) and [`json`] are those formats,
//! and [`referee`] picks one. [`grade`] runs people's programs in the
//! [`sandbox`] and compares their answers. [`cli`] is the command line. Each
//! module imports only from the ones below it in that list.
//!
//! `cli`, `grade`, `sandbox`, `batch` and `spinner` come with the
//! `cli` feature (on by default); without it the library is the core alone,
//! with none of their dependencies (clap, the sandbox, the reports).
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
pub mod output;
pub mod play;
pub mod player;
pub mod recorder;
pub mod referee;
pub mod render;
#[cfg(feature = "cli")]
pub mod sandbox;
#[cfg(feature = "cli")]
pub mod spinner;
pub mod transcript;
