//! `ttt-referee autograder gradescope|github`: package a grading where
//! courses grade. Each carries this ttt-referee (and its guard), the tests,
//! and the `grade` options given here, so the platform grades exactly as
//! `grade` does on the TA's machine.

use std::ffi::OsString;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

use clap::{ArgMatches, Args, Subcommand, parser::ValueSource};

use super::grade_cmd::{PlanArgs, ScoringArgs};
use super::{CliError, EXIT_SUCCESS};
use crate::grade::package::portable::Glibc;
use crate::grade::package::{self, PackageError, Written};
use crate::grade::{Mode, suite};

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
