//! What a grading finds: the verdict on each test ([`Verdict`], in the
//! order that decides which applies), how each test went ([`TestResult`]),
//! how each submission did ([`SubmissionResult`]), and the whole grading
//! ([`Graded`]). Every report is written from these.

use std::borrow::Cow;
use std::fmt;

use crate::check::{Difference, Unmatched};
use crate::play::judge::Choice;
use serde::ser::{SerializeStruct, Serializer};
use serde::{Deserialize, Serialize};

/// The most of an answer reports keep to show.
pub const SHOWN_BYTES: usize = 64 << 10;

/// The most lines of an answer reports keep to show: a page of short lines
/// costs the HTML report far more than their bytes.
pub const SHOWN_LINES: usize = 1000;

/// The most lines of a failing program's standard error kept to show.
pub const STDERR_LINES: usize = 20;

/// The most bytes of a failing program's standard error kept to show.
pub const STDERR_BYTES: usize = 4 << 10;

/// The name of the test a build's compiler warnings make (`--warnings`;
/// [`super::build`] decides it). No test file can be named so: test files
/// end in `.txt` or `.stdin`.
pub const WARNINGS_TEST: &str = "build-warnings";

pub use crate::outcome::Stopped;

/// The verdict on one test. When several apply, the earliest here wins
/// (after `BuildFailed`, which leaves nothing to run).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The grader could not judge it fairly: the sandbox refused its run
    /// (or its build) because a protection promised when the grading
    /// began was missing. Not the program's doing, and never a pass: the
    /// grading fails closed, and the TA regrades it.
    Error,
    /// The submission did not build; nothing ran.
    BuildFailed,
    /// Killed at the wall-clock or CPU limit.
    TimeLimit,
    /// Wrote more than the output limit.
    OutputLimit,
    /// Killed by a signal, or exited with a status other than 0.
    Crashed,
    /// Wrote no answer, or an empty one.
    NoOutput,
    /// Answered, but not what the referee says.
    Wrong,
    /// Answered what the referee says.
    Pass,
}

impl Verdict {
    /// Every verdict, in the order reports list them.
    pub const ALL: [Verdict; 8] = [
        Verdict::Pass,
        Verdict::Wrong,
        Verdict::NoOutput,
        Verdict::TimeLimit,
        Verdict::Crashed,
        Verdict::OutputLimit,
        Verdict::BuildFailed,
        Verdict::Error,
    ];

    /// The verdict's name in reports: `pass`, `time-limit`, ….
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Wrong => "wrong",
            Verdict::NoOutput => "no-output",
            Verdict::TimeLimit => "time-limit",
            Verdict::Crashed => "crashed",
            Verdict::OutputLimit => "output-limit",
            Verdict::BuildFailed => "build-failed",
            Verdict::Error => "error",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How one test went.
#[derive(Clone, Debug, Serialize)]
pub struct TestResult {
    /// The test's name.
    pub test: String,
    /// The verdict.
    pub verdict: Verdict,
    /// 1 for a pass, 0 otherwise; with partial credit a wrong answer's
    /// [`crate::check::Comparison::score`], 2·matched / (expected + written), below 1.
    pub score: f64,
    /// What happened, in a few words: `killed by SIGSEGV`, `exit status 3`,
    /// `the first difference is at line 7`….
    pub detail: String,
    /// Wall-clock time of the run, in seconds.
    pub wall: f64,
    /// CPU time of the run, in seconds.
    pub cpu: f64,
    /// The exit status, if the program exited.
    pub exit_status: Option<i32>,
    /// The signal that killed it, if one did.
    pub signal: Option<String>,
    /// Lines of the expected answer matched, and lines expected.
    pub lines_matched: Option<(usize, usize)>,
    /// Lines of the answer (counted as the expected ones are), which a
    /// partial score counts too.
    pub lines_found: Option<usize>,
    /// The first difference from the expected answer.
    pub first_difference: Option<Difference>,
    /// The expected answer (for reports that show it), cut at
    /// [`super::SHOWN_BYTES`].
    #[serde(skip)]
    pub expected: String,
    /// The program's answer, cut at [`super::SHOWN_BYTES`].
    #[serde(skip)]
    pub actual: String,
    /// The end of what the program wrote on standard error: its last
    /// [`super::STDERR_LINES`] lines, at most [`super::STDERR_BYTES`].
    pub stderr: String,
    /// The lines of each that the comparison left unmatched, which the
    /// HTML report marks.
    #[serde(skip)]
    pub unmatched: Unmatched,
    /// For a `wrong` or `crashed` test, the smallest input found on which
    /// the program fails the same way, if it is smaller than the test.
    pub smallest_failing_input: Option<Smallest>,
    /// The computer moves of a console's game that the assignment left to
    /// chance, and what the program chose: a test played several times
    /// fails a program that never varies one.
    #[serde(skip)]
    pub choices: Vec<Choice>,
}

impl TestResult {
    /// A test whose program never ran to an end: a failed build, a refused
    /// submission, a sandbox that could not run it.
    pub(super) fn not_run(test: &str, verdict: Verdict, detail: String) -> TestResult {
        TestResult {
            test: test.to_owned(),
            verdict,
            score: 0.0,
            detail,
            wall: 0.0,
            cpu: 0.0,
            exit_status: None,
            signal: None,
            lines_matched: None,
            lines_found: None,
            first_difference: None,
            expected: String::new(),
            actual: String::new(),
            stderr: String::new(),
            unmatched: Unmatched::default(),
            smallest_failing_input: None,
            choices: Vec::new(),
        }
    }

    /// The compiler's warnings, for a [`WARNINGS_TEST`] that failed
    /// on them: reports show them where a wrong answer would be.
    #[must_use]
    pub fn warnings(&self) -> Option<&str> {
        (self.test == WARNINGS_TEST && self.verdict == Verdict::Wrong && !self.actual.is_empty())
            .then_some(self.actual.as_str())
    }

    /// Failed in a way shrinking keeps to: a wrong answer, or a crash with
    /// its exit status or signal (not a sandbox's failure).
    pub(super) fn shrinkable(&self) -> bool {
        self.verdict == Verdict::Wrong
            || (self.verdict == Verdict::Crashed && (self.exit_status.is_some() || self.signal.is_some()))
    }

    /// `other` failed the way this did: the same verdict, and for a crash
    /// the same exit status or signal.
    pub(super) fn same_failure(&self, other: &TestResult) -> bool {
        self.verdict == other.verdict
            && (self.verdict != Verdict::Crashed
                || (self.exit_status, &self.signal) == (other.exit_status, &other.signal))
    }
}

/// How one submission did.
#[derive(Clone, Debug, Serialize)]
pub struct SubmissionResult {
    /// The submission's name: its directory's.
    pub submission: String,
    /// How it was built and run: the language found (`C++`,
    /// `Java (ttt.Main)`, …), `given` for `--build`/`--run`, or `unknown`.
    pub language: String,
    /// Out of 100.
    pub score: f64,
    /// Whether the build failed.
    pub build_failed: bool,
    /// The build's output (standard output, then standard error), if it ran.
    pub build_log: Option<String>,
    /// With `--provided`, the course's provided files this submission
    /// lacked (each was added before the build); `None` without it, or when
    /// the grading of this submission stopped before they were placed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provided_missing: Option<Vec<String>>,
    /// With `--provided`, the course's provided files whose copy in this
    /// submission differed from the course's (the course's was used).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provided_changed: Option<Vec<String>>,
    /// With `--provided`, this submission's files removed from its copy
    /// because a tool would have read them in place of the course's: a
    /// build file beside the course's (`GNUmakefile` beside its
    /// `Makefile`), a precompiled header (`board.h.gch`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provided_removed: Option<Vec<String>>,
    /// Each test, in the tests' order.
    pub tests: Vec<TestResult>,
}

impl SubmissionResult {
    /// A submission that was built (or needed no build) and ran its tests.
    #[must_use]
    pub fn graded(
        submission: String,
        language: String,
        build_log: Option<String>,
        tests: Vec<TestResult>,
    ) -> Self {
        SubmissionResult {
            submission,
            language,
            score: mean_score(&tests),
            build_failed: false,
            build_log,
            tests,
            provided_missing: None,
            provided_changed: None,
            provided_removed: None,
        }
    }

    /// What reports tell the student of the course's provided files: a
    /// sentence for each they lacked or changed, in path order.
    #[must_use]
    pub fn provided_notes(&self) -> Vec<String> {
        let mut notes: Vec<(&str, String)> = Vec::new();
        for file in self.provided_missing.iter().flatten() {
            notes.push((file, format!("Your submission lacked {file}; the course's was used.")));
        }
        for file in self.provided_changed.iter().flatten() {
            notes.push((
                file,
                format!("Your copy of {file} differed from the course's; the course's was used."),
            ));
        }
        for file in self.provided_removed.iter().flatten() {
            notes.push((
                file,
                format!("Your {file} was removed: it would have been read in place of the course's files."),
            ));
        }
        notes.sort();
        notes.into_iter().map(|(_, note)| note).collect()
    }

    /// How many tests had `verdict`.
    #[must_use]
    pub fn count(&self, verdict: Verdict) -> usize {
        self.tests.iter().filter(|t| t.verdict == verdict).count()
    }
}

/// What a grading produced: every submission it finished, and the ones an
/// interruption left ungraded.
#[derive(Clone, Debug)]
pub struct Graded {
    /// The submissions graded, in the order given.
    pub results: Vec<SubmissionResult>,
    /// The names of those not graded because the grading was stopped
    /// ([`super::Grader::stopper`]).
    pub not_graded: Vec<String>,
}

/// A submission's score out of 100: its tests' mean.
impl Graded {
    /// Whether every test of every submission graded passed.
    #[must_use]
    pub fn all_passed(&self) -> bool {
        self.results.iter().all(|r| r.tests.iter().all(|t| t.verdict == Verdict::Pass))
    }
}

fn mean_score(tests: &[TestResult]) -> f64 {
    #[allow(clippy::cast_precision_loss, reason = "test counts are small")]
    if tests.is_empty() {
        0.0
    } else {
        100.0 * tests.iter().map(|t| t.score).sum::<f64>() / tests.len() as f64
    }
}

/// The smallest input found on which the program fails as it failed the
/// test, with the expected answer and the program's on it: a shrunk game or
/// script, or a function's smallest failing call ([`Evidence`] says which).
///
/// Written into `results.json` as `smallest_failing_input` (FORMAT.md):
/// `input`, `lines`, `original_lines` (each kind's two counts, see
/// [`Smallest::counts`]), `verdict`, `detail`, `expected`, `actual`,
/// `first_difference`, `stderr`, `runs`, `seconds`, `complete`, in that
/// order.
#[derive(Clone, Debug)]
pub struct Smallest {
    /// The input: the test's header and the lines kept (cut at
    /// [`SHOWN_BYTES`]), or the call as the student would write it.
    pub input: String,
    /// What is particular to a shrunk game and to a call.
    pub evidence: Evidence,
    /// The verdict on it: the test's.
    pub verdict: Verdict,
    /// What happened on it, as the test's `detail` says.
    pub detail: String,
    /// The expected answer on it (cut at [`SHOWN_BYTES`]).
    pub expected: String,
    /// The program's answer on it (cut at [`SHOWN_BYTES`]).
    pub actual: String,
    /// The first difference between the two, if they were compared.
    pub first_difference: Option<Difference>,
    /// The end of the program's standard error on it.
    pub stderr: String,
    /// Runs of the program the shrinking took, the confirming run included
    /// (for a call: rounds of the search for a smaller one).
    pub runs: usize,
    /// Wall-clock seconds the shrinking took (for a call: the submission's
    /// grading).
    pub seconds: f64,
    /// Whether the search ended by itself (no deletion of one chunk or
    /// pair, and no smaller square, still fails; nothing one step smaller
    /// still fails) rather than at the budget.
    pub complete: bool,
    /// The lines of each answer the comparison left unmatched.
    pub unmatched: Unmatched,
}

/// What a [`Smallest`] input is, with what is particular to it.
/// (Written whole only into a part's `part.json`; `results.json` has its
/// two counts.)
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Evidence {
    /// A move file or a console's typed script, shrunk by deleting and
    /// simplifying its lines.
    Transcript {
        /// How many lines it has (the header not counted).
        lines: usize,
        /// How many the test has.
        original_lines: usize,
        /// What its lines are: `move lines`, or a console's `lines`.
        unit: Cow<'static, str>,
        /// The lines kept, without their line ends (for one-line messages).
        moves: Vec<String>,
    },
    /// A game a bot played (`grade --play`), as its record: a move file
    /// `ttt-referee` replays.
    Game {
        /// Which game it is, as reports name it: `the shortest game it
        /// lost`, say.
        what: Cow<'static, str>,
        /// Its move lines, without their line ends.
        moves: Vec<String>,
    },
    /// One call of a function (`grade --api`), the smallest found that
    /// fails.
    Call {
        /// How many of the function's cases failed.
        failed: usize,
        /// How many of its cases were tried.
        tried: usize,
    },
}

impl Smallest {
    /// How reports name it: `the smallest game that still fails (3 of the
    /// test's 9 move lines)`, or `the smallest failing call (12 of 500 cases
    /// failed)`.
    #[must_use]
    pub fn heading(&self) -> String {
        match &self.evidence {
            Evidence::Transcript { lines, original_lines, unit, .. } => {
                format!("the smallest game that still fails ({lines} of the test's {original_lines} {unit})")
            }
            Evidence::Game { what, moves } => {
                let n = moves.len();
                format!("{what} ({n} move{}), a move file to replay with ttt-referee", plural(n))
            }
            Evidence::Call { failed, tried } => {
                format!("the smallest failing call ({failed} of {tried} cases failed)")
            }
        }
    }

    /// Its two counts, as `results.json` writes them (`lines`,
    /// `original_lines`): a transcript's lines and the test's, or a
    /// function's cases failed and tried.
    #[must_use]
    pub fn counts(&self) -> (usize, usize) {
        match self.evidence {
            Evidence::Transcript { lines, original_lines, .. } => (lines, original_lines),
            Evidence::Game { ref moves, .. } => (moves.len(), moves.len()),
            Evidence::Call { failed, tried } => (failed, tried),
        }
    }

    /// It on one line, for a one-line message: each move's fields joined
    /// by a space, the moves by ` / `; a call's words by a space.
    #[must_use]
    pub fn in_one_line(&self) -> String {
        let words = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
        match &self.evidence {
            Evidence::Transcript { moves, .. } | Evidence::Game { moves, .. } => {
                moves.iter().map(|m| words(m)).collect::<Vec<_>>().join(" / ")
            }
            Evidence::Call { .. } => words(&self.input),
        }
    }
}

/// `s` unless `n` is 1.
fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

impl Serialize for Smallest {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (lines, original_lines) = self.counts();
        let mut out = serializer.serialize_struct("Smallest", 12)?;
        out.serialize_field("input", &self.input)?;
        out.serialize_field("lines", &lines)?;
        out.serialize_field("original_lines", &original_lines)?;
        out.serialize_field("verdict", &self.verdict)?;
        out.serialize_field("detail", &self.detail)?;
        out.serialize_field("expected", &self.expected)?;
        out.serialize_field("actual", &self.actual)?;
        out.serialize_field("first_difference", &self.first_difference)?;
        out.serialize_field("stderr", &self.stderr)?;
        out.serialize_field("runs", &self.runs)?;
        out.serialize_field("seconds", &self.seconds)?;
        out.serialize_field("complete", &self.complete)?;
        out.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(moves: usize) -> Smallest {
        Smallest {
            input: String::new(),
            evidence: Evidence::Game {
                what: "the shortest game it lost".into(),
                moves: vec!["X\t1".to_owned(); moves],
            },
            verdict: Verdict::Wrong,
            detail: String::new(),
            expected: String::new(),
            actual: String::new(),
            first_difference: None,
            stderr: String::new(),
            runs: 1,
            seconds: 0.0,
            complete: true,
            unmatched: Unmatched::default(),
        }
    }

    #[test]
    fn a_game_of_one_move_is_one_move() {
        assert_eq!(
            game(1).heading(),
            "the shortest game it lost (1 move), a move file to replay with ttt-referee"
        );
        assert_eq!(
            game(5).heading(),
            "the shortest game it lost (5 moves), a move file to replay with ttt-referee"
        );
    }
}
