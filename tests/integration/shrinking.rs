//! `grade` shrinks each wrong or crashed test to the smallest game on which
//! the program still fails the same way, and every report shows it: the
//! students of `fixtures/class` with a planted bug, one who is right
//! everywhere, and a flaky one.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::Value;

use crate::util::{Graded, fixture, referee};

/// Grades `students` of `fixtures/class` (or any directories) on the
/// class's tests with `args`, reports in a temporary directory.
fn grade(students: &[PathBuf], args: &[&str]) -> (Graded, tempfile::TempDir) {
    let out = crate::util::kept_dir();
    let class = fs::canonicalize(fixture("class")).unwrap();
    let report = out.path().join("report");
    let run = referee()
        .current_dir(&class)
        .arg("grade")
        .args(["--tests", "tests", "--jobs", "2", "--report"])
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

fn student(name: &str) -> PathBuf {
    fs::canonicalize(fixture("class/students")).unwrap().join(name)
}

/// lee-diag, ivy-crash and ada-c graded once for the tests here, with time
/// enough to shrink fully (the budget of runs is the default's).
fn graded() -> &'static (Graded, tempfile::TempDir) {
    static GRADED: OnceLock<(Graded, tempfile::TempDir)> = OnceLock::new();
    GRADED.get_or_init(|| {
        grade(&[student("lee-diag"), student("ivy-crash"), student("ada-c")], &["--shrink-time", "600"])
    })
}

/// Test `test` of submission `index`.
fn test(index: usize, test: usize) -> &'static Value {
    graded().0.test(index, test)
}

/// The move lines of an input (after its three header lines).
fn moves(input: &str) -> Vec<&str> {
    input.lines().skip(3).filter(|l| !l.trim().is_empty()).collect()
}

/// The last board of a transcript, as nine marks (`-` for an empty square).
fn last_board(transcript: &str) -> String {
    let lines: Vec<&str> = transcript.lines().collect();
    let winner = lines.iter().rposition(|l| l.starts_with("Winner:")).unwrap();
    lines[winner - 4..winner - 1].iter().flat_map(|l| l.split_whitespace()).collect()
}

#[test]
fn a_missing_diagonal_is_shown_a_game_of_five_moves_that_wins_on_it() {
    let lee = test(0, 4);
    assert_eq!(lee["verdict"], "wrong", "{lee:#}");
    let smallest = &lee["smallest_failing_input"];
    let input = smallest["input"].as_str().unwrap_or_else(|| panic!("not shrunk: {lee:#}"));
    let moves = moves(input);
    assert!(moves.len() <= 5, "{input}");
    assert_eq!(smallest["lines"], moves.len());
    assert_eq!(smallest["original_lines"], 8);
    // The header is the test's.
    assert!(input.starts_with("Tic-Tac-Toe Game Data\nX: Niklaus Wirth O: Frances Allen\n\n"), "{input}");
    // On it the referee says X wins on 3-5-7, and Lee's program does not.
    let expected = smallest["expected"].as_str().unwrap();
    assert!(expected.ends_with("Winner: X\n"), "{expected}");
    let board: Vec<char> = last_board(expected).chars().collect();
    assert_eq!((board[2], board[4], board[6]), ('X', 'X', 'X'), "{expected}");
    let actual = smallest["actual"].as_str().unwrap();
    assert!(!actual.contains("Winner: X"), "{actual}");
    assert_eq!(smallest["verdict"], "wrong");
    assert!(smallest["first_difference"].is_object(), "{smallest:#}");
    assert!(smallest["complete"].as_bool().unwrap(), "{smallest:#}");
    let runs = smallest["runs"].as_u64().unwrap();
    assert!((2..=200).contains(&runs), "{smallest:#}");
}

#[test]
fn a_crash_on_an_illegal_square_is_shown_a_game_whose_only_odd_move_is_that_square() {
    for index in [2, 7] {
        let ivy = test(1, index);
        assert_eq!(ivy["verdict"], "crashed", "{ivy:#}");
        let smallest = &ivy["smallest_failing_input"];
        assert_eq!(smallest["verdict"], "crashed", "{ivy:#}");
        assert_eq!(smallest["detail"], ivy["detail"], "the same signal: {ivy:#}");
        assert!(smallest["stderr"].as_str().unwrap().contains("out_of_range"), "{smallest:#}");
        let input = smallest["input"].as_str().unwrap();
        let odd: Vec<&str> = moves(input)
            .into_iter()
            .filter(|m| {
                let square: u32 = m.split_whitespace().nth(1).unwrap().parse().unwrap_or(0);
                !(1..=9).contains(&square)
            })
            .collect();
        assert_eq!(odd, ["X\t10"], "{input}");
        // Every other move is a valid one: the referee rules on nothing else.
        let expected = smallest["expected"].as_str().unwrap();
        let rulings: Vec<&str> = expected
            .lines()
            .filter(|l| {
                [" illegal player", " illegal square", " double move", " marked square"]
                    .iter()
                    .any(|r| l.ends_with(r))
            })
            .collect();
        assert_eq!(rulings, ["X 10 illegal square"], "{expected}");
        assert!(expected.ends_with("Winner: X\n") || expected.ends_with("Winner: O\n"), "{expected}");
        assert!(smallest["lines"].as_u64() < smallest["original_lines"].as_u64(), "{smallest:#}");
    }
}

#[test]
fn a_program_right_everywhere_is_never_shrunk() {
    let (graded, _) = graded();
    let ada = graded.tests(2);
    assert_eq!(ada.len(), 9);
    for t in ada {
        assert_eq!(t["verdict"], "pass", "{t:#}");
        assert_eq!(t["smallest_failing_input"], Value::Null, "{t:#}");
    }
    // Lee's and Ivy's passing tests are not shrunk either.
    for (index, failing) in [(0, vec![4]), (1, vec![2, 7])] {
        for (i, t) in graded.tests(index).iter().enumerate() {
            assert_eq!(t["smallest_failing_input"].is_null(), !failing.contains(&i), "{t:#}");
        }
    }
}

#[test]
fn every_report_shows_the_smallest_game_first() {
    let (graded, _) = graded();
    let page = fs::read_to_string(graded.report.join("report.html")).unwrap();
    let lee = &page[page.find("<h3>05-x-wins-anti-diagonal-then-more.txt</h3>").unwrap()..];
    let smallest = lee.find("The smallest game that still fails (").unwrap();
    let input = lee.find(r#"<pre class="input">Tic-Tac-Toe Game Data"#).unwrap();
    let itself = lee.find("The test itself").unwrap();
    let diffs: Vec<usize> = lee.match_indices(r#"<div class="diff">"#).map(|(i, _)| i).take(2).collect();
    assert!(smallest < input && input < diffs[0] && diffs[0] < itself && itself < diffs[1], "{lee}");
    // A crash has no diff of its own, but its smallest game has one.
    let ivy = &page[page.find("<h3>03-x-wins-column.txt</h3>").unwrap()..];
    assert!(
        ivy.find("The smallest game that still fails").unwrap() < ivy.find("standard error on it").unwrap()
    );

    let junit = fs::read_to_string(graded.report.join("junit.xml")).unwrap();
    assert!(
        junit.contains("; the smallest game that still fails (6 of the test&apos;s 7 move lines): X 5 / "),
        "{junit}"
    );

    let json: Value = serde_json::from_slice(&fs::read(graded.report.join("results.json")).unwrap()).unwrap();
    let keys: Vec<&str> = json["submissions"][0]["tests"][4]["smallest_failing_input"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let mut documented = [
        "input",
        "lines",
        "original_lines",
        "verdict",
        "detail",
        "expected",
        "actual",
        "first_difference",
        "stderr",
        "runs",
        "seconds",
        "complete",
    ];
    documented.sort_unstable();
    assert_eq!(keys, documented);
}

#[test]
fn gradescope_shows_the_student_the_smallest_game_inert() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results.json");
    let (graded, _) = grade(&[student("ivy-crash")], &["--gradescope", results.to_str().unwrap()]);
    assert_eq!(graded.status, Some(1), "{}", graded.stderr);
    let results: Value = serde_json::from_slice(&fs::read(&results).unwrap()).unwrap();
    let output = results["tests"][2]["output"].as_str().unwrap();
    let (_, smallest) =
        output.split_once("\n\nThe smallest game that still fails (").unwrap_or_else(|| panic!("{output}"));
    assert!(
        smallest.contains(" of the test's 7 move lines):\n\n```text\nTic-Tac-Toe Game Data\n"),
        "{output}"
    );
    assert!(smallest.contains("\nX\t10\n"), "tabs stay tabs: {output}");
    assert!(
        smallest.contains("\nOn it: **crashed**: was killed by SIGABRT\n\nExpected on it:\n\n```text\n"),
        "{output}"
    );
    assert!(
        smallest.contains("\nYour program's answer on it:\n\n```text\nProgrammer: Ivy Chen\n"),
        "{output}"
    );
    assert!(smallest.contains("\nStandard error on it:\n"), "{output}");
}

#[test]
fn the_budget_of_runs_is_kept_and_no_shrink_turns_it_off() {
    let (graded, _) = grade(&[student("hal-spacing")], &["--shrink-runs", "5", "--shrink-time", "600"]);
    let tests = graded.tests(0);
    let shrunk: Vec<&Value> =
        tests.iter().map(|t| &t["smallest_failing_input"]).filter(|s| !s.is_null()).collect();
    assert!(!shrunk.is_empty(), "{}", graded.shown(0));
    for s in &shrunk {
        let runs = s["runs"].as_u64().unwrap();
        assert!((1..=5).contains(&runs), "{s:#}");
    }
    let (graded, _) = grade(&[student("hal-spacing")], &["--no-shrink"]);
    assert_eq!(graded.verdicts(0).iter().filter(|v| *v == "wrong").count(), 7);
    assert!(graded.tests(0).iter().all(|t| t["smallest_failing_input"].is_null()), "{}", graded.shown(0));
    // --no-shrink and a budget contradict each other.
    let out =
        referee().args(["grade", "--tests", "t", "--no-shrink", "--shrink-runs", "3", "s"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("the argument '--no-shrink' cannot be used with '--shrink-runs <N>'"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = referee().args(["grade", "--tests", "t", "--shrink-runs", "0", "s"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("0 is not in 1..=1000000"));
}

/// Cleo's right program, but that writes the wrong winner one run in two
/// (a random byte decides: a run cannot know about the others).
fn flaky(dir: &Path) -> PathBuf {
    let source = fs::read_to_string(student("cleo-py").join("ttt.py")).unwrap();
    let right = "    out.write(f'Winner: {winner}\\n')\n";
    assert!(source.contains(right));
    let flaky = source.replace(
        right,
        "    import os\n    out.write(f'Winner: {winner}\\n' if os.urandom(1)[0] % 2 else 'Winner: nobody\\n')\n",
    );
    let sub = dir.join("flaky");
    fs::create_dir(&sub).unwrap();
    fs::write(sub.join("ttt.py"), flaky).unwrap();
    sub
}

#[test]
fn a_flaky_program_stays_in_its_budget_and_is_shown_no_game_it_passed() {
    let dir = tempfile::tempdir().unwrap();
    let sub = flaky(dir.path());
    let (graded, _) = grade(&[sub], &["--shrink-runs", "30", "--shrink-time", "600"]);
    let tests = graded.tests(0);
    assert_eq!(tests.len(), 9);
    for t in tests {
        let s = &t["smallest_failing_input"];
        match t["verdict"].as_str().unwrap() {
            "pass" => assert!(s.is_null(), "{t:#}"),
            "wrong" if s.is_null() => {}
            "wrong" => {
                // What is shown failed on its confirming run.
                assert_eq!(s["verdict"], "wrong", "{t:#}");
                assert!(s["actual"].as_str().unwrap().contains("Winner: nobody"), "{t:#}");
                assert!(s["runs"].as_u64().unwrap() <= 30, "{t:#}");
            }
            other => panic!("{other}: {t:#}"),
        }
    }
}

#[test]
fn generated_tests_are_added_the_same_for_the_same_seed() {
    let (first, _) =
        grade(&[student("ada-c"), student("lee-diag")], &["--generate", "8", "--seed", "7", "--no-shrink"]);
    let names: Vec<&str> = first.tests(0).iter().map(|t| t["test"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 9 + 8, "{names:?}");
    assert_eq!(&names[9..11], ["gen-0001.txt", "gen-0002.txt"]);
    // ada is right on every generated game; lee (one diagonal missing) is
    // caught by some of them.
    assert!(first.verdicts(0).iter().all(|v| v == "pass"), "{}", first.shown(0));
    // The same seed gives the same games: lee fails the same ones, the same way.
    let (again, _) = grade(&[student("lee-diag")], &["--generate", "8", "--seed", "7", "--no-shrink"]);
    let details = |g: &Graded, i: usize| -> Vec<String> {
        g.tests(i).iter().map(|t| format!("{} {}", t["verdict"], t["detail"])).collect()
    };
    assert_eq!(details(&first, 1), details(&again, 0));
    // An empty test directory is fine when tests are generated.
    let empty = tempfile::tempdir().unwrap();
    let run = referee()
        .args(["grade", "--generate", "2", "--no-shrink", "--tests"])
        .arg(empty.path())
        .arg(student("ada-c"))
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stderr));
}
