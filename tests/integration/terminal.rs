//! What a person sees at a terminal: the binary run under a pseudo-terminal
//! (stdin, stdout and stderr all the terminal), everything it draws captured.
//! The piped side of each promise is tested where the command is.

use std::io::{Read, Write};
use std::path::Path;

use portable_pty::{CommandBuilder, PtySize, native_pty_system};

use crate::util::root;

/// Runs the binary with `args` under a pseudo-terminal of 120 columns, from
/// `dir`; returns its exit code and every byte it wrote to the terminal.
fn at_terminal(args: &[&str], dir: &Path) -> (u32, String) {
    typing_at_terminal(args, dir, "")
}

/// As [`at_terminal`], with `typed` typed at the terminal as the program
/// starts (the terminal echoes it, so it is among the bytes returned).
fn typing_at_terminal(args: &[&str], dir: &Path, typed: &str) -> (u32, String) {
    let pty = native_pty_system()
        .openpty(PtySize { rows: 40, cols: 120, pixel_width: 0, pixel_height: 0 })
        .expect("a pseudo-terminal");
    let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_ttt-referee"));
    command.args(args);
    command.cwd(dir);
    let mut child = pty.slave.spawn_command(command).expect("the binary starts");
    drop(pty.slave);
    let mut keyboard = pty.master.take_writer().expect("a writer");
    keyboard.write_all(typed.as_bytes()).expect("typing");
    keyboard.flush().expect("typing");
    let mut reader = pty.master.try_clone_reader().expect("a reader");
    let mut seen = Vec::new();
    let mut buffer = [0; 4096];
    // The terminal reports an error (EIO) rather than end of file once the
    // program has exited and closed its side: either ends the reading.
    while let Ok(n @ 1..) = reader.read(&mut buffer) {
        seen.extend_from_slice(&buffer[..n]);
    }
    let status = child.wait().expect("the binary ends");
    (status.exit_code(), String::from_utf8_lossy(&seen).into_owned())
}

#[test]
fn a_batch_shows_its_progress_bar_on_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let moves = dir.path().join("moves");
    let made = crate::util::referee()
        .args(["gen", "--count", "3000", "--seed", "5", "--out-dir"])
        .arg(&moves)
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let (code, seen) = at_terminal(&["moves", "--out-dir", "out"], dir.path());
    assert_eq!(code, 0, "{seen}");
    assert!(seen.contains("/3000 files"), "no progress bar drawn:\n{seen:?}");
    assert!(seen.contains("ttt-referee: 3000 files: "), "no summary:\n{seen:?}");
    assert_eq!(std::fs::read_dir(dir.path().join("out")).unwrap().count(), 3000);
}

#[test]
fn a_long_search_shows_a_spinner_on_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    // 8 × 8, five in a row: not proven in 1.6 s (6 × 6 now is at once, and
    // 7 × 7 after X 25 in about 2 s).
    std::fs::write(dir.path().join("big.txt"), "Game\nX: a O: b\nBoard: 8x8, 5 in a row\n\nX 28\n").unwrap();
    let (code, seen) = at_terminal(&["hint", "--time", "1.6", "big.txt"], dir.path());
    assert_eq!(code, 0, "{seen}");
    assert!(seen.contains("thinking: ") && seen.contains(" moves ahead, "), "no spinner:\n{seen:?}");
    assert!(seen.contains(" positions/s"), "no rate:\n{seen:?}");
    assert!(seen.contains(" unknown\r\n"), "no answer:\n{seen:?}");
}

#[test]
fn a_short_search_shows_no_spinner() {
    let (code, seen) = at_terminal(&["hint", "fixtures/classic/no-moves.txt"], root());
    assert_eq!((code, seen.as_str()), (0, "1 draw\r\n"));
}

#[test]
fn smalltalk_clears_the_screen_before_each_board_on_a_terminal_only() {
    let clear = ttt_referee::play::smalltalk::CLEAR_SCREEN;
    let args = ["play", "--profile", "smalltalk", "--seed", "3"];
    let (code, seen) = typing_at_terminal(&args, root(), "computer\ncomputer\n");
    assert_eq!(code, 0, "{seen:?}");
    // The empty board, then one board per move: nine moves in this game.
    assert_eq!(seen.matches(clear).count(), 10, "{seen:?}");
    assert!(seen.ends_with("It's a tie!\r\n"), "{seen:?}");
    let piped = crate::util::referee().args(args).write_stdin("computer\ncomputer\n").output().unwrap();
    let piped = String::from_utf8(piped.stdout).unwrap();
    assert!(piped.ends_with("It's a tie!\n") && !piped.contains('\x1b'), "{piped:?}");
}

#[test]
fn grading_shows_its_progress_bar_then_the_table_on_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let made = crate::util::referee()
        .args(["gen", "--count", "3", "--seed", "5", "--out-dir"])
        .arg(dir.path().join("tests"))
        .output()
        .unwrap();
    assert!(made.status.success());
    std::fs::create_dir(dir.path().join("slow")).unwrap();
    let (code, seen) =
        at_terminal(&["grade", "--tests", "tests", "--run", "sleep 0.3", "--jobs", "1", "slow"], dir.path());
    assert_eq!(code, 1, "{seen}");
    assert!(seen.contains("/3 tests"), "no progress bar drawn:\n{seen:?}");
    // The table's last line can be lost in the pty's hang-up at exit;
    // its contents are checked piped (sandbox.rs).
    assert!(
        seen.contains("submission  language   score  tests  pass  wrong  no-output"),
        "no table:\n{seen:?}"
    );
}

#[test]
fn gen_shows_its_progress_bar_on_a_terminal_and_says_what_it_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let (code, seen) =
        at_terminal(&["gen", "--count", "3000", "--seed", "5", "--out-dir", "corpus"], dir.path());
    assert_eq!(code, 0, "{seen}");
    assert!(seen.contains("/3000 files"), "no progress bar drawn:\n{seen:?}");
    assert!(
        seen.contains("ttt-referee: wrote 3000 move files into corpus (game-0001.txt to game-3000.txt)"),
        "{seen:?}"
    );
    // Piped, the same words and no bar.
    let piped = crate::util::referee()
        .args(["gen", "--count", "3000", "--seed", "5", "--out-dir"])
        .arg(dir.path().join("piped"))
        .output()
        .unwrap();
    let stderr = String::from_utf8(piped.stderr).unwrap();
    assert!(!stderr.contains("/3000") && !stderr.contains('\x1b'), "{stderr:?}");
}

/// Ctrl-C at a console where a bot is seated ends `play` at once (a person's
/// turn waits on the keyboard, so no flag could be looked at), with status
/// 130, and the bot's scratch directory goes with it.
#[test]
fn ctrl_c_at_a_console_with_a_bot_ends_it_and_leaves_no_scratch() {
    use std::os::unix::fs::PermissionsExt;
    let scratch = tempfile::tempdir().unwrap();
    // Every user may pass through it, as a root grader's run user must.
    std::fs::set_permissions(scratch.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let pty = native_pty_system()
        .openpty(PtySize { rows: 40, cols: 120, pixel_width: 0, pixel_height: 0 })
        .expect("a pseudo-terminal");
    let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_ttt-referee"));
    command.args(["play", "--x", "human", "--o", "fixtures/bots/first-python"]);
    command.cwd(root());
    command.env("TMPDIR", scratch.path());
    let mut child = pty.slave.spawn_command(command).expect("the binary starts");
    drop(pty.slave);
    let mut keyboard = pty.master.take_writer().expect("a writer");
    let mut reader = pty.master.try_clone_reader().expect("a reader");
    let mut seen = Vec::new();
    let mut buffer = [0; 4096];
    let mut typed = false;
    while let Ok(n @ 1..) = reader.read(&mut buffer) {
        seen.extend_from_slice(&buffer[..n]);
        let text = String::from_utf8_lossy(&seen).into_owned();
        // The bot is built and its scratch made before the first prompt.
        if !typed && text.contains("X to move (1-9): ") {
            assert_eq!(std::fs::read_dir(scratch.path()).unwrap().count(), 1, "the bot's scratch");
            keyboard.write_all(b"\x03").expect("typing");
            keyboard.flush().expect("typing");
            typed = true;
        }
    }
    let status = child.wait().expect("the binary ends");
    assert!(typed, "no prompt:\n{}", String::from_utf8_lossy(&seen));
    assert_eq!(status.exit_code(), 130, "{}", String::from_utf8_lossy(&seen));
    assert_eq!(std::fs::read_dir(scratch.path()).unwrap().count(), 0, "the scratch stayed");
}
