//! One hostile name through every output the binary has: student- and
//! bot-controlled text (names, file names, build logs, standard error,
//! answers) is inert wherever a person, a terminal, a Markdown renderer or a
//! CI runner reads it — no raw control, bidirectional or invisible format
//! character, no line a CI runner would obey (`##[…]` anywhere, `::name::`
//! at a line's start), no e-mail address a Markdown renderer would link.
//!
//! Every program here is bounded: `alarm(10)`, no children, writes only in
//! its own directory.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use serde_json::Value;

use crate::util::{fixture, kept_dir, show};

/// The hostile name: a terminal's title and screen rewritten (ESC, BEL), a
/// right-to-left override, a zero-width space, lines a CI runner obeys
/// (`##[warning]`, `::error::`, `::stop-commands::`, one after a carriage
/// return and one after spaces), an e-mail address and HTML.
const NAME: &str = "##[warning title=Grading]All tests passed\u{1b}]0;owned\u{7}\u{1b}[2J\u{202e}eve\u{200b}\n::error::pwned\r::stop-commands::x\n  ::warning::y\nann@example.com <script>alert(1)";

/// The same text as a program prints it (one `print` of it, in Python).
const PRINTED: &str = r"\x1b]0;owned\x07\x1b[2J\u202eeve\u200b\n::error::pwned\r::stop-commands::x\n##[warning]said\n  ::warning::y\nann@example.com <script>alert(1)</script>\n";

/// The most a run may take before the test calls it a hang.
const HANG: Duration = Duration::from_mins(3);

/// A character no output may hold raw: a control character but the
/// newline and the tab, a bidirectional override or isolate, an invisible
/// format character.
fn hidden(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2069}' | '\u{feff}' | '\u{ad}')
}

/// What the outputs were found to hold that they must not: every output is
/// checked, and the test fails at the end naming each that failed.
#[derive(Default)]
struct Findings(Vec<String>);

impl Findings {
    /// `text`, an output called `what`, holds nothing hidden and no line a
    /// CI runner would obey.
    fn inert(&mut self, what: &str, text: &str) {
        if let Some(c) = text.chars().find(|&c| hidden(c)) {
            self.0.push(format!("{what} holds {c:?} raw"));
        }
        for line in text.split('\n') {
            if line.contains("##[") {
                self.0.push(format!("{what} holds a workflow command `##[`: {}", show(line.as_bytes())));
            }
            if line.trim_start().starts_with("::") {
                self.0.push(format!("{what} has a line starting `::`: {}", show(line.as_bytes())));
            }
        }
    }

    /// As [`Findings::inert`], and no HTML of the student's (`<script>`).
    fn markup(&mut self, what: &str, text: &str) {
        self.inert(what, text);
        if text.contains("<script>alert") {
            self.0.push(format!("{what} holds raw HTML"));
        }
    }

    /// As [`Findings::inert`], and, outside fenced code blocks (where
    /// Markdown is shown as written), no HTML of the student's and no
    /// e-mail address a Markdown renderer would link: every `@` is cut from
    /// what follows it.
    fn markdown(&mut self, what: &str, text: &str) {
        self.inert(what, text);
        let mut fence: Option<usize> = None;
        for line in text.lines() {
            let ticks = line.len() - line.trim_start_matches('`').len();
            match fence {
                Some(open) if ticks >= open && line.trim_start_matches('`').is_empty() => fence = None,
                Some(_) => {}
                None if ticks >= 3 => fence = Some(ticks),
                None => {
                    if line.contains("<script") {
                        self.0.push(format!("{what} holds raw HTML: {line}"));
                    }
                    for (at, _) in line.match_indices('@') {
                        if line[at + 1..].chars().next().is_some_and(char::is_alphanumeric) {
                            self.0.push(format!("{what} holds a linkable address: {line}"));
                        }
                    }
                }
            }
        }
    }

    /// Every string in a JSON document, each checked as [`Findings::inert`].
    fn strings(&mut self, what: &str, value: &Value) {
        match value {
            Value::String(s) => self.inert(what, s),
            Value::Array(items) => items.iter().for_each(|v| self.strings(what, v)),
            Value::Object(map) => map.values().for_each(|v| self.strings(what, v)),
            _ => {}
        }
    }

    /// Standard output and error of `output`, each inert.
    fn streams(&mut self, what: &str, output: &Output) {
        self.inert(&format!("{what}'s standard output"), &String::from_utf8_lossy(&output.stdout));
        self.inert(&format!("{what}'s standard error"), &String::from_utf8_lossy(&output.stderr));
    }
}

/// `path` as text.
fn read(path: &Path) -> String {
    String::from_utf8(fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
        .unwrap_or_else(|e| panic!("{}: not UTF-8: {e}", path.display()))
}

/// `path`, which is data and may keep raw text, parses as JSON.
fn json(path: &Path) -> Value {
    serde_json::from_str(&read(path)).unwrap_or_else(|e| panic!("{}: not JSON: {e}", path.display()))
}

/// Runs the binary with `args` from `dir`, bounded.
fn run(dir: &Path, args: &[&std::ffi::OsStr]) -> Output {
    let mut command = assert_cmd::Command::cargo_bin("ttt-referee").unwrap();
    command.current_dir(dir).args(args).write_stdin(Vec::new()).timeout(HANG);
    command.output().unwrap()
}

/// Makes `dir` holding `files` (name, text).
fn tree(dir: &Path, files: &[(&str, &str)]) -> PathBuf {
    fs::create_dir_all(dir).unwrap();
    for (name, text) in files {
        fs::write(dir.join(name), text).unwrap();
    }
    dir.to_owned()
}

/// A Makefile whose build prints the hostile text and its files' names,
/// then fails.
fn failing_makefile() -> String {
    format!(
        "prog:\n\t@ls\n\t@printf '{}'\n\t@exit 1\n",
        PRINTED
            .replace(r"\x1b", r"\033")
            .replace(r"\x07", r"\007")
            .replace(r"\u202e", r"\342\200\256")
            .replace(r"\u200b", r"\342\200\213")
    )
}

/// A Python program that writes the hostile text as its answer, on its
/// standard output and on its standard error.
fn hostile_python() -> String {
    format!(
        "import signal, sys\nsignal.alarm(10)\nH = \"{PRINTED}\"\n\
         open('TTTgame.txt', 'w').write('Programmer: ' + H)\nprint(H)\nsys.stderr.write(H)\n"
    )
}

/// A bot that answers the hostile text (and so forfeits), saying it on its
/// standard error too.
fn hostile_bot() -> String {
    format!(
        "import signal, sys\nsignal.alarm(10)\nH = \"{PRINTED}\"\n\
         sys.stdin.readline()\nsys.stderr.write(H)\nprint(H.replace('\\n', ' '), flush=True)\n"
    )
}

#[test]
fn one_hostile_name_is_inert_in_every_output() {
    let mut found = Findings::default();
    let dir = kept_dir();
    let root = dir.path();
    let os = |s: &str| std::ffi::OsString::from(s);

    // grade: two submissions of the hostile name, one whose build fails
    // with a hostile log among hostile file names, one whose Python file is
    // named to be obeyed and whose answers and standard error are hostile.
    let tests = root.join("tests");
    fs::create_dir(&tests).unwrap();
    for test in ["01-sample-cat.txt", "02-x-wins-row.txt"] {
        fs::copy(fixture("class/tests").join(test), tests.join(test)).unwrap();
    }
    let built = tree(
        &root.join("subs").join(NAME),
        &[
            ("Makefile", &failing_makefile()),
            ("::error::file\u{202e}\u{1b}[2J.c", "int main(void) { return 0; }\n"),
        ],
    );
    let python = tree(
        &root.join("subs").join(format!("{NAME}-py")),
        &[(
            "##[warning title=Grading]All tests passed - 100 of 100 points by ann@example.com\u{202e}\u{7}.py",
            &hostile_python(),
        )],
    );
    let report = root.join("report");
    let mut args = vec![
        os("grade"),
        os("--verbose"),
        os("--tests"),
        tests.clone().into(),
        os("--report"),
        report.clone().into(),
    ];
    args.extend([built.clone().into_os_string(), python.clone().into_os_string()]);
    let graded = run(root, &args.iter().map(AsRef::as_ref).collect::<Vec<_>>());
    found.streams("grade", &graded);
    assert!(String::from_utf8_lossy(&graded.stdout).contains("eve"), "{}", show(&graded.stdout));
    let results = json(&report.join("results.json"));
    assert_eq!(results["submissions"].as_array().map(Vec::len), Some(2), "{results:#}");
    found.inert("grades.csv", &read(&report.join("grades.csv")));
    found.markup("junit.xml", &read(&report.join("junit.xml")));
    found.markup("report.html", &read(&report.join("report.html")));

    // grade --gradescope and --classroom, one submission at a time.
    for (n, submission) in [&built, &python].into_iter().enumerate() {
        let gradescope = root.join(format!("gradescope-{n}.json"));
        let classroom = root.join(format!("classroom-{n}"));
        let args = [
            os("grade"),
            os("--tests"),
            tests.clone().into(),
            os("--gradescope"),
            gradescope.clone().into(),
            os("--classroom"),
            classroom.clone().into(),
            submission.clone().into(),
        ];
        let graded = run(root, &args.iter().map(AsRef::as_ref).collect::<Vec<_>>());
        found.streams("grade --gradescope --classroom", &graded);
        let results = json(&gradescope);
        found.strings("Gradescope's results.json", &results);
        // Its feedback is Markdown (`output_format` `md`), the tests' too.
        found.markdown("Gradescope's output", results["output"].as_str().unwrap_or_default());
        for test in results["tests"].as_array().into_iter().flatten() {
            found.markdown("a Gradescope test's output", test["output"].as_str().unwrap_or_default());
        }
        found.strings("Classroom's result.json", &json(&classroom.join("result.json")));
        found.markdown("summary.md", &read(&classroom.join("summary.md")));
    }

    // An error naming a file of the hostile name (the referee's, `check`'s).
    let missing = root.join(NAME);
    let refereed = run(root, &[missing.as_os_str()]);
    assert_eq!(refereed.status.code(), Some(2), "{}", show(&refereed.stderr));
    found.streams("the referee's error", &refereed);
    let checked = run(root, &[&os("check"), missing.as_os_str(), missing.as_os_str()]);
    found.streams("check's error", &checked);

    // match and tournament: a bot of the hostile name that answers hostile
    // text, and one whose build fails with a hostile log.
    let bot = tree(&root.join("bots").join(NAME), &[("bot.py", &hostile_bot())]);
    let broken =
        tree(&root.join("bots").join(format!("{NAME}-broken")), &[("Makefile", &failing_makefile())]);
    for (command, participants) in [
        ("match", vec![bot.clone(), PathBuf::from("perfect")]),
        ("tournament", vec![bot.clone(), broken.clone(), PathBuf::from("random")]),
    ] {
        let report = root.join(format!("{command}-report"));
        let mut args = vec![os(command), os("--report"), report.clone().into()];
        args.extend(participants.into_iter().map(PathBuf::into_os_string));
        let played = run(root, &args.iter().map(AsRef::as_ref).collect::<Vec<_>>());
        assert_eq!(played.status.code(), Some(0), "{}", show(&played.stderr));
        found.streams(command, &played);
        let results = json(&report.join("results.json"));
        assert!(!results["games"].as_array().unwrap().is_empty(), "{results:#}");
        found.inert("standings.txt", &read(&report.join("standings.txt")));
        found.markup("report.html", &read(&report.join("report.html")));
        let mut records = 0;
        for entry in fs::read_dir(report.join("games")).unwrap() {
            let path = entry.unwrap().path();
            found.inert(&path.display().to_string(), &read(&path));
            records += 1;
        }
        assert!(records > 0);
    }
    assert!(found.0.is_empty(), "{} outputs are not inert:\n{}", found.0.len(), found.0.join("\n"));
}
