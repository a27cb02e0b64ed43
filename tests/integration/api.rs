//! `grade --api`: the functions of StFX asn3's `asn3.py` and the methods of
//! Clemson CPSC 2150's `IGameBoard` classes graded one by one, each student of
//! `fixtures/api/` with one planted bug getting exactly the verdicts it
//! earns and the smallest call that shows it.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::Value;

use crate::util::{Graded, fixture, referee};

/// Grades `students` (directories of `fixtures/api/<api>`, or any) with
/// `--api <api>` and `args`, reports in a temporary directory.
fn grade(api: &str, students: &[PathBuf], args: &[&str]) -> (Graded, tempfile::TempDir) {
    let out = crate::util::kept_dir();
    let report = out.path().join("report");
    let run = referee()
        .args(["grade", "--api", api, "--jobs", "2", "--seed", "0", "--report"])
        .arg(&report)
        .args(args)
        .args(students)
        .output()
        .unwrap();
    let results = fs::read(report.join("results.json"))
        .map_or(Value::Null, |bytes| serde_json::from_slice(&bytes).unwrap());
    let graded = Graded {
        status: run.status.code(),
        results,
        stdout: String::from_utf8_lossy(&run.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&run.stderr).into_owned(),
        report,
    };
    (graded, out)
}

fn students(api: &str) -> Vec<PathBuf> {
    let dir = fs::canonicalize(fixture("api")).unwrap().join(api);
    let mut students: Vec<PathBuf> =
        fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()).collect();
    students.sort();
    students
}

/// Every student of `fixtures/api/<api>`, graded once for the tests here.
fn class(api: &str) -> &'static Graded {
    static XTREME: OnceLock<(Graded, tempfile::TempDir)> = OnceLock::new();
    static IGAMEBOARD: OnceLock<(Graded, tempfile::TempDir)> = OnceLock::new();
    let cell = if api == "xtreme" { &XTREME } else { &IGAMEBOARD };
    // A short limit per call: the one infinite loop of each class costs it.
    &cell.get_or_init(|| grade(api, &students(api), &["--cases", "60", "--time", "1"])).0
}

/// Each submission's verdicts that are not `pass`: function → verdict.
fn failures(graded: &Graded, name: &str) -> BTreeMap<String, String> {
    let submission = graded.results["submissions"]
        .as_array()
        .unwrap_or_else(|| panic!("no results: {}\n{}", graded.stdout, graded.stderr))
        .iter()
        .find(|s| s["submission"] == name)
        .unwrap_or_else(|| panic!("{name} was not graded"));
    submission["tests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["verdict"] != "pass")
        .map(|t| (t["test"].as_str().unwrap().to_owned(), t["verdict"].as_str().unwrap().to_owned()))
        .collect()
}

fn test<'a>(graded: &'a Graded, name: &str, function: &str) -> &'a Value {
    graded.results["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["submission"] == name)
        .and_then(|s| s["tests"].as_array().unwrap().iter().find(|t| t["test"] == function))
        .unwrap_or_else(|| panic!("no {function} for {name}"))
}

/// The smallest failing call shown for `function`.
fn smallest<'a>(graded: &'a Graded, name: &str, function: &str) -> &'a str {
    test(graded, name, function)["smallest_failing_input"]["input"]
        .as_str()
        .unwrap_or_else(|| panic!("no smallest call: {}", test(graded, name, function)))
}

fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs.iter().map(|(f, v)| ((*f).to_owned(), (*v).to_owned())).collect()
}

#[test]
fn each_python_student_earns_exactly_the_verdicts_of_their_bug() {
    let graded = class("xtreme");
    assert_eq!(graded.status, Some(1), "{}", graded.stderr);
    let all = |verdict: &str| -> BTreeMap<String, String> {
        [
            "setup_game",
            "parse_move",
            "is_move_valid",
            "apply_move",
            "check_row",
            "check_column",
            "check_down_diagonal",
            "check_up_diagonal",
            "check_for_winner",
            "render_cell",
            "render_row",
            "render_board",
        ]
        .iter()
        .map(|f| ((*f).to_owned(), verdict.to_owned()))
        .collect()
    };
    let expected = [
        ("ada-correct", map(&[])),
        ("ben-shallow", map(&[("apply_move", "wrong")])),
        ("cy-mutates", map(&[("apply_move", "wrong")])),
        ("dee-aliased", map(&[("setup_game", "wrong")])),
        ("eli-updiag", map(&[("check_up_diagonal", "wrong"), ("check_for_winner", "wrong")])),
        ("fay-negloop", map(&[("is_move_valid", "time-limit")])),
        ("gus-separator", map(&[("render_board", "wrong")])),
        ("hal-noguard", all("build-failed")),
        ("ivy-missing", map(&[("check_column", "crashed")])),
        ("jo-syntax", all("build-failed")),
        ("kit-tuple", map(&[("parse_move", "wrong")])),
    ];
    for (name, verdicts) in expected {
        assert_eq!(failures(graded, name), verdicts, "{name}");
    }
    let submission = |name: &str| {
        graded.results["submissions"].as_array().unwrap().iter().find(|s| s["submission"] == name).unwrap()
    };
    assert_eq!(submission("ada-correct")["score"], 100.0);
    assert_eq!(submission("ada-correct")["language"], "Python (asn3.py)");
    // One function of twelve lost.
    assert!((submission("kit-tuple")["score"].as_f64().unwrap() - 1100.0 / 12.0).abs() < 1e-9);
}

#[test]
fn a_python_student_is_shown_the_smallest_call_that_fails_and_why() {
    let graded = class("xtreme");
    let detail =
        |name: &str, function: &str| test(graded, name, function)["detail"].as_str().unwrap().to_owned();
    assert_eq!(smallest(graded, "ben-shallow", "apply_move"), r#"apply_move((0, 0), [[" "]], "X")"#);
    let ben = detail("ben-shallow", "apply_move");
    assert!(ben.contains("changed its board") && ben.contains("shallow copy"), "{ben}");
    let cy = detail("cy-mutates", "apply_move");
    assert!(cy.contains("is the board passed in, not a new one"), "{cy}");
    assert_eq!(smallest(graded, "dee-aliased", "setup_game"), "setup_game(2)");
    assert!(detail("dee-aliased", "setup_game").contains("one list, not separate lists"));
    // Only the square the loop skips (the top-right) makes a difference.
    assert_eq!(smallest(graded, "eli-updiag", "check_up_diagonal"), r#"check_up_diagonal([[" "]], "X")"#);
    let gus = test(graded, "gus-separator", "render_board");
    assert_eq!(gus["smallest_failing_input"]["input"], r#"render_board([[" "]])"#);
    assert_eq!(gus["smallest_failing_input"]["expected"], r#"" \n""#);
    assert_eq!(gus["smallest_failing_input"]["actual"], r#"" \n-\n""#);
    let fay = smallest(graded, "fay-negloop", "is_move_valid");
    assert!(fay.starts_with("is_move_valid((") && fay.contains('-') && fay.ends_with(r#"[[" "]])"#), "{fay}");
    assert!(detail("fay-negloop", "is_move_valid").contains("did not return within 1 s"));
    assert!(detail("ivy-missing", "check_column").contains("no function named check_column"));
    assert_eq!(smallest(graded, "kit-tuple", "parse_move"), r#"parse_move("2,1")"#);
    assert!(detail("kit-tuple", "parse_move").contains("gave [2, 1], expected (2, 1)"));
    let hal = detail("hal-noguard", "setup_game");
    assert!(hal.contains("EOFError") && hal.contains(r#"if __name__ == "__main__":"#), "{hal}");
    assert!(detail("jo-syntax", "render_row").contains("SyntaxError"));
    // The HTML report shows the call; JUnit's message names it.
    let html = fs::read_to_string(graded.report.join("report.html")).unwrap();
    assert!(
        html.contains("setup_game(2)") && html.contains("The smallest failing call"),
        "no call in the HTML"
    );
    let junit = fs::read_to_string(graded.report.join("junit.xml")).unwrap();
    assert!(junit.contains("parse_move(&quot;2,1&quot;)"), "no call in JUnit");
}

#[test]
fn each_java_student_earns_exactly_the_verdicts_of_their_bug() {
    let graded = class("igameboard");
    let both = |methods: &[&str], verdict: &str| -> BTreeMap<String, String> {
        ["GameBoard", "GameBoardMem"]
            .iter()
            .flat_map(|c| methods.iter().map(move |m| (format!("{c}.{m}"), verdict.to_owned())))
            .collect()
    };
    let mem = |methods: &[&str], verdict: &str| -> BTreeMap<String, String> {
        methods.iter().map(|m| (format!("GameBoardMem.{m}"), verdict.to_owned())).collect()
    };
    let every = [
        "checkSpace",
        "placeMarker",
        "whatsAtPos",
        "isPlayerAtPos",
        "checkHorizontalWin",
        "checkVerticalWin",
        "checkDiagonalWin",
        "checkForWinner",
        "checkForDraw",
        "getNumRows",
        "getNumColumns",
        "getNumToWin",
        "toString",
    ];
    let expected = [
        ("ada-correct", map(&[])),
        ("bea-flat", map(&[])),
        ("cy-one-diagonal", both(&["checkDiagonalWin", "checkForWinner"], "wrong")),
        ("dee-draw-one-row", both(&["checkForDraw"], "wrong")),
        (
            "eli-mem-last-marker",
            mem(&every[..9], "wrong").into_iter().chain(mem(&every[12..], "wrong")).collect(),
        ),
        ("fay-vertical-loop", mem(&["checkVerticalWin", "checkForWinner"], "time-limit")),
        ("gil-no-mem", mem(&every, "crashed")),
    ];
    for (name, verdicts) in expected {
        assert_eq!(failures(graded, name), verdicts, "{name}");
    }
    // The smallest counterexamples: three in a line on 3 x 3, nothing else.
    let cy = smallest(graded, "cy-one-diagonal", "GameBoardMem.checkDiagonalWin");
    assert!(cy.starts_with("IGameBoard board = new GameBoardMem(3, 3, 3);\n"), "{cy}");
    assert_eq!(cy.lines().filter(|l| l.contains("placeMarker")).count(), 3, "{cy}");
    let eli = smallest(graded, "eli-mem-last-marker", "GameBoardMem.placeMarker");
    assert_eq!(eli.lines().count(), 3, "two markers of one player are enough: {eli}");
    let eli = test(graded, "eli-mem-last-marker", "GameBoardMem.placeMarker");
    assert!(eli["detail"].as_str().unwrap().contains("read back with whatsAtPos"), "{eli}");
    let gil = test(graded, "gil-no-mem", "GameBoardMem.getNumRows");
    assert!(gil["detail"].as_str().unwrap().contains("no class named GameBoardMem"), "{gil}");
}

/// A directory holding `files` (path, text), as a submission.
fn submission(dir: &Path, name: &str, files: &[(&str, &str)]) -> PathBuf {
    let root = dir.join(name);
    for (path, text) in files {
        let path = root.join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
    root
}

#[test]
fn a_submission_without_the_assignments_files_fails_to_build_saying_so() {
    let dir = tempfile::tempdir().unwrap();
    let two = submission(dir.path(), "two-files", &[("a.py", "x = 1\n"), ("b.py", "y = 2\n")]);
    let (graded, _) = grade("xtreme", &[two], &[]);
    graded.all(0, "build-failed");
    assert!(graded.test(0, 0)["detail"].as_str().unwrap().contains("no asn3.py, and 2 other Python files"));
    let java = submission(dir.path(), "no-position", &[("GameBoard.java", "public class GameBoard {}\n")]);
    let (graded, _) = grade("igameboard", &[java], &[]);
    graded.all(0, "build-failed");
    assert!(graded.test(0, 0)["detail"].as_str().unwrap().contains("no BoardPosition.java"));
}

#[test]
fn partial_credit_is_each_functions_share_of_cases_passed() {
    let (graded, _) =
        grade("xtreme", &[students("xtreme")[4].clone()], &["--cases", "30", "--partial", "--no-shrink"]);
    let up = &graded.tests(0)[7];
    assert_eq!(up["test"], "check_up_diagonal");
    let score = up["score"].as_f64().unwrap();
    assert!(score > 0.0 && score < 1.0, "{up}");
    let detail = up["detail"].as_str().unwrap();
    let (failed, total): (f64, f64) = {
        let words: Vec<&str> = detail.split_whitespace().collect();
        (words[0].parse().unwrap(), words[2].parse().unwrap())
    };
    assert!((score - (total - failed) / total).abs() < 1e-9, "{detail}: {score}");
}

#[test]
fn the_api_flags_say_what_goes_with_what() {
    let out = referee().args(["grade", "--api", "xtreme", "--tests", "t", "s"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("the argument '--api <ASSIGNMENT>' cannot be used with '--tests <DIR>'"),
        "{stderr}"
    );
    let out = referee().args(["grade", "--cases", "5", "--tests", "t", "s"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("the argument '--cases <N>' cannot be used with '--tests <DIR>'"), "{stderr}");
    let out = referee().args(["grade", "s"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--tests <DIR>"));
}

fn hostile(api: &str) -> Vec<PathBuf> {
    students(&format!("hostile/{api}"))
}

#[test]
fn hostile_python_students_get_the_grades_they_earn_and_nothing_more() {
    let (graded, _dir) = grade("xtreme", &hostile("xtreme"), &["--cases", "20", "--time", "1"]);
    let every = |verdict: &str| -> BTreeMap<String, String> {
        let names = ["setup_game", "parse_move", "is_move_valid", "apply_move", "check_row", "check_column"];
        let more =
            ["check_down_diagonal", "check_up_diagonal", "check_for_winner", "render_cell", "render_row"];
        names
            .iter()
            .chain(&more)
            .chain(&["render_board"])
            .map(|f| ((*f).to_owned(), verdict.to_owned()))
            .collect()
    };
    let expected = [
        // Its forged answer and the harness's own both arrive: tampering.
        ("forge-fd3", map(&[("check_row", "crashed"), ("check_for_winner", "crashed")])),
        ("fork-bomb", map(&[])),
        // A computation in C holds the interpreter: the watchdog process ends it.
        ("gil-stall", map(&[("check_row", "time-limit"), ("check_for_winner", "time-limit")])),
        ("huge-string", map(&[("check_row", "wrong"), ("check_for_winner", "wrong")])),
        ("kill-init", map(&[])),
        // Replacing the harness's checks changes nothing: they were bound first.
        ("patch-checks", map(&[("setup_game", "wrong"), ("apply_move", "wrong")])),
        ("probe-sandbox", every("crashed")),
        // Its json.py and copy.py are not the harness's modules.
        ("shadow-modules", map(&[("apply_move", "wrong")])),
        // Slow but within the limit per call: more runs, no penalty.
        ("slow-render", map(&[])),
        ("squat-names", map(&[])),
    ];
    for (name, verdicts) in expected {
        assert_eq!(failures(&graded, name), verdicts, "{name}");
    }
    assert!(test(&graded, "forge-fd3", "check_row")["detail"].as_str().unwrap().contains("tampered with"));
    let huge = test(&graded, "huge-string", "check_row")["detail"].as_str().unwrap();
    assert!(huge.contains("<a str of 40000000 characters>"), "{huge}");
    let size = fs::metadata(graded.report.join("report.html"))
        .unwrap_or_else(|e| panic!("no report.html ({e}): {}", graded.stderr))
        .len();
    assert!(size < 1 << 20, "report.html is {size} bytes");
    // What the prober found stays in the sandbox: none of the host's files.
    let results = fs::read_to_string(graded.report.join("results.json")).unwrap();
    for secret in ["root:x:0", "root:$", "/work/", env!("CARGO_MANIFEST_DIR")] {
        assert!(!results.contains(secret), "{secret} leaked into results.json");
    }
}

#[test]
fn hostile_java_students_get_the_grades_they_earn_and_nothing_more() {
    let (graded, _) = grade("igameboard", &hostile("igameboard"), &["--cases", "20", "--time", "1"]);
    let both = |methods: &[&str], verdict: &str| -> BTreeMap<String, String> {
        ["GameBoard", "GameBoardMem"]
            .iter()
            .flat_map(|c| methods.iter().map(move |m| (format!("{c}.{m}"), verdict.to_owned())))
            .collect()
    };
    let expected = [
        // Dying in the very first call is that call's crash, not a load failure.
        ("exit-first-call", both(&["checkSpace", "checkForDraw"], "crashed")),
        ("huge-tostring", both(&["toString"], "wrong")),
        ("reset-on-win", map(&[("GameBoard.checkForWinner", "wrong")])),
        // The protocol's stream cannot be swapped from the student's code.
        ("reset-on-win-filter", map(&[("GameBoard.checkForWinner", "wrong")])),
        // Classes and class files of the student's never stand in for the harness's.
        ("shadow-class-files", map(&[("GameBoard.checkForWinner", "wrong")])),
        ("shadow-java-lang", map(&[("GameBoard.checkForWinner", "wrong")])),
        ("shadow-java-lang-flat", map(&[("GameBoard.checkForWinner", "wrong")])),
        ("slow-tostring", map(&[])),
        // Files named like the grader's are only the student's files.
        ("squat-names", map(&[])),
    ];
    for (name, verdicts) in expected {
        assert_eq!(failures(&graded, name), verdicts, "{name}");
    }
}

/// `names` of `fixtures/api/hostile/<api>`, then `honest` of
/// `fixtures/api/<api>`, graded together.
fn hostile_with(api: &str, names: &[&str], honest: &[&str]) -> (Graded, tempfile::TempDir) {
    let root = fs::canonicalize(fixture("api")).unwrap();
    let students: Vec<PathBuf> = names
        .iter()
        .map(|n| root.join("hostile").join(api).join(n))
        .chain(honest.iter().map(|n| root.join(api).join(n)))
        .collect();
    grade(api, &students, &["--cases", "20", "--time", "1"])
}

fn score(graded: &Graded, name: &str) -> f64 {
    graded.results["submissions"]
        .as_array()
        .unwrap_or_else(|| panic!("no results: {}\n{}", graded.stdout, graded.stderr))
        .iter()
        .find(|s| s["submission"] == name)
        .and_then(|s| s["score"].as_f64())
        .unwrap_or_else(|| panic!("{name} was not graded"))
}

/// A student whose `checkForWinner` clears the board, with a `StringBuilder`
/// (and `Integer`, `Math`, `Thread`) of the unnamed package at its top and
/// at its source root, or beside its classes of the unnamed package, and of
/// package `ttt.harness` with a `ttt.harness.Harness` of its own (answering
/// nothing) compiled with its classes: the `StringBuilder`'s `toString`
/// turns the board read back after a call into the one read before it.
/// Compiled with the harness, it gave 100.
#[test]
fn a_students_classes_do_not_stand_in_for_the_harnesss() {
    let (graded, _dir) = hostile_with(
        "igameboard",
        &["reset-on-win", "shadow-java-lang", "shadow-java-lang-flat"],
        &["ada-correct"],
    );
    assert_eq!(graded.status, Some(1), "{}", graded.stderr);
    let honest = failures(&graded, "reset-on-win");
    assert_eq!(honest, map(&[("GameBoard.checkForWinner", "wrong")]));
    for name in ["shadow-java-lang", "shadow-java-lang-flat"] {
        assert_eq!(failures(&graded, name), honest, "{name}");
        assert!((score(&graded, name) - score(&graded, "reset-on-win")).abs() < 1e-9, "{name}");
    }
    assert!((score(&graded, "reset-on-win") - 2500.0 / 26.0).abs() < 1e-9);
    assert!((score(&graded, "ada-correct") - 100.0).abs() < 1e-9, "{}", "ada-correct");
}

/// The same student with the lying `StringBuilder` as class files only, of
/// the unnamed package and of package `ttt.harness`: at its top (javac's
/// default class path), in `.ttt-classes/` (where the harness's classes
/// went) and at its source root; and a `ttt/harness/Harness.class` of its
/// own at its top and in `.ttt-classes/`, which answers nothing.
#[test]
fn a_submissions_class_files_are_never_the_harnesss() {
    let (graded, _dir) =
        hostile_with("igameboard", &["reset-on-win", "shadow-class-files"], &["ada-correct"]);
    assert_eq!(graded.status, Some(1), "{}", graded.stderr);
    assert_eq!(failures(&graded, "shadow-class-files"), failures(&graded, "reset-on-win"));
    assert!((score(&graded, "shadow-class-files") - 2500.0 / 26.0).abs() < 1e-9);
    assert!((score(&graded, "ada-correct") - 100.0).abs() < 1e-9, "{}", "ada-correct");
}

/// Plain files named where the grader's own files went (`.ttt-harness`
/// stopped the whole grading: `File exists`, exit status 2) or go now
/// (`ttt`, `submission`), and a directory `.ttt_harness.py`: graded like
/// any other file.
#[test]
fn a_submission_may_hold_any_name_the_grader_uses() {
    let (graded, _dir) = hostile_with("igameboard", &["squat-names"], &["ada-correct"]);
    assert_eq!(graded.status, Some(0), "{}", graded.stderr);
    assert!((score(&graded, "squat-names") - 100.0).abs() < 1e-9, "{}", "squat-names");
    assert!((score(&graded, "ada-correct") - 100.0).abs() < 1e-9, "{}", "ada-correct");
    let (graded, _dir) = hostile_with("xtreme", &["squat-names"], &["ada-correct"]);
    assert_eq!(graded.status, Some(0), "{}", graded.stderr);
    assert!((score(&graded, "squat-names") - 100.0).abs() < 1e-9, "{}", "squat-names");
}

/// `ben-shallow`'s bug (`apply_move` changes its argument's rows) with a
/// `copy.py` whose `deepcopy` returns its argument and a `json.py` whose
/// `dumps` leaves out what a call changed, beside `asn3.py`: were they the
/// harness's modules, the bug would not show.
#[test]
fn a_students_python_modules_do_not_stand_in_for_the_harnesss() {
    let (graded, _dir) = hostile_with("xtreme", &["shadow-modules"], &["ada-correct", "ben-shallow"]);
    assert_eq!(graded.status, Some(1), "{}", graded.stderr);
    assert_eq!(failures(&graded, "ben-shallow"), map(&[("apply_move", "wrong")]));
    assert_eq!(failures(&graded, "shadow-modules"), failures(&graded, "ben-shallow"));
    assert!((score(&graded, "shadow-modules") - score(&graded, "ben-shallow")).abs() < 1e-9);
    let detail = test(&graded, "shadow-modules", "apply_move")["detail"].as_str().unwrap();
    assert!(detail.contains("changed its board"), "{detail}");
    assert!((score(&graded, "ada-correct") - 100.0).abs() < 1e-9, "{}", "ada-correct");
}

#[test]
fn the_html_report_shows_a_function_its_smallest_call_and_no_empty_test_answers() {
    let graded = class("xtreme");
    let html = fs::read_to_string(graded.report.join("report.html")).unwrap();
    assert!(
        html.contains("check_up_diagonal([[&quot; &quot;]], &quot;X&quot;)")
            || html.contains(r#"check_up_diagonal([[" "]], "X")"#)
    );
    // A function has no whole-test answers to set beside each other.
    assert!(!html.contains("The test itself"), "an empty 'The test itself' section");
}
