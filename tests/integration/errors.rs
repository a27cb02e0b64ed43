//! Every error path of the command line: its message, its exit status, and
//! that it writes no output.

use std::fs;

use crate::util::{fixture, referee};

/// Runs with `args`, expects exit 2 and nothing on standard output, and
/// returns standard error.
fn fails(args: &[&str]) -> String {
    let out = referee().args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stdout.is_empty(), "{args:?} wrote to standard output");
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn a_missing_input_names_the_file() {
    assert_eq!(
        fails(&["fixtures/no-such-file.txt"]),
        "ttt-referee: fixtures/no-such-file.txt: cannot open: No such file or directory\n"
    );
}

#[test]
fn a_directory_is_not_a_move_file() {
    assert_eq!(
        fails(&["fixtures"]),
        "ttt-referee: fixtures: is a directory; expected a move file (or use --out-dir to referee every file in it)\n"
    );
}

#[test]
fn writing_onto_the_input_is_refused_and_the_input_kept() {
    let dir = tempfile::tempdir().unwrap();
    let moves = dir.path().join("moves.txt");
    let original = fs::read(fixture("TTTmoves.txt")).unwrap();
    fs::write(&moves, &original).unwrap();
    let link = dir.path().join("link.txt");
    fs::hard_link(&moves, &link).unwrap();

    for target in [&moves, &link] {
        let err = fails(&[moves.to_str().unwrap(), "-o", target.to_str().unwrap()]);
        assert_eq!(
            err,
            format!(
                "ttt-referee: {}: is the input file; refusing to overwrite it (choose another output)\n",
                target.display()
            )
        );
        assert_eq!(fs::read(&moves).unwrap(), original);
    }
}

/// A directory named as the output, `.` too, is said to be one before
/// anything is refereed.
#[test]
fn an_output_that_is_a_directory_is_an_error() {
    for dir in [".", "fixtures"] {
        let err = fails(&["fixtures/TTTmoves.txt", "-o", dir]);
        assert_eq!(err, format!("ttt-referee: {dir}: cannot write: is a directory\n"));
    }
}

/// A move file that is not there, a letter from one that is, is named.
#[test]
fn a_mistyped_move_file_is_told_the_name_it_is_near() {
    let err = fails(&["fixtures/TTTmove.txt", "-o", "target/never-written.txt"]);
    assert_eq!(err, "ttt-referee: fixtures/TTTmove.txt: no such file; did you mean fixtures/TTTmoves.txt?\n");
    assert!(!std::path::Path::new("target/never-written.txt").exists());
    let err = fails(&["fixtures/nothing-like-it.txt"]);
    assert_eq!(err, "ttt-referee: fixtures/nothing-like-it.txt: cannot open: No such file or directory\n");
}

#[test]
fn an_output_in_a_missing_directory_is_an_error() {
    let err = fails(&["fixtures/TTTmoves.txt", "-o", "no/such/dir/out.txt"]);
    assert_eq!(err, "ttt-referee: no/such/dir/out.txt: cannot write: No such file or directory\n");
}

#[test]
fn usage_errors_exit_2_with_usage() {
    // Bare, the program lists its commands.
    let bare = fails(&[]);
    assert!(bare.contains("Usage: ttt-referee") && bare.contains("Commands:"), "{bare}");
    assert!(bare.contains("  grade ") && bare.contains("  tournament "), "{bare}");
    assert!(fails(&["fixtures/TTTmoves.txt", "--frobnicate"]).contains("unexpected argument '--frobnicate'"));
    assert!(fails(&["fixtures/TTTmoves.txt", "--style", "fancy"]).contains("invalid value 'fancy'"));
    assert!(
        fails(&["fixtures/TTTmoves.txt", "--programmer", "two\nlines"]).contains("must be a single line")
    );
}

#[test]
fn a_malformed_standard_input_is_named_stdin() {
    let out = referee().arg("-").write_stdin("title\nX: a O:\n").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "ttt-referee: <stdin>:2: player `O` has no name; expected a name after `O:`\n"
    );
    assert!(out.stdout.is_empty(), "a malformed file must not reach standard output");
}

#[test]
fn a_malformed_line_deep_in_a_long_file_leaves_standard_output_empty() {
    // Far more transcript than a pipe buffer holds comes before the error.
    let mut moves = String::from("t\nX: a O: b\n\n");
    moves.push_str(&"Y 5\n".repeat(50_000));
    moves.push_str("not a move line\n");
    let out = referee().arg("-").write_stdin(moves).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .starts_with("ttt-referee: <stdin>:50004: `not a move line` has 4 fields")
    );
}

#[test]
fn a_line_over_a_mebibyte_is_malformed_not_a_crash() {
    let mut moves = String::from("t\nX: a O: b\n\nX ");
    moves.push_str(&"9".repeat(2 << 20));
    let out = referee().arg("-").write_stdin(moves).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "ttt-referee: <stdin>:4: the line is longer than 1048576 bytes; expected a short move line\n"
    );
}

#[test]
fn help_shows_an_example_and_the_exit_codes() {
    let out = referee().arg("--help").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    insta::assert_snapshot!("help", String::from_utf8(out.stdout).unwrap());
}

#[test]
fn version_prints_the_crate_version() {
    referee()
        .arg("--version")
        .assert()
        .success()
        .stdout(format!("ttt-referee {}\n", env!("CARGO_PKG_VERSION")));
}

#[test]
fn manpage_dir_onto_a_file_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("man1");
    fs::write(&file, "a file").unwrap();
    let path = file.to_str().unwrap();
    assert_eq!(
        fails(&["manpage", "--out-dir", path]),
        format!("ttt-referee: {path}: cannot write: File exists\n")
    );
    assert_eq!(fs::read_to_string(&file).unwrap(), "a file");
}

/// `gen` writes each file whole: one it cannot put in place is an error
/// naming it, and nothing half-written or staged is left beside the others.
#[test]
fn gen_that_cannot_write_a_file_says_which_and_leaves_no_partial_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("game-0002.txt")).unwrap();
    let out =
        referee().args(["gen", "--count", "3", "--force", "--out-dir"]).arg(dir.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("game-0002.txt: cannot write:"), "{stderr}");
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["game-0001.txt", "game-0002.txt"]);
}

#[test]
fn standard_input_cannot_join_a_batch() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        fails(&["-", "--out-dir", dir.path().to_str().unwrap()]),
        "ttt-referee: standard input (`-`) cannot be refereed with --out-dir\n"
    );
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn hint_on_a_won_game_names_the_file_and_the_winner() {
    assert_eq!(
        fails(&["hint", "fixtures/classic/o-wins-row.txt"]),
        "ttt-referee: fixtures/classic/o-wins-row.txt: the game is over (Winner: O); there is no move to hint\n"
    );
}

#[test]
fn grade_names_a_visibility_pattern_that_is_not_one() {
    // The scoring is read first: neither the tests nor the submission is looked at.
    assert_eq!(
        fails(&["grade", "--tests", "fixtures/no-such-dir", "--hidden", "a[", "no-such-student"]),
        "ttt-referee: `a[` is not a name pattern: error parsing glob 'a[': unclosed character class; missing ']'\n"
    );
}

#[test]
fn grade_names_a_languages_file_it_cannot_read() {
    let dir = tempfile::tempdir().unwrap();
    let (tests, student) = (dir.path().join("tests"), dir.path().join("ann"));
    fs::create_dir(&tests).unwrap();
    fs::create_dir(&student).unwrap();
    fs::copy(fixture("TTTmoves.txt"), tests.join("t1.txt")).unwrap();
    let config = dir.path().join("missing.toml");
    let (tests, config, student) =
        (tests.to_str().unwrap(), config.to_str().unwrap(), student.to_str().unwrap());
    assert_eq!(
        fails(&["grade", "--tests", tests, "--config", config, student]),
        format!("ttt-referee: {config}: cannot read: No such file or directory\n")
    );
}

/// An --out-dir that is the inputs' own directory would overwrite each input
/// with its transcript: each is refused by name, and kept.
#[test]
fn a_batch_into_its_own_directory_refuses_to_overwrite_its_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let moves = dir.path().join("moves.txt");
    fs::copy(fixture("TTTmoves.txt"), &moves).unwrap();
    let missing = dir.path().join("missing.txt");
    let err = fails(&[
        moves.to_str().unwrap(),
        missing.to_str().unwrap(),
        "--out-dir",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(
        err,
        format!(
            "ttt-referee: {}: is the input file; refusing to overwrite it (choose another output)\n\
             ttt-referee: {}: cannot open: No such file or directory\n\
             ttt-referee: 2 files: 0 won by X, 0 won by O, 0 Cat, 0 unfinished, 2 failed\n",
            moves.display(),
            missing.display()
        )
    );
    assert_eq!(fs::read(&moves).unwrap(), fs::read(fixture("TTTmoves.txt")).unwrap());
}

#[test]
fn a_mistyped_command_is_answered_with_the_right_one() {
    assert_eq!(
        fails(&["chek", "a", "b"]),
        "ttt-referee: chek: neither a move file nor a command; did you mean `ttt-referee check`?\n"
    );
    assert_eq!(
        fails(&["grdae"]),
        "ttt-referee: grdae: neither a move file nor a command; did you mean `ttt-referee grade`?\n"
    );
    assert_eq!(
        fails(&["comp"]),
        "ttt-referee: comp: neither a move file nor a command; did you mean `ttt-referee completions`?\n"
    );
    // Options after the typo, which only the command takes, do not hide it.
    assert_eq!(
        fails(&["grde", "--tests", "fixtures/class/tests", "students/"]),
        "ttt-referee: grde: neither a move file nor a command; did you mean `ttt-referee grade`?\n"
    );
    // A word near no command is a missing move file.
    assert_eq!(fails(&["zebra"]), "ttt-referee: zebra: cannot open: No such file or directory\n");
}

#[test]
fn grade_names_a_submission_that_does_not_exist() {
    assert_eq!(
        fails(&["grade", "--tests", "fixtures/class/tests", "nosuch/"]),
        "ttt-referee: nosuch/: cannot open: No such file or directory; expected a submission directory (one per student)\n"
    );
}

#[test]
fn check_names_a_directory_that_is_not_one() {
    let corpus = tempfile::tempdir().unwrap();
    let made = referee().args(["gen", "--count", "3", "--out-dir"]).arg(corpus.path()).output().unwrap();
    assert!(made.status.success());
    let moves = corpus.path().to_str().unwrap();
    assert_eq!(
        fails(&["check", "--moves", moves, "--transcripts", "typo/"]),
        "ttt-referee: typo/: cannot open: No such file or directory; expected the directory of transcripts (--transcripts DIR)\n"
    );
    assert_eq!(
        fails(&["check", "--moves", "fixtures/TTTmoves.txt", "--transcripts", moves]),
        "ttt-referee: fixtures/TTTmoves.txt: not a directory; expected the directory of move files (--moves DIR)\n"
    );
}

/// A tip for a mistyped `--output`/`--out` never leads to a command that
/// does something else: taken, it is refused, or it writes the file named.
/// (`--output-name` was such a tip: an autograder built on it passed the
/// zip's name as the student's answer file, and failed every student.)
#[test]
fn taking_a_tip_for_a_mistyped_output_never_does_something_else() {
    let dir = tempfile::tempdir().unwrap();
    let tests = crate::util::root().join("fixtures/class/tests");
    let tests = tests.to_str().unwrap();
    let commands: &[&[&str]] = &[
        &[],
        &["check"],
        &["gen"],
        &["hint"],
        &["grade", "--tests", tests],
        &["autograder", "gradescope", "--tests", tests],
        &["autograder", "github", "--tests", tests],
        &["manpage"],
    ];
    let run = |args: &[&str]| referee().current_dir(dir.path()).args(args).output().unwrap();
    for command in commands {
        for typed in ["--output-name", "--outptu", "--out", "--outfile", "--output-file", "--output"] {
            let args: Vec<&str> = command.iter().copied().chain([typed, "x.zip"]).collect();
            let stderr = String::from_utf8(run(&args).stderr).unwrap();
            let Some(tip) =
                stderr.lines().find_map(|l| l.strip_prefix("  tip: a similar argument exists: '"))
            else {
                continue;
            };
            let tip = tip.trim_end_matches('\'');
            let taken: Vec<&str> = command.iter().copied().chain([tip, "x.zip"]).collect();
            let out = run(&taken);
            let wrote = dir.path().join("x.zip").exists();
            assert!(out.status.code() == Some(2) || wrote, "{args:?} -> {taken:?} did something else");
            let _ = fs::remove_file(dir.path().join("x.zip"))
                .or_else(|_| fs::remove_dir_all(dir.path().join("x.zip")));
        }
    }
    let out = referee().args(["grade", "--output-name", "autograder.zip"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("unexpected argument '--output-name'"), "{stderr}");
    assert!(!stderr.contains("--transcript-file"), "{stderr}");
}

#[test]
fn check_says_when_only_the_header_keeps_a_transcript_from_passing() {
    let dir = tempfile::tempdir().unwrap();
    let expected = fs::read_to_string(fixture("TTTgame.txt")).unwrap();
    let renamed = expected.replacen("Programmer: Dwight Barnette", "Programmer: Ann Lee", 1);
    assert_ne!(renamed, expected);
    let transcript = dir.path().join("ann.txt");
    fs::write(&transcript, &renamed).unwrap();
    let out = referee().args(["check", "fixtures/TTTmoves.txt"]).arg(&transcript).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "ttt-referee: note: {} differs only in its header (the programmer and project lines); \
             `--header label` checks only their labels (`Programmer:`), as grade does by default, and passes it\n",
            transcript.display()
        )
    );
    let passed =
        referee().args(["check", "--header", "label", "fixtures/TTTmoves.txt"]).arg(&transcript).output();
    assert_eq!(passed.unwrap().status.code(), Some(0));

    // Without even the label, only --header skip passes it; in a directory
    // check the note counts the files, below the table.
    let moves = dir.path().join("moves");
    let transcripts = dir.path().join("transcripts");
    fs::create_dir_all(&moves).unwrap();
    fs::create_dir_all(&transcripts).unwrap();
    fs::copy(fixture("TTTmoves.txt"), moves.join("a.txt")).unwrap();
    fs::copy(fixture("TTTmoves.txt"), moves.join("b.txt")).unwrap();
    fs::write(transcripts.join("a.txt"), expected.replacen("Programmer: Dwight Barnette", "By Ann", 1))
        .unwrap();
    fs::write(transcripts.join("b.txt"), &expected).unwrap();
    let out = referee()
        .args(["check", "--format", "csv", "--moves"])
        .arg(&moves)
        .arg("--transcripts")
        .arg(&transcripts)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("file,status,"));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "ttt-referee: note: 1 file differs only in the header (the programmer and project lines); \
         `--header skip` leaves them out and passes it\n"
    );
}

#[test]
fn grade_h_is_short_and_grouped_and_help_is_long() {
    let short = referee().args(["grade", "-h"]).output().unwrap();
    let long = referee().args(["grade", "--help"]).output().unwrap();
    assert!(short.status.success() && long.status.success());
    let (short, long) = (String::from_utf8(short.stdout).unwrap(), String::from_utf8(long.stdout).unwrap());
    for heading in ["Limits and sandbox:", "Reports:", "Judging answers:", "Building and running:"] {
        assert!(short.contains(heading) && long.contains(heading), "{heading}\n{short}");
    }
    assert!(short.contains("--help says more"), "{short}");
    assert!(
        short.lines().count() * 2 < long.lines().count(),
        "-h {} lines, --help {}",
        short.lines().count(),
        long.lines().count()
    );
}
