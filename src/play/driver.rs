//! The one turn loop every console shares: it owns the game, the engines,
//! the turns, the end of the input and the record. A profile's
//! [`Dialogue`] supplies only what differs: the setup questions, how the
//! board is shown, how a square is asked for and refused, and what is
//! announced.

use super::{Console, Forfeited, PlayError, Played, Program, Side, Thinking, engines, players};
use crate::board::{Geometry, Square, Storage};
use crate::engine::Engine;
use crate::game::{Game, Move, Outcome, Violation};
use crate::player::Players;

/// A game as a console sets it up: who plays, and on what board.
#[derive(Clone, Debug)]
pub struct Setup {
    /// The players, in turn order.
    pub players: Players,
    /// Who plays each of them, in the same order.
    pub sides: Vec<Side>,
    /// The board.
    pub geometry: Geometry,
    /// How the board keeps its marks.
    pub storage: Storage,
}

impl Setup {
    /// X and O played by `sides` on `geometry`, named for who plays them.
    #[must_use]
    pub fn two(sides: [Side; 2], geometry: Geometry) -> Setup {
        Setup { players: players(sides), sides: sides.to_vec(), geometry, storage: Storage::Auto }
    }
}

/// What a person answered when asked for a square.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    /// A square on the board (the rules have not yet ruled on it).
    Square(Square),
    /// Something that names no square on the board.
    Unreadable,
    /// The input ended.
    End,
}

/// Why a person's answer was refused; the same person is asked again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The answer named no square on the board.
    Unreadable,
    /// The square breaks a rule (it is taken).
    Broke(Violation),
}

/// What one console says and reads; the [`Driver`] asks for each part in
/// turn. `game` is always the game as it stands, its next player the one to
/// move.
pub trait Dialogue {
    /// Asks the setup questions: `None` if the input ends first.
    ///
    /// # Errors
    /// A console I/O error.
    fn setup(&mut self) -> Result<Option<Setup>, PlayError>;

    /// Shown once the engines have been checked, before the first turn.
    ///
    /// # Errors
    /// A console I/O error.
    fn begin(&mut self, _game: &Game) -> Result<(), PlayError> {
        Ok(())
    }

    /// Shown at the start of every turn (typically the board).
    ///
    /// # Errors
    /// A console I/O error.
    fn turn(&mut self, game: &Game) -> Result<(), PlayError>;

    /// A computer player's square: the engine's choice unless the profile's
    /// program chooses its own way.
    ///
    /// # Errors
    /// The engine cannot play this game.
    fn choose(&mut self, game: &Game, engine: &mut Engine) -> Result<Square, PlayError> {
        Ok(engine.choose(game)?.square)
    }

    /// Announces a computer player's move, before it is played.
    ///
    /// # Errors
    /// A console I/O error.
    fn announce(&mut self, game: &Game, mv: Move) -> Result<(), PlayError>;

    /// Asks the person to move for a square and reads the answer.
    ///
    /// # Errors
    /// A console I/O error.
    fn ask(&mut self, game: &Game) -> Result<Answer, PlayError>;

    /// Says that a seated program forfeited the game, and why (the game
    /// ends there). Only the default console seats programs.
    ///
    /// # Errors
    /// A console I/O error.
    fn forfeit(&mut self, _game: &Game, _forfeited: &Forfeited) -> Result<(), PlayError> {
        Ok(())
    }

    /// Says why the last answer was refused, before it is asked again.
    ///
    /// # Errors
    /// A console I/O error.
    fn refuse(&mut self, game: &Game, why: Refusal) -> Result<(), PlayError>;

    /// Shown when the input ends during a person's turn: the game stops
    /// there, unfinished.
    ///
    /// # Errors
    /// A console I/O error.
    fn input_ended(&mut self) -> Result<(), PlayError>;

    /// Shown when the game ends.
    ///
    /// # Errors
    /// A console I/O error.
    fn end(&mut self, game: &Game, outcome: Outcome) -> Result<(), PlayError>;

    /// Asked after a finished game: whether to play another. Profiles whose
    /// program played one game say no without asking.
    ///
    /// # Errors
    /// A console I/O error.
    fn again(&mut self) -> Result<bool, PlayError> {
        Ok(false)
    }
}

/// Who decides a computer player's square in place of the console's own
/// choice: given the game and that choice, the square to play. Grading
/// replays a program's own computer moves through it, to see whether the
/// assignment allows them.
pub type Chooser = Box<dyn FnMut(&Game, Square) -> Square>;

/// The programs seated at a console: one for each side that is a
/// [`Side::Program`], by the side's place in turn order.
pub type Seated = Vec<Option<Box<dyn Program>>>;

/// A console: one profile's [`Dialogue`] driven through whole games.
pub struct Driver<D> {
    dialogue: D,
    thinking: Thinking,
    chooser: Option<Chooser>,
    programs: Seated,
}

impl<D: std::fmt::Debug> std::fmt::Debug for Driver<D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Driver")
            .field("dialogue", &self.dialogue)
            .field("thinking", &self.thinking)
            .field("chooser", &self.chooser.is_some())
            .field(
                "programs",
                &self.programs.iter().map(|p| p.as_ref().map(|p| p.name())).collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl<D: Dialogue> Driver<D> {
    /// Drives `dialogue`, the `perfect` engine thinking without a time limit
    /// or a spinner.
    pub fn new(dialogue: D) -> Driver<D> {
        Driver { dialogue, thinking: Thinking::default(), chooser: None, programs: Vec::new() }
    }

    /// `programs` play the sides that are [`Side::Program`]s.
    #[must_use]
    pub fn seating(mut self, programs: Seated) -> Driver<D> {
        self.programs = programs;
        self
    }

    /// Computer players' squares decided by `chooser` (given the console's
    /// own choice), not by the console.
    #[must_use]
    pub fn choosing(mut self, chooser: Chooser) -> Driver<D> {
        self.chooser = Some(chooser);
        self
    }

    /// How long `perfect` may think, for profiles that may play it.
    #[must_use]
    pub fn thinking(mut self, thinking: Thinking) -> Driver<D> {
        self.thinking = thinking;
        self
    }

    /// Plays one game set up as `setup`, engine randomness from `seed`.
    ///
    /// # Errors
    /// An engine that cannot play this game (said before the first move), an
    /// engine's move the rules refuse, or a console I/O error. If the input
    /// ends during a person's turn, the game stops there, unfinished.
    pub fn play(&mut self, setup: Setup, seed: u64) -> Result<Played, PlayError> {
        let played = self.play_seated(setup, seed);
        for program in self.programs.iter_mut().flatten() {
            program.finish();
        }
        played
    }

    /// [`Driver::play`], the seated programs left to finish.
    fn play_seated(&mut self, setup: Setup, seed: u64) -> Result<Played, PlayError> {
        let Setup { players, sides, geometry, storage } = setup;
        let mut engines = engines(&sides, seed, self.thinking);
        let players = self.named(players, &sides)?;
        let mut game = Game::new(players, geometry, storage);
        for engine in engines.iter().flatten() {
            engine.check(&game)?;
        }
        let dialogue = &mut self.dialogue;
        let mut moves = Vec::new();
        dialogue.begin(&game)?;
        while game.outcome().is_none() {
            dialogue.turn(&game)?;
            let player = game.next_player();
            let mv = if let Some(engine) = &mut engines[player.index()] {
                let mut square = dialogue.choose(&game, engine)?;
                if let Some(chooser) = &mut self.chooser {
                    square = chooser(&game, square);
                }
                let mv = Move { player, square };
                dialogue.announce(&game, mv)?;
                game.try_play(mv)
                    .map_err(|violation| PlayError::EngineMove { square: mv.square.number(), violation })?;
                mv
            } else if let Some(Some(program)) = self.programs.get_mut(player.index()) {
                match program.answer(&game, seed) {
                    Ok(square) => {
                        let mv = Move { player, square };
                        dialogue.announce(&game, mv)?;
                        game.try_play(mv).map_err(|violation| PlayError::EngineMove {
                            square: mv.square.number(),
                            violation,
                        })?;
                        mv
                    }
                    Err(forfeited) => {
                        dialogue.forfeit(&game, &forfeited)?;
                        return Ok(Played { game, moves, forfeit: Some((player, forfeited)) });
                    }
                }
            } else {
                loop {
                    let refusal = match dialogue.ask(&game)? {
                        Answer::End => {
                            dialogue.input_ended()?;
                            return Ok(Played { game, moves, forfeit: None });
                        }
                        Answer::Unreadable => Refusal::Unreadable,
                        Answer::Square(square) => match game.try_play(Move { player, square }) {
                            Ok(_) => break Move { player, square },
                            Err(violation) => Refusal::Broke(violation),
                        },
                    };
                    dialogue.refuse(&game, refusal)?;
                }
            };
            moves.push(mv);
        }
        if let Some(outcome) = game.outcome() {
            dialogue.end(&game, outcome)?;
        }
        Ok(Played { game, moves, forfeit: None })
    }

    /// `players`, each of `sides` that is a program seated named as the program
    /// is (white space, control characters and `:` made `_`, so the
    /// players line reads back; made inert, as a record's names are).
    ///
    /// # Errors
    /// [`PlayError::NoProgram`]: a program's side with none seated.
    fn named(&self, players: Players, sides: &[Side]) -> Result<Players, PlayError> {
        let mut named = Vec::with_capacity(sides.len());
        for (i, ((_, player), side)) in players.iter().zip(sides).enumerate() {
            let mut player = player.clone();
            if *side == Side::Program {
                let Some(Some(program)) = self.programs.get(i) else {
                    return Err(PlayError::NoProgram { mark: player.mark });
                };
                let name: String = program
                    .name()
                    .chars()
                    .map(|c| if c.is_whitespace() || c.is_control() || c == ':' { '_' } else { c })
                    .collect();
                player.name = crate::text::inert(&name).into_owned();
                if player.name.is_empty() {
                    player.name.push('_');
                }
            }
            named.push(player);
        }
        Ok(Players::new(named).unwrap_or(players))
    }
}

impl<D: Dialogue> Console for Driver<D> {
    fn game(&mut self, seed: u64) -> Result<Option<Played>, PlayError> {
        let Some(setup) = self.dialogue.setup()? else { return Ok(None) };
        self.play(setup, seed).map(Some)
    }

    fn again(&mut self) -> Result<bool, PlayError> {
        self.dialogue.again()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{EngineError, EngineKind};

    /// A dialogue that logs what the driver asks of it, answers from a list,
    /// and (if told) has its computer player take square 1 every time.
    #[derive(Default)]
    struct Log {
        sides: Vec<Side>,
        geometry: Option<Geometry>,
        answers: Vec<Answer>,
        stubborn: bool,
        said: Vec<String>,
    }

    impl Dialogue for Log {
        fn setup(&mut self) -> Result<Option<Setup>, PlayError> {
            let sides = [self.sides[0], self.sides[1]];
            Ok(Some(Setup::two(sides, self.geometry.unwrap_or(Geometry::CLASSIC))))
        }
        fn begin(&mut self, _: &Game) -> Result<(), PlayError> {
            self.said.push("begin".into());
            Ok(())
        }
        fn turn(&mut self, game: &Game) -> Result<(), PlayError> {
            self.said.push(format!("turn {}", game.moves_made()));
            Ok(())
        }
        fn choose(&mut self, game: &Game, engine: &mut Engine) -> Result<Square, PlayError> {
            if self.stubborn {
                return Ok(Square::from_index(0));
            }
            Ok(engine.choose(game)?.square)
        }
        fn announce(&mut self, _: &Game, mv: Move) -> Result<(), PlayError> {
            self.said.push(format!("plays {}", mv.square.number()));
            Ok(())
        }
        fn ask(&mut self, _: &Game) -> Result<Answer, PlayError> {
            Ok(if self.answers.is_empty() { Answer::End } else { self.answers.remove(0) })
        }
        fn refuse(&mut self, _: &Game, why: Refusal) -> Result<(), PlayError> {
            self.said.push(format!("refused {why:?}"));
            Ok(())
        }
        fn input_ended(&mut self) -> Result<(), PlayError> {
            self.said.push("ended".into());
            Ok(())
        }
        fn end(&mut self, _: &Game, outcome: Outcome) -> Result<(), PlayError> {
            self.said.push(format!("end {outcome:?}"));
            Ok(())
        }
        fn forfeit(&mut self, _: &Game, forfeited: &Forfeited) -> Result<(), PlayError> {
            self.said.push(format!("forfeit {}", forfeited.why));
            Ok(())
        }
    }

    /// A program that answers from a list (then forfeits, the last answer
    /// refused), and counts the games it was let go.
    struct Listed {
        name: &'static str,
        squares: Vec<u64>,
        seeds: Vec<u64>,
        finished: std::rc::Rc<std::cell::Cell<u32>>,
    }

    impl Program for Listed {
        fn name(&self) -> &str {
            self.name
        }
        fn answer(&mut self, _: &Game, seed: u64) -> Result<Square, Forfeited> {
            self.seeds.push(seed);
            match self.squares.first().copied() {
                Some(n) => {
                    self.squares.remove(0);
                    Ok(Square::from_index(n - 1))
                }
                None => Err(Forfeited { why: "time: no answer".into(), refused: Some("5".into()) }),
            }
        }
        fn finish(&mut self) {
            self.finished.set(self.finished.get() + 1);
        }
    }

    #[test]
    fn a_seated_program_plays_its_side_and_its_forfeit_ends_the_game() {
        let at = |n: u64| Answer::Square(Square::from_index(n - 1));
        let finished = std::rc::Rc::new(std::cell::Cell::new(0));
        let log =
            Log { sides: vec![Side::Human, Side::Program], answers: vec![at(5), at(1)], ..Log::default() };
        let program = Listed {
            name: "ann b:\u{202e}",
            squares: vec![9],
            seeds: Vec::new(),
            finished: finished.clone(),
        };
        let mut driver = Driver::new(log).seating(vec![None, Some(Box::new(program))]);
        let played = driver.game(7).unwrap().unwrap();
        assert_eq!(played.moves.iter().map(|m| m.square.number()).collect::<Vec<_>>(), [5, 9, 1]);
        assert!(played.is_finished(), "a forfeit finishes the game");
        assert_eq!(
            played.forfeit.as_ref().map(|(p, f)| (p.index(), f.why.as_str())),
            Some((1, "time: no answer"))
        );
        assert_eq!(driver.dialogue.said.last().map(String::as_str), Some("forfeit time: no answer"));
        assert_eq!(finished.get(), 1, "let go once the game is over");
        assert_eq!(
            played.move_file(),
            "Tic-Tac-Toe Game Data: O forfeits (time: no answer)\nX: Human Player O: ann_b_\\u{202e}\n\nX\t5\nO\t9\nX\t1\nO\t5\n"
        );
        // A program's side with no program seated is the caller's mistake.
        let log = Log { sides: vec![Side::Program, Side::Human], ..Log::default() };
        let error = Driver::new(log).game(0).unwrap_err();
        assert_eq!(error.to_string(), "X is to be played by a program, but none was seated there");
    }

    #[test]
    fn the_rules_refuse_a_taken_square_and_the_person_is_asked_again() {
        let at = |n: u64| Answer::Square(Square::from_index(n - 1));
        let log = Log {
            sides: vec![Side::Human, Side::Human],
            answers: vec![at(5), Answer::Unreadable, at(5), at(1)],
            ..Log::default()
        };
        let mut driver = Driver::new(log);
        let played = driver.game(0).unwrap().unwrap();
        assert_eq!(played.moves.len(), 2);
        assert!(!played.is_finished());
        assert_eq!(
            driver.dialogue.said,
            [
                "begin",
                "turn 0",
                "turn 1",
                "refused Unreadable",
                "refused Broke(MarkedSquare)",
                "turn 2",
                "ended"
            ]
        );
    }

    #[test]
    fn engines_are_checked_before_anything_is_shown() {
        let log = Log {
            sides: vec![Side::Human, Side::Engine(EngineKind::Perfect)],
            geometry: Some(Geometry::new(9, 9, 3).unwrap()),
            ..Log::default()
        };
        let mut driver = Driver::new(log);
        let error = driver.game(0).unwrap_err();
        assert!(matches!(error, PlayError::Engine(EngineError::BoardTooBig { .. })), "{error:?}");
        assert_eq!(error.to_string(), "the perfect engine plays boards of up to 64 squares; this one has 81");
        assert!(driver.dialogue.said.is_empty(), "{:?}", driver.dialogue.said);
    }

    #[test]
    fn a_computer_players_move_the_rules_refuse_is_an_error() {
        let log = Log {
            sides: vec![Side::Engine(EngineKind::Rules), Side::Engine(EngineKind::Rules)],
            stubborn: true,
            ..Log::default()
        };
        let error = Driver::new(log).game(0).unwrap_err();
        assert_eq!(error.to_string(), "a computer player chose square 1, which breaks a rule: marked square");
    }

    #[test]
    fn a_finished_game_is_announced_once() {
        let log = Log {
            sides: vec![Side::Engine(EngineKind::Perfect), Side::Engine(EngineKind::Perfect)],
            ..Log::default()
        };
        let mut driver = Driver::new(log);
        let played = driver.game(3).unwrap().unwrap();
        assert_eq!(played.game.outcome(), Some(Outcome::Cat));
        assert_eq!(driver.dialogue.said.last().map(String::as_str), Some("end Cat"));
        assert_eq!(driver.dialogue.said.iter().filter(|s| s.starts_with("turn")).count(), 9);
        assert!(!driver.again().unwrap());
    }
}
