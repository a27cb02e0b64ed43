//! Playing a game: humans type squares, engines choose theirs, and the game
//! is recorded as a move file that the referee replays exactly.
//!
//! The console is any `BufRead` and `Write`, so a whole session can be
//! scripted. A human's invalid or occupied square is refused and asked for
//! again: a turn is never lost.

pub mod xtreme;

use std::fmt::Write as _;
use std::io::{self, BufRead, Write};

use crate::board::{Geometry, Storage};
use crate::engine::{Engine, EngineError, EngineKind};
use crate::game::{Game, Move, Outcome};
use crate::player::{Mark, Player, Players};
use crate::render::{Renderer, Style};

/// Who plays one side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// A person at the console.
    Human,
    /// A computer player.
    Engine(EngineKind),
}

impl Side {
    /// Parses `human`, `rules`, `minimax` or `perfect`.
    ///
    /// # Errors
    /// A message naming the accepted values.
    pub fn parse(text: &str) -> Result<Side, String> {
        match text {
            "human" => Ok(Side::Human),
            "rules" => Ok(Side::Engine(EngineKind::Rules)),
            "minimax" => Ok(Side::Engine(EngineKind::Minimax)),
            "perfect" => Ok(Side::Engine(EngineKind::Perfect)),
            _ => Err(format!("`{text}` is not a player; expected human, rules, minimax or perfect")),
        }
    }

    /// The name the recorded move file gives this side.
    fn name(self) -> &'static str {
        match self {
            Side::Human => "Human Player",
            Side::Engine(EngineKind::Rules) => "Rules Engine",
            Side::Engine(EngineKind::Minimax) => "Minimax Engine",
            Side::Engine(EngineKind::Perfect) => "Perfect Engine",
        }
    }
}

/// A game as it was played.
#[derive(Clone, Debug)]
pub struct Played {
    /// The game at its end (or where the console's input ran out).
    pub game: Game,
    /// The valid moves, in order.
    pub moves: Vec<Move>,
    /// The two sides, X first.
    pub sides: [Side; 2],
}

impl Played {
    /// The game as a move file: refereed, it replays move for move.
    #[must_use]
    pub fn move_file(&self) -> String {
        let mut text = format!("Tic-Tac-Toe Game Data\n{}\n", self.game.players());
        let geometry = self.game.board().geometry();
        if geometry == Geometry::CLASSIC {
            text.push('\n');
        } else {
            writeln!(text, "Board: {geometry}").expect("writing to a String");
            text.push('\n');
        }
        for mv in &self.moves {
            let mark = self.game.players().get(mv.player).mark;
            writeln!(text, "{mark}\t{}", mv.square.number()).expect("writing to a String");
        }
        text
    }
}

/// Plays one game on `geometry` between `sides` (X first), talking to the
/// console through `input` and `output`. Engine randomness comes from `seed`.
///
/// # Errors
/// An engine that cannot play this game, or a console I/O error. If `input`
/// ends during a human's turn, the game stops there, unfinished.
pub fn play(
    sides: [Side; 2],
    geometry: Geometry,
    seed: u64,
    input: &mut impl BufRead,
    output: &mut impl Write,
) -> Result<Played, PlayError> {
    let mut game = Game::new(players(sides), geometry, Storage::Auto);
    let mut engines = engines(sides, seed);
    let renderer = Renderer::new(Style::Classic, game.players());
    let mut moves = Vec::new();
    let mut line = String::new();

    show(&renderer, &game, output)?;
    while game.outcome().is_none() {
        let player = game.next_player();
        let mark = game.players().get(player).mark;
        let square = match &mut engines[player.index()] {
            Some(engine) => {
                let square = engine.choose(&game)?.square;
                writeln!(output, "{mark} plays {}", square.number())?;
                square
            }
            None => loop {
                write!(output, "{mark} to move (1-{}): ", geometry.cells())?;
                output.flush()?;
                line.clear();
                if input.read_line(&mut line)? == 0 {
                    writeln!(output)?;
                    return Ok(Played { game, moves, sides });
                }
                match geometry.parse_square(line.trim()) {
                    Some(s) if game.board().get(s).is_none() => break s,
                    Some(_) => writeln!(output, "Square {} is taken; choose another.", line.trim())?,
                    None => writeln!(output, "Enter a square from 1 to {}.", geometry.cells())?,
                }
            },
        };
        let mv = Move { player, square };
        game.play_unchecked(mv);
        moves.push(mv);
        show(&renderer, &game, output)?;
    }
    match game.outcome() {
        Some(Outcome::Win(p)) => writeln!(output, "{} wins.", game.players().get(p).mark)?,
        _ => writeln!(output, "Cat's game: a draw.")?,
    }
    Ok(Played { game, moves, sides })
}

/// X and O, named for who plays them.
fn players(sides: [Side; 2]) -> Players {
    Players::new(
        [(Mark::X, sides[0]), (Mark::O, sides[1])]
            .into_iter()
            .map(|(mark, side)| Player { mark, name: side.name().to_owned() })
            .collect(),
    )
    .expect("two distinct marks")
}

/// Each side's engine (none for a person): X's seeded with `seed`, O's with
/// `seed + 1`.
fn engines(sides: [Side; 2], seed: u64) -> [Option<Engine>; 2] {
    [0, 1].map(|i| match sides[i] {
        Side::Engine(kind) => Some(Engine::new(kind, seed.wrapping_add(i as u64))),
        Side::Human => None,
    })
}

/// Shows the board and a blank line: the default console's layout, and
/// seeds/003's (Python's `print(render_board(board))`).
fn show(renderer: &Renderer, game: &Game, output: &mut impl Write) -> io::Result<()> {
    let mut board = Vec::new();
    renderer.board(game.board(), &mut board);
    output.write_all(&board)?;
    writeln!(output)
}

/// Why a game could not be played.
#[derive(Debug, thiserror::Error)]
pub enum PlayError {
    /// An engine cannot play this game.
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// The console failed.
    #[error("console: {0}")]
    Io(#[from] io::Error),
}

/// Whether either side is a person.
#[must_use]
pub fn has_human(sides: [Side; 2]) -> bool {
    sides.contains(&Side::Human)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::referee::{Options, referee};

    #[test]
    fn a_human_is_asked_again_until_the_square_is_free() {
        // X: 0 and abc are no squares; 5 is taken. O (rules) answers the
        // centre with a corner, then blocks 2-5-8. Input ends on X's turn.
        let sides = [Side::Human, Side::Engine(EngineKind::Rules)];
        let mut input = &b"0\nabc\n5\n5\n2\n"[..];
        let mut output = Vec::new();
        let played = play(sides, Geometry::CLASSIC, 0, &mut input, &mut output).unwrap();
        let text = String::from_utf8(output).unwrap();
        assert_eq!(text.matches("Enter a square from 1 to 9.\n").count(), 2, "{text}");
        assert_eq!(text.matches("Square 5 is taken; choose another.\n").count(), 1, "{text}");
        let squares: Vec<u64> = played.moves.iter().map(|m| m.square.number()).collect();
        assert_eq!(squares.len(), 4, "{text}");
        assert_eq!((squares[0], squares[2], squares[3]), (5, 2, 8));
        assert!([1, 3, 7, 9].contains(&squares[1]));
        assert_eq!(played.game.outcome(), None);
    }

    #[test]
    fn a_recorded_game_replays_exactly() {
        let sides = [Side::Engine(EngineKind::Rules), Side::Engine(EngineKind::Perfect)];
        let played = play(sides, Geometry::new(4, 4, 3).unwrap(), 9, &mut &b""[..], &mut io::sink()).unwrap();
        let report = referee(played.move_file().as_bytes(), io::sink(), &Options::default()).unwrap();
        assert_eq!(report.violations, 0);
        assert_eq!(report.game.outcome(), played.game.outcome());
        assert_eq!(report.game.moves_made(), played.moves.len() as u64);
    }
}
