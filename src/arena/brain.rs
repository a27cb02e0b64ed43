//! An engine as a Gomocup brain (`ttt-referee brain`): the brain's side of
//! the Gomocup protocol (<https://plastovicka.github.io/protocl2en.htm>),
//! read from any input and answered on any output, so the engines play in
//! piskvork, liskvork or any manager of the protocol.
//!
//! It answers `START N` and `RECTSTART W,H` (`OK`, or `ERROR` for a board
//! the engine cannot play), `RESTART`, `BEGIN`, `TURN X,Y`, `BOARD` …
//! `DONE`, `TAKEBACK X,Y`, `INFO` (it keeps `timeout_turn`, `time_left`
//! and `timeout_match` to time its moves), `ABOUT` and `END`; anything else
//! `UNKNOWN`. It plays five in a row, five or more winning (the rule
//! `INFO rule 0` names). Coordinates are 0-based, X the column.

use std::io::{self, BufRead, Write};
use std::time::Duration;

use crate::board::{Geometry, Square, Storage};
use crate::engine::{Engine, EngineKind};
use crate::game::{Game, Move, Outcome};
use crate::player::{PlayerId, Players};

use super::gomocup::{FIVE, SIDES};

/// The longest line read; longer ones are cut (the protocol allows it).
const LINE: u64 = 4096;

/// What it thinks with when no time was given: the protocol's default
/// turn time is 30 s; a brain should answer well within it.
const DEFAULT_TURN: Duration = Duration::from_secs(5);

/// The brain's state between commands.
struct Brain {
    kind: EngineKind,
    seed: u64,
    /// The board, column by column as the protocol numbers it: `None`
    /// before `START`.
    size: Option<(u32, u32)>,
    /// Each square's stone: 0 none, 1 its own, 2 the opponent's; index
    /// `y * width + x`.
    stones: Vec<u8>,
    turn: Option<Duration>,
    left: Option<Duration>,
    moves: u64,
}

/// Serves the protocol on `input` and `output` with the engine `kind`
/// (seeded from `seed`) until `END` or the end of the input.
///
/// # Errors
/// Only the output's errors (a manager that went away).
pub fn serve(input: impl BufRead, mut output: impl Write, kind: EngineKind, seed: u64) -> io::Result<()> {
    let mut brain = Brain { kind, seed, size: None, stones: Vec::new(), turn: None, left: None, moves: 0 };
    let mut lines = Lines { input };
    while let Some(line) = lines.next()? {
        let line = line.trim();
        let (command, rest) = line.split_once(' ').unwrap_or((line, ""));
        let answer = match command.to_ascii_uppercase().as_str() {
            "" => continue,
            "END" => break,
            "START" => brain.start(rest.trim().parse().ok().map(|n| (n, n))),
            "RECTSTART" => brain.start(pair(rest)),
            "RESTART" => brain.start(brain.size),
            "BEGIN" => brain.play(),
            "TURN" => match brain.place(pair(rest), 2) {
                Ok(()) => brain.play(),
                Err(e) => e,
            },
            "TAKEBACK" => match brain.take_back(pair(rest)) {
                Ok(()) => "OK".to_owned(),
                Err(e) => e,
            },
            "BOARD" => {
                brain.stones.fill(0);
                let mut wrong = None;
                while let Some(stone) = lines.next()? {
                    let stone = stone.trim();
                    if stone.eq_ignore_ascii_case("DONE") {
                        break;
                    }
                    let mut fields = stone.split(',').map(|v| v.trim().parse::<u32>().ok());
                    let (x, y, field) =
                        (fields.next().flatten(), fields.next().flatten(), fields.next().flatten());
                    let who = if field == Some(1) { 1 } else { 2 };
                    if let Err(e) = brain.place(x.zip(y), who) {
                        wrong.get_or_insert(e);
                    }
                }
                wrong.unwrap_or_else(|| brain.play())
            }
            "INFO" => {
                brain.info(rest);
                continue;
            }
            "ABOUT" => format!(
                "name=\"ttt-referee {}\", version=\"{}\", author=\"ttt-referee\", country=\"-\"",
                kind.name(),
                env!("CARGO_PKG_VERSION")
            ),
            _ => format!("UNKNOWN {}", crate::text::inert(command)),
        };
        output.write_all(answer.as_bytes())?;
        output.write_all(b"\n")?;
        output.flush()?;
    }
    Ok(())
}

/// `X,Y` as two numbers.
fn pair(text: &str) -> Option<(u32, u32)> {
    let (x, y) = text.split_once(',')?;
    Some((x.trim().parse().ok()?, y.trim().parse().ok()?))
}

/// Lines of the input, each at most [`LINE`] bytes (the rest of a longer
/// one dropped), whatever ends them (LF, CR LF, CR).
struct Lines<R> {
    input: R,
}

impl<R: BufRead> Lines<R> {
    fn next(&mut self) -> io::Result<Option<String>> {
        let mut line = Vec::new();
        loop {
            let buffer = self.input.fill_buf()?;
            if buffer.is_empty() {
                return Ok((!line.is_empty()).then(|| String::from_utf8_lossy(&line).into_owned()));
            }
            let room = usize::try_from(LINE).unwrap_or(usize::MAX).saturating_sub(line.len());
            let Some(at) = buffer.iter().position(|&b| b == b'\n' || b == b'\r') else {
                let n = buffer.len();
                line.extend_from_slice(&buffer[..n.min(room)]);
                self.input.consume(n);
                continue;
            };
            line.extend_from_slice(&buffer[..at.min(room)]);
            self.input.consume(at + 1);
            if !line.is_empty() {
                return Ok(Some(String::from_utf8_lossy(&line).into_owned()));
            }
        }
    }
}

impl Brain {
    fn geometry(&self) -> Option<Geometry> {
        let (w, h) = self.size?;
        Geometry::new(h, w, FIVE).ok()
    }

    /// A new game on a board `size` (width, height).
    fn start(&mut self, size: Option<(u32, u32)>) -> String {
        let Some((w, h)) = size else { return "ERROR expected a board size".to_owned() };
        if !SIDES.contains(&w) || !SIDES.contains(&h) {
            return format!("ERROR unsupported size: {w}x{h}; sides {} to {}", SIDES.start(), SIDES.end());
        }
        self.size = Some((w, h));
        let Some(geometry) = self.geometry() else { return "ERROR unsupported size".to_owned() };
        let players = Players::classic("X", "O");
        if let Err(e) = Engine::new(self.kind, 0).check(&Game::new(players, geometry, Storage::Auto)) {
            self.size = None;
            return format!("ERROR {e}");
        }
        self.stones = vec![0; (w * h) as usize];
        self.moves = 0;
        "OK".to_owned()
    }

    fn index(&self, at: Option<(u32, u32)>) -> Result<usize, String> {
        let Some((w, h)) = self.size else { return Err("ERROR no game: START first".to_owned()) };
        match at {
            Some((x, y)) if x < w && y < h => Ok((y * w + x) as usize),
            Some((x, y)) => Err(format!("ERROR {x},{y} is off the board")),
            None => Err("ERROR expected X,Y".to_owned()),
        }
    }

    fn place(&mut self, at: Option<(u32, u32)>, who: u8) -> Result<(), String> {
        let i = self.index(at)?;
        if self.stones[i] != 0 {
            return Err("ERROR that square is taken".to_owned());
        }
        self.stones[i] = who;
        Ok(())
    }

    fn take_back(&mut self, at: Option<(u32, u32)>) -> Result<(), String> {
        let i = self.index(at)?;
        self.stones[i] = 0;
        Ok(())
    }

    fn info(&mut self, rest: &str) {
        let (key, value) = rest.trim().split_once(' ').unwrap_or((rest, ""));
        let ms = value.trim().parse::<u64>().ok().map(Duration::from_millis);
        match key.to_ascii_lowercase().as_str() {
            "timeout_turn" => self.turn = ms.filter(|d| !d.is_zero()),
            "time_left" => self.left = ms,
            "timeout_match" if self.left.is_none() => self.left = ms.filter(|d| !d.is_zero()),
            _ => {}
        }
    }

    /// Its time for this move: half the turn time, and no more than a
    /// twentieth of what is left of the match.
    fn think(&self) -> Duration {
        let turn = self.turn.unwrap_or(DEFAULT_TURN) / 2;
        self.left.map_or(turn, |left| turn.min(left / 20)).max(Duration::from_millis(1))
    }

    /// Its move in the position the stones make: `X,Y`, or `ERROR`.
    fn play(&mut self) -> String {
        let Some(geometry) = self.geometry() else { return "ERROR no game: START first".to_owned() };
        let count = |who: u8| self.stones.iter().fold(0usize, |n, &s| n + usize::from(s == who));
        let (mine, theirs) = (count(1), count(2));
        // It moves next: first (X) if the counts are even, else second (O).
        let me = match theirs.checked_sub(mine) {
            Some(0) => 0,
            Some(1) => 1,
            _ => {
                return format!(
                    "ERROR the stones cannot be a game with it to move: {mine} its own, {theirs} the other's"
                );
            }
        };
        let squares = |who: u8| -> Vec<u64> {
            self.stones.iter().enumerate().filter(|&(_, &s)| s == who).map(|(i, _)| i as u64).collect()
        };
        let (own, other) = (squares(1), squares(2));
        let (xs, os) = if me == 0 { (own, other) } else { (other, own) };
        let mut game = Game::new(Players::classic("X", "O"), geometry, Storage::Auto);
        for i in 0..xs.len().max(os.len()) {
            for (player, list) in [(0, &xs), (1, &os)] {
                if let Some(&sq) = list.get(i) {
                    game.play_unchecked(Move {
                        player: PlayerId::new(player),
                        square: Square::from_index(sq),
                    });
                }
            }
        }
        if let Some(outcome) = game.outcome() {
            return match outcome {
                Outcome::Win(_) => "ERROR the game is over: five in a row".to_owned(),
                Outcome::Cat => "ERROR the game is over: the board is full".to_owned(),
            };
        }
        let seed = self.seed.wrapping_add(self.moves);
        self.moves += 1;
        let mut engine = Engine::new(self.kind, seed).time_limit(Some(self.think()));
        match engine.choose(&game) {
            Ok(choice) => {
                let i = choice.square.index();
                let w = u64::from(geometry.cols());
                if let Some(stone) = usize::try_from(i).ok().and_then(|i| self.stones.get_mut(i)) {
                    *stone = 1;
                }
                format!("{},{}", i % w, i / w)
            }
            Err(e) => format!("ERROR {e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fmt::Write as _;

    fn talk(script: &str, kind: EngineKind) -> String {
        let mut out = Vec::new();
        serve(script.as_bytes(), &mut out, kind, 1).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_manager_starts_a_game_and_the_brain_answers_each_command() {
        let out = talk(
            "START 15\r\nINFO timeout_turn 200\r\nINFO max_memory 0\r\nABOUT\r\nBEGIN\r\nTURN 0,0\r\nFOO\r\nEND\r\nBEGIN\r\n",
            EngineKind::Rules,
        );
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "OK");
        assert!(lines[1].starts_with("name=\"ttt-referee rules\", version=\""), "{out}");
        // `rules` opens in the centre.
        assert_eq!(lines[2], "7,7");
        assert!(
            pair(lines[3]).is_some_and(|(x, y)| x < 15 && y < 15 && (x, y) != (7, 7) && (x, y) != (0, 0))
        );
        assert_eq!(lines[4], "UNKNOWN FOO");
        assert_eq!(lines.len(), 5, "nothing after END: {out}");
    }

    #[test]
    fn a_board_is_played_on_and_a_win_in_one_is_taken() {
        // Four of its own in row 3 (x 2..=5) and the opponent's four
        // elsewhere; it moves first again (the counts are even): it wins.
        let mut script = String::from("RECTSTART 12,9\nBOARD\n");
        for x in 2..6 {
            let _ = write!(script, "{x},3,1\n{x},7,2\n");
        }
        script.push_str("DONE\n");
        let out = talk(&script, EngineKind::Rules);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "OK");
        assert!(lines[1] == "1,3" || lines[1] == "6,3", "{out}");
    }

    #[test]
    fn what_cannot_be_played_is_an_error() {
        let out = talk(
            "BEGIN\nSTART 4\nSTART 200\nSTART 9\nTURN 9,0\nTURN 1,1\nTURN 1,1\nBOARD\n0,0,1\n1,0,1\nDONE\n",
            EngineKind::Random,
        );
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "ERROR no game: START first");
        assert!(lines[1].starts_with("ERROR unsupported size: 4x4"), "{out}");
        assert!(lines[2].starts_with("ERROR unsupported size: 200x200"), "{out}");
        assert_eq!(lines[3], "OK");
        assert_eq!(lines[4], "ERROR 9,0 is off the board");
        assert!(pair(lines[5]).is_some(), "{out}");
        assert_eq!(lines[6], "ERROR that square is taken");
        assert_eq!(lines[7], "ERROR the stones cannot be a game with it to move: 2 its own, 0 the other's");
        // `perfect` cannot play 15x15: START says so.
        let out = talk("START 15\n", EngineKind::Perfect);
        assert!(out.starts_with("ERROR "), "{out}");
    }

    #[test]
    fn time_left_shortens_its_thinking() {
        let mut brain = Brain {
            kind: EngineKind::Rules,
            seed: 0,
            size: None,
            stones: Vec::new(),
            turn: None,
            left: None,
            moves: 0,
        };
        assert_eq!(brain.think(), Duration::from_millis(2500));
        brain.info("timeout_turn 1000");
        assert_eq!(brain.think(), Duration::from_millis(500));
        brain.info("time_left 2000");
        assert_eq!(brain.think(), Duration::from_millis(100));
    }
}
