//! Copies that cannot be turned against the grader.
//!
//! The grader (often root) copies a student's submission into its private
//! scratch directory, and a sandboxed build's output tree back out. Either
//! tree may be changed under the copy by someone who wants it to go wrong,
//! so the walk here goes through directory handles only, never follows a
//! link, and judges each entry by what the descriptor it opened says it is:
//!
//! - every entry is first opened with `O_PATH|O_NOFOLLOW`, which opens
//!   nothing (no device is touched, no FIFO waited on); a link, FIFO,
//!   socket or device found so is left out;
//! - a file or directory is then opened for reading, with `O_NOFOLLOW` and
//!   `O_NONBLOCK`, and must be the same inode as the first look saw, or
//!   the tree was changed under the copy and is refused;
//! - files are copied up to the size the opened descriptor had, and arrive
//!   with their permission bits only (never set-user-ID, set-group-ID or
//!   sticky);
//! - the caps ([`Caps`]) count sparse files at their full size and stop
//!   the walk at the first that is broken.

use std::ffi::{CStr, OsStr};
use std::fmt;
use std::fs::File;
use std::io::{self, Read};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

use rustix::fs::{CWD, Dir, FileType, Mode, OFlags, Stat};
use rustix::io::Errno;

/// Caps on what one copy may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caps {
    /// The most bytes all files together may hold, counted at their
    /// apparent size (`st_size`), so a sparse file counts in full.
    pub bytes: u64,
    /// The most entries the tree may hold below its top: files,
    /// directories, and the entries that are left out.
    pub files: u64,
    /// How many directories deep below the top the tree may go.
    pub depth: u32,
}

impl Caps {
    /// The caps on a student's submission: 64 MB, 2,000 entries, 16 deep.
    pub const SUBMISSION: Caps = Caps { bytes: 64 << 20, files: 2_000, depth: 16 };
}

/// What a copy held.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Copied {
    /// The bytes copied (a file that shrank while it was copied counts
    /// what it still held).
    pub bytes: u64,
    /// The regular files and directories copied.
    pub files: u64,
    /// The entries not copied: symbolic links, FIFOs, sockets and devices.
    pub left_out: u64,
}

/// Why a tree was not copied; the text goes into reports, so it names the
/// entry relative to the tree's top and says in plain words what was wrong.
#[derive(Debug, thiserror::Error)]
pub enum CopyError {
    /// The files together are larger than the cap (`path` is the file that
    /// took them over it).
    #[error(
        "the files are larger than {} together (sparse files count at their full size); `{}` takes them over",
        Size(*.limit),
        Shown(.path)
    )]
    TooBig {
        /// The file that took the total over the cap.
        path: PathBuf,
        /// The cap, in bytes.
        limit: u64,
    },
    /// The tree holds more entries than the cap.
    #[error("there are more than {limit} files")]
    TooManyFiles {
        /// The cap on entries.
        limit: u64,
    },
    /// A directory lies deeper below the top than the cap.
    #[error("`{}` is more than {limit} directories deep", Shown(.path))]
    TooDeep {
        /// The first directory found too deep.
        path: PathBuf,
        /// The cap on depth.
        limit: u32,
    },
    /// An entry could not be opened for reading (the caller refuses this
    /// tree only).
    #[error("`{}` cannot be read: {}", Shown(.path), Plain(.source))]
    Unreadable {
        /// The entry, relative to the top (`.` is the top itself).
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// An entry belongs to someone other than the tree's owner: perhaps a
    /// hard link to another user's file, put there for the grader to copy.
    #[error("`{}` belongs to another user", Shown(.path))]
    NotOwned {
        /// The entry, relative to the top (`.` is the top itself).
        path: PathBuf,
    },
    /// An entry was replaced, removed or turned into a link while it was
    /// being copied.
    #[error("`{}` changed while it was being copied", Shown(.path))]
    Changed {
        /// The entry, relative to the top.
        path: PathBuf,
    },
    /// The top is not a directory, or is a symbolic link.
    #[error("it is not a directory (or is a symbolic link)")]
    NotADirectory,
    /// Reading or writing failed for a reason that is no rule's.
    #[error("`{}` could not be copied: {}", Shown(.path), Plain(.source))]
    Io {
        /// The entry, relative to the top (the destination's path when it
        /// could not be opened).
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
}

/// Copies the tree at `from` into the existing, empty directory `to`,
/// within `caps`; with `owner`, every file and directory copied must be
/// that user's.
pub fn copy_tree(from: &Path, to: &Path, caps: Caps, owner: Option<u32>) -> Result<Copied, CopyError> {
    // Without trailing slashes: `link/` would follow the link.
    let from: PathBuf = from.components().collect();
    let from = rustix::fs::openat(CWD, &from, read_flags() | OFlags::DIRECTORY, Mode::empty()).map_err(
        |e| match e {
            Errno::NOTDIR | Errno::LOOP => CopyError::NotADirectory,
            e => refused(e, Path::new("")),
        },
    )?;
    let to = rustix::fs::openat(CWD, to, dir_flags(), Mode::empty())
        .map_err(|e| CopyError::Io { path: to.to_owned(), source: e.into() })?;
    copy_tree_at(from.as_fd(), to.as_fd(), caps, owner)
}

/// The same from and to directory handles, for callers that hold the
/// directories open already (inside a sandbox, say, after the path is gone).
pub fn copy_tree_at(
    from: BorrowedFd<'_>,
    to: BorrowedFd<'_>,
    caps: Caps,
    owner: Option<u32>,
) -> Result<Copied, CopyError> {
    let top = Path::new("");
    // A descriptor of our own, open for reading whatever `from` was opened
    // with; "." is the directory itself, not a name to look up.
    let entries = rustix::fs::openat(from, c".", read_flags() | OFlags::DIRECTORY, Mode::empty()).map_err(
        |e| match e {
            Errno::NOTDIR => CopyError::NotADirectory,
            e => refused(e, top),
        },
    )?;
    let stat = rustix::fs::fstat(&entries).map_err(io_at(top))?;
    if FileType::from_raw_mode(stat.st_mode) != FileType::Directory {
        return Err(CopyError::NotADirectory);
    }
    check_owner(&stat, owner, top)?;
    let to = rustix::fs::openat(to, c".", dir_flags(), Mode::empty()).map_err(io_at(top))?;

    let mut walk = Walk { caps, owner, copied: Copied::default(), seen: 0, counted: 0 };
    // One level for each directory open on the way down: the walk is a
    // loop, not recursion, and holds at most `caps.depth + 1` levels.
    let mut stack = vec![Level {
        entries: Dir::new(entries).map_err(io_at(top))?,
        to,
        path: PathBuf::new(),
        depth: 0,
        mode: None,
    }];
    while let Some(level) = stack.last_mut() {
        let Some(entry) = level.entries.read() else {
            if let Some(done) = stack.pop()
                && let Some(mode) = done.mode
            {
                rustix::fs::fchmod(&done.to, mode).map_err(io_at(&done.path))?;
            }
            continue;
        };
        let entry = entry.map_err(io_at(&level.path))?;
        let name = entry.file_name();
        if name == c"." || name == c".." {
            continue;
        }
        if let Some(below) = walk.entry(level, name)? {
            stack.push(below);
        }
    }
    Ok(walk.copied)
}

/// One directory being copied.
struct Level {
    /// The source directory, open for reading its entries.
    entries: Dir,
    /// Its copy.
    to: OwnedFd,
    /// Where it is, relative to the top.
    path: PathBuf,
    /// How many directories below the top it lies.
    depth: u32,
    /// The mode its copy takes once filled (`None` for the top, which is
    /// the caller's).
    mode: Option<Mode>,
}

/// A copy under way: its caps and its counts.
struct Walk {
    caps: Caps,
    owner: Option<u32>,
    copied: Copied,
    /// Entries met, copied or not.
    seen: u64,
    /// Bytes counted against the cap: files' apparent sizes.
    counted: u64,
}

impl Walk {
    /// Copies the entry `name` of `level`; a directory comes back, created
    /// and open, for the walk to fill.
    fn entry(&mut self, level: &Level, name: &CStr) -> Result<Option<Level>, CopyError> {
        self.seen += 1;
        if self.seen > self.caps.files {
            return Err(CopyError::TooManyFiles { limit: self.caps.files });
        }
        let path = level.path.join(OsStr::from_bytes(name.to_bytes()));
        let dir = level.entries.fd().map_err(io_at(&level.path))?;
        let first = look(dir, name, &path)?;
        match FileType::from_raw_mode(first.st_mode) {
            FileType::RegularFile => {
                let (from, stat) = open_same(dir, name, &path, &first, OFlags::empty(), self.owner)?;
                self.file(from, &stat, &level.to, name, &path)?;
                Ok(None)
            }
            FileType::Directory => {
                let depth = level.depth + 1;
                if depth > self.caps.depth {
                    return Err(CopyError::TooDeep { path, limit: self.caps.depth });
                }
                let (from, stat) = open_same(dir, name, &path, &first, OFlags::DIRECTORY, self.owner)?;
                rustix::fs::mkdirat(&level.to, name, Mode::RWXU).map_err(io_at(&path))?;
                let to =
                    rustix::fs::openat(&level.to, name, dir_flags(), Mode::empty()).map_err(io_at(&path))?;
                self.copied.files += 1;
                Ok(Some(Level {
                    entries: Dir::new(from).map_err(io_at(&path))?,
                    to,
                    path,
                    depth,
                    // The grader must still be able to write in it and clear it.
                    mode: Some(Mode::from_raw_mode((stat.st_mode & 0o777) | 0o700)),
                }))
            }
            _ => {
                self.copied.left_out += 1;
                Ok(None)
            }
        }
    }

    /// Copies the open file `from`, described by `stat`, to a new file
    /// `name` in `to`, once its size has been counted against the cap.
    fn file(
        &mut self,
        from: OwnedFd,
        stat: &Stat,
        to: &OwnedFd,
        name: &CStr,
        path: &Path,
    ) -> Result<(), CopyError> {
        let size = u64::try_from(stat.st_size).unwrap_or(u64::MAX);
        let counted = self.counted.saturating_add(size);
        if counted > self.caps.bytes {
            return Err(CopyError::TooBig { path: path.to_owned(), limit: self.caps.bytes });
        }
        self.counted = counted;
        let flags = OFlags::CREATE | OFlags::EXCL | OFlags::WRONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let mut copy =
            File::from(rustix::fs::openat(to, name, flags, Mode::RUSR | Mode::WUSR).map_err(io_at(path))?);
        self.copied.bytes += copy_contents(File::from(from), size, &mut copy).map_err(io_at(path))?;
        // Permission bits only: no set-user-ID, set-group-ID or sticky bit.
        rustix::fs::fchmod(&copy, Mode::from_raw_mode(stat.st_mode & 0o777)).map_err(io_at(path))?;
        self.copied.files += 1;
        Ok(())
    }
}

/// Copies at most `size` bytes of `from` (the size its descriptor had when
/// counted: a file growing meanwhile is cut there) into `to`.
fn copy_contents(from: File, size: u64, to: &mut File) -> io::Result<u64> {
    // `io::copy` between files uses `copy_file_range` where it can.
    io::copy(&mut from.take(size), to)
}

/// What the entry `name` of `dir` is, found through an `O_PATH` descriptor,
/// which opens nothing: no device is opened, no FIFO waited on, no link
/// followed (`O_NOFOLLOW` makes the descriptor the link's own).
fn look(dir: BorrowedFd<'_>, name: &CStr, path: &Path) -> Result<Stat, CopyError> {
    let probe =
        rustix::fs::openat(dir, name, OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC, Mode::empty())
            .map_err(|e| refused(e, path))?;
    rustix::fs::fstat(&probe).map_err(io_at(path))
}

/// Opens the entry `name` of `dir` for reading and checks that it is still
/// what [`look`] saw (`first`) and that it is `owner`'s; it comes back with
/// its descriptor's own `fstat`.
fn open_same(
    dir: BorrowedFd<'_>,
    name: &CStr,
    path: &Path,
    first: &Stat,
    extra: OFlags,
    owner: Option<u32>,
) -> Result<(OwnedFd, Stat), CopyError> {
    let fd =
        rustix::fs::openat(dir, name, read_flags() | extra, Mode::empty()).map_err(|e| refused(e, path))?;
    let stat = rustix::fs::fstat(&fd).map_err(io_at(path))?;
    let same = stat.st_dev == first.st_dev
        && stat.st_ino == first.st_ino
        && FileType::from_raw_mode(stat.st_mode) == FileType::from_raw_mode(first.st_mode);
    if !same {
        return Err(CopyError::Changed { path: path.to_owned() });
    }
    check_owner(&stat, owner, path)?;
    Ok((fd, stat))
}

/// Refuses an entry that is not `owner`'s.
fn check_owner(stat: &Stat, owner: Option<u32>, path: &Path) -> Result<(), CopyError> {
    match owner {
        Some(uid) if stat.st_uid != uid => Err(CopyError::NotOwned { path: path.to_owned() }),
        _ => Ok(()),
    }
}

/// How a source entry is opened for reading: never through a link, never
/// waiting (a FIFO swapped in would block), never becoming a terminal.
fn read_flags() -> OFlags {
    OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC
}

/// How deep below its top a run's tree may go: the guard's copies into and
/// out of a run directory, and [`give_tree`], follow a tree no deeper.
pub const RUN_TREE_DEPTH: u32 = 64;

/// Gives the tree at `top` (the top included) to user and group `uid`,
/// through directory handles only: a tree of any path length is handed over
/// (paths past `PATH_MAX` included), no link is followed (a link itself is
/// changed, never what it points to), and a tree deeper than `depth` below
/// its top is an error, not a walk without end.
pub fn give_tree(top: &Path, uid: u32, depth: u32) -> io::Result<()> {
    use rustix::fs::{AtFlags, Gid, Uid, chownat};
    let owner = (Some(Uid::from_raw(uid)), Some(Gid::from_raw(uid)));
    chownat(CWD, top, owner.0, owner.1, AtFlags::SYMLINK_NOFOLLOW)?;
    let dir = match rustix::fs::openat(CWD, top, dir_flags(), Mode::empty()) {
        Ok(dir) => dir,
        // Not a directory: nothing below it.
        Err(Errno::NOTDIR | Errno::LOOP) => return Ok(()),
        Err(e) => return Err(e.into()),
    };
    give_below(dir.as_fd(), owner, depth).map_err(|e| match e {
        Deeper => io::Error::other(format!("the tree is more than {depth} directories deep")),
        Failed(e) => e,
    })
}

/// Why [`give_below`] stopped.
enum GiveError {
    /// The tree goes deeper than it was allowed to.
    Deeper,
    /// A call failed.
    Failed(io::Error),
}
use GiveError::{Deeper, Failed};

impl<E: Into<io::Error>> From<E> for GiveError {
    fn from(e: E) -> GiveError {
        Failed(e.into())
    }
}

/// The owner [`give_tree`] gives a tree to.
type Owner = (Option<rustix::fs::Uid>, Option<rustix::fs::Gid>);

/// Gives everything below `dir` to `owner`, at most `depth` directories
/// deep.
fn give_below(dir: BorrowedFd<'_>, owner: Owner, depth: u32) -> Result<(), GiveError> {
    use rustix::fs::{AtFlags, chownat};
    let listing = rustix::fs::openat(dir, c".", dir_flags(), Mode::empty())?;
    for entry in Dir::new(listing)? {
        let entry = entry?;
        let name = entry.file_name();
        if name == c"." || name == c".." {
            continue;
        }
        chownat(dir, name, owner.0, owner.1, AtFlags::SYMLINK_NOFOLLOW)?;
        let is_dir = match entry.file_type() {
            FileType::Directory => true,
            FileType::Unknown => rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)
                .is_ok_and(|stat| FileType::from_raw_mode(stat.st_mode) == FileType::Directory),
            _ => false,
        };
        if is_dir {
            if depth == 0 {
                return Err(Deeper);
            }
            let below = rustix::fs::openat(dir, name, dir_flags(), Mode::empty())?;
            give_below(below.as_fd(), owner, depth - 1)?;
        }
    }
    Ok(())
}

/// How a destination directory is opened.
fn dir_flags() -> OFlags {
    OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC
}

/// The error for an entry that could not be opened: unreadable, gone or
/// turned into a link since it was listed, or something else.
fn refused(e: Errno, path: &Path) -> CopyError {
    let path = path.to_owned();
    match e {
        Errno::ACCESS | Errno::PERM => CopyError::Unreadable { path, source: e.into() },
        Errno::NOENT | Errno::LOOP | Errno::NOTDIR => CopyError::Changed { path },
        _ => CopyError::Io { path, source: e.into() },
    }
}

/// Makes a failure at `path` an [`CopyError::Io`].
fn io_at<E: Into<io::Error>>(path: &Path) -> impl FnOnce(E) -> CopyError + '_ {
    move |e| CopyError::Io { path: path.to_owned(), source: e.into() }
}

/// A path as reports show it: `.` for the top, and a deep one cut short
/// after its first three components.
struct Shown<'a>(&'a Path);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const SHOWN: usize = 3;
        let parts: Vec<Component<'_>> = self.0.components().collect();
        if parts.is_empty() {
            return f.write_str(".");
        }
        let cut = parts.len() > SHOWN + 1;
        for (i, part) in parts.iter().take(if cut { SHOWN } else { parts.len() }).enumerate() {
            if i > 0 {
                f.write_str("/")?;
            }
            write!(f, "{}", part.as_os_str().display())?;
        }
        if cut {
            f.write_str("/…")?;
        }
        Ok(())
    }
}

/// An error as plain words: "Permission denied", without "(os error 13)".
struct Plain<'a>(&'a io::Error);

impl fmt::Display for Plain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.raw_os_error() {
            Some(raw) => f.write_str(nix::errno::Errno::from_raw(raw).desc()),
            None => write!(f, "{}", self.0),
        }
    }
}

/// A cap in bytes, in the largest whole unit that states it exactly.
struct Size(u64);

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            0 => f.write_str("0 bytes"),
            n if n % (1 << 30) == 0 => write!(f, "{} GB", n >> 30),
            n if n % (1 << 20) == 0 => write!(f, "{} MB", n >> 20),
            n if n % (1 << 10) == 0 => write!(f, "{} KB", n >> 10),
            1 => f.write_str("1 byte"),
            n => write!(f, "{n} bytes"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    use std::time::Instant;

    /// A temporary directory with an empty `from` and `to` in it.
    fn dirs() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let from = tmp.path().join("from");
        let to = tmp.path().join("to");
        fs::create_dir(&from).unwrap();
        fs::create_dir(&to).unwrap();
        (tmp, from, to)
    }

    fn mode(path: &Path) -> u32 {
        fs::symlink_metadata(path).unwrap().permissions().mode() & 0o7777
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> =
            fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        names.sort();
        names
    }

    fn is_root() -> bool {
        rustix::process::geteuid().is_root()
    }

    #[test]
    fn copies_files_and_directories() {
        let (_tmp, from, to) = dirs();
        fs::write(from.join("main.rs"), "fn main() {}\n").unwrap();
        fs::create_dir_all(from.join("src/deep")).unwrap();
        fs::write(from.join("src/deep/lib.rs"), "pub fn f() {}\n").unwrap();
        fs::write(from.join("empty"), "").unwrap();
        let copied = copy_tree(&from, &to, Caps::SUBMISSION, None).unwrap();
        assert_eq!(copied, Copied { bytes: 13 + 14, files: 5, left_out: 0 });
        assert_eq!(names(&to), ["empty", "main.rs", "src"]);
        assert_eq!(fs::read_to_string(to.join("main.rs")).unwrap(), "fn main() {}\n");
        assert_eq!(fs::read_to_string(to.join("src/deep/lib.rs")).unwrap(), "pub fn f() {}\n");
        assert_eq!(fs::read(to.join("empty")).unwrap(), b"");
    }

    #[test]
    fn copy_tree_at_copies_through_handles() {
        let (_tmp, from, to) = dirs();
        fs::write(from.join("a"), "abc").unwrap();
        let from_fd = File::open(&from).unwrap();
        let to_fd = File::open(&to).unwrap();
        // The paths may be gone; the handles still reach the directories.
        fs::rename(&from, from.with_extension("moved")).unwrap();
        let copied = copy_tree_at(from_fd.as_fd(), to_fd.as_fd(), Caps::SUBMISSION, None).unwrap();
        assert_eq!(copied, Copied { bytes: 3, files: 1, left_out: 0 });
        assert_eq!(fs::read_to_string(to.join("a")).unwrap(), "abc");
    }

    // Rule 1: the top must be a directory, not a link to one.
    #[test]
    fn a_top_that_is_a_link_or_a_file_is_refused() {
        let (tmp, from, to) = dirs();
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&from, &link).unwrap();
        assert!(matches!(copy_tree(&link, &to, Caps::SUBMISSION, None), Err(CopyError::NotADirectory)));
        // A trailing slash would make the kernel follow the link.
        let slashed = PathBuf::from(format!("{}/", link.display()));
        assert!(matches!(copy_tree(&slashed, &to, Caps::SUBMISSION, None), Err(CopyError::NotADirectory)));
        let file = tmp.path().join("file");
        fs::write(&file, "x").unwrap();
        assert!(matches!(copy_tree(&file, &to, Caps::SUBMISSION, None), Err(CopyError::NotADirectory)));
        let handle = File::open(&file).unwrap();
        let to_fd = File::open(&to).unwrap();
        assert!(matches!(
            copy_tree_at(handle.as_fd(), to_fd.as_fd(), Caps::SUBMISSION, None),
            Err(CopyError::NotADirectory)
        ));
        assert!(names(&to).is_empty());
    }

    // Rule 1: links, FIFOs, sockets and devices are left out, unopened.
    #[test]
    fn links_fifos_sockets_and_devices_are_left_out() {
        let (tmp, from, to) = dirs();
        let secret = tmp.path().join("secret");
        fs::write(&secret, "the answers").unwrap();
        fs::create_dir(tmp.path().join("elsewhere")).unwrap();
        fs::write(from.join("kept"), "kept").unwrap();
        std::os::unix::fs::symlink(&secret, from.join("to-file")).unwrap();
        std::os::unix::fs::symlink(tmp.path().join("elsewhere"), from.join("to-dir")).unwrap();
        std::os::unix::fs::symlink("nowhere", from.join("dangling")).unwrap();
        // A FIFO opened for reading without O_NONBLOCK would wait forever.
        rustix::fs::mknodat(CWD, from.join("fifo"), FileType::Fifo, Mode::RUSR | Mode::WUSR, 0).unwrap();
        let _socket = std::os::unix::net::UnixListener::bind(from.join("socket")).unwrap();
        let mut expected = 5;
        // A device, where this may make one (root, with CAP_MKNOD).
        let dev = rustix::fs::makedev(1, 3);
        if rustix::fs::mknodat(CWD, from.join("null"), FileType::CharacterDevice, Mode::RUSR, dev).is_ok() {
            expected += 1;
        }
        let copied = copy_tree(&from, &to, Caps::SUBMISSION, None).unwrap();
        assert_eq!(copied, Copied { bytes: 4, files: 1, left_out: expected });
        assert_eq!(names(&to), ["kept"]);
    }

    // Rule 1: the type comes from the opened descriptor; an entry swapped
    // between the first look and the open is refused.
    #[test]
    fn an_entry_swapped_after_the_first_look_is_refused() {
        let (tmp, from, _to) = dirs();
        fs::write(from.join("a"), "mine").unwrap();
        let dir = File::open(&from).unwrap();
        let first = look(dir.as_fd(), c"a", Path::new("a")).unwrap();
        // Swapped for another file...
        fs::write(tmp.path().join("other"), "not mine").unwrap();
        fs::rename(tmp.path().join("other"), from.join("a")).unwrap();
        let swapped = open_same(dir.as_fd(), c"a", Path::new("a"), &first, OFlags::empty(), None);
        assert!(matches!(swapped, Err(CopyError::Changed { path }) if path == Path::new("a")));
        // ... and for a link.
        let first = look(dir.as_fd(), c"a", Path::new("a")).unwrap();
        fs::remove_file(from.join("a")).unwrap();
        std::os::unix::fs::symlink(tmp.path().join("secret"), from.join("a")).unwrap();
        let linked = open_same(dir.as_fd(), c"a", Path::new("a"), &first, OFlags::empty(), None);
        assert!(matches!(linked, Err(CopyError::Changed { .. })));
    }

    // Rule 2: permission bits only.
    #[test]
    fn set_id_and_sticky_bits_never_survive() {
        let (_tmp, from, to) = dirs();
        fs::write(from.join("setid"), "#!/bin/sh\n").unwrap();
        fs::set_permissions(from.join("setid"), fs::Permissions::from_mode(0o6755)).unwrap();
        fs::write(from.join("private"), "x").unwrap();
        fs::set_permissions(from.join("private"), fs::Permissions::from_mode(0o600)).unwrap();
        fs::create_dir(from.join("sticky")).unwrap();
        fs::set_permissions(from.join("sticky"), fs::Permissions::from_mode(0o1777)).unwrap();
        fs::create_dir(from.join("readonly")).unwrap();
        fs::write(from.join("readonly/inside"), "y").unwrap();
        fs::set_permissions(from.join("readonly"), fs::Permissions::from_mode(0o555)).unwrap();
        copy_tree(&from, &to, Caps::SUBMISSION, None).unwrap();
        assert_eq!(mode(&to.join("setid")), 0o755);
        assert_eq!(mode(&to.join("private")), 0o600);
        assert_eq!(mode(&to.join("sticky")), 0o777);
        // Filled while 0700, then given its mode, still the grader's to write.
        assert_eq!(mode(&to.join("readonly")), 0o755);
        assert_eq!(fs::read_to_string(to.join("readonly/inside")).unwrap(), "y");
        // Writable again, so that a user who is not root can remove it.
        fs::set_permissions(from.join("readonly"), fs::Permissions::from_mode(0o755)).unwrap();
    }

    // Rule 3: no more than the size the descriptor had.
    #[test]
    fn a_file_growing_during_the_copy_is_cut_at_its_size() {
        let (_tmp, from, to) = dirs();
        fs::write(from.join("log"), "0123456789").unwrap();
        let source = File::open(from.join("log")).unwrap();
        let size = source.metadata().unwrap().len();
        // It grows after its size was taken.
        let mut log = fs::OpenOptions::new().append(true).open(from.join("log")).unwrap();
        io::Write::write_all(&mut log, b"more").unwrap();
        let mut copy = File::create(to.join("log")).unwrap();
        assert_eq!(copy_contents(source, size, &mut copy).unwrap(), 10);
        assert_eq!(fs::read_to_string(to.join("log")).unwrap(), "0123456789");
    }

    // Rule 4: sparse files count in full, and are refused before being read.
    #[test]
    fn a_terabyte_sparse_file_is_refused_before_it_is_read() {
        let (_tmp, from, to) = dirs();
        File::create(from.join("huge")).unwrap().set_len(1 << 40).unwrap();
        let started = Instant::now();
        let refused = copy_tree(&from, &to, Caps::SUBMISSION, None);
        assert!(
            matches!(&refused, Err(CopyError::TooBig { path, limit }) if path == Path::new("huge") && *limit == 64 << 20)
        );
        assert!(started.elapsed().as_secs() < 5);
        assert!(names(&to).is_empty());
        assert_eq!(
            refused.unwrap_err().to_string(),
            "the files are larger than 64 MB together (sparse files count at their full size); `huge` takes them over"
        );
    }

    // Rules 4 and 5: the bytes cap is on the running total.
    #[test]
    fn the_bytes_cap_counts_all_files_together() {
        let (_tmp, from, to) = dirs();
        fs::write(from.join("a"), [0; 60]).unwrap();
        fs::write(from.join("b"), [0; 40]).unwrap();
        let caps = Caps { bytes: 100, ..Caps::SUBMISSION };
        assert_eq!(copy_tree(&from, &to, caps, None).unwrap().bytes, 100);
        let (_tmp, from, to) = dirs();
        fs::write(from.join("a"), [0; 60]).unwrap();
        fs::write(from.join("b"), [0; 41]).unwrap();
        assert!(matches!(copy_tree(&from, &to, caps, None), Err(CopyError::TooBig { limit: 100, .. })));
    }

    // Rule 5: too many entries, and the walk stops at the first too many.
    #[test]
    fn three_thousand_files_fail_fast_under_a_cap_of_two_thousand() {
        let (_tmp, from, to) = dirs();
        for i in 0..3_000 {
            fs::write(from.join(format!("f{i}")), "").unwrap();
        }
        let refused = copy_tree(&from, &to, Caps::SUBMISSION, None).unwrap_err();
        assert!(matches!(refused, CopyError::TooManyFiles { limit: 2_000 }));
        assert_eq!(refused.to_string(), "there are more than 2000 files");
        assert_eq!(fs::read_dir(&to).unwrap().count(), 2_000);
    }

    // Rule 5: entries left out count too, and so do directories.
    #[test]
    fn the_files_cap_counts_every_entry() {
        let (_tmp, from, to) = dirs();
        fs::create_dir(from.join("d")).unwrap();
        fs::write(from.join("d/f"), "").unwrap();
        std::os::unix::fs::symlink("d/f", from.join("link")).unwrap();
        let caps = Caps { files: 3, ..Caps::SUBMISSION };
        assert_eq!(copy_tree(&from, &to, caps, None).unwrap(), Copied { bytes: 0, files: 2, left_out: 1 });
        let again = tempfile::tempdir().unwrap();
        let caps = Caps { files: 2, ..Caps::SUBMISSION };
        assert!(matches!(
            copy_tree(&from, again.path(), caps, None),
            Err(CopyError::TooManyFiles { limit: 2 })
        ));
    }

    // Rule 5: too deep, without recursion.
    #[test]
    fn a_tree_forty_deep_is_refused_at_sixteen() {
        let (_tmp, from, to) = dirs();
        let names: Vec<String> = std::iter::once("deep".to_owned())
            .chain((0..39).map(|i| format!("{}", char::from(b'a' + i % 26))))
            .collect();
        let deepest: PathBuf = names.iter().collect();
        fs::create_dir_all(from.join(&deepest)).unwrap();
        fs::write(from.join(&deepest).join("bottom"), "x").unwrap();
        let refused = copy_tree(&from, &to, Caps::SUBMISSION, None).unwrap_err();
        let seventeen: PathBuf = names[..17].iter().collect();
        assert!(matches!(&refused, CopyError::TooDeep { path, limit: 16 } if *path == seventeen));
        assert_eq!(refused.to_string(), "`deep/a/b/…` is more than 16 directories deep");

        // Sixteen deep is allowed; and forty with a cap of sixty-four, on a
        // small stack.
        let (_tmp, from, to) = dirs();
        let sixteen: PathBuf = names[..16].iter().collect();
        fs::create_dir_all(from.join(&sixteen)).unwrap();
        assert_eq!(copy_tree(&from, &to, Caps::SUBMISSION, None).unwrap().files, 16);
        let (_tmp, from, to) = dirs();
        fs::create_dir_all(from.join(&deepest)).unwrap();
        let caps = Caps { depth: 64, ..Caps::SUBMISSION };
        let copied = std::thread::Builder::new()
            .stack_size(64 << 10)
            .spawn(move || copy_tree(&from, &to, caps, None).unwrap())
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(copied.files, 40);
    }

    // Rule 6: an unreadable entry is named.
    #[test]
    fn an_unreadable_entry_is_named() {
        let (tmp, from, to) = dirs();
        let notes = from.join("notes.txt");
        fs::write(&notes, "x").unwrap();
        fs::set_permissions(&notes, fs::Permissions::from_mode(0o000)).unwrap();
        let refused = if is_root() {
            // Root reads every file. One thread gives root up (the kernel's
            // setresuid changes the calling thread only) to meet EACCES.
            const NOBODY: u32 = 65_534;
            for path in [tmp.path(), &from, &to, &notes] {
                std::os::unix::fs::chown(path, Some(NOBODY), None).unwrap();
            }
            let dropped = std::thread::spawn(move || {
                let nobody = rustix::process::Uid::from_raw(NOBODY);
                rustix::thread::set_thread_res_uid(nobody, nobody, nobody).ok()?;
                Some(copy_tree(&from, &to, Caps::SUBMISSION, None))
            })
            .join()
            .unwrap();
            let Some(refused) = dropped else {
                eprintln!(
                    "skipped: running as root without the right to give root up, EACCES cannot be provoked"
                );
                return;
            };
            refused.unwrap_err()
        } else {
            copy_tree(&from, &to, Caps::SUBMISSION, None).unwrap_err()
        };
        assert!(matches!(&refused, CopyError::Unreadable { path, .. } if path == Path::new("notes.txt")));
        assert_eq!(refused.to_string(), "`notes.txt` cannot be read: Permission denied");
    }

    #[test]
    fn unreadable_names_the_path_in_plain_words() {
        let refused = CopyError::Unreadable {
            path: PathBuf::from("notes.txt"),
            source: io::Error::from_raw_os_error(rustix::io::Errno::ACCESS.raw_os_error()),
        };
        assert_eq!(refused.to_string(), "`notes.txt` cannot be read: Permission denied");
    }

    // Rule 7: only the owner's entries.
    #[test]
    fn another_users_file_is_refused_when_an_owner_is_given() {
        let (_tmp, from, to) = dirs();
        fs::write(from.join("mine.txt"), "x").unwrap();
        let me = rustix::process::geteuid().as_raw();
        assert!(copy_tree(&from, &to, Caps::SUBMISSION, Some(me)).is_ok());
        if is_root() {
            // A file of someone else's, as a hard link into the tree would be.
            let (_tmp, from, to) = dirs();
            fs::write(from.join("mine.txt"), "x").unwrap();
            fs::write(from.join("secret.txt"), "x").unwrap();
            std::os::unix::fs::chown(from.join("secret.txt"), Some(4242), Some(4242)).unwrap();
            let refused = copy_tree(&from, &to, Caps::SUBMISSION, Some(me)).unwrap_err();
            assert!(matches!(&refused, CopyError::NotOwned { path } if path == Path::new("secret.txt")));
            assert_eq!(refused.to_string(), "`secret.txt` belongs to another user");
            assert!(!to.join("secret.txt").exists());
            // Without an owner, nobody's files are refused.
            let again = tempfile::tempdir().unwrap();
            assert!(copy_tree(&from, again.path(), Caps::SUBMISSION, None).is_ok());
            assert_eq!(fs::metadata(from.join("secret.txt")).unwrap().uid(), 4242);
        }
        // Nothing here is another user's, so the top itself is refused.
        let (_tmp, from, to) = dirs();
        let refused = copy_tree(&from, &to, Caps::SUBMISSION, Some(me.wrapping_add(1))).unwrap_err();
        assert_eq!(refused.to_string(), "`.` belongs to another user");
    }

    // Rule 8: plain words.
    #[test]
    fn display_texts_are_plain() {
        let cases = [
            (CopyError::TooManyFiles { limit: 2000 }, "there are more than 2000 files"),
            (
                CopyError::TooBig { path: PathBuf::from("a/big"), limit: 1000 },
                "the files are larger than 1000 bytes together (sparse files count at their full size); `a/big` takes them over",
            ),
            (
                CopyError::TooDeep { path: PathBuf::from("a/b/c/d"), limit: 3 },
                "`a/b/c/d` is more than 3 directories deep",
            ),
            (
                CopyError::NotOwned { path: PathBuf::from("secret.txt") },
                "`secret.txt` belongs to another user",
            ),
            (
                CopyError::Changed { path: PathBuf::from("src/x") },
                "`src/x` changed while it was being copied",
            ),
            (CopyError::NotADirectory, "it is not a directory (or is a symbolic link)"),
            (
                CopyError::Io { path: PathBuf::from("x"), source: io::Error::from_raw_os_error(28) },
                "`x` could not be copied: No space left on device",
            ),
        ];
        for (error, text) in cases {
            assert_eq!(error.to_string(), text);
        }
    }

    /// Makes `levels` nested directories of 255-character names under `top`
    /// through handles (the path is past `PATH_MAX` from level 16 on), with
    /// a file in the deepest.
    fn deep_tree(top: &Path, levels: usize) {
        let name = "d".repeat(255);
        let mut dir = rustix::fs::openat(CWD, top, dir_flags(), Mode::empty()).unwrap();
        for _ in 0..levels {
            rustix::fs::mkdirat(&dir, name.as_str(), Mode::RWXU).unwrap();
            dir = rustix::fs::openat(&dir, name.as_str(), dir_flags(), Mode::empty()).unwrap();
        }
        let file =
            rustix::fs::openat(&dir, c"f", OFlags::CREATE | OFlags::WRONLY | OFlags::CLOEXEC, Mode::RUSR)
                .unwrap();
        drop(file);
    }

    #[test]
    fn a_tree_past_path_max_is_given_through_handles() {
        let area = tempfile::tempdir().unwrap();
        deep_tree(area.path(), 20);
        // By path, the deepest file cannot even be named.
        let long: PathBuf = std::iter::repeat_n("d".repeat(255), 20).collect();
        assert_eq!(
            fs::symlink_metadata(area.path().join(&long).join("f")).unwrap_err().raw_os_error(),
            Some(rustix::io::Errno::NAMETOOLONG.raw_os_error())
        );
        // Root gives it to another user; anyone else can give it to themself.
        let uid = if rustix::process::geteuid().is_root() {
            1_900_000_123
        } else {
            rustix::process::geteuid().as_raw()
        };
        give_tree(area.path(), uid, RUN_TREE_DEPTH).unwrap();
        let mut dir = rustix::fs::openat(CWD, area.path(), dir_flags(), Mode::empty()).unwrap();
        for _ in 0..20 {
            dir = rustix::fs::openat(&dir, "d".repeat(255).as_str(), dir_flags(), Mode::empty()).unwrap();
            assert_eq!(rustix::fs::fstat(&dir).unwrap().st_uid, uid);
        }
        let file = rustix::fs::statat(&dir, c"f", rustix::fs::AtFlags::SYMLINK_NOFOLLOW).unwrap();
        assert_eq!(file.st_uid, uid);
        // Deeper than asked: an error, not a walk without end.
        let error = give_tree(area.path(), uid, 10).unwrap_err();
        assert_eq!(error.to_string(), "the tree is more than 10 directories deep");
        // The tree goes as the grader removes its own.
        crate::sandbox::remove_all(area.path());
        assert!(!area.path().exists());
    }

    #[test]
    fn giving_a_tree_follows_no_link() {
        let area = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("secret"), "x").unwrap();
        std::os::unix::fs::symlink(outside.path(), area.path().join("link")).unwrap();
        let before = fs::metadata(outside.path().join("secret")).unwrap().uid();
        let uid = if rustix::process::geteuid().is_root() { 1_900_000_124 } else { before };
        give_tree(area.path(), uid, RUN_TREE_DEPTH).unwrap();
        assert_eq!(fs::metadata(outside.path().join("secret")).unwrap().uid(), before);
        assert_eq!(fs::symlink_metadata(area.path().join("link")).unwrap().uid(), uid);
    }
}
