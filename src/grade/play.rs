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
//! A bot that runs out of time in [`GIVE_UP_AFTER`] games of a test in a row
//! is not asked again in that test: each game left is a time forfeit that
//! says so ([`Bot::give_up_after`]), and `legal` counts them.
//!
//! A failing test shows the shortest game that fails it, as a move file the
//! student replays with `ttt-referee`.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use super::plan::{PLAY_TESTS, PlayPlan};
use super::result::{Evidence, Smallest};
use super::result::{Stopped, SubmissionResult, TestResult, Verdict};
use super::stage::{Stage, not_run};
use super::verdict::warnings_test;
use crate::arena::record::{self, Recorded};
use crate::arena::{
    Bot, Ending, EngineEntrant, Entrant, Event, EventError, Fixture, Forfeit, ForfeitKind, GIVE_UP_AFTER,
    GameResult, Score, not_asked,
};
use crate::board::Square;
use crate::engine::EngineKind;
use crate::game::Move;
use crate::movefile;
use crate::player::{Mark, PlayerId};
use crate::text;
use crate::workshop::Failure;
use crate::workshop::silencers::Silencer;

/// Boards of at most this many squares are played against `perfect` from
/// every first move too (on larger ones, only from the empty board: the
/// engine's search would not fit a test).
const EVERY_OPENING_SQUARES: u64 = 16;

/// The bot's place among each event's participants: first, before its
/// opponent.
const BOT: usize = 0;

/// One game of a bot's tests, as the arena played and recorded it.
struct Game {
    /// `vs-perfect` or `vs-random`.
    test: &'static str,
    /// What became of it.
    result: GameResult,
    /// Its record, as the arena wrote it.
    record: String,
    /// Its move lines, read back from the record: the valid moves, then
    /// the illegal one that forfeited, if one did.
    moves: Vec<String>,
}

impl Game {
    /// The bot's seat: 0 (X, first) or 1.
    fn seat(&self) -> usize {
        self.result.seats.iter().position(|&who| who == BOT).unwrap_or(0)
    }

    fn score(&self) -> Score {
        self.result.score(self.seat())
    }

    /// The forfeit of the bot, if it forfeited.
    fn forfeit(&self) -> Option<&Forfeit> {
        match &self.result.ending {
            Ending::Forfeit { seat, forfeit } if *seat == self.seat() => Some(forfeit),
            _ => None,
        }
    }

    /// `game 4 (vs-perfect, as O)`.
    fn name(&self) -> String {
        let mark = if self.seat() == 0 { 'X' } else { 'O' };
        format!("game {} ({}, as {mark})", self.result.number, self.test)
    }
}

/// Grades the bot `stage` holds by its games, each test's games played as
/// the arena plays every game ([`Event`]) and read back from their records.
///
/// # Errors
/// [`Stopped`]: the grading was stopped; games cut short judge nothing.
pub(super) fn grade(stage: &Stage<'_>, plan: &PlayPlan) -> Result<SubmissionResult, Stopped> {
    let built = stage.built;
    let warnings = plan
        .program
        .warnings
        .then(|| warnings_test(built.build_log.as_deref(), &Silencer::said(&built.silencers)));
    if let Some(test) = &warnings {
        (stage.tell)(test);
    }
    let began = Instant::now();
    let games = match games(stage, plan) {
        Ok(games) => games,
        Err(EventError::Interrupted) => return Err(Stopped),
        Err(e) => {
            let why = format!("the grader failed to play its games: {e}");
            return Ok(not_run(stage.plan, &built.name, &Failure::early(why), stage.tell));
        }
    };
    let seconds = began.elapsed().as_secs_f64();
    let mut tests: Vec<TestResult> = warnings.into_iter().collect();
    for test in [vs_perfect(&games), vs_random(&games, plan), legal(&games)] {
        let test = TestResult { wall: seconds, ..test };
        (stage.tell)(&test);
        tests.push(test);
    }
    Ok(stage.graded(tests))
}

/// Every game of the bot's tests, played by the arena: `vs-perfect`'s
/// from each opening as each side, then `vs-random`'s, alternating sides,
/// numbered on from `vs-perfect`'s; each recorded in the submission's area.
fn games(stage: &Stage<'_>, plan: &PlayPlan) -> Result<Vec<Game>, EventError> {
    let built = stage.built;
    let mut openings = Vec::new();
    if plan.geometry.cells() <= EVERY_OPENING_SQUARES {
        openings.extend(
            (0..plan.geometry.cells())
                .map(|i| vec![Move { player: PlayerId::new(0), square: Square::from_index(i) }]),
        );
    }
    let mut perfect = Vec::new();
    for opening in std::iter::once(None).chain((0..openings.len()).map(Some)) {
        for seats in [vec![BOT, 1], vec![1, BOT]] {
            perfect.push(Fixture { number: perfect.len() as u64 + 1, seats, opening });
        }
    }
    let first = perfect.len() as u64 + 1;
    let random = (0..plan.games)
        .map(|game| Fixture {
            number: first + game,
            seats: if game % 2 == 0 { vec![BOT, 2] } else { vec![2, BOT] },
            opening: None,
        })
        .collect();
    let mut games = Vec::new();
    for (test, fixtures) in [("vs-perfect", perfect), ("vs-random", random)] {
        // A bot of its own for each test: one that keeps running out of
        // time is given up on in that test alone.
        let bot = Bot::new(built, Arc::clone(stage.sandbox), stage.plan.limits, plan.startup)
            .give_up_after(GIVE_UP_AFTER);
        let entrants: Vec<Box<dyn Entrant>> = vec![
            Box::new(bot),
            Box::new(EngineEntrant::new(EngineKind::Perfect)),
            Box::new(EngineEntrant::new(EngineKind::Random)),
        ];
        let event = Event {
            kind: test,
            geometry: plan.geometry,
            marks: vec![Mark::X, Mark::O],
            seed: plan.seed,
            move_time: plan.move_time,
            entrants: &entrants,
            fixtures,
            openings: openings.clone(),
            stop: Some(stage.sandbox.stopper()),
        };
        let dir = stage.area.join("games").join(test);
        for result in event.run(Some(&dir), stage.jobs, &mut |_| ())? {
            let fixture = event.fixtures.iter().find(|f| f.number == result.number);
            let path = dir.join(result.record.as_deref().unwrap_or(Path::new("")));
            let text = std::fs::read_to_string(&path)
                .map_err(|source| EventError::Read { path: path.clone(), source })?;
            let moves = match fixture.map(|f| record::read(&text, &event.heading(f), event.opening(f))) {
                Some(Ok(recorded)) => move_lines(&event, &result, &recorded),
                _ => Vec::new(),
            };
            games.push(Game { test, result, record: text, moves });
        }
    }
    Ok(games)
}

/// The move lines of a game as its record holds them: each valid move,
/// then the illegal square that forfeited.
fn move_lines(event: &Event<'_>, result: &GameResult, recorded: &Recorded) -> Vec<String> {
    let marks = &event.marks;
    let mut text = String::new();
    for mv in &recorded.moves {
        movefile::move_line(&mut text, &marks[mv.player.index()], &mv.square.number());
    }
    if let (Some(square), Ending::Forfeit { seat, .. }) = (&recorded.refused, &result.ending) {
        movefile::move_line(&mut text, &marks[*seat], square);
    }
    text.lines().map(str::to_owned).collect()
}

/// A test's result: passed or not, with `detail`, and for a failure the
/// game that shows it.
fn result(test: &str, verdict: Verdict, detail: String, shown: Option<(&Game, &'static str)>) -> TestResult {
    let mut result = TestResult::not_run(test, verdict, detail);
    result.score = if verdict == Verdict::Pass { 1.0 } else { 0.0 };
    if let Some((game, what)) = shown {
        let seat = game.seat();
        result.stderr =
            game.result.stderr.as_ref().and_then(|all| all.get(seat)).cloned().unwrap_or_default();
        let moves = game.moves.clone();
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
fn shortest<'a>(games: impl Iterator<Item = &'a Game>) -> Option<&'a Game> {
    games.min_by_key(|g| (g.result.moves, g.result.number))
}

fn vs_perfect(games: &[Game]) -> TestResult {
    let ours: Vec<&Game> = games.iter().filter(|g| g.test == "vs-perfect").collect();
    let lost: Vec<&Game> = ours.iter().copied().filter(|g| g.score() == Score::Loss).collect();
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

fn vs_random(games: &[Game], play: &PlayPlan) -> TestResult {
    let ours: Vec<&Game> = games.iter().filter(|g| g.test == "vs-random").collect();
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

fn legal(games: &[Game]) -> TestResult {
    let forfeited: Vec<&Game> = games.iter().filter(|g| g.forfeit().is_some()).collect();
    // The game shown is one it was asked in, where there is one.
    let unasked = forfeited.iter().filter(|g| g.forfeit().is_some_and(not_asked)).count();
    let asked = shortest(forfeited.iter().copied().filter(|g| !g.forfeit().is_some_and(not_asked)));
    let Some(game) = asked.or_else(|| shortest(forfeited.iter().copied())) else {
        let detail = format!("it forfeited none of its {} games", games.len());
        return result(PLAY_TESTS[2], Verdict::Pass, detail, None);
    };
    let forfeit = game.forfeit().map_or((ForfeitKind::Exited, String::new()), |f| (f.kind, f.to_string()));
    let verdict = match forfeit.0 {
        ForfeitKind::Time => Verdict::TimeLimit,
        ForfeitKind::Exited => Verdict::Crashed,
        _ => Verdict::Wrong,
    };
    let given_up = if unasked == 0 {
        String::new()
    } else {
        format!(" ({unasked} not asked: it ran out of time in {GIVE_UP_AFTER} games in a row)")
    };
    let detail = format!(
        "it forfeited {} of its {} games{given_up}; the shortest: {}: {}",
        forfeited.len(),
        games.len(),
        game.name(),
        forfeit.1
    );
    result(PLAY_TESTS[2], verdict, detail, Some((game, "the shortest game it forfeited")))
}

/// A game's record's title, without the event's part: how it ended.
fn title(game: &Game) -> String {
    let marks = [Mark::X, Mark::O];
    format!("{}: {}", game.name(), record::result(&game.result.ending, &marks))
}
