//! `grade` against submissions that go for the grader itself rather than
//! the machine: padded answers that game partial credit, trees and build
//! logs that break the grader's own steps, answers that blow up its memory
//! or its reports (`fixtures/grader-attacks/`, one fixture per attack).
//!
//! Each grades the attack beside an honest student and asserts the safe
//! outcome: the honest student graded as usual, the grading finished (exit
//! 1, not 2), the attacker's score, the reports' sizes, the grader's peak
//! memory. Every program is bounded: `alarm(10)`, no children, writes only
//! in its own directory.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::Value;
use tempfile::TempDir;

use crate::util::{Graded, fixture};

/// The most a grading may take before the test calls it a hang.
const HANG: Duration = Duration::from_mins(3);

/// Submissions and reports under one temporary directory, graded on the
/// class fixture's tests (or the first `n` of them).
struct Class {
    dir: TempDir,
}

impl Class {
    /// A class graded on the first `tests` of the class fixture's tests.
    fn new(tests: usize) -> Class {
        let dir = tempfile::tempdir().unwrap();
        let to = dir.path().join("tests");
        fs::create_dir(&to).unwrap();
        let mut all: Vec<PathBuf> =
            fs::read_dir(fixture("class/tests")).unwrap().map(|e| e.unwrap().path()).collect();
        all.sort();
        for test in all.iter().take(tests) {
            fs::copy(test, to.join(test.file_name().unwrap())).unwrap();
        }
        Class { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// A copy of `fixtures/<from>` as the submission `name`.
    fn submission(&self, name: &str, from: &str) -> PathBuf {
        let to = self.path().join("subs").join(name);
        fs::create_dir_all(&to).unwrap();
        for entry in fs::read_dir(fixture(from)).unwrap() {
            let entry = entry.unwrap();
            fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
        to
    }

    /// The class fixture's correct C student.
    fn honest(&self) -> PathBuf {
        self.submission("ada", "class/students/ada-c")
    }

    /// `ttt-referee grade` on `subs` with `args`, its report in `report/`.
    fn command(&self, subs: &[&Path], args: &[&str]) -> Command {
        let report = self.path().join("report");
        let _ = fs::remove_dir_all(&report);
        let mut command = Command::new(env!("CARGO_BIN_EXE_ttt-referee"));
        command.arg("grade").arg("--tests").arg(self.path().join("tests")).arg("--report").arg(&report);
        command.args(args).args(subs);
        command
    }

    /// Grades `subs` with `args`.
    fn grade(&self, subs: &[&Path], args: &[&str]) -> Graded {
        let command = self.command(subs, args);
        let output = assert_cmd::Command::from_std(command).timeout(HANG).output().unwrap();
        Graded::read(&output, self.path().join("report"))
    }

    /// Grades `subs` with `args` as the child of a Python process that
    /// then prints the peak resident memory of its children (the grader),
    /// in bytes, from `getrusage`.
    fn grade_measured(&self, subs: &[&Path], args: &[&str]) -> (Graded, u64) {
        let command = self.command(subs, args);
        let mut measured = Command::new("python3");
        measured
            .arg("-c")
            .arg(
                "import resource, subprocess, sys\n\
                 code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode\n\
                 print(code, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)",
            )
            .arg(command.get_program())
            .args(command.get_args());
        let output = assert_cmd::Command::from_std(measured).timeout(HANG).output().unwrap();
        let said = String::from_utf8_lossy(&output.stdout).into_owned();
        let (status, peak) = said.trim().split_once(' ').unwrap_or_else(|| panic!("{said:?}"));
        let report = self.path().join("report");
        let results = fs::read(report.join("results.json")).map(|b| serde_json::from_slice(&b).unwrap());
        let graded = Graded {
            status: status.parse().ok(),
            results: results.unwrap_or(Value::Null),
            stdout: String::new(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            report,
        };
        (graded, peak.parse().unwrap())
    }
}

/// The honest student (submission `index`) passed every test.
fn honest_passed(graded: &Graded, index: usize) {
    graded.all(index, "pass");
    assert_eq!(graded.submission(index)["score"], 100.0, "{}", graded.shown(index));
}

/// Padding: an answer holding every line a referee could write, which
/// referees nothing, scored 100 with `--partial` when extra lines cost
/// nothing. Now it scores next to nothing, in results.json and in
/// Gradescope's points, and no wrong test earns the whole.
#[test]
fn padding_an_answer_earns_next_to_nothing() {
    let class = Class::new(4);
    let honest = class.honest();
    let padder = class.submission("pad", "grader-attacks/padding");
    let graded = class.grade(&[&honest, &padder], &["--partial", "--no-shrink"]);
    assert_eq!(graded.status, Some(1), "{}", graded.stderr);
    honest_passed(&graded, 0);
    graded.all(1, "wrong");
    for test in graded.tests(1) {
        let (matched, expected) =
            (test["lines_matched"][0].as_u64().unwrap(), test["lines_matched"][1].as_u64().unwrap());
        // Every expected line is in the answer somewhere...
        assert!(matched + 2 >= expected, "{test}");
        // ...and yet the test is worth little.
        assert!(test["score"].as_f64().unwrap() < 0.2, "{test}");
    }
    let score = graded.submission(1)["score"].as_f64().unwrap();
    assert!(score < 20.0, "{}", graded.shown(1));

    // Blank lines are layout: a page of them earns nothing either.
    let blanks = class.submission("blank", "grader-attacks/blank-padding");
    let graded = class.grade(&[&blanks], &["--partial", "--no-shrink"]);
    let score = graded.submission(0)["score"].as_f64().unwrap();
    assert!(score < 20.0, "{}", graded.shown(0));

    // Gradescope's points say the same.
    let results = class.path().join("gradescope.json");
    let alone =
        class.grade(&[&padder], &["--partial", "--no-shrink", "--gradescope", results.to_str().unwrap()]);
    assert_eq!(alone.status, Some(1), "{}", alone.stderr);
    let gradescope: Value = serde_json::from_slice(&fs::read(&results).unwrap()).unwrap();
    assert!(gradescope["score"].as_f64().unwrap() < 20.0, "{gradescope}");
    for test in gradescope["tests"].as_array().unwrap() {
        assert!(test["score"].as_f64().unwrap() < test["max_score"].as_f64().unwrap() * 0.2, "{test}");
    }
}

/// A build log cut inside a character: a Makefile that fails after
/// printing `a` and 40,000 `é`. It panicked the grader (exit 101, nobody
/// graded); now that submission is `build-failed` with its log cut on a
/// character's boundary, and the others are graded.
#[test]
fn a_build_log_is_cut_on_a_character_boundary() {
    let class = Class::new(2);
    let honest = class.honest();
    let broken = class.submission("broken", "grader-attacks/broken-log");
    let graded = class.grade(&[&broken, &honest], &[]);
    assert_eq!(graded.status, Some(1), "{}", graded.stderr);
    assert!(!graded.stderr.contains("panicked"), "{}", graded.stderr);
    graded.all(0, "build-failed");
    honest_passed(&graded, 1);
    let log = graded.submission(0)["build_log"].as_str().unwrap();
    assert!(log.starts_with("aé"), "{}", &log[..20]);
    assert!(log.len() <= 64 << 10, "{}", log.len());
    assert!(log.trim_end().ends_with("[the build exited with status 2]"), "{}", &log[log.len() - 200..]);
}

/// `n` nested directories of 255-character names under `top`, made by a
/// shell that changes into each as it goes (the whole path is past
/// `PATH_MAX` from 16 on), with a file in the deepest.
fn deep_tree(top: &Path, n: usize) {
    let script = format!(
        "n=$(printf 'd%.0s' $(seq 255)); for i in $(seq {n}); do mkdir $n && cd $n || exit 1; done; echo deep > f"
    );
    let status = Command::new("bash").arg("-c").arg(script).current_dir(top).status().unwrap();
    assert!(status.success());
}

/// A deep tree of long names in the submission: 16 nested directories of
/// 255-character names, within every copy cap. Handing the copy to the run
/// user by path failed with `File name too long` and stopped the whole
/// grading (exit 2, no report); it is handed over through directory
/// handles now, and the submission is graded like any other.
#[test]
fn a_submission_deeper_than_path_max_is_graded() {
    let class = Class::new(2);
    let honest = class.honest();
    let deep = class.submission("deep", "class/students/ada-c");
    deep_tree(&deep, 16);
    let graded = class.grade(&[&deep, &honest], &["--no-shrink"]);
    assert_eq!(graded.status, Some(0), "{}", graded.stderr);
    honest_passed(&graded, 0);
    honest_passed(&graded, 1);
    // The trees go with the grading: nothing of it is left in its scratch.
    assert!(!graded.stderr.contains("File name too long"), "{}", graded.stderr);
}

/// The same tree left by a build: a Makefile whose build output holds 20
/// such directories. It stopped the whole grading; now the submission is
/// graded (its program writes no answer), and so is everyone else.
#[test]
fn a_build_that_leaves_a_tree_past_path_max_fails_nobody_else() {
    let class = Class::new(2);
    let honest = class.honest();
    let deep = class.submission("deep-build", "grader-attacks/deep-build");
    let graded = class.grade(&[&deep, &honest], &["--no-shrink"]);
    assert_eq!(graded.status, Some(1), "{}", graded.stderr);
    graded.all(0, "no-output");
    honest_passed(&graded, 1);
}

/// Two submissions of the same name (from different folders) were both
/// graded and reported under one name: the gradebook could not tell them
/// apart, and report.html's links led to the first. The grading is refused
/// before anything runs, naming both.
#[test]
fn two_submissions_of_one_name_are_refused_before_grading() {
    let class = Class::new(1);
    let first = class.honest();
    let second = class.path().join("elsewhere").join("ada");
    fs::create_dir_all(&second).unwrap();
    fs::copy(first.join("ttt.c"), second.join("ttt.c")).unwrap();
    let graded = class.grade(&[&first, &second], &[]);
    assert_eq!(graded.status, Some(2));
    assert_eq!(
        graded.stderr,
        format!(
            "ttt-referee: two submissions are named `ada` ({} and {}): reports name a submission by its directory, \
             so each must have a name of its own\n",
            first.display(),
            second.display()
        )
    );
    assert!(!graded.report.exists(), "a report was written");
}

/// A refusal that quotes the submission at length: 300 Java classes, each
/// with a long name and a `main`, make the reason list them all, and every
/// test repeated it. Each test's detail is now cut (4 KiB), the build log
/// as a build log is.
#[test]
fn a_reason_that_quotes_the_submission_at_length_is_cut() {
    let class = Class::new(4);
    let honest = class.honest();
    let many = class.path().join("subs").join("many-mains");
    fs::create_dir_all(&many).unwrap();
    for n in 0..300 {
        let name = format!("AClassWithAVeryLongNameThatDeclaresMainNumber{n:03}");
        fs::write(
            many.join(format!("{name}.java")),
            format!("public class {name} {{ public static void main(String[] a) {{}} }}\n"),
        )
        .unwrap();
    }
    let graded = class.grade(&[&many, &honest], &["--no-shrink"]);
    assert_eq!(graded.status, Some(1), "{}", graded.stderr);
    graded.all(0, "build-failed");
    honest_passed(&graded, 1);
    for test in graded.tests(0) {
        let detail = test["detail"].as_str().unwrap();
        assert!(detail.starts_with("several Java classes declare main ("), "{detail}");
        assert!(detail.len() < 4200 && detail.ends_with(" bytes in all)"), "{} bytes", detail.len());
    }
}

/// A build whose output is deeper than a build's may go (64 directories):
/// its copy out stopped there, the grader kept the part copied (without the
/// program), and every test `crashed` for a reason that blamed the student's
/// program. Now the build fails, saying why, and the others are graded.
#[test]
fn a_build_too_deep_to_keep_fails_saying_why() {
    let class = Class::new(2);
    let honest = class.honest();
    let deep = class.submission("too-deep", "grader-attacks/too-deep-build");
    let graded = class.grade(&[&deep, &honest], &["--no-shrink"]);
    assert_eq!(graded.status, Some(1), "{}", graded.stderr);
    graded.all(0, "build-failed");
    honest_passed(&graded, 1);
    let log = graded.submission(0)["build_log"].as_str().unwrap();
    assert!(
        log.contains("its files could not be kept: ") && log.contains("is more than 64 directories deep"),
        "{log}"
    );
}

/// A 15 MiB answer of one-character lines, two at once (`--jobs 2`): the
/// grader peaked at 2,750 MiB comparing them. Now it stays well under
/// 1 GB, the verdict and first difference are what they were, and the
/// reports stay small.
#[test]
fn a_huge_answer_of_short_lines_costs_the_grader_little() {
    let class = Class::new(4);
    let huge = class.submission("huge", "grader-attacks/one-char-lines");
    let (graded, peak) = class.grade_measured(&[&huge], &["--jobs", "2", "--no-shrink"]);
    assert_eq!(graded.status, Some(1), "{}", graded.stderr);
    graded.all(0, "wrong");
    for test in graded.tests(0) {
        let difference = &test["first_difference"];
        assert_eq!(difference["expected"][0], 1, "{test}");
        assert_eq!(difference["actual"], serde_json::json!([1, "a"]), "{test}");
        assert_eq!(test["lines_found"], 15 << 19, "{test}");
    }
    assert!(peak < 1 << 30, "the grader peaked at {} MiB", peak >> 20);
    // Shown as at most 1,000 lines a test: a page of short lines costs the
    // HTML far more than their bytes (it was 15 MB for 2.5 million lines).
    report_sizes_under(&graded.report, &[], 2 << 20);
}

/// Every file of the report in `dir`, and `more`, is under `most` bytes.
fn report_sizes_under(dir: &Path, more: &[PathBuf], most: u64) {
    let mut files: Vec<PathBuf> = fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.extend(more.iter().cloned());
    for file in files {
        let size = fs::metadata(&file).unwrap().len();
        assert!(size < most, "{} is {size} bytes", file.display());
    }
}

/// One 6 MiB answer line on every test: results.json, junit.xml and
/// Gradescope's results.json were 144 MiB each. Every report stays small
/// now, the line shown cut with its length said.
#[test]
fn one_huge_answer_line_keeps_every_report_small() {
    let class = Class::new(4);
    let long = class.submission("long", "grader-attacks/long-line");
    let gradescope = class.path().join("gradescope.json");
    let graded = class.grade(&[&long], &["--gradescope", gradescope.to_str().unwrap()]);
    assert_eq!(graded.status, Some(1), "{}", graded.stderr);
    graded.all(0, "wrong");
    let shown = graded.test(0, 0)["first_difference"]["actual"][1].as_str().unwrap().to_owned();
    assert!(shown.ends_with("… (6,291,456 bytes in all)"), "{}", &shown[shown.len() - 60..]);
    report_sizes_under(&graded.report, &[gradescope], 2 << 20);
}
