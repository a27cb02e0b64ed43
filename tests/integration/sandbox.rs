//! `grade` against hostile programs: each is a small C program built by the
//! grader (`cc`, the compiler Rust links with), and each is bounded in its
//! own damage even when run unconfined: capped children with an alarm,
//! output and memory capped, writes only into temporary directories, a TCP
//! connection only to the test's own listener.

use std::fs;
use std::net::TcpListener;
use std::path::{Path, PathBuf};

use serde_json::Value;
use tempfile::TempDir;

use crate::util::{Graded, referee};

/// A grading area: tests, submissions and reports under one temporary
/// directory.
struct Area {
    dir: TempDir,
}

impl Area {
    /// An area with `tests` generated move files.
    fn new(tests: u64) -> Area {
        let dir = tempfile::tempdir().unwrap();
        referee()
            .args(["gen", "--seed", "5", "--count", &tests.to_string(), "--out-dir"])
            .arg(dir.path().join("tests"))
            .assert()
            .success();
        Area { dir }
    }

    fn tests(&self) -> PathBuf {
        self.dir.path().join("tests")
    }

    /// A submission named `name` holding `files`.
    fn submission(&self, name: &str, files: &[(&str, &str)]) -> PathBuf {
        let dir = self.dir.path().join("subs").join(name);
        fs::create_dir_all(&dir).unwrap();
        for (file, text) in files {
            fs::write(dir.join(file), text).unwrap();
        }
        dir
    }

    /// A C submission: `main.c` is `source`.
    fn c(&self, name: &str, source: &str) -> PathBuf {
        self.submission(name, &[("main.c", source)])
    }

    /// Grades `subs` (built with `cc`) with `extra` options; returns the exit
    /// status, results.json, and standard output and error.
    fn grade(&self, subs: &[&Path], extra: &[&str]) -> Graded {
        let build = format!("cc -O1 -o prog main.c {}", cflags(self));
        let mut args = vec!["--build", &build, "--time", "1"];
        args.extend(extra);
        self.grade_as(subs, &args)
    }

    /// Grades `subs` with exactly `args` (besides the tests and the report).
    fn grade_as(&self, subs: &[&Path], args: &[&str]) -> Graded {
        let report = self.dir.path().join("report");
        let _ = fs::remove_dir_all(&report);
        // Generous unless the test sets it: the machine may be busy with
        // other tests, and these runs are not about time.
        let time: &[&str] = if args.contains(&"--time") { &[] } else { &["--time", "10"] };
        // A debug build of the referee, which some submissions carry, is
        // larger than the default cap.
        let cap: &[&str] =
            if args.contains(&"--submission-limit") { &[] } else { &["--submission-limit", "1024"] };
        let output = referee()
            .arg("grade")
            .args(time)
            .args(cap)
            .arg("--tests")
            .arg(self.tests())
            .arg("--report")
            .arg(&report)
            .args(args)
            .args(subs)
            .output()
            .unwrap();
        Graded::read(&output, report)
    }
}

/// Defines the C programs may use: where the tests are.
fn cflags(area: &Area) -> String {
    format!("-DTESTS='\"{}\"'", area.tests().display())
}

/// Whether any process on the machine is named `tag` (`/proc/*/comm`).
pub(crate) fn alive(tag: &str) -> bool {
    fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .any(|e| fs::read_to_string(e.path().join("comm")).is_ok_and(|c| c.trim() == tag))
}

/// Sets the calling process's name to `tag`, so that tests can look for it.
const NAME_ITSELF: &str = "#include <sys/prctl.h>\n#define NAME(tag) prctl(PR_SET_NAME, tag)\n";

#[test]
fn an_infinite_loop_and_a_sleeper_hit_the_time_limit_and_are_killed_in_time() {
    let area = Area::new(1);
    let looping = area.c("looping", "int main(void) { for (;;) {} }");
    let sleeper = area.c("sleeper", "#include <unistd.h>\nint main(void) { sleep(30); return 0; }");
    let graded = area.grade(&[&looping, &sleeper], &[]);
    assert_eq!(graded.status, Some(1));
    assert_eq!(graded.verdicts(0), ["time-limit"]);
    assert_eq!(graded.verdicts(1), ["time-limit"]);
    for sub in 0..2 {
        let wall = graded.test(sub, 0)["wall"].as_f64().unwrap();
        assert!(wall < 1.5, "killed {wall} s after it started; the limit is 1 s");
        // Confirmed by a second run, which decided.
        let detail = graded.test(sub, 0)["detail"].as_str().unwrap();
        assert!(detail.ends_with("(twice: it was run again to confirm)"), "{detail}");
    }
}

#[test]
fn a_daemon_dies_with_its_run() {
    let area = Area::new(1);
    let tag = "ttt-daemon-test";
    let source = format!(
        "{NAME_ITSELF}#include <unistd.h>\nint main(void) {{\n  if (fork() == 0) {{ setsid(); if (fork() == 0) {{ NAME(\"{tag}\"); sleep(30); _exit(0); }} _exit(0); }}\n  sleep(0); return 0;\n}}\n"
    );
    let daemon = area.c("daemon", &source);
    let graded = area.grade(&[&daemon], &[]);
    assert_eq!(graded.verdicts(0), ["no-output"]);
    assert!(graded.in_force("PID, network"), "{}", graded.stderr);
    assert!(!alive(tag), "the daemon outlived its run");
}

#[test]
fn a_swarm_of_busy_children_is_stopped_and_gone() {
    let area = Area::new(1);
    let tag = "ttt-swarm-test";
    // 16 children at most, each ending itself after 10 s even unconfined.
    let source = format!(
        "{NAME_ITSELF}#include <unistd.h>\nint main(void) {{\n  for (int i = 0; i < 16; i++) if (fork() == 0) {{ NAME(\"{tag}\"); alarm(10); for (;;) {{}} }}\n  alarm(10); for (;;) {{}}\n}}\n"
    );
    let swarm = area.c("swarm", &source);
    let graded = area.grade(&[&swarm], &["--processes", "8"]);
    assert_eq!(graded.verdicts(0), ["time-limit"]);
    assert!(graded.test(0, 0)["wall"].as_f64().unwrap() < 1.5);
    assert!(!alive(tag), "a child of the swarm outlived its run");
}

#[test]
fn floods_to_standard_output_and_to_the_answer_file_hit_the_output_limit() {
    let area = Area::new(1);
    // 64 MB at most, in 64 KB writes.
    let flood = |target: &str| {
        format!(
            "#include <stdio.h>\n#include <string.h>\nint main(void) {{\n  static char b[65536]; memset(b, 'x', sizeof b);\n  FILE *f = {target};\n  for (int i = 0; i < 1024; i++) fwrite(b, 1, sizeof b, f);\n  return 0;\n}}\n"
        )
    };
    let to_file = area.c("to-file", &flood("fopen(\"TTTgame.txt\", \"w\")"));
    let graded = area.grade(&[&to_file], &["--output-limit", "1"]);
    assert_eq!(graded.verdicts(0), ["output-limit"]);

    let to_stdout = area.c("to-stdout", &flood("stdout"));
    let graded = area.grade(&[&to_stdout], &["--output-limit", "1", "--io", "stdout"]);
    assert_eq!(graded.verdicts(0), ["output-limit"]);

    // Many files, each under the limit, together over it.
    let many = area.c(
        "many-files",
        "#include <stdio.h>\n#include <string.h>\nint main(void) {\n  static char b[65536]; memset(b, 'x', sizeof b); char name[32];\n  for (int n = 0; n < 40; n++) { sprintf(name, \"f%d\", n); FILE *f = fopen(name, \"w\"); for (int i = 0; i < 8; i++) fwrite(b, 1, sizeof b, f); fclose(f); }\n  return 0;\n}\n",
    );
    let graded = area.grade(&[&many], &["--output-limit", "1"]);
    assert_eq!(graded.verdicts(0), ["output-limit"]);
}

#[test]
fn a_memory_hog_crashes_at_the_memory_limit_and_the_report_says_so() {
    let area = Area::new(1);
    // 2 GB at most, touched 16 MB at a time.
    let hog = area.c(
        "hog",
        "#include <stdlib.h>\n#include <string.h>\nint main(void) {\n  for (int i = 0; i < 128; i++) { char *p = malloc(16 << 20); memset(p, 1, 16 << 20); }\n  return 0;\n}\n",
    );
    let graded = area.grade(&[&hog], &["--memory", "128"]);
    assert_eq!(graded.verdicts(0), ["crashed"]);
    let detail = graded.test(0, 0)["detail"].as_str().unwrap();
    // Killed by the kernel at the cgroup's limit (SIGKILL), or refused
    // memory by the address-space limit where there is no cgroup (SIGSEGV).
    assert!(detail.contains("SIG") && detail.contains("memory"), "{detail}");
}

#[test]
fn an_escape_attempt_touches_nothing_outside_its_directory() {
    let area = Area::new(1);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let before: Vec<_> = fs::read_dir(area.tests()).unwrap().map(|e| e.unwrap().path()).collect();
    let test_file = before[0].clone();
    let test_bytes = fs::read(&test_file).unwrap();
    // It counts its successes and exits with that count; it writes nothing
    // into its own directory, so a run that achieved nothing is no-output.
    let source = format!(
        r#"#include <fcntl.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>
int main(void) {{
  int won = 0, fd;
  if ((fd = open("/escaped", O_WRONLY | O_CREAT, 0644)) >= 0) {{ won++; close(fd); }}
  if ((fd = open("/usr/escaped", O_WRONLY | O_CREAT, 0644)) >= 0) {{ won++; close(fd); }}
  if ((fd = open(TESTS "/planted.txt", O_WRONLY | O_CREAT, 0644)) >= 0) {{ won++; close(fd); }}
  if ((fd = open("{test}", O_WRONLY | O_APPEND)) >= 0) {{ won++; write(fd, "X 1\n", 4); close(fd); }}
  if ((fd = open("{test}", O_RDONLY)) >= 0) {{ won++; close(fd); }}
  int s = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {{ .sin_family = AF_INET, .sin_port = htons({port}), .sin_addr.s_addr = htonl(0x7f000001) }};
  if (s >= 0 && connect(s, (struct sockaddr *)&a, sizeof a) == 0) won++;
  return won;
}}
"#,
        test = test_file.display(),
    );
    let escape = area.c("escape", &source);
    let graded = area.grade(&[&escape], &[]);
    assert!(graded.in_force("Landlock"), "{}", graded.stderr);
    assert_eq!(graded.verdicts(0), ["no-output"], "{}", graded.test(0, 0));
    let after: Vec<_> = fs::read_dir(area.tests()).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(before, after, "a file appeared among the tests");
    assert_eq!(fs::read(&test_file).unwrap(), test_bytes, "a test was changed");
    assert!(listener.accept().is_err(), "the program reached the network");
}

#[test]
fn crashes_and_exits_are_told_apart() {
    let area = Area::new(1);
    let segv = area.c("segv", "int main(void) { *(volatile int *)0 = 1; return 0; }");
    let abort = area.c("abort", "#include <stdlib.h>\nint main(void) { abort(); }");
    let three = area.c("exit-3", "int main(void) { return 3; }");
    let nothing = area.c("nothing", "int main(void) { return 0; }");
    let broken = area.c("broken", "int main(void) { return }");
    let graded = area.grade(&[&segv, &abort, &three, &nothing, &broken], &[]);
    assert_eq!(graded.status, Some(1));
    let detail = |sub| graded.test(sub, 0)["detail"].as_str().unwrap().to_owned();
    assert_eq!(graded.verdicts(0), ["crashed"]);
    assert_eq!(graded.test(0, 0)["signal"], "SIGSEGV");
    assert_eq!(graded.verdicts(1), ["crashed"]);
    assert_eq!(graded.test(1, 0)["signal"], "SIGABRT", "{}", detail(1));
    assert_eq!(graded.verdicts(2), ["crashed"]);
    assert_eq!(graded.test(2, 0)["exit_status"], 3);
    assert_eq!(detail(2), "exited with status 3");
    assert_eq!(graded.verdicts(3), ["no-output"]);
    assert_eq!(graded.verdicts(4), ["build-failed"]);
    assert!(graded.submission(4)["build_log"].as_str().unwrap().contains("error"));
}

#[test]
fn the_grader_says_what_protects_the_runs() {
    let area = Area::new(1);
    let nothing = area.c("nothing", "int main(void) { return 0; }");
    // Every protection is in force here: one line says so.
    let graded = area.grade(&[&nothing], &[]);
    if !graded.stderr.starts_with("ttt-referee: sandbox: all ") {
        crate::util::skip(&format!("this test needs every protection:\n{}", graded.stderr));
        return;
    }
    assert!(
        graded
            .stderr
            .starts_with("ttt-referee: sandbox: all 11 protections in force (--verbose lists them)\n"),
        "{}",
        graded.stderr
    );
    assert!(!graded.stderr.contains("in force  "), "{}", graded.stderr);
    // --verbose lists each.
    let graded = area.grade(&[&nothing], &["--verbose"]);
    assert!(
        graded.stderr.starts_with("ttt-referee: sandbox: all 11 protections in force:\n"),
        "{}",
        graded.stderr
    );
    for name in [
        "seccomp",
        "its own root",
        "PID, network",
        "referee",
        "tmpfs",
        "cgroup",
        "Landlock",
        "limits",
        "a fair share of the CPU",
        "small limits on what the machine shares: 256 open files a process",
        "umask 022",
        "capabilities",
    ] {
        assert!(graded.stderr.contains(name), "{name} is not mentioned:\n{}", graded.stderr);
    }
    assert!(graded.report.join("report.html").is_file());
    // Every protection is in force here, so --require-sandbox grades.
    assert!(!graded.stderr.contains("MISSING"), "{}", graded.stderr);
    let graded = area.grade(&[&nothing], &["--require-sandbox"]);
    assert_eq!(graded.status, Some(1), "{}", graded.stderr);
    assert_eq!(graded.verdicts(0), ["no-output"]);
}

/// A submission that is ttt-referee itself (as `ttt`) behind `run.sh`.
fn referee_submission(area: &Area, name: &str, script: &str) -> PathBuf {
    let dir = area.submission(name, &[("run.sh", script)]);
    fs::copy(env!("CARGO_BIN_EXE_ttt-referee"), dir.join("ttt")).unwrap();
    dir
}

#[test]
fn right_spaced_and_subtly_wrong_answers_get_exactly_their_verdicts() {
    let area = Area::new(4);
    let right = referee_submission(&area, "right", "./ttt TTTmoves.txt -o TTTgame.txt\n");
    let spaced =
        referee_submission(&area, "spaced", "./ttt TTTmoves.txt | sed 's/ /   /g; s/$/  /' > TTTgame.txt\n");
    let subtle = referee_submission(
        &area,
        "subtle",
        "./ttt TTTmoves.txt | sed 's/^Winner: X$/Winner: O/' > TTTgame.txt\n",
    );
    // Which tests X wins, from the referee's own transcripts.
    let mut names: Vec<PathBuf> = fs::read_dir(area.tests()).unwrap().map(|e| e.unwrap().path()).collect();
    names.sort();
    let x_wins: Vec<bool> = names
        .iter()
        .map(|path| {
            let out = referee().arg(path).output().unwrap();
            String::from_utf8_lossy(&out.stdout).contains("\nWinner: X\n")
        })
        .collect();
    assert!(x_wins.contains(&true) && x_wins.contains(&false), "the tests need both kinds: {x_wins:?}");

    let graded = area.grade_as(&[&right, &spaced, &subtle], &["--run", "sh run.sh", "--partial"]);
    assert_eq!(graded.status, Some(1), "{}", graded.stderr);
    assert!(graded.verdicts(0).iter().all(|v| v == "pass"));
    assert!(graded.verdicts(1).iter().all(|v| v == "pass"), "tolerant comparison forgives spacing");
    let expected: Vec<&str> = x_wins.iter().map(|&x| if x { "wrong" } else { "pass" }).collect();
    assert_eq!(graded.verdicts(2), expected);
    let wrong = x_wins.iter().position(|&x| x).unwrap();
    let test = graded.test(2, wrong);
    assert_eq!(test["first_difference"]["expected"][1], "Winner: X");
    assert_eq!(test["first_difference"]["actual"][1], "Winner: O");
    let (matched, lines) =
        (test["lines_matched"][0].as_f64().unwrap(), test["lines_matched"][1].as_f64().unwrap());
    assert!(
        (test["score"].as_f64().unwrap() - matched / lines).abs() < 1e-9,
        "--partial scores the share matched"
    );
    assert_eq!(graded.submission(0)["score"], 100.0);

    // The gradebook: a column per test with its verdict.
    let csv = fs::read_to_string(graded.report.join("grades.csv")).unwrap();
    let mut rows = csv.lines();
    let header = rows.next().unwrap();
    assert!(header.starts_with("submission,language,score,tests,passed,game-0001.txt,"), "{header}");
    assert_eq!(rows.next().unwrap(), "right,given,100,4,4,pass,pass,pass,pass");
    let subtle = rows.nth(1).unwrap();
    let passed = expected.iter().filter(|&&v| v == "pass").count();
    assert!(
        subtle.starts_with("subtle,") && subtle.ends_with(&format!(",4,{passed},{}", expected.join(","))),
        "{subtle}"
    );
    // JUnit: a test case per submission and test; failures carry the difference.
    let junit = fs::read_to_string(graded.report.join("junit.xml")).unwrap();
    assert_eq!(junit.matches("<testcase ").count(), 12);
    assert!(junit.contains(r#"classname="subtle""#) && junit.contains("<failure"));
    assert!(junit.contains("Winner: O"));

    // Exact comparison does not forgive spacing.
    let graded = area.grade_as(&[&spaced], &["--run", "sh run.sh", "--exact"]);
    assert!(graded.verdicts(0).iter().all(|v| v == "wrong"));
}

#[test]
fn the_io_modes_hand_over_the_test_as_they_say() {
    let area = Area::new(2);
    let stdout = referee_submission(&area, "stdout", "./ttt TTTmoves.txt\n");
    let graded = area.grade_as(&[&stdout], &["--run", "sh run.sh", "--io", "stdout"]);
    assert_eq!(graded.verdicts(0), ["pass", "pass"], "{}", graded.stdout);
    let stdin = referee_submission(&area, "stdin", "");
    let graded = area.grade_as(&[&stdin], &["--run", "./ttt -", "--io", "stdout"]);
    assert_eq!(graded.verdicts(0), ["pass", "pass"]);
    let args = referee_submission(&area, "args", "");
    let graded = area.grade_as(&[&args], &["--run", "./ttt {moves} -o {out}", "--io", "args"]);
    assert_eq!(graded.verdicts(0), ["pass", "pass"]);
    let named = referee_submission(&area, "named", "");
    let graded = area.grade_as(
        &[&named],
        &["--run", "./ttt in.txt -o out.txt", "--moves-file", "in.txt", "--transcript-file", "out.txt"],
    );
    assert_eq!(graded.verdicts(0), ["pass", "pass"]);
    // Its answer in the wrong place is no answer.
    let graded = area.grade_as(&[&named], &["--run", "./ttt TTTmoves.txt -o elsewhere.txt"]);
    assert_eq!(graded.verdicts(0), ["no-output", "no-output"]);
}

#[test]
fn a_console_program_is_graded_on_typed_scripts() {
    let area = Area::new(0);
    let scripts = area.tests();
    referee()
        .args(["gen", "--profile", "uri", "--count", "3", "--seed", "2", "--out-dir"])
        .arg(&scripts)
        .assert()
        .success();
    let console = referee_submission(&area, "console", "");
    let graded = area.grade_as(&[&console], &["--profile", "uri", "--run", "./ttt play --profile uri"]);
    assert_eq!(graded.status, Some(0), "{}{}", graded.stdout, graded.stderr);
    assert_eq!(graded.verdicts(0), ["pass", "pass", "pass"]);
    let graded = area.grade_as(&[&console], &["--profile", "uri", "--run", "./ttt play"]);
    assert_eq!(graded.verdicts(0), ["wrong", "wrong", "wrong"]);
}

#[test]
fn gradescope_and_the_html_page_carry_the_results_escaped() {
    let area = Area::new(2);
    let odd =
        referee_submission(&area, "a<b>&c", "./ttt TTTmoves.txt | sed 's/Winner/Loser/' > TTTgame.txt\n");
    let gradescope = area.dir.path().join("gradescope.json");
    let graded =
        area.grade_as(&[&odd], &["--run", "sh run.sh", "--gradescope", gradescope.to_str().unwrap()]);
    let results: Value = serde_json::from_slice(&fs::read(&gradescope).unwrap()).unwrap();
    assert_eq!(results["score"], 0.0);
    assert_eq!(results["tests"].as_array().unwrap().len(), 2);
    let first = &results["tests"][0];
    assert_eq!(first["name"], "game-0001.txt");
    assert_eq!(first["status"], "failed");
    assert_eq!(first["max_score"], 50.0);
    assert_eq!(first["visibility"], "visible");
    assert!(first["output"].as_str().unwrap().contains("Loser"));
    let page = fs::read_to_string(graded.report.join("report.html")).unwrap();
    assert!(page.contains("a&lt;b&gt;&amp;c") && !page.contains("a<b>"), "the name is escaped");
    assert!(page.contains(r#"class="bad""#), "differing lines are marked");
    // Gradescope takes one submission.
    let other = referee_submission(&area, "other", "");
    let graded = area.grade_as(&[&odd, &other], &["--gradescope", gradescope.to_str().unwrap()]);
    assert_eq!(graded.status, Some(2));
    assert!(graded.stderr.contains("--gradescope writes the results of one submission; 2 were given"));
}

#[test]
fn the_html_page_marks_exactly_the_lines_the_diff_left_unmatched() {
    let area = Area::new(1);
    let terse = referee_submission(&area, "terse", "./ttt TTTmoves.txt | grep -v '^$' > TTTgame.txt\n");
    // The test's own diff is the page's only one without a smallest game.
    let graded = area.grade_as(&[&terse], &["--run", "sh run.sh", "--no-shrink"]);
    assert_eq!(graded.verdicts(0), ["wrong"], "{}", graded.stderr);
    let test = graded.test(0, 0);
    let blank = test["first_difference"]["expected"][1].as_str().unwrap();
    assert_eq!(blank, "", "only blank lines differ: {test}");
    let (matched, lines) =
        (test["lines_matched"][0].as_u64().unwrap(), test["lines_matched"][1].as_u64().unwrap());

    let page = fs::read_to_string(graded.report.join("report.html")).unwrap();
    let diff = &page[page.find(r#"<div class="diff">"#).unwrap()..];
    let (expected, actual) = diff.split_once("the program's answer").unwrap();
    // Every blank line of the expected answer is marked, and nothing else:
    // not `Winner:`, which both have, nor any line of the program's answer.
    let marked = expected.matches(r#"<span class="bad">"#).count();
    // Blank lines are not counted: every line that says something matched.
    assert_eq!(matched, lines, "{test}");
    assert_eq!(expected.matches("<span class=\"bad\">\n</span>").count(), marked, "{diff}");
    assert!(marked > 2, "{diff}");
    assert!(!actual.contains(r#"class="bad""#), "{diff}");
}

#[test]
fn grading_that_cannot_be_done_exits_2_and_says_why() {
    let area = Area::new(1);
    let sub = area.c("nothing", "int main(void) { return 0; }");
    let empty = area.dir.path().join("empty");
    fs::create_dir(&empty).unwrap();
    let out = referee().arg("grade").arg("--tests").arg(&empty).arg(&sub).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no tests; expected files named *.txt"));
    // One test file named where the directory goes.
    let one = area.dir.path().join("01-one.txt");
    fs::write(&one, "").unwrap();
    let out = referee().arg("grade").arg("--tests").arg(&one).arg(&sub).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("01-one.txt: not a directory; expected the directory of tests, files named *.txt\n"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    fs::write(area.tests().join("bad.txt"), "Game\nX: A O: B\n\n5\n").unwrap();
    let out = referee().arg("grade").arg("--tests").arg(area.tests()).arg(&sub).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("bad.txt:4: `5` has 1 field; expected a move with two"), "{stderr}");
    let out =
        referee().arg("grade").arg("--tests").arg(&empty).arg(area.tests().join("bad.txt")).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("bad.txt: not a directory; skipped (a submission is a directory)"), "{stderr}");
    assert!(stderr.contains("no submissions to grade: expected one directory per student"), "{stderr}");
    fs::remove_file(area.tests().join("bad.txt")).unwrap();
    let refused = |args: &[&str], message: &str| {
        let out =
            referee().arg("grade").arg("--tests").arg(area.tests()).args(args).arg(&sub).output().unwrap();
        assert_eq!(out.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(message), "{stderr}");
    };
    refused(&["--profile", "uri", "--io", "stdout"], "--io does not apply with --profile");
    refused(&["--moves-file", "../x.txt"], "expected a file name without a directory, such as TTTmoves.txt");
    refused(&["--time", "0"], "is not a time; expected a number of seconds above 0");
    refused(&["--run", "'unclosed"], "--run `'unclosed` is not a command line: missing closing quote");
}

/// Waits up to 10 s for `done`, looking every 10 ms.
pub(crate) fn eventually(done: impl Fn() -> bool) -> bool {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while std::time::Instant::now() < deadline {
        if done() {
            return true;
        }
        std::thread::yield_now();
        std::thread::park_timeout(std::time::Duration::from_millis(10));
    }
    done()
}

#[test]
fn a_grader_killed_mid_run_leaves_no_student_process_and_no_half_report() {
    let area = Area::new(1);
    let tag = "ttt-orphan-test";
    let source = format!(
        "{NAME_ITSELF}#include <unistd.h>\nint main(void) {{ NAME(\"{tag}\"); sleep(30); return 0; }}\n"
    );
    let sleeper = area.c("sleeper", &source);
    // cc runs in the test, so the grader goes straight to the run.
    let built = std::process::Command::new("cc")
        .arg("-o")
        .arg(sleeper.join("prog"))
        .arg(sleeper.join("main.c"))
        .status();
    assert!(built.unwrap().success());
    let report = area.dir.path().join("report");
    // A grader killed with SIGKILL cannot remove its scratch directory: it
    // goes in one of the test's own, which every user may pass through (as a
    // root grader's run user must).
    let scratch = tempfile::tempdir().unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(scratch.path(), fs::Permissions::from_mode(0o755)).unwrap();
    }
    let mut grader = std::process::Command::new(env!("CARGO_BIN_EXE_ttt-referee"))
        .env("TMPDIR", scratch.path())
        .arg("grade")
        .arg("--tests")
        .arg(area.tests())
        .args(["--time", "20", "--report"])
        .arg(&report)
        .arg(&sleeper)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    assert!(eventually(|| alive(tag)), "the program never started");
    grader.kill().unwrap();
    grader.wait().unwrap();
    assert!(eventually(|| !alive(tag)), "the program outlived its grader");
    assert!(!report.exists() || fs::read_dir(&report).unwrap().next().is_none(), "a report was written");
    // Its scratch stays behind, until the next grader (here one whose
    // submission has nothing to build) sweeps it away with its own.
    let left = || fs::read_dir(scratch.path()).unwrap().count();
    assert_eq!(left(), 1, "the killed grader's scratch");
    let empty = area.submission("empty", &[]);
    referee().env("TMPDIR", scratch.path()).args(["grade", "--play"]).arg(&empty).assert().code(1);
    assert_eq!(left(), 0, "a killed grader's scratch outlived the next grading");
}

/// A sandbox for the tests of the library's own side, with the guard
/// built beside the tests, and a job that runs `script` with `sh`.
pub(crate) fn library_sandbox(script: &str) -> (ttt_referee::sandbox::Sandbox, ttt_referee::sandbox::Job) {
    use ttt_referee::sandbox::{Collect, Job, Limits, Sandbox};
    let sandbox = Sandbox::with_guard(PathBuf::from(env!("CARGO_BIN_EXE_ttt-guard"))).unwrap();
    let build = sandbox.scratch().join("build");
    fs::create_dir(&build).unwrap();
    fs::copy("/bin/sleep", build.join("ttt-gone-test")).unwrap();
    sandbox.hand_over(&build).unwrap();
    let job = Job {
        argv: ["/bin/sh", "-c", script].map(str::to_owned).to_vec(),
        start: Some(build),
        files: Vec::new(),
        stdin: None,
        collect: Collect::Nothing,
        limits: Limits {
            wall: std::time::Duration::from_secs(10),
            cpu: std::time::Duration::from_secs(10),
            memory: 256 << 20,
            output: 1 << 20,
            processes: 16,
            open_files: 256,
        },
        env: Vec::new(),
    };
    (sandbox, job)
}

/// A run is over when [`Sandbox::run`] returns, though its container may
/// still be going away: process 1 kills and reaps everything else in its
/// PID namespace before it reports, so a daemon the program left (its own
/// session, in the background) is already gone.
#[test]
fn a_daemon_is_gone_when_its_run_returns() {
    use ttt_referee::sandbox::Ending;
    let tag = "ttt-gone-test";
    let (sandbox, job) = library_sandbox(&format!("setsid ./{tag} 30 >/dev/null 2>&1 < /dev/null & exit 0"));
    for _ in 0..5 {
        let run = sandbox.run(&job).unwrap();
        assert_eq!(run.outcome.ending, Ending::Exited(0), "{}", String::from_utf8_lossy(&run.stderr));
        assert_eq!(run.gaps.namespaces, None, "this test needs the container");
        assert!(!alive(tag), "the daemon outlived its run");
    }
}

/// Whether process `pid` is a launcher (`/proc/<pid>/cmdline`).
fn is_launcher(pid: u32) -> bool {
    fs::read(format!("/proc/{pid}/cmdline"))
        .is_ok_and(|c| c.split(|&b| b == 0).any(|arg| arg == ttt_referee::sandbox::LAUNCH_ARG.as_bytes()))
}

/// Waits up to 10 s for the sandbox to have a ready launcher; its process id.
fn ready_launcher(sandbox: &ttt_referee::sandbox::Sandbox) -> u32 {
    assert!(eventually(|| !sandbox.launcher_ids().is_empty()), "no launcher became ready in 10 s");
    sandbox.launcher_ids()[0]
}

/// A launcher serves run after run, from any of the grader's threads: it
/// outlives the thread that first needed it (its parent-death signal is
/// tied to the thread that started it), and a run its guard killed at
/// its time limit leaves nothing behind, its launcher serving on.
#[test]
fn launchers_serve_run_after_run_even_after_a_run_killed_at_its_limit() {
    use ttt_referee::sandbox::Ending;
    let (sandbox, mut job) = library_sandbox("exit 3");
    std::thread::scope(|scope| {
        let run = scope.spawn(|| sandbox.run(&job).unwrap()).join().unwrap();
        assert_eq!(run.outcome.ending, Ending::Exited(3));
    });
    let first = ready_launcher(&sandbox);
    for _ in 0..5 {
        assert_eq!(sandbox.run(&job).unwrap().outcome.ending, Ending::Exited(3));
        ready_launcher(&sandbox);
    }
    assert!(is_launcher(first), "the first launcher died with the thread that needed it");
    assert!(sandbox.launcher_ids().contains(&first), "the first launcher was not used again");
    job.argv = ["/bin/sh", "-c", "echo shown; exec ./ttt-gone-test 30"].map(str::to_owned).to_vec();
    job.limits.wall = std::time::Duration::from_millis(300);
    let mut used = sandbox.launcher_ids();
    let run = sandbox.run(&job).unwrap();
    assert_eq!(run.outcome.ending, Ending::TimedOut);
    // What it wrote before the limit is kept (a console program looping at
    // the end of its script is judged by what it showed).
    assert_eq!(String::from_utf8_lossy(&run.stdout), "shown\n");
    let timed = used.pop().unwrap();
    assert!(!alive("ttt-gone-test"), "the program outlived its run");
    assert!(is_launcher(timed), "the launcher of a run its guard stopped at the limit died");
    job.argv = ["/bin/sh", "-c", "exit 3"].map(str::to_owned).to_vec();
    assert_eq!(sandbox.run(&job).unwrap().outcome.ending, Ending::Exited(3));
    assert!(eventually(|| sandbox.launcher_ids().contains(&timed)), "the launcher was not used again");
}

/// Descriptors a run left in flight (passed over a unix socket, in a cycle
/// no process holds) outlive its processes until the kernel's collector
/// runs: here every inotify instance its user may have, which would starve
/// each later run of the same user (and an ordinary grader's own account)
/// of inotify. The sandbox sets the collector off after each run (process
/// 1 once it has reaped the run, and the grader), so a later run soon gets
/// an instance again. The kernel also sets it off by itself at most closes
/// of a unix socket, so this shows the outcome, not who set it off.
#[test]
fn descriptors_left_in_flight_are_collected_after_their_run() {
    use ttt_referee::sandbox::Ending;
    let limit: usize = fs::read_to_string("/proc/sys/fs/inotify/max_user_instances")
        .ok()
        .and_then(|text| text.trim().parse().ok())
        .unwrap_or(128);
    // Bounded: at most 4096 instances, sent 200 at a time.
    let leave = format!(
        r#"
import ctypes, os, socket
libc = ctypes.CDLL(None, use_errno=True)
fds = []
for _ in range(min({limit}, 4096)):
    fd = libc.inotify_init1(0)
    if fd < 0:
        break
    fds.append(fd)
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
for i in range(0, len(fds), 200):
    socket.send_fds(b, [b"x"], fds[i:i + 200])
socket.send_fds(b, [b"x"], [a.fileno()])
socket.send_fds(a, [b"x"], [b.fileno()])
os._exit(0)
"#
    );
    let probe = "import ctypes, sys\nsys.exit(0 if ctypes.CDLL(None).inotify_init1(0) >= 0 else 1)\n";
    let (sandbox, mut job) = library_sandbox("");
    // The kernel collects now and then by itself: five rounds make a
    // collector that is never set off show.
    for round in 0..5 {
        job.argv = ["python3", "-c", &leave].map(str::to_owned).to_vec();
        let run = sandbox.run(&job).unwrap();
        assert_eq!(run.outcome.ending, Ending::Exited(0), "{}", String::from_utf8_lossy(&run.stderr));
        job.argv = ["python3", "-c", probe].map(str::to_owned).to_vec();
        assert!(
            eventually(|| sandbox.run(&job).unwrap().outcome.ending == Ending::Exited(0)),
            "round {round}: no inotify instance for a later run: the ones left in flight were never collected"
        );
    }
}

/// Runs at once share the CPU as runs, not as processes: each run's own
/// cgroup is in the `cpu` controller's hierarchy with the same weight as
/// every other run's, so a neighbour spinning 60 processes gets one run's
/// share, not 60 processes' (checked by where the run finds itself, not by
/// timing it). Skipped, saying why, where the controller cannot be had.
#[test]
fn a_run_has_a_cpu_cgroup_of_its_own_beside_its_neighbours() {
    let (sandbox, job) = library_sandbox("cat /proc/self/cgroup");
    let run = sandbox.run(&job).unwrap();
    if let Some(why) = &run.gaps.cpu {
        crate::util::skip(&format!("no cpu controller: {why}"));
        return;
    }
    let groups = String::from_utf8_lossy(&run.stdout).into_owned();
    let controller = |l: &&str| l.split(':').nth(1).is_some_and(|c| c.split(',').any(|c| c == "cpu"));
    if let Some(line) = groups.lines().find(controller) {
        // v1: the `cpu` hierarchy's group is the run's own.
        assert!(line.contains(":/ttt-run-"), "{groups}");
    } else {
        // v2: one unified group, the run's own (the root of its own cgroup
        // namespace, or a `ttt-run-…` group).
        let line = groups.lines().find(|l| l.starts_with("0::")).unwrap_or_else(|| panic!("{groups}"));
        assert!(line == "0::/" || line.contains("ttt-run-"), "{groups}");
    }
}

/// A job asking for more open files than the guard may give fails the run,
/// saying so (the command line refuses it before; a library caller may not).
#[test]
fn a_job_asking_for_more_open_files_than_the_guard_may_give_fails_saying_why() {
    let (sandbox, mut job) = library_sandbox("exit 0");
    job.limits.open_files = 1 << 30;
    let error = sandbox.run(&job).unwrap_err().to_string();
    assert!(
        error.starts_with(
            "the guard failed: setrlimit RLIMIT_NOFILE to 1073741824 open files: Operation not permitted (the hard limit here is "
        ),
        "{error}"
    );
}

/// A program that says it ran twice over: a line on standard output, and
/// a UDP datagram to `port` on the host's loopback, which a run in its
/// container (a network namespace of its own) cannot reach, and a run
/// without one can (Landlock rules TCP only).
fn witness(port: u16) -> Vec<String> {
    let code = format!(
        "import socket\ntry:\n    socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'ran', ('127.0.0.1', {port}))\n\
         except OSError:\n    pass\nprint('ran')\n"
    );
    ["python3", "-c", &code].map(str::to_owned).to_vec()
}

/// Asserts that `result` is a refused run naming `protection`.
fn refused(result: Result<ttt_referee::sandbox::Run, ttt_referee::sandbox::SandboxError>, protection: &str) {
    use ttt_referee::sandbox::SandboxError;
    match result {
        Err(SandboxError::Unprotected { missing }) => {
            assert!(missing.iter().any(|m| m.protection == protection), "{missing:?}");
            let error = SandboxError::Unprotected { missing }.to_string();
            assert!(
                error.starts_with("the run was refused: it lacked protections the sandbox promised"),
                "{error}"
            );
        }
        Ok(run) => panic!(
            "a run without {protection} was not refused: gaps {:?}, stdout {:?}",
            run.gaps,
            String::from_utf8_lossy(&run.stdout)
        ),
        Err(e) => panic!("a run without {protection} failed otherwise: {e}"),
    }
}

/// The sandbox fails closed. Once its probe found every protection (as
/// `--require-sandbox` demands before grading), a container that can no
/// longer be made mid-grading (a fault injected into the guard's set-up)
/// refuses each later run, naming the container: through a launcher,
/// through a guard of its own once launchers are not used, and live. No
/// run is made without its container: the program, which would signal a
/// listener on the host's loopback from outside a network namespace,
/// never does.
#[test]
fn a_container_lost_mid_grading_refuses_the_next_runs_and_runs_nothing_bare() {
    use std::time::Duration;
    use ttt_referee::sandbox::Fault;
    let listener = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let (sandbox, mut job) = library_sandbox("");
    job.argv = witness(listener.local_addr().unwrap().port());
    let protections = sandbox.probe(job.limits).unwrap();
    if !protections.complete() {
        // As an ordinary user with no cgroup, say; CI (root) fails instead.
        crate::util::skip(&format!("this test needs every protection:\n{protections}"));
        return;
    }
    let run = sandbox.run(&job).unwrap();
    assert_eq!(String::from_utf8_lossy(&run.stdout), "ran\n", "{}", String::from_utf8_lossy(&run.stderr));
    sandbox.inject_fault(Fault::NoContainer);
    for _ in 0..3 {
        refused(sandbox.run(&job), "the container");
    }
    sandbox.inject_fault(Fault::NoLaunchers);
    refused(sandbox.run(&job), "the container");
    let sandbox = std::sync::Arc::new(sandbox);
    let session = sandbox.start(&job).unwrap();
    refused(session.end(Duration::from_secs(1)), "the container");
    let mut heard = [0; 16];
    assert!(listener.recv(&mut heard).is_err(), "a program ran without its container");
}

/// A seccomp filter that cannot be installed mid-grading refuses the run
/// too: the guard starts nothing without a wall it was promised.
#[test]
fn a_seccomp_filter_lost_mid_grading_refuses_the_run() {
    use ttt_referee::sandbox::Fault;
    let (sandbox, job) = library_sandbox("echo ran");
    let protections = sandbox.probe(job.limits).unwrap();
    if !protections.complete() {
        // As an ordinary user with no cgroup, say; CI (root) fails instead.
        crate::util::skip(&format!("this test needs every protection:\n{protections}"));
        return;
    }
    sandbox.inject_fault(Fault::NoSeccomp);
    refused(sandbox.run(&job), "the seccomp filter");
    sandbox.inject_fault(Fault::NoLaunchers);
    refused(sandbox.run(&job), "the seccomp filter");
}

/// Where nothing was promised (no probe, or a probe that found no
/// container, as on a machine that forbids namespaces), a run without a
/// container runs with what remains and says what it lacked, as before.
#[test]
fn without_a_promise_a_run_without_a_container_runs_and_says_so() {
    use ttt_referee::sandbox::Fault;
    let (sandbox, job) = library_sandbox("echo ran");
    sandbox.inject_fault(Fault::NoContainer);
    let run = sandbox.run(&job).unwrap();
    assert_eq!(String::from_utf8_lossy(&run.stdout), "ran\n", "{}", String::from_utf8_lossy(&run.stderr));
    assert!(run.gaps.namespaces.as_deref().is_some_and(|why| why.contains("injected")), "{:?}", run.gaps);
    // A probe now finds no container, and promises none: runs go on.
    let protections = sandbox.probe(job.limits).unwrap();
    assert!(!protections.complete());
    assert_eq!(String::from_utf8_lossy(&sandbox.run(&job).unwrap().stdout), "ran\n");
}

/// A run without a container is not refused a process because the run
/// user holds others: a run at once in the same sandbox holds 24, as a
/// bot's many threads would, and the run without a container still starts
/// its shell and its child. Its processes are counted by its cgroup, or,
/// where there is none, above those the user held when it started (the
/// user-wide limit set to the run's own allowance alone made this fail
/// with `EAGAIN` wherever other runs were under way).
#[test]
fn a_run_without_a_container_is_not_refused_processes_its_user_holds_elsewhere() {
    use std::time::{Duration, Instant};
    use ttt_referee::sandbox::Fault;
    let (sandbox, mut job) = library_sandbox("");
    let sandbox = std::sync::Arc::new(sandbox);
    let mut busy = job.clone();
    busy.limits.processes = 40;
    busy.argv[2] = "for i in $(seq 24); do sleep 60 & done; echo up; wait".to_owned();
    let mut holder = sandbox.start(&busy).unwrap();
    let up = holder.receive(Instant::now() + Duration::from_secs(10), 100).unwrap();
    assert_eq!(String::from_utf8_lossy(&up), "up");
    sandbox.inject_fault(Fault::NoContainer);
    job.argv[2] = "sh -c 'echo ran'".to_owned();
    let run = sandbox.run(&job).unwrap();
    assert_eq!(String::from_utf8_lossy(&run.stdout), "ran\n", "{}", String::from_utf8_lossy(&run.stderr));
    assert!(run.gaps.namespaces.is_some(), "{:?}", run.gaps);
    drop(holder.end(Duration::from_secs(1)));
}

/// A file under `/usr/share/doc` (one the host seldom reads), for the
/// channels test to watch.
fn seldom_read_system_file() -> PathBuf {
    let mut docs: Vec<PathBuf> =
        fs::read_dir("/usr/share/doc").unwrap().flatten().map(|e| e.path()).collect();
    docs.sort();
    docs.iter()
        .map(|dir| dir.join("copyright"))
        .find(|file| fs::symlink_metadata(file).is_ok_and(|m| m.is_file()))
        .expect("a copyright file under /usr/share/doc")
}

/// No channel between runs: two programs run at once in one grading (two
/// bots in a game), one taking every lock, name and kernel object it can
/// and reading files both see, the other looking for each, sense nothing
/// of each other. The channels tried: flock, POSIX and OFD locks on
/// read-only system and skeleton files (one inode for every run), their
/// traces in `/proc/locks`, an abstract unix socket, loopback TCP and UDP
/// ports, System V message queues, semaphores and shared memory, POSIX shared
/// memory and message queues, files in `/tmp` and `/dev/shm`, each other's
/// processes in `/proc`, inotify, dnotify and fanotify on the files both
/// read, a shared file's access time, and the machine's counters: its
/// thread count (in `/proc/loadavg` and from `sysinfo`, the sender holding
/// 40 sleeping threads), its open files (`/proc/sys/fs/file-nr`, the sender
/// holding 150 more), and `/proc/meminfo`, `/proc/stat`, `/proc/vmstat` and
/// `/proc/pressure`, sensed if they can be read at all; and neither run's
/// own names count the runs before it (its cgroup in `/proc/self/cgroup`,
/// its root in `/proc/self/mountinfo`)
/// (`fixtures/sandbox-channels/channels.c`, bounded by `alarm(30)`).
#[test]
fn two_runs_at_once_sense_nothing_of_each_other() {
    use std::time::{Duration, Instant};
    let (sandbox, mut job) = library_sandbox("");
    // Room for the sender's 40 threads, as a bot's limits give it.
    job.limits.processes = 64;
    let build = sandbox.scratch().join("build");
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/sandbox-channels/channels.c");
    let compiled = std::process::Command::new("cc")
        .args(["-O1", "-pthread", "-o"])
        .arg(build.join("channels"))
        .arg(&source)
        .status()
        .unwrap();
    assert!(compiled.success());
    sandbox.hand_over(&build).unwrap();
    let protections = sandbox.probe(job.limits).unwrap();
    if !protections.complete() {
        // As an ordinary user with no cgroup, say; CI (root) fails instead.
        crate::util::skip(&format!("this test needs every protection:\n{protections}"));
        return;
    }
    let system = seldom_read_system_file();
    let sandbox = std::sync::Arc::new(sandbox);
    let soon = || Instant::now() + Duration::from_secs(10);
    let argv = |role: &str| {
        ["./channels", role, &system.to_string_lossy(), "/usr/bin/env", "/etc/hostname"]
            .map(str::to_owned)
            .to_vec()
    };
    job.argv = argv("watch");
    let mut watcher = sandbox.start(&job).unwrap();
    let watching = String::from_utf8_lossy(&watcher.receive(soon(), 200).unwrap()).into_owned();
    assert!(watching.starts_with("watching"), "{watching}");
    job.argv = argv("send");
    let mut sender = sandbox.start(&job).unwrap();
    let ready = String::from_utf8_lossy(&sender.receive(soon(), 2000).unwrap()).into_owned();
    assert!(ready.starts_with("ready"), "{ready}");
    assert!(ready.contains(" threads=yes") && ready.contains(" files=yes"), "{ready}");
    watcher.send(b"sense\n", soon()).unwrap();
    let mut report = Vec::new();
    loop {
        let line = String::from_utf8_lossy(&watcher.receive(soon(), 200).unwrap()).into_owned();
        if line == "done" {
            break;
        }
        report.push(line);
    }
    sender.end(Duration::from_secs(1)).unwrap();
    watcher.end(Duration::from_secs(1)).unwrap();
    let shown = format!("the sender: {ready}\nthe watcher: {watching}\n{}", report.join("\n"));
    eprintln!("{shown}");
    assert_eq!(report.len(), 29, "{shown}");
    let sensed: Vec<&String> = report.iter().filter(|line| !line.ends_with(": nothing")).collect();
    assert!(sensed.is_empty(), "one run sensed the other: {sensed:?}\n{shown}");
}

/// The seccomp filter refuses every file lock (a lock on a file all runs
/// share is a channel between them) and `sysinfo` (the machine's thread
/// count and load are one too; the C library's `sysconf(_SC_PHYS_PAGES)`
/// asks it), `/proc`'s counters are empty, and the runtimes still start and
/// run as before: Python, a g++ build and its program, javac and the JVM
/// (which locks a file of its own in `/tmp`, and is kept from making it),
/// each with exactly its own output and nothing on standard error.
#[test]
fn python_gcc_and_the_jvm_run_as_before_under_the_lock_rules() {
    use std::time::Duration;
    let (sandbox, mut job) = library_sandbox("");
    job.limits.memory = 2 << 30;
    job.limits.processes = 64;
    job.limits.wall = Duration::from_mins(2);
    job.limits.cpu = Duration::from_mins(2);
    job.limits.output = 64 << 20;
    let protections = sandbox.probe(job.limits).unwrap();
    if !protections.complete() {
        // As an ordinary user with no cgroup, say; CI (root) fails instead.
        crate::util::skip(&format!("this test needs every protection:\n{protections}"));
        return;
    }
    let build = sandbox.scratch().join("build");
    fs::write(
        build.join("Main.java"),
        "public class Main { public static void main(String[] a) { System.out.println(\"hi\"); } }\n",
    )
    .unwrap();
    fs::write(
        build.join("main.cpp"),
        "#include <iostream>\nint main() { std::cout << \"hi\" << std::endl; }\n",
    )
    .unwrap();
    sandbox.hand_over(&build).unwrap();
    let output = sandbox.scratch().join("built");
    job.collect = ttt_referee::sandbox::Collect::Tree(output.clone());
    job.argv = ["/bin/sh", "-c", "javac Main.java && g++ -o prog main.cpp"].map(str::to_owned).to_vec();
    let run = sandbox.run(&job).unwrap();
    assert_eq!(
        run.outcome.ending,
        ttt_referee::sandbox::Ending::Exited(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&run.stdout), "", "the build said something");
    assert_eq!(String::from_utf8_lossy(&run.stderr), "", "the build complained");
    sandbox.hand_over(&output).unwrap();
    job.start = Some(output);
    job.collect = ttt_referee::sandbox::Collect::Nothing;
    for argv in [&["python3", "-c", "print('hi')"][..], &["java", "Main"], &["./prog"]] {
        job.argv = argv.iter().map(|a| (*a).to_owned()).collect();
        let run = sandbox.run(&job).unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
        assert_eq!(run.outcome.ending, ttt_referee::sandbox::Ending::Exited(0), "{argv:?}: {stderr}");
        assert_eq!(String::from_utf8_lossy(&run.stdout), "hi\n", "{argv:?}: {stderr}");
        assert_eq!(stderr, "", "{argv:?}");
    }
}
