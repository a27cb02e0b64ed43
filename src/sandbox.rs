//! Running a stranger's program: limits, containment, and what became of it.
//!
//! The crate forbids `unsafe`, so there is no `pre_exec` hook. Instead the
//! grader runs a guard (this binary in a hidden mode, as `DOMjudge`'s runguard
//! and isolate are separate programs) that confines itself and then starts
//! the program. It has two stages:
//!
//! 1. **guard** — started by the grader in a process group of its own (and,
//!    when the grader is root, as `nobody`). It moves into new user, PID and
//!    network namespaces and starts stage 2, which becomes process 1 of the
//!    new PID namespace.
//! 2. **init** — dies with the guard (`PR_SET_PDEATHSIG`), sets the resource
//!    limits, opens the program's standard streams, restricts the file system
//!    and the network with Landlock, starts the program in the run directory
//!    with a cleared environment, waits for it, and reports how it ended.
//!    When init exits, the kernel kills everything else in its PID namespace:
//!    a daemon that called `setsid` goes too.
//!
//! Stages report on their standard output, a pipe to the grader, one line at
//! a time (JSON); the program's own streams are files.

use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// The first argument that starts this binary as the guard rather than as
/// the command line (never shown in `--help`).
pub const GUARD_ARG: &str = "__sandbox-guard";
/// The first argument of the guard's second stage.
pub const INIT_ARG: &str = "__sandbox-init";
/// The first argument of the namespace holder (see [`Sandbox::share_namespaces`]).
pub const HOLD_ARG: &str = "__sandbox-hold";
/// The user a root grader's programs run as.
pub const NOBODY: u32 = 65534;
/// The environment's search path: the only variable kept besides `HOME`.
pub const PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// Directories a program may read and run things from (when they exist);
/// everything else outside its run directory is closed to it.
const READABLE: &[&str] = &[
    "/bin", "/sbin", "/usr", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix", "/proc", "/dev",
    "/sys",
];

/// What a run may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Wall-clock time; the run is killed when it is up.
    pub wall: Duration,
    /// CPU time of each process (the kernel sends `SIGXCPU`).
    pub cpu: Duration,
    /// Address space of each process, in bytes.
    pub memory: u64,
    /// The most bytes any file the program writes (its standard output and
    /// error included) may hold, and the most all of them together may.
    pub output: u64,
    /// How many processes the run may have at once.
    pub processes: u64,
}

/// One run: the program, where it runs, and its standard streams.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Job {
    /// The program and its arguments; a program without `/` is looked up in
    /// [`PATH`].
    pub argv: Vec<String>,
    /// The run directory: the program's working directory and `HOME`, and
    /// the only place it may write.
    pub dir: PathBuf,
    /// Standard input, or `/dev/null`.
    pub stdin: Option<PathBuf>,
    /// Where standard output goes (created empty by [`Sandbox::run`]).
    pub stdout: PathBuf,
    /// Where standard error goes (created empty by [`Sandbox::run`]).
    pub stderr: PathBuf,
    /// The limits.
    pub limits: Limits,
    /// Variables set besides `PATH` and `HOME` (a build's `TMPDIR`).
    pub env: Vec<(String, String)>,
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind", content = "value")]
pub enum Ending {
    /// The program exited with this status.
    Exited(i32),
    /// The program was killed by this signal.
    Signalled(i32),
    /// The wall-clock limit ran out and the run was killed.
    TimedOut,
    /// The files it wrote outgrew the output limit and the run was killed.
    OutputExceeded,
}

/// What became of a run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Outcome {
    /// How it ended.
    pub ending: Ending,
    /// Wall-clock time from start to end.
    pub wall: Duration,
    /// CPU time the program used (user and system), when it ended by itself.
    pub cpu: Duration,
    /// The largest resident size of any of its processes, in bytes.
    pub max_rss: u64,
    /// How many bytes it wrote: standard output, standard error and files
    /// in its run directory.
    pub written: u64,
}

/// The protections a run asked for and did not get, each with why
/// (`None`: in force).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Gaps {
    /// The user, PID and network namespaces.
    pub namespaces: Option<String>,
    /// Landlock's file system and network rules.
    pub landlock: Option<String>,
}

/// One protection and whether it is in force.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Protection {
    /// What it guards against, in a few words.
    pub name: &'static str,
    /// `None` when in force; otherwise why not.
    pub missing: Option<String>,
}

/// What the sandbox enforces on this machine, found by running a program
/// through it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Protections {
    /// Each protection, in a fixed order.
    pub list: Vec<Protection>,
}

impl Protections {
    /// Whether every protection is in force.
    #[must_use]
    pub fn complete(&self) -> bool {
        self.list.iter().all(|p| p.missing.is_none())
    }
}

impl std::fmt::Display for Protections {
    /// One line per protection: `  in force  …` or `  MISSING   … (why)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for p in &self.list {
            match &p.missing {
                None => writeln!(f, "  in force  {}", p.name)?,
                Some(why) => writeln!(f, "  MISSING   {} ({why})", p.name)?,
            }
        }
        Ok(())
    }
}

/// Why a run could not be made.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// The guard could not be started, or the run's files not prepared.
    #[error("cannot start the guard: {0}")]
    Start(#[source] io::Error),
    /// The guard started but could not set the run up.
    #[error("the guard failed: {0}")]
    Guard(String),
}

/// What the grader hands the guard: the job, and the namespace holder to
/// join if there is one.
#[derive(Debug, Serialize, Deserialize)]
struct Config {
    job: Job,
    join: Option<u32>,
}

/// A line a guard stage reports to the grader.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum Line {
    /// Stage 1: whether the new namespaces are in force, and if not why.
    Namespaces(Option<String>),
    /// Stage 2: whether Landlock is in force, and if not why.
    Landlock(Option<String>),
    /// Stage 2: how the program ended.
    Ended { code: Option<i32>, signal: Option<i32>, cpu_us: u64, max_rss_kb: u64 },
    /// Either stage: it could not go on.
    Failed(String),
}

/// Whether runs are started as [`NOBODY`] (the grader is root).
#[must_use]
pub fn drops_root() -> bool {
    nix::unistd::geteuid().is_root()
}

/// Hands `path` (and everything in it) to the user the program runs as, so
/// that it may write there; a no-op unless the grader is root.
pub fn hand_over(path: &Path) -> io::Result<()> {
    if !drops_root() {
        return Ok(());
    }
    std::os::unix::fs::lchown(path, Some(NOBODY), Some(NOBODY))?;
    if fs::symlink_metadata(path)?.is_dir() {
        for entry in fs::read_dir(path)? {
            hand_over(&entry?.path())?;
        }
    }
    Ok(())
}

/// Lets the user runs are started as reach directories below `dir` (mode
/// 0711: passable, not listable); a no-op unless the grader is root.
pub fn open_for_runs(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    if drops_root() { fs::set_permissions(dir, fs::Permissions::from_mode(0o711)) } else { Ok(()) }
}

/// The guard: the program that confines itself and then starts a run.
#[derive(Debug)]
pub struct Sandbox {
    guard: PathBuf,
    /// A process holding a user and a network namespace that every run
    /// joins, and its process id.
    holder: Option<(Child, u32)>,
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        if let Some((child, _)) = &mut self.holder {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Sandbox {
    /// The guard is `ttt-guard` beside this program if it is there (it
    /// starts faster), else this very program in its hidden mode.
    pub fn this_program() -> io::Result<Sandbox> {
        let exe = std::env::current_exe()?;
        let small = exe.with_file_name("ttt-guard");
        Ok(Sandbox::with_guard(if small.is_file() { small } else { exe }))
    }

    /// The guard is `guard`, a ttt-referee or ttt-guard binary (for callers
    /// that are neither, such as tests of the library).
    #[must_use]
    pub fn with_guard(guard: PathBuf) -> Sandbox {
        Sandbox { guard, holder: None }
    }

    /// Creates one user and network namespace for all later runs to join,
    /// instead of a new pair per run (which costs about 1.5 ms each). Each
    /// run still gets its own PID namespace and Landlock domain, which keep
    /// runs from seeing, signalling or connecting to each other. Without it,
    /// or if it fails, every run makes its own.
    pub fn share_namespaces(&mut self) {
        let mut command = Command::new(&self.guard);
        command.arg(HOLD_ARG).env_clear().stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
        if drops_root() {
            command.uid(NOBODY).gid(NOBODY);
        }
        let Ok(mut child) = command.spawn() else { return };
        let mut ready = String::new();
        if let Some(out) = child.stdout.take() {
            let _ = BufReader::new(out).read_line(&mut ready);
        }
        if serde_json::from_str::<Line>(ready.trim()).is_ok_and(|l| l == Line::Namespaces(None)) {
            let pid = child.id();
            self.holder = Some((child, pid));
        } else {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Runs `job` under the guard and waits for it, killing the run at its
    /// wall-clock limit or when its files outgrow the output limit.
    /// Everything the program started is gone when this returns. Also
    /// returns the protections that were not in force.
    pub fn run(&self, job: &Job) -> Result<(Outcome, Gaps), SandboxError> {
        for path in [&job.stdout, &job.stderr] {
            File::create(path).map_err(SandboxError::Start)?;
            hand_over(path).map_err(SandboxError::Start)?;
        }
        // What is in the run directory already (the copied submission) is not
        // the program's output.
        let before = tree_size(&job.dir, 0);
        let config = serde_json::to_string(&Config {
            job: job.clone(),
            join: self.holder.as_ref().map(|(_, pid)| *pid),
        })
        .map_err(|e| SandboxError::Start(io::Error::other(e)))?;
        let mut command = Command::new(&self.guard);
        command
            .arg(GUARD_ARG)
            .arg(config)
            .env_clear()
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        if drops_root() {
            command.uid(NOBODY).gid(NOBODY);
        }
        let start = Instant::now();
        let mut child = command.spawn().map_err(SandboxError::Start)?;
        let ending = wait(&mut child, job, start, before);
        let wall = start.elapsed();
        // Whatever is left of the run's process group goes now; the PID
        // namespace took the rest when its init ended.
        let _ = nix::sys::signal::killpg(pid(&child), nix::sys::signal::Signal::SIGKILL);
        let _ = child.wait();
        let written = written(job, before);
        let mut report = String::new();
        let mut failure = String::new();
        if let Some(out) = child.stdout.take() {
            let _ = out.take(1 << 16).read_to_string(&mut report);
        }
        if let Some(err) = child.stderr.take() {
            let _ = err.take(1 << 16).read_to_string(&mut failure);
        }
        let mut outcome =
            Outcome { ending: Ending::TimedOut, wall, cpu: Duration::ZERO, max_rss: 0, written };
        let mut gaps = Gaps::default();
        let mut ended = false;
        for line in report.lines() {
            match serde_json::from_str::<Line>(line) {
                Ok(Line::Namespaces(why)) => gaps.namespaces = why,
                Ok(Line::Landlock(why)) => gaps.landlock = why,
                Ok(Line::Ended { code, signal, cpu_us, max_rss_kb }) => {
                    ended = true;
                    outcome.cpu = Duration::from_micros(cpu_us);
                    outcome.max_rss = max_rss_kb * 1024;
                    outcome.ending = match (signal, code) {
                        (Some(signal), _) => Ending::Signalled(signal),
                        (None, code) => Ending::Exited(code.unwrap_or(-1)),
                    };
                }
                Ok(Line::Failed(why)) => return Err(SandboxError::Guard(why)),
                Err(_) => return Err(SandboxError::Guard(format!("unreadable report `{line}`"))),
            }
        }
        match ending {
            Some(ending) => outcome.ending = ending,
            None if !ended => {
                let why =
                    if failure.trim().is_empty() { "it ended without a report".to_owned() } else { failure };
                return Err(SandboxError::Guard(why.trim().to_owned()));
            }
            None => {}
        }
        Ok((outcome, gaps))
    }

    /// Finds what the sandbox enforces here by running `true` through it in
    /// a scratch directory.
    pub fn probe(&self, limits: Limits) -> Result<Protections, SandboxError> {
        let scratch = tempfile::tempdir().map_err(SandboxError::Start)?;
        let dir = scratch.path().join("run");
        fs::create_dir(&dir).map_err(SandboxError::Start)?;
        open_for_runs(scratch.path()).map_err(SandboxError::Start)?;
        hand_over(&dir).map_err(SandboxError::Start)?;
        let job = Job {
            argv: vec!["true".to_owned()],
            dir,
            stdin: None,
            stdout: scratch.path().join("stdout"),
            stderr: scratch.path().join("stderr"),
            limits,
            env: Vec::new(),
        };
        let (outcome, gaps) = self.run(&job)?;
        if outcome.ending != Ending::Exited(0) {
            return Err(SandboxError::Guard(format!(
                "a trial run of `true` in the sandbox ended with {:?}: {}",
                outcome.ending,
                fs::read_to_string(&job.stderr).unwrap_or_default().trim()
            )));
        }
        let list = vec![
            Protection {
                name: "limits on time, CPU, memory, output, processes; no core files",
                missing: None,
            },
            Protection { name: "a cleared environment (PATH and HOME only)", missing: None },
            Protection { name: "a process group of its own, killed when the run ends", missing: None },
            Protection {
                name: "a PID namespace: every process the program starts ends with its run",
                missing: gaps.namespaces.clone(),
            },
            Protection { name: "a network namespace: no network", missing: gaps.namespaces },
            Protection {
                name: "Landlock: writes only in its run directory, reads only system directories",
                missing: gaps.landlock,
            },
            Protection {
                name: if drops_root() {
                    "not root: runs as nobody (65534)"
                } else {
                    "not root: runs as the grader's own user"
                },
                missing: None,
            },
        ];
        Ok(Protections { list })
    }
}

fn pid(child: &Child) -> nix::unistd::Pid {
    #[allow(clippy::cast_possible_wrap, reason = "process ids fit in an i32")]
    nix::unistd::Pid::from_raw(child.id() as i32)
}

/// Waits for the guard to exit; `Some` when the run had to be killed.
fn wait(child: &mut Child, job: &Job, start: Instant, before: u64) -> Option<Ending> {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    let pidfd = rustix::process::Pid::from_raw(pid(child).as_raw())
        .and_then(|p| rustix::process::pidfd_open(p, rustix::process::PidfdFlags::empty()).ok());
    // The files are measured every tenth of a second while the run goes on.
    let slice = Duration::from_millis(100);
    loop {
        let left = job.limits.wall.saturating_sub(start.elapsed());
        if left.is_zero() {
            let _ = nix::sys::signal::killpg(pid(child), nix::sys::signal::Signal::SIGKILL);
            return Some(Ending::TimedOut);
        }
        let step = left.min(slice);
        if let Some(fd) = &pidfd {
            let timeout = Timespec::try_from(step).unwrap_or(Timespec { tv_sec: 0, tv_nsec: 100_000_000 });
            let mut fds = [PollFd::new(fd, PollFlags::IN)];
            if poll(&mut fds, Some(&timeout)).is_ok_and(|n| n > 0) {
                return None;
            }
        } else {
            // No pidfd (an old kernel): look every millisecond.
            let until = Instant::now() + step;
            while Instant::now() < until {
                if child.try_wait().ok().flatten().is_some() {
                    return None;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
        }
        if child.try_wait().ok().flatten().is_some() {
            return None;
        }
        if written(job, before) > job.limits.output {
            let _ = nix::sys::signal::killpg(pid(child), nix::sys::signal::Signal::SIGKILL);
            return Some(Ending::OutputExceeded);
        }
    }
}

/// Bytes the run wrote: its standard output and error, and what its
/// directory grew by since `before`.
fn written(job: &Job, before: u64) -> u64 {
    let size = |p: &Path| fs::metadata(p).map_or(0, |m| m.len());
    size(&job.stdout) + size(&job.stderr) + tree_size(&job.dir, 0).saturating_sub(before)
}

/// The bytes in the files under `path` (not following links).
fn tree_size(path: &Path, depth: u32) -> u64 {
    let Ok(meta) = fs::symlink_metadata(path) else { return 0 };
    if !meta.is_dir() || depth > 32 {
        return meta.len();
    }
    fs::read_dir(path).map_or(0, |entries| entries.flatten().map(|e| tree_size(&e.path(), depth + 1)).sum())
}

/// The guard's entry point: `args` are the process's arguments after
/// [`GUARD_ARG`] or [`INIT_ARG`]. Never returns.
pub fn guard_main(stage: &str, args: &[OsString]) -> ! {
    let mut out = io::stdout().lock();
    if stage == HOLD_ARG {
        hold(&mut out);
    }
    let config =
        args.first().and_then(|a| a.to_str()).ok_or_else(|| "no job given".to_owned()).and_then(|text| {
            serde_json::from_str::<Config>(text).map_err(|e| format!("a malformed job: {e}"))
        });
    let result = config.and_then(|config| {
        if stage == INIT_ARG { init(&config.job, &mut out) } else { guard(config.join, args, &mut out) }
    });
    match result {
        Ok(()) => std::process::exit(0),
        Err(why) => {
            report(&mut out, &Line::Failed(why));
            std::process::exit(125)
        }
    }
}

/// The namespace holder: makes a user and a network namespace, says so,
/// and keeps them alive until its standard input closes (the grader ended).
fn hold(out: &mut impl Write) -> ! {
    let _ = nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGKILL);
    let made = enter_namespaces(None, false);
    let failed = made.is_err();
    report(out, &Line::Namespaces(made.err()));
    if !failed {
        let _ = io::copy(&mut io::stdin().lock(), &mut io::sink());
    }
    std::process::exit(i32::from(failed))
}

fn report(out: &mut impl Write, line: &Line) {
    // The grader reads these after the run; a failed write shows there as a
    // missing report.
    let _ = serde_json::to_writer(&mut *out, line);
    let _ = out.write_all(b"\n");
    let _ = out.flush();
}

/// Stage 1: new namespaces, then stage 2 as their process 1.
fn guard(join: Option<u32>, args: &[OsString], out: &mut impl Write) -> Result<(), String> {
    // A grader killed mid-run takes its runs with it.
    nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGKILL)
        .map_err(|e| format!("pdeathsig: {e}"))?;
    report(out, &Line::Namespaces(enter_namespaces(join, true).err()));
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let status = Command::new(exe)
        .arg(INIT_ARG)
        .args(args)
        .stdin(Stdio::null())
        .status()
        .map_err(|e| format!("cannot start the second stage: {e}"))?;
    if status.success() { Ok(()) } else { Err(format!("the second stage ended with {status}")) }
}

/// Moves into user and network namespaces — those of the holder process
/// `join`, or new ones keeping our own user and group ids — and, with
/// `pid`, into a new PID namespace for the children to come.
fn enter_namespaces(join: Option<u32>, pid: bool) -> Result<(), String> {
    use nix::sched::{CloneFlags, setns, unshare};
    let pid_flag = if pid { CloneFlags::CLONE_NEWPID } else { CloneFlags::empty() };
    if let Some(holder) = join {
        for (kind, flag) in [("user", CloneFlags::CLONE_NEWUSER), ("net", CloneFlags::CLONE_NEWNET)] {
            let path = format!("/proc/{holder}/ns/{kind}");
            let file = File::open(&path).map_err(|e| format!("{path}: {e}"))?;
            setns(&file, flag).map_err(|e| format!("setns {kind}: {}", e.desc()))?;
        }
        return unshare(pid_flag).map_err(|e| format!("unshare: {}", e.desc()));
    }
    let (uid, gid) = (nix::unistd::getuid(), nix::unistd::getgid());
    unshare(CloneFlags::CLONE_NEWUSER | CloneFlags::CLONE_NEWNET | pid_flag)
        .map_err(|e| format!("unshare: {}", e.desc()))?;
    let write = |file: &str, text: String| {
        fs::write(format!("/proc/self/{file}"), text).map_err(|e| format!("/proc/self/{file}: {e}"))
    };
    write("setgroups", "deny".to_owned())?;
    write("uid_map", format!("{uid} {uid} 1\n"))?;
    write("gid_map", format!("{gid} {gid} 1\n"))
}

/// Stage 2: limits, streams, Landlock, then the program; reports its end.
fn init(job: &Job, out: &mut impl Write) -> Result<(), String> {
    use nix::sys::resource::{Resource, UsageWho, getrusage, setrlimit};
    nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGKILL)
        .map_err(|e| format!("pdeathsig: {e}"))?;
    let open = |path: &Path, write: bool| {
        OpenOptions::new()
            .read(!write)
            .write(write)
            .custom_flags(nix::libc::O_NOFOLLOW)
            .open(path)
            .map_err(|e| format!("{}: {e}", path.display()))
    };
    let stdin = match &job.stdin {
        Some(path) => Stdio::from(open(path, false)?),
        None => Stdio::null(),
    };
    let stdout = open(&job.stdout, true)?;
    let stderr = open(&job.stderr, true)?;
    let mut complaints = stderr.try_clone().map_err(|e| format!("{}: {e}", job.stderr.display()))?;

    let limits = &job.limits;
    let cpu = limits.cpu.as_secs() + u64::from(limits.cpu.subsec_nanos() > 0);
    let set = |resource, value: u64, hard: u64| {
        setrlimit(resource, value, hard).map_err(|e| format!("setrlimit {resource:?}: {}", e.desc()))
    };
    set(Resource::RLIMIT_CPU, cpu.max(1), cpu.max(1) + 1)?;
    set(Resource::RLIMIT_AS, limits.memory, limits.memory)?;
    set(Resource::RLIMIT_FSIZE, limits.output, limits.output)?;
    set(Resource::RLIMIT_CORE, 0, 0)?;
    // One more for this stage itself.
    set(Resource::RLIMIT_NPROC, limits.processes + 1, limits.processes + 1)?;

    report(out, &Line::Landlock(landlock(&job.dir).err()));

    let Some((program, rest)) = job.argv.split_first() else { return Err("no program to run".to_owned()) };
    let mut child = Command::new(program)
        .args(rest)
        .env_clear()
        .env("PATH", PATH)
        .env("HOME", &job.dir)
        .envs(job.env.iter().map(|(k, v)| (k, v)))
        .current_dir(&job.dir)
        .stdin(stdin)
        .stdout(stdout)
        .stderr(stderr)
        .spawn();
    // A program that cannot be started counts as one that exited with 127,
    // as a shell says; its stderr says why.
    let status = match &mut child {
        Ok(child) => child.wait().map_err(|e| format!("wait: {e}"))?,
        Err(e) => {
            let _ = writeln!(complaints, "cannot run `{program}`: {e}");
            ExitStatus::from_raw(127 << 8)
        }
    };
    let usage = getrusage(UsageWho::RUSAGE_CHILDREN).map_err(|e| format!("getrusage: {e}"))?;
    let micros = |t: nix::sys::time::TimeVal| {
        u64::try_from(t.tv_sec()).unwrap_or(0) * 1_000_000 + u64::try_from(t.tv_usec()).unwrap_or(0)
    };
    report(
        out,
        &Line::Ended {
            code: status.code(),
            signal: status.signal(),
            cpu_us: micros(usage.user_time()) + micros(usage.system_time()),
            max_rss_kb: u64::try_from(usage.max_rss()).unwrap_or(0),
        },
    );
    Ok(())
}

/// Restricts this process and its future children: read and run in the
/// system directories, everything in `dir`, nothing else; no TCP; no
/// signals or abstract sockets beyond the sandbox.
fn landlock(dir: &Path) -> Result<(), String> {
    use landlock::{
        ABI, Access, AccessFs, AccessNet, RestrictionStatus, Ruleset, RulesetAttr, RulesetCreatedAttr,
        RulesetStatus, Scope, path_beneath_rules,
    };
    let abi = ABI::V6;
    let status: Result<RestrictionStatus, landlock::RulesetError> = (|| {
        Ruleset::default()
            .handle_access(AccessFs::from_all(abi))?
            .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)?
            .scope(Scope::AbstractUnixSocket | Scope::Signal)?
            .create()?
            .add_rules(path_beneath_rules(READABLE, AccessFs::from_read(abi)))?
            .add_rules(path_beneath_rules(["/dev/null", "/dev/zero", "/dev/tty"], AccessFs::from_all(abi)))?
            .add_rules(path_beneath_rules([dir], AccessFs::from_all(abi)))?
            .restrict_self()
    })();
    match status {
        Ok(status) if status.ruleset == RulesetStatus::NotEnforced => {
            Err("the kernel does not enforce Landlock (not built in or not enabled)".to_owned())
        }
        Ok(_) => Ok(()),
        Err(e) => Err(e.to_string()),
    }
}

/// Reads at most `limit` bytes of `path`; `None` if it is missing.
#[must_use]
pub fn read_capped(path: &Path, limit: u64) -> Option<Vec<u8>> {
    let file = OpenOptions::new().read(true).custom_flags(nix::libc::O_NOFOLLOW).open(path).ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut bytes = Vec::new();
    file.take(limit).read_to_end(&mut bytes).ok()?;
    Some(bytes)
}
