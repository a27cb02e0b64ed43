//! Who takes part in a match or tournament, from the command line: an
//! engine's name (`perfect`, `minimax`, `rules`, `random`), or a directory
//! holding a bot's source.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::CliError;
use crate::arena::{Bot, EngineEntrant, Entrant, Unbuilt};
use crate::engine::EngineKind;
use crate::grade::GradeError;
use crate::sandbox::Limits;
use crate::sandbox::{Sandbox, copy};
use crate::text;
use crate::workshop::kept::{self, Kept, KeptBuild, Manifest};
use crate::workshop::language::Languages;
use crate::workshop::recipe::{Programs, Recipe};
use crate::workshop::{self, Built, Failure, NotBuilt, Workshop};

/// How bots are made: built by a workshop (made once, when the first bot
/// comes), each game's run within `limits`, given `startup` for their first
/// answer of a game.
pub(super) struct Bots<'a> {
    /// The workshop's maker.
    pub(super) workshop: &'a dyn Fn() -> Result<Workshop, CliError>,
    pub(super) limits: Limits,
    pub(super) startup: Duration,
    /// Builds kept by `ttt-referee build` (`--prebuilt DIR`): each bot's is
    /// run, none built.
    pub(super) prebuilt: Option<&'a Prebuilt>,
    /// `ttt-referee build`: each bot built is also kept here.
    pub(super) keeper: Option<&'a Keeper>,
}

/// A directory of kept builds and its manifest (`--prebuilt DIR`).
pub(super) struct Prebuilt {
    pub(super) dir: PathBuf,
    pub(super) manifest: Manifest,
}

impl Prebuilt {
    /// The kept builds in `dir`.
    pub(super) fn read(dir: &Path) -> Result<Prebuilt, CliError> {
        Ok(Prebuilt { dir: dir.to_owned(), manifest: Manifest::read(dir)? })
    }
}

/// Where `ttt-referee build` keeps each bot's build as it is made: a tree a
/// bot in `dir`, and what the manifest says of each.
pub(super) struct Keeper {
    pub(super) dir: PathBuf,
    pub(super) kept: RefCell<Vec<Kept>>,
}

impl Keeper {
    /// Keeps `name`'s build (`Ok`) or why it has none, its source being
    /// `source`.
    /// A bot's files (its source, or a build of its making) that cannot be
    /// digested or kept are the bot's doing, not the grader's: it is kept
    /// as not built, and forfeits, as an unsplit event would have it (its
    /// copy refused); only the keeper's own failures stop the command.
    fn keep(&self, name: &str, source: &Path, built: Result<&Built, String>) -> Result<(), CliError> {
        let unusable = |why: String| CliError::BuildOut {
            dir: text::inert(&self.dir.display().to_string()).into_owned(),
            why,
        };
        let mut kept = self.kept.borrow_mut();
        let (digest, built) = match kept::tree_digest(source) {
            Ok(digest) => (digest, built),
            // Every part finds the same: an empty digest, kept as not built.
            Err(e) => (String::new(), Err(format!("its source cannot be read: {e}"))),
        };
        let outcome = match built {
            Ok(built) => {
                let dir = format!("{:03}", kept.len() + 1);
                let to = self.dir.join(&dir);
                std::fs::create_dir(&to).map_err(|e| unusable(format!("cannot make {dir}: {e}")))?;
                let tree = crate::sandbox::copy::copy_tree(&built.start, &to, kept::CAPS, None)
                    .map_err(|e| e.to_string())
                    .and_then(|_| kept::tree_digest(&to).map_err(|e| e.to_string()));
                match tree {
                    Ok(tree) => KeptBuild::Built {
                        dir,
                        tree,
                        language: built.language.clone(),
                        argv: built.argv.clone(),
                        env: built.env.clone(),
                    },
                    Err(why) => {
                        std::fs::remove_dir_all(&to)
                            .map_err(|e| unusable(format!("cannot remove {dir}: {e}")))?;
                        let why = format!("its build cannot be kept: {why}");
                        eprintln!(
                            "ttt-referee: warning: {}: {}",
                            text::inert(name),
                            text::inert_lines(&text::said(&why, 2000))
                        );
                        KeptBuild::NotBuilt { why }
                    }
                }
            }
            Err(why) => KeptBuild::NotBuilt { why },
        };
        kept.push(Kept { name: name.to_owned(), source: digest, build: outcome });
        Ok(())
    }
}

/// A workshop to build bots in, as `grade` builds submissions: its own
/// sandbox (and scratch), each run within `limits`.
pub(super) fn workshop(limits: Limits) -> Result<Workshop, CliError> {
    let sandbox = Sandbox::new().map_err(|e| CliError::Grade(GradeError::Scratch(e)))?;
    Workshop::new(sandbox, limits, workshop::build_limits(&limits), copy::Caps::SUBMISSION)
        .map_err(|e| CliError::Grade(GradeError::Sandbox(e)))
}

/// The participant `arg` names: an engine by its name, else a directory
/// holding a bot's source (an engine's name wins; `./perfect` names a
/// directory called `perfect`).
pub(super) fn entrant(
    arg: &str,
    bots: &Bots<'_>,
    workshop: &mut Option<Workshop>,
) -> Result<Box<dyn Entrant>, CliError> {
    if let Some(kind) = EngineKind::from_name(arg) {
        return Ok(Box::new(EngineEntrant::new(kind)));
    }
    if let Some(path) = arg.strip_prefix(GOMOCUP) {
        let path = Path::new(path);
        if path.is_dir() {
            return bot(path, bots, workshop, true);
        }
        if path.is_file() {
            return brain_executable(path, bots, workshop);
        }
        return Err(CliError::NotAParticipant { arg: arg.to_owned() });
    }
    let dir = Path::new(arg);
    if dir.is_dir() {
        return bot(dir, bots, workshop, false);
    }
    Err(CliError::NotAParticipant { arg: arg.to_owned() })
}

/// How a participant that speaks the Gomocup protocol is written:
/// `gomocup:PATH`.
pub(super) const GOMOCUP: &str = "gomocup:";

/// A Gomocup brain given as an executable: copied alone into a directory
/// of its own, which is made runnable as a bot's (no build, its run
/// command the executable), so it runs in the sandbox as every bot does.
fn brain_executable(
    path: &Path,
    bots: &Bots<'_>,
    workshop: &mut Option<Workshop>,
) -> Result<Box<dyn Entrant>, CliError> {
    let name = crate::workshop::submission_name(path);
    let scratch = match workshop {
        Some(workshop) => workshop.sandbox().scratch().to_owned(),
        None => workshop.insert((bots.workshop)()?).sandbox().scratch().to_owned(),
    };
    // Into the sandbox's scratch (removed with it, on a signal too), held
    // to a submission's cap (a sparse file counts in full) and made a plain
    // executable (no set-ID bits), as a brain's directory would be.
    let cap = crate::sandbox::copy::Caps::SUBMISSION.bytes;
    let copied = tempfile::Builder::new().prefix("brain-").tempdir_in(&scratch).and_then(|dir| {
        use std::os::unix::fs::PermissionsExt;
        let mut from = std::fs::File::open(path)?;
        if from.metadata()?.len() > cap {
            return Err(std::io::Error::other(format!("it is larger than {} MB", cap >> 20)));
        }
        let to = dir.path().join("brain");
        let mut out = std::fs::File::create(&to)?;
        std::io::copy(&mut std::io::Read::take(&mut from, cap), &mut out)?;
        out.set_permissions(std::fs::Permissions::from_mode(0o755))?;
        Ok(dir)
    });
    let dir = match copied {
        Ok(dir) => dir,
        Err(e) => {
            let why = format!("it cannot be copied: {e}");
            return Ok(Box::new(Unbuilt::new(name, &why)));
        }
    };
    let recipe = Recipe {
        programs: Programs::Given { build: None, run: "./brain".to_owned() },
        ..Recipe::detected(Languages::builtin())
    };
    made(dir.path(), &name, &recipe, bots, workshop, true)
}

/// The bot whose source is in `dir`, built as `grade` builds a
/// submission. One that cannot be built forfeits its games, saying why
/// (standard error says so too): one broken bot does not stop a class
/// tournament.
/// With `gomocup`, it speaks the Gomocup protocol.
fn bot(
    dir: &Path,
    bots: &Bots<'_>,
    workshop: &mut Option<Workshop>,
    gomocup: bool,
) -> Result<Box<dyn Entrant>, CliError> {
    made(dir, &bot_name(dir), &Recipe::detected(Languages::builtin()), bots, workshop, gomocup)
}

/// The bot in `dir` named `name`, made runnable by `recipe`.
fn made(
    dir: &Path,
    name: &str,
    recipe: &Recipe,
    bots: &Bots<'_>,
    workshop: &mut Option<Workshop>,
    gomocup: bool,
) -> Result<Box<dyn Entrant>, CliError> {
    let workshop = match workshop {
        Some(workshop) => workshop,
        None => workshop.insert((bots.workshop)()?),
    };
    let name = name.to_owned();
    let made = match bots.prebuilt {
        Some(prebuilt) => restored(dir, &name, prebuilt, workshop)?,
        None => workshop.prepare_apart(dir, recipe),
    };
    if let Some(keeper) = bots.keeper {
        match &made {
            Ok(built) => keeper.keep(&name, dir, Ok(built))?,
            Err(NotBuilt::Failed(failure)) if !failure.unprotected => {
                keeper.keep(&name, dir, Err(failure.message()))?;
            }
            Err(_) => {}
        }
    }
    let why = match made {
        Ok(mut built) => {
            built.name.clone_from(&name);
            let bot = Bot::new(&built, Arc::clone(workshop.sandbox()), bots.limits, bots.startup);
            return Ok(Box::new(if gomocup { bot.gomocup() } else { bot }));
        }
        Err(NotBuilt::Stopped) => "interrupted".to_owned(),
        // The sandbox refused its build for want of a promised protection:
        // not the bot's doing, so forfeiting its games would blame it, and
        // the event does not start. (A starved build forfeits: a bot's
        // build can fake starving, and must not stop a class's event.)
        Err(NotBuilt::Failed(failure)) if failure.unprotected => {
            return Err(CliError::BotNotBuilt {
                name: crate::text::inert(&name).into_owned(),
                why: crate::text::inert_lines(&crate::text::said(&failure.message(), 2000)).into_owned(),
            });
        }
        Err(NotBuilt::Failed(failure)) => failure.message(),
    };
    eprintln!(
        "warning: {}: it cannot play: {}",
        crate::text::inert(&name),
        crate::text::inert_lines(&crate::text::said(&why, 2000))
    );
    Ok(Box::new(Unbuilt::new(name, &why)))
}

/// The bot `name` in `dir` as `prebuilt` kept its build: its source must
/// be the one built (else an error: a part would play another bot than
/// the one built), and its build what was kept (else an error: not the
/// bot's fault); a bot whose build failed fails again, saying why.
fn restored(
    dir: &Path,
    name: &str,
    prebuilt: &Prebuilt,
    workshop: &Workshop,
) -> Result<Result<Built, NotBuilt>, CliError> {
    let shown = || text::inert(&prebuilt.dir.display().to_string()).into_owned();
    let entry = prebuilt
        .manifest
        .find(name)
        .ok_or_else(|| CliError::NotKept { name: text::inert(name).into_owned(), dir: shown() })?;
    let unusable = |why: String| CliError::KeptUnusable { name: text::inert(name).into_owned(), why };
    // A source that cannot be digested was kept with an empty digest, as
    // not built: it forfeits here as it would unsplit.
    let now = kept::tree_digest(dir).unwrap_or_default();
    if now != entry.source {
        return Err(CliError::KeptStale {
            name: text::inert(name).into_owned(),
            dir: shown(),
            now: if now.is_empty() { "unreadable".to_owned() } else { now },
            then: text::inert(&entry.source).into_owned(),
        });
    }
    match &entry.build {
        KeptBuild::NotBuilt { why } => Ok(Err(NotBuilt::from(Failure::early(why.clone())))),
        KeptBuild::Built { .. } => match workshop.restore(&prebuilt.dir, entry) {
            Ok(built) => Ok(Ok(built)),
            Err(NotBuilt::Stopped) => Ok(Err(NotBuilt::Stopped)),
            Err(NotBuilt::Failed(failure)) => {
                Err(unusable(text::inert_lines(&failure.message()).into_owned()))
            }
        },
    }
}

/// A bot's name: its directory's, as `grade` names a submission; but a
/// directory named like an engine (a student's `perfect`) is named by its
/// path as given (`students/perfect`), so the two are told apart in every
/// record and table and both play.
fn bot_name(dir: &Path) -> String {
    let name = crate::workshop::submission_name(dir);
    if EngineKind::from_name(&name).is_none() {
        return name;
    }
    let given = dir.to_string_lossy();
    let given = given.trim_end_matches('/');
    if given == name { format!("./{name}") } else { given.to_owned() }
}

/// Every participant of `args`, in order; a second engine of one kind is
/// named `random-2` (a third `random-3`, …), so the standings tell them
/// apart.
///
/// The workshop that builds bots is made in `workshop` when the first
/// comes: its sandbox runs them, and its stopper stops the event.
pub(super) fn entrants(
    args: &[String],
    bots: &Bots<'_>,
    workshop: &mut Option<Workshop>,
) -> Result<Vec<Box<dyn Entrant>>, CliError> {
    let mut entrants: Vec<Box<dyn Entrant>> = Vec::with_capacity(args.len());
    for (at, arg) in args.iter().enumerate() {
        let entrant = entrant(arg, bots, workshop)?;
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
        // Records write names with white space, `:` and controls as `_`:
        // two names written alike would make their games' records alike,
        // and a resume could count one's game as the other's.
        let recorded = crate::arena::record::name(entrant.name());
        if let Some(other) = entrants.iter().find(|e| crate::arena::record::name(e.name()) == recorded) {
            return Err(CliError::SameRecordName {
                first: crate::text::inert(other.name()).into_owned(),
                second: crate::text::inert(entrant.name()).into_owned(),
                recorded,
            });
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
        let no_workshop = || Err(CliError::NotAParticipant { arg: "(no workshop in unit tests)".to_owned() });
        let bots = Bots {
            workshop: &no_workshop,
            limits: crate::grade::TEST_LIMITS,
            startup: Duration::ZERO,
            prebuilt: None,
            keeper: None,
        };
        entrants(&args, &bots, &mut None)
            .map(|list| list.iter().map(|e| e.name().to_owned()).collect())
            .map_err(|e| e.to_string())
    }

    #[test]
    fn a_bot_named_like_an_engine_is_named_by_its_path() {
        assert_eq!(bot_name(Path::new("students/perfect/")), "students/perfect");
        assert_eq!(bot_name(Path::new("./random")), "./random");
        assert_eq!(bot_name(Path::new("students/ann")), "ann");
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
            "`no-such-dir` is not a participant: expected an engine (perfect, strong, minimax, rules or random) or a directory holding a bot's source, or gomocup:PATH (a Gomocup brain's directory or executable)"
        );
        // Engines are numbered apart, so only bots can share a name (two
        // directories of one name: tests/integration/bots.rs).
        assert_eq!(
            CliError::SameName { name: "ann".into() }.to_string(),
            "`ann` names two participants; each must have a name of its own"
        );
    }
}
