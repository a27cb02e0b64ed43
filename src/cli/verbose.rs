//! `grade --verbose`: what the grader did with each submission, told on
//! standard error as each is graded — the files copied from its directory,
//! the course's provided files placed over the copy, its language and build
//! command, how it went, its run command — and, once, the limits of each
//! run and of each build. Every name, path, language and command that came
//! from a submission is made inert.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::grade::plan::{Mode, Plan, PlayPlan, Program};
use crate::grade::report::{Grading, Sink};
use crate::grade::result::{SubmissionResult, Verdict};
use crate::outcome::{Limits, megabytes, seconds};
use crate::text::{inert, thousands};
use crate::workshop::recipe::Programs;
use crate::workshop::submission_name;

/// The most file names a line lists; the rest are counted.
const NAMED_FILES: usize = 12;

/// The sink of `grade --verbose`: a few lines on standard error for each
/// submission graded.
pub(super) struct Verbose {
    plan: Plan,
    /// Each submission's directory as given, by its name.
    sources: HashMap<String, PathBuf>,
}

impl Verbose {
    /// The trace of grading `submissions` by `plan`.
    pub(super) fn new(plan: Plan, submissions: &[PathBuf]) -> Verbose {
        let sources = submissions.iter().map(|path| (submission_name(path), path.clone())).collect();
        Verbose { plan, sources }
    }

    /// The program's plan, when whole programs are graded (on tests or by
    /// their games).
    fn program(&self) -> Option<&Program> {
        match &self.plan.mode {
            Mode::Program(program) | Mode::Play(PlayPlan { program, .. }) => Some(program),
            Mode::Calls(_) => None,
        }
    }

    /// The lines told of `result`.
    fn told(&self, result: &SubmissionResult) -> String {
        let name = inert(&result.submission);
        let mut text = String::new();
        let source = self.sources.get(&result.submission);
        if let Some(source) = source {
            let _ = writeln!(
                text,
                "ttt-referee: {name}: copied {} into its own directory in the sandbox's scratch",
                files_in(source)
            );
        }
        let program = self.program();
        if let Some(provided) = program.and_then(|p| p.provided.as_ref()) {
            let names: Vec<String> = provided
                .files()
                .map(|(path, _, _)| inert(&path.display().to_string()).into_owned())
                .collect();
            let _ = write!(
                text,
                "ttt-referee: {name}: placed the course's provided files from {} over the copy: {}",
                inert(&provided.dir().display().to_string()),
                listed(&names)
            );
            for (what, files) in [
                ("it lacked", &result.provided_missing),
                ("its copy differed (the course's was used)", &result.provided_changed),
                ("removed from the copy", &result.provided_removed),
            ] {
                if let Some(files) = files.as_ref().filter(|f| !f.is_empty()) {
                    let names: Vec<String> = files.iter().map(|f| inert(f).into_owned()).collect();
                    let _ = write!(text, "; {what}: {}", listed(&names));
                }
            }
            text.push('\n');
        }
        let language = inert(&result.language);
        let (build, run) = match program.map(|p| &p.programs) {
            Some(Programs::Given { build, run }) => (build.clone(), Some(run.clone())),
            Some(Programs::Detected(languages)) => {
                // The same search the workshop made in the copy; said only
                // when it finds the language the workshop found (the
                // course's provided files can change it).
                let course = program
                    .and_then(|p| p.provided.as_ref())
                    .and_then(|provided| languages.course_build(provided.files().map(|(path, _, _)| path)));
                match source.map(|s| languages.detect_for(s, self.plan.limits.memory, course.as_ref())) {
                    Some(Ok(found)) if found.language == result.language => (found.build, Some(found.run)),
                    _ => (None, None),
                }
            }
            None => (None, None),
        };
        let how = if result.build_failed { "it failed" } else { "it built" };
        // A build that ran left its log, or failed.
        match (&build, result.build_log.is_some() || result.build_failed) {
            (Some(build), true) => {
                let _ =
                    writeln!(text, "ttt-referee: {name}: {language}: built with `{}`: {how}", inert(build));
            }
            (Some(build), false) => {
                let _ = writeln!(
                    text,
                    "ttt-referee: {name}: {language}: its build `{}` did not run (its tests say why)",
                    inert(build)
                );
            }
            (None, true) => {
                let _ = writeln!(text, "ttt-referee: {name}: {language}: built: {how}");
            }
            (None, false) => {
                let _ = writeln!(text, "ttt-referee: {name}: {language}: no build");
            }
        }
        // Tests left unrun (a failed build) or not run for the grader's
        // reason (`error`) are not counted as run.
        let ran = result
            .tests
            .iter()
            .filter(|t| !matches!(t.verdict, Verdict::BuildFailed | Verdict::Error))
            .count();
        match &run {
            Some(run) => {
                let _ = writeln!(
                    text,
                    "ttt-referee: {name}: ran `{}` in the sandbox, once for each of {} (of {})",
                    inert(run),
                    counted(ran, "test"),
                    result.tests.len()
                );
            }
            None => {
                let _ = writeln!(
                    text,
                    "ttt-referee: {name}: ran {} (of {}) in the sandbox",
                    counted(ran, "test"),
                    result.tests.len()
                );
            }
        }
        text
    }
}

impl Sink for Verbose {
    fn begin(&mut self, grading: &Grading<'_>) {
        let _ = write!(
            io::stderr(),
            "ttt-referee: {}, {} each\nttt-referee: each run's limits: {}\nttt-referee: each build's limits: \
             {}\n",
            counted(grading.submissions, "submission"),
            counted(grading.tests.len(), "test"),
            limits(grading.limits),
            limits(&self.plan.build_limits)
        );
    }

    fn submission(&mut self, result: &SubmissionResult) {
        let _ = io::stderr().write_all(self.told(result).as_bytes());
    }
}

/// Limits in words: `2 s wall, 2 s CPU, 512 MB memory, 16 MB written, 64
/// processes, 256 open files each`.
fn limits(limits: &Limits) -> String {
    format!(
        "{} wall, {} CPU, {} memory, {} written, {} processes, {} open files each",
        seconds(limits.wall),
        seconds(limits.cpu),
        megabytes(limits.memory),
        megabytes(limits.output),
        limits.processes,
        limits.open_files
    )
}

/// What a submission's directory holds, in words: `3 files, 4,120 bytes
/// from students/ada (Makefile, board.c, main.c)`; its regular files, at
/// any depth, symbolic links not followed.
fn files_in(dir: &Path) -> String {
    let mut names = Vec::new();
    let mut bytes = 0u64;
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name().into_iter().filter_map(Result::ok) {
        if entry.file_type().is_file() {
            bytes += entry.metadata().map_or(0, |m| m.len());
            let relative = entry.path().strip_prefix(dir).unwrap_or(entry.path());
            names.push(inert(&relative.display().to_string()).into_owned());
        }
    }
    format!(
        "{}, {} bytes from {} ({})",
        counted(names.len(), "file"),
        thousands(usize::try_from(bytes).unwrap_or(usize::MAX)),
        inert(&dir.display().to_string()),
        listed(&names)
    )
}

/// `1 test`, `2 tests`.
fn counted(n: usize, thing: &str) -> String {
    format!("{n} {thing}{}", if n == 1 { "" } else { "s" })
}

/// Names joined with `, `, at most [`NAMED_FILES`] of them and then how
/// many more; `none` for none.
fn listed(names: &[String]) -> String {
    if names.is_empty() {
        return "none".to_owned();
    }
    let mut text = names.iter().take(NAMED_FILES).map(String::as_str).collect::<Vec<_>>().join(", ");
    if names.len() > NAMED_FILES {
        let _ = write!(text, " and {} more", names.len() - NAMED_FILES);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_listed_up_to_a_bound() {
        assert_eq!(listed(&[]), "none");
        let many: Vec<String> = (0..15).map(|n| n.to_string()).collect();
        assert_eq!(listed(&many), "0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 and 3 more");
    }

    #[test]
    fn limits_are_said_in_words() {
        assert_eq!(
            limits(&crate::grade::plan::TEST_LIMITS),
            "2 s wall, 2 s CPU, 512 MB memory, 16 MB written, 64 processes, 256 open files each"
        );
    }

    #[test]
    fn a_directory_s_files_are_counted_and_named_inert() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("main.c"), "int main(void) { return 0; }\n").unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src").join("x\u{1b}[2J.c"), "").unwrap();
        let said = files_in(dir.path());
        assert!(said.starts_with("2 files, 29 bytes from "), "{said}");
        assert!(said.ends_with(" (main.c, src/x\\u{1b}[2J.c)"), "{said}");
    }
}
