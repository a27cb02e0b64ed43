//! The failing games of a `grade --play` report: each failing test's game
//! ([`Evidence::Game`], whatever test chose it) written as a move file
//! beside the report, `DIR/games/SUBMISSION/TEST.txt`, for the student to
//! replay (`ttt-referee FILE`) or play on from (`match --from FILE`); and
//! the same game move by move for `report.html`: one board whose squares
//! say which move marked them, a list of the moves, and a script that
//! steps through them.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use maud::{Markup, html};

use super::{ReportError, write_file};
use crate::board::{Square, Storage};
use crate::game::{Game, Move};
use crate::grade::result::{Evidence, Smallest, SubmissionResult};
use crate::movefile::MoveReader;
use crate::text::inert;

/// Where the failing games go in the report directory.
pub const GAMES_DIR: &str = "games";

/// Boards of more squares are not drawn on the page; their moves are
/// listed.
const DRAWN_SQUARES: u64 = 1024;

/// The most moves the page lists (and numbers on the board) of one game;
/// its file has them all.
const LISTED_MOVES: usize = 2000;

/// The longest name a file or directory of [`GAMES_DIR`] is given, in bytes.
const NAME_BYTES: usize = 100;

/// Every failing game of a grading and the file each is written to,
/// relative to the report directory: `games/ann/vs-perfect.txt`. Two
/// submissions whose names make one file name get `-2`, `-3`, … in order.
#[derive(Debug, Default)]
pub struct GameFiles {
    files: BTreeMap<(usize, usize), (PathBuf, String)>,
    /// The submissions' directories named so far.
    taken: BTreeSet<String>,
}

impl GameFiles {
    /// The failing games of `results` (submission by submission, test by
    /// test, in order) and their files.
    #[must_use]
    pub fn of(results: &[SubmissionResult]) -> GameFiles {
        let mut files = GameFiles::default();
        for (s, result) in results.iter().enumerate() {
            files.add(s, result);
        }
        files
    }

    /// Adds the failing games of `result`, the `s`th submission: each
    /// submission in turn, in order, as [`GameFiles::of`] takes them.
    pub fn add(&mut self, s: usize, result: &SubmissionResult) {
        let games: Vec<(usize, String)> = result
            .tests
            .iter()
            .enumerate()
            .filter_map(|(t, test)| Some((t, move_file(test.smallest_failing_input.as_ref()?)?)))
            .collect();
        if games.is_empty() {
            return;
        }
        let dir = unique(&file_name(&result.submission), &mut self.taken);
        let mut names = BTreeSet::new();
        for (t, text) in games {
            let name = unique(&file_name(&result.tests[t].test), &mut names);
            let path = Path::new(GAMES_DIR).join(&dir).join(format!("{name}.txt"));
            self.files.insert((s, t), (path, text));
        }
    }

    /// The file of test `test` of submission `submission` (indices into
    /// the results), relative to the report directory, if it failed with
    /// a game.
    #[must_use]
    pub fn path(&self, submission: usize, test: usize) -> Option<&Path> {
        self.get(submission, test).map(|(path, _)| path)
    }

    /// That file and the game it holds, a move file.
    #[must_use]
    pub fn get(&self, submission: usize, test: usize) -> Option<(&Path, &str)> {
        self.files.get(&(submission, test)).map(|(path, text)| (path.as_path(), text.as_str()))
    }

    /// Writes every game into `dir`, each file whole.
    ///
    /// # Errors
    /// The first file, or directory, that cannot be written.
    pub fn write(&self, dir: &Path) -> Result<(), ReportError> {
        fs::create_dir_all(dir).map_err(|source| ReportError { path: Some(dir.to_owned()), source })?;
        for (path, text) in self.files.values() {
            if let Some(parent) = path.parent() {
                // Never through a link someone put in the report directory.
                crate::output::real_dirs(dir, parent)
                    .map_err(|source| ReportError { path: Some(dir.join(parent)), source })?;
            }
            let path = dir.join(path);
            write_file(&path, |out| std::io::Write::write_all(out, text.as_bytes()))?;
        }
        Ok(())
    }
}

/// `base`, or the first of `base-2`, `base-3`, … not in `taken`; added to
/// it.
fn unique(base: &str, taken: &mut BTreeSet<String>) -> String {
    let mut name = base.to_owned();
    let mut n = 1u64;
    while taken.contains(&name) {
        n += 1;
        name = format!("{base}-{n}");
    }
    taken.insert(name.clone());
    name
}

/// The move file of a failing game: its record's header (title, players,
/// board), then every move line whole (the report's `input` may be cut;
/// the moves are not). `None` for evidence that is no game.
#[must_use]
pub fn move_file(smallest: &Smallest) -> Option<String> {
    let Evidence::Game { moves, .. } = &smallest.evidence else { return None };
    let mut lines = smallest.input.lines();
    let mut text = String::new();
    for line in lines.by_ref().take(2) {
        text.push_str(line);
        text.push('\n');
    }
    if let Some(board) = lines.next().filter(|line| line.trim_start().starts_with("Board:")) {
        text.push_str(board);
        text.push('\n');
    }
    text.push('\n');
    for line in moves {
        text.push_str(line);
        text.push('\n');
    }
    Some(text)
}

/// A name as a file of [`GAMES_DIR`] is named: ASCII letters, digits, `-`,
/// `_` and `.` kept, anything else `_`, never starting with `.`, at most
/// [`NAME_BYTES`]; `_` for an empty name.
#[must_use]
pub fn file_name(name: &str) -> String {
    let mut safe: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') { c } else { '_' })
        .take(NAME_BYTES)
        .collect();
    if safe.starts_with('.') || safe.is_empty() {
        safe.replace_range(..safe.len().min(1), "_");
    }
    safe
}

/// One move of a game as the page shows it.
struct Shown {
    /// Its mark, as the file labels it.
    label: String,
    /// Its square, as written.
    square: String,
    /// Whether it was refused (the forfeit's answer, a taken square or
    /// one off the board): it marks nothing.
    refused: bool,
}

/// A game move by move, as the page shows it.
struct Replayed {
    /// Its moves as the page lists them.
    moves: Vec<Shown>,
    /// Each square a valid move marked (by index): that move's number and
    /// its mark.
    marked: BTreeMap<u64, (usize, String)>,
    /// The board's rows.
    rows: u32,
    /// The board's columns.
    cols: u32,
}

/// The game of the move file `text`, move by move. `None` for a file that
/// is no move file.
fn replay(text: &str) -> Option<Replayed> {
    let mut reader = MoveReader::new(text.as_bytes()).ok()?;
    let header = reader.header().clone();
    let mut game = Game::new(header.players.clone(), header.geometry, Storage::Auto);
    let mut moves = Vec::new();
    let mut marked = BTreeMap::new();
    while let Some(record) = reader.next_record().ok()? {
        if moves.len() == LISTED_MOVES {
            break;
        }
        let refused = match game.play(record.label, record.square) {
            Ok(Move { square, .. }) => {
                marked.insert(square.index(), (moves.len() + 1, record.label.to_owned()));
                false
            }
            Err(_) => true,
        };
        moves.push(Shown { label: record.label.to_owned(), square: record.square.to_owned(), refused });
    }
    Some(Replayed { moves, marked, rows: header.geometry.rows(), cols: header.geometry.cols() })
}

/// The failing game `text` (a move file) on the page, move by move: the
/// board, each square with its mark and the number of the move that made
/// it, buttons and a slider that step through the moves (with the page's
/// script; without it, the last position), then the moves listed, a
/// refused answer marked. Every text is made inert, then escaped.
#[must_use]
pub fn game_markup(text: &str) -> Markup {
    let Some(Replayed { moves, marked, rows, cols }) = replay(text) else { return html! {} };
    let total = moves.len();
    let drawn = u64::from(rows) * u64::from(cols) <= DRAWN_SQUARES;
    html! {
        div.game data-moves=(total) {
            @if drawn {
                p.steps hidden {
                    button.first type="button" title="the empty board" { "«" } " "
                    button.back type="button" title="a move back" { "◀" } " "
                    input.step type="range" min="0" max=(total) value=(total) aria-label="move";
                    " " button.forward type="button" title="a move on" { "▶" } " "
                    span.said { "after move " (total) " of " (total) }
                }
                table.board {
                    @for row in 0..u64::from(rows) {
                        tr {
                            @for col in 0..u64::from(cols) {
                                @let square = row * u64::from(cols) + col;
                                @match marked.get(&square) {
                                    Some((n, label)) => td data-move=(n) title={ "move " (n) } {
                                        (inert(label)) sub { (n) }
                                    },
                                    None => td title={ "square " (Square::from_index(square).number()) } {},
                                }
                            }
                        }
                    }
                }
            }
            ol.moves {
                @for (i, mv) in moves.iter().enumerate() {
                    li data-move=(i + 1) class=[mv.refused.then_some("refused")] {
                        (inert(&mv.label)) " " (inert(&mv.square))
                        @if mv.refused { " — refused: the forfeit" }
                    }
                }
            }
        }
    }
}

/// The page's script for [`game_markup`]: shows the stepping controls,
/// and shows the board after the move they choose (later marks hidden,
/// that move's square and list item marked).
pub const STEP_SCRIPT: &str = "
document.querySelectorAll('div.game').forEach(function (game) {
  var total = parseInt(game.dataset.moves, 10), steps = game.querySelector('p.steps');
  if (!steps) { return; }
  var slider = steps.querySelector('input.step'), said = steps.querySelector('span.said');
  function show(n) {
    n = Math.max(0, Math.min(total, n));
    slider.value = n;
    said.textContent = n === 0 ? 'the empty board' : 'after move ' + n + ' of ' + total;
    game.querySelectorAll('[data-move]').forEach(function (el) {
      var m = parseInt(el.dataset.move, 10);
      el.classList.toggle('later', m > n);
      el.classList.toggle('now', m === n);
    });
  }
  steps.querySelector('button.first').addEventListener('click', function () { show(0); });
  steps.querySelector('button.back').addEventListener('click', function () { show(parseInt(slider.value, 10) - 1); });
  steps.querySelector('button.forward').addEventListener('click', function () { show(parseInt(slider.value, 10) + 1); });
  slider.addEventListener('input', function () { show(parseInt(slider.value, 10)); });
  steps.hidden = false;
  show(total);
});
";

/// The page's style for [`game_markup`].
pub const STYLE: &str = "
div.game { margin: .5em 0 1em; }
table.board { border-collapse: collapse; margin: .3em 0; }
table.board td { width: 1.8em; height: 1.8em; padding: 0; text-align: center; border: 1px solid #999; font-weight: bold; }
table.board td sub { font-weight: normal; font-size: .6em; color: #777; }
table.board td.later { color: transparent; } table.board td.later sub { color: transparent; }
table.board td.now { background: #fff3b0; }
ol.moves { columns: 8em; font-family: monospace; margin: .3em 0; }
ol.moves li.later { color: #bbb; } ol.moves li.now { background: #fff3b0; }
ol.moves li.refused { color: #c62828; }
";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grade::result::{TestResult, Verdict};

    fn lost(input: &str, moves: &[&str]) -> Smallest {
        Smallest {
            input: input.to_owned(),
            evidence: Evidence::Game {
                what: "the shortest game it lost".into(),
                moves: moves.iter().map(|m| (*m).to_owned()).collect(),
            },
            verdict: Verdict::Wrong,
            detail: String::new(),
            expected: String::new(),
            actual: String::new(),
            first_difference: None,
            stderr: String::new(),
            runs: 1,
            seconds: 0.0,
            complete: true,
            unmatched: crate::check::Unmatched::default(),
        }
    }

    const RECORD: &str = "vs-perfect game 2 (seed 1): perfect (X) vs ann (O): X wins\nX: perfect O: ann\n\nX\t5\nO\t2\nX\t1\nO\t9\nX\t4\nO\t6\nX\t7\n";
    const MOVES: [&str; 7] = ["X\t5", "O\t2", "X\t1", "O\t9", "X\t4", "O\t6", "X\t7"];

    fn submission(name: &str, tests: Vec<TestResult>) -> SubmissionResult {
        SubmissionResult::graded(name.to_owned(), "C".to_owned(), None, tests)
    }

    fn failing(test: &str, smallest: Option<Smallest>) -> TestResult {
        TestResult {
            smallest_failing_input: smallest,
            ..TestResult::not_run(test, Verdict::Wrong, String::new())
        }
    }

    #[test]
    fn the_move_file_is_the_record_whole_even_where_the_input_was_cut() {
        assert_eq!(move_file(&lost(RECORD, &MOVES)).unwrap(), RECORD);
        let cut = format!("{}… (9999 bytes in all)", &RECORD[..90]);
        assert_eq!(move_file(&lost(&cut, &MOVES)).unwrap(), RECORD);
        let big = "t\nX: a O: b\nBoard: 5x5, 4 in a row\n\nX\t13\n";
        assert_eq!(move_file(&lost(big, &["X\t13"])).unwrap(), big);
        let call = Smallest { evidence: Evidence::Call { failed: 1, tried: 2 }, ..lost(RECORD, &[]) };
        assert_eq!(move_file(&call), None);
    }

    #[test]
    fn every_failing_game_gets_a_file_of_its_own() {
        let results = [
            submission(
                "ann",
                vec![
                    failing("vs-perfect", Some(lost(RECORD, &MOVES))),
                    failing("vs-random", None),
                    failing("legal", Some(lost(RECORD, &MOVES))),
                ],
            ),
            submission("a n", vec![failing("vs-perfect", Some(lost(RECORD, &MOVES)))]),
            submission("a_n", vec![failing("../x", Some(lost(RECORD, &MOVES)))]),
            submission("bo", vec![failing("vs-perfect", None)]),
        ];
        let files = GameFiles::of(&results);
        let path = |s, t| files.path(s, t).map(|p| p.display().to_string());
        assert_eq!(path(0, 0).as_deref(), Some("games/ann/vs-perfect.txt"));
        assert_eq!(path(0, 1), None);
        assert_eq!(path(0, 2).as_deref(), Some("games/ann/legal.txt"));
        assert_eq!(path(1, 0).as_deref(), Some("games/a_n/vs-perfect.txt"));
        assert_eq!(path(2, 0).as_deref(), Some("games/a_n-2/_._x.txt"));
        assert_eq!(path(3, 0), None);
        let dir = tempfile::tempdir().unwrap();
        files.write(dir.path()).unwrap();
        assert_eq!(fs::read_to_string(dir.path().join("games/ann/legal.txt")).unwrap(), RECORD);
        assert_eq!(file_name(".hidden\u{1b}"), "_hidden_");
        assert_eq!(file_name(""), "_");
        assert_eq!(file_name(&"é".repeat(200)).len(), 100);
    }

    #[test]
    fn the_page_shows_each_move_on_the_board_and_in_the_list() {
        let page = game_markup(RECORD).into_string();
        assert!(page.contains(r#"<div class="game" data-moves="7">"#), "{page}");
        // Square 5 was move 1 (X), square 7 move 7.
        assert!(page.contains(r#"<td data-move="1" title="move 1">X<sub>1</sub></td>"#), "{page}");
        assert!(page.contains(r#"<td data-move="7" title="move 7">X<sub>7</sub></td>"#), "{page}");
        assert_eq!(page.matches("<td title=\"square ").count(), 2, "{page}");
        assert!(page.contains(r#"<li data-move="4">O 9</li>"#), "{page}");
        // A forfeit's refused answer is listed, marking nothing.
        let forfeit = "t\nX: a O: b\n\nX\t5\nO\t5\n";
        let page = game_markup(forfeit).into_string();
        assert!(
            page.contains(r#"<li data-move="2" class="refused">O 5 — refused: the forfeit</li>"#),
            "{page}"
        );
        assert_eq!(page.matches("<sub>").count(), 1, "{page}");
        // A name that would be markup is text; a big board is listed only.
        let page = game_markup("t\nX: a O: b\nBoard: 40x40, 5 in a row\n\nX\t1\n").into_string();
        assert!(!page.contains("<table") && page.contains("<li data-move=\"1\">X 1</li>"), "{page}");
        assert!(game_markup("no move file").into_string().is_empty());
    }
}
