//! The grader's side of a run: the [`Sandbox`], which owns the scratch
//! directory, the run user, the control groups, the guard binary and the
//! launchers; lays out each run's area, hands the job to a launcher or a
//! guard of its own, and waits for it.

use std::fs;
use std::io::{self, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use super::cpu_clock::{CpuClock, Source};
use super::files::{measure, read_capped};
use super::finish::{Over, group_gaps, settled};
use super::in_flight::collect_in_flight;
use super::promise::Promise;
use super::protocol::{
    Bring, Closed, Config, FILES, GUARD_ARG, GUARD_ERRORS, LIVE_END, LIVE_IN, LIVE_OUT, Plan, REPORT_CAP,
    STDIN, Said, closing, said,
};
use super::root::in_system_dirs;
use super::scratch::{PREFIX, hold, installed, remove_all, scratch_base, sweep, unguessable, unused_uid};
use super::wait::{GRACE, Waited, kill_group, wait};
use super::{Collect, Fault, Gaps, Job, Run, SandboxError, cgroup, copy, guard, launcher};

/// The guard and everything runs share: scratch, run user, cgroups.
#[derive(Debug)]
pub struct Sandbox {
    guard: PathBuf,
    scratch: tempfile::TempDir,
    /// The scratch's lock, held while the sandbox lives: a grader killed
    /// before it could remove its scratch leaves it to the next one's
    /// sweep ([`sweep`]).
    _held: fs::File,
    /// The unused user and group id runs get when the grader is root.
    run_as: Option<u32>,
    cgroups: Arc<Result<cgroup::Cgroups, String>>,
    /// Stage 1 of the guard, kept for run after run.
    launchers: launcher::Launchers,
    hide: Vec<PathBuf>,
    stop: Arc<AtomicBool>,
    /// Container roots no run is using: each is only mount points, so a
    /// root is made once per run at once rather than once per run.
    roots: Mutex<Vec<PathBuf>>,
    /// [`Sandbox::start_size`]'s measurements, by tree.
    sizes: Mutex<std::collections::HashMap<PathBuf, (u64, u64)>>,
    /// What every run is promised: nothing until the probe, then what the
    /// probe's run had ([`promise`](super::promise)).
    promise: Mutex<Promise>,
    /// Failures a test injected ([`Sandbox::inject_fault`]).
    faults: Mutex<Vec<Fault>>,
}

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
        let base = scratch_base(run_as.is_some());
        sweep(&base);
        let scratch = tempfile::Builder::new().prefix(PREFIX).tempdir_in(&base)?;
        fs::set_permissions(scratch.path(), fs::Permissions::from_mode(0o700))?;
        let held = hold(scratch.path())?;
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
            _held: held,
            run_as,
            cgroups,
            launchers,
            hide,
            stop,
            roots: Mutex::new(Vec::new()),
            sizes: Mutex::new(std::collections::HashMap::new()),
            promise: Mutex::new(Promise::default()),
            faults: Mutex::new(Vec::new()),
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

    /// Makes the sandbox meet `fault` from now on, to show what it does
    /// then. For tests of the sandbox's own failures; a grading never
    /// calls it.
    #[doc(hidden)]
    pub fn inject_fault(&self, fault: Fault) {
        self.faults.lock().unwrap_or_else(PoisonError::into_inner).push(fault);
    }

    /// Whether a test injected `fault`.
    fn faulty(&self, fault: Fault) -> bool {
        self.faults.lock().unwrap_or_else(PoisonError::into_inner).contains(&fault)
    }

    /// What every run is promised from now on.
    pub(super) fn promised(&self) -> Promise {
        *self.promise.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Promises every later run what `promise` says (the probe's finding).
    pub(super) fn promise(&self, promise: Promise) {
        *self.promise.lock().unwrap_or_else(PoisonError::into_inner) = promise;
    }

    /// Runs `job` and waits for it, killing the run at its wall-clock
    /// limit. Everything the program started is gone when this returns.
    ///
    /// # Errors
    ///
    /// [`SandboxError::Unprotected`] when the run would have had less
    /// protection than the sandbox's probe found ([`Sandbox::probe`]): the
    /// program is not run then (never without the container it was
    /// promised), or what it did is not handed back.
    pub fn run(&self, job: &Job) -> Result<Run, SandboxError> {
        if self.stop.load(Ordering::SeqCst) {
            return Err(SandboxError::Interrupted);
        }
        let promise = self.promised();
        let (area, root) = self.place()?;
        let result = self
            .prepare(job, &area, &root, false, promise)
            .and_then(|config| self.run_in(job, &config, &area, promise, None));
        self.clear(&area, root);
        result
    }

    /// A run's area and container root, fresh: `run-<random>` in the scratch, and
    /// a root no run is using.
    pub(super) fn place(&self) -> Result<(PathBuf, PathBuf), SandboxError> {
        // Named at random, not counted: a container's root shows in
        // /proc/self/mountinfo, and a count would tell the run how many
        // came before it.
        let name = unguessable();
        let area = self.scratch().join(format!("run-{name}"));
        let root = self.roots.lock().unwrap_or_else(PoisonError::into_inner).pop();
        let root = if let Some(root) = root {
            root
        } else {
            let root = self.scratch().join(format!("root-{name}"));
            fs::create_dir(&root).map_err(SandboxError::Start)?;
            self.hand_over(&root).map_err(SandboxError::Start)?;
            root
        };
        Ok((area, root))
    }

    /// What is left of a run once it is over: its sockets in flight, its
    /// area; its container root goes back for another run.
    pub(super) fn clear(&self, area: &Path, root: PathBuf) {
        collect_in_flight();
        remove_all(area);
        self.roots.lock().unwrap_or_else(PoisonError::into_inner).push(root);
    }

    /// Runs a job whose area is laid out (`config`, from
    /// [`Sandbox::prepare`] with the same `promise`) and waits for it;
    /// `clock`, for a live run, is set to read the run's CPU time.
    pub(super) fn run_in(
        &self,
        job: &Job,
        config: &[u8],
        area: &Path,
        promise: Promise,
        clock: Option<&CpuClock>,
    ) -> Result<Run, SandboxError> {
        let began = Instant::now();
        let launcher = if self.faulty(Fault::NoLaunchers) { None } else { self.launchers.take(&job.limits) };
        let over = match launcher {
            Some(launcher) => match self.by_launcher(launcher, job, config, area, (began, clock), promise)? {
                Some(over) => over,
                None => self.by_guard(job, config, (began, clock), promise)?,
            },
            None => self.by_guard(job, config, (began, clock), promise)?,
        };
        Sandbox::finish(job, area, over, promise)
    }

    /// Lays out a run's area (its input files, the output directory; for
    /// a `live` run the FIFOs its streams go through) and makes the
    /// guard's job, which requires what `promise` promises.
    pub(super) fn prepare(
        &self,
        job: &Job,
        area: &Path,
        root: &Path,
        live: bool,
        promise: Promise,
    ) -> Result<Vec<u8>, SandboxError> {
        let start = SandboxError::Start;
        for dir in ["in/files", "out"] {
            fs::create_dir_all(area.join(dir)).map_err(start)?;
        }
        if live {
            for fifo in [
                area.join("in").join(LIVE_IN),
                area.join("in").join(LIVE_END),
                area.join("out").join(LIVE_OUT),
            ] {
                nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRUSR | nix::sys::stat::Mode::S_IWUSR)
                    .map_err(|e| start(e.into()))?;
            }
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
                live,
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
            required: promise.required(),
            faults: self.faults.lock().unwrap_or_else(PoisonError::into_inner).clone(),
        };
        serde_json::to_vec(&config).map_err(|e| start(io::Error::other(e)))
    }

    /// Runs a job with a guard of its own, started for it (where launchers
    /// cannot be had), and waits for the guard to exit.
    fn by_guard(
        &self,
        job: &Job,
        config: &[u8],
        (began, clock): (Instant, Option<&CpuClock>),
        promise: Promise,
    ) -> Result<Over, SandboxError> {
        let (mut child, group) = self.start_guard(job, config, promise)?;
        if let Some(clock) = clock {
            let first = child.id();
            clock.set(group.as_ref().map_or(Source::Tree(first), |group| group.cpu_source(first)));
        }
        let mut stdout = child.stdout.take();
        let mut report = Vec::new();
        let deadline = began + job.limits.wall + GRACE;
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
    /// container can be made here and none was promised, and launchers
    /// are given up; or it could not be handed the job), and the caller
    /// starts a guard. A launcher whose cgroup lacks what was promised is
    /// handed nothing, and one that could make no container when one was
    /// promised refuses the run ([`SandboxError::Unprotected`]): nothing
    /// is then run without it, and the next run tries a launcher again.
    fn by_launcher(
        &self,
        mut launcher: launcher::Launcher,
        job: &Job,
        config: &[u8],
        area: &Path,
        (began, clock): (Instant, Option<&CpuClock>),
        promise: Promise,
    ) -> Result<Option<Over>, SandboxError> {
        if let Err(refused) = promise.check(&group_gaps(&launcher.group)) {
            launcher.discard();
            return Err(refused);
        }
        if let Some(clock) = clock {
            let first = launcher.process.id();
            clock.set(launcher.group.as_ref().map_or(Source::Tree(first), |group| group.cpu_source(first)));
        }
        if launcher.send(config).is_err() {
            launcher.discard();
            return Ok(None);
        }
        let mut report = Vec::new();
        let until = |report: &[u8]| match said(report) {
            Said::Nothing => None,
            Said::Reported => Some(Waited::Reported),
            Said::Closed => Some(Waited::Closed),
        };
        let deadline = began + job.limits.wall + GRACE;
        let waited =
            wait(&mut launcher.process, &mut launcher.output, &mut report, deadline, &self.stop, until);
        let wall = began.elapsed();
        if waited == Waited::Closed
            && let Some(Closed::NoContainer(why)) = closing(&report)
        {
            launcher.discard();
            promise.check(&Gaps { namespaces: Some(why), ..Gaps::default() })?;
            self.launchers.give_up();
            return Ok(None);
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
        Ok(Some(Over { waited, report, wall, settled }))
    }

    /// The bytes and files of a run's starting tree, measured once: every
    /// test of a submission starts from the same build.
    fn start_size(&self, start: &Path) -> (u64, u64) {
        let mut sizes = self.sizes.lock().unwrap_or_else(PoisonError::into_inner);
        *sizes.entry(start.to_path_buf()).or_insert_with(|| {
            let size = measure(start);
            (size.bytes, size.files)
        })
    }

    /// Starts the guard in the run's cgroup (when there is one) and hands it
    /// the job; a guard whose cgroup lacks what was promised is killed
    /// before it has the job.
    fn start_guard(
        &self,
        job: &Job,
        config: &[u8],
        promise: Promise,
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
        let mut child = launcher::spawn(&mut command).map_err(SandboxError::Start)?;
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
        if let Err(refused) = promise.check(&group_gaps(&group)) {
            let _ = child.kill();
            let _ = child.wait();
            return Err(refused);
        }
        // The job goes in only once the guard is in its group, so that
        // everything it starts is counted.
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(config);
        }
        Ok((child, group))
    }
}

impl Drop for Sandbox {
    /// Waits for the launchers being readied and kills every launcher,
    /// before the scratch directory goes.
    fn drop(&mut self) {
        self.launchers.shut();
    }
}
