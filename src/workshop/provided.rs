//! The course's provided files (`--provided DIR`): starter files students
//! must not change. They are read once, when the plan is made ([`Provided`]),
//! and written over each submission's copy before its language is found and
//! it is built, replacing the student's version; the submission's result
//! says which of them its author's copy lacked or changed.
//!
//! The directory is the TA's and trusted, but read with the care a
//! submission's copy gets: no link is followed (one inside it is an error
//! naming it, so nothing outside it is read), and it is capped as a
//! submission is ([`copy::Caps::SUBMISSION`]). Reading it whole up front
//! gives every mistake in it as one error before anything runs, and each
//! submission the same bytes.

use std::fmt;
use std::fs;
use std::io::{self, Read as _, Write as _};
use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::intake::{Failed, Step, Steps, remove_entry};
use crate::sandbox::copy;

/// The course's provided files, read from their directory; shared, so a
/// plan stays cheap to clone and small.
#[derive(Clone)]
pub struct Provided(Arc<Files>);

/// What [`Provided`] shares.
struct Files {
    /// The directory they were read from, as given.
    dir: PathBuf,
    /// Every file under it, by its path relative to it, sorted.
    files: Vec<ProvidedFile>,
}

/// One provided file.
#[derive(Clone)]
struct ProvidedFile {
    /// Its path relative to the provided directory (valid UTF-8).
    path: PathBuf,
    /// Its bytes.
    bytes: Vec<u8>,
    /// Whether anyone may execute it (a provided script stays runnable).
    executable: bool,
}

impl fmt::Debug for Provided {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The bytes would drown a plan's debug output: the names and sizes.
        let files: Vec<(String, usize)> =
            self.0.files.iter().map(|p| (shown(&p.path), p.bytes.len())).collect();
        f.debug_struct("Provided").field("dir", &self.0.dir).field("files", &files).finish()
    }
}

/// Why the provided directory cannot be used; each names it as given.
#[derive(Debug, thiserror::Error)]
pub enum ProvidedError {
    /// It cannot be opened (it does not exist, say).
    #[error("--provided {}: cannot open: {}", .dir.display(), plain(.source))]
    Open {
        /// The directory as given.
        dir: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// It is not a directory.
    #[error("--provided {}: not a directory; expected the directory of the course's provided files", .dir.display())]
    NotADirectory {
        /// The path as given.
        dir: PathBuf,
    },
    /// An entry in it cannot be read.
    #[error("--provided {}: {}: cannot read: {}", .dir.display(), .path.display(), plain(.source))]
    Read {
        /// The directory as given.
        dir: PathBuf,
        /// The entry, relative to it.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// An entry in it is a symbolic link (never followed), a FIFO, a socket
    /// or a device.
    #[error("--provided {}: {} is {what}; expected only files and directories (links are not followed)", .dir.display(), .path.display())]
    NotAFile {
        /// The directory as given.
        dir: PathBuf,
        /// The entry, relative to it.
        path: PathBuf,
        /// What it is, in words.
        what: &'static str,
    },
    /// An entry's name is not UTF-8 (reports and packages name each file).
    #[error("--provided {}: {}: a name that is not UTF-8", .dir.display(), .path.display())]
    Name {
        /// The directory as given.
        dir: PathBuf,
        /// The entry, relative to it.
        path: PathBuf,
    },
    /// It holds no file: surely not the directory meant.
    #[error("--provided {}: holds no files; expected the course's provided files", .dir.display())]
    Empty {
        /// The directory as given.
        dir: PathBuf,
    },
    /// It holds more than a submission may.
    #[error("--provided {}: holds more than a submission may ({limit})", .dir.display())]
    TooBig {
        /// The directory as given.
        dir: PathBuf,
        /// The cap passed, in words.
        limit: String,
    },
}

/// What the system said, without Rust's ` (os error N)`.
fn plain(error: &io::Error) -> String {
    let text = error.to_string();
    match text.rfind(" (os error ") {
        Some(cut) => text[..cut].to_owned(),
        None => text,
    }
}

/// A relative path as reports name it.
fn shown(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

impl Provided {
    /// Reads every file under `dir` (which may itself be given through a
    /// link), within [`copy::Caps::SUBMISSION`]; links and special files
    /// in it are errors, naming them.
    pub fn load(dir: &Path) -> Result<Provided, ProvidedError> {
        let meta = fs::metadata(dir).map_err(|source| ProvidedError::Open { dir: dir.to_owned(), source })?;
        if !meta.is_dir() {
            return Err(ProvidedError::NotADirectory { dir: dir.to_owned() });
        }
        let caps = copy::Caps::SUBMISSION;
        let too_big = |limit: String| ProvidedError::TooBig { dir: dir.to_owned(), limit };
        let (mut entries, mut bytes) = (0_u64, 0_u64);
        let mut files = Vec::new();
        let walk = walkdir::WalkDir::new(dir).follow_links(false).sort_by_file_name().min_depth(1);
        for entry in walk {
            let entry = entry.map_err(|e| {
                let path =
                    e.path().and_then(|p| p.strip_prefix(dir).ok()).unwrap_or(Path::new("")).to_owned();
                ProvidedError::Read { dir: dir.to_owned(), path, source: e.into() }
            })?;
            let path = entry.path().strip_prefix(dir).unwrap_or(entry.path()).to_owned();
            entries += 1;
            if entries > caps.files {
                return Err(too_big(format!("{} files", caps.files)));
            }
            // A file at depth 1 is in no directory below the top.
            if entry.depth() > caps.depth as usize + 1 {
                return Err(too_big(format!("{} directories deep", caps.depth)));
            }
            if path.to_str().is_none() {
                return Err(ProvidedError::Name { dir: dir.to_owned(), path });
            }
            let kind = entry.file_type();
            if kind.is_dir() {
                continue;
            }
            if !kind.is_file() {
                let what = if kind.is_symlink() { "a symbolic link" } else { "not a file or a directory" };
                return Err(ProvidedError::NotAFile { dir: dir.to_owned(), path, what });
            }
            let read = |source| ProvidedError::Read { dir: dir.to_owned(), path: path.clone(), source };
            // Opened without following a link put there since the walk saw it.
            let mut file = fs::OpenOptions::new()
                .read(true)
                .custom_flags(nix::libc::O_NOFOLLOW)
                .open(entry.path())
                .map_err(read)?;
            let meta = file.metadata().map_err(read)?;
            bytes = bytes.saturating_add(meta.len());
            if bytes > caps.bytes {
                return Err(too_big(format!("{} MB", caps.bytes >> 20)));
            }
            let mut contents = Vec::new();
            file.read_to_end(&mut contents).map_err(read)?;
            files.push(ProvidedFile {
                path,
                bytes: contents,
                executable: meta.permissions().mode() & 0o111 != 0,
            });
        }
        if files.is_empty() {
            return Err(ProvidedError::Empty { dir: dir.to_owned() });
        }
        Ok(Provided(Arc::new(Files { dir: dir.to_owned(), files })))
    }

    /// The directory they were read from, as given.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.0.dir
    }

    /// Each file: its path relative to the directory, its bytes, and
    /// whether it is executable; sorted by path.
    pub fn files(&self) -> impl Iterator<Item = (&Path, &[u8], bool)> {
        self.0.files.iter().map(|f| (f.path.as_path(), f.bytes.as_slice(), f.executable))
    }
}

/// What a submission's copy held of the provided files, once they were
/// placed: the paths (relative, `/`-separated) it lacked, those whose
/// bytes differed (or where something else stood), and what of the
/// student's was removed because a tool would have read it instead.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Placed {
    /// Provided files the copy did not have.
    pub missing: Vec<String>,
    /// Provided files the copy had with other bytes, or as a directory.
    pub changed: Vec<String>,
    /// The student's files removed from the copy, sorted: another build
    /// file beside the course's (a `GNUmakefile`, which make reads before
    /// the course's `Makefile`), and what a compiler reads in place of a
    /// provided file (`board.h.gch`, gcc's precompiled `board.h`).
    pub removed: Vec<String>,
}

/// How a submission's copy of one provided file compared with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Found {
    Same,
    Missing,
    Changed,
}

impl Provided {
    /// Writes every provided file over the submission's copy at `source`,
    /// each as [`Step::PlaceProvided`], and removes from the copy what would
    /// be read in their place ([`Provided::stand_ins`]): every file named as
    /// one of `build_names` (the course's build's, at any depth) that the
    /// course did not provide, and a compiler's stand-in for a provided
    /// file. Says what the copy lacked, changed and had removed. A file that
    /// cannot be written or removed fails this submission alone.
    pub(super) fn place_over(
        &self,
        steps: &Steps<'_>,
        source: &Path,
        build_names: &[String],
    ) -> Result<Placed, Failed> {
        let mut placed = Placed::default();
        for file in &self.0.files {
            let found = steps.take(Step::PlaceProvided, &source.join(&file.path), || place(file, source))?;
            match found {
                Found::Same => {}
                Found::Missing => placed.missing.push(shown(&file.path)),
                Found::Changed => placed.changed.push(shown(&file.path)),
            }
        }
        for path in self.stand_ins(source, build_names) {
            let at = source.join(&path);
            steps.take(Step::PlaceProvided, &at, || remove_entry(&at))?;
            placed.removed.push(shown(&path));
        }
        Ok(placed)
    }

    /// What in the copy at `source` a build would read in place of the
    /// course's files, sorted: every entry, at any depth, named as one of
    /// `build_names` that is not a provided file (make reads a
    /// `GNUmakefile` or `makefile` before a `Makefile`, and a recursive
    /// make reads a directory's own), beside each provided file its name
    /// with [`STAND_IN_SUFFIXES`] (gcc reads `board.h.gch`, a precompiled
    /// header, before `board.h`), and beside each provided source a source
    /// of the same stem in another language ([`source_stem`]: make's
    /// built-in rules make `main.o` from a student's `main.c` before the
    /// course's `main.cpp`), and Python's compiled copy of a provided
    /// module ([`cached_source`]: an unchecked `__pycache__/board.*.pyc` is
    /// imported in place of the course's `board.py`, whatever it holds).
    fn stand_ins(&self, source: &Path, build_names: &[String]) -> Vec<PathBuf> {
        let provided = |path: &Path| self.0.files.iter().any(|f| f.path == path);
        let provided_stems: Vec<PathBuf> = self.0.files.iter().filter_map(|f| source_stem(&f.path)).collect();
        let mut found = Vec::new();
        let mut walk = walkdir::WalkDir::new(source).follow_links(false).min_depth(1).into_iter();
        while let Some(entry) = walk.next() {
            let Ok(entry) = entry else { continue };
            let Ok(path) = entry.path().strip_prefix(source) else { continue };
            let named = entry.file_name().to_str().is_some_and(|n| build_names.iter().any(|b| b == n));
            let stands_in = STAND_IN_SUFFIXES.iter().any(|suffix| {
                path.to_str()
                    .and_then(|p| p.strip_suffix(suffix))
                    .is_some_and(|stem| provided(Path::new(stem)))
            });
            let same_stem = entry.file_type().is_file()
                && source_stem(path).is_some_and(|stem| provided_stems.contains(&stem));
            let cached = cached_source(path).is_some_and(|module| provided(&module));
            if ((named || same_stem) && !provided(path)) || stands_in || cached {
                found.push(path.to_owned());
                if entry.file_type().is_dir() {
                    walk.skip_current_dir();
                }
            }
        }
        found.sort();
        found
    }
}

/// What a compiler reads in place of a file when it stands beside it with
/// this suffix: gcc's precompiled header (`board.h.gch`, a file or a
/// directory of them), read before the header it was made from.
pub const STAND_IN_SUFFIXES: [&str; 1] = [".gch"];

/// The extensions of the sources make's built-in rules compile into an
/// object (`%.o: %.c`, `%.cc`, `%.C`, `%.cpp`, `%.m`, `%.p`, `%.f`, `%.F`,
/// `%.r`, `%.s`, `%.S`, `%.mod`) or into a C or Pascal source first (`%.y`,
/// `%.l`, `%.ym`, `%.yl`, `%.w`, `%.web`), and the other spellings gcc
/// compiles (`.cxx`, `.c++`, `.cp`, `.CPP`, `.mm`, `.sx`). Headers are none
/// of them: a student's `board.c` beside the course's `board.h` is theirs.
pub const SOURCE_EXTENSIONS: [&str; 24] = [
    "c", "cc", "C", "cpp", "cxx", "c++", "cp", "CPP", "m", "mm", "p", "f", "F", "r", "s", "S", "sx", "mod",
    "y", "l", "ym", "yl", "w", "web",
];

/// A source's path without its extension (`src/main` for `src/main.cpp`),
/// when its extension is one of [`SOURCE_EXTENSIONS`]: two sources with
/// the same stem make the same object, and make picks one by its own
/// order of rules (`%.o: %.c` before `%.o: %.cpp`), not by the course's.
fn source_stem(path: &Path) -> Option<PathBuf> {
    let extension = path.extension()?.to_str()?;
    SOURCE_EXTENSIONS.contains(&extension).then(|| path.with_extension(""))
}

/// The module a file in a `__pycache__` directory is Python's compiled
/// copy of (`lib/board.py` for `lib/__pycache__/board.cpython-311.pyc`, or
/// `.opt-1.pyc`; a module's name holds no dot). Python imports such a copy
/// in place of the source when it says not to check the source (PEP 552's
/// unchecked hash), so a student's copy of a provided module stands in for
/// the course's.
fn cached_source(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?.to_str()?;
    let dir = path.parent()?;
    // Python looks for `.pyc` exactly, on a file system that tells case.
    if dir.file_name()? != "__pycache__" || path.extension().is_none_or(|e| e != "pyc") {
        return None;
    }
    let module = name.split('.').next()?;
    Some(dir.parent()?.join(format!("{module}.py")))
}

/// Writes `file` into the copy at `source`, replacing whatever stood at its
/// path (a file standing where one of its directories goes too), and says
/// how the copy's version compared. The copy is the grader's own (made by
/// [`copy::copy_tree`], which leaves links out), and nothing here follows a
/// link.
fn place(file: &ProvidedFile, source: &Path) -> io::Result<Found> {
    let mut dir = source.to_path_buf();
    let mut found = None;
    if let Some(parent) = file.path.parent() {
        for part in parent.components() {
            dir.push(part);
            match fs::symlink_metadata(&dir) {
                Ok(meta) if meta.is_dir() => {}
                Ok(_) => {
                    // The student's file stands where the course's directory goes.
                    remove_entry(&dir)?;
                    fs::create_dir(&dir)?;
                    found = Some(Found::Changed);
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    fs::create_dir(&dir)?;
                    found.get_or_insert(Found::Missing);
                }
                Err(e) => return Err(e),
            }
        }
    }
    let target = source.join(&file.path);
    let found = match found {
        Some(found) => found,
        None => match fs::symlink_metadata(&target) {
            Ok(meta) if meta.is_file() => {
                if meta.len() == file.bytes.len() as u64 && fs::read(&target)? == file.bytes {
                    Found::Same
                } else {
                    Found::Changed
                }
            }
            Ok(_) => Found::Changed,
            Err(e) if e.kind() == io::ErrorKind::NotFound => Found::Missing,
            Err(e) => return Err(e),
        },
    };
    // Written anew even when the bytes are the same, so it has the course's
    // permissions too.
    remove_entry(&target)?;
    let mut out = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(if file.executable { 0o755 } else { 0o644 })
        .open(&target)?;
    out.write_all(&file.bytes)?;
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            let path = dir.path().join(name);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }
        dir
    }

    fn names(provided: &Provided) -> Vec<String> {
        provided.files().map(|(p, _, _)| shown(p)).collect()
    }

    #[test]
    fn every_file_is_read_sorted_with_its_path() {
        let dir = tree(&[("main.cpp", "int main() {}\n"), ("include/board.h", "#pragma once\n")]);
        let provided = Provided::load(dir.path()).unwrap();
        assert_eq!(names(&provided), ["include/board.h", "main.cpp"]);
    }

    #[test]
    fn a_link_an_empty_or_missing_directory_is_an_error_naming_it() {
        let dir = tree(&[("main.cpp", "")]);
        std::os::unix::fs::symlink("/etc/passwd", dir.path().join("passwd")).unwrap();
        let error = Provided::load(dir.path()).unwrap_err().to_string();
        assert_eq!(
            error,
            format!(
                "--provided {}: passwd is a symbolic link; expected only files and directories (links are not followed)",
                dir.path().display()
            )
        );
        let empty = tempfile::tempdir().unwrap();
        fs::create_dir(empty.path().join("sub")).unwrap();
        assert_eq!(
            Provided::load(empty.path()).unwrap_err().to_string(),
            format!(
                "--provided {}: holds no files; expected the course's provided files",
                empty.path().display()
            )
        );
        assert_eq!(
            Provided::load(Path::new("no/such/dir")).unwrap_err().to_string(),
            "--provided no/such/dir: cannot open: No such file or directory"
        );
        let file = dir.path().join("main.cpp");
        assert!(
            Provided::load(&file)
                .unwrap_err()
                .to_string()
                .ends_with(": not a directory; expected the directory of the course's provided files")
        );
    }

    #[test]
    fn a_directory_past_the_caps_is_refused_not_cut() {
        let deep = "d/".repeat(17) + "f.h";
        let dir = tree(&[(deep.as_str(), "")]);
        assert_eq!(
            Provided::load(dir.path()).unwrap_err().to_string(),
            format!(
                "--provided {}: holds more than a submission may (16 directories deep)",
                dir.path().display()
            )
        );
        let fits = "d/".repeat(16) + "f.h";
        let dir = tree(&[(fits.as_str(), "")]);
        assert_eq!(names(&Provided::load(dir.path()).unwrap()), [fits]);
    }

    #[test]
    fn placing_replaces_changed_files_adds_missing_ones_and_says_which() {
        let course = tree(&[("main.cpp", "course\n"), ("lib/board.h", "board\n"), ("same.txt", "same\n")]);
        let provided = Provided::load(course.path()).unwrap();
        // The student changed main.cpp, has a file where lib/ goes, and kept same.txt.
        let student = tree(&[("main.cpp", "mine\n"), ("lib", "a file\n"), ("same.txt", "same\n")]);
        let mut placed = Placed::default();
        for file in &provided.0.files {
            match place(file, student.path()).unwrap() {
                Found::Same => {}
                Found::Missing => placed.missing.push(shown(&file.path)),
                Found::Changed => placed.changed.push(shown(&file.path)),
            }
        }
        assert_eq!(
            placed,
            Placed {
                missing: Vec::new(),
                changed: vec!["lib/board.h".into(), "main.cpp".into()],
                removed: Vec::new()
            }
        );
        assert_eq!(fs::read_to_string(student.path().join("main.cpp")).unwrap(), "course\n");
        assert_eq!(fs::read_to_string(student.path().join("lib/board.h")).unwrap(), "board\n");
        assert!(provided.stand_ins(student.path(), &[]).is_empty());
        let lacking = tree(&[("other.cpp", "")]);
        let found: Vec<Found> = provided.0.files.iter().map(|f| place(f, lacking.path()).unwrap()).collect();
        assert_eq!(found, [Found::Missing, Found::Missing, Found::Missing]);
        assert_eq!(fs::read_to_string(lacking.path().join("same.txt")).unwrap(), "same\n");
    }

    #[test]
    fn other_build_files_and_a_compilers_stand_ins_are_found_at_any_depth() {
        let course = tree(&[("Makefile", "prog:\n"), ("board.h", ""), ("lib/util.h", "")]);
        let provided = Provided::load(course.path()).unwrap();
        let student = tree(&[
            ("Makefile", "mine\n"),
            ("GNUmakefile", ""),
            ("makefile", ""),
            ("sub/GNUmakefile", ""),
            ("board.h.gch", ""),
            ("lib/util.h.gch/a.gch", ""),
            ("mine.h.gch", ""),
            ("MAKEFILE", ""),
            ("Main.cpp", ""),
        ]);
        let names: Vec<String> = ["Makefile", "makefile", "GNUmakefile"].map(str::to_owned).to_vec();
        let found: Vec<String> =
            provided.stand_ins(student.path(), &names).iter().map(|p| shown(p)).collect();
        // The course's Makefile stays (it is written over); a student's own
        // header's precompiled copy, and names make does not read, are theirs.
        assert_eq!(found, ["GNUmakefile", "board.h.gch", "lib/util.h.gch", "makefile", "sub/GNUmakefile"]);
        let steps = Steps { name: "s", area: student.path(), faults: None };
        let placed = provided.place_over(&steps, student.path(), &names).unwrap();
        assert_eq!(placed.removed, found);
        assert_eq!(placed.changed, ["Makefile"]);
        for gone in &found {
            assert!(fs::symlink_metadata(student.path().join(gone)).is_err(), "{gone}");
        }
        assert!(student.path().join("mine.h.gch").exists() && student.path().join("MAKEFILE").exists());
    }

    #[test]
    fn a_source_of_a_provided_sources_stem_in_another_language_is_found() {
        // Found by an attacker: make's built-in `%.o: %.c` comes before
        // `%.o: %.cpp`, so a student's main.c was compiled (by cc, with no
        // warning flags) in place of the course's main.cpp.
        let course = tree(&[
            ("Makefile", "prog: main.o board.o\n"),
            ("main.cpp", ""),
            ("src/io.cc", ""),
            ("board.h", ""),
        ]);
        let provided = Provided::load(course.path()).unwrap();
        let student = tree(&[
            ("main.cpp", "mine\n"),
            ("main.c", ""),
            ("main.C", ""),
            ("main.s", ""),
            ("main.y", ""),
            ("src/io.c", ""),
            ("src/io.cpp", ""),
            // Not a stand-in: a header, another stem, another directory,
            // no source at all, and the student's board.c for the course's board.h.
            ("main.h", ""),
            ("main.txt", ""),
            ("mainx.c", ""),
            ("sub/main.c", ""),
            ("board.c", ""),
            ("board.cpp", ""),
        ]);
        let found: Vec<String> = provided.stand_ins(student.path(), &[]).iter().map(|p| shown(p)).collect();
        assert_eq!(found, ["main.C", "main.c", "main.s", "main.y", "src/io.c", "src/io.cpp"]);
        assert_eq!(source_stem(Path::new("a/b.c++")), Some(PathBuf::from("a/b")));
        assert_eq!(source_stem(Path::new("a/b.h")), None);
    }

    #[test]
    fn pythons_compiled_copy_of_a_provided_module_is_found() {
        // Found by an attacker: an unchecked-hash .pyc of the student's own
        // board.py is imported in place of the course's board.py.
        let course = tree(&[("board.py", "course\n"), ("lib/util.py", "")]);
        let provided = Provided::load(course.path()).unwrap();
        let student = tree(&[
            ("__pycache__/board.cpython-311.pyc", ""),
            ("__pycache__/board.cpython-311.opt-1.pyc", ""),
            ("lib/__pycache__/util.cpython-312.pyc", ""),
            // The student's own modules' copies are theirs.
            ("__pycache__/main.cpython-311.pyc", ""),
            ("lib/__pycache__/board.cpython-311.pyc", ""),
            ("board.pyc", ""),
        ]);
        let found: Vec<String> = provided.stand_ins(student.path(), &[]).iter().map(|p| shown(p)).collect();
        assert_eq!(
            found,
            [
                "__pycache__/board.cpython-311.opt-1.pyc",
                "__pycache__/board.cpython-311.pyc",
                "lib/__pycache__/util.cpython-312.pyc"
            ]
        );
    }
}
