//! What `match` and `tournament` share: the board, the time, the seed, the
//! report directory, how many games at once; and running the event they
//! plan, printing each game as it ends and the standings at the end.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Args;

use super::{BoardArgs, CliError, EXIT_INTERRUPTED, EXIT_SUCCESS, Shown, entrants};
use crate::arena::game_clock::Clock;
use crate::arena::seal::{KeySource, RecordKey};
use crate::arena::sprt::{self, Sprt, Tally};
use crate::arena::{Entrant, Event, EventError, Fixture, GameResult, Progress, Standings, engines};
use crate::arena::{report, schedule};
use crate::board::Geometry;
use crate::engine::EngineKind;
use crate::game::Move;
use crate::grade;
use crate::player::Mark;
use crate::text;
use crate::workshop::Workshop;

/// The most squares a match is played on: the bot protocol sends the
/// whole board with every move.
pub(super) const MAX_SQUARES: u64 = 1 << 16;

/// The options of both commands.
#[derive(Debug, Args)]
pub(super) struct ArenaArgs {
    #[command(flatten)]
    board: BoardArgs,

    /// The most time a participant may take over each answer, in seconds
    /// (a bot still computing when it has passed, on a busy machine, is
    /// given it in CPU time, up to 10 times it on the clock); 1 unless
    /// --clock is given, then BASE+INC.
    #[arg(long, value_name = "SECONDS", value_parser = super::parse_seconds)]
    move_time: Option<Duration>,

    /// A game clock for each player, as cutechess's tc=: BASE seconds for
    /// the whole game and INC more after each move (`60+1`, `10+0.1`);
    /// each answer may take what is left (and at most --move-time).
    #[arg(long, value_name = "BASE+INC", value_parser = Clock::parse)]
    clock: Option<Clock>,

    /// How much longer than --move-time a bot's first answer of a game may
    /// take, in seconds: its start (a JVM's, say).
    #[arg(long, value_name = "SECONDS", default_value = "5", value_parser = super::parse_seconds)]
    startup: Duration,

    /// The seed every game's randomness derives from: the same seed plays
    /// the same games.
    #[arg(long, default_value_t = 0)]
    pub(super) seed: u64,

    /// Write each game's record to DIR/games/ as it ends, then
    /// results.json, standings.txt and report.html; run again with the
    /// same DIR to resume (recorded games are not played again).
    #[arg(long, value_name = "DIR")]
    report: Option<PathBuf>,

    /// Play only part K of N of the event's games, for a fleet of machines
    /// (`slice:K/N` deals them round-robin by number, `hash:K/N` by a
    /// stable hash of the number); needs --report, where the part writes
    /// event-part.json. `ttt-referee merge PART_DIR... --report DIR`
    /// then writes what one machine would have. Give every machine, and
    /// the merge, one `TTT_REFEREE_RECORD_KEY`.
    #[arg(long, value_name = "SCHEME:K/N")]
    partition: Option<crate::partition::Partition>,

    /// Run each bot from the build `ttt-referee build` kept in DIR, built
    /// once for every part of a split event, instead of building it: a bot
    /// whose source is not the one built, or whose kept build is not what
    /// was kept, is an error.
    #[arg(long, value_name = "DIR")]
    prebuilt: Option<PathBuf>,

    /// How many games are played at once.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=1024))]
    jobs: u64,

    /// Print no line per game on standard error.
    #[arg(short, long)]
    quiet: bool,
}

/// An event the command line planned: who, how many per game, which games.
pub(super) struct Planned {
    pub kind: &'static str,
    pub participants: Vec<String>,
    pub players: usize,
    pub fixtures: Vec<Fixture>,
    pub openings: Vec<Vec<Move>>,
    pub sprt: Option<Sprt>,
}

impl ArenaArgs {
    /// Each answer's most time: --move-time, else 1 s, or with --clock
    /// BASE+INC.
    pub(super) fn move_time(&self) -> Duration {
        self.move_time.unwrap_or_else(|| self.clock.map_or(Duration::from_secs(1), |c| c.base + c.increment))
    }

    /// The board, refused if larger than [`MAX_SQUARES`].
    pub(super) fn geometry(&self) -> Result<Geometry, CliError> {
        fits(self.board.geometry()?)
    }

    /// Which lines win (`--rule`), for a board a start file gives.
    pub(super) fn rule(&self) -> crate::board::WinRule {
        self.board.rule
    }
}

/// `geometry`, refused if larger than [`MAX_SQUARES`].
pub(super) fn fits(geometry: Geometry) -> Result<Geometry, CliError> {
    if geometry.cells() > MAX_SQUARES {
        return Err(CliError::ArenaBoard { geometry, max: MAX_SQUARES });
    }
    Ok(geometry)
}

/// What `--openings` names: a file of openings, or `random:N`, openings
/// of N random moves near the centre.
#[derive(Clone, Debug)]
pub(super) enum OpeningsArg {
    /// A file, one opening a line.
    File(PathBuf),
    /// Openings of this many random moves near the centre, drawn from the
    /// seed, each played from both sides.
    Random(u32),
}

/// Parses `--openings`: `random:N` (N from 1 to 64), else a file's path.
pub(super) fn parse_openings(text: &str) -> Result<OpeningsArg, String> {
    match text.strip_prefix("random:") {
        Some(n) => match n.parse::<u32>() {
            Ok(n) if (1..=64).contains(&n) => Ok(OpeningsArg::Random(n)),
            _ => Err(format!("`{n}` is not a number of random moves; expected random:N with N from 1 to 64")),
        },
        None => Ok(OpeningsArg::File(PathBuf::from(text))),
    }
}

/// The openings of the file `path` (`--openings`), for games of `players`
/// on `geometry`.
pub(super) fn openings(path: &Path, geometry: Geometry, players: usize) -> Result<Vec<Vec<Move>>, CliError> {
    let text = std::fs::read(path)
        .map_err(|source| CliError::Open { path: Shown::Path(path.to_owned()), source })?;
    let text = String::from_utf8(text).map_err(|_| CliError::OpeningsNotText { path: path.to_owned() })?;
    schedule::openings(&text, geometry, &marks(players))
        .map_err(|error| CliError::Openings { path: path.to_owned(), error })
}

/// The participants given, but for files that are not directories (a
/// `README.md` or `roster.csv` a glob such as `bots/*` takes in): each is
/// skipped with a warning, as `grade` skips them. An engine's name is kept
/// whatever is on disk; anything else that is neither is refused later,
/// naming it.
pub(super) fn participants(given: &[String]) -> Vec<String> {
    given
        .iter()
        .filter(|arg| {
            let skipped = EngineKind::from_name(arg).is_none()
                && std::fs::metadata(arg).is_ok_and(|meta| !meta.is_dir());
            if skipped {
                eprintln!(
                    "ttt-referee: warning: {}: not a directory; skipped (a bot is a directory)",
                    text::inert(arg)
                );
            }
            !skipped
        })
        .cloned()
        .collect()
}

/// The marks of a game of `players`, in turn order.
pub(super) fn marks(players: usize) -> Vec<Mark> {
    crate::corpus::MARKS[..players].iter().filter_map(|&c| Mark::new(c)).collect()
}

/// Whether every engine and Gomocup brain among `participants` can play
/// games of `geometry` between `marks`.
fn can_play(participants: &[String], geometry: Geometry, marks: &[Mark]) -> Result<(), CliError> {
    for arg in participants {
        if let Some(kind) = EngineKind::from_name(arg) {
            engines::check(kind, geometry, marks)
                .map_err(|error| CliError::EngineCannotPlay { name: arg.clone(), error })?;
        }
        if arg.starts_with(entrants::GOMOCUP) {
            crate::arena::gomocup::check(geometry, marks.len())
                .map_err(|why| CliError::BrainCannotPlay { arg: text::inert(arg).into_owned(), why })?;
        }
    }
    Ok(())
}

/// Runs `planned` with `args`: every game, a line each on standard error,
/// the report, then the standings on standard output.
pub(super) fn run(args: &ArenaArgs, geometry: Geometry, planned: Planned) -> Result<u8, CliError> {
    let marks = marks(planned.players);
    can_play(&planned.participants, geometry, &marks)?;
    if let Some(partition) = args.partition {
        if args.report.is_none() {
            return Err(CliError::PartNeedsReport { partition });
        }
        if planned.sprt.is_some() {
            return Err(CliError::PartWithSprt { partition });
        }
    }
    let jobs = usize::try_from(args.jobs).unwrap_or(1);
    let limits = grade::TEST_LIMITS;
    let workshop = || {
        let workshop = entrants::workshop(limits)?;
        workshop.stop_on_signals(EXIT_INTERRUPTED);
        Ok(workshop)
    };
    let key = match &args.report {
        Some(_) => record_key()?,
        None => RecordKey::ephemeral("there is no report directory"),
    };
    let prebuilt = args.prebuilt.as_deref().map(entrants::Prebuilt::read).transpose()?;
    let bots = entrants::Bots {
        workshop: &workshop,
        limits,
        startup: args.startup,
        prebuilt: prebuilt.as_ref(),
        keeper: None,
    };
    let mut bot_workshop = None;
    let entrants: Vec<Box<dyn Entrant>> =
        entrants::entrants(&planned.participants, &bots, &mut bot_workshop)?;
    let event = Event {
        kind: planned.kind,
        geometry,
        marks,
        seed: args.seed,
        move_time: args.move_time(),
        clock: args.clock,
        entrants: &entrants,
        fixtures: planned.fixtures,
        openings: planned.openings,
        sprt: planned.sprt,
        key,
        part: args.partition,
        stop: bot_workshop.as_ref().map(Workshop::stopper),
    };
    let names = event.names();
    let total = event.fixtures.len();
    let mut stderr = io::stderr();
    let (paired, mut tally) = (event.paired(), Tally::default());
    let mut progress = |told: Progress<'_>| {
        let result = match told {
            Progress::Game(result) => result,
            Progress::Distrusted { path, number, why } => {
                // Said even with --quiet: a game is played again.
                let _ = writeln!(
                    stderr,
                    "ttt-referee: warning: {}: not trusted: {}; game {number} is played again",
                    text::inert(&path.display().to_string()),
                    text::line(&text::inert(&why.to_string())),
                );
                return;
            }
        };
        let mut line = progress_line(result, &names, total);
        if let Some(test) = &event.sprt {
            tally.add(result);
            line = format!("{line}; {}", sprt::progress(test, &tally, paired));
        }
        if !args.quiet {
            let _ = writeln!(stderr, "{line}");
        }
    };
    let results = match event.run(args.report.as_deref(), jobs, &mut progress) {
        Err(EventError::Interrupted) => {
            match &args.report {
                Some(dir) => eprintln!(
                    "ttt-referee: interrupted: the games finished are recorded in {}; run the same command again to resume",
                    text::inert(&dir.display().to_string())
                ),
                None => eprintln!("ttt-referee: interrupted"),
            }
            return Ok(EXIT_INTERRUPTED);
        }
        run => run.map_err(arena_error)?,
    };
    let standings = Standings::new(&names, &results);
    if let Some(dir) = &args.report {
        report::write(dir, &event, &results, &standings).map_err(arena_error)?;
        if let Some(partition) = args.partition {
            crate::arena::part::write(dir, &event, partition, &results).map_err(arena_error)?;
        }
    }
    io::stdout()
        .write_all(report::standings_text(&event, &results, &standings).as_bytes())
        .map_err(CliError::stdout)?;
    Ok(EXIT_SUCCESS)
}

/// The key the event's records are sealed with ([`RecordKey::kept`]),
/// saying on standard error when it is kept nowhere, so a resumed run
/// will play every game again.
pub(super) fn record_key() -> Result<RecordKey, CliError> {
    let key = RecordKey::kept()?;
    if let KeySource::Ephemeral(why) = key.source() {
        eprintln!(
            "ttt-referee: warning: the key that seals the records cannot be kept ({}); a run resumed from this \
             report directory will play every game again (set {} to a secret to keep one)",
            text::inert(why),
            crate::arena::seal::KEY_VARIABLE,
        );
    }
    Ok(key)
}

/// One game's line on standard error: `[3/12] perfect (X) vs random (O): X
/// wins`, with `(recorded)` for a game read back from its record.
fn progress_line(result: &GameResult, names: &[String], total: usize) -> String {
    let players: Vec<String> = result
        .seats
        .iter()
        .zip(&result.marks)
        .map(|(&who, mark)| format!("{} ({mark})", text::inert(&names[who])))
        .collect();
    format!(
        "[{}/{total}] {}: {}{}",
        result.number,
        players.join(" vs "),
        crate::arena::record::result(&result.ending, &result.marks),
        if result.resumed { " (recorded)" } else { "" }
    )
}

/// An event's error as the command line says it: a file's I/O error as
/// every other command says one (without Rust's `(os error N)`).
fn arena_error(error: EventError) -> CliError {
    match error {
        EventError::Write { path, source } => CliError::write(&path, source),
        EventError::Read { path, source } => CliError::Read { path: Shown::Path(path), source },
        error => CliError::Arena(error),
    }
}
