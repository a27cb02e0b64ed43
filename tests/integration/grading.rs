//! The grader's toolkit: batch runs, `check`, `gen`, JSON output, shell
//! completions and the man page.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::util::{first_difference, fixture, referee, root};

/// Fixtures that referee with the default options, with their transcripts.
fn default_fixtures(dir: &str) -> Vec<(PathBuf, PathBuf)> {
    let mut cases: Vec<_> = fs::read_dir(root().join("fixtures").join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .filter(|p| !p.with_extension("args").exists() && p.with_extension("expected").exists())
        .map(|p| (p.clone(), p.with_extension("expected")))
        .collect();
    cases.sort();
    cases
}

#[test]
fn a_batch_writes_what_single_runs_write_file_for_file() {
    let out = tempfile::tempdir().unwrap();
    let result = referee()
        .arg(fixture("classic"))
        .arg(fixture("variants/ten-players.txt"))
        .arg("--out-dir")
        .arg(out.path())
        .output()
        .unwrap();
    assert_eq!(result.status.code(), Some(0), "{}", String::from_utf8_lossy(&result.stderr));
    let mut checked = 0;
    for (moves, expected) in default_fixtures("classic").into_iter().chain([(
        root().join("fixtures/variants/ten-players.txt"),
        root().join("fixtures/variants/ten-players.expected"),
    )]) {
        let written = fs::read(out.path().join(moves.file_name().unwrap())).unwrap();
        let wanted = fs::read(&expected).unwrap();
        assert!(written == wanted, "{}: {}", moves.display(), first_difference(&written, &wanted));
        checked += 1;
    }
    assert!(checked > 20);
    // Every move file in the directory was refereed: count their endings.
    let mut endings = std::collections::BTreeMap::new();
    for entry in fs::read_dir(root().join("fixtures/classic")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "expected") {
            let text = fs::read_to_string(&path).unwrap();
            *endings.entry(text.lines().last().unwrap().to_owned()).or_insert(0) += 1;
        }
    }
    *endings.entry("Winner: Cat".to_owned()).or_insert(0) += 1; // ten-players
    let count = |w: &str| endings.get(w).copied().unwrap_or(0);
    let files: i32 = endings.values().sum();
    let stderr = String::from_utf8(result.stderr).unwrap();
    assert_eq!(
        stderr,
        format!(
            "ttt-referee: {files} files: {} won by X, {} won by O, {} Cat, {} unfinished, 0 failed\n",
            count("Winner: X"),
            count("Winner: O"),
            count("Winner: Cat"),
            count("Winner: None")
        )
    );
}

#[test]
fn a_malformed_file_among_good_ones_fails_alone() {
    let out = tempfile::tempdir().unwrap();
    let result = referee()
        .args([
            "fixtures/classic/x-wins-row.txt",
            "fixtures/malformed/not-utf8.txt",
            "fixtures/classic/crlf.txt",
        ])
        .arg("--out-dir")
        .arg(out.path())
        .output()
        .unwrap();
    assert_eq!(result.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(result.stderr).unwrap(),
        "ttt-referee: fixtures/malformed/not-utf8.txt:5: byte 0xE9 at column 3 is not UTF-8 text; expected a UTF-8 text file\n\
         ttt-referee: 3 files: 2 won by X, 0 won by O, 0 Cat, 0 unfinished, 1 failed\n"
    );
    let mut names: Vec<_> = fs::read_dir(out.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    names.sort();
    assert_eq!(names, ["crlf.txt", "x-wins-row.txt"]);
}

#[test]
fn batch_usage_errors() {
    let out = referee().args(["fixtures/TTTmoves.txt", "fixtures/classic/crlf.txt"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "ttt-referee: 2 move files given; several files need --out-dir DIR\n"
    );

    let dir = tempfile::tempdir().unwrap();
    let clash = dir.path().join("TTTmoves.txt");
    fs::copy(root().join("fixtures/TTTmoves.txt"), &clash).unwrap();
    let out = referee()
        .arg("fixtures/TTTmoves.txt")
        .arg(&clash)
        .arg("--out-dir")
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("another input has the same file name"), "{stderr}");
    assert!(stderr.ends_with("2 files: 0 won by X, 0 won by O, 1 Cat, 0 unfinished, 1 failed\n"), "{stderr}");
}

fn check(args: &[&str]) -> (i32, String) {
    let out = referee().arg("check").args(args).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap() + &String::from_utf8(out.stderr).unwrap();
    (out.status.code().unwrap(), text)
}

#[test]
fn check_accepts_the_referees_own_transcript() {
    let (code, text) = check(&["fixtures/TTTmoves.txt", "fixtures/TTTgame.txt"]);
    assert_eq!(code, 0);
    assert_eq!(
        text,
        "fixtures/TTTgame.txt: matches the referee's transcript of fixtures/TTTmoves.txt: 40/40 lines, 40 found (100.0%)\n"
    );
}

#[test]
fn check_forgives_spacing_unless_exact() {
    let dir = tempfile::tempdir().unwrap();
    let mangled = dir.path().join("mangled.txt");
    let text = fs::read_to_string(root().join("fixtures/TTTgame.txt")).unwrap();
    fs::write(&mangled, text.replace('\n', " \r\n").replace("- - -", "-\t-   -") + "\r\n\r\n").unwrap();
    let path = mangled.to_str().unwrap();
    assert_eq!(check(&["fixtures/TTTmoves.txt", path]).0, 0);
    let (code, out) = check(&["fixtures/TTTmoves.txt", path, "--exact"]);
    assert_eq!(code, 1);
    assert!(out.contains("  expected line 1: Programmer: Dwight Barnette\n  found    line 1: Programmer: Dwight Barnette \n"), "{out}");
}

#[test]
fn check_reports_the_first_real_difference_and_a_score() {
    let dir = tempfile::tempdir().unwrap();
    let wrong = dir.path().join("wrong.txt");
    let text = fs::read_to_string(root().join("fixtures/TTTgame.txt")).unwrap();
    // A student who prints the board after move 2 wrongly and forgets the
    // last line. Of the 40 expected lines that are not blank, 38 match: the
    // wrong row and the missing `Winner:` line do not; the answer has 39.
    fs::write(&wrong, text.replacen("- - O", "- - X", 1).replace("Winner: Cat\n", "")).unwrap();
    let (code, out) = check(&["fixtures/TTTmoves.txt", wrong.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(
        out,
        format!(
            "{}: differs from the referee's transcript of fixtures/TTTmoves.txt\n  expected line 14: - - O\n  found    line 14: - - X\nscore: 38/40 lines, 39 found (96.2%)\n",
            wrong.display()
        )
    );
}

#[test]
fn check_can_skip_the_header() {
    let dir = tempfile::tempdir().unwrap();
    let student = dir.path().join("student.txt");
    let text = fs::read_to_string(root().join("fixtures/TTTgame.txt")).unwrap();
    fs::write(&student, text.replace("Dwight Barnette", "Ada Lovelace")).unwrap();
    let path = student.to_str().unwrap();
    assert_eq!(check(&["fixtures/TTTmoves.txt", path]).0, 1);
    assert_eq!(check(&["fixtures/TTTmoves.txt", path, "--skip-header"]).0, 0);
}

/// The seed's transcript with its programmer's line replaced by `line`.
fn with_programmer(dir: &Path, line: &str) -> PathBuf {
    let path = dir.join("student.txt");
    let text = fs::read_to_string(root().join("fixtures/TTTgame.txt")).unwrap();
    fs::write(&path, text.replace("Programmer: Dwight Barnette", line)).unwrap();
    path
}

#[test]
fn check_header_label_needs_only_the_labels() {
    let dir = tempfile::tempdir().unwrap();
    let student = with_programmer(dir.path(), "Programmer:  Ada Lovelace");
    let path = student.to_str().unwrap();
    assert_eq!(
        check(&["fixtures/TTTmoves.txt", path, "--header", "label"]),
        (
            0,
            format!(
                "{path}: matches the referee's transcript of fixtures/TTTmoves.txt: 40/40 lines, 40 found (100.0%)\n"
            )
        )
    );
    assert_eq!(check(&["fixtures/TTTmoves.txt", path, "--header", "exact"]).0, 1);
    // Without its label the line is a difference, at its own line number.
    let student = with_programmer(dir.path(), "Author: Ada Lovelace");
    let path = student.to_str().unwrap();
    assert_eq!(
        check(&["fixtures/TTTmoves.txt", path, "--header", "label"]),
        (
            1,
            format!(
                "{path}: differs from the referee's transcript of fixtures/TTTmoves.txt\n  expected line 1: Programmer: Dwight Barnette\n  found    line 1: Author: Ada Lovelace\nscore: 39/40 lines, 40 found (97.5%)\n\
                 ttt-referee: note: {path} differs only in its header (the programmer and project lines); `--header skip` leaves them out and passes it\n"
            )
        )
    );
}

#[test]
fn check_header_skip_and_its_alias_leave_the_header_out() {
    let dir = tempfile::tempdir().unwrap();
    let student = with_programmer(dir.path(), "Author: Ada Lovelace");
    let path = student.to_str().unwrap();
    let skipped = check(&["fixtures/TTTmoves.txt", path, "--header", "skip"]);
    assert_eq!(
        skipped,
        (
            0,
            format!(
                "{path}: matches the referee's transcript of fixtures/TTTmoves.txt: 38/38 lines, 38 found (100.0%)\n"
            )
        )
    );
    assert_eq!(check(&["fixtures/TTTmoves.txt", path, "--skip-header"]), skipped);
    // Line numbers stay the file's own.
    fs::write(&student, fs::read_to_string(&student).unwrap().replace("Winner: Cat", "Winner: X")).unwrap();
    let (code, out) = check(&["fixtures/TTTmoves.txt", path, "--skip-header"]);
    assert_eq!(code, 1);
    assert!(out.contains("  expected line 51: Winner: Cat\n  found    line 51: Winner: X\n"), "{out}");
}

#[test]
fn check_skip_header_conflicts_with_header() {
    let (code, out) =
        check(&["fixtures/TTTmoves.txt", "fixtures/TTTgame.txt", "--skip-header", "--header", "label"]);
    assert_eq!(code, 2);
    assert!(
        out.starts_with("error: the argument '--skip-header' cannot be used with '--header <MODE>'\n"),
        "{out}"
    );
    let (code, out) = check(&["fixtures/TTTmoves.txt", "fixtures/TTTgame.txt", "--header", "loose"]);
    assert_eq!(code, 2);
    assert!(out.starts_with("error: invalid value 'loose' for '--header <MODE>'\n"), "{out}");
}

#[test]
fn check_points_past_missing_blank_lines_to_the_missing_winner() {
    let dir = tempfile::tempdir().unwrap();
    let student = dir.path().join("student.txt");
    let text = fs::read_to_string(root().join("fixtures/TTTgame.txt")).unwrap();
    let kept: Vec<&str> = text.lines().filter(|l| !l.is_empty() && *l != "Winner: Cat").collect();
    fs::write(&student, kept.join("\n") + "\n").unwrap();
    let path = student.to_str().unwrap();
    assert_eq!(
        check(&["fixtures/TTTmoves.txt", path]),
        (
            1,
            format!(
                "{path}: differs from the referee's transcript of fixtures/TTTmoves.txt\n  expected line 51: Winner: Cat\n  found    (end of file)\nscore: 39/40 lines, 39 found (98.7%)\n"
            )
        )
    );
    // Only blank lines missing: the first of them is the difference.
    fs::write(&student, text.replacen("\n\n", "\n", 1)).unwrap();
    let (code, out) = check(&["fixtures/TTTmoves.txt", path]);
    assert_eq!(code, 1);
    assert!(
        out.contains("  expected line 3: (blank line)\n  found    line 3: Tic-Tac-Toe game: X: D Barnette O: D Allison\n"),
        "{out}"
    );
}

#[test]
fn check_shows_a_transcripts_control_characters_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let student = with_programmer(dir.path(), "Programmer: \u{1b}[2J\u{202e}Ada");
    let (code, out) = check(&["fixtures/TTTmoves.txt", student.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(out.contains("  found    line 1: Programmer: \\u{1b}[2J\\u{202e}Ada\n"), "{out}");
}

#[test]
fn check_error_paths_exit_2() {
    let (code, out) = check(&["fixtures/malformed/empty.txt", "fixtures/TTTgame.txt"]);
    assert_eq!(
        (code, out.as_str()),
        (
            2,
            "ttt-referee: fixtures/malformed/empty.txt:1: the file is empty; expected a title line, then a players line such as `X: Ann Lee O: Bo Chan`\n"
        )
    );
    let (code, out) = check(&["fixtures/TTTmoves.txt", "fixtures/no-such-transcript.txt"]);
    assert_eq!(
        (code, out.as_str()),
        (2, "ttt-referee: fixtures/no-such-transcript.txt: cannot open: No such file or directory\n")
    );
    let (code, out) = check(&["fixtures/TTTmoves.txt"]);
    assert_eq!(code, 2);
    assert!(out.contains("required arguments were not provided"), "{out}");
}

/// A moves directory and a transcripts directory: one match, one
/// difference, one missing transcript, one malformed move file.
fn graded_dirs() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let (moves, transcripts) = (dir.path().join("moves"), dir.path().join("transcripts"));
    fs::create_dir_all(&moves).unwrap();
    fs::create_dir_all(&transcripts).unwrap();
    for name in ["a-good", "b-wrong", "c-missing"] {
        fs::copy(root().join("fixtures/classic/x-wins-row.txt"), moves.join(format!("{name}.txt"))).unwrap();
    }
    fs::copy(root().join("fixtures/malformed/empty.txt"), moves.join("d-malformed.txt")).unwrap();
    let good = fs::read_to_string(root().join("fixtures/classic/x-wins-row.expected")).unwrap();
    fs::write(transcripts.join("a-good.txt"), &good).unwrap();
    fs::write(transcripts.join("b-wrong.txt"), good.replace("Winner: X", "Winner: O")).unwrap();
    dir
}

#[test]
fn check_a_directory_prints_one_row_per_file() {
    let dir = graded_dirs();
    let run = |format: &str| {
        let out = referee()
            .arg("check")
            .arg("--moves")
            .arg(dir.path().join("moves"))
            .arg("--transcripts")
            .arg(dir.path().join("transcripts"))
            .args(["--format", format])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "a malformed move file is an error");
        String::from_utf8(out.stdout).unwrap()
    };
    let expected = fs::read_to_string(root().join("fixtures/classic/x-wins-row.expected")).unwrap();
    // The last line's number, and the lines that are not blank (blank lines
    // are layout: not counted).
    let n = expected.lines().count();
    let said = expected.lines().filter(|l| !l.trim().is_empty()).count();
    let malformed = dir.path().join("moves/d-malformed.txt");
    assert_eq!(
        run("csv"),
        format!(
            "file,status,matched,expected,score,expected_line,found_line,error\n\
             a-good.txt,match,{said},{said},1.0000,,,\n\
             b-wrong.txt,differ,{},{said},{:.4},{n},{n},\n\
             c-missing.txt,missing,0,{said},0.0000,1,,\n\
             d-malformed.txt,error,,,,,,\"{}:1: the file is empty; expected a title line, then a players line such as `X: Ann Lee O: Bo Chan`\"\n",
            said - 1,
            f64::from(u32::try_from(said - 1).unwrap()) / f64::from(u32::try_from(said).unwrap()),
            malformed.display()
        )
    );
    let json: Value = serde_json::from_str(&run("json")).unwrap();
    let statuses: Vec<&str> =
        json.as_array().unwrap().iter().map(|r| r["status"].as_str().unwrap()).collect();
    assert_eq!(statuses, ["match", "differ", "missing", "error"]);
    assert_eq!(json[1]["first_difference"]["expected"], serde_json::json!([n, "Winner: X"]));
    let text = run("text");
    let row = |i: usize| text.lines().nth(i).unwrap().to_owned();
    assert!(row(2).starts_with("b-wrong.txt      differ"), "{text}");
    // The first difference in check.rs's one wording, as grade's details say it.
    assert!(row(2).ends_with(&format!("  expected line {n}, found line {n}")), "{text}");
    assert!(row(3).ends_with("  expected line 1, found (end of file)"), "{text}");
}

#[test]
fn check_csv_quotes_and_escapes_file_names() {
    let dir = tempfile::tempdir().unwrap();
    let (moves, transcripts) = (dir.path().join("moves"), dir.path().join("transcripts"));
    fs::create_dir_all(&moves).unwrap();
    fs::create_dir_all(&transcripts).unwrap();
    let name = "a, \"b\"\u{1b}.txt";
    fs::copy(root().join("fixtures/TTTmoves.txt"), moves.join(name)).unwrap();
    fs::copy(root().join("fixtures/TTTgame.txt"), transcripts.join(name)).unwrap();
    let out = referee()
        .arg("check")
        .arg("--moves")
        .arg(&moves)
        .arg("--transcripts")
        .arg(&transcripts)
        .args(["--format", "csv"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "file,status,matched,expected,score,expected_line,found_line,error\n\
         \"a, \"\"b\"\"\\u{1b}.txt\",match,40,40,1.0000,,,\n"
    );
}

fn corpus(seed: u64, count: u64, extra: &[&str]) -> (tempfile::TempDir, Vec<(String, Vec<u8>)>) {
    let dir = tempfile::tempdir().unwrap();
    referee()
        .args([
            "gen",
            "--seed",
            &seed.to_string(),
            "--count",
            &count.to_string(),
            "--with-transcripts",
            "--out-dir",
        ])
        .arg(dir.path())
        .args(extra)
        .assert()
        .success()
        .stdout("")
        // `gen` says what it wrote.
        .stderr(format!(
            "ttt-referee: wrote {count} move files and their transcripts (.expected) into {} ({})\n",
            dir.path().display(),
            if count == 1 {
                "game-0001.txt".to_owned()
            } else {
                format!("game-0001.txt to game-{count:04}.txt")
            }
        ));
    let mut files: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            (path.file_name().unwrap().to_string_lossy().into_owned(), fs::read(&path).unwrap())
        })
        .collect();
    files.sort();
    (dir, files)
}

#[test]
fn gen_is_deterministic_and_extends_smaller_corpora() {
    let (_a, first) = corpus(42, 20, &[]);
    let (_b, again) = corpus(42, 20, &[]);
    assert_eq!(first, again);
    let (_c, other) = corpus(43, 20, &[]);
    assert_ne!(first, other);
    let (_d, more) = corpus(42, 30, &[]);
    assert_eq!(&more[..40], &first[..]);
}

/// What a corpus covers: verdicts, endings, and whether the second player
/// ever moves first.
fn coverage(dir: &Path) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "txt") {
            continue;
        }
        let out = referee().arg(&path).args(["--format", "json"]).output().unwrap();
        assert!(out.status.success(), "{}", path.display());
        let game: Value = serde_json::from_slice(&out.stdout).unwrap();
        for m in game["moves"].as_array().unwrap() {
            seen.insert(m["verdict"].as_str().unwrap().to_owned());
        }
        seen.insert(format!("winner {}", game["winner"]));
        let first = game["moves"].as_array().unwrap().iter().find(|m| m["verdict"] == "ok");
        if let Some(first) = first {
            seen.insert(format!("first {}", first["label"]));
        }
    }
    seen
}

#[test]
fn any_corpus_of_twenty_covers_every_violation_and_ending() {
    for seed in [1, 2, 99, 12_345] {
        let (dir, _) = corpus(seed, 20, &[]);
        let seen = coverage(dir.path());
        for wanted in [
            "ok",
            "illegal player",
            "illegal square",
            "double move",
            "marked square",
            "winner \"X\"",
            "winner \"O\"",
            "winner \"Cat\"",
            "winner null",
            "first \"O\"",
            "first \"X\"",
        ] {
            assert!(seen.contains(wanted), "seed {seed}: no {wanted} in {seen:?}");
        }
    }
    let (dir, _) = corpus(5, 20, &["--board", "4x4", "--win", "3", "--players", "3"]);
    assert!(coverage(dir.path()).contains("out of turn"));
}

#[test]
fn gen_transcripts_are_the_referees() {
    let (dir, files) = corpus(8, 4, &["--board", "4x5", "--win", "3", "--style", "table"]);
    for (name, bytes) in files.iter().filter(|(n, _)| n.ends_with(".expected")) {
        let moves = dir.path().join(name.replace(".expected", ".txt"));
        let out = referee().arg(&moves).args(["--style", "table"]).output().unwrap();
        assert_eq!(&out.stdout, bytes, "{name}");
    }
}

#[test]
fn gen_within_cs1044_is_deterministic_and_keeps_to_plain_move_lines() {
    let within = ["--within", "cs1044"];
    let (_a, first) = corpus(42, 16, &within);
    let (_b, more) = corpus(42, 24, &within);
    assert_eq!(&more[..32], &first[..]);
    let (_c, hostile) = corpus(42, 16, &[]);
    assert_ne!(first, hostile);
    for (name, bytes) in first.iter().filter(|(n, _)| Path::new(n).extension().is_some_and(|e| e == "txt")) {
        let text = String::from_utf8(bytes.clone()).unwrap();
        for line in text.lines().skip(3) {
            let (label, square) = line.split_once('\t').unwrap();
            assert!(
                label.len() == 1 && square.parse::<i32>().is_ok_and(|n| n.to_string() == square),
                "{name}: {line:?}"
            );
        }
    }
    let (dir, _) = corpus(3, 8, &within);
    let seen = coverage(dir.path());
    for wanted in
        ["illegal player", "illegal square", "double move", "marked square", "winner \"Cat\"", "first \"O\""]
    {
        assert!(seen.contains(wanted), "no {wanted} in {seen:?}");
    }
    assert!(!seen.contains("winner null"), "{seen:?}");
}

#[test]
fn gen_within_cs1044_refuses_other_games() {
    let dir = tempfile::tempdir().unwrap();
    for extra in [&["--players", "3"][..], &["--board", "4x4"], &["--win", "2"]] {
        let out = referee()
            .args(["gen", "--within", "cs1044", "--out-dir"])
            .arg(dir.path())
            .args(extra)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
        assert_eq!(
            String::from_utf8(out.stderr).unwrap(),
            "ttt-referee: --within cs1044: CS 1044's guarantees are for the classic 3x3 board with two players, X and O; drop --board, --win and --players\n"
        );
    }
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    let out = referee()
        .args(["gen", "--within", "cs1044", "--profile", "uri", "--out-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr).unwrap().contains("cannot be used with"));
    // Two players on the classic board, said outright, are CS 1044's game.
    referee()
        .args(["gen", "--within", "cs1044", "--players", "2", "--board", "3x3", "--count", "1", "--out-dir"])
        .arg(dir.path())
        .assert()
        .success();
}

#[test]
fn gen_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let out = referee()
        .args(["gen", "--board", "3x3", "--win", "4", "--out-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr).unwrap().contains("is not a playable board"));
    let out = referee().args(["gen", "--players", "11", "--out-dir"]).arg(dir.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// The JSON document agrees with the text transcript: same rulings in the same
/// order, same move numbers, same winner.
fn agrees(json: &Value, text: &str) -> Result<(), String> {
    let moves = json["moves"].as_array().ok_or("no moves")?;
    let mut lines = text.lines().skip(5);
    for m in moves {
        let (label, square, verdict) =
            (m["label"].as_str().unwrap(), m["square"].as_str().unwrap(), m["verdict"].as_str().unwrap());
        let next = lines.by_ref().find(|l| {
            !l.is_empty() && (l.starts_with("Move ") || l.starts_with(&format!("{label} {square} ")))
        });
        let next = next.ok_or_else(|| format!("no line for {m}"))?;
        if verdict == "ok" {
            let n = m["move"].as_u64().ok_or("no move number")?;
            if !next.starts_with(&format!("Move {n}: {label} ")) {
                return Err(format!("{next} vs {m}"));
            }
        } else if next != format!("{label} {square} {verdict}") {
            return Err(format!("{next} vs {m}"));
        }
    }
    let winner = text.lines().last().unwrap().strip_prefix("Winner: ").unwrap();
    let json_winner = json["winner"].as_str().unwrap_or("None");
    if winner != json_winner {
        return Err(format!("winner {winner} vs {json_winner}"));
    }
    Ok(())
}

#[test]
fn json_parses_and_agrees_with_the_transcript_on_every_fixture() {
    let mut checked = 0;
    for dir in ["classic", "variants"] {
        for (moves, expected) in default_fixtures(dir) {
            let out = referee().arg(&moves).args(["--format", "json"]).output().unwrap();
            assert!(out.status.success(), "{}", moves.display());
            assert_eq!(out.stdout.split(|&b| b == b'\n').count(), 2, "one line, then a newline");
            let json: Value = serde_json::from_slice(&out.stdout).unwrap();
            let text = fs::read_to_string(&expected).unwrap();
            agrees(&json, &text).unwrap_or_else(|e| panic!("{}: {e}", moves.display()));
            assert!(text.contains(&format!("Tic-Tac-Toe game: {}", players_line(&json))));
            checked += 1;
        }
    }
    assert!(checked > 30, "{checked}");
}

fn players_line(json: &Value) -> String {
    json["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| format!("{}: {}", p["mark"].as_str().unwrap(), p["name"].as_str().unwrap()))
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn json_batch_outputs_are_named_json() {
    let out = tempfile::tempdir().unwrap();
    referee()
        .args(["fixtures/TTTmoves.txt", "--format", "json", "--out-dir"])
        .arg(out.path())
        .assert()
        .success();
    let json: Value = serde_json::from_slice(&fs::read(out.path().join("TTTmoves.json")).unwrap()).unwrap();
    assert_eq!(json["winner"], "Cat");
    assert_eq!(json["board"], serde_json::json!({"rows": 3, "cols": 3, "win": 3}));
}

#[test]
fn completions_and_man_page() {
    for shell in ["bash", "zsh", "fish", "powershell"] {
        let out = referee().args(["completions", shell]).output().unwrap();
        assert!(out.status.success(), "{shell}");
        let script = String::from_utf8(out.stdout).unwrap();
        assert!(script.contains("ttt-referee") && script.contains("out-dir"), "{shell}");
    }
    let out = referee().arg("manpage").output().unwrap();
    assert!(out.status.success());
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(page.starts_with(".ie") || page.starts_with(".TH"), "{}", &page[..40]);
    assert!(page.contains("ttt\\-referee\\-grade(1)"));
    assert!(!page.contains("ttt\\-referee\\-help(1)"), "names a page that does not exist");
}

/// What bash completes for `words`, the last being the word under the cursor,
/// with the script `completions bash` prints sourced; `None` without bash.
fn bash_completes(words: &[&str]) -> Option<Vec<String>> {
    if Command::new("bash").arg("-c").arg("true").output().is_err() {
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("ttt-referee.bash");
    let out = referee().args(["completions", "bash"]).output().unwrap();
    assert!(out.status.success());
    fs::write(&script, out.stdout).unwrap();
    // As bash calls it: the function `complete -p` names, with the command,
    // the current word and the one before it.
    let program = r#"
        source "$1" || exit 1
        shift
        COMP_WORDS=("$@")
        COMP_CWORD=$(( $# - 1 ))
        COMP_LINE="$*"
        COMP_POINT=${#COMP_LINE}
        spec=$(complete -p ttt-referee) || exit 1
        function=${spec##*-F }
        function=${function%% *}
        "$function" ttt-referee "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
        printf '%s\n' "${COMPREPLY[@]}"
    "#;
    let out = Command::new("bash")
        .arg("--norc")
        .arg("--noprofile")
        .arg("-c")
        .arg(program)
        .arg("bash")
        .arg(&script)
        .args(words)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    Some(String::from_utf8(out.stdout).unwrap().lines().map(str::to_owned).collect())
}

#[test]
fn bash_completes_a_subcommands_options() {
    let Some(replies) = bash_completes(&["ttt-referee", "grade", "--te"]) else {
        crate::util::skip("no bash on this machine to source the completion script in");
        return;
    };
    assert_eq!(replies, ["--tests"]);
    let replies = bash_completes(&["ttt-referee", "gen", "--with"]).unwrap();
    assert_eq!(replies, ["--with-transcripts", "--within"]);
    let replies = bash_completes(&["ttt-referee", "gen", "--within", ""]).unwrap();
    assert_eq!(replies, ["well-formed", "cs1044"]);
    let replies = bash_completes(&["ttt-referee", "grade", "--io", ""]).unwrap();
    assert_eq!(replies, ["files", "stdout", "args"]);
    let replies = bash_completes(&["ttt-referee", "gr"]).unwrap();
    assert_eq!(replies, ["grade"]);
}

/// A participant completes as an engine's name or a path, in each shell:
/// the first and every later one of `match` and `tournament`, and the
/// opponent of `grade --versus`.
#[test]
fn every_shell_completes_engines_beside_files() {
    let Some(replies) = bash_completes(&["ttt-referee", "match", ""]) else {
        crate::util::skip("no bash on this machine to source the completion script in");
        return;
    };
    for expected in ["perfect", "strong", "minimax", "rules", "random", "Cargo.toml", "src"] {
        assert!(replies.iter().any(|r| r == expected), "{expected}: {replies:?}");
    }
    assert_eq!(bash_completes(&["ttt-referee", "tournament", "perfect", "ra"]).unwrap(), ["random"]);
    assert_eq!(bash_completes(&["ttt-referee", "match", "--gam"]).unwrap(), ["--games"]);
    assert_eq!(bash_completes(&["ttt-referee", "grade", "--versus", "s"]).unwrap(), ["strong", "src"]);
    // play's players: a person, an engine, or a bot's directory.
    assert_eq!(bash_completes(&["ttt-referee", "play", "--x", "s"]).unwrap(), ["strong", "src"]);
    assert_eq!(bash_completes(&["ttt-referee", "play", "--o", "h"]).unwrap(), ["human"]);

    let Some(replies) = fish_completes("ttt-referee match ") else {
        crate::util::skip("no fish on this machine");
        return;
    };
    // The engines, and the files (the script, in the directory fish runs in).
    assert_eq!(replies, ["minimax", "perfect", "random", "rules", "strong", "ttt-referee.fish"]);
    assert_eq!(fish_completes("ttt-referee tournament minimax r").unwrap(), ["random", "rules"]);
    assert_eq!(
        fish_completes("ttt-referee grade --versus ").unwrap(),
        ["minimax", "rules", "strong", "ttt-referee.fish"]
    );
    // A list and nothing else: the shells, no file.
    assert_eq!(
        fish_completes("ttt-referee completions ").unwrap(),
        ["bash", "elvish", "fish", "powershell", "zsh"]
    );

    let Some(seen) = zsh_completes("ttt-referee match ", "strong") else {
        crate::util::skip("no zsh on this machine");
        return;
    };
    // The engines and the directories (`functions`, where the script is).
    for expected in ["perfect", "minimax", "rules", "random", "strong", "functions/"] {
        assert!(seen.contains(expected), "{expected}: {seen:?}");
    }
    // An option's value too: `--versus`'s engines, and `play --x`'s person.
    let seen = zsh_completes("ttt-referee grade --versus ", "strong").unwrap();
    for expected in ["minimax", "rules", "strong", "functions/"] {
        assert!(seen.contains(expected), "{expected}: {seen:?}");
    }
    assert!(!seen.contains("unmatched"), "{seen:?}");
    let seen = zsh_completes("ttt-referee play --x ", "human").unwrap();
    for expected in ["human", "perfect", "functions/"] {
        assert!(seen.contains(expected), "{expected}: {seen:?}");
    }
}

/// What fish completes for `line` (the cursor at its end), with the script
/// `completions fish` prints sourced; `None` without fish.
fn fish_completes(line: &str) -> Option<Vec<String>> {
    if Command::new("fish").arg("--version").output().is_err() {
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("ttt-referee.fish");
    let out = referee().args(["completions", "fish"]).output().unwrap();
    assert!(out.status.success());
    fs::write(&script, out.stdout).unwrap();
    // `complete -C` prints what fish would offer, one `value<TAB>help` a line.
    let out = Command::new("fish")
        .arg("--no-config")
        .arg("-c")
        .arg("source $argv[1]; and complete -C $argv[2]")
        .arg(&script)
        .arg(line)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    Some(text.lines().map(|l| l.split('\t').next().unwrap_or_default().to_owned()).collect())
}

#[test]
fn fish_completes_subcommands_options_and_every_value_list() {
    let Some(replies) = fish_completes("ttt-referee --style ") else {
        crate::util::skip("no fish on this machine");
        return;
    };
    assert_eq!(replies, ["classic", "grid", "table"]);
    assert_eq!(fish_completes("ttt-referee --format ").unwrap(), ["json", "text"]);
    assert_eq!(fish_completes("ttt-referee a.txt --sty").unwrap(), ["--style"]);
    // A person, an engine, or a bot's directory (the script, in the
    // directory fish runs in, is the file there).
    assert_eq!(
        fish_completes("ttt-referee play --x ").unwrap(),
        ["human", "minimax", "perfect", "random", "rules", "strong", "ttt-referee.fish"]
    );
    assert_eq!(
        fish_completes("ttt-referee play --o ").unwrap(),
        ["human", "minimax", "perfect", "random", "rules", "strong", "ttt-referee.fish"]
    );
    assert_eq!(fish_completes("ttt-referee grade --hea").unwrap(), ["--header"]);
    assert_eq!(fish_completes("ttt-referee gr").unwrap(), ["grade"]);
    assert_eq!(
        fish_completes("ttt-referee autograder gradescope --outp").unwrap(),
        ["--output", "--output-limit"]
    );
}

/// What zsh shows after `typed` and a TAB at an interactive prompt, with the
/// script `completions zsh` prints on its `$fpath`, once `expected` appears
/// (or after 10 seconds); `None` without zsh.
fn zsh_completes(typed: &str, expected: &str) -> Option<String> {
    use portable_pty::{CommandBuilder, PtySize, native_pty_system};
    use std::io::{Read, Write};
    use std::sync::mpsc;
    use std::time::{Duration, Instant};

    if Command::new("zsh").arg("--version").output().is_err() {
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let functions = dir.path().join("functions");
    fs::create_dir(&functions).unwrap();
    let out = referee().args(["completions", "zsh"]).output().unwrap();
    assert!(out.status.success());
    fs::write(functions.join("_ttt-referee"), out.stdout).unwrap();
    fs::write(
        dir.path().join(".zshrc"),
        format!(
            "fpath=({} $fpath)\nautoload -Uz compinit && compinit -u -D\nPS1='READY%% '\n",
            functions.display()
        ),
    )
    .unwrap();
    let pty = native_pty_system()
        .openpty(PtySize { rows: 40, cols: 200, pixel_width: 0, pixel_height: 0 })
        .expect("a pseudo-terminal");
    let mut command = CommandBuilder::new("zsh");
    command.arg("-i");
    command.cwd(dir.path());
    command.env("ZDOTDIR", dir.path());
    command.env("TERM", "dumb");
    let mut child = pty.slave.spawn_command(command).expect("zsh starts");
    drop(pty.slave);
    let mut reader = pty.master.try_clone_reader().expect("a reader");
    let (sender, received) = mpsc::channel();
    std::thread::spawn(move || {
        let mut buffer = [0; 4096];
        while let Ok(n @ 1..) = reader.read(&mut buffer) {
            if sender.send(buffer[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    let mut seen = String::new();
    let wait_for = |needle: &str, seen: &mut String| {
        let deadline = Instant::now() + Duration::from_secs(10);
        while !seen.contains(needle) && Instant::now() < deadline {
            if let Ok(bytes) = received.recv_timeout(Duration::from_millis(100)) {
                seen.push_str(&String::from_utf8_lossy(&bytes));
            }
        }
    };
    // Typed only once the prompt is up: zsh drops what comes before.
    wait_for("READY% ", &mut seen);
    let mut keyboard = pty.master.take_writer().expect("a writer");
    keyboard.write_all(format!("{typed}\t").as_bytes()).unwrap();
    keyboard.flush().unwrap();
    let prompt_at = seen.len();
    wait_for(expected, &mut seen);
    let _ = child.kill();
    let _ = child.wait();
    Some(seen[prompt_at..].to_owned())
}

#[test]
fn zsh_completes_subcommands_their_options_and_value_lists() {
    let Some(seen) = zsh_completes("ttt-referee grade --hea", "--header") else {
        crate::util::skip("no zsh on this machine");
        return;
    };
    assert!(seen.contains("ttt-referee grade --header="), "{seen:?}");
    let seen = zsh_completes("ttt-referee gr", "grade ").unwrap();
    assert!(seen.contains("ade "), "{seen:?}");
    let seen = zsh_completes("ttt-referee play --x ", "rules").unwrap();
    for player in ["human", "rules", "minimax", "perfect", "random"] {
        assert!(seen.contains(player), "{player}: {seen:?}");
    }
    let seen = zsh_completes("ttt-referee --style ", "table").unwrap();
    assert!(seen.contains("classic") && seen.contains("grid"), "{seen:?}");
    // After a move file, the top level's options.
    let seen = zsh_completes("ttt-referee a.txt --sty", "--style=").unwrap();
    assert!(seen.contains("ttt-referee a.txt --style="), "{seen:?}");
}

#[test]
fn manpage_dir_writes_a_page_for_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let pages = dir.path().join("man1");
    // `--dir`, the old spelling, still works.
    let written = referee().args(["manpage", "--dir"]).arg(&pages).output().unwrap();
    assert!(written.status.success() && written.stdout.is_empty());
    let mut names: Vec<String> =
        fs::read_dir(&pages).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    assert_eq!(
        String::from_utf8_lossy(&written.stderr),
        format!(
            "ttt-referee: wrote {} man pages into {} (ttt-referee.1, ...); `man ttt-referee` finds them once {} is on MANPATH (or write them into BIN/../share/man/man1 with BIN on PATH: --install)\n",
            names.len(),
            pages.display(),
            dir.path().display()
        )
    );
    names.sort();
    for name in ["ttt-referee.1", "ttt-referee-check.1", "ttt-referee-gen.1", "ttt-referee-grade.1"] {
        assert!(names.iter().any(|n| n == name), "{name} missing from {names:?}");
    }
    // Every page the top page names is there.
    let top = fs::read_to_string(pages.join("ttt-referee.1")).unwrap();
    for line in top.lines().filter(|l| l.starts_with("ttt\\-referee\\-") && l.ends_with("(1)")) {
        let name = format!("{}.1", line.trim_end_matches("(1)").replace("\\-", "-"));
        assert!(names.contains(&name), "the top page names {name}, not written: {names:?}");
    }
    // The same top page as `manpage` prints.
    let printed = referee().arg("manpage").output().unwrap().stdout;
    assert_eq!(top.as_bytes(), printed.as_slice());

    let grade = fs::read_to_string(pages.join("ttt-referee-grade.1")).unwrap().replace("\\-", "-");
    assert!(grade.starts_with(".ie") || grade.starts_with(".TH"), "{}", &grade[..40]);
    for needle in [
        ".TH ttt-referee-grade 1",
        "Verdicts: pass, wrong, no-output, time-limit, crashed, output-limit,",
        "Exit status: 0 when every test passed, 1 when any did not,",
        "130",
        "which protections are in force",
        "--require-sandbox",
        "--time",
        "--memory",
        "--output-limit",
    ] {
        assert!(grade.contains(needle), "grade's page lacks {needle:?}:\n{grade}");
    }
    // The SYNOPSIS is the usage `--help` shows, values and all.
    assert!(
        grade.contains(".SH SYNOPSIS\n\\fBttt-referee grade\\fR [OPTIONS] <SUBMISSION>...\n.SH "),
        "{grade}"
    );
}

/// `manpage --install` writes the pages beside the binary, in
/// `BIN/../share/man/man1`, and `man` finds them there with no MANPATH,
/// for `BIN` on `PATH` (man-db searches each `PATH` entry's
/// `../share/man`): as after `cargo install`, in `~/.cargo/bin`.
#[test]
fn manpage_install_puts_the_pages_where_man_finds_them_with_no_manpath() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join(".cargo/bin");
    fs::create_dir_all(&bin).unwrap();
    let exe = bin.join("ttt-referee");
    fs::copy(env!("CARGO_BIN_EXE_ttt-referee"), &exe).unwrap();
    let written = Command::new(&exe).args(["manpage", "--install"]).output().unwrap();
    let pages = dir.path().join(".cargo/share/man/man1");
    assert_eq!(
        String::from_utf8_lossy(&written.stderr),
        format!(
            "ttt-referee: wrote {} man pages into {} (ttt-referee.1, ...); `man ttt-referee` finds them while {} is on PATH\n",
            fs::read_dir(&pages).unwrap().count(),
            pages.display(),
            bin.display()
        )
    );
    let man_w = |name: &str| {
        Command::new("man")
            .args(["-w", name])
            .env_remove("MANPATH")
            .env("PATH", format!("{}:/usr/local/bin:/usr/bin:/bin", bin.display()))
            .env("HOME", dir.path())
            .output()
    };
    let Ok(found) = man_w("ttt-referee-grade") else {
        crate::util::skip("no man on this machine (apt-get install man-db)");
        return;
    };
    assert_eq!(
        String::from_utf8_lossy(&found.stdout).trim_end(),
        pages.join("ttt-referee-grade.1").display().to_string(),
        "{}",
        String::from_utf8_lossy(&found.stderr)
    );
    // Not on PATH, not found: it is PATH that finds them.
    let unfound = Command::new("man")
        .args(["-w", "ttt-referee-grade"])
        .env_remove("MANPATH")
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", dir.path())
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&unfound.stdout).contains(&*dir.path().to_string_lossy()));
}
