//! Game records sealed with a keyed digest, so that a resumed event trusts
//! only the records it wrote itself.
//!
//! A record is a move file anyone can write, and a bot's moves cannot be
//! asked again to check it (a bot need not play the same move twice). So
//! each record gets a seal beside it (`games/001.seal` beside
//! `games/001.txt`): HMAC-SHA256 of the record's bytes under a key only the
//! person running the event holds. A record whose seal is missing or does
//! not match — edited, copied in from elsewhere, or written by a run that
//! was killed between the two files — is not trusted: its game is played
//! again.
//!
//! The key ([`RecordKey::kept`]) is the text of `TTT_REFEREE_RECORD_KEY`
//! when that is set (a CI secret, or one key shared by the machines of a
//! fleet), else 32 random bytes kept in the user's state directory
//! (`$XDG_STATE_HOME/ttt-referee/record.key`, else
//! `~/.local/state/ttt-referee/record.key`), made on first use, readable by
//! its owner alone. With neither, the key lives only as long as the run
//! ([`RecordKey::ephemeral`]) and a resumed run plays every game again.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// The environment variable whose text, when set, is the key.
pub const KEY_VARIABLE: &str = "TTT_REFEREE_RECORD_KEY";

/// The fewest bytes a key given in [`KEY_VARIABLE`] may have: 128 bits.
pub const SHORTEST_KEY: usize = 16;

/// What a seal file says before its digest, naming the algorithm and the
/// seal's version.
const SEAL_PREFIX: &str = "hmac-sha256 v1 ";

/// The domain the digest is taken in: a seal of a record is never the
/// digest of anything else made with the same key.
const DOMAIN: &[u8] = b"ttt-referee game record\n";

/// The key an event's records are sealed with, and where it came from.
#[derive(Clone)]
pub struct RecordKey {
    /// The key's bytes.
    bytes: Vec<u8>,
    /// Where it is kept.
    source: KeySource,
}

/// Where a [`RecordKey`] is kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeySource {
    /// The text of [`KEY_VARIABLE`].
    Variable,
    /// A file in the user's state directory.
    File(PathBuf),
    /// Nowhere: it was drawn for this run alone, for the reason given.
    Ephemeral(String),
}

impl std::fmt::Debug for RecordKey {
    /// The source only: the key's bytes are never shown.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecordKey").field("source", &self.source).finish_non_exhaustive()
    }
}

/// Why the key the user gave cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    /// [`KEY_VARIABLE`] is set but too short to be a secret.
    #[error(
        "{KEY_VARIABLE} is {len} bytes; expected a secret of at least {SHORTEST_KEY} bytes (for example the output of `openssl rand -hex 32`)"
    )]
    TooShort {
        /// Its length in bytes.
        len: usize,
    },
}

impl RecordKey {
    /// The key an event with a report directory seals its records with:
    /// [`KEY_VARIABLE`]'s text if it is set, else the key kept in the
    /// user's state directory (made on first use), else a key for this run
    /// alone, saying why in its [`KeySource::Ephemeral`].
    ///
    /// # Errors
    /// [`KeyError`] when [`KEY_VARIABLE`] is set but too short.
    pub fn kept() -> Result<Self, KeyError> {
        if let Some(text) = std::env::var_os(KEY_VARIABLE) {
            let bytes = text.into_encoded_bytes();
            if bytes.len() < SHORTEST_KEY {
                return Err(KeyError::TooShort { len: bytes.len() });
            }
            return Ok(Self { bytes, source: KeySource::Variable });
        }
        let Some(dir) = dirs::state_dir() else {
            return Ok(Self::ephemeral("there is no state directory (HOME and XDG_STATE_HOME are unset)"));
        };
        let path = dir.join("ttt-referee").join("record.key");
        match keep(&path) {
            Ok(bytes) => Ok(Self { bytes, source: KeySource::File(path) }),
            Err(why) => Ok(Self::ephemeral(&format!("{}: {why}", path.display()))),
        }
    }

    /// A key drawn for this run alone: records it seals are trusted by no
    /// later run. `why` says why no kept key is used.
    #[must_use]
    pub fn ephemeral(why: &str) -> Self {
        Self { bytes: random_key().to_vec(), source: KeySource::Ephemeral(why.to_owned()) }
    }

    /// Where the key is kept.
    #[must_use]
    pub fn source(&self) -> &KeySource {
        &self.source
    }

    /// The seal file's text for a record of `bytes`, played under
    /// `settings` (what the record does not say but its game depended on:
    /// the move time, the clock, the rule), so a record is trusted only by
    /// an event with the same.
    #[must_use]
    pub fn seal(&self, settings: &str, bytes: &[u8]) -> String {
        format!("{SEAL_PREFIX}{}\n", hex::encode(self.mac(settings, bytes).finalize().into_bytes()))
    }

    /// Whether `seal`, a seal file's text, is this key's seal of `bytes`
    /// played under `settings` (compared in constant time).
    #[must_use]
    pub fn verifies(&self, settings: &str, bytes: &[u8], seal: &str) -> bool {
        let Some(hex) = seal.strip_prefix(SEAL_PREFIX).and_then(|rest| rest.strip_suffix('\n')) else {
            return false;
        };
        let Some(digest) = from_hex(hex) else { return false };
        self.mac(settings, bytes).verify_slice(&digest).is_ok()
    }

    /// The digest under way of `settings` and `bytes`, in the records'
    /// domain.
    fn mac(&self, settings: &str, bytes: &[u8]) -> Hmac<Sha256> {
        // HMAC takes a key of any length.
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.bytes).unwrap_or_else(|_| unreachable!());
        mac.update(DOMAIN);
        // Its length first, so no two (settings, bytes) pairs run together.
        mac.update(&(settings.len() as u64).to_be_bytes());
        mac.update(settings.as_bytes());
        mac.update(bytes);
        mac
    }
}

/// Where the seal of the record at `record` goes: beside it, `.seal` for
/// `.txt`.
#[must_use]
pub fn seal_path(record: &Path) -> PathBuf {
    record.with_extension("seal")
}

/// The key kept at `path`, made there (with its directory, readable by the
/// owner alone) if there is none. A key file another user could read or
/// replace is not used.
fn keep(path: &Path) -> Result<Vec<u8>, String> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
    let dir = path.parent().ok_or("no directory")?;
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| format!("cannot make its directory: {e}"))?;
    let made = (|| -> io::Result<()> {
        let mut staged = tempfile::Builder::new().prefix(".record.key.").tempfile_in(dir)?;
        staged.write_all(format!("{}\n", hex::encode(random_key())).as_bytes())?;
        staged.as_file().sync_all()?;
        // Never over a key another run made first.
        staged.persist_noclobber(path).map_err(|e| e.error)?;
        Ok(())
    })();
    match made {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(format!("cannot make it: {e}")),
    }
    let meta = fs::symlink_metadata(path).map_err(|e| format!("cannot read it: {e}"))?;
    if !meta.file_type().is_file() {
        return Err("it is not a regular file".to_owned());
    }
    if meta.uid() != rustix::process::geteuid().as_raw() || meta.permissions().mode() & 0o077 != 0 {
        return Err("other users could read or replace it (it must be this user's, mode 0600)".to_owned());
    }
    let text = fs::read_to_string(path).map_err(|e| format!("cannot read it: {e}"))?;
    from_hex(text.trim_end())
        .filter(|key| key.len() == 32)
        .ok_or_else(|| "it is not 64 hexadecimal digits".to_owned())
}

/// 32 bytes from the operating system's random source.
fn random_key() -> [u8; 32] {
    let mut key = [0; 32];
    // The process's other random draws use the same source; should it
    // fail, a fresh key from the standard library's hasher keys is still
    // unknown to anyone else.
    if getrandom::fill(&mut key).is_err() {
        use std::hash::{BuildHasher, Hasher};
        for chunk in key.chunks_mut(8) {
            let value = std::collections::hash_map::RandomState::new().build_hasher().finish();
            chunk.copy_from_slice(&value.to_le_bytes()[..chunk.len()]);
        }
    }
    key
}

/// The bytes `text` spells in lowercase hexadecimal, two digits a byte
/// (what [`hex::encode`] writes, and nothing else).
fn from_hex(text: &str) -> Option<Vec<u8>> {
    if text.bytes().any(|b| b.is_ascii_uppercase()) {
        return None;
    }
    hex::decode(text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seal_verifies_its_own_record_only_under_its_own_key() {
        let key = RecordKey::ephemeral("test");
        let record =
            b"Match game 1 (seed 0): perfect (X) vs random (O): X wins\nX: perfect O: random\n\nX 5\n";
        let seal = key.seal("move=1s", record);
        assert!(seal.starts_with("hmac-sha256 v1 ") && seal.len() == 15 + 64 + 1, "{seal}");
        assert!(key.verifies("move=1s", record, &seal));
        assert!(!key.verifies("move=2s", record, &seal), "other settings");
        let mut edited = record.to_vec();
        let last = edited.len() - 2;
        edited[last] = b'4';
        assert!(!key.verifies("move=1s", &edited, &seal), "an edited record");
        assert!(!RecordKey::ephemeral("another").verifies("move=1s", record, &seal), "another key");
        for broken in [
            "",
            "hmac-sha256 v1 \n",
            &seal[..seal.len() - 1],
            &seal.to_uppercase(),
            &seal.replace("v1", "v2"),
        ] {
            assert!(!key.verifies("move=1s", record, broken), "{broken:?}");
        }
    }

    #[test]
    fn a_kept_key_is_made_once_for_its_owner_alone_and_read_back() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state/ttt-referee/record.key");
        let made = keep(&path).unwrap();
        assert_eq!(made.len(), 32);
        assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(fs::metadata(path.parent().unwrap()).unwrap().permissions().mode() & 0o777, 0o700);
        assert_eq!(keep(&path).unwrap(), made, "read back, not made again");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        assert!(
            keep(&path).unwrap_err().contains("other users could read"),
            "a key others can read is not used"
        );
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        fs::write(&path, "not a key\n").unwrap();
        assert!(keep(&path).unwrap_err().contains("64 hexadecimal digits"));
    }

    #[test]
    fn hex_is_read_strictly() {
        assert_eq!(from_hex("00ff10"), Some(vec![0, 255, 16]));
        for bad in ["0", "0g", "FF", "+1", " 1"] {
            assert_eq!(from_hex(bad), None, "{bad:?}");
        }
    }
}
