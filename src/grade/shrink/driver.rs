//! Shrinking a failing test with the program itself as the oracle: each
//! candidate the search ([`super::search`]) proposes is answered as the
//! tests are and run, and the smallest that still fails the same way is
//! confirmed by one more run.

use std::time::{Duration, Instant};

use super::super::io::Io;
use super::super::plan::Program;
use super::super::result::{Evidence, Smallest};
use super::super::result::{Stopped, TestResult};
use super::super::suite::{self, Test};
use super::super::verdict::shown;
use super::Budget;

/// Runs a test (or a candidate, as a test) of the program being shrunk,
/// stopped at the wall time given if that is sooner than the limit.
pub type RunTest<'a> = dyn Fn(&Test, Option<Duration>) -> Result<TestResult, Stopped> + 'a;

/// The smallest input found on which the program fails as it failed
/// `test` (`failed`, a run that took `took`), within `budget`: see
/// [`shrink`]. Each candidate's expected answer is made as the tests'
/// are; one the referee (or the console) rejects is no candidate. The
/// result is run once more and kept only if it fails the same way again,
/// so a flaky program is never shown an input it passed. `None` if
/// nothing smaller fails.
pub(in crate::grade) fn shrink(
    program: &Program,
    run_test: &RunTest<'_>,
    test: &Test,
    failed: &TestResult,
    took: Duration,
    budget: Budget,
) -> Result<Option<Smallest>, Stopped> {
    let Program { io, layout, .. } = program;
    let began = Instant::now();
    let (pieces, unit) = match io {
        Io::Files { .. } | Io::Stdout | Io::Args => (super::Pieces::move_file(&test.input), "move lines"),
        Io::Console { .. } => (super::Pieces::script(&test.input), "lines"),
    };
    if pieces.is_empty() {
        return Ok(None);
    }
    // Each run is expected to take about as long as the test's, and one
    // such run is kept back for the confirmation.
    let took = took.max(Duration::from_millis(10));
    let mut runs = 0;
    let mut interrupted = false;
    let (mut violations, finished) =
        suite::answer(io, layout, &test.input).map_or((0, false), |a| (a.violations, a.finished));
    let console = matches!(io, Io::Console { .. });
    let mut oracle = |input: &[u8], change: super::Change| {
        // Time runs out for candidates the referee rejects too (pairs of
        // lines in a long file are many).
        let left = budget.time.saturating_sub(began.elapsed() + took);
        if runs + 1 >= budget.runs || left < took {
            return super::Tried::Stop;
        }
        let Ok(answer) = suite::answer(io, layout, input) else { return super::Tried::Not };
        // A game that ended still ends: cut short, it would fail for
        // another reason (few programs handle moves running out, which
        // assignments often promise never happens); and a smaller square
        // breaks no more rules than the one it replaces.
        // (A console's game is judged as far as its script goes, so a
        // script cut short is a fair candidate.)
        if (finished && !answer.finished && !console)
            || (change == super::Change::Simplification && answer.violations > violations)
        {
            return super::Tried::Not;
        }
        runs += 1;
        let candidate = Test {
            name: test.name.clone(),
            input: input.to_vec(),
            expected: answer.text,
            complete: answer.finished,
        };
        match run_test(&candidate, Some(left)) {
            Ok(result) if failed.same_failure(&result) => {
                violations = answer.violations;
                super::Tried::Fails
            }
            Ok(_) => super::Tried::Not,
            Err(Stopped) => {
                interrupted = true;
                super::Tried::Stop
            }
        }
    };
    // A console's first departure decides: its script is cut only at
    // its end, to the game up to where it goes wrong.
    let (units, complete) = if console {
        super::shortest_prefix(&pieces, &mut oracle)
    } else {
        super::search(&pieces, &mut oracle)
    };
    if interrupted {
        return Err(Stopped);
    }
    let input = pieces.join(&units);
    if input == test.input {
        return Ok(None);
    }
    let Ok(answer) = suite::answer(io, layout, &input) else { return Ok(None) };
    let smallest = Test { name: test.name.clone(), input, expected: answer.text, complete: answer.finished };
    runs += 1;
    let confirmed = run_test(&smallest, None)?;
    if !failed.same_failure(&confirmed) {
        return Ok(None);
    }
    Ok(Some(Smallest {
        input: shown(&smallest.input),
        evidence: Evidence::Transcript {
            lines: units.len(),
            original_lines: pieces.len(),
            unit: unit.into(),
            moves: units
                .iter()
                .map(|u| String::from_utf8_lossy(u).trim_end_matches(['\r', '\n']).to_owned())
                .collect(),
        },
        verdict: confirmed.verdict,
        detail: confirmed.detail,
        expected: confirmed.expected,
        actual: confirmed.actual,
        first_difference: confirmed.first_difference,
        stderr: confirmed.stderr,
        runs,
        seconds: began.elapsed().as_secs_f64(),
        complete,
        unmatched: confirmed.unmatched,
    }))
}
