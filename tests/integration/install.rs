//! `grade` as it is installed and run: by root from a private home, and by
//! an ordinary user with what that user can have.
//!
//! These need root (to make the private home, and to become an ordinary
//! user with `setpriv`); elsewhere they say so and pass. Everything they
//! make is under temporary directories, and each grading's `TMPDIR` is one
//! of them, so the grader's scratch directory is there too.

use std::fs;
use std::os::unix::fs::{PermissionsExt, lchown};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::util::Graded;
use serde_json::Value;
use tempfile::TempDir;

/// The most a grading may take before the test calls it a hang.
const HANG: Duration = Duration::from_mins(3);

/// A program that answers: not the right transcript, but a file named
/// `TTTgame.txt`, so a run that happened is `wrong` (or `pass`), never
/// `no-output` or `build-failed`.
const ANSWERS: &str = "#include <stdio.h>\nint main(void) {\n  FILE *f = fopen(\"TTTgame.txt\", \"w\");\n  if (!f) return 1;\n  fputs(\"Game\\n\", f);\n  return fclose(f) != 0;\n}\n";

/// The build command every grading here uses.
const BUILD: &str = "cc -O1 -o prog main.c";

/// Whether the calling test can go on: it runs as root (and has `setpriv` if
/// `switches` users); if not, it says why on standard error.
pub fn runnable(switches: bool) -> bool {
    if !nix::unistd::geteuid().is_root() {
        crate::util::skip("it needs root");
        return false;
    }
    if switches && Command::new("setpriv").arg("--version").output().is_err() {
        crate::util::skip("it needs setpriv");
        return false;
    }
    true
}

/// Copies both binaries into `dir` (mode 0755) and returns the referee's
/// copy; the referee finds its guard beside it.
pub fn install(dir: &Path) -> PathBuf {
    fs::create_dir_all(dir).unwrap();
    for (name, built) in
        [("ttt-referee", env!("CARGO_BIN_EXE_ttt-referee")), ("ttt-guard", env!("CARGO_BIN_EXE_ttt-guard"))]
    {
        let copy = dir.join(name);
        fs::copy(built, &copy).unwrap();
        fs::set_permissions(&copy, fs::Permissions::from_mode(0o755)).unwrap();
    }
    dir.join("ttt-referee")
}

/// Generates one test (seed 5) into `dir` with the referee at `referee`.
fn generate(referee: &Path, dir: &Path) {
    let status = Command::new(referee)
        .args(["gen", "--seed", "5", "--count", "1", "--out-dir"])
        .arg(dir)
        .status()
        .unwrap();
    assert!(status.success(), "gen failed: {status}");
}

/// A C submission `name` under `subs`: `main.c` is `source`.
fn submission(subs: &Path, name: &str, source: &str) -> PathBuf {
    let dir = subs.join(name);
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("main.c"), source).unwrap();
    dir
}

/// The names in directory `dir`.
fn entries(dir: &Path) -> Vec<String> {
    fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect()
}
impl Graded {
    /// Runs `command` (a grading writing its report to `report`), within
    /// [`HANG`].
    fn run(command: Command, report: &Path) -> Graded {
        let output =
            assert_cmd::Command::from_std(command).timeout(HANG).write_stdin(Vec::new()).output().unwrap();
        let results = fs::read(report.join("results.json")).map(|b| serde_json::from_slice(&b).unwrap());
        let graded = Graded {
            status: output.status.code(),
            results: results.unwrap_or(Value::Null),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            report: report.to_owned(),
        };
        assert!(
            graded.status.is_some(),
            "the grading did not end within {HANG:?}: {:?}\n{}{}",
            output.status,
            graded.stdout,
            graded.stderr
        );
        graded
    }

    /// Asserts that submission `index` was built and run: not refused, not
    /// build-failed, and every test ended `pass` or `wrong`.
    fn ran(&self, index: usize) {
        let shown = self.shown(index);
        assert_eq!(self.submission(index)["build_failed"], false, "{shown}");
        let tests = self.tests(index);
        assert!(!tests.is_empty(), "{shown}");
        for test in tests {
            let verdict = test["verdict"].as_str().unwrap();
            assert!(verdict == "pass" || verdict == "wrong", "{verdict}: {shown}");
        }
    }

    /// The protections the grading listed: each line's name and whether
    /// it is in force.
    fn protections(&self) -> Vec<(String, bool)> {
        let list: Vec<(String, bool)> = self
            .stderr
            .lines()
            .filter_map(|line| {
                if let Some(name) = line.strip_prefix("  in force  ") {
                    Some((name.to_owned(), true))
                } else {
                    line.strip_prefix("  MISSING   ").map(|name| (name.to_owned(), false))
                }
            })
            .collect();
        assert!(!list.is_empty(), "no protections listed:\n{}", self.stderr);
        list
    }
}

#[test]
fn a_root_grader_installed_under_a_private_home_grades() {
    if !runnable(false) {
        return;
    }
    let area = tempfile::tempdir().unwrap();
    let home = area.path().join("home");
    let referee = install(&home.join(".cargo").join("bin"));
    fs::set_permissions(&home, fs::Permissions::from_mode(0o700)).unwrap();
    // The grader's scratch directory goes here, where the test can see
    // that it went away: a directory like /tmp.
    let tmp = tempfile::tempdir().unwrap();
    fs::set_permissions(tmp.path(), fs::Permissions::from_mode(0o1777)).unwrap();

    let tests = area.path().join("tests");
    generate(&referee, &tests);
    let answers = submission(&area.path().join("subs"), "answers", ANSWERS);
    let report = area.path().join("report");
    let mut grade = Command::new(&referee);
    grade
        .args(["grade", "--verbose", "--time", "10", "--build", BUILD, "--tests"])
        .arg(&tests)
        .arg("--report")
        .arg(&report)
        .arg(&answers)
        .env("TMPDIR", tmp.path());
    let graded = Graded::run(grade, &report);

    assert!(matches!(graded.status, Some(0 | 1)), "exit status {:?}:\n{}", graded.status, graded.stderr);
    graded.ran(0);
    assert!(
        graded.protections().iter().any(|(name, on)| *on && name.contains("as an unused user")),
        "{}",
        graded.stderr
    );
    assert_eq!(entries(tmp.path()), Vec::<String>::new(), "the grader left its scratch behind");
}

/// A grading area owned by an unused user: the binaries, tests,
/// submissions, report, `HOME` and `TMPDIR`, under one temporary directory
/// (mode 0755, in a directory anyone may pass through).
struct UserArea {
    dir: TempDir,
    uid: u32,
}

impl UserArea {
    /// An area with one generated test, or `None` (said on standard error)
    /// if the user could not reach it.
    fn new() -> Option<UserArea> {
        let dir = tempfile::tempdir().unwrap();
        let parent = dir.path().parent().unwrap();
        if fs::metadata(parent).unwrap().permissions().mode() & 0o001 == 0 {
            crate::util::skip(&format!("{} cannot be passed through by another user", parent.display()));
            return None;
        }
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
        let area = UserArea { dir, uid: unused_uid() };
        let referee = install(&area.path().join("bin"));
        generate(&referee, &area.tests());
        for made in ["home", "tmp", "subs"] {
            fs::create_dir(area.path().join(made)).unwrap();
        }
        area.give(area.path());
        Some(area)
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn tests(&self) -> PathBuf {
        self.path().join("tests")
    }

    fn report(&self) -> PathBuf {
        self.path().join("report")
    }

    /// The user's `TMPDIR`, where the grader's scratch goes.
    fn tmp(&self) -> PathBuf {
        self.path().join("tmp")
    }

    /// A C submission `name`, the user's.
    fn submission(&self, name: &str, source: &str) -> PathBuf {
        let dir = submission(&self.path().join("subs"), name, source);
        self.give(&dir);
        dir
    }

    /// Makes `path` and everything under it the user's (user and group).
    fn give(&self, path: &Path) {
        lchown(path, Some(self.uid), Some(self.uid)).unwrap();
        if fs::symlink_metadata(path).unwrap().is_dir() {
            for entry in fs::read_dir(path).unwrap() {
                self.give(&entry.unwrap().path());
            }
        }
    }

    /// Grades `subs` as the user, with `extra` options.
    fn grade(&self, subs: &[&Path], extra: &[&str]) -> Graded {
        let report = self.report();
        let id = self.uid.to_string();
        let mut grade = Command::new("setpriv");
        grade
            .arg(format!("--reuid={id}"))
            .arg(format!("--regid={id}"))
            .args(["--clear-groups", "--"])
            .arg(self.path().join("bin").join("ttt-referee"))
            .args(["grade", "--verbose", "--time", "10", "--build", BUILD, "--tests"])
            .arg(self.tests())
            .arg("--report")
            .arg(&report)
            .args(extra)
            .args(subs)
            .current_dir(self.path())
            .env("HOME", self.path().join("home"))
            .env("TMPDIR", self.tmp());
        Graded::run(grade, &report)
    }

    /// Grades `subs` as the user with the options `args` (tests, build,
    /// profile: all of them), its report in [`UserArea::report`].
    fn grade_with(&self, args: &[&str], subs: &[PathBuf]) -> Graded {
        let report = self.report();
        let id = self.uid.to_string();
        let mut grade = Command::new("setpriv");
        grade
            .arg(format!("--reuid={id}"))
            .arg(format!("--regid={id}"))
            .args(["--clear-groups", "--"])
            .arg(self.path().join("bin").join("ttt-referee"))
            .args(["grade", "--verbose"])
            .args(args)
            .arg("--report")
            .arg(&report)
            .args(subs)
            .current_dir(self.path())
            .env("HOME", self.path().join("home"))
            .env("TMPDIR", self.tmp());
        Graded::run(grade, &report)
    }

    /// Asserts that the grader left nothing in its `TMPDIR`.
    fn left_nothing(&self) {
        assert_eq!(entries(&self.tmp()), Vec::<String>::new(), "the grader left its scratch behind");
    }
}

/// Every user and group id an account or group of this machine has.
pub fn taken_ids() -> Vec<u32> {
    ["/etc/passwd", "/etc/group"]
        .iter()
        .flat_map(|file| {
            fs::read_to_string(file).unwrap_or_default().lines().map(str::to_owned).collect::<Vec<_>>()
        })
        .filter_map(|line| line.split(':').nth(2)?.parse().ok())
        .collect()
}

/// A user id that no account or group has: 61000 and up, by process.
pub fn unused_uid() -> u32 {
    let taken = taken_ids();
    let mut uid = 61_000 + std::process::id() % 1_000;
    while taken.contains(&uid) {
        uid += 1;
    }
    uid
}

#[test]
fn an_ordinary_user_grades_with_what_it_has() {
    if !runnable(true) {
        return;
    }
    let Some(area) = UserArea::new() else { return };
    let answers = area.submission("answers", ANSWERS);
    let graded = area.grade(&[&answers], &[]);
    assert!(matches!(graded.status, Some(0 | 1)), "exit status {:?}:\n{}", graded.status, graded.stderr);
    graded.ran(0);
    // No cgroup can be written by an ordinary user on this machine (so no
    // cpu controller either); every other protection is the user's to have.
    let protections = graded.protections();
    let mut no_cgroup = None;
    for (name, on) in &protections {
        if name.contains("a cgroup") || name.contains("a fair share of the CPU") {
            assert!(!on, "the cgroup is in force for an ordinary user:\n{}", graded.stderr);
            if let Some((_, why)) = name.split_once("and their number (") {
                no_cgroup = why.strip_suffix(')').map(str::to_owned);
            }
        } else {
            assert!(on, "missing for an ordinary user: {name}\n{}", graded.stderr);
        }
    }
    // Before the whole list (--verbose), the short one: the reason the
    // cgroup's two protections are missing said once, with its remedy.
    let (short, _) = graded.stderr.split_once("ttt-referee: the protections, each:\n").unwrap();
    let no_cgroup = no_cgroup.unwrap();
    assert!(
        short.contains(&format!(
            "protections in force; missing:\n  - a cgroup; a fair share of the CPU: {no_cgroup}\n    remedy: run as \
             root or with a delegated cgroup"
        )),
        "{}",
        graded.stderr
    );
    assert_eq!(short.matches(no_cgroup.as_str()).count(), 1, "{}", graded.stderr);
    for kind in
        ["a cgroup", "seccomp", "its own root", "PID, network", "tmpfs", "Landlock", "grader's own user"]
    {
        assert!(
            protections.iter().any(|(name, _)| name.contains(kind)),
            "{kind} is not listed:\n{}",
            graded.stderr
        );
    }
    area.left_nothing();
}

#[test]
fn require_sandbox_refuses_when_a_protection_is_missing() {
    if !runnable(true) {
        return;
    }
    let Some(area) = UserArea::new() else { return };
    let answers = area.submission("answers", ANSWERS);
    let graded = area.grade(&[&answers], &["--require-sandbox"]);
    assert_eq!(graded.status, Some(2), "{}", graded.stderr);
    assert!(graded.stderr.contains("MISSING"), "{}", graded.stderr);
    assert!(graded.stderr.contains("--require-sandbox"), "{}", graded.stderr);
    assert!(
        !graded.report.exists() || entries(&graded.report).is_empty(),
        "a report was written: {:?}",
        entries(&graded.report)
    );
    area.left_nothing();
}

#[test]
fn an_unreadable_file_refuses_only_its_submission() {
    if !runnable(true) {
        return;
    }
    let Some(area) = UserArea::new() else { return };
    let locked = area.submission("locked", ANSWERS);
    // Root's, mode 000: the user cannot read it.
    let secret = locked.join("secret.txt");
    fs::write(&secret, "not the user's\n").unwrap();
    fs::set_permissions(&secret, fs::Permissions::from_mode(0o000)).unwrap();
    let answers = area.submission("answers", ANSWERS);
    let graded = area.grade(&[&locked, &answers], &[]);
    assert_eq!(graded.status, Some(1), "{}", graded.stderr);
    graded.refused(0, "cannot be read");
    graded.ran(1);
    area.left_nothing();
}

/// How many times the Java class is built without a cgroup.
const JAVA_BUILDS: usize = 20;

/// A Java submission of several files (the extended class's official one:
/// six files in a package), built by an ordinary user, who has no cgroup:
/// only an address-space limit holds each process, and a process limit
/// the user's. Every build gets a JVM sized to the build's limits, so every
/// one of 20 builds, two at a time, builds and passes.
#[test]
fn an_ordinary_user_builds_a_java_class_of_several_files_every_time() {
    if !runnable(true) {
        return;
    }
    // Without its performance data a JVM leaves no /tmp/hsperfdata_USER.
    if Command::new("javac").args(["-J-XX:-UsePerfData", "-version"]).output().is_err() {
        crate::util::skip("no javac here");
        return;
    }
    let Some(area) = UserArea::new() else { return };
    let tests = area.path().join("java-tests");
    fs::create_dir(&tests).unwrap();
    let sample = "official-sample.stdin";
    fs::copy(crate::util::root().join("fixtures/extended-class/tests").join(sample), tests.join(sample))
        .unwrap();
    let official = crate::util::root().join("fixtures/extended-class/students/ava-official");
    let subs: Vec<PathBuf> = (1..=JAVA_BUILDS)
        .map(|i| {
            let sub = area.path().join("subs").join(format!("ava-{i:02}"));
            crate::autograder::copy_dir(&official, &sub);
            sub
        })
        .collect();
    area.give(area.path());
    let graded = area.grade_with(
        &["--profile", "extended", "--tests", "java-tests", "--jobs", "2", "--time", "20"],
        &subs,
    );
    assert!(
        !graded.protections().iter().any(|(name, on)| *on && name.contains("a cgroup")),
        "this test is meant to run without a cgroup:\n{}",
        graded.stderr
    );
    assert_eq!(graded.names().len(), JAVA_BUILDS, "{}", graded.stderr);
    for index in 0..JAVA_BUILDS {
        assert_eq!(graded.submission(index)["build_failed"], false, "{}", graded.shown(index));
        graded.all(index, "pass");
        let log = graded.submission(index)["build_log"].as_str().unwrap_or_default();
        assert!(!log.contains("Picked up"), "the grader's JVM options are in the build log: {log}");
    }
    area.left_nothing();
}

/// A build that fails for want of what the sandbox gives (here a fork
/// refused at the build's process limit) is the grader's error, with the
/// reason, and not `build-failed`: the student did nothing wrong.
#[test]
fn a_build_refused_a_fork_by_the_sandbox_is_the_graders_error_with_its_reason() {
    if !runnable(true) {
        return;
    }
    let Some(area) = UserArea::new() else { return };
    let answers = area.submission("answers", ANSWERS);
    // More processes than a build may have (64): the shell cannot fork.
    // Each sleeps at most 20 s, and all end with the build.
    let build = "i=0; while [ $i -lt 100 ]; do sleep 20 & i=$((i+1)); done; cc -O1 -o prog main.c";
    let graded = area.grade_with(&["--time", "10", "--build", build, "--tests", "tests"], &[answers]);
    assert_eq!(graded.status, Some(1), "{}", graded.stderr);
    let shown = graded.shown(0);
    assert_eq!(graded.submission(0)["build_failed"], false, "{shown}");
    graded.all(0, "error");
    let detail = graded.test(0, 0)["detail"].as_str().unwrap();
    assert!(
        detail.starts_with("the grader's error: the build could not get the memory or processes it needed")
            && detail.contains("Cannot fork"),
        "{shown}"
    );
    let log = graded.submission(0)["build_log"].as_str().unwrap();
    assert!(log.contains("the grader's error, not the submission's"), "{shown}");
    area.left_nothing();
}
