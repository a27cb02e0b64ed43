//! Playing a game: humans type squares, engines choose theirs, and the game
//! is recorded as a move file that the referee replays exactly.
//!
//! The console is any `BufRead` and `Write`, so a whole session can be
//! scripted. A human's invalid or occupied square is refused and asked for
//! again: a turn is never lost. Each [`Profile`] is one console: the default
//! one, or an original assignment's own prompts and messages. One [`Driver`] plays
//! every console's games (the turns, the engines, the end of the input, the
//! record); a profile's [`Dialogue`] says and reads only what is its own.

#[cfg(feature = "cli")]
pub mod chance;
pub mod dialect;
mod driver;
pub mod extended;
pub mod judge;
pub mod plain;
mod profile;
pub mod program;
pub mod scripts;
pub mod smalltalk;
pub mod uri;
pub mod xtreme;

use std::io::{self, BufRead, Read as _, Write};
use std::time::Duration;

use crate::board::Geometry;
use crate::engine::{Engine, EngineError, EngineKind};
use crate::game::{Game, Move, Violation};
use crate::movefile;
use crate::player::{Mark, Player, PlayerId, Players};
use crate::render::Renderer;

pub use dialect::{Dialect, Setting};
pub use driver::{Answer, Chooser, Dialogue, Driver, Refusal, Seated, Setup};
pub use plain::Plain;
pub use profile::Profile;
pub use program::{Forfeited, Program};

/// Who plays one side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// A person at the console.
    Human,
    /// A computer player.
    Engine(EngineKind),
    /// A [`Program`] the console's maker seats (a bot), asked for each of
    /// its moves; only the default console seats one.
    Program,
}

impl Side {
    /// Parses `human`, or an engine's name: `rules`, `minimax`, `perfect`,
    /// `strong` or `random`.
    ///
    /// # Errors
    /// A message naming the accepted values.
    pub fn parse(text: &str) -> Result<Side, String> {
        match text {
            "human" => Ok(Side::Human),
            _ => EngineKind::from_name(text).map(Side::Engine).ok_or_else(|| {
                format!("`{text}` is not a player; expected human, rules, minimax, perfect, strong or random")
            }),
        }
    }

    /// The name the recorded move file gives this side.
    fn name(self) -> &'static str {
        match self {
            Side::Human => "Human Player",
            Side::Engine(EngineKind::Rules) => "Rules Engine",
            Side::Engine(EngineKind::Minimax) => "Minimax Engine",
            Side::Engine(EngineKind::Perfect) => "Perfect Engine",
            Side::Engine(EngineKind::Random) => "Random Engine",
            Side::Engine(EngineKind::Strong) => "Strong Engine",
            // The program's own name replaces it once it is seated.
            Side::Program => "Program",
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
    /// The program that forfeited the game, and why, if one did.
    pub forfeit: Option<(PlayerId, Forfeited)>,
}

impl Played {
    /// The game as a move file: refereed, it replays move for move. A
    /// program's forfeit is said in the title, and an answer that was no
    /// free square is its last line (the referee rules it illegal).
    #[must_use]
    pub fn move_file(&self) -> String {
        let players = self.game.players();
        let title = match &self.forfeit {
            None => "Tic-Tac-Toe Game Data".to_owned(),
            Some((player, forfeited)) => {
                format!("Tic-Tac-Toe Game Data: {} forfeits ({})", players.get(*player).mark, forfeited.why)
            }
        };
        let mut text = movefile::header(&title, players, self.game.board().geometry());
        for mv in &self.moves {
            movefile::move_line(&mut text, &players.get(mv.player).mark, &mv.square.number());
        }
        if let Some((player, Forfeited { refused: Some(square), .. })) = &self.forfeit {
            movefile::move_line(&mut text, &players.get(*player).mark, square);
        }
        text
    }

    /// Whether the game ended (rather than the input running out): won,
    /// drawn or forfeited.
    #[must_use]
    pub fn is_finished(&self) -> bool {
        self.game.outcome().is_some() || self.forfeit.is_some()
    }
}

/// A session at one console: it sets up each game, plays it, and asks
/// whether to play another.
pub trait Console {
    /// Plays one game, engine randomness from `seed`. `None` if the input
    /// ended before the game began.
    ///
    /// # Errors
    /// An engine that cannot play the game, or a console I/O error.
    fn game(&mut self, seed: u64) -> Result<Option<Played>, PlayError>;

    /// Asked after a finished game: whether to play another. Profiles whose
    /// program played one game say no without asking.
    ///
    /// # Errors
    /// A console I/O error.
    fn again(&mut self) -> Result<bool, PlayError>;
}

/// Plays games on `console` as `play` does, until the input ends or a
/// player declines another: game N's engines are seeded with
/// `seed + 2(N-1)`, and `each` receives every game played, numbered from 1.
///
/// # Errors
/// The console's errors, or the first error `each` returns.
pub fn session<E: From<PlayError>>(
    console: &mut dyn Console,
    seed: u64,
    mut each: impl FnMut(u64, &Played) -> Result<(), E>,
) -> Result<(), E> {
    for number in 1u64.. {
        // `None`: the input ended before a game began.
        let Some(played) = console.game(seed.wrapping_add(2 * (number - 1)))? else { break };
        each(number, &played)?;
        if !played.is_finished() || !console.again()? {
            break;
        }
    }
    Ok(())
}

/// Plays one game on `geometry` between `sides` (X first) at the default
/// console, talking to it through `input` and `output`. Engine randomness
/// comes from `seed`, and `perfect` thinks as `thinking` allows.
///
/// # Errors
/// An engine that cannot play this game, or a console I/O error. If `input`
/// ends during a human's turn, the game stops there, unfinished.
pub fn play(
    sides: [Side; 2],
    thinking: Thinking,
    geometry: Geometry,
    seed: u64,
    input: &mut impl BufRead,
    output: &mut impl Write,
) -> Result<Played, PlayError> {
    Driver::new(Plain::new(sides, geometry, input, output))
        .thinking(thinking)
        .play(Setup::two(sides, geometry), seed)
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

/// How long the `perfect` engine may think over a move, how much memory its
/// table may take, and what watches a long search (the command line's
/// spinner).
#[derive(Clone, Copy, Debug)]
pub struct Thinking {
    /// The search time per move (`None`: until the value is proven).
    pub time_limit: Option<Duration>,
    /// The transposition table's size, in MiB, which bounds the search's memory.
    pub hash_mb: u32,
    /// Makes, for each engine, what is told how its searches go.
    pub watcher: Option<fn() -> Watcher>,
}

impl Default for Thinking {
    /// No time limit, the default table, nothing watching.
    fn default() -> Thinking {
        Thinking { time_limit: None, hash_mb: crate::engine::DEFAULT_HASH_MB, watcher: None }
    }
}

pub use crate::engine::Watcher;

impl Thinking {
    /// A new engine of `kind`, seeded with `seed`, thinking this way.
    #[must_use]
    pub fn engine(self, kind: EngineKind, seed: u64) -> Engine {
        let engine = Engine::new(kind, seed).time_limit(self.time_limit).hash_mb(self.hash_mb);
        match self.watcher {
            Some(watcher) => engine.on_progress(watcher()),
            None => engine,
        }
    }
}

/// Each side's engine (none for a person): the first player's seeded with
/// `seed`, the next with `seed + 1`, and so on.
fn engines(sides: &[Side], seed: u64, thinking: Thinking) -> Vec<Option<Engine>> {
    (0u64..)
        .zip(sides)
        .map(|(i, side)| match side {
            Side::Engine(kind) => Some(thinking.engine(*kind, seed.wrapping_add(i))),
            Side::Human | Side::Program => None,
        })
        .collect()
}

/// Shows the board and a blank line: the default console's layout, StFX asn3's
/// (Python's `print(render_board(board))`) and Clemson CPSC 2150's (Java's
/// `System.out.println(board)`).
fn show(renderer: &Renderer, game: &Game, output: &mut impl Write) -> io::Result<()> {
    let mut board = Vec::new();
    renderer.board(game.board(), &mut board);
    output.write_all(&board)?;
    writeln!(output)
}

/// The longest line a console reads at once; the rest of a longer one is
/// read as the next line. It keeps memory flat whatever is piped in.
const MAX_LINE: u64 = 64 * 1024;

/// Reads one line of the console into `line` (replacing its contents, bytes
/// that are not UTF-8 replaced). `false` at the end of the input.
fn read_line(input: &mut impl BufRead, line: &mut String) -> Result<bool, PlayError> {
    let mut bytes = Vec::new();
    let read = input.take(MAX_LINE).read_until(b'\n', &mut bytes).map_err(PlayError::Input)?;
    line.clear();
    line.push_str(&String::from_utf8_lossy(&bytes));
    Ok(read > 0)
}

/// Reads the console a word at a time, as Java's `Scanner.next()` and C++'s
/// `cin >>` do: words are separated by whitespace, lines included.
struct Words<R> {
    input: R,
    line: String,
    /// Where the unread part of `line` starts.
    at: usize,
}

impl<R: BufRead> Words<R> {
    fn new(input: R) -> Words<R> {
        Words { input, line: String::new(), at: 0 }
    }

    /// The next word, reading lines as needed; `None` at the end of the input.
    fn next(&mut self) -> Result<Option<String>, PlayError> {
        loop {
            let rest = &self.line[self.at..];
            if let Some(start) = rest.find(|c: char| !c.is_whitespace()) {
                let word = &rest[start..];
                let len = word.find(char::is_whitespace).unwrap_or(word.len());
                self.at += start + len;
                return Ok(Some(word[..len].to_owned()));
            }
            self.at = 0;
            if !read_line(&mut self.input, &mut self.line)? {
                return Ok(None);
            }
        }
    }
}

/// Why a game could not be played.
#[derive(Debug, thiserror::Error)]
pub enum PlayError {
    /// An engine cannot play this game.
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// A computer player chose a move the rules refuse (a bug in it).
    #[error("a computer player chose square {square}, which breaks a rule: {violation}")]
    EngineMove {
        /// The square chosen, numbered from 1.
        square: u64,
        /// The rule it breaks.
        violation: Violation,
    },
    /// The console's input could not be read.
    #[error("cannot read the console: {0}")]
    Input(#[source] io::Error),
    /// The console's output could not be written.
    #[error("cannot write the console: {0}")]
    Output(#[from] io::Error),
    /// A side is a program, but none was seated there (the caller's
    /// mistake), or this console seats none.
    #[error("{mark} is to be played by a program, but none was seated there")]
    NoProgram {
        /// The side's mark.
        mark: Mark,
    },
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
        let played = play(sides, Thinking::default(), Geometry::CLASSIC, 0, &mut input, &mut output).unwrap();
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
    fn words_cross_lines_as_a_scanner_reads_them() {
        let mut words = Words::new(&b"  2 x\n\n\tO  junk more\nlast"[..]);
        let mut next = || words.next().unwrap();
        assert_eq!(next().as_deref(), Some("2"));
        assert_eq!(next().as_deref(), Some("x"));
        assert_eq!(next().as_deref(), Some("O"));
        assert_eq!(next().as_deref(), Some("junk"));
        assert_eq!(next().as_deref(), Some("more"));
        assert_eq!(next().as_deref(), Some("last"));
        assert_eq!(words.next().unwrap(), None);
        assert_eq!(words.next().unwrap(), None);
    }

    #[test]
    fn a_console_line_is_capped_and_need_not_be_utf8() {
        let long = vec![b'7'; usize::try_from(MAX_LINE).unwrap() + 10];
        let mut input = &long[..];
        let mut line = String::new();
        assert!(read_line(&mut input, &mut line).unwrap());
        assert_eq!(line.len() as u64, MAX_LINE);
        assert!(read_line(&mut input, &mut line).unwrap());
        assert_eq!(line, "7".repeat(10));
        assert!(!read_line(&mut input, &mut line).unwrap());
        assert_eq!(line, "");

        let mut input = &b"\xff5\n"[..];
        assert!(read_line(&mut input, &mut line).unwrap());
        assert_eq!(line, "\u{fffd}5\n");
    }

    #[test]
    fn a_recorded_game_replays_exactly() {
        let sides = [Side::Engine(EngineKind::Rules), Side::Engine(EngineKind::Perfect)];
        let played = play(
            sides,
            Thinking::default(),
            Geometry::new(4, 4, 3).unwrap(),
            9,
            &mut &b""[..],
            &mut io::sink(),
        )
        .unwrap();
        let report = referee(played.move_file().as_bytes(), io::sink(), &Options::default()).unwrap();
        assert_eq!(report.violations, 0);
        assert_eq!(report.game.outcome(), played.game.outcome());
        assert_eq!(report.game.moves_made(), played.moves.len() as u64);
    }
}
