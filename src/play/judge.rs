//! A console program judged by the game it shows, not by its bytes.
//!
//! The typed script is played on the profile's own console, as `play
//! --profile` plays it, with one change: each computer move is the one the
//! program showed (read from its `AI's move: N` line or from the board it
//! drew next), kept only if the assignment allows it in that position. The
//! session that comes out is what a correct program prints *for the game it
//! played*; the program's output is then compared with it line by line,
//! blank lines and runs of spaces forgiven, the lines the handout leaves
//! free accepted in any wording. The first place the program departs —
//! a computer move the rules forbid, a board without the typed move, a
//! wrong announcement — decides, whatever it does after.
//!
//! What each profile fixes and leaves free ([`Lines`]):
//!
//! - `uri`, `xtreme`, `default`: every line is the starter's (or the
//!   seed's), so every line is compared.
//! - `extended`: every line but the draw line and the refusals the official
//!   session does not show (a number to win out of range, a player token that
//!   is not one character), which are accepted in any wording, in one line
//!   or more, as long as none of those lines is one the session fixes.
//! - `smalltalk`: no original program is public, so only the game is fixed:
//!   the boards (each change of the board, in order) and the result, told by
//!   a line naming the winner's mark and "win", or a tie, draw or cat's game.

use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::io::Write;
use std::rc::Rc;

pub use super::dialect::Lines;
use super::dialect::{Decider, Dialect, tells_a_tie};
use super::{PlayError, Profile, Side, session};
use crate::board::Square;
use crate::game::Game;
use crate::text;

/// What the program showed, judged.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Judgement {
    /// Where and why the program first departed from what the assignment
    /// allows; `None` if it never did.
    pub departure: Option<Departure>,
    /// The computer moves on which the assignment left a choice (to chance),
    /// and what the program chose.
    pub choices: Vec<Choice>,
    /// Whether the script's last game was played to its end (not cut off by
    /// the end of the script).
    pub finished: bool,
    /// What a correct program prints for the game this one played.
    pub expected: Vec<u8>,
}

/// Where a program departed from the game the assignment allows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Departure {
    /// What kind of departure.
    pub kind: DepartureKind,
    /// Why, in words: `move 4: the computer took 7; it must block at 3`.
    pub why: String,
}

/// How a program departed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DepartureKind {
    /// It showed something the assignment does not allow.
    Wrong,
    /// Its output stopped while the game the script plays was still going:
    /// how it ended (a crash, the time limit) says why.
    Short,
}

/// A computer move the assignment leaves to chance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    /// The position it was made in (the board, a character a square).
    pub position: String,
    /// What the rule chooses among: `corner`, `centre square`, `square`.
    pub what: &'static str,
    /// The square chosen, numbered from 1.
    pub square: u64,
    /// The squares allowed, numbered from 1.
    pub among: Vec<u64>,
}

/// One line of output as it is compared: trimmed, runs of spaces one
/// space, terminal escapes and carriage returns gone.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Line {
    /// Its number in the output, from 1.
    number: usize,
    text: String,
}

/// The lines of `output` that are not blank, each normalized.
fn lines(output: &[u8], most: usize) -> Vec<Line> {
    String::from_utf8_lossy(output)
        .split('\n')
        .enumerate()
        .map(|(i, raw)| Line { number: i + 1, text: normalized(raw) })
        .filter(|l| !l.text.is_empty())
        .take(most)
        .collect()
}

/// `raw` trimmed, each run of whitespace one space, terminal control
/// sequences gone: in one pass, whatever its length.
fn normalized(raw: &str) -> String {
    let mut text = String::with_capacity(raw.len());
    let mut space = false;
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        // A terminal's control sequence (the clear screen a redraw sends).
        if c == '\u{1b}' {
            if chars.peek() == Some(&'[') {
                chars.next();
                for c in chars.by_ref() {
                    if c.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
            continue;
        }
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space && !text.is_empty() {
            text.push(' ');
        }
        space = false;
        text.push(c);
    }
    text
}

/// What reading a program's output for boards cost: the unit a test counts
/// to show the judge's work is bounded by the output, not by how often a
/// line is looked at.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Work {
    /// Lines looked at as possible board rows.
    lines_examined: usize,
    /// Lines split into cells (those short enough to be a row).
    lines_split: usize,
    /// The longest line split into cells, in bytes.
    longest_split: usize,
}

/// A board row of `cols` cells as a line shows it: its cells, each a mark,
/// a free square's number or `-`; `None` if the line is no such row. A
/// row's cells are one character each, with at most ` | ` between them, so
/// a line of `4 × cols` bytes or more is none, and is never split.
fn board_row(line: &str, cols: usize, work: &mut Work) -> Option<Vec<char>> {
    work.lines_examined += 1;
    if line.len() >= 4 * cols {
        return None;
    }
    work.lines_split += 1;
    work.longest_split = work.longest_split.max(line.len());
    let cells: Vec<&str> =
        if line.contains('|') { line.split('|').map(str::trim).collect() } else { line.split(' ').collect() };
    if cells.len() != cols || cells.len() < 3 || cells.iter().any(|c| c.chars().count() != 1) {
        return None;
    }
    let cells: Vec<char> = cells.iter().filter_map(|c| c.chars().next()).collect();
    cells.iter().all(|c| c.is_ascii_alphanumeric() || *c == '-').then_some(cells)
}

/// A board a run of lines shows.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Board {
    /// Its cells, in rows from the top left (`-` for a free square).
    cells: String,
    /// The index, among the lines, of its first row.
    first: usize,
    /// The index, among the lines, of its last row.
    last: usize,
}

/// The boards of `rows` consecutive board rows of `cols` cells that
/// `lines` show, in order, each line looked at once.
fn boards(lines: &[Line], rows: usize, cols: usize, work: &mut Work) -> Vec<Board> {
    let mut found = Vec::new();
    let mut run: Vec<Vec<char>> = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        if let Some(cells) = board_row(&line.text, cols, work) {
            run.push(cells);
            if run.len() == rows {
                let cells: String = run
                    .iter()
                    .flatten()
                    .map(|&c| if c.is_ascii_digit() || c == '-' { '-' } else { c.to_ascii_uppercase() })
                    .collect();
                found.push(Board { cells, first: index + 1 - rows, last: index });
                run.clear();
            }
        } else {
            run.clear();
        }
    }
    found
}

/// The indices of the boards that differ from the board before them: each
/// change of the board once.
fn changes(boards: &[Board]) -> Vec<usize> {
    (0..boards.len()).filter(|&i| i == 0 || boards[i].cells != boards[i - 1].cells).collect()
}

/// The boards of one size that a program's output shows, read once.
struct BoardsShown {
    /// The boards' rows and columns.
    size: (usize, usize),
    found: Vec<Board>,
    /// The indices in `found` of each change of the board ([`changes`]).
    changes: Vec<usize>,
    /// For each board, the index of the next board that differs from it
    /// (`found.len()` if none does).
    next_change: Vec<usize>,
}

/// A program's output, read once: its lines, and the boards of each size
/// asked for, each size read at most once.
struct Shown {
    lines: Vec<Line>,
    boards: RefCell<Vec<Rc<BoardsShown>>>,
    work: Cell<Work>,
}

impl Shown {
    fn new(output: &[u8]) -> Shown {
        Shown {
            lines: lines(output, MOST_LINES),
            boards: RefCell::new(Vec::new()),
            work: Cell::new(Work::default()),
        }
    }

    /// The boards of `rows` by `cols` the output shows.
    fn boards(&self, rows: usize, cols: usize) -> Rc<BoardsShown> {
        if let Some(read) = self.boards.borrow().iter().find(|read| read.size == (rows, cols)) {
            return Rc::clone(read);
        }
        let mut work = self.work.get();
        let found = boards(&self.lines, rows, cols, &mut work);
        self.work.set(work);
        let mut next_change = vec![found.len(); found.len()];
        for i in (0..found.len().saturating_sub(1)).rev() {
            next_change[i] = if found[i + 1].cells == found[i].cells { next_change[i + 1] } else { i + 1 };
        }
        let read = Rc::new(BoardsShown { size: (rows, cols), changes: changes(&found), found, next_change });
        self.boards.borrow_mut().push(Rc::clone(&read));
        read
    }
}

/// The board of `game` as [`Board::cells`] writes one.
fn cells(game: &Game) -> String {
    let board = game.board();
    let g = board.geometry();
    (0..g.cells())
        .map(|i| {
            board
                .get(Square::from_index(i))
                .map_or('-', |p| game.players().get(p).mark.to_string().chars().next().unwrap_or('?'))
        })
        .collect()
}

/// A list of square numbers in words: `3`, `1 or 3`, `1, 3, 7 or 9`.
fn either(squares: &[Square]) -> String {
    let numbers: Vec<String> = squares.iter().map(|s| s.number().to_string()).collect();
    match numbers.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

/// The most lines of a program's output read: far more than any session
/// the scripts play, and a bound on the work whatever it printed.
const MOST_LINES: usize = 100_000;

/// What the computer-move oracle learned while the session was replayed.
#[derive(Default)]
struct Replay {
    departure: Option<String>,
    choices: Vec<Choice>,
}

/// Judges `output`, a program's answer to the typed `script`, by the game
/// it shows on `profile`'s console with X and O played by `sides` (its own
/// computer players seeded with `seed` where the program's move cannot be
/// read).
///
/// # Errors
/// The profile cannot play the script (it could not when the test was
/// made either).
pub fn judge(
    profile: Profile,
    sides: [Side; 2],
    seed: u64,
    script: &[u8],
    output: &[u8],
) -> Result<Judgement, PlayError> {
    judge_counting(profile, sides, seed, script, output).map(|(judgement, _)| judgement)
}

/// [`judge`], and what reading the program's output for boards cost.
fn judge_counting(
    profile: Profile,
    sides: [Side; 2],
    seed: u64,
    script: &[u8],
    output: &[u8],
) -> Result<(Judgement, Work), PlayError> {
    let dialect = profile.dialect();
    let shown = Rc::new(Shown::new(output));
    let written = Rc::new(RefCell::new(Vec::new()));
    let replay = Rc::new(RefCell::new(Replay::default()));
    let chooser = {
        let (shown, written, replay) = (Rc::clone(&shown), Rc::clone(&written), Rc::clone(&replay));
        Box::new(move |game: &Game, own: Square| {
            let mut replay = replay.borrow_mut();
            if replay.departure.is_some() || !dialect.reads_computer_moves() {
                return own;
            }
            // What the session has written so far: bounded by the session,
            // whatever the program printed.
            let so_far = lines(&written.borrow(), MOST_LINES);
            let Some(square) = shown_move(dialect, game, &so_far, &shown) else { return own };
            let (allowed, decider) = dialect.allowed(game, own);
            if !allowed.contains(&square) {
                let number = game.moves_made() + 1;
                let (who, rule) = (dialect.computer(), decider.must(&either(&allowed)));
                replay.departure = Some(format!("move {number}: {who} took {}; {rule}", square.number()));
                return own;
            }
            // Several winning (or blocking) squares are the program's to
            // choose among as it likes; the seed leaves only the centre, the
            // corner and the last free square to chance.
            if let Decider::Strategy(rule) = decider
                && allowed.len() > 1
                && decider.by_chance()
            {
                replay.choices.push(Choice {
                    position: cells(game),
                    what: rule.name(),
                    square: square.number(),
                    among: allowed.iter().map(|s| s.number()).collect(),
                });
            }
            square
        }) as super::Chooser
    };
    let mut finished = false;
    {
        let sink = SharedWriter(Rc::clone(&written));
        let mut console = profile.console_with(sides, script, sink, Some(chooser));
        session(console.as_mut(), seed, |_, played| {
            finished = played.is_finished();
            Ok::<(), PlayError>(())
        })?;
    }
    let expected = written.borrow().clone();
    let replay = std::mem::take(&mut *replay.borrow_mut());
    let departure = match replay.departure {
        Some(why) => Some(Departure { kind: DepartureKind::Wrong, why }),
        None => compare(dialect, &lines(&expected, MOST_LINES), &shown, finished),
    };
    Ok((Judgement { departure, choices: replay.choices, finished, expected }, shown.work.get()))
}

/// The square the program's computer player took in `game`, as its output
/// shows it just after what the session has written so far: the line that
/// announces it, in a dialect that does (`AI's move: N`), else the next
/// board it drew. `None` if it cannot be read.
fn shown_move(dialect: &dyn Dialect, game: &Game, so_far: &[Line], shown: &Shown) -> Option<Square> {
    let g = game.board().geometry();
    let at = aligned(dialect, so_far, shown)?;
    let said = shown.lines.get(at..)?.iter().take(3).find_map(|l| dialect.announced_move(&l.text));
    if let Some(number) = said {
        return g.parse_square(number.trim());
    }
    let now = cells(game);
    let boards = shown.boards(g.rows() as usize, g.cols() as usize);
    // The first board drawn from `at` on that differs from the game's.
    let first = boards.found.partition_point(|b| b.first < at);
    let next = match boards.found.get(first)? {
        board if board.cells != now => board,
        _ => boards.found.get(boards.next_change[first])?,
    };
    let mut changed = now.chars().zip(next.cells.chars()).enumerate().filter(|(_, (a, b))| a != b);
    let (index, (_, _)) = changed.next()?;
    if changed.next().is_some() {
        return None;
    }
    Some(Square::from_index(index as u64))
}

/// Where in the program's lines the session's `so_far` ends: the same
/// number of lines, or (for a profile that compares only the boards) the
/// line after the same number of changes of the board.
fn aligned(dialect: &dyn Dialect, so_far: &[Line], shown: &Shown) -> Option<usize> {
    match dialect.fixed_lines() {
        Lines::All => (so_far.len() <= shown.lines.len()).then_some(so_far.len()),
        // Never asked: a profile with free lines reads no computer move
        // from the output ([`Dialect::reads_computer_moves`]).
        Lines::AllButFree => None,
        Lines::BoardsAndResult => {
            let count = changes(&boards(so_far, 3, 3, &mut Work::default())).len();
            if count == 0 {
                return Some(0);
            }
            let theirs = shown.boards(3, 3);
            theirs.changes.get(count - 1).map(|&i| theirs.found[i].last + 1)
        }
    }
}

/// Whether `word` begins with `prefix`, in any case.
fn starts_with_ignoring_case(word: &str, prefix: &str) -> bool {
    word.len() >= prefix.len() && word.as_bytes()[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
}

/// The result a line tells, for [`Lines::BoardsAndResult`]: `X` for a line
/// naming X's win, `tie` for a tie or draw. Read in one pass, without
/// copying the line, whatever its length.
fn result(line: &str) -> Option<String> {
    let words = || line.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty());
    if words().any(|w| ["tie", "draw", "cat"].iter().any(|p| starts_with_ignoring_case(w, p))) {
        return Some("tie".to_owned());
    }
    let bytes = line.as_bytes();
    if bytes.windows(3).any(|w| w.eq_ignore_ascii_case(b"win") || w.eq_ignore_ascii_case(b"won")) {
        let mut marks = words().filter(|w| w.len() == 1);
        if let (Some(mark), None) = (marks.next(), marks.next()) {
            return Some(mark.to_uppercase());
        }
    }
    None
}

/// How far a program's lines answer a session's ([`walk`]).
enum Walk {
    /// Every line of the session is answered; the program's next line is
    /// at this index.
    Matched(usize),
    /// The program's lines depart from the session's.
    Departed(Departure),
}

/// Walks the program's lines `shown` along the session's `expected` for
/// [`Lines::All`] and [`Lines::AllButFree`]: each fixed line must be the
/// program's next line. Under [`Lines::AllButFree`] a run of free lines is
/// answered by one or more of the program's lines in any words, so a draw
/// line or a refusal may take two lines, but none of them may be a line
/// the session fixes ([`Dialect::is_never_free`]), nor tell a tie where the
/// free lines tell none: a free line can be neither left out nor stand for
/// another result (`Player O wins` where the game is a draw).
fn walk(dialect: &dyn Dialect, expected: &[Line], shown: &[Line]) -> Walk {
    let wrong = |why: String| Walk::Departed(Departure { kind: DepartureKind::Wrong, why });
    let short = |why: String| Walk::Departed(Departure { kind: DepartureKind::Short, why });
    let policy = dialect.fixed_lines();
    let free = |line: &Line| policy == Lines::AllButFree && dialect.is_free(&line.text);
    let fixed: HashSet<&str> = expected.iter().filter(|l| !free(l)).map(|l| l.text.as_str()).collect();
    let (mut i, mut at) = (0, 0);
    while let Some(want) = expected.get(i) {
        if free(want) {
            let next = expected[i..].iter().position(|l| !free(l)).map_or(expected.len(), |n| i + n);
            // The free lines may be said in other words, but not as
            // another result: only a run that stands for a tie may tell one.
            let tie = expected[i..next].iter().any(|l| tells_a_tie(&l.text));
            let start = at;
            while let Some(got) = shown.get(at) {
                let ends = expected.get(next).is_some_and(|n| n.text == got.text);
                let another_result = !tie && tells_a_tie(&got.text);
                if ends
                    || another_result
                    || fixed.contains(got.text.as_str())
                    || dialect.is_never_free(&got.text)
                {
                    break;
                }
                at += 1;
            }
            if at == start {
                let Some(got) = shown.get(at) else {
                    return short(format!("its output ends before `{}`", want.text));
                };
                return wrong(format!(
                    "line {}: expected `{}` or other words for it, found `{}`",
                    got.number,
                    want.text,
                    text::line(&got.text)
                ));
            }
            i = next;
            continue;
        }
        let Some(got) = shown.get(at) else {
            return short(format!("its output ends before `{}`", want.text));
        };
        // The last line, cut off where the output stopped.
        if at + 1 == shown.len() && got.text != want.text && want.text.starts_with(&got.text) {
            return short(format!("its output ends in the middle of `{}`", want.text));
        }
        if got.text != want.text {
            return wrong(format!(
                "line {}: expected `{}`, found `{}`",
                got.number,
                want.text,
                text::line(&got.text)
            ));
        }
        i += 1;
        at += 1;
    }
    Walk::Matched(at)
}

/// The first place `shown` departs from `expected`, compared as `dialect`
/// says; `None` if it never does. Lines after the session's end are held
/// against the program only when the game was played to its end.
fn compare(dialect: &dyn Dialect, expected: &[Line], shown: &Shown, finished: bool) -> Option<Departure> {
    let wrong = |why: String| Some(Departure { kind: DepartureKind::Wrong, why });
    let short = |why: String| Some(Departure { kind: DepartureKind::Short, why });
    match dialect.fixed_lines() {
        Lines::All | Lines::AllButFree => match walk(dialect, expected, &shown.lines) {
            Walk::Departed(departure) => Some(departure),
            Walk::Matched(next) => match shown.lines.get(next) {
                Some(extra) if finished => wrong(format!(
                    "line {}: `{}` after the game ended",
                    extra.number,
                    text::line(&extra.text)
                )),
                _ => None,
            },
        },
        Lines::BoardsAndResult => {
            let expected_boards = boards(expected, 3, 3, &mut Work::default());
            let want: Vec<&Board> =
                changes(&expected_boards).into_iter().map(|i| &expected_boards[i]).collect();
            let theirs = shown.boards(3, 3);
            let got: Vec<&Board> = theirs.changes.iter().map(|&i| &theirs.found[i]).collect();
            let number = |board: &Board| shown.lines[board.last].number;
            for (i, board) in want.iter().enumerate() {
                let Some(their) = got.get(i) else {
                    return short(format!("its output ends before board {} of the game", i + 1));
                };
                if their.cells != board.cells {
                    return wrong(format!(
                        "line {}: the board shows {}; the game has {}",
                        number(their),
                        spaced(&their.cells),
                        spaced(&board.cells)
                    ));
                }
            }
            if let Some(extra) = got.get(want.len()) {
                return wrong(format!(
                    "line {}: a board the game never reached: {}",
                    number(extra),
                    spaced(&extra.cells)
                ));
            }
            if finished {
                let told = expected.iter().rev().find_map(|l| result(&l.text));
                let said = shown.lines.iter().rev().find_map(|l| result(&l.text));
                let name = |r: Option<&str>| match r {
                    None => "nothing".to_owned(),
                    Some("tie") => "a tie".to_owned(),
                    Some(mark) => format!("{mark} wins"),
                };
                if told != said {
                    return wrong(format!(
                        "the result: it says {}; the game is {}",
                        name(said.as_deref()),
                        name(told.as_deref())
                    ));
                }
                // Every line after the last board that tells a result tells
                // the game's: a false winner announced before the true
                // result is another result too.
                let after = got.last().map_or(0, |board| board.last + 1);
                let other = shown.lines[after..].iter().find_map(|l| {
                    result(&l.text).filter(|r| told.as_ref() != Some(r)).map(|r| (l.number, r))
                });
                if let Some((number, other)) = other {
                    return wrong(format!(
                        "line {number}: it says {}; the game is {}",
                        name(Some(&other)),
                        name(told.as_deref())
                    ));
                }
            }
            None
        }
    }
}

/// A board's cells in rows, as messages show them: `X-O/-X-/--O`.
fn spaced(board: &str) -> String {
    board.as_bytes().chunks(3).map(|c| String::from_utf8_lossy(c).into_owned()).collect::<Vec<_>>().join("/")
}

/// A writer into a buffer the oracle reads as the session is written.
struct SharedWriter(Rc<RefCell<Vec<u8>>>);

impl Write for SharedWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::play::dialect::names_a_winner;

    /// The profile's own session for `script`, as a correct program prints it.
    fn session_of(profile: Profile, seed: u64, script: &str) -> String {
        let mut out = Vec::new();
        let mut console = profile.console(script.as_bytes(), &mut out);
        session(console.as_mut(), seed, |_, _| Ok::<(), PlayError>(())).unwrap();
        drop(console);
        String::from_utf8(out).unwrap()
    }

    fn verdict(profile: Profile, script: &str, output: &str) -> Option<Departure> {
        judge(profile, profile.sides(None, None), 0, script.as_bytes(), output.as_bytes()).unwrap().departure
    }

    #[test]
    fn the_profiles_own_session_is_a_correct_game() {
        for (profile, script) in [
            (Profile::Uri, "5\n1\n3\n8\n6\n"),
            (Profile::Smalltalk, "human\ncomputer\n1\n2\n9\n"),
            (Profile::Extended, "2\nx\no\n3\n3\n3\nF\n0\n0\n1\n1\n0\n1\n2\n2\n0\n2\nn\n"),
        ] {
            let output = session_of(profile, 0, script);
            assert_eq!(verdict(profile, script, &output), None, "{profile:?}\n{output}");
        }
    }

    #[test]
    fn blank_lines_and_spacing_are_forgiven() {
        let script = "5\n1\n3\n8\n6\n";
        let output = session_of(Profile::Uri, 0, script)
            .replace("make your move: ", "make your move:  \n\n")
            .replace("  |  ", "   |  ");
        assert_eq!(verdict(Profile::Uri, script, &output), None);
    }

    #[test]
    fn a_fixed_line_in_other_words_is_a_departure_and_says_where() {
        let script = "5\n1\n3\n8\n6\n";
        let output = session_of(Profile::Uri, 0, script).replacen("WELCOME!", "Welcome!", 1);
        let departure = verdict(Profile::Uri, script, &output).unwrap();
        assert_eq!(departure.kind, DepartureKind::Wrong);
        assert_eq!(
            departure.why,
            "line 2: expected `WELCOME! Player 1 = X, AI = O`, found `Welcome! Player 1 = X, AI = O`"
        );
    }

    #[test]
    fn a_huge_line_of_the_programs_is_cut_in_what_is_said_of_it() {
        let script = "5\n1\n3\n8\n6\n";
        let huge = "W".repeat(1 << 20);
        let output = session_of(Profile::Uri, 0, script).replacen("WELCOME!", &huge, 1);
        let why = verdict(Profile::Uri, script, &output).unwrap().why;
        assert!(why.len() < 2000, "{} bytes", why.len());
        assert!(why.ends_with(" bytes in all)`"), "{}", &why[why.len() - 80..]);
    }

    #[test]
    fn an_ai_move_the_starter_does_not_make_is_named_with_the_rule() {
        // X on 5: the starter's AI answers 9; this one answers 1.
        let script = "5\n";
        let output = session_of(Profile::Uri, 0, script).replace("AI's move: 9", "AI's move: 1");
        let departure = verdict(Profile::Uri, script, &output).unwrap();
        assert_eq!(departure.why, "move 2: the AI took 1; the starter's minimax_move takes 9");
    }

    #[test]
    fn any_free_corner_is_allowed_and_recorded_as_a_choice() {
        // X (computer) opens on the centre, O (human) takes 1... the
        // computer's next move is a block or a corner.
        let script = "computer\nhuman\n2\n";
        let correct = session_of(Profile::Smalltalk, 0, script);
        let sides = Profile::Smalltalk.sides(None, None);
        let judged = judge(Profile::Smalltalk, sides, 0, script.as_bytes(), correct.as_bytes()).unwrap();
        assert_eq!(judged.departure, None);
        assert!(judged.choices.iter().any(|c| c.what == "corner"), "{:?}", judged.choices);
    }

    #[test]
    fn a_missed_block_is_named_with_the_square_it_must_block() {
        // X human 1, O computer (centre 5), X 2: O must block at 3.
        let script = "human\ncomputer\n1\n2\n";
        let correct = session_of(Profile::Smalltalk, 0, script);
        let wrong = correct.replacen("X X O\n- O -", "X X -\n- O O", 1);
        let departure = verdict(Profile::Smalltalk, script, &wrong).unwrap();
        assert_eq!(departure.why, "move 4: the computer took 6; it must block at 3", "{wrong}");
    }

    #[test]
    fn smalltalk_wording_is_free_and_the_result_is_read_from_the_words() {
        let script = "human\ncomputer\n1\n2\n9\n8\n";
        let correct = session_of(Profile::Smalltalk, 0, script);
        let theirs = correct
            .replace("Player X, enter a square (1-9):", "Your move, X?")
            .replace("Type of Player", "Who plays")
            .replace("Player O wins!", "O won the game.");
        assert_eq!(verdict(Profile::Smalltalk, script, &theirs), None, "{correct}");
        let lying = correct.replace("Player O wins!", "It's a draw.");
        assert_eq!(
            verdict(Profile::Smalltalk, script, &lying).unwrap().why,
            "the result: it says a tie; the game is O wins"
        );
        // A false result said before the true one is another result too.
        let both = correct.replace("Player O wins!", "Player X wins!\nPlayer O wins!");
        let why = verdict(Profile::Smalltalk, script, &both).unwrap().why;
        assert!(why.ends_with(": it says X wins; the game is O wins"), "{why}");
    }

    #[test]
    fn extended_may_word_its_draw_line_freely() {
        let script = "2\nx\no\n3\n3\n3\nF\n0\n0\n0\n1\n0\n2\n1\n1\n1\n0\n1\n2\n2\n1\n2\n0\n2\n2\nn\n";
        let correct = session_of(Profile::Extended, 0, script);
        assert!(correct.contains("It's a draw!"), "{correct}");
        let theirs = correct.replace("It's a draw!", "Tie game - nobody wins.");
        assert_eq!(verdict(Profile::Extended, script, &theirs), None);
    }

    /// A draw, with the number to win refused twice on the way.
    const EXTENDED_DRAW: &str =
        "2\nx\no\n3\n3\n2\n4\n3\nF\n0\n0\n0\n1\n0\n2\n1\n1\n1\n0\n1\n2\n2\n1\n2\n0\n2\n2\nn\n";

    #[test]
    fn extended_free_lines_may_take_two_lines_of_their_own() {
        let correct = session_of(Profile::Extended, 0, EXTENDED_DRAW);
        assert!(correct.contains("It's a draw!\n"), "{correct}");
        let theirs =
            correct.replace("It's a draw!", "Cat's game!\nThe board is full and nobody won.").replace(
                "The number to win cannot exceed 3",
                "Too many: on this board\nat most 3 in a row can win",
            );
        assert_eq!(verdict(Profile::Extended, EXTENDED_DRAW, &theirs), None, "{theirs}");
    }

    #[test]
    fn extended_free_lines_cannot_be_left_out_or_tell_another_result() {
        // Found with a Java student who announced the last mover's win on a
        // full board: the draw line was free, so any line passed for it.
        let correct = session_of(Profile::Extended, 0, EXTENDED_DRAW);
        let lying = correct.replace("It's a draw!", "Player X wins!");
        let departure = verdict(Profile::Extended, EXTENDED_DRAW, &lying).unwrap();
        assert_eq!(departure.kind, DepartureKind::Wrong);
        assert!(
            departure
                .why
                .ends_with(": expected `It's a draw!` or other words for it, found `Player X wins!`"),
            "{}",
            departure.why
        );
        let silent = correct.replace("It's a draw!\n", "");
        let why = verdict(Profile::Extended, EXTENDED_DRAW, &silent).unwrap().why;
        assert!(why.ends_with(": expected `It's a draw!` or other words for it, found `0| 1| 2|`"), "{why}");
        // A refusal left out: the prompt comes again with no word of why.
        let unexplained = correct.replace("The number to win cannot be lower than 3\n", "");
        let why = verdict(Profile::Extended, EXTENDED_DRAW, &unexplained).unwrap().why;
        assert!(
            why.ends_with(
                ": expected `The number to win cannot be lower than 3` or other words for it, \
                 found `How many in a row to win?`"
            ),
            "{why}"
        );
    }

    #[test]
    fn a_free_line_that_names_a_winner_or_another_result_is_a_departure() {
        // Found by an attacker: only the exact `Player X wins!` was refused
        // in place of the draw line, so `Player O wins` passed for a draw.
        let correct = session_of(Profile::Extended, 0, EXTENDED_DRAW);
        for spelling in ["Player O wins", "Player X won!", "X wins!", "player X wins!", "The winner is O"] {
            let lying = correct.replace("It's a draw!", spelling);
            let departure = verdict(Profile::Extended, EXTENDED_DRAW, &lying).unwrap();
            assert_eq!(departure.kind, DepartureKind::Wrong, "{spelling}");
            assert!(
                departure.why.ends_with(&format!(
                    ": expected `It's a draw!` or other words for it, found `{spelling}`"
                )),
                "{spelling}: {}",
                departure.why
            );
        }
        // A second line of the draw's own words may not name a winner either.
        let two = correct.replace("It's a draw!", "Cat's game!\nPlayer X wins");
        assert_eq!(verdict(Profile::Extended, EXTENDED_DRAW, &two).unwrap().kind, DepartureKind::Wrong);
        // A refusal in other words may not tell a tie.
        let refusal = "The number to win cannot be lower than 3";
        let tie = correct.replace(refusal, "It's a tie");
        let why = verdict(Profile::Extended, EXTENDED_DRAW, &tie).unwrap().why;
        assert!(
            why.ends_with(&format!(": expected `{refusal}` or other words for it, found `It's a tie`")),
            "{why}"
        );
    }

    #[test]
    fn a_winner_spelled_to_look_like_one_is_read_as_one() {
        // Found by an attacker: the draw line of a drawn game said a win
        // in letters that only look like ASCII, or with the mark glued on.
        let spellings = [
            "Player X w\u{456}ns!",   // Cyrillic i
            "Player X \u{ff57}ins!",  // fullwidth w
            "Player X wi\u{200b}ns!", // a zero-width space
            "Player X w\u{200d}ins!", // a zero-width joiner
            "Player X w\u{ad}ins!",   // a soft hyphen
            "PlayerXwins!",
            "playeroWon",
            "Xwins!",
            "Player \u{425} wins!",                                    // Cyrillic X
            "Player X w\u{3bf}n",                                      // Greek o
            "Player X wi\u{301}ns!",                                   // i with a combining acute
            "\u{ff30}layer \u{ff38} \u{ff57}\u{ff49}\u{ff4e}\u{ff53}", // all fullwidth
            "Player X \u{1d430}ins!",                                  // mathematical bold w
        ];
        for line in spellings {
            assert!(names_a_winner(line), "{line:?}");
        }
        let correct = session_of(Profile::Extended, 0, EXTENDED_DRAW);
        for spelling in spellings {
            let lying = correct.replace("It's a draw!", spelling);
            let departure = verdict(Profile::Extended, EXTENDED_DRAW, &lying).unwrap();
            assert_eq!(departure.kind, DepartureKind::Wrong, "{spelling:?}");
        }
        // A tie told in look-alike letters is still a tie, where a refusal
        // stands.
        assert!(tells_a_tie("It's a dr\u{430}w") && tells_a_tie("\u{ff54}\u{ff49}\u{ff45}"));
        // What is no winner stays none, folded or not.
        for line in ["It's a draw — nobody wins.", "Twin\u{e9}s", "twins", "Players win nothing", "Draw! 🎉"]
        {
            assert!(!names_a_winner(line), "{line:?}");
        }
        assert_eq!(crate::play::dialect::fold("It's a draw!"), "It's a draw!");
        assert_eq!(crate::play::dialect::fold("w\u{456}\u{200b}ns \u{ff38}"), "wins X");
    }

    #[test]
    fn results_are_read_from_words_without_reading_them_into_refusals() {
        for line in
            ["Player O wins", "Player X won!", "X wins!", "player X wins!", "Winner: X", "Player X, you win!"]
        {
            assert!(names_a_winner(line), "{line}");
        }
        for line in [
            "Tie game - nobody wins.",
            "The board is full and nobody won.",
            "You need at least 3 in a row to win",
            "at most 3 in a row can win",
            "The number to win cannot exceed 3",
            "Each player needs 3 in a row to win",
        ] {
            assert!(!names_a_winner(line), "{line}");
        }
        assert!(tells_a_tie("Cat's game!") && tells_a_tie("It's a draw!") && tells_a_tie("We tied."));
        assert!(!tells_a_tie("Please enter a single character") && !tells_a_tie("That space is unavailable"));
    }

    #[test]
    fn a_huge_line_is_looked_at_once_and_never_split_into_cells() {
        // Found by an attacker: a correct program that first printed one
        // 3 MB line of one-letter words had it split into cells again at
        // each computer move (63 s for one test).
        let script = "human\ncomputer\n1\n2\n9\n8\n";
        let correct = session_of(Profile::Smalltalk, 0, script);
        let output = format!("{}\n{correct}", "a ".repeat(1 << 20));
        let sides = Profile::Smalltalk.sides(None, None);
        let (judged, work) =
            judge_counting(Profile::Smalltalk, sides, 0, script.as_bytes(), output.as_bytes()).unwrap();
        assert_eq!(judged.departure, None);
        assert!(judged.finished);
        // The computer moved twice; each line was still looked at once.
        assert_eq!(work.lines_examined, lines(output.as_bytes(), MOST_LINES).len(), "{work:?}");
        assert!(work.longest_split < 4 * 3, "{work:?}");
    }

    #[test]
    fn output_cut_short_on_the_script_is_short_and_after_its_end_is_forgiven() {
        let script = "5\n1\n";
        let correct = session_of(Profile::Uri, 0, script);
        let cut = &correct[..correct.len() / 2];
        assert_eq!(verdict(Profile::Uri, script, cut).unwrap().kind, DepartureKind::Short);
        // The script ends mid-game: what the program does then is its own.
        let looping = format!("{correct}{}", "\nInvalid move! Try again: ".repeat(50));
        assert_eq!(verdict(Profile::Uri, script, &looping), None);
    }
}
