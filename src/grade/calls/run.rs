//! The grader's side of grading an assignment's functions call by call
//! (`grade --api`): the submission copied beside the harness, the harness
//! built by the workshop, and run in the sandbox on the cases, which
//! [`super::judge`] judges.

use std::fs;
use std::path::Path;

use super::{GRADER_DIR, Harness, Ran, SUBMISSION_DIR, Settings, Stop, Times};
use crate::grade::plan::{CallsPlan, Plan, harness_limits};
use crate::grade::result::{Stopped, SubmissionResult};
use crate::grade::stage::{Stage, Tell, not_run};
use crate::grade::verdict::tail;
use crate::outcome::{End, describe_ending};
use crate::sandbox::{Collect, Job, SandboxError};
use crate::workshop::build::Build;
use crate::workshop::intake::{Step, Steps};
use crate::workshop::{Built, Failure, NotBuilt, Workshop, argv, submission_name};

/// Grades the functions of `submission` one by one, through the
/// assignment's harness, in `area`: the copy is `area/api/submission`,
/// beside the grader's `area/api/ttt` where the harness goes; `jobs` runs
/// of the harness at once at most.
///
/// # Errors
/// [`Stopped`]: the grading was stopped.
pub(in crate::grade) fn grade(
    workshop: &Workshop,
    plan: &Plan,
    api: CallsPlan,
    submission: &Path,
    area: &Path,
    tell: &Tell<'_>,
) -> Result<SubmissionResult, Stopped> {
    let name = submission_name(submission);
    let steps = workshop.steps(&name, area);
    let built = match harnessed(workshop, plan, api, submission, &steps) {
        Ok(built) => built,
        Err(NotBuilt::Stopped) => return Err(Stopped),
        Err(NotBuilt::Failed(failure)) => return Ok(not_run(plan, &name, &failure, tell)),
    };
    // Submissions are graded in parallel too: more than a few harnesses
    // each would start more than they save.
    let stage = Stage {
        plan,
        sandbox: workshop.sandbox(),
        area,
        built: &built,
        references: &[],
        tell,
        jobs: plan.jobs.min(4),
    };
    calls(&stage, api)
}

/// The submission copied beside the assignment's harness, both built:
/// ready to take calls.
fn harnessed(
    workshop: &Workshop,
    plan: &Plan,
    api: CallsPlan,
    submission: &Path,
    steps: &Steps<'_>,
) -> Result<Built, NotBuilt> {
    let limits = harness_limits(&plan.limits);
    let times = Times { call: plan.limits.wall, budget: limits.wall / 2 };
    let source = workshop.copy_in(submission, steps)?;
    // The build and the runs start in `tree`, which holds the submission's
    // copy and, beside it, the grader's own directory with the harness: no
    // name in the submission is where a file of the harness's goes.
    let tree = steps.area.join("api");
    let copy = tree.join(SUBMISSION_DIR);
    steps.take(Step::PlaceHarness, &copy, || {
        fs::create_dir(&tree).and_then(|()| fs::rename(&source, &copy))
    })?;
    let harness = api
        .api
        .assignment()
        .harness(&copy, plan.limits.memory, times)
        .map_err(|why| NotBuilt::from(Failure::early(why)))?;
    place_harness(steps, &harness, &tree.join(GRADER_DIR))?;
    steps.hand_over(workshop.sandbox(), steps.area)?;
    let language = harness.language.clone();
    let mut start = tree;
    let mut build_log = None;
    if let Some(command) = &harness.build {
        match workshop.build(steps, start.clone(), command)? {
            Build::Failed { log } => {
                return Err(NotBuilt::from(Failure {
                    language,
                    log,
                    detail: "it does not compile".to_owned(),
                    provided: None,
                    by_grader: false,
                    unprotected: false,
                }));
            }
            Build::Refused { why } => {
                return Err(NotBuilt::from(Failure::refused(language, why)));
            }
            Build::Starved { log, why } => return Err(NotBuilt::from(Failure::starved(language, log, &why))),
            Build::Built { dir, log } => {
                start = dir;
                build_log = Some(log);
            }
        }
    }
    let argv = argv(&harness.run)
        .map_err(|e| NotBuilt::from(Failure::early(format!("the harness's command: {e}"))))?;
    Ok(Built {
        name: steps.name.to_owned(),
        language,
        start,
        argv,
        env: harness.env,
        build_log,
        provided: None,
        silencers: Vec::new(),
    })
}

/// Writes `harness`'s files into the grader's own directory `ours`, as
/// [`Step::PlaceHarness`].
fn place_harness(steps: &Steps<'_>, harness: &Harness, ours: &Path) -> Result<(), NotBuilt> {
    for (file, text) in &harness.files {
        let path = ours.join(file);
        steps.take(Step::PlaceHarness, &path, || {
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent)?;
            }
            fs::write(&path, text)
        })?;
    }
    Ok(())
}

/// The functions of the harnessed submission `stage` holds, graded call by
/// call.
fn calls(stage: &Stage<'_>, api: CallsPlan) -> Result<SubmissionResult, Stopped> {
    let plan = stage.plan;
    let built = stage.built;
    let call_limit = plan.limits.wall;
    let limits = harness_limits(&plan.limits);
    let assignment = api.api.assignment();
    let run = |input: &[u8]| -> Option<Ran> {
        let job = Job {
            argv: built.argv.clone(),
            start: Some(built.start.clone()),
            files: Vec::new(),
            stdin: Some(input.to_vec()),
            collect: Collect::Nothing,
            limits,
            env: built.env.clone(),
        };
        Some(match stage.sandbox.run(&job) {
            Ok(run) => Ran {
                out_of_time: End::of(&run, &limits).out_of_time(),
                ending: describe_ending(&run.outcome, &limits),
                stderr: tail(&run.stderr),
                stdout: run.stdout,
            },
            Err(SandboxError::Interrupted) => return None,
            // Fail closed: a call the sandbox would not run unprotected is
            // no answer, and the harness's calls left are not run.
            Err(e) => Ran { ending: format!("the sandbox could not run it: {e}"), ..Ran::default() },
        })
    };
    let settings = Settings { call_limit, partial: plan.partial, shrink: plan.shrink, parallel: stage.jobs };
    let tests = match assignment.grade(api.cases, &settings, &run) {
        Ok(tests) => tests,
        Err(Stop::Interrupted) => return Err(Stopped),
        Err(Stop::NotLoaded(why)) => {
            let detail = assignment.not_loaded(&why);
            let mut log = built.build_log.clone().unwrap_or_default();
            log.push_str(&why);
            let failure =
                Failure { language: built.language.clone(), log, detail, ..Failure::early(String::new()) };
            return Ok(not_run(plan, &built.name, &failure, stage.tell));
        }
    };
    tests.iter().for_each(stage.tell);
    Ok(stage.graded(tests))
}
