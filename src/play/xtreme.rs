//! The `xtreme` console profile: seeds/003's own program, its prompts and
//! messages exactly.
//!
//! ```text
//! Game Board Size: 3
//!  | |
//! -+-+-
//!  | |
//! -+-+-
//!  | |
//!
//! Move Counter: 0
//! X's move (x, y): 0, 2
//! ```
//!
//! The size is asked first (a whole number from 1 to 100, asked again until
//! it is one); the board is n × n and a win fills a whole row, column or
//! diagonal. Moves are `x, y` with x the column and y the row, from 0; one
//! that is off the board, taken or unreadable prints `INVALID MOVE --- TRY
//! AGAIN.` and the prompt again. A computer player's move is shown as if
//! typed after the prompt. The game ends with the board and `Player X won in
//! N moves.` (N counting both players' moves) or `Cat's game; no one wins.`

use std::io::{BufRead, Write};

use super::{Console, PlayError, Played, Side, Thinking, engines, players, read_line, show};
use crate::board::{Geometry, Storage, parse_xy};
use crate::game::{Game, Move, Outcome};
use crate::render::{Renderer, Style};

/// The largest board the size prompt accepts.
const MAX_SIZE: u32 = 100;

/// seeds/003's console: one game, X and O played by the given sides.
pub struct Xtreme<R, W> {
    sides: [Side; 2],
    thinking: Thinking,
    input: R,
    output: W,
}

impl<R: BufRead, W: Write> Xtreme<R, W> {
    /// The console over `input` and `output`, X and O played by `sides`.
    pub fn new(sides: [Side; 2], thinking: Thinking, input: R, output: W) -> Xtreme<R, W> {
        Xtreme { sides, thinking, input, output }
    }
}

impl<R: BufRead, W: Write> Console for Xtreme<R, W> {
    fn game(&mut self, seed: u64) -> Result<Option<Played>, PlayError> {
        let Xtreme { sides, thinking, input, output } = self;
        let sides = *sides;
        let mut line = String::new();
        let size = loop {
            write!(output, "Game Board Size: ")?;
            output.flush()?;
            if !read_line(input, &mut line)? {
                writeln!(output)?;
                return Ok(None);
            }
            match line.trim().parse::<u32>() {
                Ok(n) if (1..=MAX_SIZE).contains(&n) => break n,
                _ => writeln!(output, "INVALID SIZE --- TRY AGAIN.")?,
            }
        };
        let geometry = Geometry::new(size, size, size).expect("1 to 100 is a board");
        let players = players(sides);
        let renderer = Renderer::new(Style::Grid, &players);
        let mut game = Game::new(players, geometry, Storage::Auto);
        let mut engines = engines(&sides, seed, *thinking);
        let mut moves = Vec::new();

        while game.outcome().is_none() {
            show(&renderer, &game, output)?;
            writeln!(output, "Move Counter: {}", moves.len())?;
            let player = game.next_player();
            let mark = game.players().get(player).mark;
            let square = loop {
                write!(output, "{mark}'s move (x, y): ")?;
                if let Some(engine) = &mut engines[player.index()] {
                    let square = engine.choose(&game)?.square;
                    let (row, col) = geometry.coords(square);
                    writeln!(output, "{col}, {row}")?;
                    break square;
                }
                output.flush()?;
                if !read_line(input, &mut line)? {
                    writeln!(output)?;
                    return Ok(Some(Played { game, moves }));
                }
                let free = parse_xy(&line)
                    .and_then(|(x, y)| Some((u32::try_from(x).ok()?, u32::try_from(y).ok()?)))
                    .and_then(|(x, y)| geometry.square(y, x))
                    .filter(|&s| game.board().get(s).is_none());
                match free {
                    Some(square) => break square,
                    None => writeln!(output, "INVALID MOVE --- TRY AGAIN.")?,
                }
            };
            let mv = Move { player, square };
            game.play_unchecked(mv);
            moves.push(mv);
        }
        show(&renderer, &game, output)?;
        match game.outcome() {
            Some(Outcome::Win(p)) => {
                writeln!(output, "Player {} won in {} moves.", game.players().get(p).mark, moves.len())?;
            }
            _ => writeln!(output, "Cat's game; no one wins.")?,
        }
        Ok(Some(Played { game, moves }))
    }

    /// seeds/003's program plays one game and ends; so does its profile.
    fn again(&mut self) -> Result<bool, PlayError> {
        Ok(false)
    }
}
