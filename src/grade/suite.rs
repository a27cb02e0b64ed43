//! The tests of a grading: files read from a directory, each with its
//! expected answer made by ttt-referee itself.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::io::Io;
use crate::board::Geometry;
use crate::corpus::{self, GenOptions, Guarantees};
use crate::movefile::ParseError;
use crate::play::{self, scripts};
use crate::referee::{self, RefereeError};

/// One test: its name (the file name), what the program is given, and what
/// it should produce.
#[derive(Clone, Debug)]
pub struct Test {
    /// The test file's name, such as `game-0001.txt`.
    pub name: String,
    /// The move file or typed script.
    pub input: Vec<u8>,
    /// The referee's transcript, or the profile's session.
    pub expected: Vec<u8>,
    /// Whether its (last) game ends within it, in a win or a draw, rather
    /// than with the input: a console test that stops mid-game judges only
    /// what was shown.
    pub complete: bool,
}

/// The extension of the test files `io` reads: `stdin` (a console's typed
/// scripts) or `txt` (move files).
#[must_use]
pub fn extension(io: &Io) -> &'static str {
    match io {
        Io::Console { .. } => "stdin",
        Io::Files { .. } | Io::Stdout | Io::Args => "txt",
    }
}

/// Why the tests cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum SuiteError {
    /// The directory or a file in it could not be read.
    #[error("{path}: cannot read: {source}")]
    Read {
        /// The directory or file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A file where the directory of tests must be.
    #[error("{path}: not a directory; expected the directory of tests, files named *.{extension}")]
    NotADirectory {
        /// The file given.
        path: PathBuf,
        /// The extension of the tests in the directory expected.
        extension: &'static str,
    },
    /// The directory holds no test.
    #[error("{dir}: no tests; expected files named *.{extension}")]
    Empty {
        /// The tests' directory.
        dir: PathBuf,
        /// The extension looked for.
        extension: &'static str,
    },
    /// A move file is not a move file.
    #[error("{path}:{}: {}", .error.line(), .error.kind())]
    Malformed {
        /// The test file.
        path: PathBuf,
        /// Where and why (it starts with the line number).
        error: ParseError,
    },
    /// A move file the referee cannot play through.
    #[error("{path}: {error}")]
    Unplayable {
        /// The test file.
        path: PathBuf,
        /// Why.
        error: RefereeError,
    },
    /// A generated test has no answer (a bug in the generator).
    #[error("generated test {name}: {why}")]
    Generated {
        /// The generated test's name.
        name: String,
        /// Why.
        why: String,
    },
    /// A script the console cannot play through.
    #[error("{path}: the profile cannot play this script: {error}")]
    Script {
        /// The test file.
        path: PathBuf,
        /// Why.
        error: play::PlayError,
    },
}

/// The test files in `dir`: its files with one of `extensions`, sorted by
/// name. The one finder of tests, for `grade` and for the autograders that
/// carry them along.
pub fn test_files(dir: &Path, extensions: &[&str]) -> io::Result<Vec<PathBuf>> {
    let mut paths: Vec<PathBuf> = fs::read_dir(dir)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| extensions.iter().any(|x| e == *x)))
        .collect();
    paths.sort();
    Ok(paths)
}

/// The languages file of a grading: the one given, else `grade.toml` beside
/// the tests if there is one.
#[must_use]
pub fn config_file(given: Option<&Path>, tests: Option<&Path>) -> Option<PathBuf> {
    given.map(Path::to_path_buf).or_else(|| tests.map(|t| t.join("grade.toml")).filter(|p| p.is_file()))
}

/// Reads every test in `dir` (the files with `io`'s [`extension`], sorted
/// by name) and makes its expected answer, as [`answer`] does.
pub fn load(dir: &Path, io: &Io, layout: &referee::Options) -> Result<Vec<Test>, SuiteError> {
    let extension = extension(io);
    if fs::metadata(dir).is_ok_and(|meta| !meta.is_dir()) {
        return Err(SuiteError::NotADirectory { path: dir.to_owned(), extension });
    }
    let paths =
        test_files(dir, &[extension]).map_err(|source| SuiteError::Read { path: dir.to_owned(), source })?;
    if paths.is_empty() {
        return Err(SuiteError::Empty { dir: dir.to_owned(), extension });
    }
    paths.iter().map(|path| load_one(path, io, layout)).collect()
}

fn load_one(path: &Path, io: &Io, layout: &referee::Options) -> Result<Test, SuiteError> {
    let input = fs::read(path).map_err(|source| SuiteError::Read { path: path.to_owned(), source })?;
    let answer = answer(io, layout, &input).map_err(|e| match e {
        Unanswerable::Referee(RefereeError::Parse(error)) => {
            SuiteError::Malformed { path: path.to_owned(), error }
        }
        Unanswerable::Referee(error) => SuiteError::Unplayable { path: path.to_owned(), error },
        Unanswerable::Script(error) => SuiteError::Script { path: path.to_owned(), error },
    })?;
    let name = path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    Ok(Test { name, input, expected: answer.text, complete: answer.finished })
}

/// `count` generated tests, answered as [`answer`] answers the given ones:
/// move files within CS 1044's guarantees (`gen --within cs1044`), or with a
/// console profile its typed scripts (`gen --profile`). Named `gen-0001.txt`
/// (or `.stdin`) on; the same seed always gives the same tests.
///
/// # Errors
/// [`SuiteError::Generated`] if the referee or the console rejects what was
/// generated, which would be a bug in the generator.
pub fn generate(io: &Io, layout: &referee::Options, count: u64, seed: u64) -> Result<Vec<Test>, SuiteError> {
    let digits = count.to_string().len().max(4);
    (0..count)
        .map(|index| {
            let name = format!("gen-{:0digits$}.{}", index + 1, extension(io));
            let input = match io {
                Io::Files { .. } | Io::Stdout | Io::Args => {
                    let options = GenOptions {
                        seed,
                        geometry: Geometry::CLASSIC,
                        players: 2,
                        guarantees: Guarantees::Cs1044,
                    };
                    corpus::move_file(&options, index)
                        .map_err(|e| SuiteError::Generated { name: name.clone(), why: e.to_string() })?
                }
                Io::Console { profile, .. } => scripts::script(*profile, seed, index),
            };
            let answer = answer(io, layout, input.as_bytes())
                .map_err(|e| SuiteError::Generated { name: name.clone(), why: e.to_string() })?;
            Ok(Test { name, input: input.into_bytes(), expected: answer.text, complete: answer.finished })
        })
        .collect()
}

/// The expected answer to one input, and what the referee (or console)
/// made of the game.
#[derive(Clone, Debug)]
pub struct Answer {
    /// The referee's transcript, or the profile's session.
    pub text: Vec<u8>,
    /// Move lines the referee ruled a violation (0 for a console's script).
    pub violations: u64,
    /// Whether the game ended in a win or Cat (for a console, the last game
    /// played) rather than with the input.
    pub finished: bool,
}

/// Why an input has no expected answer.
#[derive(Debug, thiserror::Error)]
pub enum Unanswerable {
    /// The referee cannot read or play the move file.
    #[error(transparent)]
    Referee(RefereeError),
    /// The profile cannot play the script.
    #[error(transparent)]
    Script(play::PlayError),
}

/// The expected answer to `input`: a console's session (its computer
/// players seeded as `io` says), or the referee's transcript with the
/// `layout` options. What a test file is graded against, and a shrunk input
/// too.
pub fn answer(io: &Io, layout: &referee::Options, input: &[u8]) -> Result<Answer, Unanswerable> {
    let mut text = Vec::new();
    let (violations, finished) = match io {
        Io::Console { profile, sides, seed } => {
            let mut console = profile.console_with(*sides, input, &mut text, None);
            let mut finished = false;
            play::session(console.as_mut(), *seed, |_, played| {
                finished = played.is_finished();
                Ok::<(), play::PlayError>(())
            })
            .map_err(Unanswerable::Script)?;
            (0, finished)
        }
        Io::Files { .. } | Io::Stdout | Io::Args => {
            let report = referee::referee(input, &mut text, layout).map_err(Unanswerable::Referee)?;
            (report.violations, report.game.outcome().is_some())
        }
    };
    Ok(Answer { text, violations, finished })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::play::Profile;

    #[test]
    fn generated_tests_depend_on_the_seed_alone() {
        let layout = referee::Options::default();
        let inputs = |count, seed| -> Vec<(String, Vec<u8>)> {
            generate(&Io::Stdout, &layout, count, seed)
                .unwrap()
                .into_iter()
                .map(|t| (t.name, t.input))
                .collect()
        };
        let first = inputs(6, 3);
        assert_eq!(first[0].0, "gen-0001.txt");
        assert_eq!(first, inputs(6, 3));
        assert_eq!(first[..4], inputs(4, 3)[..], "test N does not depend on the count");
        assert_ne!(first, inputs(6, 4));
        let console =
            Io::Console { profile: Profile::Xtreme, sides: Profile::Xtreme.sides(None, None), seed: 0 };
        let scripts = generate(&console, &layout, 2, 3).unwrap();
        assert_eq!(scripts[1].name, "gen-0002.stdin");
        assert!(!scripts[1].expected.is_empty());
    }
}
