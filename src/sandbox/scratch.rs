//! The scratch directory and the trees in it: where the scratch goes and
//! which user a root grader's runs are, where copies of the referee are
//! installed (the container must hide those it shows), and removing the
//! trees the grader and its runs leave there. Reading and measuring them
//! is [`files`](super::files)' work.

use std::fs;
use std::io;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The first of the user ids a root grader picks from for its runs: far
/// above any account or subordinate range a system hands out.
const RUN_UIDS: u32 = 1_900_000_000;

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
pub(super) fn scratch_base(for_another_user: bool) -> PathBuf {
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

/// How every scratch directory's name begins.
pub(super) const PREFIX: &str = "ttt-grade-";

/// The file in a scratch directory its grader holds locked for as long as
/// it lives ([`hold`]).
const LOCK: &str = "in-use.lock";

/// Marks `scratch` as in use for as long as the file handed back is open:
/// an exclusive lock on its lock file, which the kernel releases when the
/// process ends, however it ends (a `kill -9` or a second Ctrl-C too), so
/// the next grader's [`sweep`] knows the directory is abandoned. The handle
/// is closed on exec: no run keeps the lock alive.
pub(super) fn hold(scratch: &Path) -> io::Result<fs::File> {
    let file = fs::OpenOptions::new().create_new(true).write(true).open(scratch.join(LOCK))?;
    file.try_lock().map_err(io::Error::from)?;
    Ok(file)
}

/// Removes from `base` the scratch directories graders left when they were
/// killed before they could remove their own: each named as scratch is
/// ([`PREFIX`]), owned by this user (or, for a root grader, by one of the
/// run users it picks from), whose lock file no live grader holds
/// ([`hold`]). A directory without a lock file (one being made at this
/// moment) is left alone, as is every other name and owner.
pub(super) fn sweep(base: &Path) {
    let me = rustix::process::geteuid();
    let ours = |uid: u32| uid == me.as_raw() || (me.is_root() && uid >= RUN_UIDS);
    let Ok(entries) = fs::read_dir(base) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let named = entry.file_name().to_str().is_some_and(|name| name.starts_with(PREFIX));
        // Not followed: a link named so is no scratch.
        let owned = fs::symlink_metadata(&path).is_ok_and(|m| {
            use std::os::unix::fs::MetadataExt;
            m.is_dir() && ours(m.uid())
        });
        if !(named && owned) {
            continue;
        }
        let abandoned = fs::OpenOptions::new()
            .read(true)
            .custom_flags(nix::libc::O_NOFOLLOW)
            .open(path.join(LOCK))
            .is_ok_and(|lock| lock.try_lock().is_ok());
        if abandoned {
            remove_all(&path);
        }
    }
}

/// Whether every user may pass through `dir` and each directory above it.
fn passable_by_all(dir: &Path) -> bool {
    fs::canonicalize(dir).is_ok_and(|dir| {
        dir.ancestors().all(|d| fs::metadata(d).is_ok_and(|m| m.permissions().mode() & 0o001 != 0))
    })
}

/// An unused user id for a root grader's runs: one no account has,
/// different for each sandbox on the machine, even two in one process (a
/// test binary's, say). What a user holds (processes, above all, where no
/// container counts a run's own) is then never shared with another
/// grading. The id is [`RUN_UIDS`] plus the process id (below 2^22, the
/// kernel's most) times 256 plus the sandbox's number in its process, so
/// that it stays below 2^32 - 1.
pub(super) fn unused_uid() -> u32 {
    use std::sync::atomic::{AtomicU32, Ordering};
    static MADE: AtomicU32 = AtomicU32::new(0);
    let taken: Vec<u32> = fs::read_to_string("/etc/passwd")
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split(':').nth(2)?.parse().ok())
        .collect();
    let nth = MADE.fetch_add(1, Ordering::Relaxed) % 256;
    let mut uid = RUN_UIDS + (std::process::id() % (1 << 22)) * 256 + nth;
    while taken.contains(&uid) {
        uid += 1;
    }
    uid
}

/// A name no run can guess or count on: 16 hexadecimal digits from the
/// operating system's random source (or, should it fail, from the
/// standard library's per-process random keys). A run's cgroup (in
/// `/proc/self/cgroup`) and container root (in `/proc/self/mountinfo`)
/// are named with it, where a counter would tell a program how many runs
/// came before it, and so which game it is in.
pub(super) fn unguessable() -> String {
    let bits = getrandom::u64().unwrap_or_else(|_| {
        use std::hash::{BuildHasher, Hasher};
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u128(std::time::SystemTime::now().elapsed().map_or(0, |d| d.as_nanos()));
        hasher.finish()
    });
    format!("{bits:016x}")
}

/// Copies of the referee where people install it on the search path.
pub(super) fn installed() -> Vec<PathBuf> {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A directory named as scratch in `base`, with a file in it, and its
    /// lock file if `lock`.
    fn scratch(base: &Path, name: &str, lock: bool) -> PathBuf {
        let dir = base.join(name);
        fs::create_dir_all(dir.join("run-1")).unwrap();
        fs::write(dir.join("run-1/answer"), "x").unwrap();
        if lock {
            fs::write(dir.join(LOCK), "").unwrap();
        }
        dir
    }

    #[test]
    fn only_scratch_no_live_grader_holds_is_swept() {
        let base = tempfile::tempdir().unwrap();
        let abandoned = scratch(base.path(), "ttt-grade-dead", true);
        let live = base.path().join("ttt-grade-live");
        fs::create_dir(&live).unwrap();
        let held = hold(&live).unwrap();
        let making = scratch(base.path(), "ttt-grade-making", false);
        let other = scratch(base.path(), "other-dead", true);
        std::os::unix::fs::symlink(&other, base.path().join("ttt-grade-link")).unwrap();
        sweep(base.path());
        assert!(!abandoned.exists(), "an abandoned scratch stays");
        assert!(live.join(LOCK).exists() && making.exists() && other.exists());
        assert!(base.path().join("ttt-grade-link").exists());
        // Once its grader is gone, the live one goes too.
        drop(held);
        sweep(base.path());
        assert!(!live.exists());
        assert!(hold(&making).is_ok() && hold(&making).is_err(), "a lock file is made once");
    }
}
