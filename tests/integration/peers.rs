//! Conformance with the test vectors published with StFX asn3 and Clemson CPSC 2150
//! (`fixtures/peers/`, described in its README): placing, board queries, win
//! checks and the `grid` rendering must agree with every vector.

use std::fs;
use std::path::PathBuf;

use serde_json::Value;
use ttt_referee::board::{Board, Direction, Geometry, Square, Storage, parse_xy};
use ttt_referee::player::{Mark, Player, PlayerId, Players};
use ttt_referee::render::{Renderer, Style};

use crate::util::root;

fn vectors(file: &str) -> Vec<Value> {
    let path: PathBuf = root().join("fixtures/peers").join(file);
    let text = fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read the peer vectors at {}: {e}", path.display()));
    let vectors: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect();
    assert!(vectors.len() > 50, "{file} holds only {} vectors", vectors.len());
    vectors
}

/// A board with marks placed, and the players who own them.
struct Position {
    board: Board,
    players: Players,
}

impl Position {
    /// A board of `rows × cols` where `win` in a row wins, holding `cells`
    /// (row, column, mark); a later placement on the same square replaces an
    /// earlier one, as the Java boards the vectors come from do.
    fn new(rows: u32, cols: u32, win: u32, cells: &[(u32, u32, char)], storage: Storage) -> Position {
        let mut marks: Vec<char> = vec!['X', 'O'];
        for &(_, _, c) in cells {
            if !marks.contains(&c) {
                marks.push(c);
            }
        }
        let players = Players::new(
            marks
                .iter()
                .map(|&c| Player { mark: Mark::new(c).expect("a mark"), name: c.to_string() })
                .collect(),
        )
        .expect("2 to 10 distinct marks");
        let geometry = Geometry::new(rows, cols, win).expect("a playable board");
        let mut last = std::collections::HashMap::new();
        for &(r, c, mark) in cells {
            last.insert((r, c), mark);
        }
        let mut board = Board::new(geometry, storage);
        for ((r, c), mark) in last {
            let id = players.find(&mark.to_string()).expect("declared");
            board.set(geometry.square(r, c).expect("on the board"), id);
        }
        Position { board, players }
    }

    /// From StFX asn3's list of rows (`" "` or `""` for an empty cell).
    fn from_rows(rows: &Value, win: impl Fn(u32, u32) -> u32, storage: Storage) -> Position {
        let rows = rows.as_array().expect("rows");
        let mut cells = Vec::new();
        for (r, row) in rows.iter().enumerate() {
            for (c, cell) in row.as_array().expect("a row").iter().enumerate() {
                let text = cell.as_str().expect("a cell").trim();
                if let Some(mark) = text.chars().next() {
                    cells.push((to_u32(r), to_u32(c), mark));
                }
            }
        }
        let (n_rows, n_cols) = (to_u32(rows.len()), to_u32(rows[0].as_array().expect("a row").len()));
        Position::new(n_rows, n_cols, win(n_rows, n_cols), &cells, storage)
    }

    fn id(&self, mark: &str) -> Option<PlayerId> {
        self.players.find(mark)
    }

    /// The square at (`row`, `col`), which may be given off the board.
    fn square(&self, row: i64, col: i64) -> Option<Square> {
        let (row, col) = (u32::try_from(row).ok()?, u32::try_from(col).ok()?);
        self.board.geometry().square(row, col)
    }

    /// Whether `mark` fills the line of `direction` that starts at (`row`, `col`).
    fn fills(&self, row: u32, col: u32, direction: Direction, mark: &str) -> bool {
        let square = self.board.geometry().square(row, col).expect("on the board");
        self.id(mark).is_some_and(|id| self.board.wins_along(square, direction, id))
    }

    fn grid(&self) -> Renderer {
        Renderer::new(Style::Grid, &self.players)
    }

    /// The board as StFX asn3's list of rows.
    fn rows(&self) -> Value {
        let g = self.board.geometry();
        (0..g.rows())
            .map(|r| {
                (0..g.cols())
                    .map(|c| match self.board.at(r, c) {
                        Some(id) => self.players.get(id).mark.to_string(),
                        None => " ".to_owned(),
                    })
                    .collect::<Vec<_>>()
            })
            .collect::<Vec<_>>()
            .into()
    }
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).expect("small")
}

fn int(v: &Value) -> i64 {
    v.as_i64().expect("an integer")
}

fn text(bytes: Vec<u8>) -> Value {
    String::from_utf8(bytes).expect("UTF-8").into()
}

/// StFX asn3: what the assignment's function returns for this vector.
fn stfx(fn_name: &str, args: &[Value], storage: Storage) -> Value {
    let any_win = |_, _| 1;
    match fn_name {
        "setup_game" => {
            let n = to_u32(usize::try_from(int(&args[0])).expect("a size"));
            Position::new(n, n, 1, &[], storage).rows()
        }
        "parse_move" => {
            let (x, y) = parse_xy(args[0].as_str().expect("text")).expect("coordinates");
            vec![x, y].into()
        }
        "is_move_valid" => {
            let p = Position::from_rows(&args[1], any_win, storage);
            let (x, y) = (int(&args[0][0]), int(&args[0][1]));
            p.square(y, x).is_some_and(|sq| p.board.get(sq).is_none()).into()
        }
        "apply_move" => {
            let mut p = Position::from_rows(&args[1], any_win, storage);
            let mark = args[2].as_str().expect("a mark");
            let before = p.rows();
            let sq = p.square(int(&args[0][1]), int(&args[0][0])).expect("on the board");
            let id = p.id(mark).expect("a known mark");
            p.board.set(sq, id);
            assert_eq!(
                Position::from_rows(&args[1], any_win, storage).rows(),
                before,
                "the old board is unchanged"
            );
            p.rows()
        }
        "check_row" => {
            let p = Position::from_rows(&args[0], |_, cols| cols, storage);
            let y = to_u32(usize::try_from(int(&args[1])).expect("a row"));
            p.fills(y, 0, Direction::Horizontal, args[2].as_str().expect("mark")).into()
        }
        "check_column" => {
            let p = Position::from_rows(&args[0], |rows, _| rows, storage);
            let x = to_u32(usize::try_from(int(&args[1])).expect("a column"));
            p.fills(0, x, Direction::Vertical, args[2].as_str().expect("mark")).into()
        }
        "check_down_diagonal" | "check_up_diagonal" | "check_for_winner" => {
            let p = Position::from_rows(&args[0], Ord::max, storage);
            let mark = args[1].as_str().expect("mark");
            let g = p.board.geometry();
            let down = p.fills(0, 0, Direction::Diagonal, mark);
            let up = p.fills(g.rows() - 1, 0, Direction::AntiDiagonal, mark);
            let row = |y| {
                Position::from_rows(&args[0], |_, cols| cols, storage).fills(
                    y,
                    0,
                    Direction::Horizontal,
                    mark,
                )
            };
            let col = |x| {
                Position::from_rows(&args[0], |rows, _| rows, storage).fills(0, x, Direction::Vertical, mark)
            };
            match fn_name {
                "check_down_diagonal" => down.into(),
                "check_up_diagonal" => up.into(),
                _ => (down || up || (0..g.rows()).any(row) || (0..g.cols()).any(col)).into(),
            }
        }
        "render_cell" => {
            let p = Position::from_rows(&args[0], any_win, storage);
            let (x, y) = (int(&args[1]), int(&args[2]));
            let mut out = Vec::new();
            p.grid().cell(
                &p.board,
                to_u32(usize::try_from(y).unwrap()),
                to_u32(usize::try_from(x).unwrap()),
                b' ',
                &mut out,
            );
            text(out)
        }
        "render_row" => {
            let p = Position::from_rows(&args[0], any_win, storage);
            let mut out = Vec::new();
            p.grid().row(&p.board, to_u32(usize::try_from(int(&args[1])).unwrap()), &mut out);
            text(out)
        }
        "render_board" => {
            let p = Position::from_rows(&args[0], any_win, storage);
            let mut out = Vec::new();
            p.grid().board(&p.board, &mut out);
            text(out)
        }
        other => panic!("no harness for {other}"),
    }
}

/// The library ships its own copies of the vectors (`grade --api` draws its
/// published examples from them), so that no library code reads `fixtures/`:
/// they must be the very bytes tested here.
#[test]
fn the_library_ships_the_same_vectors() {
    for (fixture, shipped) in [
        ("stfx_cs101_asn3_vectors.jsonl", "src/grade/calls/xtreme/stfx_cs101_asn3_vectors.jsonl"),
        ("cpsc2150_igameboard_vectors.jsonl", "src/grade/calls/igameboard/cpsc2150_igameboard_vectors.jsonl"),
    ] {
        let read = |path: PathBuf| fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let (fixture_bytes, shipped_bytes) =
            (read(root().join("fixtures/peers").join(fixture)), read(root().join(shipped)));
        assert!(fixture_bytes == shipped_bytes, "{shipped} differs from fixtures/peers/{fixture}");
    }
}

#[test]
fn seed_003_xtreme_vectors() {
    let mut checked = 0;
    for v in vectors("stfx_cs101_asn3_vectors.jsonl") {
        let Some(args) = v.get("args").and_then(Value::as_array) else { continue };
        let fn_name = v["fn"].as_str().expect("fn");
        for storage in [Storage::Dense, Storage::Sparse] {
            assert_eq!(stfx(fn_name, args, storage), v["expect"], "{} ({storage:?})", v["assert"]);
        }
        checked += 1;
    }
    assert!(checked >= 80, "only {checked} vectors checked");
}

/// Clemson CPSC 2150: the vector's board, built from its moves or its rows.
fn igameboard_position(v: &Value, storage: Storage) -> Position {
    let dim = |key: &str| to_u32(usize::try_from(int(&v[key])).expect("a size"));
    let mut cells = Vec::new();
    if let Some(moves) = v.get("moves").and_then(Value::as_array) {
        for m in moves {
            let mark = m[2].as_str().and_then(|s| s.chars().next()).expect("a mark");
            cells.push((
                to_u32(usize::try_from(int(&m[0])).unwrap()),
                to_u32(usize::try_from(int(&m[1])).unwrap()),
                mark,
            ));
        }
    } else {
        for (r, row) in v["board_rows"].as_array().expect("board_rows").iter().enumerate() {
            for (c, mark) in row.as_str().expect("a row").chars().enumerate() {
                if mark != ' ' {
                    cells.push((to_u32(r), to_u32(c), mark));
                }
            }
        }
    }
    Position::new(dim("rows"), dim("cols"), dim("win"), &cells, storage)
}

fn igameboard(v: &Value, storage: Storage) -> Value {
    let p = igameboard_position(v, storage);
    let args = v["args"].as_array().expect("args");
    let at = || p.square(int(&args[0][0]), int(&args[0][1]));
    let mark = || args[1].as_str().expect("a mark");
    let wins = |directions: &[Direction]| {
        let Some(sq) = at() else { return false };
        let Some(id) = p.id(mark()) else { return false };
        directions.iter().any(|&d| p.board.wins_along(sq, d, id))
    };
    let whats_at = || {
        at().and_then(|sq| p.board.get(sq))
            .map_or_else(|| " ".to_owned(), |id| p.players.get(id).mark.to_string())
    };
    match v["call"].as_str().expect("call") {
        "checkSpace" => at().is_some_and(|sq| p.board.get(sq).is_none()).into(),
        "whatsAtPos" => whats_at().into(),
        // As the vectors' README defines it: `whatsAtPos(pos) == mark`.
        "isPlayerAtPos" => (whats_at() == mark()).into(),
        "checkHorizontalWin" => wins(&[Direction::Horizontal]).into(),
        "checkVerticalWin" => wins(&[Direction::Vertical]).into(),
        "checkDiagonalWin" => wins(&[Direction::Diagonal, Direction::AntiDiagonal]).into(),
        "checkForDraw" => p.board.is_full().into(),
        other => panic!("no harness for {other}"),
    }
}

#[test]
fn seed_004_igameboard_vectors() {
    let all = vectors("cpsc2150_igameboard_vectors.jsonl");
    for v in &all {
        for storage in [Storage::Dense, Storage::Sparse] {
            assert_eq!(igameboard(v, storage), v["expect"], "{} {} ({storage:?})", v["src"], v["test"]);
        }
    }
    assert_eq!(all.len(), 163);
}

#[test]
fn a_win_check_looks_only_through_the_square_played() {
    // The engine's win check is O(K) from the last move: a full line elsewhere
    // does not count through an unrelated square.
    let p = Position::new(3, 3, 3, &[(0, 0, 'X'), (0, 1, 'X'), (0, 2, 'X'), (2, 2, 'X')], Storage::Dense);
    let corner = p.square(2, 2).unwrap();
    assert!(!p.board.wins_through(corner, p.id("X").unwrap()));
    assert!(p.board.wins_through(p.square(0, 1).unwrap(), p.id("X").unwrap()));
}
