//! One test in the sandbox: the job that runs it in a fresh copy of the
//! build, the sandbox's failures mapped to verdicts, a `time-limit`
//! confirmed by a second run, and a failing test shrunk.

use std::path::Path;
use std::time::{Duration, Instant};

use super::grader::Grader;
use super::plan::{Io, Program};
use super::result::{Stopped, TestResult, Verdict};
use super::suite::Test;
use super::verdict::judge;
use crate::play::chance;
use crate::sandbox::{Collect, Job, SandboxError};

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
    /// [`chance::GAMES`] times in all (`first` the first): any game that
    /// breaks a rule fails it, and so do choices the rules leave to chance
    /// that are plainly not a fair draw ([`chance::judge`]).
    fn by_chance(&self, target: Target<'_>, test: &Test, first: TestResult) -> Result<TestResult, Stopped> {
        let mut games = vec![first.choices.clone()];
        for game in 2..=chance::GAMES {
            let mut result = self.run_test(target, test, None)?;
            if result.verdict != Verdict::Pass {
                result.detail = format!("game {game} of {}: {}", chance::GAMES, result.detail);
                return Ok(result);
            }
            games.push(result.choices);
        }
        let mut result = first;
        match chance::judge(&games) {
            Some(why) => {
                result.verdict = Verdict::Wrong;
                result.score = 0.0;
                result.detail = why;
            }
            None => result.detail = format!("{} (in each of {} games)", result.detail, chance::GAMES),
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
