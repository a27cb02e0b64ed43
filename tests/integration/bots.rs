//! Bots from source in matches (`fixtures/bots/`): the sample bots in four
//! languages play legal games; every way to forfeit forfeits for its own
//! reason, in bounded time; a bot cannot see its opponent; every record
//! referees to its game's result; a bot that cannot be built forfeits its
//! games and the others play on.

use std::fs;
use std::path::{Path, PathBuf};

use crate::util::{kept_dir, referee, root};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn bot(name: &str) -> PathBuf {
    root().join("fixtures/bots").join(name)
}

/// `match` with `args` (bots by name from `fixtures/bots`, engines by
/// name), its report in a directory of its own: the results, and stderr.
fn play(args: &[&str]) -> (serde_json::Value, String, tempfile::TempDir) {
    let dir = kept_dir();
    let report = dir.path().join("report");
    let args: Vec<String> = args
        .iter()
        .map(|a| if bot(a).is_dir() { bot(a).display().to_string() } else { (*a).to_owned() })
        .collect();
    let out = referee().arg("match").args(&args).arg("--report").arg(&report).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let json = serde_json::from_slice(&fs::read(report.join("results.json")).unwrap()).unwrap();
    (json, text(&out.stderr), dir)
}

/// Every game's record, refereed, ends as the game did.
fn records_replay(json: &serde_json::Value, report: &Path) {
    for game in json["games"].as_array().unwrap() {
        let record = report.join(game["record"].as_str().unwrap());
        let refereed = referee().arg(&record).output().unwrap();
        assert_eq!(refereed.status.code(), Some(0), "{}", record.display());
        let last = text(&refereed.stdout).lines().last().unwrap().to_owned();
        let players = game["players"].as_array().unwrap();
        let expected = match (game["reason"]["kind"].as_str().unwrap(), game["winner"].as_str()) {
            ("forfeit", _) => "Winner: None".to_owned(),
            (_, None) => "Winner: Cat".to_owned(),
            (_, Some(name)) => {
                format!(
                    "Winner: {}",
                    players.iter().find(|p| p["name"] == name).unwrap()["mark"].as_str().unwrap()
                )
            }
        };
        assert_eq!(last, expected, "{}:\n{}", record.display(), fs::read_to_string(&record).unwrap());
    }
}

#[test]
fn the_sample_bots_in_four_languages_play_legal_games_whose_records_replay() {
    let (json, stderr, dir) = play(&[
        "first-c",
        "first-cpp",
        "first-python",
        "first-java",
        "random",
        "--games",
        "8",
        "--seed",
        "3",
    ]);
    let games = json["games"].as_array().unwrap();
    assert_eq!(games.len(), 8, "{stderr}");
    for game in games {
        assert_ne!(game["reason"]["kind"], "forfeit", "{game:#}\n{stderr}");
    }
    records_replay(&json, &dir.path().join("report"));
    for p in json["participants"].as_array().unwrap() {
        assert!(p["forfeits"].as_object().unwrap().values().all(|n| n == 0), "{p}");
    }
}

#[test]
fn a_perfect_negamax_bot_draws_every_game_against_perfect() {
    let (json, stderr, _dir) = play(&["negamax-cpp", "perfect", "--games", "4"]);
    for game in json["games"].as_array().unwrap() {
        assert_eq!(game["reason"]["kind"], "draw", "{game:#}\n{stderr}");
    }
}

/// Each bot that breaks the protocol forfeits for its own reason, and the
/// match ends however it misbehaves (the slow and silent ones at the move
/// time, the flood at the answer's size).
#[test]
fn every_way_to_forfeit_forfeits_for_its_own_reason() {
    let cases = [
        ("taken", "taken-square", "answered 1, which is taken"),
        ("off-board", "off-board", "answered 10; the board's squares are 1 to 9"),
        ("not-a-number", "not-a-number", "answered `1,1`; expected a square from 1 to 9"),
        ("chatty", "not-a-number", "answered `thinking about 3 3 3"),
        ("flood", "not-a-number", "its answer ran past 4096 bytes without a line end"),
        ("slow", "time", "no answer within 1.5 s"),
        ("silent", "time", "no answer within 1.5 s"),
        ("no-flush", "time", "flushed: `print(..., flush=True)` in Python"),
        ("crash", "exited", "it exited with status 1 before the game ended"),
        ("closer", "output-closed", "it closed its standard output before the game ended"),
        ("hog", "limit", "it ran out of memory (512 MB)"),
    ];
    for (name, kind, detail) in cases {
        // The bot moves first, so its first answer decides (the taken-square
        // bot needs one mark on the board: it moves second).
        let args: Vec<&str> =
            if name == "taken" || name == "crash" { vec!["first-c", name] } else { vec![name, "first-c"] };
        let mut args = args;
        args.extend(["--games", "1", "--move-time", "0.5", "--startup", "1"]);
        let (json, stderr, _dir) = play(&args);
        let game = &json["games"][0];
        assert_eq!(game["reason"]["kind"], "forfeit", "{name}: {game:#}\n{stderr}");
        assert_eq!(game["reason"]["forfeit"], kind, "{name}: {game:#}");
        assert_eq!(game["reason"]["player"], name, "{name}: {game:#}");
        let said = game["reason"]["detail"].as_str().unwrap();
        assert!(said.contains(detail), "{name}: {said}");
        let offender = json["participants"].as_array().unwrap().iter().find(|p| p["name"] == name).unwrap();
        assert_eq!(offender["forfeits"][kind], 1, "{offender}");
    }
}

#[test]
fn a_crashing_bots_error_output_is_kept_for_the_report() {
    let (json, _, _dir) = play(&["first-c", "crash", "--games", "1"]);
    let crash = &json["games"][0]["players"][1];
    assert_eq!(crash["name"], "crash");
    assert!(crash["stderr"].as_str().unwrap().contains("RuntimeError: the bot fell over"), "{crash}");
}

/// `snoop` looks for `secret`'s file (anywhere it can read, and through
/// /proc), its process and its socket, and answers a word if it finds any:
/// it never does, so it plays on, and wins (it moves first either way).
#[test]
fn a_bot_cannot_see_its_opponents_files_processes_or_socket() {
    let (json, stderr, _dir) = play(&["snoop", "secret", "--games", "2", "--startup", "10"]);
    for game in json["games"].as_array().unwrap() {
        let snoop = game["players"].as_array().unwrap().iter().position(|p| p["name"] == "snoop").unwrap();
        assert!(
            !(game["reason"]["kind"] == "forfeit" && game["reason"]["player"] == "snoop"),
            "snoop found something: {game:#}\n{stderr}"
        );
        assert!(snoop < 2);
    }
}

#[test]
fn three_bots_play_one_game_and_a_big_board_plays_five_in_a_row() {
    let (json, stderr, dir) = play(&["first-c", "first-python", "random", "--games", "3", "--board", "4x4"]);
    let games = json["games"].as_array().unwrap();
    assert_eq!(games.len(), 3, "{stderr}");
    for game in games {
        assert_eq!(game["players"].as_array().unwrap().len(), 3);
        assert_ne!(game["reason"]["kind"], "forfeit", "{game:#}");
    }
    records_replay(&json, &dir.path().join("report"));

    let (json, stderr, dir) =
        play(&["first-c", "random-python", "--games", "2", "--board", "15x15", "--win", "5"]);
    assert_eq!(json["board"], serde_json::json!({"rows": 15, "cols": 15, "win": 5}), "{stderr}");
    for game in json["games"].as_array().unwrap() {
        assert_ne!(game["reason"]["kind"], "forfeit", "{game:#}");
    }
    records_replay(&json, &dir.path().join("report"));
}

#[test]
fn a_bot_that_does_not_build_forfeits_its_games_and_the_others_play_on() {
    let dir = kept_dir();
    let broken = dir.path().join("broken");
    fs::create_dir(&broken).unwrap();
    fs::write(broken.join("bot.c"), "int main( { return 0; }\n").unwrap();
    let report = dir.path().join("report");
    let out = referee()
        .args(["tournament", "random"])
        .arg(&broken)
        .arg(bot("first-c"))
        .arg("--report")
        .arg(&report)
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("warning: broken: it cannot play: the build failed:"), "{stderr}");
    let json: serde_json::Value =
        serde_json::from_slice(&fs::read(report.join("results.json")).unwrap()).unwrap();
    for game in json["games"].as_array().unwrap() {
        let names: Vec<&str> =
            game["players"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
        if names.contains(&"broken") {
            assert_eq!(game["reason"]["player"], "broken", "{game:#}");
            assert!(
                game["reason"]["detail"]
                    .as_str()
                    .unwrap()
                    .starts_with("it could not be started: the build failed")
            );
        } else {
            assert_ne!(game["reason"]["kind"], "forfeit", "{game:#}");
        }
    }
}

#[test]
fn two_bots_of_one_name_are_refused() {
    let dir = kept_dir();
    for side in ["a", "b"] {
        let copy = dir.path().join(side).join("first-c");
        fs::create_dir_all(&copy).unwrap();
        fs::copy(bot("first-c").join("bot.c"), copy.join("bot.c")).unwrap();
    }
    let out = referee()
        .arg("match")
        .arg(dir.path().join("a/first-c"))
        .arg(dir.path().join("b/first-c"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "ttt-referee: `first-c` names two participants; each must have a name of its own\n"
    );
}

/// `grade --play`: each bot's tests are games against the engines, and a
/// failing test's smallest failing input is the shortest game that fails
/// it, a move file that referees to that game's result.
#[test]
fn grade_play_grades_bots_by_their_games() {
    let dir = kept_dir();
    let report = dir.path().join("report");
    let out = referee()
        .args(["grade", "--play", "--games", "4", "--min-wins", "1", "--move-time", "0.5", "--startup", "2"])
        .arg("--report")
        .arg(&report)
        .args(["negamax-cpp", "first-c", "crash", "taken"].map(bot))
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    let json: serde_json::Value =
        serde_json::from_slice(&fs::read(report.join("results.json")).unwrap()).unwrap();
    let verdicts: Vec<(String, String)> = json["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let letters =
                s["tests"].as_array().unwrap().iter().map(|t| t["verdict"].as_str().unwrap()[..1].to_owned());
            (s["submission"].as_str().unwrap().to_owned(), letters.collect())
        })
        .collect();
    let want = [("negamax-cpp", "ppp"), ("first-c", "wpp"), ("crash", "wwc"), ("taken", "www")];
    let want: Vec<(String, String)> = want.iter().map(|(a, b)| ((*a).to_owned(), (*b).to_owned())).collect();
    assert_eq!(verdicts, want, "{stderr}");
    let tests = |name: &str| -> Vec<serde_json::Value> {
        let sub = json["submissions"].as_array().unwrap().iter().find(|s| s["submission"] == name).unwrap();
        sub["tests"].as_array().unwrap().clone()
    };
    let negamax = tests("negamax-cpp");
    assert_eq!(
        negamax[0]["detail"],
        "it never lost to perfect: 20 drawn and 0 won of 20 games, as each side"
    );
    assert_eq!(negamax[2]["detail"], "it forfeited none of its 24 games");
    let first = tests("first-c");
    let lost = &first[0];
    // How many it loses depends on the lines `perfect` draws from the
    // grading's seed; a first-free-square bot loses most.
    let detail = lost["detail"].as_str().unwrap();
    assert!(
        detail.starts_with("it lost ") && detail.contains(" of 20 games to perfect; the shortest: game "),
        "{lost}"
    );
    let record = lost["smallest_failing_input"]["input"].as_str().unwrap();
    let file = dir.path().join("lost.txt");
    fs::write(&file, record).unwrap();
    let refereed = referee().arg(&file).output().unwrap();
    let winner = text(&refereed.stdout).lines().last().unwrap().to_owned();
    assert!(winner == "Winner: X" || winner == "Winner: O", "{record}\n{winner}");
    // It answers the square `perfect` took, which the grading's seed draws.
    let taken = tests("taken");
    let detail = taken[2]["detail"].as_str().unwrap();
    assert!(
        detail.contains("taken-square: answered ") && detail.contains(", which is taken"),
        "{}",
        taken[2]
    );
    let crash = tests("crash");
    assert!(crash[2]["stderr"].as_str().unwrap().contains("RuntimeError"), "{}", crash[2]);
}

#[test]
fn grade_play_refuses_what_it_cannot_play() {
    for (args, message) in [
        (
            &["--play", "--board", "9x9"][..],
            "ttt-referee: perfect: the perfect engine plays boards of up to 64 squares; this one has 81\n",
        ),
        (
            &["--play", "--games", "3", "--min-wins", "4"][..],
            "ttt-referee: --min-wins 4: more than the 3 games against random (--games)\n",
        ),
    ] {
        let out = referee().arg("grade").args(args).arg(bot("first-c")).output().unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(text(&out.stderr), message);
    }
}

/// The README's three sample bots are the ones these tests run, each under
/// 20 lines.
#[test]
fn the_readmes_bots_are_the_ones_the_tests_run() {
    let readme = fs::read_to_string(root().join("README.md")).unwrap();
    for (fence, file) in
        [("cpp", "first-cpp/bot.cpp"), ("python", "first-python/bot.py"), ("java", "first-java/Bot.java")]
    {
        let code = fs::read_to_string(bot(file)).unwrap();
        assert!(readme.contains(&format!("```{fence}\n{code}```\n")), "README.md lacks {file} as it is");
        assert!(code.lines().count() < 20, "{file} has {} lines", code.lines().count());
    }
}

/// On a board other than 3×3 a record's header has a fourth line (the
/// board): the shortest lost game shown to the student holds the game's
/// moves and counts them, read back from the record as the arena wrote it
/// (it once began with the header's blank line and counted one move too
/// many).
#[test]
fn grade_play_shows_the_shortest_lost_game_on_any_board() {
    let dir = kept_dir();
    let report = dir.path().join("report");
    let out = referee()
        .args(["grade", "--play", "--board", "3x4", "--win", "3", "--games", "2", "--min-wins", "0"])
        .args(["--move-time", "0.5", "--startup", "2", "--report"])
        .arg(&report)
        .arg(bot("first-c"))
        .output()
        .unwrap();
    let json: serde_json::Value =
        serde_json::from_slice(&fs::read(report.join("results.json")).unwrap()).unwrap();
    let lost = &json["submissions"][0]["tests"][0];
    assert_eq!(lost["verdict"], "wrong", "{}\n{lost}", text(&out.stderr));
    let smallest = &lost["smallest_failing_input"];
    let record = smallest["input"].as_str().unwrap();
    assert!(record.lines().nth(2).unwrap().starts_with("Board: "), "{record}");
    let moves: Vec<&str> = record.lines().skip_while(|line| !line.is_empty()).skip(1).collect();
    assert!(
        !moves.is_empty() && moves.iter().all(|m| m.starts_with("X\t") || m.starts_with("O\t")),
        "{record}"
    );
    assert_eq!(smallest["lines"], moves.len(), "{smallest}");
    let html = fs::read_to_string(report.join("report.html")).unwrap();
    assert!(html.contains(&format!("({} moves), a move file to replay", moves.len())), "{html}");
}

/// A bot that is a table of positions instead of an AI (an attack): the
/// games `perfect` plays against a perfect bot, harvested with the public
/// tool (`tournament`, from the empty board and every first move, each
/// side), and the first free square anywhere else. When `perfect` broke
/// ties one fixed way, those were exactly the games `grade --play` grades,
/// and the table passed `vs-perfect`; now `perfect` draws among equally good
/// moves from each game's seed, and each grading draws its seed, so the
/// table covers nothing and the bot loses.
#[test]
fn a_table_of_harvested_games_fails_vs_perfect() {
    let dir = kept_dir();
    let negamax = bot("negamax-cpp").display().to_string();
    let openings = dir.path().join("openings.txt");
    fs::write(&openings, "1\n2\n3\n4\n5\n6\n7\n8\n9\n").unwrap();
    let mut table = std::collections::BTreeMap::new();
    for (name, extra) in
        [("plain", vec![]), ("openings", vec!["--openings".to_owned(), openings.display().to_string()])]
    {
        let report = dir.path().join(name);
        let out = referee()
            .args(["tournament", &negamax, "perfect", "--quiet", "--report"])
            .arg(&report)
            .args(&extra)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        for record in fs::read_dir(report.join("games")).unwrap() {
            let record = fs::read_to_string(record.unwrap().path()).unwrap();
            let players = record.lines().nth(1).unwrap();
            let ours = if players.starts_with("X: negamax") { "X" } else { "O" };
            let mut board = ['.'; 9];
            for line in record.lines().skip_while(|l| !l.is_empty()).skip(1) {
                let (mark, square) = line.split_once('\t').unwrap();
                let at: usize = square.parse().unwrap();
                if mark == ours {
                    table.insert(format!("3 3 3 {mark} XO {}", board.iter().collect::<String>()), at);
                }
                board[at - 1] = mark.chars().next().unwrap();
            }
        }
    }
    assert!(table.len() >= 20, "{table:?}");
    let cheat = dir.path().join("table-bot");
    fs::create_dir(&cheat).unwrap();
    let entries: Vec<String> =
        table.iter().map(|(position, at)| format!("    {position:?}: {at},")).collect();
    fs::write(
        cheat.join("bot.py"),
        format!(
            "import sys\nTABLE = {{\n{}\n}}\nfor line in sys.stdin:\n    line = line.strip()\n    \
             board = line.split()[-1]\n    print(TABLE.get(line, board.index('.') + 1), flush=True)\n",
            entries.join("\n")
        ),
    )
    .unwrap();
    let report = dir.path().join("graded");
    let out = referee()
        .args(["grade", "--play", "--games", "2", "--min-wins", "0", "--move-time", "0.5", "--report"])
        .arg(&report)
        .arg(&cheat)
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert!(stderr.contains("ttt-referee: seed "), "{stderr}");
    let json: serde_json::Value =
        serde_json::from_slice(&fs::read(report.join("results.json")).unwrap()).unwrap();
    assert!(json["seed"].is_u64(), "{json}");
    let vs_perfect = &json["submissions"][0]["tests"][0];
    assert_eq!(vs_perfect["verdict"], "wrong", "{stderr}\n{vs_perfect}");
}

/// A student's bot in a directory named like an engine (`students/perfect`)
/// plays beside the engine of that name (an attack once stopped the whole
/// event with "names two participants"): it is named by its path.
#[test]
fn a_bot_named_like_an_engine_plays_beside_it() {
    let dir = kept_dir();
    let student = dir.path().join("students/perfect");
    fs::create_dir_all(&student).unwrap();
    fs::copy(bot("first-python/bot.py"), student.join("bot.py")).unwrap();
    let report = dir.path().join("report");
    let out = referee()
        .args(["tournament", "--quiet", "--move-time", "2"])
        .arg(&student)
        .args(["perfect", "--report"])
        .arg(&report)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let standings = text(&out.stdout);
    let shown = student.display().to_string();
    assert!(standings.contains(&shown) && standings.contains("perfect "), "{standings}");
    let json: serde_json::Value =
        serde_json::from_slice(&fs::read(report.join("results.json")).unwrap()).unwrap();
    assert_eq!(json["games"].as_array().unwrap().len(), 2, "{json}");
}

/// A failing test's game is written beside the report as a move file, which
/// the referee replays and `match --from` plays on from; `report.html` shows
/// it move by move and links it.
#[test]
fn a_failing_game_is_written_beside_the_report_and_played_on_from() {
    let dir = kept_dir();
    let report = dir.path().join("report");
    let out = referee()
        .args(["grade", "--play", "--games", "2", "--min-wins", "0", "--move-time", "0.5", "--seed", "4"])
        .arg("--report")
        .arg(&report)
        .args(["first-c", "taken"].map(bot))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    // The table names the failing tests.
    let table = text(&out.stdout);
    assert!(table.lines().any(|l| l.starts_with("first-c ") && l.ends_with("  vs-perfect")), "{table}");
    let json: serde_json::Value =
        serde_json::from_slice(&fs::read(report.join("results.json")).unwrap()).unwrap();
    let lost = &json["submissions"][0]["tests"][0];
    assert_eq!(lost["test"], "vs-perfect");
    let file = report.join("games/first-c/vs-perfect.txt");
    let game = fs::read_to_string(&file).unwrap();
    assert_eq!(game, lost["smallest_failing_input"]["input"].as_str().unwrap(), "the record whole");
    let refereed = referee().arg(&file).output().unwrap();
    assert_eq!(refereed.status.code(), Some(0));
    assert!(text(&refereed.stdout).contains("\nWinner: "), "{}", text(&refereed.stdout));
    // Every failing test of `taken` has its game (it passes vs-random with
    // --min-wins 0), a forfeit's answer its last line.
    for test in ["vs-perfect", "legal"] {
        let record = report.join(format!("games/taken/{test}.txt"));
        let refereed = referee().arg(&record).output().unwrap();
        assert_eq!(refereed.status.code(), Some(0), "{test}");
        assert!(text(&refereed.stdout).contains(" marked square\n"), "{test}: {}", text(&refereed.stdout));
    }
    for passed in ["first-c/legal.txt", "taken/vs-random.txt"] {
        assert!(!report.join("games").join(passed).exists(), "a passing test has no game: {passed}");
    }
    // The student plays on from the position before the losing move.
    let moves = game.lines().skip(3).count();
    let after = (moves - 1).to_string();
    let replay = dir.path().join("replay");
    let out = referee()
        .arg("match")
        .arg(bot("first-c"))
        .args(["perfect", "-q", "--after", &after, "--from"])
        .arg(&file)
        .arg("--report")
        .arg(&replay)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let first: Vec<&str> = game.lines().skip(3).take(moves - 1).collect();
    for n in 1..=2 {
        let record = fs::read_to_string(replay.join(format!("games/00{n}.txt"))).unwrap();
        let played: Vec<&str> = record.lines().skip(3).take(first.len()).collect();
        assert_eq!(played, first, "{record}");
    }
    let html = fs::read_to_string(report.join("report.html")).unwrap();
    assert!(html.contains(r#"<a href="games/first-c/vs-perfect.txt">"#), "no link to the game");
    assert_eq!(html.matches(r#"<div class="game" data-moves=""#).count(), 3, "a game for each failing test");
    assert_eq!(html.matches(r#"<section class="submission">"#).count(), 2, "a section for each student");
}

/// `play` seats a bot as `match` does: it plays its side of the console's
/// game, its forfeit ends the game (said at the console and in the
/// record's title, a taken square its last line), and what it wrote on
/// standard error is shown when the game ends.
#[test]
fn play_seats_a_bot_at_the_console() {
    let dir = kept_dir();
    let record = dir.path().join("game.txt");
    let out = referee()
        .arg("play")
        .arg("--o")
        .arg(bot("taken"))
        .arg("--record")
        .arg(&record)
        .write_stdin("5\nn\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let console = text(&out.stdout);
    assert!(
        console.contains("O forfeits: taken-square: answered 5, which is taken.\n- - -\n- X -\n- - -\n\nX wins by forfeit.\nPlay again? [y/N] "),
        "{console}"
    );
    let moves = fs::read_to_string(&record).unwrap();
    assert_eq!(
        moves,
        "Tic-Tac-Toe Game Data: O forfeits (taken-square: answered 5, which is taken)\nX: Human Player O: taken\n\nX\t5\nO\t5\n"
    );
    let refereed = text(&referee().arg(&record).output().unwrap().stdout);
    assert!(refereed.contains("O 5 marked square\n"), "{refereed}");

    // Against an engine, no person: the game is played through and
    // recorded under the bot's name; its standard error is shown.
    let out = referee()
        .arg("play")
        .arg("--x")
        .arg(bot("first-python"))
        .args(["--o", "perfect", "--record"])
        .arg(&record)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).ends_with("O wins.\n"), "{}", text(&out.stdout));
    let moves = fs::read_to_string(&record).unwrap();
    assert!(
        moves.starts_with("Tic-Tac-Toe Game Data\nX: first-python O: Perfect Engine\n\nX\t1\n"),
        "{moves}"
    );
    let out = referee().arg("play").arg("--x").arg(bot("crash")).args(["--o", "rules"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("X forfeits: exited: "), "{}", text(&out.stdout));
    assert!(
        text(&out.stderr).contains("ttt-referee: crash wrote on standard error:\n")
            && text(&out.stderr).contains("RuntimeError"),
        "{}",
        text(&out.stderr)
    );

    // Bots play at the default console only; a player is a value or a directory.
    let out = referee().args(["play", "--profile", "xtreme", "--o"]).arg(bot("taken")).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "ttt-referee: a bot plays at the default console only; leave out --profile\n"
    );
    let out = referee().args(["play", "--x", "no-such-bot"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains(
            "`no-such-bot` is not a player; expected human, rules, minimax, perfect, random or a directory holding a bot's source"
        ),
        "{}",
        text(&out.stderr)
    );
}
