//! The guard's set-up of a run: the named steps [`supervise`](super::supervise)
//! takes, in its order, before it starts the program, and [`SetupError`],
//! why one of them failed. Each step's comment says why it comes where it
//! does; the supervision after them stays in the guard ([`super`]).

use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use rustix::fs::Mode;

use super::{Named, Places, create_at, open_dir};
use crate::sandbox::protocol::{Config, FILES, LIVE_END, LIVE_IN, LIVE_OUT, Line, STDIN};
use crate::sandbox::root::{GRADER, INPUT, MASKED, OUTPUT, START, devices, readable};
use crate::sandbox::{copy, seccomp};

/// Why a run could not be set up: one variant for each way a step of
/// [`supervise`](super::supervise)'s set-up fails, grouped by step. Each
/// says exactly what the step said when its errors were strings: the text
/// goes to the grader as the guard's failure (`the guard failed: …`), and
/// reports and tests carry it.
#[derive(Debug, thiserror::Error)]
pub(super) enum SetupError {
    /// [`become_undumpable`].
    #[error("dumpable: {}", .0.desc())]
    Dumpable(nix::errno::Errno),
    /// [`shed_privileges`]: the ambient set could not be cleared.
    #[error("ambient capabilities: {0}")]
    AmbientCapabilities(rustix::io::Errno),
    /// [`shed_privileges`]: `no_new_privs` could not be set.
    #[error("no_new_privs: {}", .0.desc())]
    NoNewPrivs(nix::errno::Errno),
    /// [`mark_started`]: the output directory could not be opened, or the
    /// mark made in it.
    #[error(transparent)]
    Mark(Named),
    /// [`fill_run_directory`]: the run directory, `/tmp` or `/dev/shm`
    /// could not be made in the box.
    #[error("{}: {source}", .path.display())]
    BoxDirectory { path: PathBuf, source: io::Error },
    /// [`fill_run_directory`]: the starting tree could not be copied.
    #[error("filling the run directory: {0}")]
    StartingTree(copy::CopyError),
    /// [`fill_run_directory`]: one of the job's files could not be copied.
    #[error("{}: {source}", .from.display())]
    File { from: PathBuf, source: io::Error },
    /// [`open_input`].
    #[error("the input: {0}")]
    Input(io::Error),
    /// [`make_streams`]: a stream's file or directory in the box.
    #[error("{}: {source}", .path.display())]
    Stream { path: PathBuf, source: io::Error },
    /// [`open_input`], [`open_live`]: a live run's FIFOs.
    #[error("the live streams: {0}")]
    Live(io::Error),
    /// [`make_streams`]: the guard's own copy of the error stream.
    #[error("{0}")]
    Complaints(io::Error),
    /// [`contain`]: a copy of the referee could not be masked.
    #[error("masking {}: {source}", .path.display())]
    Mask { path: PathBuf, source: rustix::io::Errno },
    /// [`contain`]: the grader's directories could not be unmounted.
    #[error("unmounting {GRADER}: {0}")]
    Unmount(rustix::io::Errno),
    /// [`contain`]: the grader's directories were unmounted, yet are still
    /// there.
    #[error("the grader's directories are still under {GRADER}")]
    StillMounted,
    /// [`contain`]: the capability bounding set could not be emptied.
    #[error("dropping capabilities: {0}")]
    BoundingSet(rustix::io::Errno),
    /// [`contain`]: "no root" could not be set and locked.
    #[error("securebits: {0}")]
    SecureBits(rustix::io::Errno),
    /// [`set_limits`]: a limit could not be set.
    #[error("setrlimit {resource:?}: {}", .errno.desc())]
    Limit { resource: nix::sys::resource::Resource, errno: nix::errno::Errno },
    /// [`set_limits`]: the open-files limit could not be set (most often
    /// above the hard limit the guard was given).
    #[error("setrlimit RLIMIT_NOFILE to {files} open files: {} (the hard limit here is {hard})", .errno.desc())]
    OpenFiles { files: u64, errno: nix::errno::Errno, hard: String },
}

/// Set-up, first: the run's files, and the run directory this process
/// makes, have the same modes whatever the grader's umask was (000 or 077,
/// say). First, before this process creates any file of the run's.
pub(super) fn fix_umask() {
    rustix::process::umask(Mode::from_raw_mode(UMASK));
}

/// Set-up: nothing in the run may read this process's memory, files or
/// executable through /proc. Done before this process opens anything of
/// the run's, so that no file it holds is ever readable that way.
pub(super) fn become_undumpable() -> Result<(), SetupError> {
    nix::sys::prctl::set_dumpable(false).map_err(SetupError::Dumpable)
}

/// Set-up, without the container only: the container's empty bounding
/// set is missing, so the program must not be root (a root grader's runs
/// are its unused user) and must hold no capability once it is started:
/// none ambient to inherit, and none for a set-user-ID or file-capability
/// program to grant it (`no_new_privs`; the seccomp filter sets it too, if
/// it can be had). With the properties of this process, before it touches
/// the run's files.
pub(super) fn shed_privileges() -> Result<(), SetupError> {
    match rustix::thread::clear_ambient_capability_set() {
        // EINVAL: a kernel without ambient capabilities.
        Ok(()) | Err(rustix::io::Errno::INVAL) => {}
        Err(e) => return Err(SetupError::AmbientCapabilities(e)),
    }
    nix::sys::prctl::set_no_new_privs().map_err(SetupError::NoNewPrivs)
}

/// Set-up: opens the directory the answer goes out through, and marks it
/// (`.init`): the launcher tells a container that could not be made (no
/// mark) from a run that failed in it (a mark). So it comes before every
/// step that can fail for the run's own reasons, and the directory is held
/// by its handle, which outlives [`contain`]'s unmounting of its path.
pub(super) fn mark_started(places: &Places) -> Result<OwnedFd, SetupError> {
    let output = open_dir(&places.output).map_err(SetupError::Mark)?;
    create_at(&output, ".init").map_err(SetupError::Mark)?;
    Ok(output)
}

/// Set-up: makes the run directory, its `/tmp` and `/dev/shm`, all in the
/// box, and fills the run directory with the starting tree and the job's
/// files; returns the run directory. Before [`contain`], which unmounts
/// the grader's directories these come from, and before Landlock, whose
/// rules leave them out.
pub(super) fn fill_run_directory(config: &Config, places: &Places) -> Result<PathBuf, SetupError> {
    let run = places.boxed.join("run");
    for dir in ["run", "tmp", "shm"] {
        let path = places.boxed.join(dir);
        fs::create_dir(&path).map_err(|source| SetupError::BoxDirectory { path: path.clone(), source })?;
    }
    if places.contained {
        keep_the_jvm_from_locking(&places.boxed.join("tmp"))?;
    }
    let caps = copy::Caps { bytes: config.box_bytes, files: config.box_inodes, depth: copy::RUN_TREE_DEPTH };
    if let Some(start) = &places.start {
        copy::copy_tree(start, &run, caps, None).map_err(SetupError::StartingTree)?;
    }
    for name in &config.job.files {
        let from = places.input.join(FILES).join(name);
        fs::copy(&from, run.join(name)).map_err(|source| SetupError::File { from: from.clone(), source })?;
    }
    Ok(run)
}

/// Set-up, in the container: a JVM makes a file for its performance data
/// in `/tmp/hsperfdata_<user>/` and `flock`s it, which the seccomp filter
/// refuses (file locks are a channel between runs, see
/// [`seccomp`](crate::sandbox::seccomp)), and then it says so on standard
/// output, before the program's own first line. A file where that
/// directory would go (the run is `root` inside) makes the JVM do without
/// the shared data, saying nothing, as it does wherever `/tmp` is not its
/// own; nothing else reads it.
fn keep_the_jvm_from_locking(tmp: &Path) -> Result<(), SetupError> {
    let path = tmp.join("hsperfdata_root");
    File::create(&path).map_err(|source| SetupError::BoxDirectory { path: path.clone(), source })?;
    Ok(())
}

/// Set-up: opens the program's standard input (`/dev/null` if the job has
/// none). Before [`contain`], which unmounts the grader's input directory.
pub(super) fn open_input(config: &Config, places: &Places) -> Result<Stdio, SetupError> {
    if config.job.live {
        // Opened without waiting for a writer: a grader that ended the
        // session before the run got here has closed its end already (the
        // program then reads the end of its input at once). The program
        // reads it blocking.
        let live = OpenOptions::new()
            .read(true)
            .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_NONBLOCK)
            .open(places.input.join(LIVE_IN))
            .map_err(SetupError::Live)?;
        rustix::fs::fcntl_setfl(&live, rustix::fs::OFlags::empty())
            .map_err(|e| SetupError::Live(e.into()))?;
        Ok(Stdio::from(live))
    } else if config.job.stdin {
        Ok(Stdio::from(File::open(places.input.join(STDIN)).map_err(SetupError::Input)?))
    } else {
        Ok(Stdio::null())
    }
}

/// A live run's ends, opened by [`open_live`].
pub(super) struct Live {
    /// The program's standard output: the FIFO the grader reads.
    pub(super) output: File,
    /// The FIFO the grader writes to, or closes, to end the program.
    pub(super) end: File,
}

/// Set-up, for a live run only: opens the FIFOs the grader talks to the
/// program through (its input was opened by [`open_input`]). The grader
/// holds their other ends already, so neither open waits. Before
/// [`contain`], which unmounts the directories they are in, and before the
/// limits, as [`make_streams`] is.
pub(super) fn open_live(config: &Config, places: &Places) -> Result<Option<Live>, SetupError> {
    if !config.job.live {
        return Ok(None);
    }
    let output = OpenOptions::new()
        .write(true)
        .custom_flags(nix::libc::O_NOFOLLOW)
        .open(places.output.join(LIVE_OUT))
        .map_err(SetupError::Live)?;
    let end = OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_NONBLOCK)
        .open(places.input.join(LIVE_END))
        .map_err(SetupError::Live)?;
    Ok(Some(Live { output, end }))
}

/// The program's standard output and error, open in the box with no name.
pub(super) struct Streams {
    /// The ends the program writes: output, error.
    pub(super) program: (File, File),
    /// A copy of the error end, for the guard's own complaints (a program
    /// that cannot be started).
    pub(super) complaints: File,
    /// The ends the guard reads back once the program is done: output,
    /// error.
    pub(super) back: (File, File),
}

/// Set-up: the program's standard output and error live in the box too
/// (so they count towards its limit), with no name it could find: each is
/// opened twice and unlinked before the program starts. Like every file
/// the guard opens for the run, before the limits ([`set_limits`]), under
/// which this process's own descriptors would count towards the run's
/// open-files limit.
pub(super) fn make_streams(places: &Places) -> Result<Streams, SetupError> {
    let streams = places.boxed.join(".streams");
    let stream_error = |path: &Path| {
        let path = path.to_path_buf();
        move |source| SetupError::Stream { path, source }
    };
    fs::create_dir(&streams).map_err(stream_error(&streams))?;
    let stream = |name: &str| -> Result<(File, File), SetupError> {
        let path = streams.join(name);
        let write = OpenOptions::new()
            .write(true)
            .create_new(true)
            .custom_flags(nix::libc::O_NOFOLLOW)
            .open(&path)
            .map_err(stream_error(&path))?;
        let read = File::open(&path).map_err(stream_error(&path))?;
        fs::remove_file(&path).map_err(stream_error(&path))?;
        Ok((write, read))
    };
    let (stdout, stdout_back) = stream("stdout")?;
    let (stderr, stderr_back) = stream("stderr")?;
    fs::remove_dir(&streams).map_err(stream_error(&streams))?;
    let complaints = stderr.try_clone().map_err(SetupError::Complaints)?;
    Ok(Streams { program: (stdout, stderr), complaints, back: (stdout_back, stderr_back) })
}

/// Set-up: Landlock's rules in force, then the seccomp filter (none with
/// `no_seccomp`, a fault a test injected); the line that says whether
/// each is. Neither is fatal here: where the grading was promised one
/// that is missing, [`supervise`](super::supervise) starts nothing;
/// otherwise the grader's protections list says what is missing. After [`contain`], whose mounts both would
/// refuse (a process Landlock restricts may not change its mounts; the
/// filter refuses `mount` and `umount2`).
pub(super) fn confine(ruleset: Result<landlock::RulesetCreated, String>, no_seccomp: bool) -> Line {
    let landlock = match ruleset {
        Ok(ruleset) => restrict(ruleset),
        Err(e) => Err(e),
    };
    let seccomp =
        if no_seccomp { Err("a fault a test injected: no filter".to_owned()) } else { seccomp::install() };
    Line::Confined { landlock: landlock.err(), seccomp: seccomp.err() }
}

/// Set-up, inside the container only: hide every copy of the referee and
/// what `/proc` tells of the whole machine ([`mask_host_counters`]),
/// unmount the grader's directories, and make sure nothing started from
/// here can hold a capability. After every step that reads the grader's
/// directories ([`fill_run_directory`], [`open_input`]); before
/// [`confine`], after which Landlock and the filter refuse its mounts.
pub(super) fn contain(config: &Config) -> Result<(), SetupError> {
    use rustix::mount::{UnmountFlags, mount_bind, unmount};
    use rustix::thread::CapabilitiesSecureBits as Bits;
    for path in &config.hide {
        // Only what the container shows: a path under a bound directory.
        if fs::symlink_metadata(path).is_ok() {
            mount_bind("/dev/null", path)
                .map_err(|source| SetupError::Mask { path: path.clone(), source })?;
        }
    }
    mask_host_counters()?;
    // The grader's directories go with the tmpfs they are mounted in.
    unmount(GRADER, UnmountFlags::DETACH).map_err(SetupError::Unmount)?;
    if [START, INPUT, OUTPUT].iter().any(|dir| Path::new(dir).exists()) {
        return Err(SetupError::StillMounted);
    }
    // Root inside the namespace, but with an empty bounding set and
    // "no root" locked, an exec grants no capability.
    for cap in rustix::thread::CapabilitySet::all().iter() {
        match rustix::thread::remove_capability_from_bounding_set(cap) {
            // Capabilities this kernel does not know.
            Ok(()) | Err(rustix::io::Errno::INVAL) => {}
            Err(e) => return Err(SetupError::BoundingSet(e)),
        }
    }
    rustix::thread::set_capabilities_secure_bits(
        Bits::NO_ROOT | Bits::NO_ROOT_LOCKED | Bits::NO_SETUID_FIXUP | Bits::NO_SETUID_FIXUP_LOCKED,
    )
    .map_err(SetupError::SecureBits)
}

/// Set-up, inside the container only (from [`contain`]): every path of
/// [`MASKED`] this kernel has, the machine's counters in `/proc`, made
/// empty: a file has `/dev/null` bound over it (reading it gives nothing),
/// a directory an empty read-only tmpfs mounted on it. `/proc/sys` made
/// read-only would not do: its counters are read, not written. A run can
/// undo none of it: the filter refuses `mount` and `umount2`, and the
/// program holds no capability.
fn mask_host_counters() -> Result<(), SetupError> {
    use rustix::mount::{MountFlags, mount, mount_bind};
    for path in MASKED {
        let masked = match fs::symlink_metadata(path) {
            Ok(meta) if meta.is_dir() => mount(
                "tmpfs",
                path,
                "tmpfs",
                MountFlags::RDONLY | MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC,
                c"size=4k,nr_inodes=1,mode=0555",
            ),
            Ok(_) => mount_bind("/dev/null", path),
            // What this kernel does not have tells nothing.
            Err(_) => continue,
        };
        masked.map_err(|source| SetupError::Mask { path: PathBuf::from(path), source })?;
    }
    Ok(())
}

/// The most bytes the run may lock in memory (`RLIMIT_MEMLOCK`): locked
/// pages cannot be reclaimed or swapped, whoever else needs them. 64 KiB,
/// the kernel's old default, which software copes with (a JVM and the
/// compilers lock nothing; `io_uring` on kernels before 5.12 charged its
/// rings here and then gets too little).
pub(in crate::sandbox) const MEMLOCK: u64 = 64 << 10;
/// The most bytes the run's POSIX message queues may take
/// (`RLIMIT_MSGQUEUE`, kernel memory counted per user): 128 KiB, room for
/// one queue of the default size (10 messages of 8 KiB).
pub(in crate::sandbox) const MSGQUEUE: u64 = 128 << 10;
/// The most signals queued to the run at once (`RLIMIT_SIGPENDING`, kernel
/// memory counted per user): a few hundred, where the machine's default is
/// in the tens of thousands.
pub(in crate::sandbox) const SIGPENDING: u64 = 256;
/// The file mode creation mask of every run, whatever the grader's: what a
/// run's files are must not depend on who started the grading, or how.
pub(in crate::sandbox) const UMASK: u32 = 0o022;

/// Set-up, last: sets the run's limits on this process, for the program
/// to inherit. After every other step, so that none of the set-up's own
/// work (Landlock's descriptors, the filter's compilation, the guard's
/// files) is held to the run's limits; the line saying what confines the
/// run goes out once they are set.
pub(super) fn set_limits(config: &Config, tasks: Tasks) -> Result<(), SetupError> {
    use nix::sys::resource::{RLIM_INFINITY, Resource, getrlimit, setrlimit};
    let limits = &config.job.limits;
    let cpu = limits.cpu.as_secs() + u64::from(limits.cpu.subsec_nanos() > 0);
    let set = |resource, value: u64, hard: u64| {
        setrlimit(resource, value, hard).map_err(|errno| SetupError::Limit { resource, errno })
    };
    set(Resource::RLIMIT_CPU, cpu.max(1), cpu.max(1) + 1)?;
    // A memory cgroup counts what the run really holds; without one, the
    // address space of each process is what can be limited.
    let memory = if config.memory_cgroup { RLIM_INFINITY } else { limits.memory };
    set(Resource::RLIMIT_AS, memory, memory)?;
    set(Resource::RLIMIT_FSIZE, limits.output, limits.output)?;
    set(Resource::RLIMIT_CORE, 0, 0)?;
    // What every process on the machine shares: the table of open files,
    // locked memory, message queues and queued signals.
    let files = limits.open_files;
    setrlimit(Resource::RLIMIT_NOFILE, files, files).map_err(|errno| {
        let hard =
            getrlimit(Resource::RLIMIT_NOFILE).map_or_else(|_| "unknown".to_owned(), |(_, h)| h.to_string());
        SetupError::OpenFiles { files, errno, hard }
    })?;
    set(Resource::RLIMIT_MEMLOCK, MEMLOCK, MEMLOCK)?;
    set(Resource::RLIMIT_MSGQUEUE, MSGQUEUE, MSGQUEUE)?;
    set(Resource::RLIMIT_SIGPENDING, SIGPENDING, SIGPENDING)?;
    match tasks {
        Tasks::Held(held) => {
            // Never above the hard limit this process was given, which
            // only a privileged one may raise.
            let hard = getrlimit(Resource::RLIMIT_NPROC).map_or(RLIM_INFINITY, |(_, hard)| hard);
            let most = (held + limits.processes + 1).min(hard);
            set(Resource::RLIMIT_NPROC, most, most)
        }
        Tasks::InCgroup => Ok(()),
    }
}

/// What the kernel's user-wide process limit (`RLIMIT_NPROC`, processes
/// and threads of the real user id) must allow besides the run's own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Tasks {
    /// The user already holds this many tasks: none in a container (its
    /// user namespace counts the run's alone; this process is one of
    /// them), all of the run user's outside one (the grader's other runs,
    /// or an ordinary grader's own processes).
    Held(u64),
    /// The run's cgroup counts its processes (`pids.max`) and the user's
    /// limit is left as it is: outside a container it would count every
    /// process of the user, not the run's.
    InCgroup,
}

/// Set-up, before Landlock (which would hide `/proc`): what the process
/// limit must allow besides the run's own ([`Tasks`]).
pub(super) fn tasks_held(config: &Config, places: &Places) -> Tasks {
    if places.contained {
        Tasks::Held(0)
    } else if config.memory_cgroup {
        Tasks::InCgroup
    } else {
        Tasks::Held(tasks_of(rustix::process::getuid().as_raw()))
    }
}

/// How many tasks (processes and threads) whose real user id is `uid`
/// `/proc` shows, this process among them. A process that ends while it is
/// read is skipped; one started meanwhile is not seen, which takes from
/// the run's room, never adds to it.
fn tasks_of(uid: u32) -> u64 {
    let Ok(entries) = fs::read_dir("/proc") else { return 0 };
    let mut tasks = 0;
    for entry in entries.flatten() {
        if !entry.file_name().to_str().is_some_and(|name| name.bytes().all(|b| b.is_ascii_digit())) {
            continue;
        }
        let Ok(status) = fs::read_to_string(entry.path().join("status")) else { continue };
        let field = |name: &str| {
            status
                .lines()
                .find_map(|line| line.strip_prefix(name))
                .and_then(|rest| rest.split_whitespace().next())
        };
        if field("Uid:").and_then(|real| real.parse::<u32>().ok()) == Some(uid) {
            tasks += field("Threads:").and_then(|n| n.parse::<u64>().ok()).unwrap_or(1);
        }
    }
    tasks
}

/// Landlock's rules: read and run the system directories, everything in
/// the box, the devices, and (for this process only: nothing it starts can
/// reach it) the directory the answer goes out through. Without the
/// container, the host's `/dev` is left out (but for the devices) and so
/// are the copies of the referee in `hide`.
///
/// Set-up: built before [`contain`] and the limits, while the guard may
/// still open what it likes: each rule opens a descriptor (without the
/// container, one for each entry of a directory a copy of the referee is
/// hidden in), which the run's open-files limit would not allow. Its
/// failure ends nothing: [`confine`] reports it.
pub(super) fn build_landlock(
    places: &Places,
    output: &OwnedFd,
    hide: &[PathBuf],
) -> Result<landlock::RulesetCreated, String> {
    use landlock::{
        ABI, Access, AccessFs, AccessNet, PathBeneath, Ruleset, RulesetAttr, RulesetCreatedAttr, Scope,
        path_beneath_rules,
    };
    let abi = ABI::V6;
    let readable: Vec<PathBuf> = if places.contained {
        readable().map(PathBuf::from).collect()
    } else {
        // The host's /dev is not the skeleton's: only its devices.
        readable_except(readable().filter(|d| *d != "/dev").map(PathBuf::from), hide)
    };
    let devices: Vec<&str> = devices().collect();
    (|| {
        Ruleset::default()
            .handle_access(AccessFs::from_all(abi))?
            .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)?
            .scope(Scope::AbstractUnixSocket | Scope::Signal)?
            .create()?
            .add_rules(path_beneath_rules(readable, AccessFs::from_read(abi)))?
            .add_rules(path_beneath_rules(devices, AccessFs::from_all(abi)))?
            .add_rules(path_beneath_rules([&places.boxed], AccessFs::from_all(abi)))?
            .add_rule(PathBeneath::new(output.as_fd(), AccessFs::from_all(abi)))
    })()
    .map_err(|e: landlock::RulesetError| e.to_string())
}

/// The paths whose trees cover all of `dirs` (links followed) but the
/// paths in `hide` (real paths, as [`fs::canonicalize`] gives them): a
/// directory above a hidden path is replaced by its entries, down to the
/// hidden path itself, which is left out. Links among those entries are
/// left out too: as with a rule on the whole directory, what one leads to
/// is readable only if it is itself under `dirs`.
fn readable_except(dirs: impl IntoIterator<Item = PathBuf>, hide: &[PathBuf]) -> Vec<PathBuf> {
    fn split(path: PathBuf, hide: &[PathBuf], readable: &mut Vec<PathBuf>) {
        if hide.contains(&path) {
            return;
        }
        if !hide.iter().any(|h| h.starts_with(&path)) {
            readable.push(path);
            return;
        }
        if let Ok(entries) = fs::read_dir(&path) {
            for entry in entries.flatten() {
                if entry.file_type().is_ok_and(|t| !t.is_symlink()) {
                    split(entry.path(), hide, readable);
                }
            }
        }
    }
    let mut readable = Vec::new();
    for dir in dirs {
        if let Ok(real) = fs::canonicalize(&dir) {
            split(real, hide, &mut readable);
        }
    }
    readable
}

fn restrict(ruleset: landlock::RulesetCreated) -> Result<(), String> {
    match ruleset.restrict_self() {
        Ok(status) if status.ruleset == landlock::RulesetStatus::NotEnforced => {
            Err("the kernel does not enforce Landlock (not built in or not enabled)".to_owned())
        }
        Ok(_) => Ok(()),
        Err(e) => Err(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tasks_of_a_user_count_this_process_and_every_thread_it_holds() {
        let me = rustix::process::getuid().as_raw();
        let (stop, wait) = std::sync::mpsc::channel::<()>();
        let holder = std::thread::spawn(move || wait.recv());
        // At least this thread and the one that waits; a user id no one
        // has holds none.
        let during = tasks_of(me);
        assert!(during >= 2, "{during}");
        assert_eq!(tasks_of(u32::MAX - 7), 0);
        drop(stop);
        let _ = holder.join();
    }

    #[test]
    fn readable_except_covers_all_but_the_hidden_paths_and_links_into_them() {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        for sub in ["a/b", "a/c", "x"] {
            fs::create_dir_all(root.join(sub)).unwrap();
        }
        for file in ["a/b/hidden", "a/b/other", "a/file"] {
            File::create(root.join(file)).unwrap();
        }
        // A link beside the hidden path, and a link to the directory above it.
        std::os::unix::fs::symlink(root.join("a/b/hidden"), root.join("a/b/alias")).unwrap();
        std::os::unix::fs::symlink(root.join("a/b"), root.join("a/up")).unwrap();
        let hide = [root.join("a/b/hidden")];
        let dirs = ["a", "x", "missing", "a/up"].map(|d| root.join(d));
        let mut readable = readable_except(dirs, &hide);
        readable.sort();
        // "a/up" leads to a/b, which is split again: its other file twice.
        let expected = ["a/b/other", "a/b/other", "a/c", "a/file", "x"].map(|p| root.join(p));
        assert_eq!(readable, expected);
        // With nothing hidden, each directory is covered whole.
        assert_eq!(readable_except([root.join("a")], &[]), [root.join("a")]);
    }
}
