//! What a run's container holds, as data: one list of [`Mount`]s, as
//! bubblewrap keeps its `SetupOp`s, that the guard's container set-up
//! walks to make the root, Landlock reads for the directories a run may
//! read, and the grader reads for which host paths a run can see (so that
//! copies of the referee there are masked) and for the words of its
//! protections list. A directory added here is bound, readable, masked
//! where need be and reported, all at once.

use std::path::Path;

/// A small tmpfs holding the grader's directories inside the container,
/// so that init takes them all away with one unmount (each unmount waits
/// for the kernel's RCU grace period).
pub(super) const GRADER: &str = "/.ttt";
/// Where init finds the run's starting tree inside the container, before
/// it unmounts the grader's directories.
pub(super) const START: &str = "/.ttt/start";
/// Where init finds the run's input files.
pub(super) const INPUT: &str = "/.ttt/in";
/// Where init hands the run's output and answer out.
pub(super) const OUTPUT: &str = "/.ttt/out";
/// The run's writable file system inside the container.
pub(super) const BOX: &str = "/box";

/// One entry of the container's root: where, and what is put there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Mount {
    /// The path inside the container.
    pub(super) at: &'static str,
    /// What is put there.
    pub(super) what: What,
}

/// What a [`Mount`] puts in the container.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum What {
    /// The host's directory of the same path, read-only, when the host has
    /// it; where the host's path is a symbolic link (`/bin` to `usr/bin`),
    /// the same link.
    System,
    /// The grading's own directory of this name (the skeleton every run
    /// shares, made once per grading), read-only.
    Skeleton,
    /// The host's device node of the same path, readable and writable.
    Device,
    /// A fresh `/proc` of the run's PID namespace (the container library
    /// makes it with the namespace), its counters of the whole machine
    /// ([`MASKED`]) made empty by process 1.
    Proc,
    /// The box: a tmpfs capped at the run's size and number of files, for
    /// everything the run writes.
    Box,
    /// A symbolic link to this path.
    Link(&'static str),
    /// A small tmpfs, owner-only and `noexec`, that holds the grader's
    /// directories below, and is unmounted (with them) before the program
    /// starts.
    Grader,
    /// The run's starting tree (a build), read-only, when it has one.
    Start,
    /// The run's input files, read-only.
    Input,
    /// The directory the answer goes out through, writable.
    Output,
}

/// The container's root, in the order it is made.
pub(super) const ROOT: [Mount; 21] = [
    Mount { at: "/usr", what: What::System },
    Mount { at: "/bin", what: What::System },
    Mount { at: "/sbin", what: What::System },
    Mount { at: "/lib", what: What::System },
    Mount { at: "/lib32", what: What::System },
    Mount { at: "/lib64", what: What::System },
    Mount { at: "/libx32", what: What::System },
    Mount { at: "/etc", what: What::Skeleton },
    Mount { at: "/dev", what: What::Skeleton },
    Mount { at: "/dev/null", what: What::Device },
    Mount { at: "/dev/zero", what: What::Device },
    Mount { at: "/dev/full", what: What::Device },
    Mount { at: "/dev/random", what: What::Device },
    Mount { at: "/dev/urandom", what: What::Device },
    Mount { at: "/proc", what: What::Proc },
    Mount { at: BOX, what: What::Box },
    Mount { at: "/tmp", what: What::Link("/box/tmp") },
    Mount { at: GRADER, what: What::Grader },
    Mount { at: START, what: What::Start },
    Mount { at: INPUT, what: What::Input },
    Mount { at: OUTPUT, what: What::Output },
];

/// What of the fresh `/proc` tells of the whole machine rather than of the
/// run, and so would be a channel between two runs at once (one starts 40
/// threads, the other sees the machine's thread count rise) or tell a run
/// of the others: process 1 masks each before the program starts, a file
/// with an empty one (`/dev/null` bound over it), a directory with an
/// empty read-only one. The load and the machine's thread count
/// (`loadavg`), CPU, interrupt, fork and context-switch counts (`stat`,
/// `interrupts`, `softirqs`, `schedstat`, the idle time in `uptime`),
/// memory (`meminfo`, `vmstat`, `zoneinfo`, `buddyinfo`, `pagetypeinfo`,
/// `slabinfo`, `vmallocinfo`, `swaps`), pressure stalls (`pressure/`),
/// disks and file systems (`diskstats`, `fs/`), the machine's count of
/// cgroups (`cgroups`), of keys (`key-users`), of file locks (`locks`), and
/// in `/proc/sys` the machine's open files, inodes, dentries, asynchronous
/// I/O, terminals and entropy. The rest of `/proc` is the run's own: its
/// processes (PID namespace), its network, its IPC. `sysinfo(2)`, which
/// tells the load, the thread count and free memory too, is refused by
/// the seccomp filter.
pub(super) const MASKED: [&str; 28] = [
    "/proc/loadavg",
    "/proc/stat",
    "/proc/uptime",
    "/proc/interrupts",
    "/proc/softirqs",
    "/proc/schedstat",
    "/proc/meminfo",
    "/proc/vmstat",
    "/proc/zoneinfo",
    "/proc/buddyinfo",
    "/proc/pagetypeinfo",
    "/proc/slabinfo",
    "/proc/vmallocinfo",
    "/proc/swaps",
    "/proc/pressure",
    "/proc/diskstats",
    "/proc/fs",
    "/proc/cgroups",
    "/proc/key-users",
    "/proc/locks",
    "/proc/sys/fs/file-nr",
    "/proc/sys/fs/inode-nr",
    "/proc/sys/fs/inode-state",
    "/proc/sys/fs/dentry-state",
    "/proc/sys/fs/aio-nr",
    "/proc/sys/fs/quota",
    "/proc/sys/kernel/pty/nr",
    "/proc/sys/kernel/random/entropy_avail",
];

/// The paths of the entries of one kind, in order.
pub(super) fn all(what: What) -> impl Iterator<Item = &'static str> {
    ROOT.iter().filter(move |m| m.what == what).map(|m| m.at)
}

/// The host's directories bound read-only into the container.
pub(super) fn system_dirs() -> impl Iterator<Item = &'static str> {
    all(What::System)
}

/// The device nodes a run may use, as paths (`/dev/null`).
pub(super) fn devices() -> impl Iterator<Item = &'static str> {
    all(What::Device)
}

/// What a run may read (Landlock's rules): the system directories, the
/// skeleton's `/etc` and `/dev`, and `/proc`.
pub(super) fn readable() -> impl Iterator<Item = &'static str> {
    ROOT.iter().filter(|m| matches!(m.what, What::System | What::Skeleton | What::Proc)).map(|m| m.at)
}

/// Whether `path` (a real path on the host) is under a directory the
/// container binds, and so can be seen by a run.
pub(super) fn in_system_dirs(path: &Path) -> bool {
    system_dirs().any(|d| path.starts_with(d))
}

/// What the root holds, in words, for the protections list: "/usr, /bin,
/// … read-only, a minimal /etc and /dev, a fresh /proc" (whose counters of
/// the whole machine, [`MASKED`], are empty).
pub(super) fn described() -> String {
    let system: Vec<&str> = system_dirs().collect();
    let skeleton: Vec<&str> = all(What::Skeleton).collect();
    let proc: Vec<&str> = all(What::Proc).collect();
    format!(
        "{} read-only, a minimal {}, a fresh {}",
        system.join(", "),
        skeleton.join(" and "),
        proc.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each path is made once, and nothing is made inside a mount that
    /// comes later (it would be hidden under it).
    #[test]
    fn each_path_is_made_once_and_after_what_it_is_in() {
        for (i, outer) in ROOT.iter().enumerate() {
            assert!(outer.at.starts_with('/'), "{outer:?}");
            for inner in &ROOT[..i] {
                assert_ne!(inner.at, outer.at, "made twice");
                assert!(!Path::new(inner.at).starts_with(outer.at), "{inner:?} is made before {outer:?}");
            }
        }
    }

    /// The masked counters are all in the fresh /proc, none of them the
    /// run's own (`/proc/self`) or a directory the runtimes read (`/proc/sys`
    /// whole, `/proc/net`), and none is listed twice.
    #[test]
    fn only_the_machines_counters_in_proc_are_masked() {
        for (i, path) in MASKED.iter().enumerate() {
            assert!(path.starts_with("/proc/"), "{path}");
            assert!(!MASKED[..i].contains(path), "{path} twice");
            for own in ["/proc/self", "/proc/thread-self", "/proc/net", "/proc/1"] {
                assert!(!Path::new(path).starts_with(own), "{path}");
            }
            assert_ne!(*path, "/proc/sys");
        }
        assert!(MASKED.contains(&"/proc/loadavg") && MASKED.contains(&"/proc/sys/fs/file-nr"));
        assert!(all(What::Proc).eq(["/proc"]));
    }

    #[test]
    fn the_protections_list_says_what_the_list_holds() {
        assert_eq!(
            described(),
            "/usr, /bin, /sbin, /lib, /lib32, /lib64, /libx32 read-only, a minimal /etc and /dev, a fresh /proc"
        );
        assert!(in_system_dirs(Path::new("/usr/local/bin/ttt-referee")));
        assert!(in_system_dirs(Path::new("/lib64/ld-linux-x86-64.so.2")));
        assert!(!in_system_dirs(Path::new("/home/ta/.cargo/bin/ttt-referee")));
        assert!(!in_system_dirs(Path::new("/usrlocal")));
        let readable: Vec<&str> = readable().collect();
        assert!(readable.contains(&"/etc") && readable.contains(&"/proc") && readable.contains(&"/dev"));
        assert!(!readable.contains(&BOX) && !readable.contains(&GRADER));
        assert_eq!(devices().count(), 5);
    }
}
