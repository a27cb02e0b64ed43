//! GitHub Classroom's feedback for one submission (`grade --classroom
//! DIR`), which the workflow `autograder github` writes passes on:
//!
//! - `summary.md`, the run's step summary in Markdown: the tests as a
//!   table, then each failing test's first difference and smallest failing
//!   game, then the protections the grading had to go without. Student text
//!   is made inert ([`crate::text`]): in the table and the prose as
//!   [`crate::text::markdown`] (every ASCII punctuation mark escaped, no `@` that could
//!   be a link), longer text line by line in fenced blocks whose fence is
//!   longer than any run of backticks inside. Every piece is cut to a
//!   bound, so a 1 MB line costs a few hundred bytes.
//! - `result.json`, a runner's result as GitHub Classroom's grading reporter
//!   (`classroom-resources/autograding-grading-reporter`) reads it from a
//!   step's `result` output (base64-encoded by the workflow): `max_score`,
//!   and a test per test with its `score`, which the reporter adds up into
//!   the points Classroom's grading view shows.

use std::fmt::Write as _;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::formats::{capitalized, score};
use super::gradescope::Scoring;
use super::markdown::cell;
use super::{Grading, ReportError, Sink, write_file};
use crate::grade::result::{Graded, SubmissionResult, TestResult, Verdict};
use crate::text::{cut, inert, inert_lines};

/// The most lines of one fenced block.
const BLOCK_LINES: usize = 40;

/// The most failing tests shown in detail; the report artifact has the rest.
const DETAILED: usize = 20;

/// The most bytes of a test's message in `result.json`.
const MESSAGE_BYTES: usize = 2000;

/// `grade --classroom DIR`: `summary.md` and `result.json` for the one
/// submission graded, written also when grading could not be done.
#[derive(Debug)]
pub struct Classroom {
    dir: PathBuf,
    scoring: Scoring,
    protections: String,
}

impl Classroom {
    /// Classroom's feedback, to be written into `dir` (made if need be).
    #[must_use]
    pub fn new(dir: PathBuf, scoring: Scoring) -> Classroom {
        Classroom { dir, scoring, protections: String::new() }
    }

    /// Writes into `dir` the feedback of a grading that could not be done,
    /// saying why: none of the assignment's `points`, status `error`.
    ///
    /// # Errors
    /// When it cannot be written.
    pub fn failed(dir: &Path, why: &str, points: f64) -> Result<(), ReportError> {
        make_dir(dir)?;
        write_file(&dir.join("summary.md"), |out| {
            writeln!(out, "### The grading could not be done\n")?;
            block(&format!("{why}\n"), out)?;
            writeln!(out, "\nPlease tell your instructor.")
        })?;
        write_file(&dir.join("result.json"), |out| {
            let result = Runner { version: 1, status: "error", max_score: points, tests: Vec::new() };
            serde_json::to_writer(&mut *out, &result)?;
            writeln!(out)
        })
    }
}

fn make_dir(dir: &Path) -> Result<(), ReportError> {
    fs::create_dir_all(dir).map_err(|source| ReportError { path: Some(dir.to_owned()), source })
}

impl Sink for Classroom {
    fn begin(&mut self, grading: &Grading<'_>) {
        grading.protections.clone_into(&mut self.protections);
    }

    fn finish(&mut self, graded: &Graded) -> Result<(), ReportError> {
        let [result] = graded.results.as_slice() else { return Ok(()) };
        make_dir(&self.dir)?;
        write_file(&self.dir.join("summary.md"), |out| {
            summary(result, &self.scoring, &self.protections, out)
        })?;
        write_file(&self.dir.join("result.json"), |out| runner_result(result, &self.scoring, out))
    }
}

/// The runner result the grading reporter reads (the shape of
/// `autograding-command-grader`'s).
#[derive(Serialize)]
struct Runner {
    version: u32,
    status: &'static str,
    max_score: f64,
    tests: Vec<RunnerTest>,
}

#[derive(Serialize)]
struct RunnerTest {
    name: String,
    status: &'static str,
    score: f64,
    message: String,
    test_code: String,
    filename: String,
    line_no: u32,
    duration: u64,
}

/// A test's status for the reporter: `pass`, `error` when it could not be
/// run (a failed build, a run the sandbox refused), `fail` otherwise.
fn status(t: &TestResult) -> &'static str {
    match t.verdict {
        Verdict::Pass => "pass",
        Verdict::BuildFailed | Verdict::Error => "error",
        _ => "fail",
    }
}

/// Writes `result.json` for `result`: the points shared among the tests as
/// Gradescope's are, in hundredths that add up ([`summed_as_shown`]).
pub fn runner_result(result: &SubmissionResult, scoring: &Scoring, out: &mut impl Write) -> io::Result<()> {
    let points = summed_as_shown(&scoring.shares(result));
    let tests = result
        .tests
        .iter()
        .zip(&points)
        .map(|(t, &score)| {
            let mut message = format!("{}: {}", t.verdict, t.detail);
            if let Some(d) = &t.first_difference {
                let _ = write!(message, "\n{d}");
            }
            #[allow(
                clippy::cast_possible_truncation,
                clippy::cast_sign_loss,
                reason = "milliseconds of a run"
            )]
            let duration = (t.wall * 1000.0).round() as u64;
            RunnerTest {
                name: inert(&t.test).into_owned(),
                status: status(t),
                score,
                message: cut(&inert_lines(&message), MESSAGE_BYTES).into_owned(),
                test_code: String::new(),
                filename: String::new(),
                line_no: 0,
                duration,
            }
        })
        .collect();
    let all_passed = result.tests.iter().all(|t| t.verdict == Verdict::Pass);
    let runner = Runner {
        version: 1,
        status: if all_passed { "pass" } else { "fail" },
        max_score: scoring.points(),
        tests,
    };
    serde_json::to_writer(&mut *out, &runner)?;
    writeln!(out)
}

/// The test scores of `shares` for Classroom's grading reporter, which adds
/// them up itself in floating point and prints the sum as it comes
/// (`Points 15.560000000000002/100`): each score is nudged by at most a few
/// units in the last place so that every running total, added in order from
/// 0, is exactly the nearest `f64` to its hundredths, and prints as one.
fn summed_as_shown(shares: &[(f64, f64)]) -> Vec<f64> {
    let mut total_hundredths = 0.0_f64;
    let mut shown = 0.0_f64;
    shares
        .iter()
        .map(|&(score, _)| {
            // Scores are hundredths already: their sum is exact in hundredths.
            total_hundredths += (score * 100.0).round();
            let target = total_hundredths / 100.0;
            let mut step = target - shown;
            for _ in 0..8 {
                match (shown + step).partial_cmp(&target) {
                    Some(std::cmp::Ordering::Less) => step = step.next_up(),
                    Some(std::cmp::Ordering::Greater) => step = step.next_down(),
                    _ => break,
                }
            }
            shown += step;
            step
        })
        .collect()
}

/// Writes `summary.md` for `result`.
pub fn summary(
    result: &SubmissionResult,
    scoring: &Scoring,
    protections: &str,
    out: &mut impl Write,
) -> io::Result<()> {
    let points = scoring.shares(result);
    let total: f64 = points.iter().map(|&(s, _)| s).sum();
    writeln!(
        out,
        "### {}: {} of {} tests passed ({} of {} points)\n",
        cell(&result.language),
        result.count(Verdict::Pass),
        result.tests.len(),
        score(total),
        score(scoring.points())
    )?;
    if result.build_failed {
        writeln!(out, "The build failed:\n")?;
        block(result.build_log.as_deref().unwrap_or(""), out)?;
        writeln!(out)?;
    }
    for note in result.provided_notes() {
        writeln!(out, "{}\n", cell(&note))?;
    }
    writeln!(out, "| test | verdict | points | detail |\n| --- | --- | ---: | --- |")?;
    for (t, &(got, max)) in result.tests.iter().zip(&points) {
        let verdict =
            if t.verdict == Verdict::Pass { "pass".to_owned() } else { format!("**{}**", t.verdict) };
        writeln!(
            out,
            "| {} | {verdict} | {} / {} | {} |",
            cell(&t.test),
            score(got),
            score(max),
            cell(&t.detail)
        )?;
    }
    let failing: Vec<&TestResult> = result
        .tests
        .iter()
        .filter(|t| t.verdict != Verdict::Pass && t.verdict != Verdict::BuildFailed)
        .collect();
    for t in failing.iter().take(DETAILED) {
        details(t, out)?;
    }
    if failing.len() > DETAILED {
        writeln!(
            out,
            "\n{} more failing tests are in the run's `ttt-report` artifact.",
            failing.len() - DETAILED
        )?;
    }
    let missing: Vec<&str> =
        protections.lines().filter_map(|l| l.trim_start().strip_prefix("MISSING")).collect();
    if !missing.is_empty() {
        writeln!(
            out,
            "\n#### Protections missing\n\nThe tests ran without these protections of the sandbox (each says why):\n"
        )?;
        for line in missing {
            writeln!(out, "- {}", cell(line.trim()))?;
        }
    }
    Ok(())
}

/// One failing test: its verdict, first difference, the end of its
/// standard error, and its smallest failing game.
fn details(t: &TestResult, out: &mut impl Write) -> io::Result<()> {
    writeln!(out, "\n#### {}: {}\n\n{}", cell(&t.test), t.verdict, cell(&t.detail))?;
    if let Some(warnings) = t.warnings() {
        writeln!(out, "\nThe compiler's warnings:\n")?;
        block(warnings, out)?;
    }
    if let Some(d) = &t.first_difference {
        writeln!(out, "\nThe first difference:\n")?;
        block(&d.to_string(), out)?;
    }
    if !t.stderr.is_empty() {
        writeln!(out, "\nThe end of its standard error:\n")?;
        block(&t.stderr, out)?;
    }
    if let Some(s) = &t.smallest_failing_input {
        writeln!(out, "\n{}: {}, {}\n", capitalized(&s.heading()), s.verdict, cell(&s.detail))?;
        block(&s.input, out)?;
        if let Some(d) = &s.first_difference {
            writeln!(out, "\nOn it, the first difference:\n")?;
            block(&d.to_string(), out)?;
        }
    }
    Ok(())
}

/// Writes `text` as a fenced block of at most [`BLOCK_LINES`] lines
/// ([`super::markdown::block`]).
fn block(text: &str, out: &mut impl Write) -> io::Result<()> {
    out.write_all(super::markdown::block(text, BLOCK_LINES).as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{Difference, Unmatched};
    use crate::grade::result::{Evidence, Smallest};

    /// A submission whose program wrote hostile text everywhere a student
    /// can: pipes, backticks (longer runs than a fence), HTML, a link, a
    /// terminal escape, and a 1 MB line.
    fn hostile() -> SubmissionResult {
        let huge = "|`<".repeat(350_000);
        let difference = Difference {
            expected: Some((2, "X: Ada O: Bob".to_owned())),
            actual: Some((2, format!("X: <img src=x onerror=alert(1)> | ```` [link](http://x) {huge}"))),
        };
        let wrong = TestResult {
            score: 0.5,
            wall: 0.25,
            lines_matched: Some((1, 3)),
            first_difference: Some(difference.clone()),
            stderr: "boom `` ``` ````\n<script>alert(1)</script>\n\u{1b}[2J| a | b |".to_owned(),
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
                expected: String::new(),
                actual: String::new(),
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
                "the first difference is at line 2".to_owned(),
            )
        };
        let pass = TestResult {
            score: 1.0,
            ..TestResult::not_run("01-fine.txt", Verdict::Pass, "all 3 lines match".to_owned())
        };
        SubmissionResult {
            submission: "eve".to_owned(),
            language: "C++".to_owned(),
            score: 75.0,
            build_failed: false,
            build_log: None,
            provided_missing: None,
            provided_changed: None,
            provided_removed: None,
            tests: vec![pass, wrong],
        }
    }

    /// The summary of a failing submission full of hostile text, byte for
    /// byte (`fixtures/classroom/hostile-summary.md`): everything inert, and
    /// the 1 MB lines cut.
    #[test]
    fn the_summary_of_a_failing_submission_is_inert_markdown() {
        let scoring = Scoring::new(10.0, &[]).unwrap();
        let protections =
            "  in force  the own root\n  MISSING   the cgroup (no cgroup is delegated to this user)\n";
        let mut out = Vec::new();
        summary(&hostile(), &scoring, protections, &mut out).unwrap();
        let golden =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/classroom/hostile-summary.md");
        if std::env::var_os("TTT_BLESS").is_some() {
            fs::write(&golden, &out).unwrap();
        }
        assert!(out.len() < 8 << 10, "{} bytes", out.len());
        assert_eq!(String::from_utf8(out).unwrap(), fs::read_to_string(&golden).unwrap());
    }

    #[test]
    fn the_runner_result_gives_each_test_its_share_of_the_points() {
        let mut out = Vec::new();
        runner_result(&hostile(), &Scoring::new(10.0, &[]).unwrap(), &mut out).unwrap();
        let doc: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(doc["status"], "fail");
        assert_eq!(doc["max_score"], 10.0);
        assert_eq!(doc["tests"][0]["score"], 5.0);
        assert_eq!(doc["tests"][1]["score"], 2.5);
        assert_eq!(doc["tests"][1]["status"], "fail");
        assert_eq!(doc["tests"][1]["duration"], 250);
        assert!(doc["tests"][1]["message"].as_str().unwrap().len() <= MESSAGE_BYTES + 3);
        let dir = tempfile::tempdir().unwrap();
        Classroom::failed(dir.path(), "no tests in `t/`\n| x |", 10.0).unwrap();
        assert_eq!(
            fs::read_to_string(dir.path().join("result.json")).unwrap(),
            "{\"version\":1,\"status\":\"error\",\"max_score\":10.0,\"tests\":[]}\n"
        );
        assert_eq!(
            fs::read_to_string(dir.path().join("summary.md")).unwrap(),
            "### The grading could not be done\n\n```text\nno tests in `t/`\n| x |\n```\n\nPlease tell your instructor.\n"
        );
    }

    #[test]
    fn the_reporter_s_own_sum_of_the_scores_prints_in_hundredths() {
        // 7 tests sharing 20 points, 5 of them passed: shares of 2.86 and 2.85.
        let mut shares: Vec<(f64, f64)> =
            (0..7).map(|i| if i < 6 { (2.86, 2.86) } else { (2.84, 2.84) }).collect();
        shares[3] = (0.0, 2.86);
        shares[5] = (0.0, 2.86);
        let naive: f64 = shares.iter().fold(0.0, |sum, &(s, _)| sum + s);
        let shown = summed_as_shown(&shares);
        // As the reporter adds them (JavaScript prints an f64 as Rust's `{}` does).
        let summed = shown.iter().fold(0.0, |sum, s| sum + s);
        assert_eq!(format!("{summed}"), "14.28", "naive sum {naive}");
        for (i, s) in shown.iter().enumerate() {
            assert!((s - shares[i].0).abs() < 1e-9, "test {i}: {s} for {}", shares[i].0);
        }
        // Many small shares, as 100 points among 9 tests.
        let ninths: Vec<(f64, f64)> = (0..9).map(|i| (if i < 1 { 11.12 } else { 11.11 }, 0.0)).collect();
        let shown = summed_as_shown(&ninths);
        let mut sum = 0.0;
        for (i, s) in shown.iter().enumerate() {
            sum += s;
            let expected = ninths[..=i].iter().map(|&(s, _)| (s * 100.0).round()).sum::<f64>() / 100.0;
            assert_eq!(sum.to_bits(), expected.to_bits(), "after test {i}: {sum} for {expected}");
        }
        assert_eq!(format!("{sum}"), "100");
    }
}
