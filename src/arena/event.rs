//! Running a match or tournament: its games played `jobs` at a time, each
//! recorded the moment it ends, and on a run with the same report
//! directory the games already recorded read back instead of played again.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use crate::board::{Geometry, Storage};
use crate::game::{Game, Move};
use crate::output::{self, Durability};
use crate::player::Mark;
use crate::text;

use super::contest::{self, Ending};
use super::entrant::{Entrant, ForfeitKind, Position, Seat, Setup};
use super::game_clock::Clock;
use super::record::{self, Heading, Mismatch, Recorded};
use super::result::GameResult;
use super::schedule::Fixture;
pub use super::schedule::game_seed;
use super::seal::{self, RecordKey};
use super::sprt::{Decision, Sprt, Tally};
use crate::partition::Partition;

/// The reports a report directory holds beside its records
/// ([`super::report::write`], and a part's [`super::part::PART_FILE`]).
const REPORT_FILES: [&str; 4] = ["results.json", "standings.txt", "report.html", "event-part.json"];

/// The largest record read back on a resumed run, in bytes: one of a game
/// on the largest board the arena plays is far smaller.
const MAX_RECORD: u64 = 64 << 20;

/// A match or tournament, ready to run.
pub struct Event<'a> {
    /// `Match` or `Tournament`, as record titles say.
    pub kind: &'static str,
    /// The board.
    pub geometry: Geometry,
    /// The marks of each game's seats, in turn order.
    pub marks: Vec<Mark>,
    /// The event's seed: each game's derives from it and the game's number.
    pub seed: u64,
    /// The time each answer may take.
    pub move_time: Duration,
    /// Each player's game clock, if games have one.
    pub clock: Option<Clock>,
    /// The participants.
    pub entrants: &'a [Box<dyn Entrant>],
    /// The games, in order.
    pub fixtures: Vec<Fixture>,
    /// The openings fixtures name.
    pub openings: Vec<Vec<Move>>,
    /// A match's sequential test: no game starts once it has decided
    /// (those under way finish and are recorded).
    pub sprt: Option<Sprt>,
    /// The key each record is sealed with as it is written, and a record
    /// read back on a resumed run must be sealed with
    /// ([`seal`](super::seal)): any other record's game is played again.
    pub key: RecordKey,
    /// The part of the event this run plays (`--partition`): the games it
    /// deals this part, numbered and recorded as in the whole event;
    /// `None`, every game.
    pub part: Option<Partition>,
    /// Once set (Ctrl-C), no game starts, and a game under way is not
    /// recorded (its bots were killed mid-game): the event ends with
    /// [`EventError::Interrupted`], and a run with the same report
    /// directory resumes it.
    pub stop: Option<std::sync::Arc<AtomicBool>>,
}

/// What [`Event::run`] tells as it goes.
#[derive(Debug)]
pub enum Progress<'r> {
    /// A game ended, or was read back from its record.
    Game(&'r GameResult),
    /// A record in the report directory is not trusted, so its game is
    /// played again (and the record and its seal replaced).
    Distrusted {
        /// The record's file.
        path: &'r Path,
        /// The game it records.
        number: u64,
        /// Why it is not trusted.
        why: &'r Distrust,
    },
}

/// Why a record read back is not trusted.
#[derive(Debug, thiserror::Error)]
pub enum Distrust {
    /// It has no seal beside it.
    #[error("it has no seal ({}): it was not recorded whole by this tool", .0.display())]
    Unsealed(PathBuf),
    /// It is not a regular file (a link, a pipe, a device, a directory).
    #[error("it is not a regular file (a link, a pipe, a device or a directory)")]
    NotAFile,
    /// Its seal is not this key's seal of its bytes.
    #[error(
        "its seal does not match: it was edited, recorded with another key, or played under another --move-time, --clock or --rule"
    )]
    Broken,
    /// An engine it names would not play a move it claims (a record of an
    /// older version, whose engines played otherwise).
    #[error("{0}")]
    Replayed(Mismatch),
}

/// Why a match or tournament could not be run through.
#[derive(Debug, thiserror::Error)]
pub enum EventError {
    /// It was stopped ([`Event::stop`]): the games finished are recorded.
    #[error("interrupted")]
    Interrupted,
    /// A file of the report directory could not be written.
    #[error("{}: cannot write: {source}", .path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A record there could not be read.
    #[error("{}: cannot read: {source}", .path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A record there is of another game: another setup, or edited.
    #[error(
        "{}: not the record of game {number} of this {event}: {why}; use another --report directory, or remove the file to play the game again",
        .path.display()
    )]
    Foreign {
        /// The file.
        path: PathBuf,
        /// The game it should record.
        number: u64,
        /// `match` or `tournament`.
        event: String,
        /// How it differs.
        why: Mismatch,
    },
    /// A bot's run in game `number` had less protection than the event
    /// started with, and was refused: the event stops (failing closed), its
    /// finished games recorded, and the game is played on a resumed run.
    #[error(
        "game {number}: {name}'s run was refused: {why}; the games finished are recorded, and none was played without the protection"
    )]
    Unprotected {
        /// The game.
        number: u64,
        /// The bot whose run it was.
        name: String,
        /// What protection it lacked, and why.
        why: String,
    },
    /// The threads that play games side by side could not be started.
    #[error("cannot start a thread to play games: {0}")]
    Threads(io::Error),
}

impl Event<'_> {
    /// The number of digits in record names: at least 3 (`games/001.txt`).
    fn digits(&self) -> usize {
        self.fixtures.len().to_string().len().max(3)
    }

    /// Where game `number`'s record goes, relative to the report directory.
    #[must_use]
    pub fn record_path(&self, number: u64) -> PathBuf {
        Path::new("games").join(format!("{number:0width$}.txt", width = self.digits()))
    }

    /// The names of the participants.
    #[must_use]
    pub fn names(&self) -> Vec<String> {
        self.entrants.iter().map(|e| e.name().to_owned()).collect()
    }

    /// Who plays `fixture`'s game, as its record's title and players line
    /// say.
    #[must_use]
    pub fn heading(&self, fixture: &Fixture) -> Heading {
        Heading {
            event: self.kind,
            number: fixture.number,
            seed: self.seed,
            names: fixture.seats.iter().map(|&i| self.entrants[i].name().to_owned()).collect(),
            marks: self.marks.clone(),
            geometry: self.geometry,
        }
    }

    /// The moves `fixture`'s game starts from.
    #[must_use]
    pub fn opening(&self, fixture: &Fixture) -> &[Move] {
        fixture.opening.and_then(|i| self.openings.get(i)).map_or(&[], Vec::as_slice)
    }

    /// The setup of `fixture`'s game.
    #[must_use]
    pub fn setup(&self, fixture: &Fixture) -> Setup {
        Setup {
            geometry: self.geometry,
            marks: self.marks.clone(),
            game: fixture.number,
            seed: game_seed(self.seed, fixture.number),
            move_time: self.move_time,
            clock: self.clock,
            waiting: Duration::ZERO,
        }
    }

    /// Runs every game, `jobs` at a time, recording each in `report`'s
    /// `games/` as it ends, and telling `progress` of each (those read back
    /// from `report` first). Returns the results in the games' order.
    ///
    /// # Errors
    /// [`EventError`]: a record that cannot be written or read, one of
    /// another game, threads that cannot start. Games already recorded stay
    /// recorded.
    pub fn run(
        &self,
        report: Option<&Path>,
        jobs: usize,
        progress: &mut dyn FnMut(Progress<'_>),
    ) -> Result<Vec<GameResult>, EventError> {
        let mut results = Vec::with_capacity(self.fixtures.len());
        let mut todo = Vec::new();
        let decided = AtomicBool::new(false);
        let paired = self.paired();
        let mut tally = Tally::default();
        let mut count = |result: &GameResult| {
            if let Some(sprt) = &self.sprt {
                tally.add(result);
                if sprt.decide(tally.llr(sprt, paired)) != Decision::Continue {
                    decided.store(true, Ordering::SeqCst);
                }
            }
        };
        if let Some(dir) = report {
            // A real directory, never a link someone put there.
            std::fs::create_dir_all(dir)
                .and_then(|()| output::real_dirs(dir, Path::new("games")))
                .map_err(|source| EventError::Write { path: dir.join("games"), source })?;
        }
        let held = self.fixtures.iter().filter(|f| self.part.is_none_or(|part| part.holds_game(f.number)));
        for fixture in held {
            match report.map(|dir| self.resume(dir, fixture)).transpose()? {
                Some(Resumed::Trusted(result)) => {
                    count(&result);
                    progress(Progress::Game(&result));
                    results.push(result);
                }
                Some(Resumed::Distrusted { path, why }) => {
                    progress(Progress::Distrusted { path: &path, number: fixture.number, why: &why });
                    todo.push(fixture);
                }
                Some(Resumed::Absent) | None => todo.push(fixture),
            }
        }
        // Games to play into a directory that holds an earlier run's
        // reports: they are removed first, so a run stopped before its end
        // leaves records only, never a report that reads as complete.
        if let Some(dir) = report.filter(|_| !todo.is_empty()) {
            for name in REPORT_FILES {
                let path = dir.join(name);
                match std::fs::remove_file(&path) {
                    Ok(()) => {}
                    Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                    Err(source) => return Err(EventError::Write { path, source }),
                }
            }
        }
        let next = AtomicUsize::new(0);
        let stop = AtomicBool::new(false);
        let (sender, receiver) = mpsc::channel();
        let outcome = std::thread::scope(|scope| {
            for _ in 0..jobs.clamp(1, todo.len().max(1)) {
                let sender = sender.clone();
                let (next, stop, todo, decided) = (&next, &stop, &todo, &decided);
                std::thread::Builder::new()
                    .spawn_scoped(scope, move || {
                        while !stop.load(Ordering::Relaxed)
                            && !decided.load(Ordering::SeqCst)
                            && !self.stopped()
                        {
                            let Some(fixture) = todo.get(next.fetch_add(1, Ordering::Relaxed)) else { break };
                            if sender.send(self.play(fixture, report)).is_err() {
                                break;
                            }
                        }
                    })
                    .map_err(|error| {
                        stop.store(true, Ordering::Relaxed);
                        EventError::Threads(error)
                    })?;
            }
            drop(sender);
            let mut first_error = None;
            for result in receiver {
                match result {
                    Ok(result) => {
                        count(&result);
                        progress(Progress::Game(&result));
                        results.push(result);
                    }
                    Err(error) => {
                        stop.store(true, Ordering::Relaxed);
                        first_error.get_or_insert(error);
                    }
                }
            }
            first_error.map_or(Ok(()), Err)
        });
        if let Err(error) = outcome {
            // Stop the workers still running before saying why.
            stop.store(true, Ordering::Relaxed);
            return Err(error);
        }
        if self.stopped() {
            return Err(EventError::Interrupted);
        }
        results.sort_by_key(|r| r.number);
        Ok(results)
    }

    /// Every game read back from its record in `dir`, none played: the
    /// games of a merged event ([`super::part`]), and the numbers of those
    /// that have no record (their part did not play them).
    ///
    /// # Errors
    /// The first game whose record is not trusted, with why.
    pub fn read_back(&self, dir: &Path) -> ReadBack {
        let judged = self.fixtures.iter().map(|fixture| self.resume(dir, fixture)).collect();
        Self::trusted(&self.fixtures, judged)
    }

    /// [`Event::read_back`] of records not yet in `dir`: each game's record
    /// and seal read from the directory `from` gives for its number (none:
    /// the game is absent), written into `dir` as they are, and judged
    /// from the bytes read, as [`Event::read_back`] would judge them read
    /// from `dir` again; the games read and written on every core at once.
    ///
    /// # Errors
    /// A record or seal that cannot be read or written; then the first game
    /// whose record is not trusted, with why.
    pub fn copy_back(
        &self,
        dir: &Path,
        from: &(dyn Fn(u64) -> Option<PathBuf> + Sync),
    ) -> Result<ReadBack, EventError> {
        use rayon::prelude::*;
        let judged: Vec<Result<Resumed, EventError>> = self
            .fixtures
            .par_iter()
            .map(|fixture| {
                let Some(part) = from(fixture.number) else {
                    return self.judge(dir, fixture, Found::Absent, Found::Absent);
                };
                let relative = self.record_path(fixture.number);
                let sealed = seal::seal_path(&relative);
                let mut found = Vec::with_capacity(2);
                for relative in [&relative, &sealed] {
                    let read = read_bounded(&part.join(relative))?;
                    // Regular files only: a link is not followed, a pipe
                    // not waited on (the game then has no record here).
                    if let Found::Bytes(bytes) = &read {
                        let to = dir.join(relative);
                        std::fs::write(&to, bytes)
                            .map_err(|source| EventError::Write { path: to, source })?;
                    }
                    found.push(read);
                }
                let seal = found.pop().unwrap_or(Found::Absent);
                let record = found.pop().unwrap_or(Found::Absent);
                // As read back from `dir`: what was not copied is absent.
                let copied = |f: Found| if let Found::Bytes(_) = f { f } else { Found::Absent };
                let record = copied(record);
                let seal = if let Found::Bytes(_) = record { copied(seal) } else { Found::Absent };
                self.judge(dir, fixture, record, seal)
            })
            .collect();
        // A failure to copy first, as when every record was copied before
        // any was read back.
        let mut judged = judged;
        if let Some(at) =
            judged.iter().position(|j| matches!(j, Err(EventError::Read { .. } | EventError::Write { .. })))
            && let Err(error) = judged.swap_remove(at)
        {
            return Err(error);
        }
        Ok(Self::trusted(&self.fixtures, judged))
    }

    /// The games of `fixtures` judged (`judged`, one for each), in order:
    /// those trusted, and the numbers of those absent; or the first not
    /// trusted, with why.
    fn trusted(fixtures: &[Fixture], judged: Vec<Result<Resumed, EventError>>) -> ReadBack {
        let mut results = Vec::with_capacity(fixtures.len());
        let mut absent = Vec::new();
        for (fixture, judged) in fixtures.iter().zip(judged) {
            match judged {
                Ok(Resumed::Trusted(result)) => results.push(result),
                Ok(Resumed::Absent) => absent.push(fixture.number),
                Ok(Resumed::Distrusted { why, .. }) => {
                    return Err((
                        fixture.number,
                        format!(
                            "its record is not trusted: {why} (records are trusted under the key that sealed them: give every machine, and the merge, one {})",
                            seal::KEY_VARIABLE
                        ),
                    ));
                }
                Err(error) => return Err((fixture.number, error.to_string())),
            }
        }
        Ok((results, absent))
    }

    /// What its games depend on that their records do not say, as a seal
    /// takes it in: the rule, the move time, the clock.
    #[must_use]
    pub fn settings(&self) -> String {
        format!(
            "rule={} move={}us clock={}",
            self.geometry.rule().name(),
            self.move_time.as_micros(),
            self.clock.map_or_else(|| "none".to_owned(), |c| c.to_string())
        )
    }

    /// Whether its games come in pairs, each opening played from both sides
    /// by two participants (games 2k-1 and 2k, seats swapped): the
    /// sequential test then counts pairs (pentanomial), else games.
    #[must_use]
    pub fn paired(&self) -> bool {
        self.entrants.len() == 2
            && self.fixtures.len().is_multiple_of(2)
            && self.fixtures.chunks(2).all(|pair| {
                pair[0].opening == pair[1].opening
                    && pair[0].number % 2 == 1
                    && pair[1].number == pair[0].number + 1
                    && pair[0].seats.iter().rev().eq(pair[1].seats.iter())
            })
    }

    /// Whether the event was told to stop.
    fn stopped(&self) -> bool {
        self.stop.as_ref().is_some_and(|stop| stop.load(Ordering::SeqCst))
    }

    /// Plays `fixture`'s game and records it.
    fn play(&self, fixture: &Fixture, report: Option<&Path>) -> Result<GameResult, EventError> {
        let entrants: Vec<&dyn Entrant> = fixture.seats.iter().map(|&i| self.entrants[i].as_ref()).collect();
        let mut played = contest::play(&self.setup(fixture), self.opening(fixture), &entrants);
        if self.stopped() {
            return Err(EventError::Interrupted);
        }
        // A run with less protection than promised judges nothing: not a
        // forfeit of the bot's, nor a game to record.
        let refused = match &played.ending {
            Ending::Forfeit { seat, forfeit } if forfeit.kind == ForfeitKind::Unprotected => {
                Some((*seat, forfeit.detail.clone()))
            }
            _ => played
                .finished
                .iter()
                .enumerate()
                .find_map(|(seat, f)| f.unprotected.clone().map(|why| (seat, why))),
        };
        if let Some((seat, why)) = refused {
            return Err(EventError::Unprotected {
                number: fixture.number,
                name: text::inert(entrants[seat].name()).into_owned(),
                why,
            });
        }
        // Kept as the record keeps it, so a resumed run reads back the same.
        if let Ending::Forfeit { forfeit, .. } = &mut played.ending {
            forfeit.detail = record::detail(&forfeit.detail);
        }
        let record = match report {
            Some(dir) => {
                let relative = self.record_path(fixture.number);
                let path = dir.join(&relative);
                let text =
                    self.heading(fixture).write(&played.moves, played.refused.as_deref(), &played.ending);
                // The seal first: a run killed between the two leaves a
                // record with no seal or an old one, and its game is played
                // again.
                let sealed = seal::seal_path(&path);
                output::replace_whole(&sealed, Durability::Renamed, |out| {
                    io::Write::write_all(out, self.key.seal(&self.settings(), text.as_bytes()).as_bytes())
                })
                .map_err(|source| EventError::Write { path: sealed, source })?;
                output::replace_whole(&path, Durability::Renamed, |out| {
                    io::Write::write_all(out, text.as_bytes())
                })
                .map_err(|source| EventError::Write { path, source })?;
                Some(relative)
            }
            None => None,
        };
        Ok(GameResult {
            number: fixture.number,
            seats: fixture.seats.clone(),
            marks: self.marks.clone(),
            moves: played.moves.len(),
            ending: played.ending,
            record,
            stderr: Some(played.finished.into_iter().map(|f| f.stderr).collect()),
            resumed: false,
        })
    }

    /// `fixture`'s game read back from its record in `dir`, if it has one
    /// that is trusted: sealed with this event's key (else it is
    /// [`Resumed::Distrusted`]), and its engines' moves what they play
    /// again.
    fn resume(&self, dir: &Path, fixture: &Fixture) -> Result<Resumed, EventError> {
        let path = dir.join(self.record_path(fixture.number));
        let record = read_bounded(&path)?;
        if let Found::Bytes(_) = record {
            let seal = read_bounded(&seal::seal_path(&path))?;
            return self.judge(dir, fixture, record, seal);
        }
        self.judge(dir, fixture, record, Found::Absent)
    }

    /// [`Event::resume`] of the record and seal read from `dir` (only the
    /// record's path in `dir` is used, for what is said).
    fn judge(
        &self,
        dir: &Path,
        fixture: &Fixture,
        record: Found,
        seal: Found,
    ) -> Result<Resumed, EventError> {
        let relative = self.record_path(fixture.number);
        let path = dir.join(&relative);
        let distrusted = |why: Distrust| Ok(Resumed::Distrusted { path: path.clone(), why });
        let bytes = match record {
            Found::Absent => return Ok(Resumed::Absent),
            Found::NotAFile => return distrusted(Distrust::NotAFile),
            Found::Bytes(bytes) => bytes,
        };
        let sealed = seal::seal_path(&path);
        let Found::Bytes(seal) = seal else {
            return distrusted(Distrust::Unsealed(sealed));
        };
        if !self.key.verifies(&self.settings(), &bytes, &String::from_utf8_lossy(&seal)) {
            return distrusted(Distrust::Broken);
        }
        // Sealed by this key, so written by this tool: a record that is
        // not this game's is of another event the user ran here.
        let foreign = |why: Mismatch| EventError::Foreign {
            path: path.clone(),
            number: fixture.number,
            event: self.kind.to_lowercase(),
            why,
        };
        let text = String::from_utf8(bytes).map_err(|_| foreign(Mismatch::new("it is not UTF-8 text")))?;
        let recorded = record::read(&text, &self.heading(fixture), self.opening(fixture)).map_err(foreign)?;
        if let Err(why) = self.replay_engines(fixture, &recorded) {
            return distrusted(Distrust::Replayed(why));
        }
        Ok(Resumed::Trusted(GameResult {
            number: fixture.number,
            seats: fixture.seats.clone(),
            marks: self.marks.clone(),
            moves: recorded.moves.len(),
            ending: recorded.ending,
            record: Some(relative),
            stderr: None,
            resumed: true,
        }))
    }
}

/// The games of an event read back from their records ([`Event::read_back`]):
/// those trusted and the numbers of those absent; or the first game whose
/// record is not trusted, and why.
pub type ReadBack = Result<(Vec<GameResult>, Vec<u64>), (u64, String)>;

/// A record read back, or not.
enum Resumed {
    /// There is none.
    Absent,
    /// It is trusted: its game is not played again.
    Trusted(GameResult),
    /// It is there but not trusted: its game is played again.
    Distrusted {
        /// The record's file.
        path: PathBuf,
        /// Why.
        why: Distrust,
    },
}

/// What is at a record's or a seal's path.
pub(super) enum Found {
    /// Nothing.
    Absent,
    /// Something that is not a regular file (a link, a pipe, a device, a
    /// directory): never followed or opened for reading, so a pipe cannot
    /// hang the run; its game is played again and it is replaced.
    NotAFile,
    /// A regular file's bytes, at most [`MAX_RECORD`].
    Bytes(Vec<u8>),
}

/// What is at `path` ([`Found`]).
pub(super) fn read_bounded(path: &Path) -> Result<Found, EventError> {
    use std::os::unix::fs::OpenOptionsExt;
    let opened = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_NONBLOCK)
        .open(path);
    let file = match opened {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Found::Absent),
        // ELOOP: a symbolic link; ENXIO: a socket or a pipe no one writes.
        Err(e) if matches!(e.raw_os_error(), Some(nix::libc::ELOOP | nix::libc::ENXIO)) => {
            return Ok(Found::NotAFile);
        }
        Err(source) => return Err(EventError::Read { path: path.to_owned(), source }),
    };
    let meta = file.metadata().map_err(|source| EventError::Read { path: path.to_owned(), source })?;
    if !meta.is_file() {
        return Ok(Found::NotAFile);
    }
    let mut bytes = Vec::new();
    io::Read::read_to_end(&mut io::Read::take(file, MAX_RECORD), &mut bytes)
        .map_err(|source| EventError::Read { path: path.to_owned(), source })?;
    Ok(Found::Bytes(bytes))
}

impl Event<'_> {
    /// Checks the moves `recorded` says each engine of `fixture`'s game made
    /// by asking the engine again, seated and seeded as it was: a record
    /// edited to claim a game the engines never played (moves that referee
    /// to the claimed result, say, but that `perfect` would not make) is
    /// refused, not counted.
    fn replay_engines(&self, fixture: &Fixture, recorded: &Recorded) -> Result<(), Mismatch> {
        let setup = self.setup(fixture);
        let heading = self.heading(fixture);
        let mut seats: Vec<Option<Box<dyn Seat>>> = fixture
            .seats
            .iter()
            .enumerate()
            .map(|(seat, &who)| {
                let entrant = &self.entrants[who];
                if entrant.replays() { entrant.join(&setup, seat).ok() } else { None }
            })
            .collect();
        let mut game = Game::new(heading.players(), self.geometry, Storage::Auto);
        let opening = self.opening(fixture).len();
        let mut mismatch = None;
        for (at, &mv) in recorded.moves.iter().enumerate() {
            let seat = mv.player.index();
            if at >= opening
                && let Some(Some(sitting)) = seats.get_mut(seat)
            {
                let said = sitting.answer(&Position::new(&game)).unwrap_or_default();
                if said.trim() != mv.square.number().to_string() {
                    mismatch = Some(Mismatch::new(format!(
                        "its move {} ({} {}) is not what {} plays there ({}): it is not the game played",
                        at + 1,
                        heading.marks[seat],
                        mv.square.number(),
                        text::line(&text::inert(&heading.names[seat])),
                        text::line(&text::inert(said.trim())),
                    )));
                    break;
                }
            }
            game.play_unchecked(mv);
        }
        for sitting in seats.into_iter().flatten() {
            sitting.finish();
        }
        mismatch.map_or(Ok(()), Err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::engines::EngineEntrant;
    use crate::arena::schedule;
    use crate::engine::EngineKind;

    fn entrants() -> Vec<Box<dyn Entrant>> {
        vec![
            Box::new(EngineEntrant::new(EngineKind::Perfect)),
            Box::new(EngineEntrant::new(EngineKind::Random)),
        ]
    }

    fn event(entrants: &[Box<dyn Entrant>], seed: u64) -> Event<'_> {
        Event {
            kind: "Match",
            geometry: Geometry::CLASSIC,
            marks: vec![Mark::X, Mark::O],
            seed,
            move_time: Duration::from_secs(1),
            clock: None,
            sprt: None,
            entrants,
            fixtures: schedule::match_games(2, 6, 0),
            openings: Vec::new(),
            key: key(),
            part: None,
            stop: None,
        }
    }

    /// One key for every event of the tests, as a user's kept key is.
    fn key() -> RecordKey {
        static KEY: std::sync::OnceLock<RecordKey> = std::sync::OnceLock::new();
        KEY.get_or_init(|| RecordKey::ephemeral("the tests' key")).clone()
    }

    /// The records a run distrusted: each game's number and why, as shown.
    type Distrusted = Vec<(u64, String)>;

    /// Runs `event`, returning its results and the records it distrusted.
    fn run_telling(event: &Event<'_>, dir: &Path) -> Result<(Vec<GameResult>, Distrusted), EventError> {
        let mut distrusted = Vec::new();
        let results = event.run(Some(dir), 1, &mut |progress| {
            if let Progress::Distrusted { number, why, .. } = progress {
                distrusted.push((number, why.to_string()));
            }
        })?;
        Ok((results, distrusted))
    }

    #[test]
    fn games_side_by_side_give_what_one_at_a_time_gives_and_a_rerun_resumes() {
        let entrants = entrants();
        let dir = tempfile::tempdir().unwrap();
        let mut told = 0;
        let alone = event(&entrants, 1).run(None, 1, &mut |_| told += 1).unwrap();
        assert_eq!(told, 6);
        let together = event(&entrants, 1).run(Some(dir.path()), 4, &mut |_| ()).unwrap();
        let strip = |results: &[GameResult]| {
            results.iter().map(|r| (r.number, r.seats.clone(), r.moves, r.ending.clone())).collect::<Vec<_>>()
        };
        assert_eq!(strip(&alone), strip(&together));
        assert!(together.iter().all(|r| !r.resumed));
        let record = std::fs::read_to_string(dir.path().join("games/002.txt")).unwrap();
        assert!(record.starts_with("Match game 2 (seed 1): random (X) vs perfect (O): "), "{record}");

        let again = event(&entrants, 1).run(Some(dir.path()), 4, &mut |_| ()).unwrap();
        assert!(again.iter().all(|r| r.resumed));
        assert_eq!(strip(&again), strip(&together));

        std::fs::remove_file(dir.path().join("games/004.txt")).unwrap();
        let again = event(&entrants, 1).run(Some(dir.path()), 2, &mut |_| ()).unwrap();
        let replayed: Vec<u64> = again.iter().filter(|r| !r.resumed).map(|r| r.number).collect();
        assert_eq!(replayed, [4]);
    }

    #[test]
    fn a_record_of_another_setup_is_an_error_not_a_game() {
        let entrants = entrants();
        let dir = tempfile::tempdir().unwrap();
        event(&entrants, 1).run(Some(dir.path()), 1, &mut |_| ()).unwrap();
        let error = event(&entrants, 2).run(Some(dir.path()), 1, &mut |_| ()).unwrap_err();
        let path = dir.path().join("games/001.txt");
        assert!(
            error.to_string().starts_with(&format!(
                "{}: not the record of game 1 of this match: its title is `Match game 1 (seed 1): ",
                path.display()
            )),
            "{error}"
        );
        assert!(
            error
                .to_string()
                .ends_with("; use another --report directory, or remove the file to play the game again")
        );
        // Not UTF-8, but sealed with this key: this tool's record of
        // something else.
        std::fs::write(&path, b"\xff\xfe").unwrap();
        std::fs::write(seal::seal_path(&path), key().seal(&event(&entrants, 1).settings(), b"\xff\xfe"))
            .unwrap();
        let error = event(&entrants, 1).run(Some(dir.path()), 1, &mut |_| ()).unwrap_err();
        assert!(error.to_string().contains(": it is not UTF-8 text; use another"), "{error}");
    }

    #[test]
    fn unwritable_and_unreadable_records_say_which_file() {
        let entrants = entrants();
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("plain");
        std::fs::write(&file, "").unwrap();
        let error = event(&entrants, 1).run(Some(&file), 1, &mut |_| ()).unwrap_err();
        assert!(
            error.to_string().starts_with(&format!("{}: cannot write: ", file.join("games").display())),
            "{error}"
        );
        // A directory where a record goes is not read, and cannot be
        // replaced by the game played again.
        std::fs::create_dir_all(dir.path().join("games/001.txt")).unwrap();
        let error = event(&entrants, 1).run(Some(dir.path()), 1, &mut |_| ()).unwrap_err();
        assert!(
            error.to_string().starts_with(&format!(
                "{}: cannot write: Is a directory",
                dir.path().join("games/001.txt").display()
            )),
            "{error}"
        );
    }

    /// A record forged to claim a game the engines never played — legal
    /// moves that referee to the result its title claims, but not the moves
    /// `perfect` makes — is not trusted on resume: its game is played
    /// again, and the record replaced by the game played. So is one whose
    /// seal is gone, and one sealed by this key whose engine moves are not
    /// what the engines play (a record of an older version).
    #[test]
    fn a_forged_record_is_distrusted_and_its_game_played_again() {
        let entrants = entrants();
        let dir = tempfile::tempdir().unwrap();
        let (honest, _) = run_telling(&event(&entrants, 1), dir.path()).unwrap();
        let path = dir.path().join("games/001.txt");
        let true_record = std::fs::read_to_string(&path).unwrap();
        let planned = event(&entrants, 1);
        let fixture = &planned.fixtures[0];
        assert_eq!(fixture.seats, [0, 1], "game 1: perfect (X) vs random (O)");
        let players = planned.heading(fixture).players();
        let moves: Vec<Move> = [1, 5, 2, 3, 4, 7]
            .iter()
            .zip([0, 1, 0, 1, 0, 1])
            .map(|(&square, player)| Move {
                player: crate::player::PlayerId::new(player),
                square: crate::board::Square::from_index(square - 1),
            })
            .collect();
        let forged = planned.heading(fixture).write(&moves, None, &Ending::Win(1));
        assert!(forged.starts_with("Match game 1 (seed 1): perfect (X) vs random (O): O wins\n"), "{forged}");
        // The referee itself finds nothing wrong with it.
        assert!(record::read(&forged, &planned.heading(fixture), &[]).is_ok(), "{players}");

        let seal_path = seal::seal_path(&path);
        let cases: [(&str, Option<String>, &str); 3] = [
            ("edited", None, "its seal does not match: it was edited, recorded with another key"),
            (
                "sealed by another key",
                Some(RecordKey::ephemeral("another").seal(&planned.settings(), forged.as_bytes())),
                "its seal does not match",
            ),
            (
                "sealed by this key",
                Some(key().seal(&planned.settings(), forged.as_bytes())),
                "its move 1 (X 1) is not what perfect plays there (",
            ),
        ];
        for (case, seal, why) in cases {
            std::fs::write(&path, &forged).unwrap();
            if let Some(seal) = seal {
                std::fs::write(&seal_path, seal).unwrap();
            }
            let (again, distrusted) = run_telling(&event(&entrants, 1), dir.path()).unwrap();
            assert_eq!(distrusted.len(), 1, "{case}: {distrusted:?}");
            assert_eq!(distrusted[0].0, 1, "{case}");
            assert!(distrusted[0].1.contains(why), "{case}: {}", distrusted[0].1);
            assert!(!again[0].resumed, "{case}: game 1 is played again");
            assert_eq!(again[0].ending, honest[0].ending, "{case}: the game played, not the one claimed");
            assert!(again[1..].iter().all(|r| r.resumed), "{case}: the others are read back");
            assert_eq!(std::fs::read_to_string(&path).unwrap(), true_record, "{case}: the record replaced");
        }
        std::fs::remove_file(&seal_path).unwrap();
        let (_, distrusted) = run_telling(&event(&entrants, 1), dir.path()).unwrap();
        assert_eq!(distrusted.len(), 1);
        assert!(distrusted[0].1.starts_with("it has no seal ("), "{}", distrusted[0].1);
        let (again, distrusted) = run_telling(&event(&entrants, 1), dir.path()).unwrap();
        assert!(distrusted.is_empty() && again.iter().all(|r| r.resumed), "sealed again when played again");
    }

    /// What a poisoned report directory holds instead of records — a link
    /// to a file outside, a pipe, `games` itself a link — is never
    /// followed or waited on: the games are played again, and what is
    /// written goes into the directory, replacing what was there.
    #[test]
    fn links_and_pipes_in_a_report_directory_are_replaced_never_followed() {
        use std::os::unix::fs::symlink;
        let entrants = entrants();
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let victim = outside.path().join("victim");
        std::fs::write(&victim, "the TA's file").unwrap();
        run_telling(&event(&entrants, 1), dir.path()).unwrap();
        let games = dir.path().join("games");
        std::fs::remove_file(games.join("001.seal")).unwrap();
        symlink(&victim, games.join("001.seal")).unwrap();
        std::fs::remove_file(games.join("002.txt")).unwrap();
        symlink(&victim, games.join("002.txt")).unwrap();
        std::fs::remove_file(games.join("003.txt")).unwrap();
        nix::unistd::mkfifo(&games.join("003.txt"), nix::sys::stat::Mode::S_IRWXU).unwrap();
        let (again, distrusted) = run_telling(&event(&entrants, 1), dir.path()).unwrap();
        let numbers: Vec<u64> = distrusted.iter().map(|(n, _)| *n).collect();
        assert_eq!(numbers, [1, 2, 3], "{distrusted:?}");
        assert!(distrusted[1].1.starts_with("it is not a regular file"), "{distrusted:?}");
        assert_eq!(again.iter().filter(|r| !r.resumed).count(), 3);
        assert_eq!(
            std::fs::read_to_string(&victim).unwrap(),
            "the TA's file",
            "nothing written through a link"
        );
        for name in ["001.seal", "002.txt", "003.txt"] {
            assert!(std::fs::symlink_metadata(games.join(name)).unwrap().is_file(), "{name} replaced");
        }

        // `games` itself a link to a directory outside: made a directory.
        let other = tempfile::tempdir().unwrap();
        symlink(outside.path(), other.path().join("games")).unwrap();
        run_telling(&event(&entrants, 1), other.path()).unwrap();
        assert!(std::fs::symlink_metadata(other.path().join("games")).unwrap().is_dir());
        let left: Vec<_> = std::fs::read_dir(outside.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "only the victim outside");
    }

    /// A run that will play games removes the earlier reports first, so
    /// one stopped halfway leaves no report that reads as complete; a run
    /// with nothing to play, or refused, leaves them.
    #[test]
    fn reports_of_an_earlier_run_are_removed_before_games_are_played() {
        let entrants = entrants();
        let dir = tempfile::tempdir().unwrap();
        run_telling(&event(&entrants, 1), dir.path()).unwrap();
        let report = dir.path().join("results.json");
        std::fs::write(&report, "{}").unwrap();
        run_telling(&event(&entrants, 1), dir.path()).unwrap();
        assert!(report.exists(), "nothing to play: kept");
        assert!(event(&entrants, 2).run(Some(dir.path()), 1, &mut |_| ()).is_err());
        assert!(report.exists(), "a refused run touches nothing");
        std::fs::remove_file(dir.path().join("games/004.txt")).unwrap();
        run_telling(&event(&entrants, 1), dir.path()).unwrap();
        assert!(!report.exists(), "a game to play: removed before it");
    }

    #[test]
    fn threads_that_cannot_start_say_so() {
        let error = EventError::Threads(io::Error::from_raw_os_error(11));
        assert_eq!(
            error.to_string(),
            "cannot start a thread to play games: Resource temporarily unavailable (os error 11)"
        );
    }

    #[test]
    fn game_seeds_differ_by_game_and_by_seed() {
        assert_ne!(game_seed(1, 1), game_seed(1, 2));
        assert_ne!(game_seed(1, 2), game_seed(2, 1));
        assert_eq!(game_seed(5, 9), game_seed(5, 9));
    }
}
