//! Bots graded by how they play (`grade --play`): a submission built once
//! is a bot (the bot protocol, FORMAT.md), and its tests are games, each a
//! live run of it in the sandbox:
//!
//! - `vs-perfect`: against every equally good reply of `perfect`'s
//!   ([`Replies::Optimal`]), from the empty board and, on boards of up to 16
//!   squares, every first move, as each side, until every answer it gave has
//!   met every such reply: it passes when it never loses (a forfeit is a
//!   loss), **proved** when the tree was played whole and the bot answered
//!   each position one way; beyond [`PlayPlan::proof_games`], a sample of
//!   the lines, said so;
//! - `vs-random`: its chance of winning against uniformly random play, as X
//!   and as O, worked out exactly from its answers against every legal
//!   reply ([`Replies::Every`]) where the board is small and it answers each
//!   position one way, else sampled against `random` with a sequential test
//!   ([`super::sprt`]); it passes when each side's share reaches its bar
//!   ([`PlayPlan::bars`]);
//! - `legal`: it forfeits none of those games.
//!
//! A bot that runs out of time in [`GIVE_UP_AFTER`] games of a test in a row
//! is not asked again in that test: each game left is a time forfeit that
//! says so ([`Bot::give_up_after`]), and `legal` counts them.
//!
//! A failing test shows the shortest game that fails it, as a move file the
//! student replays with `ttt-referee`.

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use super::plan::{Opponent, PLAY_TESTS, PlayPlan};
use super::result::{Evidence, Smallest};
use super::result::{Stopped, SubmissionResult, TestResult, Verdict};
use super::sprt::{Decision, Sprt};
use super::stage::{Stage, not_run};
use super::verdict::warnings_test;
use crate::arena::explore::{Explorer, Knowledge, Odds, Replies};
use crate::arena::record::{self, Recorded};
use crate::arena::seal::RecordKey;
use crate::arena::{
    Bot, Ending, EngineEntrant, Entrant, Event, EventError, Fixture, Forfeit, ForfeitKind, GIVE_UP_AFTER,
    GameResult, Score, Unbuilt, not_asked,
};
use crate::board::{Square, Storage};
use crate::engine::EngineKind;
use crate::game::{Game as Board, Move};
use crate::movefile;
use crate::player::{Mark, PlayerId};
use crate::text;
use crate::workshop::Failure;
use crate::workshop::silencers::Silencer;
/// Boards of at most this many squares are played from every first move
/// too (on larger ones, only from the empty board).
const EVERY_OPENING_SQUARES: u64 = 16;

/// Boards of at most this many squares have `vs-random` worked out exactly
/// (the tree of every legal reply stays within a few hundred games on 3×3;
/// on 3×4 it is thousands).
const EXACT_SQUARES: u64 = 9;

/// Once a bot is seen to answer a position two ways, `vs-perfect` has no
/// single tree to prove, and plays on only to this many games: a sample.
const VARIED_GAMES: u64 = 300;

/// Sampled games are played this many a side at a time, between looks at
/// the sequential test.
const BATCH: u64 = 10;

/// The participants of a bot's games, by their place in each event's list.
const BOT: usize = 0;
const PERFECT: usize = 1;
const EVERY: usize = 2;
const RANDOM: usize = 3;
/// The first `--versus` opponent; the others follow in the plan's order.
const VERSUS: usize = 4;

/// One game of a bot's tests, as the arena played and recorded it.
struct Game {
    /// `vs-perfect` or `vs-random`.
    test: &'static str,
    /// Whether it counts toward its test's verdict (a game of an exact
    /// `vs-random` given up for sampling counts only toward `legal`).
    counted: bool,
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
        format!("game {} ({}, as {})", self.result.number, self.test, side(self.seat()))
    }
}

/// `X` for seat 0, `O` for seat 1.
fn side(seat: usize) -> char {
    if seat == 0 { 'X' } else { 'O' }
}

/// Grades the bot `stage` holds by its games, each played as the arena
/// plays every game ([`Event`]) and read back from its record.
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
    let mut games = Games::new(stage, plan);
    let judged =
        (if plan.perfect_plays() { games.vs_perfect().map(Some) } else { Ok(None) }).and_then(|proof| {
            let figures = games.vs_random()?;
            let versus = (0..plan.versus.len()).map(|i| games.versus(i)).collect::<Result<Vec<_>, _>>()?;
            Ok((proof, figures, versus))
        });
    let (proof, figures, versus) = match judged {
        Ok(judged) => judged,
        Err(EventError::Interrupted) => return Err(Stopped),
        // The grader's failure, never the bot's: every test is `error`.
        Err(e) => {
            let why = format!("the grader failed to play its games: {e}");
            let failure = Failure { by_grader: true, ..Failure::early(why) };
            return Ok(not_run(stage.plan, &built.name, &failure, stage.tell));
        }
    };
    let seconds = began.elapsed().as_secs_f64();
    let mut tests: Vec<TestResult> = warnings.into_iter().collect();
    let perfect = proof.map(|proof| vs_perfect(&games.played, &proof));
    let versus =
        plan.versus.iter().zip(&versus).map(|(v, sampled)| versus_test(&games.played, v, sampled, plan));
    let all = perfect.into_iter().chain([vs_random(&games.played, &figures, plan)]).chain(versus);
    for test in all.chain([legal(&games.played)]) {
        let test = TestResult { wall: seconds, ..test };
        (stage.tell)(&test);
        tests.push(test);
    }
    Ok(stage.graded(tests))
}

/// How `vs-perfect`'s games went beyond their results: whether they proved.
struct Proof {
    /// Why it is not a proof (in words, for the detail); `None`: every tree
    /// was played whole, and the bot answered each position one way.
    why_not: Option<String>,
    /// Positions the bot was seen to answer.
    positions: usize,
}

/// `vs-random`'s figures, one a side.
enum Figures {
    /// Worked out from its answers.
    Exact([Odds; 2]),
    /// Sampled: wins and games a side, and why not exact.
    Sampled { sampled: Sampled, why: String },
}

/// Sampled games of a test: each side's score (a win 1, and a draw 0 or
/// ½ as the test counts it) and games.
struct Sampled {
    score: [f64; 2],
    games: [u64; 2],
    /// The first game a reference bot forfeited, with its forfeit: its
    /// games stop there and judge nothing of the student's.
    void: Option<String>,
}

/// A bot's games as they are played: the participants, what its answers
/// have shown, and every game so far.
struct Games<'s, 'p> {
    stage: &'s Stage<'p>,
    plan: &'s PlayPlan,
    entrants: Vec<Box<dyn Entrant>>,
    knowledge: Arc<Mutex<Knowledge>>,
    openings: Vec<Vec<Move>>,
    played: Vec<Game>,
    /// The test whose games the bot in `entrants` plays: each test has a
    /// bot of its own, so one given up on for running out of time
    /// ([`GIVE_UP_AFTER`]) is given up on in that test alone.
    bot_for: &'static str,
    /// The key its records are sealed with: the grading's own, drawn for
    /// it (the records are in its scratch, read back by this run alone).
    key: RecordKey,
}

/// One tree of `vs-perfect`'s or `vs-random`'s: the bot's seat and the
/// opening it starts from.
#[derive(Clone, Copy)]
struct Root {
    seat: usize,
    opening: Option<usize>,
}

impl<'s, 'p> Games<'s, 'p> {
    fn new(stage: &'s Stage<'p>, plan: &'s PlayPlan) -> Games<'s, 'p> {
        let knowledge = Knowledge::shared();
        let mut entrants: Vec<Box<dyn Entrant>> = vec![
            Box::new(Self::bot(stage, plan)),
            Box::new(Explorer::new("perfect", Replies::Optimal, Arc::clone(&knowledge))),
            Box::new(Explorer::new("every-reply", Replies::Every, Arc::clone(&knowledge))),
            Box::new(EngineEntrant::new(EngineKind::Random)),
        ];
        entrants.extend(plan.versus.iter().map(|v| -> Box<dyn Entrant> {
            match &v.opponent {
                Opponent::Engine(engine) => Box::new(EngineEntrant::new(*engine)),
                Opponent::Bot(dir) => match stage.references.iter().find(|(test, _)| *test == v.test) {
                    Some((_, built)) => {
                        Box::new(Bot::new(built, Arc::clone(stage.sandbox), stage.plan.limits, plan.startup))
                    }
                    // The grader builds every reference before grading; one
                    // missing is a grader's fault, and its games judge
                    // nothing (its forfeits make the test an error).
                    None => Box::new(Unbuilt::new(
                        dir.display().to_string(),
                        "the reference bot was not built for this grading",
                    )),
                },
            }
        }));
        let cells = plan.geometry.cells();
        let openings = if cells <= EVERY_OPENING_SQUARES {
            (0..cells)
                .map(|i| vec![Move { player: PlayerId::new(0), square: Square::from_index(i) }])
                .collect()
        } else {
            Vec::new()
        };
        Games {
            stage,
            plan,
            entrants,
            knowledge,
            openings,
            played: Vec::new(),
            bot_for: PLAY_TESTS[0],
            key: RecordKey::ephemeral("a grading's records are its own"),
        }
    }

    /// A fresh bot for a test's games.
    fn bot(stage: &Stage<'_>, plan: &PlayPlan) -> Bot {
        Bot::new(stage.built, Arc::clone(stage.sandbox), stage.plan.limits, plan.startup)
            .give_up_after(GIVE_UP_AFTER)
    }

    fn knowledge(&self) -> std::sync::MutexGuard<'_, Knowledge> {
        self.knowledge.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The board `root`'s games start from.
    fn start(&self, root: Root) -> Board {
        let players = crate::player::Players::classic("X", "O");
        let mut game = Board::new(players, self.plan.geometry, Storage::Auto);
        for &mv in root.opening.and_then(|i| self.openings.get(i)).map_or(&[][..], Vec::as_slice) {
            game.play_unchecked(mv);
        }
        game
    }

    /// Whether `root`'s tree under `policy` is played whole (a tree
    /// `perfect` cannot search counts as whole: nothing more can be played).
    fn complete(&self, root: Root, policy: Replies) -> bool {
        let start = self.start(root);
        self.knowledge().complete(&start, PlayerId::new(root.seat), policy).unwrap_or(true)
    }

    /// Plays `fixtures` of `test`, `jobs` at a time, learning the bot's
    /// answers from each; returns how many of them the bot played.
    fn play(&mut self, test: &'static str, fixtures: Vec<Fixture>, counted: bool) -> Result<(), EventError> {
        if test != self.bot_for {
            self.entrants[BOT] = Box::new(Self::bot(self.stage, self.plan));
            self.bot_for = test;
        }
        let event = Event {
            kind: test,
            geometry: self.plan.geometry,
            marks: vec![Mark::X, Mark::O],
            seed: self.plan.seed,
            move_time: self.plan.move_time,
            clock: None,
            sprt: None,
            entrants: &self.entrants,
            fixtures,
            openings: self.openings.clone(),
            key: self.key.clone(),
            part: None,
            stop: Some(self.stage.sandbox.stopper()),
        };
        let dir = self.stage.area.join("games").join(test);
        for result in event.run(Some(&dir), self.stage.jobs, &mut |_| ())? {
            let Some(fixture) = event.fixtures.iter().find(|f| f.number == result.number) else { continue };
            let path = dir.join(result.record.as_deref().unwrap_or(Path::new("")));
            let record = std::fs::read_to_string(&path)
                .map_err(|source| EventError::Read { path: path.clone(), source })?;
            let mut moves = Vec::new();
            if let Ok(recorded) = record::read(&record, &event.heading(fixture), event.opening(fixture)) {
                moves = move_lines(&event, &result, &recorded);
                let seat = fixture.seats.iter().position(|&who| who == BOT).unwrap_or(0);
                let forfeited = matches!(&result.ending, Ending::Forfeit { seat: s, .. } if *s == seat);
                let start = self.start(Root { seat, opening: None });
                let opening = event.opening(fixture).len();
                self.knowledge().learn(&start, &recorded.moves, opening, PlayerId::new(seat), forfeited);
            }
            self.played.push(Game { test, counted, result, record, moves });
        }
        Ok(())
    }

    /// The next game's number.
    fn next(&self) -> u64 {
        self.played.iter().map(|g| g.result.number).max().unwrap_or(0) + 1
    }

    /// Plays `roots`' trees under `policy` round by round (one game a tree
    /// still open each round) until each is whole or `budget` games are
    /// played, or `give_up` says to stop. Returns the games played.
    fn explore(
        &mut self,
        test: &'static str,
        roots: &[Root],
        policy: Replies,
        budget: u64,
        give_up: &dyn Fn(&Knowledge, u64) -> bool,
    ) -> Result<u64, EventError> {
        let opponent = if policy == Replies::Optimal { PERFECT } else { EVERY };
        let mut games = 0;
        loop {
            let open: Vec<Root> = roots.iter().copied().filter(|&r| !self.complete(r, policy)).collect();
            if open.is_empty() || games >= budget || give_up(&self.knowledge(), games) {
                return Ok(games);
            }
            let first = self.next();
            let fixtures: Vec<Fixture> = open
                .iter()
                .take(usize::try_from(budget - games).unwrap_or(usize::MAX))
                .enumerate()
                .map(|(i, root)| Fixture {
                    number: first + i as u64,
                    seats: if root.seat == 0 { vec![BOT, opponent] } else { vec![opponent, BOT] },
                    opening: root.opening,
                })
                .collect();
            games += fixtures.len() as u64;
            let learned = self.knowledge().learned();
            self.play(test, fixtures, true)?;
            if self.knowledge().learned() == learned {
                // Nothing learned: the bot was not asked (given up on, or
                // it could not start), and another round would be the same.
                return Ok(games);
            }
        }
    }

    /// `vs-perfect`'s games: every tree, as each side, from the empty board
    /// and every opening.
    fn vs_perfect(&mut self) -> Result<Proof, EventError> {
        let mut roots = vec![Root { seat: 0, opening: None }, Root { seat: 1, opening: None }];
        for i in 0..self.openings.len() {
            roots.extend([Root { seat: 0, opening: Some(i) }, Root { seat: 1, opening: Some(i) }]);
        }
        let budget = self.plan.proof_games;
        let played = self.explore(PLAY_TESTS[0], &roots, Replies::Optimal, budget, &|k, games| {
            k.varied().is_some() && games >= VARIED_GAMES
        })?;
        let whole = roots.iter().all(|&r| self.complete(r, Replies::Optimal));
        let knowledge = self.knowledge();
        let why_not = if let Some(varied) = knowledge.varied() {
            Some(format!(
                "it answered one position two ways ({} then {} on board {}), so its lines were a sample, not a proof",
                varied.first.number(),
                varied.then.number(),
                varied.board
            ))
        } else if whole {
            None
        } else {
            Some(format!(
                "the {played} games the budget allows (--proof-games) covered a sample of the lines, not all"
            ))
        };
        Ok(Proof { why_not, positions: knowledge.positions() })
    }

    /// `vs-random`'s figures: exact where the board is small and the bot
    /// answers each position one way, else sampled.
    fn vs_random(&mut self) -> Result<Figures, EventError> {
        let roots = [Root { seat: 0, opening: None }, Root { seat: 1, opening: None }];
        let why = if self.plan.geometry.cells() > EXACT_SQUARES {
            format!("exact odds are worked out on boards of up to {EXACT_SQUARES} squares")
        } else if self.knowledge().varied().is_some() {
            "it answered a position two ways, so no single tree of answers gives its odds".to_owned()
        } else {
            let before = self.played.len();
            let budget = self.plan.proof_games;
            self.explore(PLAY_TESTS[1], &roots, Replies::Every, budget, &|k, _| k.varied().is_some())?;
            let knowledge = self.knowledge();
            let start = self.start(roots[0]);
            let odds = [0, 1].map(|seat| knowledge.odds(&start, PlayerId::new(seat)));
            drop(knowledge);
            if let [Some(x), Some(o)] = odds {
                return Ok(Figures::Exact([x, o]));
            }
            // Given up: those games were not random play, and judge only
            // `legal`.
            for game in &mut self.played[before..] {
                game.counted = false;
            }
            if self.knowledge().varied().is_some() {
                "it answered a position two ways, so no single tree of answers gives its odds".to_owned()
            } else {
                "the tree of every reply was not played whole: it stopped answering, or the tree is past \
                 --proof-games"
                    .to_owned()
            }
        };
        let sampled = self.sample(PLAY_TESTS[1], RANDOM, self.plan.bars, false)?;
        Ok(Figures::Sampled { sampled, why })
    }

    /// `--versus` test `i`'s games: sampled against its engine, points
    /// counted.
    fn versus(&mut self, i: usize) -> Result<Sampled, EventError> {
        let versus = &self.plan.versus[i];
        self.sample(versus.test, VERSUS + i, versus.bars, true)
    }

    /// Sampled games of `test` against `opponent`, [`BATCH`] a side at a
    /// time, until each side's sequential test on `bars` decides or
    /// [`PlayPlan::games`] a side are played; a draw scores ½ with
    /// `draws_half`, else 0.
    fn sample(
        &mut self,
        test: &'static str,
        opponent: usize,
        bars: [f64; 2],
        draws_half: bool,
    ) -> Result<Sampled, EventError> {
        let sprt = bars.map(Sprt::for_bar);
        let mut sampled = Sampled { score: [0.0; 2], games: [0; 2], void: None };
        // A forfeit of the opponent's judges the bot only where the opponent
        // is an engine; a reference bot's own failure voids its test.
        let reference = matches!(
            opponent.checked_sub(VERSUS).and_then(|i| self.plan.versus.get(i)).map(|v| &v.opponent),
            Some(Opponent::Bot(_))
        );
        loop {
            if sampled.void.is_some() {
                return Ok(sampled);
            }
            let open: Vec<usize> = (0..2)
                .filter(|&seat| {
                    sampled.games[seat] < self.plan.sampled_games()
                        && sprt[seat].decide(sampled.score[seat], sampled.games[seat]) == Decision::Undecided
                })
                .collect();
            if open.is_empty() {
                return Ok(sampled);
            }
            let mut fixtures = Vec::new();
            let mut number = self.next();
            for &seat in &open {
                for _ in 0..BATCH.min(self.plan.sampled_games() - sampled.games[seat]) {
                    let seats = if seat == 0 { vec![BOT, opponent] } else { vec![opponent, BOT] };
                    fixtures.push(Fixture { number, seats, opening: None });
                    number += 1;
                }
            }
            let before = self.played.len();
            self.play(test, fixtures, true)?;
            for game in &self.played[before..] {
                if let Ending::Forfeit { seat, forfeit } = &game.result.ending
                    && reference
                    && *seat != game.seat()
                {
                    let forfeit = format!("{}: it forfeited: {forfeit}", game.name());
                    sampled.void.get_or_insert(forfeit);
                    continue;
                }
                sampled.games[game.seat()] += 1;
                sampled.score[game.seat()] += match game.score() {
                    Score::Win => 1.0,
                    Score::Draw if draws_half => 0.5,
                    Score::Draw | Score::Loss => 0.0,
                };
            }
        }
    }
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
            evidence: Evidence::Game { what: what.into(), moves },
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

/// The shortest of `games` (fewest moves; the first of those) the bot was
/// asked in: a game it was not asked in (given up on for time) has nothing
/// to show, so it is shown only when there is no other.
fn shortest<'a>(games: impl Iterator<Item = &'a Game>) -> Option<&'a Game> {
    games.min_by_key(|g| (g.forfeit().is_some_and(not_asked), g.result.moves, g.result.number))
}

fn vs_perfect(games: &[Game], proof: &Proof) -> TestResult {
    let ours: Vec<&Game> = games.iter().filter(|g| g.test == PLAY_TESTS[0] && g.counted).collect();
    let lost: Vec<&Game> = ours.iter().copied().filter(|g| g.score() == Score::Loss).collect();
    let played = ours.len();
    match shortest(lost.iter().copied()) {
        None => {
            let won = ours.iter().filter(|g| g.score() == Score::Win).count();
            let games = format!("{} drawn and {won} won of {played} games", played - won);
            let detail = match &proof.why_not {
                None => format!(
                    "proved: it never loses to perfect; every equally good reply of perfect's met each of its \
                     answers, from the empty board and every first move, as each side ({games}, {} positions)",
                    proof.positions
                ),
                Some(why) => format!(
                    "it never lost to perfect's equally good replies ({games}, as each side), not proved: {why}"
                ),
            };
            result(PLAY_TESTS[0], Verdict::Pass, detail, None)
        }
        Some(game) => {
            let detail =
                format!("it lost {} of {played} games to perfect; the shortest: {}", lost.len(), title(game));
            result(PLAY_TESTS[0], Verdict::Wrong, detail, Some((game, "the shortest game it lost")))
        }
    }
}

/// A share as a percentage, to two places where it needs them (`99.48%`,
/// `80%`).
fn percent(share: f64) -> String {
    let shown = format!("{:.2}", share * 100.0);
    format!("{}%", shown.trim_end_matches('0').trim_end_matches('.'))
}

fn vs_random(games: &[Game], figures: &Figures, play: &PlayPlan) -> TestResult {
    let bars = play.bars;
    let needs = format!("it needs {} as X and {} as O", percent(bars[0]), percent(bars[1]));
    let (passed, said) = match figures {
        Figures::Exact(odds) => {
            let side = |seat: usize| {
                let o = odds[seat];
                format!(
                    "as {} it wins {} (draws {}, loses {})",
                    side(seat),
                    percent(o.win),
                    percent(o.draw),
                    percent(o.loss)
                )
            };
            // A share at the bar passes, whatever the float's last bit.
            let passed = (0..2).map(|s| odds[s].win + 1e-9 >= bars[s]).collect::<Vec<_>>();
            (
                passed,
                format!("exact, from its answers against every reply: {}, {}; {needs}", side(0), side(1)),
            )
        }
        Figures::Sampled { sampled, why } => {
            let passed = sampled.passed(bars);
            let side = |seat: usize| {
                format!("as {} it won {} of {}", side(seat), sampled.score[seat], sampled.games[seat])
            };
            (
                passed,
                format!(
                    "sampled against random ({why}): {}, {}; {needs} (a sequential test: a bot at its bar, or \
                     {} below, is misjudged about {} of the time; at most {} games a side)",
                    side(0),
                    side(1),
                    percent(super::sprt::MARGIN),
                    percent(super::sprt::ERROR),
                    play.games
                ),
            )
        }
    };
    if passed.iter().all(|&p| p) {
        return result(PLAY_TESTS[1], Verdict::Pass, said, None);
    }
    let failing: Vec<usize> = (0..2).filter(|&s| !passed[s]).collect();
    let ours = games.iter().filter(|g| g.test == PLAY_TESTS[1] && failing.contains(&g.seat()));
    let game = shortest(ours.filter(|g| g.score() != Score::Win));
    let detail = match game {
        Some(game) => format!("{said}; the shortest it did not win: {}", title(game)),
        None => said,
    };
    result(PLAY_TESTS[1], Verdict::Wrong, detail, game.map(|g| (g, "the shortest game it did not win")))
}

impl Sampled {
    /// Whether each side passes its bar, by the sequential test (judged at
    /// the midpoint where the games ran out undecided).
    fn passed(&self, bars: [f64; 2]) -> Vec<bool> {
        (0..2)
            .map(|s| Sprt::for_bar(bars[s]).at_the_end(self.score[s], self.games[s]) == Decision::Pass)
            .collect()
    }
}

/// A `--versus` test's result: its points a side against its bar.
fn versus_test(
    games: &[Game],
    versus: &super::plan::Versus,
    sampled: &Sampled,
    play: &PlayPlan,
) -> TestResult {
    let name = versus.test.trim_start_matches("vs-");
    let bars = versus.bars;
    if let Some(void) = &sampled.void {
        let detail = format!(
            "the reference bot {name} failed in its own games, so they judge nothing of this bot's: {}",
            text::inert(void)
        );
        return result(versus.test, Verdict::Error, detail, None);
    }
    let side = |seat: usize| {
        format!("as {} it scored {} in {} games", side(seat), sampled.score[seat], sampled.games[seat])
    };
    let said = format!(
        "against {name} (a win 1, a draw ½): {}, {}; it needs {} as X and {} as O (a sequential test, at most {} \
         games a side)",
        side(0),
        side(1),
        percent(bars[0]),
        percent(bars[1]),
        play.sampled_games()
    );
    let passed = sampled.passed(bars);
    if passed.iter().all(|&p| p) {
        return result(versus.test, Verdict::Pass, said, None);
    }
    let failing: Vec<usize> = (0..2).filter(|&s| !passed[s]).collect();
    let ours = games.iter().filter(|g| g.test == versus.test && failing.contains(&g.seat()));
    let game = shortest(ours.filter(|g| g.score() == Score::Loss));
    let detail = match game {
        Some(game) => format!("{said}; the shortest it lost: {}", title(game)),
        None => said,
    };
    result(versus.test, Verdict::Wrong, detail, game.map(|g| (g, "the shortest game it lost")))
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
