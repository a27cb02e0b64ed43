//! Writes the benchmark move files to standard output, for whole-process
//! measurements (see README.md, Performance):
//!
//! ```sh
//! cargo run --release --example bench_input -- long 1000 1000 5 300000 > long.txt
//! cargo run --release --example bench_input -- scattered 100000 > scattered.txt
//! ```

#[path = "../benches/support/inputs.rs"]
mod inputs;

use std::io::Write;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize| -> u64 { args.get(i).and_then(|a| a.parse().ok()).unwrap_or_else(|| usage()) };
    let narrow = |i: usize| u32::try_from(number(i)).unwrap_or_else(|_| usage());
    let text = match args.first().map(String::as_str) {
        Some("long") => inputs::long_game(narrow(1), narrow(2), narrow(3), number(4)),
        Some("scattered") => inputs::scattered_game(number(1)),
        _ => usage(),
    };
    std::io::stdout().lock().write_all(text.as_bytes()).expect("write standard output");
}

fn usage() -> ! {
    eprintln!("usage: bench_input long ROWS COLS WIN MOVES | bench_input scattered MOVES");
    std::process::exit(2);
}
