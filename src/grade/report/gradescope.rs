//! Gradescope's `results.json` for one submission: the assignment's points
//! shared among the tests in hundredths (so the scores add up exactly),
//! each test's visibility chosen by name patterns, and the feedback a
//! student can act on, in Markdown (`output_format` `md`, which Gradescope
//! renders): the submission's tests as a table, and each failing test's
//! first difference, standard error and smallest failing input in fenced
//! blocks. Student text is made inert and then Markdown
//! ([`super::markdown`]), so nothing a program prints can end a cell or a
//! block, or become HTML or a link.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::Serialize;

use super::formats::{capitalized, score};
use super::markdown::{block, cell};
use super::{ReportError, Sink, write_file};
use crate::grade::result::{Graded, STDERR_LINES, SubmissionResult, TestResult, Verdict};
use crate::text::inert;

/// How Gradescope is to show `output`: Markdown (its values are `text`,
/// `html`, `simple_format`, `md` and `ansi`).
const MARKDOWN: &str = "md";

/// How Gradescope is to show a test's name: as plain text (names are made
/// inert, not Markdown).
const PLAIN: &str = "text";

/// The most lines of one fenced block of a test's feedback: enough for a
/// transcript of a smallest failing game.
const BLOCK_LINES: usize = 200;

/// When students see a test (Gradescope's `visibility`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Visibility {
    /// Always.
    Visible,
    /// Never (its score still counts; students then do not see their total).
    Hidden,
    /// Once the due date has passed.
    AfterDueDate,
    /// Once the grades are published.
    AfterPublished,
}

/// Why a [`Scoring`] cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum ScoringError {
    /// The points are not a number above 0.
    #[error("{0} points: expected a number above 0")]
    Points(f64),
    /// A visibility pattern is not a glob.
    #[error("`{pattern}` is not a name pattern: {source}")]
    Pattern {
        /// The pattern as given.
        pattern: String,
        /// Why it is not one.
        source: globset::Error,
    },
}

/// How a submission's tests become Gradescope points.
#[derive(Clone, Debug)]
pub struct Scoring {
    points: u64,
    rules: Vec<(GlobSet, Visibility)>,
}

impl Scoring {
    /// The assignment's `points` (rounded to hundredths), shared among the
    /// tests; `rules` give a test's visibility by its name (the first
    /// matching pattern wins, otherwise it is visible). A pattern that is not
    /// a glob is an error naming it.
    pub fn new(points: f64, rules: &[(String, Visibility)]) -> Result<Scoring, ScoringError> {
        if !(points.is_finite() && points > 0.0) {
            return Err(ScoringError::Points(points));
        }
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "checked above 0; at most 1e6 by the CLI"
        )]
        let points = (points * 100.0).round() as u64;
        let rules = rules
            .iter()
            .map(|(pattern, visibility)| {
                let invalid = |source| ScoringError::Pattern { pattern: pattern.clone(), source };
                let glob = Glob::new(pattern).map_err(invalid)?;
                let set = GlobSetBuilder::new().add(glob).build().map_err(invalid)?;
                Ok((set, *visibility))
            })
            .collect::<Result<_, ScoringError>>()?;
        Ok(Scoring { points, rules })
    }

    /// The assignment's points.
    #[must_use]
    pub fn points(&self) -> f64 {
        hundredths(self.points)
    }

    /// Each test's points of `result` and the most it could have had: the
    /// points shared among the tests in hundredths (the first `points % n`
    /// tests carry the hundredths left over), each test's score a share of
    /// its own.
    #[must_use]
    pub fn shares(&self, result: &SubmissionResult) -> Vec<(f64, f64)> {
        self.hundredths(result).into_iter().map(|(score, max)| (hundredths(score), hundredths(max))).collect()
    }

    /// As [`Scoring::shares`], in hundredths.
    fn hundredths(&self, result: &SubmissionResult) -> Vec<(u64, u64)> {
        let n = result.tests.len() as u64;
        result
            .tests
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let max = self.points / n + u64::from((i as u64) < self.points % n);
                #[allow(
                    clippy::cast_possible_truncation,
                    clippy::cast_sign_loss,
                    clippy::cast_precision_loss,
                    reason = "a score is between 0 and 1"
                )]
                let score = (t.score.clamp(0.0, 1.0) * max as f64).round() as u64;
                (score, max)
            })
            .collect()
    }

    fn visibility(&self, test: &str) -> Visibility {
        self.rules.iter().find(|(set, _)| set.is_match(test)).map_or(Visibility::Visible, |&(_, v)| v)
    }
}

/// Hundredths as a JSON number: 1112 → 11.12.
#[allow(clippy::cast_precision_loss, reason = "hundredths of at most a million points")]
fn hundredths(n: u64) -> f64 {
    n as f64 / 100.0
}

#[derive(Serialize)]
struct Results {
    score: f64,
    execution_time: u64,
    output: String,
    output_format: &'static str,
    test_output_format: &'static str,
    test_name_format: &'static str,
    tests: Vec<Case>,
}

#[derive(Serialize)]
struct Case {
    name: String,
    score: f64,
    max_score: f64,
    status: &'static str,
    output: String,
    output_format: &'static str,
    name_format: &'static str,
    visibility: Visibility,
}

/// Gradescope's `results.json` for the one submission graded (a grading of
/// one submission: Gradescope runs one autograder per student).
#[derive(Debug)]
pub struct Gradescope {
    path: PathBuf,
    scoring: Scoring,
}

impl Gradescope {
    /// Gradescope's report, to be written at `path`.
    #[must_use]
    pub fn new(path: PathBuf, scoring: Scoring) -> Gradescope {
        Gradescope { path, scoring }
    }

    /// Writes at `path` the report of a grading that could not be done,
    /// saying why: Gradescope shows a student nothing at all without one.
    ///
    /// # Errors
    /// When it cannot be written.
    pub fn failed(path: &Path, why: &str) -> Result<(), ReportError> {
        write_file(path, |out| write_failure(why, out))
    }
}

impl Sink for Gradescope {
    fn finish(&mut self, graded: &Graded) -> Result<(), ReportError> {
        match graded.results.as_slice() {
            [result] => write_file(&self.path, |out| write(result, &self.scoring, out)),
            _ => Ok(()),
        }
    }
}

/// Writes `results.json` for `result`.
pub fn write(result: &SubmissionResult, scoring: &Scoring, out: &mut impl Write) -> io::Result<()> {
    let shares = scoring.hundredths(result);
    let mut total = 0;
    let mut tests = Vec::new();
    for (t, &(score, max)) in result.tests.iter().zip(&shares) {
        total += score;
        tests.push(Case {
            name: inert(&t.test).into_owned(),
            score: hundredths(score),
            max_score: hundredths(max),
            status: if t.verdict == Verdict::Pass { "passed" } else { "failed" },
            output: case_output(t),
            output_format: MARKDOWN,
            name_format: PLAIN,
            visibility: scoring.visibility(&t.test),
        });
    }
    let wall: f64 = result.tests.iter().map(|t| t.wall).sum();
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "seconds of a grading")]
    let execution_time = wall.round() as u64;
    let results = Results {
        score: hundredths(total),
        execution_time,
        output: overview(result, scoring, &shares),
        output_format: MARKDOWN,
        test_output_format: MARKDOWN,
        test_name_format: PLAIN,
        tests,
    };
    serde_json::to_writer_pretty(&mut *out, &results)?;
    writeln!(out)
}

/// The feedback on the whole submission, in Markdown: how many tests
/// passed, the build's log if it failed, the notes on the course's
/// provided files, and a table of the tests students may see now (name,
/// verdict, points); those hidden until later are counted, not named.
fn overview(result: &SubmissionResult, scoring: &Scoring, shares: &[(u64, u64)]) -> String {
    let mut text = format!(
        "{}: {} of {} tests passed.\n",
        cell(&result.language),
        result.count(Verdict::Pass),
        result.tests.len()
    );
    if result.build_failed {
        let _ = write!(
            text,
            "\nThe build failed:\n\n{}",
            block(result.build_log.as_deref().unwrap_or(""), BLOCK_LINES)
        );
    }
    for note in result.provided_notes() {
        let _ = write!(text, "\n{}\n", cell(&note));
    }
    let mut later = 0;
    let mut rows = String::new();
    for (t, &(got, max)) in result.tests.iter().zip(shares) {
        if scoring.visibility(&t.test) != Visibility::Visible {
            later += 1;
            continue;
        }
        let verdict =
            if t.verdict == Verdict::Pass { "pass".to_owned() } else { format!("**{}**", t.verdict) };
        let _ = writeln!(
            rows,
            "| {} | {verdict} | {} / {} |",
            cell(&t.test),
            score(hundredths(got)),
            score(hundredths(max))
        );
    }
    if !rows.is_empty() {
        let _ = write!(text, "\n| test | verdict | points |\n| --- | --- | ---: |\n{rows}");
    }
    if later > 0 {
        let (tests, are) = if later == 1 { ("test is", "it") } else { ("tests are", "them") };
        let _ = write!(text, "\n{later} more {tests} shown when Gradescope shows {are}.\n");
    }
    text
}

/// `results.json` for a grading that could not be done: no score, and why.
pub fn write_failure(why: &str, out: &mut impl Write) -> io::Result<()> {
    let results = Results {
        score: 0.0,
        execution_time: 0,
        output: format!(
            "The autograder could not grade this submission:\n\n{}\nPlease tell your instructor.\n",
            block(why, BLOCK_LINES)
        ),
        output_format: MARKDOWN,
        test_output_format: MARKDOWN,
        test_name_format: PLAIN,
        tests: Vec::new(),
    };
    serde_json::to_writer_pretty(&mut *out, &results)?;
    writeln!(out)
}

/// A test's feedback, in Markdown: the verdict and why, then in fenced
/// blocks the compiler's warnings, the first difference, the end of its
/// standard error, and its smallest failing input with what was expected
/// and answered on it.
fn case_output(t: &TestResult) -> String {
    let mut text = if t.detail.is_empty() {
        format!("**{}**\n", t.verdict)
    } else {
        format!("**{}**: {}\n", t.verdict, cell(&t.detail))
    };
    if let Some(warnings) = t.warnings() {
        let _ = write!(text, "\nThe compiler's warnings:\n\n{}", block(warnings, BLOCK_LINES));
    }
    if let Some(d) = &t.first_difference {
        let _ = write!(text, "\nThe first difference:\n\n{}", block(&d.to_string(), BLOCK_LINES));
    }
    if !t.stderr.is_empty() {
        let _ = write!(
            text,
            "\nStandard error (its last {STDERR_LINES} lines at most):\n\n{}",
            block(&t.stderr, BLOCK_LINES)
        );
    }
    if let Some(s) = &t.smallest_failing_input {
        let _ = write!(
            text,
            "\n{}:\n\n{}\nOn it: **{}**: {}\n",
            capitalized(&s.heading()),
            block(&s.input, BLOCK_LINES),
            s.verdict,
            cell(&s.detail)
        );
        if let Some(d) = &s.first_difference {
            let _ = write!(text, "\nThe first difference on it:\n\n{}", block(&d.to_string(), BLOCK_LINES));
        }
        let _ = write!(
            text,
            "\nExpected on it:\n\n{}\nYour program's answer on it:\n\n{}",
            block(&s.expected, BLOCK_LINES),
            block(&s.actual, BLOCK_LINES)
        );
        if !s.stderr.is_empty() {
            let _ = write!(text, "\nStandard error on it:\n\n{}", block(&s.stderr, BLOCK_LINES));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(scores: &[f64]) -> SubmissionResult {
        let tests = scores
            .iter()
            .enumerate()
            .map(|(i, &score)| {
                let verdict = if score >= 1.0 { Verdict::Pass } else { Verdict::Wrong };
                TestResult {
                    score,
                    wall: 0.4,
                    cpu: 0.1,
                    exit_status: Some(0),
                    ..TestResult::not_run(&format!("t{i}.txt"), verdict, "d".to_owned())
                }
            })
            .collect();
        SubmissionResult {
            submission: "ada".to_owned(),
            language: "C".to_owned(),
            score: 0.0,
            build_failed: false,
            build_log: None,
            provided_missing: None,
            provided_changed: None,
            provided_removed: None,
            tests,
        }
    }

    fn json(result: &SubmissionResult, scoring: &Scoring) -> serde_json::Value {
        let mut out = Vec::new();
        write(result, scoring, &mut out).unwrap();
        serde_json::from_slice(&out).unwrap()
    }

    #[test]
    fn points_are_shared_in_hundredths_that_add_up() {
        let doc = json(&result(&[1.0; 15]), &Scoring::new(100.0, &[]).unwrap());
        let maxes: Vec<f64> =
            doc["tests"].as_array().unwrap().iter().map(|t| t["max_score"].as_f64().unwrap()).collect();
        assert_eq!(maxes[..10], [6.67; 10]);
        assert_eq!(maxes[10..], [6.66; 5]);
        assert_eq!(doc["score"], 100.0);
        assert_eq!(doc["execution_time"], 6);
        let doc = json(&result(&[1.0, 0.5, 0.0]), &Scoring::new(10.0, &[]).unwrap());
        assert_eq!(doc["tests"][0]["max_score"], 3.34);
        assert_eq!(doc["tests"][1]["score"], 1.67);
        assert_eq!(doc["score"], 5.01);
        assert_eq!(doc["tests"][1]["status"], "failed");
    }

    #[test]
    fn visibility_follows_the_first_matching_pattern() {
        let rules = [("t1*".to_owned(), Visibility::Hidden), ("t*".to_owned(), Visibility::AfterDueDate)];
        let doc = json(&result(&[1.0, 1.0]), &Scoring::new(100.0, &rules).unwrap());
        assert_eq!(doc["tests"][0]["visibility"], "after_due_date");
        assert_eq!(doc["tests"][1]["visibility"], "hidden");
        assert_eq!(
            json(&result(&[1.0]), &Scoring::new(1.0, &[]).unwrap())["tests"][0]["visibility"],
            "visible"
        );
        assert_eq!(
            Scoring::new(1.0, &[("a[".to_owned(), Visibility::Hidden)]).unwrap_err().to_string(),
            "`a[` is not a name pattern: error parsing glob 'a[': unclosed character class; missing ']'"
        );
    }

    #[test]
    fn a_failure_still_makes_results() {
        let mut out = Vec::new();
        write_failure("no tests\u{1b}[2J\n```\n<b>x</b>", &mut out).unwrap();
        let doc: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(doc["score"], 0.0);
        assert_eq!(doc["output_format"], "md");
        assert_eq!(doc["tests"], serde_json::json!([]));
        assert_eq!(
            doc["output"],
            "The autograder could not grade this submission:\n\n\
             ````text\nno tests\\u{1b}[2J\n```\n<b>x</b>\n````\n\nPlease tell your instructor.\n"
        );
    }

    /// A submission whose program wrote hostile text everywhere a student
    /// can: pipes, backticks (longer runs than a fence), HTML, a link, a
    /// terminal escape, a workflow command, and a 1 MB line.
    fn hostile() -> SubmissionResult {
        use crate::check::{Difference, Unmatched};
        use crate::grade::result::{Evidence, Smallest};
        let huge = "|`<".repeat(350_000);
        let difference = Difference {
            expected: Some((2, "X: Ada O: Bob".to_owned())),
            actual: Some((2, format!("X: <img src=x onerror=alert(1)> | ```` [link](http://x) {huge}"))),
        };
        let wrong = TestResult {
            score: 0.0,
            wall: 0.25,
            first_difference: Some(difference.clone()),
            stderr: "boom `` ``` ````\n<script>alert(1)</script>\n\u{1b}[2J| a | b |\n::error::x".to_owned(),
            smallest_failing_input: Some(Smallest {
                input: format!("Tic-Tac-Toe Game Data\nX: a O: b\n\nX\t5\n```` {huge}\n"),
                evidence: Evidence::Transcript {
                    lines: 2,
                    original_lines: 9,
                    unit: "move lines".into(),
                    moves: vec!["X\t5".to_owned()],
                },
                verdict: Verdict::Wrong,
                detail: "the first difference is at line 2 | *bold*".to_owned(),
                expected: "Game over\n".to_owned(),
                actual: "| x | y |\n</details><script>alert(2)</script>\n".to_owned(),
                first_difference: Some(difference),
                stderr: String::new(),
                runs: 7,
                seconds: 0.5,
                complete: true,
                unmatched: Unmatched::default(),
            }),
            ..TestResult::not_run(
                "02-<b>|hostile`.txt",
                Verdict::Wrong,
                "the first difference is at line 2 | <i>".to_owned(),
            )
        };
        let pass = TestResult {
            score: 1.0,
            ..TestResult::not_run("01-fine.txt", Verdict::Pass, "all 3 lines match".to_owned())
        };
        let hidden =
            TestResult { score: 1.0, ..TestResult::not_run("03-hidden.txt", Verdict::Pass, String::new()) };
        SubmissionResult {
            submission: "eve".to_owned(),
            language: "Python (<b>|x`.py)".to_owned(),
            score: 50.0,
            build_failed: false,
            build_log: None,
            provided_missing: None,
            provided_changed: None,
            provided_removed: None,
            tests: vec![pass, wrong, hidden],
        }
    }

    /// Checks that `markdown` holds nothing a student wrote that Markdown
    /// would read: outside its fenced blocks no `<`, `|` or backtick that is
    /// not escaped and no table row of more cells than the header's; inside,
    /// no line that could close the block.
    fn assert_contained(markdown: &str) {
        let mut fence: Option<String> = None;
        let mut columns = None;
        for line in markdown.lines() {
            if let Some(open) = &fence {
                if line.starts_with(open.as_str()) {
                    assert_eq!(line.trim_end(), open, "a line closes a block early:\n{line}");
                    fence = None;
                }
                continue;
            }
            let ticks = line.len() - line.trim_start_matches('`').len();
            if ticks >= 3 {
                fence = Some("`".repeat(ticks));
                continue;
            }
            // Every `|`, `<` and backtick is escaped, or ours (a table's
            // bars, the `**` of a verdict).
            let mut escaped = false;
            let mut bars = 0;
            for c in line.chars() {
                if !escaped {
                    assert!(c != '<' && c != '`', "unescaped {c:?} in {line}");
                    bars += usize::from(c == '|');
                }
                escaped = !escaped && c == '\\';
            }
            if line.starts_with('|') {
                assert_eq!(*columns.get_or_insert(bars), bars, "a row of another width: {line}");
            }
        }
        assert!(fence.is_none(), "a block is left open:\n{markdown}");
    }

    /// The feedback of a failing submission full of hostile text, byte for
    /// byte (`fixtures/gradescope/hostile-results.json`): Markdown that
    /// nothing a student wrote breaks out of, and the 1 MB lines cut.
    #[test]
    fn the_feedback_of_a_failing_submission_is_inert_markdown() {
        let rules = [("03-*".to_owned(), Visibility::AfterDueDate)];
        let mut out = Vec::new();
        write(&hostile(), &Scoring::new(10.0, &rules).unwrap(), &mut out).unwrap();
        let golden =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/gradescope/hostile-results.json");
        if std::env::var_os("TTT_BLESS").is_some() {
            std::fs::create_dir_all(golden.parent().unwrap()).unwrap();
            std::fs::write(&golden, &out).unwrap();
        }
        assert!(out.len() < 16 << 10, "{} bytes", out.len());
        let doc: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(
            (doc["output_format"].as_str(), doc["test_output_format"].as_str()),
            (Some("md"), Some("md"))
        );
        let overview = doc["output"].as_str().unwrap();
        assert_contained(overview);
        // The table names the tests shown now, with their points; the one
        // shown after the due date is counted, not named.
        assert!(overview.contains("| 01\\-fine\\.txt | pass | 3.34 / 3.34 |"), "{overview}");
        assert!(
            overview.contains("| 02\\-\\<b\\>\\|hostile\\`\\.txt | **wrong** | 0 / 3.33 |"),
            "{overview}"
        );
        assert!(!overview.contains("03"), "{overview}");
        assert!(overview.contains("1 more test is shown when Gradescope shows it."), "{overview}");
        for test in doc["tests"].as_array().unwrap() {
            assert_eq!(test["output_format"], "md");
            assert_contained(test["output"].as_str().unwrap());
        }
        let failing = doc["tests"][1]["output"].as_str().unwrap();
        assert!(
            failing.starts_with("**wrong**: the first difference is at line 2 \\| \\<i\\>\n"),
            "{failing}"
        );
        assert!(
            failing.contains("\n`````text\n  expected line 2: X: Ada O: Bob\n"),
            "the first difference is not in a block:\n{failing}"
        );
        assert!(failing.contains("\\u{1b}[2J| a | b |\n\\u{3a}:error::x\n"), "{failing}");
        assert_eq!(String::from_utf8(out).unwrap(), std::fs::read_to_string(&golden).unwrap());
    }
}
