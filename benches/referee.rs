//! Throughput of each room on its own and together: parsing, refereeing and
//! formatting, per file (the classic sample) and per move (a 1000 × 1000
//! game of 300,000 moves). Figures and the commands behind them are in
//! BENCHMARKS.md.

#[path = "support/inputs.rs"]
mod inputs;

use std::hint::black_box;
use std::io;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ttt_referee::board::{Board, Geometry, Square, Storage};
use ttt_referee::engine::{solve, solve_counting};
use ttt_referee::game::{Game, Outcome};
use ttt_referee::movefile::MoveReader;
use ttt_referee::play::judge::judge;
use ttt_referee::play::{PlayError, Profile, session};
use ttt_referee::player::{PlayerId, Players};
use ttt_referee::referee::{Options, referee};
use ttt_referee::render::{Renderer, Style};
use ttt_referee::transcript::{Boards, Layout, TranscriptWriter};

fn classic(c: &mut Criterion) {
    let sample = include_bytes!("../fixtures/TTTmoves.txt");
    let options = Options::default();
    let mut out = Vec::new();
    referee(&sample[..], &mut out, &options).unwrap();

    let mut group = c.benchmark_group("classic");
    group.throughput(Throughput::Bytes(out.len() as u64));
    group.bench_function("sample game, parse + rule + write", |b| {
        b.iter(|| {
            out.clear();
            referee(black_box(&sample[..]), &mut out, &options).unwrap();
        });
    });

    // The formatter alone: the nine moves of the sample, boards after each.
    let players = Players::classic("D Barnette", "D Allison");
    let squares = [6, 9, 7, 4, 1, 3, 5, 2, 8];
    let mut boards = Vec::new();
    let mut board = Board::new(Geometry::CLASSIC, Storage::Dense);
    for (i, n) in squares.iter().enumerate() {
        board.set(Square::from_index(n - 1), PlayerId::new(i % 2));
        boards.push(board.clone());
    }
    let write = |out: &mut Vec<u8>| {
        let mut t = TranscriptWriter::new(out, Layout::default());
        t.header(&players).unwrap();
        for (i, (n, board)) in squares.iter().zip(&boards).enumerate() {
            let label = if i % 2 == 0 { "X" } else { "O" };
            t.valid_move(i as u64 + 1, label, Square::from_index(n - 1), board).unwrap();
        }
        t.finish(Some(Outcome::Cat), &players, &board).unwrap();
    };
    out.clear();
    write(&mut out);
    group.throughput(Throughput::Bytes(out.len() as u64));
    group.bench_function("transcript writer, 3x3, boards each", |b| {
        b.iter(|| {
            out.clear();
            write(black_box(&mut out));
        });
    });
    group.finish();
}

/// The move-file reader alone: records handed out, nothing judged.
fn parse(c: &mut Criterion) {
    let sample = include_bytes!("../fixtures/TTTmoves.txt");
    let long = inputs::long_game(1000, 1000, 5, 300_000);
    let count = |input: &[u8]| {
        let mut reader = MoveReader::new(input).unwrap();
        let mut n = 0u64;
        while reader.next_record().unwrap().is_some() {
            n += 1;
        }
        n
    };
    let mut group = c.benchmark_group("parse");
    group.throughput(Throughput::Bytes(sample.len() as u64));
    group.bench_function("sample file", |b| b.iter(|| count(black_box(&sample[..]))));
    group.throughput(Throughput::Elements(300_000));
    group.bench_function("1000x1000, 300k move lines", |b| b.iter(|| count(black_box(long.as_bytes()))));
    group.finish();
}

/// The formatter drawing one 1000 × 1000 board, as `--boards each` does after
/// every move.
fn format_big_board(c: &mut Criterion) {
    let long = inputs::long_game(1000, 1000, 5, 300_000);
    let mut out = Vec::new();
    let no_boards =
        Options { layout: Layout { boards: Boards::None, ..Layout::default() }, ..Options::default() };
    let report = referee(long.as_bytes(), io::sink(), &no_boards).unwrap();
    let board = report.game.board();
    let renderer = Renderer::new(Style::Classic, report.game.players());
    renderer.board(board, &mut out);
    let mut group = c.benchmark_group("format");
    group.throughput(Throughput::Bytes(out.len() as u64));
    group.bench_function("one 1000x1000 board, classic", |b| {
        b.iter(|| {
            out.clear();
            renderer.board(black_box(board), &mut out);
        });
    });
    group.finish();
}

/// The perfect player solving boards from empty: a whole solve per iteration.
fn solver(c: &mut Criterion) {
    let mut group = c.benchmark_group("solver");
    group.sample_size(10);
    for (rows, cols, win) in [(3, 3, 3), (4, 4, 4), (4, 4, 3)] {
        let game =
            Game::new(Players::classic("a", "b"), Geometry::new(rows, cols, win).unwrap(), Storage::Auto);
        // Throughput in positions searched per solve, so criterion reports
        // positions per second.
        group.throughput(Throughput::Elements(solve_counting(&game).1));
        group.bench_function(format!("solve {rows}x{cols} k={win} from empty"), |b| {
            b.iter(|| solve(black_box(&game)));
        });
    }
    group.finish();
}

fn big_boards(c: &mut Criterion) {
    let mut group = c.benchmark_group("big boards");
    group.sample_size(20);
    let none = |storage| Options {
        layout: Layout { boards: Boards::None, ..Layout::default() },
        storage,
        ..Options::default()
    };

    let long = inputs::long_game(1000, 1000, 5, 300_000);
    group.throughput(Throughput::Elements(300_000));
    for (name, storage) in [("dense", Storage::Auto), ("sparse", Storage::Sparse)] {
        group.bench_function(format!("1000x1000 k=5, 300k moves, boards none, {name}"), |b| {
            b.iter(|| referee(black_box(long.as_bytes()), io::sink(), &none(storage)).unwrap());
        });
    }

    let scattered = inputs::scattered_game(100_000);
    group.throughput(Throughput::Elements(100_000));
    group.bench_function("1e6x1e6 k=5, 100k moves, boards none, sparse", |b| {
        b.iter(|| referee(black_box(scattered.as_bytes()), io::sink(), &none(Storage::Auto)).unwrap());
    });
    group.finish();
}

/// Judging a console run by its game (`grade --profile`): the script
/// replayed with the program's own computer moves and the output compared,
/// for a `uri` game against the AI and a `smalltalk` game with a corner
/// left to chance. The cost `grade` adds to each console run.
fn judge_game(c: &mut Criterion) {
    let mut group = c.benchmark_group("judge a console game");
    for (profile, script) in [
        (Profile::Uri, &b"5\n1\n3\n8\n6\n"[..]),
        (Profile::Smalltalk, &b"computer\nhuman\n1\n2\n3\n4\n6\n7\n8\n9\n"[..]),
    ] {
        let sides = profile.sides(None, None);
        let mut shown = Vec::new();
        let mut console = profile.console(script, &mut shown);
        session(console.as_mut(), 0, |_, _| Ok::<(), PlayError>(())).unwrap();
        drop(console);
        group.bench_function(format!("{profile:?}"), |b| {
            b.iter(|| judge(profile, sides, 0, black_box(script), black_box(&shown)).unwrap());
        });
        if profile == Profile::Smalltalk {
            // The same correct game after one 15 MB line of one-letter
            // words (issue 36): judged in time linear in the output.
            let mut long = "a ".repeat(15 << 19);
            long.push('\n');
            long.push_str(std::str::from_utf8(&shown).unwrap());
            group.sample_size(10);
            group.bench_function(format!("{profile:?} after a 15 MB line"), |b| {
                b.iter(|| judge(profile, sides, 0, black_box(script), black_box(long.as_bytes())).unwrap());
            });
        }
    }
    group.finish();
}

criterion_group!(benches, parse, classic, format_big_board, solver, big_boards, judge_game);
criterion_main!(benches);
