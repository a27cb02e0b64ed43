//! Golden tests: every move file in `fixtures/` is refereed and its output
//! compared byte for byte with the expected files beside it.
//!
//! For `fixtures/<dir>/<case>.txt`:
//! - `<case>.expected`: the exact transcript; the run must exit 0.
//! - `<case>.stderr`: the exact standard error (a warning, or the error of a
//!   malformed file, which must then exit 2 and write nothing).
//! - `<case>.args`: extra command-line arguments, one per line.
//!
//! `TTT_BLESS=1 cargo test` rewrites the expected files from the actual
//! output: review the diff before committing it.

use std::fs;
use std::path::{Path, PathBuf};

use crate::util::{first_difference, fixture, referee, root, show};

struct Case {
    moves: PathBuf,
    transcript: Option<PathBuf>,
    stderr: PathBuf,
    args: Vec<String>,
}

fn cases(dir: &str) -> Vec<Case> {
    let mut cases: Vec<Case> = fs::read_dir(root().join("fixtures").join(dir))
        .expect("fixture directory")
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "txt"))
        .map(|path| {
            let relative = path.strip_prefix(root()).expect("under the root").to_path_buf();
            let args = fs::read_to_string(path.with_extension("args"))
                .map(|text| text.lines().map(str::to_owned).collect())
                .unwrap_or_default();
            let expected = relative.with_extension("expected");
            Case {
                transcript: root().join(&expected).exists().then_some(expected),
                stderr: relative.with_extension("stderr"),
                moves: relative,
                args,
            }
        })
        .collect();
    cases.sort_by(|a, b| a.moves.cmp(&b.moves));
    assert!(!cases.is_empty(), "no fixtures in {dir}");
    cases
}

fn bless() -> bool {
    std::env::var_os("TTT_BLESS").is_some()
}

/// Compares `actual` with the file at `expected` (missing means empty), or
/// rewrites the file when blessing. Returns a description of a mismatch.
fn compare(what: &str, actual: &[u8], expected: &Path) -> Option<String> {
    let path = root().join(expected);
    if bless() {
        if actual.is_empty() && !path.exists() {
            return None;
        }
        fs::write(&path, actual).expect("write blessed file");
        return None;
    }
    let wanted = fs::read(&path).unwrap_or_default();
    (actual != wanted.as_slice()).then(|| {
        format!(
            "{what} differs from {}: {}\n{}",
            expected.display(),
            first_difference(actual, &wanted),
            show(actual)
        )
    })
}

fn run_dir(dir: &str) {
    let mut failures = Vec::new();
    for case in cases(dir) {
        let out = referee().arg(&case.moves).args(&case.args).output().expect("run");
        let name = case.moves.display();
        let expected_code = if case.transcript.is_some() { 0 } else { 2 };
        if out.status.code() != Some(expected_code) {
            failures.push(format!(
                "{name}: exit {:?}, expected {expected_code}\n{}",
                out.status.code(),
                show(&out.stderr)
            ));
            continue;
        }
        failures.extend(compare(&format!("{name}: stderr"), &out.stderr, &case.stderr));
        match &case.transcript {
            Some(expected) => {
                failures.extend(compare(&format!("{name}: stdout"), &out.stdout, expected));
            }
            None if !out.stdout.is_empty() => {
                failures.push(format!("{name}: malformed, yet wrote {}", show(&out.stdout)));
            }
            None => {}
        }
    }
    assert!(failures.is_empty(), "{} golden failure(s):\n\n{}", failures.len(), failures.join("\n\n"));
}

#[test]
fn the_seed_sample_referees_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("TTTgame.txt");
    referee().arg(fixture("TTTmoves.txt")).arg("-o").arg(&target).assert().success().stdout("").stderr("");
    let expected = fs::read(root().join(fixture("TTTgame.txt"))).unwrap();
    let actual = fs::read(&target).unwrap();
    assert!(actual == expected, "{}", first_difference(&actual, &expected));
}

#[test]
fn classic_fixtures() {
    run_dir("classic");
}

#[test]
fn variant_fixtures() {
    run_dir("variants");
}

#[test]
fn malformed_fixtures() {
    run_dir("malformed");
}

#[test]
fn output_files_match_standard_output_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    for case in cases("classic").into_iter().chain(cases("variants")) {
        let Some(expected) = case.transcript else {
            continue;
        };
        let target = dir.path().join("out.txt");
        referee().arg(&case.moves).args(&case.args).arg("-o").arg(&target).assert().success().stdout("");
        let actual = fs::read(&target).unwrap();
        let wanted = fs::read(root().join(&expected)).unwrap();
        assert!(actual == wanted, "{}: {}", case.moves.display(), first_difference(&actual, &wanted));
    }
}

#[test]
fn malformed_files_never_create_the_output() {
    let dir = tempfile::tempdir().unwrap();
    for case in cases("malformed") {
        let target = dir.path().join("out.txt");
        referee().arg(&case.moves).args(&case.args).arg("-o").arg(&target).assert().code(2).stdout("");
        assert!(!target.exists(), "{} created the output", case.moves.display());
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0, "temporary file left behind");
    }
}

/// Scripted console sessions: `fixtures/play/<case>.stdin` typed into the
/// command of `<case>.args` must print `<case>.stdout` exactly.
#[test]
fn play_sessions() {
    let mut failures = Vec::new();
    let mut cases: Vec<PathBuf> = fs::read_dir(root().join("fixtures/play"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "stdin"))
        .collect();
    cases.sort();
    assert!(cases.len() >= 3);
    for stdin in cases {
        let args: Vec<String> =
            fs::read_to_string(stdin.with_extension("args")).unwrap().lines().map(str::to_owned).collect();
        let out = referee().args(&args).write_stdin(fs::read(&stdin).unwrap()).output().unwrap();
        let name = stdin.display();
        if out.status.code() != Some(0) {
            failures.push(format!("{name}: exit {:?}: {}", out.status.code(), show(&out.stderr)));
            continue;
        }
        let expected = stdin.with_extension("stdout");
        failures.extend(compare(
            &format!("{name}: stdout"),
            &out.stdout,
            expected.strip_prefix(root()).unwrap(),
        ));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
