//! The `ttt-referee` binary: everything happens in the library.

fn main() -> std::process::ExitCode {
    ttt_referee::cli::main()
}
