//! Console programs judged by the game they show (`grade --profile`): a
//! class of each seed course's console, correct students who differ where
//! the handout allows and one planted bug each, every verdict asserted. The
//! classes are in `fixtures/*-class/`, each with a README of its verdicts.

use std::fs;
use std::path::PathBuf;
use std::sync::OnceLock;

use serde_json::json;

use crate::util::{Graded, fixture, referee};

/// `fixtures/{name}-class` graded on its `tests` as its README says.
fn grade_class(name: &str, tests: &str, extra: &[&str]) -> (Graded, tempfile::TempDir) {
    grade_students(&format!("{name}-class"), tests, extra)
}

/// The students of `fixtures/{dir}` graded on its `tests`.
fn grade_students(dir: &str, tests: &str, extra: &[&str]) -> (Graded, tempfile::TempDir) {
    let out = crate::util::kept_dir();
    let class = fs::canonicalize(fixture(dir)).unwrap();
    let mut students: Vec<PathBuf> =
        fs::read_dir(class.join("students")).unwrap().map(|e| e.unwrap().path()).collect();
    students.sort();
    let report = out.path().join("report");
    let run = referee()
        .current_dir(&class)
        .args(["grade", "--tests", tests, "--jobs", "2", "--report"])
        .arg(&report)
        .args(extra)
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
}

/// Each student's verdicts, a letter a test (`p`ass, `w`rong, `c`rashed, …).
fn verdict_map(graded: &Graded) -> Vec<(String, String)> {
    graded
        .names()
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let letters =
                graded.tests(i).iter().map(|t| t["verdict"].as_str().unwrap().chars().next().unwrap());
            (name.clone(), letters.collect())
        })
        .collect()
}

/// A test's detail, by student and test name.
fn detail(graded: &Graded, student: &str, test: &str) -> String {
    let index = graded.names().iter().position(|n| n == student).unwrap();
    let found = graded.tests(index).iter().find(|t| t["test"] == test).unwrap();
    found["detail"].as_str().unwrap().to_owned()
}

fn smalltalk() -> &'static (Graded, tempfile::TempDir) {
    static GRADED: OnceLock<(Graded, tempfile::TempDir)> = OnceLock::new();
    GRADED.get_or_init(|| grade_class("smalltalk", "tests", &["--profile", "smalltalk"]))
}

#[test]
fn the_smalltalk_class_is_judged_by_the_game_each_student_plays() {
    let (graded, _) = smalltalk();
    let want = [
        ("ada-own-words", "ppppp"),
        ("ben-spacing", "ppppp"),
        ("cy-first-corner", "wwwpp"),
        ("dee-block-first", "wpppp"),
        ("eve-crash", "cpppp"),
        ("fay-no-tie", "pppwp"),
        ("gil-cpp", "ppppp"),
    ];
    let want: Vec<(String, String)> = want.iter().map(|(s, v)| ((*s).to_owned(), (*v).to_owned())).collect();
    let mut got = verdict_map(graded);
    // hal's bias is caught by chance, so by test only where the odds are
    // overwhelming (below); the rest of its games are correct.
    let hal = got.pop().unwrap();
    assert_eq!(got, want, "{}", graded.stderr);
    assert_eq!(hal.0, "hal-mostly-first-corner");
    assert!(hal.1.ends_with("pp") && !hal.1.contains(['c', 't', 'n']), "{hal:?}");
    assert_eq!(graded.status, Some(1));
}

#[test]
fn a_corner_taken_first_60_percent_of_the_time_is_not_a_fair_draw() {
    // Found by an attacker: the first free corner 60% of the time and a
    // random one otherwise passed "never varies" in all 44 games. Among 3
    // corners over 100 games it is caught 99.999% of the time, and a fair
    // program fails at most once in 10,000 tests (src/play/chance.rs).
    let (graded, _) = smalltalk();
    let hal = detail(graded, "hal-mostly-first-corner", "computer-first.stdin");
    assert!(hal.starts_with("the corner was 3 in "), "{hal}");
    assert!(
        hal.contains(" of 100 games that reached that position (") && hal.contains("; the rules leave it to chance among 3, 7, 9, and a fair choice is this uneven less than once in 10,000 tests (p = "),
        "{hal}"
    );
    // Every honest student's random corners pass the same test.
    for student in ["ada-own-words", "ben-spacing", "gil-cpp"] {
        assert_eq!(
            detail(graded, student, "computer-first.stdin"),
            "its game is one the assignment allows (in each of 100 games)"
        );
    }
}

#[test]
fn each_wrong_game_is_named_with_the_move_and_the_rule() {
    let (graded, _) = smalltalk();
    let cy = detail(graded, "cy-first-corner", "computer-first.stdin");
    assert!(
        cy.starts_with(
            "the corner was 3 in 100 of 100 games that reached that position (7 in 0, 9 in 0); the rules leave it \
             to chance among 3, 7, 9, and a fair choice is this uneven less than once in 10,000 tests (p = "
        ),
        "{cy}"
    );
    // Which move goes wrong, and in which game, depends on the corners the
    // program drew.
    let dee = detail(graded, "dee-block-first", "bad-input.stdin");
    assert!(dee.contains(": the computer took ") && dee.contains("; it must win at "), "{dee}");
    assert_eq!(
        detail(graded, "fay-no-tie", "human-first.stdin"),
        "the result: it says O wins; the game is a tie"
    );
    // A random corner is played 100 times and passes.
    assert_eq!(
        detail(graded, "ada-own-words", "computer-first.stdin"),
        "its game is one the assignment allows (in each of 100 games)"
    );
    let eve = graded.names().iter().position(|n| n == "eve-crash").unwrap();
    assert!(
        graded.tests(eve)[0]["stderr"].as_str().unwrap().contains("ValueError"),
        "{:#}",
        graded.tests(eve)[0]
    );
}

#[test]
fn a_script_that_ends_mid_game_is_pointed_out_and_judged_as_far_as_it_goes() {
    let (graded, _) = smalltalk();
    assert!(
        graded.stderr.contains(
            "warning: cut-short.stdin: the script ends before its game does; what the program shows is judged, \
             and what it does at the end of its input is not held against it"
        ),
        "{}",
        graded.stderr
    );
    assert!(!graded.stderr.contains("human-first.stdin: the script ends"), "{}", graded.stderr);
    assert_eq!(
        detail(graded, "ben-spacing", "cut-short.stdin"),
        "its game is one the assignment allows, as far as the script goes (in each of 100 games)"
    );
}

fn uri_with_the_ai() -> &'static (Graded, tempfile::TempDir) {
    static GRADED: OnceLock<(Graded, tempfile::TempDir)> = OnceLock::new();
    // Shrinking bounded by its runs alone: its default two seconds of wall
    // clock end it early on a busy machine, and the smallest script shown
    // (asserted below) would depend on the load.
    GRADED.get_or_init(|| grade_class("uri", "tests", &["--profile", "uri", "--shrink-time", "600"]))
}

#[test]
fn the_uri_class_is_started_in_ai_mode_and_judged_by_its_game() {
    let (graded, _) = uri_with_the_ai();
    let want = [
        ("ana-starter", "ppppp"),
        ("bo-spacing", "ppppp"),
        ("cal-infinity", "wwwwp"),
        ("dan-diagonal", "ppppp"),
        ("eli-early-draw", "ppppp"),
        ("fin-cpp", "ppppp"),
        ("gia-java", "ppppp"),
    ];
    let want: Vec<(String, String)> = want.iter().map(|(s, v)| ((*s).to_owned(), (*v).to_owned())).collect();
    assert_eq!(verdict_map(graded), want, "{}", graded.stderr);
    assert_eq!(
        detail(graded, "cal-infinity", "centre.stdin"),
        "move 2: the AI took 1; the starter's minimax_move takes 9"
    );
    // The smallest failing input is the script up to where the game goes
    // wrong: X's first square.
    let cal = graded.names().iter().position(|n| n == "cal-infinity").unwrap();
    let centre = graded.tests(cal).iter().find(|t| t["test"] == "centre.stdin").unwrap();
    let smallest = &centre["smallest_failing_input"];
    assert_eq!(
        (&smallest["input"], &smallest["lines"], &smallest["original_lines"]),
        (&json!("5\n"), &json!(1), &json!(5))
    );
    // The script ends mid-game; neither the TypeError of the Python port
    // nor the endless loop of the C++ starter (stopped at the output limit)
    // or of the Java port (slower to print: stopped at the time limit, its
    // output still judged) at the end of the input is held against anyone.
    for student in ["ana-starter", "fin-cpp", "gia-java"] {
        assert_eq!(
            detail(graded, student, "cut-short.stdin"),
            "its game is one the assignment allows, as far as the script goes"
        );
    }
}

#[test]
fn two_person_games_are_graded_with_o_human_and_no_argument() {
    let (graded, _) = grade_class("uri", "two-player-tests", &["--profile", "uri", "--o", "human"]);
    let want = [
        ("ana-starter", "pp"),
        ("bo-spacing", "pp"),
        ("cal-infinity", "pp"),
        ("dan-diagonal", "pw"),
        ("eli-early-draw", "wp"),
        ("fin-cpp", "pp"),
        ("gia-java", "pp"),
    ];
    let want: Vec<(String, String)> = want.iter().map(|(s, v)| ((*s).to_owned(), (*v).to_owned())).collect();
    assert_eq!(verdict_map(&graded), want, "{}", graded.stderr);
    assert_eq!(
        detail(&graded, "dan-diagonal", "x-wins-anti-diagonal.stdin"),
        "line 70: expected `Player 1 wins!`, found `Player 2 make your move:`"
    );
    assert_eq!(
        detail(&graded, "eli-early-draw", "draw.stdin"),
        "line 103: expected `Player 1 make your move:`, found `It's a draw!`"
    );
}

fn extended() -> &'static (Graded, tempfile::TempDir) {
    static GRADED: OnceLock<(Graded, tempfile::TempDir)> = OnceLock::new();
    GRADED.get_or_init(|| grade_class("extended", "tests", &["--profile", "extended"]))
}

#[test]
fn the_extended_class_in_java_is_judged_by_the_game_each_student_plays() {
    let (graded, _) = extended();
    let want = [
        ("ava-official", "pppppppp"),
        ("ben-blank-lines", "pppppppp"),
        ("cora-own-words", "pppppppp"),
        ("dev-last-column", "ppwpwwwp"),
        ("eli-early-draw", "ppwppwpp"),
        ("fay-crash", "pcpppppp"),
        ("gus-cpp", "pppppppp"),
        ("hal-py", "wppwppwp"),
    ];
    let want: Vec<(String, String)> = want.iter().map(|(s, v)| ((*s).to_owned(), (*v).to_owned())).collect();
    assert_eq!(verdict_map(graded), want, "{}", graded.stderr);
    assert_eq!(graded.status, Some(1));
    // The grader built the Java itself and found the class holding main.
    let language = &graded.results["submissions"][0]["language"];
    assert_eq!(language, "Java (cpsc2150.extendedTicTacToe.GameScreen)");
}

#[test]
fn each_planted_bug_in_the_extended_class_is_named_where_the_game_departs() {
    let (graded, _) = extended();
    // The last column refused: the board after `1 2` lacks the X.
    assert_eq!(
        detail(graded, "dev-last-column", "session-0001.stdin"),
        "line 17: expected `1| | |X |`, found `1| | | |`"
    );
    assert_eq!(
        detail(graded, "eli-early-draw", "last-square-win.stdin"),
        "line 71: expected `Player X wins!`, found `It's a draw!`"
    );
    // The missed diagonal: the game goes on where O has won.
    assert_eq!(
        detail(graded, "hal-py", "anti-diagonal.stdin"),
        "line 80: expected `Player O wins!`, found `0| 1| 2| 3| 4|`"
    );
    // A row that is no number: the handout asks again, fay's nextInt throws.
    let fay = graded.names().iter().position(|n| n == "fay-crash").unwrap();
    let bad = graded.tests(fay).iter().find(|t| t["test"] == "bad-square.stdin").unwrap();
    assert_eq!(bad["verdict"], "crashed", "{bad:#}");
    assert!(bad["stderr"].as_str().unwrap().contains("java.util.InputMismatchException"), "{bad:#}");
    // Every script plays its games to their end: nothing to warn about.
    assert!(!graded.stderr.contains("the script ends before its game does"), "{}", graded.stderr);
}

#[test]
fn a_draw_announced_as_a_win_is_wrong_in_any_spelling() {
    let (graded, _) = grade_students("extended-attacks", "tests", &["--profile", "extended"]);
    let want = [
        ("ava-official", "p"),
        ("kai-player-wins", "w"),
        ("lea-player-won", "w"),
        ("max-mark-wins", "w"),
        ("ned-lower-case", "w"),
        ("oli-look-alike", "w"),
    ];
    let want: Vec<(String, String)> = want.iter().map(|(s, v)| ((*s).to_owned(), (*v).to_owned())).collect();
    assert_eq!(verdict_map(&graded), want, "{}", graded.stderr);
    for (student, said) in [
        ("kai-player-wins", "Player X wins"),
        ("lea-player-won", "Player X won!"),
        ("max-mark-wins", "X wins!"),
        ("ned-lower-case", "player X wins!"),
        ("oli-look-alike", "Player X w\u{456}ns!"),
    ] {
        let why = detail(&graded, student, "refusals-draw-again.stdin");
        assert!(
            why.ends_with(&format!(": expected `It's a draw!` or other words for it, found `{said}`")),
            "{why}"
        );
    }
}

#[test]
fn who_plays_is_refused_where_the_profile_asks_itself() {
    let out = referee()
        .args([
            "grade",
            "--profile",
            "smalltalk",
            "--o",
            "human",
            "--tests",
            "fixtures/smalltalk-class/tests",
        ])
        .arg("fixtures/smalltalk-class/students/ada-own-words")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "ttt-referee: --x and --o do not apply to a profile that asks who plays each side; leave them out\n"
    );
    let out = referee()
        .args(["grade", "--o", "human", "--tests", "fixtures/class/tests", "fixtures/class/students/ada-c"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--profile"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A program that sleeps at the end of a script that stops mid-game is
/// stopped at the time limit, and still judged on what it showed: the
/// guard kills it there itself and hands out its output (which the grader
/// used to lose with the run).
#[test]
fn a_program_stopped_at_the_time_limit_after_its_script_is_still_judged_by_its_game() {
    let out = crate::util::kept_dir();
    let class = fs::canonicalize(fixture("uri-class")).unwrap();
    let student = out.path().join("gus-sleeps");
    let tests = out.path().join("tests");
    fs::create_dir_all(&student).unwrap();
    fs::create_dir_all(&tests).unwrap();
    let base = fs::read_to_string(class.join("base.py")).unwrap();
    let sleeper = "\nimport time\n\
                   # At the end of its input it waits for more, for ever.\n\
                   def read_move():\n    c = sys.stdin.read(1)\n    while not c:\n        time.sleep(3600)\n\
                   \x20   sys.stdin.read(1)\n    return ord(c) - ord(\"1\")\n";
    let program = base + sleeper + "\nmain()\n";
    fs::write(student.join("ttt.py"), program).unwrap();
    fs::copy(class.join("tests/cut-short.stdin"), tests.join("cut-short.stdin")).unwrap();
    let report = out.path().join("report");
    let run = referee()
        .args(["grade", "--profile", "uri", "--time", "1", "--tests"])
        .arg(&tests)
        .arg("--report")
        .arg(&report)
        .arg(&student)
        .output()
        .unwrap();
    let results: serde_json::Value =
        serde_json::from_slice(&fs::read(report.join("results.json")).unwrap()).unwrap();
    let test = &results["submissions"][0]["tests"][0];
    assert_eq!(test["verdict"], "pass", "{test:#}\n{}", String::from_utf8_lossy(&run.stderr));
    assert_eq!(test["detail"], "its game is one the assignment allows, as far as the script goes");
}
