//! The calls answered and judged: every function's cases sent to the
//! harness (several harnesses at once, each on a share of the functions),
//! its answers heard, a harness that stops started again on the calls left,
//! and each function's result with its smallest failing call.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::answer::{Runner, Stop, answer_all, loads};
use super::shrink::shrink_all;
use super::{Call, Outcome};
use crate::check::Unmatched;
use crate::grade::result::{Evidence, Smallest};
use crate::grade::shrink::Budget;
use crate::grade::{TestResult, Verdict};

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
            Some(smallest(&calls[first], &outcome, failed.len(), total, settings.call_limit));
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
            if let Some(s) = results[*index].smallest_failing_input.as_mut()
                && let Evidence::Call { failed, tried } = s.evidence
            {
                *s = smallest(&call, &outcome, failed, tried, settings.call_limit);
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

/// A function's result before shrinking.
fn result(name: &str, verdict: Verdict, score: f64, detail: String) -> TestResult {
    TestResult { score, ..TestResult::not_run(name, verdict, detail) }
}

/// A failing call as every report shows it, `failed` of the `tried` cases
/// of its function having failed.
fn smallest<C: Call>(call: &C, outcome: &Outcome, failed: usize, tried: usize, limit: Duration) -> Smallest {
    let (expected, actual) = match outcome {
        Outcome::Wrong { expected, got, .. } => (expected.clone(), got.clone()),
        _ => (String::new(), String::new()),
    };
    Smallest {
        input: call.shown(),
        evidence: Evidence::Call { failed, tried },
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

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use serde_json::{Map, json};

    use super::super::common;
    use super::*;
    use crate::grade::calls::Ran;
    use serde_json::Value;

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
