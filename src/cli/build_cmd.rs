//! `ttt-referee build`: every bot of an event built once, as `match` and
//! `tournament` build them, and kept in a directory that the parts of a
//! split event run them from (`--prebuilt DIR`), so that no part builds
//! 200 bots again.

use std::cell::RefCell;
use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::Duration;

use clap::Args;

use super::{CliError, EXIT_INTERRUPTED, EXIT_SUCCESS, arena_cmd, entrants};
use crate::grade;
use crate::output::{self, Durability};
use crate::text;
use crate::workshop::Workshop;
use crate::workshop::kept::{KeptBuild, MANIFEST, Manifest, VERSION};

pub(super) const AFTER_HELP: &str = "\
Builds every bot among PARTICIPANTS once, in the sandbox, as match and
tournament build them, and keeps each build in DIR (a new or empty
directory, written whole or not at all) with build.json: each bot's name,
the digest of its source, and the digest of its kept build. Engines need no
build and are left out.

Every part of a split event then runs the bots from DIR instead of building
them: give it the same participants and --prebuilt DIR. A part refuses a bot
whose source is not the one built, and a build whose files are not the ones
kept (exit status 2, nothing played); a bot whose build failed forfeits its
games, as it would have.

Examples:
  ttt-referee build bots/* --out built/
  ttt-referee tournament bots/* strong --prebuilt built/ --partition slice:2/8 --report part-2/";

#[derive(Debug, Args)]
pub(super) struct BuildArgs {
    /// The participants, as `match` and `tournament` take them: bots'
    /// directories (engines are left out: they need no build).
    #[arg(value_name = super::values::PARTICIPANT, required = true)]
    participants: Vec<String>,

    /// Keep the builds in DIR, a new or empty directory.
    #[arg(long, value_name = "DIR", required = true)]
    out: PathBuf,
}

pub(super) fn run(args: &BuildArgs) -> Result<u8, CliError> {
    let participants = arena_cmd::participants(&args.participants);
    let shown = text::inert(&args.out.display().to_string()).into_owned();
    let out_error = |why: String| CliError::BuildOut { dir: shown.clone(), why };
    let staged = output::StagedDir::new(&args.out, "build").map_err(out_error)?;
    let keeper = entrants::Keeper { dir: staged.path().to_owned(), kept: RefCell::new(Vec::new()) };
    let limits = grade::TEST_LIMITS;
    let workshop = || {
        let workshop = entrants::workshop(limits)?;
        workshop.stop_on_signals(EXIT_INTERRUPTED);
        Ok(workshop)
    };
    let bots = entrants::Bots {
        workshop: &workshop,
        limits,
        startup: Duration::ZERO,
        prebuilt: None,
        keeper: Some(&keeper),
    };
    let mut bot_workshop: Option<Workshop> = None;
    entrants::entrants(&participants, &bots, &mut bot_workshop)?;
    if bot_workshop.as_ref().is_some_and(|w| w.stopper().load(Ordering::SeqCst)) {
        eprintln!("ttt-referee: interrupted; nothing was kept");
        return Ok(EXIT_INTERRUPTED);
    }
    let manifest = Manifest {
        version: VERSION,
        tool: env!("CARGO_PKG_VERSION").to_owned(),
        bots: keeper.kept.into_inner(),
    };
    let path = staged.path().join(MANIFEST);
    output::write_whole(&path, Durability::Synced, |out| {
        serde_json::to_writer_pretty(&mut *out, &manifest).map_err(io::Error::other)?;
        out.write_all(b"\n")
    })
    .map_err(|e| out_error(format!("cannot write {MANIFEST}: {e}")))?;
    staged.commit().map_err(out_error)?;
    let mut stdout = io::stdout().lock();
    for kept in &manifest.bots {
        let line = match &kept.build {
            KeptBuild::Built { language, .. } => format!("{}: kept ({language})", text::inert(&kept.name)),
            KeptBuild::NotBuilt { .. } => {
                format!("{}: not built; it forfeits its games", text::inert(&kept.name))
            }
        };
        writeln!(stdout, "{line}").map_err(CliError::stdout)?;
    }
    let built = manifest.bots.iter().filter(|k| matches!(k.build, KeptBuild::Built { .. })).count();
    writeln!(stdout, "{built} of {} bots made runnable, kept in {shown}", manifest.bots.len())
        .map_err(CliError::stdout)?;
    Ok(EXIT_SUCCESS)
}
