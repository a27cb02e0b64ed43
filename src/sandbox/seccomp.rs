//! The system calls a run may not make, as a seccomp filter (the
//! `seccompiler` crate: pure Rust, so `cargo install` needs no C library).
//!
//! A deny list on top of the other walls: most of what it refuses already
//! needs a capability the program does not have, but each of these is a way
//! out, a way to reach another process, or kernel surface a tic-tac-toe
//! program has no use for. Refused calls fail with `EPERM`; `clone3`, whose
//! flags a filter cannot see, fails with `ENOSYS` so that the C library falls
//! back to `clone`, whose flags it can.
//!
//! Runs at once share the inodes of the system directories and of the
//! grading's skeleton (bound read-only, the same files for every run), so
//! whatever the kernel keeps on an inode for anyone who can open it is a
//! channel between them: a lock one run takes on `/usr/bin/python3` another
//! can see, and a watch on a file tells one run when another reads it. So
//! file locks (`flock`, and `fcntl`'s POSIX and open-file-description
//! locks) fail with `ENOLCK`, as on a file system without locks; leases,
//! directory notification (`F_NOTIFY`), inotify watches and fanotify fail
//! with `EPERM`. A filter cannot see which file a call is about, so this
//! holds for the run's own files too; the JVM, the one runtime found to lock
//! a file of its own (its `hsperfdata` file in `/tmp`), is kept from making
//! that file ([`guard`](super::guard)'s set-up), and runs as before.
//! `fcntl`'s and `ioctl`'s commands are compared as the 32 bits the kernel
//! reads: a command with its upper bits set is the same command.
//!
//! What the machine counts is shared the same way: a run that starts 40
//! threads moves the machine's thread count another run reads. `/proc`'s
//! counters are masked in the container ([`root::MASKED`](super::root::MASKED)),
//! and `sysinfo`, which tells the load, the thread count and free memory,
//! fails with `EPERM`. The C library's `sysconf(_SC_PHYS_PAGES)` and
//! `get_avphys_pages` ask `sysinfo` and do not check it, so they answer
//! nonsense in a run; Python, g++ and its programs, javac and the JVM
//! (whose heap `grade` sizes with `-Xmx`) were checked to run as before
//! (`sandbox::python_gcc_and_the_jvm_run_as_before_under_the_lock_rules`).

use std::collections::BTreeMap;

use nix::libc;
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule,
    TargetArch,
};

/// `ioctl` requests refused on any descriptor: pushing bytes into a
/// terminal's input (`TIOCSTI`) and the Linux console's private calls
/// (`TIOCLINUX`, which can also paste into a terminal).
#[allow(clippy::unnecessary_cast, reason = "the request's type differs between C libraries")]
const IOCTLS: [u64; 2] = [libc::TIOCSTI as u64, libc::TIOCLINUX as u64];

/// `fcntl` commands that take a file lock (`lockf` is `F_SETLK`): refused
/// with `ENOLCK`. Testing for a lock (`F_GETLK`) is left: no run can hold
/// one for another to find.
const LOCKS: [u64; 4] =
    [libc::F_SETLK as u64, libc::F_SETLKW as u64, libc::F_OFD_SETLK as u64, libc::F_OFD_SETLKW as u64];

/// `fcntl` commands refused with `EPERM`: a lease (a signal when another
/// opens the file) and directory notification (a signal when another
/// reads a file in the directory).
const NOTIFYING: [u64; 2] = [libc::F_SETLEASE as u64, libc::F_NOTIFY as u64];

/// `clone` flags that make a namespace: a run may not make its own.
const NAMESPACE_FLAGS: [u64; 7] = [
    libc::CLONE_NEWUSER as u64,
    libc::CLONE_NEWNS as u64,
    libc::CLONE_NEWPID as u64,
    libc::CLONE_NEWNET as u64,
    libc::CLONE_NEWIPC as u64,
    libc::CLONE_NEWUTS as u64,
    libc::CLONE_NEWCGROUP as u64,
];

/// Calls refused whatever their arguments.
const REFUSED: &[i64] = &[
    // Reaching into other processes.
    libc::SYS_ptrace,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_kcmp,
    libc::SYS_pidfd_getfd,
    // Kernel keyrings belong to the user, not the run: a later run would
    // read what this one stored.
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    // New namespaces, mounts and roots.
    libc::SYS_unshare,
    libc::SYS_setns,
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_chroot,
    libc::SYS_open_tree,
    libc::SYS_move_mount,
    libc::SYS_fsopen,
    libc::SYS_fsconfig,
    libc::SYS_fsmount,
    libc::SYS_fspick,
    libc::SYS_mount_setattr,
    // Kernel surface with a history of escapes, and the kernel's log.
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_userfaultfd,
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
    libc::SYS_syslog,
    libc::SYS_open_by_handle_at,
    libc::SYS_name_to_handle_at,
    // Watches on files other runs read too (see the module's comment).
    libc::SYS_inotify_add_watch,
    libc::SYS_fanotify_init,
    libc::SYS_fanotify_mark,
    // The machine's load, thread count and free memory: a channel between
    // runs at once, as the counters `/proc` would show are (see the
    // module's comment).
    libc::SYS_sysinfo,
];

/// Why the filter could not be made or installed.
pub type Error = String;

fn rule(conditions: Vec<SeccompCondition>) -> Result<SeccompRule, Error> {
    SeccompRule::new(conditions).map_err(|e| e.to_string())
}

fn condition(arg: u8, op: SeccompCmpOp, value: u64) -> Result<SeccompCondition, Error> {
    SeccompCondition::new(arg, SeccompCmpArgLen::Qword, op, value).map_err(|e| e.to_string())
}

/// A rule that argument `arg`, an `unsigned int` to the kernel (a command),
/// is `value`: only its lower 32 bits are compared, as the kernel reads it.
fn command(arg: u8, value: u64) -> Result<SeccompRule, Error> {
    rule(vec![
        SeccompCondition::new(arg, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, value)
            .map_err(|e| e.to_string())?,
    ])
}

fn compile(rules: BTreeMap<i64, Vec<SeccompRule>>, errno: i32) -> Result<BpfProgram, Error> {
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(|e| e.to_string())?;
    let errno = u32::try_from(errno).map_err(|e| e.to_string())?;
    SeccompFilter::new(rules, SeccompAction::Allow, SeccompAction::Errno(errno), arch)
        .and_then(TryInto::try_into)
        .map_err(|e| e.to_string())
}

/// The three programs: the refusals with `EPERM`, file locks with
/// `ENOLCK`, and `clone3` with `ENOSYS`.
pub fn programs() -> Result<[BpfProgram; 3], Error> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = REFUSED.iter().map(|&call| (call, Vec::new())).collect();
    rules.insert(
        libc::SYS_ioctl,
        IOCTLS.iter().map(|&request| command(1, request)).collect::<Result<_, _>>()?,
    );
    rules.insert(libc::SYS_fcntl, NOTIFYING.iter().map(|&cmd| command(1, cmd)).collect::<Result<_, _>>()?);
    rules.insert(
        libc::SYS_clone,
        NAMESPACE_FLAGS
            .iter()
            .map(|&flag| rule(vec![condition(0, SeccompCmpOp::MaskedEq(flag), flag)?]))
            .collect::<Result<_, _>>()?,
    );
    let refused = compile(rules, libc::EPERM)?;
    let locks = compile(
        BTreeMap::from([
            (libc::SYS_flock, Vec::new()),
            (libc::SYS_fcntl, LOCKS.iter().map(|&cmd| command(1, cmd)).collect::<Result<_, _>>()?),
        ]),
        libc::ENOLCK,
    )?;
    let clone3 = compile(BTreeMap::from([(libc::SYS_clone3, Vec::new())]), libc::ENOSYS)?;
    Ok([refused, locks, clone3])
}

/// Installs the filter on the calling thread and everything it starts from
/// now on (setting `no_new_privs`, which the kernel requires).
pub fn install() -> Result<(), Error> {
    for program in programs()? {
        seccompiler::apply_filter(&program).map_err(|e| e.to_string())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_filter_compiles_for_this_machine() {
        let [refused, locks, clone3] = programs().unwrap();
        // Each listed call costs at least a comparison and a return.
        assert!(refused.len() > REFUSED.len() * 2, "{}", refused.len());
        assert!(locks.len() > LOCKS.len() * 2, "{}", locks.len());
        assert!(!clone3.is_empty());
    }
}
