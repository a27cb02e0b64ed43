//! Seeded generation of move files for test corpora.
//!
//! File `i` of a corpus depends only on the seed and `i` (each file has its
//! own random stream), so a larger corpus extends a smaller one. Its scenario
//! comes from `i`: the ending cycles through first player wins, second player
//! wins, Cat and moves running out, and every other block of four starts with
//! the second player; so any 8 consecutive files cover every ending with
//! either player first. Every file holds at least one move of every violation
//! kind its game allows, each placed where the referee will rule it so.

use std::fmt::Write;

use rand::seq::{IndexedRandom, SliceRandom};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::board::{Geometry, Square, Storage};
use crate::game::{Game, Move, Outcome, Violation};
use crate::player::{MAX_PLAYERS, Mark, Player, PlayerId, Players};

/// The marks generated games use, in turn order.
pub const MARKS: [char; MAX_PLAYERS] = ['X', 'O', 'Z', 'A', 'B', 'C', 'D', 'E', 'F', 'G'];

const NAMES: [&str; 12] = [
    "Ann Lee",
    "Bo Chan",
    "Cy Dee",
    "Di Evans",
    "Ed Fox",
    "Flo Gray",
    "Gus Hill",
    "Ida Jones",
    "Jo Kim",
    "Kay Lund",
    "Lou Moss",
    "Max Nash",
];

/// What to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GenOptions {
    /// The seed every file's randomness derives from.
    pub seed: u64,
    /// The board; the classic 3 × 3 needs no board line.
    pub geometry: Geometry,
    /// How many players (2 to 10), with the marks of [`MARKS`].
    pub players: usize,
}

/// How a generated game is meant to end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ending {
    Win(usize),
    Cat,
    RunsOut,
}

/// A move line of a generated file.
struct Line {
    label: String,
    square: String,
}

/// Generates move file number `index` (from 0) of the corpus `options` names.
#[must_use]
pub fn move_file(options: &GenOptions, index: u64) -> String {
    let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
    rng.set_stream(index);
    let players = players(options.players, &mut rng);
    let ending = match index % 4 {
        0 => Ending::Win(0),
        1 => Ending::Win(1),
        2 => Ending::Cat,
        _ => Ending::RunsOut,
    };
    let first = PlayerId::new(usize::from((index / 4) % 2 == 1));

    let valid = play_to(&players, options.geometry, first, ending, &mut rng);
    let lines = with_violations(&players, options.geometry, &valid, ending, &mut rng);

    let mut text = format!("Generated game {} (seed {})\n{players}\n", index + 1, options.seed);
    if options.geometry == Geometry::CLASSIC {
        text.push('\n');
    } else {
        writeln!(text, "Board: {}", options.geometry).expect("writing to a String");
        text.push('\n');
    }
    for line in lines {
        writeln!(text, "{}\t{}", line.label, line.square).expect("writing to a String");
    }
    text
}

fn players(count: usize, rng: &mut ChaCha8Rng) -> Players {
    let mut names = NAMES.to_vec();
    names.shuffle(rng);
    let players = MARKS[..count]
        .iter()
        .zip(names.iter().cycle())
        .map(|(&c, name)| Player { mark: Mark::new(c).expect("a valid mark"), name: (*name).to_owned() })
        .collect();
    Players::new(players).expect("2 to 10 distinct marks")
}

/// Random legal play from `first` until the game ends, retried until it ends
/// as asked (or, for a board where that ending is rare, as it comes). For
/// [`Ending::RunsOut`] the game is cut before its last move.
fn play_to(
    players: &Players,
    geometry: Geometry,
    first: PlayerId,
    ending: Ending,
    rng: &mut ChaCha8Rng,
) -> Vec<Move> {
    const ATTEMPTS: usize = 500;
    let mut best = Vec::new();
    for attempt in 0..ATTEMPTS {
        let (moves, outcome) = random_game(players, geometry, first, rng);
        let wanted = match (ending, outcome) {
            (Ending::Win(i), Some(Outcome::Win(p))) => p.index() == i,
            (Ending::Cat, Some(Outcome::Cat)) | (Ending::RunsOut, _) => true,
            _ => false,
        };
        if wanted || attempt + 1 == ATTEMPTS {
            best = moves;
            break;
        }
    }
    if ending == Ending::RunsOut && !best.is_empty() {
        let keep = rng.random_range(0..best.len());
        best.truncate(keep);
    }
    best
}

fn random_game(
    players: &Players,
    geometry: Geometry,
    first: PlayerId,
    rng: &mut ChaCha8Rng,
) -> (Vec<Move>, Option<Outcome>) {
    let mut game = Game::new(players.clone(), geometry, Storage::Auto);
    let mut moves = Vec::new();
    let mut player = first;
    // Small boards: shuffle every square. Huge ones: random squares, retried.
    let mut order: Vec<u64> =
        if geometry.cells() <= 4096 { (0..geometry.cells()).collect() } else { Vec::new() };
    order.shuffle(rng);
    let limit = geometry.cells().min(4096);
    while game.outcome().is_none() && (moves.len() as u64) < limit {
        let square = match order.get(moves.len()) {
            Some(&i) => Square::from_index(i),
            None => loop {
                let s = Square::from_index(rng.random_range(0..geometry.cells()));
                if game.board().get(s).is_none() {
                    break s;
                }
            },
        };
        let mv = Move { player, square };
        game.play_unchecked(mv);
        moves.push(mv);
        player = players.next_after(player);
    }
    (moves, game.outcome())
}

/// The game's valid moves with violations woven in: at least one of every
/// kind the game allows, plus a few more at random.
fn with_violations(
    players: &Players,
    geometry: Geometry,
    valid: &[Move],
    ending: Ending,
    rng: &mut ChaCha8Rng,
) -> Vec<Line> {
    let mut kinds = vec![
        Violation::IllegalPlayer,
        Violation::IllegalSquare,
        Violation::DoubleMove,
        Violation::MarkedSquare,
    ];
    if players.len() > 2 {
        kinds.push(Violation::OutOfTurn);
    }
    let extra = rng.random_range(0..3);
    for _ in 0..extra {
        let kind = *kinds.choose(rng).expect("kinds");
        kinds.push(kind);
    }

    // A violation goes before valid move `slot` (0-based); after the last
    // valid move only if the game does not end there.
    let slots = if ending == Ending::RunsOut { valid.len() + 1 } else { valid.len().max(1) };
    let mut planned: Vec<Vec<Violation>> = (0..slots).map(|_| Vec::new()).collect();
    for kind in kinds {
        // Double move, marked square and out of turn need a move before them.
        let earliest = usize::from(!matches!(kind, Violation::IllegalPlayer | Violation::IllegalSquare));
        if earliest < slots {
            planned[rng.random_range(earliest..slots)].push(kind);
        }
    }

    let mut game = Game::new(players.clone(), geometry, Storage::Auto);
    let mut lines = Vec::new();
    for (slot, kinds) in planned.iter().enumerate() {
        for &kind in kinds {
            if let Some(line) = violation(&game, kind, rng) {
                lines.push(line);
            }
        }
        if let Some(&mv) = valid.get(slot) {
            game.play_unchecked(mv);
            lines.push(Line {
                label: players.get(mv.player).mark.to_string(),
                square: square_token(mv.square, rng),
            });
        }
    }
    lines
}

/// A move line the referee will rule as `kind` in `game`'s position, if one
/// exists there.
fn violation(game: &Game, kind: Violation, rng: &mut ChaCha8Rng) -> Option<Line> {
    let players = game.players();
    let geometry = game.board().geometry();
    let mark = |id: PlayerId| players.get(id).mark.to_string();
    let any_square =
        |rng: &mut ChaCha8Rng| Square::from_index(rng.random_range(0..geometry.cells())).number().to_string();
    let line = match kind {
        Violation::IllegalPlayer => {
            let candidates: Vec<&str> = ["Y", "x", "o", "XO", "Q", "0", "X:", "?"]
                .into_iter()
                .filter(|l| players.find(l).is_none())
                .collect();
            Line { label: (*candidates.choose(rng)?).to_owned(), square: any_square(rng) }
        }
        Violation::IllegalSquare => {
            let beyond = (geometry.cells() + 1).to_string();
            let squares = ["0", "-1", "abc", "5.0", "99999999999999999999999", beyond.as_str()];
            let label = mark(PlayerId::new(rng.random_range(0..players.len())));
            Line { label, square: (*squares.choose(rng)?).to_owned() }
        }
        Violation::DoubleMove => Line { label: mark(game.last_mover()?), square: any_square(rng) },
        Violation::OutOfTurn => {
            let (last, next) = (game.last_mover()?, game.to_move()?);
            let others: Vec<PlayerId> =
                players.iter().map(|(id, _)| id).filter(|&id| id != last && id != next).collect();
            Line { label: mark(*others.choose(rng)?), square: any_square(rng) }
        }
        Violation::MarkedSquare => {
            let next = game.to_move()?;
            let taken = occupied(game, rng)?;
            Line { label: mark(next), square: square_token(taken, rng) }
        }
        Violation::GameOver => return None,
    };
    debug_assert_eq!(
        game.check(&line.label, &line.square).err(),
        Some(kind),
        "{} {}",
        line.label,
        line.square
    );
    Some(line)
}

/// A random occupied square, if any.
fn occupied(game: &Game, rng: &mut ChaCha8Rng) -> Option<Square> {
    let cells = game.board().geometry().cells();
    if game.moves_made() == 0 {
        return None;
    }
    // Sample until a taken square turns up; fall back to a scan on small boards.
    for _ in 0..64 {
        let s = Square::from_index(rng.random_range(0..cells));
        if game.board().get(s).is_some() {
            return Some(s);
        }
    }
    (0..cells.min(1 << 20)).map(Square::from_index).find(|&s| game.board().get(s).is_some())
}

/// The square's number, now and then written as `05` or `+5`.
fn square_token(square: Square, rng: &mut ChaCha8Rng) -> String {
    match rng.random_range(0..20) {
        0 => format!("0{}", square.number()),
        1 => format!("+{}", square.number()),
        _ => square.number().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(seed: u64) -> GenOptions {
        GenOptions { seed, geometry: Geometry::CLASSIC, players: 2 }
    }

    #[test]
    fn the_same_seed_gives_the_same_file() {
        assert_eq!(move_file(&options(7), 3), move_file(&options(7), 3));
        assert_ne!(move_file(&options(7), 3), move_file(&options(8), 3));
    }

    #[test]
    fn files_are_well_formed_and_three_players_work() {
        let three = GenOptions { seed: 1, geometry: Geometry::new(4, 5, 3).unwrap(), players: 3 };
        for i in 0..8 {
            let text = move_file(&three, i);
            let mut out = Vec::new();
            crate::referee::referee(text.as_bytes(), &mut out, &crate::referee::Options::default()).unwrap();
            assert!(String::from_utf8(out).unwrap().contains("out of turn"), "{text}");
        }
    }
}
