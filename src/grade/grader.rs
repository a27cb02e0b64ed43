//! The grader: a [`Grader`] made from a [`Plan`] and a probed sandbox
//! grades each submission in turn — its [`intake`](super::intake), its
//! [`build`](super::build), its tests ([`run`](super::run)) or its
//! functions ([`calls`](super::calls)) — and stops at a submission's
//! boundary whatever goes wrong inside it.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, PoisonError};

use rayon::prelude::*;

use super::build::{BUILD_LOG_BYTES, Build, warnings_test};
use super::class::submission_name;
use super::intake::{Failed, Faults, Halt, Step};
use super::language::Commands;
use super::plan::{Io, Mode, Plan, Program, Programs};
use super::report::{Grading, ReportError, Sink};
use super::result::{Graded, Stopped, SubmissionResult, TestResult, Verdict};
use super::run::Target;
use crate::sandbox::{self, Protections, Sandbox, SandboxError, copy};
use crate::text;

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
    /// The grading is done and a report of it could not be written.
    #[error(transparent)]
    Report(ReportError),
}

/// How the grader tells a sink of each test of one submission.
pub(in crate::grade) type Tell<'a> = dyn Fn(&TestResult) + Sync + 'a;

/// A grading ready to run: a [`Plan`], and a sandbox that was probed and
/// gives what the plan requires.
pub struct Grader {
    pub(in crate::grade) plan: Plan,
    pub(in crate::grade) sandbox: Arc<Sandbox>,
    pub(in crate::grade) protections: Protections,
    /// Faults a test injected ([`Grader::inject_faults`]).
    pub(in crate::grade) faults: Option<Faults>,
}

impl Grader {
    /// Sets up the sandbox for `plan` and checks what it protects.
    pub fn new(plan: Plan) -> Result<Grader, GradeError> {
        let sandbox = Sandbox::new().map_err(GradeError::Scratch)?;
        Grader::with_sandbox(plan, sandbox)
    }

    /// As [`Grader::new`], with a sandbox made by the caller.
    pub fn with_sandbox(plan: Plan, sandbox: Sandbox) -> Result<Grader, GradeError> {
        if let Mode::Program(Program { programs: Programs::Given { run, .. }, .. }) = &plan.mode {
            // Split once, so a bad command line is an error before anything runs.
            shell_words::split(run).map_err(|e| GradeError::Command(run.clone(), e.to_string()))?;
        }
        let protections = sandbox.probe(plan.limits).map_err(GradeError::Sandbox)?;
        if plan.require_sandbox && !protections.complete() {
            return Err(GradeError::Unprotected(protections));
        }
        Ok(Grader { plan, sandbox: Arc::new(sandbox), protections, faults: None })
    }

    /// The plan this grades by.
    #[must_use]
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// What the sandbox protects on this machine.
    #[must_use]
    pub fn protections(&self) -> &Protections {
        &self.protections
    }

    /// Set it to stop the grading: the runs under way are killed, and the
    /// submissions not finished are reported as not graded.
    #[must_use]
    pub fn stopper(&self) -> Arc<AtomicBool> {
        self.sandbox.stopper()
    }

    /// Ctrl-C or SIGTERM stops the grading as [`Grader::stopper`] does: the
    /// runs under way are killed, the submissions finished are reported, and
    /// the scratch directory goes. A second signal ends the process at once,
    /// with exit status `status`.
    pub fn stop_on_signals(&self, status: u8) {
        let stop = self.stopper();
        for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
            let _ =
                signal_hook::flag::register_conditional_shutdown(signal, status.into(), Arc::clone(&stop));
            let _ = signal_hook::flag::register(signal, Arc::clone(&stop));
        }
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
        let tests = self.plan.test_names();
        let protections = self.protections.to_string();
        sink.begin(&Grading {
            tests: &tests,
            submissions: submissions.len(),
            limits: &self.plan.limits,
            protections: &protections,
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
                    let area = self.sandbox.scratch().join(format!("submission-{index}"));
                    let progress = |test: &TestResult| told().test(&name, test);
                    let graded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        self.grade_one(submission, &name, &area, &progress)
                    }));
                    let failed = match graded {
                        Ok(Ok(result)) => Ok(result),
                        Ok(Err(Halt::Stopped)) => return (name, None),
                        Ok(Err(Halt::Failed(why))) => Err(why),
                        Err(panic) => Err(internal_error(&*panic)),
                    };
                    let result = failed.unwrap_or_else(|why| {
                        self.not_run(name.clone(), "unknown".to_owned(), why.clone(), &why, &progress)
                    });
                    told().submission(&result);
                    // What cannot be removed now goes with the scratch
                    // directory when the grading ends.
                    if self.check(Step::CleanUp, &name).is_ok() {
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

    /// Every test failed the same way before anything ran (a refused copy, a
    /// failed build). The reason may quote the student's files at length
    /// (a list of their classes, say): the log is cut as a build log is, and
    /// the detail every test repeats at [`DETAIL_BYTES`].
    pub(in crate::grade) fn not_run(
        &self,
        name: String,
        language: String,
        log: String,
        detail: &str,
        progress: &Tell<'_>,
    ) -> SubmissionResult {
        let tests = self
            .plan
            .test_names()
            .iter()
            .map(|test| {
                let test = TestResult::not_run(
                    test,
                    Verdict::BuildFailed,
                    text::said(detail, DETAIL_BYTES).into_owned(),
                );
                progress(&test);
                test
            })
            .collect();
        SubmissionResult {
            submission: name,
            language,
            score: 0.0,
            build_failed: true,
            build_log: Some(if log.len() > BUILD_LOG_BYTES {
                text::said(&log, BUILD_LOG_BYTES).into_owned()
            } else {
                log
            }),
            tests,
            provided_missing: None,
            provided_changed: None,
        }
    }

    pub(in crate::grade) fn grade_one(
        &self,
        submission: &Path,
        name: &str,
        area: &Path,
        progress: &Tell<'_>,
    ) -> Result<SubmissionResult, Halt> {
        let source = match self.copy_in(submission, name, area)? {
            Ok(source) => source,
            Err(why) => {
                return Ok(self.not_run(name.to_owned(), "unknown".to_owned(), why.clone(), &why, progress));
            }
        };
        match &self.plan.mode {
            Mode::Program(program) => self.grade_program(program, name, source, area, progress),
            Mode::Calls(calls) => self.grade_calls(name, &source, area, *calls, progress),
        }
    }

    /// Copies `submission` into `area`'s `source`: the copy, or why the
    /// submission was refused.
    fn copy_in(&self, submission: &Path, name: &str, area: &Path) -> Result<Result<PathBuf, String>, Halt> {
        let source = area.join("source");
        self.check(Step::Copy, name)
            .and_then(|()| fs::create_dir_all(&source))
            .map_err(|e| Failed::step(Step::Copy, &source, area, &e))?;
        // A root grader copies only what the submission's owner owns: no file
        // of anyone else's can be linked into it.
        let owner = self.sandbox.run_user().and_then(|_| fs::metadata(submission).ok()).map(|m| {
            use std::os::unix::fs::MetadataExt;
            m.uid()
        });
        Ok(match copy::copy_tree(submission, &source, self.plan.copy_caps, owner) {
            Ok(_) => Ok(source),
            Err(e) => Err(format!("the submission was refused: {e}")),
        })
    }

    /// `submission` copied, its course's provided files placed, its
    /// language found and built, as a grading does, for a caller that runs
    /// it itself (a bot in a match): where its runs start and how, or why it
    /// cannot run (with a failed build's log). Only for a plan of whole
    /// programs ([`Mode::Program`]).
    ///
    /// # Errors
    /// Why the submission cannot run: refused, no language found, its build
    /// failed, a step of the grader's failed, or the grading was stopped.
    pub fn prepare(&self, submission: &Path) -> Result<Prepared, String> {
        let Mode::Program(program) = &self.plan.mode else {
            return Err("only whole programs can be prepared to run".to_owned());
        };
        let name = submission_name(submission);
        let area = tempfile::Builder::new()
            .prefix("prepared-")
            .tempdir_in(self.sandbox.scratch())
            .map_err(|e| format!("the grader failed to make room for it: {e}"))?
            .keep();
        let halted = |halt: Halt| match halt {
            Halt::Failed(why) => why,
            Halt::Stopped => "interrupted".to_owned(),
        };
        let source = self.copy_in(submission, &name, &area).map_err(halted)??;
        if let Some(provided) = &program.provided {
            self.place_provided(&name, provided, &source, &area).map_err(|Failed(why)| why)?;
        }
        match self.make_ready(program, &name, source, &area).map_err(halted)? {
            Ok(ready) => Ok(Prepared {
                name,
                language: ready.language,
                start: ready.start,
                argv: shell_words::split(&ready.run).map_err(|e| format!("its run command `{}`: {e}", ready.run))?,
                sandbox: Arc::clone(&self.sandbox),
                limits: self.plan.limits,
            }),
            Err(not) if not.detail == not.log => Err(not.detail),
            Err(not) => Err(format!("{}:\n{}", not.detail, not.log.trim_end())),
        }
    }

    /// Writes the course's provided files over the submission copied to
    /// `source` (in `area`), if there are any, then builds it once and runs
    /// it on every test of `program`; the result says which provided files
    /// the copy lacked or changed.
    fn grade_program(
        &self,
        program: &Program,
        name: &str,
        source: PathBuf,
        area: &Path,
        progress: &Tell<'_>,
    ) -> Result<SubmissionResult, Halt> {
        // Before its language is found: a copy lacking the provided main.cpp
        // is C++ once it has it.
        let placed = match &program.provided {
            Some(provided) => Some(self.place_provided(name, provided, &source, area)?),
            None => None,
        };
        let mut result = self.build_and_run(program, name, source, area, progress)?;
        if let Some(placed) = placed {
            result.provided_missing = Some(placed.missing);
            result.provided_changed = Some(placed.changed);
        }
        Ok(result)
    }

    /// Builds the submission copied to `source` (in `area`) once, and runs
    /// it on every test of `program`; with [`Program::warnings`], the
    /// build's warnings are the first test.
    fn build_and_run(
        &self,
        program: &Program,
        name: &str,
        source: PathBuf,
        area: &Path,
        progress: &Tell<'_>,
    ) -> Result<SubmissionResult, Halt> {
        let ready = match self.make_ready(program, name, source, area)? {
            Ok(ready) => ready,
            Err(not) => {
                return Ok(self.not_run(name.to_owned(), not.language, not.log, &not.detail, progress));
            }
        };
        let warnings = program.warnings.then(|| warnings_test(ready.build_log.as_deref()));
        if let Some(test) = &warnings {
            progress(test);
        }
        // Collecting into a Result stops handing out tests once the grading
        // was stopped.
        let target = Target { program, start: &ready.start, run: &ready.run };
        let tests: Vec<TestResult> = program
            .tests
            .par_iter()
            .map(|test| {
                let result = self.grade_test(target, test);
                if let Ok(test) = &result {
                    progress(test);
                }
                result
            })
            .collect::<Result<_, Stopped>>()?;
        let tests = warnings.into_iter().chain(tests).collect();
        Ok(SubmissionResult::graded(name.to_owned(), ready.language, ready.build_log, tests))
    }

    /// The submission copied to `source` (in `area`), its language found
    /// and built once: ready to run, or why not.
    fn make_ready(
        &self,
        program: &Program,
        name: &str,
        source: PathBuf,
        area: &Path,
    ) -> Result<Result<Ready, NotReady>, Halt> {
        let commands = match &program.programs {
            Programs::Given { build, run } => {
                Commands { language: "given".to_owned(), build: build.clone(), run: run.clone() }
            }
            Programs::Detected(languages) => match languages.detect(&source, self.plan.limits.memory) {
                Ok(commands) => commands,
                Err(why) => {
                    return Ok(Err(NotReady {
                        language: "unknown".to_owned(),
                        log: why.clone(),
                        detail: why,
                    }));
                }
            },
        };
        let language = commands.language.clone();
        // No answer left from the author's own runs can pass for one, and
        // nothing stands where the test goes (a directory of that name, say).
        let clear = |dir: &Path| -> Result<(), Halt> {
            if program.io.answers_in_a_file() {
                let (input, output) = program.io.names();
                self.clear_answer(name, dir, output, area)?;
                self.clear_answer(name, dir, input, area)?;
            }
            Ok(())
        };
        clear(&source)?;
        self.hand_over(name, area, area)?;

        let mut start = source.clone();
        let mut build_log = None;
        if let Some(command) = &commands.build {
            match self.build(area, source, command)? {
                Build::Failed { log } => {
                    return Ok(Err(NotReady { language, log, detail: "the build failed".to_owned() }));
                }
                Build::Built { dir: built, log } => {
                    build_log = Some(log);
                    clear(&built)?;
                    start = built;
                    self.hand_over(name, &start, area)?;
                }
            }
        }
        // A console program found from its files is started as its handout
        // starts it (seeds/002's starter plays its AI when given one
        // argument); a given --run is used as written.
        let run = match (&program.programs, &program.io) {
            (Programs::Detected(_), Io::Console { profile, sides, .. }) => {
                let mut run = commands.run.clone();
                for arg in profile.program_args(*sides) {
                    run.push(' ');
                    run.push_str(arg);
                }
                run
            }
            _ => commands.run.clone(),
        };
        Ok(Ok(Ready { language, start, run, build_log }))
    }
}

/// A submission built and ready to run.
#[derive(Clone, Debug)]
pub(in crate::grade) struct Ready {
    /// Its language, as found (or `given`).
    pub(in crate::grade) language: String,
    /// The build (or the copy, with no build): each run starts as it.
    pub(in crate::grade) start: PathBuf,
    /// The run command.
    pub(in crate::grade) run: String,
    /// The build's log, when there was a build.
    pub(in crate::grade) build_log: Option<String>,
}

/// A submission built and ready for its caller to run ([`Grader::prepare`]).
#[derive(Clone, Debug)]
pub struct Prepared {
    /// Its name (its directory's).
    pub name: String,
    /// Its language, as found.
    pub language: String,
    /// Where each of its runs starts: its build, or its copy.
    pub start: PathBuf,
    /// The command that runs it.
    pub argv: Vec<String>,
    /// The sandbox it runs in.
    pub sandbox: Arc<Sandbox>,
    /// The limits of each run (the plan's).
    pub limits: sandbox::Limits,
}

/// Why a submission could not be made ready: every test fails with it.
struct NotReady {
    language: String,
    log: String,
    detail: String,
}

/// The most of a reason every test of a submission not run repeats.
const DETAIL_BYTES: usize = 4 << 10;

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
