//! Seeded generation of move files for test corpora.
//!
//! File `i` of a corpus depends only on the seed and `i` (each file has its
//! own random stream), so a larger corpus extends a smaller one. Its scenario
//! comes from `i`: the ending cycles through first player wins, second player
//! wins, Cat and a fourth case (moves running out; within
//! [`Guarantees::Cs1044`], a win followed by moves that must not be played),
//! and every other block of four starts with the second player; so any 8
//! consecutive files cover every ending with either player first. Every file
//! holds at least one move of every violation kind its game allows, each
//! placed where the referee will rule it so. [`Guarantees`] says how far the
//! files may stray from what an assignment promises its students.

use rand::seq::{IndexedRandom, SliceRandom};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use thiserror::Error;

use crate::board::{Geometry, Square, Storage};
use crate::game::{Game, Move, Outcome, Violation};
use crate::movefile;
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
    /// What the files promise beyond being well-formed.
    pub guarantees: Guarantees,
}

impl GenOptions {
    /// Whether the board and players are ones the guarantees are made for.
    ///
    /// # Errors
    /// [`GenError::Cs1044Game`] for [`Guarantees::Cs1044`] on anything but
    /// the classic board with two players.
    pub fn check(&self) -> Result<(), GenError> {
        match self.guarantees {
            Guarantees::WellFormed => Ok(()),
            Guarantees::Cs1044 if self.geometry == Geometry::CLASSIC && self.players == 2 => Ok(()),
            Guarantees::Cs1044 => Err(GenError::Cs1044Game),
        }
    }
}

/// What a corpus promises the programs it tests, beyond files the referee
/// reads: how far it may stray from an assignment's promises to its students.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Guarantees {
    /// Only that every file is well-formed: labels such as `X:`, `XO` or
    /// `0`, squares such as `abc`, `5.0`, `05`, `+5` or a number past any
    /// integer type, and games whose moves run out early. A hostile corpus,
    /// for referees and for programs that promise to survive anything.
    #[default]
    WellFormed,
    /// CS 1044's promises (CS 1044 Project 6): the classic board, a players line of
    /// `X:` and `O:` each followed by two names, every move line one
    /// character, a tab and an integer written plainly (`7`, `0`, `-1`,
    /// `12`; never `07` or `+7`, which a program reading integers would echo
    /// differently), at least 5 valid moves in every file and at least 9 in a
    /// file nobody wins. Every rule violation the assignment names still
    /// occurs: a wrong one-character label, a square out of range, a double
    /// move, a marked square. The fourth ending is a win followed by move
    /// lines, which a program must not play: it must halt at the win.
    Cs1044,
}

/// Options no file can be generated for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum GenError {
    /// [`Guarantees::Cs1044`] asked for another board or player count.
    #[error("CS 1044's guarantees are for the classic 3x3 board with two players, X and O")]
    Cs1044Game,
}

/// How a generated game is meant to end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ending {
    Win(usize),
    Cat,
    RunsOut,
    /// A win by the given player, then move lines after it that the referee
    /// never reads.
    WinThenMore(usize),
}

/// A move line of a generated file.
struct Line {
    label: String,
    square: String,
}

/// Generates move file number `index` (from 0) of the corpus `options` names.
///
/// # Errors
/// As [`GenOptions::check`].
pub fn move_file(options: &GenOptions, index: u64) -> Result<String, GenError> {
    options.check()?;
    let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
    rng.set_stream(index);
    let players = players(options.players, &mut rng);
    let first = PlayerId::new(usize::from((index / 4) % 2 == 1));
    let ending = match (index % 4, options.guarantees) {
        (0, _) => Ending::Win(0),
        (1, _) => Ending::Win(1),
        (2, _) => Ending::Cat,
        (_, Guarantees::WellFormed) => Ending::RunsOut,
        (_, Guarantees::Cs1044) => Ending::WinThenMore(first.index()),
    };
    let style = Style::of(options.guarantees);

    let valid = play_to(&players, options.geometry, first, ending, &mut rng);
    let mut lines = with_violations(&players, options.geometry, &valid, ending, style, &mut rng);
    if matches!(ending, Ending::WinThenMore(_)) {
        lines.extend(after_the_end(&players, options.geometry, &valid, &mut rng));
    }

    let title = format!("Generated game {} (seed {})", index + 1, options.seed);
    let mut text = movefile::header(&title, &players, options.geometry);
    for line in lines {
        movefile::move_line(&mut text, &line.label, &line.square);
    }
    Ok(text)
}

/// How a file's move lines may be written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Style {
    /// Any well-formed tokens.
    Hostile,
    /// One-character labels and plainly written integer squares.
    Typed,
}

impl Style {
    fn of(guarantees: Guarantees) -> Style {
        match guarantees {
            Guarantees::WellFormed => Style::Hostile,
            Guarantees::Cs1044 => Style::Typed,
        }
    }
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
            (Ending::Win(i) | Ending::WinThenMore(i), Some(Outcome::Win(p))) => p.index() == i,
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
    style: Style,
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
            if let Some(line) = violation(&game, kind, style, rng) {
                lines.push(line);
            }
        }
        if let Some(&mv) = valid.get(slot) {
            game.play_unchecked(mv);
            lines.push(Line {
                label: players.get(mv.player).mark.to_string(),
                square: square_token(mv.square, style, rng),
            });
        }
    }
    lines
}

/// Move lines after the end of the game `valid` plays: the next players'
/// marks on squares still empty (or any square, on a full board), as a
/// program that does not halt at the win would play them.
fn after_the_end(players: &Players, geometry: Geometry, valid: &[Move], rng: &mut ChaCha8Rng) -> Vec<Line> {
    let mut game = Game::new(players.clone(), geometry, Storage::Auto);
    for &mv in valid {
        game.play_unchecked(mv);
    }
    let mut player = game.next_player();
    let mut empty: Vec<Square> = (0..geometry.cells().min(4096))
        .map(Square::from_index)
        .filter(|&s| game.board().get(s).is_none())
        .collect();
    empty.shuffle(rng);
    let count = rng.random_range(1..=3);
    (0..count)
        .map(|i| {
            let square = empty
                .get(i)
                .copied()
                .unwrap_or_else(|| Square::from_index(rng.random_range(0..geometry.cells())));
            let line =
                Line { label: players.get(player).mark.to_string(), square: square.number().to_string() };
            player = players.next_after(player);
            line
        })
        .collect()
}

/// A move line the referee will rule as `kind` in `game`'s position, if one
/// exists there.
fn violation(game: &Game, kind: Violation, style: Style, rng: &mut ChaCha8Rng) -> Option<Line> {
    let players = game.players();
    let geometry = game.board().geometry();
    let mark = |id: PlayerId| players.get(id).mark.to_string();
    let any_square =
        |rng: &mut ChaCha8Rng| Square::from_index(rng.random_range(0..geometry.cells())).number().to_string();
    let line = match kind {
        Violation::IllegalPlayer => {
            let labels: &[&str] = match style {
                Style::Hostile => &["Y", "x", "o", "XO", "Q", "0", "X:", "?"],
                Style::Typed => &["Y", "Z", "x", "o", "Q", "?"],
            };
            let candidates: Vec<&str> =
                labels.iter().copied().filter(|l| players.find(l).is_none()).collect();
            Line { label: (*candidates.choose(rng)?).to_owned(), square: any_square(rng) }
        }
        Violation::IllegalSquare => {
            let beyond = (geometry.cells() + 1).to_string();
            let squares = match style {
                Style::Hostile => ["0", "-1", "abc", "5.0", "99999999999999999999999", beyond.as_str()],
                Style::Typed => ["0", "-1", "-7", "12", "100", beyond.as_str()],
            };
            let label = mark(PlayerId::new(rng.random_range(0..players.len())));
            Line { label, square: (*squares.choose(rng)?).to_owned() }
        }
        Violation::DoubleMove => Line { label: mark(game.last_mover()?), square: any_square(rng) },
        Violation::OutOfTurn => {
            let (last, next) = (game.last_mover()?, game.next_player());
            let others: Vec<PlayerId> =
                players.iter().map(|(id, _)| id).filter(|&id| id != last && id != next).collect();
            Line { label: mark(*others.choose(rng)?), square: any_square(rng) }
        }
        Violation::MarkedSquare => {
            let taken = occupied(game, rng)?;
            let next = game.next_player();
            Line { label: mark(next), square: square_token(taken, style, rng) }
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

/// The square's number; in a hostile corpus now and then written as `05` or
/// `+5`.
fn square_token(square: Square, style: Style, rng: &mut ChaCha8Rng) -> String {
    if style == Style::Typed {
        return square.number().to_string();
    }
    match rng.random_range(0..20) {
        0 => format!("0{}", square.number()),
        1 => format!("+{}", square.number()),
        _ => square.number().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::movefile::MoveReader;

    fn options(seed: u64) -> GenOptions {
        GenOptions { seed, geometry: Geometry::CLASSIC, players: 2, guarantees: Guarantees::WellFormed }
    }

    fn cs1044(seed: u64) -> GenOptions {
        GenOptions { guarantees: Guarantees::Cs1044, ..options(seed) }
    }

    #[test]
    fn the_same_seed_gives_the_same_file() {
        for options in [options, cs1044] {
            assert_eq!(move_file(&options(7), 3).unwrap(), move_file(&options(7), 3).unwrap());
            assert_ne!(move_file(&options(7), 3).unwrap(), move_file(&options(8), 3).unwrap());
        }
    }

    #[test]
    fn files_are_well_formed_and_three_players_work() {
        let three = GenOptions { geometry: Geometry::new(4, 5, 3).unwrap(), players: 3, ..options(1) };
        for i in 0..8 {
            let text = move_file(&three, i).unwrap();
            let mut out = Vec::new();
            crate::referee::referee(text.as_bytes(), &mut out, &crate::referee::Options::default()).unwrap();
            assert!(String::from_utf8(out).unwrap().contains("out of turn"), "{text}");
        }
    }

    #[test]
    fn cs1044_is_for_the_classic_game_only() {
        let message = "CS 1044's guarantees are for the classic 3x3 board with two players, X and O";
        for wrong in [
            GenOptions { players: 3, ..cs1044(0) },
            GenOptions { geometry: Geometry::new(4, 4, 3).unwrap(), ..cs1044(0) },
            GenOptions { geometry: Geometry::new(3, 3, 2).unwrap(), ..cs1044(0) },
        ] {
            assert_eq!(wrong.check(), Err(GenError::Cs1044Game));
            assert_eq!(move_file(&wrong, 0).map_err(|e| e.to_string()), Err(message.to_owned()));
        }
        assert_eq!(GenOptions { players: 3, ..options(0) }.check(), Ok(()));
    }

    /// What a file shows: the violations ruled, the outcome, who moved first,
    /// and whether move lines follow the end of the game.
    fn scenario(text: &str) -> (Vec<Violation>, Option<Outcome>, Option<PlayerId>, bool) {
        let mut reader = MoveReader::new(text.as_bytes()).unwrap();
        let header = reader.header().clone();
        let mut game = Game::new(header.players, header.geometry, Storage::Auto);
        let (mut violations, mut first, mut after_end) = (Vec::new(), None, false);
        while let Some(record) = reader.next_record().unwrap() {
            if game.outcome().is_some() {
                after_end = true;
                break;
            }
            match game.play(record.label, record.square) {
                Ok(mv) => first = first.or(Some(mv.player)),
                Err(v) => violations.push(v),
            }
        }
        (violations, game.outcome(), first, after_end)
    }

    #[test]
    fn any_eight_cs1044_files_cover_every_ending_violation_and_first_player() {
        for seed in 0..50 {
            for start in [0, 5] {
                let mut seen = std::collections::BTreeSet::new();
                for index in start..start + 8 {
                    let (violations, outcome, first, after_end) =
                        scenario(&move_file(&cs1044(seed), index).unwrap());
                    seen.extend(violations.iter().map(|v| v.message().to_owned()));
                    seen.insert(format!("{outcome:?}"));
                    seen.insert(format!("first {first:?}"));
                    if after_end {
                        seen.insert(format!("lines after {outcome:?}"));
                    }
                }
                let x = PlayerId::new(0);
                let o = PlayerId::new(1);
                for wanted in [
                    "illegal player".to_owned(),
                    "illegal square".to_owned(),
                    "double move".to_owned(),
                    "marked square".to_owned(),
                    format!("{:?}", Some(Outcome::Win(x))),
                    format!("{:?}", Some(Outcome::Win(o))),
                    format!("{:?}", Some(Outcome::Cat)),
                    format!("lines after {:?}", Some(Outcome::Win(x))),
                    format!("lines after {:?}", Some(Outcome::Win(o))),
                    format!("first {:?}", Some(x)),
                    format!("first {:?}", Some(o)),
                ] {
                    assert!(seen.contains(&wanted), "seed {seed} from {start}: no {wanted} in {seen:?}");
                }
            }
        }
    }
}
