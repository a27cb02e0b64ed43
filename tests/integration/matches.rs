//! Matches and tournaments between engines: what they print, what they
//! record, that every record referees to its game's result, that a second
//! run resumes, and the errors for bad input.

use std::fs;
use std::path::Path;

use crate::util::{first_difference, referee, root, show};

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

#[test]
fn a_match_of_perfect_against_random_prints_each_game_and_the_standings() {
    let out = referee().args(["match", "perfect", "random", "--games", "4", "--seed", "2"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // Byte for byte: the standings, and a line per game.
    for (actual, expected) in [(&out.stdout, "stdout"), (&out.stderr, "stderr")] {
        let path = root().join(format!("fixtures/matches/perfect-random-4-seed-2.{expected}"));
        let expected = fs::read(&path).unwrap();
        assert!(
            *actual == expected,
            "{}: {}\n{}",
            path.display(),
            first_difference(actual, &expected),
            show(actual)
        );
    }
    // The same seed plays the same games.
    let again =
        referee().args(["match", "perfect", "random", "--games", "4", "--seed", "2"]).output().unwrap();
    assert_eq!(again.stdout, out.stdout);
    let quiet =
        referee().args(["match", "perfect", "random", "--games", "4", "--seed", "2", "-q"]).output().unwrap();
    assert!(quiet.stderr.is_empty());
}

fn results(dir: &Path) -> serde_json::Value {
    serde_json::from_slice(&fs::read(dir.join("results.json")).unwrap()).unwrap()
}

#[test]
fn a_tournament_reports_every_game_and_participant_and_its_records_referee_to_their_results() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report");
    let out = referee()
        .args([
            "tournament",
            "perfect",
            "minimax",
            "rules",
            "random",
            "--jobs",
            "3",
            "--seed",
            "5",
            "--report",
        ])
        .arg(&report)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let json = results(&report);
    assert_eq!(json["version"], 1);
    assert_eq!(json["event"], "tournament");
    assert_eq!(json["board"], serde_json::json!({"rows": 3, "cols": 3, "win": 3}));
    let games = json["games"].as_array().unwrap();
    // Six pairs, each from both sides.
    assert_eq!(games.len(), 12);
    assert_eq!(text(&out.stderr).lines().count(), 12);
    for (i, game) in games.iter().enumerate() {
        assert_eq!(game["number"], i + 1);
        let players = game["players"].as_array().unwrap();
        assert_eq!(players.len(), 2);
        assert_eq!((players[0]["mark"].as_str(), players[1]["mark"].as_str()), (Some("X"), Some("O")));
        let kind = game["reason"]["kind"].as_str().unwrap();
        assert!(kind == "win" || kind == "draw", "engines never forfeit: {game}");
        assert_eq!(game["winner"].is_null(), kind == "draw");
        assert_eq!(game["resumed"], false);
        // The record referees to the same result.
        let record = game["record"].as_str().unwrap();
        assert_eq!(record, format!("games/{:03}.txt", i + 1));
        let refereed = referee().arg(report.join(record)).output().unwrap();
        assert_eq!(refereed.status.code(), Some(0));
        let winner_line = text(&refereed.stdout).lines().last().unwrap().to_owned();
        let expected = match game["winner"].as_str() {
            None => "Winner: Cat".to_owned(),
            Some(name) => {
                let mark = players.iter().find(|p| p["name"] == name).unwrap()["mark"].as_str().unwrap();
                format!("Winner: {mark}")
            }
        };
        assert_eq!(winner_line, expected, "{record}");
    }
    let participants = json["participants"].as_array().unwrap();
    let names: Vec<&str> = participants.iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["perfect", "minimax", "rules", "random"]);
    for p in participants {
        assert_eq!(p["games"], 6);
        let (w, d, l) =
            (p["wins"].as_u64().unwrap(), p["draws"].as_u64().unwrap(), p["losses"].as_u64().unwrap());
        assert_eq!(w + d + l, 6);
        // Points in halves: exact.
        let half_points = (p["points"].as_f64().unwrap() * 2.0).round();
        assert_eq!(format!("{half_points}"), (2 * w + d).to_string(), "{p}");
        assert_eq!(p["forfeits"].as_object().unwrap().len(), 8);
        assert!(p["forfeits"].as_object().unwrap().values().all(|n| n == 0));
        let elo = &p["elo"];
        assert_eq!(elo.is_null(), 2 * w + d == 0 || 2 * w + d == 12, "{p}");
    }
    // perfect never loses.
    assert_eq!(participants[0]["losses"], 0);
    let half_points: f64 = participants.iter().map(|p| p["points"].as_f64().unwrap() * 2.0).sum();
    assert_eq!(format!("{half_points}"), "24", "a point a game");
    let standings = fs::read_to_string(report.join("standings.txt")).unwrap();
    assert_eq!(standings, text(&out.stdout));
    let html = fs::read_to_string(report.join("report.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>") && html.contains("Cross table"), "{html}");
}

#[test]
fn running_again_with_the_same_report_directory_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["tournament", "perfect", "random", "rules", "--rounds", "2", "--report"];
    let first = referee().args(args).arg(dir.path()).output().unwrap();
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    let first_lines: Vec<String> = text(&first.stderr).lines().map(str::to_owned).collect();
    assert_eq!(first_lines.len(), 12);
    assert!(first_lines.iter().all(|l| !l.ends_with("(recorded)")));

    // Nothing is played again: every game is read back from its record.
    let second = referee().args(args).arg(dir.path()).output().unwrap();
    assert_eq!(second.status.code(), Some(0));
    let second_lines: Vec<String> = text(&second.stderr).lines().map(str::to_owned).collect();
    assert_eq!(second_lines.len(), 12);
    assert!(second_lines.iter().all(|l| l.ends_with(" (recorded)")), "{second_lines:?}");
    assert_eq!(second.stdout, first.stdout);
    assert!(results(dir.path())["games"].as_array().unwrap().iter().all(|g| g["resumed"] == true));

    // A lost record is the one game played again.
    fs::remove_file(dir.path().join("games/007.txt")).unwrap();
    let third = referee().args(args).arg(dir.path()).output().unwrap();
    let played: Vec<String> =
        text(&third.stderr).lines().filter(|l| !l.ends_with("(recorded)")).map(str::to_owned).collect();
    assert_eq!(played.len(), 1);
    assert!(played[0].starts_with("[7/12] "), "{played:?}");
    assert_eq!(third.stdout, first.stdout);

    // Another seed is another tournament: its records are refused, not reused.
    let other = referee().args(args).arg(dir.path()).args(["--seed", "9"]).output().unwrap();
    assert_eq!(other.status.code(), Some(2));
    let message = text(&other.stderr);
    assert!(
        message.contains("games/001.txt: not the record of game 1 of this tournament: its title is `Tournament game 1 (seed 0): "),
        "{message}"
    );
    assert!(
        message.ends_with("; use another --report directory, or remove the file to play the game again\n"),
        "{message}"
    );
}

#[test]
fn three_players_and_openings_play_as_planned() {
    let dir = tempfile::tempdir().unwrap();
    let openings = dir.path().join("openings.txt");
    fs::write(&openings, "# the centre, then a corner\n5 1\n").unwrap();
    let out = referee()
        .args(["tournament", "perfect", "random", "--openings"])
        .arg(&openings)
        .args(["--report"])
        .arg(dir.path().join("r"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    for n in 1..=2 {
        let record = fs::read_to_string(dir.path().join(format!("r/games/00{n}.txt"))).unwrap();
        let moves: Vec<&str> = record.lines().skip(3).take(2).collect();
        assert_eq!(moves, ["X\t5", "O\t1"], "{record}");
    }

    let out = referee()
        .args(["match", "rules", "random", "rules", "--board", "4x4", "--games", "3", "--report"])
        .arg(dir.path().join("three"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let json = results(&dir.path().join("three"));
    let names: Vec<&str> =
        json["participants"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["rules", "random", "rules-2"]);
    let record = fs::read_to_string(dir.path().join("three/games/002.txt")).unwrap();
    assert!(
        record.starts_with("Match game 2 (seed 0): random (X) vs rules-2 (O) vs rules (Z): "),
        "{record}"
    );
    assert!(record.contains("\nX: random O: rules-2 Z: rules\nBoard: 4x4, 3 in a row\n"), "{record}");
}

/// The command's exit status and standard error, which must be the whole
/// message; nothing is written to standard output.
fn refused(args: &[&str]) -> String {
    let out = referee().args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    assert!(out.stdout.is_empty(), "{args:?}");
    text(&out.stderr)
}

#[test]
fn bad_input_is_an_error_saying_what_was_expected() {
    assert_eq!(
        refused(&["match", "perfect", "champion"]),
        "ttt-referee: `champion` is not a participant: expected an engine (perfect, strong, minimax, rules or random) or a directory holding a bot's source, or gomocup:PATH (a Gomocup brain's directory or executable)\n"
    );
    assert_eq!(
        refused(&["match", "perfect", "random", "--board", "15x15", "--win", "5"]),
        "ttt-referee: perfect: the perfect engine plays boards of up to 64 squares; this one has 225\n"
    );
    assert_eq!(
        refused(&["match", "minimax", "random", "rules"]),
        "ttt-referee: minimax: the minimax engine plays two-player games only\n"
    );
    assert_eq!(
        refused(&["match", "random", "rules", "--board", "3x3", "--win", "4"]),
        "ttt-referee: --board 3x3 --win 4 is not a playable board; expected sides from 1 to 1000000 and a win from 1 to the longer side\n"
    );
    assert_eq!(
        refused(&["match", "random", "rules", "--board", "300x300"]),
        "ttt-referee: --board 300x300: matches are played on boards of up to 65536 squares (the bot protocol sends the whole board with every move)\n"
    );
    assert!(
        refused(&["match", "random", "rules", "--board", "3by3"]).contains("expected ROWSxCOLS, such as 5x7")
    );
    assert!(
        refused(&["match", "random"]).contains("requires at least 2 values")
            || refused(&["match", "random"]).contains("2 values")
    );
    let eleven = ["random"; 11];
    let args: Vec<&str> = std::iter::once("match").chain(eleven).collect();
    assert_eq!(
        refused(&args),
        "ttt-referee: 11 participants: a match seats 2 to 10 (every participant plays every game)\n"
    );
    assert_eq!(
        refused(&["tournament", "random", "rules", "--players", "3"]),
        "ttt-referee: --players 3 with 2 participants; a game needs 3\n"
    );
    assert!(refused(&["match", "random", "rules", "--move-time", "0"]).contains("is not a time"));
}

#[test]
fn a_bad_openings_file_names_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("openings.txt");
    let run = |contents: &[u8]| {
        fs::write(&path, contents).unwrap();
        refused(&["tournament", "random", "rules", "--openings", path.to_str().unwrap()])
    };
    let shown = path.display();
    assert_eq!(
        run(b"5\n5 5\n"),
        format!("ttt-referee: {shown}:2: `5` is marked square (move 2 of the opening)\n")
    );
    assert_eq!(
        run(b"1 4 2 5 3\n"),
        format!("ttt-referee: {shown}:1: the opening ends the game; an opening must leave moves to play\n")
    );
    assert_eq!(
        run(b"# none\n"),
        format!(
            "ttt-referee: {shown}: no opening in the file; expected lines of square numbers, such as `5 1`\n"
        )
    );
    assert_eq!(
        run(b"\xff\n"),
        format!("ttt-referee: {shown}: not UTF-8 text; expected openings, one a line, such as `5 1`\n")
    );
    fs::remove_file(&path).unwrap();
    assert_eq!(
        refused(&["tournament", "random", "rules", "--openings", path.to_str().unwrap()]),
        format!("ttt-referee: {shown}: cannot open: No such file or directory\n")
    );
}

#[test]
fn a_report_directory_that_cannot_be_written_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("plain");
    fs::write(&file, "").unwrap();
    let message = refused(&["match", "random", "rules", "--report", file.to_str().unwrap()]);
    assert!(
        message.starts_with(&format!("ttt-referee: {}: cannot write: ", file.join("games").display())),
        "{message}"
    );
}

/// A glob such as `bots/*` takes in a README or a roster: a file among the
/// participants is skipped with a warning, as `grade` skips one.
#[test]
fn a_file_among_the_participants_is_skipped_with_a_warning() {
    let out = referee()
        .current_dir(root())
        .args(["match", "random", "fixtures/bots/README.md", "rules", "--games", "2"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with(
            "ttt-referee: warning: fixtures/bots/README.md: not a directory; skipped (a bot is a directory)\n"
        ),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 3, "{stderr}");
}

/// A lost game, as `grade --play` and `match --report` record one: perfect
/// (O) wins on its 7th move.
const LOST: &str = "Match game 1 (seed 0): first-python (X) vs perfect (O): O wins\nX: first-python O: perfect\n\nX\t1\nO\t5\nX\t2\nO\t3\nX\t4\nO\t7\n";

#[test]
fn a_match_plays_on_from_a_recorded_position_each_side_in_turn() {
    let dir = tempfile::tempdir().unwrap();
    let game = dir.path().join("lost.txt");
    fs::write(&game, LOST).unwrap();
    let report = dir.path().join("r");
    let out = referee()
        .args(["match", "perfect", "rules", "--after", "3", "--from"])
        .arg(&game)
        .args(["--games", "4", "--seed", "3", "--report"])
        .arg(&report)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    for n in 1..=4 {
        let record = fs::read_to_string(report.join(format!("games/00{n}.txt"))).unwrap();
        // Its first three moves are the file's; then O, the player to move,
        // is the second seat: rules in the odd games, perfect in the even.
        let moves: Vec<&str> = record.lines().skip(3).take(4).collect();
        assert_eq!(moves[..3], ["X\t1", "O\t5", "X\t2"], "{record}");
        let o = if n % 2 == 1 { "rules" } else { "perfect" };
        assert!(record.lines().nth(1).unwrap().ends_with(&format!("O: {o}")), "{record}");
        let refereed = referee().arg(report.join(format!("games/00{n}.txt"))).output().unwrap();
        assert_eq!(refereed.status.code(), Some(0), "{record}");
    }
    // perfect as O blocks at 3 at once.
    let second = fs::read_to_string(report.join("games/002.txt")).unwrap();
    assert_eq!(second.lines().nth(6), Some("O\t3"), "{second}");
    // Resumed, the opening is checked again: the same command reads back.
    let again = referee()
        .args(["match", "perfect", "rules", "--after", "3", "--from"])
        .arg(&game)
        .args(["--games", "4", "--seed", "3", "--report"])
        .arg(&report)
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stderr));
    assert!(text(&again.stderr).lines().all(|l| l.ends_with("(recorded)")), "{}", text(&again.stderr));
    // From standard input, every move but the last.
    let piped = referee()
        .args(["match", "perfect", "rules", "--from", "-", "--after", "5", "--games", "1", "-q"])
        .write_stdin(LOST)
        .output()
        .unwrap();
    assert_eq!(piped.status.code(), Some(0), "{}", text(&piped.stderr));
}

#[test]
fn a_match_plays_each_opening_from_both_sides() {
    let dir = tempfile::tempdir().unwrap();
    let openings = dir.path().join("openings.txt");
    fs::write(&openings, "5 1\n2\n").unwrap();
    let out = referee()
        .args(["match", "perfect", "random", "--openings"])
        .arg(&openings)
        .args(["--report"])
        .arg(dir.path().join("r"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let json = results(&dir.path().join("r"));
    let games = json["games"].as_array().unwrap();
    assert_eq!(games.len(), 4, "--games 2 from each of 2 openings");
    for (n, (first, x)) in
        [("X\t5", "perfect"), ("X\t5", "random"), ("X\t2", "perfect"), ("X\t2", "random")].iter().enumerate()
    {
        let record = fs::read_to_string(dir.path().join(format!("r/games/00{}.txt", n + 1))).unwrap();
        assert_eq!(record.lines().nth(3), Some(*first), "{record}");
        assert!(record.lines().nth(1).unwrap().starts_with(&format!("X: {x} ")), "{record}");
    }
}

#[test]
fn a_position_that_cannot_be_played_on_from_is_an_error_naming_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("game.txt");
    let shown = path.display().to_string();
    let run = |contents: &str, extra: &[&str]| {
        fs::write(&path, contents).unwrap();
        let mut args = vec!["match", "perfect", "rules", "--from", shown.as_str()];
        args.extend(extra);
        refused(&args)
    };
    assert_eq!(
        run(LOST, &[]),
        format!(
            "ttt-referee: {shown}:9: the game is over after `O 7` (O wins): there is nothing to play on from; use --after N (N up to 5) to start before it\n"
        )
    );
    assert_eq!(
        run(&LOST.replace("O\t7\n", ""), &["--after", "6"]),
        format!("ttt-referee: {shown}: it has 5 moves; --after 6 asks for more\n")
    );
    let forfeit = LOST.replace("O\t7\n", "O\t1\n");
    assert_eq!(
        run(&forfeit, &[]),
        format!(
            "ttt-referee: {shown}:9: `O 1` is marked square; use --after N (N up to 5) to start before it\n"
        )
    );
    assert_eq!(
        run("title\nX: a O: b Z: c\n\nX 5\n", &[]),
        format!(
            "ttt-referee: {shown}: 3 players; this match has 2 participants, each a player of every game\n"
        )
    );
    assert!(
        run("title\n", &[]).starts_with(&format!("ttt-referee: {shown}:2: ")),
        "a malformed file is malformed as the referee says it"
    );
    assert_eq!(
        run("title\nX: a O: b\nBoard: 300x300, 5 in a row\n", &[]),
        "ttt-referee: --board 300x300: matches are played on boards of up to 65536 squares (the bot protocol sends the whole board with every move)\n"
    );
    assert_eq!(
        run("title\nX: a O: b\nBoard: 9x9, 5 in a row\n", &[]),
        "ttt-referee: perfect: the perfect engine plays boards of up to 64 squares; this one has 81\n"
    );
    assert!(run(LOST, &["--board", "4x4"]).contains("cannot be used with"));
    assert!(refused(&["match", "perfect", "rules", "--after", "2"]).contains("--from"));
    fs::remove_file(&path).unwrap();
    assert_eq!(
        refused(&["match", "perfect", "rules", "--from", shown.as_str()]),
        format!("ttt-referee: {shown}: cannot open: No such file or directory\n")
    );
}

/// `--rounds` without `--openings`: the first round from the empty board,
/// each later one from a random opening of its own (drawn from the seed),
/// which every pair plays from both sides.
#[test]
fn each_later_round_starts_from_an_opening_of_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let run = |seed: &str, name: &str| {
        let out = referee()
            .args(["tournament", "perfect", "minimax", "--rounds", "4", "--seed", seed, "--report"])
            .arg(dir.path().join(name))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        // Each game's first two moves.
        (1..=8)
            .map(|n| {
                let record = fs::read_to_string(dir.path().join(format!("{name}/games/00{n}.txt"))).unwrap();
                record.lines().skip(3).take(2).collect::<Vec<_>>().join(" ")
            })
            .collect::<Vec<String>>()
    };
    let games = run("4", "a");
    for round in 1..4 {
        let (first, second) = (&games[2 * round], &games[2 * round + 1]);
        assert_eq!(first, second, "both sides of round {}'s opening", round + 1);
        assert!(!games[..2 * round].contains(first), "round {} repeats an opening: {games:?}", round + 1);
    }
    // minimax as X from the empty board takes the lowest square.
    assert!(games[1].starts_with("X\t1 "), "{games:?}");
    assert_eq!(run("4", "b"), games, "the same seed, the same openings");
    assert_ne!(run("5", "c")[2..], games[2..], "another seed, other openings");
}

/// A standings row's fields after the rank and name: games, wins, draws,
/// losses, ...
fn standing(stdout: &str, name: &str) -> Vec<String> {
    let row = stdout
        .lines()
        .find(|line| line.split_whitespace().nth(1) == Some(name))
        .unwrap_or_else(|| panic!("no standings row for {name}:\n{stdout}"));
    row.split_whitespace().skip(2).map(str::to_owned).collect()
}

#[test]
fn strong_beats_random_in_every_game_on_nine_by_nine() {
    let out = referee()
        .args(["match", "strong", "random", "--board", "9x9", "--win", "5", "--games", "6", "--seed", "38"])
        .args(["--move-time", "0.2", "-q"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let strong = standing(&stdout, "strong");
    assert_eq!(strong[..4], ["6", "6", "0", "0"], "{stdout}");
}

#[test]
fn the_exact_rule_is_refused_by_perfect_and_played_by_the_others() {
    let out = referee()
        .args(["match", "perfect", "random", "--board", "4x4", "--win", "3", "--rule", "exact"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("perfect") && stderr.contains("--rule exact"), "{stderr}");
    for engine in ["strong", "rules", "random", "minimax"] {
        let out = referee()
            .args(["match", engine, "random", "--board", "7x7", "--win", "4", "--rule", "exact", "-q"])
            .args(["--games", "2", "--seed", "1"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{engine}: {}", text(&out.stderr));
    }
}
