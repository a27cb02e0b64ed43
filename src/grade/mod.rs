//! `grade`: run people's programs against tests in the [`sandbox`] and say
//! how each did.
//!
//! The expected output of every test comes from ttt-referee itself: the
//! referee's transcript of a move file, or a console profile's session for a
//! typed script. Each submission is copied and built once; each test runs in
//! a fresh copy of the build. Verdicts follow [`Verdict`]'s order.

pub mod report;

use std::fmt::{self, Write as _};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rayon::prelude::*;
use serde::Serialize;

use crate::check::{CheckOptions, Comparison, Difference, Unmatched, compare};
use crate::sandbox::{self, Collect, Ending, Job, Limits, Outcome, Run, Sandbox, SandboxError, copy};

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

/// One test: its name (the file name), what the program is given, and what
/// it should produce.
#[derive(Clone, Debug)]
pub struct Test {
    /// The test file's name, such as `game-0001.txt`.
    pub name: String,
    /// The move file or typed script.
    pub input: Vec<u8>,
    /// The referee's transcript, or the profile's session.
    pub expected: Vec<u8>,
}

/// Everything that says how to grade.
#[derive(Clone, Debug)]
pub struct Options {
    /// A shell command run once in each submission's private copy.
    pub build: Option<String>,
    /// The program's command line, split into words as a shell would.
    pub run: String,
    /// How it reads and writes.
    pub io: Io,
    /// Limits for each test run.
    pub limits: Limits,
    /// Limits for the build.
    pub build_limits: Limits,
    /// How many tests run at once.
    pub jobs: usize,
    /// Score a wrong answer by its share of lines matched.
    pub partial: bool,
    /// How answers are compared (`check`'s tolerant comparison by default).
    pub check: CheckOptions,
    /// The most a submission may hold to be copied and graded.
    pub copy_caps: copy::Caps,
}

/// The verdict on one test. When several apply, the earliest here wins
/// (after `BuildFailed`, which leaves nothing to run).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The submission did not build; nothing ran.
    BuildFailed,
    /// Killed at the wall-clock or CPU limit.
    TimeLimit,
    /// Wrote more than the output limit.
    OutputLimit,
    /// Killed by a signal, or exited with a status other than 0.
    Crashed,
    /// Wrote no answer, or an empty one.
    NoOutput,
    /// Answered, but not what the referee says.
    Wrong,
    /// Answered what the referee says.
    Pass,
}

impl Verdict {
    /// Every verdict, in the order reports list them.
    pub const ALL: [Verdict; 7] = [
        Verdict::Pass,
        Verdict::Wrong,
        Verdict::NoOutput,
        Verdict::TimeLimit,
        Verdict::Crashed,
        Verdict::OutputLimit,
        Verdict::BuildFailed,
    ];

    /// The verdict's name in reports: `pass`, `time-limit`, ….
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Wrong => "wrong",
            Verdict::NoOutput => "no-output",
            Verdict::TimeLimit => "time-limit",
            Verdict::Crashed => "crashed",
            Verdict::OutputLimit => "output-limit",
            Verdict::BuildFailed => "build-failed",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How one test went.
#[derive(Clone, Debug, Serialize)]
pub struct TestResult {
    /// The test's name.
    pub test: String,
    /// The verdict.
    pub verdict: Verdict,
    /// 1 for a pass, 0 otherwise; with partial credit a wrong answer's
    /// share of lines matched.
    pub score: f64,
    /// What happened, in a few words: `killed by SIGSEGV`, `exit status 3`,
    /// `the first difference is at line 7`….
    pub detail: String,
    /// Wall-clock time of the run, in seconds.
    pub wall: f64,
    /// CPU time of the run, in seconds.
    pub cpu: f64,
    /// The exit status, if the program exited.
    pub exit_status: Option<i32>,
    /// The signal that killed it, if one did.
    pub signal: Option<String>,
    /// Lines of the expected answer matched, and lines expected.
    pub lines_matched: Option<(usize, usize)>,
    /// The first difference from the expected answer.
    pub first_difference: Option<Difference>,
    /// The expected answer (for reports that show it), cut at
    /// [`SHOWN_BYTES`].
    #[serde(skip)]
    pub expected: String,
    /// The program's answer, cut at [`SHOWN_BYTES`].
    #[serde(skip)]
    pub actual: String,
    /// The lines of each that the comparison left unmatched, which the
    /// HTML report marks.
    #[serde(skip)]
    pub unmatched: Unmatched,
}

impl TestResult {
    /// A test whose program never ran to an end: a failed build, a refused
    /// submission, a sandbox that could not run it.
    fn not_run(test: &Test, verdict: Verdict, detail: String) -> TestResult {
        TestResult {
            test: test.name.clone(),
            verdict,
            score: 0.0,
            detail,
            wall: 0.0,
            cpu: 0.0,
            exit_status: None,
            signal: None,
            lines_matched: None,
            first_difference: None,
            expected: String::new(),
            actual: String::new(),
            unmatched: Unmatched::default(),
        }
    }
}

/// How one submission did.
#[derive(Clone, Debug, Serialize)]
pub struct SubmissionResult {
    /// The submission's name: its directory's.
    pub submission: String,
    /// Out of 100.
    pub score: f64,
    /// Whether the build failed.
    pub build_failed: bool,
    /// The build's output (standard output, then standard error), if it ran.
    pub build_log: Option<String>,
    /// Each test, in the tests' order.
    pub tests: Vec<TestResult>,
}

impl SubmissionResult {
    /// How many tests had `verdict`.
    #[must_use]
    pub fn count(&self, verdict: Verdict) -> usize {
        self.tests.iter().filter(|t| t.verdict == verdict).count()
    }
}

/// The test's name in the run directory unless `--input-name` says otherwise.
pub const DEFAULT_INPUT: &str = "TTTmoves.txt";
/// The answer's name in the run directory unless `--output-name` says otherwise.
pub const DEFAULT_OUTPUT: &str = "TTTgame.txt";

/// The most of an answer reports keep to show.
pub const SHOWN_BYTES: usize = 64 << 10;

/// Why grading could not be done.
#[derive(Debug, thiserror::Error)]
pub enum GradeError {
    /// A scratch file or directory could not be made.
    #[error("{path}: {source}")]
    Io {
        /// The path concerned.
        path: PathBuf,
        /// What went wrong.
        source: io::Error,
    },
    /// The run command is not a command line.
    #[error("--run `{0}` is not a command line: {1}")]
    Command(String, String),
}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> GradeError + '_ {
    move |source| GradeError::Io { path: path.to_path_buf(), source }
}

/// What a grading produced: every submission it finished, and the ones an
/// interruption left ungraded.
#[derive(Clone, Debug)]
pub struct Graded {
    /// The submissions graded, in the order given.
    pub results: Vec<SubmissionResult>,
    /// The names of those not graded because the grading was stopped
    /// ([`Sandbox::stopper`]).
    pub not_graded: Vec<String>,
}

/// Grades every submission on every test. `progress` is called after each
/// test (and each failed build) with the number done. When the sandbox is
/// stopped, the submissions under way are dropped and the rest skipped.
pub fn grade(
    sandbox: &Sandbox,
    submissions: &[PathBuf],
    tests: &[Test],
    options: &Options,
    progress: &(dyn Fn() + Sync),
) -> Result<Graded, GradeError> {
    // Split once, so a bad command line is an error before anything runs.
    shell_words::split(&options.run).map_err(|e| GradeError::Command(options.run.clone(), e.to_string()))?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.jobs.max(1))
        .build()
        .map_err(|e| GradeError::Io { path: PathBuf::from("(thread pool)"), source: io::Error::other(e) })?;
    let mut graded = Graded { results: Vec::new(), not_graded: Vec::new() };
    for (index, submission) in submissions.iter().enumerate() {
        let area = sandbox.scratch().join(format!("submission-{index}"));
        let result = pool.install(|| grade_one(sandbox, submission, &area, tests, options, progress));
        sandbox::remove_all(&area);
        match result? {
            Some(result) => graded.results.push(result),
            None => graded.not_graded.push(submission_name(submission)),
        }
    }
    Ok(graded)
}

/// A submission's name: its directory's last component.
#[must_use]
pub fn submission_name(path: &Path) -> String {
    path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned())
}

/// Every test failed the same way before anything ran (a refused copy, a
/// failed build).
fn not_run(
    name: String,
    tests: &[Test],
    log: String,
    detail: &str,
    progress: &(dyn Fn() + Sync),
) -> SubmissionResult {
    let tests = tests
        .iter()
        .map(|test| {
            progress();
            TestResult::not_run(test, Verdict::BuildFailed, detail.to_owned())
        })
        .collect();
    SubmissionResult { submission: name, score: 0.0, build_failed: true, build_log: Some(log), tests }
}

fn grade_one(
    sandbox: &Sandbox,
    submission: &Path,
    area: &Path,
    tests: &[Test],
    options: &Options,
    progress: &(dyn Fn() + Sync),
) -> Result<Option<SubmissionResult>, GradeError> {
    let name = submission_name(submission);
    let source = area.join("source");
    fs::create_dir_all(&source).map_err(io_error(&source))?;
    // A root grader copies only what the submission's owner owns: no file
    // of anyone else's can be linked into it.
    let owner = sandbox.run_user().and_then(|_| fs::metadata(submission).ok()).map(|m| {
        use std::os::unix::fs::MetadataExt;
        m.uid()
    });
    if let Err(e) = copy::copy_tree(submission, &source, options.copy_caps, owner) {
        let why = format!("the submission was refused: {e}");
        return Ok(Some(not_run(name, tests, why.clone(), &why, progress)));
    }
    sandbox.hand_over(area).map_err(io_error(area))?;

    let mut start = source.clone();
    let mut build_log = None;
    if let Some(command) = &options.build {
        let built = area.join("built");
        let job = Job {
            argv: vec!["/bin/sh".to_owned(), "-c".to_owned(), command.clone()],
            start: Some(source),
            files: Vec::new(),
            stdin: None,
            collect: Collect::Tree(built.clone()),
            limits: options.build_limits,
            env: Vec::new(),
        };
        let (ok, mut log) = match sandbox.run(&job) {
            Ok(run) => {
                let mut log =
                    String::from_utf8_lossy(&run.stdout[..run.stdout.len().min(SHOWN_BYTES)]).into_owned();
                log.push_str(&String::from_utf8_lossy(&run.stderr[..run.stderr.len().min(SHOWN_BYTES)]));
                if run.outcome.ending == Ending::Exited(0) && run.answer.is_ok() {
                    (true, log)
                } else {
                    let why = run.answer.err().map(|e| format!(" ({e})")).unwrap_or_default();
                    let _ = write!(
                        log,
                        "\n[the build {}{why}]\n",
                        describe_ending(&run.outcome, &options.build_limits)
                    );
                    (false, log)
                }
            }
            Err(SandboxError::Interrupted) => return Ok(None),
            Err(e) => (false, format!("[the sandbox could not run the build: {e}]\n")),
        };
        if !ok {
            log.truncate(SHOWN_BYTES);
            return Ok(Some(not_run(name, tests, log, "the build failed", progress)));
        }
        build_log = Some(log);
        start = built;
        sandbox.hand_over(&start).map_err(io_error(&start))?;
    }

    // Collecting into an Option stops handing out tests once one was
    // interrupted.
    let Some(tests): Option<Vec<TestResult>> = tests
        .par_iter()
        .map(|test| {
            let result = run_test(sandbox, &start, test, options);
            progress();
            result
        })
        .collect()
    else {
        return Ok(None);
    };
    #[allow(clippy::cast_precision_loss, reason = "test counts are small")]
    let score = if tests.is_empty() {
        0.0
    } else {
        100.0 * tests.iter().map(|t| t.score).sum::<f64>() / tests.len() as f64
    };
    Ok(Some(SubmissionResult { submission: name, score, build_failed: false, build_log, tests }))
}

/// Runs one test in a fresh run directory that starts as the build; `None`
/// if the grading was interrupted.
fn run_test(sandbox: &Sandbox, start: &Path, test: &Test, options: &Options) -> Option<TestResult> {
    // The test is in the run directory under the input name in every mode
    // but a console's; `{moves}` and `{out}` in the command are its name and
    // the answer's (the run directory is the program's working directory).
    let (input, output) = match &options.io {
        Io::Files { input, output } => (input.as_str(), output.as_str()),
        _ => (DEFAULT_INPUT, DEFAULT_OUTPUT),
    };
    let run = options
        .run
        .replace("{moves}", &shell_words::quote(input))
        .replace("{out}", &shell_words::quote(output));
    let argv = shell_words::split(&run).unwrap_or_default();
    let (files, stdin, collect) = match &options.io {
        Io::Files { .. } | Io::Args => {
            (vec![(input.to_owned(), test.input.clone())], None, Collect::File(output.to_owned()))
        }
        // The move file is also the program's standard input.
        Io::Stdout => {
            (vec![(input.to_owned(), test.input.clone())], Some(test.input.clone()), Collect::Nothing)
        }
        // A console's script is only its standard input.
        Io::Console => (Vec::new(), Some(test.input.clone()), Collect::Nothing),
    };
    let job = Job {
        argv,
        start: Some(start.to_path_buf()),
        files,
        stdin,
        collect,
        limits: options.limits,
        env: Vec::new(),
    };
    Some(match sandbox.run(&job) {
        Ok(run) => judge(test, &run, options),
        Err(SandboxError::Interrupted) => return None,
        // The sandbox failing is not the program's doing, but it stops
        // only this test, never the grading.
        Err(e) => TestResult::not_run(test, Verdict::Crashed, format!("the sandbox could not run it: {e}")),
    })
}

/// The verdict on a finished run: see [`Verdict`] for the order.
fn judge(test: &Test, run: &Run, options: &Options) -> TestResult {
    let limits = &options.limits;
    let outcome = &run.outcome;
    let signal = match outcome.ending {
        Ending::Signalled(s) => Some(s),
        _ => None,
    };
    let answer: Result<&[u8], &str> = match (&options.io, &run.answer) {
        (Io::Files { .. } | Io::Args, Ok(bytes)) => Ok(bytes),
        (Io::Files { .. } | Io::Args, Err(why)) => Err(why),
        (Io::Stdout | Io::Console, _) => Ok(&run.stdout),
    };
    let mut comparison: Option<Comparison> = None;
    let (verdict, detail) = if outcome.ending == Ending::TimedOut || out_of_cpu(outcome, limits) {
        (Verdict::TimeLimit, describe_ending(outcome, limits))
    } else if outcome.disk_full || signal == Some(nix::libc::SIGXFSZ) || outcome.written > limits.output {
        (Verdict::OutputLimit, format!("it wrote more than {} MB", limits.output >> 20))
    } else if signal.is_some() || outcome.ending != Ending::Exited(0) {
        let mut detail = describe_ending(outcome, limits);
        if ran_out_of_memory(outcome, &run.stderr, limits) {
            let _ = write!(detail, " (memory: it reached the {} MB limit)", limits.memory >> 20);
        }
        (Verdict::Crashed, detail)
    } else {
        match answer {
            Err(why) => (Verdict::NoOutput, why.to_owned()),
            Ok([]) => (Verdict::NoOutput, "its answer is empty".to_owned()),
            Ok(answer) => {
                let c = compare(&test.expected, answer, options.check);
                let verdict = if c.matches() { Verdict::Pass } else { Verdict::Wrong };
                let detail = match &c.first_difference {
                    None => format!("all {} lines match", c.expected),
                    Some(d) => format!(
                        "the first difference: expected line {}, found line {}; {} of {} lines match",
                        d.expected.as_ref().map_or_else(|| "(end)".to_owned(), |(n, _)| n.to_string()),
                        d.actual.as_ref().map_or_else(|| "(end)".to_owned(), |(n, _)| n.to_string()),
                        c.matched,
                        c.expected
                    ),
                };
                comparison = Some(c);
                (verdict, detail)
            }
        }
    };
    let score = match verdict {
        Verdict::Pass => 1.0,
        Verdict::Wrong if options.partial => comparison.as_ref().map_or(0.0, Comparison::score),
        _ => 0.0,
    };
    let shown = |bytes: &[u8]| String::from_utf8_lossy(&bytes[..bytes.len().min(SHOWN_BYTES)]).into_owned();
    TestResult {
        test: test.name.clone(),
        verdict,
        score,
        detail,
        wall: outcome.wall.as_secs_f64(),
        cpu: outcome.cpu.as_secs_f64(),
        exit_status: match outcome.ending {
            Ending::Exited(code) => Some(code),
            _ => None,
        },
        signal: signal.map(signal_name),
        lines_matched: comparison.as_ref().map(|c| (c.matched, c.expected)),
        unmatched: comparison.as_ref().map(|c| c.unmatched.clone()).unwrap_or_default(),
        first_difference: comparison.and_then(|c| c.first_difference),
        expected: shown(&test.expected),
        actual: answer.map(shown).unwrap_or_default(),
    }
}

/// Killed at the CPU limit: `SIGXCPU` at the soft limit, `SIGKILL` at the
/// hard one.
fn out_of_cpu(outcome: &Outcome, limits: &Limits) -> bool {
    match outcome.ending {
        Ending::Signalled(s) => {
            s == nix::libc::SIGXCPU || (s == nix::libc::SIGKILL && outcome.cpu >= limits.cpu)
        }
        _ => false,
    }
}

/// A crash that the memory limit most likely caused: the program grew to
/// most of the limit, or said it had no memory left.
fn ran_out_of_memory(outcome: &Outcome, stderr: &[u8], limits: &Limits) -> bool {
    let said = String::from_utf8_lossy(stderr);
    outcome.out_of_memory
        || outcome.max_rss >= limits.memory / 10 * 8
        || ["bad_alloc", "Cannot allocate memory", "out of memory", "MemoryError", "OutOfMemoryError"]
            .iter()
            .any(|s| said.contains(s))
}

/// How a run ended, in words.
fn describe_ending(outcome: &Outcome, limits: &Limits) -> String {
    match outcome.ending {
        Ending::TimedOut => format!("was stopped at the time limit ({} s)", secs(limits.wall)),
        Ending::Signalled(s) if out_of_cpu(outcome, limits) => {
            format!("used its CPU time ({} s) and was killed by {}", secs(limits.cpu), signal_name(s))
        }
        Ending::Signalled(s) => format!("was killed by {}", signal_name(s)),
        Ending::Exited(code) => format!("exited with status {code}"),
    }
}

fn secs(d: Duration) -> String {
    format!("{}", d.as_secs_f64())
}

/// `SIGSEGV` for 11, and so on.
#[must_use]
pub fn signal_name(signal: i32) -> String {
    nix::sys::signal::Signal::try_from(signal)
        .map_or_else(|_| format!("signal {signal}"), |s| s.as_str().to_owned())
}
