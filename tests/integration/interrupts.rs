//! Ctrl-C, SIGTERM and SIGHUP leave no temporary file behind: the hidden
//! `.ttt-referee-*.tmp` beside `-o`'s target, and `gen`'s corpus being
//! made. Each test waits for an event (a file created, seen through
//! inotify), never for a time, before it sends the signal.

use std::fs;
use std::path::Path;
use std::process::{Child, Command, Stdio};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use rustix::fs::inotify;

/// Watches `dir` for files and directories created in it.
struct Creations(std::os::fd::OwnedFd);

impl Creations {
    fn watch(dir: &Path) -> Creations {
        let fd = inotify::init(inotify::CreateFlags::CLOEXEC).unwrap();
        inotify::add_watch(&fd, dir, inotify::WatchFlags::CREATE).unwrap();
        Creations(fd)
    }

    /// Blocks until something has been created in the directory.
    fn next(&self) {
        let mut buf = [0u8; 4096];
        let read = rustix::io::read(&self.0, &mut buf).unwrap();
        assert!(read > 0);
    }
}

fn signal(child: &Child, signal: Signal) {
    kill(Pid::from_raw(i32::try_from(child.id()).unwrap()), signal).unwrap();
}

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

/// `ttt-referee - -o FILE` waiting for its moves, its temporary file made:
/// each signal removes the temporary file, leaves the directory as it was
/// and ends the program with 128 + the signal's number.
#[test]
fn a_signal_during_dash_o_removes_the_temporary_file() {
    for sig in [Signal::SIGINT, Signal::SIGTERM, Signal::SIGHUP] {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("old.txt"), "an older transcript").unwrap();
        let created = Creations::watch(dir.path());
        let mut child = Command::new(env!("CARGO_BIN_EXE_ttt-referee"))
            .args(["-", "-o"])
            .arg(dir.path().join("old.txt"))
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The temporary file exists; the referee is blocked reading its moves.
        created.next();
        assert_eq!(names(dir.path()).len(), 2, "{sig}: {:?}", names(dir.path()));
        // Its standard input stays open until it has ended: no end of file
        // may end it first.
        let stdin = child.stdin.take();
        signal(&child, sig);
        let status = child.wait().unwrap();
        drop(stdin);
        let mut stderr = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
        assert_eq!(status.code(), Some(128 + sig as i32), "{sig}: {stderr}");
        assert_eq!(names(dir.path()), ["old.txt"], "{sig}: a temporary file was left");
        assert_eq!(fs::read_to_string(dir.path().join("old.txt")).unwrap(), "an older transcript");
    }
}

/// `gen` makes its corpus in a hidden directory beside --out-dir: a signal
/// while it writes leaves neither that nor a partial corpus.
#[test]
fn an_interrupted_gen_leaves_nothing() {
    for sig in [Signal::SIGINT, Signal::SIGTERM, Signal::SIGHUP] {
        let parent = tempfile::tempdir().unwrap();
        let created = Creations::watch(parent.path());
        let child = Command::new(env!("CARGO_BIN_EXE_ttt-referee"))
            .args(["gen", "--count", "10000000", "--with-transcripts", "--out-dir"])
            .arg(parent.path().join("corpus"))
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        created.next();
        signal(&child, sig);
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(128 + sig as i32),
            "{sig}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(names(parent.path()), Vec::<String>::new(), "{sig}: gen left files");
    }
}

/// `gen` refuses a directory that holds files, unless --force; a corpus
/// it reports is there whole.
#[test]
fn gen_refuses_a_directory_with_files_unless_forced() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("notes.txt"), "mine").unwrap();
    let generate = |force: bool| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_ttt-referee"));
        command.args(["gen", "--count", "2", "--out-dir"]).arg(dir.path());
        if force {
            command.arg("--force");
        }
        command.output().unwrap()
    };
    let refused = generate(false);
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains(": not empty; gen writes a corpus into a new or empty directory"), "{stderr}");
    assert_eq!(names(dir.path()), ["notes.txt"]);
    assert!(generate(true).status.success());
    assert_eq!(names(dir.path()), ["game-0001.txt", "game-0002.txt", "notes.txt"]);

    // A new directory, in a new parent: whole, and nothing else beside it.
    let parent = tempfile::tempdir().unwrap();
    let made = Command::new(env!("CARGO_BIN_EXE_ttt-referee"))
        .args(["gen", "--count", "3", "--out-dir"])
        .arg(parent.path().join("a/corpus"))
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    assert_eq!(names(&parent.path().join("a")), ["corpus"]);
    assert_eq!(names(&parent.path().join("a/corpus")), ["game-0001.txt", "game-0002.txt", "game-0003.txt"]);
}

/// `grade --report`, `--gradescope` and `--classroom` with something in
/// the way fail at once (exit 2, before any build), naming it.
#[test]
fn grade_checks_its_outputs_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("report.txt");
    fs::write(&file, "").unwrap();
    let student = dir.path().join("student");
    fs::create_dir(&student).unwrap();
    // A course folder with the TA's own grades in it: no earlier report.
    let course = dir.path().join("course");
    fs::create_dir(&course).unwrap();
    fs::write(course.join("grades.csv"), "the TA's own\n").unwrap();
    let cases: [(&str, std::path::PathBuf, &str); 5] = [
        ("--report", file.clone(), "a file is in the way of --report (expected a directory)"),
        (
            "--report",
            course.clone(),
            "course: a directory of other files is in the way of --report (expected a new or empty directory, \
             or an earlier report (with its results.json) to replace); nothing was done",
        ),
        ("--report", file.join("sub"), "a file is in the way of --report (expected a directory)"),
        ("--classroom", file.clone(), "a file is in the way of --classroom (expected a directory)"),
        (
            "--gradescope",
            dir.path().to_owned(),
            "a directory is in the way of --gradescope (expected a file)",
        ),
    ];
    for (option, path, said) in cases {
        let out = Command::new(env!("CARGO_BIN_EXE_ttt-referee"))
            // A build that would leave a mark if it ever ran.
            .args(["grade", "--tests", "fixtures/classic", "--build", "touch built", option])
            .arg(&path)
            .arg(&student)
            .current_dir(crate::util::root())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{option}: {stderr}");
        assert!(stderr.contains(said) && stderr.contains("nothing was done"), "{option}: {stderr}");
        assert!(!stderr.contains("protections"), "{option} checked only after the grading began: {stderr}");
        assert!(!student.join("built").exists());
    }
    assert_eq!(fs::read_to_string(course.join("grades.csv")).unwrap(), "the TA's own\n");
}

/// An earlier report in `--report DIR` is replaced, and the grading says
/// so before it begins.
#[test]
fn grade_says_it_replaces_an_earlier_report() {
    let dir = crate::util::kept_dir();
    let report = dir.path().join("report");
    let grade = || {
        Command::new(env!("CARGO_BIN_EXE_ttt-referee"))
            .args(["grade", "--tests", "fixtures/classic", "--report"])
            .arg(&report)
            .arg("fixtures/class/students/ada-c")
            .current_dir(crate::util::root())
            .output()
            .unwrap()
    };
    let first = grade();
    assert!(!String::from_utf8_lossy(&first.stderr).contains("earlier report"));
    let second = grade();
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), first.status.code(), "{stderr}");
    assert!(stderr.starts_with("ttt-referee: "), "{stderr}");
    assert!(
        stderr
            .lines()
            .next()
            .unwrap()
            .ends_with("report holds an earlier report, which this grading replaces"),
        "{stderr}"
    );
}
