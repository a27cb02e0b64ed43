//! Clemson CPSC 2150's Java classes (`IGameBoard` through `GameBoard` and
//! `GameBoardMem`): their cases, expected values from the rule engine and
//! the `table` rendering, and how each call reads in Java.
//!
//! A case builds a board (`new GameBoard(rows, cols, win)`), places its
//! marks with `placeMarker`, then makes one call. Boards are 3 × 3 to 8 × 8
//! with 3 to min(rows, cols) in a row and 2 to 4 players; positions are
//! `BoardPosition(row, column)` from the top-left, and only `checkSpace` is
//! asked about squares off the board. The harness also reads the board back
//! before and after the call (with the student's `whatsAtPos`), so a query
//! that changes the board is caught, and a `placeMarker` that loses marks.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Map, Value, json};

use super::{
    Assignment, Call, CaseOptions, GRADER_DIR, Harness, Outcome, SUBMISSION_DIR, Times, common, cut, quoted,
};
use crate::board::{Board, Direction, Geometry, Square, Storage};
use crate::player::{Mark, Player, Players};
use crate::render::{Renderer, Style};
use crate::workshop::language;

/// The two implementations, graded through the interface.
pub const CLASSES: [&str; 2] = ["GameBoard", "GameBoardMem"];

/// The interface's methods, in the report's order.
pub const METHODS: [&str; 13] = [
    "checkSpace",
    "placeMarker",
    "whatsAtPos",
    "isPlayerAtPos",
    "checkHorizontalWin",
    "checkVerticalWin",
    "checkDiagonalWin",
    "checkForWinner",
    "checkForDraw",
    "getNumRows",
    "getNumColumns",
    "getNumToWin",
    "toString",
];

/// The published examples, shipped in the binary: the queries of Clemson
/// CPSC 2150's `JUnit` suites, as JSON lines. A copy of
/// `fixtures/peers/cpsc2150_igameboard_vectors.jsonl` (which says where
/// they came from); `tests/integration/peers.rs` checks the two are the
/// same bytes.
const PEERS: &str = include_str!("igameboard/cpsc2150_igameboard_vectors.jsonl");

/// Where the harness's source goes in the grader's directory (its package
/// is `ttt.harness`, its source root `src`).
const HARNESS_FILE: &str = "src/ttt/harness/Harness.java";

/// The harness's class, in a package no student's class is in by chance.
const HARNESS_CLASS: &str = "ttt.harness.Harness";

/// The smallest and largest board side generated.
const SIDES: (u32, u32) = (3, 8);

/// Marks players use, besides X and O.
const MARKS: [char; 6] = ['X', 'O', 'Z', 'P', '#', 'K'];

/// Clemson CPSC 2150's Java `IGameBoard` ([`super::Api::IGameBoard`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IGameBoard;

impl Assignment for IGameBoard {
    type Call = JCall;

    /// Every test: `GameBoard.checkSpace`, …, `GameBoardMem.toString`.
    fn functions(&self) -> Vec<String> {
        CLASSES.iter().flat_map(|c| METHODS.iter().map(move |m| format!("{c}.{m}"))).collect()
    }

    /// The harness for the submission at `source`: its classes found by their
    /// simple names, in any directory and package.
    fn harness(&self, source: &Path, memory: u64, times: Times) -> Result<Harness, String> {
        let files = language::files(source);
        let find = |name: &str| -> Option<(PathBuf, String)> {
            let mut found: Vec<&PathBuf> = files
                .iter()
                .filter(|f| f.file_name().is_some_and(|n| n.to_string_lossy() == format!("{name}.java")))
                .collect();
            // A copy under a test directory is a test double, not the class.
            found.sort_by_key(|f| {
                (f.to_string_lossy().to_lowercase().contains("test"), f.components().count())
            });
            let file = (*found.first()?).clone();
            let package = language::java_package(&language::read_source(source, &file));
            let class = package.as_ref().map_or_else(|| name.to_owned(), |p| format!("{p}.{name}"));
            Some((file, class))
        };
        let position = find("BoardPosition")
            .ok_or("no BoardPosition.java: expected the classes BoardPosition, GameBoard and GameBoardMem")?;
        let boards: Vec<Option<(PathBuf, String)>> = CLASSES.iter().map(|c| find(c)).collect();
        if boards.iter().all(Option::is_none) {
            return Err("neither GameBoard.java nor GameBoardMem.java was found".to_owned());
        }
        let interface = find("IGameBoard");
        let mut sources: Vec<&PathBuf> = vec![&position.0];
        sources.extend(boards.iter().flatten().map(|(f, _)| f));
        sources.extend(interface.iter().map(|(f, _)| f));
        // Each file's source root: its directory less its package's.
        let mut roots: Vec<String> = Vec::new();
        for (file, class) in std::iter::once(&position).chain(boards.iter().flatten()).chain(interface.iter())
        {
            let dir = file.parent().unwrap_or(Path::new(""));
            let depth = class.matches('.').count();
            let root: PathBuf =
                dir.components().take(dir.components().count().saturating_sub(depth)).collect();
            let root = if root.as_os_str().is_empty() {
                ".".to_owned()
            } else {
                root.to_string_lossy().into_owned()
            };
            if !roots.contains(&root) {
                roots.push(root);
            }
        }
        let quoted_files: Vec<String> =
            sources.iter().map(|f| shell_words::quote(&f.to_string_lossy()).into_owned()).collect();
        // Two compilations. The harness's alone, first, with nothing but its own
        // directories on its paths: no class of the submission's (a
        // `StringBuilder` of the unnamed package, a stray `.class`) can be
        // compiled in as one the harness uses. Then the submission's, in its own
        // directory (its messages name its files as the student knows them), into
        // a class directory of its own, with nothing of the harness's on its
        // paths and no annotation processors. javac with the client compiler only
        // takes half the CPU time on files this small (measured: 1.6 s against
        // 2.9 s).
        let javac = "javac -J-XX:TieredStopAtLevel=1 -J-XX:+UseSerialGC -nowarn -encoding UTF-8 -proc:none";
        let build = format!(
            "mkdir -p {g}/classes {g}/student && \
             {javac} -implicit:none -cp {g}/classes -sourcepath {g}/src -d {g}/classes {g}/{HARNESS_FILE} && \
             cd {SUBMISSION_DIR} && \
             {javac} -cp ../{g}/student -d ../{g}/student -sourcepath {} {}",
            shell_words::quote(&roots.join(":")),
            quoted_files.join(" "),
            g = GRADER_DIR,
        );
        let class_or_dash =
            |b: &Option<(PathBuf, String)>| b.as_ref().map_or_else(|| "-".to_owned(), |(_, c)| c.clone());
        let run = format!(
            // The harness's classes come first: no class of the student's can
            // stand in for one of its own (and java.* ones are the JDK's alone).
            // The JVM's own warnings go to standard error, not into the protocol.
            "java {} -XX:ErrorFile=/dev/null -Xlog:disable -Xlog:all=warning:stderr -cp {g}/classes:{g}/student {HARNESS_CLASS} {} {} {} {}",
            language::jvm_flags(memory),
            times.args(),
            shell_words::quote(&class_or_dash(&boards[0])),
            shell_words::quote(&class_or_dash(&boards[1])),
            shell_words::quote(&position.1),
            g = GRADER_DIR,
        );
        let graded: Vec<String> = boards.iter().flatten().map(|(_, c)| c.clone()).collect();
        Ok(Harness {
            language: format!("Java ({})", graded.join(", ")),
            files: vec![(HARNESS_FILE.to_owned(), super::JAVA_HARNESS)],
            build: Some(build),
            run,
            // glibc's arena per JVM thread would reserve more address space than
            // the memory limit leaves (measured: the JVM fails to start).
            env: vec![("MALLOC_ARENA_MAX".to_owned(), "1".to_owned())],
        })
    }

    /// Every case, for both classes: the published examples, then
    /// `options.per_function` random ones per method.
    fn cases(&self, options: CaseOptions) -> Vec<JCall> {
        let mut cases = Vec::new();
        for method in 0..METHODS.len() {
            let mut calls = peers(method);
            let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
            rng.set_stream(method as u64);
            calls.extend((0..options.per_function).filter_map(|_| random(method, &mut rng)));
            for class in 0..CLASSES.len() {
                cases.extend(
                    calls.iter().map(|c| JCall { function: class * METHODS.len() + method, ..c.clone() }),
                );
            }
        }
        cases
    }
}

/// One call: a board built and marked, then one method called.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JCall {
    /// An index into [`IGameBoard`'s functions](Assignment::functions): class × 13 + method.
    function: usize,
    rows: u32,
    cols: u32,
    win: u32,
    /// (row, column, mark), placed in order; no square twice.
    moves: Vec<(u32, u32, char)>,
    /// The position argument, if the method takes one (row, column).
    position: Option<(i64, i64)>,
    /// The player argument, if the method takes one.
    player: Option<char>,
}

impl JCall {
    fn class(&self) -> &'static str {
        CLASSES[self.function / METHODS.len()]
    }

    fn method(&self) -> &'static str {
        METHODS[self.function % METHODS.len()]
    }

    /// The engine's board after the moves, and its players (every mark of
    /// the moves and the player argument).
    fn engine(&self) -> Option<(Board, Players)> {
        let mut marks: Vec<char> = vec!['X', 'O'];
        for c in self.moves.iter().map(|m| m.2).chain(self.player) {
            if !marks.contains(&c) {
                marks.push(c);
            }
        }
        let players = Players::new(
            marks
                .iter()
                .map(|&c| Some(Player { mark: Mark::new(c)?, name: c.to_string() }))
                .collect::<Option<_>>()?,
        )
        .ok()?;
        let geometry = Geometry::new(self.rows, self.cols, self.win).ok()?;
        let mut board = Board::new(geometry, Storage::Dense);
        for &(r, c, m) in &self.moves {
            let square = geometry.square(r, c)?;
            if board.get(square).is_some() {
                return None;
            }
            board.set(square, players.find(&m.to_string())?);
        }
        Some((board, players))
    }

    /// The board read back, a string per row, `' '` for an empty square.
    fn rows_of(board: &Board, players: &Players) -> Vec<String> {
        let g = board.geometry();
        (0..g.rows())
            .map(|r| board.row(r).map(|c| c.map_or(' ', |p| players.get(p).mark.char())).collect())
            .collect()
    }

    fn square(&self, board: &Board) -> Option<Square> {
        let (r, c) = self.position?;
        board.geometry().square(u32::try_from(r).ok()?, u32::try_from(c).ok()?)
    }

    /// The value a right answer gives, and the board after the call.
    fn expected(&self) -> Option<(Value, Vec<String>)> {
        let (mut board, players) = self.engine()?;
        let id = |c: char| players.find(&c.to_string());
        let square = self.square(&board);
        let along = |board: &Board, directions: &[Direction]| -> Option<bool> {
            let (s, p) = (square?, id(self.player?)?);
            Some(directions.iter().any(|&d| board.wins_along(s, d, p)))
        };
        let value = match self.method() {
            "checkSpace" => json!(square.is_some_and(|s| board.get(s).is_none())),
            "placeMarker" => {
                let s = square?;
                if board.get(s).is_some() {
                    return None;
                }
                board.set(s, id(self.player?)?);
                Value::Null
            }
            "whatsAtPos" => json!(board.get(square?).map_or(' ', |p| players.get(p).mark.char()).to_string()),
            "isPlayerAtPos" => json!(board.get(square?) == Some(id(self.player?)?)),
            "checkHorizontalWin" => json!(along(&board, &[Direction::Horizontal])?),
            "checkVerticalWin" => json!(along(&board, &[Direction::Vertical])?),
            "checkDiagonalWin" => json!(along(&board, &[Direction::Diagonal, Direction::AntiDiagonal])?),
            "checkForWinner" => {
                let s = square?;
                json!(board.get(s).is_some_and(|p| board.wins_through(s, p)))
            }
            "checkForDraw" => json!(board.is_full()),
            "getNumRows" => json!(self.rows),
            "getNumColumns" => json!(self.cols),
            "getNumToWin" => json!(self.win),
            _ => {
                let mut out = Vec::new();
                Renderer::new(Style::Table, &players).board(&board, &mut out);
                json!(String::from_utf8_lossy(&out))
            }
        };
        Some((value, Self::rows_of(&board, &players)))
    }

    fn args(&self) -> Vec<Value> {
        let mut args = Vec::new();
        if let Some((r, c)) = self.position {
            args.push(json!([r, c]));
        }
        if let Some(p) = self.player {
            args.push(json!(p.to_string()));
        }
        args
    }
}

/// A value as Java writes it: `true`, `3`, `'X'`, `"…"`.
fn java(value: &Value, method: &str) -> String {
    match value {
        Value::Null => "(nothing: void)".to_owned(),
        Value::String(s) if method == "toString" => quoted(s),
        Value::String(s) if s.chars().count() == 1 => match s.as_str() {
            "'" => "'\\''".to_owned(),
            "\\" => "'\\\\'".to_owned(),
            s => format!("'{s}'"),
        },
        Value::String(s) => quoted(s),
        Value::Object(o) => {
            o.get("repr").and_then(Value::as_str).map_or_else(|| value.to_string(), str::to_owned)
        }
        v => v.to_string(),
    }
}

fn char_literal(c: char) -> String {
    java(&json!(c.to_string()), "")
}

impl Call for JCall {
    fn function(&self) -> usize {
        self.function
    }

    fn request(&self) -> Map<String, Value> {
        let mut request = Map::new();
        request.insert("class".to_owned(), json!(self.class()));
        request.insert("rows".to_owned(), json!(self.rows));
        request.insert("cols".to_owned(), json!(self.cols));
        request.insert("win".to_owned(), json!(self.win));
        let moves: Vec<Value> = self.moves.iter().map(|&(r, c, m)| json!([r, c, m.to_string()])).collect();
        request.insert("moves".to_owned(), Value::Array(moves));
        request.insert("call".to_owned(), json!(self.method()));
        request.insert("args".to_owned(), Value::Array(self.args()));
        request
    }

    fn shown(&self) -> String {
        let mut text =
            format!("IGameBoard board = new {}({}, {}, {});\n", self.class(), self.rows, self.cols, self.win);
        for &(r, c, m) in &self.moves {
            let _ = writeln!(text, "board.placeMarker(new BoardPosition({r}, {c}), {});", char_literal(m));
        }
        let mut args = Vec::new();
        if let Some((r, c)) = self.position {
            args.push(format!("new BoardPosition({r}, {c})"));
        }
        if let Some(p) = self.player {
            args.push(char_literal(p));
        }
        let _ = write!(text, "board.{}({})", self.method(), args.join(", "));
        text
    }

    fn size(&self) -> (u64, u64, u64) {
        (u64::from(self.rows * self.cols), self.moves.len() as u64, u64::from(self.win))
    }

    fn judge(&self, answer: &Map<String, Value>) -> Outcome {
        if let Some(outcome) = common(answer) {
            return outcome;
        }
        let Some((expected, after)) = self.expected() else {
            return Outcome::Crashed("the case has no answer (a bug in ttt-referee)".to_owned());
        };
        let got = answer.get("ok").unwrap_or(&Value::Null);
        let read = |key: &str| -> Option<Vec<String>> {
            answer.get(key)?.as_array()?.iter().map(|r| r.as_str().map(str::to_owned)).collect()
        };
        let mut why = None;
        if self.method() == "placeMarker" {
            if let Some(read_back) = read("after")
                && read_back != after
            {
                why = Some(format!(
                    "the board read back with whatsAtPos afterwards is\n{}\nnot\n{}",
                    read_back.join("\n"),
                    after.join("\n")
                ));
            }
        } else if let (Some(before), Some(read_back)) = (read("before"), read("after"))
            && before != read_back
        {
            why =
                Some("it changed the board (read back with whatsAtPos before and after the call)".to_owned());
        }
        // A `void` method's value is not compared.
        let same = self.method() == "placeMarker" || got == &expected;
        if same && why.is_none() {
            return Outcome::Pass;
        }
        Outcome::Wrong {
            expected: cut(java(&expected, self.method())),
            got: cut(java(got, self.method())),
            why,
        }
    }

    fn smaller(&self) -> Vec<JCall> {
        let mut out = Vec::new();
        // The move that puts the player on the position a win check asks
        // about is kept: the method's contract needs it there.
        let needed = |m: &(u32, u32, char)| {
            matches!(
                self.method(),
                "checkHorizontalWin" | "checkVerticalWin" | "checkDiagonalWin" | "checkForWinner"
            ) && self.position == Some((i64::from(m.0), i64::from(m.1)))
        };
        let removable: Vec<usize> = (0..self.moves.len()).filter(|&i| !needed(&self.moves[i])).collect();
        let mut chunk = removable.len().div_ceil(2);
        while chunk > 0 {
            for part in removable.chunks(chunk) {
                let mut call = self.clone();
                call.moves = self
                    .moves
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| !part.contains(i))
                    .map(|(_, m)| *m)
                    .collect();
                out.push(call);
            }
            chunk = if chunk == 1 { 0 } else { chunk.div_ceil(2).min(chunk - 1) };
        }
        if self.win > SIDES.0 {
            out.push(JCall { win: self.win - 1, ..self.clone() });
        }
        // A row or a column fewer, while the win still fits.
        for row in 0..self.rows {
            if self.rows > SIDES.0 && self.win < self.rows {
                out.extend(self.without(Some(row), None));
            }
        }
        for col in 0..self.cols {
            if self.cols > SIDES.0 && self.win < self.cols {
                out.extend(self.without(None, Some(col)));
            }
        }
        out
    }
}

impl JCall {
    /// The call with row `row` (or column `col`) taken out, if its position
    /// is not on it.
    fn without(&self, row: Option<u32>, col: Option<u32>) -> Option<JCall> {
        let shift = |v: u32, gone: Option<u32>| match gone {
            Some(g) if v > g => v - 1,
            _ => v,
        };
        let hit = |r: u32, c: u32| Some(r) == row || Some(c) == col;
        let mut call = self.clone();
        if let Some((r, c)) = self.position {
            let on = |v: i64, gone: Option<u32>| gone.is_some_and(|g| v == i64::from(g));
            if on(r, row) || on(c, col) {
                return None;
            }
            let shift_signed = |v: i64, gone: Option<u32>| match gone {
                Some(g) if v > i64::from(g) => v - 1,
                _ => v,
            };
            call.position = Some((shift_signed(r, row), shift_signed(c, col)));
        }
        call.moves = self
            .moves
            .iter()
            .filter(|&&(r, c, _)| !hit(r, c))
            .map(|&(r, c, m)| (shift(r, row), shift(c, col), m))
            .collect();
        call.rows -= u32::from(row.is_some());
        call.cols -= u32::from(col.is_some());
        Some(call)
    }
}

/// The published examples of one method (their expected values are the
/// engine's; `tests/integration/peers.rs` checks the two agree).
fn peers(method: usize) -> Vec<JCall> {
    let mut calls = Vec::new();
    for line in PEERS.lines() {
        let Ok(Value::Object(v)) = serde_json::from_str::<Value>(line) else { continue };
        if v.get("call").and_then(Value::as_str) != Some(METHODS[method]) {
            continue;
        }
        let int = |key: &str| v.get(key).and_then(Value::as_u64).and_then(|n| u32::try_from(n).ok());
        let (Some(rows), Some(cols), Some(win)) = (int("rows"), int("cols"), int("win")) else { continue };
        let one_char = |v: &Value| {
            let mut chars = v.as_str()?.chars();
            let c = chars.next()?;
            chars.next().is_none().then_some(c)
        };
        let Some(moves) = v.get("moves").and_then(Value::as_array).and_then(|moves| {
            moves
                .iter()
                .map(|m| {
                    let m = m.as_array()?;
                    Some((
                        u32::try_from(m.first()?.as_u64()?).ok()?,
                        u32::try_from(m.get(1)?.as_u64()?).ok()?,
                        one_char(m.get(2)?)?,
                    ))
                })
                .collect::<Option<Vec<_>>>()
        }) else {
            continue;
        };
        let args: &[Value] = v.get("args").and_then(Value::as_array).map_or(&[], Vec::as_slice);
        let position = args
            .first()
            .and_then(Value::as_array)
            .and_then(|p| Some((p.first()?.as_i64()?, p.get(1)?.as_i64()?)));
        let player = args.iter().find_map(one_char);
        let call = JCall { function: method, rows, cols, win, moves, position, player };
        if call.expected().is_some() {
            calls.push(call);
        }
    }
    calls
}

/// A random side, small ones likelier.
fn side(rng: &mut ChaCha8Rng) -> u32 {
    rng.random_range(SIDES.0..=SIDES.1).min(rng.random_range(SIDES.0..=SIDES.1))
}

/// A random case of `method`, or `None` in the rare case none was found.
fn random(method: usize, rng: &mut ChaCha8Rng) -> Option<JCall> {
    let (rows, cols) = (side(rng), side(rng));
    let win = rng.random_range(SIDES.0..=rows.min(cols));
    let count = rng.random_range(2..=4);
    let mut marks = MARKS[..count.max(2)].to_vec();
    marks[2..].shuffle(rng);
    let all: Vec<(u32, u32)> = (0..rows).flat_map(|r| (0..cols).map(move |c| (r, c))).collect();
    let mut call =
        JCall { function: method, rows, cols, win, moves: Vec::new(), position: None, player: None };
    let fill = |call: &mut JCall, share: f64, rng: &mut ChaCha8Rng| {
        let mut squares = all.clone();
        squares.shuffle(rng);
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            clippy::cast_precision_loss,
            reason = "a share of a small count"
        )]
        let n = (squares.len() as f64 * share) as usize;
        call.moves =
            squares[..n].iter().enumerate().map(|(i, &(r, c))| (r, c, marks[i % marks.len()])).collect();
    };
    let share = rng.random_range(0.0..=1.0);
    fill(&mut call, share, rng);
    let player = marks[rng.random_range(0..marks.len())];
    let on_board =
        |rng: &mut ChaCha8Rng| (i64::from(rng.random_range(0..rows)), i64::from(rng.random_range(0..cols)));
    match METHODS[method] {
        "checkSpace" => {
            call.position = Some(if rng.random_range(0..4) == 0 {
                (rng.random_range(-1..=i64::from(rows)), rng.random_range(-1..=i64::from(cols)))
            } else {
                on_board(rng)
            });
        }
        "placeMarker" => {
            let empty: Vec<(u32, u32)> = all
                .iter()
                .copied()
                .filter(|&(r, c)| !call.moves.iter().any(|m| (m.0, m.1) == (r, c)))
                .collect();
            let (r, c) = if let Some(&e) = empty.get(rng.random_range(0..empty.len().max(1))) {
                e
            } else {
                let last = call.moves.pop()?;
                (last.0, last.1)
            };
            call.position = Some((i64::from(r), i64::from(c)));
            call.player = Some(player);
        }
        "whatsAtPos" => call.position = Some(on_board(rng)),
        "isPlayerAtPos" => {
            call.position = Some(on_board(rng));
            call.player = Some(player);
        }
        "checkHorizontalWin" | "checkVerticalWin" | "checkDiagonalWin" | "checkForWinner" => {
            let own = match METHODS[method] {
                "checkHorizontalWin" => vec![Direction::Horizontal],
                "checkVerticalWin" => vec![Direction::Vertical],
                "checkDiagonalWin" => vec![Direction::Diagonal, Direction::AntiDiagonal],
                _ => Direction::ALL.to_vec(),
            };
            let direction = if rng.random_range(0..10) < 7 {
                own[rng.random_range(0..own.len())]
            } else {
                Direction::ALL[rng.random_range(0..4)]
            };
            let (r, c) = plant(&mut call, direction, player, rng)?;
            call.position = Some((i64::from(r), i64::from(c)));
            if METHODS[method] != "checkForWinner" {
                call.player = Some(player);
            }
        }
        // Full boards nobody has won are what matter most.
        "checkForDraw" if rng.random_bool(0.6) => {
            for _ in 0..50 {
                fill(&mut call, 1.0, rng);
                if let Some((board, _)) = call.engine()
                    && !won(&board)
                {
                    break;
                }
            }
            if rng.random_bool(0.3) {
                call.moves.pop();
            }
        }
        _ => {}
    }
    call.expected().is_some().then_some(call)
}

/// Whether anybody has a winning line anywhere.
fn won(board: &Board) -> bool {
    let g = board.geometry();
    (0..g.rows()).any(|r| {
        (0..g.cols()).any(|c| {
            let s = g.square(r, c).expect("on the board");
            board.get(s).is_some_and(|p| board.wins_through(s, p))
        })
    })
}

/// Gives `player` a line of `win` along `direction` through a random
/// square half the time (and then half the time takes one square of it
/// back), and gives the square the check asks about: one of the player's.
fn plant(call: &mut JCall, direction: Direction, player: char, rng: &mut ChaCha8Rng) -> Option<(u32, u32)> {
    let (dr, dc): (i64, i64) = match direction {
        Direction::Horizontal => (0, 1),
        Direction::Vertical => (1, 0),
        Direction::Diagonal => (1, 1),
        Direction::AntiDiagonal => (-1, 1),
    };
    let (rows, cols, win) = (i64::from(call.rows), i64::from(call.cols), i64::from(call.win));
    let on = |r: i64, c: i64| (0..rows).contains(&r) && (0..cols).contains(&c);
    // Every start from which `win` squares along the direction stay on the board.
    let starts: Vec<(i64, i64)> = (0..rows)
        .flat_map(|r| (0..cols).map(move |c| (r, c)))
        .filter(|&(r, c)| on(r + dr * (win - 1), c + dc * (win - 1)))
        .collect();
    let mut line: Vec<(u32, u32)> = Vec::new();
    if !starts.is_empty() && rng.random_bool(0.5) {
        let (r, c) = starts[rng.random_range(0..starts.len())];
        line = (0..win)
            .map(|i| (u32::try_from(r + dr * i).ok(), u32::try_from(c + dc * i).ok()))
            .map(|(r, c)| Some((r?, c?)))
            .collect::<Option<_>>()?;
        call.moves.retain(|m| !line.contains(&(m.0, m.1)));
        let mut placed: Vec<(u32, u32, char)> = line.iter().map(|&(r, c)| (r, c, player)).collect();
        if rng.random_bool(0.5) {
            placed.remove(rng.random_range(0..placed.len()));
        }
        line = placed.iter().map(|m| (m.0, m.1)).collect();
        call.moves.extend(placed);
    }
    // The position: a square of the player's, on the line if there is one.
    let mine: Vec<(u32, u32)> = if line.is_empty() {
        call.moves.iter().filter(|m| m.2 == player).map(|m| (m.0, m.1)).collect()
    } else {
        line
    };
    if let Some(&square) = mine.get(rng.random_range(0..mine.len().max(1))) {
        return Some(square);
    }
    // None yet: give the player a square.
    let (r, c) = (rng.random_range(0..call.rows), rng.random_range(0..call.cols));
    call.moves.retain(|m| (m.0, m.1) != (r, c));
    call.moves.push((r, c, player));
    Some((r, c))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(v: Value) -> Map<String, Value> {
        serde_json::from_value(v).unwrap()
    }

    fn method(name: &str) -> usize {
        METHODS.iter().position(|m| *m == name).unwrap()
    }

    #[test]
    fn every_published_example_is_a_case_with_the_published_answer() {
        let mut checked = 0;
        for line in PEERS.lines() {
            let v: Value = serde_json::from_str(line).unwrap();
            let m = method(v["call"].as_str().unwrap());
            let case = peers(m).into_iter().find(|c| {
                serde_json::to_string(&c.request()["moves"]).unwrap()
                    == serde_json::to_string(&v["moves"]).unwrap()
                    && c.args() == v["args"].as_array().unwrap().clone()
                    && [c.rows, c.cols, c.win].map(u64::from)
                        == [&v["rows"], &v["cols"], &v["win"]].map(|n| n.as_u64().unwrap())
            });
            let Some(case) = case else { continue };
            let (value, _) = case.expected().unwrap();
            assert_eq!(value, v["expect"], "{}", case.shown());
            checked += 1;
        }
        assert!(checked >= 150, "only {checked} published examples are cases");
    }

    #[test]
    fn cases_are_the_same_for_a_seed_cover_both_classes_and_win_often() {
        let options = CaseOptions { per_function: 40, seed: 5 };
        let all = IGameBoard.cases(options);
        assert_eq!(all, IGameBoard.cases(options));
        assert_eq!(IGameBoard.functions().len(), 26);
        for f in 0..26 {
            assert!(all.iter().filter(|c| c.function == f).count() >= 40, "{}", IGameBoard.functions()[f]);
        }
        for name in
            ["checkHorizontalWin", "checkVerticalWin", "checkDiagonalWin", "checkForWinner", "checkForDraw"]
        {
            let m = method(name);
            let mine: Vec<&JCall> = all.iter().filter(|c| c.function == m).collect();
            let yes = mine.iter().filter(|c| c.expected().unwrap().0 == json!(true)).count();
            assert!(yes * 5 >= mine.len() && yes * 5 <= mine.len() * 4, "{name}: {yes} of {}", mine.len());
        }
    }

    #[test]
    fn answers_are_judged_with_the_board_read_back() {
        let call = JCall {
            function: method("checkDiagonalWin"),
            rows: 3,
            cols: 3,
            win: 3,
            moves: vec![(0, 2, 'X'), (1, 1, 'X'), (2, 0, 'X')],
            position: Some((1, 1)),
            player: Some('X'),
        };
        let board = json!(["  X", " X ", "X  "]);
        assert_eq!(call.judge(&answer(json!({"ok": true, "before": board, "after": board}))), Outcome::Pass);
        assert_eq!(
            call.judge(&answer(json!({"ok": false, "before": board, "after": board}))),
            Outcome::Wrong { expected: "true".to_owned(), got: "false".to_owned(), why: None }
        );
        let changed =
            call.judge(&answer(json!({"ok": true, "before": board, "after": ["   ", " X ", "X  "]})));
        assert!(
            matches!(changed, Outcome::Wrong { why: Some(ref w), .. } if w.contains("changed the board")),
            "{changed:?}"
        );
        assert!(
            call.shown().ends_with("board.checkDiagonalWin(new BoardPosition(1, 1), 'X')"),
            "{}",
            call.shown()
        );
        let smaller = call.smaller();
        assert!(smaller.iter().all(|s| s.moves.contains(&(1, 1, 'X')) && s.size() < call.size()));
        let place = JCall {
            function: method("placeMarker"),
            moves: vec![(0, 0, 'X'), (0, 1, 'X')],
            position: Some((2, 2)),
            ..call
        };
        let lost = place.judge(&answer(json!({"ok": null, "after": [" X ", "   ", "  X"]})));
        assert!(
            matches!(lost, Outcome::Wrong { why: Some(ref w), .. } if w.contains("read back")),
            "{lost:?}"
        );
        assert_eq!(place.judge(&answer(json!({"ok": null, "after": ["XX ", "   ", "  X"]}))), Outcome::Pass);
    }

    #[test]
    fn the_harness_is_compiled_alone_and_comes_first_on_the_class_path() {
        let dir = tempfile::tempdir().unwrap();
        for class in ["BoardPosition", "GameBoard", "StringBuilder"] {
            std::fs::write(dir.path().join(format!("{class}.java")), format!("public class {class} {{}}\n"))
                .unwrap();
        }
        let times =
            Times { call: std::time::Duration::from_secs(1), budget: std::time::Duration::from_secs(9) };
        let harness = IGameBoard.harness(dir.path(), 1 << 30, times).unwrap();
        assert_eq!(harness.files, vec![(HARNESS_FILE.to_owned(), super::super::JAVA_HARNESS)]);
        assert!(super::super::JAVA_HARNESS.contains("\npackage ttt.harness;\n"));
        let build = harness.build.unwrap();
        let steps: Vec<&str> = build.split("&&").map(str::trim).collect();
        // The harness's own javac comes before the student's, and names nothing of theirs.
        let own = steps.iter().position(|s| s.contains("Harness.java")).unwrap();
        let theirs = steps.iter().position(|s| s.contains("GameBoard.java")).unwrap();
        assert!(own < theirs, "{build}");
        assert!(!steps[own].contains("submission") && !steps[own].contains("GameBoard"), "{build}");
        assert!(steps[own].contains(" -cp ttt/classes -sourcepath ttt/src "), "{build}");
        assert!(steps[theirs].contains(" -cp ../ttt/student -d ../ttt/student "), "{build}");
        assert!(!steps[theirs].contains("Harness"), "{build}");
        assert!(harness.run.contains(" -cp ttt/classes:ttt/student ttt.harness.Harness "), "{}", harness.run);
    }

    #[test]
    fn to_string_is_the_table_rendering() {
        let call = JCall {
            function: method("toString"),
            rows: 3,
            cols: 3,
            win: 3,
            moves: vec![(0, 0, 'X')],
            position: None,
            player: None,
        };
        assert_eq!(
            call.expected().unwrap().0,
            json!("    0| 1| 2|\n 0|X |  |  |\n 1|  |  |  |\n 2|  |  |  |\n")
        );
    }
}
