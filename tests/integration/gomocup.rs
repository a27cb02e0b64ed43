//! Gomocup brains (`gomocup:PATH`, fixtures/gomocup/: a C brain and a
//! Python brain written to the published protocol) in matches against
//! engines and each other, in the sandbox, their records replaying;
//! `ttt-referee brain` driven by a scripted manager; game clocks, random
//! openings and the sequential test of `match`.

use std::fs;
use std::path::Path;

use crate::util::{kept_dir, referee, root};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn brain(name: &str) -> String {
    format!("gomocup:{}", root().join("fixtures/gomocup").join(name).display())
}

/// `match` with `args`, its report in a directory of its own: the
/// results, stderr and the directory.
fn play(args: &[&str]) -> (serde_json::Value, String, tempfile::TempDir) {
    let dir = kept_dir();
    let report = dir.path().join("report");
    let out = referee().arg("match").args(args).arg("--report").arg(&report).output().unwrap();
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
            (_, Some(name)) => format!(
                "Winner: {}",
                players.iter().find(|p| p["name"] == name).unwrap()["mark"].as_str().unwrap()
            ),
        };
        assert_eq!(last, expected, "{}", record.display());
    }
}

fn no_forfeits(json: &serde_json::Value, stderr: &str) {
    for game in json["games"].as_array().unwrap() {
        assert_ne!(game["reason"]["kind"], "forfeit", "{game:#}\n{stderr}");
    }
}

#[test]
fn a_c_brain_plays_an_engine_on_15x15_and_its_records_replay() {
    let c = brain("c-brain");
    let (json, stderr, dir) = play(&[&c, "rules", "--board", "15x15", "--win", "5", "--games", "2"]);
    assert_eq!(json["games"].as_array().unwrap().len(), 2);
    no_forfeits(&json, &stderr);
    records_replay(&json, &dir.path().join("report"));
    let players = json["games"][0]["players"].as_array().unwrap();
    let brain = players.iter().find(|p| p["name"] == "c-brain").unwrap();
    assert!(
        brain["stderr"].as_str().unwrap().starts_with("[ABOUT: name=\"c-brain\", version=\"1.0\""),
        "{brain}"
    );
}

/// Two brains, one chatty (MESSAGE and DEBUG lines before each move), on
/// a game clock, from random openings (a BOARD command, then TURNs).
#[test]
fn two_brains_play_on_a_clock_from_random_openings() {
    let (c, python) = (brain("c-brain"), brain("python-brain"));
    let (json, stderr, dir) = play(&[
        &python,
        &c,
        "--board",
        "15x15",
        "--win",
        "5",
        "--games",
        "2",
        "--openings",
        "random:3",
        "--clock",
        "30+0.5",
        "--seed",
        "4",
    ]);
    no_forfeits(&json, &stderr);
    assert_eq!(json["clock"], "30+0.5");
    records_replay(&json, &dir.path().join("report"));
    // Both games start from the one opening, from both sides.
    let moves = |n: &str| -> Vec<String> {
        let record = fs::read_to_string(dir.path().join("report/games").join(n)).unwrap();
        record
            .lines()
            .skip_while(|l| !l.is_empty())
            .skip(1)
            .take(3)
            .map(|l| l.split_whitespace().last().unwrap().to_owned())
            .collect()
    };
    assert_eq!(moves("001.txt"), moves("002.txt"));
}

#[test]
fn a_brain_given_as_an_executable_plays_in_the_sandbox() {
    use std::os::unix::fs::PermissionsExt;
    let dir = kept_dir();
    let exe = dir.path().join("pbrain-c");
    let built = std::process::Command::new("gcc")
        .args(["-O2", "-o"])
        .arg(&exe)
        .arg(root().join("fixtures/gomocup/c-brain/brain.c"))
        .status()
        .unwrap();
    assert!(built.success());
    let arg = format!("gomocup:{}", exe.display());
    let (json, stderr, _dir) = play(&[&arg, "random", "--board", "10x12", "--win", "5", "--games", "2"]);
    no_forfeits(&json, &stderr);
    assert!(json["participants"].as_array().unwrap().iter().any(|p| p["name"] == "pbrain-c"));

    // One set-user-ID is copied as a plain executable; one past a
    // submission's cap (sparse: nothing is written to make it) is not
    // copied at all, and forfeits saying so.
    fs::set_permissions(&exe, fs::Permissions::from_mode(0o4755)).unwrap();
    let (json, stderr, _dir) = play(&[&arg, "random", "--board", "10x12", "--win", "5", "--games", "2"]);
    no_forfeits(&json, &stderr);
    let huge = dir.path().join("huge-brain");
    fs::File::create(&huge).unwrap().set_len(20 << 30).unwrap();
    let arg = format!("gomocup:{}", huge.display());
    let (json, stderr, _dir) = play(&[&arg, "random", "--board", "10x12", "--win", "5", "--games", "2"]);
    assert!(
        stderr.contains("(exited: it could not be started: it cannot be copied: it is larger than 64 MB)"),
        "{stderr}"
    );
    assert_eq!(json["games"][0]["reason"]["forfeit"], "exited", "{json}");
}

#[test]
fn a_brain_is_refused_games_it_cannot_play() {
    let out = referee().args(["match", &brain("c-brain"), "rules"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr)
            .contains("cannot play these games: a Gomocup brain plays five in a row, not 3 (--win 5)"),
        "{}",
        text(&out.stderr)
    );
}

/// `ttt-referee brain` answers a manager's script as the protocol says.
#[test]
fn brain_answers_a_scripted_manager() {
    let script = "START 15\r\nINFO timeout_turn 1000\r\nINFO time_left 60000\r\nABOUT\r\nBEGIN\r\nTURN 8,8\r\n\
                  RESTART\r\nBOARD\r\n7,7,2\r\nDONE\r\nEND\r\n";
    let out = referee().args(["brain", "--engine", "rules"]).write_stdin(script).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 6, "{stdout}");
    assert_eq!(lines[0], "OK");
    assert!(lines[1].starts_with("name=\"ttt-referee rules\""), "{stdout}");
    assert_eq!(lines[2], "7,7");
    assert!(lines[3].split_once(',').is_some(), "{stdout}");
    assert_eq!(lines[4], "OK");
    assert!(lines[5].split_once(',').is_some_and(|m| m != ("7", "7")), "{stdout}");
}

/// A bot whose game clock runs out forfeits, saying it was the clock.
#[test]
fn a_forfeit_on_the_game_clock_says_so() {
    let slow = root().join("fixtures/bots/slow").display().to_string();
    let first = root().join("fixtures/bots/first-c").display().to_string();
    let (json, _, _dir) =
        play(&[&slow, &first, "--games", "1", "--clock", "1", "--move-time", "5", "--startup", "0.5"]);
    let reason = &json["games"][0]["reason"];
    assert_eq!(reason["forfeit"], "time", "{reason}");
    let detail = reason["detail"].as_str().unwrap();
    assert!(
        detail
            .starts_with("its game clock ran out (1.00 s left of 1+0 after 0 moves): no answer within 1.5 s"),
        "{detail}"
    );
}

/// The sequential test stops a lopsided match long before its most
/// games, and says so as it goes and at the end.
#[test]
fn sprt_stops_a_lopsided_match_as_soon_as_it_decides() {
    let (json, stderr, _dir) = play(&[
        "perfect",
        "random",
        "--games",
        "400",
        "--sprt",
        "elo0=0",
        "elo1=50",
        "alpha=0.05",
        "beta=0.05",
    ]);
    let games = json["games"].as_array().unwrap().len();
    assert!((2..400).contains(&games), "{games}");
    assert!(stderr.lines().all(|l| l.contains("; LLR ")), "{stderr}");
    assert_eq!(json["sprt"]["decision"], "H1", "{}", json["sprt"]);
    assert_eq!(json["sprt"]["counts"], "pentanomial");
    assert!(json["sprt"]["llr"].as_f64().unwrap() >= json["sprt"]["upper"].as_f64().unwrap());
    let out = referee()
        .args(["match", "perfect", "random", "rules", "--sprt", "elo0=0", "elo1=5"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(text(&out.stderr), "ttt-referee: --sprt: it compares two participants, not 3\n");
}
