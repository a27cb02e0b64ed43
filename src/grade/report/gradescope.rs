//! Gradescope's `results.json` for one submission: the assignment's points
//! shared among the tests in hundredths (so the scores add up exactly),
//! each test's visibility chosen by name patterns, and the feedback a
//! student can act on.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::Serialize;

use super::formats::capitalized;
use super::{ReportError, Sink, write_file};
use crate::grade::result::{Graded, STDERR_LINES, SubmissionResult, TestResult, Verdict};
use crate::text::{inert, inert_lines};

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
    tests: Vec<Case>,
}

#[derive(Serialize)]
struct Case {
    name: String,
    score: f64,
    max_score: f64,
    status: &'static str,
    output: String,
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
    let mut total = 0;
    let mut tests = Vec::new();
    for (t, (score, max)) in result.tests.iter().zip(scoring.hundredths(result)) {
        total += score;
        tests.push(Case {
            name: inert(&t.test).into_owned(),
            score: hundredths(score),
            max_score: hundredths(max),
            status: if t.verdict == Verdict::Pass { "passed" } else { "failed" },
            output: case_output(t),
            visibility: scoring.visibility(&t.test),
        });
    }
    let wall: f64 = result.tests.iter().map(|t| t.wall).sum();
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "seconds of a grading")]
    let execution_time = wall.round() as u64;
    let passed = result.count(Verdict::Pass);
    let mut output = if result.build_failed {
        format!("The build failed:\n{}", inert_text(result.build_log.as_deref().unwrap_or("")))
    } else {
        format!("{}: {passed} of {} tests passed.", inert(&result.language), result.tests.len())
    };
    for note in result.provided_notes() {
        let _ = write!(output, "\n{}", inert(&note));
    }
    let results = Results { score: hundredths(total), execution_time, output, tests };
    serde_json::to_writer_pretty(&mut *out, &results)?;
    writeln!(out)
}

/// `results.json` for a grading that could not be done: no score, and why.
pub fn write_failure(why: &str, out: &mut impl Write) -> io::Result<()> {
    let results = Results {
        score: 0.0,
        execution_time: 0,
        output: format!(
            "The autograder could not grade this submission: {}\nPlease tell your instructor.",
            inert_text(why)
        ),
        tests: Vec::new(),
    };
    serde_json::to_writer_pretty(&mut *out, &results)?;
    writeln!(out)
}

/// Text made inert line by line ([`inert_lines`]: newlines and tabs kept,
/// each line neutralised), without a last newline.
fn inert_text(text: &str) -> String {
    text.lines().map(|l| inert_lines(l).into_owned()).collect::<Vec<_>>().join("\n")
}

/// A test's feedback: the verdict and why, the first difference, and the
/// end of its standard error.
fn case_output(t: &TestResult) -> String {
    let mut text = format!("{}: {}", t.verdict, inert(&t.detail));
    if let Some(warnings) = t.warnings() {
        let _ = write!(text, "\nThe compiler's warnings:\n{}", inert_text(warnings));
    }
    if let Some(d) = &t.first_difference {
        let _ = write!(text, "\n{}", inert_text(&d.to_string()));
    }
    if !t.stderr.is_empty() {
        let _ = write!(
            text,
            "\nStandard error (its last {STDERR_LINES} lines at most):\n{}",
            inert_text(&t.stderr)
        );
    }
    if let Some(s) = &t.smallest_failing_input {
        let _ = write!(
            text,
            "\n\n{}:\n{}\nOn it: {}: {}",
            capitalized(&s.heading()),
            inert_text(&s.input),
            s.verdict,
            inert(&s.detail)
        );
        if let Some(d) = &s.first_difference {
            let _ = write!(text, "\n{}", inert_text(&d.to_string()));
        }
        let _ = write!(
            text,
            "\nExpected on it:\n{}\nYour program's answer on it:\n{}",
            inert_text(&s.expected),
            inert_text(&s.actual)
        );
        if !s.stderr.is_empty() {
            let _ = write!(text, "\nStandard error on it:\n{}", inert_text(&s.stderr));
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
        write_failure("no tests\u{1b}[2J", &mut out).unwrap();
        let doc: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(doc["score"], 0.0);
        assert_eq!(doc["tests"], serde_json::json!([]));
        assert_eq!(
            doc["output"],
            "The autograder could not grade this submission: no tests\\u{1b}[2J\nPlease tell your instructor."
        );
    }
}
