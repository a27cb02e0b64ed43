//! Times whole commands interleaved: one run of each in turn, round after
//! round, so that a change in the machine's load touches them all alike.
//! Prints each command's median and its ratio to the last command's.
//!
//! ```text
//! cargo run --release --example interleave -- 1000 \
//!     "target/release/ttt-referee fixtures/TTTmoves.txt -o target/ours.txt" \
//!     "target/student_ttt fixtures/TTTmoves.txt target/theirs.txt"
//! ```
//!
//! Commands are split on spaces (no quoting); their output is discarded.

use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(runs) = args.next().and_then(|n| n.parse::<usize>().ok()).filter(|&n| n > 0) else {
        eprintln!("usage: interleave RUNS COMMAND...");
        return ExitCode::from(2);
    };
    let commands: Vec<Vec<String>> =
        args.map(|c| c.split(' ').filter(|w| !w.is_empty()).map(str::to_owned).collect()).collect();
    if commands.is_empty() || commands.iter().any(Vec::is_empty) {
        eprintln!("usage: interleave RUNS COMMAND...");
        return ExitCode::from(2);
    }
    let mut times: Vec<Vec<Duration>> = vec![Vec::with_capacity(runs); commands.len()];
    // A few rounds first to warm the caches, not counted.
    for round in 0..runs + 20 {
        for (command, samples) in commands.iter().zip(&mut times) {
            let start = Instant::now();
            let status = Command::new(&command[0])
                .args(&command[1..])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
            let took = start.elapsed();
            if !status.is_ok_and(|s| s.success()) {
                eprintln!("interleave: `{}` failed", command.join(" "));
                return ExitCode::FAILURE;
            }
            if round >= 20 {
                samples.push(took);
            }
        }
    }
    let medians: Vec<f64> = times
        .iter_mut()
        .map(|samples| {
            samples.sort();
            samples[samples.len() / 2].as_secs_f64() * 1000.0
        })
        .collect();
    let last = medians[medians.len() - 1];
    for (command, median) in commands.iter().zip(&medians) {
        println!("{median:8.3} ms median  {:5.2}x  {}", median / last, command.join(" "));
    }
    ExitCode::SUCCESS
}
