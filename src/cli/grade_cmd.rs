//! `ttt-referee grade`: run submissions against tests in the sandbox, print
//! a table, write the reports.

use std::fs;
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};

use super::{CliError, EXIT_DIFFERENCES, EXIT_SUCCESS, LayoutArgs, Shown};
use crate::check::CheckOptions;
use crate::grade::{self, Io, Options, SubmissionResult, Test, Verdict, report};
use crate::output::{Durability, Staged};
use crate::play::{self, Profile, Thinking};
use crate::referee::{self, Format, RefereeError};
use crate::sandbox::{Limits, Sandbox, copy};

/// The exit status of a grading stopped by Ctrl-C or SIGTERM (128 + SIGINT,
/// as a shell reports it).
const EXIT_INTERRUPTED: u8 = 130;

pub(super) const AFTER_HELP: &str = "\
Each SUBMISSION is a directory named after its author. It is copied, built once
with --build (in the sandbox), and run once per test in a fresh copy. The
expected answer of each test is the referee's own transcript (with the
referee's layout options), or with --profile the console's session, so no
expected files are needed.

Verdicts: pass, wrong, no-output, time-limit, crashed, output-limit,
build-failed; when several apply, time-limit wins over output-limit over
crashed over no-output over wrong. A test scores 1 or 0 (with --partial, a
wrong answer scores its share of lines matched); a submission's score is out
of 100.

Every run starts by saying on standard error which protections are in force
on this machine. Exit status: 0 when every test passed, 1 when any did not,
2 when grading could not be done, 130 when Ctrl-C or SIGTERM stopped it.

Examples:
  ttt-referee grade --tests tests/ --build 'g++ -O2 -o prog *.cpp' students/*
  ttt-referee grade --tests tests/ --io args --run 'python3 ttt.py {moves} {out}' students/*
  ttt-referee grade --tests scripts/ --profile uri --build 'g++ -o prog *.cpp' students/*";

/// How a program receives its test and gives its answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum IoMode {
    /// The program reads TTTmoves.txt and writes TTTgame.txt in its directory.
    Files,
    /// The transcript is the program's standard output.
    Stdout,
    /// `{moves}` and `{out}` in --run are the input and output paths.
    Args,
}

#[derive(Debug, Args)]
pub(super) struct GradeArgs {
    /// The submissions: a directory each, named after its author.
    #[arg(value_name = "SUBMISSION", required = true)]
    submissions: Vec<PathBuf>,

    /// The tests: move files `*.txt` (with --profile, typed scripts `*.stdin`).
    #[arg(long, value_name = "DIR")]
    tests: PathBuf,

    /// Run once in each submission's copy before its tests (through /bin/sh).
    #[arg(long, value_name = "CMD")]
    build: Option<String>,

    /// The program's command line, split into words as a shell would.
    #[arg(long, value_name = "CMD", default_value = "./prog")]
    run: String,

    /// How the program receives its test and gives its transcript.
    #[arg(long, value_enum, default_value_t = IoMode::Files)]
    io: IoMode,

    /// The move file's name in the run directory, with --io files.
    #[arg(long, value_name = "NAME", default_value = "TTTmoves.txt", value_parser = plain_name)]
    input_name: String,

    /// The transcript's name in the run directory, with --io files.
    #[arg(long, value_name = "NAME", default_value = "TTTgame.txt", value_parser = plain_name)]
    output_name: String,

    /// Grade a console program: each script is its standard input, and its
    /// standard output must be what `play --profile P` prints.
    #[arg(long, value_enum, value_name = "P")]
    profile: Option<Profile>,

    /// The seed of the profile's computer players (as `play --seed`).
    #[arg(long, default_value_t = 0, requires = "profile")]
    seed: u64,

    /// Wall-clock time per test, in seconds (also the CPU time limit).
    #[arg(long, value_name = "SECONDS", default_value = "2", value_parser = super::parse_seconds)]
    time: Duration,

    /// Memory per process, in MB (its address space).
    #[arg(long, value_name = "MB", default_value_t = 512, value_parser = clap::value_parser!(u64).range(16..=1 << 20))]
    memory: u64,

    /// The most a run may write, in MB: standard output, standard error and
    /// files together, and each one.
    #[arg(long, value_name = "MB", default_value_t = 16, value_parser = clap::value_parser!(u64).range(1..=1 << 20))]
    output_limit: u64,

    /// How many processes a run may have at once.
    #[arg(long, value_name = "N", default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    processes: u64,

    /// The most a submission may hold, in MB (sparse files count at their
    /// full size); a larger one is refused, and the others are graded.
    #[arg(long, value_name = "MB", default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=1 << 20))]
    submission_limit: u64,

    /// The most files and directories a submission may hold.
    #[arg(long, value_name = "N", default_value_t = 2000, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    submission_files: u64,

    /// How many tests run at once [default: the number of CPUs].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1024))]
    jobs: Option<u64>,

    /// Score a wrong answer by its share of lines matched instead of 0.
    #[arg(long)]
    partial: bool,

    /// Compare bytes exactly instead of forgiving spacing and line ends.
    #[arg(long)]
    exact: bool,

    /// Write grades.csv, results.json, junit.xml and report.html into DIR.
    #[arg(long, value_name = "DIR")]
    report: Option<PathBuf>,

    /// Write Gradescope's results.json for the (one) submission.
    #[arg(long, value_name = "FILE")]
    gradescope: Option<PathBuf>,

    /// Refuse to grade unless every protection is in force.
    #[arg(long)]
    require_sandbox: bool,

    #[command(flatten)]
    layout: LayoutArgs,
}

fn plain_name(text: &str) -> Result<String, String> {
    if text.is_empty() || text.contains('/') || text == "." || text == ".." {
        Err("expected a file name without a directory, such as TTTmoves.txt".to_owned())
    } else {
        Ok(text.to_owned())
    }
}

#[allow(clippy::too_many_lines, reason = "flags to a plan, then results to files: one sequence")]
pub(super) fn run(args: &GradeArgs) -> Result<u8, CliError> {
    if args.gradescope.is_some() && args.submissions.len() != 1 {
        return Err(CliError::Message(format!(
            "--gradescope writes the results of one submission; {} were given",
            args.submissions.len()
        )));
    }
    if args.profile.is_some() && args.io != IoMode::Files {
        return Err(CliError::Message(
            "--io does not apply with --profile: a console program reads its script on standard input and answers on standard output".to_owned(),
        ));
    }
    for submission in &args.submissions {
        if !submission.is_dir() {
            return Err(CliError::Message(format!(
                "{}: not a directory; expected a submission's directory",
                submission.display()
            )));
        }
    }
    let tests = load_tests(args)?;

    let limits = Limits {
        wall: args.time,
        cpu: args.time,
        memory: args.memory << 20,
        output: args.output_limit << 20,
        processes: args.processes,
    };
    let build_limits = Limits {
        wall: Duration::from_mins(2),
        cpu: Duration::from_mins(2),
        memory: (args.memory << 20).max(4 << 30),
        output: (args.output_limit << 20).max(256 << 20),
        processes: args.processes.max(64),
    };
    let sandbox = Sandbox::new()
        .map_err(|e| CliError::Message(format!("cannot set up the sandbox's scratch directory: {e}")))?;
    let protections = sandbox
        .probe(limits)
        .map_err(|e| CliError::Message(format!("the sandbox does not work here: {e}")))?;
    let protection_text = protections.to_string();
    let _ = write!(io::stderr(), "ttt-referee: grading with these protections:\n{protection_text}");
    if args.require_sandbox && !protections.complete() {
        return Err(CliError::Message(
            "--require-sandbox: some protections are not in force on this machine (listed above)".to_owned(),
        ));
    }

    let io_mode = match (args.profile, args.io) {
        (Some(_), _) => Io::Console,
        (None, IoMode::Files) => {
            Io::Files { input: args.input_name.clone(), output: args.output_name.clone() }
        }
        (None, IoMode::Stdout) => Io::Stdout,
        (None, IoMode::Args) => Io::Args,
    };
    let options = Options {
        build: args.build.clone(),
        run: args.run.clone(),
        io: io_mode,
        limits,
        build_limits,
        jobs: args.jobs.map_or_else(
            || std::thread::available_parallelism().map_or(1, std::num::NonZero::get),
            |n| usize::try_from(n).unwrap_or(1),
        ),
        partial: args.partial,
        check: CheckOptions { exact: args.exact, skip_header: false },
        copy_caps: copy::Caps {
            bytes: args.submission_limit << 20,
            files: args.submission_files,
            depth: copy::Caps::SUBMISSION.depth,
        },
    };

    let total = (tests.len() * args.submissions.len()) as u64;
    let bar = if io::stderr().is_terminal() {
        let bar = ProgressBar::new(total);
        if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} tests {elapsed}") {
            bar.set_style(style);
        }
        bar
    } else {
        ProgressBar::hidden()
    };
    // Ctrl-C or SIGTERM: the runs under way are killed, the submissions
    // finished are reported, and the scratch directory goes; a second one
    // ends at once.
    let stop = sandbox.stopper();
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        let _ = signal_hook::flag::register_conditional_shutdown(
            signal,
            EXIT_INTERRUPTED.into(),
            Arc::clone(&stop),
        );
        let _ = signal_hook::flag::register(signal, Arc::clone(&stop));
    }
    let graded = grade::grade(&sandbox, &args.submissions, &tests, &options, &|| bar.inc(1))
        .map_err(|e| CliError::Message(format!("grading stopped: {e}")))?;
    bar.finish_and_clear();
    let results = graded.results;

    let mut stdout = io::stdout().lock();
    report::table(&results, &mut stdout).map_err(CliError::stdout)?;
    stdout.flush().map_err(CliError::stdout)?;

    let names: Vec<String> = tests.iter().map(|t| t.name.clone()).collect();
    if let Some(dir) = &args.report {
        fs::create_dir_all(dir).map_err(|source| CliError::write(dir, source))?;
        write_file(&dir.join("grades.csv"), |out| report::csv(&results, &names, out))?;
        write_file(&dir.join("results.json"), |out| report::json(&results, &limits, out))?;
        write_file(&dir.join("junit.xml"), |out| report::junit(&results, out))?;
        write_file(&dir.join("report.html"), |out| report::html_page(&results, &protection_text, out))?;
    }
    if let (Some(path), [result]) = (&args.gradescope, results.as_slice()) {
        write_file(path, |out| report::gradescope(result, out))?;
    }
    drop(sandbox);
    if !graded.not_graded.is_empty() {
        let names: Vec<String> = graded.not_graded.iter().map(|n| report::inert(n).into_owned()).collect();
        let _ = writeln!(
            io::stderr(),
            "ttt-referee: interrupted: {} of {} submissions graded; not graded: {}",
            results.len(),
            args.submissions.len(),
            names.join(", ")
        );
        return Ok(EXIT_INTERRUPTED);
    }
    Ok(if results.iter().all(all_passed) { EXIT_SUCCESS } else { EXIT_DIFFERENCES })
}

fn all_passed(result: &SubmissionResult) -> bool {
    result.tests.iter().all(|t| t.verdict == Verdict::Pass)
}

/// Writes a report file whole (renamed into place once synced).
fn write_file(path: &Path, write: impl FnOnce(&mut Staged) -> io::Result<()>) -> Result<(), CliError> {
    super::write_whole(path, Durability::Synced, write)
}

/// The tests, sorted by name, each with its expected answer.
fn load_tests(args: &GradeArgs) -> Result<Vec<Test>, CliError> {
    let extension = if args.profile.is_some() { "stdin" } else { "txt" };
    let entries = fs::read_dir(&args.tests)
        .map_err(|source| CliError::Open { path: Shown::input(&args.tests), source })?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == extension))
        .collect();
    paths.sort();
    if paths.is_empty() {
        return Err(CliError::Message(format!(
            "{}: no tests; expected files named *.{extension}",
            args.tests.display()
        )));
    }
    let options = args.layout.options(Format::Text);
    paths
        .iter()
        .map(|path| {
            let input =
                fs::read(path).map_err(|source| CliError::Read { path: Shown::input(path), source })?;
            let mut expected = Vec::new();
            match args.profile {
                Some(profile) => {
                    let mut console = profile.console(
                        [play::Side::Human, profile.default_second()],
                        Thinking::default(),
                        crate::board::Geometry::CLASSIC,
                        false,
                        input.as_slice(),
                        &mut expected,
                    );
                    play::session(console.as_mut(), args.seed, |_, _| Ok::<(), play::PlayError>(()))
                        .map_err(|e| {
                            CliError::Message(format!(
                                "{}: the profile cannot play this script: {e}",
                                path.display()
                            ))
                        })?;
                }
                None => {
                    referee::referee(input.as_slice(), &mut expected, &options).map_err(|e| match e {
                        RefereeError::Parse(error) => CliError::Malformed { path: Shown::input(path), error },
                        error => CliError::Unplayable { path: Shown::input(path), error },
                    })?;
                }
            }
            let name = path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            Ok(Test { name, input, expected })
        })
        .collect()
}
