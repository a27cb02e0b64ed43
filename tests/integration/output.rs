//! Where transcripts go: standard output, `-o FILE` written whole or not at
//! all, devices, closed pipes, and memory that stays flat on huge inputs.

use std::fs;
use std::io::{Read, Write};
use std::process::{Command, Stdio};

use crate::util::{fixture, referee, root};

fn sample_transcript() -> Vec<u8> {
    fs::read(root().join(fixture("TTTgame.txt"))).unwrap()
}

#[test]
fn standard_input_and_dash_output_work_like_files() {
    let moves = fs::read(root().join(fixture("TTTmoves.txt"))).unwrap();
    let out = referee().args(["-", "-o", "-"]).write_stdin(moves).output().unwrap();
    assert!(out.status.success());
    assert_eq!(out.stdout, sample_transcript());
    assert!(out.stderr.is_empty());
}

#[test]
fn a_good_run_replaces_the_output_and_keeps_its_permissions() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("TTTgame.txt");
    fs::write(&target, "an older transcript").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&target, fs::Permissions::from_mode(0o640)).unwrap();
    }
    referee().arg(fixture("TTTmoves.txt")).arg("-o").arg(&target).assert().success();
    assert_eq!(fs::read(&target).unwrap(), sample_transcript());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(fs::metadata(&target).unwrap().permissions().mode() & 0o777, 0o640);
    }
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "a temporary file was left behind");
}

#[test]
fn a_malformed_input_leaves_an_earlier_output_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("TTTgame.txt");
    fs::write(&target, "an older transcript").unwrap();
    referee().arg(fixture("malformed/not-utf8.txt")).arg("-o").arg(&target).assert().code(2);
    assert_eq!(fs::read_to_string(&target).unwrap(), "an older transcript");
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[cfg(unix)]
#[test]
fn an_output_symlink_is_followed_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.txt");
    let link = dir.path().join("link.txt");
    fs::write(&real, "old").unwrap();
    std::os::unix::fs::symlink(&real, &link).unwrap();
    referee().arg(fixture("TTTmoves.txt")).arg("-o").arg(&link).assert().success();
    assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(fs::read(&real).unwrap(), sample_transcript());
}

#[cfg(unix)]
#[test]
fn a_device_output_is_written_not_replaced() {
    referee().arg(fixture("TTTmoves.txt")).args(["-o", "/dev/null"]).assert().success();
    assert!(!fs::metadata("/dev/null").unwrap().is_file());
}

/// A move file whose transcript is far larger than a pipe's buffer.
fn long_moves() -> Vec<u8> {
    let mut moves = b"t\nX: a O: b\n\n".to_vec();
    moves.extend("Y 5\n".repeat(100_000).bytes());
    moves
}

#[test]
fn a_closed_pipe_ends_the_program_quietly() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ttt-referee"))
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0; 16];
    let mut stdin = child.stdin.take().unwrap();
    // From a thread: standard output is written as it is made, so the
    // referee stops reading while its output waits for a reader.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&long_moves());
    });
    // Read a little, as `head` does, then hang up.
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert_eq!(&first, b"Programmer: Dwig");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

/// Refereeing a move file far larger than all the memory the process may map:
/// the reader streams, and output is written through (`-o`, here a gibibyte
/// of input) or spooled to disk (standard output), so nothing grows with the
/// input.
#[cfg(target_os = "linux")]
#[test]
fn memory_stays_flat_on_a_huge_move_file() {
    // The limit covers the mapped binary too (about 14 MB of it).
    const LIMIT_KIB: u64 = 32 << 10;

    for (output, input_bytes) in [("-o /dev/null", 1usize << 30), ("", 64 << 20)] {
        let script = format!("ulimit -v {LIMIT_KIB} && exec \"$0\" - {output}");
        let mut child = Command::new("sh")
            .args(["-c", &script, env!("CARGO_BIN_EXE_ttt-referee")])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let writer = std::thread::spawn(move || {
            // Long violation lines: each is read, ruled on and echoed.
            let line = format!("Y {}\n", "7".repeat(1000));
            stdin.write_all(b"t\nX: a O: b\n\n")?;
            for _ in 0..input_bytes / line.len() {
                stdin.write_all(line.as_bytes())?;
            }
            Ok::<_, std::io::Error>(())
        });
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap().expect("the referee read all its input");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{output}: {stderr}");
        assert!(stderr.contains("Winner: None"), "{output}: {stderr}");
    }
}

/// `ttt-referee big.txt | head` on a 1000x1000 game: standard output is
/// written as it is made, so the program stops at the first write after its
/// reader hangs up, long before it has read its input (the move file here is
/// fed through a pipe and counted), and it leaves nothing in the temporary
/// directory.
#[test]
fn head_on_a_huge_game_stops_the_referee_at_once() {
    // Each board is a few megabytes; after ten boards, 200,000 violation
    // lines (2 MB of input) that the referee reads only if it carries on.
    let mut moves = b"t\nX: a O: b\nBoard: 1000x1000, 5 in a row\n".to_vec();
    for square in 1..=10 {
        let mark = if square % 2 == 1 { "X" } else { "O" };
        moves.extend(format!("{mark} {square}\n").bytes());
    }
    moves.extend("Y 5\n".repeat(200_000).bytes());
    let total = moves.len();

    let tmp = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_ttt-referee"))
        .arg("-")
        .env("TMPDIR", tmp.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let mut sent = 0;
        for chunk in moves.chunks(4096) {
            if stdin.write_all(chunk).is_err() {
                break;
            }
            sent += chunk.len();
        }
        sent
    });
    // `head -c`: a little, then hang up.
    let mut stdout = child.stdout.take().unwrap();
    let mut first = vec![0; 64 << 10];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    let sent = writer.join().unwrap();

    assert!(first.starts_with(b"Programmer: "), "{:?}", String::from_utf8_lossy(&first[..40]));
    assert_eq!(out.status.code(), Some(0), "a closed pipe ends the program with status 0");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert!(sent < total / 2, "the referee read {sent} of {total} bytes after its reader hung up");
    assert_eq!(fs::read_dir(tmp.path()).unwrap().count(), 0, "something was left in the temporary directory");
}
