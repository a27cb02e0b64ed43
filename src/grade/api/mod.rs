//! Function-level grading (`grade --api`): a student's functions called one
//! by one, each answer checked against the referee's own rule engine.
//!
//! Each assignment ([`xtreme`], [`igameboard`]) says what its functions are,
//! how to make cases for them (its published examples, then seeded random
//! boards) with their expected values, how a case reads to a student, and
//! which smaller cases to try when one fails. A small harness (Python or
//! Java, shipped in the binary) runs in the sandbox like any program: it is
//! given every call as a JSON line, answers each with what happened, and
//! decides nothing; [`grade`] judges the answers. A call that runs past its
//! limit or kills the harness fails alone: the harness starts again on the
//! calls left, and the rest of that function's cases are not run.

pub mod igameboard;
pub mod xtreme;

use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use super::shrink::{Budget, Found, Shrunk};
use super::{TestResult, Verdict};
use crate::check::Unmatched;

/// The Python harness (`grade --api xtreme`), written into each run.
pub const PYTHON_HARNESS: &str = include_str!("harness.py");

/// The Java harness (`grade --api igameboard`), compiled with each
/// submission.
pub const JAVA_HARNESS: &str = include_str!("Harness.java");

/// The assignments whose functions can be graded one by one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Api {
    /// seeds/003's `asn3.py`: twelve Python functions on n × n boards.
    Xtreme,
    /// seeds/004's Java `IGameBoard`, through both `GameBoard` and
    /// `GameBoardMem`.
    IGameBoard,
}

impl Api {
    /// The tests of a submission, in report order: a function
    /// (`check_row`) or a class's method (`GameBoardMem.checkSpace`) each.
    #[must_use]
    pub fn functions(self) -> Vec<String> {
        match self {
            Api::Xtreme => xtreme::FUNCTIONS.iter().map(|&f| f.to_owned()).collect(),
            Api::IGameBoard => igameboard::functions(),
        }
    }

    /// How the harness is set up for the submission copied at `source`:
    /// the files it adds, its build and its command.
    ///
    /// # Errors
    /// Why the submission cannot be graded at all (no `asn3.py`; no
    /// `BoardPosition.java`), which is its build failing.
    pub fn harness(self, source: &Path, memory: u64, call_limit: Duration) -> Result<Harness, String> {
        match self {
            Api::Xtreme => xtreme::harness(source, call_limit),
            Api::IGameBoard => igameboard::harness(source, memory, call_limit),
        }
    }
}

/// How cases are made: how many random ones per function, from which seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CaseOptions {
    /// Random cases per function, besides the published examples.
    pub per_function: usize,
    /// The seed: the same seed gives the same cases.
    pub seed: u64,
}

impl CaseOptions {
    /// 200 random cases per function, seed 0.
    pub const DEFAULT: CaseOptions = CaseOptions { per_function: 200, seed: 0 };
}

/// The harness set up for one submission.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Harness {
    /// The language shown in reports, with the file graded.
    pub language: String,
    /// Files added to the submission's copy (path relative to it, text).
    pub files: Vec<(String, &'static str)>,
    /// The build, run once through `/bin/sh`, if there is one.
    pub build: Option<String>,
    /// The harness's command line (shell words).
    pub run: String,
    /// Variables its runs need set.
    pub env: Vec<(String, String)>,
}

/// One call of a student's function: what is sent, what it must give, and
/// how it reads to a student.
pub trait Call: Clone + Send + Sync + Sized {
    /// The test it belongs to: an index into [`Api::functions`].
    fn function(&self) -> usize;
    /// The request line sent to the harness, without its `id`.
    fn request(&self) -> Map<String, Value>;
    /// The call as the student would write it.
    fn shown(&self) -> String;
    /// Smaller cases come first: the board's squares, then its marks, then
    /// the rest.
    fn size(&self) -> (u64, u64, u64);
    /// Judges the harness's answer to it.
    fn judge(&self, answer: &Map<String, Value>) -> Outcome;
    /// Cases one step smaller (a mark fewer, a row or column fewer), to find
    /// a smaller one that still fails.
    fn smaller(&self) -> Vec<Self>;
}

/// How one call went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The right value, and nothing changed that must not be.
    Pass,
    /// A wrong value, or a right one with an argument changed or rows
    /// shared.
    Wrong {
        /// What a right answer is.
        expected: String,
        /// What the call gave.
        got: String,
        /// What else was wrong, if anything: `it changed its argument board`.
        why: Option<String>,
    },
    /// An exception, or the function is missing.
    Crashed(String),
    /// It did not return within the limit per call.
    TimeLimit,
}

impl Outcome {
    fn verdict(&self) -> Verdict {
        match self {
            Outcome::Pass => Verdict::Pass,
            Outcome::Wrong { .. } => Verdict::Wrong,
            Outcome::Crashed(_) => Verdict::Crashed,
            Outcome::TimeLimit => Verdict::TimeLimit,
        }
    }

    /// Fails the way `other` did: the same verdict, and for a crash the
    /// same exception type.
    fn same_failure(&self, other: &Outcome) -> bool {
        match (self, other) {
            (Outcome::Crashed(a), Outcome::Crashed(b)) => exception_type(a) == exception_type(b),
            (a, b) => a != &Outcome::Pass && a.verdict() == b.verdict(),
        }
    }

    /// What happened, after the call: `returned True, expected False`.
    fn describe(&self, limit: Duration) -> String {
        match self {
            Outcome::Pass => "passed".to_owned(),
            Outcome::Wrong { expected, got, why: None } => format!("gave {got}, expected {expected}"),
            Outcome::Wrong { expected, got, why: Some(why) } => {
                if expected == got {
                    format!("gave the right value, but {why}")
                } else {
                    format!("gave {got}, expected {expected}; and {why}")
                }
            }
            Outcome::Crashed(e) => e.clone(),
            Outcome::TimeLimit => format!("did not return within {}", seconds(limit)),
        }
    }
}

/// The exception's type: what comes before the first `:`.
fn exception_type(text: &str) -> &str {
    text.split(':').next().unwrap_or(text)
}

fn seconds(limit: Duration) -> String {
    let s = limit.as_secs_f64();
    if s.fract() == 0.0 { format!("{s:.0} s") } else { format!("{s} s") }
}

/// Judges what every answer has in common: an exception, a missing
/// function, a timeout. `None` when the call returned (`ok`).
#[must_use]
pub fn common(answer: &Map<String, Value>) -> Option<Outcome> {
    let text = |key: &str| answer.get(key).and_then(Value::as_str).map(str::to_owned);
    if answer.get("timeout").is_some_and(|t| t == &Value::Bool(true)) {
        return Some(Outcome::TimeLimit);
    }
    if let Some(missing) = text("missing") {
        return Some(Outcome::Crashed(missing));
    }
    if let Some(raised) = text("raised") {
        return Some(Outcome::Crashed(format!("raised {raised}")));
    }
    if let Some(raised) = text("setup_raised") {
        return Some(Outcome::Crashed(format!("raised {raised} while the board was set up")));
    }
    if answer.contains_key("ok") {
        return None;
    }
    Some(Outcome::Crashed("the harness's answer could not be read".to_owned()))
}

/// What one run of the harness gave.
#[derive(Clone, Debug, Default)]
pub struct Ran {
    /// Its standard output: the answers.
    pub stdout: Vec<u8>,
    /// Whether the sandbox stopped it at its time limit.
    pub out_of_time: bool,
    /// How it ended, in a few words: `exit status 3`, `killed by SIGSEGV`.
    pub ending: String,
    /// The end of its standard error.
    pub stderr: String,
}

/// Why a submission's functions could not be graded one by one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The grading was interrupted.
    Interrupted,
    /// The file does not import (or the harness did not start): every
    /// function is `build-failed` with this message.
    NotLoaded(String),
}

/// What grading needs besides the cases.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// The limit per call (the harness's own), to say in a time-limit's
    /// detail.
    pub call_limit: Duration,
    /// A function's score is its share of cases passed (else 1 or 0).
    pub partial: bool,
    /// How hard to look for a smaller failing call (`None`: not at all;
    /// the smallest failing case generated is still shown).
    pub shrink: Option<Budget>,
}

/// Grades each of `functions` on `calls` (which must cover them), running
/// the harness with `run`; one [`TestResult`] per function, in order.
///
/// # Errors
/// [`Stop`] when the grading was interrupted or the file did not load.
pub fn grade<C: Call>(
    functions: &[String],
    mut calls: Vec<C>,
    settings: &Settings,
    run: &mut dyn FnMut(&[u8]) -> Option<Ran>,
) -> Result<Vec<TestResult>, Stop> {
    let began = Instant::now();
    calls.sort_by_key(|c| (c.function(), c.size()));
    let refs: Vec<&C> = calls.iter().collect();
    let outcomes = answer_all(&refs, functions.len(), run, true)?;
    let mut results = Vec::with_capacity(functions.len());
    let mut to_shrink = Vec::new();
    for (f, name) in functions.iter().enumerate() {
        let mine: Vec<usize> = (0..calls.len()).filter(|&i| calls[i].function() == f).collect();
        let total = mine.len();
        let passed = mine.iter().filter(|&&i| outcomes[i] == Some(Outcome::Pass)).count();
        let failed: Vec<usize> = mine
            .iter()
            .copied()
            .filter(|&i| outcomes[i].as_ref().is_some_and(|o| o != &Outcome::Pass))
            .collect();
        let not_run = total - passed - failed.len();
        let Some(&first) = failed.first() else {
            results.push(result(name, Verdict::Pass, 1.0, format!("passed all {total} cases")));
            continue;
        };
        let outcome = outcomes[first].clone().unwrap_or(Outcome::Pass);
        let verdict = outcome.verdict();
        #[allow(clippy::cast_precision_loss, reason = "case counts are small")]
        let score = if settings.partial && total > 0 { passed as f64 / total as f64 } else { 0.0 };
        let mut detail = format!("{} of {total} cases failed", failed.len());
        if not_run > 0 {
            let _ = write!(detail, " ({not_run} not run after it stopped)");
        }
        let _ =
            write!(detail, "; {} {}", one_line(&calls[first].shown()), outcome.describe(settings.call_limit));
        let mut test = result(name, verdict, score, detail);
        test.smallest_failing_input =
            Some(shrunk(&calls[first], &outcome, failed.len(), total, settings.call_limit));
        if matches!(outcome, Outcome::Wrong { .. } | Outcome::Crashed(_)) {
            to_shrink.push((results.len(), calls[first].clone(), outcome));
        }
        results.push(test);
    }
    if let Some(budget) = settings.shrink
        && !to_shrink.is_empty()
    {
        let found = shrink_all(&to_shrink, functions.len(), budget, run)?;
        for ((index, _, _), (call, outcome, rounds, complete)) in to_shrink.iter().zip(found) {
            if let Some(s) = results[*index].smallest_failing_input.as_mut() {
                let (failed, total) = (s.lines, s.original_lines);
                *s = shrunk(&call, &outcome, failed, total, settings.call_limit);
                s.runs = rounds;
                s.complete = complete;
            }
        }
    }
    let took = began.elapsed().as_secs_f64();
    for r in &mut results {
        if let Some(s) = r.smallest_failing_input.as_mut() {
            s.seconds = took;
        }
    }
    Ok(results)
}

/// Looks for smaller failing calls, one step at a time: each round runs the
/// candidates one step smaller than each function's current call (all
/// functions in one run of the harness) and keeps the smallest that fails
/// the same way. Gives each function's call and outcome, the rounds it took,
/// and whether it ended by itself rather than at the budget.
fn shrink_all<C: Call>(
    start: &[(usize, C, Outcome)],
    functions: usize,
    budget: Budget,
    run: &mut dyn FnMut(&[u8]) -> Option<Ran>,
) -> Result<Vec<(C, Outcome, usize, bool)>, Stop> {
    let began = Instant::now();
    let mut current: Vec<(C, Outcome, usize, bool)> =
        start.iter().map(|(_, c, o)| (c.clone(), o.clone(), 0, false)).collect();
    for round in 1..=budget.runs {
        if began.elapsed() >= budget.time * u32::try_from(start.len()).unwrap_or(u32::MAX) {
            break;
        }
        let mut candidates: Vec<(usize, C)> = Vec::new();
        for (i, (call, _, _, done)) in current.iter().enumerate() {
            if *done {
                continue;
            }
            let size = call.size();
            let mut smaller: Vec<C> = call.smaller().into_iter().filter(|c| c.size() < size).collect();
            smaller.sort_by_key(Call::size);
            candidates.extend(smaller.into_iter().map(|c| (i, c)));
        }
        if candidates.is_empty() {
            // Nothing smaller to try: each is as small as it gets.
            for entry in current.iter_mut().filter(|c| !c.3) {
                entry.3 = true;
            }
            break;
        }
        let refs: Vec<&C> = candidates.iter().map(|(_, c)| c).collect();
        let outcomes = match answer_all(&refs, functions, run, false) {
            Err(Stop::NotLoaded(_)) => break,
            other => other?,
        };
        let mut moved = vec![false; current.len()];
        for ((i, candidate), outcome) in candidates.iter().zip(outcomes) {
            let Some(outcome) = outcome else { continue };
            if !moved[*i] && outcome.same_failure(&current[*i].1) {
                current[*i].0 = candidate.clone();
                current[*i].1 = outcome;
                current[*i].2 = round;
                moved[*i] = true;
            }
        }
        for (entry, moved) in current.iter_mut().zip(moved) {
            if !entry.3 && !moved {
                entry.3 = true;
                entry.2 = round;
            }
        }
        if current.iter().all(|c| c.3) {
            break;
        }
    }
    Ok(current)
}

/// Answers every call, starting the harness again after a call that ran
/// out of time or killed it; the calls of that function left are not run
/// (`None`). With `first`, a first run that answers nothing means the file
/// did not load.
fn answer_all<C: Call>(
    calls: &[&C],
    functions: usize,
    run: &mut dyn FnMut(&[u8]) -> Option<Ran>,
    first: bool,
) -> Result<Vec<Option<Outcome>>, Stop> {
    let mut outcomes: Vec<Option<Outcome>> = vec![None; calls.len()];
    let mut given_up = vec![false; functions];
    let mut todo: Vec<usize> = (0..calls.len()).collect();
    let mut runs = 0;
    while !todo.is_empty() {
        let mut input = Vec::new();
        for &i in &todo {
            let mut request = calls[i].request();
            request.insert("id".to_owned(), Value::from(i));
            // A map of strings and numbers always serializes.
            let _ = serde_json::to_writer(&mut input, &request);
            input.push(b'\n');
        }
        let ran = run(&input).ok_or(Stop::Interrupted)?;
        runs += 1;
        let mut heard = false;
        for line in ran.stdout.split(|&b| b == b'\n') {
            let Ok(Value::Object(answer)) = serde_json::from_slice::<Value>(line) else { continue };
            heard = true;
            if let Some(why) = answer.get("import_failed").and_then(Value::as_str) {
                return Err(Stop::NotLoaded(why.to_owned()));
            }
            let Some(i) = answer.get("id").and_then(Value::as_u64).and_then(|i| usize::try_from(i).ok())
            else {
                continue;
            };
            if i < calls.len() && outcomes[i].is_none() {
                let outcome = calls[i].judge(&answer);
                if outcome == Outcome::TimeLimit {
                    given_up[calls[i].function()] = true;
                }
                outcomes[i] = Some(outcome);
            }
        }
        // Not a word, not even that the file loaded: it did not.
        if first && runs == 1 && !heard {
            let mut why = format!("the harness stopped before answering ({})", ran.ending);
            if !ran.stderr.is_empty() {
                let _ = write!(why, ":\n{}", ran.stderr);
            }
            return Err(Stop::NotLoaded(why));
        }
        let left: Vec<usize> = todo.iter().copied().filter(|&i| outcomes[i].is_none()).collect();
        let Some((&culprit, rest)) = left.split_first() else { break };
        // The first call left unanswered is the one the harness stopped in.
        let given_up_before = given_up[calls[culprit].function()];
        if !given_up_before {
            outcomes[culprit] = Some(if ran.out_of_time {
                Outcome::TimeLimit
            } else {
                Outcome::Crashed(format!("the harness stopped during this call ({})", ran.ending))
            });
        }
        given_up[calls[culprit].function()] = true;
        todo = rest.iter().copied().filter(|&i| !given_up[calls[i].function()]).collect();
    }
    Ok(outcomes)
}

/// A function's result before shrinking.
fn result(name: &str, verdict: Verdict, score: f64, detail: String) -> TestResult {
    TestResult {
        test: name.to_owned(),
        verdict,
        score,
        detail,
        wall: 0.0,
        cpu: 0.0,
        exit_status: None,
        signal: None,
        lines_matched: None,
        first_difference: None,
        expected: String::new(),
        actual: String::new(),
        stderr: String::new(),
        unmatched: Unmatched::default(),
        smallest_failing_input: None,
    }
}

/// A failing call as every report shows it.
fn shrunk<C: Call>(call: &C, outcome: &Outcome, failed: usize, total: usize, limit: Duration) -> Shrunk {
    let (expected, actual) = match outcome {
        Outcome::Wrong { expected, got, .. } => (expected.clone(), got.clone()),
        _ => (String::new(), String::new()),
    };
    let shown = call.shown();
    Shrunk {
        moves: vec![one_line(&shown)],
        input: shown,
        lines: failed,
        original_lines: total,
        found: Found::Call,
        verdict: outcome.verdict(),
        detail: outcome.describe(limit),
        expected,
        actual,
        first_difference: None,
        stderr: String::new(),
        runs: 0,
        seconds: 0.0,
        complete: false,
        unmatched: Unmatched::default(),
    }
}

/// A call shown on one line: its lines joined by a space.
fn one_line(text: &str) -> String {
    text.lines().map(str::trim).collect::<Vec<_>>().join(" ")
}

/// A string as Python or Java writes it in source: double quotes, with
/// escapes for quotes, backslashes and control characters.
#[must_use]
pub fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
