//! `ttt-referee autograder gradescope|github`: package a grading where
//! courses grade. Each carries this ttt-referee (and its guard), the tests,
//! and the `grade` options given here, so the platform grades exactly as
//! `grade` does on the TA's machine.

use std::ffi::OsString;
use std::fs;
use std::io::{self, Write as _};
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use clap::{ArgMatches, Args, Subcommand, parser::ValueSource};

use super::grade_cmd::{PlanArgs, ScoringArgs};
use super::{CliError, EXIT_SUCCESS};
use crate::grade::suite;
use crate::output::Durability;

pub(super) const AFTER_HELP: &str = "\
Every grade option given here (limits, --header, --io, --build/--run, --points,
visibility patterns, ...) is passed on to `grade` as written. The tests
directory is carried along (with its grade.toml, or --config's file), and so
are this ttt-referee and the ttt-guard beside it: build them with
`cargo build-static` (statically linked, for any Linux) and pass --binary.

Examples:
  cargo build-static
  ttt-referee autograder gradescope --tests tests/ --points 20 --hidden 'secret-*' \\
      --binary target/x86_64-unknown-linux-gnu/release/ttt-referee -o autograder.zip
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

    /// Where to write the zip.
    #[arg(short, long, value_name = "FILE", default_value = "autograder.zip")]
    out: PathBuf,
}

#[derive(Debug, Args)]
pub(super) struct GithubArgs {
    #[command(flatten)]
    plan: PlanArgs,

    /// The ttt-referee to carry (its ttt-guard beside it) [default: this one].
    #[arg(long, value_name = "FILE")]
    binary: Option<PathBuf>,

    /// The repository to write into: `.github/workflows/grade.yml` and
    /// `.github/ttt-referee/` (the grader, the tests, the grading step).
    #[arg(long, value_name = "DIR", default_value = ".")]
    out_dir: PathBuf,
}

/// Where the grader's files go inside a GitHub repository.
const GITHUB_HOME: &str = ".github/ttt-referee";

pub(super) fn run(command: &AutograderCommand, matches: &ArgMatches) -> Result<u8, CliError> {
    match command {
        AutograderCommand::Gradescope(args) => gradescope(args, matches),
        AutograderCommand::Github(args) => github(args, matches),
    }
}

/// The files a package carries, by their path inside it, with their modes.
struct Package {
    files: Vec<(String, Vec<u8>, u32)>,
}

impl Package {
    /// The grader, the tests (and the language table), gathered from the
    /// command's arguments.
    fn gather(plan: &PlanArgs, binary: Option<&Path>, prefix: &str) -> Result<Package, CliError> {
        // Reading the plan first gives the TA every error `grade` would give.
        plan.plan()?;
        let binary = match binary {
            Some(path) => path.to_owned(),
            None => std::env::current_exe().map_err(CliError::CurrentExe)?,
        };
        let guard = binary.with_file_name("ttt-guard");
        let mut files = Vec::new();
        for (path, name) in [(&binary, "ttt-referee"), (&guard, "ttt-guard")] {
            let bytes = fs::read(path)
                .map_err(|source| CliError::Read { path: super::Shown::input(path), source })?;
            if memchr::memmem::find(&bytes[..bytes.len().min(4096)], b"/ld-linux").is_some() {
                let _ = writeln!(
                    io::stderr(),
                    "ttt-referee: warning: {} is linked against this machine's C library, which the platform's \
                     may not match; `cargo build-static` makes one that runs anywhere (then pass --binary)",
                    path.display()
                );
            }
            files.push((format!("{prefix}bin/{name}"), bytes, 0o755));
        }
        // With --api there is no test directory: the cases are made anew.
        let mut tests: Vec<PathBuf> = Vec::new();
        if let Some(dir) = &plan.tests {
            tests = suite::test_files(dir, &["txt", "stdin"])
                .map_err(|source| CliError::Open { path: super::Shown::input(dir), source })?;
        }
        let config = suite::config_file(plan.config.as_deref(), plan.tests.as_deref());
        for path in tests.iter().chain(&config) {
            let bytes = fs::read(path)
                .map_err(|source| CliError::Read { path: super::Shown::input(path), source })?;
            let name = if Some(path) == config.as_ref() {
                "grade.toml".to_owned()
            } else {
                path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
            };
            files.push((format!("{prefix}tests/{name}"), bytes, 0o644));
        }
        Ok(Package { files })
    }

    fn add(&mut self, path: &str, text: String, mode: u32) {
        self.files.push((path.to_owned(), text.into_bytes(), mode));
    }
}

/// The `grade` options given on this command line, as written, but for
/// `--tests` and `--config` (the package carries those) and the package's
/// own options: what the platform's `grade` is to be given.
fn passed_on(matches: &ArgMatches) -> Vec<OsString> {
    let mut command = clap::Command::new("grade");
    command = ScoringArgs::augment_args(PlanArgs::augment_args(command));
    let mut args = Vec::new();
    // In the order `grade` declares them; those this command has not (such
    // as --points for GitHub) are not asked about.
    let given: Vec<&str> = matches.ids().map(clap::Id::as_str).collect();
    for arg in command.get_arguments() {
        let id = arg.get_id().as_str();
        if matches!(id, "tests" | "config")
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

/// `args` as shell words, each quoted as needed.
fn shell_line(args: &[OsString]) -> String {
    args.iter().map(|a| shell_words::quote(&a.to_string_lossy()).into_owned()).collect::<Vec<_>>().join(" ")
}

fn gradescope(args: &GradescopeArgs, matches: &ArgMatches) -> Result<u8, CliError> {
    args.scoring.scoring()?;
    let mut package = Package::gather(&args.plan, args.binary.as_deref(), "")?;
    let options = shell_line(&passed_on(matches));
    package.add("setup.sh", SETUP.to_owned(), 0o755);
    let tests = if args.plan.tests.is_some() { "--tests \"$root/source/tests\" " } else { "" };
    package.add(
        "run_autograder",
        RUN_AUTOGRADER.replace("{tests}", tests).replace("{options}", &options),
        0o755,
    );
    super::write_whole(&args.out, Durability::Synced, |out| {
        let mut zip = zip::ZipWriter::new(io::Cursor::new(Vec::new()));
        for (path, bytes, mode) in &package.files {
            // Binaries are stored as they are: compressing them takes longer
            // than it saves.
            let method = if *mode & 0o111 != 0 && path.starts_with("bin/") {
                zip::CompressionMethod::Stored
            } else {
                zip::CompressionMethod::Deflated
            };
            let options =
                zip::write::SimpleFileOptions::default().unix_permissions(*mode).compression_method(method);
            zip.start_file(path.as_str(), options).map_err(io::Error::other)?;
            zip.write_all(bytes)?;
        }
        let bytes = zip.finish().map_err(io::Error::other)?.into_inner();
        out.write_all(&bytes)
    })?;
    let tests =
        package.files.iter().filter(|(p, _, _)| p.starts_with("tests/") && p != "tests/grade.toml").count();
    let what = if args.plan.tests.is_some() {
        format!("{tests} tests")
    } else {
        "functions graded one by one".to_owned()
    };
    let _ = writeln!(
        io::stderr(),
        "ttt-referee: wrote {} ({what}); upload it as the assignment's autograder (Ubuntu base image)",
        args.out.display(),
    );
    Ok(EXIT_SUCCESS)
}

fn github(args: &GithubArgs, matches: &ArgMatches) -> Result<u8, CliError> {
    let prefix = format!("{GITHUB_HOME}/");
    let mut package = Package::gather(&args.plan, args.binary.as_deref(), &prefix)?;
    let options = shell_line(&passed_on(matches));
    let tests = if args.plan.tests.is_some() { "--tests \"$here/tests\" " } else { "" };
    package.add(
        &format!("{prefix}grade"),
        GITHUB_GRADE.replace("{tests}", tests).replace("{options}", &options),
        0o755,
    );
    package.add(".github/workflows/grade.yml", GITHUB_WORKFLOW.to_owned(), 0o644);
    for (path, bytes, mode) in &package.files {
        let target = args.out_dir.join(path);
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent).map_err(|source| CliError::write(parent, source))?;
        }
        super::write_whole(&target, Durability::Synced, |out| out.write_all(bytes))?;
        fs::set_permissions(&target, fs::Permissions::from_mode(*mode))
            .map_err(|source| CliError::write(&target, source))?;
    }
    let _ = writeln!(
        io::stderr(),
        "ttt-referee: wrote .github/workflows/grade.yml and {GITHUB_HOME}/ in {}; commit them to the assignment's template repository",
        args.out_dir.display()
    );
    Ok(EXIT_SUCCESS)
}

/// Gradescope's `setup.sh`: installs the grader where the sandbox can
/// reach it, and the compilers the built-in languages use.
const SETUP: &str = r#"#!/usr/bin/env bash
# Written by `ttt-referee autograder gradescope`. Gradescope runs it once, as
# root, when it builds the autograder's image. AUTOGRADER_ROOT and TTT_PREFIX
# are only for trying it out elsewhere.
set -euo pipefail
root="${AUTOGRADER_ROOT:-/autograder}"
prefix="${TTT_PREFIX:-/usr/local}"
install -d "$prefix/bin"
install -m 0755 "$root/source/bin/ttt-referee" "$root/source/bin/ttt-guard" "$prefix/bin/"
# The compilers and interpreters of grade's built-in languages.
need=()
command -v gcc >/dev/null || need+=(gcc)
command -v g++ >/dev/null || need+=(g++)
command -v make >/dev/null || need+=(make)
command -v python3 >/dev/null || need+=(python3)
command -v javac >/dev/null || need+=(default-jdk-headless)
if [ "${#need[@]}" -gt 0 ]; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${need[@]}"
fi
"$prefix/bin/ttt-referee" --version
"#;

/// Gradescope's `run_autograder`: grades the submission as one, and always
/// leaves a `results.json`.
const RUN_AUTOGRADER: &str = r#"#!/usr/bin/env bash
# Written by `ttt-referee autograder gradescope`. Gradescope runs it as root
# for each submission; students see results.json, the TA also this output.
set -u
root="${AUTOGRADER_ROOT:-/autograder}"
prefix="${TTT_PREFIX:-/usr/local}"
mkdir -p "$root/results"
results="$root/results/results.json"
rm -f "$results"
"$prefix/bin/ttt-referee" grade {tests}{options} --gradescope "$results" "$root/submission"
status=$?
# grade writes results.json even when it cannot grade; this is for when it
# could not run at all.
if [ ! -s "$results" ]; then
    printf '{"score": 0, "execution_time": 0, "output": "The autograder could not run ttt-referee (exit status %s). Please tell your instructor.", "tests": []}\n' "$status" > "$results"
fi
exit 0
"#;

/// The GitHub grading step: grades the repository's checkout as one
/// submission, as the runner's ordinary user.
const GITHUB_GRADE: &str = r#"#!/usr/bin/env bash
# Written by `ttt-referee autograder github`: grades this repository (but for
# .git and .github) as one submission. Run from the repository's root; exit 0
# when every test passes. TTT_REPORT says where the reports go.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
report="${TTT_REPORT:-$PWD/ttt-report}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
submission="$work/$(basename "$PWD")"
mkdir "$submission"
tar --exclude=./.git --exclude=./.github --exclude=./ttt-report -cf - . | tar -C "$submission" -xf -
"$here/bin/ttt-referee" grade {tests}{options} --report "$report" "$submission"
"#;

/// The workflow: on every push, grade, show the table in the run's summary,
/// keep the reports as an artifact.
const GITHUB_WORKFLOW: &str = r#"# Written by `ttt-referee autograder github`: grades the student's program
# on every push. The grader and the tests are in .github/ttt-referee/.
name: Grade
on:
  push:
  workflow_dispatch:
permissions:
  contents: read
jobs:
  grade:
    runs-on: ubuntu-latest
    timeout-minutes: 15
    steps:
      - uses: actions/checkout@v4
      - name: Grade
        run: |
          set -o pipefail
          .github/ttt-referee/grade | tee -a "$GITHUB_STEP_SUMMARY"
      - name: Keep the reports
        if: always()
        uses: actions/upload-artifact@v4
        with:
          name: ttt-report
          path: ttt-report/
"#;

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
                "-o",
                "z.zip",
            ])
            .unwrap();
        let sub = matches.subcommand_matches("autograder").unwrap().subcommand_matches("gradescope").unwrap();
        assert_eq!(
            shell_line(&passed_on(sub)),
            "--run 'python3 '\\''a b.py'\\''' --time 5 --open-files 64 --partial --header skip --hidden 's *' --hidden x"
        );
    }
}
