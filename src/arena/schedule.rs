//! Who plays whom, in which seats, from which opening: a match's games and
//! a tournament's round robin, as numbered [`Fixture`]s.
//!
//! - A match of N games rotates the seats each game: with two participants
//!   they take turns moving first; with more, each moves first in turn.
//! - A tournament, each round, seats every group of `players` participants
//!   (every pair, with two) in every rotation, once from each opening.

use crate::board::{Geometry, Storage};
use crate::game::{Game, Move};
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
/// (none without participants).
#[must_use]
pub fn match_games(participants: usize, games: u64) -> Vec<Fixture> {
    if participants == 0 {
        return Vec::new();
    }
    (0..games)
        .map(|i| {
            let shift = usize::try_from(i % participants as u64).unwrap_or(0);
            Fixture {
                number: i + 1,
                seats: (0..participants).map(|j| (j + shift) % participants).collect(),
                opening: None,
            }
        })
        .collect()
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
                for shift in 0..players {
                    let seats = (0..players).map(|j| group[(j + shift) % players]).collect();
                    fixtures.push(Fixture { number: fixtures.len() as u64 + 1, seats, opening });
                }
            }
        }
    }
    fixtures
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

#[cfg(test)]
mod tests {
    use super::*;

    fn seats(fixtures: &[Fixture]) -> Vec<Vec<usize>> {
        fixtures.iter().map(|f| f.seats.clone()).collect()
    }

    #[test]
    fn a_match_alternates_who_moves_first() {
        assert_eq!(seats(&match_games(2, 4)), [[0, 1], [1, 0], [0, 1], [1, 0]]);
        assert_eq!(seats(&match_games(3, 4)), [[0, 1, 2], [1, 2, 0], [2, 0, 1], [0, 1, 2]]);
        assert_eq!(match_games(2, 3).iter().map(|f| f.number).collect::<Vec<_>>(), [1, 2, 3]);
        assert!(match_games(0, 3).is_empty());
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
