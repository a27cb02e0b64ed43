//! The `[play]` table of a course's `grade.toml`: the tests of `grade
//! --play` written once for a course instead of on every command line.
//!
//! Each key is the flag of the same name and its value is written as on
//! the command line, so one grammar serves both and the flags' own parsers
//! read it:
//!
//! ```toml
//! [play]
//! board = "3x3"
//! bar = "80,55"
//! versus = ["minimax=40,40", "reference-bot=50,50"]
//! ```
//!
//! A flag given on the command line wins over its key.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use crate::workshop::language::ConfigError;

/// The keys `[play]` may hold: `grade --play`'s flags that shape its tests.
pub const PLAY_KEYS: [&str; 8] =
    ["board", "win", "bar", "games", "proof-games", "versus", "move-time", "startup"];

/// One setting of `[play]`: a flag's name, its value as it would be written
/// on the command line, and where it is, for errors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setting {
    /// The key: one of [`PLAY_KEYS`].
    pub key: String,
    /// The value as command-line text (`"80,55"`, `"3"`); a list (`versus`)
    /// gives one setting an item.
    pub value: String,
    /// The line of the file (1-based) that holds it.
    pub line: usize,
}

/// A course's `[play]` table, read from its file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlayConfig {
    /// The file it was read from (its directory is where relative paths in
    /// it start).
    pub path: PathBuf,
    /// Its settings in file order.
    pub settings: Vec<Setting>,
}

impl PlayConfig {
    /// Reads the `[play]` table of the TOML file at `path` (no table: no
    /// settings).
    ///
    /// # Errors
    /// [`ConfigError::Read`]: the file cannot be read;
    /// [`ConfigError::Invalid`]: it is not TOML, or `[play]` holds a key
    /// that is not one of [`PLAY_KEYS`] or a value of the wrong shape.
    pub fn from_file(path: &Path) -> Result<PlayConfig, ConfigError> {
        let text = std::fs::read_to_string(path)
            .map_err(|source| ConfigError::Read { path: path.to_owned(), source })?;
        PlayConfig::from_text(&text, path)
    }

    /// As [`PlayConfig::from_file`], from the file's text.
    ///
    /// # Errors
    /// As [`PlayConfig::from_file`].
    pub fn from_text(text: &str, path: &Path) -> Result<PlayConfig, ConfigError> {
        let invalid = |offset: usize, message: String| ConfigError::Invalid {
            path: path.to_owned(),
            line: line_of(text, offset),
            message,
        };
        let file: File = toml::from_str(text)
            .map_err(|e| invalid(e.span().map_or(0, |s| s.start), e.message().trim_end().to_owned()))?;
        let mut entries: Vec<_> = file.play.unwrap_or_default().into_iter().collect();
        entries.sort_by_key(|(key, _)| key.span().start);
        let mut settings = Vec::new();
        for (key, value) in entries {
            let at = key.span().start;
            let key = key.into_inner();
            if !PLAY_KEYS.contains(&key.as_str()) {
                return Err(invalid(
                    at,
                    format!("[play] has no key `{key}`: expected one of {}", PLAY_KEYS.join(", ")),
                ));
            }
            let line = line_of(text, value.span().start);
            let one = |value: &toml::Value| match value {
                toml::Value::String(s) => Some(s.clone()),
                toml::Value::Integer(n) => Some(n.to_string()),
                toml::Value::Float(x) => Some(x.to_string()),
                _ => None,
            };
            let values = match (key.as_str(), value.get_ref()) {
                ("versus", toml::Value::Array(items)) => items.iter().map(one).collect::<Option<Vec<_>>>(),
                ("versus", _) => None,
                (_, value) => one(value).map(|v| vec![v]),
            };
            let expected = if key == "versus" {
                "a list of opponents, as --versus takes them: [\"minimax=40,40\", \"reference=50,50\"]"
            } else {
                "a string or a number, as the flag takes it"
            };
            let values =
                values.ok_or_else(|| invalid(value.span().start, format!("`{key}`: expected {expected}")))?;
            settings.extend(values.into_iter().map(|value| Setting { key: key.clone(), value, line }));
        }
        Ok(PlayConfig { path: path.to_owned(), settings })
    }

    /// The values of `key`, each with its line.
    pub fn values<'a>(&'a self, key: &'a str) -> impl Iterator<Item = &'a Setting> + 'a {
        self.settings.iter().filter(move |s| s.key == key)
    }

    /// The error for `setting`'s value, which its flag's parser refused
    /// saying `message`.
    #[must_use]
    pub fn refused(&self, setting: &Setting, message: &str) -> ConfigError {
        ConfigError::Invalid {
            path: self.path.clone(),
            line: setting.line,
            message: format!("[play] `{}`: {message}", setting.key),
        }
    }

    /// A path written in the file, as it is from the working directory:
    /// relative ones start at the file's directory.
    #[must_use]
    pub fn path_in(&self, written: &str) -> PathBuf {
        let written = Path::new(written);
        if written.is_absolute() {
            return written.to_owned();
        }
        self.path.parent().map_or_else(|| written.to_owned(), |dir| dir.join(written))
    }
}

/// The file's shape as far as `[play]` goes: the other tables (its
/// languages) are read by [`crate::workshop::Languages`].
#[derive(Deserialize)]
struct File {
    #[serde(default)]
    play: Option<BTreeMap<Spanned<String>, Spanned<toml::Value>>>,
}

/// The line (1-based) of byte `offset` of `text`.
fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<PlayConfig, String> {
        PlayConfig::from_text(text, Path::new("course/grade.toml")).map_err(|e| e.to_string())
    }

    #[test]
    fn each_key_is_a_flag_written_as_on_the_command_line() {
        let config = read(
            "[[language]]\nname = \"R\"\nfiles = [\"*.r\"]\nrun = \"Rscript bot.r\"\n\n[play]\nboard = \"4x4\"\nwin = 3\n\
             move-time = 0.5\nversus = [\"minimax=40,40\", \"ref=50,50\"]\n",
        )
        .unwrap();
        let said: Vec<(&str, &str, usize)> =
            config.settings.iter().map(|s| (s.key.as_str(), s.value.as_str(), s.line)).collect();
        assert_eq!(
            said,
            [
                ("board", "4x4", 7),
                ("win", "3", 8),
                ("move-time", "0.5", 9),
                ("versus", "minimax=40,40", 10),
                ("versus", "ref=50,50", 10)
            ]
        );
        assert_eq!(config.path_in("ref"), Path::new("course/ref"));
        assert_eq!(config.path_in("/abs/ref"), Path::new("/abs/ref"));
        assert_eq!(read("[[language]]\nname = \"R\"\n").map(|c| c.settings.len()).ok(), Some(0));
    }

    #[test]
    fn a_key_or_value_it_cannot_use_names_its_line_and_what_was_expected() {
        assert_eq!(
            read("[play]\nboard = \"3x3\"\nbars = \"80,55\"\n").unwrap_err(),
            "course/grade.toml:3: [play] has no key `bars`: expected one of board, win, bar, games, proof-games, \
             versus, move-time, startup"
        );
        assert_eq!(
            read("[play]\nversus = \"minimax\"\n").unwrap_err(),
            "course/grade.toml:2: `versus`: expected a list of opponents, as --versus takes them: \
             [\"minimax=40,40\", \"reference=50,50\"]"
        );
        assert_eq!(
            read("[play]\nbar = [80, 55]\n").unwrap_err(),
            "course/grade.toml:2: `bar`: expected a string or a number, as the flag takes it"
        );
        assert!(read("[play\n").unwrap_err().starts_with("course/grade.toml:1: "));
        let config = read("[play]\nbar = \"80\"\n").unwrap();
        assert_eq!(
            config.refused(&config.settings[0], "expected two percentages").to_string(),
            "course/grade.toml:2: [play] `bar`: expected two percentages"
        );
    }
}
