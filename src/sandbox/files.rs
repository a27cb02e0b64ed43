//! Reading what a run left, on either side: one file opened so that it
//! cannot be turned against the reader ([`open_file`]), and the size of a
//! tree ([`measure`]). The grader reads a run's output and a guard's
//! complaints this way, the guard a program's answer; the grader measures
//! a run's starting tree, the guard a box without a tmpfs of its own.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::Path;

/// The deepest a tree is walked below its top: what lies deeper is not
/// counted.
const DEPTH: u32 = 64;

/// Why [`open_file`] opened no regular file.
#[derive(Debug)]
pub(super) enum NotAFile {
    /// Nothing is there.
    Missing,
    /// A symbolic link is there (never followed).
    Link,
    /// It could not be opened, or looked at once open.
    Unreadable(io::Error),
    /// Something else is there: "a directory", "a FIFO", "a socket", "a
    /// device".
    Kind(&'static str),
}

/// Opens the regular file at `path` for reading, never following a link,
/// waiting on a FIFO or taking a terminal as its own; what is there judged
/// by the descriptor opened, not by a look before it.
pub(super) fn open_file(path: &Path) -> Result<File, NotAFile> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_NONBLOCK | nix::libc::O_NOCTTY)
        .open(path)
        .map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => NotAFile::Missing,
            _ if e.raw_os_error() == Some(nix::libc::ELOOP) => NotAFile::Link,
            _ => NotAFile::Unreadable(e),
        })?;
    let kind = file.metadata().map_err(NotAFile::Unreadable)?.file_type();
    if kind.is_file() {
        Ok(file)
    } else if kind.is_dir() {
        Err(NotAFile::Kind("a directory"))
    } else if kind.is_fifo() {
        Err(NotAFile::Kind("a FIFO"))
    } else if kind.is_socket() {
        Err(NotAFile::Kind("a socket"))
    } else {
        Err(NotAFile::Kind("a device"))
    }
}

/// Reads at most `limit` bytes of `path`, never following a link or
/// blocking on a FIFO; `None` if it is missing or not a regular file.
#[must_use]
pub fn read_capped(path: &Path, limit: u64) -> Option<Vec<u8>> {
    let file = open_file(path).ok()?;
    let mut bytes = Vec::new();
    file.take(limit).read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

/// What a tree holds, as [`measure`] counts it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Size {
    /// The apparent bytes of its files (`st_size`; directories count none).
    pub(super) bytes: u64,
    /// The bytes allocated to it, directories included (a sparse file
    /// counts what it holds).
    pub(super) allocated: u64,
    /// Its entries, the top included.
    pub(super) files: u64,
}

impl Size {
    fn plus(self, other: Size) -> Size {
        Size {
            bytes: self.bytes.saturating_add(other.bytes),
            allocated: self.allocated.saturating_add(other.allocated),
            files: self.files.saturating_add(other.files),
        }
    }
}

/// The size of the tree at `path`, not following links, to a depth of 64
/// below it; nothing when it is missing.
pub(super) fn measure(path: &Path) -> Size {
    fn walk(path: &Path, depth: u32) -> Size {
        let Ok(meta) = fs::symlink_metadata(path) else { return Size::default() };
        let own = Size {
            bytes: if meta.is_dir() { 0 } else { meta.len() },
            allocated: meta.blocks().saturating_mul(512),
            files: 1,
        };
        if !meta.is_dir() || depth >= DEPTH {
            return own;
        }
        fs::read_dir(path).map_or(own, |entries| {
            entries.flatten().fold(own, |sum, entry| sum.plus(walk(&entry.path(), depth + 1)))
        })
    }
    walk(path, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_regular_file_is_opened_and_anything_else_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("answer");
        fs::write(&file, "X O X").unwrap();
        std::os::unix::fs::symlink(&file, dir.path().join("link")).unwrap();
        nix::unistd::mkfifo(&dir.path().join("fifo"), nix::sys::stat::Mode::S_IRWXU).unwrap();
        fs::create_dir(dir.path().join("dir")).unwrap();
        assert!(open_file(&file).is_ok());
        assert!(matches!(open_file(&dir.path().join("missing")), Err(NotAFile::Missing)));
        assert!(matches!(open_file(&dir.path().join("link")), Err(NotAFile::Link)));
        // The FIFO is opened without waiting for a writer, and refused.
        assert!(matches!(open_file(&dir.path().join("fifo")), Err(NotAFile::Kind("a FIFO"))));
        assert!(matches!(open_file(&dir.path().join("dir")), Err(NotAFile::Kind("a directory"))));
        assert!(matches!(open_file(Path::new("/dev/null")), Err(NotAFile::Kind("a device"))));
        assert_eq!(read_capped(&file, 3), Some(b"X O".to_vec()));
        assert_eq!(read_capped(&dir.path().join("link"), 3), None);
    }

    #[test]
    fn a_tree_is_measured_without_following_links() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("sub")).unwrap();
        fs::write(dir.path().join("sub/a"), vec![1; 5000]).unwrap();
        fs::write(dir.path().join("b"), "12").unwrap();
        // A link to a large file counts as a link (its own few bytes).
        std::os::unix::fs::symlink("/usr/bin", dir.path().join("link")).unwrap();
        let size = measure(dir.path());
        assert_eq!(size.files, 5);
        assert_eq!(size.bytes, 5002 + "/usr/bin".len() as u64);
        assert!(size.allocated >= 5000, "{size:?}");
        assert_eq!(measure(&dir.path().join("missing")), Size::default());
    }
}
