//! Games that prove, not sample: an opponent ([`Explorer`]) that, game
//! after game, plays every reply a policy ([`Replies`]) allows, until every
//! position a bot reached has been answered and every allowed reply to each
//! answer played. What the games showed of the bot ([`Knowledge`]) is kept
//! by position, the bot protocol's own unit: a bot is told the board and
//! nothing else, so the square it answered in a position is its answer there
//! in any game, and a later game need not ask again what an earlier one
//! found. Positions met again are asked again all the same (each game is
//! played whole), and an answer that differs from the first is kept too: a
//! bot that answers one position two ways has no single tree to prove
//! ([`Knowledge::varied`]).
//!
//! On 3×3 the tree of a bot's answers against every equally good reply of
//! `perfect` from the empty board and every first move, as each side, is
//! about 150 games for a perfect bot; against every legal reply from the
//! empty board, as each side, about 400 (GUIDE.md).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::board::Square;
use crate::engine::{self, EngineError, Value};
use crate::game::{Game, Move, Outcome};
use crate::player::PlayerId;

use super::entrant::{Entrant, Finished, Forfeit, ForfeitKind, Position, Seat, Setup};

/// Which replies the explorer plays to each answer of the bot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Replies {
    /// Every move `perfect` proves as good as its best (win, draw or loss):
    /// a bot that never loses to these never loses to a perfect player.
    Optimal,
    /// Every legal move: the tree [`Knowledge::odds`] weighs against a
    /// uniformly random opponent.
    Every,
}

impl Replies {
    fn index(self) -> usize {
        match self {
            Replies::Optimal => 0,
            Replies::Every => 1,
        }
    }
}

/// A position a bot answered two ways, in two games.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Varied {
    /// The board, row by row (`X...O....`).
    pub board: String,
    /// The square it answered first.
    pub first: Square,
    /// The square it answered later.
    pub then: Square,
}

/// What a bot's games have shown: its answer to each position it was
/// asked, and which trees of replies are fully played.
#[derive(Debug, Default)]
pub struct Knowledge {
    /// Each position's answers, by its board (the bot protocol's).
    answers: HashMap<String, BTreeSet<u64>>,
    /// Positions where the bot forfeited instead of answering: the game
    /// ended there.
    forfeited: HashSet<String>,
    /// The first position answered two ways.
    varied: Option<Varied>,
    /// Positions whose tree of replies is fully played, by policy and by
    /// the bot's seat.
    complete: [[HashSet<String>; 2]; 2],
    /// `perfect`'s equally good replies, by position.
    optimal: HashMap<String, Vec<Square>>,
}

/// The odds of a bot against a uniformly random opponent, worked out from
/// its answers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Odds {
    /// The chance it wins.
    pub win: f64,
    /// The chance of a draw.
    pub draw: f64,
    /// The chance it loses (by a line of the opponent's or a forfeit).
    pub loss: f64,
}

/// A position's key: its board row by row, as the bot protocol tells it.
fn key(game: &Game) -> String {
    Position::new(game).board()
}

/// `game` after `square` is played by the player to move.
fn after(game: &Game, square: Square) -> Game {
    let mut next = game.clone();
    next.play_unchecked(Move { player: game.next_player(), square });
    next
}

impl Knowledge {
    /// An empty store, shared by the explorers of one bot's tests.
    #[must_use]
    pub fn shared() -> Arc<Mutex<Knowledge>> {
        Arc::new(Mutex::new(Knowledge::default()))
    }

    /// Learns from one game, played from `start` (the empty board of its
    /// setup) through `moves` (the opening's too): every answer of `bot`
    /// after the first `opening` moves, and, when `forfeited`, that it
    /// forfeited in the position the moves end in.
    pub fn learn(&mut self, start: &Game, moves: &[Move], opening: usize, bot: PlayerId, forfeited: bool) {
        let mut game = start.clone();
        for (at, &mv) in moves.iter().enumerate() {
            if at >= opening && mv.player == bot {
                let board = key(&game);
                let square = mv.square.index();
                let seen = self.answers.entry(board.clone()).or_default();
                if let Some(&first) = seen.iter().find(|&&s| s != square)
                    && self.varied.is_none()
                {
                    let (first, then) = (Square::from_index(first), mv.square);
                    self.varied = Some(Varied { board, first, then });
                }
                seen.insert(square);
            }
            game.play_unchecked(mv);
        }
        if forfeited && game.outcome().is_none() && game.next_player() == bot {
            self.forfeited.insert(key(&game));
        }
    }

    /// The first position the bot answered two ways, if any.
    #[must_use]
    pub fn varied(&self) -> Option<&Varied> {
        self.varied.as_ref()
    }

    /// How much the games have shown: every answer and every forfeit
    /// seen. A round of games that leaves it unchanged learned nothing (the
    /// bot was not even asked): playing on would only repeat it.
    #[must_use]
    pub fn learned(&self) -> usize {
        self.answers.values().map(BTreeSet::len).sum::<usize>() + self.forfeited.len()
    }

    /// How many positions the bot has been seen to answer.
    #[must_use]
    pub fn positions(&self) -> usize {
        self.answers.len()
    }

    /// The replies `policy` allows the player to move in `game`.
    ///
    /// # Errors
    /// [`EngineError`]: `perfect` cannot play the game (too big a board).
    pub fn replies(&mut self, game: &Game, policy: Replies) -> Result<Vec<Square>, EngineError> {
        match policy {
            Replies::Every => Ok(game.legal_moves().map(|mv| mv.square).collect()),
            Replies::Optimal => {
                let board = key(game);
                if let Some(best) = self.optimal.get(&board) {
                    return Ok(best.clone());
                }
                let values = engine::move_values(game)?;
                let rank = |v: Value| match v {
                    Value::Win => 2,
                    Value::Draw => 1,
                    Value::Loss => 0,
                };
                let top = values.iter().map(|&(_, v)| rank(v)).max().unwrap_or(0);
                let best: Vec<Square> =
                    values.into_iter().filter(|&(_, v)| rank(v) == top).map(|(s, _)| s).collect();
                self.optimal.insert(board, best.clone());
                Ok(best)
            }
        }
    }

    /// Whether the tree from `game` is fully played: every answer the bot
    /// (`bot`) gave in it followed by every reply `policy` allows, down to
    /// the games' ends.
    ///
    /// # Errors
    /// [`EngineError`]: `perfect` cannot play the game.
    pub fn complete(&mut self, game: &Game, bot: PlayerId, policy: Replies) -> Result<bool, EngineError> {
        if game.outcome().is_some() {
            return Ok(true);
        }
        let board = key(game);
        let seat = bot.index().min(1);
        if self.complete[policy.index()][seat].contains(&board) {
            return Ok(true);
        }
        let next: Vec<Square> = if game.next_player() == bot {
            // A board says whose turn it is, not who the bot is: a
            // forfeit there is the bot's only on its own turn.
            if self.forfeited.contains(&board) {
                return Ok(true);
            }
            match self.answers.get(&board) {
                None => return Ok(false),
                Some(answers) => answers.iter().map(|&s| Square::from_index(s)).collect(),
            }
        } else {
            self.replies(game, policy)?
        };
        for square in next {
            if !self.complete(&after(game, square), bot, policy)? {
                return Ok(false);
            }
        }
        self.complete[policy.index()][seat].insert(board);
        Ok(true)
    }

    /// The explorer's move in `game`: one of the replies `policy` allows
    /// whose tree is not yet fully played, drawn by `rng` (any allowed
    /// reply once every tree is).
    fn choose(
        &mut self,
        game: &Game,
        bot: PlayerId,
        policy: Replies,
        rng: &mut ChaCha8Rng,
    ) -> Result<Square, EngineError> {
        let replies = self.replies(game, policy)?;
        let mut open = Vec::new();
        for &square in &replies {
            if !self.complete(&after(game, square), bot, policy)? {
                open.push(square);
            }
        }
        let from = if open.is_empty() { &replies } else { &open };
        from.get(rng.random_range(0..from.len().max(1))).copied().ok_or(EngineError::GameOver)
    }

    /// The odds of `bot` from `game` against an opponent that plays every
    /// legal move with equal chance, worked out from its answers: `None`
    /// while some position that play reaches has no answer, or one has
    /// two.
    #[must_use]
    pub fn odds(&self, game: &Game, bot: PlayerId) -> Option<Odds> {
        let mut memo = HashMap::new();
        self.odds_from(game, bot, &mut memo)
    }

    fn odds_from(&self, game: &Game, bot: PlayerId, memo: &mut HashMap<String, Odds>) -> Option<Odds> {
        match game.outcome() {
            Some(Outcome::Win(winner)) => {
                let won = winner == bot;
                return Some(Odds {
                    win: f64::from(u8::from(won)),
                    draw: 0.0,
                    loss: f64::from(u8::from(!won)),
                });
            }
            Some(Outcome::Cat) => return Some(Odds { win: 0.0, draw: 1.0, loss: 0.0 }),
            None => {}
        }
        let board = key(game);
        if let Some(&odds) = memo.get(&board) {
            return Some(odds);
        }
        let odds = if game.next_player() == bot {
            if self.forfeited.contains(&board) {
                Odds { win: 0.0, draw: 0.0, loss: 1.0 }
            } else {
                let answers = self.answers.get(&board)?;
                let [square] = answers.iter().copied().collect::<Vec<_>>()[..] else { return None };
                self.odds_from(&after(game, Square::from_index(square)), bot, memo)?
            }
        } else {
            let replies: Vec<Square> = game.legal_moves().map(|mv| mv.square).collect();
            #[allow(clippy::cast_precision_loss, reason = "at most 64 replies")]
            let share = 1.0 / replies.len() as f64;
            let mut sum = Odds { win: 0.0, draw: 0.0, loss: 0.0 };
            for square in replies {
                let odds = self.odds_from(&after(game, square), bot, memo)?;
                sum.win += share * odds.win;
                sum.draw += share * odds.draw;
                sum.loss += share * odds.loss;
            }
            sum
        };
        memo.insert(board, odds);
        Some(odds)
    }
}

/// The opponent that plays a bot's tree: at each turn, a reply `policy`
/// allows whose tree is not yet fully played, drawn from the game's seed.
pub struct Explorer {
    name: String,
    policy: Replies,
    knowledge: Arc<Mutex<Knowledge>>,
}

impl Explorer {
    /// An explorer named `name` in records, playing `policy`'s replies to
    /// the bot whose answers `knowledge` keeps.
    #[must_use]
    pub fn new(name: impl Into<String>, policy: Replies, knowledge: Arc<Mutex<Knowledge>>) -> Explorer {
        Explorer { name: name.into(), policy, knowledge }
    }
}

impl Entrant for Explorer {
    fn name(&self) -> &str {
        &self.name
    }

    fn join(&self, setup: &Setup, seat: usize) -> Result<Box<dyn Seat>, Forfeit> {
        if setup.marks.len() != 2 {
            return Err(Forfeit::new(ForfeitKind::Limit, "it plays two-player games only"));
        }
        Ok(Box::new(ExplorerSeat {
            policy: self.policy,
            knowledge: Arc::clone(&self.knowledge),
            bot: PlayerId::new(1 - seat.min(1)),
            rng: ChaCha8Rng::seed_from_u64(setup.seed ^ seat as u64),
        }))
    }
}

struct ExplorerSeat {
    policy: Replies,
    knowledge: Arc<Mutex<Knowledge>>,
    bot: PlayerId,
    rng: ChaCha8Rng,
}

impl Seat for ExplorerSeat {
    fn answer(&mut self, position: &Position) -> Result<String, Forfeit> {
        let mut knowledge = self.knowledge.lock().unwrap_or_else(PoisonError::into_inner);
        knowledge
            .choose(position.game(), self.bot, self.policy, &mut self.rng)
            .map(|square| square.number().to_string())
            .map_err(|e| Forfeit::new(ForfeitKind::Limit, e.to_string()))
    }

    fn finish(self: Box<Self>) -> Finished {
        Finished::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::contest;
    use crate::board::{Geometry, Storage};
    use crate::player::{Mark, Players};
    use std::time::Duration;

    /// A perfect player that takes the lowest of its equally good squares
    /// (win, draw or loss): deterministic, as a proof needs.
    struct Lowest;

    impl Entrant for Lowest {
        fn name(&self) -> &'static str {
            "lowest"
        }
        fn join(&self, _: &Setup, _: usize) -> Result<Box<dyn Seat>, Forfeit> {
            Ok(Box::new(Lowest))
        }
    }

    impl Seat for Lowest {
        fn answer(&mut self, position: &Position) -> Result<String, Forfeit> {
            let best = Knowledge::default().replies(position.game(), Replies::Optimal).unwrap();
            Ok(best[0].number().to_string())
        }
        fn finish(self: Box<Self>) -> Finished {
            Finished::default()
        }
    }

    fn empty() -> Game {
        Game::new(Players::classic("X", "O"), Geometry::CLASSIC, Storage::Auto)
    }

    fn setup(game: u64) -> Setup {
        Setup {
            geometry: Geometry::CLASSIC,
            marks: vec![Mark::X, Mark::O],
            game,
            seed: game,
            move_time: Duration::from_secs(1),
            clock: None,
            waiting: Duration::ZERO,
        }
    }

    /// Plays games of `bot` (seat `seat`) against the explorer until its
    /// tree is complete; returns how many games that took.
    fn explore(bot: &dyn Entrant, seat: usize, policy: Replies, knowledge: &Arc<Mutex<Knowledge>>) -> u64 {
        let explorer = Explorer::new("explorer", policy, Arc::clone(knowledge));
        let who = PlayerId::new(seat);
        let mut games = 0;
        while !knowledge.lock().unwrap().complete(&empty(), who, policy).unwrap() {
            games += 1;
            assert!(games < 2000, "the tree never completes");
            let seats: Vec<&dyn Entrant> =
                if seat == 0 { vec![bot, &explorer] } else { vec![&explorer, bot] };
            let played = contest::play(&setup(games), &[], &seats);
            let forfeited = matches!(played.ending, contest::Ending::Forfeit { seat: s, .. } if s == seat);
            knowledge.lock().unwrap().learn(&empty(), &played.moves, 0, who, forfeited);
        }
        games
    }

    #[test]
    fn a_perfect_bot_is_proved_in_a_bounded_number_of_games() {
        let knowledge = Knowledge::shared();
        let as_x = explore(&Lowest, 0, Replies::Optimal, &knowledge);
        let as_o = explore(&Lowest, 1, Replies::Optimal, &knowledge);
        assert!(as_x > 1 && as_o > 1, "{as_x} {as_o}");
        assert!(as_x + as_o < 200, "{as_x} {as_o}");
        assert!(knowledge.lock().unwrap().varied().is_none());
    }

    #[test]
    fn every_reply_gives_exact_odds_that_match_the_figures_worked_out_by_hand() {
        // A perfect player taking the lowest of its equally good moves: against
        // uniform random play it wins 191/192 as X and 254/315 as O (worked
        // out independently by a short script over all 9! orders).
        let knowledge = Knowledge::shared();
        explore(&Lowest, 0, Replies::Every, &knowledge);
        explore(&Lowest, 1, Replies::Every, &knowledge);
        let k = knowledge.lock().unwrap();
        let x = k.odds(&empty(), PlayerId::new(0)).unwrap();
        let o = k.odds(&empty(), PlayerId::new(1)).unwrap();
        assert!((x.win - 191.0 / 192.0).abs() < 1e-12, "{x:?}");
        assert!((o.win - 254.0 / 315.0).abs() < 1e-12, "{o:?}");
        assert!(x.loss.abs() < 1e-12 && o.loss.abs() < 1e-12);
    }

    /// A bot that forfeits on the empty board as X (found by an independent
    /// check: its tree as O, whose root is the same board with the
    /// explorer to move, counted as whole and its odds were never worked
    /// out).
    #[test]
    fn a_forfeit_as_x_on_a_board_does_not_end_the_tree_where_the_explorer_moves_on_it() {
        let mut k = Knowledge::default();
        let (x, o) = (PlayerId::new(0), PlayerId::new(1));
        k.learn(&empty(), &[], 0, x, true);
        assert!(k.complete(&empty(), x, Replies::Every).unwrap());
        assert!(!k.complete(&empty(), o, Replies::Every).unwrap());
        assert_eq!(k.odds(&empty(), x), Some(Odds { win: 0.0, draw: 0.0, loss: 1.0 }));
    }

    #[test]
    fn an_answer_that_differs_in_a_later_game_is_seen() {
        let mut k = Knowledge::default();
        let x = PlayerId::new(0);
        let mv = |player, i| Move { player: PlayerId::new(player), square: Square::from_index(i) };
        k.learn(&empty(), &[mv(0, 4), mv(1, 0)], 0, x, false);
        assert!(k.varied().is_none());
        k.learn(&empty(), &[mv(0, 0)], 0, x, false);
        let varied = k.varied().unwrap();
        assert_eq!(
            (varied.board.as_str(), varied.first, varied.then),
            (".........", Square::from_index(4), Square::from_index(0))
        );
        // Two answers: no odds.
        assert!(k.odds(&empty(), x).is_none());
    }
}
