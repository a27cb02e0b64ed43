//! Bots graded by how they play (`grade --play`): a submission built once
//! is a bot (the bot protocol, FORMAT.md), and its tests are games against
//! the engines, each a live run of it in the sandbox:
//!
//! - `vs-perfect`: from the empty board and, on boards of up to 16
//!   squares, from every first move, as each side: it passes when it never
//!   loses (a forfeit is a loss);
//! - `vs-random`: [`PlayPlan::games`] games against `random`, alternating
//!   sides, each with its own seed: it passes when it wins at least
//!   [`PlayPlan::min_wins`];
//! - `legal`: it forfeits none of those games.
//!
//! A failing test shows the shortest game that fails it, as a move file the
//! student replays with `ttt-referee`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use rayon::prelude::*;

use super::build::warnings_test;
use super::grader::{Grader, Tell};
use super::intake::Halt;
use super::plan::{PLAY_TESTS, PlayPlan};
use super::result::{SubmissionResult, TestResult, Verdict};
use super::shrink::{Evidence, Smallest};
use crate::arena::record::Heading;
use crate::arena::{Bot, EngineEntrant, Entrant, ForfeitKind, Played, Score, Setup};
use crate::board::Square;
use crate::engine::EngineKind;
use crate::game::Move;
use crate::player::{Mark, PlayerId};
use crate::text;

/// Boards of at most this many squares are played against `perfect` from
/// every first move too (on larger ones, only from the empty board: the
/// engine's search would not fit a test).
const EVERY_OPENING_SQUARES: u64 = 16;

/// One game of a bot's tests.
struct Fixture {
    /// `vs-perfect` or `vs-random`.
    test: &'static str,
    /// Its number among the submission's games, from 1.
    number: u64,
    /// The bot's seat: 0 (X, first) or 1.
    seat: usize,
    /// The moves made before the bot and its opponent start.
    opening: Vec<Move>,
}

/// A game as it was played, with what its record says.
struct Game<'a> {
    fixture: &'a Fixture,
    played: Played,
    record: String,
}

impl Game<'_> {
    fn score(&self) -> Score {
        self.played.ending.score(self.fixture.seat, 2)
    }

    /// The forfeit of the bot, if it forfeited.
    fn forfeit(&self) -> Option<&crate::arena::Forfeit> {
        match &self.played.ending {
            crate::arena::Ending::Forfeit { seat, forfeit } if *seat == self.fixture.seat => Some(forfeit),
            _ => None,
        }
    }

    /// `game 4 (vs-perfect, as O)`.
    fn name(&self) -> String {
        let mark = if self.fixture.seat == 0 { 'X' } else { 'O' };
        format!("game {} ({}, as {mark})", self.fixture.number, self.fixture.test)
    }
}

impl Grader {
    /// Grades the submission copied to `source` (in `area`) as a bot:
    /// built once, then every game of [`PLAY_TESTS`], side by side.
    pub(in crate::grade) fn grade_play(
        &self,
        plan: &PlayPlan,
        name: &str,
        source: PathBuf,
        area: &Path,
        progress: &Tell<'_>,
    ) -> Result<SubmissionResult, Halt> {
        let provided = match &plan.program.provided {
            Some(provided) => Some(self.place_provided(name, provided, &source, area)?),
            None => None,
        };
        let ready = match self.make_ready(&plan.program, name, source, area)? {
            Ok(ready) => ready,
            Err(not) => {
                return Ok(self.not_run(name.to_owned(), not.language, not.log, &not.detail, progress));
            }
        };
        let argv = match shell_words::split(&ready.run) {
            Ok(argv) => argv,
            Err(e) => {
                let why = format!("its run command `{}` is not a command line: {e}", ready.run);
                return Ok(self.not_run(name.to_owned(), ready.language, why.clone(), &why, progress));
            }
        };
        let warnings = plan.program.warnings.then(|| warnings_test(ready.build_log.as_deref()));
        if let Some(test) = &warnings {
            progress(test);
        }
        let bot = Bot::new(
            name.to_owned(),
            Arc::clone(&self.sandbox),
            argv,
            ready.start.clone(),
            self.plan.limits,
            plan.startup,
        );
        let began = Instant::now();
        let fixtures = fixtures(plan);
        let perfect = EngineEntrant::new(EngineKind::Perfect);
        let random = EngineEntrant::new(EngineKind::Random);
        let games: Vec<Game<'_>> = fixtures
            .par_iter()
            .map(|fixture| {
                let opponent: &dyn Entrant = if fixture.test == "vs-perfect" { &perfect } else { &random };
                let entrants: [&dyn Entrant; 2] =
                    if fixture.seat == 0 { [&bot, opponent] } else { [opponent, &bot] };
                let setup = Setup {
                    geometry: plan.geometry,
                    marks: vec![Mark::X, Mark::O],
                    game: fixture.number,
                    seed: crate::arena::event::game_seed(plan.seed, fixture.number),
                    move_time: plan.move_time,
                };
                let played = crate::arena::contest::play(&setup, &fixture.opening, &entrants);
                let heading = Heading {
                    event: fixture.test,
                    number: fixture.number,
                    seed: plan.seed,
                    names: entrants.iter().map(|e| e.name().to_owned()).collect(),
                    marks: setup.marks.clone(),
                    geometry: plan.geometry,
                };
                let record = heading.write(&played.moves, played.refused.as_deref(), &played.ending);
                Game { fixture, played, record }
            })
            .collect();
        // Games cut short by Ctrl-C judge nothing.
        if self.sandbox.stopper().load(Ordering::SeqCst) {
            return Err(Halt::Stopped);
        }
        let seconds = began.elapsed().as_secs_f64();
        let mut tests: Vec<TestResult> = warnings.into_iter().collect();
        for test in [vs_perfect(&games), vs_random(&games, plan), legal(&games)] {
            let test = TestResult { wall: seconds, ..test };
            progress(&test);
            tests.push(test);
        }
        let mut result = SubmissionResult::graded(name.to_owned(), ready.language, ready.build_log, tests);
        if let Some(placed) = provided {
            result.provided_missing = Some(placed.missing);
            result.provided_changed = Some(placed.changed);
        }
        Ok(result)
    }
}

/// The games of a bot's tests, numbered: `vs-perfect`'s from each opening
/// as each side, then `vs-random`'s, alternating sides.
fn fixtures(play: &PlayPlan) -> Vec<Fixture> {
    let mut openings = vec![Vec::new()];
    if play.geometry.cells() <= EVERY_OPENING_SQUARES {
        openings.extend(
            (0..play.geometry.cells())
                .map(|i| vec![Move { player: PlayerId::new(0), square: Square::from_index(i) }]),
        );
    }
    let mut fixtures = Vec::new();
    for opening in openings {
        for seat in [0, 1] {
            fixtures.push(Fixture { test: "vs-perfect", number: 0, seat, opening: opening.clone() });
        }
    }
    for game in 0..play.games {
        fixtures.push(Fixture {
            test: "vs-random",
            number: 0,
            seat: usize::from(game % 2 == 1),
            opening: Vec::new(),
        });
    }
    for (number, fixture) in (1..).zip(&mut fixtures) {
        fixture.number = number;
    }
    fixtures
}

/// A test's result: passed or not, with `detail`, and for a failure the
/// game that shows it.
fn result(
    test: &str,
    verdict: Verdict,
    detail: String,
    shown: Option<(&Game<'_>, &'static str)>,
) -> TestResult {
    let mut result = TestResult::not_run(test, verdict, detail);
    result.score = if verdict == Verdict::Pass { 1.0 } else { 0.0 };
    if let Some((game, what)) = shown {
        let seat = game.fixture.seat;
        result.stderr = game.played.finished.get(seat).map(|f| f.stderr.clone()).unwrap_or_default();
        let moves = game.record.lines().skip(3).map(str::to_owned).collect();
        result.smallest_failing_input = Some(Smallest {
            input: text::said(&game.record, super::SHOWN_BYTES).into_owned(),
            evidence: Evidence::Game { what, moves },
            verdict,
            detail: result.detail.clone(),
            expected: String::new(),
            actual: String::new(),
            first_difference: None,
            stderr: result.stderr.clone(),
            runs: 1,
            seconds: 0.0,
            complete: true,
            unmatched: crate::check::Unmatched::default(),
        });
    }
    result
}

/// The shortest of `games` (fewest moves; the first of those).
fn shortest<'a, 'g>(games: impl Iterator<Item = &'a Game<'g>>) -> Option<&'a Game<'g>>
where
    'g: 'a,
{
    games.min_by_key(|g| (g.played.moves.len(), g.fixture.number))
}

fn vs_perfect(games: &[Game<'_>]) -> TestResult {
    let ours: Vec<&Game<'_>> = games.iter().filter(|g| g.fixture.test == "vs-perfect").collect();
    let lost: Vec<&Game<'_>> = ours.iter().copied().filter(|g| g.score() == Score::Loss).collect();
    let played = ours.len();
    match shortest(lost.iter().copied()) {
        None => {
            let won = ours.iter().filter(|g| g.score() == Score::Win).count();
            let detail = format!(
                "it never lost to perfect: {} drawn and {won} won of {played} games, as each side",
                played - won
            );
            result(PLAY_TESTS[0], Verdict::Pass, detail, None)
        }
        Some(game) => {
            let detail =
                format!("it lost {} of {played} games to perfect; the shortest: {}", lost.len(), title(game));
            result(PLAY_TESTS[0], Verdict::Wrong, detail, Some((game, "the shortest game it lost")))
        }
    }
}

fn vs_random(games: &[Game<'_>], play: &PlayPlan) -> TestResult {
    let ours: Vec<&Game<'_>> = games.iter().filter(|g| g.fixture.test == "vs-random").collect();
    let won = ours.iter().filter(|g| g.score() == Score::Win).count();
    let said = format!("it won {won} of {} games against random (it needs {})", ours.len(), play.min_wins);
    if won as u64 >= play.min_wins {
        return result(PLAY_TESTS[1], Verdict::Pass, said, None);
    }
    let game = shortest(ours.iter().copied().filter(|g| g.score() != Score::Win));
    let detail = match game {
        Some(game) => format!("{said}; the shortest it did not win: {}", title(game)),
        None => said,
    };
    result(PLAY_TESTS[1], Verdict::Wrong, detail, game.map(|g| (g, "the shortest game it did not win")))
}

fn legal(games: &[Game<'_>]) -> TestResult {
    let forfeited: Vec<&Game<'_>> = games.iter().filter(|g| g.forfeit().is_some()).collect();
    let Some(game) = shortest(forfeited.iter().copied()) else {
        let detail = format!("it forfeited none of its {} games", games.len());
        return result(PLAY_TESTS[2], Verdict::Pass, detail, None);
    };
    let forfeit = game.forfeit().map_or((ForfeitKind::Exited, String::new()), |f| (f.kind, f.to_string()));
    let verdict = match forfeit.0 {
        ForfeitKind::Time => Verdict::TimeLimit,
        ForfeitKind::Exited => Verdict::Crashed,
        _ => Verdict::Wrong,
    };
    let detail = format!(
        "it forfeited {} of its {} games; the shortest: {}: {}",
        forfeited.len(),
        games.len(),
        game.name(),
        forfeit.1
    );
    result(PLAY_TESTS[2], verdict, detail, Some((game, "the shortest game it forfeited")))
}

/// A game's record's title, without the event's part: how it ended.
fn title(game: &Game<'_>) -> String {
    let marks = [Mark::X, Mark::O];
    format!("{}: {}", game.name(), crate::arena::record::result(&game.played.ending, &marks))
}
