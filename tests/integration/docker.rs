//! `grade` inside a container with Docker's default profile, which is what
//! Gradescope runs the autograder in: root, but with Docker's capabilities
//! only, new namespaces and mounts refused by seccomp, the cgroup file
//! systems read-only, and a small `/dev/shm` mounted `noexec`. No container can be made there, so the guard runs
//! each program with the protections that remain, and the protections list
//! says which are missing.
//!
//! Docker is not needed: `docker_profile.c`, built here with `cc`, makes
//! that profile for the grader it starts (see its comment). These need
//! root; elsewhere they say so and pass.

use std::fs;
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use tempfile::TempDir;

use crate::install::runnable;
use crate::sandbox::{alive, eventually};
use crate::util::{Graded, fixture, referee};

/// Where a grading under the profile happens: the helper, the grader's
/// `TMPDIR`, submissions and reports, all under one temporary directory.
struct Docker {
    dir: TempDir,
    profile: PathBuf,
}

impl Docker {
    /// Builds the helper; `None` (having said why) when the test cannot
    /// run here.
    fn new() -> Option<Docker> {
        if !runnable(false) {
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        // The grader's scratch goes in `tmp`, which its run user must be able
        // to pass through.
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
        fs::create_dir(dir.path().join("tmp")).unwrap();
        fs::set_permissions(dir.path().join("tmp"), fs::Permissions::from_mode(0o755)).unwrap();
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/integration/docker_profile.c");
        let profile = dir.path().join("docker-profile");
        let built =
            Command::new("cc").args(["-O1", "-Wall", "-o"]).arg(&profile).arg(&source).output().unwrap();
        assert!(built.status.success(), "{}", String::from_utf8_lossy(&built.stderr));
        // Exit status 77: this machine does not let the profile be made.
        let tried = Command::new(&profile).arg("true").output().unwrap();
        if tried.status.code() == Some(77) {
            crate::util::skip(String::from_utf8_lossy(&tried.stderr).trim());
            return None;
        }
        assert!(tried.status.success(), "{}", String::from_utf8_lossy(&tried.stderr));
        Some(Docker { dir, profile })
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// A C submission named `name`: `main.c` is `source`.
    fn c(&self, name: &str, source: &str) -> PathBuf {
        let dir = self.path().join("subs").join(name);
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("main.c"), source).unwrap();
        dir
    }

    /// Grades `subs` on the move files in `tests` under the profile, with
    /// `extra` options and the grader's scratch in this directory's `tmp`
    /// (which must be empty afterwards).
    fn grade(&self, tests: &Path, subs: &[&Path], extra: &[&str]) -> Graded {
        let graded = self.grade_with(tests, subs, extra, Some(&self.path().join("tmp")));
        assert_eq!(fs::read_dir(self.path().join("tmp")).unwrap().count(), 0, "the grader left its scratch");
        graded
    }

    /// Grades as [`Docker::grade`], with `TMPDIR` set to `tmpdir`, or unset
    /// as on Gradescope.
    fn grade_with(&self, tests: &Path, subs: &[&Path], extra: &[&str], tmpdir: Option<&Path>) -> Graded {
        let report = self.path().join("report");
        let _ = fs::remove_dir_all(&report);
        let mut command = Command::new(&self.profile);
        match tmpdir {
            Some(dir) => command.env("TMPDIR", dir),
            None => command.env_remove("TMPDIR"),
        };
        let output = command
            .arg(env!("CARGO_BIN_EXE_ttt-referee"))
            .arg("grade")
            .arg("--tests")
            .arg(tests)
            .arg("--report")
            .arg(&report)
            // Every protection listed, in force or missing.
            .arg("--verbose")
            .args(extra)
            .args(subs)
            .current_dir(crate::util::root())
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
        // 0 or 1: the grading was done (2 is "could not grade").
        assert!(
            matches!(graded.status, Some(0 | 1)),
            "{:?}\n{}{}",
            graded.status,
            graded.stdout,
            graded.stderr
        );
        assert!(!graded.results.is_null(), "no results.json:\n{}", graded.stderr);
        graded
    }
}

/// Whether the grading said this protection is missing.
fn missing(graded: &Graded, name: &str) -> bool {
    graded.stderr.lines().any(|l| l.starts_with("  MISSING") && l.contains(name))
}

#[test]
fn a_class_is_graded_in_dockers_default_profile_with_the_protections_it_allows() {
    let Some(docker) = Docker::new() else { return };
    let class = fixture("class/students");
    let subs = ["ada-c", "cleo-py", "fay-order"].map(|name| class.join(name));
    // No TMPDIR, as on Gradescope: the scratch must not go in Docker's
    // /dev/shm (64 MB, noexec), which holds neither the guard nor a build.
    let subs = subs.each_ref().map(PathBuf::as_path);
    let graded = docker.grade_with(&fixture("class/tests"), &subs, &["--jobs", "2"], None);
    assert_eq!(graded.status, Some(1), "{}", graded.stderr);
    assert_eq!(graded.names(), ["ada-c", "cleo-py", "fay-order"]);
    graded.all(0, "pass");
    graded.all(1, "pass");
    // fay-order reports the marked square before the double move.
    let fay: Vec<String> = graded.verdicts(2);
    assert_eq!(fay.iter().filter(|v| *v == "wrong").count(), 1, "{}", graded.shown(2));
    assert_eq!(graded.test(2, 7)["verdict"], "wrong", "{}", graded.shown(2));

    // What the profile takes away: the container and everything it gives,
    // and the cgroup (read-only there) ...
    for name in
        ["its own root", "its own PID, network, IPC and UTS namespaces", "a size-capped tmpfs", "a cgroup"]
    {
        assert!(missing(&graded, name), "{name} is not said to be missing:\n{}", graded.stderr);
    }
    assert!(graded.stderr.contains("unshare"), "the reason is not given:\n{}", graded.stderr);
    // ... and what still holds without a single namespace or capability.
    for name in [
        "(seccomp)",
        "Landlock",
        "limits on time, CPU, file size and processes",
        "no copy of the referee to run",
        "no capabilities, as an unused user",
    ] {
        assert!(graded.in_force(name), "{name} is not in force:\n{}", graded.stderr);
    }
}

/// Each wall said to be in force under the profile, tried: a program that
/// exits 42 (and says why on standard error) if any attempt succeeds, and 0
/// without an answer otherwise; and a sleeper that must not outlive the time
/// limit.
#[test]
fn the_walls_said_to_hold_in_dockers_default_profile_hold() {
    let Some(docker) = Docker::new() else { return };
    let tests = docker.path().join("tests");
    referee().args(["gen", "--seed", "5", "--count", "1", "--out-dir"]).arg(&tests).assert().success();
    // A directory anyone may write in: only Landlock keeps the run out.
    let open = docker.path().join("open");
    fs::create_dir(&open).unwrap();
    fs::set_permissions(&open, fs::Permissions::from_mode(0o777)).unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let first_test = fs::read_dir(&tests).unwrap().next().unwrap().unwrap().path();
    let nosy = docker.c(
        "nosy",
        &format!(
            r#"#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
static int breaches;
#define BREACH(what) (fprintf(stderr, "breach: %s\n", what), breaches++)
int main(void) {{
  alarm(10);
  if (unshare(CLONE_NEWUSER) == 0) BREACH("a new user namespace");
  FILE *self = fopen("/proc/self/status", "r");
  char line[256];
  int nothing = 0;
  while (self && fgets(line, sizeof line, self)) {{
    if (strncmp(line, "Cap", 3) == 0 && strncmp(line, "CapBnd", 6) != 0) nothing += strstr(line, "\t0000000000000000") != NULL;
    if (strncmp(line, "NoNewPrivs:", 11) == 0) nothing += strstr(line, "1") != NULL;
  }}
  if (nothing != 5) BREACH("a capability, or no no_new_privs");
  if (ptrace(PTRACE_TRACEME, 0, 0, 0) == 0) BREACH("ptrace");
  if (open("{test}", O_RDONLY) >= 0) BREACH("read a test");
  if (open("{open}/written", O_WRONLY | O_CREAT, 0644) >= 0) BREACH("wrote outside its box");
  if (opendir("../..") != NULL) BREACH("listed its run's area");
  if (opendir("/dev/shm") != NULL) BREACH("listed /dev/shm");
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/mem", getppid());
  if (open(path, O_RDONLY) >= 0) BREACH("read the guard's memory");
  snprintf(path, sizeof path, "/proc/%d/fd/1", getppid());
  if (open(path, O_WRONLY) >= 0) BREACH("opened the guard's report");
  int s = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in to = {{.sin_family = AF_INET, .sin_port = htons({port}), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)}};
  if (s >= 0 && connect(s, (struct sockaddr *)&to, sizeof to) == 0) BREACH("connected over TCP");
  snprintf(path, sizeof path, "/proc/%d/exe", getppid());
  pid_t child = fork();
  if (child == 0) {{ execl(path, "guard", (char *)NULL); _exit(99); }}
  int status = 0;
  waitpid(child, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 99) BREACH("ran the guard through /proc");
  return breaches ? 42 : 0;
}}
"#,
            test = first_test.display(),
            open = open.display(),
        ),
    );
    let tag = "ttt-docker-sleep";
    let sleeper = docker.c(
        "sleeper",
        &format!(
            "#include <sys/prctl.h>\n#include <unistd.h>\nint main(void) {{ prctl(PR_SET_NAME, \"{tag}\"); sleep(30); return 0; }}\n"
        ),
    );
    let graded =
        docker.grade(&tests, &[&nosy, &sleeper], &["--build", "cc -O1 -o prog main.c", "--time", "1"]);
    assert_eq!(graded.verdicts(0), ["no-output"], "{}", graded.shown(0));
    assert!(fs::read_dir(&open).unwrap().next().is_none(), "the run wrote outside its box");
    assert_eq!(graded.verdicts(1), ["time-limit"], "{}", graded.shown(1));
    assert!(eventually(|| !alive(tag)), "the sleeper outlived its time limit");
    drop(listener);
}
