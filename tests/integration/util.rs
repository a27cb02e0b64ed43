//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// The crate root, where `fixtures/` lives; tests run the binary from here so
/// that paths in messages are the short relative ones the fixtures expect.
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The binary, run from the crate root, with no standard input, and its
/// state directory (where the key sealing game records is kept) under the
/// target directory, not the user's home.
pub fn referee() -> Command {
    let mut cmd = Command::cargo_bin("ttt-referee").expect("binary built");
    cmd.current_dir(root())
        .write_stdin(Vec::new())
        .env("XDG_STATE_HOME", Path::new(env!("CARGO_TARGET_TMPDIR")).join("state"))
        .env_remove("TTT_REFEREE_RECORD_KEY");
    cmd
}

/// A fixture's path relative to the crate root.
pub fn fixture(relative: &str) -> PathBuf {
    PathBuf::from("fixtures").join(relative)
}

/// Bytes as text for assertion messages, with invisible characters shown.
pub fn show(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).escape_debug().to_string().replace("\\n", "\n")
}

/// The first line where `actual` and `expected` differ, for failure messages.
pub fn first_difference(actual: &[u8], expected: &[u8]) -> String {
    let a: Vec<&[u8]> = actual.split(|&b| b == b'\n').collect();
    let e: Vec<&[u8]> = expected.split(|&b| b == b'\n').collect();
    for i in 0..a.len().max(e.len()) {
        let (x, y) = (a.get(i), e.get(i));
        if x != y {
            return format!(
                "line {}:\n  actual:   {:?}\n  expected: {:?}",
                i + 1,
                x.map(|l| String::from_utf8_lossy(l)),
                y.map(|l| String::from_utf8_lossy(l))
            );
        }
    }
    "no line differs".to_owned()
}

/// A finished grading, as the `grade` tests read it: its exit status,
/// `results.json`, its standard output and error, and where its report is.
pub struct Graded {
    pub status: Option<i32>,
    pub results: serde_json::Value,
    pub stdout: String,
    pub stderr: String,
    pub report: PathBuf,
}

impl Graded {
    /// A grading that ended with `output`, its report in `report`.
    pub fn read(output: &std::process::Output, report: std::path::PathBuf) -> Graded {
        let results = std::fs::read(report.join("results.json")).map(|b| serde_json::from_slice(&b).unwrap());
        Graded {
            status: output.status.code(),
            results: results.unwrap_or(serde_json::Value::Null),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            report,
        }
    }

    pub fn submission(&self, index: usize) -> &serde_json::Value {
        &self.results["submissions"][index]
    }

    /// Submission `index`'s tests.
    pub fn tests(&self, index: usize) -> &[serde_json::Value] {
        self.submission(index)["tests"]
            .as_array()
            .unwrap_or_else(|| panic!("no results: {}\n{}", self.stdout, self.stderr))
    }

    /// Test `test` of submission `index`.
    pub fn test(&self, index: usize, test: usize) -> &serde_json::Value {
        &self.submission(index)["tests"][test]
    }

    /// Submission `index` in full, and the grader's standard error, for
    /// failure messages.
    pub fn shown(&self, index: usize) -> String {
        format!("{}\n{}", serde_json::to_string_pretty(self.submission(index)).unwrap(), self.stderr)
    }

    /// Each test's verdict for submission `index` (the details go to
    /// standard error, which the test harness shows when a test fails).
    pub fn verdicts(&self, index: usize) -> Vec<String> {
        let tests = self.tests(index);
        eprintln!("{}", serde_json::to_string_pretty(tests).unwrap());
        tests.iter().map(|t| t["verdict"].as_str().unwrap().to_owned()).collect()
    }

    /// Asserts that every test of submission `index` got `verdict`.
    pub fn all(&self, index: usize, verdict: &str) {
        let verdicts = self.verdicts(index);
        assert!(
            !verdicts.is_empty() && verdicts.iter().all(|v| v == verdict),
            "expected {verdict} on every test, got {verdicts:?}:\n{}",
            self.shown(index)
        );
    }

    /// Asserts that submission `index` was refused by the copy with a
    /// reason containing `reason`: `build-failed` on every test, and the
    /// build log and each detail saying so.
    pub fn refused(&self, index: usize, reason: &str) {
        self.all(index, "build-failed");
        let shown = self.shown(index);
        let log = self.submission(index)["build_log"].as_str().unwrap_or_default();
        assert!(log.starts_with("the submission was refused: ") && log.contains(reason), "{shown}");
        for test in self.tests(index) {
            let detail = test["detail"].as_str().unwrap_or_default();
            assert!(detail.starts_with("the submission was refused: ") && detail.contains(reason), "{shown}");
        }
    }

    /// The submissions reported, by name.
    pub fn names(&self) -> Vec<String> {
        self.results["submissions"]
            .as_array()
            .map(|subs| subs.iter().map(|s| s["submission"].as_str().unwrap().to_owned()).collect())
            .unwrap_or_default()
    }

    /// Whether the grading said this protection is in force: all are;
    /// some are missing, but not this one (each missing one is a `  - `
    /// line of the list); or (with `--verbose`) its line says so.
    pub fn in_force(&self, name: &str) -> bool {
        let lines = || self.stderr.lines();
        lines().any(|l| l.starts_with("ttt-referee: sandbox: all ") && l.contains(" protections in force"))
            || (lines().any(|l| {
                l.starts_with("ttt-referee: sandbox: ") && l.ends_with(" protections in force; missing:")
            }) && !lines().any(|l| l.starts_with("  - ") && l.contains(name)))
            || lines().any(|l| l.starts_with("  in force  ") && l.contains(name))
    }
}

/// A temporary directory for what a test keeps for the whole test run (a
/// grading shared through a `static`, which is never dropped): under the
/// target directory, so nothing is left behind in `/tmp`.
pub fn kept_dir() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap()
}

/// A test that cannot run on this machine says so on standard error, named
/// with why, and passes; but where `TTT_NO_SKIP` is set — `.ci/run` sets
/// it, and CI runs as root with every tool installed — it fails instead, so
/// nothing CI is meant to test passes there untested. The line is written
/// to the process's standard error itself, which the test harness does not
/// capture (`eprintln!` would be shown only for a failing test), so a plain
/// `cargo test` shows every skip.
pub fn skip(why: &str) {
    use std::io::Write;
    assert!(
        std::env::var_os("TTT_NO_SKIP").is_none(),
        "this test cannot run here, and TTT_NO_SKIP says every test must: {why}"
    );
    // The harness names each test's thread after the test.
    let test = std::thread::current().name().unwrap_or("a test").to_owned();
    let _ = writeln!(std::io::stderr().lock(), "skipped: {test}: {why}");
}

/// Every file under `dir`, by its path relative to `dir`, with its bytes,
/// sorted by path: what two report directories are compared by.
pub fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut found = Vec::new();
    let mut todo = vec![dir.to_owned()];
    while let Some(at) = todo.pop() {
        for entry in std::fs::read_dir(&at).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else {
                found.push((path.strip_prefix(dir).unwrap().to_owned(), std::fs::read(&path).unwrap()));
            }
        }
    }
    found.sort();
    found
}
