//! The guard's side: what runs between the grader and a student's program.
//!
//! The guard (`ttt-guard`, or this binary in a hidden mode) is started by
//! the grader: as a launcher, which takes one job per line of its standard
//! input for run after run, or where no container can be made as a guard
//! for one run, its job on standard input. Either leaves the grader's
//! session (`setsid`: no controlling terminal), dies with the grader, and
//! builds each run's container with `hakoniwa`: new user, mount, PID,
//! network, IPC and UTS namespaces; a root holding only `/usr`, `/bin`,
//! `/lib*` (read-only), a minimal `/etc` and `/dev`, a fresh `/proc`, and a
//! size-capped tmpfs `/box` for everything the run writes (`/tmp` and
//! `/dev/shm` point into it): the list of mounts in
//! [`root`](super::root), which [`contained`] walks. Process 1 of the container is the guard again
//! (**init**, exec'd through `/proc/self/exe`, which no path inside leads
//! to). Init makes itself non-dumpable, fills the run directory, masks any
//! copy of the referee the system directories hold and `/proc`'s counters
//! of the whole machine (a channel between runs), unmounts everything of
//! the grader's, empties the capability bounding set, sets the limits,
//! Landlock and the seccomp filter, and starts the program with only its
//! three standard streams. When the program ends, init measures what it
//! wrote, kills everything left in the PID namespace, reaps it, and hands
//! the answer out through a directory the program never saw.
//!
//! Where namespaces cannot be had (a container whose profile forbids them,
//! such as Docker's default), the guard runs the same steps itself without
//! the container, in the grader's scratch: the grader's protections list
//! then says what is missing. Only where no container was promised, though:
//! once the grading's probe had one, a run that cannot have one is not run
//! at all, and neither is one whose promised Landlock or seccomp filter
//! cannot be put in force (the job says what is required). What needs no privilege still holds there:
//! the session, non-dumpable guard, `no_new_privs`, the seccomp filter, the
//! limits, and Landlock, whose rules then leave out the host's `/dev` (the
//! scratch is often in `/dev/shm`) and every copy of the referee under the
//! system directories (no mount can mask them).
//!
//! Here are the stages and process 1's [`supervise`]: its set-up as a list
//! of named steps, then the supervision of the program. The steps
//! themselves, and why each comes where it does, are in [`setup`].

use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};

use rustix::fs::{Mode, OFlags};

use super::files::{NotAFile, measure, open_file};
use super::in_flight::collect_in_flight;
use super::protocol::{
    Bring, Closed, Config, GUARD_ARG, GUARD_ERRORS, INIT_ARG, LAUNCH_ARG, Line, Plan, Required,
};
use super::root::{BOX, INPUT, OUTPUT, ROOT, START, What, devices};
use super::{Fault, PATH, copy};

mod setup;

pub(super) use setup::{MEMLOCK, MSGQUEUE, SIGPENDING, UMASK};
use setup::{
    SetupError, become_undumpable, build_landlock, confine, contain, fill_run_directory, fix_umask,
    make_streams, mark_started, open_input, open_live, set_limits, shed_privileges, tasks_held,
};

/// The guard's entry point: `stage` is [`GUARD_ARG`], [`LAUNCH_ARG`] or
/// [`INIT_ARG`]. Never returns.
pub fn guard_main(stage: &str, _args: &[OsString]) -> ! {
    let mut out = io::stdout().lock();
    let result = if stage == INIT_ARG {
        read_config().and_then(|(config, _)| init(&config, &mut out))
    } else if stage == GUARD_ARG {
        guard(&mut out)
    } else if stage == LAUNCH_ARG {
        launcher(&mut out)
    } else {
        Err(format!("unknown stage `{stage}`"))
    };
    match result {
        Ok(()) => std::process::exit(0),
        Err(why) => {
            report(&mut out, &Line::Failed(why));
            std::process::exit(125)
        }
    }
}

/// One line to the grader.
fn report(out: &mut impl Write, line: &Line) {
    // A failed write shows at the grader as a missing report.
    let _ = serde_json::to_writer(&mut *out, line);
    let _ = out.write_all(b"\n");
    let _ = out.flush();
}

/// The job, from standard input (at most 1 MiB), and its text.
fn read_config() -> Result<(Config, Vec<u8>), String> {
    let mut text = Vec::new();
    io::stdin().lock().take(1 << 20).read_to_end(&mut text).map_err(|e| format!("reading the job: {e}"))?;
    let config = serde_json::from_slice(&text).map_err(|e| format!("a malformed job: {e}"))?;
    Ok((config, text))
}

/// What stage 1 does first, for one run or many: its own session (no
/// controlling terminal for anything it starts), and death with the
/// grader (a grader killed mid-run takes its runs with it).
fn leave_the_grader() -> Result<(), String> {
    nix::unistd::setsid().map_err(|e| format!("setsid: {}", e.desc()))?;
    nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGKILL)
        .map_err(|e| format!("pdeathsig: {}", e.desc()))
}

/// Stage 1 for one run, outside the container. Where no container can be
/// made it runs the program without one only when none was promised: a
/// grading whose probe had a container never has a run without one.
fn guard(out: &mut impl Write) -> Result<(), String> {
    leave_the_grader()?;
    let (config, text) = read_config()?;
    match launch(&config, &text, hakoniwa::Stdio::inherit()) {
        Closed::Done => Ok(()),
        Closed::Failed(why) => Err(why),
        Closed::NoContainer(why) if config.required.container => {
            let why = plain(&why);
            report(out, &Line::Namespaces(Some(why.clone())));
            Err(format!("no container could be made ({why}), and the grading was promised one: nothing ran"))
        }
        Closed::NoContainer(why) => bare(&config, &why, out),
    }
}

/// The container library's reason, without its name.
fn plain(why: &str) -> String {
    why.trim().trim_start_matches("hakoniwa: ").to_owned()
}

/// Stage 1 for one run after another: the launcher, which the grader keeps
/// for a job slot so that a run need not start a process of its own. It
/// leaves the grader's session and dies with the grader as [`guard`] does,
/// then reads one job per line of its standard input and runs each in a
/// new container, with init's report going straight to its own standard
/// output and init's standard error to the run's area. Once the container
/// is gone it closes the job with a [`Line::Closed`] line. It ends at the
/// end of its input. Without namespaces it runs nothing: it closes the job
/// saying so, and the grader starts a guard for each run instead.
fn launcher(out: &mut impl Write) -> Result<(), String> {
    use std::io::BufRead;
    leave_the_grader()?;
    // It stays dumpable, as stage 1 does: a container's first process (a
    // fork of this one) writes its own /proc/self/uid_map, which a
    // non-dumpable process may not. No run can reach it: every run is in
    // PID, mount and user namespaces of its own, and launchers are used
    // only where containers can be made.
    let mut input = io::stdin().lock();
    loop {
        let mut text = Vec::new();
        let read = (&mut input)
            .take(1 << 20)
            .read_until(b'\n', &mut text)
            .map_err(|e| format!("reading a job: {e}"))?;
        if read == 0 {
            return Ok(());
        }
        let closed = match serde_json::from_slice::<Config>(&text) {
            Ok(config) => match launcher_errors(&config) {
                Ok(errors) => launch(&config, &text, hakoniwa::Stdio::from(errors)),
                Err(why) => Closed::Failed(why),
            },
            Err(e) => Closed::Failed(format!("a malformed job: {e}")),
        };
        report(out, &Line::Closed(closed));
    }
}

/// The file a launcher's run's process 1 writes its standard error to, in
/// the run's area (a launcher's own standard error is not read).
fn launcher_errors(config: &Config) -> Result<File, String> {
    let path = config.job.area.join(GUARD_ERRORS);
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(nix::libc::O_NOFOLLOW)
        .open(&path)
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Runs one job (`text`, as the grader wrote it) in a new container, its
/// process 1's standard error going to `errors`: how it closed.
fn launch(config: &Config, text: &[u8], errors: hakoniwa::Stdio) -> Closed {
    if config.faults.contains(&Fault::NoContainer) {
        return Closed::NoContainer("a fault a test injected: no namespaces".to_owned());
    }
    // Process 1 reads the same text from a file: its standard input.
    let config_path = config.job.area.join("job.json");
    if let Err(e) = fs::write(&config_path, text) {
        return Closed::Failed(format!("{}: {e}", config_path.display()));
    }
    let status = contained(config, &config_path, errors);
    // Init marks the output directory first thing: no mark, no start, so
    // the container itself could not be made.
    let started = config.job.area.join("out").join(".init").exists();
    match status {
        Ok(status) if status.success() => Closed::Done,
        Ok(status) if started => Closed::Failed(format!("the run's init failed: {}", status.reason)),
        Ok(status) => Closed::NoContainer(status.reason.trim().to_owned()),
        Err(e) if started => Closed::Failed(format!("the container failed: {e}")),
        Err(e) => Closed::NoContainer(plain(&e.to_string())),
    }
}

/// Runs init in a new container, its standard error going to `errors`,
/// and waits for it.
fn contained(
    config: &Config,
    config_path: &Path,
    errors: hakoniwa::Stdio,
) -> hakoniwa::Result<hakoniwa::ExitStatus> {
    use hakoniwa::{Container, MountOptions, Namespace, Runctl};
    let area = &config.job.area;
    let skeleton = &config.skeleton;
    // The user, mount and PID namespaces, and the fresh /proc.
    let mut container = Container::new();
    // A network namespace of its own for every run, even where runs follow
    // one another: sockets a run leaves in flight (passed over a unix
    // socket in a cycle no process holds) outlive all its processes until
    // the kernel collects them, and must be seen by no later run.
    container
        .unshare(Namespace::Network)
        .unshare(Namespace::Ipc)
        .unshare(Namespace::Uts)
        .hostname("sandbox")
        // Root inside (with the grader's run user outside), so that init
        // keeps its capabilities through exec; it gives them up before the
        // program starts.
        .uidmap(0)
        .gidmap(0)
        .rootdir(&config.root)
        .runctl(Runctl::MountFallback);
    for mount in ROOT {
        let at = mount.at;
        match mount.what {
            What::System => match fs::read_link(at) {
                Ok(target) => {
                    container.symlink(&target.to_string_lossy(), at);
                }
                Err(_) if Path::new(at).is_dir() => {
                    container.bindmount_ro(at, at);
                }
                Err(_) => {}
            },
            What::Skeleton => {
                let from = skeleton.join(at.trim_start_matches('/'));
                container.bindmount_ro(&from.to_string_lossy(), at);
            }
            What::Device => {
                container.bindmount_rw(at, at);
            }
            // Made with the PID namespace (`Container::new`).
            What::Proc => {}
            What::Box => {
                let tmpfs = format!("size={},nr_inodes={},mode=0755", config.box_bytes, config.box_inodes);
                container.mount(
                    "tmpfs",
                    at,
                    "tmpfs",
                    MountOptions::NOSUID | MountOptions::NODEV,
                    Some(tmpfs),
                );
            }
            What::Link(to) => {
                container.symlink(to, at);
            }
            What::Grader => {
                let flags = MountOptions::NOSUID | MountOptions::NODEV | MountOptions::NOEXEC;
                container.mount(
                    "tmpfs",
                    at,
                    "tmpfs",
                    flags,
                    Some("size=16k,nr_inodes=16,mode=0700".to_owned()),
                );
            }
            What::Start => {
                if let Some(start) = &config.job.start {
                    container.bindmount_ro(&start.to_string_lossy(), at);
                }
            }
            What::Input => {
                container.bindmount_ro(&area.join("in").to_string_lossy(), at);
            }
            What::Output => {
                container.bindmount_rw(&area.join("out").to_string_lossy(), at);
            }
        }
    }
    let mut command = container.command("/proc/self/exe");
    command
        .arg(INIT_ARG)
        .current_dir("/")
        .stdin(hakoniwa::Stdio::from(File::open(config_path).map_err(|e| io_error(&e))?))
        .stdout(hakoniwa::Stdio::inherit())
        .stderr(errors);
    command.status()
}

fn io_error(e: &io::Error) -> hakoniwa::Error {
    hakoniwa::Error::UnError(e.to_string())
}

/// No container could be made: say why, and run the program with the
/// protections that remain.
fn bare(config: &Config, why: &str, out: &mut impl Write) -> Result<(), String> {
    report(out, &Line::Namespaces(Some(plain(why))));
    let area = &config.job.area;
    let places = Places {
        start: config.job.start.clone(),
        input: area.join("in"),
        output: area.join("out"),
        boxed: area.join("box"),
        contained: false,
    };
    fs::create_dir_all(&places.boxed).map_err(|e| format!("{}: {e}", places.boxed.display()))?;
    supervise(config, &places, out).map_err(|e| e.to_string())
}

/// Stage 2: process 1 of the container.
fn init(config: &Config, out: &mut impl Write) -> Result<(), String> {
    let places = Places {
        start: config.job.start.as_ref().map(|_| PathBuf::from(START)),
        input: PathBuf::from(INPUT),
        output: PathBuf::from(OUTPUT),
        boxed: PathBuf::from(BOX),
        contained: true,
    };
    report(out, &Line::Namespaces(None));
    supervise(config, &places, out).map_err(|e| e.to_string())
}

/// Where the supervisor finds things.
struct Places {
    start: Option<PathBuf>,
    input: PathBuf,
    output: PathBuf,
    boxed: PathBuf,
    /// Inside the container (process 1 of its PID namespace).
    contained: bool,
}

/// A call on a named path that failed, as `{name}: {errno}`.
#[derive(Debug, thiserror::Error)]
#[error("{name}: {errno}")]
struct Named {
    name: String,
    errno: rustix::io::Errno,
}

impl From<Named> for String {
    fn from(named: Named) -> String {
        named.to_string()
    }
}

fn open_dir(path: &Path) -> Result<OwnedFd, Named> {
    rustix::fs::open(
        path,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|errno| Named { name: path.display().to_string(), errno })
}

/// Creates `name` in the directory `dir` for writing, failing if it exists.
fn create_at(dir: &OwnedFd, name: &str) -> Result<File, Named> {
    rustix::fs::openat(
        dir,
        name,
        OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o600),
    )
    .map(File::from)
    .map_err(|errno| Named { name: name.to_owned(), errno })
}

/// Why a run failed once it was set up, or why it could not be.
#[derive(Debug, thiserror::Error)]
enum SuperviseError {
    /// A step of the set-up.
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// The job names no program.
    #[error("no program to run")]
    NoProgram,
    /// The program could not be waited for.
    #[error("wait: {0}")]
    Wait(io::Error),
    /// What the program's processes used could not be read.
    #[error("getrusage: {0}")]
    Usage(nix::errno::Errno),
    /// The program's output or answer could not be handed out (what
    /// [`hand_out`] said).
    #[error("{0}")]
    HandOut(String),
    /// Landlock or the seccomp filter was promised and could not be put in
    /// force (which, and why): the program was not started.
    #[error("{0}, and the grading was promised it: nothing ran")]
    Unconfined(String),
}

/// What [`confine`] could not put in force of what `required` asks for,
/// with why; `None` when everything required is in force.
fn unconfined(confined: &Line, required: Required) -> Option<String> {
    let Line::Confined { landlock, seccomp } = confined else { return None };
    let missing: Vec<String> =
        [("Landlock", required.landlock, landlock), ("seccomp", required.seccomp, seccomp)]
            .into_iter()
            .filter_map(|(name, wanted, gap)| {
                gap.as_ref().filter(|_| wanted).map(|why| format!("{name}: {why}"))
            })
            .collect();
    (!missing.is_empty()).then(|| missing.join("; "))
}

/// Everything from filling the run directory to handing out the answer:
/// the set-up, one named step after another in the order each step's
/// comment explains (as isolate's `box_inside` and nsjail's `containProc`
/// list theirs; the steps are in [`setup`]), then the supervision of the
/// program.
fn supervise(config: &Config, places: &Places, out: &mut impl Write) -> Result<(), SuperviseError> {
    // The set-up: this process, the run's files, the walls, the limits.
    fix_umask();
    become_undumpable()?;
    if !places.contained {
        shed_privileges()?;
    }
    let output = mark_started(places)?;
    let run = fill_run_directory(config, places)?;
    let stdin = open_input(config, places)?;
    let streams = make_streams(places)?;
    let live = open_live(config, places)?;
    let tasks = tasks_held(config, places);
    let ruleset = build_landlock(places, &output, &config.hide);
    if places.contained {
        contain(config)?;
    }
    let used_before = used(places);
    let confined = confine(ruleset, config.faults.contains(&Fault::NoSeccomp));
    if let Some(missing) = unconfined(&confined, config.required) {
        report(out, &confined);
        return Err(SuperviseError::Unconfined(missing));
    }
    set_limits(config, tasks)?;
    report(out, &confined);

    // The supervision: the program, what it left, what it gave back.
    let (program, end) = match live {
        Some(live) => ((live.output, streams.program.1), Some(live.end)),
        None => (streams.program, None),
    };
    let (status, timed_out, watched) =
        run_program(&config.job, places, &run, stdin, program, streams.complaints, end.as_ref())?;
    let (used_after, full) = measure_box(places, watched);
    if places.contained {
        end_the_rest();
    }
    let usage = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)
        .map_err(SuperviseError::Usage)?;
    let answer = hand_out(config, &output, &run, streams.back).map_err(SuperviseError::HandOut)?;
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
            written: used_after.saturating_sub(used_before),
            full,
            answer,
            timed_out,
        },
    );
    Ok(())
}

/// Supervision: starts the program in the run directory with only its
/// three standard streams and the job's environment, and waits for it, at
/// most its wall-clock limit (then it is killed, and the run reported as
/// timed out: what it wrote so far is handed out all the same, so a
/// console judged by its game is judged on it); with the container, a
/// [`Watch`] on the box runs meanwhile. A live run is also ended when the
/// grader writes to or closes `end`. A program that cannot be started
/// counts as one that exited with 127, as a shell says; its standard error
/// says why.
fn run_program(
    job: &Plan,
    places: &Places,
    run: &Path,
    stdin: Stdio,
    (stdout, stderr): (File, File),
    mut complaints: File,
    end: Option<&File>,
) -> Result<(ExitStatus, bool, Option<Watch>), SuperviseError> {
    let Some((program, rest)) = job.argv.split_first() else { return Err(SuperviseError::NoProgram) };
    let mut command = Command::new(program);
    command
        .args(rest)
        .env_clear()
        .env("PATH", PATH)
        .env("HOME", run)
        .env("TMPDIR", places.boxed.join("tmp"))
        .envs(job.env.iter().map(|(k, v)| (k, v)))
        .current_dir(run)
        .stdin(stdin)
        .stdout(stdout)
        .stderr(stderr);
    // Without a PID namespace the program stays in this process's group,
    // which the grader kills when this process has exited or at the time
    // limit: the program and whatever it started that did not leave the
    // group end with the run.
    let watch = places.contained.then(|| Watch::start(places.boxed.clone()));
    let child = command.spawn();
    // The command holds the guard's copies of the program's streams: they
    // go now, so that a live run's output closes when the program closes
    // it, not when the guard is done.
    drop(command);
    let (status, timed_out) = match child {
        Ok(mut child) => wait_within(&mut child, job.limits.wall, end).map_err(SuperviseError::Wait)?,
        Err(e) => {
            let _ = writeln!(complaints, "cannot run `{program}`: {e}");
            (ExitStatus::from_raw(127 << 8), false)
        }
    };
    Ok((status, timed_out, watch))
}

/// Supervision: waits for the program at most `wall` from now, through a
/// pidfd (no polling, and no signal to a reused process id); kills it when
/// the time is up, or when `end` (a live run's) is written to or closed.
/// Its status, and whether it was killed for time.
fn wait_within(
    child: &mut std::process::Child,
    wall: std::time::Duration,
    end: Option<&File>,
) -> io::Result<(ExitStatus, bool)> {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    use std::time::{Duration, Instant};
    let deadline = Instant::now() + wall;
    let pidfd = rustix::process::Pid::from_raw(i32::try_from(child.id()).unwrap_or(0))
        .and_then(|pid| rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty()).ok());
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok((status, false));
        }
        let left = deadline.saturating_duration_since(Instant::now());
        let ended = end.is_some_and(|end| {
            let mut fds = [PollFd::new(end, PollFlags::IN)];
            poll(&mut fds, Some(&Timespec { tv_sec: 0, tv_nsec: 0 })).is_ok_and(|n| n > 0)
        });
        if left.is_zero() || ended {
            // Killing a child not yet waited for cannot reach another
            // process: its id is still its own.
            let _ = child.kill();
            return Ok((child.wait()?, !ended));
        }
        // Without a pidfd (an old kernel), look every millisecond.
        let slice = left.min(if pidfd.is_some() { Duration::from_secs(1) } else { Duration::from_millis(1) });
        let timeout = Timespec::try_from(slice).unwrap_or(Timespec { tv_sec: 0, tv_nsec: 1_000_000 });
        let mut fds = Vec::with_capacity(2);
        if let Some(fd) = &pidfd {
            fds.push(PollFd::new(fd, PollFlags::IN));
        }
        if let Some(end) = end {
            fds.push(PollFd::new(end, PollFlags::IN));
        }
        if fds.is_empty() {
            std::thread::sleep(slice);
        } else {
            let _ = poll(&mut fds, Some(&timeout));
        }
    }
}

/// Supervision: what the run wrote (the most the box held while the
/// program ran, and now), and whether the box filled up. Before
/// [`end_the_rest`], while whatever the program left running still holds
/// its files open.
fn measure_box(places: &Places, watch: Option<Watch>) -> (u64, bool) {
    let (peak, filled) = watch.map_or((0, false), Watch::stop);
    let used_after = used(places).max(peak);
    let full = filled || (places.contained && box_full(&places.boxed));
    (used_after, full)
}

/// Supervision, in the container only: everything else in the PID
/// namespace goes, and is reaped. What the run left in flight is
/// unreachable then: the kernel's collector, set off here, has the rest of
/// the run's ending to free it (the grader sets it off again). Before the
/// answer is handed out and the end reported: the grader takes that report
/// to mean nothing of the run is left.
fn end_the_rest() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    let _ = kill(Pid::from_raw(-1), Signal::SIGKILL);
    while nix::sys::wait::waitpid(Pid::from_raw(-1), None).is_ok() {}
    collect_in_flight();
}

/// Supervision: hands out what the grader reads, through the output
/// directory's handle (its path was unmounted): the program's standard
/// output and error, and the answer (a file, or the whole run directory),
/// each up to the output limit. Returns why there is no answer, when one
/// was asked for.
fn hand_out(
    config: &Config,
    output: &OwnedFd,
    run: &Path,
    (mut stdout_back, mut stderr_back): (File, File),
) -> Result<Option<String>, String> {
    let job = &config.job;
    let limit = job.limits.output;
    let copy_out = |from: &mut File, name: &str, cap: u64| -> Result<(), String> {
        from.rewind().map_err(|e| e.to_string())?;
        io::copy(&mut from.take(cap), &mut create_at(output, name)?).map_err(|e| format!("{name}: {e}"))?;
        Ok(())
    };
    copy_out(&mut stdout_back, "stdout", limit)?;
    copy_out(&mut stderr_back, "stderr", limit)?;
    let answer = match &job.collect {
        Bring::File(name) => match open_answer(&run.join(name), name) {
            Ok(mut file) => copy_out(&mut file, "answer", limit).err(),
            Err(why) => Some(why),
        },
        Bring::Tree => {
            // Through the directory's handle: its path was unmounted.
            rustix::fs::mkdirat(output, "tree", Mode::from_raw_mode(0o700))
                .map_err(|e| format!("tree: {e}"))?;
            let tree = rustix::fs::openat(
                output,
                "tree",
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::empty(),
            )
            .map_err(|e| format!("tree: {e}"))?;
            let caps =
                copy::Caps { bytes: config.box_bytes, files: config.box_inodes, depth: copy::RUN_TREE_DEPTH };
            copy::copy_tree_at(open_dir(run)?.as_fd(), tree.as_fd(), caps, None).err().map(|e| e.to_string())
        }
        Bring::Nothing => None,
    };
    Ok(answer)
}

/// Opens the program's answer without following a link or blocking on a
/// FIFO; anything but a regular file is no answer, with why.
fn open_answer(path: &Path, name: &str) -> Result<File, String> {
    open_file(path).map_err(|not| match not {
        NotAFile::Missing => format!("it wrote no {name}"),
        NotAFile::Link => format!("its {name} is a symbolic link, not a file"),
        NotAFile::Unreadable(e) => format!("its {name} cannot be read: {e}"),
        NotAFile::Kind(what) => format!("its {name} is {what}, not a file"),
    })
}

/// Watches the box while the program runs, every two milliseconds: files
/// written and deleted again, or unlinked ones closed at exit, leave no
/// trace a measurement at the end could see. Stopping it wakes it at once
/// (the channel closes), so a run never waits out its pause.
struct Watch {
    stop: std::sync::mpsc::Sender<()>,
    thread: std::thread::JoinHandle<(u64, bool)>,
}

impl Watch {
    fn start(boxed: PathBuf) -> Watch {
        use std::sync::mpsc::RecvTimeoutError;
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        let thread = std::thread::spawn(move || {
            let (mut peak, mut full) = (0, false);
            loop {
                peak = peak.max(tmpfs_used(&boxed));
                full |= box_full(&boxed);
                match stopped.recv_timeout(std::time::Duration::from_millis(2)) {
                    Err(RecvTimeoutError::Timeout) => {}
                    Ok(()) | Err(RecvTimeoutError::Disconnected) => break,
                }
            }
            (peak, full)
        });
        Watch { stop, thread }
    }

    /// The most bytes the box held, and whether it was ever full.
    fn stop(self) -> (u64, bool) {
        drop(self.stop);
        self.thread.join().unwrap_or((0, false))
    }
}

/// Bytes the box holds: in the container, all its tmpfs holds; without
/// one, what the files under it take (the box is then a directory on a file
/// system other runs and processes write to, whose totals say nothing of
/// this run; unlinked files and writes deleted again go unseen).
fn used(places: &Places) -> u64 {
    if places.contained { tmpfs_used(&places.boxed) } else { measure(&places.boxed).allocated }
}

/// Bytes in use on the box's own file system.
fn tmpfs_used(boxed: &Path) -> u64 {
    rustix::fs::statvfs(boxed).map_or(0, |s| (s.f_blocks - s.f_bfree) * s.f_frsize)
}

/// Whether the box has no room left (bytes or files).
fn box_full(boxed: &Path) -> bool {
    rustix::fs::statvfs(boxed).is_ok_and(|s| s.f_bavail == 0 || s.f_favail == 0)
}

/// Makes the parts of the container's root every run shares, once per
/// grading, in `skeleton` (owned by the run user): a minimal `/etc` and the
/// mount points of `/dev`.
pub(super) fn make_skeleton(skeleton: &Path) -> io::Result<()> {
    let etc = skeleton.join("etc");
    let dev = skeleton.join("dev");
    fs::create_dir_all(&etc)?;
    fs::create_dir_all(&dev)?;
    for device in devices() {
        File::create(skeleton.join(device.trim_start_matches('/')))?;
    }
    for (link, target) in [
        ("shm", "/box/shm"),
        ("fd", "/proc/self/fd"),
        ("stdin", "/proc/self/fd/0"),
        ("stdout", "/proc/self/fd/1"),
        ("stderr", "/proc/self/fd/2"),
    ] {
        std::os::unix::fs::symlink(target, dev.join(link))?;
    }
    // Who is who: root (the run, inside) and nobody; no host account.
    fs::write(
        etc.join("passwd"),
        "root:x:0:0:sandbox:/box/run:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
    )?;
    fs::write(etc.join("group"), "root:x:0:\nnogroup:x:65534:\n")?;
    fs::write(etc.join("hostname"), "sandbox\n")?;
    fs::write(etc.join("hosts"), "127.0.0.1 localhost sandbox\n::1 localhost\n")?;
    fs::write(etc.join("nsswitch.conf"), "passwd: files\ngroup: files\nhosts: files\n")?;
    // What compilers and runtimes read from the host's /etc: the dynamic
    // linker's cache, Debian's alternatives (java, cc, python3 point
    // there), the JDK's and Python's own configuration, the time zone.
    let host = Path::new("/etc");
    if let Ok(entries) = fs::read_dir(host) {
        for entry in entries.flatten() {
            let name = entry.file_name();
            let text = name.to_string_lossy();
            let wanted =
                ["ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "localtime", "timezone"]
                    .contains(&text.as_ref())
                    || text.starts_with("java-")
                    || text.starts_with("python3");
            if wanted {
                copy_system(&entry.path(), &etc.join(&name), 0)?;
            }
        }
    }
    Ok(())
}

/// Copies a part of the host's `/etc` as it is, links as links (trusted
/// input: the system's own files; unreadable ones are left out).
fn copy_system(from: &Path, to: &Path, depth: u32) -> io::Result<()> {
    let meta = fs::symlink_metadata(from)?;
    if meta.file_type().is_symlink() {
        std::os::unix::fs::symlink(fs::read_link(from)?, to)
    } else if meta.is_dir() && depth < 8 {
        fs::create_dir(to)?;
        for entry in fs::read_dir(from)?.flatten() {
            let _ = copy_system(&entry.path(), &to.join(entry.file_name()), depth + 1);
        }
        Ok(())
    } else if meta.is_file() {
        fs::copy(from, to)?;
        fs::set_permissions(to, fs::Permissions::from_mode(meta.permissions().mode() & 0o755))
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The guard starts nothing without a wall it was told to require;
    /// what was not required may be missing.
    #[test]
    fn a_required_wall_that_is_missing_stops_the_run() {
        let confined = Line::Confined { landlock: Some("not enforced".to_owned()), seccomp: None };
        let all = Required { container: true, landlock: true, seccomp: true };
        assert_eq!(unconfined(&confined, all), Some("Landlock: not enforced".to_owned()));
        assert_eq!(unconfined(&confined, Required { landlock: false, ..all }), None);
        assert_eq!(unconfined(&Line::Confined { landlock: None, seccomp: None }, all), None);
        let both = Line::Confined { landlock: Some("a".to_owned()), seccomp: Some("b".to_owned()) };
        assert_eq!(unconfined(&both, all), Some("Landlock: a; seccomp: b".to_owned()));
    }

    /// The typed errors say what the steps said when their errors were
    /// strings (the text reaches reports and tests).
    #[test]
    fn setup_errors_say_what_the_string_errors_said() {
        use nix::errno::Errno;
        use nix::sys::resource::Resource;
        let io = || io::Error::from_raw_os_error(nix::libc::ENOENT);
        let path = PathBuf::from("/box/run");
        let cases: Vec<(SuperviseError, String)> = vec![
            (SetupError::Dumpable(Errno::EPERM).into(), format!("dumpable: {}", Errno::EPERM.desc())),
            (SetupError::NoNewPrivs(Errno::EPERM).into(), format!("no_new_privs: {}", Errno::EPERM.desc())),
            (
                SetupError::AmbientCapabilities(rustix::io::Errno::PERM).into(),
                format!("ambient capabilities: {}", rustix::io::Errno::PERM),
            ),
            (
                SetupError::Mark(Named { name: ".init".to_owned(), errno: rustix::io::Errno::EXIST }).into(),
                format!(".init: {}", rustix::io::Errno::EXIST),
            ),
            (
                SetupError::BoxDirectory { path: path.clone(), source: io() }.into(),
                format!("{}: {}", path.display(), io()),
            ),
            (SetupError::Input(io()).into(), format!("the input: {}", io())),
            (SetupError::Complaints(io()).into(), io().to_string()),
            (
                SetupError::Unmount(rustix::io::Errno::BUSY).into(),
                format!("unmounting /.ttt: {}", rustix::io::Errno::BUSY),
            ),
            (SetupError::StillMounted.into(), "the grader's directories are still under /.ttt".to_owned()),
            (
                SetupError::Limit { resource: Resource::RLIMIT_CPU, errno: Errno::EPERM }.into(),
                format!("setrlimit RLIMIT_CPU: {}", Errno::EPERM.desc()),
            ),
            (
                SetupError::OpenFiles { files: 256, errno: Errno::EPERM, hard: "64".to_owned() }.into(),
                format!(
                    "setrlimit RLIMIT_NOFILE to 256 open files: {} (the hard limit here is 64)",
                    Errno::EPERM.desc()
                ),
            ),
            (SuperviseError::NoProgram, "no program to run".to_owned()),
            (SuperviseError::Wait(io()), format!("wait: {}", io())),
            (SuperviseError::Usage(Errno::EPERM), format!("getrusage: {}", Errno::EPERM)),
            (
                SuperviseError::Unconfined("seccomp: EINVAL".to_owned()),
                "seccomp: EINVAL, and the grading was promised it: nothing ran".to_owned(),
            ),
        ];
        for (error, text) in cases {
            assert_eq!(error.to_string(), text);
        }
    }
}
