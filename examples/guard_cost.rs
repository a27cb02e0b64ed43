//! What the grader's guard costs per run: the same program started bare
//! (`Command` in a fresh directory holding the program and the test, waited
//! for, the answer read back) and through [`Sandbox::run`] exactly as
//! `grade` runs a test (container, cgroup, a run directory filled from the
//! build, the answer handed out), interleaved, with the medians and their
//! difference (BENCHMARKS.md).
//!
//! ```text
//! cargo build --release && cargo run --release --example guard_cost -- 500
//! ```

use std::fs;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use ttt_referee::sandbox::{Collect, Job, Limits, Sandbox};

fn main() {
    let runs: usize = std::env::args().nth(1).and_then(|n| n.parse().ok()).unwrap_or(500);
    // target/release/examples/guard_cost → target/release/ttt-guard.
    let exe = std::env::current_exe().expect("this example's path");
    let guard: PathBuf =
        exe.parent().and_then(|p| p.parent()).expect("the target directory").join("ttt-guard");
    let sandbox = Sandbox::with_guard(guard).expect("a sandbox");
    let build = sandbox.scratch().join("build");
    fs::create_dir(&build).expect("the build directory");
    let prog = build.join("prog");
    fs::write(&prog, "#!/bin/sh\necho answer > TTTgame.txt\n").expect("the program");
    fs::set_permissions(&prog, std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("mode");
    sandbox.hand_over(&build).expect("the build handed over");
    let limits = Limits {
        wall: Duration::from_secs(2),
        cpu: Duration::from_secs(2),
        memory: 512 << 20,
        output: 16 << 20,
        processes: 64,
        open_files: 256,
    };
    let job = Job {
        argv: vec!["./prog".to_owned()],
        start: Some(build.clone()),
        files: vec![("TTTmoves.txt".to_owned(), b"Game\nX: A O: B\n\nX 5\n".to_vec())],
        stdin: None,
        collect: Collect::File("TTTgame.txt".to_owned()),
        limits,
        env: Vec::new(),
    };
    let bare_dir = tempfile::tempdir().expect("a directory for the bare runs");
    let (mut bare, mut guarded) = (Vec::new(), Vec::new());
    for round in 0..runs + 20 {
        let start = Instant::now();
        let dir = bare_dir.path().join(round.to_string());
        fs::create_dir(&dir).expect("a run directory");
        fs::copy(&prog, dir.join("prog")).expect("the program copied");
        fs::write(dir.join("TTTmoves.txt"), &job.files[0].1).expect("the test");
        let status =
            Command::new("./prog").current_dir(&dir).stdout(Stdio::null()).stderr(Stdio::null()).status();
        assert!(status.expect("the program runs").success());
        assert!(!fs::read(dir.join("TTTgame.txt")).expect("its answer").is_empty());
        fs::remove_dir_all(&dir).expect("the run directory removed");
        let b = start.elapsed();
        let start = Instant::now();
        let run = sandbox.run(&job).expect("the guarded run");
        assert!(!run.answer.expect("its answer").is_empty());
        let g = start.elapsed();
        if round >= 20 {
            bare.push(b);
            guarded.push(g);
        }
    }
    let median = |v: &mut Vec<Duration>| {
        v.sort();
        v[v.len() / 2]
    };
    let (b, g) = (median(&mut bare), median(&mut guarded));
    println!("bare     {:8.3} ms median", b.as_secs_f64() * 1e3);
    println!("guarded  {:8.3} ms median", g.as_secs_f64() * 1e3);
    println!("the guard costs {:.3} ms per run", (g.as_secs_f64() - b.as_secs_f64()) * 1e3);
}
