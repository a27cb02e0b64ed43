//! Shrinking a failing test: the smallest input found on which a program
//! still fails the same way, to show beside the test itself.
//!
//! The search is delta debugging's `ddmin` (Zeller and Hildebrandt, 2002)
//! over the input's lines: delete halves, then quarters, and so on, keeping
//! each deletion after which the program still fails. A move line names its
//! player, so deleting one line often makes the next a double move; a pass
//! that deletes two lines at a time gets past that. Last, each legal square
//! left is tried as a smaller one. A move file's header (title, players
//! line, and a blank or board line 3) is never touched.
//!
//! This module knows nothing of programs or sandboxes: [`search`] asks an
//! oracle about each candidate, and the grader answers by running it.

pub(in crate::grade) mod driver;

use std::collections::HashSet;
use std::hash::{BuildHasher, RandomState};
use std::time::Duration;

use crate::board::Geometry;
use crate::movefile::MoveReader;

/// How much shrinking one failing test may cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// The most runs of the program, the run that confirms the result among
    /// them.
    pub runs: usize,
    /// The most wall-clock time for the whole of it, the confirming run
    /// included (that run is counted at the time the test itself took).
    pub time: Duration,
}

impl Budget {
    /// 200 runs and 2 seconds: small enough to shrink every failing test of
    /// a class, enough to shrink a classic game fully.
    pub const DEFAULT: Budget = Budget { runs: 200, time: Duration::from_secs(2) };
}

/// An input cut into the part shrinking keeps (a move file's header) and
/// the lines it may delete or simplify.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pieces {
    header: Vec<u8>,
    units: Vec<Vec<u8>>,
    /// A move file's board: which squares are legal, and so worth trying
    /// smaller.
    geometry: Option<Geometry>,
}

impl Pieces {
    /// A move file: lines 1 and 2, and line 3 when it is blank or a board
    /// line, are the header; every later line (moves, blank lines, and
    /// whatever follows the end of the game) may go.
    #[must_use]
    pub fn move_file(input: &[u8]) -> Pieces {
        let lines = lines_with_ends(input);
        let mut header_lines = lines.len().min(2);
        if let Some(third) = lines.get(2) {
            let text = String::from_utf8_lossy(third);
            let text = text.trim();
            if text.is_empty() || text.starts_with("Board:") {
                header_lines = 3;
            }
        }
        let header: Vec<u8> = lines[..header_lines].concat();
        let geometry = MoveReader::new(header.as_slice()).ok().map(|r| r.header().geometry);
        Pieces { header, units: lines[header_lines..].iter().map(|l| l.to_vec()).collect(), geometry }
    }

    /// A console's script: every typed line may go.
    #[must_use]
    pub fn script(input: &[u8]) -> Pieces {
        Pieces {
            header: Vec::new(),
            units: lines_with_ends(input).into_iter().map(<[u8]>::to_vec).collect(),
            geometry: None,
        }
    }

    /// How many lines may go.
    #[must_use]
    pub fn len(&self) -> usize {
        self.units.len()
    }

    /// Whether no line may go.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.units.is_empty()
    }

    /// The input with these lines after the header.
    #[must_use]
    pub fn join(&self, units: &[Vec<u8>]) -> Vec<u8> {
        let mut input = self.header.clone();
        for unit in units {
            input.extend_from_slice(unit);
        }
        input
    }

    /// The lines themselves, as the test has them.
    #[must_use]
    pub fn units(&self) -> &[Vec<u8>] {
        &self.units
    }
}

/// `input`'s lines, each with its line end (`\n`, `\r\n` or a lone `\r`,
/// as a move file may mix them); a last line may have none.
fn lines_with_ends(input: &[u8]) -> Vec<&[u8]> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < input.len() {
        let end = match input[i] {
            b'\r' if input.get(i + 1) == Some(&b'\n') => Some(i + 1),
            b'\n' | b'\r' => Some(i),
            _ => None,
        };
        if let Some(end) = end {
            lines.push(&input[start..=end]);
            start = end + 1;
            i = end;
        }
        i += 1;
    }
    if start < input.len() {
        lines.push(&input[start..]);
    }
    lines
}

/// What the oracle says of a candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tried {
    /// The program fails on it the same way: it is kept.
    Fails,
    /// It passes, fails some other way, or is no candidate at all (the
    /// referee rejects it).
    Not,
    /// The budget is spent, or the grading was stopped: the search ends
    /// with what it has.
    Stop,
}

/// What a candidate is: a deletion, or a simplification (which the oracle
/// may hold to more, such as breaking no more rules than before).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// Lines were deleted.
    Deletion,
    /// A square was made smaller.
    Simplification,
}

/// The most smaller squares tried for one move line.
const SQUARES_TRIED: usize = 8;

/// The lines of the smallest failing input found, and whether the search
/// ended by itself (rather than at [`Tried::Stop`]). `oracle` is asked about
/// each candidate once; the input itself is taken to fail.
pub fn search(pieces: &Pieces, oracle: &mut dyn FnMut(&[u8], Change) -> Tried) -> (Vec<Vec<u8>>, bool) {
    let hasher = RandomState::new();
    let mut search = Search {
        pieces,
        units: pieces.units.clone(),
        seen: HashSet::from([hasher.hash_one(pieces.join(&pieces.units))]),
        hasher,
        oracle,
    };
    let complete = search.run().is_ok();
    (search.units, complete)
}

/// The shortest beginning of `pieces`' lines on which the oracle still
/// says [`Tried::Fails`], by bisection (the whole is known to fail): a
/// console's script, whose first departure decides, is cut only at its
/// end, so the smallest failing input is the game up to where it goes
/// wrong. Returns the lines kept, and whether the search ended by itself
/// rather than at the budget.
pub fn shortest_prefix(
    pieces: &Pieces,
    oracle: &mut dyn FnMut(&[u8], Change) -> Tried,
) -> (Vec<Vec<u8>>, bool) {
    let units = pieces.units();
    let (mut low, mut high) = (0, units.len());
    while low < high {
        let middle = low + (high - low) / 2;
        match oracle(&pieces.join(&units[..middle]), Change::Deletion) {
            Tried::Fails => high = middle,
            Tried::Not => low = middle + 1,
            Tried::Stop => return (units[..high].to_vec(), false),
        }
    }
    (units[..high].to_vec(), true)
}

/// The oracle said [`Tried::Stop`].
struct Stopped;

struct Search<'a> {
    pieces: &'a Pieces,
    /// The smallest failing lines so far.
    units: Vec<Vec<u8>>,
    /// Every input asked about, by its hash (a long file has many
    /// candidates; two that collide only skip one of them).
    seen: HashSet<u64>,
    hasher: RandomState,
    oracle: &'a mut dyn FnMut(&[u8], Change) -> Tried,
}

impl Search<'_> {
    fn run(&mut self) -> Result<(), Stopped> {
        // A program wrong on every input is shown the emptiest one at once.
        if !self.units.is_empty() {
            self.try_units(Vec::new(), Change::Deletion)?;
        }
        // A smaller square can change the game (a win sooner, say), and with
        // it which lines still matter: deletion goes on after it.
        loop {
            self.ddmin()?;
            while self.pairs()? && self.ddmin()? {}
            if !self.simplify()? {
                return Ok(());
            }
        }
    }

    /// Asks about `units`; keeps them if the program fails on them.
    fn try_units(&mut self, units: Vec<Vec<u8>>, change: Change) -> Result<bool, Stopped> {
        let input = self.pieces.join(&units);
        if !self.seen.insert(self.hasher.hash_one(&input)) {
            return Ok(false);
        }
        match (self.oracle)(&input, change) {
            Tried::Fails => {
                self.units = units;
                Ok(true)
            }
            Tried::Not => Ok(false),
            Tried::Stop => Err(Stopped),
        }
    }

    /// `ddmin` by complements: cut the lines into `n` chunks and delete
    /// each in turn; on success go on with `n - 1` chunks, else with twice
    /// as many, until the chunks are single lines. True if anything went.
    fn ddmin(&mut self) -> Result<bool, Stopped> {
        let mut changed = false;
        let mut n = 2;
        while !self.units.is_empty() {
            let len = self.units.len();
            let n_now = n.min(len);
            let mut deleted = false;
            for i in 0..n_now {
                let (from, to) = (i * len / n_now, (i + 1) * len / n_now);
                let candidate: Vec<Vec<u8>> =
                    self.units[..from].iter().chain(&self.units[to..]).cloned().collect();
                if self.try_units(candidate, Change::Deletion)? {
                    deleted = true;
                    break;
                }
            }
            if deleted {
                changed = true;
                n = n_now.saturating_sub(1).max(2);
            } else if n_now >= len {
                break;
            } else {
                n = (n_now * 2).min(len);
            }
        }
        Ok(changed)
    }

    /// Deletes two lines at a time (nearest pairs first), as long as one
    /// such deletion still fails. True if anything went.
    fn pairs(&mut self) -> Result<bool, Stopped> {
        let mut changed = false;
        'again: loop {
            let len = self.units.len();
            for distance in 1..len {
                for i in 0..len - distance {
                    let j = i + distance;
                    let candidate: Vec<Vec<u8>> = self
                        .units
                        .iter()
                        .enumerate()
                        .filter(|&(k, _)| k != i && k != j)
                        .map(|(_, u)| u.clone())
                        .collect();
                    if self.try_units(candidate, Change::Deletion)? {
                        changed = true;
                        continue 'again;
                    }
                }
            }
            return Ok(changed);
        }
    }

    /// Tries each legal square as the smallest that still fails (up to
    /// [`SQUARES_TRIED`] of them, then the square written plainly, `5` for
    /// `05`). Illegal squares are left alone: they are often the point.
    fn simplify(&mut self) -> Result<bool, Stopped> {
        let mut changed = false;
        let Some(geometry) = self.pieces.geometry else { return Ok(false) };
        for k in 0..self.units.len() {
            let Some((start, end, number)) = square_of(&self.units[k], geometry) else { continue };
            let written = &self.units[k][start..end];
            let mut tries: Vec<String> = (1..number).take(SQUARES_TRIED).map(|n| n.to_string()).collect();
            if written != number.to_string().as_bytes() {
                tries.push(number.to_string());
            }
            for square in tries {
                let line = &self.units[k];
                let mut unit = line[..start].to_vec();
                unit.extend_from_slice(square.as_bytes());
                unit.extend_from_slice(&line[end..]);
                let mut candidate = self.units.clone();
                candidate[k] = unit;
                if self.try_units(candidate, Change::Simplification)? {
                    changed = true;
                    break;
                }
            }
        }
        Ok(changed)
    }
}

/// Where a move line's square lies in it, and its number, if the line is a
/// move to a legal square.
fn square_of(line: &[u8], geometry: Geometry) -> Option<(usize, usize, u64)> {
    let text = std::str::from_utf8(line).ok()?;
    let mut fields = text.split_whitespace();
    let (Some(_), Some(square), None) = (fields.next(), fields.next(), fields.next()) else { return None };
    let number = geometry.parse_square(square)?.number();
    let start = square.as_ptr() as usize - text.as_ptr() as usize;
    Some((start, start + square.len(), number))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::Unmatched;
    use crate::grade::Verdict;
    use crate::grade::result::{Evidence, Smallest};

    const GAME: &str =
        "Tic-Tac-Toe Game Data\nX: A B O: C D\n\nX\t3\nO\t1\nX\t5\nO\t2\nX\t7\nO\t9\nY\t4\nX\t5\n";

    /// The moves of an input, one string.
    fn moves(pieces: &Pieces, units: &[Vec<u8>]) -> String {
        String::from_utf8(pieces.join(units)).unwrap().lines().skip(3).collect::<Vec<_>>().join(" / ")
    }

    #[test]
    fn a_script_is_cut_at_its_end_only() {
        let pieces = Pieces::script(b"a\nb\nc\nd\ne\nf\n");
        // It fails once `d` is typed, whatever comes after.
        let mut tried = 0;
        let mut oracle = |input: &[u8], _: Change| {
            tried += 1;
            if input.windows(2).any(|w| w == b"d\n") { Tried::Fails } else { Tried::Not }
        };
        let (kept, complete) = shortest_prefix(&pieces, &mut oracle);
        assert_eq!(pieces.join(&kept), b"a\nb\nc\nd\n");
        assert!(complete);
        assert!(tried <= 3, "bisection: {tried} tries");
    }

    #[test]
    fn the_header_is_kept_and_every_line_end_too() {
        let pieces = Pieces::move_file(GAME.as_bytes());
        assert_eq!(pieces.len(), 8);
        assert_eq!(pieces.join(pieces.units()), GAME.as_bytes());
        assert_eq!(pieces.join(&[]), b"Tic-Tac-Toe Game Data\nX: A B O: C D\n\n");
        // A first move on line 3 is no header; a board line is.
        let pieces = Pieces::move_file(b"t\r\nX: a O: b\rX 1\r\nO 2");
        assert_eq!(pieces.units(), [b"X 1\r\n".to_vec(), b"O 2".to_vec()]);
        assert_eq!(pieces.join(&[]), b"t\r\nX: a O: b\r");
        let pieces = Pieces::move_file(b"t\nX: a O: b\nBoard: 4x4, 3 in a row\nX 16\n");
        assert_eq!(pieces.units(), [b"X 16\n".to_vec()]);
        assert_eq!(pieces.geometry, Geometry::new(4, 4, 3).ok());
        assert!(Pieces::move_file(b"t\nX: a O: b").is_empty());
        assert!(Pieces::move_file(b"").is_empty());
        assert_eq!(Pieces::script(b"5\n1\n\n9").len(), 4);
    }

    /// Searches `GAME` with an oracle that fails when `fails` says, counting
    /// the questions.
    fn shrink(input: &str, fails: impl Fn(&str) -> bool, limit: usize) -> (String, bool, usize) {
        let pieces = Pieces::move_file(input.as_bytes());
        let mut asked = 0;
        let mut oracle = |candidate: &[u8], _: Change| {
            if asked == limit {
                return Tried::Stop;
            }
            asked += 1;
            if fails(std::str::from_utf8(candidate).unwrap()) { Tried::Fails } else { Tried::Not }
        };
        let (units, complete) = search(&pieces, &mut oracle);
        (moves(&pieces, &units), complete, asked)
    }

    /// The lines after the header, as (label, square) pairs.
    fn played(input: &str) -> Vec<(String, String)> {
        input
            .lines()
            .skip(3)
            .filter_map(|l| {
                let mut f = l.split_whitespace();
                Some((f.next()?.to_owned(), f.next()?.to_owned()))
            })
            .collect()
    }

    /// X wins on 3-5-7 with X and O taking turns, as a referee would see it
    /// (a double move or a marked square is ignored).
    fn x_wins_357(input: &str) -> bool {
        let mut board = [' '; 10];
        let mut last = ' ';
        for (label, square) in played(input) {
            let Ok(n) = square.parse::<usize>() else { continue };
            let mark = label.chars().next().unwrap();
            if !(1..=9).contains(&n) || !"XO".contains(label.as_str()) || mark == last || board[n] != ' ' {
                continue;
            }
            board[n] = mark;
            last = mark;
            if board[3] == 'X' && board[5] == 'X' && board[7] == 'X' {
                return true;
            }
        }
        false
    }

    #[test]
    fn a_missed_diagonal_shrinks_to_the_five_moves_that_make_it_and_smaller_squares() {
        let (moves, complete, asked) = shrink(GAME, x_wins_357, usize::MAX);
        // Pairs go before squares shrink: X 5 / O 2 went, then O 9 became O 2.
        assert_eq!(moves, "X\t3 / O\t1 / X\t7 / O\t2 / X\t5");
        assert!(complete);
        assert!(asked < 200, "{asked}");
    }

    #[test]
    fn pairs_get_past_what_single_deletions_cannot() {
        // Whose turn it is matters: O 8 / X 4 can only go together.
        let input = "t\nX: a O: b\n\nX 3\nO 8\nX 4\nO 1\nX 5\nO 2\nX 7\n";
        let (moves, ..) = shrink(input, x_wins_357, usize::MAX);
        assert_eq!(moves, "X 3 / O 1 / X 5 / O 2 / X 7");
    }

    #[test]
    fn one_odd_line_is_found_alone_and_kept_as_written() {
        let input = "t\nX: a O: b\n\nX 5\nO 1\nX 0\nX 10\nX 2\nO 9\nX 8\n";
        let (moves, complete, asked) = shrink(input, |i| i.contains("X 10\n"), usize::MAX);
        assert_eq!(moves, "X 10");
        assert!(complete);
        assert!(asked <= 12, "{asked}");
    }

    #[test]
    fn the_budget_ends_the_search_with_what_it_found() {
        let (moves, complete, asked) = shrink(GAME, x_wins_357, 3);
        assert_eq!(asked, 3);
        assert!(!complete);
        // The empty game, then either half: none fails, so all is kept.
        assert_eq!(moves, "X\t3 / O\t1 / X\t5 / O\t2 / X\t7 / O\t9 / Y\t4 / X\t5");
        // Nothing fails: nothing goes, and every question is a new one.
        let (moves, complete, asked) = shrink(GAME, |_| false, usize::MAX);
        assert_eq!(moves.matches(" / ").count(), 7);
        assert!(complete);
        assert!(asked < 200, "{asked}");
    }

    /// A smallest input of either kind, with these counts.
    fn smallest(evidence: Evidence) -> Smallest {
        Smallest {
            input: "X 5\n".to_owned(),
            evidence,
            verdict: Verdict::Wrong,
            detail: "wrong".to_owned(),
            expected: String::new(),
            actual: String::new(),
            first_difference: None,
            stderr: String::new(),
            runs: 3,
            seconds: 0.5,
            complete: true,
            unmatched: Unmatched::default(),
        }
    }

    #[test]
    fn both_kinds_are_written_with_the_same_keys_and_their_two_counts() {
        let game = smallest(Evidence::Transcript {
            lines: 1,
            original_lines: 9,
            unit: "move lines".into(),
            moves: vec!["X 5".to_owned()],
        });
        let call = smallest(Evidence::Call { failed: 12, tried: 500 });
        let json = |s: &Smallest| serde_json::to_string(s).unwrap();
        let tail = r#""verdict":"wrong","detail":"wrong","expected":"","actual":"","first_difference":null,"stderr":"","runs":3,"seconds":0.5,"complete":true}"#;
        assert_eq!(json(&game), format!(r#"{{"input":"X 5\n","lines":1,"original_lines":9,{tail}"#));
        assert_eq!(json(&call), format!(r#"{{"input":"X 5\n","lines":12,"original_lines":500,{tail}"#));
        assert_eq!(game.heading(), "the smallest game that still fails (1 of the test's 9 move lines)");
        assert_eq!(call.heading(), "the smallest failing call (12 of 500 cases failed)");
    }

    #[test]
    fn a_console_script_may_lose_any_line() {
        let pieces = Pieces::script(b"5\n1\n9\n3\n");
        let mut oracle =
            |c: &[u8], _: Change| if c.windows(2).any(|w| w == b"9\n") { Tried::Fails } else { Tried::Not };
        let (units, _) = search(&pieces, &mut oracle);
        assert_eq!(pieces.join(&units), b"9\n");
    }
}
