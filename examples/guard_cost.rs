//! What the grader's guard costs per run: the same program started bare
//! (`Command`, waited for) and through the sandbox, interleaved, with the
//! medians and their difference (BENCHMARKS.md).
//!
//! ```text
//! cargo build --release && cargo run --release --example guard_cost -- 500 [--separate]
//! ```
//!
//! `--separate`: every run makes its own user and network namespaces
//! instead of joining the shared ones.

use std::fs;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use ttt_referee::sandbox::{Job, Limits, Sandbox};

fn main() {
    let runs: usize = std::env::args().nth(1).and_then(|n| n.parse().ok()).unwrap_or(500);
    let guard = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/release/ttt-guard");
    let mut sandbox = Sandbox::with_guard(guard);
    if std::env::args().nth(2).as_deref() != Some("--separate") {
        sandbox.share_namespaces();
    }
    let scratch = tempfile::tempdir().expect("a scratch directory");
    let dir = scratch.path().join("run");
    fs::create_dir(&dir).expect("the run directory");
    ttt_referee::sandbox::hand_over(&dir).expect("the run directory handed over");
    ttt_referee::sandbox::open_for_runs(scratch.path()).expect("permissions");
    let limits = Limits {
        wall: Duration::from_secs(2),
        cpu: Duration::from_secs(2),
        memory: 512 << 20,
        output: 16 << 20,
        processes: 64,
    };
    let job = Job {
        argv: vec!["true".to_owned()],
        dir: dir.clone(),
        stdin: None,
        stdout: scratch.path().join("stdout"),
        stderr: scratch.path().join("stderr"),
        limits,
        env: Vec::new(),
    };
    let (mut bare, mut guarded) = (Vec::new(), Vec::new());
    for round in 0..runs + 20 {
        let start = Instant::now();
        let out = fs::File::create(&job.stdout).expect("stdout");
        let status = Command::new("true").current_dir(&dir).stdout(out).stderr(Stdio::null()).status();
        assert!(status.expect("true runs").success());
        let b = start.elapsed();
        let start = Instant::now();
        sandbox.run(&job).expect("the guarded run");
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
