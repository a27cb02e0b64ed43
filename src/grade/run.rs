//! One test in the sandbox: the job that runs it in a fresh copy of the
//! build, the sandbox's failures mapped to verdicts, a `time-limit`
//! confirmed by a second run, and a failing test shrunk.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use super::grader::Grader;
use super::plan::{Io, Program};
use super::result::{Stopped, TestResult, Verdict};
use super::suite::Test;
use super::verdict::judge;
use crate::sandbox::{Collect, Job, SandboxError};

/// How many times a console test whose game leaves a computer move to
/// chance is played: enough that a program breaking a rule in one game in
/// ten is caught with 99% confidence (0.9^44 < 0.01).
pub const CHANCE_GAMES: usize = 44;

/// A choice left to chance that was the same in this many games that
/// reached it fails the program. A fair choice among two or more squares
/// stays the same that long once in 2^19 (about half a million), so a
/// correct program passes run after run; the first choice a test's game
/// leaves to chance is reached in every one of its [`CHANCE_GAMES`] games.
pub const NEVER_VARIED: usize = 20;

/// What one submission's tests run: its program, built.
#[derive(Clone, Copy, Debug)]
pub(in crate::grade) struct Target<'a> {
    /// The tests and how the program reads and writes.
    pub program: &'a Program,
    /// The build (or the copy, with no build): each run starts as it.
    pub start: &'a Path,
    /// The run command.
    pub run: &'a str,
}

impl Grader {
    /// Runs `test`, and shrinks it if it failed in a way that can be (and
    /// the plan says to).
    pub(in crate::grade) fn grade_test(
        &self,
        target: Target<'_>,
        test: &Test,
    ) -> Result<TestResult, Stopped> {
        let began = Instant::now();
        let mut result = self.run_test(target, test, None)?;
        if result.verdict == Verdict::Pass && !result.choices.is_empty() {
            result = self.by_chance(target, test, result)?;
        }
        if let Some(budget) = self.plan.shrink
            && result.shrinkable()
        {
            let took = began.elapsed();
            result.smallest_failing_input = self.shrink(target, test, &result, took, budget)?;
        }
        Ok(result)
    }

    /// A console test whose game left a computer move to chance, played
    /// [`CHANCE_GAMES`] times in all (`first` the first): any game that
    /// breaks a rule fails it, and so does a choice the rules leave to
    /// chance that never varied in the [`NEVER_VARIED`] or more games that
    /// reached it.
    fn by_chance(&self, target: Target<'_>, test: &Test, first: TestResult) -> Result<TestResult, Stopped> {
        let mut seen: BTreeMap<(String, &'static str, Vec<u64>), Vec<u64>> = BTreeMap::new();
        let mut record = |result: &TestResult| {
            for choice in &result.choices {
                seen.entry((choice.position.clone(), choice.what, choice.among.clone()))
                    .or_default()
                    .push(choice.square);
            }
        };
        record(&first);
        for game in 2..=CHANCE_GAMES {
            let mut result = self.run_test(target, test, None)?;
            if result.verdict != Verdict::Pass {
                result.detail = format!("game {game} of {CHANCE_GAMES}: {}", result.detail);
                return Ok(result);
            }
            record(&result);
        }
        let mut result = first;
        let never_varied = seen
            .iter()
            .find(|(_, squares)| squares.len() >= NEVER_VARIED && squares.iter().all(|s| *s == squares[0]));
        match never_varied {
            Some(((_, what, among), squares)) => {
                let among: Vec<String> = among.iter().map(u64::to_string).collect();
                result.verdict = Verdict::Wrong;
                result.score = 0.0;
                result.detail = format!(
                    "the {what} was {} in all {} games that reached that position; the rules leave it to chance among {}",
                    squares[0],
                    squares.len(),
                    among.join(", ")
                );
            }
            None => result.detail = format!("{} (in each of {CHANCE_GAMES} games)", result.detail),
        }
        Ok(result)
    }

    /// The job that runs `input` in a fresh run directory that starts as
    /// the build.
    pub(in crate::grade) fn job(&self, target: Target<'_>, input: &[u8]) -> Job {
        let io = &target.program.io;
        // The test is in the run directory under the input name in every mode
        // but a console's; `{moves}` and `{out}` in the command are its name and
        // the answer's (the run directory is the program's working directory).
        let (name, output) = io.names();
        let run = target
            .run
            .replace("{moves}", &shell_words::quote(name))
            .replace("{out}", &shell_words::quote(output));
        let argv = shell_words::split(&run).unwrap_or_default();
        let (files, stdin, collect) = match io {
            Io::Files { .. } | Io::Args => {
                (vec![(name.to_owned(), input.to_vec())], None, Collect::File(output.to_owned()))
            }
            // The move file is also the program's standard input.
            Io::Stdout => (vec![(name.to_owned(), input.to_vec())], Some(input.to_vec()), Collect::Nothing),
            // A console's script is only its standard input.
            Io::Console { .. } => (Vec::new(), Some(input.to_vec()), Collect::Nothing),
        };
        Job {
            argv,
            start: Some(target.start.to_path_buf()),
            files,
            stdin,
            collect,
            limits: self.plan.limits,
            env: Vec::new(),
        }
    }

    /// Runs one test (or a shrunk input, as a test) in a fresh run
    /// directory that starts as the build, stopped at `wall` if that is
    /// sooner than the limit.
    pub(in crate::grade) fn run_test(
        &self,
        target: Target<'_>,
        test: &Test,
        wall: Option<Duration>,
    ) -> Result<TestResult, Stopped> {
        let mut job = self.job(target, &test.input);
        if let Some(wall) = wall {
            job.limits.wall = job.limits.wall.min(wall);
        }
        let result = self.judge_run(target, test, &job)?;
        if result.verdict != Verdict::TimeLimit || wall.is_some() {
            return Ok(result);
        }
        // Out of time: the machine may have been busy. The test runs once
        // more, by itself in a fresh run, and that run decides. Other runs go
        // on meanwhile (holding them back would let one endless loop slow
        // the whole class); each run's fair share of the CPU comes from its
        // cgroup. A shrink's candidates, cut short on purpose, are not run
        // again.
        let mut confirmed = self.judge_run(target, test, &job)?;
        if confirmed.verdict == Verdict::TimeLimit {
            confirmed.detail.push_str(" (twice: it was run again to confirm)");
        }
        Ok(confirmed)
    }

    /// Runs `job` for `test` and judges it.
    pub(in crate::grade) fn judge_run(
        &self,
        target: Target<'_>,
        test: &Test,
        job: &Job,
    ) -> Result<TestResult, Stopped> {
        Ok(match self.sandbox.run(job) {
            Ok(run) => judge(test, &run, &target.program.io, &self.plan),
            Err(SandboxError::Interrupted) => return Err(Stopped),
            // The sandbox failing is not the program's doing, but it stops
            // only this test, never the grading.
            Err(e) => TestResult::not_run(
                &test.name,
                Verdict::Crashed,
                format!("the sandbox could not run it: {e}"),
            ),
        })
    }
}
