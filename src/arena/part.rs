//! A match or tournament split across machines: each part plays the games
//! its [`Partition`] deals it (by game number, from the event's one
//! schedule) into a report directory of its own, and writes
//! [`PART_FILE`] there: which part it is, the whole event as planned
//! ([`Plan`]), and what its bots wrote on standard error. [`merge`] puts
//! the parts back together into what one machine would have written, by
//! reading every game back from its sealed record as a resumed run does:
//! no game is played, no bot is built.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::event::{Event, EventError};
use super::game_clock::Clock;
use super::result::GameResult;
use super::schedule::Fixture;
use super::seal::RecordKey;
use super::standings::Standings;
use crate::board::{Geometry, Square, WinRule};
use crate::game::Move;
use crate::output::{self, Durability};
use crate::partition::Partition;
use crate::player::{Mark, PlayerId};

/// The file each part writes into its report directory.
pub const PART_FILE: &str = "event-part.json";

/// The version of [`PART_FILE`]'s layout.
const VERSION: u32 = 1;

/// An event as planned, everything its games and reports depend on but its
/// participants' programs: what every part must agree on, and what
/// [`merge`] rebuilds the event from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// `Match` or `Tournament`.
    pub kind: String,
    /// The board: rows, columns, marks in a row, and the rule's name.
    pub rows: u32,
    /// Columns.
    pub cols: u32,
    /// Marks in a row that win.
    pub win: u32,
    /// `at-least` or `exact`.
    pub rule: String,
    /// Each seat's mark, in turn order.
    pub marks: String,
    /// The event's seed.
    pub seed: u64,
    /// Each answer's time, in microseconds.
    pub move_micros: u64,
    /// The game clock, `BASE+INC`, if there is one.
    pub clock: Option<String>,
    /// The participants' names, in the order given.
    pub names: Vec<String>,
    /// Every game of the event: number, seats, opening.
    pub fixtures: Vec<(u64, Vec<usize>, Option<usize>)>,
    /// The openings, each a list of squares (from 0) in turn order.
    pub openings: Vec<Vec<u64>>,
}

/// What a part writes ([`PART_FILE`]).
#[derive(Debug, Serialize, Deserialize)]
pub struct PartFile {
    /// [`VERSION`].
    pub version: u32,
    /// The tool's version that wrote it.
    pub tool: String,
    /// Which part: `slice:2/3`.
    pub partition: String,
    /// SHA-256 of the plan, in hexadecimal: two parts of one event have
    /// the same.
    pub fingerprint: String,
    /// The event.
    pub plan: Plan,
    /// What each game it played left on its players' standard error, by
    /// game number (none for a game it read back from its record).
    pub stderr: BTreeMap<u64, Vec<String>>,
}

impl Plan {
    /// The plan of `event`.
    #[must_use]
    pub fn of(event: &Event<'_>) -> Plan {
        Plan {
            kind: event.kind.to_owned(),
            rows: event.geometry.rows(),
            cols: event.geometry.cols(),
            win: event.geometry.win(),
            rule: event.geometry.rule().name().to_owned(),
            marks: event.marks.iter().map(|m| m.char()).collect(),
            seed: event.seed,
            move_micros: u64::try_from(event.move_time.as_micros()).unwrap_or(u64::MAX),
            clock: event.clock.map(|clock| clock.to_string()),
            names: event.names(),
            fixtures: event.fixtures.iter().map(|f| (f.number, f.seats.clone(), f.opening)).collect(),
            openings: event.openings.iter().map(|o| o.iter().map(|m| m.square.index()).collect()).collect(),
        }
    }

    /// SHA-256 of the plan as JSON, in hexadecimal.
    #[must_use]
    pub fn fingerprint(&self) -> String {
        hex::encode(Sha256::digest(serde_json::to_vec(self).unwrap_or_default()))
    }

    /// The event planned, its participants `entrants` (in the plan's
    /// order), its records sealed with `key`; `None` when the plan is not
    /// one this tool writes.
    #[must_use]
    pub fn event<'a>(&self, entrants: &'a [Box<dyn super::Entrant>], key: RecordKey) -> Option<Event<'a>> {
        let kind = match self.kind.as_str() {
            "Match" => "Match",
            "Tournament" => "Tournament",
            _ => return None,
        };
        let rule = match self.rule.as_str() {
            "at-least" => WinRule::AtLeast,
            "exact" => WinRule::Exact,
            _ => return None,
        };
        let geometry = Geometry::new(self.rows, self.cols, self.win).ok()?.with_rule(rule);
        let marks: Vec<Mark> = self.marks.chars().map(Mark::new).collect::<Option<_>>()?;
        let players = marks.len();
        let seats_ok = self
            .fixtures
            .iter()
            .all(|(_, seats, _)| seats.len() == players && seats.iter().all(|&s| s < entrants.len()));
        if entrants.len() != self.names.len() || !seats_ok {
            return None;
        }
        let openings: Vec<Vec<Move>> = self
            .openings
            .iter()
            .map(|squares| {
                squares
                    .iter()
                    .enumerate()
                    .map(|(i, &square)| {
                        (square < geometry.cells()).then(|| Move {
                            player: PlayerId::new(i % players),
                            square: Square::from_index(square),
                        })
                    })
                    .collect::<Option<Vec<Move>>>()
            })
            .collect::<Option<_>>()?;
        let clock = match &self.clock {
            Some(text) => Some(Clock::parse(text).ok()?),
            None => None,
        };
        Some(Event {
            kind,
            geometry,
            marks,
            seed: self.seed,
            move_time: Duration::from_micros(self.move_micros),
            clock,
            entrants,
            fixtures: self
                .fixtures
                .iter()
                .map(|(number, seats, opening)| Fixture {
                    number: *number,
                    seats: seats.clone(),
                    opening: *opening,
                })
                .collect(),
            openings,
            sprt: None,
            key,
            part: None,
            stop: None,
        })
    }
}

/// Writes `dir`'s [`PART_FILE`] for `event`, part `partition`, whose games
/// ended as `results`.
///
/// # Errors
/// [`EventError::Write`] when it cannot be written.
pub fn write(
    dir: &Path,
    event: &Event<'_>,
    partition: Partition,
    results: &[GameResult],
) -> Result<(), EventError> {
    let plan = Plan::of(event);
    let file = PartFile {
        version: VERSION,
        tool: env!("CARGO_PKG_VERSION").to_owned(),
        partition: partition.to_string(),
        fingerprint: plan.fingerprint(),
        plan,
        stderr: results.iter().filter_map(|r| r.stderr.clone().map(|s| (r.number, s))).collect(),
    };
    let path = dir.join(PART_FILE);
    output::replace_whole(&path, Durability::Renamed, |out| {
        serde_json::to_writer_pretty(&mut *out, &file).map_err(io::Error::other)?;
        io::Write::write_all(out, b"\n")
    })
    .map_err(|source| EventError::Write { path, source })
}

/// Why parts cannot be merged. Nothing is written.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// A part's [`PART_FILE`] cannot be read or is not one.
    #[error(
        "{}: not a part of a split match or tournament: {why} (a part is the --report directory of `match` or `tournament` with --partition, written when its games ended)",
        .dir.display()
    )]
    NotAPart {
        /// The part's directory.
        dir: PathBuf,
        /// Why.
        why: String,
    },
    /// Two parts of different events, or split differently.
    #[error(
        "{} and {} are parts of two different events (their {what} differ): merge only the parts of one event, each run with the same participants, options and --seed",
        .first.display(), .other.display()
    )]
    TwoEvents {
        /// The first part.
        first: PathBuf,
        /// The one that differs.
        other: PathBuf,
        /// `plans` or `partitions`.
        what: &'static str,
    },
    /// One part given twice.
    #[error("{} and {} are both part {part} of {of}: give each part once", .first.display(), .other.display())]
    PartTwice {
        /// Which part.
        part: u32,
        /// Of how many.
        of: u32,
        /// Where it was first.
        first: PathBuf,
        /// Where it was again.
        other: PathBuf,
    },
    /// Parts not given.
    #[error(
        "part{} {} of {of} {} missing ({}): give every part's directory, or merge --allow-partial for the standings so far",
        if .missing.len() == 1 { "" } else { "s" }, list(.missing),
        if .missing.len() == 1 { "is" } else { "are" }, super::report::games_list(.games)
    )]
    Missing {
        /// Which.
        missing: Vec<u32>,
        /// Of how many.
        of: u32,
        /// Their games.
        games: Vec<u64>,
    },
    /// Games no part given played (interrupted parts).
    #[error(
        "{}; or merge --allow-partial for the standings so far",
        .parts.iter().map(|(dir, games)| format!(
            "{}: {} not played (no record: the part was interrupted? run its command again to finish it)",
            dir.display(), super::report::games_list(games)
        )).collect::<Vec<_>>().join("; ")
    )]
    GamesMissing {
        /// Each part lacking games, with their numbers.
        parts: Vec<(PathBuf, Vec<u64>)>,
    },
    /// A part's game whose record is missing or not trusted.
    #[error("{}: game {number}: {why}", .dir.display())]
    Game {
        /// The part's directory.
        dir: PathBuf,
        /// The game.
        number: u64,
        /// What is wrong: no record (the part was interrupted), or why
        /// it is not trusted.
        why: String,
    },
    /// A part's plan that this tool cannot rebuild an event from.
    #[error("{}: its plan is not one of an event this version plays", .dir.display())]
    BadPlan {
        /// The part's directory.
        dir: PathBuf,
    },
    /// The output is not an empty or new directory, or is a part.
    #[error("{}: {why}", .dir.display())]
    Output {
        /// The output directory.
        dir: PathBuf,
        /// Why it cannot be written.
        why: String,
    },
    /// Writing failed.
    #[error(transparent)]
    Write(#[from] EventError),
}

/// One part read ([`read_parts`]).
#[derive(Debug)]
pub struct Part {
    /// Its report directory.
    pub dir: PathBuf,
    /// Which part it is.
    pub partition: Partition,
    /// What it wrote.
    pub file: PartFile,
}

/// `1, 3, 4`.
fn list(numbers: &[u32]) -> String {
    numbers.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
}

/// The parts at `dirs` read, checked to be every part of one event once
/// (or, `partial`, some of them): the event's plan, each part's directory
/// with its file, and the parts missing.
///
/// # Errors
/// [`MergeError`], naming what is wrong.
pub fn read_parts(dirs: &[PathBuf], partial: bool) -> Result<(Plan, Vec<Part>, Vec<u32>), MergeError> {
    let mut parts = Vec::new();
    for dir in dirs {
        let not = |why: String| MergeError::NotAPart { dir: dir.clone(), why };
        let bytes =
            std::fs::read(dir.join(PART_FILE)).map_err(|e| not(format!("cannot read {PART_FILE} ({e})")))?;
        let file: PartFile =
            serde_json::from_slice(&bytes).map_err(|e| not(format!("{PART_FILE} is not one ({e})")))?;
        if file.version != VERSION {
            return Err(not(format!("{PART_FILE} is of version {}, not {VERSION}", file.version)));
        }
        let partition: Partition = file.partition.parse().map_err(|e| not(format!("{e}")))?;
        if file.plan.fingerprint() != file.fingerprint {
            return Err(not("its fingerprint is not its plan's".to_owned()));
        }
        parts.push(Part { dir: dir.clone(), partition, file });
    }
    let Some(Part { dir: first_dir, partition: first, file: first_file }) = parts.first() else {
        return Err(MergeError::Missing { missing: Vec::new(), of: 0, games: Vec::new() });
    };
    let mut given: BTreeMap<u32, &Path> = BTreeMap::new();
    for Part { dir, partition, file } in &parts {
        let two = |what| MergeError::TwoEvents { first: first_dir.clone(), other: dir.clone(), what };
        if file.fingerprint != first_file.fingerprint || file.plan != first_file.plan {
            return Err(two("plans"));
        }
        if (partition.scheme, partition.of) != (first.scheme, first.of) {
            return Err(two("partitions"));
        }
        if let Some(earlier) = given.insert(partition.part, dir) {
            return Err(MergeError::PartTwice {
                part: partition.part,
                of: partition.of,
                first: earlier.to_owned(),
                other: dir.clone(),
            });
        }
    }
    let missing: Vec<u32> = (1..=first.of).filter(|k| !given.contains_key(k)).collect();
    if !missing.is_empty() && !partial {
        let games = first_file
            .plan
            .fixtures
            .iter()
            .map(|(number, _, _)| *number)
            .filter(|&number| missing.iter().any(|&part| Partition { part, ..*first }.holds_game(number)))
            .collect();
        return Err(MergeError::Missing { missing, of: first.of, games });
    }
    let plan = first_file.plan.clone();
    Ok((plan, parts, missing))
}

/// Merges `parts` (as [`read_parts`] gave them) of `event` into `out`:
/// every game's record and seal copied from the part that played it, each
/// read back as a resumed run reads it (sealed by `event`'s key, its
/// engines' moves played again), then the reports one machine writes.
/// Made in a directory beside `out` and renamed into place, so nothing is
/// written when anything fails. With `partial` (`--allow-partial`), games
/// that no part given played are left out, and the reports say which:
/// the games merged and the numbers of those missing.
///
/// # Errors
/// [`MergeError`]: a game missing (unless `partial`) or untrusted, `out`
/// not new or empty, a write that fails.
pub fn merge(
    event: &Event<'_>,
    parts: &[Part],
    out: &Path,
    partial: bool,
) -> Result<(Vec<GameResult>, Vec<u64>), MergeError> {
    let output = |why: String| MergeError::Output { dir: out.to_owned(), why };
    // Removed on a signal too (`merge` ends so on Ctrl-C), never left
    // beside the output.
    let staging = output::StagedDir::new(out, "merge").map_err(output)?;
    let games = staging.path().join("games");
    std::fs::create_dir(&games).map_err(|source| EventError::Write { path: games.clone(), source })?;
    // Each game's part, found once from its number (as `holds_game` does).
    let by_part: BTreeMap<u32, &Part> = parts.iter().map(|part| (part.partition.part, part)).collect();
    let owner_of = |number: u64| -> Option<&Part> {
        let deal = parts.first()?.partition;
        let index = usize::try_from(number.saturating_sub(1)).unwrap_or(usize::MAX);
        by_part.get(&deal.part_of(index, &number.to_string())).copied()
    };
    let mut stderr = BTreeMap::new();
    let mut owner = BTreeMap::new();
    for fixture in &event.fixtures {
        if let Some(Part { dir, file, .. }) = owner_of(fixture.number) {
            owner.insert(fixture.number, dir.clone());
            if let Some(said) = file.stderr.get(&fixture.number) {
                stderr.insert(fixture.number, said.clone());
            }
        }
    }
    // Every record and seal copied from the part that played it and read
    // back from the bytes copied, on every core.
    let from = |number: u64| owner.get(&number).cloned();
    let (read, absent) = event.copy_back(staging.path(), &from)?.map_err(|(number, why)| {
        MergeError::Game { dir: owner.get(&number).cloned().unwrap_or_default(), number, why }
    })?;
    if !absent.is_empty() && !partial {
        let mut by_part: Vec<(PathBuf, Vec<u64>)> = Vec::new();
        for number in &absent {
            let dir = owner.get(number).cloned().unwrap_or_default();
            match by_part.iter_mut().find(|(d, _)| *d == dir) {
                Some((_, games)) => games.push(*number),
                None => by_part.push((dir, vec![*number])),
            }
        }
        return Err(MergeError::GamesMissing { parts: by_part });
    }
    let results: Vec<GameResult> = read
        .into_iter()
        .map(|mut result| {
            // As the part played it: not read back, and what its players
            // wrote on standard error, as one machine would say.
            if let Some(said) = stderr.remove(&result.number) {
                result.stderr = Some(said);
                result.resumed = false;
            }
            result
        })
        .collect();
    let standings = Standings::new(&event.names(), &results);
    super::report::write_partial(staging.path(), event, &results, &standings, &absent)?;
    staging.commit().map_err(output)?;
    Ok((results, absent))
}
