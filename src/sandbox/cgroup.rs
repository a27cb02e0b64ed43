//! A control group for each run: memory and process limits that hold for
//! all of a run's processes together, and the kernel's word on whether the
//! run ran out of memory.
//!
//! rlimits are per process, so children together, memfd, tmpfs and System V
//! shared memory all escape them; a cgroup counts every page charged to
//! any process of the run. This is plain file work on cgroupfs:
//!
//! - **cgroup v2**: the parent is the grader's own cgroup (a delegated
//!   systemd scope, or any cgroup for root), or for root the root cgroup.
//!   Since a v2 cgroup with processes may not hand controllers to its
//!   children, the grader first moves itself into a leaf
//!   `<parent>/ttt-grader-<pid>`, then enables `+memory +pids` in the
//!   parent's `cgroup.subtree_control`, and `+cpu` where the parent offers
//!   it; runs are `<parent>/ttt-run-<pid>-<random>` (no count a run could
//!   read in `/proc/self/cgroup`). The last user puts things
//!   back as they were.
//! - **cgroup v1** (root in practice): `<mount>/ttt-run-<pid>-<random>` in the
//!   `memory` and the `pids` hierarchies, and the `cpu` one where it is
//!   mounted.
//!
//! The CPU: every run's group has the same weight (v2 `cpu.weight` 100, v1
//! `cpu.shares` 1024), so runs at once share the CPU as groups, not as
//! processes: a run spinning 60 processes gets no more than a run of one.
//! Where the `cpu` controller is not delegated, runs go on without it, and
//! [`RunGroup::no_cpu`] says why (the protections list shows it missing).

use std::fs::{self, DirBuilder};
use std::io::{self, ErrorKind};
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::thread;
use std::time::Duration;

use nix::sys::signal::{Signal, kill};
use nix::unistd::{AccessFlags, Pid, access, geteuid};

use super::cpu_clock::Source;
use super::scratch::unguessable;

/// The cgroup v2 set-up this process made (the leaf it moved into, the
/// controllers it enabled) and how many users it has; shared because the
/// process can move itself only once.
static SETUP: Mutex<Option<Setup>> = Mutex::new(None);

/// How many times [`RunGroup::kill_all`] looks for processes left.
const KILL_ROUNDS: u32 = 100;
/// How many times a run's directory is removed before giving up.
const RMDIR_ROUNDS: u32 = 50;
/// The pause between rounds of killing or removing.
const PAUSE: Duration = Duration::from_millis(5);

/// The control groups this grading makes its runs in (found once per grading).
#[derive(Debug)]
pub struct Cgroups {
    /// Where the runs' groups go.
    hierarchy: Hierarchy,
}

/// Where the runs' groups go, by kind of cgroup.
#[derive(Debug)]
enum Hierarchy {
    /// One cgroup v2 group, with `memory` and `pids` enabled for its
    /// children, and `cpu` unless `no_cpu` says why not; the lease keeps
    /// the set-up as long as it is needed.
    V2 { parent: PathBuf, lease: Lease, no_cpu: Option<String> },
    /// The groups the `memory`, `pids` and `cpu` v1 hierarchies are mounted
    /// at (the same directory for those mounted together), or why there
    /// is no `cpu` one to use.
    V1 { memory: PathBuf, pids: PathBuf, cpu: Result<PathBuf, String> },
}

/// What this process did to a cgroup v2 parent, to be undone by the last user.
#[derive(Debug)]
struct Setup {
    /// The grader's cgroup (or the root cgroup) that holds the runs.
    parent: PathBuf,
    /// The leaf the grader moved itself into, if it did.
    leaf: Option<PathBuf>,
    /// The controllers this process enabled in the parent's subtree.
    enabled: Vec<&'static str>,
    /// Why the runs get no `cpu` controller, if they do not.
    no_cpu: Option<String>,
    /// How many [`Lease`]s are alive.
    users: usize,
}

/// One user of the process's cgroup v2 set-up; the last one dropped
/// undoes it.
#[derive(Debug)]
struct Lease;

impl Lease {
    /// Counts one more user of the set-up there is.
    fn acquire() -> Lease {
        if let Some(setup) = SETUP.lock().unwrap_or_else(PoisonError::into_inner).as_mut() {
            setup.users += 1;
        }
        Lease
    }
}

impl Clone for Lease {
    fn clone(&self) -> Lease {
        Lease::acquire()
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        let mut guard = SETUP.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(setup) = guard.as_mut() else { return };
        setup.users = setup.users.saturating_sub(1);
        if setup.users == 0
            && let Some(setup) = guard.take()
        {
            undo(&setup);
        }
    }
}

impl Cgroups {
    /// Finds a cgroup v2 (or v1) hierarchy this process may make groups in; Err(reason) if none.
    pub fn open() -> Result<Cgroups, String> {
        let mountinfo = fs::read_to_string("/proc/self/mountinfo")
            .map_err(|e| format!("cannot read /proc/self/mountinfo: {e}"))?;
        let v2 = match open_v2(&mountinfo) {
            Ok((parent, lease, no_cpu)) => {
                return Ok(Cgroups { hierarchy: Hierarchy::V2 { parent, lease, no_cpu } });
            }
            Err(why) => why,
        };
        let v1 = match open_v1(&mountinfo) {
            Ok((memory, pids, cpu)) => return Ok(Cgroups { hierarchy: Hierarchy::V1 { memory, pids, cpu } }),
            Err(why) => why,
        };
        Err(format!(
            "no cgroup v2 with memory and pids can be written by this user ({v2}), \
             and no writable cgroup v1 memory and pids hierarchy ({v1})"
        ))
    }

    /// Which kind was found, for the protections list: "cgroup v2" or "cgroup v1".
    #[must_use]
    pub fn kind(&self) -> &'static str {
        match self.hierarchy {
            Hierarchy::V2 { .. } => "cgroup v2",
            Hierarchy::V1 { .. } => "cgroup v1",
        }
    }

    /// Makes the group for one run with these limits (bytes of memory, processes).
    ///
    /// The process limit counts threads too (the kernel's `pids` controller
    /// counts tasks).
    pub fn create(&self, memory: u64, processes: u64) -> io::Result<RunGroup> {
        let mut tries = 0;
        loop {
            // The grader's id lets a later grader sweep what this one
            // left; the rest is random, not a count of the runs before.
            let name = format!("ttt-run-{}-{}", std::process::id(), unguessable());
            match self.make(&name, memory, processes) {
                // Left by an earlier grader that had this process id.
                Err(e) if e.kind() == ErrorKind::AlreadyExists && tries < 100 => tries += 1,
                made => return made,
            }
        }
    }

    /// Makes the group `name` with these limits.
    fn make(&self, name: &str, memory: u64, processes: u64) -> io::Result<RunGroup> {
        match &self.hierarchy {
            Hierarchy::V2 { parent, lease, no_cpu } => {
                let dir = parent.join(name);
                make_dir(&dir)?;
                let group = RunGroup {
                    v2: true,
                    dirs: vec![dir],
                    pids: 0,
                    cpu: no_cpu.clone().map_or(Ok(0), Err),
                    _lease: Some(lease.clone()),
                };
                group.limit(memory, processes)?;
                Ok(group)
            }
            Hierarchy::V1 { memory: memory_root, pids: pids_root, cpu: cpu_root } => {
                let mut group = RunGroup { v2: false, dirs: Vec::new(), pids: 0, cpu: Ok(0), _lease: None };
                // Each hierarchy's directory once, in the order memory,
                // pids, cpu; a directory made is removed with the group
                // should a later one fail.
                let mut index = |root: &PathBuf| -> io::Result<usize> {
                    let dir = root.join(name);
                    if let Some(at) = group.dirs.iter().position(|d| *d == dir) {
                        return Ok(at);
                    }
                    make_dir(&dir)?;
                    group.dirs.push(dir);
                    Ok(group.dirs.len() - 1)
                };
                index(memory_root)?;
                let pids = index(pids_root)?;
                let cpu = match cpu_root {
                    Ok(root) => Ok(index(root)?),
                    Err(why) => Err(why.clone()),
                };
                group.pids = pids;
                group.cpu = cpu;
                group.limit(memory, processes)?;
                Ok(group)
            }
        }
    }
}

/// One run's group; removed (after killing anything left in it) when dropped.
#[derive(Debug)]
pub struct RunGroup {
    /// Whether this is a cgroup v2 group (else v1).
    v2: bool,
    /// The group's directories: v2 the one; v1 the memory one, then the
    /// pids and the cpu ones when those hierarchies are mounted apart.
    dirs: Vec<PathBuf>,
    /// Which of `dirs` holds the pids controller's files.
    pids: usize,
    /// Which of `dirs` holds the cpu controller's files, or why the group
    /// has no cpu controller.
    cpu: Result<usize, String>,
    /// Keeps the cgroup v2 set-up while the group is there.
    _lease: Option<Lease>,
}

impl RunGroup {
    /// Sets the group's limits (bytes of memory, processes), swap included.
    pub fn limit(&self, memory: u64, processes: u64) -> io::Result<()> {
        let memory_dir = &self.dirs[0];
        if self.v2 {
            write(&memory_dir.join("memory.max"), &memory.to_string())?;
            match write(&memory_dir.join("memory.swap.max"), "0") {
                // No swap accounting: no swap to speak of either.
                Err(e) if e.kind() == ErrorKind::NotFound => {}
                other => other?,
            }
        } else {
            // The memory and swap limit may not go below the memory limit.
            let memsw = memory_dir.join("memory.memsw.limit_in_bytes");
            let limit = memory_dir.join("memory.limit_in_bytes");
            let lower = number(&limit).is_some_and(|now| memory < now);
            if lower || !memsw.exists() {
                write(&limit, &memory.to_string())?;
            }
            if memsw.exists() {
                write(&memsw, &memory.to_string())?;
                if !lower {
                    write(&limit, &memory.to_string())?;
                }
            }
        }
        write(&self.dirs[self.pids].join("pids.max"), &processes.to_string())?;
        // The same weight for every run, whatever the parent's default.
        if let Ok(cpu) = self.cpu {
            let (file, weight) = if self.v2 { ("cpu.weight", "100") } else { ("cpu.shares", "1024") };
            write(&self.dirs[cpu].join(file), weight)?;
        }
        Ok(())
    }

    /// Why the run has no share of the CPU of its own (no `cpu` controller
    /// for its group), or `None` when it has.
    #[must_use]
    pub fn no_cpu(&self) -> Option<String> {
        self.cpu.as_ref().err().cloned()
    }

    /// Where the CPU time of the group's processes is read while they run
    /// ([`CpuClock`](super::cpu_clock::CpuClock)), `first` being the run's
    /// first process: v2 its `cpu.stat`, which every group has; v1 its
    /// processes, listed in `cgroup.procs` (the `cpuacct` hierarchy, which
    /// would count them, is not one a run's group is made in).
    #[must_use]
    pub(super) fn cpu_source(&self, first: u32) -> Source {
        Source::Group { dir: self.dirs[0].clone(), v2: self.v2, first }
    }

    /// Puts process `pid` (and so every process it starts later) in the group.
    pub fn add(&self, pid: u32) -> io::Result<()> {
        for dir in &self.dirs {
            write(&dir.join("cgroup.procs"), &pid.to_string())?;
        }
        Ok(())
    }

    /// Whether the kernel killed a process of the run for want of memory (or refused it memory).
    ///
    /// v2: `oom_kill` or `oom` in `memory.events`; v1: `oom_kill` in
    /// `memory.oom_control`. See also [`RunGroup::hit_limit`].
    #[must_use]
    pub fn out_of_memory(&self) -> bool {
        if self.v2 {
            let events = self.read("memory.events").unwrap_or_default();
            counter(&events, "oom_kill").unwrap_or(0) > 0 || counter(&events, "oom").unwrap_or(0) > 0
        } else {
            let control = self.read("memory.oom_control").unwrap_or_default();
            counter(&control, "oom_kill").unwrap_or(0) > 0
        }
    }

    /// Whether the run's memory ever reached the limit (v2 `max` in
    /// `memory.events`, v1 `memory.failcnt`, or either's peak at the
    /// limit), even if the kernel then found room by reclaiming: a run
    /// that died of a signal after this most likely died for want of memory.
    #[must_use]
    pub fn hit_limit(&self) -> bool {
        let number = |file: &str| self.read(file).and_then(|text| text.trim().parse::<u64>().ok());
        let (hits, limit) = if self.v2 {
            (counter(&self.read("memory.events").unwrap_or_default(), "max"), number("memory.max"))
        } else {
            // Some kernels leave failcnt at 0 even after an OOM kill.
            let hits = number("memory.failcnt").unwrap_or(0) + number("memory.memsw.failcnt").unwrap_or(0);
            (Some(hits), number("memory.limit_in_bytes"))
        };
        hits.unwrap_or(0) > 0 || self.peak().zip(limit).is_some_and(|(peak, limit)| peak >= limit)
    }

    /// The most memory the run's processes held at once, in bytes, when the kernel says.
    #[must_use]
    pub fn peak(&self) -> Option<u64> {
        let file = if self.v2 { "memory.peak" } else { "memory.max_usage_in_bytes" };
        self.read(file)?.trim().parse().ok()
    }

    /// Kills every process in the group: on v2 by `cgroup.kill` where the
    /// kernel has it (5.14 on), and in any case by `SIGKILL` to each process
    /// listed, round after round until none is left (at most 100 rounds).
    pub fn kill_all(&self) {
        if self.v2 {
            // Kernels before 5.14 have no cgroup.kill; the loop does it then.
            let _ = fs::write(self.dirs[0].join("cgroup.kill"), "1");
        }
        let me = std::process::id();
        for _ in 0..KILL_ROUNDS {
            let pids = self.procs();
            if pids.is_empty() {
                return;
            }
            for pid in pids {
                if pid != me
                    && let Ok(pid) = i32::try_from(pid)
                {
                    let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
                }
            }
            thread::sleep(PAUSE);
        }
    }

    /// The processes in the group (in any of its directories).
    fn procs(&self) -> Vec<u32> {
        let mut pids = Vec::new();
        for dir in &self.dirs {
            if let Ok(text) = fs::read_to_string(dir.join("cgroup.procs")) {
                for pid in text.split_whitespace().filter_map(|pid| pid.parse::<u32>().ok()) {
                    if pid > 0 && !pids.contains(&pid) {
                        pids.push(pid);
                    }
                }
            }
        }
        pids
    }

    /// The text of one of the group's memory files.
    fn read(&self, file: &str) -> Option<String> {
        fs::read_to_string(self.dirs[0].join(file)).ok()
    }
}

impl Drop for RunGroup {
    fn drop(&mut self) {
        self.kill_all();
        for dir in &self.dirs {
            remove_dir(dir);
        }
    }
}

/// Finds a cgroup v2 group this process can make run groups under, and sets
/// it up (once per process): its path, a lease on the set-up, and why its
/// runs get no `cpu` controller, if they do not.
fn open_v2(mountinfo: &str) -> Result<(PathBuf, Lease, Option<String>), String> {
    let mut guard = SETUP.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(setup) = guard.as_mut() {
        setup.users += 1;
        return Ok((setup.parent.clone(), Lease, setup.no_cpu.clone()));
    }
    let Some(mount) = mounts(mountinfo).into_iter().find(|m| m.fstype == "cgroup2") else {
        return Err("no cgroup v2 is mounted".to_owned());
    };
    let cgroups =
        fs::read_to_string("/proc/self/cgroup").map_err(|e| format!("cannot read /proc/self/cgroup: {e}"))?;
    let own = cgroups
        .lines()
        .find_map(|line| line.strip_prefix("0::"))
        .ok_or_else(|| "this process is in no cgroup v2".to_owned())?;
    let mut candidates = Vec::new();
    match within(&mount, own) {
        Some(dir) => candidates.push(dir),
        None => return Err(format!("this process's cgroup {own} is outside the cgroup v2 mounted here")),
    }
    // Root whose own cgroup will not do can still use the root cgroup,
    // which may have processes and children with controllers at once.
    if geteuid().is_root() && !mount.point.join("cgroup.type").exists() && candidates[0] != mount.point {
        candidates.push(mount.point.clone());
    }
    let mut reasons = Vec::new();
    for parent in candidates {
        match prepare(&parent) {
            Ok(setup) => {
                let parent = setup.parent.clone();
                let no_cpu = setup.no_cpu.clone();
                *guard = Some(setup);
                drop(guard);
                sweep(&parent);
                return Ok((parent, Lease, no_cpu));
            }
            Err(why) => reasons.push(why),
        }
    }
    Err(reasons.join("; "))
}

/// Makes `parent` able to hold run groups: moves this process into a leaf
/// below it if it is in it, and enables `memory` and `pids` for its
/// children, and `cpu` where it can (see [`enable_cpu`]).
fn prepare(parent: &Path) -> Result<Setup, String> {
    let shown = parent.display();
    let controllers = fs::read_to_string(parent.join("cgroup.controllers"))
        .map_err(|e| format!("cannot read {shown}/cgroup.controllers: {e}"))?;
    let missing: Vec<&str> = ["memory", "pids"]
        .into_iter()
        .filter(|c| !controllers.split_whitespace().any(|have| have == *c))
        .collect();
    if !missing.is_empty() {
        return Err(format!("{shown} offers no {} controller", missing.join(" or ")));
    }
    access(parent, AccessFlags::W_OK)
        .map_err(|e| format!("{shown} cannot be written by this user: {}", e.desc()))?;
    let subtree = fs::read_to_string(parent.join("cgroup.subtree_control"))
        .map_err(|e| format!("cannot read {shown}/cgroup.subtree_control: {e}"))?;
    let enable: Vec<&'static str> = ["memory", "pids"]
        .into_iter()
        .filter(|c| !subtree.split_whitespace().any(|have| have == *c))
        .collect();
    // The root cgroup (which has no cgroup.type) is exempt from the rule
    // that a group with processes gives its children no controllers.
    let root = !parent.join("cgroup.type").exists();
    let me = std::process::id();
    let procs = fs::read_to_string(parent.join("cgroup.procs"))
        .map_err(|e| format!("cannot read {shown}/cgroup.procs: {e}"))?;
    let procs: Vec<u32> = procs.split_whitespace().filter_map(|p| p.parse().ok()).collect();
    let mut leaf = None;
    if !root && procs.contains(&me) {
        let others = procs.iter().filter(|&&p| p != me).count();
        if others > 0 {
            return Err(format!(
                "{shown} holds {others} other process{} besides the grader, so it cannot have groups of its own",
                if others == 1 { "" } else { "es" }
            ));
        }
        let dir = parent.join(format!("ttt-grader-{me}"));
        match make_dir(&dir) {
            Err(e) if e.kind() != ErrorKind::AlreadyExists => return Err(e.to_string()),
            _ => {}
        }
        // Moves every thread of the grader.
        if let Err(e) = write(&dir.join("cgroup.procs"), &me.to_string()) {
            let _ = fs::remove_dir(&dir);
            return Err(e.to_string());
        }
        leaf = Some(dir);
    }
    if !enable.is_empty() {
        let change: Vec<String> = enable.iter().map(|c| format!("+{c}")).collect();
        if let Err(e) = write(&parent.join("cgroup.subtree_control"), &change.join(" ")) {
            if let Some(dir) = &leaf {
                let _ = write(&parent.join("cgroup.procs"), &me.to_string());
                let _ = fs::remove_dir(dir);
            }
            return Err(e.to_string());
        }
    }
    let mut enabled = enable;
    let no_cpu = match enable_cpu(parent, &controllers, &subtree) {
        Ok(true) => {
            enabled.push("cpu");
            None
        }
        Ok(false) => None,
        Err(why) => Some(why),
    };
    Ok(Setup { parent: parent.to_path_buf(), leaf, enabled, no_cpu, users: 1 })
}

/// Enables the `cpu` controller for `parent`'s children (given the text of
/// its `cgroup.controllers` and `cgroup.subtree_control`), so that runs
/// share the CPU by their groups' equal weights: whether this call enabled
/// it (`false`: it already was), or why it cannot be had. Apart from
/// `memory` and `pids`, since a grading goes on without it: it may not be
/// delegated (a systemd scope without `Delegate=cpu`), and the kernel
/// refuses it while a realtime process is in a group below.
fn enable_cpu(parent: &Path, controllers: &str, subtree: &str) -> Result<bool, String> {
    let shown = parent.display();
    if subtree.split_whitespace().any(|have| have == "cpu") {
        return Ok(false);
    }
    if !controllers.split_whitespace().any(|have| have == "cpu") {
        return Err(format!("{shown} offers no cpu controller (not delegated)"));
    }
    write(&parent.join("cgroup.subtree_control"), "+cpu").map(|()| true).map_err(|e| e.to_string())
}

/// Puts a cgroup v2 parent back as this process found it, as far as it can
/// without disturbing groups others made there since.
fn undo(setup: &Setup) {
    let parent = &setup.parent;
    let alone = fs::read_dir(parent).is_ok_and(|entries| {
        entries.flatten().all(|entry| {
            !entry.file_type().is_ok_and(|t| t.is_dir())
                || setup.leaf.as_ref().is_some_and(|l| *l == entry.path())
        })
    });
    if alone && !setup.enabled.is_empty() {
        let change: Vec<String> = setup.enabled.iter().map(|c| format!("-{c}")).collect();
        let _ = fs::write(parent.join("cgroup.subtree_control"), change.join(" "));
    }
    if let Some(leaf) = &setup.leaf
        && fs::write(parent.join("cgroup.procs"), std::process::id().to_string()).is_ok()
    {
        let _ = fs::remove_dir(leaf);
    }
}

/// Finds the `memory` and `pids` cgroup v1 hierarchies and checks they can
/// be written: their mount points, and the `cpu` hierarchy's or why there
/// is none to use.
fn open_v1(mountinfo: &str) -> Result<(PathBuf, PathBuf, Result<PathBuf, String>), String> {
    let mounts = mounts(mountinfo);
    let find = |controller: &str| {
        mounts
            .iter()
            .find(|m| m.fstype == "cgroup" && m.options.split(',').any(|o| o == controller))
            .map(|m| m.point.clone())
    };
    let memory = find("memory").ok_or_else(|| "none is mounted with memory".to_owned())?;
    let pids = find("pids").ok_or_else(|| "none is mounted with pids".to_owned())?;
    for dir in [&memory, &pids] {
        access(dir.as_path(), AccessFlags::W_OK)
            .map_err(|e| format!("{} cannot be written by this user: {}", dir.display(), e.desc()))?;
    }
    let cpu =
        find("cpu").ok_or_else(|| "no cgroup v1 hierarchy is mounted with cpu".to_owned()).and_then(|cpu| {
            access(cpu.as_path(), AccessFlags::W_OK)
                .map(|()| cpu.clone())
                .map_err(|e| format!("{} cannot be written by this user: {}", cpu.display(), e.desc()))
        });
    let mut swept: Vec<&PathBuf> = Vec::new();
    for root in [Some(&memory), Some(&pids), cpu.as_ref().ok()].into_iter().flatten() {
        if !swept.contains(&root) {
            sweep(root);
            swept.push(root);
        }
    }
    Ok((memory, pids, cpu))
}

/// Removes the empty groups that graders no longer running left in `dir`
/// (a grader killed outright has no chance to).
fn sweep(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let owner = name.strip_prefix("ttt-grader-").or_else(|| {
            name.strip_prefix("ttt-run-").and_then(|rest| rest.split_once('-').map(|(pid, _)| pid))
        });
        let Some(owner) = owner.and_then(|pid| pid.parse::<u32>().ok()) else { continue };
        if owner != std::process::id() && !Path::new("/proc").join(owner.to_string()).exists() {
            // Fails, as it should, when processes are still in it.
            let _ = fs::remove_dir(entry.path());
        }
    }
}

/// One line of /proc/self/mountinfo, the parts needed here.
#[derive(Debug, PartialEq, Eq)]
struct Mount {
    /// The path within the file system that is mounted (a cgroup, here).
    root: String,
    /// Where it is mounted.
    point: PathBuf,
    /// The file system type.
    fstype: String,
    /// The file system's own options (the v1 controllers, here).
    options: String,
}

/// The mounts listed in the text of /proc/self/mountinfo.
fn mounts(mountinfo: &str) -> Vec<Mount> {
    mountinfo
        .lines()
        .filter_map(|line| {
            let (front, back) = line.split_once(" - ")?;
            let mut front = front.split(' ');
            let root = unescape(front.nth(3)?);
            let point = PathBuf::from(unescape(front.next()?));
            let mut back = back.split(' ');
            let fstype = back.next()?.to_owned();
            let options = back.nth(1).unwrap_or_default().to_owned();
            Some(Mount { root, point, fstype, options })
        })
        .collect()
}

/// Undoes mountinfo's octal escapes (`\040` for a space and the like).
fn unescape(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\'
            && let Some(byte) = field.get(i + 1..i + 4).and_then(|digits| u8::from_str_radix(digits, 8).ok())
        {
            out.push(byte);
            i += 4;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The directory of cgroup `path` (as /proc/self/cgroup names it) under
/// `mount`, if the mount shows it.
fn within(mount: &Mount, path: &str) -> Option<PathBuf> {
    let root = mount.root.trim_end_matches('/');
    let rest = if root.is_empty() { path } else { path.strip_prefix(root)? };
    if !(rest.is_empty() || rest.starts_with('/')) || rest.split('/').any(|part| part == "..") {
        return None;
    }
    let rest = rest.trim_start_matches('/');
    Some(if rest.is_empty() { mount.point.clone() } else { mount.point.join(rest) })
}

/// The value of `key` in a cgroup file of `key value` lines.
fn counter(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|line| {
        let (name, value) = line.split_once(' ')?;
        if name == key { value.trim().parse().ok() } else { None }
    })
}

/// Makes a group's directory (mode 0755), saying which on failure.
/// The number a cgroup file holds.
fn number(file: &Path) -> Option<u64> {
    fs::read_to_string(file).ok()?.trim().parse().ok()
}

fn make_dir(dir: &Path) -> io::Result<()> {
    DirBuilder::new()
        .mode(0o755)
        .create(dir)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", dir.display())))
}

/// Writes a cgroup file, saying which on failure.
fn write(file: &Path, text: &str) -> io::Result<()> {
    fs::write(file, text).map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", file.display())))
}

/// Removes a run's group directory, trying again while the kernel still
/// counts the processes just killed; never fails loudly.
fn remove_dir(dir: &Path) {
    for _ in 0..RMDIR_ROUNDS {
        match fs::remove_dir(dir) {
            Err(e) if e.kind() != ErrorKind::NotFound => thread::sleep(PAUSE),
            _ => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::io::Write;
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command, Stdio};
    use std::time::Instant;

    /// The cgroups here, or `None` (having said why) where there are none.
    fn cgroups() -> Option<Cgroups> {
        match Cgroups::open() {
            Ok(cgroups) => Some(cgroups),
            Err(why) => {
                eprintln!("skipped: {why}");
                None
            }
        }
    }

    /// A child that waits for a line on its standard input, then runs `script`.
    fn waiting(script: &str) -> std::process::Child {
        Command::new("sh")
            .arg("-c")
            .arg(format!("read x; {script}"))
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    #[test]
    fn a_group_holds_its_processes_and_dies_with_them() {
        let Some(cgroups) = cgroups() else { return };
        eprintln!("{}", cgroups.kind());
        let group = cgroups.create(64 << 20, 8).unwrap();
        let dirs = group.dirs.clone();
        assert!(dirs.iter().all(|d| d.is_dir()));
        let mut child = Command::new("sleep").arg("30").spawn().unwrap();
        group.add(child.id()).unwrap();
        for dir in &dirs {
            let procs = fs::read_to_string(dir.join("cgroup.procs")).unwrap();
            assert!(procs.lines().any(|p| p == child.id().to_string()), "{procs}");
        }
        let began = Instant::now();
        drop(group);
        let status = child.wait().unwrap();
        assert_eq!(status.signal(), Some(9), "{status}");
        assert!(began.elapsed() < Duration::from_secs(10));
        for dir in &dirs {
            assert!(!dir.exists(), "{} is left", dir.display());
        }
    }

    #[test]
    fn too_much_memory_is_killed_and_said() {
        let Some(cgroups) = cgroups() else { return };
        let group = cgroups.create(64 << 20, 8).unwrap();
        let mut child = waiting("exec python3 -c 'b = bytearray(200 << 20); import time; time.sleep(5)'");
        group.add(child.id()).unwrap();
        assert!(!group.out_of_memory());
        child.stdin.take().unwrap().write_all(b"go\n").unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.signal(), Some(9), "{status}");
        assert!(group.out_of_memory());
        assert!(group.hit_limit());
        if let Some(peak) = group.peak() {
            assert!(peak <= 65 << 20, "peak {peak}");
            assert!(peak > 32 << 20, "peak {peak}");
        }
    }

    /// What rlimits miss: a file in memory (memfd) belongs to no address
    /// space, but its pages are charged to the group.
    #[test]
    fn memory_files_count_too() {
        let Some(cgroups) = cgroups() else { return };
        let group = cgroups.create(64 << 20, 8).unwrap();
        let mut child = waiting(
            "exec python3 -c 'import os; f = os.memfd_create(\"x\")\nfor _ in range(200): os.write(f, bytes(1 << 20))'",
        );
        group.add(child.id()).unwrap();
        child.stdin.take().unwrap().write_all(b"go\n").unwrap();
        let status = child.wait().unwrap();
        assert!(!status.success(), "{status}");
        assert!(group.out_of_memory());
    }

    #[test]
    fn a_run_within_its_memory_is_not_out_of_it() {
        let Some(cgroups) = cgroups() else { return };
        let group = cgroups.create(64 << 20, 8).unwrap();
        let mut child = waiting("exec python3 -c 'b = bytearray(8 << 20)'");
        group.add(child.id()).unwrap();
        child.stdin.take().unwrap().write_all(b"go\n").unwrap();
        assert!(child.wait().unwrap().success());
        assert!(!group.out_of_memory());
        assert!(group.peak().is_none_or(|peak| peak >= 8 << 20));
    }

    #[test]
    fn the_number_of_processes_is_capped() {
        let Some(cgroups) = cgroups() else { return };
        let group = cgroups.create(64 << 20, 8).unwrap();
        let mut child =
            waiting("for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do sleep 30 & done; exec sleep 30");
        group.add(child.id()).unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(b"go\n").unwrap();
        let began = Instant::now();
        let mut most = 0;
        while began.elapsed() < Duration::from_secs(2) {
            most = most.max(group.procs().len());
            thread::sleep(Duration::from_millis(20));
        }
        eprintln!("at most {most} processes");
        assert!(most > 1 && most <= 8, "{most} processes");
        drop(group);
        // The shell gives up when it cannot fork, or is killed with the rest.
        child.wait().unwrap();
    }

    /// Where the cpu controller can be had, every run's group has the same
    /// weight; where it cannot, the group still holds its run and says why.
    #[test]
    fn a_group_has_the_same_cpu_weight_as_every_other() {
        let Some(cgroups) = cgroups() else { return };
        let group = cgroups.create(16 << 20, 4).unwrap();
        match (&group.cpu, group.v2) {
            (Ok(cpu), true) => {
                assert_eq!(fs::read_to_string(group.dirs[*cpu].join("cpu.weight")).unwrap().trim(), "100");
            }
            (Ok(cpu), false) => {
                assert_eq!(fs::read_to_string(group.dirs[*cpu].join("cpu.shares")).unwrap().trim(), "1024");
            }
            (Err(why), _) => {
                eprintln!("no cpu controller: {why}");
                assert_eq!(group.no_cpu().as_ref(), Some(why));
            }
        }
    }

    #[test]
    fn groups_have_names_of_their_own() {
        let Some(cgroups) = cgroups() else { return };
        let a = cgroups.create(16 << 20, 4).unwrap();
        let b = Cgroups::open().unwrap().create(16 << 20, 4).unwrap();
        assert_ne!(a.dirs, b.dirs);
    }

    /// The cgroup v2 set-up, on a stand-in tree of plain files (the
    /// machine that runs the tests may have no cgroup v2 with memory).
    #[test]
    fn a_v2_parent_is_set_up_and_put_back() {
        let tree = tempfile::tempdir().unwrap();
        let parent = tree.path();
        let me = std::process::id();
        fs::write(parent.join("cgroup.controllers"), "cpu io\n").unwrap();
        fs::write(parent.join("cgroup.subtree_control"), "\n").unwrap();
        fs::write(parent.join("cgroup.type"), "domain\n").unwrap();
        fs::write(parent.join("cgroup.procs"), format!("{me}\n4000000\n")).unwrap();
        let why = prepare(parent).unwrap_err();
        assert!(why.ends_with("offers no memory or pids controller"), "{why}");
        fs::write(parent.join("cgroup.controllers"), "cpu io memory pids\n").unwrap();
        let why = prepare(parent).unwrap_err();
        assert!(why.contains("holds 1 other process besides the grader"), "{why}");

        fs::write(parent.join("cgroup.procs"), format!("{me}\n")).unwrap();
        let setup = prepare(parent).unwrap();
        let leaf = parent.join(format!("ttt-grader-{me}"));
        assert_eq!(setup.leaf.as_deref(), Some(leaf.as_path()));
        // cpu is enabled on its own, after the others (a plain file keeps
        // only the last write).
        assert_eq!(setup.enabled, ["memory", "pids", "cpu"]);
        assert_eq!(setup.no_cpu, None);
        assert_eq!(fs::read_to_string(leaf.join("cgroup.procs")).unwrap(), me.to_string());
        assert_eq!(fs::read_to_string(parent.join("cgroup.subtree_control")).unwrap(), "+cpu");

        // A real cgroup's files go with its directory; these do not.
        fs::remove_file(leaf.join("cgroup.procs")).unwrap();
        undo(&setup);
        assert_eq!(fs::read_to_string(parent.join("cgroup.subtree_control")).unwrap(), "-memory -pids -cpu");
        assert_eq!(fs::read_to_string(parent.join("cgroup.procs")).unwrap(), me.to_string());
        assert!(!leaf.exists());
    }

    /// A parent that does not offer `cpu` (not delegated) still holds runs,
    /// and says why they get no share of their own; one that cannot enable
    /// it says so too.
    #[test]
    fn a_v2_parent_without_cpu_holds_runs_and_says_why() {
        let tree = tempfile::tempdir().unwrap();
        let parent = tree.path();
        fs::write(parent.join("cgroup.controllers"), "io memory pids\n").unwrap();
        fs::write(parent.join("cgroup.subtree_control"), "\n").unwrap();
        fs::write(parent.join("cgroup.procs"), "").unwrap();
        let setup = prepare(parent).unwrap();
        assert_eq!(setup.enabled, ["memory", "pids"]);
        assert_eq!(
            setup.no_cpu,
            Some(format!("{} offers no cpu controller (not delegated)", parent.display()))
        );

        // Already enabled: nothing to do, and nothing to undo.
        assert_eq!(enable_cpu(parent, "cpu memory pids", "cpu memory pids"), Ok(false));
        let gone = parent.join("gone");
        let why = enable_cpu(&gone, "cpu memory pids", "memory pids").unwrap_err();
        assert_eq!(
            why,
            format!("{}/cgroup.subtree_control: No such file or directory (os error 2)", gone.display())
        );
    }

    #[test]
    fn mountinfo_is_read() {
        let text = "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n\
                    35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n\
                    39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n\
                    41 31 0:38 /a\\040b /sys/fs/cgroup/un\\134ified rw,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate\n";
        let mounts = mounts(text);
        assert_eq!(mounts.len(), 4);
        assert_eq!(mounts[1].point, Path::new("/sys/fs/cgroup/memory"));
        assert_eq!(mounts[1].options, "rw,memory");
        assert_eq!(
            mounts[3],
            Mount {
                root: "/a b".to_owned(),
                point: PathBuf::from("/sys/fs/cgroup/un\\ified"),
                fstype: "cgroup2".to_owned(),
                options: "rw,nsdelegate".to_owned(),
            }
        );
    }

    #[test]
    fn own_cgroup_is_found_under_the_mount() {
        let mount = |root: &str| Mount {
            root: root.to_owned(),
            point: PathBuf::from("/sys/fs/cgroup"),
            fstype: "cgroup2".to_owned(),
            options: String::new(),
        };
        assert_eq!(within(&mount("/"), "/"), Some(PathBuf::from("/sys/fs/cgroup")));
        assert_eq!(
            within(&mount("/"), "/user.slice/x.scope"),
            Some(PathBuf::from("/sys/fs/cgroup/user.slice/x.scope"))
        );
        assert_eq!(within(&mount("/docker/1"), "/docker/1"), Some(PathBuf::from("/sys/fs/cgroup")));
        assert_eq!(within(&mount("/docker/1"), "/docker/1/a"), Some(PathBuf::from("/sys/fs/cgroup/a")));
        assert_eq!(within(&mount("/docker/1"), "/docker/12"), None);
        assert_eq!(within(&mount("/"), "/../.."), None);
    }

    #[test]
    fn counters_are_read() {
        let events = "low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\noom_group_kill 0\n";
        assert_eq!(counter(events, "max"), Some(12));
        assert_eq!(counter(events, "oom"), Some(1));
        assert_eq!(counter(events, "oom_kill"), Some(1));
        assert_eq!(counter("oom_kill_disable 0\nunder_oom 0\noom_kill 3\n", "oom_kill"), Some(3));
        assert_eq!(counter(events, "swap"), None);
    }
}
