//! A package tried before it is uploaded (`autograder try`): Gradescope's
//! zip unpacked into a scratch `autograder/` laid out as Gradescope lays
//! out `/autograder` (`source/` the zip, `submission/` the student's files,
//! `results/`), its `setup.sh` and `run_autograder` run there as Gradescope
//! runs them (`AUTOGRADER_ROOT` and `TTT_PREFIX`, which the scripts read,
//! point them at the scratch directory instead of `/autograder` and
//! `/usr/local`), and its `results.json` read back; or a GitHub template's
//! grading step run on a scratch checkout. The grading inside is `grade`'s,
//! in its sandbox, as on the platform.

use std::fs;
use std::io;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::GITHUB_HOME;

/// Why a package could not be tried.
#[derive(Debug, thiserror::Error)]
pub enum TrialError {
    /// The package, or a file of it, cannot be read.
    #[error("{}: cannot read: {source}", .path.display())]
    Read {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// Not a Gradescope zip nor a GitHub template.
    #[error(
        "{}: neither a Gradescope zip (with setup.sh and run_autograder) nor a repository with {GITHUB_HOME}/grade",
        .path.display()
    )]
    NotAPackage {
        /// What was given.
        path: PathBuf,
    },
    /// The scratch directory could not be laid out.
    #[error("{}: cannot write: {source}", .path.display())]
    Write {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A script could not be started.
    #[error("{}: cannot run: {source}", .path.display())]
    Run {
        /// The script.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
}

/// One script's run: its exit status (`None`: killed by a signal) and its
/// output, standard output then standard error.
#[derive(Clone, Debug)]
pub struct Step {
    /// The script, as the platform names it (`setup.sh`).
    pub name: &'static str,
    /// Its exit status.
    pub status: Option<i32>,
    /// What it printed.
    pub output: String,
}

/// A package tried on one submission.
#[derive(Clone, Debug)]
pub struct Trial {
    /// The platform: `Gradescope` or `GitHub`.
    pub platform: &'static str,
    /// The scripts run, in order (a failed set-up is the last).
    pub steps: Vec<Step>,
    /// The results the platform reads: Gradescope's `results.json`, or
    /// the Classroom `result.json` of the GitHub step; `None` if none was
    /// written or it is not JSON.
    pub results: Option<serde_json::Value>,
    /// Where they are, in the scratch directory.
    pub results_path: PathBuf,
    /// The GitHub step's Markdown summary, if it wrote one.
    pub summary: Option<String>,
}

/// Tries `package` (a Gradescope zip, or a repository holding the GitHub
/// grading step) on `submission`, in `scratch` (an empty directory the
/// caller removes).
///
/// # Errors
/// [`TrialError`]: the package cannot be read or laid out, or a script
/// cannot be started. A script that fails is a [`Step`], not an error.
pub fn try_package(package: &Path, submission: &Path, scratch: &Path) -> Result<Trial, TrialError> {
    let meta =
        fs::metadata(package).map_err(|source| TrialError::Read { path: package.to_owned(), source })?;
    if meta.is_dir() {
        if !package.join(GITHUB_HOME).join("grade").is_file() {
            return Err(TrialError::NotAPackage { path: package.to_owned() });
        }
        return github(package, submission, scratch);
    }
    gradescope(package, submission, scratch)
}

/// Gradescope: `scratch/autograder/{source,submission,results}`, the
/// prefix `scratch/prefix`; `setup.sh` from `source/`, then
/// `run_autograder` copied to the root, as Gradescope does.
fn gradescope(zip: &Path, submission: &Path, scratch: &Path) -> Result<Trial, TrialError> {
    let root = scratch.join("autograder");
    let source = root.join("source");
    unzip(zip, &source)?;
    for script in ["setup.sh", "run_autograder"] {
        if !source.join(script).is_file() {
            return Err(TrialError::NotAPackage { path: zip.to_owned() });
        }
    }
    copy_tree(submission, &root.join("submission"))?;
    let run = |name: &'static str, script: &Path| -> Result<Step, TrialError> {
        let output = Command::new("bash")
            .arg(script)
            .current_dir(&root)
            .env("AUTOGRADER_ROOT", &root)
            .env("TTT_PREFIX", scratch.join("prefix"))
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|source| TrialError::Run { path: script.to_owned(), source })?;
        Ok(step(name, &output))
    };
    let mut steps = vec![run("setup.sh", &source.join("setup.sh"))?];
    let results_path = root.join("results").join("results.json");
    if steps[0].status == Some(0) {
        let runner = root.join("run_autograder");
        fs::copy(source.join("run_autograder"), &runner)
            .map_err(|source| TrialError::Write { path: runner.clone(), source })?;
        steps.push(run("run_autograder", &runner)?);
    }
    let results = read_json(&results_path);
    Ok(Trial { platform: "Gradescope", steps, results, results_path, summary: None })
}

/// GitHub: the submission checked out as `scratch/repo` with the
/// template's `.github/` beside it, its grading step run from there with
/// the reports in `scratch/report`, as the workflow runs it (but as the
/// user who tries it: no runner's sudo).
fn github(template: &Path, submission: &Path, scratch: &Path) -> Result<Trial, TrialError> {
    let repo = scratch.join("repo");
    copy_tree(submission, &repo)?;
    let github = repo.join(".github");
    if github.exists() {
        fs::remove_dir_all(&github).map_err(|source| TrialError::Write { path: github.clone(), source })?;
    }
    copy_tree(&template.join(".github"), &github)?;
    let report = scratch.join("report");
    let script = repo.join(GITHUB_HOME).join("grade");
    let output = Command::new("bash")
        .arg(&script)
        .current_dir(&repo)
        .env("TTT_REPORT", &report)
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .env_remove("GITHUB_OUTPUT")
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|source| TrialError::Run { path: script.clone(), source })?;
    let results_path = report.join("classroom").join("result.json");
    Ok(Trial {
        platform: "GitHub",
        steps: vec![step("grade", &output)],
        results: read_json(&results_path),
        summary: fs::read_to_string(report.join("classroom").join("summary.md")).ok(),
        results_path,
    })
}

fn step(name: &'static str, output: &std::process::Output) -> Step {
    let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&output.stderr));
    Step { name, status: output.status.code(), output: text }
}

fn read_json(path: &Path) -> Option<serde_json::Value> {
    serde_json::from_slice(&fs::read(path).ok()?).ok()
}

/// Unpacks `zip` into `dir` with the modes it records, as `unzip` does;
/// a name that would leave `dir` is refused.
fn unzip(zip: &Path, dir: &Path) -> Result<(), TrialError> {
    let read = |source: io::Error| TrialError::Read { path: zip.to_owned(), source };
    let file = fs::File::open(zip).map_err(read)?;
    let mut archive = zip::ZipArchive::new(file).map_err(|e| read(io::Error::other(e)))?;
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).map_err(|e| read(io::Error::other(e)))?;
        let Some(name) = entry.enclosed_name() else {
            return Err(read(io::Error::other(format!(
                "{:?} would be written outside the package",
                entry.name()
            ))));
        };
        let path = dir.join(name);
        let write = |source: io::Error| TrialError::Write { path: path.clone(), source };
        if entry.is_dir() {
            fs::create_dir_all(&path).map_err(write)?;
            continue;
        }
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(write)?;
        }
        let mut out = fs::File::create(&path).map_err(write)?;
        io::copy(&mut entry, &mut out).map_err(write)?;
        if let Some(mode) = entry.unix_mode() {
            fs::set_permissions(&path, fs::Permissions::from_mode(mode & 0o777)).map_err(write)?;
        }
    }
    Ok(())
}

/// Copies the tree `from` to `to`: directories and regular files with
/// their modes; links and special files are left out (a submission's
/// links are refused by `grade`'s own copy anyway).
fn copy_tree(from: &Path, to: &Path) -> Result<(), TrialError> {
    for entry in walkdir::WalkDir::new(from).follow_links(false) {
        let entry =
            entry.map_err(|e| TrialError::Read { path: from.to_owned(), source: io::Error::other(e) })?;
        let Ok(relative) = entry.path().strip_prefix(from) else { continue };
        let target = to.join(relative);
        let write = |source: io::Error| TrialError::Write { path: target.clone(), source };
        let kind = entry.file_type();
        if kind.is_dir() {
            fs::create_dir_all(&target).map_err(write)?;
        } else if kind.is_file() {
            fs::copy(entry.path(), &target)
                .map_err(|source| TrialError::Read { path: entry.path().to_owned(), source })?;
        }
    }
    Ok(())
}
