//! The packages `autograder` writes, so a course's platform grades exactly
//! as `grade` does on the TA's machine: Gradescope's zip (its setup and run
//! scripts, the grader and the tests) and a GitHub repository's workflow
//! with the grader and the tests beside it. A package carries only binaries
//! its platform can start ([`portable`]).

pub mod portable;
pub mod trial;

use std::ffi::OsString;
use std::fs;
use std::io::{self, Write as _};
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use self::portable::{Platform, Unportable};
use super::suite;
use crate::output::{self, Durability};
use crate::workshop::provided::Provided;

/// Where the grader's files go inside a GitHub repository.
pub const GITHUB_HOME: &str = ".github/ttt-referee";

/// Why a package cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum PackageError {
    /// A file to carry cannot be read.
    #[error("{}: cannot read: {source}", .path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// The tests' directory cannot be listed.
    #[error("{}: cannot open: {source}", .path.display())]
    Open {
        /// The directory.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A binary to carry would not start on the platform; the message says
    /// how to build one that does.
    #[error(
        "{}: {why}; it would not start there. Build a statically linked ttt-referee and \
         ttt-guard, which start on any x86-64 Linux, into ttt-static/bin/ (this works from any \
         directory; if {} has moved, put your clone's path there):\n  {}\nthen pass \
         --binary ttt-static/bin/ttt-referee (or, if every image it will run on is newer, give \
         that image's glibc with --glibc: Ubuntu 22.04 has 2.35, 24.04 has 2.39)",
        .path.display(),
        portable::REPOSITORY,
        portable::static_build_command(portable::REPOSITORY)
    )]
    NotPortable {
        /// The binary.
        path: PathBuf,
        /// Why it would not start.
        why: Unportable,
    },
    /// The package cannot be written.
    #[error("{}: cannot write: {source}", .path.display())]
    Write {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
}

/// What a package carries: the grader (a `ttt-referee` with its
/// `ttt-guard` beside it), the tests (with their `grade.toml`), the
/// course's provided files, and the `grade` options to run them with.
#[derive(Clone, Debug)]
pub struct Contents<'a> {
    /// The `ttt-referee` to carry; its `ttt-guard` is beside it.
    pub binary: &'a Path,
    /// The tests' directory (`None` with `--api`: the cases are made anew).
    pub tests: Option<&'a Path>,
    /// The language table, if there is one.
    pub config: Option<&'a Path>,
    /// The course's provided files (`--provided`), carried under
    /// `provided/` and given to `grade` from there.
    pub provided: Option<&'a Provided>,
    /// `grade`'s options, as given, but for `--tests` and `--config`.
    pub options: &'a [OsString],
    /// The oldest glibc of the images the package will run on, when the
    /// TA knows it (`--glibc`); else that of the platform's oldest image.
    pub glibc: Option<portable::Glibc>,
}

/// What a package was written with.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Written {
    /// How many tests it carries (`None` with `--api`).
    pub tests: Option<usize>,
}

/// The files a package carries, by their path inside it, with their modes.
struct Package {
    files: Vec<(String, Vec<u8>, u32)>,
    written: Written,
}

impl Package {
    /// The grader and the tests, under `prefix`; the grader's binaries
    /// must start on `platform`.
    fn gather(contents: &Contents<'_>, prefix: &str, platform: Platform) -> Result<Package, PackageError> {
        let read = |path: &Path| {
            fs::read(path).map_err(|source| PackageError::Read { path: path.to_owned(), source })
        };
        let platform = contents.glibc.map_or(platform, portable::named);
        let mut package = Package { files: Vec::new(), written: Written::default() };
        let guard = contents.binary.with_file_name("ttt-guard");
        for (path, name) in [(contents.binary, "ttt-referee"), (guard.as_path(), "ttt-guard")] {
            let bytes = read(path)?;
            portable::check(&bytes, platform)
                .map_err(|why| PackageError::NotPortable { path: path.to_owned(), why })?;
            package.files.push((format!("{prefix}bin/{name}"), bytes, 0o755));
        }
        let mut tests: Vec<PathBuf> = Vec::new();
        if let Some(dir) = contents.tests {
            tests = suite::test_files(dir, &["txt", "stdin"])
                .map_err(|source| PackageError::Open { path: dir.to_owned(), source })?;
            package.written.tests = Some(tests.len());
        }
        for path in tests.iter().map(PathBuf::as_path).chain(contents.config) {
            let bytes = read(path)?;
            let name = if Some(path) == contents.config {
                "grade.toml".to_owned()
            } else {
                path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
            };
            package.files.push((format!("{prefix}tests/{name}"), bytes, 0o644));
        }
        // Their paths are UTF-8 (Provided::load refuses others).
        for (path, bytes, executable) in contents.provided.iter().flat_map(|p| p.files()) {
            let mode = if executable { 0o755 } else { 0o644 };
            package.files.push((
                format!("{prefix}provided/{}", path.to_string_lossy()),
                bytes.to_vec(),
                mode,
            ));
        }
        Ok(package)
    }

    fn add(&mut self, path: &str, text: String, mode: u32) {
        self.files.push((path.to_owned(), text.into_bytes(), mode));
    }
}

/// Writes Gradescope's autograder zip at `out`.
///
/// # Errors
/// When a file to carry cannot be read, a binary would not start on
/// Gradescope's oldest image ([`portable::GRADESCOPE`]), or the zip cannot
/// be written.
pub fn gradescope(contents: &Contents<'_>, out: &Path) -> Result<Written, PackageError> {
    let mut package = Package::gather(contents, "", portable::GRADESCOPE)?;
    package.add("setup.sh", SETUP.to_owned(), 0o755);
    let mut tests = if contents.tests.is_some() { "--tests \"$root/source/tests\" " } else { "" }.to_owned();
    if contents.provided.is_some() {
        tests.push_str("--provided \"$root/source/provided\" ");
    }
    package.add(
        "run_autograder",
        RUN_AUTOGRADER.replace("{tests}", &tests).replace("{options}", &shell_line(contents.options)),
        0o755,
    );
    output::write_whole(out, Durability::Synced, |file| {
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
        file.write_all(&bytes)
    })
    .map_err(|source| PackageError::Write { path: out.to_owned(), source })?;
    Ok(package.written)
}

/// Writes into the repository `out_dir` a workflow that grades it on every
/// push (`.github/workflows/grade.yml`), with the grader, the tests and the
/// grading step in [`GITHUB_HOME`].
///
/// # Errors
/// When a file to carry cannot be read, a binary would not start on
/// GitHub's runner ([`portable::GITHUB`]), or a file cannot be written.
pub fn github(contents: &Contents<'_>, out_dir: &Path) -> Result<Written, PackageError> {
    let prefix = format!("{GITHUB_HOME}/");
    let mut package = Package::gather(contents, &prefix, portable::GITHUB)?;
    let mut tests = if contents.tests.is_some() { "--tests \"$here/tests\" " } else { "" }.to_owned();
    if contents.provided.is_some() {
        tests.push_str("--provided \"$here/provided\" ");
    }
    package.add(
        &format!("{prefix}grade"),
        GITHUB_GRADE.replace("{tests}", &tests).replace("{options}", &shell_line(contents.options)),
        0o755,
    );
    package.add(".github/workflows/grade.yml", GITHUB_WORKFLOW.to_owned(), 0o644);
    for (path, bytes, mode) in &package.files {
        let target = out_dir.join(path);
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent).map_err(failed(parent))?;
        }
        output::write_whole(&target, Durability::Synced, |out| out.write_all(bytes))
            .map_err(failed(&target))?;
        fs::set_permissions(&target, fs::Permissions::from_mode(*mode)).map_err(failed(&target))?;
    }
    Ok(package.written)
}

/// The error of writing `path`.
fn failed(path: &Path) -> impl FnOnce(io::Error) -> PackageError + '_ {
    move |source| PackageError::Write { path: path.to_owned(), source }
}

/// `args` as shell words, each quoted as needed.
#[must_use]
pub fn shell_line(args: &[OsString]) -> String {
    args.iter().map(|a| shell_words::quote(&a.to_string_lossy()).into_owned()).collect::<Vec<_>>().join(" ")
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
/// submission; on GitHub's runners as root, through their passwordless
/// `sudo`, so that the sandbox has every protection.
const GITHUB_GRADE: &str = r#"#!/usr/bin/env bash
# Written by `ttt-referee autograder github`: grades this repository (but for
# .git and .github) as one submission. Run from the repository's root; exit 0
# when every test passes. TTT_REPORT says where the reports go.
#
# On GitHub's runners (GITHUB_ACTIONS=true) it grades as root through the
# runner's passwordless sudo: an ordinary user there may be refused user
# namespaces (AppArmor on Ubuntu 24.04) and has no cgroup of its own, and
# the sandbox needs both for every protection; as root it runs the student's
# program as an unused uid of its own. The summary lists any protection that
# is still missing. Elsewhere it grades as the user who runs it.
#
# It leaves the Markdown summary in $GITHUB_STEP_SUMMARY and, for GitHub
# Classroom's grading reporter, the result (base64 JSON) as the step's
# `result` output.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
report="${TTT_REPORT:-$PWD/ttt-report}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
submission="$work/$(basename "$PWD")"
mkdir "$submission"
tar --exclude=./.git --exclude=./.github --exclude=./ttt-report -cf - . | tar -C "$submission" -xf -
as=()
if [ "${GITHUB_ACTIONS:-}" = true ] && [ "$(id -u)" != 0 ] && sudo -n true 2>/dev/null; then
    as=(sudo -n env "PATH=$PATH")
fi
status=0
"${as[@]}" "$here/bin/ttt-referee" grade {tests}{options} --report "$report" --classroom "$report/classroom" "$submission" || status=$?
if [ "${#as[@]}" -gt 0 ]; then
    sudo -n chown -R "$(id -u):$(id -g)" "$report"
fi
classroom="$report/classroom"
if [ ! -s "$classroom/result.json" ]; then
    mkdir -p "$classroom"
    printf '{"version":1,"status":"error","max_score":0,"tests":[]}\n' > "$classroom/result.json"
    printf '### The grading could not be done\n\nttt-referee ended with exit status %s; the log of this step says why. Please tell your instructor.\n' "$status" > "$classroom/summary.md"
fi
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    cat "$classroom/summary.md" >> "$GITHUB_STEP_SUMMARY"
fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
    printf 'result=%s\n' "$(base64 -w0 < "$classroom/result.json")" >> "$GITHUB_OUTPUT"
fi
exit "$status"
"#;

/// The workflow: on every push, grade; the Markdown summary on the run's
/// page, the points to GitHub Classroom through its own grading reporter,
/// the reports kept as an artifact. Classroom takes points only from a
/// workflow named `Autograding Tests` whose one job is
/// `run-autograding-tests`.
const GITHUB_WORKFLOW: &str = r"# Written by `ttt-referee autograder github`: grades the student's program
# on every push and gives GitHub Classroom the points. The grader and the
# tests are in .github/ttt-referee/. GitHub Classroom takes points only from
# a workflow of this name with this one job: add no tests in Classroom's
# autograding page (it would write a second workflow).
name: Autograding Tests
on:
  push:
  workflow_dispatch:
permissions:
  checks: write
  actions: read
  contents: read
jobs:
  run-autograding-tests:
    runs-on: ubuntu-latest
    timeout-minutes: 15
    steps:
      - uses: actions/checkout@v4
      # As root, through the runner's sudo: the sandbox's every protection.
      - name: Grade
        id: grade
        run: .github/ttt-referee/grade
      - name: Report the points to GitHub Classroom
        if: always()
        uses: classroom-resources/autograding-grading-reporter@v1
        env:
          GRADE_RESULTS: ${{ steps.grade.outputs.result }}
        with:
          runners: grade
      - name: Keep the reports
        if: always()
        uses: actions/upload-artifact@v4
        with:
          name: ttt-report
          path: ttt-report/
";
