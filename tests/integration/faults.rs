//! Fault tests: what happens when the process is killed mid-write, the disk
//! is full, or the directory cannot be written. In each case the target holds
//! its old content or nothing, never part of a transcript.

use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::util::{fixture, referee};

/// The temporary files `-o` writes beside its target, and their total size.
fn staged_bytes(dir: &Path) -> (usize, u64) {
    let staged: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name().to_string_lossy().starts_with(".ttt-referee-"))
        .collect();
    (staged.len(), staged.iter().map(|e| e.metadata().map_or(0, |m| m.len())).sum())
}

#[cfg(unix)]
#[test]
fn a_kill_mid_write_leaves_the_old_file_or_nothing() {
    for old in [Some("an older transcript\n"), None] {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("TTTgame.txt");
        if let Some(old) = old {
            fs::write(&target, old).unwrap();
        }
        let mut child = Command::new(env!("CARGO_BIN_EXE_ttt-referee"))
            .arg("-")
            .arg("-o")
            .arg(&target)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(b"t\nX: a O: b\n\n").unwrap();
        // Feed violations until over a megabyte of transcript is on disk in
        // the temporary file: the process is killed in the middle of writing.
        let chunk = "Y 5\n".repeat(10_000);
        let mut started = false;
        for _ in 0..10_000 {
            stdin.write_all(chunk.as_bytes()).unwrap();
            if staged_bytes(dir.path()).1 > 1 << 20 {
                started = true;
                break;
            }
        }
        assert!(started, "the transcript never reached the disk");
        child.kill().unwrap();
        child.wait().unwrap();
        drop(stdin);

        match old {
            Some(old) => assert_eq!(fs::read_to_string(&target).unwrap(), old),
            None => assert!(!target.exists(), "a killed run created its target"),
        }
        // SIGKILL leaves no chance to clean up: the temporary file stays, under
        // a name that says what it is.
        assert_eq!(staged_bytes(dir.path()).0, 1);
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_is_a_clear_error() {
    let out = referee().arg(fixture("TTTmoves.txt")).args(["-o", "/dev/full"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "ttt-referee: /dev/full: cannot write: No space left on device\n"
    );

    let full = fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_ttt-referee"))
        .current_dir(crate::util::root())
        .arg(fixture("TTTmoves.txt"))
        .stdin(Stdio::null())
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "ttt-referee: <stdout>: cannot write: No space left on device\n"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn an_unwritable_directory_is_a_clear_error() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let locked = dir.path().join("locked");
    fs::create_dir(&locked).unwrap();
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o555)).unwrap();
    // Root writes anywhere the mode bits forbid; sysfs refuses even root.
    let target = if fs::write(locked.join("probe"), "").is_err() {
        locked.join("out.txt")
    } else {
        Path::new("/sys/kernel/ttt-referee-out.txt").to_path_buf()
    };
    let out = referee().arg(fixture("TTTmoves.txt")).arg("-o").arg(&target).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        format!("ttt-referee: {}: cannot write: Permission denied\n", target.display())
    );
    assert!(!target.exists());
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
}
