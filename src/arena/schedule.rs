//! Who plays whom, in which seats, from which opening: a match's games and
//! a tournament's round robin, as numbered [`Fixture`]s.
//!
//! - A match of N games rotates the seats each game: with two participants
//!   they take turns moving first; with more, each moves first in turn.
//! - A tournament, each round, seats every group of `players` participants
//!   (every pair, with two) in every rotation, once from each opening.

use crate::board::{Geometry, Storage};
use crate::game::{Game, Move, Outcome};
use crate::player::{Mark, Player, Players};

/// One planned game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fixture {
    /// Its number, from 1: its record is `games/NNN.txt`.
    pub number: u64,
    /// The participants (indices into the event's list), in turn order.
    pub seats: Vec<usize>,
    /// The opening it starts from (an index into the event's openings).
    pub opening: Option<usize>,
}

/// A match's `games` between `participants`, seats rotating each game
/// (none without participants); with `openings` openings, `games` from
/// each in turn, the seats rotating from the first again for each, so
/// with two participants and an even number of games each plays every
/// opening from both sides.
#[must_use]
pub fn match_games(participants: usize, games: u64, openings: usize) -> Vec<Fixture> {
    if participants == 0 {
        return Vec::new();
    }
    let openings: Vec<Option<usize>> =
        if openings == 0 { vec![None] } else { (0..openings).map(Some).collect() };
    let mut fixtures = Vec::new();
    for opening in openings {
        for i in 0..games {
            let shift = usize::try_from(i % participants as u64).unwrap_or(0);
            fixtures.push(Fixture {
                number: fixtures.len() as u64 + 1,
                seats: (0..participants).map(|j| (j + shift) % participants).collect(),
                opening,
            });
        }
    }
    fixtures
}

/// A round robin: `rounds` times, every group of `players` among
/// `participants` (in order), from each of `openings` openings (or none),
/// in each rotation of its seats.
#[must_use]
pub fn round_robin(participants: usize, players: usize, rounds: u64, openings: usize) -> Vec<Fixture> {
    let groups = groups(participants, players);
    let openings: Vec<Option<usize>> =
        if openings == 0 { vec![None] } else { (0..openings).map(Some).collect() };
    let mut fixtures = Vec::new();
    for _ in 0..rounds {
        for group in &groups {
            for &opening in &openings {
                rotations(group, opening, &mut fixtures);
            }
        }
    }
    fixtures
}

/// A round robin whose rounds each start from an opening of their own:
/// round `r` (from 0) from opening `r` ([`varied_openings`] makes them),
/// every group of `players` in each rotation of its seats, so every pair
/// plays each round's opening from both sides.
#[must_use]
pub fn varied_round_robin(participants: usize, players: usize, rounds: u64) -> Vec<Fixture> {
    let groups = groups(participants, players);
    let mut fixtures = Vec::new();
    for round in 0..rounds {
        let opening = usize::try_from(round).ok();
        for group in &groups {
            rotations(group, opening, &mut fixtures);
        }
    }
    fixtures
}

/// `group`'s games from `opening`, one in each rotation of its seats,
/// numbered on from `fixtures`'.
fn rotations(group: &[usize], opening: Option<usize>, fixtures: &mut Vec<Fixture>) {
    let players = group.len();
    for shift in 0..players {
        let seats = (0..players).map(|j| group[(j + shift) % players]).collect();
        fixtures.push(Fixture { number: fixtures.len() as u64 + 1, seats, opening });
    }
}

/// The openings of a tournament's `rounds` when no openings file fixes
/// them: the first round from the empty board, each later one from a
/// random opening drawn from `seed`, one move for each of the `marks`
/// (a uniformly random free square each, stopping short of a move that
/// would end the game), drawn again (up to 64 times) while it repeats an
/// earlier round's: deterministic bots then meet new positions each round.
#[must_use]
pub fn varied_openings(geometry: Geometry, marks: &[Mark], rounds: u64, seed: u64) -> Vec<Vec<Move>> {
    const TRIES: u64 = 64;
    let players = marks.iter().map(|&mark| Player { mark, name: mark.to_string() }).collect();
    let players = Players::new(players).unwrap_or_else(|_| Players::classic("X", "O"));
    let mut openings: Vec<Vec<Move>> = vec![Vec::new()];
    let mut draw = 0u64;
    for _ in 1..rounds {
        let mut opening = Vec::new();
        for _ in 0..TRIES {
            opening.clear();
            let mut game = Game::new(players.clone(), geometry, Storage::Auto);
            for _ in 0..players.len() {
                let free: Vec<Move> = game.legal_moves_of(game.next_player()).collect();
                draw += 1;
                let Some(&mv) = free.get(index(game_seed(seed, draw), free.len())) else { break };
                let mut after = game.clone();
                if !after.try_play(mv).is_ok_and(|outcome| outcome.is_none()) {
                    break;
                }
                game = after;
                opening.push(mv);
            }
            if !openings.contains(&opening) {
                break;
            }
        }
        openings.push(opening);
    }
    openings
}

/// `count` openings of `plies` random moves near the centre
/// (`--openings random:N`), drawn from `seed`: each move a uniformly random
/// free square at most `plies / 2 + 1` rows and columns from the centre
/// (the whole board if smaller), never one that ends the game, and each
/// opening drawn again (up to 64 times) while it repeats an earlier one.
/// The players move in turn order, the first mark first.
#[must_use]
pub fn random_openings(
    geometry: Geometry,
    marks: &[Mark],
    count: u64,
    plies: u32,
    seed: u64,
) -> Vec<Vec<Move>> {
    const TRIES: u64 = 64;
    let players = marks.iter().map(|&mark| Player { mark, name: mark.to_string() }).collect();
    let players = Players::new(players).unwrap_or_else(|_| Players::classic("X", "O"));
    let reach = plies / 2 + 1;
    let near = |square: crate::board::Square| {
        let (row, col) =
            (square.index() / u64::from(geometry.cols()), square.index() % u64::from(geometry.cols()));
        let (centre_row, centre_col) =
            (u64::from(geometry.rows() - 1) / 2, u64::from(geometry.cols() - 1) / 2);
        row.abs_diff(centre_row) <= u64::from(reach) && col.abs_diff(centre_col) <= u64::from(reach)
    };
    let mut openings: Vec<Vec<Move>> = Vec::new();
    let mut draw = 0u64;
    for _ in 0..count {
        let mut opening = Vec::new();
        for _ in 0..TRIES {
            opening.clear();
            let mut game = Game::new(players.clone(), geometry, Storage::Auto);
            for _ in 0..plies {
                let free: Vec<Move> =
                    game.legal_moves_of(game.next_player()).filter(|mv| near(mv.square)).collect();
                draw += 1;
                let Some(&mv) = free.get(index(game_seed(seed, draw), free.len())) else { break };
                let mut after = game.clone();
                if !after.try_play(mv).is_ok_and(|outcome| outcome.is_none()) {
                    break;
                }
                game = after;
                opening.push(mv);
            }
            if !openings.contains(&opening) {
                break;
            }
        }
        openings.push(opening);
    }
    openings
}

/// `random` reduced to an index below `len` (0 when `len` is 0).
fn index(random: u64, len: usize) -> usize {
    usize::try_from(random % (len.max(1) as u64)).unwrap_or(0)
}

/// Game `number`'s seed: `seed` and the number mixed (`SplitMix64`), so
/// games of one event, and of events a seed apart, draw unrelated numbers.
#[must_use]
pub fn game_seed(seed: u64, number: u64) -> u64 {
    let mut z = seed.wrapping_add(number.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Every `k`-element subset of `0..n`, in lexicographic order.
fn groups(n: usize, k: usize) -> Vec<Vec<usize>> {
    fn extend(start: usize, n: usize, k: usize, current: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if current.len() == k {
            out.push(current.clone());
            return;
        }
        for i in start..n {
            current.push(i);
            extend(i + 1, n, k, current, out);
            current.pop();
        }
    }
    let mut out = Vec::new();
    if k > 0 && k <= n {
        extend(0, n, k, &mut Vec::new(), &mut out);
    }
    out
}

/// Why an openings file cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OpeningError {
    /// A line that is not an opening of this game.
    #[error("line {line}: {why}")]
    Line {
        /// The line, from 1.
        line: u64,
        /// What is wrong with it.
        why: String,
    },
    /// No opening in the whole file.
    #[error("no opening in the file; expected lines of square numbers, such as `5 1`")]
    Empty,
}

/// The openings of `text`: one a line, the squares of its moves in order
/// (as a move file's squares), the players moving in turn order from the
/// first; blank lines and lines starting with `#` are skipped. Each must be
/// legal on `geometry` with these `marks` and must not end the game.
///
/// # Errors
/// [`OpeningError`], naming the line.
pub fn openings(text: &str, geometry: Geometry, marks: &[Mark]) -> Result<Vec<Vec<Move>>, OpeningError> {
    let players = marks.iter().map(|&mark| Player { mark, name: mark.to_string() }).collect();
    let players = Players::new(players).unwrap_or_else(|_| Players::classic("X", "O"));
    let mut openings = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let fail = |why: String| OpeningError::Line { line: index as u64 + 1, why };
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut game = Game::new(players.clone(), geometry, Storage::Auto);
        let mut moves = Vec::new();
        for token in line.split_whitespace() {
            let label = players.get(game.next_player()).mark.to_string();
            let mv = game.play(&label, token).map_err(|violation| {
                fail(format!(
                    "`{}` is {violation} (move {} of the opening)",
                    crate::text::line(token),
                    moves.len() + 1
                ))
            })?;
            moves.push(mv);
            if game.outcome().is_some() {
                return Err(fail(
                    "the opening ends the game; an opening must leave moves to play".to_owned(),
                ));
            }
        }
        openings.push(moves);
    }
    if openings.is_empty() {
        return Err(OpeningError::Empty);
    }
    Ok(openings)
}

/// A position to play on from (`match --from`): a move file's board, how
/// many players its players line declares, and its first moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Start {
    /// The file's board.
    pub geometry: Geometry,
    /// Its players, counted: they become the seats, in turn order.
    pub players: usize,
    /// The moves played on from, each by its player's place in turn order.
    pub moves: Vec<Move>,
}

/// Why a move file gives no position to play on from.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// It is no move file.
    #[error("line {}: {}", .0.line(), .0.kind())]
    Malformed(crate::movefile::ParseError),
    /// A move on this line is illegal, or ends the game.
    #[error("line {line}: {why}")]
    Line {
        /// The line, from 1.
        line: u64,
        /// What is wrong there, and what to do.
        why: String,
    },
    /// Fewer moves than `--after` asks for.
    #[error("it has {moves} move{}; --after {after} asks for more", if *.moves == 1 { "" } else { "s" })]
    Short {
        /// The moves it has.
        moves: u64,
        /// The moves asked for.
        after: u64,
    },
}

/// The position after the first `after` moves of the move file `input`
/// (every move without `after`): its board, its players and those moves.
/// Lines past the last move taken are not read (a record's forfeited
/// answer, say). The moves must be legal and leave the game unfinished.
///
/// # Errors
/// [`StartError`]: a malformed file, an illegal move or one that ends the
/// game (naming its line, and the `--after` that starts before it), or
/// fewer moves than `after`.
pub fn start(input: impl std::io::BufRead, after: Option<u64>) -> Result<Start, StartError> {
    let mut reader = crate::movefile::MoveReader::new(input).map_err(StartError::Malformed)?;
    let header = reader.header();
    let (players, geometry) = (header.players.clone(), header.geometry);
    let mut game = Game::new(players.clone(), geometry, Storage::Auto);
    let mut moves = Vec::new();
    let before = |moves: &[Move]| match moves.len() {
        0 => "start from the empty board with --after 0".to_owned(),
        n => format!("use --after N (N up to {n}) to start before it"),
    };
    while after.is_none_or(|after| (moves.len() as u64) < after) {
        let Some(record) = reader.next_record().map_err(StartError::Malformed)? else { break };
        let line = record.line;
        let said = format!(
            "`{} {}`",
            crate::text::inert(&crate::text::line(record.label)),
            crate::text::inert(&crate::text::line(record.square))
        );
        match game.play(record.label, record.square) {
            Ok(mv) => moves.push(mv),
            Err(violation) => {
                let why = format!("{said} is {violation}; {}", before(&moves));
                return Err(StartError::Line { line, why });
            }
        }
        if let Some(outcome) = game.outcome() {
            let result = match outcome {
                Outcome::Win(player) => format!("{} wins", players.get(player).mark),
                Outcome::Cat => "a draw".to_owned(),
            };
            moves.pop();
            let why = format!(
                "the game is over after {said} ({result}): there is nothing to play on from; {}",
                before(&moves)
            );
            return Err(StartError::Line { line, why });
        }
    }
    if let Some(after) = after.filter(|&after| after > moves.len() as u64) {
        return Err(StartError::Short { moves: moves.len() as u64, after });
    }
    Ok(Start { geometry, players: players.len(), moves })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The balanced 15x15 suite in fixtures/ reads as 20 legal openings of
    /// three moves, none repeated.
    #[test]
    fn the_gomoku_suite_reads_as_twenty_openings() {
        let text = include_str!("../../fixtures/openings/gomoku-15x15.txt");
        let openings = openings(text, Geometry::new(15, 15, 5).unwrap(), &[Mark::X, Mark::O]).unwrap();
        assert_eq!(openings.len(), 20);
        assert!(openings.iter().all(|o| o.len() == 3));
        for (i, o) in openings.iter().enumerate() {
            assert!(!openings[..i].contains(o));
        }
    }

    /// Random openings are seeded, near the centre, of the plies asked,
    /// legal, distinct, and never end the game.
    #[test]
    fn random_openings_are_seeded_central_and_distinct() {
        let geometry = Geometry::new(15, 15, 5).unwrap();
        let marks = [Mark::X, Mark::O];
        let openings = random_openings(geometry, &marks, 20, 4, 9);
        assert_eq!(openings, random_openings(geometry, &marks, 20, 4, 9));
        assert_ne!(openings, random_openings(geometry, &marks, 20, 4, 10));
        assert_eq!(openings.len(), 20);
        for (i, opening) in openings.iter().enumerate() {
            assert_eq!(opening.len(), 4);
            assert!(!openings[..i].contains(opening));
            for (ply, mv) in opening.iter().enumerate() {
                assert_eq!(mv.player.index(), ply % 2);
                let (row, col) = (mv.square.index() / 15, mv.square.index() % 15);
                assert!(row.abs_diff(7) <= 3 && col.abs_diff(7) <= 3, "{row},{col}");
            }
        }
        // On 3x3 a long opening stops short of ending the game.
        for opening in random_openings(Geometry::CLASSIC, &marks, 5, 8, 1) {
            let mut game = Game::new(Players::classic("X", "O"), Geometry::CLASSIC, Storage::Auto);
            for mv in opening {
                assert_eq!(game.try_play(mv), Ok(None));
            }
        }
    }

    fn seats(fixtures: &[Fixture]) -> Vec<Vec<usize>> {
        fixtures.iter().map(|f| f.seats.clone()).collect()
    }

    #[test]
    fn a_match_alternates_who_moves_first() {
        assert_eq!(seats(&match_games(2, 4, 0)), [[0, 1], [1, 0], [0, 1], [1, 0]]);
        assert_eq!(seats(&match_games(3, 4, 0)), [[0, 1, 2], [1, 2, 0], [2, 0, 1], [0, 1, 2]]);
        assert_eq!(match_games(2, 3, 0).iter().map(|f| f.number).collect::<Vec<_>>(), [1, 2, 3]);
        assert!(match_games(0, 3, 0).is_empty());
        assert!(match_games(2, 4, 0).iter().all(|f| f.opening.is_none()));
    }

    #[test]
    fn varied_rounds_start_each_from_an_opening_of_their_own() {
        let games = varied_round_robin(3, 2, 3);
        assert_eq!(games.len(), 18);
        assert_eq!(seats(&games[..6]), [[0, 1], [1, 0], [0, 2], [2, 0], [1, 2], [2, 1]]);
        assert!(games[..6].iter().all(|f| f.opening == Some(0)));
        assert!(games[12..].iter().all(|f| f.opening == Some(2)));
        let marks = [Mark::X, Mark::O];
        let openings = varied_openings(Geometry::CLASSIC, &marks, 40, 7);
        assert_eq!(openings.len(), 40);
        assert!(openings[0].is_empty(), "the first round from the empty board");
        for (i, opening) in openings.iter().enumerate().skip(1) {
            assert_eq!(opening.len(), 2, "one move each");
            assert_eq!((opening[0].player.index(), opening[1].player.index()), (0, 1));
            assert_ne!(opening[0].square, opening[1].square);
            assert!(!openings[..i].contains(opening), "a repeat while 72 are left: {i}");
        }
        assert_eq!(openings, varied_openings(Geometry::CLASSIC, &marks, 40, 7), "the seed decides");
        assert_ne!(openings, varied_openings(Geometry::CLASSIC, &marks, 40, 8));
        // No opening ends the game: with one in a row the first move would.
        let one = varied_openings(Geometry::new(3, 3, 1).unwrap(), &marks, 3, 7);
        assert!(one.iter().all(Vec::is_empty));
        // More rounds than openings: repeats, not a loop without end.
        assert_eq!(varied_openings(Geometry::new(1, 2, 2).unwrap(), &marks, 5, 1).len(), 5);
    }

    #[test]
    fn a_match_from_openings_plays_each_from_both_sides() {
        let games = match_games(2, 2, 3);
        assert_eq!(seats(&games), [[0, 1], [1, 0], [0, 1], [1, 0], [0, 1], [1, 0]]);
        assert_eq!(
            games.iter().map(|f| f.opening).collect::<Vec<_>>(),
            [Some(0), Some(0), Some(1), Some(1), Some(2), Some(2)]
        );
        assert_eq!(games.iter().map(|f| f.number).collect::<Vec<_>>(), [1, 2, 3, 4, 5, 6]);
    }

    #[test]
    fn a_start_is_a_move_files_position_with_moves_left() {
        let text =
            "Match game 2 (seed 0): a (X) vs b (O): X wins\nX: a O: b\n\nX 5\nO 1\nX 9\nO 3\nX 2\nO 7\nX 8\n";
        let start = start(text.as_bytes(), Some(2)).unwrap();
        assert_eq!((start.geometry, start.players), (Geometry::CLASSIC, 2));
        assert_eq!(
            start.moves.iter().map(|m| (m.player.index(), m.square.number())).collect::<Vec<_>>(),
            [(0, 5), (1, 1)]
        );
        assert_eq!(super::start(text.as_bytes(), Some(0)).unwrap().moves, []);
        let error =
            |text: &str, after: Option<u64>| super::start(text.as_bytes(), after).unwrap_err().to_string();
        assert_eq!(
            error(text, None),
            "line 10: the game is over after `X 8` (X wins): there is nothing to play on from; use --after N (N up to 6) to start before it"
        );
        assert_eq!(error(text, Some(9)), error(text, None));
        assert_eq!(error(text, Some(8)), error(text, None));
        assert!(super::start(text.as_bytes(), Some(6)).is_ok());
        let short = "t\nX: a O: b\n\nX 5\n";
        assert_eq!(error(short, Some(2)), "it has 1 move; --after 2 asks for more");
        // A forfeit's refused answer, the record's last line, is not read
        // when the moves before it are all that is asked for.
        let forfeit = "t\nX: a O: b\n\nX 5\nO 5\n";
        assert_eq!(
            error(forfeit, None),
            "line 5: `O 5` is marked square; use --after N (N up to 1) to start before it"
        );
        assert_eq!(super::start(forfeit.as_bytes(), Some(1)).unwrap().moves.len(), 1);
        assert_eq!(
            error("t\nX: a O: b\n\nX\u{1b}[2J 5\n", None),
            "line 4: `X\\u{1b}[2J 5` is illegal player; start from the empty board with --after 0"
        );
        assert!(error("", None).starts_with("line 1: "), "{}", error("", None));
        let cat = "t\nX: a O: b\n\nX 1\nO 2\nX 3\nO 5\nX 4\nO 6\nX 8\nO 7\nX 9\n";
        assert!(error(cat, None).contains("(a draw)"), "{}", error(cat, None));
        let big = "t\nX: a O: b Z: c\nBoard: 4x4, 3 in a row\nO 16\n";
        let start = super::start(big.as_bytes(), None).unwrap();
        assert_eq!(
            (start.geometry, start.players, start.moves[0].player.index()),
            (Geometry::new(4, 4, 3).unwrap(), 3, 1)
        );
    }

    #[test]
    fn a_round_robin_plays_every_pair_from_both_sides_and_every_opening() {
        let games = round_robin(3, 2, 1, 0);
        assert_eq!(seats(&games), [[0, 1], [1, 0], [0, 2], [2, 0], [1, 2], [2, 1]]);
        let games = round_robin(2, 2, 2, 2);
        assert_eq!(games.len(), 8);
        assert_eq!(
            games.iter().map(|f| f.opening).collect::<Vec<_>>()[..4],
            [Some(0), Some(0), Some(1), Some(1)]
        );
        assert_eq!(games.last().unwrap().number, 8);
        assert_eq!(round_robin(4, 3, 1, 0).len(), 4 * 3);
        assert!(round_robin(2, 3, 1, 0).is_empty());
    }

    #[test]
    fn openings_are_lines_of_squares_checked_against_the_game() {
        let marks = [Mark::X, Mark::O];
        let list = openings("# centre, then a corner\n5 1\n\n  1\n", Geometry::CLASSIC, &marks).unwrap();
        assert_eq!(list.len(), 2);
        assert_eq!(
            list[0].iter().map(|m| (m.player.index(), m.square.number())).collect::<Vec<_>>(),
            [(0, 5), (1, 1)]
        );
        let error = |text: &str| openings(text, Geometry::CLASSIC, &marks).unwrap_err().to_string();
        assert_eq!(error("5\n5 5\n"), "line 2: `5` is marked square (move 2 of the opening)");
        assert_eq!(error("10\n"), "line 1: `10` is illegal square (move 1 of the opening)");
        assert_eq!(
            error("1 4 2 5 3\n"),
            "line 1: the opening ends the game; an opening must leave moves to play"
        );
        assert_eq!(
            error("# nothing\n\n"),
            "no opening in the file; expected lines of square numbers, such as `5 1`"
        );
    }
}
