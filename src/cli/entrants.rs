//! Who takes part in a match or tournament, from the command line: an
//! engine's name (`perfect`, `minimax`, `rules`, `random`), or a directory
//! holding a bot's source.

use std::path::Path;

use super::CliError;
use crate::arena::{EngineEntrant, Entrant};
use crate::engine::EngineKind;

/// The participant `arg` names: an engine by its name, else a directory
/// holding a bot's source (an engine's name wins; `./perfect` names a
/// directory called `perfect`).
pub(super) fn entrant(arg: &str) -> Result<Box<dyn Entrant>, CliError> {
    if let Some(kind) = EngineKind::from_name(arg) {
        return Ok(Box::new(EngineEntrant::new(kind)));
    }
    let dir = Path::new(arg);
    if dir.is_dir() {
        return bot(dir);
    }
    Err(CliError::NotAParticipant { arg: arg.to_owned() })
}

/// The bot whose source is in `dir`: the one place bots come in.
fn bot(dir: &Path) -> Result<Box<dyn Entrant>, CliError> {
    Err(CliError::BotsNotWired { dir: dir.to_owned() })
}

/// Every participant of `args`, in order; a second engine of one kind is
/// named `random-2` (a third `random-3`, …), so the standings tell them
/// apart.
pub(super) fn entrants(args: &[String]) -> Result<Vec<Box<dyn Entrant>>, CliError> {
    let mut entrants: Vec<Box<dyn Entrant>> = Vec::with_capacity(args.len());
    for (at, arg) in args.iter().enumerate() {
        let entrant = entrant(arg)?;
        let before = args[..at].iter().filter(|a| *a == arg).count();
        let entrant = match EngineKind::from_name(arg) {
            Some(kind) if before > 0 => {
                Box::new(EngineEntrant::new(kind).named(format!("{arg}-{}", before + 1)))
            }
            _ => entrant,
        };
        if entrants.iter().any(|e| e.name() == entrant.name()) {
            return Err(CliError::SameName { name: entrant.name().to_owned() });
        }
        entrants.push(entrant);
    }
    Ok(entrants)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(args: &[&str]) -> Result<Vec<String>, String> {
        let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
        entrants(&args)
            .map(|list| list.iter().map(|e| e.name().to_owned()).collect())
            .map_err(|e| e.to_string())
    }

    #[test]
    fn engines_are_named_and_repeats_numbered() {
        assert_eq!(
            names(&["perfect", "random", "random", "random"]).unwrap(),
            ["perfect", "random", "random-2", "random-3"]
        );
    }

    #[test]
    fn anything_else_says_what_was_expected() {
        assert_eq!(
            names(&["perfect", "no-such-dir"]).unwrap_err(),
            "`no-such-dir` is not a participant: expected an engine (perfect, minimax, rules or random) or a directory holding a bot's source"
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().display().to_string();
        assert_eq!(names(&[&path]).unwrap_err(), format!("{path}: bots from source are not wired yet"));
        // Engines are numbered apart, so only bots can share a name; until
        // bots come in, the message is shown directly.
        assert_eq!(
            CliError::SameName { name: "ann".into() }.to_string(),
            "`ann` names two participants; each must have a name of its own"
        );
    }
}
