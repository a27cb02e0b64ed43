//! Whole programs on their tests (the stage of [`Mode::Program`]): the
//! build's warnings first (with `--warnings`), then each test a run in the
//! sandbox — the job that runs it in a fresh copy of the build, the
//! sandbox's failures mapped to verdicts, a `time-limit` confirmed by a
//! second run, a game left to chance played again, a failing test shrunk.
//!
//! [`Mode::Program`]: super::Mode::Program

use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::io::Io;
use super::plan::Program;
use super::result::{Stopped, SubmissionResult, TestResult, Verdict};
use super::shrink::driver::shrink;
use super::stage::Stage;
use super::suite::Test;
use super::verdict::{judge, warnings_test};
use crate::play::chance;
use crate::sandbox::{Collect, Job, Limits, SandboxError};
use crate::workshop::Built;
use crate::workshop::silencers::Silencer;

/// Grades the program `stage` holds on every test of `program`, side by
/// side; with [`Program::warnings`], the build's warnings are the first
/// test.
///
/// # Errors
/// [`Stopped`]: the grading was stopped; no more tests are handed out.
pub(super) fn grade(stage: &Stage<'_>, program: &Program) -> Result<SubmissionResult, Stopped> {
    let warnings = program
        .warnings
        .then(|| warnings_test(stage.built.build_log.as_deref(), &Silencer::said(&stage.built.silencers)));
    if let Some(test) = &warnings {
        (stage.tell)(test);
    }
    // Collecting into a Result stops handing out tests once the grading
    // was stopped.
    let tests: Vec<TestResult> = program
        .tests
        .par_iter()
        .map(|test| {
            let result = Tests { stage, program }.grade_test(test);
            if let Ok(test) = &result {
                (stage.tell)(test);
            }
            result
        })
        .collect::<Result<_, Stopped>>()?;
    Ok(stage.graded(warnings.into_iter().chain(tests).collect()))
}

/// One submission's program on `program`'s tests.
#[derive(Clone, Copy)]
struct Tests<'a> {
    stage: &'a Stage<'a>,
    program: &'a Program,
}

impl Tests<'_> {
    /// Runs `test`, and shrinks it if it failed in a way that can be (and
    /// the plan says to).
    fn grade_test(&self, test: &Test) -> Result<TestResult, Stopped> {
        let began = Instant::now();
        let mut result = self.run_test(test, None)?;
        if result.verdict == Verdict::Pass && !result.choices.is_empty() {
            result = self.by_chance(test, result)?;
        }
        if let Some(budget) = self.stage.plan.shrink
            && result.shrinkable()
        {
            let took = began.elapsed();
            let run = |candidate: &Test, wall| self.run_test(candidate, wall);
            result.smallest_failing_input = shrink(self.program, &run, test, &result, took, budget)?;
        }
        Ok(result)
    }

    /// A console test whose game left a computer move to chance, played
    /// [`chance::GAMES`] times in all (`first` the first): any game that
    /// breaks a rule fails it, and so do choices the rules leave to chance
    /// that are plainly not a fair draw ([`chance::judge`]).
    fn by_chance(&self, test: &Test, first: TestResult) -> Result<TestResult, Stopped> {
        let mut games = vec![first.choices.clone()];
        for game in 2..=chance::GAMES {
            let mut result = self.run_test(test, None)?;
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

    /// Runs one test (or a shrunk input, as a test) in a fresh run
    /// directory that starts as the build, stopped at `wall` if that is
    /// sooner than the limit.
    fn run_test(&self, test: &Test, wall: Option<Duration>) -> Result<TestResult, Stopped> {
        let mut job = job(self.stage.built, &self.program.io, self.stage.plan.limits, &test.input);
        if let Some(wall) = wall {
            job.limits.wall = job.limits.wall.min(wall);
        }
        let result = self.judge_run(test, &job)?;
        if result.verdict != Verdict::TimeLimit || wall.is_some() {
            return Ok(result);
        }
        // Out of time: the machine may have been busy. The test runs once
        // more, by itself in a fresh run, and that run decides. Other runs go
        // on meanwhile (holding them back would let one endless loop slow
        // the whole class); each run's fair share of the CPU comes from its
        // cgroup. A shrink's candidates, cut short on purpose, are not run
        // again.
        let mut confirmed = self.judge_run(test, &job)?;
        if confirmed.verdict == Verdict::TimeLimit {
            confirmed.detail.push_str(" (twice: it was run again to confirm)");
        }
        Ok(confirmed)
    }

    /// Runs `job` for `test` and judges it.
    fn judge_run(&self, test: &Test, job: &Job) -> Result<TestResult, Stopped> {
        Ok(match self.stage.sandbox.run(job) {
            Ok(run) => judge(test, &run, &self.program.io, self.stage.plan),
            Err(SandboxError::Interrupted) => return Err(Stopped),
            // Fail closed: a run that would have had less protection than
            // the grading promised was not made, and its test is no pass.
            Err(e @ SandboxError::Unprotected { .. }) => {
                TestResult::not_run(&test.name, Verdict::Error, format!("the grader could not judge it: {e}"))
            }
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

/// The job that runs `input` with `built`, read and written as `io` says,
/// within `limits`, in a fresh run directory that starts as the build.
fn job(built: &Built, io: &Io, limits: Limits, input: &[u8]) -> Job {
    // The test is in the run directory under the input name in every mode
    // but a console's; `{moves}` and `{out}` in the command's words are its
    // name and the answer's (the run directory is the program's working
    // directory).
    let (name, output) = io.names();
    let argv = built.argv.iter().map(|word| word.replace("{moves}", name).replace("{out}", output)).collect();
    let (files, stdin, collect) = match io {
        Io::Files { .. } | Io::Args => {
            (vec![(name.to_owned(), input.to_vec())], None, Collect::File(output.to_owned()))
        }
        // The move file is also the program's standard input.
        Io::Stdout => (vec![(name.to_owned(), input.to_vec())], Some(input.to_vec()), Collect::Nothing),
        // A console's script is only its standard input.
        Io::Console { .. } => (Vec::new(), Some(input.to_vec()), Collect::Nothing),
    };
    Job { argv, start: Some(built.start.clone()), files, stdin, collect, limits, env: built.env.clone() }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::grade::TEST_LIMITS;

    fn built(argv: &[&str]) -> Built {
        Built {
            name: "ann".to_owned(),
            language: "given".to_owned(),
            start: PathBuf::from("/scratch/submission-0/built"),
            argv: argv.iter().map(|&w| w.to_owned()).collect(),
            env: Vec::new(),
            build_log: None,
            provided: None,
            silencers: Vec::new(),
        }
    }

    #[test]
    fn a_test_is_a_file_standard_input_or_both_as_the_plan_says() {
        let files = Io::Files { input: "in put.txt".to_owned(), output: "out.txt".to_owned() };
        let job = job(&built(&["./prog"]), &files, TEST_LIMITS, b"Game\n");
        assert_eq!(job.files, [("in put.txt".to_owned(), b"Game\n".to_vec())]);
        assert_eq!((job.stdin, job.collect), (None, Collect::File("out.txt".to_owned())));
        assert_eq!(job.start, Some(PathBuf::from("/scratch/submission-0/built")));

        let job = super::job(&built(&["./prog"]), &Io::Stdout, TEST_LIMITS, b"Game\n");
        assert_eq!((job.files.len(), job.stdin.as_deref()), (1, Some(&b"Game\n"[..])));
        assert_eq!(job.collect, Collect::Nothing);
    }

    #[test]
    fn placeholders_in_the_words_name_the_test_and_the_answer() {
        let files = Io::Files { input: "my moves.txt".to_owned(), output: "out.txt".to_owned() };
        let job = job(&built(&["./prog", "{moves}", "--out={out}"]), &files, TEST_LIMITS, b"");
        // One word each, spaces and all: the command was split before.
        assert_eq!(job.argv, ["./prog", "my moves.txt", "--out=out.txt"]);
        let job = super::job(&built(&["./prog", "{moves}", "{out}"]), &Io::Args, TEST_LIMITS, b"");
        assert_eq!(job.argv, ["./prog", "TTTmoves.txt", "TTTgame.txt"]);
    }
}
