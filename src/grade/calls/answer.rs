//! The calls put to the harness and its answers heard: a run of the
//! harness ([`Runner`], [`Ran`]), the calls answered however often it has
//! to be started again ([`answer_all`]), and why no calls could be
//! answered ([`Stop`]). Below both the judge and the shrinker, which put
//! calls alike.

use std::fmt::Write as _;

use serde_json::Value;

use super::{Call, Outcome};

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

/// Whether the harness starts and the student's file loads: a run with no
/// calls must say `loaded`.
pub(super) fn loads(run: &Runner<'_>) -> Result<(), Stop> {
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
pub(super) fn answer_all<C: Call>(
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
