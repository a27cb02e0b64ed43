//! A smaller failing call looked for: each function's first failing call
//! made one step smaller at a time (a mark fewer, a row or column fewer),
//! as long as the smaller one fails the same way.

use std::time::Instant;

use super::answer::{Runner, Stop, answer_all};
use super::{Call, Outcome};
use crate::grade::shrink::Budget;

/// Looks for smaller failing calls, one step at a time: each round runs the
/// candidates one step smaller than each function's current call (all
/// functions in one run of the harness) and keeps the smallest that fails
/// the same way. Gives each function's call and outcome, the rounds it took,
/// and whether it ended by itself rather than at the budget.
pub(super) fn shrink_all<C: Call>(
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
