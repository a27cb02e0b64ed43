//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// The crate root, where `fixtures/` lives; tests run the binary from here so
/// that paths in messages are the short relative ones the fixtures expect.
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The binary, run from the crate root, with no standard input.
pub fn referee() -> Command {
    let mut cmd = Command::cargo_bin("ttt-referee").expect("binary built");
    cmd.current_dir(root()).write_stdin(Vec::new());
    cmd
}

/// A fixture's path relative to the crate root.
pub fn fixture(relative: &str) -> PathBuf {
    PathBuf::from("fixtures").join(relative)
}

/// Bytes as text for assertion messages, with invisible characters shown.
pub fn show(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).escape_debug().to_string().replace("\\n", "\n")
}

/// The first line where `actual` and `expected` differ, for failure messages.
pub fn first_difference(actual: &[u8], expected: &[u8]) -> String {
    let a: Vec<&[u8]> = actual.split(|&b| b == b'\n').collect();
    let e: Vec<&[u8]> = expected.split(|&b| b == b'\n').collect();
    for i in 0..a.len().max(e.len()) {
        let (x, y) = (a.get(i), e.get(i));
        if x != y {
            return format!(
                "line {}:\n  actual:   {:?}\n  expected: {:?}",
                i + 1,
                x.map(|l| String::from_utf8_lossy(l)),
                y.map(|l| String::from_utf8_lossy(l))
            );
        }
    }
    "no line differs".to_owned()
}
