//! How a program receives its test and gives its answer ([`Io`]), and so
//! what its tests are; the names they have in the run directory.

use crate::play::{Profile, Side};

/// How a program receives its test and gives its answer, and so what its
/// tests are: move files answered by the referee's transcript, or a
/// console's typed scripts answered by its session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Io {
    /// CS 1044's convention: the test is `input` in the working directory,
    /// and the program writes `output` there.
    Files {
        /// The move file's name in the run directory.
        input: String,
        /// The transcript's name in the run directory.
        output: String,
    },
    /// The test is `TTTmoves.txt` and standard input; the answer is
    /// standard output.
    Stdout,
    /// `{moves}` and `{out}` in the run command are the test's and the
    /// answer's paths.
    Args,
    /// A console program: the test is a typed script, its standard input;
    /// the answer is its standard output, the session `play --profile`
    /// prints with its computer players seeded by `seed`. The one place a
    /// plan says "console".
    Console {
        /// The console whose session is expected.
        profile: Profile,
        /// Who plays X and O (where the profile does not ask).
        sides: [Side; 2],
        /// The seed of its computer players.
        seed: u64,
    },
}

impl Io {
    /// The test's and the answer's names in the run directory.
    pub(in crate::grade) fn names(&self) -> (&str, &str) {
        match self {
            Io::Files { input, output } => (input, output),
            _ => (DEFAULT_INPUT, DEFAULT_OUTPUT),
        }
    }

    /// Whether the answer is a file the program writes (not its standard
    /// output): an answer left in the submission could pass for one.
    pub(in crate::grade) fn answers_in_a_file(&self) -> bool {
        !matches!(self, Io::Console { .. })
    }
}

/// The test's name in the run directory unless `--moves-file` says otherwise.
pub const DEFAULT_INPUT: &str = "TTTmoves.txt";
/// The answer's name in the run directory unless `--transcript-file` says otherwise.
pub const DEFAULT_OUTPUT: &str = "TTTgame.txt";
