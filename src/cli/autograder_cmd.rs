//! `ttt-referee autograder gradescope|github`: package a grading where
//! courses grade. Each carries this ttt-referee (and its guard), the tests,
//! and the `grade` options given here, so the platform grades exactly as
//! `grade` does on the TA's machine.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

use clap::{ArgMatches, Args, Subcommand, parser::ValueSource};

use super::error::Shown;
use super::grade_cmd::{PlanArgs, ScoringArgs};
use super::{CliError, EXIT_ERROR, EXIT_SUCCESS};
use crate::grade::package::portable::Glibc;
use crate::grade::package::{self, PackageError, Written, trial};
use crate::grade::{Mode, suite};
use crate::text;

pub(super) const AFTER_HELP: &str = "\
Every grade option given here (limits, --header, --io, --build/--run,
--warnings, --points, visibility patterns, ...) is passed on to `grade` as
written. The tests directory is carried along (with its grade.toml, or
--config's file), and so are --provided's files, this ttt-referee and the ttt-guard beside it (or --binary's).
They must start on the platform: statically linked, or needing no glibc newer
than Gradescope's oldest image has (2.27; GitHub's runner: 2.39). A binary that
would not is refused, with the command that builds a static one from any
directory:
  cargo install --locked --path REPO --root ttt-static --target x86_64-unknown-linux-gnu \\
      --config 'target.x86_64-unknown-linux-gnu.rustflags=[\"-C\",\"target-feature=+crt-static\"]'

Examples:
  ttt-referee autograder gradescope --tests tests/ --points 20 --hidden 'secret-*' \\
      --binary ttt-static/bin/ttt-referee -o autograder.zip
  ttt-referee autograder github --tests tests/ --out-dir my-template-repo/";

#[derive(Debug, Subcommand)]
pub(super) enum AutograderCommand {
    /// Write the zip Gradescope takes: its setup and run scripts, the tests
    /// and the grader.
    #[command(after_help = AFTER_HELP)]
    Gradescope(GradescopeArgs),
    /// Write a GitHub Classroom / Actions workflow that grades the
    /// repository on every push.
    #[command(after_help = AFTER_HELP)]
    Github(GithubArgs),
    /// Try a package before uploading it: run a Gradescope zip's `setup.sh`
    /// and `run_autograder` (or a GitHub template's grading step) on one
    /// submission in a scratch directory, and print the results.
    #[command(after_help = TRY_AFTER_HELP)]
    Try(TryArgs),
}

const TRY_AFTER_HELP: &str = "\
A zip is unpacked into a scratch autograder/ laid out as Gradescope's
/autograder (source/, submission/, results/); its setup.sh runs, then
run_autograder, as Gradescope runs them (as this user, installing into the
scratch directory instead of /usr/local), and results.json's score and tests
are printed. A directory is a GitHub template (.github/ttt-referee/grade):
the submission is checked out beside its .github/ and the grading step runs
as the workflow runs it. The grading inside is grade's, in its sandbox.
Exit status 0 when the platform would have results, 2 when not.

Examples:
  ttt-referee autograder gradescope --tests tests/ -o autograder.zip
  ttt-referee autograder try autograder.zip students/ada
  ttt-referee autograder try my-template-repo/ students/ada";

#[derive(Debug, Args)]
pub(super) struct TryArgs {
    /// The package: a Gradescope zip, or a GitHub template repository.
    #[arg(value_name = "ZIP|DIR")]
    package: PathBuf,
    /// The submission to grade with it: a directory of the student's files.
    #[arg(value_name = "SUBMISSION")]
    submission: PathBuf,
    /// Keep the scratch directory (its path is printed) to look into.
    #[arg(long)]
    keep: bool,
}

#[derive(Debug, Args)]
pub(super) struct GradescopeArgs {
    #[command(flatten)]
    plan: PlanArgs,

    #[command(flatten)]
    scoring: ScoringArgs,

    /// The ttt-referee to carry (its ttt-guard beside it) [default: this one].
    #[arg(long, value_name = "FILE")]
    binary: Option<PathBuf>,

    /// The glibc of the base image the autograder will run on, if newer than
    /// Ubuntu 18.04's (2.27): 2.35 for Ubuntu 22.04, 2.39 for 24.04. A
    /// binary needing more is refused.
    #[arg(long, value_name = "X.Y")]
    glibc: Option<Glibc>,

    /// Where to write the zip. (`--out` is the old spelling.)
    #[arg(short, long, value_name = "FILE", default_value = "autograder.zip", alias = "out")]
    output: PathBuf,
}

#[derive(Debug, Args)]
pub(super) struct GithubArgs {
    #[command(flatten)]
    plan: PlanArgs,

    /// The ttt-referee to carry (its ttt-guard beside it) [default: this one].
    #[arg(long, value_name = "FILE")]
    binary: Option<PathBuf>,

    /// The assignment's points in GitHub Classroom, shared among the tests
    /// in hundredths that add up.
    #[arg(long, value_name = "N", value_parser = super::grade_cmd::positive_points)]
    points: Option<f64>,

    /// The glibc of the runner the workflow will run on, if not
    /// ubuntu-latest's (Ubuntu 24.04, 2.39). A binary needing more is
    /// refused.
    #[arg(long, value_name = "X.Y")]
    glibc: Option<Glibc>,

    /// The repository to write into: `.github/workflows/grade.yml` and
    /// `.github/ttt-referee/` (the grader, the tests, the grading step).
    #[arg(long, value_name = "DIR", default_value = ".")]
    out_dir: PathBuf,
}

pub(super) fn run(command: &AutograderCommand, matches: &ArgMatches) -> Result<u8, CliError> {
    match command {
        AutograderCommand::Try(args) => return try_package(args),
        AutograderCommand::Gradescope(args) => {
            args.scoring.scoring()?;
            let written =
                with_contents(&args.plan, args.binary.as_deref(), args.glibc, matches, |contents| {
                    package::gradescope(contents, &args.output)
                })?;
            let what = match written.tests {
                Some(tests) => format!("{tests} tests"),
                None => "functions graded one by one".to_owned(),
            };
            let _ = writeln!(
                io::stderr(),
                "ttt-referee: wrote {} ({what}); upload it as the assignment's autograder (Ubuntu base image)",
                args.output.display(),
            );
        }
        AutograderCommand::Github(args) => {
            with_contents(&args.plan, args.binary.as_deref(), args.glibc, matches, |contents| {
                package::github(contents, &args.out_dir)
            })?;
            let _ = writeln!(
                io::stderr(),
                "ttt-referee: wrote .github/workflows/grade.yml and {} in {}; commit them to the assignment's template repository",
                format_args!("{}/", package::GITHUB_HOME),
                args.out_dir.display()
            );
        }
    }
    Ok(EXIT_SUCCESS)
}

/// `autograder try`: the package run on the submission, and what it gave.
fn try_package(args: &TryArgs) -> Result<u8, CliError> {
    if !args.submission.is_dir() {
        return Err(CliError::NoDirectory {
            path: Shown::input(&args.submission),
            what: "a submission directory",
            error: std::fs::metadata(&args.submission).err(),
        });
    }
    let scratch = tempfile::Builder::new()
        .prefix("ttt-referee-try-")
        .tempdir()
        .map_err(|source| CliError::write(&std::env::temp_dir(), source))?;
    // Removed on Ctrl-C, SIGTERM or SIGHUP too (a signal in the instant
    // between its making and this leaves it empty).
    let _listed = crate::output::Listed::new(scratch.path());
    let trial =
        trial::try_package(&args.package, &args.submission, scratch.path()).map_err(CliError::Trial)?;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "ttt-referee: tried {} on {} as {} does",
        args.package.display(),
        args.submission.display(),
        trial.platform
    );
    for step in &trial.steps {
        let status =
            step.status.map_or_else(|| "killed by a signal".to_owned(), |s| format!("exit status {s}"));
        let _ = writeln!(out, "{}: {status}", step.name);
        if step.status != Some(0) {
            // The script's last lines say why.
            let lines: Vec<&str> = step.output.lines().collect();
            for line in &lines[lines.len().saturating_sub(20)..] {
                let _ = writeln!(out, "  | {}", text::inert(line));
            }
        }
    }
    let shown = trial.results.as_ref().map(|results| match trial.platform {
        "Gradescope" => gradescope_summary(results),
        _ => trial.summary.as_deref().map_or_else(|| github_summary(results), text::markdown_read),
    });
    match &shown {
        Some(summary) => out.push_str(summary),
        None => {
            let _ = writeln!(
                out,
                "no results: {} was not written (or is not JSON)",
                trial.results_path.display()
            );
        }
    }
    if args.keep {
        let kept = scratch.keep();
        let _ = writeln!(out, "the scratch directory is kept: {}", kept.display());
    }
    io::stdout().write_all(out.as_bytes()).map_err(CliError::stdout)?;
    Ok(if shown.is_some() { EXIT_SUCCESS } else { EXIT_ERROR })
}

/// Gradescope's `results.json` in lines: the score, each test's status and
/// points, and the output shown above the tests.
fn gradescope_summary(results: &serde_json::Value) -> String {
    let mut out = String::new();
    let number = |v: &serde_json::Value| v.as_f64().unwrap_or(0.0);
    let tests = results["tests"].as_array().map(Vec::as_slice).unwrap_or_default();
    let max: f64 = tests.iter().map(|t| number(&t["max_score"])).sum();
    let _ = writeln!(out, "score: {:.2} of {max:.2}, {} tests", number(&results["score"]), tests.len());
    for test in tests {
        let name = text::inert(test["name"].as_str().unwrap_or("?")).into_owned();
        let status = text::inert(test["status"].as_str().unwrap_or("-")).into_owned();
        let _ = write!(
            out,
            "  {status:<7} {name}  {:.2}/{:.2}",
            number(&test["score"]),
            number(&test["max_score"])
        );
        match test["visibility"].as_str() {
            Some(v) if v != "visible" => {
                let _ = writeln!(out, "  ({})", text::inert(v));
            }
            _ => out.push('\n'),
        }
    }
    if let Some(output) = results["output"].as_str().filter(|o| !o.is_empty()) {
        // Markdown for Gradescope's page, read back for the terminal.
        let shown = if results["output_format"] == "md" {
            text::markdown_read(output)
        } else {
            text::inert_lines(output).into_owned()
        };
        let _ = writeln!(out, "output: {}", shown.trim_end());
    }
    out
}

/// The GitHub step's Classroom `result.json` in lines, when it wrote no
/// summary.
fn github_summary(results: &serde_json::Value) -> String {
    format!(
        "status: {}, max score {}\n",
        text::inert(results["status"].as_str().unwrap_or("?")),
        results["max_score"].as_f64().unwrap_or(0.0)
    )
}

/// Writes a package with `write` from the command's arguments, after
/// reading the plan (which gives the TA every error `grade` would give).
fn with_contents(
    plan: &PlanArgs,
    binary: Option<&Path>,
    glibc: Option<Glibc>,
    matches: &ArgMatches,
    write: impl FnOnce(&package::Contents<'_>) -> Result<Written, PackageError>,
) -> Result<Written, CliError> {
    let read = plan.plan()?;
    let provided = match &read.mode {
        Mode::Program(program) => program.provided.as_ref(),
        Mode::Play(bots) => bots.program.provided.as_ref(),
        Mode::Calls(_) => None,
    };
    let binary = match binary {
        Some(path) => path.to_owned(),
        None => std::env::current_exe().map_err(CliError::CurrentExe)?,
    };
    let config = suite::config_file(plan.config.as_deref(), plan.tests.as_deref());
    let options = passed_on(matches);
    let contents = package::Contents {
        binary: &binary,
        tests: plan.tests.as_deref(),
        config: config.as_deref(),
        provided,
        options: &options,
        glibc,
    };
    write(&contents).map_err(CliError::package)
}

/// The `grade` options given on this command line, as written, but for
/// `--tests`, `--config` and `--provided` (the package carries those) and
/// the package's own options: what the platform's `grade` is to be given.
fn passed_on(matches: &ArgMatches) -> Vec<OsString> {
    let mut command = clap::Command::new("grade");
    command = ScoringArgs::augment_args(PlanArgs::augment_args(command));
    let mut args = Vec::new();
    // In the order `grade` declares them; those this command has not (such
    // as --points for GitHub) are not asked about.
    let given: Vec<&str> = matches.ids().map(clap::Id::as_str).collect();
    for arg in command.get_arguments() {
        let id = arg.get_id().as_str();
        if matches!(id, "tests" | "config" | "provided")
            || !given.contains(&id)
            || matches.value_source(id) != Some(ValueSource::CommandLine)
        {
            continue;
        }
        let Some(long) = arg.get_long() else { continue };
        if arg.get_action().takes_values() {
            for value in matches.get_raw(id).into_iter().flatten() {
                args.push(OsString::from(format!("--{long}")));
                args.push(value.to_owned());
            }
        } else {
            args.push(OsString::from(format!("--{long}")));
        }
    }
    args
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory as _;

    use super::*;

    #[test]
    fn the_options_given_are_passed_on_as_written() {
        let matches = super::super::Cli::command()
            .try_get_matches_from([
                "ttt-referee",
                "autograder",
                "gradescope",
                "--tests",
                "t",
                "--time",
                "5",
                "--open-files",
                "64",
                "--header",
                "skip",
                "--partial",
                "--hidden",
                "s *",
                "--hidden",
                "x",
                "--run",
                "python3 'a b.py'",
                "--warnings",
                "--provided",
                "fixtures/class/students/ben-cpp",
                "-o",
                "z.zip",
            ])
            .unwrap();
        let sub = matches.subcommand_matches("autograder").unwrap().subcommand_matches("gradescope").unwrap();
        assert_eq!(
            package::shell_line(&passed_on(sub)),
            "--run 'python3 '\\''a b.py'\\''' --time 5 --open-files 64 --partial --header skip --warnings --hidden 's *' --hidden x"
        );
    }
}
