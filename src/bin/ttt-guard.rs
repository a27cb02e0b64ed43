//! `ttt-guard`: the grader's guard on its own (see `ttt_referee::sandbox`).
//! It is ttt-referee's hidden guard mode in a small binary, which starts
//! faster than the whole command line; `grade` uses it when it sits beside
//! `ttt-referee`, and ttt-referee itself otherwise.

use ttt_referee::sandbox::{GUARD_ARG, INIT_ARG, LAUNCH_ARG, guard_main};

fn main() {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some(stage @ (GUARD_ARG | INIT_ARG | LAUNCH_ARG)) = args.get(1).and_then(|a| a.to_str()) {
        guard_main(stage, &args[2..]);
    }
    eprintln!("ttt-guard: run by `ttt-referee grade`, not by hand");
    std::process::exit(2)
}
