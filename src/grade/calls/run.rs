//! The grader's side of grading an assignment's functions call by call
//! (`grade --api`): the harness placed beside the submission's copy, built,
//! and run in the sandbox on the cases, which [`super::judge`] judges.

use std::fs;
use std::path::Path;

use super::{GRADER_DIR, Harness, Ran, SUBMISSION_DIR, Settings, Stop, Times};
use crate::grade::build::Build;
use crate::grade::grader::{Grader, Tell};
use crate::grade::intake::{Failed, Halt, Step};
use crate::grade::plan::{CallsPlan, harness_limits};
use crate::grade::result::SubmissionResult;
use crate::grade::verdict::{describe_ending, out_of_cpu, tail};
use crate::sandbox::{Collect, Ending, Job, SandboxError};

impl Grader {
    /// Writes `harness`'s files into the grader's own directory `ours` (in
    /// `area`), as [`Step::PlaceHarness`].
    pub(in crate::grade) fn place_harness(
        &self,
        name: &str,
        harness: &Harness,
        ours: &Path,
        area: &Path,
    ) -> Result<(), Failed> {
        for (file, text) in &harness.files {
            let path = ours.join(file);
            let place = || {
                self.check(Step::PlaceHarness, name)?;
                if let Some(parent) = path.parent() {
                    fs::create_dir_all(parent)?;
                }
                fs::write(&path, text)
            };
            place().map_err(|e| Failed::step(Step::PlaceHarness, &path, area, &e))?;
        }
        Ok(())
    }

    /// Grades the functions of the submission copied to `source` (in
    /// `area`) one by one, through the assignment's harness. The copy is
    /// moved to `area/api/submission`, beside the grader's `area/api/ttt`
    /// where the harness goes.
    pub(in crate::grade) fn grade_calls(
        &self,
        name: &str,
        source: &Path,
        area: &Path,
        api: CallsPlan,
        progress: &Tell<'_>,
    ) -> Result<SubmissionResult, Halt> {
        let plan = &self.plan;
        let name = name.to_owned();
        let call_limit = plan.limits.wall;
        let limits = harness_limits(&plan.limits);
        let times = Times { call: call_limit, budget: limits.wall / 2 };
        // The build and the runs start in `tree`, which holds the submission's
        // copy and, beside it, the grader's own directory with the harness:
        // no name in the submission is where a file of the harness's goes.
        let tree = area.join("api");
        let submission = tree.join(SUBMISSION_DIR);
        let ours = tree.join(GRADER_DIR);
        self.check(Step::PlaceHarness, &name)
            .and_then(|()| fs::create_dir(&tree))
            .and_then(|()| fs::rename(source, &submission))
            .map_err(|e| Failed::step(Step::PlaceHarness, &submission, area, &e))?;
        let assignment = api.api.assignment();
        let harness = match assignment.harness(&submission, plan.limits.memory, times) {
            Ok(harness) => harness,
            Err(why) => {
                return Ok(self.not_run(name, "unknown".to_owned(), why.clone(), &why, progress));
            }
        };
        self.place_harness(&name, &harness, &ours, area)?;
        self.hand_over(&name, area, area)?;
        let language = harness.language.clone();
        let mut start = tree;
        let mut build_log = None;
        if let Some(command) = &harness.build {
            match self.build(area, start.clone(), command)? {
                Build::Failed { log } => {
                    return Ok(self.not_run(name, language, log, "it does not compile", progress));
                }
                Build::Built { dir: built, log } => {
                    start = built;
                    build_log = Some(log);
                    self.hand_over(&name, &start, area)?;
                }
            }
        }
        let argv = shell_words::split(&harness.run).unwrap_or_default();
        let run = |input: &[u8]| -> Option<Ran> {
            let job = Job {
                argv: argv.clone(),
                start: Some(start.clone()),
                files: Vec::new(),
                stdin: Some(input.to_vec()),
                collect: Collect::Nothing,
                limits,
                env: harness.env.clone(),
            };
            Some(match self.sandbox.run(&job) {
                Ok(run) => Ran {
                    out_of_time: run.outcome.ending == Ending::TimedOut || out_of_cpu(&run.outcome, &limits),
                    ending: describe_ending(&run.outcome, &limits),
                    stderr: tail(&run.stderr),
                    stdout: run.stdout,
                },
                Err(SandboxError::Interrupted) => return None,
                Err(e) => Ran { ending: format!("the sandbox could not run it: {e}"), ..Ran::default() },
            })
        };
        let settings = Settings {
            call_limit,
            partial: plan.partial,
            shrink: plan.shrink,
            // Submissions are graded in parallel too: more than a few
            // harnesses each would start more than they save.
            parallel: plan.jobs.min(4),
        };
        let tests = match assignment.grade(api.cases, &settings, &run) {
            Ok(tests) => tests,
            Err(Stop::Interrupted) => return Err(Halt::Stopped),
            Err(Stop::NotLoaded(why)) => {
                let detail = assignment.not_loaded(&why);
                let mut log = build_log.unwrap_or_default();
                log.push_str(&why);
                return Ok(self.not_run(name, language, log, &detail, progress));
            }
        };
        tests.iter().for_each(progress);
        Ok(SubmissionResult::graded(name, language, build_log, tests))
    }
}
