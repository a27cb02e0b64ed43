//! The grader: a [`Grader`] made from a [`Plan`] over a probed sandbox
//! takes each submission in turn to the [`workshop`](crate::workshop),
//! which makes it runnable, then hands it to its mode's stage — its tests
//! ([`program`](super::program)), its functions ([`calls`](super::calls)), its
//! games ([`play`](super::play)) — telling the sinks as it goes, and stops
//! at a submission's boundary whatever goes wrong inside it.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, PoisonError};

use rayon::prelude::*;

use super::plan::{Mode, Opponent, Plan, PlayPlan, Program};
use super::report::{Grading, ReportError, Sink};
use super::result::{Graded, Stopped, SubmissionResult, TestResult};
use super::stage::{Stage, Tell, not_run};
use crate::sandbox::{self, Protections, Sandbox, SandboxError};
use crate::text;
use crate::workshop::intake::{Faults, Step};
use crate::workshop::recipe::{Programs, Recipe};
use crate::workshop::{Built, Failure, NotBuilt, Workshop, argv, submission_name};

/// Why grading could not be done.
#[derive(Debug, thiserror::Error)]
pub enum GradeError {
    /// The sandbox's scratch directory could not be made.
    #[error("cannot set up the sandbox's scratch directory: {0}")]
    Scratch(io::Error),
    /// The rayon pool that runs builds and tests could not be started.
    #[error("cannot start {jobs} worker threads: {source}")]
    Threads {
        /// How many were asked for.
        jobs: usize,
        /// Why not.
        source: rayon::ThreadPoolBuildError,
    },
    /// The given run command is not a command line.
    #[error("--run `{0}` is not a command line: {1}")]
    Command(String, String),
    /// The sandbox cannot run anything here.
    #[error("the sandbox does not work here: {0}")]
    Sandbox(SandboxError),
    /// The plan requires every protection and some are missing.
    #[error("--require-sandbox: some protections are not in force on this machine:\n{0}")]
    Unprotected(Protections),
    /// A reference bot (`--versus DIR`) could not be made ready to play: no
    /// student's games against it would judge anything.
    #[error("the reference bot {dir} (--versus) cannot play: {why}")]
    Reference {
        /// Its directory.
        dir: PathBuf,
        /// Why not (its build log, inert).
        why: String,
    },
    /// The grading is done and a report of it could not be written.
    #[error(transparent)]
    Report(ReportError),
}

/// A grading ready to run: a [`Plan`], and a workshop over a sandbox that
/// was probed and gives what the plan requires.
pub struct Grader {
    plan: Plan,
    workshop: Workshop,
}

impl Grader {
    /// Sets up the sandbox for `plan` and checks what it protects.
    pub fn new(plan: Plan) -> Result<Grader, GradeError> {
        let sandbox = Sandbox::new().map_err(GradeError::Scratch)?;
        Grader::with_sandbox(plan, sandbox)
    }

    /// As [`Grader::new`], with a sandbox made by the caller.
    pub fn with_sandbox(plan: Plan, sandbox: Sandbox) -> Result<Grader, GradeError> {
        let program = match &plan.mode {
            Mode::Program(program) | Mode::Play(PlayPlan { program, .. }) => Some(program),
            Mode::Calls(_) => None,
        };
        if let Some(Program { programs: Programs::Given { run, .. }, .. }) = program {
            // Checked here, so a bad command line is an error before anything
            // runs (the workshop splits it again for each submission).
            argv(run).map_err(|e| GradeError::Command(run.clone(), e))?;
        }
        let workshop = Workshop::new(sandbox, plan.limits, plan.build_limits, plan.copy_caps)
            .map_err(GradeError::Sandbox)?;
        if plan.require_sandbox && !workshop.protections().complete() {
            return Err(GradeError::Unprotected(workshop.protections().clone()));
        }
        Ok(Grader { plan, workshop })
    }

    /// The plan this grades by.
    #[must_use]
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The sandbox its runs are made in (for tests that inject the
    /// sandbox's own faults mid-grading).
    #[doc(hidden)]
    #[must_use]
    pub fn sandbox(&self) -> &Sandbox {
        self.workshop.sandbox()
    }

    /// What the sandbox protects on this machine.
    #[must_use]
    pub fn protections(&self) -> &Protections {
        self.workshop.protections()
    }

    /// Set it to stop the grading: the runs under way are killed, and the
    /// submissions not finished are reported as not graded.
    #[must_use]
    pub fn stopper(&self) -> Arc<AtomicBool> {
        self.workshop.stopper()
    }

    /// Ctrl-C or SIGTERM stops the grading as [`Grader::stopper`] does: the
    /// runs under way are killed, the submissions finished are reported, and
    /// the scratch directory goes. A second signal ends the process at once,
    /// with exit status `status`.
    pub fn stop_on_signals(&self, status: u8) {
        self.workshop.stop_on_signals(status);
    }

    /// Makes each [`Step`] call `faults` first, for a submission, with its
    /// name: an error there fails the step. For tests of the grader's own
    /// failures; a grading never sets it.
    #[doc(hidden)]
    pub fn inject_faults(&mut self, faults: Faults) {
        self.workshop.inject_faults(faults);
    }

    /// Grades every submission on every test, `jobs` builds and runs at a
    /// time, telling `sink` of each test as it is decided (and each test a
    /// failed build leaves unrun), of each submission graded, and of the
    /// whole at the end.
    ///
    /// Nothing in one submission stops the others: every step the grader
    /// takes with a submission's files fails that submission alone (every
    /// test `build-failed`, with the reason), and so does a panic in the
    /// grader while it grades one, caught at the submission's boundary as a
    /// last wall and reported as an internal error.
    ///
    /// # Errors
    /// When the worker threads cannot be started, or a report cannot be
    /// written ([`GradeError::Report`]).
    pub fn grade(&self, submissions: &[PathBuf], sink: &mut dyn Sink) -> Result<Graded, GradeError> {
        let jobs = self.plan.jobs.max(1);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(jobs)
            .build()
            .map_err(|source| GradeError::Threads { jobs, source })?;
        let references = self.references()?;
        let tests = self.plan.test_names();
        let protections = self.protections().to_string();
        // The jobs shared among the submissions graded side by side.
        let share = (jobs / submissions.len().clamp(1, jobs)).max(1);
        sink.begin(&Grading {
            tests: &tests,
            submissions: submissions.len(),
            limits: &self.plan.limits,
            protections: &protections,
            seed: self.plan.seed,
        });
        // Told from every worker, one call at a time.
        let sink = Mutex::new(sink);
        let told = || sink.lock().unwrap_or_else(PoisonError::into_inner);
        let outcomes: Vec<(String, Option<SubmissionResult>)> = pool.install(|| {
            submissions
                .par_iter()
                .enumerate()
                .map(|(index, submission)| {
                    let name = submission_name(submission);
                    let area = self.workshop.sandbox().scratch().join(format!("submission-{index}"));
                    let progress = |test: &TestResult| told().test(&name, test);
                    let graded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        self.grade_one(submission, &area, share, &references, &progress)
                    }));
                    let result = match graded {
                        Ok(Ok(result)) => result,
                        Ok(Err(Stopped)) => return (name, None),
                        Err(panic) => {
                            let why = internal_error(&*panic);
                            not_run(&self.plan, &name, &Failure::early(why), &progress)
                        }
                    };
                    told().submission(&result);
                    // What cannot be removed now goes with the scratch
                    // directory when the grading ends.
                    if self.workshop.steps(&name, &area).check(Step::CleanUp).is_ok() {
                        sandbox::remove_all(&area);
                    }
                    (name, Some(result))
                })
                .collect()
        });
        let mut graded = Graded { results: Vec::new(), not_graded: Vec::new() };
        for (name, outcome) in outcomes {
            match outcome {
                Some(result) => graded.results.push(result),
                None => graded.not_graded.push(name),
            }
        }
        let sink = sink.into_inner().unwrap_or_else(PoisonError::into_inner);
        sink.finish(&graded).map_err(GradeError::Report)?;
        Ok(graded)
    }

    /// The reference bots of the plan's `--versus` tests, each built once,
    /// as a submission is (the same languages or commands), before any
    /// submission is graded.
    ///
    /// # Errors
    /// [`GradeError::Reference`]: one cannot be built, or the grading was
    /// stopped while it was.
    fn references(&self) -> Result<Vec<(&'static str, Built)>, GradeError> {
        let Mode::Play(play) = &self.plan.mode else { return Ok(Vec::new()) };
        let recipe = Recipe {
            programs: play.program.programs.clone(),
            provided: None,
            clear: Vec::new(),
            args: Vec::new(),
        };
        let mut references = Vec::new();
        for versus in &play.versus {
            let Opponent::Bot(dir) = &versus.opponent else { continue };
            let why = match self.workshop.prepare_apart(dir, &recipe) {
                Ok(built) => {
                    references.push((versus.test, built));
                    continue;
                }
                Err(NotBuilt::Stopped) => "the grading was interrupted".to_owned(),
                Err(NotBuilt::Failed(failure)) => failure.message(),
            };
            return Err(GradeError::Reference { dir: dir.clone(), why: text::inert(&why).into_owned() });
        }
        Ok(references)
    }

    /// Grades `submission` in `area`, `jobs` of its runs or games at once:
    /// made runnable by the workshop, then graded by its mode's stage.
    fn grade_one(
        &self,
        submission: &Path,
        area: &Path,
        jobs: usize,
        references: &[(&'static str, Built)],
        tell: &Tell<'_>,
    ) -> Result<SubmissionResult, Stopped> {
        let plan = &self.plan;
        let staged =
            |program: &Program, stage: &dyn Fn(&Stage<'_>) -> Result<SubmissionResult, Stopped>| match self
                .workshop
                .prepare(submission, area, &program.recipe())
            {
                Ok(built) => stage(&Stage {
                    plan,
                    sandbox: self.workshop.sandbox(),
                    area,
                    built: &built,
                    references,
                    tell,
                    jobs,
                }),
                Err(NotBuilt::Stopped) => Err(Stopped),
                Err(NotBuilt::Failed(failure)) => {
                    Ok(not_run(plan, &submission_name(submission), &failure, tell))
                }
            };
        match &plan.mode {
            Mode::Calls(calls) => {
                super::calls::run::grade(&self.workshop, plan, *calls, submission, area, tell)
            }
            Mode::Program(program) => staged(program, &|stage| super::program::grade(stage, program)),
            Mode::Play(bots) => staged(&bots.program, &|stage| super::play::grade(stage, bots)),
        }
    }
}

/// What a submission's reports say of a panic in the grader while it graded
/// that submission.
fn internal_error(panic: &(dyn std::any::Any + Send)) -> String {
    let message = panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".to_owned());
    format!(
        "internal error: the grader failed on this submission ({}); the others were graded. \
         This is a bug in ttt-referee: please report it with this message.",
        text::cut(&message, 1000)
    )
}
