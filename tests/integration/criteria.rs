//! A course's criteria besides the games, on `fixtures/criteria` (C++ with
//! the course's `main.cpp` and `board.h`; its README lists who gets what):
//! `--warnings` makes the build's compiler warnings a test of their own,
//! `build-warnings`, with C and C++ built with `-Wall`; `--provided DIR`
//! writes the course's files over each copy before the build, and the
//! reports name those a student lacked or changed. Both are carried by
//! `autograder`.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use ttt_referee::check::{CheckOptions, Header};
use ttt_referee::grade::report::Sinks;
use ttt_referee::grade::{
    self, Faults, Grader, Io, Mode, Plan, Program, Programs, Provided, Step, Verdict, suite,
};
use ttt_referee::referee;
use ttt_referee::sandbox::{Sandbox, copy};

use crate::util::{Graded, fixture, referee};

/// The class's nine tests, in order.
const GAMES: [&str; 9] = [
    "01-sample-cat.txt",
    "02-x-wins-row.txt",
    "03-x-wins-column.txt",
    "04-x-wins-diagonal-o-first.txt",
    "05-x-wins-anti-diagonal-then-more.txt",
    "06-o-wins-column.txt",
    "07-cat-with-violations.txt",
    "08-every-violation.txt",
    "09-cat-o-first.txt",
];

const STUDENTS: [&str; 4] = ["ana-clean", "bob-warns", "cy-changed-main", "dee-lacks"];

/// `grade --tests ../class/tests --warnings --provided provided/` run in
/// `fixtures/criteria` on `students` with `extra` options, its report in a
/// directory kept for the test run.
fn grade(students: &[&str], extra: &[&str]) -> Graded {
    let out = crate::util::kept_dir().keep();
    let criteria = fs::canonicalize(fixture("criteria")).unwrap();
    let report = out.join("report");
    let run = referee()
        .current_dir(&criteria)
        .args(["grade", "--tests", "../class/tests", "--warnings", "--provided", "provided", "--jobs", "2"])
        .args(extra)
        .arg("--report")
        .arg(&report)
        .args(students.iter().map(|s| Path::new("students").join(s)))
        .output()
        .unwrap();
    Graded::read(&run, report)
}

/// The four students graded once for every test here.
fn graded() -> &'static Graded {
    static GRADED: OnceLock<Graded> = OnceLock::new();
    GRADED.get_or_init(|| grade(&STUDENTS, &[]))
}

fn submission(student: &str) -> &'static serde_json::Value {
    let graded = graded();
    let index = graded
        .names()
        .iter()
        .position(|n| n == student)
        .unwrap_or_else(|| panic!("{student} was not graded:\n{}\n{}", graded.stdout, graded.stderr));
    graded.submission(index)
}

/// Each test's name and verdict, in report order.
fn verdict_map(submission: &serde_json::Value) -> Vec<(String, String)> {
    submission["tests"]
        .as_array()
        .unwrap_or_else(|| panic!("no tests: {submission:#}"))
        .iter()
        .map(|t| (t["test"].as_str().unwrap().to_owned(), t["verdict"].as_str().unwrap().to_owned()))
        .collect()
}

/// `build-warnings` with `warnings`, then every game with `games`.
fn expected(warnings: &str, games: &str) -> Vec<(String, String)> {
    std::iter::once(("build-warnings".to_owned(), warnings.to_owned()))
        .chain(GAMES.iter().map(|g| ((*g).to_owned(), games.to_owned())))
        .collect()
}

fn strings(value: &serde_json::Value) -> Vec<&str> {
    value
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {value}"))
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect()
}

#[test]
fn each_student_gets_the_verdicts_of_the_criteria_and_the_games() {
    let graded = graded();
    assert_eq!(graded.status, Some(1), "{}", graded.stderr);
    for (student, warnings, score) in [
        ("ana-clean", "pass", 100.0),
        ("bob-warns", "wrong", 90.0),
        ("cy-changed-main", "pass", 100.0),
        ("dee-lacks", "pass", 100.0),
    ] {
        let result = submission(student);
        assert_eq!(verdict_map(result), expected(warnings, "pass"), "{student}: {result:#}");
        assert_eq!(result["language"], "C++", "{student}");
        assert_eq!(result["score"].as_f64(), Some(score), "{student}");
    }
    // The test counts like any other, in every report.
    let csv = fs::read_to_string(graded.report.join("grades.csv")).unwrap();
    assert!(
        csv.starts_with("submission,language,score,tests,passed,build-warnings,01-sample-cat.txt,"),
        "{csv}"
    );
    assert!(csv.contains("\nbob-warns,C++,90,10,9,wrong,pass,"), "{csv}");
}

#[test]
fn a_build_that_warns_under_wall_fails_build_warnings_showing_the_warnings() {
    let bob = submission("bob-warns");
    let test = &bob["tests"][0];
    assert_eq!((test["verdict"].as_str(), test["score"].as_f64()), (Some("wrong"), Some(0.0)), "{test:#}");
    assert_eq!(test["detail"], "2 compiler warnings");
    let log = bob["build_log"].as_str().unwrap();
    assert!(log.contains("warning: unused variable") && log.contains("[-Wunused-variable]"), "{log}");
    assert!(log.contains("warning: comparison of integer expressions of different signedness"), "{log}");
    // The clean build passes it, saying so.
    let ana = &submission("ana-clean")["tests"][0];
    assert_eq!(
        (ana["verdict"].as_str(), ana["detail"].as_str()),
        (Some("pass"), Some("the build printed no warning"))
    );
    assert_eq!(ana["score"].as_f64(), Some(1.0));
    // report.html shows the warnings themselves where a wrong answer would be.
    let html = fs::read_to_string(graded().report.join("report.html")).unwrap();
    let shown = html
        .split("The compiler&#39;s warnings")
        .nth(1)
        .or_else(|| html.split("The compiler's warnings").nth(1));
    let shown = shown.unwrap_or_else(|| panic!("no warnings in report.html"));
    let block = &shown[..shown.find("</pre>").unwrap()];
    assert_eq!(block.matches("warning:").count(), 2, "{block}");
    assert!(block.contains("./board.cpp:17:9: warning: unused variable"), "{block}");
    assert!(block.contains("./board.cpp:31:29: warning: comparison of integer expressions"), "{block}");
}

#[test]
fn the_courses_provided_files_are_used_and_the_reports_say_which_differed() {
    let cy = submission("cy-changed-main");
    assert_eq!(strings(&cy["provided_changed"]), ["main.cpp"]);
    assert!(strings(&cy["provided_missing"]).is_empty());
    let dee = submission("dee-lacks");
    assert_eq!(strings(&dee["provided_missing"]), ["board.h", "main.cpp"]);
    assert!(strings(&dee["provided_changed"]).is_empty());
    for student in ["ana-clean", "bob-warns"] {
        let result = submission(student);
        assert!(strings(&result["provided_changed"]).is_empty(), "{student}");
        assert!(strings(&result["provided_missing"]).is_empty(), "{student}");
    }
    let html = fs::read_to_string(graded().report.join("report.html")).unwrap();
    for note in [
        "Your copy of main.cpp differed from the course&#39;s; the course&#39;s was used.",
        "Your submission lacked board.h; the course&#39;s was used.",
        "Your submission lacked main.cpp; the course&#39;s was used.",
    ] {
        assert!(
            html.contains(note) || html.contains(&note.replace("&#39;", "'")),
            "no {note:?} in report.html"
        );
    }
    // The terminal's table is the usual one.
    assert!(graded().stdout.contains("cy-changed-main  C++"), "{}", graded().stdout);
}

#[test]
fn without_provided_the_changed_main_fails_and_the_lacking_copy_does_not_build() {
    // What --provided saves them from: the same two graded without it.
    let out = crate::util::kept_dir();
    let criteria = fs::canonicalize(fixture("criteria")).unwrap();
    let report = out.path().join("report");
    let run = referee()
        .current_dir(&criteria)
        .args(["grade", "--tests", "../class/tests", "--no-shrink", "--report"])
        .arg(&report)
        .args(["students/cy-changed-main", "students/dee-lacks"])
        .output()
        .unwrap();
    let graded = Graded::read(&run, report);
    graded.all(0, "wrong");
    graded.all(1, "build-failed");
    // No --provided: no field.
    assert!(graded.submission(0).get("provided_changed").is_none(), "{}", graded.shown(0));
}

#[test]
fn gradescope_shows_the_warnings_and_the_provided_files() {
    let dir = tempfile::tempdir().unwrap();
    let criteria = fs::canonicalize(fixture("criteria")).unwrap();
    let results = dir.path().join("results.json");
    let run = |student: &str| {
        referee()
            .current_dir(&criteria)
            .args([
                "grade",
                "--tests",
                "../class/tests",
                "--warnings",
                "--provided",
                "provided",
                "--gradescope",
            ])
            .arg(&results)
            .arg(Path::new("students").join(student))
            .output()
            .unwrap();
        let json: serde_json::Value = serde_json::from_slice(&fs::read(&results).unwrap()).unwrap();
        json
    };
    let bob = run("bob-warns");
    let test = &bob["tests"][0];
    assert_eq!((test["name"].as_str(), test["status"].as_str()), (Some("build-warnings"), Some("failed")));
    assert_eq!(
        test["output"],
        "**wrong**: 2 compiler warnings\n\n\
         The compiler's warnings:\n\n\
         ```text\n\
         ./board.cpp:17:9: warning: unused variable 'Cleared' [-Wunused-variable]\n\
         ./board.cpp:31:29: warning: comparison of integer expressions of different signedness: 'int' and 'long \
         unsigned int' [-Wsign-compare]\n\
         ```\n"
    );
    assert_eq!(bob["score"].as_f64(), Some(90.0));
    let overview = bob["output"].as_str().unwrap();
    assert!(overview.starts_with("C\\+\\+: 9 of 10 tests passed.\n"), "{overview}");
    assert!(overview.contains("\n| build\\-warnings | **wrong** | 0 / 10 |\n"), "{overview}");
    let cy = run("cy-changed-main");
    assert!(
        cy["output"].as_str().unwrap().starts_with(
            "C\\+\\+: 10 of 10 tests passed.\n\n\
             Your copy of main\\.cpp differed from the course\\'s\\; the course\\'s was used\\.\n\n| test |"
        ),
        "{}",
        cy["output"]
    );
    assert_eq!(cy["tests"][0]["output"], "**pass**: the build printed no warning\n");
}

/// `grade --verbose` tells what the grader did with each submission: the
/// files it copied, the course's files it placed over them, the build and
/// run commands, and the limits.
#[test]
fn verbose_tells_what_the_grader_did_with_each_submission() {
    let criteria = fs::canonicalize(fixture("criteria")).unwrap();
    let graded = referee()
        .current_dir(&criteria)
        .args(["grade", "-v", "--tests", "../class/tests", "--provided", "provided", "--time", "5"])
        .arg(Path::new("students").join("cy-changed-main"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&graded.stderr);
    assert_eq!(graded.status.code(), Some(0), "{stderr}");
    for said in [
        "ttt-referee: 1 submission, 9 tests each\n",
        "ttt-referee: each run's limits: 5 s wall, 5 s CPU, 512 MB memory, 16 MB written, 64 processes, 256 open \
         files each\n",
        "ttt-referee: each build's limits: ",
        "ttt-referee: cy-changed-main: copied 3 files, ",
        " bytes from students/cy-changed-main (board.cpp, board.h, main.cpp) into its own directory in the \
         sandbox's scratch\n",
        "ttt-referee: cy-changed-main: placed the course's provided files from provided over the copy: board.h, \
         main.cpp; its copy differed (the course's was used): main.cpp\n",
        "ttt-referee: cy-changed-main: C++: built with `",
        "`: it built\n",
        "ttt-referee: cy-changed-main: ran `./",
        "` in the sandbox, once for each of 9 tests (of 9)\n",
        // And every protection, each on its line.
        "  in force  limits on time, CPU, file size and processes",
    ] {
        assert!(stderr.contains(said), "{said:?} is not said:\n{stderr}");
    }
    // Without it, none of that.
    let quiet = referee()
        .current_dir(&criteria)
        .args(["grade", "--tests", "../class/tests", "--provided", "provided", "--time", "5"])
        .arg(Path::new("students").join("cy-changed-main"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&quiet.stderr);
    assert!(!stderr.contains("cy-changed-main: copied") && !stderr.contains("built with"), "{stderr}");
}

#[test]
fn with_warnings_a_failed_build_fails_build_warnings_too() {
    let dir = tempfile::tempdir().unwrap();
    let tests = dir.path().join("tests");
    fs::create_dir(&tests).unwrap();
    fs::copy(fixture("class/tests/01-sample-cat.txt"), tests.join("01.txt")).unwrap();
    let report = dir.path().join("report");
    let run = referee()
        .args(["grade", "--warnings", "--tests"])
        .arg(&tests)
        .arg("--report")
        .arg(&report)
        .arg(fixture("class/students/kim-compile"))
        .output()
        .unwrap();
    let graded = Graded::read(&run, report);
    assert_eq!(graded.status, Some(1), "{}", graded.stderr);
    assert_eq!(
        verdict_map(graded.submission(0)),
        [
            ("build-warnings".to_owned(), "build-failed".to_owned()),
            ("01.txt".to_owned(), "build-failed".to_owned())
        ]
    );
    assert_eq!(graded.test(0, 0)["detail"], "the build failed");
}

#[test]
fn a_provided_directory_that_is_missing_or_a_file_is_refused_naming_it() {
    for command in [&["grade"][..], &["autograder", "github", "--out-dir", "/nonexistent-out"][..]] {
        let out = referee()
            .args(command)
            .args(["--tests", "fixtures/class/tests", "--provided", "no/such/dir"])
            .args(if command[0] == "grade" { &["fixtures/class/students/ben-cpp"][..] } else { &[][..] })
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{command:?}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "ttt-referee: --provided no/such/dir: cannot open: No such file or directory\n",
            "{command:?}"
        );
    }
    let out = referee()
        .args(["grade", "--tests", "fixtures/class/tests", "--provided", "fixtures/criteria/README.md"])
        .arg("fixtures/class/students/ben-cpp")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "ttt-referee: --provided fixtures/criteria/README.md: not a directory; expected the directory of the course's provided files\n"
    );
}

#[test]
fn warnings_and_provided_are_refused_with_api() {
    for flags in [&["--warnings"][..], &["--provided", "fixtures/criteria/provided"][..]] {
        let out = referee().args(["grade", "--api", "xtreme"]).args(flags).arg("s").output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{flags:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let shown =
            if flags.len() == 1 { "'--warnings'".to_owned() } else { "'--provided <DIR>'".to_owned() };
        assert!(
            stderr.starts_with(&format!(
                "error: the argument '--api <ASSIGNMENT>' cannot be used with {shown}\n"
            )),
            "{stderr}"
        );
    }
}

/// `autograder github` carries the provided files and passes --warnings
/// on; the repository's grading step then grades a student lacking them
/// with the course's.
#[test]
fn autograder_carries_the_provided_files_and_passes_warnings_on() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("dee-lacks");
    let made = referee()
        .args(["autograder", "github", "--tests", "fixtures/class/tests", "--warnings", "--provided"])
        .arg(fixture("criteria/provided"))
        .arg("--binary")
        .arg(env!("CARGO_BIN_EXE_ttt-referee"))
        .arg("--out-dir")
        .arg(&repo)
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let home = repo.join(".github/ttt-referee");
    for file in ["main.cpp", "board.h"] {
        assert_eq!(
            fs::read(home.join("provided").join(file)).unwrap(),
            fs::read(fixture("criteria/provided").join(file)).unwrap()
        );
    }
    let step = fs::read_to_string(home.join("grade")).unwrap();
    assert!(
        step.contains("grade --tests \"$here/tests\" --provided \"$here/provided\" --warnings --report"),
        "{step}"
    );
    fs::copy(fixture("criteria/students/dee-lacks/board.cpp"), repo.join("board.cpp")).unwrap();
    let report = dir.path().join("report");
    let run = std::process::Command::new("bash")
        .arg(home.join("grade"))
        .current_dir(&repo)
        .env("TTT_REPORT", &report)
        .output()
        .unwrap();
    let graded = Graded::read(&run, report);
    assert_eq!(graded.status, Some(0), "{}", graded.stderr);
    assert_eq!(verdict_map(graded.submission(0)), expected("pass", "pass"));
    assert_eq!(strings(&graded.submission(0)["provided_missing"]), ["board.h", "main.cpp"]);
}

/// A provided file that cannot be written into a copy fails that
/// submission alone (every test `build-failed`, saying which file), and the
/// others are graded.
#[test]
fn a_provided_file_that_cannot_be_placed_fails_only_its_submission() {
    let io = Io::Files { input: grade::DEFAULT_INPUT.to_owned(), output: grade::DEFAULT_OUTPUT.to_owned() };
    let layout = referee::Options::default();
    let mut tests = suite::load(&fixture("class/tests"), &io, &layout).unwrap();
    tests.truncate(1);
    let plan = Plan {
        mode: Mode::Program(Program {
            tests,
            programs: Programs::Detected(grade::Languages::builtin()),
            io,
            layout,
            warnings: true,
            provided: Some(Provided::load(&fixture("criteria/provided")).unwrap()),
        }),
        limits: grade::TEST_LIMITS,
        build_limits: grade::build_limits(&grade::TEST_LIMITS),
        jobs: 2,
        partial: false,
        check: CheckOptions { exact: false, header: Header::Label },
        copy_caps: copy::Caps::SUBMISSION,
        require_sandbox: false,
        shrink: None,
        seed: None,
    };
    let sandbox = Sandbox::with_guard(PathBuf::from(env!("CARGO_BIN_EXE_ttt-guard"))).unwrap();
    let mut grader = Grader::with_sandbox(plan, sandbox).unwrap();
    let faults: Faults = Arc::new(|step, name| {
        if step == Step::PlaceProvided && name == "dee-lacks" {
            Err(io::Error::other("injected"))
        } else {
            Ok(())
        }
    });
    grader.inject_faults(faults);
    let students: Vec<PathBuf> =
        ["ana-clean", "dee-lacks"].iter().map(|s| fixture("criteria/students").join(s)).collect();
    let done = grader.grade(&students, &mut Sinks::new()).unwrap();
    let [ana, dee] = done.results.as_slice() else { panic!("{:#?}", done.results) };
    assert!(ana.tests.iter().all(|t| t.verdict == Verdict::Pass), "{ana:#?}");
    assert_eq!(ana.tests.len(), 2);
    let says = "the grader failed placing the course's provided files (source/board.h): injected";
    assert_eq!(dee.build_log.as_deref(), Some(says));
    assert_eq!(dee.tests.len(), 2);
    assert!(dee.tests.iter().all(|t| t.verdict == Verdict::BuildFailed && t.detail == says), "{dee:#?}");
}

/// `grade --tests fixtures/class/tests --warnings --provided provided` on
/// `students` in `fixtures/attacks/provided-build`, whose course provides
/// a `Makefile` built with `-Wall` beside `main.cpp` and `board.h`.
fn grade_course_build(students: &[PathBuf]) -> Graded {
    grade_course("attacks/provided-build", students)
}

/// As [`grade_course_build`], with the course of `course` (a fixture
/// directory holding `provided/`).
fn grade_course(course: &str, students: &[PathBuf]) -> Graded {
    let out = crate::util::kept_dir().keep();
    let report = out.join("report");
    let run = referee()
        .current_dir(fixture(course))
        .args(["grade", "--warnings", "--provided", "provided", "--jobs", "2", "--tests"])
        .arg(fs::canonicalize(fixture("class/tests")).unwrap())
        .arg("--report")
        .arg(&report)
        .args(students)
        .output()
        .unwrap();
    Graded::read(&run, report)
}

/// The student's copy under `fixtures/attacks/provided-build/students`.
fn attacker(name: &str) -> PathBuf {
    fs::canonicalize(fixture("attacks/provided-build/students")).unwrap().join(name)
}

/// A student's `GNUmakefile` (make reads it before the course's
/// `Makefile`) or `makefile` (likewise) built without `-Wall`, or from
/// their own `Main.cpp` with `-w`: `build-warnings` passed and the report
/// said the course's files were used. Now each is removed, saying so, and
/// make reads the course's `Makefile` alone.
#[test]
fn a_students_own_makefile_is_removed_and_the_courses_is_the_build() {
    let graded =
        grade_course_build(&[attacker("honest"), attacker("gnumakefile"), attacker("makefile-own-main")]);
    assert_eq!(graded.status, Some(1), "{}", graded.stderr);
    let honest = graded.submission(0);
    assert_eq!(verdict_map(honest), expected("pass", "pass"), "{honest:#}");
    assert!(strings(&honest["provided_removed"]).is_empty(), "{honest:#}");
    for (index, removed) in [(1, "GNUmakefile"), (2, "makefile")] {
        let result = graded.submission(index);
        assert_eq!(verdict_map(result), expected("wrong", "pass"), "{result:#}");
        assert_eq!(result["tests"][0]["detail"], "2 compiler warnings", "{result:#}");
        assert_eq!(strings(&result["provided_removed"]), [removed], "{result:#}");
        assert_eq!(result["language"], "Makefile");
        // The course's Makefile, on the course's main.cpp: never Main.cpp.
        let log = result["build_log"].as_str().unwrap();
        assert!(log.contains("g++ -O2 -Wall -c main.cpp\n"), "{log}");
        assert!(log.contains("g++ -O2 -Wall -c board.cpp\n"), "{log}");
        assert!(!log.contains("Main.cpp") && !log.contains(" -w "), "{log}");
    }
    let html = fs::read_to_string(graded.report.join("report.html")).unwrap();
    for file in ["GNUmakefile", "makefile"] {
        let note =
            format!("Your {file} was removed: it would have been read in place of the course&#39;s files.");
        assert!(
            html.contains(&note) || html.contains(&note.replace("&#39;", "'")),
            "no {note:?} in report.html"
        );
    }
}

/// A course whose Makefile relies on make's built-in rules
/// (`fixtures/attacks/provided-implicit`): a student's `main.c` beside the
/// course's `main.cpp` was main.o (make's `%.o: %.c` comes first), compiled
/// by `cc` with no flags, and the course's `main.cpp` never compiled; a
/// student's `board.c` (C, linked under g++'s names) was compiled with the
/// course's empty `CFLAGS`, its warning unseen. Both scored 100. Now
/// `main.c` is removed, saying so, and the course's `main.cpp` is built;
/// make runs with `TARGET_ARCH=-Wall`, which every built-in compile rule
/// reads, so `board.c` is compiled with `-Wall` and fails `build-warnings`.
#[test]
fn a_source_in_another_language_neither_replaces_the_courses_nor_hides_its_warnings() {
    let dir = fs::canonicalize(fixture("attacks/provided-implicit/students")).unwrap();
    let graded =
        grade_course("attacks/provided-implicit", &["honest", "main-c", "board-c"].map(|s| dir.join(s)));
    assert_eq!(graded.status, Some(1), "{}", graded.stderr);
    let log = |index: usize| graded.submission(index)["build_log"].as_str().unwrap().to_owned();
    let honest = graded.submission(0);
    assert_eq!(verdict_map(honest), expected("pass", "pass"), "{honest:#}");
    assert!(strings(&honest["provided_removed"]).is_empty(), "{honest:#}");
    assert!(log(0).contains("-c -o main.o main.cpp\n"), "{}", log(0));
    let main_c = graded.submission(1);
    assert_eq!(strings(&main_c["provided_removed"]), ["main.c"], "{main_c:#}");
    assert_eq!(verdict_map(main_c), expected("pass", "pass"), "{main_c:#}");
    assert!(log(1).contains("-c -o main.o main.cpp\n") && !log(1).contains("main.c\n"), "{}", log(1));
    let board_c = graded.submission(2);
    assert!(strings(&board_c["provided_removed"]).is_empty(), "{board_c:#}");
    assert_eq!(verdict_map(board_c), expected("wrong", "pass"), "{board_c:#}");
    assert_eq!(board_c["tests"][0]["detail"], "1 compiler warning", "{board_c:#}");
    assert!(log(2).contains(" -Wall -c -o board.o board.c\n"), "{}", log(2));
}

/// A precompiled `board.h.gch` beside a student's `board.cpp`: gcc reads
/// it in place of the course's `board.h` (here one whose empty square is
/// `.`), so every game was wrong while the report said the course's
/// `board.h` was used. Now it is removed, saying so, and the course's
/// header is what is compiled. The `.gch` is made here with the machine's
/// g++, as a student would make it with the course's.
#[test]
fn a_precompiled_header_does_not_stand_in_for_the_courses() {
    let dir = tempfile::tempdir().unwrap();
    let pch = dir.path().join("pch");
    fs::create_dir(&pch).unwrap();
    fs::copy(attacker("pch").join("board.cpp"), pch.join("board.cpp")).unwrap();
    fs::copy(fixture("attacks/provided-build/pch-board.h"), pch.join("board.h")).unwrap();
    let made = std::process::Command::new("g++")
        .current_dir(&pch)
        .args(["-O2", "-Wall", "-x", "c++-header", "board.h", "-o", "board.h.gch"])
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    fs::remove_file(pch.join("board.h")).unwrap();
    let graded = grade_course_build(&[pch]);
    let result = graded.submission(0);
    assert_eq!(graded.status, Some(0), "{}\n{result:#}", graded.stderr);
    assert_eq!(verdict_map(result), expected("pass", "pass"), "{result:#}");
    assert_eq!(strings(&result["provided_removed"]), ["board.h.gch"], "{result:#}");
    assert_eq!(strings(&result["provided_missing"]), ["Makefile", "board.h", "main.cpp"], "{result:#}");
}

/// Python's compiled copy of a provided module: a student's
/// `__pycache__/board.cpython-*.pyc`, compiled with an unchecked hash
/// (PEP 552) from a `board.py` whose empty square is `.`, is imported in
/// place of the course's `board.py` whatever the course's holds, so every
/// game was wrong while the report said the course's `board.py` was used
/// (`fixtures/attacks/provided-python`). Now it is removed, saying so. The
/// `.pyc` is made here with the machine's Python, as a student would make
/// it with the course's (a `.pyc` is read only by the Python that made it).
#[test]
fn a_compiled_python_module_does_not_stand_in_for_the_courses() {
    let dir = tempfile::tempdir().unwrap();
    let student = dir.path().join("pyc");
    fs::create_dir(&student).unwrap();
    fs::copy(fixture("attacks/provided-python/students/pyc/ttt.py"), student.join("ttt.py")).unwrap();
    fs::copy(fixture("attacks/provided-python/pyc-board.py"), student.join("board.py")).unwrap();
    let compile = "import py_compile; py_compile.compile('board.py', \
                   invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH, doraise=True)";
    let made =
        std::process::Command::new("python3").current_dir(&student).args(["-c", compile]).output().unwrap();
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    fs::remove_file(student.join("board.py")).unwrap();
    let graded = grade_course("attacks/provided-python", &[student]);
    let result = graded.submission(0);
    assert_eq!(graded.status, Some(0), "{}\n{result:#}", graded.stderr);
    let verdicts = verdict_map(result);
    assert!(verdicts.len() >= GAMES.len() && verdicts.iter().all(|(_, v)| v == "pass"), "{result:#}");
    let removed = strings(&result["provided_removed"]);
    assert!(
        removed.len() == 1
            && removed[0].starts_with("__pycache__/board.")
            && Path::new(removed[0]).extension() == Some("pyc".as_ref()),
        "{result:#}"
    );
    assert_eq!(strings(&result["provided_missing"]), ["board.py"], "{result:#}");
}

/// Students who hide their `-Wall` warnings from g++ with a pragma, in
/// each spelling `fixtures/attacks/warnings-hidden` holds: every one passed
/// `build-warnings` with 100. Now each fails it, the detail naming the
/// file, the line and what is there; the honest student's `#pragma once`
/// and `diagnostic push`/`pop` are nothing, and the course's files are not
/// searched.
#[test]
fn a_pragma_that_hides_warnings_fails_build_warnings_naming_it() {
    let dir = fs::canonicalize(fixture("attacks/warnings-hidden")).unwrap();
    let out = crate::util::kept_dir().keep();
    let report = out.join("report");
    let students = [
        ("honest-pragmas", "the build printed no warning"),
        ("system-header", "warnings hidden: board-impl.h:1: #pragma GCC system_header"),
        (
            "diagnostic-ignored",
            "warnings hidden: board.cpp:1: #pragma GCC diagnostic ignored \"-Wunused-variable\" (and 1 more)",
        ),
        ("pragma-operator", "warnings hidden: board.cpp:1: _Pragma: a pragma made in code (and 1 more)"),
        ("digraph-spliced", "warnings hidden: board-impl.h:1: #pragma GCC system_header"),
        ("pasted", "warnings hidden: board.cpp:1: ## in a macro: it can paste a _Pragma together"),
        ("line-marker", "warnings hidden: board.cpp:2: # 1 \"/usr/include/board-impl.h\" 3"),
    ];
    let run = referee()
        .current_dir(&dir)
        .args(["grade", "--warnings", "--provided", "../../criteria/provided", "--jobs", "2", "--tests"])
        .arg(fs::canonicalize(fixture("class/tests")).unwrap())
        .arg("--report")
        .arg(&report)
        .args(students.iter().map(|(s, _)| Path::new("students").join(s)))
        .output()
        .unwrap();
    let graded = Graded::read(&run, report);
    assert_eq!(graded.status, Some(1), "{}", graded.stderr);
    for (index, (student, detail)) in students.iter().enumerate() {
        let result = graded.submission(index);
        assert_eq!(result["submission"], *student);
        let warnings = if index == 0 { "pass" } else { "wrong" };
        assert_eq!(verdict_map(result), expected(warnings, "pass"), "{student}: {result:#}");
        assert_eq!(result["tests"][0]["detail"], *detail, "{student}");
    }
    // Each silencer is listed where the warnings are shown.
    let html = fs::read_to_string(graded.report.join("report.html")).unwrap();
    for line in [
        "board.cpp:1: hides warnings: _Pragma: a pragma made in code\n",
        "board.cpp:2: hides warnings: _Pragma: a pragma made in code\n",
    ] {
        assert!(html.contains(line), "no {line:?} in report.html");
    }
}
