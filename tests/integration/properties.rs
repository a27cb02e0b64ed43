//! Properties over generated inputs: nothing panics, refereeing is
//! deterministic, and the transcript agrees with the report.

use std::fmt::Write;

use proptest::prelude::*;
use ttt_referee::board::{Geometry, Storage};
use ttt_referee::corpus::{self, GenOptions, Guarantees};
use ttt_referee::engine::EngineKind;
use ttt_referee::game::Outcome;
use ttt_referee::play::extended::Extended;
use ttt_referee::play::smalltalk::Smalltalk;
use ttt_referee::play::uri::Uri;
use ttt_referee::play::xtreme::Xtreme;
use ttt_referee::play::{Console, Driver, Plain, PlayError, Profile, Side, Thinking, play};
use ttt_referee::referee::{Options, referee};
use ttt_referee::render::Style;
use ttt_referee::transcript::{Boards, Layout};

/// `profile`'s console over `script`, a person as X and `second` as O where
/// the profile lets O be chosen.
fn console(profile: Profile, second: Side, script: &[u8]) -> Box<dyn Console + '_> {
    let (sides, output) = ([Side::Human, second], std::io::sink());
    match profile {
        Profile::Default => Box::new(Driver::new(Plain::new(sides, Geometry::CLASSIC, script, output))),
        Profile::Xtreme => Box::new(Driver::new(Xtreme::new(sides, script, output))),
        Profile::Extended => Box::new(Driver::new(Extended::new(sides, script, output))),
        Profile::Uri => Box::new(Driver::new(Uri::new(sides, script, output))),
        Profile::Smalltalk => Box::new(Driver::new(Smalltalk::new(false, script, output))),
    }
}

/// A move-file-like text: a plausible header, then lines built from tokens a
/// careless or hostile file might hold, with every kind of line end.
fn move_file() -> impl Strategy<Value = Vec<u8>> {
    let token = prop::sample::select(vec![
        "X",
        "O",
        "x",
        "Y",
        "XO",
        "X:",
        "0",
        "1",
        "5",
        "9",
        "10",
        "05",
        "+5",
        "-1",
        "abc",
        "5.0",
        "99999999999999999999999999999",
        "",
        "Board:",
        "\u{a0}",
        "é",
    ]);
    let line = prop::collection::vec(token, 0..4).prop_map(|t| t.join(" "));
    let end = prop::sample::select(vec!["\n", "\r\n", "\r", "\t\n"]);
    let header = prop::sample::select(vec![
        "t\nX: a O: b\n\n",
        "t\nO: b X: a\n",
        "\u{feff}t\r\nX: a O: b\r\nBoard: 4x4, 3 in a row\r\n",
        "t\nX: a O: b Z: c\nBoard: 2x5, 2 in a row\n",
        "t\nX: a\n",
        "",
    ]);
    (header, prop::collection::vec((line, end), 0..40)).prop_map(|(header, lines)| {
        let mut text = header.to_owned();
        for (line, end) in lines {
            text.push_str(&line);
            text.push_str(end);
        }
        text.into_bytes()
    })
}

/// A variant game: a board of up to 8 × 8, 2 to 4 players, and moves that are
/// mostly plausible (declared marks, squares on or just off the board).
fn variant_game() -> impl Strategy<Value = String> {
    (1u32..=8, 1u32..=8, 2usize..=4)
        .prop_flat_map(|(rows, cols, players)| {
            let win = 1..=rows.max(cols);
            let marks: Vec<String> = "XOZA".chars().take(players).map(String::from).collect();
            let mut labels = marks.clone();
            labels.push("Q".to_owned());
            let label = prop::sample::select(labels);
            let square = 0..=u64::from(rows * cols) + 1;
            (Just((rows, cols, marks)), win, prop::collection::vec((label, square), 0..80))
        })
        .prop_map(|((rows, cols, marks), win, moves)| {
            let players: Vec<String> = marks.iter().map(|m| format!("{m}: P {m}")).collect();
            let mut text = format!("t\n{}\nBoard: {rows}x{cols}, {win} in a row\n", players.join(" "));
            for (label, square) in moves {
                writeln!(text, "{label} {square}").expect("writing to a String");
            }
            text
        })
}

fn transcript(input: &str, storage: Storage, style: Style) -> (Vec<u8>, String) {
    let options = Options {
        layout: Layout { style, boards: Boards::Each, ..Layout::default() },
        storage,
        ..Options::default()
    };
    let mut out = Vec::new();
    let report = referee(input.as_bytes(), &mut out, &options).expect("a well-formed game");
    let summary = format!("{:?} {} {}", report.game.outcome(), report.game.moves_made(), report.violations);
    (out, summary)
}

fn run(input: &[u8]) -> (Result<(u64, u64), String>, Vec<u8>) {
    let mut out = Vec::new();
    let result = referee(input, &mut out, &Options::default())
        .map(|r| (r.game.moves_made(), r.violations))
        .map_err(|e| e.to_string());
    (result, out)
}

/// What people might type at a console: good answers for every profile's
/// prompts, bad ones, and noise, a word or a line at a time.
fn console_script() -> impl Strategy<Value = String> {
    let word = prop::sample::select(vec![
        "0",
        "1",
        "2",
        "3",
        "4",
        "5",
        "9",
        "10",
        "12",
        "25",
        "101",
        "-1",
        "+2",
        "99999999999999999999",
        "X",
        "O",
        "A",
        "x",
        "-",
        "|",
        "XY",
        "f",
        "M",
        "q",
        "y",
        "Y",
        "n",
        "0, 1",
        "2,2",
        "abc",
        "human",
        "c",
        "é",
        "\u{a0}",
    ]);
    // Mostly small numbers, so that moves are made and games end.
    let word = prop_oneof![3 => prop::sample::select(vec!["0", "1", "2", "3", "5", "7"]), 1 => word];
    let separator = prop::sample::select(vec![" ", "\n", "\r\n", "\t"]);
    // Often a good start, so that games get played: a size for xtreme, a
    // whole setup for extended, the players for smalltalk.
    let start = prop::sample::select(vec![
        "",
        "3\n",
        "2 X O 3 3 3 f\n",
        "3\nA\nB\nC\n4\n3\n3\nm\n",
        "human\ncomputer\n",
        "H\nh\n",
        "c\nC\n",
    ]);
    (start, prop::collection::vec((word, separator), 0..120)).prop_map(|(start, parts)| {
        let mut script = start.to_owned();
        script.extend(parts.into_iter().flat_map(|(w, s)| [w, s]));
        script
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn dense_and_sparse_storage_rule_identically(game in variant_game()) {
        for style in [Style::Classic, Style::Grid, Style::Table] {
            let dense = transcript(&game, Storage::Dense, style);
            let sparse = transcript(&game, Storage::Sparse, style);
            prop_assert_eq!(&dense.1, &sparse.1);
            prop_assert!(dense.0 == sparse.0, "transcripts differ for\n{}", game);
        }
    }

    #[test]
    fn a_recorded_game_replays_to_the_same_transcript(
        seed in any::<u64>(),
        x in prop::sample::select(vec![EngineKind::Rules, EngineKind::Minimax, EngineKind::Perfect]),
        o in prop::sample::select(vec![EngineKind::Rules, EngineKind::Minimax, EngineKind::Perfect]),
        board in prop::sample::select(vec![(3, 3, 3), (3, 4, 3), (4, 4, 3), (2, 5, 2)]),
    ) {
        let geometry = Geometry::new(board.0, board.1, board.2).unwrap();
        let played = play([Side::Engine(x), Side::Engine(o)], Thinking::default(), geometry, seed, &mut &b""[..], &mut std::io::sink()).unwrap();
        let record = played.move_file();
        let (replayed, summary) = transcript(&record, Storage::Auto, Style::Classic);
        // Every recorded move is valid, and the game ends as it was played.
        prop_assert!(!String::from_utf8(replayed).unwrap().contains(" illegal "));
        prop_assert_eq!(summary, format!("{:?} {} 0", played.game.outcome(), played.moves.len()));
        prop_assert!(played.game.outcome().is_some());
    }

    #[test]
    fn every_console_survives_any_script_and_records_clean_games(
        script in console_script(),
        profile in prop::sample::select(vec![Profile::Default, Profile::Xtreme, Profile::Extended, Profile::Uri, Profile::Smalltalk]),
        second in prop::sample::select(vec![Side::Human, Side::Engine(EngineKind::Rules), Side::Engine(EngineKind::Minimax)]),
        seed in any::<u64>(),
    ) {
        let mut console = console(profile, second, script.as_bytes());
        for game in 0..5 {
            let played = match console.game(seed.wrapping_add(game)) {
                Ok(Some(played)) => played,
                // No more input, or a board set up that the engine cannot play.
                Ok(None) | Err(PlayError::Engine(_)) => break,
                Err(e) => panic!("{e}"),
            };
            let (replayed, summary) = transcript(&played.move_file(), Storage::Auto, Style::Classic);
            prop_assert!(!String::from_utf8(replayed).unwrap().contains(" illegal "));
            prop_assert_eq!(summary, format!("{:?} {} 0", played.game.outcome(), played.moves.len()));
            if !played.is_finished() || !console.again().unwrap() {
                break;
            }
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(input in prop::collection::vec(any::<u8>(), 0..512)) {
        let _ = run(&input);
    }

    #[test]
    fn transcripts_agree_with_the_report_and_repeat_exactly(input in move_file()) {
        let (result, out) = run(&input);
        let (again, out_again) = run(&input);
        prop_assert_eq!(&result, &again);
        prop_assert_eq!(&out, &out_again);
        if let Ok((moves, violations)) = result {
            let text = String::from_utf8(out).expect("transcripts are UTF-8");
            let move_lines = text.lines().filter(|l| l.starts_with("Move ")).count() as u64;
            let violation_lines = text
                .lines()
                .filter(|l| ["illegal player", "illegal square", "double move", "out of turn", "marked square"]
                    .iter()
                    .any(|m| l.ends_with(m)))
                .count() as u64;
            prop_assert_eq!(move_lines, moves);
            prop_assert_eq!(violation_lines, violations);
            prop_assert!(text.ends_with('\n'));
            let last = text.lines().last().unwrap_or_default();
            prop_assert!(last.starts_with("Winner: "), "{}", last);
            prop_assert!(!text.contains('\r'));
            prop_assert!(text.lines().all(|l| !l.ends_with(' ')), "trailing space in classic style");
        }
    }
}

/// How `text`, a generated move file, breaks CS 1044's promises to its
/// students (CS 1044 Project 6), if it does: the header and every move line are read
/// with the referee's own reader, and the valid moves counted from its report.
fn breaks_cs1044_promises(text: &str) -> Option<String> {
    let lines: Vec<&str> = text.split_terminator('\n').collect();
    if lines.first().is_none_or(|title| title.trim().is_empty()) {
        return Some("no title line".to_owned());
    }
    // "the second line will contain the X: and O: labels and ... each will be
    // followed by two strings"
    let players: Vec<&str> = lines.get(1).map(|l| l.split_whitespace().collect()).unwrap_or_default();
    if players.len() != 6 || players[0] != "X:" || players[3] != "O:" {
        return Some(format!("players line {players:?}"));
    }
    if lines.get(2) != Some(&"") {
        return Some("line 3 is not blank".to_owned());
    }
    // "Each move line will contain a character followed by an integer",
    // with "a single tab" between; an integer as a program would echo it.
    let move_lines = &lines[3..];
    for line in move_lines {
        let Some((label, square)) = line.split_once('\t') else {
            return Some(format!("{line:?} has no tab"));
        };
        if label.chars().count() != 1 || label.trim().is_empty() {
            return Some(format!("{line:?}: the label is not one character"));
        }
        if square.parse::<i32>().map(|n| n.to_string()).as_deref() != Ok(square) {
            return Some(format!("{line:?}: the square is not an integer written plainly"));
        }
    }
    // The referee's reader sees the same header and move lines.
    let mut reader = ttt_referee::movefile::MoveReader::new(text.as_bytes()).ok()?;
    let header = reader.header();
    let marks: Vec<String> = header.players.iter().map(|(_, p)| p.mark.to_string()).collect();
    if marks != ["X", "O"] || header.geometry != Geometry::CLASSIC {
        return Some(format!("the referee reads {marks:?} on {}", header.geometry));
    }
    let mut records = 0;
    while let Some(record) = reader.next_record().ok()? {
        if record.label.chars().count() != 1 || record.square.parse::<i32>().is_err() {
            return Some(format!("the referee reads line {} as {record:?}", record.line));
        }
        records += 1;
    }
    if records != move_lines.len() {
        return Some(format!("the referee reads {records} move lines of {}", move_lines.len()));
    }
    // "at least nine valid moves in input files with no winner and at least
    // five valid moves in every input file"
    let report = referee(text.as_bytes(), std::io::sink(), &Options::default()).ok()?;
    let valid = report.game.moves_made();
    let won = matches!(report.game.outcome(), Some(Outcome::Win(_)));
    if valid < 5 || (!won && valid < 9) {
        return Some(format!("{valid} valid moves, outcome {:?}", report.game.outcome()));
    }
    None
}

fn cs1044(seed: u64) -> GenOptions {
    GenOptions { seed, geometry: Geometry::CLASSIC, players: 2, guarantees: Guarantees::Cs1044 }
}

#[test]
fn cs1044_files_keep_every_promise_over_many_seeds() {
    for seed in 0..300 {
        for index in 0..16 {
            let text = corpus::move_file(&cs1044(seed), index).unwrap();
            if let Some(broken) = breaks_cs1044_promises(&text) {
                panic!("seed {seed}, file {index}: {broken}\n{text}");
            }
        }
    }
}

#[test]
fn the_promise_check_catches_a_hostile_corpus() {
    let hostile = GenOptions { guarantees: Guarantees::WellFormed, ..cs1044(0) };
    let broken: Vec<String> =
        (0..8).filter_map(|i| breaks_cs1044_promises(&corpus::move_file(&hostile, i).unwrap())).collect();
    assert!(broken.len() >= 4, "{broken:?}");
    for (text, why) in [
        ("t\nX: a b O: c d\n\nX\t05\n", "not an integer written plainly"),
        ("t\nX: a b O: c d\n\nX:\t5\n", "not one character"),
        ("t\nX: a O: c d\n\nX\t5\n", "players line"),
        ("t\nX: a b O: c d\n\nX 5\n", "has no tab"),
        ("t\nX: a b O: c d\n\nX\t1\nO\t4\nX\t2\nO\t5\n", "4 valid moves"),
        ("t\nX: a b O: c d\n\nX\t1\nO\t4\nX\t2\nO\t5\nX\t9\nO\t3\n", "6 valid moves, outcome None"),
    ] {
        let found = breaks_cs1044_promises(text).unwrap_or_default();
        assert!(found.contains(why), "{text:?}: {found:?}, expected {why:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_cs1044_file_keeps_every_promise(seed in any::<u64>(), index in any::<u64>()) {
        let text = corpus::move_file(&cs1044(seed), index).unwrap();
        let broken = breaks_cs1044_promises(&text);
        prop_assert!(broken.is_none(), "{:?}\n{}", broken, text);
    }
}
