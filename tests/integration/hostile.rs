//! `grade` against hostile programs, one test (or two) per class of attack.
//!
//! Each program is a small C program built by the grader (`cc`), bounded
//! even when run unconfined: `alarm(10)` first thing, capped children,
//! memory in steps of at most 16 MB and at most 512 MB in all, writes only
//! in its own directory or `/tmp`, the network only to the test's own
//! listener. It tries its attacks and exits 42, saying on standard error
//! what succeeded, if any did; otherwise it exits 0 without an answer. So
//! the safe outcome is `no-output`, and a breach shows as `crashed`,
//! "exited with status 42". The paths a program needs come as `-D` macros
//! in the build command.

use std::fs;
use std::io::{ErrorKind, Read};
use std::os::linux::net::SocketAddrExt;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::{SocketAddr, UnixListener};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};
use serde_json::Value;
use tempfile::TempDir;

use crate::util::{Graded, referee};

/// The most a grading may take before the test calls it a hang.
const HANG: Duration = Duration::from_mins(3);

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

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn tests(&self) -> PathBuf {
        self.path().join("tests")
    }

    fn report(&self) -> PathBuf {
        self.path().join("report")
    }

    /// A submission named `name` holding `files`.
    fn submission(&self, name: &str, files: &[(&str, &str)]) -> PathBuf {
        let dir = self.path().join("subs").join(name);
        fs::create_dir_all(&dir).unwrap();
        for (file, text) in files {
            fs::write(dir.join(file), text).unwrap();
        }
        dir
    }

    /// A hostile C submission: `main.c` is [`PRELUDE`] and then `attack`.
    fn hostile(&self, name: &str, attack: &str) -> PathBuf {
        self.submission(name, &[("main.c", format!("{PRELUDE}{attack}").as_str())])
    }

    /// An ordinary C submission: it exits 0 at once, without an answer.
    fn ordinary(&self, name: &str) -> PathBuf {
        self.submission(name, &[("main.c", "int main(void) { return 0; }\n")])
    }

    /// The build command: `cc` with the `-D` macros `defines` (from
    /// [`define`]) besides `TESTS`.
    fn build(&self, defines: &str) -> String {
        format!("cc -O1 -o prog main.c{}{defines}", define("TESTS", &self.tests().display().to_string()))
    }

    /// Grades `subs` (built with `cc` and `defines`) with `extra` options;
    /// `--time 10` unless `extra` sets it.
    fn grade(&self, subs: &[&Path], defines: &str, extra: &[&str]) -> Graded {
        let build = self.build(defines);
        let mut args = vec!["--build", &build];
        args.extend(extra);
        self.grade_as(subs, &args)
    }

    /// Grades `subs` with exactly `args` (besides the tests, the report and
    /// `--time 10` unless `args` sets it).
    fn grade_as(&self, subs: &[&Path], args: &[&str]) -> Graded {
        self.grade_after("", subs, args)
    }

    /// As [`Area::grade_as`], the grader started by `sh` once it has run
    /// `shell` (`umask 077`, say; nothing if empty).
    fn grade_after(&self, shell: &str, subs: &[&Path], args: &[&str]) -> Graded {
        let report = self.report();
        let _ = fs::remove_dir_all(&report);
        let time: &[&str] = if args.contains(&"--time") { &[] } else { &["--time", "10"] };
        let mut command = if shell.is_empty() {
            referee()
        } else {
            let mut sh = assert_cmd::Command::new("sh");
            sh.current_dir(crate::util::root()).write_stdin(Vec::new());
            sh.arg("-c")
                .arg(format!("{shell} && exec \"$@\""))
                .arg("sh")
                .arg(env!("CARGO_BIN_EXE_ttt-referee"));
            sh
        };
        let output = command
            .arg("grade")
            .args(time)
            .arg("--tests")
            .arg(self.tests())
            .arg("--report")
            .arg(&report)
            .args(args)
            .args(subs)
            .timeout(HANG)
            .output()
            .unwrap();
        let results = fs::read(report.join("results.json")).map(|b| serde_json::from_slice(&b).unwrap());
        let graded = Graded {
            status: output.status.code(),
            results: results.unwrap_or(Value::Null),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            report,
        };
        assert!(
            graded.status.is_some(),
            "the grading did not end within {HANG:?}: {:?}\n{}{}",
            output.status,
            graded.stdout,
            graded.stderr
        );
        graded
    }
}

/// A `-D` macro defining `name` as the C string `value`, for the build
/// command (which the shell reads).
fn define(name: &str, value: &str) -> String {
    assert!(!value.contains(['\'', '"', '\\']), "{value:?} cannot be quoted simply");
    format!(" -D{name}='\"{value}\"'")
}

/// What every hostile program starts with: the headers, `BREACH(...)` to
/// note a success (main exits 42 if any), `NAME(tag)` to name the process,
/// and a `main` that answers `--version` harmlessly (so that running its
/// own `/proc/self/exe` starts no second attack), sets `alarm(10)`, and
/// calls `attack`, whose result is the exit status when nothing succeeded.
const PRELUDE: &str = r#"#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
static int breaches;
#define BREACH(...) (fprintf(stderr, "breach: " __VA_ARGS__), fputc('\n', stderr), breaches++)
#define NAME(tag) prctl(PR_SET_NAME, tag)
static int attack(void);
int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--version") == 0) { puts("hostile"); return 0; }
  alarm(10);
  int code = attack();
  return breaches ? 42 : code;
}
"#;

/// Class 1, terminal injection: no terminal to open, `TIOCSTI` and
/// `TIOCLINUX` refused by seccomp (EPERM, where a file without the filter
/// gives ENOTTY: status 43), `ptrace` refused with EPERM.
#[test]
fn terminal_injection_is_refused() {
    let area = Area::new(1);
    let sub = area.hostile(
        "tiocsti",
        r#"static int attack(void) {
  int wrong = 0;
  int fd = open("/dev/tty", O_RDWR | O_NOCTTY);
  if (fd >= 0) BREACH("opened /dev/tty");
  char c = ' ', sub = 6; /* TIOCL_GETSHIFTSTATE: reads only */
  for (int i = 0; i < 3; i++) {
    errno = 0;
    if (ioctl(i, TIOCSTI, &c) == 0) BREACH("TIOCSTI on fd %d", i);
    else if (errno != EPERM) { fprintf(stderr, "TIOCSTI on fd %d: %s, not EPERM\n", i, strerror(errno)); wrong = 1; }
    errno = 0;
    if (ioctl(i, TIOCLINUX, &sub) == 0) BREACH("TIOCLINUX on fd %d", i);
    else if (errno != EPERM) { fprintf(stderr, "TIOCLINUX on fd %d: %s, not EPERM\n", i, strerror(errno)); wrong = 1; }
  }
  errno = 0;
  if (ptrace(PTRACE_TRACEME, 0, 0, 0) == 0) BREACH("PTRACE_TRACEME");
  else if (errno != EPERM) { fprintf(stderr, "ptrace: %s, not EPERM\n", strerror(errno)); wrong = 1; }
  return wrong ? 43 : 0;
}
"#,
    );
    let graded = area.grade(&[&sub], "", &[]);
    graded.all(0, "no-output");
    assert_eq!(graded.status, Some(1), "{}", graded.stderr);
}

/// Class 1, terminal injection, with the grader at a real terminal: the
/// program pushes a marker with `TIOCSTI` into every terminal it can open
/// (`/dev/tty`, its own streams, any `/proc/*/fd/*`, `/dev/console`,
/// `/dev/pts/*`); the terminal never receives (echoes) it.
#[test]
fn terminal_injection_under_a_terminal_reaches_nothing() {
    let area = Area::new(1);
    let marker = format!("tttinjected{}x", std::process::id());
    let sub = area.hostile(
        "tty",
        r#"static int push(int fd, const char *where) {
  if (fd < 0) return 0;
  int pushed = 0;
  for (const char *c = MARKER; *c; c++) if (ioctl(fd, TIOCSTI, c) == 0) pushed++;
  if (pushed) BREACH("TIOCSTI into %s", where);
  return pushed;
}
static int attack(void) {
  push(open("/dev/tty", O_RDWR | O_NOCTTY | O_NONBLOCK), "/dev/tty");
  for (int i = 0; i < 3; i++) push(i, "a standard stream");
  push(open("/dev/console", O_RDWR | O_NOCTTY | O_NONBLOCK), "/dev/console");
  char path[64];
  for (int n = 0; n < 16; n++) {
    snprintf(path, sizeof path, "/dev/pts/%d", n);
    push(open(path, O_RDWR | O_NOCTTY | O_NONBLOCK), path);
  }
  DIR *proc = opendir("/proc");
  struct dirent *e;
  while (proc && (e = readdir(proc))) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    for (int i = 0; i < 10; i++) {
      snprintf(path, sizeof path, "/proc/%s/fd/%d", e->d_name, i);
      int fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK);
      if (fd >= 0 && isatty(fd)) push(fd, path);
      if (fd >= 0) close(fd);
    }
  }
  return 0;
}
"#,
    );
    let build = area.build(&define("MARKER", &marker));
    let report = area.report();
    let pty = native_pty_system()
        .openpty(PtySize { rows: 40, cols: 120, pixel_width: 0, pixel_height: 0 })
        .expect("a pseudo-terminal");
    let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_ttt-referee"));
    command.arg("grade");
    command.args(["--time", "10", "--build", &build, "--tests"]);
    command.arg(area.tests());
    command.arg("--report");
    command.arg(&report);
    command.arg(&sub);
    command.cwd(area.path());
    let mut child = pty.slave.spawn_command(command).expect("the binary starts");
    drop(pty.slave);
    let mut reader = pty.master.try_clone_reader().expect("a reader");
    let (send, seen_chunks) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buffer = [0; 4096];
        while let Ok(n @ 1..) = reader.read(&mut buffer) {
            if send.send(buffer[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    let deadline = Instant::now() + HANG;
    let code = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status.exit_code());
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut seen = Vec::new();
    while let Ok(chunk) = seen_chunks.recv_timeout(Duration::from_secs(2)) {
        seen.extend(chunk);
    }
    let seen = String::from_utf8_lossy(&seen).into_owned();
    assert_eq!(code, Some(1), "the grading at a terminal did not end as expected:\n{seen:?}");
    assert!(!seen.contains(&marker), "the injected bytes reached the grader's terminal:\n{seen:?}");
    let results: Value = serde_json::from_slice(&fs::read(report.join("results.json")).unwrap()).unwrap();
    let test = &results["submissions"][0]["tests"][0];
    assert_eq!(test["verdict"], "no-output", "{test:#}\n{seen:?}");
}

/// Class 2, set-ID bits: a submission holding set-user-ID and
/// set-group-ID files (and a set-group-ID directory) finds none of those
/// bits in its run directory.
#[test]
fn set_id_bits_are_stripped() {
    let area = Area::new(1);
    let sub = area.hostile(
        "setid",
        r#"static int check(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)flag; (void)ftw;
  if (st->st_mode & (S_ISUID | S_ISGID)) BREACH("%s has mode %o", path, (unsigned)(st->st_mode & 07777));
  return 0;
}
static int attack(void) {
  if (nftw(".", check, 16, FTW_PHYS) != 0) perror("nftw");
  return 0;
}
"#,
    );
    fs::write(sub.join("suid"), "#!/bin/sh\nid\n").unwrap();
    fs::set_permissions(sub.join("suid"), fs::Permissions::from_mode(0o6755)).unwrap();
    let dir = sub.join("sgid-dir");
    fs::create_dir(&dir).unwrap();
    fs::write(dir.join("inner"), "#!/bin/sh\nid\n").unwrap();
    fs::set_permissions(dir.join("inner"), fs::Permissions::from_mode(0o4755)).unwrap();
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o2755)).unwrap();
    assert_eq!(fs::metadata(sub.join("suid")).unwrap().permissions().mode() & 0o7777, 0o6755);
    let graded = area.grade(&[&sub], "", &[]);
    graded.all(0, "no-output");
}

/// Class 3, links: symbolic links in a submission (absolute and relative)
/// to a secret file of the grader's lead nowhere, and the secret is nowhere
/// in the run's file system; a submission holding a hard link to another
/// user's file is refused ("belongs to another user", root only) while the
/// other submissions are graded.
#[test]
fn links_lead_nowhere_and_another_users_file_is_refused() {
    let area = Area::new(1);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    let secret_text = format!("SECRET-{}-{nanos}", std::process::id());
    let secret = area.path().join("secret.txt");
    fs::write(&secret, &secret_text).unwrap();
    fs::set_permissions(&secret, fs::Permissions::from_mode(0o600)).unwrap();
    // The program gets the secret reversed: no file but the secret holds it.
    let reversed: String = secret_text.chars().rev().collect();
    let symlinks = area.hostile(
        "symlinks",
        r#"static char secret[256];
static int holds(const char *path) {
  char buf[256];
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return 0;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return 0;
  buf[n] = 0;
  return strstr(buf, secret) != NULL;
}
static time_t started;
static int look(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)ftw;
  if (time(0) - started > 5) { fprintf(stderr, "the walk stopped at %s\n", path); return FTW_STOP; }
  static const char *skip[] = { "/proc", "/sys", "/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/dev" };
  for (size_t i = 0; i < sizeof skip / sizeof *skip; i++) if (strcmp(path, skip[i]) == 0) return FTW_SKIP_SUBTREE;
  if ((flag == FTW_F && S_ISREG(st->st_mode) && st->st_size < 4096) || flag == FTW_SL)
    if (holds(path)) BREACH("the secret is in %s", path);
  return FTW_CONTINUE;
}
static int attack(void) {
  size_t n = strlen(SECRET_REVERSED);
  for (size_t i = 0; i < n && i < sizeof secret - 1; i++) secret[i] = SECRET_REVERSED[n - 1 - i];
  if (holds("secret")) BREACH("read the secret through the link secret");
  if (holds("up")) BREACH("read the secret through the link up");
  if (holds(SECRET_PATH)) BREACH("read the secret at its path");
  started = time(0);
  nftw("/", look, 16, FTW_PHYS | FTW_ACTIONRETVAL);
  return 0;
}
"#,
    );
    std::os::unix::fs::symlink(&secret, symlinks.join("secret")).unwrap();
    std::os::unix::fs::symlink("../../secret.txt", symlinks.join("up")).unwrap();
    assert_eq!(fs::read_to_string(symlinks.join("up")).unwrap(), secret_text);
    let mut subs = vec![symlinks];
    let root = nix::unistd::geteuid().is_root();
    if root {
        let theirs = area.path().join("theirs.txt");
        fs::write(&theirs, "another user's file\n").unwrap();
        std::os::unix::fs::chown(&theirs, Some(54321), Some(54321)).unwrap();
        let linker = area.ordinary("hard-link");
        fs::hard_link(&theirs, linker.join("theirs.txt")).unwrap();
        subs.push(linker);
    } else {
        eprintln!("not root: the hard link to another user's file is not tried");
    }
    subs.push(area.ordinary("ordinary"));
    let subs: Vec<&Path> = subs.iter().map(PathBuf::as_path).collect();
    let defines = format!(
        "{}{}",
        define("SECRET_REVERSED", &reversed),
        define("SECRET_PATH", &secret.display().to_string())
    );
    let graded = area.grade(&subs, &defines, &[]);
    assert_eq!(graded.status, Some(1), "{}", graded.stderr);
    graded.all(0, "no-output");
    if root {
        graded.refused(1, "belongs to another user");
    }
    graded.all(subs.len() - 1, "no-output");
}

/// Class 4, the referee: the grader's binaries cannot be run (by their
/// paths, by name on `PATH`, or through any `/proc/*/exe`), and `/proc`
/// shows only the run's own processes (at most 3, none with "grade" on its
/// command line).
#[test]
fn the_referee_is_out_of_reach() {
    let area = Area::new(1);
    let sub = area.hostile(
        "referee",
        r#"/* Runs `path --version` (found on PATH if `search`) in a child, its output
   in a pipe, for at most 2 s. Whether the exec succeeded goes to *ran; the
   result is whether the output names the referee or its guard. */
static int names_referee(const char *path, int search, int *ran) {
  int out[2], failed[2];
  *ran = 0;
  if (pipe(out) < 0) return 0;
  if (pipe2(failed, O_CLOEXEC) < 0) { close(out[0]); close(out[1]); return 0; }
  pid_t pid = fork();
  if (pid < 0) { close(out[0]); close(out[1]); close(failed[0]); close(failed[1]); return 0; }
  if (pid == 0) {
    int null = open("/dev/null", O_RDONLY);
    if (null >= 0) dup2(null, 0);
    dup2(out[1], 1); dup2(out[1], 2);
    close(out[0]); close(out[1]); close(failed[0]);
    alarm(2);
    if (search) execlp(path, path, "--version", (char *)0);
    else execl(path, path, "--version", (char *)0);
    int e = errno;
    write(failed[1], &e, sizeof e);
    _exit(127);
  }
  close(out[1]); close(failed[1]);
  char buf[4096];
  size_t got = 0;
  struct pollfd p = { .fd = out[0], .events = POLLIN };
  while (got < sizeof buf - 1 && poll(&p, 1, 2000) > 0) {
    ssize_t n = read(out[0], buf + got, sizeof buf - 1 - got);
    if (n <= 0) break;
    got += n;
  }
  buf[got] = 0;
  int e;
  *ran = read(failed[0], &e, sizeof e) == 0;
  close(out[0]); close(failed[0]);
  kill(pid, SIGKILL);
  waitpid(pid, 0, 0);
  return strstr(buf, "ttt-referee") != NULL || strstr(buf, "ttt-guard") != NULL;
}
static int attack(void) {
  char path[64], buf[4096];
  int numeric = 0, ran;
  DIR *proc = opendir("/proc");
  struct dirent *e;
  while (proc && (e = readdir(proc))) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    numeric++;
    snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
    int fd = open(path, O_RDONLY);
    if (fd < 0) continue;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) continue;
    for (ssize_t i = 0; i < n; i++) if (!buf[i]) buf[i] = ' ';
    buf[n] = 0;
    if (strstr(buf, "grade")) BREACH("process %s's command line is %s", e->d_name, buf);
  }
  if (numeric > 3) BREACH("/proc lists %d processes", numeric);
  if (proc) closedir(proc);
  if (names_referee(REFEREE, 0, &ran) || ran) BREACH("ran the referee at %s", REFEREE);
  if (names_referee(GUARD, 0, &ran) || ran) BREACH("ran the guard at %s", GUARD);
  if (names_referee("ttt-referee", 1, &ran) || ran) BREACH("ran ttt-referee from PATH");
  if (names_referee("ttt-guard", 1, &ran) || ran) BREACH("ran ttt-guard from PATH");
  proc = opendir("/proc");
  while (proc && (e = readdir(proc))) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9' || atoi(e->d_name) == getpid()) continue;
    snprintf(path, sizeof path, "/proc/%s/exe", e->d_name);
    if (names_referee(path, 0, &ran)) BREACH("ran the referee through %s", path);
  }
  return 0;
}
"#,
    );
    let defines = format!(
        "{}{}",
        define("REFEREE", env!("CARGO_BIN_EXE_ttt-referee")),
        define("GUARD", env!("CARGO_BIN_EXE_ttt-guard"))
    );
    let graded = area.grade(&[&sub], &defines, &[]);
    graded.all(0, "no-output");
}

/// Class 5, a FIFO as the answer: the grader does not block on it; the
/// verdict is `no-output`, saying it is a FIFO, and the grading ends.
#[test]
fn a_fifo_as_the_answer_is_no_output() {
    let area = Area::new(1);
    let sub = area.hostile(
        "fifo",
        r#"static int attack(void) {
  if (mkfifo("TTTgame.txt", 0600) != 0) perror("mkfifo");
  return 0;
}
"#,
    );
    let graded = area.grade(&[&sub], "", &["--time", "5"]);
    assert_eq!(graded.status, Some(1), "{}", graded.stderr);
    graded.all(0, "no-output");
    let detail = graded.tests(0)[0]["detail"].as_str().unwrap_or_default();
    assert!(detail.contains("FIFO"), "{}", graded.shown(0));
}

/// Class 6, memory: with `--memory 128`, the run as a whole is capped: 4
/// children holding 100 MB each at once, 400 MB in a memfd, and 400 MB of
/// `SysV` shared memory all fail (a failed allocation or a killed run; never
/// the breach status 42, never a pass).
#[test]
fn memory_is_capped_for_the_whole_run() {
    let area = Area::new(1);
    let children = area.hostile(
        "children",
        r#"static int attack(void) {
  int done[2], hold[2];
  if (pipe(done) < 0 || pipe(hold) < 0) { perror("pipe"); return 0; }
  pid_t kids[4];
  for (int i = 0; i < 4; i++) {
    kids[i] = fork();
    if (kids[i] == 0) {
      close(done[0]); close(hold[1]);
      for (int step = 0; step < 10; step++) {
        char *p = malloc(10 << 20);
        if (!p) _exit(1);
        memset(p, 1, 10 << 20);
      }
      write(done[1], "x", 1);
      close(done[1]); /* the parent sees the end once every child wrote or died */
      char c;
      read(hold[0], &c, 1); /* holds its 100 MB until the parent lets go */
      _exit(0);
    }
  }
  close(done[1]); close(hold[0]);
  char c;
  int ready = 0;
  while (ready < 4 && read(done[0], &c, 1) == 1) ready++;
  close(hold[1]);
  int finished = 0;
  for (int i = 0; i < 4; i++) {
    int st;
    if (kids[i] > 0 && waitpid(kids[i], &st, 0) == kids[i] && WIFEXITED(st) && WEXITSTATUS(st) == 0) finished++;
  }
  fprintf(stderr, "%d children held 100 MB at once, %d finished\n", ready, finished);
  if (ready == 4 && finished == 4) BREACH("4 children held 100 MB each at once");
  return 0;
}
"#,
    );
    let memfd = area.hostile(
        "memfd",
        r#"static int attack(void) {
  int fd = memfd_create("hostile", 0);
  if (fd < 0) { perror("memfd_create"); return 0; }
  char *b = malloc(16 << 20);
  if (!b) return 0;
  memset(b, 1, 16 << 20);
  long written = 0;
  for (int i = 0; i < 25; i++) {
    ssize_t n = write(fd, b, 16 << 20);
    if (n != 16 << 20) { perror("write"); break; }
    written += n;
  }
  if (written >= 400L << 20) BREACH("a memfd holds %ld MB", written >> 20);
  return 0;
}
"#,
    );
    let shm = area.hostile(
        "sysv-shm",
        r#"static int attack(void) {
  size_t size = 400UL << 20;
  int id = shmget(IPC_PRIVATE, size, IPC_CREAT | 0600);
  if (id < 0) { perror("shmget"); return 0; }
  char *p = shmat(id, 0, 0);
  shmctl(id, IPC_RMID, 0);
  if (p == (void *)-1) { perror("shmat"); return 0; }
  for (size_t off = 0; off < size; off += 16 << 20) memset(p + off, 1, 16 << 20);
  BREACH("touched 400 MB of SysV shared memory");
  return 0;
}
"#,
    );
    // An output limit far above 400 MB: the memfd must meet the memory
    // limit, not the file size limit.
    let graded = area.grade(&[&children, &memfd, &shm], "", &["--memory", "128", "--output-limit", "1024"]);
    println!("{}", serde_json::to_string_pretty(&graded.results["submissions"]).unwrap());
    // The whole run's memory is a cgroup's to cap: where the grader says
    // there is none (a user who is not root, with none delegated), only each
    // process's address space is, and the grading says so.
    if !graded.in_force("a cgroup") {
        crate::util::skip(&format!(
            "the run's memory needs a cgroup, and there is none here:\n{}",
            graded.stderr
        ));
        return;
    }
    for sub in 0..3 {
        for test in graded.tests(sub) {
            let shown = graded.shown(sub);
            assert_ne!(test["verdict"], "pass", "{shown}");
            assert!(
                !(test["verdict"] == "crashed" && test["exit_status"] == 42),
                "the program got past the memory limit:\n{shown}"
            );
        }
    }
}

/// The key the persistence attack uses: "tttt".
const IPC_KEY: i64 = 0x7474_7474;

/// Whether a `SysV` segment (`shm`) or message queue (`msg`) with
/// [`IPC_KEY`] exists on this machine.
fn host_ipc_key(kind: &str) -> bool {
    let table = fs::read_to_string(format!("/proc/sysvipc/{kind}")).unwrap();
    table
        .lines()
        .skip(1)
        .any(|line| line.split_whitespace().next().and_then(|k| k.parse().ok()) == Some(IPC_KEY))
}

/// Removes any `SysV` object with [`IPC_KEY`] from this machine; whether
/// there was one.
fn remove_host_ipc() -> bool {
    let found = host_ipc_key("shm") || host_ipc_key("msg");
    if found {
        let _ = Command::new("ipcrm").args(["-M", "0x74747474"]).status();
        let _ = Command::new("ipcrm").args(["-Q", "0x74747474"]).status();
    }
    found
}

/// Class 6, memory that outlives its run: `SysV` objects one run makes are
/// not there for the next (both tests `no-output`, one after the other),
/// nor on the machine after the grading.
#[test]
fn ipc_objects_do_not_outlive_their_run() {
    if remove_host_ipc() {
        eprintln!("a SysV object with key 0x74747474 was left on this machine before the test; removed");
    }
    let area = Area::new(2);
    let sub = area.hostile(
        "ipc",
        r#"#define KEY 0x74747474
static int attack(void) {
  if (shmget(KEY, 0, 0) >= 0) BREACH("a shared memory segment with key 0x74747474 exists");
  if (msgget(KEY, 0) >= 0) BREACH("a message queue with key 0x74747474 exists");
  if (breaches) return 0;
  if (shmget(KEY, 4096, IPC_CREAT | IPC_EXCL | 0600) < 0) perror("shmget");
  if (msgget(KEY, IPC_CREAT | IPC_EXCL | 0600) < 0) perror("msgget");
  return 0;
}
"#,
    );
    let graded = area.grade(&[&sub], "", &["--jobs", "1"]);
    let left = remove_host_ipc();
    graded.all(0, "no-output");
    assert!(!left, "a SysV object with key 0x74747474 outlived its run on this machine (removed now)");
}

/// Class 6, sockets left in flight: a socket passed over a unix socket, in
/// a cycle no process holds, outlives every process of its run until the
/// kernel collects it. Each of six tests (one run at a time: `--jobs 1`)
/// finds its loopback down and cannot bring it up or send to
/// 127.0.0.1, finds the abstract socket and the UDP port free, binds both
/// and puts them in flight before it ends: were the network namespace
/// shared by a launcher's runs, a later test would find them taken.
#[test]
fn sockets_left_in_flight_are_not_seen_by_the_next_run() {
    let area = Area::new(6);
    let sub = area.hostile(
        "inflight",
        r#"#include <net/if.h>
#include <netinet/in.h>
static void pass(int via, int fd) {
  char byte = 'x', control[CMSG_SPACE(sizeof(int))];
  struct iovec io = { &byte, 1 };
  memset(control, 0, sizeof control);
  struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control };
  struct cmsghdr *h = CMSG_FIRSTHDR(&m);
  h->cmsg_level = SOL_SOCKET; h->cmsg_type = SCM_RIGHTS; h->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(h), &fd, sizeof(int));
  if (sendmsg(via, &m, 0) < 0) perror("sendmsg");
}
static int attack(void) {
  int s = socket(AF_INET, SOCK_DGRAM, 0);
  if (s < 0) { perror("socket"); return 0; }
  struct ifreq r;
  memset(&r, 0, sizeof r);
  strcpy(r.ifr_name, "lo");
  if (ioctl(s, SIOCGIFFLAGS, &r) == 0 && (r.ifr_flags & IFF_UP)) BREACH("the loopback is up");
  r.ifr_flags |= IFF_UP;
  if (ioctl(s, SIOCSIFFLAGS, &r) == 0) BREACH("brought the loopback up");
  struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(47474), .sin_addr.s_addr = htonl(0x7f000001) };
  if (sendto(s, "x", 1, 0, (struct sockaddr *)&to, sizeof to) == 1) BREACH("sent to 127.0.0.1");
  struct sockaddr_in any = { .sin_family = AF_INET, .sin_port = htons(47474) };
  if (bind(s, (struct sockaddr *)&any, sizeof any) != 0 && errno == EADDRINUSE) BREACH("UDP port 47474 was taken");
  int u = socket(AF_UNIX, SOCK_DGRAM, 0);
  struct sockaddr_un n = { .sun_family = AF_UNIX };
  memcpy(n.sun_path, "\0ttt-inflight-test", 18);
  if (bind(u, (struct sockaddr *)&n, offsetof(struct sockaddr_un, sun_path) + 18) != 0 && errno == EADDRINUSE)
    BREACH("the abstract socket @ttt-inflight-test was taken");
  int p[2];
  if (socketpair(AF_UNIX, SOCK_DGRAM, 0, p) != 0) { perror("socketpair"); return 0; }
  pass(p[0], s); pass(p[0], u); pass(p[0], p[0]); pass(p[1], p[1]);
  return 0;
}
"#,
    );
    let graded = area.grade(&[&sub], "", &["--jobs", "1"]);
    graded.all(0, "no-output");
}

/// Class 7, disk: with `--output-limit 4`, writing 20 MB at the bottom of
/// 40 nested directories, 20 MB into an unlinked file, and fallocating
/// 1 GB all fail, and the box is full: `output-limit`. A sparse file of
/// 1 TB in a submission has it refused ("larger than").
#[test]
fn the_disk_is_capped_and_a_sparse_submission_refused() {
    let area = Area::new(1);
    let nested = area.hostile(
        "nested",
        r#"static int attack(void) {
  char name[16];
  for (int i = 0; i < 40; i++) {
    snprintf(name, sizeof name, "d%d", i);
    if (mkdir(name, 0755) != 0 || chdir(name) != 0) { perror(name); return 0; }
  }
  static char b[1 << 20];
  memset(b, 'x', sizeof b);
  int fd = open("deep.bin", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) { perror("deep.bin"); return 0; }
  long total = 0;
  for (int i = 0; i < 20; i++) {
    ssize_t n = write(fd, b, sizeof b);
    if (n != (ssize_t)sizeof b) { perror("write"); break; }
    total += n;
  }
  if (total >= 20L << 20) BREACH("wrote 20 MB 40 directories deep");
  return 0;
}
"#,
    );
    let unlinked = area.hostile(
        "unlinked",
        r#"static int attack(void) {
  static char b[1 << 20];
  memset(b, 'x', sizeof b);
  int fd = open("gone.bin", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) { perror("gone.bin"); return 0; }
  unlink("gone.bin");
  long total = 0;
  for (int i = 0; i < 20; i++) {
    ssize_t n = write(fd, b, sizeof b);
    if (n != (ssize_t)sizeof b) { perror("write"); break; }
    total += n;
  }
  if (total >= 20L << 20) BREACH("wrote 20 MB into an unlinked file");
  return 0;
}
"#,
    );
    let fallocated = area.hostile(
        "fallocate",
        r#"static int attack(void) {
  int fd = open("big.bin", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) { perror("big.bin"); return 0; }
  if (fallocate(fd, 0, 0, 1L << 30) == 0) { BREACH("fallocated 1 GB at once"); return 0; }
  perror("fallocate");
  /* Then a megabyte at a time. */
  long off = 0;
  for (; off < 1L << 30; off += 1L << 20) {
    int e = posix_fallocate(fd, off, 1L << 20);
    if (e) { fprintf(stderr, "posix_fallocate at %ld MB: %s\n", off >> 20, strerror(e)); break; }
  }
  if (off >= 1L << 30) BREACH("fallocated 1 GB a megabyte at a time");
  return 0;
}
"#,
    );
    // Each file under the limit (so the file-size rlimit never fires), in
    // /tmp, /dev/shm and deep directories, some unlinked: only a cap on
    // the whole run stops them.
    let spread = area.hostile(
        "spread",
        r#"static int attack(void) {
  static char b[1 << 20];
  memset(b, 'x', sizeof b);
  const char *dirs[] = { ".", "/tmp", "/dev/shm" };
  long total = 0;
  char name[64];
  mkdir("a", 0755); mkdir("a/b", 0755);
  for (int i = 0; i < 12; i++) {
    snprintf(name, sizeof name, "%s/f%d", i % 4 == 3 ? "a/b" : dirs[i % 3], i);
    int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) { perror(name); continue; }
    if (i % 2) unlink(name);
    ssize_t n = write(fd, b, sizeof b);
    if (n == (ssize_t)sizeof b) total += n;
    if (!(i % 2)) close(fd);
  }
  if (total >= 12L << 20) BREACH("wrote 12 MB in twelve files of 1 MB");
  return 0;
}
"#,
    );
    let sparse = area.ordinary("sparse");
    fs::File::create(sparse.join("sparse.bin")).unwrap().set_len(1 << 40).unwrap();
    let graded =
        area.grade(&[&nested, &unlinked, &fallocated, &spread, &sparse], "", &["--output-limit", "4"]);
    assert_eq!(graded.status, Some(1), "{}", graded.stderr);
    graded.all(0, "output-limit");
    graded.all(1, "output-limit");
    graded.all(2, "output-limit");
    // The cap holds (no breach: status 42 would be `crashed`); whether the
    // verdict also says so depends on the grader seeing the box full, and
    // files unlinked and freed at exit within a few milliseconds can leave
    // it no moment to see.
    let verdicts = graded.verdicts(3);
    assert!(
        verdicts.iter().all(|v| v == "output-limit" || v == "no-output"),
        "twelve 1 MB files got past a 4 MB cap: {verdicts:?}\n{}",
        graded.shown(3)
    );
    graded.refused(4, "larger than");
}

/// Class 8, the submission's shape: a tree 200 directories deep and a
/// submission of 20,000 files are refused ("deep", "more than 2000
/// files"), and the ordinary submission beside them is graded: exit
/// status 1, not 2.
#[test]
fn deep_or_crowded_submissions_are_refused_and_the_others_graded() {
    let area = Area::new(1);
    let deep = area.ordinary("deep");
    let mut bottom = deep.clone();
    for _ in 0..200 {
        bottom.push("d");
    }
    fs::create_dir_all(&bottom).unwrap();
    let crowded = area.ordinary("crowded");
    for n in 0..20_000 {
        fs::File::create(crowded.join(format!("f{n:05}"))).unwrap();
    }
    let ordinary = area.ordinary("ordinary");
    let graded = area.grade(&[&deep, &crowded, &ordinary], "", &[]);
    assert_eq!(graded.status, Some(1), "{}", graded.stderr);
    graded.refused(0, "deep");
    graded.refused(1, "more than 2000 files");
    graded.all(2, "no-output");
}

/// Class 9, leaks: no descriptor beyond 0, 1 and 2; no way to the test's
/// unix socket, by path or abstract name; no host home directories,
/// `/etc/shadow` or host accounts in `/etc/passwd`.
#[test]
fn nothing_leaks_into_a_run() {
    let area = Area::new(1);
    let socket = area.path().join("sock");
    let listener = UnixListener::bind(&socket).unwrap();
    listener.set_nonblocking(true).unwrap();
    let abstract_name = format!("ttt-hostile-{}", std::process::id());
    let address = SocketAddr::from_abstract_name(abstract_name.as_bytes()).unwrap();
    let abstract_listener = UnixListener::bind_addr(&address).unwrap();
    abstract_listener.set_nonblocking(true).unwrap();
    let sub = area.hostile(
        "leaks",
        r#"static int reach(const char *name, int abstract) {
  struct sockaddr_un a = { .sun_family = AF_UNIX };
  size_t n = strlen(name);
  if (n + 2 > sizeof a.sun_path) return 0;
  memcpy(a.sun_path + abstract, name, n);
  int s = socket(AF_UNIX, SOCK_STREAM, 0);
  if (s < 0) return 0;
  int ok = connect(s, (struct sockaddr *)&a, offsetof(struct sockaddr_un, sun_path) + abstract + n) == 0;
  close(s);
  return ok;
}
static void list(const char *path) {
  DIR *d = opendir(path);
  struct dirent *e;
  while (d && (e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) BREACH("%s holds %s", path, e->d_name);
  if (d) closedir(d);
}
static int attack(void) {
  for (int fd = 3; fd < 1024; fd++) {
    if (fcntl(fd, F_GETFD) == -1) continue;
    char path[64], target[256] = "";
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    readlink(path, target, sizeof target - 1);
    BREACH("fd %d is open: %s", fd, target);
  }
  if (reach(SOCKET, 0)) BREACH("connected to the unix socket %s", SOCKET);
  if (reach(ABSTRACT, 1)) BREACH("connected to the abstract socket %s", ABSTRACT);
  list("/home");
  list("/root");
  if (open("/etc/shadow", O_RDONLY) >= 0) BREACH("opened /etc/shadow");
  /* Where the guard's own directories were mounted before the program
     started: its answer and report go out through one of them. */
  const char *grader[] = { "/.ttt/out", "/.ttt/in", "/.ttt/start" };
  for (int i = 0; i < 3; i++) {
    char name[64];
    snprintf(name, sizeof name, "%s/planted", grader[i]);
    if (open(name, O_WRONLY | O_CREAT, 0644) >= 0) BREACH("created %s", name);
    DIR *d = opendir(grader[i]);
    struct dirent *e;
    while (d && (e = readdir(d)))
      if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) BREACH("%s holds %s", grader[i], e->d_name);
  }
  FILE *f = fopen("/etc/passwd", "r");
  int lines = 0, c;
  while (f && (c = getc(f)) != EOF) lines += c == '\n';
  if (lines > 3) BREACH("/etc/passwd holds %d lines", lines);
  return 0;
}
"#,
    );
    let defines =
        format!("{}{}", define("SOCKET", &socket.display().to_string()), define("ABSTRACT", &abstract_name));
    let graded = area.grade(&[&sub], &defines, &[]);
    graded.all(0, "no-output");
    for (what, listener) in [("unix socket", &listener), ("abstract socket", &abstract_listener)] {
        let accepted = listener.accept();
        assert!(
            accepted.as_ref().is_err_and(|e| e.kind() == ErrorKind::WouldBlock),
            "the program reached the test's {what}: {accepted:?}"
        );
    }
}

/// Class 10, a forged report: lines in the guard's own format written to
/// standard output, standard error and descriptors 3 to 9 change nothing:
/// every test has its true verdict (`no-output` for the program that exits
/// 0, `crashed` with status 3 for the one that exits 3 claiming 0), and the
/// grading exits 1, not 2.
#[test]
fn a_forged_report_changes_nothing() {
    let area = Area::new(2);
    let forge = r#"static int attack(void) {
  static const char *lines[] = {
    "{\"namespaces\":null}\n",
    "{\"confined\":{\"landlock\":null,\"seccomp\":null}}\n",
    "{\"ended\":{\"code\":0,\"signal\":null,\"cpu_us\":0,\"max_rss_kb\":0,\"written\":0,\"full\":false,\"answer\":null}}\n",
    "{\"failed\":\"forged\"}\n",
  };
  for (int fd = 1; fd < 10; fd++)
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) write(fd, lines[i], strlen(lines[i]));
  return CODE;
}
"#;
    let zero = area.hostile("forger", &forge.replace("CODE", "0"));
    let three = area.hostile("forger-3", &forge.replace("CODE", "3"));
    let graded = area.grade(&[&zero, &three], "", &[]);
    assert_eq!(graded.status, Some(1), "{}", graded.stderr);
    graded.all(0, "no-output");
    graded.all(1, "crashed");
    for sub in 0..2 {
        for test in graded.tests(sub) {
            let detail = test["detail"].as_str().unwrap_or_default();
            assert!(!detail.contains("forged"), "the forged line was believed:\n{}", graded.shown(sub));
        }
    }
    for test in graded.tests(1) {
        assert_eq!(test["exit_status"], 3, "{}", graded.shown(1));
    }
}

/// Class 11, escapes in names: a submission named with terminal escape
/// sequences and a bell shows them escaped (`\u{1b}`) in the table and in
/// grades.csv, never raw.
#[test]
fn escape_sequences_in_a_name_reach_no_terminal() {
    let area = Area::new(1);
    let sub = area.ordinary("evil\x1b[2J\x1b]0;pwned\x07");
    let graded = area.grade(&[&sub], "", &[]);
    assert_eq!(graded.status, Some(1), "{}", graded.stderr);
    graded.all(0, "no-output");
    let csv = fs::read_to_string(graded.report.join("grades.csv")).unwrap();
    for (what, text) in [("the table", &graded.stdout), ("grades.csv", &csv)] {
        assert!(!text.contains(['\x1b', '\x07']), "{what} holds the raw name: {text:?}");
        assert!(text.contains("\\u{1b}"), "{what} does not show the name escaped: {text:?}");
    }
}

/// Whether any process on the machine is named `tag` (`/proc/*/comm`).
fn alive(tag: &str) -> bool {
    fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .any(|e| fs::read_to_string(e.path().join("comm")).is_ok_and(|c| c.trim() == tag))
}

/// Waits up to `limit` for `done`, looking every 10 ms.
fn within(limit: Duration, done: impl Fn() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    done()
}

/// Class 12, interrupted grading: SIGINT (sent twice at once, as `timeout`
/// sends it) while the second of two
/// submissions runs ends the grading with status 130, says what was not
/// graded, reports the first, and leaves no process and nothing in TMPDIR.
#[test]
fn an_interrupted_grading_reports_what_finished_and_leaves_nothing() {
    let area = Area::new(1);
    let tag = "ttt-hostile-int";
    let quick = area.ordinary("quick");
    let sleeper = area.hostile(
        "sleeper",
        r"static int attack(void) {
  NAME(TAG);
  sleep(30);
  return 0;
}
",
    );
    let tmp = area.path().join("tmp");
    fs::create_dir(&tmp).unwrap();
    let stdout = area.path().join("stdout");
    let stderr = area.path().join("stderr");
    let report = area.report();
    let mut grader = Command::new(env!("CARGO_BIN_EXE_ttt-referee"))
        .arg("grade")
        .args(["--time", "30", "--jobs", "1", "--build", &area.build(&define("TAG", tag)), "--tests"])
        .arg(area.tests())
        .arg("--report")
        .arg(&report)
        .arg(&quick)
        .arg(&sleeper)
        .env("TMPDIR", &tmp)
        .stdin(Stdio::null())
        .stdout(fs::File::create(&stdout).unwrap())
        .stderr(fs::File::create(&stderr).unwrap())
        .spawn()
        .unwrap();
    let started = within(Duration::from_mins(1), || alive(tag));
    if !started {
        let _ = grader.kill();
        let _ = grader.wait();
        panic!("the sleeper never started:\n{}", fs::read_to_string(&stderr).unwrap());
    }
    let pid = nix::unistd::Pid::from_raw(i32::try_from(grader.id()).unwrap());
    // Twice at once, as `timeout -s INT` sends it (to the program, then to
    // its process group): one interrupt, not a second that ends at once.
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).unwrap();
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = grader.try_wait().unwrap() {
            break Some(status);
        }
        if Instant::now() > deadline {
            let _ = grader.kill();
            let _ = grader.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stderr = fs::read_to_string(&stderr).unwrap();
    let stdout = fs::read_to_string(&stdout).unwrap();
    let status = status.unwrap_or_else(|| panic!("the grader did not end 30 s after SIGINT:\n{stderr}"));
    assert_eq!(status.code(), Some(130), "{stdout}{stderr}");
    let said = stderr.lines().find(|l| l.contains("interrupted")).unwrap_or_default();
    assert!(said.contains("not graded: ") && said.contains("sleeper"), "{stderr}");
    let results: Value = serde_json::from_slice(&fs::read(report.join("results.json")).unwrap()).unwrap();
    let reported = Graded { status: Some(130), results, stdout, stderr: stderr.clone(), report };
    assert_eq!(reported.names(), ["quick"], "{}", serde_json::to_string_pretty(&reported.results).unwrap());
    reported.all(0, "no-output");
    let left: Vec<_> = fs::read_dir(&tmp).unwrap().map(|e| e.unwrap().path()).collect();
    assert!(left.is_empty(), "left in TMPDIR: {left:?}");
    assert!(within(Duration::from_secs(2), || !alive(tag)), "the sleeper outlived the grading");
}

/// Class 13, the machine's table of open files: with `--open-files 64`, a
/// program opening descriptors (`dup` of its standard input) until it
/// cannot holds at most 64 at once, and is refused with EMFILE (not by the
/// machine's table filling up, ENFILE); another student in the same
/// grading is graded as ever. Bounded unconfined: at most 100,000.
#[test]
fn open_files_are_capped_per_process() {
    let area = Area::new(1);
    let hoarder = area.hostile(
        "hoarder",
        r#"static int attack(void) {
  long held = 3; /* its standard streams */
  int why = 0;
  for (long i = 0; i < 100000; i++) {
    if (dup(0) < 0) { why = errno; break; }
    held++;
  }
  fprintf(stderr, "held %ld descriptors at once (%s)\n", held, why ? strerror(why) : "never refused");
  if (held > LIMIT) BREACH("%ld descriptors held at once, over %d", held, LIMIT);
  return why == EMFILE ? 0 : 43;
}
"#,
    );
    let ordinary = area.ordinary("ordinary");
    // --verbose: the whole protections list, the limits on what is shared
    // among them.
    let graded = area.grade(&[&hoarder, &ordinary], " -DLIMIT=64", &["--open-files", "64", "--verbose"]);
    graded.all(0, "no-output");
    graded.all(1, "no-output");
    assert!(graded.stderr.contains("64 open files a process"), "{}", graded.stderr);
}

/// Class 13, the rest of what the machine shares: each process of a run
/// may lock at most 64 KiB, queue at most 128 KiB of POSIX messages and
/// 256 signals, and dump no core; soft and hard limits alike, so the
/// program cannot raise them.
#[test]
fn the_shared_limits_are_small() {
    let area = Area::new(1);
    let sub = area.hostile(
        "limits",
        r#"#include <sys/resource.h>
static void most(const char *name, int resource, unsigned long long limit) {
  struct rlimit r;
  if (getrlimit(resource, &r) != 0) { perror(name); breaches++; return; }
  fprintf(stderr, "%s: soft %llu hard %llu\n", name, (unsigned long long)r.rlim_cur, (unsigned long long)r.rlim_max);
  if (r.rlim_cur == RLIM_INFINITY || r.rlim_cur > limit || r.rlim_max == RLIM_INFINITY || r.rlim_max > limit)
    BREACH("%s is over %llu", name, limit);
}
static int attack(void) {
  most("RLIMIT_MEMLOCK", RLIMIT_MEMLOCK, 64 << 10);
  most("RLIMIT_MSGQUEUE", RLIMIT_MSGQUEUE, 128 << 10);
  most("RLIMIT_SIGPENDING", RLIMIT_SIGPENDING, 256);
  most("RLIMIT_CORE", RLIMIT_CORE, 0);
  most("RLIMIT_NOFILE", RLIMIT_NOFILE, 256);
  return 0;
}
"#,
    );
    let graded = area.grade(&[&sub], "", &[]);
    graded.all(0, "no-output");
}

/// Class 13, the umask: a run's files are made with umask 022 whatever the
/// grader's (000 or 077 here): the program's own umask, and the mode of a
/// file it creates with 0666.
#[test]
fn the_runs_umask_is_022_whatever_the_graders() {
    let area = Area::new(1);
    let sub = area.hostile(
        "umask",
        r#"static int attack(void) {
  mode_t mask = umask(0);
  umask(mask);
  if (mask != 022) BREACH("umask %03o", (unsigned)mask);
  int fd = open("made", O_WRONLY | O_CREAT | O_EXCL, 0666);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) { perror("made"); return 43; }
  if ((st.st_mode & 0777) != 0644) BREACH("a file made with 0666 has mode %03o", (unsigned)(st.st_mode & 0777));
  return 0;
}
"#,
    );
    let build = area.build("");
    for umask in ["000", "077"] {
        let graded = area.grade_after(&format!("umask {umask}"), &[&sub], &["--build", &build]);
        assert_eq!(
            graded.verdicts(0),
            ["no-output"],
            "with the grader's umask {umask}:\n{}",
            graded.shown(0)
        );
    }
}

/// `--open-files` cannot give a run more than the grader itself may have
/// (its hard limit), nor fewer than 16; each is refused before grading,
/// saying why.
#[test]
fn open_files_beyond_what_the_grader_has_are_refused() {
    let area = Area::new(1);
    let sub = area.ordinary("ordinary");
    let graded = area.grade_after("ulimit -n 4096", &[&sub], &["--open-files", "5000"]);
    assert_eq!(graded.status, Some(2), "{}", graded.stderr);
    assert_eq!(
        graded.stderr.trim(),
        "ttt-referee: --open-files 5000 is more than this grader may give a run: its own hard limit on open \
         files is 4096 (`ulimit -Hn`)"
    );
    let graded = area.grade_as(&[&sub], &["--open-files", "8"]);
    assert_eq!(graded.status, Some(2), "{}", graded.stderr);
    assert!(graded.stderr.contains("8 is not in 16..=1048576"), "{}", graded.stderr);
}
