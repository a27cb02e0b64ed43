//! Builds kept for other machines: `ttt-referee build` makes every bot of
//! an event runnable once and keeps each build in a directory
//! ([`MANIFEST`] and one tree a bot), which the parts of a split event take
//! with `--prebuilt DIR` instead of building 200 bots each (an artifact in
//! GitHub Actions, a shared directory on Slurm).
//!
//! Digests make the hand-over safe to trust: the manifest records the
//! digest of each bot's source as given and of its kept build, and a part
//! takes a kept build only for a bot whose source it was given has the
//! same digest (a bot edited since is an error, never another bot's
//! build), and only once the copy it made of the build has the recorded
//! digest (a damaged or altered artifact is refused). The build is copied
//! into the sandbox's scratch with the caps of a build and run there as a
//! fresh build would be: nothing in it is trusted more than that.

use std::fs::{self, File};
use std::io::{self, Read};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{Built, Failure, NotBuilt, Workshop};
use crate::sandbox::copy;

/// The manifest's name in a directory of kept builds.
pub const MANIFEST: &str = "build.json";

/// The manifest's format; a newer one is refused, not misread.
pub const VERSION: u32 = 1;

/// What a kept build may hold: a submission's files and what its build
/// added (a build writes at most its output limit besides its source).
pub const CAPS: copy::Caps = copy::Caps { bytes: 256 << 20, files: 20_000, depth: copy::RUN_TREE_DEPTH };

/// A directory of kept builds, as [`MANIFEST`] says.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// [`VERSION`].
    pub version: u32,
    /// The ttt-referee version that built them: a part of another version
    /// may detect or run a language otherwise, so it builds afresh.
    pub tool: String,
    /// Every bot, in the order given.
    pub bots: Vec<Kept>,
}

/// One bot's kept build, or why it has none.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Kept {
    /// Its name, as events name it.
    pub name: String,
    /// SHA-256 of its source as given ([`tree_digest`]).
    pub source: String,
    /// What became of its build.
    #[serde(flatten)]
    pub build: KeptBuild,
}

/// What became of one bot's build.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "kebab-case")]
pub enum KeptBuild {
    /// Built: its tree is in `dir` (relative to the manifest's directory).
    Built {
        /// The tree's directory, a plain name.
        dir: String,
        /// SHA-256 of the tree ([`tree_digest`]).
        tree: String,
        /// Its language, as found.
        language: String,
        /// Its run command, in words.
        argv: Vec<String>,
        /// What its runs' environment has besides the sandbox's own.
        env: Vec<(String, String)>,
    },
    /// It could not be built: every part forfeits its games, saying this.
    NotBuilt {
        /// Why, as the build said.
        why: String,
    },
}

/// Why a directory of kept builds cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum KeptError {
    /// The manifest cannot be read.
    #[error("{}: cannot be read: {source}", path.display())]
    Read {
        /// The manifest.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// The manifest is not one this tool wrote.
    #[error("{}: not a manifest of kept builds ({why}); expected the {MANIFEST} `ttt-referee build` writes", path.display())]
    Corrupt {
        /// The manifest.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// Built by another version of the tool.
    #[error("{}: built by ttt-referee {tool}, but this is {}; build again with this version", path.display(), env!("CARGO_PKG_VERSION"))]
    OtherTool {
        /// The manifest.
        path: PathBuf,
        /// The version that built them.
        tool: String,
    },
}

impl Manifest {
    /// The manifest in `dir`.
    ///
    /// # Errors
    /// [`KeptError`]: unreadable, not a manifest, or of another version.
    pub fn read(dir: &Path) -> Result<Manifest, KeptError> {
        let path = dir.join(MANIFEST);
        let mut text = Vec::new();
        File::open(&path)
            .and_then(|file| file.take(16 << 20).read_to_end(&mut text))
            .map_err(|source| KeptError::Read { path: path.clone(), source })?;
        let manifest: Manifest = serde_json::from_slice(&text)
            .map_err(|e| KeptError::Corrupt { path: path.clone(), why: e.to_string() })?;
        if manifest.version != VERSION {
            let why = format!("format {}, expected {VERSION}", manifest.version);
            return Err(KeptError::Corrupt { path, why });
        }
        if manifest.tool != env!("CARGO_PKG_VERSION") {
            return Err(KeptError::OtherTool { path, tool: manifest.tool });
        }
        let plain = |dir: &str| {
            let mut parts = Path::new(dir).components();
            matches!((parts.next(), parts.next()), (Some(std::path::Component::Normal(_)), None))
        };
        if let Some(bad) = manifest.bots.iter().find_map(|kept| match &kept.build {
            KeptBuild::Built { dir, .. } if !plain(dir) => Some(dir),
            _ => None,
        }) {
            let why = format!("`{}` is not a plain directory name", crate::text::inert(bad));
            return Err(KeptError::Corrupt { path, why });
        }
        Ok(manifest)
    }

    /// The kept build of the bot named `name`, if there is one.
    #[must_use]
    pub fn find(&self, name: &str) -> Option<&Kept> {
        self.bots.iter().find(|kept| kept.name == name)
    }
}

/// SHA-256 of the tree at `top`, in hexadecimal: every directory and
/// regular file below it (symbolic links and special files are left out, as
/// a copy leaves them out), each by its path from `top`, its kind, whether
/// it is executable, and a file's bytes; in the order of their paths'
/// bytes, so the same tree has the same digest on every machine.
///
/// # Errors
/// When the tree cannot be read, or holds more than [`CAPS`] allows.
pub fn tree_digest(top: &Path) -> io::Result<String> {
    let mut hasher = Sha256::new();
    let (mut entries, mut bytes) = (0_u64, 0_u64);
    let walk = walkdir::WalkDir::new(top)
        .min_depth(1)
        .max_depth(CAPS.depth as usize + 1)
        .follow_links(false)
        .sort_by(|a, b| a.file_name().cmp(b.file_name()));
    for entry in walk {
        let entry = entry.map_err(io::Error::other)?;
        let kind = entry.file_type();
        if !kind.is_dir() && !kind.is_file() {
            continue;
        }
        entries += 1;
        if entries > CAPS.files {
            return Err(io::Error::other(format!("it holds more than {} entries", CAPS.files)));
        }
        let relative = entry.path().strip_prefix(top).map_err(io::Error::other)?;
        let path = std::os::unix::ffi::OsStrExt::as_bytes(relative.as_os_str());
        let meta = entry.metadata().map_err(io::Error::other)?;
        let executable = meta.permissions().mode() & 0o111 != 0;
        hasher.update((path.len() as u64).to_le_bytes());
        hasher.update(path);
        hasher.update([u8::from(kind.is_dir()), u8::from(executable)]);
        if kind.is_file() {
            bytes += meta.size();
            if bytes > CAPS.bytes {
                return Err(io::Error::other(format!("it holds more than {} MB", CAPS.bytes >> 20)));
            }
            // Streamed: a large file is never held whole in memory.
            hasher.update(meta.size().to_le_bytes());
            let read = io::copy(&mut File::open(entry.path())?.take(meta.size()), &mut hasher)?;
            if read != meta.size() {
                return Err(io::Error::other(format!("{} changed while it was read", relative.display())));
            }
        }
    }
    Ok(hex::encode(hasher.finalize()))
}

impl Workshop {
    /// The bot `kept` (a built one, from the directory `from`), made
    /// runnable without a build: its tree copied into an area of its own
    /// in the scratch, checked against the digest it was kept with, and
    /// handed to the run user.
    ///
    /// # Errors
    /// [`NotBuilt`]: the copy failed, or its digest is not the recorded one.
    pub fn restore(&self, from: &Path, kept: &Kept) -> Result<Built, NotBuilt> {
        let KeptBuild::Built { dir, tree, language, argv, env } = &kept.build else {
            let why = "it has no kept build".to_owned();
            return Err(NotBuilt::from(Failure::early(why)));
        };
        let failed =
            |why: String| NotBuilt::from(Failure { language: language.clone(), ..Failure::early(why) });
        let area = tempfile::Builder::new()
            .prefix("kept-")
            .tempdir_in(self.sandbox.scratch())
            .map_err(|e| failed(format!("the grader failed to make room for it: {e}")))?
            .keep();
        let start = area.join("built");
        fs::create_dir(&start).map_err(|e| failed(format!("the grader failed to make room for it: {e}")))?;
        copy::copy_tree(&from.join(dir), &start, CAPS, None)
            .map_err(|e| failed(format!("its kept build cannot be copied: {e}")))?;
        // The copy is what runs, so the copy is what is checked.
        let digest =
            tree_digest(&start).map_err(|e| failed(format!("its kept build cannot be read: {e}")))?;
        if digest != *tree {
            return Err(failed(format!(
                "its kept build in {} is not the one that was built (its digest is {digest}, the manifest says {tree})",
                from.join(dir).display()
            )));
        }
        let steps = self.steps(&kept.name, &area);
        steps.hand_over(&self.sandbox, &area).map_err(|super::intake::Failed(why)| failed(why))?;
        Ok(Built {
            name: kept.name.clone(),
            language: language.clone(),
            start,
            argv: argv.clone(),
            env: env.clone(),
            build_log: None,
            provided: None,
            silencers: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trees_digest_follows_its_paths_bytes_and_modes_only() {
        let scratch = tempfile::tempdir().unwrap();
        let (a, b) = (scratch.path().join("a"), scratch.path().join("b"));
        for top in [&a, &b] {
            fs::create_dir_all(top.join("src")).unwrap();
            fs::write(top.join("src/bot.c"), "int main(void) { return 0; }\n").unwrap();
            fs::write(top.join("prog"), "\x7fELF").unwrap();
            fs::set_permissions(top.join("prog"), fs::Permissions::from_mode(0o755)).unwrap();
        }
        // A link is left out, as a copy leaves it out.
        std::os::unix::fs::symlink("/etc/passwd", b.join("link")).unwrap();
        let digest = tree_digest(&a).unwrap();
        assert_eq!(digest.len(), 64);
        assert_eq!(tree_digest(&b).unwrap(), digest);

        fs::set_permissions(b.join("prog"), fs::Permissions::from_mode(0o644)).unwrap();
        assert_ne!(tree_digest(&b).unwrap(), digest, "the mode counts");
        fs::set_permissions(b.join("prog"), fs::Permissions::from_mode(0o755)).unwrap();
        fs::write(b.join("src/bot.c"), "int main(void) { return 1; }\n").unwrap();
        assert_ne!(tree_digest(&b).unwrap(), digest, "the bytes count");
        fs::write(b.join("src/bot.c"), "int main(void) { return 0; }\n").unwrap();
        fs::rename(b.join("prog"), b.join("prog2")).unwrap();
        assert_ne!(tree_digest(&b).unwrap(), digest, "the names count");
    }

    #[test]
    fn a_manifest_of_another_kind_says_what_is_wrong() {
        let dir = tempfile::tempdir().unwrap();
        let missing = Manifest::read(dir.path()).unwrap_err().to_string();
        assert!(
            missing.ends_with("build.json: cannot be read: No such file or directory (os error 2)"),
            "{missing}"
        );
        fs::write(dir.path().join(MANIFEST), "{}").unwrap();
        let corrupt = Manifest::read(dir.path()).unwrap_err().to_string();
        assert!(
            corrupt.ends_with("build.json: not a manifest of kept builds (missing field `version` at line 1 column 2); expected the build.json `ttt-referee build` writes"),
            "{corrupt}"
        );
        let other = Manifest { version: VERSION, tool: "0.0.1".into(), bots: Vec::new() };
        fs::write(dir.path().join(MANIFEST), serde_json::to_string(&other).unwrap()).unwrap();
        let message = Manifest::read(dir.path()).unwrap_err().to_string();
        assert!(
            message.ends_with(&format!(
                "build.json: built by ttt-referee 0.0.1, but this is {}; build again with this version",
                env!("CARGO_PKG_VERSION")
            )),
            "{message}"
        );
        let escaping = Manifest {
            version: VERSION,
            tool: env!("CARGO_PKG_VERSION").into(),
            bots: vec![Kept {
                name: "ann".into(),
                source: String::new(),
                build: KeptBuild::Built {
                    dir: "../../etc".into(),
                    tree: String::new(),
                    language: "C".into(),
                    argv: vec!["./prog".into()],
                    env: Vec::new(),
                },
            }],
        };
        fs::write(dir.path().join(MANIFEST), serde_json::to_string(&escaping).unwrap()).unwrap();
        let message = Manifest::read(dir.path()).unwrap_err().to_string();
        assert!(
            message.ends_with("build.json: not a manifest of kept builds (`../../etc` is not a plain directory name); expected the build.json `ttt-referee build` writes"),
            "{message}"
        );
    }
}
