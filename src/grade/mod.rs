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

use crate::check::{CheckOptions, Comparison, Difference, compare};
use crate::sandbox::{self, Ending, Job, Limits, Outcome, Sandbox, SandboxError};

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
    /// The sandbox failed (not the program in it).
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
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

/// Grades every submission on every test. `progress` is called after each
/// test (and each failed build) with the number done.
pub fn grade(
    sandbox: &Sandbox,
    submissions: &[PathBuf],
    tests: &[Test],
    options: &Options,
    progress: &(dyn Fn() + Sync),
) -> Result<Vec<SubmissionResult>, GradeError> {
    // Split once, so a bad command line is an error before anything runs.
    shell_words::split(&options.run).map_err(|e| GradeError::Command(options.run.clone(), e.to_string()))?;
    let scratch =
        tempfile::Builder::new().prefix("ttt-grade-").tempdir().map_err(io_error(Path::new("/tmp")))?;
    sandbox::open_for_runs(scratch.path()).map_err(io_error(scratch.path()))?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.jobs.max(1))
        .build()
        .map_err(|e| GradeError::Io { path: PathBuf::new(), source: io::Error::other(e) })?;
    let mut results = Vec::new();
    for (index, submission) in submissions.iter().enumerate() {
        let area = scratch.path().join(index.to_string());
        let result = pool.install(|| grade_one(sandbox, submission, &area, tests, options, progress))?;
        remove_all(&area);
        results.push(result);
    }
    Ok(results)
}

/// A submission's name: its directory's last component.
#[must_use]
pub fn submission_name(path: &Path) -> String {
    path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned())
}

fn grade_one(
    sandbox: &Sandbox,
    submission: &Path,
    area: &Path,
    tests: &[Test],
    options: &Options,
    progress: &(dyn Fn() + Sync),
) -> Result<SubmissionResult, GradeError> {
    let name = submission_name(submission);
    let build = area.join("build");
    fs::create_dir_all(&build).map_err(io_error(&build))?;
    copy_tree(submission, &build).map_err(io_error(submission))?;
    sandbox::hand_over(area).map_err(io_error(area))?;

    let mut build_log = None;
    if let Some(command) = &options.build {
        let job = Job {
            argv: vec!["/bin/sh".to_owned(), "-c".to_owned(), command.clone()],
            dir: build.clone(),
            stdin: None,
            stdout: area.join("build.out"),
            stderr: area.join("build.err"),
            limits: options.build_limits,
            // Compilers want a scratch directory; theirs is the build's own.
            env: vec![("TMPDIR".to_owned(), build.to_string_lossy().into_owned())],
        };
        let (outcome, _) = sandbox.run(&job)?;
        let mut log = String::from_utf8_lossy(
            &sandbox::read_capped(&job.stdout, SHOWN_BYTES as u64).unwrap_or_default(),
        )
        .into_owned();
        log.push_str(&String::from_utf8_lossy(
            &sandbox::read_capped(&job.stderr, SHOWN_BYTES as u64).unwrap_or_default(),
        ));
        if outcome.ending != Ending::Exited(0) {
            let _ = write!(log, "\n[the build {}]\n", describe_ending(&outcome, &options.build_limits));
            let tests = tests
                .iter()
                .map(|test| {
                    progress();
                    TestResult {
                        test: test.name.clone(),
                        verdict: Verdict::BuildFailed,
                        score: 0.0,
                        detail: "the build failed".to_owned(),
                        wall: 0.0,
                        cpu: 0.0,
                        exit_status: None,
                        signal: None,
                        lines_matched: None,
                        first_difference: None,
                        expected: String::new(),
                        actual: String::new(),
                    }
                })
                .collect();
            return Ok(SubmissionResult {
                submission: name,
                score: 0.0,
                build_failed: true,
                build_log: Some(log),
                tests,
            });
        }
        build_log = Some(log);
    }

    // Collecting into a Result stops handing out tests at the first error.
    let tests: Vec<TestResult> = tests
        .par_iter()
        .enumerate()
        .map(|(index, test)| {
            let result = run_test(sandbox, &build, &area.join(format!("t{index}")), test, options);
            progress();
            result
        })
        .collect::<Result<_, _>>()?;
    #[allow(clippy::cast_precision_loss, reason = "test counts are small")]
    let score = if tests.is_empty() {
        0.0
    } else {
        100.0 * tests.iter().map(|t| t.score).sum::<f64>() / tests.len() as f64
    };
    Ok(SubmissionResult { submission: name, score, build_failed: false, build_log, tests })
}

/// Runs one test in a fresh copy of the build, then removes the copy.
fn run_test(
    sandbox: &Sandbox,
    build: &Path,
    area: &Path,
    test: &Test,
    options: &Options,
) -> Result<TestResult, GradeError> {
    let dir = area.join("run");
    fs::create_dir_all(&dir).map_err(io_error(&dir))?;
    copy_tree(build, &dir).map_err(io_error(&dir))?;
    // The test is in the run directory under the input name in every mode
    // but a console's; `{moves}` and `{out}` in the command are its path and
    // the answer's.
    let input_name = match &options.io {
        Io::Files { input, .. } => input.clone(),
        _ => DEFAULT_INPUT.to_owned(),
    };
    let moves = dir.join(&input_name);
    let out = dir.join(match &options.io {
        Io::Files { output, .. } => output.as_str(),
        _ => DEFAULT_OUTPUT,
    });
    let run = options
        .run
        .replace("{moves}", &shell_words::quote(&moves.to_string_lossy()))
        .replace("{out}", &shell_words::quote(&out.to_string_lossy()));
    // A console's script stays outside its run directory.
    let input = if options.io == Io::Console { area.join("stdin") } else { moves };
    fs::write(&input, &test.input).map_err(io_error(&input))?;
    let (stdin, answer) = match &options.io {
        Io::Files { .. } | Io::Args => (None, Some(out)),
        // The move file is also the program's standard input.
        Io::Stdout | Io::Console => (Some(input), None),
    };
    sandbox::hand_over(area).map_err(io_error(area))?;
    let argv = shell_words::split(&run).map_err(|e| GradeError::Command(run.clone(), e.to_string()))?;
    let job = Job {
        argv,
        dir,
        stdin,
        stdout: area.join("stdout"),
        stderr: area.join("stderr"),
        limits: options.limits,
        env: Vec::new(),
    };
    let (outcome, _) = sandbox.run(&job)?;
    let answer = answer.as_deref().unwrap_or(&job.stdout);
    let bytes = sandbox::read_capped(answer, options.limits.output);
    let stderr = sandbox::read_capped(&job.stderr, 4096).unwrap_or_default();
    let result = judge(test, &outcome, bytes.as_deref(), &stderr, options);
    remove_all(area);
    Ok(result)
}

/// The verdict on a finished run: see [`Verdict`] for the order.
fn judge(
    test: &Test,
    outcome: &Outcome,
    answer: Option<&[u8]>,
    stderr: &[u8],
    options: &Options,
) -> TestResult {
    let limits = &options.limits;
    let signal = match outcome.ending {
        Ending::Signalled(s) => Some(s),
        _ => None,
    };
    let mut comparison: Option<Comparison> = None;
    let (verdict, detail) = if outcome.ending == Ending::TimedOut || out_of_cpu(outcome, limits) {
        (Verdict::TimeLimit, describe_ending(outcome, limits))
    } else if outcome.ending == Ending::OutputExceeded
        || signal == Some(nix::libc::SIGXFSZ)
        || outcome.written > limits.output
    {
        (Verdict::OutputLimit, format!("it wrote more than {} MB", limits.output >> 20))
    } else if signal.is_some() || outcome.ending != Ending::Exited(0) {
        let mut detail = describe_ending(outcome, limits);
        if ran_out_of_memory(outcome, stderr, limits) {
            let _ = write!(detail, " (memory: it reached the {} MB limit)", limits.memory >> 20);
        }
        (Verdict::Crashed, detail)
    } else {
        match answer {
            None => (Verdict::NoOutput, "it wrote no answer".to_owned()),
            Some([]) => (Verdict::NoOutput, "its answer is empty".to_owned()),
            Some(answer) => {
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
    outcome.max_rss >= limits.memory / 10 * 8
        || ["bad_alloc", "Cannot allocate memory", "out of memory", "MemoryError", "OutOfMemoryError"]
            .iter()
            .any(|s| said.contains(s))
}

/// How a run ended, in words.
fn describe_ending(outcome: &Outcome, limits: &Limits) -> String {
    match outcome.ending {
        Ending::TimedOut => format!("was stopped at the time limit ({} s)", secs(limits.wall)),
        Ending::OutputExceeded => format!("wrote more than {} MB", limits.output >> 20),
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

/// Copies the regular files and directories of `from` into `to` (symbolic
/// links and other special files are left out).
fn copy_tree(from: &Path, to: &Path) -> io::Result<()> {
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            fs::create_dir_all(&target)?;
            copy_tree(&entry.path(), &target)?;
        } else if kind.is_file() {
            fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

/// Removes a run's directory, even one whose program took its own
/// permissions away.
fn remove_all(path: &Path) {
    fn open_up(path: &Path) {
        use std::os::unix::fs::PermissionsExt;
        let _ = fs::set_permissions(path, fs::Permissions::from_mode(0o700));
        if let Ok(entries) = fs::read_dir(path) {
            for entry in entries.flatten() {
                if entry.file_type().is_ok_and(|t| t.is_dir()) {
                    open_up(&entry.path());
                }
            }
        }
    }
    if fs::remove_dir_all(path).is_err() {
        open_up(path);
        let _ = fs::remove_dir_all(path);
    }
}
