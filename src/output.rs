//! Output that appears whole or not at all.
//!
//! A transcript is written into a [`Staged`] output first. Only
//! [`Staged::commit`] makes it visible: a file is renamed into place (so a
//! failure or a kill never leaves a half-written file and never destroys an
//! earlier good one), and standard output receives the spooled bytes. Dropping
//! a `Staged` without committing discards everything written to it.
//!
//! A target that exists and is not a regular file (`/dev/null`, a FIFO, a
//! terminal) cannot be replaced by a rename and is written directly.

use std::fs::{self, File};
use std::io::{self, BufWriter, Seek, Write};
use std::path::{Path, PathBuf};

use tempfile::{NamedTempFile, SpooledTempFile};

/// Output spooled for standard output stays in memory up to this size, then
/// moves to a temporary file, so memory stays flat for any transcript.
const SPOOL_IN_MEMORY: usize = 8 << 20;

/// How hard [`Staged::commit`] works to get a file onto the disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Durability {
    /// Rename into place only: a kill or a failure never leaves a half-written
    /// file, but a power cut soon after may lose the new file. For batches of
    /// many small files, where a sync each would cost more than the work.
    Renamed,
    /// Also sync the file and its directory first, so the new file survives a
    /// power cut once the program has finished.
    Synced,
}

/// A destination being written, invisible until committed.
pub struct Staged {
    inner: Inner,
}

enum Inner {
    Stdout(BufWriter<SpooledTempFile>),
    File { temp: BufWriter<NamedTempFile>, target: PathBuf, durability: Durability },
    Direct(BufWriter<File>),
}

impl Staged {
    /// Output for standard output, held back until [`Staged::commit`].
    #[must_use]
    pub fn stdout() -> Staged {
        let spool = tempfile::spooled_tempfile(SPOOL_IN_MEMORY);
        Staged { inner: Inner::Stdout(BufWriter::with_capacity(64 << 10, spool)) }
    }

    /// Output for the file `target`, written beside it under a temporary name.
    ///
    /// If `target` is a symbolic link, the file it points to is replaced and
    /// the link kept. A device or pipe is opened and written as it is.
    ///
    /// # Errors
    /// If the temporary file cannot be created in `target`'s directory.
    pub fn file(target: &Path, durability: Durability) -> io::Result<Staged> {
        if fs::metadata(target).is_ok_and(|meta| !meta.is_file() && !meta.is_dir()) {
            let file = fs::OpenOptions::new().write(true).open(target)?;
            return Ok(Staged { inner: Inner::Direct(BufWriter::with_capacity(64 << 10, file)) });
        }
        let target = match fs::symlink_metadata(target) {
            Ok(meta) if meta.file_type().is_symlink() => {
                fs::canonicalize(target).unwrap_or_else(|_| target.into())
            }
            _ => target.to_path_buf(),
        };
        let dir = match target.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        let mut builder = tempfile::Builder::new();
        builder.prefix(".ttt-referee-").suffix(".tmp");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            // As a plain File::create would: 0666 less the umask.
            builder.permissions(fs::Permissions::from_mode(0o666));
        }
        let temp = builder.tempfile_in(dir)?;
        Ok(Staged {
            inner: Inner::File { temp: BufWriter::with_capacity(64 << 10, temp), target, durability },
        })
    }

    /// Makes the output visible: renames the file into place (keeping an
    /// existing target's permissions), or copies the spool to standard output.
    ///
    /// # Errors
    /// Any error writing, syncing or renaming; the target is then unchanged.
    /// A closed standard output gives [`io::ErrorKind::BrokenPipe`].
    pub fn commit(self) -> io::Result<()> {
        match self.inner {
            Inner::Stdout(spool) => {
                let mut spool = spool.into_inner().map_err(io::IntoInnerError::into_error)?;
                spool.rewind()?;
                let mut stdout = io::stdout().lock();
                io::copy(&mut spool, &mut stdout)?;
                stdout.flush()
            }
            Inner::File { temp, target, durability } => {
                let temp = temp.into_inner().map_err(io::IntoInnerError::into_error)?;
                if let Ok(meta) = fs::metadata(&target) {
                    temp.as_file().set_permissions(meta.permissions())?;
                }
                if durability == Durability::Synced {
                    temp.as_file().sync_all()?;
                }
                temp.persist(&target).map_err(|e| e.error)?;
                if durability == Durability::Synced {
                    sync_dir(&target);
                }
                Ok(())
            }
            Inner::Direct(mut file) => file.flush(),
        }
    }
}

/// Writes the file `path` whole with `write`: it appears complete, or not
/// at all and the file there before is unchanged.
///
/// # Errors
/// Any error creating, writing or committing it.
pub fn write_whole(
    path: &Path,
    durability: Durability,
    write: impl FnOnce(&mut Staged) -> io::Result<()>,
) -> io::Result<()> {
    let mut staged = Staged::file(path, durability)?;
    write(&mut staged)?;
    staged.commit()
}

/// Asks the file system to record the rename durably; best effort, since not
/// every platform or file system can open a directory.
fn sync_dir(target: &Path) {
    if let Some(dir) = target.parent().filter(|d| !d.as_os_str().is_empty())
        && let Ok(dir) = File::open(dir)
    {
        let _ = dir.sync_all();
    }
}

impl Write for Staged {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.inner {
            Inner::Stdout(w) => w.write(buf),
            Inner::File { temp, .. } => temp.write(buf),
            Inner::Direct(file) => file.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match &mut self.inner {
            Inner::Stdout(w) => w.write_all(buf),
            Inner::File { temp, .. } => temp.write_all(buf),
            Inner::Direct(file) => file.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.inner {
            Inner::Stdout(w) => w.flush(),
            Inner::File { temp, .. } => temp.flush(),
            Inner::Direct(file) => file.flush(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_appears_only_on_commit_and_replaces_the_old_one_whole() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.txt");
        fs::write(&target, "old").unwrap();

        let mut staged = Staged::file(&target, Durability::Synced).unwrap();
        staged.write_all(b"new").unwrap();
        staged.flush().unwrap();
        assert_eq!(fs::read_to_string(&target).unwrap(), "old");
        staged.commit().unwrap();
        assert_eq!(fs::read_to_string(&target).unwrap(), "new");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary file left");
    }

    #[test]
    fn dropping_without_commit_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.txt");
        let mut staged = Staged::file(&target, Durability::Synced).unwrap();
        staged.write_all(&vec![b'x'; 200_000]).unwrap();
        drop(staged);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn devices_are_written_in_place_never_renamed_over() {
        let mut staged = Staged::file(Path::new("/dev/null"), Durability::Synced).unwrap();
        staged.write_all(b"gone").unwrap();
        staged.commit().unwrap();
        assert!(!fs::metadata("/dev/null").unwrap().is_file(), "/dev/null is still a device");
    }

    #[test]
    fn a_missing_directory_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        assert!(Staged::file(&dir.path().join("no/such/out.txt"), Durability::Renamed).is_err());
    }
}
