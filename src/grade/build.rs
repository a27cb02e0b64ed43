//! The one build of a submission (or of a harness beside it), in the
//! sandbox: the built tree and its log, or the log of a build that failed;
//! and the test its compiler warnings make with `--warnings`
//! (`warnings_test`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::grader::Grader;
use super::result::{Stopped, TestResult, Verdict, WARNINGS_TEST};
use super::verdict::describe_ending;
use crate::sandbox::{Collect, Ending, Job, SandboxError};
use crate::text;

/// The most of a build's output reports keep to show: half from its
/// standard output, half from its standard error.
pub const BUILD_LOG_BYTES: usize = 64 << 10;

/// What marks a line of a build's output as a warning: gcc, g++, clang and
/// javac all print it (javac's `Note:` lines are not warnings).
const WARNING_MARK: &str = "warning:";

/// The [`WARNINGS_TEST`] of a build that succeeded with `log` (`None`: the
/// submission needs no build): `pass` when no line of the log is a warning,
/// else `wrong`, its detail counting them and its `actual` holding them (the
/// log is already cut as build logs are, so they are too).
pub(in crate::grade) fn warnings_test(log: Option<&str>) -> TestResult {
    let warnings: Vec<&str> =
        log.unwrap_or_default().lines().filter(|line| line.contains(WARNING_MARK)).collect();
    match warnings.len() {
        0 => {
            let detail =
                if log.is_some() { "the build printed no warning" } else { "no build, so no warning" };
            TestResult { score: 1.0, ..TestResult::not_run(WARNINGS_TEST, Verdict::Pass, detail.to_owned()) }
        }
        n => {
            let detail = format!("{} compiler warning{}", text::thousands(n), if n == 1 { "" } else { "s" });
            let mut actual = warnings.join("\n");
            actual.push('\n');
            TestResult { actual, ..TestResult::not_run(WARNINGS_TEST, Verdict::Wrong, detail) }
        }
    }
}

/// How a build went.
pub(in crate::grade) enum Build {
    /// It built: the tree to run from, and what the build said.
    Built {
        /// The build's directory.
        dir: PathBuf,
        /// Its log.
        log: String,
    },
    /// It failed: its log, ending with how.
    Failed {
        /// Its log.
        log: String,
    },
}

impl Grader {
    /// Builds the submission copied to `source` (in `area`) with `command`:
    /// the build's directory and its log, or the log of a build that failed.
    pub(in crate::grade) fn build(
        &self,
        area: &Path,
        source: PathBuf,
        command: &str,
    ) -> Result<Build, Stopped> {
        let plan = &self.plan;
        let built = area.join("built");
        let job = Job {
            argv: vec!["/bin/sh".to_owned(), "-c".to_owned(), command.to_owned()],
            start: Some(source),
            files: Vec::new(),
            stdin: None,
            collect: Collect::Tree(built.clone()),
            limits: plan.build_limits,
            env: Vec::new(),
        };
        let (ok, log) = match self.sandbox.run(&job) {
            Ok(run) => {
                // Each stream's start, cut on a character's boundary: what a
                // compiler says first is what matters.
                let mut log = text::shown(&run.stdout, BUILD_LOG_BYTES / 2);
                log.push_str(&text::shown(&run.stderr, BUILD_LOG_BYTES / 2));
                if run.outcome.ending == Ending::Exited(0) && run.answer.is_ok() {
                    (true, log)
                } else {
                    let why =
                        run.answer.err().map(|e| format!(" ({})", text::cut(&e, 1000))).unwrap_or_default();
                    let _ = write!(
                        log,
                        "\n[the build {}{why}]\n",
                        describe_ending(&run.outcome, &plan.build_limits)
                    );
                    (false, log)
                }
            }
            Err(SandboxError::Interrupted) => return Err(Stopped),
            Err(e) => (false, format!("[the sandbox could not run the build: {e}]\n")),
        };
        Ok(if ok { Build::Built { dir: built, log } } else { Build::Failed { log } })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_build_that_warns_fails_the_warnings_test_with_its_warnings() {
        let log = "main.cpp: In function 'int main()':\n\
                   main.cpp:4:9: warning: unused variable 'x' [-Wunused-variable]\n\
                   \x20   4 |     int x;\n\
                   board.cpp:9:23: warning: comparison of integer expressions of different signedness\n\
                   Note: Main.java uses unchecked or unsafe operations.\n";
        let test = warnings_test(Some(log));
        assert_eq!((test.test.as_str(), test.verdict, test.score), (WARNINGS_TEST, Verdict::Wrong, 0.0));
        assert_eq!(test.detail, "2 compiler warnings");
        assert_eq!(
            test.actual,
            "main.cpp:4:9: warning: unused variable 'x' [-Wunused-variable]\n\
             board.cpp:9:23: warning: comparison of integer expressions of different signedness\n"
        );
        assert_eq!(warnings_test(Some("a.c:1:1: warning: x\n")).detail, "1 compiler warning");
    }

    #[test]
    fn a_quiet_build_or_none_passes_the_warnings_test() {
        let quiet = warnings_test(Some("Note: Main.java uses unchecked or unsafe operations.\n"));
        assert_eq!(
            (quiet.verdict, quiet.score, quiet.detail.as_str()),
            (Verdict::Pass, 1.0, "the build printed no warning")
        );
        let none = warnings_test(None);
        assert_eq!(
            (none.verdict, none.score, none.detail.as_str()),
            (Verdict::Pass, 1.0, "no build, so no warning")
        );
    }
}
