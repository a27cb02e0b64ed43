//! `grade`: run people's programs against tests in the [`sandbox`] and say
//! how each did.
//!
//! A [`Grader`] is made from a [`Plan`]: the tests (with their expected
//! answers, [`suite`]), how each submission is built and run (given, or
//! found from its files, [`language`]), the I/O convention, the limits, and
//! what the sandbox must provide. Each submission is copied and built once;
//! each test runs in a fresh copy of the build. Verdicts follow
//! [`Verdict`]'s order, decided by [`verdict`] without running anything.

pub mod api;
pub mod gradescope;
pub mod language;
pub mod report;
pub mod result;
pub mod shrink;
pub mod suite;
pub mod verdict;

use std::fmt::Write as _;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use rayon::prelude::*;

pub use self::api::{Api, CaseOptions};
pub use self::language::{Commands, Languages};
pub use self::result::{Graded, SubmissionResult, TestResult, Verdict};
pub use self::shrink::{Budget, Shrunk};
pub use self::suite::{Expected, Test};
pub use self::verdict::signal_name;
use self::verdict::{describe_ending, judge, out_of_cpu, shown, tail};
use crate::check::CheckOptions;
use crate::sandbox::{self, Collect, Ending, Job, Limits, Protections, Sandbox, SandboxError, copy};
use crate::text;

/// How a program receives its test and gives its answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Io {
    /// CS 1044's convention: the test is `input` in the working directory,
    /// and the program writes `output` there.
    Files {
        /// The move file's name in the run directory.
        input: String,
        /// The transcript's name in the run directory.
        output: String,
    },
    /// The test is `TTTmoves.txt` and standard input; the answer is
    /// standard output.
    Stdout,
    /// `{moves}` and `{out}` in the run command are the test's and the
    /// answer's paths.
    Args,
    /// A console program: the script is its standard input, the answer its
    /// standard output.
    Console,
}

impl Io {
    /// The test's and the answer's names in the run directory.
    fn names(&self) -> (&str, &str) {
        match self {
            Io::Files { input, output } => (input, output),
            _ => (DEFAULT_INPUT, DEFAULT_OUTPUT),
        }
    }
}

/// How each submission's build and run commands are found.
#[derive(Clone, Debug)]
pub enum Programs {
    /// The same commands for everyone (`--build`, `--run`).
    Given {
        /// A shell command run once in each submission's copy.
        build: Option<String>,
        /// The program's command line, split into words as a shell would.
        run: String,
    },
    /// Found for each submission from its files.
    Detected(Languages),
}

/// The limits of each test run unless the plan says otherwise: 2 s of wall
/// and CPU time, 512 MB, 16 MB written, 64 processes, 256 open files each
/// (a JVM with its jars needs well under that).
pub const TEST_LIMITS: Limits = Limits {
    wall: Duration::from_secs(2),
    cpu: Duration::from_secs(2),
    memory: 512 << 20,
    output: 16 << 20,
    processes: 64,
    open_files: 256,
};

/// The limits of a build, given a test's: two minutes, and at least 4 GB,
/// 256 MB written, 64 processes and 1024 open files each (compilers and
/// build tools need more than programs).
#[must_use]
pub fn build_limits(test: &Limits) -> Limits {
    Limits {
        wall: Duration::from_mins(2),
        cpu: Duration::from_mins(2),
        memory: test.memory.max(4 << 30),
        output: test.output.max(256 << 20),
        processes: test.processes.max(64),
        open_files: test.open_files.max(1024),
    }
}

/// Everything that says how to grade.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The tests, in the order reports list them.
    pub tests: Vec<Test>,
    /// How submissions are built and run.
    pub programs: Programs,
    /// How they read and write.
    pub io: Io,
    /// Limits for each test run.
    pub limits: Limits,
    /// Limits for each build.
    pub build_limits: Limits,
    /// How many builds and tests run at once.
    pub jobs: usize,
    /// Score a wrong answer by how alike it is ([`crate::check::Comparison::score`]).
    pub partial: bool,
    /// How answers are compared (`check`'s comparison).
    pub check: CheckOptions,
    /// The most a submission may hold to be copied and graded.
    pub copy_caps: copy::Caps,
    /// Refuse to grade unless every protection is in force.
    pub require_sandbox: bool,
    /// How the tests' expected answers were made: a shrunk input's is made
    /// the same way.
    pub expected: Expected,
    /// Shrink each `wrong` or `crashed` test's input within this budget
    /// (`None`: do not); with `api`, look for smaller failing calls.
    pub shrink: Option<Budget>,
    /// Grade an assignment's functions one by one instead of whole programs
    /// on `tests` (`limits.wall` is then the limit per call).
    pub api: Option<ApiPlan>,
}

/// Function-level grading: which assignment, and its cases.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ApiPlan {
    /// The assignment whose functions are graded.
    pub api: Api,
    /// How many random cases per function, from which seed.
    pub cases: CaseOptions,
}

/// The limits of one run of a function-level harness (many calls), given
/// the limit per call: at least 20 s (ten calls' worth) and 64 MB written.
#[must_use]
pub fn harness_limits(test: &Limits) -> Limits {
    let wall = (test.wall * 10).max(Duration::from_secs(20));
    Limits { wall, cpu: wall, output: test.output.max(64 << 20), ..*test }
}

impl Plan {
    /// The name of every test of a submission, in report order: the test
    /// files, or with `api` the functions.
    #[must_use]
    pub fn test_names(&self) -> Vec<String> {
        match &self.api {
            Some(api) => api.api.functions(),
            None => self.tests.iter().map(|t| t.name.clone()).collect(),
        }
    }
}

/// The test's name in the run directory unless `--input-name` says otherwise.
pub const DEFAULT_INPUT: &str = "TTTmoves.txt";
/// The answer's name in the run directory unless `--output-name` says otherwise.
pub const DEFAULT_OUTPUT: &str = "TTTgame.txt";

/// The most of an answer reports keep to show.
pub const SHOWN_BYTES: usize = 64 << 10;

/// The most lines of an answer reports keep to show: a page of short lines
/// costs the HTML report far more than their bytes.
pub const SHOWN_LINES: usize = 1000;

/// The most of a build's output reports keep to show: half from its
/// standard output, half from its standard error.
pub const BUILD_LOG_BYTES: usize = 64 << 10;

/// The most lines of a failing program's standard error kept to show.
pub const STDERR_LINES: usize = 20;

/// The most bytes of a failing program's standard error kept to show.
pub const STDERR_BYTES: usize = 4 << 10;

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
}

/// A step the grader takes with one submission's files, each of which can
/// fail that submission alone (`build-failed`, with the reason).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Step {
    /// Copying the submission into the grader's scratch directory.
    Copy,
    /// Removing answers left in the copy (or the build) from its author's
    /// own runs.
    ClearAnswers,
    /// Giving a copy or a build to the user the runs are made as.
    HandOver,
    /// Placing a function-level harness's files.
    PlaceHarness,
    /// Removing the submission's scratch directory once it is graded.
    CleanUp,
}

impl Step {
    /// What the step does, in words for a report.
    fn doing(self) -> &'static str {
        match self {
            Step::Copy => "copying the submission",
            Step::ClearAnswers => "clearing old answers from the copy",
            Step::HandOver => "handing the copy to the run user",
            Step::PlaceHarness => "placing the harness's files",
            Step::CleanUp => "removing the copy",
        }
    }
}

/// Called before each [`Step`] with a submission's name: an error makes
/// that step fail there (fault injection, for tests).
pub type Faults = Arc<dyn Fn(Step, &str) -> io::Result<()> + Send + Sync>;

/// One submission could not be graded: the reason, shown in its reports.
/// It fails that submission alone; the grading goes on.
#[derive(Debug)]
struct Failed(String);

impl Failed {
    fn step(step: Step, path: &Path, area: &Path, e: &io::Error) -> Failed {
        let shown = path.strip_prefix(area).unwrap_or(path);
        if shown.as_os_str().is_empty() {
            Failed(format!("the grader failed {}: {e}", step.doing()))
        } else {
            Failed(format!(
                "the grader failed {} ({}): {e}",
                step.doing(),
                text::cut(&shown.to_string_lossy(), 200)
            ))
        }
    }
}

/// A grading ready to run: a [`Plan`], and a sandbox that was probed and
/// gives what the plan requires.
pub struct Grader {
    plan: Plan,
    sandbox: Sandbox,
    protections: Protections,
    /// Faults a test injected ([`Grader::inject_faults`]).
    faults: Option<Faults>,
}

impl Grader {
    /// Sets up the sandbox for `plan` and checks what it protects.
    pub fn new(plan: Plan) -> Result<Grader, GradeError> {
        let sandbox = Sandbox::new().map_err(GradeError::Scratch)?;
        Grader::with_sandbox(plan, sandbox)
    }

    /// As [`Grader::new`], with a sandbox made by the caller.
    pub fn with_sandbox(plan: Plan, sandbox: Sandbox) -> Result<Grader, GradeError> {
        if let Programs::Given { run, .. } = &plan.programs {
            // Split once, so a bad command line is an error before anything runs.
            shell_words::split(run).map_err(|e| GradeError::Command(run.clone(), e.to_string()))?;
        }
        let protections = sandbox.probe(plan.limits).map_err(GradeError::Sandbox)?;
        if plan.require_sandbox && !protections.complete() {
            return Err(GradeError::Unprotected(protections));
        }
        Ok(Grader { plan, sandbox, protections, faults: None })
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

    /// Makes each [`Step`] call `faults` first, for a submission, with its
    /// name: an error there fails the step. For tests of the grader's own
    /// failures; a grading never sets it.
    #[doc(hidden)]
    pub fn inject_faults(&mut self, faults: Faults) {
        self.faults = Some(faults);
    }

    /// Whether `step` may go ahead on the submission `name` (always, but
    /// where a test injected a fault).
    fn check(&self, step: Step, name: &str) -> io::Result<()> {
        self.faults.as_ref().map_or(Ok(()), |faults| faults(step, name))
    }

    /// Grades every submission on every test, `jobs` builds and runs at a
    /// time. `progress` is called after each test (and each test a failed
    /// build leaves unrun).
    ///
    /// Nothing in one submission stops the others: every step the grader
    /// takes with a submission's files fails that submission alone (every
    /// test `build-failed`, with the reason), and so does a panic in the
    /// grader while it grades one, caught at the submission's boundary as a
    /// last wall and reported as an internal error.
    pub fn grade(&self, submissions: &[PathBuf], progress: &(dyn Fn() + Sync)) -> Result<Graded, GradeError> {
        let jobs = self.plan.jobs.max(1);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(jobs)
            .build()
            .map_err(|source| GradeError::Threads { jobs, source })?;
        let outcomes: Vec<Option<SubmissionResult>> = pool.install(|| {
            submissions
                .par_iter()
                .enumerate()
                .map(|(index, submission)| {
                    let name = submission_name(submission);
                    let area = self.sandbox.scratch().join(format!("submission-{index}"));
                    let graded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        self.grade_one(submission, &name, &area, progress)
                    }));
                    let result = match graded {
                        Ok(Ok(result)) => result,
                        Ok(Err(Failed(why))) => Some(self.not_run(
                            name.clone(),
                            "unknown".to_owned(),
                            why.clone(),
                            &why,
                            progress,
                        )),
                        Err(panic) => {
                            let why = internal_error(&*panic);
                            Some(self.not_run(
                                name.clone(),
                                "unknown".to_owned(),
                                why.clone(),
                                &why,
                                progress,
                            ))
                        }
                    };
                    // What cannot be removed now goes with the scratch
                    // directory when the grading ends.
                    if self.check(Step::CleanUp, &name).is_ok() {
                        sandbox::remove_all(&area);
                    }
                    result
                })
                .collect()
        });
        let mut graded = Graded { results: Vec::new(), not_graded: Vec::new() };
        for (submission, outcome) in submissions.iter().zip(outcomes) {
            match outcome {
                Some(result) => graded.results.push(result),
                None => graded.not_graded.push(submission_name(submission)),
            }
        }
        Ok(graded)
    }

    /// Every test failed the same way before anything ran (a refused copy, a
    /// failed build).
    fn not_run(
        &self,
        name: String,
        language: String,
        log: String,
        detail: &str,
        progress: &(dyn Fn() + Sync),
    ) -> SubmissionResult {
        let tests = self
            .plan
            .test_names()
            .iter()
            .map(|test| {
                progress();
                TestResult::not_run(test, Verdict::BuildFailed, detail.to_owned())
            })
            .collect();
        SubmissionResult {
            submission: name,
            language,
            score: 0.0,
            build_failed: true,
            build_log: Some(log),
            tests,
        }
    }

    /// Gives `path` in `area` to the run user, as [`Step::HandOver`].
    fn hand_over(&self, name: &str, path: &Path, area: &Path) -> Result<(), Failed> {
        self.check(Step::HandOver, name)
            .and_then(|()| self.sandbox.hand_over(path))
            .map_err(|e| Failed::step(Step::HandOver, path, area, &e))
    }

    /// Removes what is at `output` (an old answer, or whatever stands where
    /// the test goes) in `dir` in `area`, as [`Step::ClearAnswers`].
    fn clear_answer(&self, name: &str, dir: &Path, output: &str, area: &Path) -> Result<(), Failed> {
        let path = dir.join(output);
        self.check(Step::ClearAnswers, name)
            .and_then(|()| remove_entry(&path))
            .map_err(|e| Failed::step(Step::ClearAnswers, &path, area, &e))
    }

    fn grade_one(
        &self,
        submission: &Path,
        name: &str,
        area: &Path,
        progress: &(dyn Fn() + Sync),
    ) -> Result<Option<SubmissionResult>, Failed> {
        let plan = &self.plan;
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
        if let Err(e) = copy::copy_tree(submission, &source, plan.copy_caps, owner) {
            let why = format!("the submission was refused: {e}");
            return Ok(Some(self.not_run(
                name.to_owned(),
                "unknown".to_owned(),
                why.clone(),
                &why,
                progress,
            )));
        }
        if let Some(api) = plan.api {
            return self.grade_api(name, &source, area, api, progress);
        }
        let name = name.to_owned();
        let commands = match &plan.programs {
            Programs::Given { build, run } => {
                Commands { language: "given".to_owned(), build: build.clone(), run: run.clone() }
            }
            Programs::Detected(languages) => match languages.detect(&source, plan.limits.memory) {
                Ok(commands) => commands,
                Err(why) => {
                    return Ok(Some(self.not_run(name, "unknown".to_owned(), why.clone(), &why, progress)));
                }
            },
        };
        let language = commands.language.clone();
        // No answer left from the author's own runs can pass for one, and
        // nothing stands where the test goes (a directory of that name, say).
        let (input, output) = plan.io.names();
        if plan.io != Io::Console {
            self.clear_answer(&name, &source, output, area)?;
            self.clear_answer(&name, &source, input, area)?;
        }
        self.hand_over(&name, area, area)?;

        let mut start = source.clone();
        let mut build_log = None;
        if let Some(command) = &commands.build {
            match self.build(area, source, command) {
                None => return Ok(None),
                Some(Err(log)) => {
                    return Ok(Some(self.not_run(name, language, log, "the build failed", progress)));
                }
                Some(Ok((built, log))) => {
                    build_log = Some(log);
                    if plan.io != Io::Console {
                        self.clear_answer(&name, &built, output, area)?;
                        self.clear_answer(&name, &built, input, area)?;
                    }
                    start = built;
                    self.hand_over(&name, &start, area)?;
                }
            }
        }

        // Collecting into an Option stops handing out tests once one was
        // interrupted.
        let Some(tests): Option<Vec<TestResult>> = plan
            .tests
            .par_iter()
            .map(|test| {
                let result = self.grade_test(&start, &commands.run, test);
                progress();
                result
            })
            .collect()
        else {
            return Ok(None);
        };
        Ok(Some(SubmissionResult {
            submission: name,
            language,
            score: mean_score(&tests),
            build_failed: false,
            build_log,
            tests,
        }))
    }

    /// Builds the submission copied to `source` (in `area`) with `command`:
    /// the build's directory and its log, or the log of a build that failed;
    /// `None` if the grading was interrupted.
    fn build(
        &self,
        area: &Path,
        source: PathBuf,
        command: &str,
    ) -> Option<Result<(PathBuf, String), String>> {
        let plan = &self.plan;
        let built = area.join("built");
        let job = Job {
            argv: vec!["/bin/sh".to_owned(), "-c".to_owned(), command.to_owned()],
            start: Some(source),
            files: Vec::new(),
            stdin: None,
            collect: Collect::Tree(built.clone()),
            limits: plan.build_limits,
            env: Vec::new(),
        };
        let (ok, log) = match self.sandbox.run(&job) {
            Ok(run) => {
                // Each stream's start, cut on a character's boundary: what a
                // compiler says first is what matters.
                let mut log = text::shown(&run.stdout, BUILD_LOG_BYTES / 2);
                log.push_str(&text::shown(&run.stderr, BUILD_LOG_BYTES / 2));
                if run.outcome.ending == Ending::Exited(0) && run.answer.is_ok() {
                    (true, log)
                } else {
                    let why =
                        run.answer.err().map(|e| format!(" ({})", text::cut(&e, 1000))).unwrap_or_default();
                    let _ = write!(
                        log,
                        "\n[the build {}{why}]\n",
                        describe_ending(&run.outcome, &plan.build_limits)
                    );
                    (false, log)
                }
            }
            Err(SandboxError::Interrupted) => return None,
            Err(e) => (false, format!("[the sandbox could not run the build: {e}]\n")),
        };
        if !ok {
            return Some(Err(log));
        }
        Some(Ok((built, log)))
    }

    /// Writes `harness`'s files into the grader's own directory `ours` (in
    /// `area`), as [`Step::PlaceHarness`].
    fn place_harness(
        &self,
        name: &str,
        harness: &api::Harness,
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
    fn grade_api(
        &self,
        name: &str,
        source: &Path,
        area: &Path,
        api: ApiPlan,
        progress: &(dyn Fn() + Sync),
    ) -> Result<Option<SubmissionResult>, Failed> {
        let plan = &self.plan;
        let name = name.to_owned();
        let call_limit = plan.limits.wall;
        let limits = harness_limits(&plan.limits);
        let times = api::Times { call: call_limit, budget: limits.wall / 2 };
        // The build and the runs start in `tree`, which holds the submission's
        // copy and, beside it, the grader's own directory with the harness:
        // no name in the submission is where a file of the harness's goes.
        let tree = area.join("api");
        let submission = tree.join(api::SUBMISSION_DIR);
        let ours = tree.join(api::GRADER_DIR);
        self.check(Step::PlaceHarness, &name)
            .and_then(|()| fs::create_dir(&tree))
            .and_then(|()| fs::rename(source, &submission))
            .map_err(|e| Failed::step(Step::PlaceHarness, &submission, area, &e))?;
        let harness = match api.api.harness(&submission, plan.limits.memory, times) {
            Ok(harness) => harness,
            Err(why) => {
                return Ok(Some(self.not_run(name, "unknown".to_owned(), why.clone(), &why, progress)));
            }
        };
        self.place_harness(&name, &harness, &ours, area)?;
        self.hand_over(&name, area, area)?;
        let language = harness.language.clone();
        let mut start = tree;
        let mut build_log = None;
        if let Some(command) = &harness.build {
            match self.build(area, start.clone(), command) {
                None => return Ok(None),
                Some(Err(log)) => {
                    return Ok(Some(self.not_run(name, language, log, "it does not compile", progress)));
                }
                Some(Ok((built, log))) => {
                    start = built;
                    build_log = Some(log);
                    self.hand_over(&name, &start, area)?;
                }
            }
        }
        let argv = shell_words::split(&harness.run).unwrap_or_default();
        let run = |input: &[u8]| -> Option<api::Ran> {
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
                Ok(run) => api::Ran {
                    out_of_time: run.outcome.ending == Ending::TimedOut || out_of_cpu(&run.outcome, &limits),
                    ending: describe_ending(&run.outcome, &limits),
                    stderr: tail(&run.stderr),
                    stdout: run.stdout,
                },
                Err(SandboxError::Interrupted) => return None,
                Err(e) => {
                    api::Ran { ending: format!("the sandbox could not run it: {e}"), ..api::Ran::default() }
                }
            })
        };
        let functions = api.api.functions();
        let settings = api::Settings {
            call_limit,
            partial: plan.partial,
            shrink: plan.shrink,
            // Submissions are graded in parallel too: more than a few
            // harnesses each would start more than they save.
            parallel: plan.jobs.min(4),
        };
        let graded = match api.api {
            Api::Xtreme => api::grade(&functions, api::xtreme::cases(api.cases), &settings, &run),
            Api::IGameBoard => api::grade(&functions, api::igameboard::cases(api.cases), &settings, &run),
        };
        let tests = match graded {
            Ok(tests) => tests,
            Err(api::Stop::Interrupted) => return Ok(None),
            Err(api::Stop::NotLoaded(why)) => {
                let detail = api.api.not_loaded(&why);
                let mut log = build_log.unwrap_or_default();
                log.push_str(&why);
                return Ok(Some(self.not_run(name, language, log, &detail, progress)));
            }
        };
        for _ in &tests {
            progress();
        }
        Ok(Some(SubmissionResult {
            submission: name,
            language,
            score: mean_score(&tests),
            build_failed: false,
            build_log,
            tests,
        }))
    }

    /// Runs `test`, and shrinks it if it failed in a way that can be (and
    /// the plan says to); `None` if the grading was interrupted.
    fn grade_test(&self, start: &Path, run: &str, test: &Test) -> Option<TestResult> {
        let began = Instant::now();
        let mut result = self.run_test(start, run, test, None)?;
        if let Some(budget) = self.plan.shrink
            && result.shrinkable()
        {
            let took = began.elapsed();
            result.smallest_failing_input = self.shrink(start, run, test, &result, took, budget).ok()?;
        }
        Some(result)
    }

    /// The job that runs `input` in a fresh run directory that starts as
    /// the build.
    fn job(&self, start: &Path, run: &str, input: &[u8]) -> Job {
        let plan = &self.plan;
        // The test is in the run directory under the input name in every mode
        // but a console's; `{moves}` and `{out}` in the command are its name and
        // the answer's (the run directory is the program's working directory).
        let (name, output) = plan.io.names();
        let run =
            run.replace("{moves}", &shell_words::quote(name)).replace("{out}", &shell_words::quote(output));
        let argv = shell_words::split(&run).unwrap_or_default();
        let (files, stdin, collect) = match &plan.io {
            Io::Files { .. } | Io::Args => {
                (vec![(name.to_owned(), input.to_vec())], None, Collect::File(output.to_owned()))
            }
            // The move file is also the program's standard input.
            Io::Stdout => (vec![(name.to_owned(), input.to_vec())], Some(input.to_vec()), Collect::Nothing),
            // A console's script is only its standard input.
            Io::Console => (Vec::new(), Some(input.to_vec()), Collect::Nothing),
        };
        Job {
            argv,
            start: Some(start.to_path_buf()),
            files,
            stdin,
            collect,
            limits: plan.limits,
            env: Vec::new(),
        }
    }

    /// Runs one test (or a shrunk input, as a test) in a fresh run
    /// directory that starts as the build, stopped at `wall` if that is
    /// sooner than the limit; `None` if the grading was interrupted.
    fn run_test(&self, start: &Path, run: &str, test: &Test, wall: Option<Duration>) -> Option<TestResult> {
        let mut job = self.job(start, run, &test.input);
        if let Some(wall) = wall {
            job.limits.wall = job.limits.wall.min(wall);
        }
        let result = self.judge_run(test, &job)?;
        if result.verdict != Verdict::TimeLimit || wall.is_some() {
            return Some(result);
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
        Some(confirmed)
    }

    /// Runs `job` for `test` and judges it; `None` if the grading was
    /// interrupted.
    fn judge_run(&self, test: &Test, job: &Job) -> Option<TestResult> {
        Some(match self.sandbox.run(job) {
            Ok(run) => judge(test, &run, &self.plan),
            Err(SandboxError::Interrupted) => return None,
            // The sandbox failing is not the program's doing, but it stops
            // only this test, never the grading.
            Err(e) => TestResult::not_run(
                &test.name,
                Verdict::Crashed,
                format!("the sandbox could not run it: {e}"),
            ),
        })
    }

    /// The smallest input found on which the program fails as it failed
    /// `test` (`failed`, a run that took `took`), within `budget`: see
    /// [`shrink`]. Each candidate's expected answer is made as the tests'
    /// are; one the referee (or the console) rejects is no candidate. The
    /// result is run once more and kept only if it fails the same way again,
    /// so a flaky program is never shown an input it passed. `None` if
    /// nothing smaller fails.
    fn shrink(
        &self,
        start: &Path,
        run: &str,
        test: &Test,
        failed: &TestResult,
        took: Duration,
        budget: Budget,
    ) -> Result<Option<Shrunk>, Interrupted> {
        let plan = &self.plan;
        let began = Instant::now();
        let pieces = match plan.expected {
            Expected::Referee(_) => shrink::Pieces::move_file(&test.input),
            Expected::Console { .. } => shrink::Pieces::script(&test.input),
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
            suite::answer(&plan.expected, &test.input).map_or((0, false), |a| (a.violations, a.finished));
        let mut oracle = |input: &[u8], change: shrink::Change| {
            // Time runs out for candidates the referee rejects too (pairs of
            // lines in a long file are many).
            let left = budget.time.saturating_sub(began.elapsed() + took);
            if runs + 1 >= budget.runs || left < took {
                return shrink::Tried::Stop;
            }
            let Ok(answer) = suite::answer(&plan.expected, input) else { return shrink::Tried::Not };
            // A game that ended still ends: cut short, it would fail for
            // another reason (few programs handle moves running out, which
            // assignments often promise never happens); and a smaller square
            // breaks no more rules than the one it replaces.
            if (finished && !answer.finished)
                || (change == shrink::Change::Simplification && answer.violations > violations)
            {
                return shrink::Tried::Not;
            }
            runs += 1;
            let candidate = Test { name: test.name.clone(), input: input.to_vec(), expected: answer.text };
            match self.run_test(start, run, &candidate, Some(left)) {
                Some(result) if failed.same_failure(&result) => {
                    violations = answer.violations;
                    shrink::Tried::Fails
                }
                Some(_) => shrink::Tried::Not,
                None => {
                    interrupted = true;
                    shrink::Tried::Stop
                }
            }
        };
        let (units, complete) = shrink::search(&pieces, &mut oracle);
        if interrupted {
            return Err(Interrupted);
        }
        let input = pieces.join(&units);
        if input == test.input {
            return Ok(None);
        }
        let Ok(answer) = suite::answer(&plan.expected, &input) else { return Ok(None) };
        let smallest = Test { name: test.name.clone(), input, expected: answer.text };
        runs += 1;
        let confirmed = self.run_test(start, run, &smallest, None).ok_or(Interrupted)?;
        if !failed.same_failure(&confirmed) {
            return Ok(None);
        }
        Ok(Some(Shrunk {
            input: shown(&smallest.input),
            lines: units.len(),
            original_lines: pieces.len(),
            found: shrink::Found::Game {
                unit: match plan.expected {
                    Expected::Referee(_) => "move lines",
                    Expected::Console { .. } => "lines",
                },
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
            moves: units
                .iter()
                .map(|u| String::from_utf8_lossy(u).trim_end_matches(['\r', '\n']).to_owned())
                .collect(),
            unmatched: confirmed.unmatched,
        }))
    }
}

/// A submission's score out of 100: its tests' mean.
fn mean_score(tests: &[TestResult]) -> f64 {
    #[allow(clippy::cast_precision_loss, reason = "test counts are small")]
    if tests.is_empty() {
        0.0
    } else {
        100.0 * tests.iter().map(|t| t.score).sum::<f64>() / tests.len() as f64
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

/// The grading was stopped while a test was being shrunk.
struct Interrupted;

/// Removes whatever is at `path`, a file or a directory; nothing there is
/// fine.
fn remove_entry(path: &Path) -> io::Result<()> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => {
            sandbox::remove_all(path);
            Ok(())
        }
        Ok(_) => fs::remove_file(path),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// A submission's name: its directory's last component (the real one for
/// `.` or a path ending in `/`).
#[must_use]
pub fn submission_name(path: &Path) -> String {
    let named = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned());
    named(path)
        .or_else(|| fs::canonicalize(path).ok().as_deref().and_then(named))
        .unwrap_or_else(|| path.display().to_string())
}
