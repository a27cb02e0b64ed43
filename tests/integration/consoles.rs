//! The console profiles of `play`: what the golden sessions in
//! `fixtures/play/` do not show on their own (records, files, refusals).

use std::fs;
use std::path::Path;

use crate::util::referee;

/// Runs `play` with `args` and `stdin`, expecting success; the console's text.
fn play(args: &[&str], stdin: &str) -> String {
    let out = referee().arg("play").args(args).write_stdin(stdin.to_owned()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// The referee's transcript of `moves`, which must referee cleanly.
fn referee_file(moves: &Path) -> String {
    let out = referee().arg(moves).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_xtreme_console_shows_engine_moves_as_typed_and_records_them() {
    let dir = tempfile::tempdir().unwrap();
    let (record, transcript) = (dir.path().join("game.txt"), dir.path().join("game.out"));
    let out = referee()
        .args(["play", "--profile", "xtreme", "--x", "rules", "--o", "perfect", "--seed", "4", "--record"])
        .arg(&record)
        .arg("-o")
        .arg(&transcript)
        .write_stdin("4\n")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let console = String::from_utf8(out.stdout).unwrap();
    assert!(console.starts_with("Game Board Size:  | | | \n-+-+-+-\n"), "{console}");
    assert!(console.contains("Move Counter: 0\nX's move (x, y): "), "{console}");
    assert!(console.ends_with(" moves.\n") || console.ends_with("Cat's game; no one wins.\n"), "{console}");
    let recorded = std::fs::read_to_string(&record).unwrap();
    assert!(recorded.contains("\nBoard: 4x4, 4 in a row\n"), "{recorded}");
    let again = referee().arg(&record).output().unwrap();
    assert_eq!(again.stdout, std::fs::read(&transcript).unwrap());
}

#[test]
fn the_extended_console_records_each_game_and_its_transcript() {
    let dir = tempfile::tempdir().unwrap();
    let (record, transcript) = (dir.path().join("game.txt"), dir.path().join("game.out"));
    let (record_arg, transcript_arg) = (record.to_str().unwrap(), transcript.to_str().unwrap());
    // Game 1: three people on 3x4, 3 in a row, sparse; A takes the top row.
    // Game 2: two people on 3x3, dense; a draw.
    let script = "3\nA\nB\nC\n3\n4\n3\nm\n0 0\n1 0\n2 0\n0 1\n1 1\n2 1\n0 2\ny\n\
                  2\nX\nO\n3\n3\n3\nf\n0 0\n1 1\n0 1\n0 2\n2 0\n1 0\n1 2\n2 1\n2 2\nn\n";
    let console = play(&["--profile", "extended", "--record", record_arg, "-o", transcript_arg], script);
    assert_eq!(console.matches("Would you like to play again? Y/N\n").count(), 2, "{console}");
    assert!(console.contains("Player A wins!\n"), "{console}");
    assert!(
        console.ends_with(
            "It's a draw!\n    0| 1| 2|\n 0|X |X |O |\n 1|O |O |X |\n 2|X |O |X |\n\n\
                               Would you like to play again? Y/N\n"
        ),
        "{console}"
    );

    let first = fs::read_to_string(&record).unwrap();
    assert_eq!(
        first,
        "Tic-Tac-Toe Game Data\nA: Human Player B: Human Player C: Human Player\nBoard: 3x4, 3 in a row\n\n\
         A\t1\nB\t5\nC\t9\nA\t2\nB\t6\nC\t10\nA\t3\n"
    );
    assert_eq!(referee_file(&record), fs::read_to_string(&transcript).unwrap());
    assert!(fs::read_to_string(&transcript).unwrap().ends_with("Winner: A\n"));

    let second = dir.path().join("game-2.txt");
    assert!(
        fs::read_to_string(&second)
            .unwrap()
            .starts_with("Tic-Tac-Toe Game Data\nX: Human Player O: Human Player\n\n")
    );
    let second_transcript = fs::read_to_string(dir.path().join("game-2.out")).unwrap();
    assert_eq!(referee_file(&second), second_transcript);
    assert!(second_transcript.ends_with("Winner: Cat\n"), "{second_transcript}");
}

#[test]
fn the_extended_console_shows_computer_players_answers() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("game.txt");
    // Player 1 is the rules engine; player 2, a person, always takes the
    // first free square of the bottom row and then of the middle one.
    let script = "2\nR\nP\n3\n3\n3\nf\n2 0\n2 1\n2 2\n1 0\n1 1\n1 2\n0 0\n0 1\n0 2\nn\n";
    let console = play(
        &["--profile", "extended", "--x", "rules", "--seed", "5", "--record", record.to_str().unwrap()],
        script,
    );
    // The engine's first answer is the centre, printed under each prompt.
    assert!(
        console.contains("Player R Please enter your ROW\n1\nPlayer R Please enter your COLUMN\n1\n"),
        "{console}"
    );
    let moves = fs::read_to_string(&record).unwrap();
    assert!(moves.starts_with("Tic-Tac-Toe Game Data\nR: Rules Engine P: Human Player\n\nR\t5\n"), "{moves}");
    let transcript = referee_file(&record);
    assert!(!transcript.contains("illegal") && !transcript.contains("marked square"), "{transcript}");
}

#[test]
fn the_uri_console_records_the_ai_game() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("game.txt");
    // The starter's AI answers 1 with 9, blocks 2, then cannot stop both 4
    // and 5 and takes the first free square.
    let console = play(&["--profile", "uri", "--record", record.to_str().unwrap()], "1\n3\n7\n5\n");
    assert!(console.ends_with("Player 1 wins!\n"), "{console}");
    assert_eq!(
        fs::read_to_string(&record).unwrap(),
        "Tic-Tac-Toe Game Data\nX: Human Player O: Minimax Engine\n\nX\t1\nO\t9\nX\t3\nO\t2\nX\t7\nO\t4\nX\t5\n"
    );
    assert!(referee_file(&record).ends_with("Winner: X\n"));
}

#[test]
fn profiles_refuse_a_board_from_the_command_line() {
    for profile in ["xtreme", "extended", "uri", "smalltalk"] {
        let out = referee().args(["play", "--profile", profile, "--board", "4x4"]).output().unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(
            String::from_utf8(out.stderr).unwrap(),
            "ttt-referee: --board and --win do not apply to a profile that asks for the board itself; leave them out\n"
        );
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn a_computer_player_that_cannot_play_the_game_set_up_is_refused_before_the_first_move() {
    let out = referee()
        .args(["play", "--profile", "extended", "--x", "perfect"])
        .write_stdin("3\nA\nB\nC\n3\n3\n3\nf\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "ttt-referee: the perfect engine plays two-player games only\n"
    );
    let console = String::from_utf8(out.stdout).unwrap();
    assert!(
        console.ends_with("Would you like a Fast Game (F/f) or a Memory Efficient Game (M/m)?\n"),
        "{console}"
    );
}

#[test]
fn every_profile_that_can_set_up_a_game_its_engine_cannot_play_says_so_before_the_first_move() {
    // O is `perfect` by default, which plays boards of up to 64 squares. (uri
    // and smalltalk play the classic board with two players: every engine
    // can.) The board is not shown, no one is asked for a move.
    let too_big = "ttt-referee: the perfect engine plays boards of up to 64 squares; this one has 81\n";
    for (args, stdin, console) in [
        (&["--board", "9x9", "--win", "5"][..], "5\n", ""),
        (&["--profile", "xtreme"][..], "9\n0, 0\n", "Game Board Size: "),
    ] {
        let out = referee().arg("play").args(args).write_stdin(stdin).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(String::from_utf8(out.stderr).unwrap(), too_big, "{args:?}");
        assert_eq!(String::from_utf8(out.stdout).unwrap(), console, "{args:?}");
    }
}

#[test]
fn an_unreadable_console_is_an_error_that_says_so() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ttt-referee"))
        .args(["play", "--profile", "uri"])
        .stdin(fs::File::open("/").unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8(out.stderr).unwrap(), "ttt-referee: <stdin>: cannot read: Is a directory\n");
}

#[test]
fn the_smalltalk_console_records_the_game_and_its_transcript() {
    let dir = tempfile::tempdir().unwrap();
    let (record, transcript) = (dir.path().join("game.txt"), dir.path().join("game.out"));
    let console = play(
        &[
            "--profile",
            "smalltalk",
            "--seed",
            "1",
            "--record",
            record.to_str().unwrap(),
            "-o",
            transcript.to_str().unwrap(),
        ],
        "human\ncomputer\n5\n1\n9\n+3\n7\n4\n6\n2\n8\n",
    );
    let moves = fs::read_to_string(&record).unwrap();
    assert!(moves.starts_with("Tic-Tac-Toe Game Data\nX: Human Player O: Rules Engine\n\nX\t5\n"), "{moves}");
    // The recorded game referees to the transcript written, and to the
    // ending the console announced.
    let refereed = referee_file(&record);
    assert_eq!(fs::read_to_string(&transcript).unwrap(), refereed);
    let ending = console.lines().last().unwrap();
    let winner = refereed.lines().last().unwrap();
    match ending {
        "It's a tie!" => assert_eq!(winner, "Winner: Cat"),
        _ => assert_eq!(format!("Player {} wins!", &winner["Winner: ".len()..]), ending),
    }
}

#[test]
fn smalltalk_refuses_players_from_the_command_line() {
    for side in ["--x", "--o"] {
        let out = referee().args(["play", "--profile", "smalltalk", side, "rules"]).output().unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(
            String::from_utf8(out.stderr).unwrap(),
            "ttt-referee: --x and --o do not apply to a profile that asks who plays each side; leave them out\n"
        );
        assert!(out.stdout.is_empty());
    }
}
