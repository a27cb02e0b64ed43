//! A whole class graded as a TA grades it, with no script: the students of
//! `fixtures/class` (C, C++, Python, Java, a Makefile; each with their own
//! name on the programmer line; nine with a planted bug, one with a stale
//! answer file) and a stray `roster.csv`, by `grade --tests tests/
//! students/*` and nothing else. The verdicts are those
//! `fixtures/class/README.md` gives.

use std::fs;
use std::path::PathBuf;
use std::sync::OnceLock;

use crate::util::{Graded, fixture, referee};

/// The class graded once for every test here (it takes a while).
fn graded() -> &'static (Graded, tempfile::TempDir) {
    static GRADED: OnceLock<(Graded, tempfile::TempDir)> = OnceLock::new();
    GRADED.get_or_init(|| {
        let out = crate::util::kept_dir();
        let class = fs::canonicalize(fixture("class")).unwrap();
        let mut students: Vec<PathBuf> =
            fs::read_dir(class.join("students")).unwrap().map(|e| e.unwrap().path()).collect();
        students.sort();
        let report = out.path().join("report");
        let run = referee()
            .current_dir(&class)
            .arg("grade")
            .arg("--tests")
            .arg("tests")
            .arg("--jobs")
            .arg("2")
            .arg("--report")
            .arg(&report)
            .args(&students)
            .output()
            .unwrap();
        let results = fs::read(report.join("results.json"))
            .map_or(serde_json::Value::Null, |bytes| serde_json::from_slice(&bytes).unwrap());
        let graded = Graded {
            status: run.status.code(),
            results,
            stdout: String::from_utf8_lossy(&run.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&run.stderr).into_owned(),
            report,
        };
        (graded, out)
    })
}

/// The verdicts of `student`, one letter per test: `p`ass, `w`rong,
/// `n`o-output, `t`ime-limit, `c`rashed, `b`uild-failed.
fn verdicts(student: &str) -> String {
    let (graded, _) = graded();
    let index = graded
        .names()
        .iter()
        .position(|n| n == student)
        .unwrap_or_else(|| panic!("{student} was not graded:\n{}\n{}", graded.stdout, graded.stderr));
    graded.verdicts(index).iter().map(|v| v.chars().next().unwrap()).collect()
}

fn submission(student: &str) -> &'static serde_json::Value {
    let (graded, _) = graded();
    let index = graded.names().iter().position(|n| n == student).unwrap();
    graded.submission(index)
}

#[test]
fn every_student_gets_the_verdicts_their_program_earns() {
    let expected = [
        ("ada-c", "ppppppppp", "C"),
        ("ben-cpp", "ppppppppp", "C++"),
        ("cleo-py", "ppppppppp", "Python (ttt.py)"),
        ("dev-java", "ppppppppp", "Java (ttt.Main)"),
        ("eve-make", "ppppppppp", "Makefile"),
        ("fay-order", "pppppppwp", "C"),
        ("gus-nocat", "wpppppwpw", "Python (ttt.py)"),
        ("hal-spacing", "pwwwpwwww", "C++"),
        ("ivy-crash", "ppcppppcp", "C++"),
        ("jon-loop", "pppptpppp", "Python (ttt.py)"),
        ("kim-compile", "bbbbbbbbb", "C++"),
        ("lee-diag", "ppppwpppp", "Java (ttt.Main)"),
        ("max-stdout", "nnnnnnnnn", "C"),
        ("ned-stale", "nnnnnnnnn", "C++"),
    ];
    let mut got = Vec::new();
    for (student, _, _) in expected {
        got.push((
            student,
            verdicts(student),
            submission(student)["language"].as_str().unwrap_or("").to_owned(),
        ));
    }
    let want: Vec<(&str, String, String)> =
        expected.iter().map(|&(s, v, l)| (s, v.to_owned(), l.to_owned())).collect();
    assert_eq!(got, want);
    let (graded, _) = graded();
    assert_eq!(graded.status, Some(1));
}

#[test]
fn a_stray_file_among_the_students_is_skipped_with_a_warning() {
    let (graded, _) = graded();
    assert!(
        graded.stderr.contains("roster.csv: not a directory; skipped (a submission is a directory)"),
        "{}",
        graded.stderr
    );
    assert!(!graded.names().iter().any(|n| n.contains("roster")));
}

#[test]
fn feedback_says_why_a_test_failed() {
    let test = |student: &str, index: usize| submission(student)["tests"][index].clone();
    // The missing line is named, not a blank line before it.
    let gus = test("gus-nocat", 0);
    assert_eq!(gus["first_difference"]["expected"][1], "Winner: Cat", "{gus:#}");
    // A transcript on standard output instead of the file.
    let max = test("max-stdout", 0);
    let detail = max["detail"].as_str().unwrap();
    assert!(
        detail.starts_with("it wrote no TTTgame.txt, but ") && detail.ends_with(" bytes on standard output"),
        "{detail}"
    );
    // The crash carries its standard error.
    let ivy = test("ivy-crash", 2);
    assert!(ivy["stderr"].as_str().unwrap().contains("out_of_range"), "{ivy:#}");
    // The stale answer is gone before the run: the program's own words say why it wrote nothing.
    let ned = test("ned-stale", 0);
    assert_eq!(ned["detail"], "it wrote no TTTgame.txt", "{ned:#}");
    assert!(ned["stderr"].as_str().unwrap().contains("TTTMoves.txt"), "{ned:#}");
    // The compile error is in the build log.
    let kim = submission("kim-compile");
    assert!(kim["build_log"].as_str().unwrap().contains("error"), "{kim:#}");
}

#[test]
fn the_reports_name_each_students_language() {
    let (graded, _) = graded();
    let html = fs::read_to_string(graded.report.join("report.html")).unwrap();
    assert!(
        html.contains("Java (ttt.Main)") && html.contains("Python (ttt.py)"),
        "no languages in report.html"
    );
    let csv = fs::read_to_string(graded.report.join("grades.csv")).unwrap();
    assert!(csv.starts_with("submission,language,score,"), "{csv}");
    assert!(csv.contains("\nben-cpp,C++,100,"), "{csv}");
    assert!(graded.stdout.contains("language"), "{}", graded.stdout);
}

#[test]
fn a_header_mode_that_checks_names_fails_everybody_on_line_1() {
    let out = tempfile::tempdir().unwrap();
    let class = fs::canonicalize(fixture("class")).unwrap();
    let run = referee()
        .current_dir(&class)
        .args(["grade", "--tests", "tests", "--header", "exact", "--report"])
        .arg(out.path())
        .arg("students/ada-c")
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1));
    let results: serde_json::Value =
        serde_json::from_slice(&fs::read(out.path().join("results.json")).unwrap()).unwrap();
    let first = &results["submissions"][0]["tests"][0];
    assert_eq!(first["verdict"], "wrong");
    assert_eq!(first["first_difference"]["expected"], serde_json::json!([1, "Programmer: Dwight Barnette"]));
}

#[test]
fn grade_toml_beside_the_tests_adds_a_language_and_a_bad_one_names_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let tests = dir.path().join("tests");
    fs::create_dir(&tests).unwrap();
    fs::copy(fixture("class/tests/01-sample-cat.txt"), tests.join("01.txt")).unwrap();
    fs::write(
        tests.join("grade.toml"),
        "[[language]]\nname = \"Shell\"\nfiles = [\"*.sh\"]\nrun = \"sh ttt.sh\"\n",
    )
    .unwrap();
    let student = dir.path().join("sam");
    fs::create_dir(&student).unwrap();
    fs::write(student.join("ttt.sh"), "echo 'Programmer: Sam' > TTTgame.txt\n").unwrap();
    let report = dir.path().join("report");
    // `.` is named after the real directory.
    let run = referee()
        .current_dir(&student)
        .arg("grade")
        .arg("--tests")
        .arg(&tests)
        .arg("--report")
        .arg(&report)
        .arg(".")
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1), "{}", String::from_utf8_lossy(&run.stderr));
    let results: serde_json::Value =
        serde_json::from_slice(&fs::read(report.join("results.json")).unwrap()).unwrap();
    let sam = &results["submissions"][0];
    assert_eq!((sam["submission"].as_str(), sam["language"].as_str()), (Some("sam"), Some("Shell")));
    assert_eq!(sam["tests"][0]["verdict"], "wrong");

    fs::write(
        tests.join("grade.toml"),
        "[[language]]\nname = \"Shell\"\nfile = [\"*.sh\"]\nrun = \"sh ttt.sh\"\n",
    )
    .unwrap();
    let run = referee().arg("grade").arg("--tests").arg(&tests).arg(&student).output().unwrap();
    assert_eq!(run.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("grade.toml:3: unknown field `file`, expected one of"), "{stderr}");
}
