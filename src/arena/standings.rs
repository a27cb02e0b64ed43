//! The table after the games: each participant's games, wins, draws,
//! losses, points (a win 1, a draw ½), forfeits by kind and Elo, and the
//! cross table of what each scored against each other.
//!
//! A game of three or more players counts, in the cross table, against
//! every other player in it.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::text;

use super::contest::{Ending, Score};
use super::elo::{self, Elo};
use super::entrant::ForfeitKind;
use super::result::GameResult;

/// One participant's line of the table.
#[derive(Clone, Debug, PartialEq)]
pub struct Standing {
    /// Its name.
    pub name: String,
    /// Games played.
    pub games: u64,
    /// Games won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games lost (forfeits among them).
    pub losses: u64,
    /// Points in halves: a win 2, a draw 1.
    pub half_points: u64,
    /// Its forfeits, by kind (kinds it never forfeited for are left out).
    pub forfeits: BTreeMap<ForfeitKind, u64>,
    /// Its Elo against its opponents, where defined.
    pub elo: Option<Elo>,
}

impl Standing {
    /// Its points: `4.5`, `3`.
    #[must_use]
    pub fn points(&self) -> String {
        half_points(self.half_points)
    }
}

/// Points in halves as reports print them: `4.5`, `3`.
#[must_use]
pub fn half_points(half: u64) -> String {
    if half.is_multiple_of(2) { (half / 2).to_string() } else { format!("{}.5", half / 2) }
}

/// One cell of the cross table: what the row's participant scored against
/// the column's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cross {
    /// Points in halves.
    pub half_points: u64,
    /// Games played together.
    pub games: u64,
}

/// The whole table.
#[derive(Clone, Debug, PartialEq)]
pub struct Standings {
    /// One line per participant, in the order given.
    pub rows: Vec<Standing>,
    /// `cross[a][b]`: what `a` scored against `b`.
    pub cross: Vec<Vec<Cross>>,
    /// Games counted.
    pub games: u64,
}

impl Standings {
    /// The table of `games` between participants named `names`.
    #[must_use]
    pub fn new(names: &[String], games: &[GameResult]) -> Standings {
        let mut rows: Vec<Standing> = names
            .iter()
            .map(|name| Standing {
                name: name.clone(),
                games: 0,
                wins: 0,
                draws: 0,
                losses: 0,
                half_points: 0,
                forfeits: BTreeMap::new(),
                elo: None,
            })
            .collect();
        let mut cross = vec![vec![Cross::default(); names.len()]; names.len()];
        for game in games {
            for (seat, &who) in game.seats.iter().enumerate() {
                let score = game.score(seat);
                let row = &mut rows[who];
                row.games += 1;
                row.half_points += score.half_points();
                match score {
                    Score::Win => row.wins += 1,
                    Score::Draw => row.draws += 1,
                    Score::Loss => row.losses += 1,
                }
                if let Ending::Forfeit { seat: offender, forfeit } = &game.ending
                    && *offender == seat
                {
                    *row.forfeits.entry(forfeit.kind).or_default() += 1;
                }
                for &other in game.seats.iter().filter(|&&other| other != who) {
                    cross[who][other].games += 1;
                    cross[who][other].half_points += score.half_points();
                }
            }
        }
        for row in &mut rows {
            row.elo = elo::elo(row.wins, row.draws, row.losses);
        }
        Standings { rows, cross, games: games.len() as u64 }
    }

    /// The participants from first to last: most points first, ties in the
    /// order given.
    #[must_use]
    pub fn ranked(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.rows.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(self.rows[i].half_points));
        order
    }

    /// The table as text (`standings.txt`, and what the command prints):
    /// the standings, each participant's forfeits, then the cross table.
    #[must_use]
    pub fn text(&self) -> String {
        let order = self.ranked();
        let names: Vec<String> = self.rows.iter().map(|r| text::inert(&r.name).into_owned()).collect();
        let width = names.iter().map(|n| n.chars().count()).max().unwrap_or(0).max("participant".len());
        let pad = |text: &str, width: usize| {
            format!("{text}{}", " ".repeat(width.saturating_sub(text.chars().count())))
        };
        let mut out = String::new();
        let _ = writeln!(
            out,
            " #  {}  games  wins  draws  losses  points   score  Elo (95% interval)",
            pad("participant", width)
        );
        for (rank, &i) in order.iter().enumerate() {
            let r = &self.rows[i];
            let _ = writeln!(
                out,
                "{:>2}  {}  {:>5}  {:>4}  {:>5}  {:>6}  {:>6}  {:>6}  {}",
                rank + 1,
                pad(&names[i], width),
                r.games,
                r.wins,
                r.draws,
                r.losses,
                r.points(),
                score(r),
                r.elo.map_or_else(|| "-".to_owned(), |e| elo_text(&e)),
            );
        }
        let forfeited: Vec<usize> =
            order.iter().copied().filter(|&i| !self.rows[i].forfeits.is_empty()).collect();
        if !forfeited.is_empty() {
            out.push_str("\nForfeits:\n");
            for i in forfeited {
                let kinds: Vec<String> =
                    self.rows[i].forfeits.iter().map(|(kind, n)| format!("{n} {kind}")).collect();
                let _ = writeln!(out, "  {}  {}", pad(&names[i], width), kinds.join(", "));
            }
        }
        out.push_str("\nCross table (points the row scored against the column / games):\n");
        let cells: Vec<Vec<String>> = order
            .iter()
            .map(|&a| {
                order
                    .iter()
                    .map(|&b| {
                        let c = self.cross[a][b];
                        if a == b {
                            "-".to_owned()
                        } else if c.games == 0 {
                            ".".to_owned()
                        } else {
                            format!("{}/{}", half_points(c.half_points), c.games)
                        }
                    })
                    .collect()
            })
            .collect();
        let column = |j: usize| {
            let name = names[order[j]].chars().count();
            cells.iter().map(|row| row[j].len()).max().unwrap_or(0).max(name)
        };
        let widths: Vec<usize> = (0..order.len()).map(column).collect();
        let mut header = format!("  {}", " ".repeat(width));
        for (j, &b) in order.iter().enumerate() {
            let _ = write!(header, "  {}", pad(&names[b], widths[j]));
        }
        let _ = writeln!(out, "{}", header.trim_end());
        for (row, &a) in cells.iter().zip(&order) {
            let mut line = format!("  {}", pad(&names[a], width));
            for (j, cell) in row.iter().enumerate() {
                let _ = write!(line, "  {cell:>w$}", w = widths[j]);
            }
            let _ = writeln!(out, "{line}");
        }
        out
    }
}

/// The share of the points: `75.0%`.
#[allow(clippy::cast_precision_loss)] // counts far below 2^52
fn score(row: &Standing) -> String {
    if row.games == 0 {
        return "-".to_owned();
    }
    format!("{:.1}%", row.half_points as f64 * 50.0 / row.games as f64)
}

/// `+190.8 [+12.3, +inf]`.
#[must_use]
pub fn elo_text(e: &Elo) -> String {
    let low = e.low.map_or_else(|| "-inf".to_owned(), elo::shown);
    let high = e.high.map_or_else(|| "+inf".to_owned(), elo::shown);
    format!("{} [{low}, {high}]", elo::shown(e.value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::entrant::Forfeit;
    use crate::player::Mark;

    fn game(seats: &[usize], ending: Ending) -> GameResult {
        GameResult {
            number: 1,
            seats: seats.to_vec(),
            marks: crate::corpus::MARKS[..seats.len()].iter().map(|&c| Mark::new(c).unwrap()).collect(),
            moves: 5,
            ending,
            record: None,
            stderr: None,
            resumed: false,
        }
    }

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn standings_add_up() {
        let time = Forfeit::new(ForfeitKind::Time, "slow");
        let games = [
            game(&[0, 1], Ending::Win(0)),
            game(&[1, 0], Ending::Draw),
            game(&[0, 2], Ending::Forfeit { seat: 1, forfeit: time.clone() }),
            game(&[2, 1], Ending::Win(1)),
            game(&[0, 1, 2], Ending::Forfeit { seat: 1, forfeit: time }),
        ];
        let s = Standings::new(&names(&["a", "b", "c"]), &games);
        let a = &s.rows[0];
        assert_eq!((a.games, a.wins, a.draws, a.losses, a.points()), (4, 2, 2, 0, "3".to_owned()));
        let b = &s.rows[1];
        assert_eq!((b.games, b.wins, b.draws, b.losses, b.points()), (4, 1, 1, 2, "1.5".to_owned()));
        assert_eq!(b.forfeits, BTreeMap::from([(ForfeitKind::Time, 1)]));
        let c = &s.rows[2];
        assert_eq!((c.games, c.wins, c.draws, c.losses, c.points()), (3, 0, 1, 2, "0.5".to_owned()));
        // Every game hands out one point with two players, and as many
        // halves as it has players less one's with three: 4 × 2 + 2 halves.
        assert_eq!(s.rows.iter().map(|r| r.half_points).sum::<u64>(), 4 * 2 + 2);
        assert_eq!(s.cross[0][1], Cross { half_points: 4, games: 3 });
        assert_eq!(s.cross[1][0], Cross { half_points: 1, games: 3 });
        assert_eq!(s.ranked(), [0, 1, 2]);
        // 75%: defined, though a never lost; none for 0 or 100%.
        assert!((a.elo.unwrap().value - 190.85).abs() < 0.01, "{:?}", a.elo);
        let clean = Standings::new(&names(&["a", "b"]), &games[..1]);
        assert_eq!((clean.rows[0].elo, clean.rows[1].elo), (None, None));
    }

    #[test]
    fn the_text_table_lines_up() {
        let games = [
            game(&[0, 1], Ending::Win(1)),
            game(&[1, 0], Ending::Draw),
            game(&[0, 1], Ending::Draw),
            game(&[1, 0], Ending::Draw),
        ];
        let s = Standings::new(&names(&["perfect", "x\u{1b}y"]), &games);
        assert_eq!(
            s.text(),
            " #  participant  games  wins  draws  losses  points   score  Elo (95% interval)
 1  x\\u{1b}y         4     1      3       0     2.5   62.5%  +88.7 [-61.2, +284.4]
 2  perfect          4     0      3       1     1.5   37.5%  -88.7 [-284.4, +61.2]

Cross table (points the row scored against the column / games):
               x\\u{1b}y  perfect
  x\\u{1b}y            -    2.5/4
  perfect         1.5/4        -
"
        );
    }
}
