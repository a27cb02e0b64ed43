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
/// time, the flood at the answer's size). A time forfeit says what the bot
/// was doing: blocked (no CPU: the flush hint) or computing.
#[test]
fn every_way_to_forfeit_forfeits_for_its_own_reason() {
    let cases = [
        ("taken", "taken-square", "answered 1, which is taken"),
        ("off-board", "off-board", "answered 10; the board's squares are 1 to 9"),
        ("not-a-number", "not-a-number", "answered `1,1`; expected a square from 1 to 9"),
        ("chatty", "not-a-number", "answered `thinking about 3 3 3"),
        ("flood", "not-a-number", "its answer ran past 4096 bytes without a line end"),
        ("slow", "time", "no answer within 1.5 s, and it was not computing"),
        ("silent", "time", "no answer within 1.5 s, and it was not computing"),
        (
            "no-flush",
            "time",
            "it was not computing: it was waiting for input, or asleep (an answer is one line, flushed: \
             `print(..., flush=True)` in Python",
        ),
        ("spin", "time", "no answer within 1.5 s: it was computing ("),
        ("crash", "exited", "it exited with status 1 before the game ended"),
        ("closer", "output-closed", "it closed its standard output before the game ended"),
        ("killed", "killed", "it was killed (SIGKILL) before the game ended, not by the referee"),
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
        .args(["grade", "--play", "--move-time", "0.5", "--startup", "2"])
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
    let want = [("negamax-cpp", "ppp"), ("first-c", "wwp"), ("crash", "wwc"), ("taken", "www")];
    let want: Vec<(String, String)> = want.iter().map(|(a, b)| ((*a).to_owned(), (*b).to_owned())).collect();
    assert_eq!(verdicts, want, "{stderr}");
    let tests = |name: &str| -> Vec<serde_json::Value> {
        let sub = json["submissions"].as_array().unwrap().iter().find(|s| s["submission"] == name).unwrap();
        sub["tests"].as_array().unwrap().clone()
    };
    let negamax = tests("negamax-cpp");
    // Every equally good reply of perfect's met each of its answers: a
    // proof, and its odds against random worked out from its answers.
    let proved = negamax[0]["detail"].as_str().unwrap();
    assert!(proved.starts_with("proved: it never loses to perfect; "), "{proved}");
    assert_eq!(
        negamax[1]["detail"],
        "exact, from its answers against every reply: as X it wins 99.48% (draws 0.52%, loses 0%), as O it \
         wins 80.63% (draws 19.37%, loses 0%); it needs 80% as X and 55% as O"
    );
    assert!(negamax[2]["detail"].as_str().unwrap().starts_with("it forfeited none of its "));
    let first = tests("first-c");
    let lost = &first[0];
    // How many it loses depends on the lines `perfect` draws from the
    // grading's seed; a first-free-square bot loses most.
    let detail = lost["detail"].as_str().unwrap();
    assert!(
        detail.starts_with("it lost ") && detail.contains(" games to perfect; the shortest: game "),
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

/// A bot that never answers is asked in 3 games of each test, however many
/// run at once (here 4): each of the others is a time forfeit that says it
/// was not asked, and `legal` counts them, showing a game it was asked in.
#[test]
fn grade_play_gives_up_on_a_silent_bot_after_three_time_forfeits_in_a_row() {
    let dir = kept_dir();
    let report = dir.path().join("report");
    let out = referee()
        .args(["grade", "--play", "--move-time", "0.5", "--startup", "1"])
        .args(["--jobs", "4", "--report"])
        .arg(&report)
        .arg(bot("silent"))
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    let json: serde_json::Value =
        serde_json::from_slice(&fs::read(report.join("results.json")).unwrap()).unwrap();
    let tests = json["submissions"][0]["tests"].as_array().unwrap();
    let legal = tests.iter().find(|t| t["test"] == "legal").unwrap();
    assert_eq!(legal["verdict"], "time-limit", "{legal}\n{stderr}");
    let detail = legal["detail"].as_str().unwrap();
    // Asked in 3 games of vs-perfect and 3 of vs-random: every other game
    // was a forfeit at once, and the trees stopped when they learned
    // nothing more.
    let counts: Vec<u64> = detail
        .split(|c: char| !c.is_ascii_digit())
        .filter(|w| !w.is_empty())
        .take(4)
        .map(|w| w.parse().unwrap())
        .collect();
    assert!(
        detail.starts_with("it forfeited ")
            && detail.contains(" not asked: it ran out of time in 3 games in a row); the shortest: game "),
        "{detail}"
    );
    let [forfeited, games, unasked, k] = counts[..] else { panic!("{detail}") };
    assert_eq!((forfeited, k), (games, 3), "{detail}");
    assert_eq!(games - unasked, 6, "{detail}");
    assert!(games < 200, "{detail}");
    assert!(
        detail.contains(" (vs-perfect, as X): time: no answer within 1.5 s, and it was not computing"),
        "{detail}"
    );
    // Each failing test shows a game it was asked in.
    for test in tests {
        let shown = test["smallest_failing_input"]["input"].as_str().unwrap_or_default();
        assert!(shown.contains("no answer within 1.5 s"), "{test}");
        assert!(!shown.contains("not asked"), "{test}");
    }
}

#[test]
fn grade_play_refuses_what_it_cannot_play() {
    for (args, message) in [
        (
            &["--play", "--bar", "80"][..],
            "error: invalid value '80' for '--bar <X,O>': expected two percentages, as X and as O, such as \
             `80,55`\n\nFor more information, try '--help'.\n",
        ),
        (
            &["--play", "--bar", "80,101"][..],
            "error: invalid value '80,101' for '--bar <X,O>': `101` is not a percentage from 0 to 100\n\nFor \
             more information, try '--help'.\n",
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
        .args(["grade", "--play", "--board", "3x4", "--win", "3", "--bar", "0,0"])
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
            let path = record.unwrap().path();
            // The records, not their seals.
            if path.extension().is_none_or(|e| e != "txt") {
                continue;
            }
            let record = fs::read_to_string(path).unwrap();
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
        .args(["grade", "--play", "--bar", "0,0", "--move-time", "0.5", "--report"])
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

/// The lines of a 3×3 board.
const LINES: [[usize; 3]; 8] =
    [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]];

/// Whether `mark` holds a line of `board`.
fn won(board: &[u8; 9], mark: u8) -> bool {
    LINES.iter().any(|l| l.iter().all(|&i| board[i] == mark))
}

/// A 3×3 position's value for the player to move, `me` (1 win, 0 draw, -1
/// loss), by plain minimax: the tests' own, independent of the engines.
fn value(board: &mut [u8; 9], me: u8, memo: &mut std::collections::HashMap<([u8; 9], u8), i8>) -> i8 {
    let them = if me == b'X' { b'O' } else { b'X' };
    if won(board, them) {
        return -1;
    }
    if let Some(&v) = memo.get(&(*board, me)) {
        return v;
    }
    let mut best = None;
    for i in 0..9 {
        if board[i] == b'.' {
            board[i] = me;
            let v = -value(board, them, memo);
            board[i] = b'.';
            best = Some(best.map_or(v, |b: i8| b.max(v)));
        }
    }
    let v = best.unwrap_or(0);
    memo.insert((*board, me), v);
    v
}

/// Every position a game can reach (not over), with the squares (from 1)
/// that keep its value: the protocol line, then the best squares.
fn best_squares() -> std::collections::BTreeMap<String, Vec<usize>> {
    type Memo = std::collections::HashMap<([u8; 9], u8), i8>;
    fn walk(
        board: &mut [u8; 9],
        me: u8,
        table: &mut std::collections::BTreeMap<String, Vec<usize>>,
        memo: &mut Memo,
    ) {
        let them = if me == b'X' { b'O' } else { b'X' };
        let line = format!("3 3 3 {} XO {}", me as char, String::from_utf8_lossy(board));
        let free: Vec<usize> = (0..9).filter(|&i| board[i] == b'.').collect();
        if table.contains_key(&line) || won(board, them) || free.is_empty() {
            return;
        }
        let scores: Vec<i8> = free
            .iter()
            .map(|&i| {
                board[i] = me;
                let v = -value(board, them, memo);
                board[i] = b'.';
                v
            })
            .collect();
        let top = *scores.iter().max().unwrap();
        table
            .insert(line, free.iter().zip(&scores).filter(|(_, v)| **v == top).map(|(i, _)| i + 1).collect());
        for &i in &free {
            board[i] = me;
            walk(board, them, table, memo);
            board[i] = b'.';
        }
    }
    let mut table = std::collections::BTreeMap::new();
    walk(&mut [b'.'; 9], b'X', &mut table, &mut Memo::new());
    table
}

/// A C bot in `dir` answering from `table` (protocol line → squares): the
/// first square, or with `random` one drawn from a fixed seed. In C, not
/// Python, because it plays hundreds of games a grading, each a start of
/// its program: a C table starts in a millisecond where Python parsing
/// 4,500 entries took tens.
fn table_bot(dir: &Path, table: &std::collections::BTreeMap<String, Vec<usize>>, random: bool) {
    fs::create_dir_all(dir).unwrap();
    // The map's order is the bytes' order, which `strcmp` searches.
    let rows: Vec<String> = table
        .iter()
        .map(|(line, best)| {
            let squares: Vec<String> = best.iter().map(usize::to_string).collect();
            format!("    {{{line:?}, {}, {{{}}}}},", best.len(), squares.join(", "))
        })
        .collect();
    let choose = if random { "row->best[rand() % row->n]" } else { "row->best[0]" };
    fs::write(
        dir.join("bot.c"),
        format!(
            "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n\
             struct row {{ const char *line; int n; int best[9]; }};\n\
             static const struct row TABLE[] = {{\n{}\n}};\n\
             static int by_line(const void *key, const void *row) {{\n    \
             return strcmp(key, ((const struct row *)row)->line);\n}}\n\
             int main(void) {{\n    char line[256];\n    srand(1234);\n    \
             while (fgets(line, sizeof line, stdin)) {{\n        line[strcspn(line, \"\\r\\n\")] = 0;\n        \
             const struct row *row = bsearch(line, TABLE, sizeof TABLE / sizeof *TABLE, sizeof *TABLE, by_line);\n        \
             if (!row) return 1;\n        printf(\"%d\\n\", {choose});\n        fflush(stdout);\n    }}\n    \
             return 0;\n}}\n",
            rows.join("\n")
        ),
    )
    .unwrap();
}

/// The games of `--play`'s first failing test, as move lines (`X\t5`).
fn lost_moves(test: &serde_json::Value) -> Vec<String> {
    let record = test["smallest_failing_input"]["input"].as_str().unwrap_or_default();
    record.lines().skip_while(|l| !l.is_empty()).skip(1).map(str::to_owned).collect()
}

/// A perfect table with one typo (issue 37): after X5 O9 X1 O7 it answers 2
/// instead of blocking at 8. `perfect` taking the lowest of its equally
/// good replies never answers the centre with 9, so the typo's games were
/// never played and the bot passed; `vs-perfect` now plays every equally
/// good reply to each answer, and shows the losing line.
#[test]
fn a_perfect_table_with_one_typo_fails_vs_perfect_with_its_losing_line() {
    let dir = kept_dir();
    let mut table = best_squares();
    assert!(table.len() > 4000, "{}", table.len());
    let typo = "3 3 3 X XO X...X.O.O";
    assert_eq!(table[typo], vec![8]);
    table.insert(typo.to_owned(), vec![2]);
    table_bot(&dir.path().join("typo"), &table, false);
    table.insert(typo.to_owned(), vec![8]);
    table_bot(&dir.path().join("perfect-table"), &table, false);
    let report = dir.path().join("report");
    let out = referee()
        .args(["grade", "--play", "--move-time", "2", "--report"])
        .arg(&report)
        .args([dir.path().join("typo"), dir.path().join("perfect-table")])
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    let json: serde_json::Value =
        serde_json::from_slice(&fs::read(report.join("results.json")).unwrap()).unwrap();
    let typo = &json["submissions"][0]["tests"][0];
    assert_eq!(typo["verdict"], "wrong", "{stderr}\n{typo}");
    // The typo's position (reached in either order), its answer, the loss.
    let mut moves = lost_moves(typo);
    moves[..4].sort();
    assert_eq!(moves, ["O\t7", "O\t9", "X\t1", "X\t5", "X\t2", "O\t8"], "{typo}");
    // Without the typo, the same table is proved, and its odds are exact.
    let right = &json["submissions"][1]["tests"];
    assert!(right[0]["detail"].as_str().unwrap().starts_with("proved: "), "{right}");
    assert!(right[1]["detail"].as_str().unwrap().starts_with("exact, "), "{right}");
}

/// The fair bar (issue 37): graded twice, with two seeds, every perfect bot
/// passes (a deterministic one proved; one drawing at random among its best
/// squares, a sample, said so) and the fork-blind bot fails `vs-perfect`
/// while its exact odds against random clear the bar. Its figures are the
/// ones an independent script worked out over every random game.
#[test]
fn a_fair_bar_passes_every_perfect_bot_and_fails_the_fork_blind_one_whatever_the_seed() {
    let dir = kept_dir();
    table_bot(&dir.path().join("random-perfect"), &best_squares(), true);
    for seed in ["1", "2"] {
        let report = dir.path().join(seed);
        let out = referee()
            .args(["grade", "--play", "--move-time", "2", "--seed", seed, "--report"])
            .arg(&report)
            .args([bot("negamax-cpp"), bot("fork-blind"), dir.path().join("random-perfect")])
            .output()
            .unwrap();
        let stderr = text(&out.stderr);
        let json: serde_json::Value =
            serde_json::from_slice(&fs::read(report.join("results.json")).unwrap()).unwrap();
        let subs = json["submissions"].as_array().unwrap();
        let verdicts: Vec<Vec<&str>> = subs
            .iter()
            .map(|s| s["tests"].as_array().unwrap().iter().map(|t| t["verdict"].as_str().unwrap()).collect())
            .collect();
        assert_eq!(
            verdicts,
            [["pass", "pass", "pass"], ["wrong", "pass", "pass"], ["pass", "pass", "pass"]],
            "seed {seed}: {stderr}\n{json}"
        );
        let fork_blind = &subs[1]["tests"];
        assert_eq!(
            fork_blind[1]["detail"],
            "exact, from its answers against every reply: as X it wins 96.35% (draws 3.65%, loses 0%), as O it \
             wins 85.29% (draws 13.44%, loses 1.27%); it needs 80% as X and 55% as O"
        );
        // The fork it falls for: the shortest game it lost ends in a fork.
        assert!(lost_moves(&fork_blind[0]).len() >= 5, "{}", fork_blind[0]);
        let random_perfect = subs[2]["tests"][0]["detail"].as_str().unwrap();
        assert!(random_perfect.contains("not proved: it answered one position two ways"), "{random_perfect}");
        assert!(subs[2]["tests"][1]["detail"].as_str().unwrap().starts_with("sampled against random ("));
    }
}

/// On a board `perfect` cannot play (issue 37), `vs-perfect` cannot run:
/// the TA is told, and each bot is graded on the tests that can, its
/// odds against random sampled with the sequential test.
#[test]
fn grade_play_on_a_big_board_says_vs_perfect_cannot_run_and_runs_the_others() {
    let dir = kept_dir();
    let report = dir.path().join("report");
    let out = referee()
        .args(["grade", "--play", "--board", "9x9", "--win", "5", "--bar", "40,30", "--games", "20"])
        .args(["--move-time", "0.5", "--startup", "2", "--report"])
        .arg(&report)
        .arg(bot("first-c"))
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(
            "ttt-referee: warning: --board 9x9: vs-perfect cannot run (perfect plays boards of up to 64 squares, K \
             or more in a row winning; this one has 81): vs-strong plays in its place, and sampled tests play at \
             most 20 games a side\n"
        ),
        "{stderr}"
    );
    let json: serde_json::Value =
        serde_json::from_slice(&fs::read(report.join("results.json")).unwrap()).unwrap();
    let tests = json["submissions"][0]["tests"].as_array().unwrap();
    let names: Vec<&str> = tests.iter().map(|t| t["test"].as_str().unwrap()).collect();
    assert_eq!(names, ["vs-random", "vs-strong", "legal"], "{stderr}");
    let detail = tests[0]["detail"].as_str().unwrap();
    assert!(
        detail.starts_with(
            "sampled against random (exact odds are worked out on boards of up to 9 squares): as X it won "
        ),
        "{detail}"
    );
}

/// Tests a TA chooses (issue 37): `--versus ENGINE[=X,O]` adds a test of
/// games against that engine, before `legal`, judged on points a side.
#[test]
fn grade_play_adds_a_test_against_an_engine_the_ta_chooses() {
    let dir = kept_dir();
    let report = dir.path().join("report");
    let out = referee()
        .args(["grade", "--play", "--versus", "rules=40,30", "--games", "60", "--bar", "0,0", "--report"])
        .arg(&report)
        .args([bot("negamax-cpp"), bot("first-c")])
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    let json: serde_json::Value =
        serde_json::from_slice(&fs::read(report.join("results.json")).unwrap()).unwrap();
    let tests = |i: usize| json["submissions"][i]["tests"].as_array().unwrap().clone();
    let names: Vec<String> = tests(0).iter().map(|t| t["test"].as_str().unwrap().to_owned()).collect();
    assert_eq!(names, ["vs-perfect", "vs-random", "vs-rules", "legal"], "{stderr}");
    let (negamax, first) = (&tests(0)[2], &tests(1)[2]);
    assert_eq!(negamax["verdict"], "pass", "{negamax}");
    assert!(
        negamax["detail"].as_str().unwrap().starts_with("against rules (a win 1, a draw ½): as X it scored ")
    );
    assert_eq!(first["verdict"], "wrong", "{first}");
    assert!(first["detail"].as_str().unwrap().contains("; the shortest it lost: game "), "{first}");
    for (args, message) in [
        (
            &["--versus", "random"][..],
            "error: invalid value 'random' for '--versus <OPPONENT[=X,O]>': vs-random is a test already (--bar sets \
             vs-random's bar); choose another engine (strong, minimax, rules) or a bot's directory\n\nFor more information, \
             try '--help'.\n",
        ),
        (
            &["--versus", "deep-blue"][..],
            "error: invalid value 'deep-blue' for '--versus <OPPONENT[=X,O]>': `deep-blue` is neither an engine \
             (strong, minimax, rules) nor a reference bot's directory\n\nFor more information, try '--help'.\n",
        ),
        (
            &["--versus", "rules", "--versus", "rules=1,1"][..],
            "ttt-referee: --versus: a test named vs-rules is there already; each opponent is a test of its own \
             name (rename a reference bot's directory)\n",
        ),
    ] {
        let out = referee().args(["grade", "--play"]).args(args).arg(bot("first-c")).output().unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(text(&out.stderr), message);
    }
}

/// Tests a TA chooses (issue 37): `--versus DIR` plays a test against a
/// reference bot, built once for the grading and run as the students' bots
/// are; a reference that fails in its own games voids its test (an error,
/// never a pass), and one that cannot be built stops the grading before it
/// starts, touching no report.
#[test]
fn grade_play_adds_a_test_against_a_reference_bot() {
    let dir = kept_dir();
    let report = dir.path().join("report");
    let out = referee()
        .args(["grade", "--play", "--games", "60", "--bar", "0,0", "--report"])
        .arg(&report)
        .arg("--versus")
        .arg(format!("{}=40,40", bot("negamax-cpp").display()))
        .arg("--versus")
        .arg(bot("crash"))
        .args([bot("negamax-cpp"), bot("first-c")])
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    let json: serde_json::Value =
        serde_json::from_slice(&fs::read(report.join("results.json")).unwrap()).unwrap();
    let tests = |i: usize| json["submissions"][i]["tests"].as_array().unwrap().clone();
    let names: Vec<String> = tests(0).iter().map(|t| t["test"].as_str().unwrap().to_owned()).collect();
    assert_eq!(names, ["vs-perfect", "vs-random", "vs-negamax-cpp", "vs-crash", "legal"], "{stderr}");
    // A perfect bot draws itself: half the points, over a bar of 40%.
    let (negamax, first) = (&tests(0)[2], &tests(1)[2]);
    assert_eq!(negamax["verdict"], "pass", "{negamax}");
    assert!(
        negamax["detail"]
            .as_str()
            .unwrap()
            .starts_with("against negamax-cpp (a win 1, a draw ½): as X it scored "),
        "{negamax}"
    );
    assert_eq!(first["verdict"], "wrong", "{first}");
    // The reference that crashes judges nothing: an error for every bot,
    // though each "won" that game.
    for i in 0..2 {
        let void = &tests(i)[3];
        assert_eq!(void["verdict"], "error", "{void}");
        assert!(
            void["detail"].as_str().unwrap().starts_with(
                "the reference bot crash failed in its own games, so they judge nothing of this bot's: game "
            ),
            "{void}"
        );
    }
    // A reference that cannot be built: exit 2 before anything is graded.
    let broken = dir.path().join("broken-ref");
    fs::create_dir(&broken).unwrap();
    fs::write(broken.join("bot.cpp"), "int main() { return }\n").unwrap();
    let untouched = dir.path().join("untouched");
    let out = referee()
        .args(["grade", "--play", "--report"])
        .arg(&untouched)
        .arg("--versus")
        .arg(&broken)
        .arg(bot("first-c"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "ttt-referee: the reference bot {} (--versus) cannot play: ",
            broken.display()
        )),
        "{stderr}"
    );
    assert!(stderr.contains("expected"), "the compiler's message: {stderr}");
    assert!(!untouched.exists());
    // A directory whose name cannot name a test.
    let spaced = dir.path().join("my ref");
    fs::create_dir(&spaced).unwrap();
    let out =
        referee().args(["grade", "--play", "--versus"]).arg(&spaced).arg(bot("first-c")).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "ttt-referee: --versus: `my ref` cannot name a test: name a reference bot's directory with letters, \
         digits, `.`, `_` and `-`\n"
    );
}

/// A course writes its `--play` tests once, in grade.toml's `[play]` table:
/// each key a flag, written as on the command line; a reference bot's
/// directory starts at the file's; a flag given wins over its key; a value
/// the flag would refuse names the file's line.
#[test]
fn grade_play_takes_its_tests_from_the_courses_grade_toml() {
    let dir = kept_dir();
    let course = dir.path().join("course");
    fs::create_dir_all(course.join("reference")).unwrap();
    for file in fs::read_dir(bot("negamax-cpp")).unwrap() {
        let file = file.unwrap().path();
        fs::copy(&file, course.join("reference").join(file.file_name().unwrap())).unwrap();
    }
    let config = course.join("grade.toml");
    fs::write(
        &config,
        "[play]\nbar = \"0,0\"\ngames = 20\nversus = [\"rules=40,30\", \"reference=40,40\"]\n",
    )
    .unwrap();
    let report = dir.path().join("report");
    let out = referee()
        .args(["grade", "--play", "--bar", "100,100", "--config"])
        .arg(&config)
        .arg("--report")
        .arg(&report)
        .arg(bot("negamax-cpp"))
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    let json: serde_json::Value =
        serde_json::from_slice(&fs::read(report.join("results.json")).unwrap()).unwrap();
    let tests = json["submissions"][0]["tests"].as_array().unwrap();
    let names: Vec<&str> = tests.iter().map(|t| t["test"].as_str().unwrap()).collect();
    assert_eq!(names, ["vs-perfect", "vs-random", "vs-rules", "vs-reference", "legal"], "{stderr}");
    // --bar 100,100 on the command line, not the file's 0,0.
    let random = tests[1]["detail"].as_str().unwrap();
    assert!(random.contains("it needs 100% as X and 100% as O"), "{random}");
    assert_eq!(tests[1]["verdict"], "wrong");
    assert_eq!(tests[3]["verdict"], "pass", "{}", tests[3]);

    fs::write(&config, "[play]\nboard = \"3x3\"\nbar = \"80\"\n").unwrap();
    let out =
        referee().args(["grade", "--play", "--config"]).arg(&config).arg(bot("first-c")).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        format!(
            "ttt-referee: {}:3: [play] `bar`: expected two percentages, as X and as O, such as `80,55`\n",
            config.display()
        )
    );
}

/// A failing test's game is written beside the report as a move file, which
/// the referee replays and `match --from` plays on from; `report.html` shows
/// it move by move and links it.
#[test]
fn a_failing_game_is_written_beside_the_report_and_played_on_from() {
    let dir = kept_dir();
    let report = dir.path().join("report");
    let out = referee()
        .args(["grade", "--play", "--bar", "0,0", "--move-time", "0.5", "--seed", "4"])
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
    // --bar 0,0), a forfeit's answer its last line.
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
            "`no-such-bot` is not a player; expected human, rules, minimax, perfect, strong, random or a directory holding a bot's source"
        ),
        "{}",
        text(&out.stderr)
    );
}

/// A record of two bots cannot be checked by asking them again (a bot need
/// not play the same move twice), so it is trusted only under the seal the
/// event wrote beside it: a record edited to claim the other bot won is
/// said to be untrusted on resume, its game played again, and the record
/// put back as the game was played.
#[test]
fn an_edited_record_of_two_bots_is_played_again_not_counted() {
    let dir = kept_dir();
    let report = dir.path().join("report");
    let run = |env: Option<&str>| {
        let mut command = referee();
        command
            .args(["match", "--games", "2"])
            .arg(bot("first-c"))
            .arg(bot("first-python"))
            .arg("--report")
            .arg(&report);
        if let Some(key) = env {
            command.env("TTT_REFEREE_RECORD_KEY", key);
        }
        command.output().unwrap()
    };
    let first = run(None);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    let record_path = report.join("games/001.txt");
    let honest = fs::read_to_string(&record_path).unwrap();
    assert!(honest.lines().next().unwrap().ends_with(": X wins"), "{honest}");
    assert!(report.join("games/001.seal").is_file());
    let key = Path::new(env!("CARGO_TARGET_TMPDIR")).join("state/ttt-referee/record.key");
    assert!(key.is_file(), "the key is kept in the state directory");

    // The forger's record: first-python (O) wins along the middle row, in
    // legal moves that referee to the result its title claims.
    let head: Vec<&str> = honest.lines().take_while(|l| !l.is_empty()).collect();
    let title = head[0].replace(": X wins", ": O wins");
    let forged = format!("{title}\n{}\n\nX 1\nO 4\nX 2\nO 5\nX 9\nO 6\n", head[1..].join("\n"));
    fs::write(dir.path().join("forged.txt"), &forged).unwrap();
    let refereed = referee().arg(dir.path().join("forged.txt")).output().unwrap();
    assert!(text(&refereed.stdout).ends_with("Winner: O\n"), "{}", text(&refereed.stdout));
    fs::write(&record_path, &forged).unwrap();

    let again = run(None);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stderr));
    let stderr = text(&again.stderr);
    assert!(
        stderr.contains(&format!(
            "ttt-referee: warning: {}: not trusted: its seal does not match: it was edited, recorded with another key, or played under another --move-time, --clock or --rule; game 1 is played again\n",
            record_path.display()
        )),
        "{stderr}"
    );
    let lines: Vec<&str> = stderr.lines().filter(|l| l.starts_with('[')).collect();
    assert!(lines.contains(&"[1/2] first-c (X) vs first-python (O): X wins"), "played again: {lines:?}");
    assert!(lines.iter().any(|l| l.starts_with("[2/2] ") && l.ends_with(" (recorded)")), "{lines:?}");
    assert_eq!(fs::read_to_string(&record_path).unwrap(), honest, "the record is the game played");
    assert_eq!(again.stdout, first.stdout, "the standings are the honest ones");

    // Games played at another move time are not these games.
    let slower = {
        let mut command = referee();
        command
            .args(["match", "--games", "2", "--move-time", "2"])
            .arg(bot("first-c"))
            .arg(bot("first-python"))
            .arg("--report")
            .arg(&report);
        command.output().unwrap()
    };
    assert_eq!(
        text(&slower.stderr).matches("or played under another --move-time").count(),
        2,
        "{}",
        text(&slower.stderr)
    );

    // Another key trusts none of them; a key too short to be secret is refused.
    let other = run(Some("another key, of a fleet"));
    assert_eq!(
        text(&other.stderr).matches("not trusted: its seal does not match").count(),
        2,
        "{}",
        text(&other.stderr)
    );
    let short = run(Some("short"));
    assert_eq!(short.status.code(), Some(2));
    assert_eq!(
        text(&short.stderr),
        "ttt-referee: TTT_REFEREE_RECORD_KEY is 5 bytes; expected a secret of at least 16 bytes (for example the output of `openssl rand -hex 32`)\n"
    );
}

/// The attacker's way round the seal: a bot that looks for the key it is
/// made with (the grader's environment, the key file in the grader's state
/// directory, by its full path, and anywhere under a home) to forge a
/// record for a later resume. It finds none: a run's environment is its
/// own, and the grader's home is not in its container.
#[test]
fn a_bot_cannot_find_the_key_that_seals_the_records() {
    let dir = kept_dir();
    let state = dir.path().join("state");
    let key_file = state.join("ttt-referee/record.key");
    let snoop = dir.path().join("key-snoop");
    fs::create_dir_all(&snoop).unwrap();
    let source = format!(
        r#"import os, sys
found = []
for name, value in os.environ.items():
    if "KEY" in name or "TTT" in name or "sealed-by-the-ta" in value:
        found.append("env " + name)
for path in [{key:?}, "/root/.local/state/ttt-referee/record.key"]:
    try:
        found.append("file " + open(path).read())
    except OSError as e:
        pass
for top in ["/root", "/home", {home:?}]:
    for here, dirs, files in os.walk(top):
        if "record.key" in files:
            found.append("walk " + here)
print("found: " + (", ".join(found) or "nothing"), file=sys.stderr, flush=True)
for line in sys.stdin:
    board = line.split()[5]
    print(board.index(".") + 1, flush=True)
"#,
        key = key_file.display().to_string(),
        home = dir.path().display().to_string(),
    );
    fs::write(snoop.join("bot.py"), source).unwrap();
    let report = dir.path().join("report");
    let out = referee()
        .args(["match", "--games", "2", "--quiet"])
        .arg(&snoop)
        .args(["random", "--report"])
        .arg(&report)
        .env("XDG_STATE_HOME", &state)
        .env("TTT_REFEREE_RECORD_KEY", "sealed-by-the-ta-0123456789")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let json: serde_json::Value =
        serde_json::from_slice(&fs::read(report.join("results.json")).unwrap()).unwrap();
    for game in json["games"].as_array().unwrap() {
        let snooper = game["players"].as_array().unwrap().iter().find(|p| p["name"] == "key-snoop").unwrap();
        assert_eq!(snooper["stderr"].as_str().unwrap().trim_end(), "found: nothing", "{game}");
    }
    // Without the variable the key is kept in the state directory, and
    // still out of the bot's sight.
    let out = referee()
        .args(["match", "--games", "2", "--quiet"])
        .arg(&snoop)
        .args(["random", "--report"])
        .arg(dir.path().join("report2"))
        .env("XDG_STATE_HOME", &state)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(key_file.is_file());
    let json: serde_json::Value =
        serde_json::from_slice(&fs::read(dir.path().join("report2/results.json")).unwrap()).unwrap();
    for game in json["games"].as_array().unwrap() {
        let snooper = game["players"].as_array().unwrap().iter().find(|p| p["name"] == "key-snoop").unwrap();
        assert_eq!(snooper["stderr"].as_str().unwrap().trim_end(), "found: nothing", "{game}");
    }
}

/// Two bots whose names records write alike (`a b` and `a_b`: white space
/// becomes `_`) would share their games' records, and a resume in the
/// other order would give one bot's wins to the other: refused.
#[test]
fn two_bots_written_alike_in_records_are_refused() {
    let dir = kept_dir();
    for name in ["a b", "a_b"] {
        fs::create_dir_all(dir.path().join(name)).unwrap();
        fs::copy(bot("first-python/bot.py"), dir.path().join(name).join("bot.py")).unwrap();
    }
    let out = referee()
        .args(["tournament", "--quiet"])
        .arg(dir.path().join("a b"))
        .arg(dir.path().join("a_b"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "ttt-referee: `a b` and `a_b` are both written `a_b` in game records (white space, `:` and control characters become `_`), which could not tell their games apart; rename one\n"
    );
}
