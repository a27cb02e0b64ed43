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
//!
//! The harness's files are never in the submission's tree: the build and the
//! runs start in a directory of the grader's holding the submission's copy
//! as [`SUBMISSION_DIR`] and the harness in [`GRADER_DIR`] beside it, so no
//! name a submission holds can be in the way or stand in for the harness's
//! own. Nothing of the submission's is on the harness's import or class
//! path ahead of what the harness uses: Python runs isolated (`python3 -I`,
//! the student's file loaded by its path), and the Java harness is in a
//! package of its own, compiled alone, and first on the run's class path.

pub mod igameboard;
mod run;
pub mod xtreme;

use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use rayon::prelude::*;
use serde_json::{Map, Value};

use super::shrink::{Budget, Found, Shrunk};
use super::{TestResult, Verdict};
use crate::check::Unmatched;

/// The Python harness (`grade --api xtreme`), written into each run.
pub const PYTHON_HARNESS: &str = include_str!("harness.py");

/// The Java harness (`grade --api igameboard`), compiled beside each
/// submission (on its own: never with the submission's files).
pub const JAVA_HARNESS: &str = include_str!("Harness.java");

/// Where the submission's copy is, in the directory the harness is built
/// and run in: the student's `src/X.java` is `submission/src/X.java` there.
pub const SUBMISSION_DIR: &str = "submission";

/// The grader's own directory beside [`SUBMISSION_DIR`]: the harness's
/// files, and what is built from them. No file of the submission's can be
/// in it, whatever its name: a submission holding `ttt`, `.ttt-harness`
/// or `Harness.class` only has them under `submission/`.
pub const GRADER_DIR: &str = "ttt";

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

    /// What a build-failed test says of a file that did not load, with a
    /// hint where the cause is a known one: `input()` run at import.
    #[must_use]
    pub fn not_loaded(self, why: &str) -> String {
        let mut detail = format!("it does not load: {}", why.lines().next().unwrap_or_default());
        if self == Api::Xtreme && why.starts_with("EOFError") {
            detail.push_str(" (it reads input as it is imported: is its game loop outside `if __name__ == \"__main__\":`?)");
        }
        detail
    }

    /// How the harness is set up for the submission copied at `source`
    /// (which is [`SUBMISSION_DIR`] in the directory the build and the runs
    /// start in): the files it adds, its build and its command.
    ///
    /// # Errors
    /// Why the submission cannot be graded at all (no `asn3.py`; no
    /// `BoardPosition.java`), which is its build failing.
    pub fn harness(self, source: &Path, memory: u64, times: Times) -> Result<Harness, String> {
        match self {
            Api::Xtreme => xtreme::harness(source, times),
            Api::IGameBoard => igameboard::harness(source, memory, times),
        }
    }
}

/// The harness's two clocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Times {
    /// The most one call may take.
    pub call: Duration,
    /// After this long a run starts no more calls (and is started again for
    /// the rest), well before the sandbox's limit would stop it unheard.
    pub budget: Duration,
}

impl Times {
    /// The two as the harness's arguments: milliseconds, at least 1.
    fn args(self) -> String {
        format!("{} {}", self.call.as_millis().max(1), self.budget.as_millis().max(1))
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
    /// The harness's files (path relative to [`GRADER_DIR`], text), put
    /// beside the submission's copy, never in it.
    pub files: Vec<(String, &'static str)>,
    /// The build, run once through `/bin/sh` in the directory holding
    /// [`SUBMISSION_DIR`] and [`GRADER_DIR`], if there is one.
    pub build: Option<String>,
    /// The harness's command line (shell words), run in that directory as
    /// the build left it.
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

/// At most this many bytes of a value are shown.
const SHOWN_VALUE_BYTES: usize = 2000;

/// `text`, cut at 2,000 bytes with a word on how long it was.
#[must_use]
pub fn cut(text: String) -> String {
    match crate::text::said(&text, SHOWN_VALUE_BYTES) {
        std::borrow::Cow::Borrowed(_) => text,
        std::borrow::Cow::Owned(cut) => cut,
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
    let text = |key: &str| answer.get(key).and_then(Value::as_str).map(|t| cut(t.to_owned()));
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

/// Runs the harness once on the calls given (JSON lines) in the sandbox;
/// `None` if the grading was interrupted. Called from several threads.
pub type Runner<'a> = dyn Fn(&[u8]) -> Option<Ran> + Sync + 'a;

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
    /// How many harnesses run at once, each on a share of the functions.
    pub parallel: usize,
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
    run: &Runner<'_>,
) -> Result<Vec<TestResult>, Stop> {
    let began = Instant::now();
    calls.sort_by_key(|c| (c.function(), c.size()));
    let outcomes = answer_shared(&calls, functions.len(), settings.parallel, run)?;
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
            if not_run == 0 {
                results.push(result(name, Verdict::Pass, 1.0, format!("passed all {total} cases")));
            } else {
                // Only a harness the sandbox kept stopping leaves calls unrun
                // with none failed (its watchdog was killed, say).
                #[allow(clippy::cast_precision_loss, reason = "case counts are small")]
                let score = if settings.partial { passed as f64 / total as f64 } else { 0.0 };
                let detail = format!(
                    "{not_run} of {total} cases not run: the harness was stopped at its time limit again and again"
                );
                results.push(result(name, Verdict::Crashed, score, detail));
            }
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
    run: &Runner<'_>,
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
        let outcomes = match answer_all(&refs, functions, run) {
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

/// Answers every call with `parallel` harnesses at once, each given the
/// calls of every `parallel`-th function, once a first run with no calls has
/// shown that the file loads.
fn answer_shared<C: Call>(
    calls: &[C],
    functions: usize,
    parallel: usize,
    run: &Runner<'_>,
) -> Result<Vec<Option<Outcome>>, Stop> {
    loads(run)?;
    let parallel = parallel.clamp(1, functions.max(1));
    let shares: Vec<Vec<usize>> = (0..parallel)
        .map(|k| (0..calls.len()).filter(|&i| calls[i].function() % parallel == k).collect())
        .collect();
    let answered: Vec<Result<Vec<Option<Outcome>>, Stop>> = shares
        .par_iter()
        .map(|share| {
            let refs: Vec<&C> = share.iter().map(|&i| &calls[i]).collect();
            answer_all(&refs, functions, run)
        })
        .collect();
    let mut outcomes = vec![None; calls.len()];
    for (share, answered) in shares.iter().zip(answered) {
        for (&i, outcome) in share.iter().zip(answered?) {
            outcomes[i] = outcome;
        }
    }
    Ok(outcomes)
}

/// Whether the harness starts and the student's file loads: a run with no
/// calls must say `loaded`.
fn loads(run: &Runner<'_>) -> Result<(), Stop> {
    let ran = run(b"").ok_or(Stop::Interrupted)?;
    for line in ran.stdout.split(|&b| b == b'\n') {
        let Ok(Value::Object(answer)) = serde_json::from_slice::<Value>(line) else { continue };
        if let Some(why) = answer.get("import_failed").and_then(Value::as_str) {
            return Err(Stop::NotLoaded(why.to_owned()));
        }
        if answer.contains_key("loaded") {
            return Ok(());
        }
    }
    let mut why = format!("the harness stopped before it had loaded the file ({})", ran.ending);
    if !ran.stderr.is_empty() {
        let _ = write!(why, ":\n{}", ran.stderr);
    }
    Err(Stop::NotLoaded(why))
}

/// What one run of the harness said.
struct Heard {
    /// How each call answered went.
    answers: Vec<(usize, Outcome)>,
    /// It stopped at its budget, not in a call.
    paused: bool,
}

/// Reads a run's answers to `calls`; a call answered twice (not counting a
/// timeout the watchdog wrote as the call returned) was tampered with.
fn hear<C: Call>(ran: &Ran, calls: &[&C]) -> Result<Heard, Stop> {
    let mut heard = Heard { answers: Vec::new(), paused: false };
    let mut seen: Vec<Option<usize>> = vec![None; calls.len()];
    for line in ran.stdout.split(|&b| b == b'\n') {
        let Ok(Value::Object(answer)) = serde_json::from_slice::<Value>(line) else { continue };
        if let Some(why) = answer.get("import_failed").and_then(Value::as_str) {
            return Err(Stop::NotLoaded(why.to_owned()));
        }
        if answer.contains_key("paused") {
            heard.paused = true;
            continue;
        }
        let Some(i) = answer.get("id").and_then(Value::as_u64).and_then(|i| usize::try_from(i).ok()) else {
            continue;
        };
        if i >= calls.len() {
            continue;
        }
        let outcome = calls[i].judge(&answer);
        match seen[i] {
            None => {
                seen[i] = Some(heard.answers.len());
                heard.answers.push((i, outcome));
            }
            Some(_) if outcome == Outcome::TimeLimit => {}
            Some(at) => {
                heard.answers[at].1 = Outcome::Crashed(
                    "it was answered twice: the harness's answers were tampered with".to_owned(),
                );
            }
        }
    }
    Ok(heard)
}

/// Answers every call, starting the harness again after a call that ran
/// out of time (twice: the second time alone) or killed it (the calls of
/// that function left are then not run: `None`), and after a run that used
/// its budget.
///
/// A run the sandbox stopped at its own limit says nothing (its output is
/// lost), so the first call it was given is then run alone to see whether it
/// is the one that stalls. At most twice as many runs as functions, and ten
/// more, and three the sandbox stopped, are made: past that the calls left
/// are not run.
fn answer_all<C: Call>(
    calls: &[&C],
    functions: usize,
    run: &Runner<'_>,
) -> Result<Vec<Option<Outcome>>, Stop> {
    let mut outcomes: Vec<Option<Outcome>> = vec![None; calls.len()];
    let mut given_up = vec![false; functions];
    let mut todo: Vec<usize> = (0..calls.len()).collect();
    let mut alone = false;
    let mut stopped = 0;
    let mut tried_again: Vec<usize> = Vec::new();
    for _ in 0..2 * functions + 10 {
        // A harness the sandbox keeps stopping (its watchdog killed?) is not
        // given more.
        if todo.is_empty() || stopped >= 3 {
            break;
        }
        let sent: &[usize] = if alone { &todo[..1] } else { &todo };
        let mut input = Vec::new();
        for &i in sent {
            let mut request = calls[i].request();
            request.insert("id".to_owned(), Value::from(i));
            // A map of strings and numbers always serializes.
            let _ = serde_json::to_writer(&mut input, &request);
            input.push(b'\n');
        }
        let ran = run(&input).ok_or(Stop::Interrupted)?;
        let heard = hear(&ran, calls)?;
        stopped += usize::from(ran.out_of_time);
        let mut again = None;
        for (i, outcome) in heard.answers {
            if outcome == Outcome::TimeLimit {
                // A call out of time once is tried again alone, in a fresh
                // harness: a loaded machine is no student's fault.
                if !tried_again.contains(&i) {
                    again = Some(i);
                    continue;
                }
                given_up[calls[i].function()] = true;
            }
            outcomes[i] = Some(outcome);
        }
        let left: Vec<usize> = sent.iter().copied().filter(|&i| outcomes[i].is_none()).collect();
        let was_alone = alone;
        alone = false;
        if let Some(i) = again {
            tried_again.push(i);
            todo.retain(|&j| j != i && outcomes[j].is_none() && !given_up[calls[j].function()]);
            todo.insert(0, i);
            alone = true;
            continue;
        }
        if let Some(&culprit) = left.first()
            && !heard.paused
        {
            if ran.out_of_time && !was_alone && sent.len() > 1 {
                // Which call stalled is not known: the first one, alone.
                alone = true;
            } else {
                // The first call left unanswered is the one the harness stopped in.
                if !given_up[calls[culprit].function()] {
                    outcomes[culprit] = Some(if ran.out_of_time {
                        Outcome::TimeLimit
                    } else {
                        Outcome::Crashed(format!("the harness stopped during this call ({})", ran.ending))
                    });
                }
                given_up[calls[culprit].function()] = true;
            }
        }
        todo.retain(|&i| outcomes[i].is_none() && !given_up[calls[i].function()]);
    }
    Ok(outcomes)
}

/// A function's result before shrinking.
fn result(name: &str, verdict: Verdict, score: f64, detail: String) -> TestResult {
    TestResult { score, ..TestResult::not_run(name, verdict, detail) }
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

/// A string as Python or Java writes it in source: JSON's string syntax is
/// theirs too (double quotes; `\"`, `\\`, `\n`, `\t`, `\u00XX`).
#[must_use]
pub fn quoted(text: &str) -> String {
    Value::from(text).to_string()
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use serde_json::json;

    use super::*;

    /// A call whose right answer is its own number.
    #[derive(Clone, Debug, PartialEq, Eq)]
    struct Echo {
        function: usize,
        n: u64,
    }

    impl Call for Echo {
        fn function(&self) -> usize {
            self.function
        }
        fn request(&self) -> Map<String, Value> {
            serde_json::from_value(json!({ "n": self.n })).unwrap()
        }
        fn shown(&self) -> String {
            format!("echo({})", self.n)
        }
        fn size(&self) -> (u64, u64, u64) {
            (self.n, 0, 0)
        }
        fn judge(&self, answer: &Map<String, Value>) -> Outcome {
            if let Some(outcome) = common(answer) {
                return outcome;
            }
            if answer["ok"] == json!(self.n) {
                Outcome::Pass
            } else {
                Outcome::Wrong { expected: self.n.to_string(), got: answer["ok"].to_string(), why: None }
            }
        }
        fn smaller(&self) -> Vec<Echo> {
            (self.n > 1).then(|| Echo { n: self.n - 1, ..self.clone() }).into_iter().collect()
        }
    }

    /// A harness as a function of each call's `n`: what it writes for it,
    /// or `None` to stop the run there (as the sandbox's limit does).
    fn harness<'a>(
        runs: &'a Mutex<usize>,
        answer: impl Fn(u64, usize) -> Option<Vec<Value>> + Sync + 'a,
    ) -> impl Fn(&[u8]) -> Option<Ran> + Sync + 'a {
        move |input: &[u8]| {
            let run = {
                let mut runs = runs.lock().unwrap();
                *runs += 1;
                *runs
            };
            let mut stdout = b"{\"loaded\": true}\n".to_vec();
            for line in input.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
                let call: Value = serde_json::from_slice(line).unwrap();
                let (id, n) = (call["id"].clone(), call["n"].as_u64().unwrap());
                let Some(lines) = answer(n, run) else {
                    return Some(Ran { out_of_time: true, ending: "stopped".to_owned(), ..Ran::default() });
                };
                for mut line in lines {
                    if line.get("paused").is_some() {
                        stdout.extend(b"{\"paused\": true}\n");
                        return Some(Ran {
                            stdout,
                            ending: "exited with status 0".to_owned(),
                            ..Ran::default()
                        });
                    }
                    line["id"] = id.clone();
                    stdout.extend(serde_json::to_vec(&line).unwrap());
                    stdout.push(b'\n');
                }
            }
            Some(Ran { stdout, ending: "exited with status 0".to_owned(), ..Ran::default() })
        }
    }

    fn calls(functions: usize, per: u64) -> Vec<Echo> {
        (0..functions).flat_map(|function| (1..=per).map(move |n| Echo { function, n })).collect()
    }

    fn settings() -> Settings {
        Settings {
            call_limit: Duration::from_secs(1),
            partial: true,
            shrink: Some(Budget::DEFAULT),
            parallel: 2,
        }
    }

    fn names(n: usize) -> Vec<String> {
        (0..n).map(|f| format!("f{f}")).collect()
    }

    #[test]
    fn a_harness_that_answers_everything_right_passes_everything() {
        let runs = Mutex::new(0);
        let run = harness(&runs, |n, _| Some(vec![json!({ "ok": n })]));
        let results = grade(&names(3), calls(3, 10), &settings(), &run).unwrap();
        assert!(
            results.iter().all(|r| r.verdict == Verdict::Pass && (r.score - 1.0).abs() < 1e-9),
            "{results:?}"
        );
        // The load check, then one harness per share.
        assert_eq!(*runs.lock().unwrap(), 3);
    }

    #[test]
    fn a_call_that_stalls_a_run_is_found_alone_and_only_its_function_fails() {
        let runs = Mutex::new(0);
        // Call 0 (function 0's first) never returns (nor does its watchdog speak);
        // nothing is heard from a run it stalls.
        let run = harness(&runs, |n, _| (n != 0).then(|| vec![json!({ "ok": n })]));
        let mut all = calls(2, 4);
        all[0].n = 0;
        let results = grade(&names(2), all, &Settings { parallel: 1, ..settings() }, &run).unwrap();
        assert_eq!(results[0].verdict, Verdict::TimeLimit, "{results:?}");
        assert!(
            results[0].detail.starts_with("1 of 4 cases failed (3 not run after it stopped)"),
            "{}",
            results[0].detail
        );
        assert_eq!(results[1].verdict, Verdict::Pass, "{results:?}");
    }

    #[test]
    fn a_harness_the_sandbox_keeps_stopping_is_given_up_and_says_so() {
        let runs = Mutex::new(0);
        // Call 4 stalls every run it is in, and nothing is heard from one.
        let run = harness(&runs, |n, _| (n != 4).then(|| vec![json!({ "ok": n })]));
        let results = grade(&names(1), calls(1, 6), &settings(), &run).unwrap();
        assert_eq!(results[0].verdict, Verdict::Crashed, "{results:?}");
        assert!(
            results[0].detail.contains("cases not run: the harness was stopped"),
            "{}",
            results[0].detail
        );
        // The load check, then three stopped runs and the calls tried alone between them.
        assert!(*runs.lock().unwrap() <= 7, "{} runs", runs.lock().unwrap());
    }

    #[test]
    fn a_call_answered_twice_was_tampered_with() {
        let runs = Mutex::new(0);
        let run = harness(&runs, |n, _| {
            Some(if n == 2 { vec![json!({ "ok": 2 }), json!({ "ok": 0 })] } else { vec![json!({ "ok": n })] })
        });
        let results = grade(&names(1), calls(1, 3), &settings(), &run).unwrap();
        assert_eq!(results[0].verdict, Verdict::Crashed);
        assert!(results[0].detail.contains("tampered with"), "{}", results[0].detail);
    }

    #[test]
    fn a_paused_run_goes_on_and_a_timeout_is_confirmed_before_it_counts() {
        let runs = Mutex::new(0);
        // Every third call meets the budget and its run stops; call 4 runs
        // out of time in the first run that reaches it only (a loaded machine).
        let run = {
            let count = Mutex::new(0);
            harness(&runs, move |n, run| {
                let mut count = count.lock().unwrap();
                *count += 1;
                if *count % 3 == 0 {
                    return Some(vec![json!({ "paused": true })]);
                }
                Some(vec![if n == 4 && run <= 3 { json!({ "timeout": true }) } else { json!({ "ok": n }) }])
            })
        };
        let settings = Settings { parallel: 1, ..settings() };
        let results = grade(&names(1), calls(1, 8), &settings, &run).unwrap();
        assert_eq!(results[0].verdict, Verdict::Pass, "{results:?}");
    }

    #[test]
    fn a_file_that_does_not_load_fails_every_function_to_build() {
        let run = |_: &[u8]| {
            Some(Ran { stdout: b"{\"import_failed\": \"SyntaxError: x\"}\n".to_vec(), ..Ran::default() })
        };
        assert_eq!(
            grade(&names(2), calls(2, 2), &settings(), &run).unwrap_err(),
            Stop::NotLoaded("SyntaxError: x".to_owned())
        );
        let silent = |_: &[u8]| Some(Ran { ending: "killed by SIGKILL".to_owned(), ..Ran::default() });
        let Err(Stop::NotLoaded(why)) = grade(&names(2), calls(2, 2), &settings(), &silent) else { panic!() };
        assert!(why.contains("before it had loaded the file (killed by SIGKILL)"), "{why}");
    }

    #[test]
    fn a_wrong_function_is_shown_its_smallest_failing_call() {
        let runs = Mutex::new(0);
        // Wrong from 5 up: the search walks down from the smallest generated failure.
        let run = harness(&runs, |n, _| Some(vec![json!({ "ok": if n >= 5 { 0 } else { n } })]));
        let many: Vec<Echo> = [9, 12, 30].iter().map(|&n| Echo { function: 0, n }).collect();
        let results = grade(&names(1), many, &settings(), &run).unwrap();
        let s = results[0].smallest_failing_input.as_ref().unwrap();
        assert_eq!((s.input.as_str(), s.complete), ("echo(5)", true));
        assert!(results[0].score.abs() < 1e-9);
    }
}
