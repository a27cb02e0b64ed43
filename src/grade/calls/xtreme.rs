//! StFX asn3's functions (`asn3.py`, "Xtreme" tic-tac-toe on n × n boards):
//! their cases, expected values from the rule engine and the `grid`
//! rendering, and how each call reads in Python.
//!
//! A board is a list of rows of strings (`" "`, `"X"`, `"O"`), indexed
//! `board[y][x]`; a move is the tuple `(x, y)`. Boards go from 1 × 1 to
//! 7 × 7. A row, a column or a diagonal wins when the player holds all of
//! it, which is the rule engine's `n` in a row on an `n`-wide line.

use std::path::Path;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Map, Value, json};

use super::{
    Assignment, Call, CaseOptions, GRADER_DIR, Harness, Outcome, SUBMISSION_DIR, Times, common, cut,
    does_not_load, quoted,
};
use crate::board::{Board, Direction, Geometry, Storage, parse_xy};
use crate::player::{Mark, Player, PlayerId, Players};
use crate::render::{Renderer, Style};
use crate::workshop::language;

/// The functions graded, in the handout's order.
pub const FUNCTIONS: [&str; 12] = [
    "setup_game",
    "parse_move",
    "is_move_valid",
    "apply_move",
    "check_row",
    "check_column",
    "check_down_diagonal",
    "check_up_diagonal",
    "check_for_winner",
    "render_cell",
    "render_row",
    "render_board",
];

/// The largest board side generated.
const MAX_SIDE: usize = 7;

/// The published examples, shipped in the binary: the asserts of StFX
/// asn3, as JSON lines. A copy of `fixtures/peers/stfx_cs101_asn3_vectors.jsonl`
/// (which says where they came from); `tests/integration/peers.rs` checks
/// the two are the same bytes.
const PEERS: &str = include_str!("xtreme/stfx_cs101_asn3_vectors.jsonl");

/// The harness's file name in the grader's directory.
const HARNESS_FILE: &str = "harness.py";

/// StFX asn3's `asn3.py` ([`super::Api::Xtreme`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Xtreme;

impl Assignment for Xtreme {
    type Call = XCall;

    /// [`FUNCTIONS`], in the handout's order.
    fn functions(&self) -> Vec<String> {
        FUNCTIONS.iter().map(|&f| f.to_owned()).collect()
    }

    /// The harness for the submission at `source`: its `asn3.py`, or its only
    /// Python file. Python runs isolated (`-I`: neither the script's directory,
    /// the working directory nor `PYTHON*` variables are on the import path),
    /// and the harness loads the student's file by its path after its own
    /// imports: no module of the submission's (`json.py`, `copy.py` beside
    /// `asn3.py`) can stand in for one the harness uses.
    fn harness(&self, source: &Path, _memory: u64, times: Times) -> Result<Harness, String> {
        let files = language::files(source);
        let python: Vec<&std::path::PathBuf> =
            files.iter().filter(|f| f.extension().is_some_and(|e| e == "py")).collect();
        let chosen = python
            .iter()
            .find(|f| f.file_name().is_some_and(|n| n == "asn3.py"))
            .or(if python.len() == 1 { python.first() } else { None })
            .ok_or_else(|| {
                format!("no asn3.py, and {} other Python files: expected asn3.py", python.len())
            })?;
        let file = chosen.to_string_lossy().into_owned();
        Ok(Harness {
            language: format!("Python ({file})"),
            files: vec![(HARNESS_FILE.to_owned(), super::PYTHON_HARNESS)],
            build: None,
            env: Vec::new(),
            run: format!(
                "python3 -I -B {GRADER_DIR}/{HARNESS_FILE} {} {}",
                times.args(),
                shell_words::quote(&format!("{SUBMISSION_DIR}/{file}"))
            ),
        })
    }

    /// Every case: the published examples the engine can answer, then
    /// `options.per_function` random ones per function.
    fn cases(&self, options: CaseOptions) -> Vec<XCall> {
        let mut cases = peers();
        for (function, _) in FUNCTIONS.iter().enumerate() {
            let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
            rng.set_stream(function as u64);
            for _ in 0..options.per_function {
                cases.push(random(function, &mut rng));
            }
        }
        cases
    }

    /// [`does_not_load`], with a hint where the cause is a known one:
    /// `input()` run at import.
    fn not_loaded(&self, why: &str) -> String {
        let mut detail = does_not_load(why);
        if why.starts_with("EOFError") {
            detail.push_str(" (it reads input as it is imported: is its game loop outside `if __name__ == \"__main__\":`?)");
        }
        detail
    }
}

/// A board as the student's code sees it: rows of strings.
type Grid = Vec<Vec<String>>;

/// One call of one of [`FUNCTIONS`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct XCall {
    function: usize,
    args: Args,
}

/// The arguments of each kind of function.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Args {
    /// `setup_game(n)`.
    Size(usize),
    /// `parse_move(text)`.
    Text(String),
    /// `is_move_valid((x, y), board)`, `apply_move((x, y), board, player)`
    /// (with a player).
    Move { x: i64, y: i64, board: Grid, player: Option<String> },
    /// `check_row(board, index, player)`, `check_column(…)`.
    Line { board: Grid, index: usize, player: String },
    /// `check_down_diagonal(board, player)`, `check_up_diagonal(…)`,
    /// `check_for_winner(…)`.
    Whole { board: Grid, player: String },
    /// `render_cell(board, x, y)`.
    Cell { board: Grid, x: usize, y: usize },
    /// `render_row(board, y)`.
    Row { board: Grid, y: usize },
    /// `render_board(board)`.
    Board { board: Grid },
}

impl XCall {
    fn name(&self) -> &'static str {
        FUNCTIONS[self.function]
    }

    fn board(&self) -> Option<&Grid> {
        match &self.args {
            Args::Size(_) | Args::Text(_) => None,
            Args::Move { board, .. }
            | Args::Line { board, .. }
            | Args::Whole { board, .. }
            | Args::Cell { board, .. }
            | Args::Row { board, .. }
            | Args::Board { board } => Some(board),
        }
    }

    fn with_board(&self, new: Grid) -> XCall {
        let mut call = self.clone();
        match &mut call.args {
            Args::Size(_) | Args::Text(_) => {}
            Args::Move { board, .. }
            | Args::Line { board, .. }
            | Args::Whole { board, .. }
            | Args::Cell { board, .. }
            | Args::Row { board, .. }
            | Args::Board { board } => *board = new,
        }
        call
    }

    /// The arguments as JSON, in order.
    fn json_args(&self) -> Vec<Value> {
        let grid = |g: &Grid| json!(g);
        let pair = |x: i64, y: i64| json!({ "tuple": [x, y] });
        match &self.args {
            Args::Size(n) => vec![json!(n)],
            Args::Text(t) => vec![json!(t)],
            Args::Move { x, y, board, player } => {
                let mut args = vec![pair(*x, *y), grid(board)];
                args.extend(player.iter().map(|p| json!(p)));
                args
            }
            Args::Line { board, index, player } => vec![grid(board), json!(index), json!(player)],
            Args::Whole { board, player } => vec![grid(board), json!(player)],
            Args::Cell { board, x, y } => vec![grid(board), json!(x), json!(y)],
            Args::Row { board, y } => vec![grid(board), json!(y)],
            Args::Board { board } => vec![grid(board)],
        }
    }

    /// The value a right answer gives, from the rule engine.
    fn expected(&self) -> Value {
        match &self.args {
            Args::Size(n) => {
                let (board, labels) = engine(&vec![vec![" ".to_owned(); *n]; *n], 1, None);
                json!(grid_of(&board, &labels))
            }
            Args::Text(text) => parse_xy(text).map_or(Value::Null, |(x, y)| json!({ "tuple": [x, y] })),
            Args::Move { x, y, board, player: None } => {
                let (engine, _) = engine(board, 1, None);
                json!(square(&engine, *x, *y).is_some_and(|s| engine.get(s).is_none()))
            }
            Args::Move { x, y, board, player: Some(player) } => {
                let (mut engine, labels) = engine(board, 1, Some(player));
                if let Some(s) = square(&engine, *x, *y) {
                    engine.set(s, id_of(&labels, player));
                }
                json!(grid_of(&engine, &labels))
            }
            Args::Line { board, index, player } => {
                let rows = u32::try_from(board.len()).unwrap_or(0);
                let cols = u32::try_from(board.first().map_or(0, Vec::len)).unwrap_or(0);
                let index = u32::try_from(*index).unwrap_or(u32::MAX);
                let (win, row, col, direction) = if self.name() == "check_row" {
                    (cols, index, 0, Direction::Horizontal)
                } else {
                    (rows, 0, index, Direction::Vertical)
                };
                let (engine, labels) = engine(board, win, Some(player));
                let id = id_of(&labels, player);
                json!(engine.geometry().square(row, col).is_some_and(|s| engine.wins_along(s, direction, id)))
            }
            Args::Whole { board, player } => {
                let n = u32::try_from(board.len()).unwrap_or(0);
                let (engine, labels) = engine(board, n, Some(player));
                let id = id_of(&labels, player);
                let g = engine.geometry();
                let wins = |row: u32, col: u32, d: Direction| {
                    g.square(row, col).is_some_and(|s| engine.wins_along(s, d, id))
                };
                let down = wins(0, 0, Direction::Diagonal);
                let up = wins(n.saturating_sub(1), 0, Direction::AntiDiagonal);
                json!(match self.name() {
                    "check_down_diagonal" => down,
                    "check_up_diagonal" => up,
                    _ => {
                        down || up
                            || (0..n)
                                .any(|i| wins(i, 0, Direction::Horizontal) || wins(0, i, Direction::Vertical))
                    }
                })
            }
            Args::Cell { board, x, y } => {
                rendered(board, |r, e, out| r.cell(e, to_u32(*y), to_u32(*x), b' ', out))
            }
            Args::Row { board, y } => rendered(board, |r, e, out| r.row(e, to_u32(*y), out)),
            Args::Board { board } => rendered(board, Renderer::board),
        }
    }
}

fn signed(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// What the `grid` renderer writes for `board`, as a JSON string.
fn rendered(board: &Grid, draw: impl FnOnce(&Renderer, &Board, &mut Vec<u8>)) -> Value {
    let (engine, labels) = engine(board, 1, None);
    let players = players(&labels);
    let mut out = Vec::new();
    draw(&Renderer::new(Style::Grid, &players), &engine, &mut out);
    json!(String::from_utf8_lossy(&out))
}

/// The square at column `x`, row `y`, if it is on the board.
fn square(board: &Board, x: i64, y: i64) -> Option<crate::board::Square> {
    let (x, y) = (u32::try_from(x).ok()?, u32::try_from(y).ok()?);
    board.geometry().square(y, x)
}

/// The labels' players: `X` and `O` first, then each other string found,
/// each with a mark of its own (a label longer than one character gets a
/// stand-in mark: only the rule engine sees it).
fn labels_of(grid: &Grid, extra: Option<&str>) -> Vec<String> {
    let mut labels = vec!["X".to_owned(), "O".to_owned()];
    for cell in grid.iter().flatten().map(String::as_str).chain(extra) {
        if cell != " " && !labels.iter().any(|l| l == cell) {
            labels.push(cell.to_owned());
        }
    }
    labels
}

fn players(labels: &[String]) -> Players {
    const STAND_INS: [char; 8] = ['1', '2', '3', '4', '5', '6', '7', '8'];
    let mut stand_ins = STAND_INS.iter().copied().filter(|c| !labels.iter().any(|l| l.starts_with(*c)));
    let players = labels
        .iter()
        .map(|label| {
            let mut chars = label.chars();
            let mark = match (chars.next(), chars.next()) {
                (Some(c), None) => Mark::new(c),
                _ => None,
            }
            .or_else(|| stand_ins.next().and_then(Mark::new))
            .unwrap_or(Mark::O);
            Player { mark, name: label.clone() }
        })
        .collect();
    // At most ten labels reach here (see `engine`); a repeat mark falls back
    // to the classic pair.
    Players::new(players).unwrap_or_else(|_| Players::classic("X", "O"))
}

fn id_of(labels: &[String], label: &str) -> PlayerId {
    PlayerId::new(labels.iter().position(|l| l == label).unwrap_or(0))
}

/// The rule engine's board for `grid`, `win` in a row winning, and the
/// label of each player (`extra` among them, on the board or not).
fn engine(grid: &Grid, win: u32, extra: Option<&str>) -> (Board, Vec<String>) {
    let rows = u32::try_from(grid.len()).unwrap_or(1).max(1);
    let cols = u32::try_from(grid.iter().map(Vec::len).max().unwrap_or(1)).unwrap_or(1).max(1);
    let mut labels = labels_of(grid, extra);
    labels.truncate(10);
    let geometry = Geometry::new(rows, cols, win.clamp(1, rows.max(cols))).unwrap_or(Geometry::CLASSIC);
    let mut board = Board::new(geometry, Storage::Dense);
    for (y, row) in grid.iter().enumerate() {
        for (x, cell) in row.iter().enumerate() {
            if cell != " "
                && let Some(p) = labels.iter().position(|l| l == cell)
                && let Some(s) = geometry.square(to_u32(y), to_u32(x))
            {
                board.set(s, PlayerId::new(p));
            }
        }
    }
    (board, labels)
}

/// The grid the engine's board holds.
fn grid_of(board: &Board, labels: &[String]) -> Grid {
    let g = board.geometry();
    (0..g.rows())
        .map(|row| {
            board.row(row).map(|c| c.map_or_else(|| " ".to_owned(), |p| labels[p.index()].clone())).collect()
        })
        .collect()
}

/// A value as Python writes it.
fn python(value: &Value) -> String {
    match value {
        Value::Null => "None".to_owned(),
        Value::Bool(true) => "True".to_owned(),
        Value::Bool(false) => "False".to_owned(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => quoted(s),
        Value::Array(items) => format!("[{}]", items.iter().map(python).collect::<Vec<_>>().join(", ")),
        Value::Object(o) => {
            if let Some(Value::Array(items)) = o.get("tuple") {
                let inner: Vec<String> = items.iter().map(python).collect();
                if inner.len() == 1 { format!("({},)", inner[0]) } else { format!("({})", inner.join(", ")) }
            } else if let Some(Value::String(r)) = o.get("repr") {
                r.clone()
            } else {
                value.to_string()
            }
        }
    }
}

/// Python's `==` on two values as the harness encodes them: `True == 1`,
/// `1 == 1.0`, a tuple never equals a list.
fn python_eq(expected: &Value, got: &Value) -> bool {
    let number = |v: &Value| match v {
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        Value::Number(n) => n.as_f64(),
        _ => None,
    };
    match (expected, got) {
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| python_eq(a, b))
        }
        (Value::Object(a), Value::Object(b)) => match (a.get("tuple"), b.get("tuple")) {
            (Some(a), Some(b)) => python_eq(a, b),
            _ => false,
        },
        (Value::String(a), Value::String(b)) => a == b,
        (Value::Null, Value::Null) => true,
        (a, b) => number(a).is_some() && number(a) == number(b),
    }
}

impl Call for XCall {
    fn function(&self) -> usize {
        self.function
    }

    fn request(&self) -> Map<String, Value> {
        let mut request = Map::new();
        request.insert("fn".to_owned(), json!(self.name()));
        request.insert("args".to_owned(), Value::Array(self.json_args()));
        request
    }

    fn shown(&self) -> String {
        let args: Vec<String> = self.json_args().iter().map(python).collect();
        format!("{}({})", self.name(), args.join(", "))
    }

    fn size(&self) -> (u64, u64, u64) {
        let cells = |b: &Grid| b.iter().map(|r| r.len() as u64).sum::<u64>();
        let marks = |b: &Grid| b.iter().flatten().filter(|c| *c != " ").count() as u64;
        match &self.args {
            Args::Size(n) => ((n * n) as u64, 0, 0),
            Args::Text(t) => (0, 0, t.len() as u64),
            Args::Move { x, y, board, .. } => {
                (cells(board), marks(board), x.unsigned_abs() + y.unsigned_abs())
            }
            Args::Line { board, index, .. } => (cells(board), marks(board), *index as u64),
            Args::Cell { board, x, y } => (cells(board), marks(board), (x + y) as u64),
            Args::Row { board, y } => (cells(board), marks(board), *y as u64),
            Args::Whole { board, .. } | Args::Board { board } => (cells(board), marks(board), 0),
        }
    }

    fn judge(&self, answer: &Map<String, Value>) -> Outcome {
        if let Some(outcome) = common(answer) {
            return outcome;
        }
        let expected = self.expected();
        let got = answer.get("ok").unwrap_or(&Value::Null);
        let mut why = Vec::new();
        if let Some(Value::Array(changed)) = answer.get("changed_args") {
            let names: Vec<String> = changed
                .iter()
                .filter_map(Value::as_u64)
                .map(|i| match (&self.args, i) {
                    (Args::Move { .. }, 1) | (Args::Line { .. } | Args::Whole { .. }, 0) => {
                        "board".to_owned()
                    }
                    (_, i) => format!("argument {}", i + 1),
                })
                .collect();
            why.push(format!(
                "it changed its {} (it must return a new board and leave its argument as it was)",
                names.join(" and ")
            ));
        }
        match answer.get("aliased_rows").and_then(Value::as_str) {
            Some("same") => {
                why.push("the board it returned is the board passed in, not a new one".to_owned());
            }
            Some("argument") => why.push(
                "the board it returned shares rows with the board passed in (a shallow copy: copy each row too)"
                    .to_owned(),
            ),
            Some(_) => why.push("the rows of the board it returned are one list, not separate lists".to_owned()),
            None => {}
        }
        if python_eq(&expected, got) && why.is_empty() {
            return Outcome::Pass;
        }
        Outcome::Wrong {
            expected: cut(python(&expected)),
            got: cut(python(got)),
            why: (!why.is_empty()).then(|| why.join("; and ")),
        }
    }

    fn smaller(&self) -> Vec<XCall> {
        let mut out = Vec::new();
        if let Args::Size(n) = self.args
            && n > 1
        {
            out.push(XCall { function: self.function, args: Args::Size(n - 1) });
        }
        let Some(board) = self.board() else { return out };
        // Fewer marks: clear halves, quarters, … of them, then each one.
        let marked: Vec<(usize, usize)> = board
            .iter()
            .enumerate()
            .flat_map(|(y, r)| r.iter().enumerate().filter(|(_, c)| *c != " ").map(move |(x, _)| (y, x)))
            .collect();
        let mut chunk = marked.len().div_ceil(2);
        while chunk > 0 {
            for part in marked.chunks(chunk) {
                let mut fewer = board.clone();
                for &(y, x) in part {
                    " ".clone_into(&mut fewer[y][x]);
                }
                out.push(self.with_board(fewer));
            }
            chunk = if chunk == 1 { 0 } else { chunk.div_ceil(2).min(chunk - 1) };
        }
        // A side fewer: row and column `i` gone, coordinates past it moved.
        let n = board.len();
        let square = board.iter().all(|r| r.len() == n);
        if square && n > 1 {
            for i in 0..n {
                if let Some(call) = self.without(i) {
                    out.push(call);
                }
            }
        }
        out
    }
}

impl XCall {
    /// The call on the board without row and column `i`, if its
    /// coordinates can follow (none of them is `i`).
    fn without(&self, i: usize) -> Option<XCall> {
        let board = self.board()?;
        let smaller: Grid = board
            .iter()
            .enumerate()
            .filter(|(y, _)| *y != i)
            .map(|(_, r)| r.iter().enumerate().filter(|(x, _)| *x != i).map(|(_, c)| c.clone()).collect())
            .collect();
        let shift = |c: usize| if c == i { None } else { Some(if c > i { c - 1 } else { c }) };
        let shift_signed = |c: i64| -> Option<i64> {
            match usize::try_from(c) {
                Ok(u) => shift(u).map(signed),
                Err(_) => Some(c),
            }
        };
        let mut call = self.with_board(smaller);
        match &mut call.args {
            Args::Move { x, y, .. } => {
                *x = shift_signed(*x)?;
                *y = shift_signed(*y)?;
            }
            Args::Line { index, .. } => *index = shift(*index)?,
            Args::Cell { x, y, .. } => {
                *x = shift(*x)?;
                *y = shift(*y)?;
            }
            Args::Row { y, .. } => *y = shift(*y)?,
            Args::Size(_) | Args::Text(_) | Args::Whole { .. } | Args::Board { .. } => {}
        }
        Some(call)
    }
}

/// The published examples, as calls (their expected values are the
/// engine's; `tests/integration/peers.rs` checks the two agree).
fn peers() -> Vec<XCall> {
    let mut calls = Vec::new();
    for line in PEERS.lines() {
        let Ok(Value::Object(v)) = serde_json::from_str::<Value>(line) else { continue };
        let Some(function) =
            v.get("fn").and_then(Value::as_str).and_then(|f| FUNCTIONS.iter().position(|g| *g == f))
        else {
            continue;
        };
        let Some(Value::Array(args)) = v.get("args") else { continue };
        if let Some(args) = peer_args(FUNCTIONS[function], args) {
            calls.push(XCall { function, args });
        }
    }
    calls
}

fn peer_args(function: &str, args: &[Value]) -> Option<Args> {
    let grid = |v: &Value| -> Option<Grid> {
        v.as_array()?
            .iter()
            .map(|r| r.as_array()?.iter().map(|c| c.as_str().map(str::to_owned)).collect())
            .collect()
    };
    let int = |v: &Value| v.as_i64();
    let index = |v: &Value| v.as_u64().and_then(|n| usize::try_from(n).ok());
    let text = |v: &Value| v.as_str().map(str::to_owned);
    let plain = |g: &Grid| {
        let n = g.len();
        n > 0 && g.iter().all(|r| r.len() == n && r.iter().all(|c| matches!(c.as_str(), " " | "X" | "O")))
    };
    Some(match (function, args) {
        ("setup_game", [n]) => Args::Size(index(n)?),
        ("parse_move", [t]) => Args::Text(text(t)?),
        ("is_move_valid" | "apply_move", [m, b, rest @ ..]) => {
            let m = m.as_array()?;
            Args::Move {
                x: int(m.first()?)?,
                y: int(m.get(1)?)?,
                board: grid(b)?,
                player: rest.first().and_then(text),
            }
        }
        ("check_row" | "check_column", [b, i, p]) => {
            Args::Line { board: grid(b)?, index: index(i)?, player: text(p)? }
        }
        ("check_down_diagonal" | "check_up_diagonal" | "check_for_winner", [b, p]) => {
            let board = grid(b)?;
            let n = board.len();
            board.iter().all(|r| r.len() == n).then_some(())?;
            Args::Whole { board, player: text(p)? }
        }
        ("render_cell", [b, x, y]) => {
            Args::Cell { board: grid(b).filter(plain)?, x: index(x)?, y: index(y)? }
        }
        ("render_row", [b, y]) => Args::Row { board: grid(b).filter(plain)?, y: index(y)? },
        ("render_board", [b]) => Args::Board { board: grid(b).filter(plain)? },
        _ => return None,
    })
}

/// A random board of side `n`: each square empty, X or O, emptier or
/// fuller at random.
fn random_board(n: usize, rng: &mut ChaCha8Rng) -> Grid {
    let fill = rng.random_range(0..=10);
    (0..n)
        .map(|_| {
            (0..n)
                .map(|_| {
                    if rng.random_range(0..10) < fill {
                        if rng.random_bool(0.5) { "X" } else { "O" }.to_owned()
                    } else {
                        " ".to_owned()
                    }
                })
                .collect()
        })
        .collect()
}

/// Gives `player` the whole of one line half the time, and then half the
/// time takes one square of it back: so that wins, and near misses, are
/// common.
fn plant_line(board: &mut Grid, line: &[(usize, usize)], player: &str, rng: &mut ChaCha8Rng) {
    if line.is_empty() || rng.random_bool(0.5) {
        return;
    }
    for &(y, x) in line {
        player.clone_into(&mut board[y][x]);
    }
    if rng.random_bool(0.5) {
        let (y, x) = line[rng.random_range(0..line.len())];
        let other = if rng.random_bool(0.5) {
            " "
        } else if player == "X" {
            "O"
        } else {
            "X"
        };
        other.clone_into(&mut board[y][x]);
    }
}

/// A random side from 1 to 7, small ones likelier.
fn side(rng: &mut ChaCha8Rng) -> usize {
    let a = rng.random_range(1..=MAX_SIDE);
    let b = rng.random_range(1..=MAX_SIDE);
    a.min(b)
}

fn random(function: usize, rng: &mut ChaCha8Rng) -> XCall {
    let n = side(rng);
    let mut board = random_board(n, rng);
    let player = if rng.random_bool(0.5) { "X" } else { "O" }.to_owned();
    let coordinate = |rng: &mut ChaCha8Rng| -> i64 {
        let n = signed(n);
        if rng.random_range(0..4) == 0 { rng.random_range(-3..n + 3) } else { rng.random_range(0..n) }
    };
    let args = match FUNCTIONS[function] {
        "setup_game" => Args::Size(rng.random_range(1..=MAX_SIDE + 3)),
        "parse_move" => {
            let (x, y) = (rng.random_range(0..12), rng.random_range(0..12));
            let forms = ["{x}, {y}", "{x},{y}", "{x} , {y}", "{x},  {y}", "{x}, {y}, {z}"];
            let form = forms[rng.random_range(0..forms.len())];
            Args::Text(form.replace("{x}", &x.to_string()).replace("{y}", &y.to_string()).replace("{z}", "7"))
        }
        "is_move_valid" => Args::Move { x: coordinate(rng), y: coordinate(rng), board, player: None },
        "apply_move" => {
            // Only a valid move is applied: an empty square.
            let empty: Vec<(usize, usize)> = (0..n)
                .flat_map(|y| (0..n).map(move |x| (y, x)))
                .filter(|&(y, x)| board[y][x] == " ")
                .collect();
            let (y, x) = if empty.is_empty() {
                let (y, x) = (rng.random_range(0..n), rng.random_range(0..n));
                " ".clone_into(&mut board[y][x]);
                (y, x)
            } else {
                empty[rng.random_range(0..empty.len())]
            };
            Args::Move { x: signed(x), y: signed(y), board, player: Some(player) }
        }
        "check_row" | "check_column" => {
            let index = rng.random_range(0..n);
            let line: Vec<(usize, usize)> = if FUNCTIONS[function] == "check_row" {
                (0..n).map(|x| (index, x)).collect()
            } else {
                (0..n).map(|y| (y, index)).collect()
            };
            plant_line(&mut board, &line, &player, rng);
            Args::Line { board, index, player }
        }
        "check_down_diagonal" | "check_up_diagonal" | "check_for_winner" => {
            let lines: Vec<Vec<(usize, usize)>> = match FUNCTIONS[function] {
                "check_down_diagonal" => vec![(0..n).map(|i| (i, i)).collect()],
                "check_up_diagonal" => vec![(0..n).map(|i| (n - 1 - i, i)).collect()],
                _ => {
                    let mut lines =
                        vec![(0..n).map(|i| (i, i)).collect(), (0..n).map(|i| (n - 1 - i, i)).collect()];
                    for i in 0..n {
                        lines.push((0..n).map(|x| (i, x)).collect());
                        lines.push((0..n).map(|y| (y, i)).collect());
                    }
                    lines
                }
            };
            let line = &lines[rng.random_range(0..lines.len())];
            plant_line(&mut board, line, &player, rng);
            Args::Whole { board, player }
        }
        "render_cell" => Args::Cell { board, x: rng.random_range(0..n), y: rng.random_range(0..n) },
        "render_row" => Args::Row { board, y: rng.random_range(0..n) },
        _ => Args::Board { board },
    };
    XCall { function, args }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_harness_runs_isolated_from_beside_the_submission() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("asn3.py"), "x = 1\n").unwrap();
        let times =
            Times { call: std::time::Duration::from_secs(1), budget: std::time::Duration::from_secs(9) };
        let harness = Xtreme.harness(dir.path(), 0, times).unwrap();
        assert_eq!(harness.files, vec![("harness.py".to_owned(), super::super::PYTHON_HARNESS)]);
        assert_eq!(harness.run, "python3 -I -B ttt/harness.py 1000 9000 submission/asn3.py");
    }

    fn call(name: &str, args: Args) -> XCall {
        XCall { function: FUNCTIONS.iter().position(|f| *f == name).unwrap(), args }
    }

    fn grid(rows: &[&str]) -> Grid {
        rows.iter().map(|r| r.chars().map(|c| c.to_string()).collect()).collect()
    }

    #[test]
    fn the_handouts_examples_have_the_handouts_answers() {
        let board = grid(&["X  ", "  O", "   "]);
        let render = call("render_board", Args::Board { board: board.clone() });
        assert_eq!(render.expected(), json!("X| | \n-+-+-\n | |O\n-+-+-\n | | \n"));
        let cell = call("render_cell", Args::Cell { board: board.clone(), x: 2, y: 1 });
        assert_eq!(cell.expected(), json!("O"));
        let valid =
            |x, y| call("is_move_valid", Args::Move { x, y, board: board.clone(), player: None }).expected();
        assert_eq!((valid(2, 2), valid(2, 1), valid(-2, 1)), (json!(true), json!(false), json!(false)));
        let apply = call("apply_move", Args::Move { x: 0, y: 1, board, player: Some("X".to_owned()) });
        assert_eq!(apply.expected(), json!(grid(&["X  ", "X O", "   "])));
        assert_eq!(call("parse_move", Args::Text("2, 1".to_owned())).expected(), json!({"tuple": [2, 1]}));
        let up = call(
            "check_up_diagonal",
            Args::Whole { board: grid(&["  X", " X ", "X  "]), player: "X".to_owned() },
        );
        assert_eq!(up.expected(), json!(true));
        assert_eq!(
            up.shown(),
            r#"check_up_diagonal([[" ", " ", "X"], [" ", "X", " "], ["X", " ", " "]], "X")"#
        );
    }

    #[test]
    fn every_published_example_is_a_case_with_the_published_answer() {
        let mut checked = 0;
        for line in PEERS.lines() {
            let v: Value = serde_json::from_str(line).unwrap();
            let (Some(f), Some(Value::Array(args))) = (v["fn"].as_str(), v.get("args")) else { continue };
            let Some(args) = peer_args(f, args) else { continue };
            let call = call(f, args);
            let expect = &v["expect"];
            let expected = call.expected();
            let same = match &expected {
                Value::Object(o) => o.get("tuple") == Some(expect),
                e => e == expect,
            };
            assert!(same, "{}: engine {expected}, published {expect}", call.shown());
            checked += 1;
        }
        assert!(checked >= 85, "only {checked} published examples are cases");
    }

    #[test]
    fn the_same_seed_gives_the_same_cases_and_every_function_has_them() {
        let options = CaseOptions { per_function: 50, seed: 9 };
        assert_eq!(Xtreme.cases(options), Xtreme.cases(options));
        assert_ne!(Xtreme.cases(options), Xtreme.cases(CaseOptions { seed: 10, ..options }));
        let all = Xtreme.cases(options);
        for f in 0..FUNCTIONS.len() {
            assert!(all.iter().filter(|c| c.function == f).count() >= 50);
        }
        // Wins and losses are both common in every check.
        for name in
            ["check_row", "check_column", "check_down_diagonal", "check_up_diagonal", "check_for_winner"]
        {
            let f = FUNCTIONS.iter().position(|g| *g == name).unwrap();
            let wins = all.iter().filter(|c| c.function == f && c.expected() == json!(true)).count();
            assert!((10..=40).contains(&wins), "{name}: {wins} wins of 50");
        }
    }

    #[test]
    fn answers_are_judged_as_python_compares_them() {
        let parse = call("parse_move", Args::Text("2,1".to_owned()));
        let answer = |v: Value| -> Map<String, Value> { serde_json::from_value(v).unwrap() };
        assert_eq!(parse.judge(&answer(json!({"ok": {"tuple": [2, 1]}}))), Outcome::Pass);
        assert_eq!(
            parse.judge(&answer(json!({"ok": [2, 1]}))),
            Outcome::Wrong { expected: "(2, 1)".to_owned(), got: "[2, 1]".to_owned(), why: None }
        );
        let valid = call("is_move_valid", Args::Move { x: 0, y: 0, board: grid(&[" "]), player: None });
        assert_eq!(valid.judge(&answer(json!({"ok": 1}))), Outcome::Pass);
        assert_eq!(
            valid.judge(&answer(json!({"raised": "IndexError: list index out of range"}))),
            Outcome::Crashed("raised IndexError: list index out of range".to_owned())
        );
        assert_eq!(valid.judge(&answer(json!({"timeout": true}))), Outcome::TimeLimit);
        let apply = call(
            "apply_move",
            Args::Move { x: 0, y: 0, board: grid(&["  ", "  "]), player: Some("X".to_owned()) },
        );
        let shallow = apply.judge(&answer(
            json!({"ok": [["X", " "], [" ", " "]], "aliased_rows": "argument", "changed_args": [1]}),
        ));
        let Outcome::Wrong { why: Some(why), .. } = shallow else { panic!("{shallow:?}") };
        assert!(why.contains("changed its board") && why.contains("shallow copy"), "{why}");
    }

    #[test]
    fn smaller_calls_keep_their_meaning() {
        let c = call(
            "check_row",
            Args::Line { board: grid(&["XXX", "O  ", " O "]), index: 0, player: "X".to_owned() },
        );
        let smaller = c.smaller();
        assert!(smaller.iter().all(|s| s.size() < c.size()));
        // Row 0 is never taken away from under the call.
        assert!(smaller.iter().all(|s| matches!(&s.args, Args::Line { index: 0, .. })));
        assert!(smaller.iter().any(|s| s.board().unwrap().len() == 2));
        let m = call("is_move_valid", Args::Move { x: -1, y: 2, board: grid(&["   "; 3]), player: None });
        assert!(m.smaller().iter().all(|s| matches!(s.args, Args::Move { x: -1, .. })));
    }
}
