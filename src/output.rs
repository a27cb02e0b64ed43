//! Output that appears whole or not at all (files), or as it is made
//! (standard output).
//!
//! A transcript is written into a [`Staged`] output first. For a file only
//! [`Staged::commit`] makes it visible: it is renamed into place (so a
//! failure or a kill never leaves a half-written file and never destroys an
//! earlier good one); dropping a `Staged` without committing discards
//! everything written to it.
//!
//! Standard output is written as it is made, so `ttt-referee big.txt | head`
//! ends as soon as `head` has read its lines and neither memory nor disk grows
//! with the transcript. Only its first [`STDOUT_HELD`] bytes are held back: a
//! short transcript (every golden fixture, a typical class's file) still
//! appears whole or not at all, and a malformed short file leaves standard
//! output empty. Past that, an error leaves the transcript so far on standard
//! output, with the error on standard error, as a stream filter does.
//!
//! A target that exists and is not a regular file (`/dev/null`, a FIFO, a
//! terminal) cannot be replaced by a rename and is written directly.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use tempfile::NamedTempFile;

/// The bytes of standard output held back before any is written: a
/// transcript this short appears whole or not at all.
pub const STDOUT_HELD: usize = 1 << 20;

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

/// Every temporary file or directory this process has made and not yet
/// renamed into place or removed: what [`remove_temporaries`] removes when
/// a signal ends the process before their owners' destructors can run.
static TEMPORARIES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// A temporary path listed in [`TEMPORARIES`] while this lives.
#[derive(Debug)]
pub struct Listed(PathBuf);

impl Listed {
    /// Lists `path` until the value returned is dropped.
    #[must_use]
    pub fn new(path: &Path) -> Listed {
        if let Ok(mut list) = TEMPORARIES.lock() {
            list.push(path.to_owned());
        }
        Listed(path.to_owned())
    }
}

impl Drop for Listed {
    fn drop(&mut self) {
        if let Ok(mut list) = TEMPORARIES.lock()
            && let Some(at) = list.iter().rposition(|p| *p == self.0)
        {
            list.swap_remove(at);
        }
    }
}

/// Removes every temporary file and directory still listed: for the
/// signal handler that ends the process on Ctrl-C, SIGTERM or SIGHUP,
/// which skips every destructor. Best effort.
pub fn remove_temporaries() {
    ENDING.store(true, std::sync::atomic::Ordering::SeqCst);
    remove_listed(|_| true);
}

/// Set once [`remove_temporaries`] is called: the process is ending on a
/// signal.
static ENDING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether the process is ending on a signal ([`remove_temporaries`] was
/// called): a failure to write then is the removal's doing, not news.
#[must_use]
pub fn ending() -> bool {
    ENDING.load(std::sync::atomic::Ordering::SeqCst)
}

/// Removes the temporaries listed that `which` picks; returns how many.
fn remove_listed(which: impl Fn(&Path) -> bool) -> usize {
    let picked: Vec<PathBuf> = {
        let mut list = TEMPORARIES.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let (picked, kept) = std::mem::take(&mut *list).into_iter().partition(|p| which(p));
        *list = kept;
        picked
    };
    picked
        .iter()
        .filter(|path| match fs::symlink_metadata(path) {
            // A writer still at work may add a file as the directory is
            // emptied: tried again a few times.
            Ok(meta) if meta.is_dir() => (0..5).any(|_| fs::remove_dir_all(path).is_ok()),
            Ok(_) => fs::remove_file(path).is_ok(),
            Err(_) => false,
        })
        .count()
}

/// A destination being written, invisible until committed.
pub struct Staged {
    inner: Inner,
}

enum Inner {
    Stdout(HeldBack),
    File { temp: BufWriter<NamedTempFile>, target: PathBuf, durability: Durability, _listed: Listed },
    Direct(BufWriter<File>),
}

impl Staged {
    /// Output for standard output: its first [`STDOUT_HELD`] bytes held
    /// back until [`Staged::commit`] (or until there are more), the rest
    /// written as it comes.
    #[must_use]
    pub fn stdout() -> Staged {
        Staged { inner: Inner::Stdout(HeldBack { held: Vec::new(), out: None }) }
    }

    /// Output for the file `target`, written beside it under a temporary name.
    ///
    /// If `target` is a symbolic link, the file it points to is replaced and
    /// the link kept. A device or pipe is opened and written as it is.
    ///
    /// # Errors
    /// If `target` is a directory, or the temporary file cannot be created
    /// in `target`'s directory.
    pub fn file(target: &Path, durability: Durability) -> io::Result<Staged> {
        // Refused before anything is written: a rename onto `.` would say
        // only "Device or resource busy".
        if fs::metadata(target).is_ok_and(|meta| meta.is_dir()) {
            return Err(io::ErrorKind::IsADirectory.into());
        }
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
        Staged::beside(target, durability)
    }

    /// Output for the file `target` in a directory others may have written
    /// into (a report directory a CI cache restored, say), written beside it
    /// under a temporary name and renamed over whatever is there: a
    /// symbolic link, a pipe or a device at `target` is replaced, never
    /// followed or opened, so nothing outside the directory is written.
    ///
    /// # Errors
    /// If the temporary file cannot be created in `target`'s directory.
    pub fn replacing(target: &Path, durability: Durability) -> io::Result<Staged> {
        Staged::beside(target.to_path_buf(), durability)
    }

    /// Output staged beside `target`, renamed onto it at the commit.
    fn beside(target: PathBuf, durability: Durability) -> io::Result<Staged> {
        let dir = match target.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        let mut builder = tempfile::Builder::new();
        builder.prefix(".ttt-referee-").suffix(".tmp");
        // Listed before it exists, so a signal the moment it is made still
        // finds it to remove; a name taken by another is unlisted at once.
        let mut listed = None;
        let temp = builder.make_in(dir, |path| {
            let entry = Listed::new(path);
            let mut options = fs::OpenOptions::new();
            options.read(true).write(true).create_new(true);
            #[cfg(unix)]
            {
                use std::os::unix::fs::OpenOptionsExt;
                // As a plain File::create would: 0666 less the umask.
                options.mode(0o666);
            }
            let file = options.open(path)?;
            listed = Some(entry);
            Ok(file)
        })?;
        let listed = listed.unwrap_or_else(|| Listed::new(temp.path()));
        Ok(Staged {
            inner: Inner::File {
                temp: BufWriter::with_capacity(64 << 10, temp),
                target,
                durability,
                _listed: listed,
            },
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
            Inner::Stdout(mut held) => {
                held.release()?;
                held.flush()
            }
            Inner::File { temp, target, durability, _listed } => {
                let temp = temp.into_inner().map_err(io::IntoInnerError::into_error)?;
                // A regular file's permissions kept; a link's target's are
                // never read (a replacing target may be a link).
                if let Some(meta) = fs::symlink_metadata(&target).ok().filter(fs::Metadata::is_file) {
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

/// Makes the directories of `relative` under `root`, each a real directory:
/// a symbolic link or a file where one should be is replaced by an empty
/// directory, never followed, so what is written below stays under `root`
/// (a report directory may hold what others put there).
///
/// # Errors
/// Any error reading, removing or making one.
pub fn real_dirs(root: &Path, relative: &Path) -> io::Result<PathBuf> {
    let mut at = root.to_path_buf();
    for part in relative.components() {
        at.push(part);
        match fs::symlink_metadata(&at) {
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => {
                fs::remove_file(&at)?;
                fs::create_dir(&at)?;
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => fs::create_dir(&at)?,
            Err(e) => return Err(e),
        }
    }
    Ok(at)
}

/// A directory of output staged beside its target, a new or empty one,
/// and renamed onto it by [`StagedDir::commit`]: the directory appears
/// whole or not at all. Removed if dropped uncommitted, and on a signal
/// too (it is listed with the other temporaries).
#[derive(Debug)]
pub struct StagedDir {
    dir: tempfile::TempDir,
    target: PathBuf,
    _listed: Listed,
}

impl StagedDir {
    /// A staging directory for `target`, which must not exist or be empty;
    /// `command` names who writes it in the message saying it is not.
    ///
    /// # Errors
    /// Why not, in words that follow the target's name.
    pub fn new(target: &Path, command: &str) -> Result<StagedDir, String> {
        match fs::read_dir(target) {
            Ok(mut entries) => {
                if entries.next().is_some() {
                    return Err(format!("is not empty; {command} writes into a new or empty directory"));
                }
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(format!("cannot be read: {e}")),
        }
        let parent = target.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let dir = tempfile::Builder::new()
            .prefix(".ttt-referee-staged-")
            .tempdir_in(parent)
            .map_err(|e| format!("cannot make a directory beside it: {e}"))?;
        let listed = Listed::new(dir.path());
        Ok(StagedDir { dir, target: target.to_owned(), _listed: listed })
    }

    /// Where to write.
    #[must_use]
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Puts the directory in place of its (empty or absent) target.
    ///
    /// # Errors
    /// Why it could not be, in words that follow the target's name.
    pub fn commit(self) -> Result<(), String> {
        if self.target.exists() {
            fs::remove_dir(&self.target).map_err(|e| format!("cannot replace it: {e}"))?;
        }
        let staged = self.dir.keep();
        if let Err(e) = fs::rename(&staged, &self.target) {
            let _ = fs::remove_dir_all(&staged);
            return Err(format!("cannot be put in place: {e}"));
        }
        Ok(())
    }
}

/// Writes the file `path` whole with `write`, as [`write_whole`] does, but
/// replacing whatever is at `path` ([`Staged::replacing`]): a symbolic link
/// or a pipe there is replaced, never followed. For the files of a report
/// directory, which may hold what others put there.
///
/// # Errors
/// Any error creating, writing or committing it.
pub fn replace_whole(
    path: &Path,
    durability: Durability,
    write: impl FnOnce(&mut Staged) -> io::Result<()>,
) -> io::Result<()> {
    whole(Staged::replacing(path, durability)?, write)
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
    whole(Staged::file(path, durability)?, write)
}

/// `staged` written by `write`, then committed.
fn whole(mut staged: Staged, write: impl FnOnce(&mut Staged) -> io::Result<()>) -> io::Result<()> {
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

/// Standard output with its first [`STDOUT_HELD`] bytes held back.
struct HeldBack {
    /// What is held, until it outgrows [`STDOUT_HELD`] or is committed.
    held: Vec<u8>,
    /// Standard output, once anything has been released to it.
    out: Option<BufWriter<io::Stdout>>,
}

impl HeldBack {
    /// Writes what is held to standard output; from then on every write
    /// goes straight through.
    fn release(&mut self) -> io::Result<()> {
        let out = self.out.get_or_insert_with(|| BufWriter::with_capacity(64 << 10, io::stdout()));
        let held = std::mem::take(&mut self.held);
        out.write_all(&held)
    }
}

impl Write for HeldBack {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        if let Some(out) = &mut self.out {
            return out.write_all(buf);
        }
        self.held.extend_from_slice(buf);
        if self.held.len() > STDOUT_HELD { self.release() } else { Ok(()) }
    }

    fn flush(&mut self) -> io::Result<()> {
        // Held bytes stay held: a flush is not a commit.
        self.out.as_mut().map_or(Ok(()), Write::flush)
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
    fn a_temporary_is_listed_until_committed_and_removed_by_remove_temporaries() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.txt");
        let mut staged = Staged::file(&target, Durability::Renamed).unwrap();
        staged.write_all(b"half").unwrap();
        staged.flush().unwrap();
        // As a signal handler would, with the `Staged` still alive.
        assert_eq!(remove_listed(|p| p.starts_with(dir.path())), 1);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0, "the temporary file is gone");
        assert!(staged.commit().is_err(), "nothing left to rename into place");
        assert!(!target.exists());
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
