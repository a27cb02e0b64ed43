//! Running a stranger's program: containment, limits, and what became of it.
//!
//! Two sides, as `DOMjudge`'s runguard and isolate are separate programs:
//!
//! - **the grader's side** (this file, with [`launcher`]): a [`Sandbox`]
//!   owns a private scratch directory (mode 0700), the run user, the
//!   control groups and the guard binary; [`Sandbox::run`] lays out one
//!   run's files, hands the job to a launcher (the guard's first stage,
//!   kept for run after run and sitting in the run's cgroup), or where
//!   containers cannot be made starts a guard for the run, kills the run
//!   at its wall-clock limit, and reads what came back.
//! - **the guard's side** ([`guard`], with [`seccomp`] and [`copy`]): the
//!   launcher or a run's own guard, the container (`hakoniwa`), process 1
//!   inside it, and the program.
//!
//! The crate forbids `unsafe`, so nothing here forks by hand: `hakoniwa`
//! does the namespaces, mounts and `pivot_root`; `seccompiler` the filter;
//! `landlock` the second wall; this module the cgroup files ([`cgroup`]).

pub mod cgroup;
pub mod copy;
mod guard;
mod launcher;
mod seccomp;

pub use guard::guard_main;

use std::fs::{self, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// The first argument that starts this binary as the guard rather than as
/// the command line (never shown in `--help`).
pub const GUARD_ARG: &str = "__sandbox-guard";
/// The first argument of the guard's second stage, process 1 of a run.
pub const INIT_ARG: &str = "__sandbox-init";
/// The first argument of a launcher: the guard's first stage kept for run
/// after run.
pub const LAUNCH_ARG: &str = "__sandbox-launcher";
/// The environment's search path: the only variable kept besides `HOME`
/// and `TMPDIR`.
pub const PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// Where a run's input files wait for init, in its area.
const FILES: &str = "files";
/// The run's standard input, in its area's input directory.
const STDIN: &str = "stdin";
/// What process 1 of a launcher's run wrote on standard error, in its area.
const GUARD_ERRORS: &str = "guard.err";

/// What a run may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Wall-clock time; the run is killed when it is up.
    pub wall: Duration,
    /// CPU time of each process (the kernel sends `SIGXCPU`).
    pub cpu: Duration,
    /// Memory of the whole run (its cgroup), or of each process's address
    /// space where no cgroup can be had; in bytes.
    pub memory: u64,
    /// The most the run may write, in bytes: every file at any depth, its
    /// standard output and error, `/tmp` and `/dev/shm` together.
    pub output: u64,
    /// How many processes the run may have at once.
    pub processes: u64,
    /// The most file descriptors each process of the run may hold
    /// (`RLIMIT_NOFILE`, soft and hard alike). Open files come out of a
    /// table the whole machine shares: a run holding hundreds of thousands
    /// would leave no unprivileged process on the machine able to open a
    /// file. The limit is per process, so a run holds at most about
    /// `processes` times this many (64 processes of 256: some 16,000).
    pub open_files: u64,
}

/// What to bring back from a run besides its standard output and error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Collect {
    /// The file of this name in the run directory (the program's answer).
    File(String),
    /// The whole run directory (a build), moved to this path, which must
    /// not exist and must be in the sandbox's [`Sandbox::scratch`].
    Tree(PathBuf),
    /// Nothing more.
    Nothing,
}

/// One run: the program, what its directory starts with, and what it gives
/// back.
#[derive(Clone, Debug)]
pub struct Job {
    /// The program and its arguments; a program without `/` is looked up in
    /// [`PATH`].
    pub argv: Vec<String>,
    /// A directory whose contents the run directory starts as (copied, so
    /// the run cannot change it).
    pub start: Option<PathBuf>,
    /// Files placed in the run directory: name and contents.
    pub files: Vec<(String, Vec<u8>)>,
    /// The program's standard input (`/dev/null` if `None`).
    pub stdin: Option<Vec<u8>>,
    /// What to bring back.
    pub collect: Collect,
    /// The limits.
    pub limits: Limits,
    /// Variables set besides `PATH`, `HOME` and `TMPDIR`.
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
}

/// What became of a run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Outcome {
    /// How it ended.
    pub ending: Ending,
    /// Wall-clock time from start to end.
    pub wall: Duration,
    /// CPU time its processes used (user and system), when it ended by
    /// itself.
    pub cpu: Duration,
    /// The most memory it held: the whole run's peak from its cgroup, or
    /// else the largest resident size of any one process; in bytes.
    pub max_rss: u64,
    /// How many bytes it wrote (its box's growth).
    pub written: u64,
    /// Whether its box filled up: it tried to write more than the limit.
    pub disk_full: bool,
    /// Whether the kernel stopped it at the memory limit (from its cgroup).
    pub out_of_memory: bool,
}

/// A finished run: how it went and what it gave back.
#[derive(Clone, Debug)]
pub struct Run {
    /// How it ended.
    pub outcome: Outcome,
    /// Its standard output, up to the output limit.
    pub stdout: Vec<u8>,
    /// Its standard error, up to the output limit.
    pub stderr: Vec<u8>,
    /// With [`Collect::File`], the file's contents up to the output limit,
    /// or why there is none (missing, a FIFO, a link…).
    pub answer: Result<Vec<u8>, String>,
    /// The protections this run asked for and did not get.
    pub gaps: Gaps,
}

/// The protections a run asked for and did not get, each with why
/// (`None`: in force).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Gaps {
    /// The container: user, mount, PID, network, IPC and UTS namespaces,
    /// its own root, the box.
    pub namespaces: Option<String>,
    /// Landlock's file system and network rules.
    pub landlock: Option<String>,
    /// The seccomp filter.
    pub seccomp: Option<String>,
    /// The run's cgroup.
    pub cgroup: Option<String>,
    /// The `cpu` controller on the run's cgroup: a share of the CPU equal
    /// to every other run's, however many processes it has.
    pub cpu: Option<String>,
}

/// One protection and whether it is in force.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Protection {
    /// What it guards against, in a few words.
    pub name: String,
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
    /// The guard started but could not set the run up, or said something
    /// that is not a report.
    #[error("the guard failed: {0}")]
    Guard(String),
    /// The grading was interrupted ([`Sandbox::stopper`]); the run, if it
    /// had begun, was killed.
    #[error("interrupted")]
    Interrupted,
}

/// What the grader tells the guard (as JSON on its standard input).
#[derive(Debug, Serialize, Deserialize)]
struct Config {
    job: Plan,
    /// The parts of the container's root every run shares.
    skeleton: PathBuf,
    /// The directory the container's root is made on, this run's alone.
    root: PathBuf,
    /// Copies of the referee under the system directories, masked in the
    /// container.
    hide: Vec<PathBuf>,
    /// Whether the run is in a memory cgroup (so the address space need
    /// not be limited).
    memory_cgroup: bool,
    /// The box's size and its number of files.
    box_bytes: u64,
    box_inodes: u64,
}

/// A [`Job`] as the guard sees it: its files already in the run's area.
#[derive(Debug, Serialize, Deserialize)]
struct Plan {
    argv: Vec<String>,
    area: PathBuf,
    start: Option<PathBuf>,
    files: Vec<String>,
    stdin: bool,
    collect: Bring,
    limits: Limits,
    env: Vec<(String, String)>,
}

/// [`Collect`] without the grader's paths.
#[derive(Debug, Serialize, Deserialize)]
enum Bring {
    File(String),
    Tree,
    Nothing,
}

/// A line a guard stage reports to the grader.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum Line {
    /// Whether the container was made, and if not why.
    Namespaces(Option<String>),
    /// Just before the program starts: whether Landlock and the seccomp
    /// filter are in force, and if not why.
    Confined { landlock: Option<String>, seccomp: Option<String> },
    /// How the program ended.
    Ended {
        code: Option<i32>,
        signal: Option<i32>,
        cpu_us: u64,
        max_rss_kb: u64,
        written: u64,
        full: bool,
        /// Why there is no answer, when one was asked for.
        answer: Option<String>,
    },
    /// It could not go on.
    Failed(String),
    /// A launcher is done with a job: its container is gone.
    Closed(Closed),
}

/// How a launcher closed a job.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum Closed {
    /// The run's container ran and is gone.
    Done,
    /// The container or its process 1 failed, and why.
    Failed(String),
    /// No container could be made here, and why: nothing ran.
    NoContainer(String),
}

/// The guard and everything runs share: scratch, run user, cgroups.
#[derive(Debug)]
pub struct Sandbox {
    guard: PathBuf,
    scratch: tempfile::TempDir,
    /// The unused user and group id runs get when the grader is root.
    run_as: Option<u32>,
    cgroups: Arc<Result<cgroup::Cgroups, String>>,
    /// Stage 1 of the guard, kept for run after run.
    launchers: launcher::Launchers,
    hide: Vec<PathBuf>,
    next: AtomicU64,
    stop: Arc<AtomicBool>,
    /// Container roots no run is using: each is only mount points, so a
    /// root is made once per run at once rather than once per run.
    roots: Mutex<Vec<PathBuf>>,
    /// [`Sandbox::start_size`]'s measurements, by tree.
    sizes: Mutex<std::collections::HashMap<PathBuf, (u64, u64)>>,
}

/// What a run's cgroup says of its memory, and why there is none; with
/// what its guard wrote on standard error.
fn settled(group: &Result<cgroup::RunGroup, String>, failure: String) -> Settled {
    let (out_of_memory, peak) = group.as_ref().map_or((false, None), |g| (g.out_of_memory(), g.peak()));
    let no_cpu = group.as_ref().map_or_else(|why| Some(why.clone()), cgroup::RunGroup::no_cpu);
    Settled { out_of_memory, peak, no_cgroup: group.as_ref().err().cloned(), no_cpu, failure }
}

/// A run whose wait is over: how, its report, its wall-clock time, and
/// what its cgroup and guard said.
struct Over {
    waited: Waited,
    report: Vec<u8>,
    wall: Duration,
    settled: Settled,
}

/// What a run's guard found once the run was over.
struct Settled {
    /// Whether the kernel killed a process of the run for want of memory.
    out_of_memory: bool,
    /// The run's peak memory, from its cgroup.
    peak: Option<u64>,
    /// Why the run had no cgroup.
    no_cgroup: Option<String>,
    /// Why the run's cgroup had no `cpu` controller (or there was no cgroup).
    no_cpu: Option<String>,
    /// What the guard wrote on standard error (read only when the run
    /// did not report its end from a container).
    failure: String,
}

/// The most a guard may report for one run, in bytes.
const REPORT_CAP: usize = 1 << 16;

/// The first of the user ids a root grader picks from for its runs: far
/// above any account or subordinate range a system hands out.
const RUN_UIDS: u32 = 1_900_000_000;

impl Sandbox {
    /// A sandbox whose guard is `ttt-guard` beside this program if it is
    /// there (it starts faster), else this very program in its hidden mode.
    pub fn new() -> io::Result<Sandbox> {
        let exe = std::env::current_exe()?;
        let small = exe.with_file_name("ttt-guard");
        Sandbox::with_guard(if small.is_file() { small } else { exe })
    }

    /// A sandbox whose guard is `guard`, a ttt-referee or ttt-guard binary
    /// (for callers that are neither, such as tests of the library).
    pub fn with_guard(guard: PathBuf) -> io::Result<Sandbox> {
        let run_as = nix::unistd::geteuid().is_root().then(unused_uid);
        let scratch =
            tempfile::Builder::new().prefix("ttt-grade-").tempdir_in(scratch_base(run_as.is_some()))?;
        fs::set_permissions(scratch.path(), fs::Permissions::from_mode(0o700))?;
        let mut hide = Vec::new();
        for path in [&guard].into_iter().cloned().chain(std::env::current_exe().ok()).chain(installed()) {
            if let Ok(real) = fs::canonicalize(&path)
                && in_system_dirs(&real)
                && !hide.contains(&real)
            {
                hide.push(real);
            }
        }
        let guard = match run_as {
            // Wherever the binary is installed (a 0700 home, say), the run
            // user can start this copy of it.
            Some(uid) => {
                let copy = scratch.path().join("guard");
                fs::copy(&guard, &copy)?;
                fs::set_permissions(&copy, fs::Permissions::from_mode(0o500))?;
                std::os::unix::fs::lchown(&copy, Some(uid), Some(uid))?;
                copy
            }
            None => guard,
        };
        let skeleton = scratch.path().join("skeleton");
        guard::make_skeleton(&skeleton)?;
        let cgroups = Arc::new(cgroup::Cgroups::open());
        let stop = Arc::new(AtomicBool::new(false));
        let launchers =
            launcher::Launchers::new(guard.clone(), run_as, Arc::clone(&cgroups), Arc::clone(&stop));
        let sandbox = Sandbox {
            guard,
            scratch,
            run_as,
            cgroups,
            launchers,
            hide,
            next: AtomicU64::new(0),
            stop,
            roots: Mutex::new(Vec::new()),
            sizes: Mutex::new(std::collections::HashMap::new()),
        };
        sandbox.hand_over(&skeleton)?;
        if let Some(uid) = run_as {
            std::os::unix::fs::lchown(sandbox.scratch.path(), Some(uid), Some(uid))?;
        }
        Ok(sandbox)
    }

    /// The private directory (mode 0700) the sandbox works in: callers put
    /// their own copies here. Removed when the sandbox is dropped.
    #[must_use]
    pub fn scratch(&self) -> &Path {
        self.scratch.path()
    }

    /// A flag that, once set (by a signal handler, say), kills the runs
    /// under way and refuses new ones with [`SandboxError::Interrupted`].
    #[must_use]
    pub fn stopper(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.stop)
    }

    /// The user id runs get, when the grader is root.
    #[must_use]
    pub fn run_user(&self) -> Option<u32> {
        self.run_as
    }

    /// The process ids of the launchers ready for a run: stage 1 of the
    /// guard, kept for run after run (for tests and diagnostics).
    #[must_use]
    pub fn launcher_ids(&self) -> Vec<u32> {
        self.launchers.ready_ids()
    }

    /// Gives `path` (and everything in it) to the run user, so that the
    /// guard may read and write it; a no-op unless the grader is root. The
    /// walk goes through directory handles ([`copy::give_tree`]), so a tree
    /// whose paths are longer than the system's limit is handed over too.
    pub fn hand_over(&self, path: &Path) -> io::Result<()> {
        let Some(uid) = self.run_as else { return Ok(()) };
        copy::give_tree(path, uid, copy::RUN_TREE_DEPTH)
    }

    /// Runs `job` and waits for it, killing the run at its wall-clock
    /// limit. Everything the program started is gone when this returns.
    pub fn run(&self, job: &Job) -> Result<Run, SandboxError> {
        if self.stop.load(Ordering::SeqCst) {
            return Err(SandboxError::Interrupted);
        }
        let number = self.next.fetch_add(1, Ordering::Relaxed);
        let area = self.scratch().join(format!("run-{number}"));
        let root = self.roots.lock().unwrap_or_else(PoisonError::into_inner).pop();
        let root = if let Some(root) = root {
            root
        } else {
            let root = self.scratch().join(format!("root-{number}"));
            fs::create_dir(&root).map_err(SandboxError::Start)?;
            self.hand_over(&root).map_err(SandboxError::Start)?;
            root
        };
        let result = self.run_in(job, &area, &root);
        collect_in_flight();
        remove_all(&area);
        self.roots.lock().unwrap_or_else(PoisonError::into_inner).push(root);
        result
    }

    fn run_in(&self, job: &Job, area: &Path, root: &Path) -> Result<Run, SandboxError> {
        let config = self.prepare(job, area, root)?;
        let began = Instant::now();
        let over = match self.launchers.take(&job.limits) {
            Some(launcher) => match self.by_launcher(launcher, job, &config, area, began) {
                Some(over) => over,
                None => self.by_guard(job, &config, began)?,
            },
            None => self.by_guard(job, &config, began)?,
        };
        Sandbox::finish(job, area, over)
    }

    /// Lays out a run's area (its input files, the output directory) and
    /// makes the guard's job.
    fn prepare(&self, job: &Job, area: &Path, root: &Path) -> Result<Vec<u8>, SandboxError> {
        let start = SandboxError::Start;
        for dir in ["in/files", "out"] {
            fs::create_dir_all(area.join(dir)).map_err(start)?;
        }
        let mut input_bytes = 0;
        for (name, bytes) in &job.files {
            fs::write(area.join("in").join(FILES).join(name), bytes).map_err(start)?;
            input_bytes += bytes.len() as u64;
        }
        if let Some(bytes) = &job.stdin {
            fs::write(area.join("in").join(STDIN), bytes).map_err(start)?;
        }
        self.hand_over(area).map_err(start)?;
        let (start_bytes, start_files) = job.start.as_deref().map_or((0, 0), |p| self.start_size(p));
        let memory_cgroup = self.cgroups.is_ok();
        let config = Config {
            job: Plan {
                argv: job.argv.clone(),
                area: area.to_path_buf(),
                start: job.start.clone(),
                files: job.files.iter().map(|(name, _)| name.clone()).collect(),
                stdin: job.stdin.is_some(),
                collect: match &job.collect {
                    Collect::File(name) => Bring::File(name.clone()),
                    Collect::Tree(_) => Bring::Tree,
                    Collect::Nothing => Bring::Nothing,
                },
                limits: job.limits,
                env: job.env.clone(),
            },
            skeleton: self.scratch().join("skeleton"),
            root: root.to_path_buf(),
            hide: self.hide.clone(),
            memory_cgroup,
            // Room for what the run starts with, what it may write, and
            // the file system's own bookkeeping.
            box_bytes: start_bytes + input_bytes + job.limits.output + (1 << 20) + 4096 * start_files,
            box_inodes: start_files + job.files.len() as u64 + 10_000,
        };
        serde_json::to_vec(&config).map_err(|e| start(io::Error::other(e)))
    }

    /// Runs a job with a guard of its own, started for it (where launchers
    /// cannot be had), and waits for the guard to exit.
    fn by_guard(&self, job: &Job, config: &[u8], began: Instant) -> Result<Over, SandboxError> {
        let (mut child, group) = self.start_guard(job, config)?;
        let mut stdout = child.stdout.take();
        let mut report = Vec::new();
        let deadline = began + job.limits.wall;
        let waited = wait(&mut child, &mut stdout, &mut report, deadline, &self.stop, |_| None);
        let wall = began.elapsed();
        // Killed with all that is left in its process group and cgroup,
        // and reaped first: a zombie still counts as a member of its group.
        kill_group(&child);
        let _ = child.wait();
        if let Ok(group) = &group {
            group.kill_all();
        }
        if let Some(out) = stdout {
            let left = REPORT_CAP.saturating_sub(report.len()) as u64;
            let _ = out.take(left).read_to_end(&mut report);
        }
        let mut failure = String::new();
        if let Some(err) = child.stderr.take() {
            let _ = err.take(REPORT_CAP as u64).read_to_string(&mut failure);
        }
        Ok(Over { waited, report, wall, settled: settled(&group, failure) })
    }

    /// Runs a job through a ready launcher; `None` when it could not (no
    /// container can be made here, and launchers are given up; or it
    /// could not be handed the job), and the caller starts a guard.
    fn by_launcher(
        &self,
        mut launcher: launcher::Launcher,
        job: &Job,
        config: &[u8],
        area: &Path,
        began: Instant,
    ) -> Option<Over> {
        if launcher.send(config).is_err() {
            launcher.discard();
            return None;
        }
        let mut report = Vec::new();
        let until = |report: &[u8]| match said(report) {
            Said::Nothing => None,
            Said::Reported => Some(Waited::Reported),
            Said::Closed => Some(Waited::Closed),
        };
        let deadline = began + job.limits.wall;
        let waited =
            wait(&mut launcher.process, &mut launcher.output, &mut report, deadline, &self.stop, until);
        let wall = began.elapsed();
        if waited == Waited::Closed && matches!(closing(&report), Some(Closed::NoContainer(_))) {
            launcher.discard();
            self.launchers.give_up();
            return None;
        }
        // Timed out, interrupted or dead: its process group was killed (by
        // `wait`); the rest of its cgroup goes too, and so does it.
        let usable = matches!(waited, Waited::Reported | Waited::Closed);
        if !usable {
            launcher.end();
        }
        let failure = if waited == Waited::Reported {
            String::new()
        } else {
            let text = read_capped(&area.join(GUARD_ERRORS), REPORT_CAP as u64).unwrap_or_default();
            String::from_utf8_lossy(&text).into_owned()
        };
        let settled = settled(&launcher.group, failure);
        if usable {
            self.launchers.give_back(launcher, report.clone());
        }
        Some(Over { waited, report, wall, settled })
    }

    /// Reads a run's report, answer and output once its guard is done with it.
    fn finish(job: &Job, area: &Path, over: Over) -> Result<Run, SandboxError> {
        let start = SandboxError::Start;
        let Over { waited, report, wall, settled } = over;
        if waited == Waited::Stopped {
            return Err(SandboxError::Interrupted);
        }
        let timed_out = waited == Waited::TimedOut;

        let mut gaps = Gaps { cgroup: settled.no_cgroup, cpu: settled.no_cpu, ..Gaps::default() };
        // Process 1 or the launcher, in the run's cgroup, may be the
        // process the kernel kills when the run is out of memory: the run
        // then ended at its memory limit, not for a fault of the guard.
        let killed = settled.out_of_memory && !timed_out;
        let (mut outcome, answer, ended) =
            match read_report(&String::from_utf8_lossy(&report), wall, &mut gaps) {
                Err(SandboxError::Guard(_)) if killed => (unreported(wall), Err(String::new()), false),
                read => read?,
            };
        outcome.out_of_memory = settled.out_of_memory;
        if let Some(peak) = settled.peak {
            outcome.max_rss = peak;
        }
        if timed_out {
            outcome.ending = Ending::TimedOut;
        } else if !ended && killed {
            outcome.ending = Ending::Signalled(nix::libc::SIGKILL);
        } else if !ended {
            let failure = settled.failure;
            let why =
                if failure.trim().is_empty() { "it ended without a report".to_owned() } else { failure };
            return Err(SandboxError::Guard(why.trim().to_owned()));
        }
        let out = area.join("out");
        let limit = job.limits.output;
        let answer = match (&job.collect, answer) {
            (Collect::File(_), Ok(())) => {
                read_capped(&out.join("answer"), limit).ok_or_else(|| "no answer".to_owned())
            }
            (Collect::File(_), Err(why)) if !why.is_empty() => Err(why),
            (Collect::File(name), Err(_)) => Err(format!("it wrote no {name}")),
            // A tree that could not be copied out whole (too deep, too
            // many files) is no build: what was copied is left behind.
            (Collect::Tree(_), Err(why)) if !why.is_empty() => {
                Err(format!("its files could not be kept: {why}"))
            }
            (Collect::Tree(to), _) => {
                if ended {
                    fs::rename(out.join("tree"), to).map_err(start)?;
                }
                Ok(Vec::new())
            }
            (Collect::Nothing, _) => Ok(Vec::new()),
        };
        Ok(Run {
            outcome,
            stdout: read_capped(&out.join("stdout"), limit).unwrap_or_default(),
            stderr: read_capped(&out.join("stderr"), limit).unwrap_or_default(),
            answer,
            gaps,
        })
    }

    /// The bytes and files of a run's starting tree, measured once: every
    /// test of a submission starts from the same build.
    fn start_size(&self, start: &Path) -> (u64, u64) {
        let mut sizes = self.sizes.lock().unwrap_or_else(PoisonError::into_inner);
        *sizes.entry(start.to_path_buf()).or_insert_with(|| tree_size(start, 0))
    }

    /// Starts the guard in the run's cgroup (when there is one) and hands it
    /// the job.
    fn start_guard(
        &self,
        job: &Job,
        config: &[u8],
    ) -> Result<(Child, Result<cgroup::RunGroup, String>), SandboxError> {
        let mut command = Command::new(&self.guard);
        command
            .arg(GUARD_ARG)
            .env_clear()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(uid) = self.run_as {
            command.uid(uid).gid(uid);
        }
        let mut child = command.spawn().map_err(SandboxError::Start)?;
        let group = match self.cgroups.as_ref() {
            Ok(cgroups) => match cgroups
                .create(job.limits.memory, job.limits.processes)
                .and_then(|group| group.add(child.id()).map(|()| group))
            {
                Ok(group) => Ok(group),
                Err(e) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(SandboxError::Start(e));
                }
            },
            Err(why) => Err(why.clone()),
        };
        // The job goes in only once the guard is in its group, so that
        // everything it starts is counted.
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(config);
        }
        Ok((child, group))
    }

    /// Finds what the sandbox enforces here by running `true` through it.
    pub fn probe(&self, limits: Limits) -> Result<Protections, SandboxError> {
        let job = Job {
            argv: vec!["true".to_owned()],
            start: None,
            files: Vec::new(),
            stdin: None,
            collect: Collect::Nothing,
            limits,
            env: Vec::new(),
        };
        let run = self.run(&job)?;
        if run.outcome.ending != Ending::Exited(0) {
            return Err(SandboxError::Guard(format!(
                "a trial run of `true` in the sandbox ended with {:?}: {}",
                run.outcome.ending,
                String::from_utf8_lossy(&run.stderr).trim()
            )));
        }
        let gaps = run.gaps;
        let contained = |name: &str| Protection { name: name.to_owned(), missing: gaps.namespaces.clone() };
        // Without the container, the referee's copies are out of reach
        // only where Landlock leaves them out of its rules.
        let referee_missing = gaps.namespaces.as_ref().and_then(|no_container| {
            gaps.landlock.as_ref().map(|no_landlock| format!("{no_container}; Landlock: {no_landlock}"))
        });
        let list = vec![
            Protection {
                name: "its own session, no terminal; TIOCSTI, ptrace, keyrings and new namespaces refused (seccomp)"
                    .to_owned(),
                missing: gaps.seccomp.clone(),
            },
            contained(
                "its own root: /usr, /bin, /lib* read-only, a minimal /etc and /dev, a fresh /proc; \
                 nothing of the grader's, the tests', other submissions' or the host's",
            ),
            contained("its own PID, network, IPC and UTS namespaces: every process ends with its run, no network"),
            Protection {
                name: "no copy of the referee to run, by PATH, /proc or its install path".to_owned(),
                missing: referee_missing,
            },
            contained("a size-capped tmpfs for all it writes (any depth, unlinked, preallocated, /tmp, /dev/shm)"),
            Protection {
                name: "a cgroup: memory of all its processes together, and their number".to_owned(),
                missing: gaps.cgroup,
            },
            Protection {
                name: "a fair share of the CPU: the same cgroup weight as every other run, whatever its processes"
                    .to_owned(),
                missing: gaps.cpu,
            },
            Protection {
                name: "Landlock: writes only in its box, reads only system directories; no TCP".to_owned(),
                missing: gaps.landlock,
            },
            Protection {
                name: "limits on time, CPU, file size and processes; no core files; only fds 0, 1, 2".to_owned(),
                missing: None,
            },
            Protection {
                name: format!(
                    "small limits on what the machine shares: {} open files a process, {} KiB locked, \
                     {} KiB of message queues, {} signals queued; umask {:03o}",
                    limits.open_files,
                    guard::MEMLOCK >> 10,
                    guard::MSGQUEUE >> 10,
                    guard::SIGPENDING,
                    guard::UMASK
                ),
                missing: None,
            },
            // In the container, an empty bounding set and "no root" locked;
            // without one, the run is not root (a root grader's runs are the
            // unused user), and the guard clears the ambient set and sets
            // no_new_privs or fails the run.
            Protection {
                name: match self.run_as {
                    Some(uid) => format!("no capabilities, as an unused user ({uid}) outside"),
                    None => "no capabilities, as the grader's own user outside".to_owned(),
                },
                missing: None,
            },
        ];
        Ok(Protections { list })
    }
}

impl Drop for Sandbox {
    /// Waits for the launchers being readied and kills every launcher,
    /// before the scratch directory goes.
    fn drop(&mut self) {
        self.launchers.shut();
    }
}

/// How waiting for a guard ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Waited {
    Exited,
    /// Process 1 of its container reported the program's end: everything
    /// the program started is gone, and only the container is left to go.
    Reported,
    /// A launcher closed the job (its container is gone) without that
    /// report: the run failed, or no container could be made.
    Closed,
    TimedOut,
    Stopped,
}

/// The outcome of a run whose end no guard reported: timed out, with
/// nothing measured but its wall-clock time.
fn unreported(wall: Duration) -> Outcome {
    Outcome {
        ending: Ending::TimedOut,
        wall,
        cpu: Duration::ZERO,
        max_rss: 0,
        written: 0,
        disk_full: false,
        out_of_memory: false,
    }
}

/// Reads the guard's report lines: the outcome (timed out unless it
/// ended), why there is no answer (`Err`, empty when it did not say), and
/// whether the program ended. Anything that is not a report fails the run.
fn read_report(
    report: &str,
    wall: Duration,
    gaps: &mut Gaps,
) -> Result<(Outcome, Result<(), String>, bool), SandboxError> {
    let mut outcome = unreported(wall);
    let mut answer = Err(String::new());
    let mut ended = false;
    for line in report.lines() {
        match serde_json::from_str::<Line>(line) {
            Ok(Line::Namespaces(why)) => gaps.namespaces = why,
            Ok(Line::Confined { landlock, seccomp }) => {
                gaps.landlock = landlock;
                gaps.seccomp = seccomp;
            }
            Ok(Line::Ended { code, signal, cpu_us, max_rss_kb, written, full, answer: why }) => {
                ended = true;
                outcome.cpu = Duration::from_micros(cpu_us);
                outcome.max_rss = max_rss_kb * 1024;
                outcome.written = written;
                outcome.disk_full = full;
                outcome.ending = match (signal, code) {
                    (Some(signal), _) => Ending::Signalled(signal),
                    (None, code) => Ending::Exited(code.unwrap_or(-1)),
                };
                answer = why.map_or(Ok(()), Err);
            }
            Ok(Line::Failed(why) | Line::Closed(Closed::Failed(why) | Closed::NoContainer(why))) => {
                return Err(SandboxError::Guard(why));
            }
            Ok(Line::Closed(Closed::Done)) => {}
            Err(_) => {
                return Err(SandboxError::Guard(format!("unreadable report `{}`", line.escape_debug())));
            }
        }
    }
    Ok((outcome, answer, ended))
}

/// Waits for the guard to exit, or for `until` to see in its report (read
/// into `report` as it comes, at most [`REPORT_CAP`] bytes) that the wait
/// is over; kills its process group when the deadline passes or `stop` is
/// set (looked at every tenth of a second).
fn wait(
    child: &mut Child,
    stdout: &mut Option<ChildStdout>,
    report: &mut Vec<u8>,
    deadline: Instant,
    stop: &AtomicBool,
    until: impl Fn(&[u8]) -> Option<Waited>,
) -> Waited {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    let pidfd = rustix::process::Pid::from_raw(pid(child).as_raw())
        .and_then(|p| rustix::process::pidfd_open(p, rustix::process::PidfdFlags::empty()).ok());
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let stopped = stop.load(Ordering::SeqCst);
        if left.is_zero() || stopped {
            kill_group(child);
            return if stopped { Waited::Stopped } else { Waited::TimedOut };
        }
        // Without a pidfd (an old kernel), look every millisecond.
        let slice = left.min(Duration::from_millis(if pidfd.is_some() { 100 } else { 1 }));
        let timeout = Timespec::try_from(slice).unwrap_or(Timespec { tv_sec: 0, tv_nsec: 1_000_000 });
        let reading = stdout.as_ref().filter(|_| report.len() < REPORT_CAP);
        let mut fds = Vec::with_capacity(2);
        if let Some(fd) = &pidfd {
            fds.push(PollFd::new(fd, PollFlags::IN));
        }
        if let Some(out) = reading {
            fds.push(PollFd::new(out, PollFlags::IN));
        }
        let _ = poll(&mut fds, Some(&timeout));
        let exited = match &pidfd {
            Some(_) => !fds[0].revents().is_empty(),
            None => child.try_wait().ok().flatten().is_some(),
        };
        let readable = reading.is_some() && fds.last().is_some_and(|fd| !fd.revents().is_empty());
        drop(fds);
        if readable && let Some(out) = stdout.as_mut() {
            let mut chunk = [0; 4096];
            match out.read(&mut chunk) {
                Ok(0) | Err(_) => *stdout = None,
                Ok(n) => {
                    report.extend_from_slice(&chunk[..n]);
                    if let Some(waited) = until(report) {
                        return waited;
                    }
                }
            }
        }
        if exited {
            return Waited::Exited;
        }
    }
}

/// What the complete lines of a guard's report say so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Said {
    Nothing,
    /// The run was contained and its program ended: process 1 says so
    /// only once it has killed and reaped everything else in its PID
    /// namespace and handed out the answer.
    Reported,
    /// A launcher closed the job first.
    Closed,
}

/// The first of [`Said::Reported`] and [`Said::Closed`] in `report`.
fn said(report: &[u8]) -> Said {
    let mut contained = false;
    for line in lines(report) {
        match serde_json::from_slice::<Line>(line) {
            Ok(Line::Namespaces(None)) => contained = true,
            Ok(Line::Ended { .. }) if contained => return Said::Reported,
            Ok(Line::Closed(_)) => return Said::Closed,
            _ => {}
        }
    }
    Said::Nothing
}

/// How a launcher closed its job, if `report` holds that line.
fn closing(report: &[u8]) -> Option<Closed> {
    lines(report).find_map(|line| match serde_json::from_slice::<Line>(line) {
        Ok(Line::Closed(closed)) => Some(closed),
        _ => None,
    })
}

/// The complete lines of `report`.
fn lines(report: &[u8]) -> impl Iterator<Item = &[u8]> {
    report.split_inclusive(|&b| b == b'\n').filter(|line| line.ends_with(b"\n"))
}

fn pid(child: &Child) -> nix::unistd::Pid {
    #[allow(clippy::cast_possible_wrap, reason = "process ids fit in an i32")]
    nix::unistd::Pid::from_raw(child.id() as i32)
}

/// Kills the guard's process group (it made itself a session and group
/// leader), which holds everything of the run that did not leave it; the
/// PID namespace and the cgroup take the rest.
fn kill_group(child: &Child) {
    let _ = nix::sys::signal::killpg(pid(child), nix::sys::signal::Signal::SIGKILL);
}

/// Sets off the kernel's collector of unix sockets in flight. A socket
/// passed over a unix socket, in a cycle no process holds, outlives every
/// process of its run, with its buffers, the descriptors it carries and
/// what they count against the run user (inotify instances, say), until
/// the collector runs; closing a new cycle at once makes it run. Done after
/// every run (its processes are gone by then), so that nothing a run left
/// in flight adds up over a grading or starves a later run.
pub(crate) fn collect_in_flight() {
    use rustix::net::{
        AddressFamily, SendAncillaryBuffer, SendAncillaryMessage, SendFlags, SocketFlags, SocketType,
        sendmsg, socketpair,
    };
    use std::mem::MaybeUninit;
    use std::os::fd::AsFd;
    let Ok((one, other)) = socketpair(AddressFamily::UNIX, SocketType::STREAM, SocketFlags::CLOEXEC, None)
    else {
        return;
    };
    let carried = [one.as_fd()];
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(1))];
    let mut control = SendAncillaryBuffer::new(&mut space);
    if control.push(SendAncillaryMessage::ScmRights(&carried)) {
        let _ = sendmsg(&other, &[io::IoSlice::new(b"x")], &mut control, SendFlags::empty());
    }
}

/// The least room `/dev/shm` must have for the scratch to go there: a
/// container's is often small (Docker gives 64 MB), too little for the
/// guard's copy, the submissions, their builds and the runs' files.
const SHM_ROOM: u64 = 512 << 20;

/// Where the scratch directory goes: `$TMPDIR` when it is set, else
/// `/dev/shm` (memory: a grading makes and removes many small files, which
/// a disk file system makes slow) when it has [`SHM_ROOM`], else `/tmp`. A
/// root grader's runs are another user, who must be able to pass through
/// every directory above it: a `$TMPDIR` under a private home is passed
/// over. Programs run from the scratch (a root grader's guard, and the
/// runs themselves when no container can be made), so a file system
/// mounted `noexec` (Docker's `/dev/shm`) is passed over too.
fn scratch_base(for_another_user: bool) -> PathBuf {
    let usable = |dir: &Path, room: u64| {
        rustix::fs::access(dir, rustix::fs::Access::WRITE_OK | rustix::fs::Access::EXEC_OK).is_ok()
            && (!for_another_user || passable_by_all(dir))
            && rustix::fs::statvfs(dir).is_ok_and(|s| {
                !s.f_flag.contains(rustix::fs::StatVfsMountFlags::NOEXEC)
                    && s.f_bavail.saturating_mul(s.f_frsize) >= room
            })
    };
    let chosen = std::env::var_os("TMPDIR").map(|dir| (PathBuf::from(dir), 0));
    chosen
        .into_iter()
        .chain([(PathBuf::from("/dev/shm"), SHM_ROOM), (PathBuf::from("/tmp"), 0)])
        .find(|(dir, room)| usable(dir, *room))
        .map_or_else(std::env::temp_dir, |(dir, _)| dir)
}

/// Whether every user may pass through `dir` and each directory above it.
fn passable_by_all(dir: &Path) -> bool {
    fs::canonicalize(dir).is_ok_and(|dir| {
        dir.ancestors().all(|d| fs::metadata(d).is_ok_and(|m| m.permissions().mode() & 0o001 != 0))
    })
}

/// An unused user id for a root grader's runs: one no account has,
/// different for each grading on the machine.
fn unused_uid() -> u32 {
    let taken: Vec<u32> = fs::read_to_string("/etc/passwd")
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split(':').nth(2)?.parse().ok())
        .collect();
    let mut uid = RUN_UIDS + std::process::id() % 1_000_000;
    while taken.contains(&uid) {
        uid += 1;
    }
    uid
}

/// Copies of the referee where people install it on the search path.
fn installed() -> Vec<PathBuf> {
    let dirs = [
        "/usr/local/bin",
        "/usr/local/sbin",
        "/usr/bin",
        "/usr/sbin",
        "/bin",
        "/sbin",
        "/usr/local/cargo/bin",
    ];
    dirs.iter()
        .flat_map(|d| ["ttt-referee", "ttt-guard"].map(|name| Path::new(d).join(name)))
        .filter(|p| p.exists())
        .collect()
}

/// Whether `path` is under a directory the container binds.
fn in_system_dirs(path: &Path) -> bool {
    ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"].iter().any(|d| path.starts_with(d))
}

/// The bytes and files under `path` (not following links); the grader's
/// own trees only.
fn tree_size(path: &Path, depth: u32) -> (u64, u64) {
    let Ok(meta) = fs::symlink_metadata(path) else { return (0, 0) };
    if !meta.is_dir() || depth > 64 {
        return (meta.len(), 1);
    }
    fs::read_dir(path).map_or((0, 1), |entries| {
        entries
            .flatten()
            .map(|e| tree_size(&e.path(), depth + 1))
            .fold((0, 1), |(b, f), (b2, f2)| (b + b2, f + f2))
    })
}

/// Removes a directory tree, even one whose program took its own
/// permissions away.
pub fn remove_all(path: &Path) {
    fn open_up(path: &Path) {
        let _ = fs::set_permissions(path, fs::Permissions::from_mode(0o700));
        if let Ok(entries) = fs::read_dir(path) {
            for entry in entries.flatten() {
                if entry.file_type().is_ok_and(|t| t.is_dir()) {
                    open_up(&entry.path());
                }
            }
        }
    }
    if fs::remove_dir_all(path).is_err() {
        open_up(path);
        let _ = fs::remove_dir_all(path);
    }
}

/// Reads at most `limit` bytes of `path`, never following a link or
/// blocking on a FIFO; `None` if it is missing or not a regular file.
#[must_use]
pub fn read_capped(path: &Path, limit: u64) -> Option<Vec<u8>> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_NONBLOCK | nix::libc::O_NOCTTY)
        .open(path)
        .ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut bytes = Vec::new();
    file.take(limit).read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run whose guard failed after its process 1 started, as a guard
    /// killed by the kernel reports it.
    fn failed(out_of_memory: bool) -> Result<Run, SandboxError> {
        let area = tempfile::tempdir().unwrap();
        fs::create_dir(area.path().join("out")).unwrap();
        let job = Job {
            argv: vec!["./prog".to_owned()],
            start: None,
            files: Vec::new(),
            stdin: None,
            collect: Collect::File("TTTgame.txt".to_owned()),
            limits: Limits {
                wall: Duration::from_secs(1),
                cpu: Duration::from_secs(1),
                memory: 32 << 20,
                output: 1 << 20,
                processes: 8,
                open_files: 64,
            },
            env: Vec::new(),
        };
        let why = "the run's init failed: process(/proc/self/exe) received signal SIGKILL";
        let report = format!(
            "{}\n{}\n",
            serde_json::to_string(&Line::Namespaces(None)).unwrap(),
            serde_json::to_string(&Line::Closed(Closed::Failed(why.to_owned()))).unwrap()
        );
        let settled = Settled {
            out_of_memory,
            peak: Some(32 << 20),
            no_cgroup: None,
            no_cpu: None,
            failure: String::new(),
        };
        let over =
            Over { waited: Waited::Closed, report: report.into_bytes(), wall: Duration::ZERO, settled };
        Sandbox::finish(&job, area.path(), over)
    }

    #[test]
    fn a_guard_killed_for_the_runs_memory_is_a_run_killed_at_its_memory_limit() {
        let run = failed(true).unwrap();
        assert_eq!(run.outcome.ending, Ending::Signalled(nix::libc::SIGKILL));
        assert!(run.outcome.out_of_memory);
        assert_eq!(run.answer, Err("it wrote no TTTgame.txt".to_owned()));
        assert_eq!(run.gaps.namespaces, None);
    }

    #[test]
    fn a_guard_that_failed_otherwise_fails_the_run_and_says_why() {
        let error = failed(false).unwrap_err();
        assert_eq!(
            error.to_string(),
            "the guard failed: the run's init failed: process(/proc/self/exe) received signal SIGKILL"
        );
    }
}
