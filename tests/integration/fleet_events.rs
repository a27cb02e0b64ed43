//! A match or tournament split across machines (`--partition`) and merged
//! back (`merge`): byte for byte what one machine writes, at 1, 3 and 7
//! parts, with engines and with bots; and every bad merge an error with
//! exit status 2 and nothing written.

use std::fs;
use std::path::{Path, PathBuf};

use crate::util::{kept_dir, referee, root};

/// The tournament every split plays: four engines, two rounds (24 games).
const TOURNAMENT: [&str; 7] = ["tournament", "perfect", "random", "rules", "minimax", "--rounds", "2"];

/// Runs `args` with `--report dir`, quietly, under `state` (the record
/// key's home), returning the exit status, stdout and stderr.
fn run(args: &[&str], extra: &[&str], state: &Path) -> (Option<i32>, String, String) {
    let out = referee().args(args).args(extra).arg("--quiet").env("XDG_STATE_HOME", state).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Every file under `dir`, by path relative to it, with its bytes.
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut found: Vec<(PathBuf, Vec<u8>)> = walk(dir)
        .into_iter()
        .map(|path| (path.strip_prefix(dir).unwrap().to_owned(), fs::read(&path).unwrap()))
        .collect();
    found.sort();
    found
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut all = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() { all.extend(walk(&path)) } else { all.push(path) }
    }
    all
}

/// Plays `args` whole and in `of` parts of `scheme`, merges the parts, and
/// shows the merged directory and standings are the whole run's, byte for
/// byte.
fn merges_to_the_whole(args: &[&str], scheme: &str, of: u32) {
    let dir = kept_dir();
    let state = dir.path().join("state");
    let whole = dir.path().join("whole");
    let (status, standings, stderr) = run(args, &["--report", whole.to_str().unwrap()], &state);
    assert_eq!(status, Some(0), "{stderr}");
    let mut parts = Vec::new();
    for k in 1..=of {
        let part = dir.path().join(format!("part-{k}"));
        let partition = format!("{scheme}:{k}/{of}");
        let (status, _, stderr) =
            run(args, &["--partition", &partition, "--report", part.to_str().unwrap()], &state);
        assert_eq!(status, Some(0), "{partition}: {stderr}");
        assert!(part.join("event-part.json").is_file());
        parts.push(part);
    }
    let merged = dir.path().join("merged");
    let out = referee()
        .arg("merge")
        .args(parts.iter().rev())
        .arg("--report")
        .arg(&merged)
        .env("XDG_STATE_HOME", &state)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout), standings, "{scheme}:K/{of}: the standings printed");
    let (whole_files, merged_files) = (files(&whole), files(&merged));
    assert_eq!(
        whole_files.iter().map(|(p, _)| p).collect::<Vec<_>>(),
        merged_files.iter().map(|(p, _)| p).collect::<Vec<_>>(),
        "{scheme}:K/{of}: the same files"
    );
    for ((path, whole), (_, merged)) in whole_files.iter().zip(&merged_files) {
        assert!(whole == merged, "{scheme}:K/{of}: {} differs", path.display());
    }
}

#[test]
fn a_tournament_in_one_three_or_seven_parts_merges_to_the_whole_byte_for_byte() {
    merges_to_the_whole(&TOURNAMENT, "slice", 1);
    merges_to_the_whole(&TOURNAMENT, "slice", 3);
    merges_to_the_whole(&TOURNAMENT, "hash", 7);
}

/// Bots' games too: their standard error, which no record keeps, comes
/// from the part that played them.
#[test]
fn a_match_of_two_bots_in_parts_merges_to_the_whole_with_their_stderr() {
    let first_c = root().join("fixtures/bots/first-c");
    let crash = root().join("fixtures/bots/crash");
    let args = ["match", first_c.to_str().unwrap(), crash.to_str().unwrap(), "--games", "4"];
    merges_to_the_whole(&args, "slice", 3);
}

/// The parts of one split, made once for the error tests.
struct Split {
    dir: tempfile::TempDir,
    parts: Vec<PathBuf>,
}

impl Split {
    fn new(extra: &[&str]) -> Split {
        let dir = kept_dir();
        let parts = (1..=3)
            .map(|k| {
                let part = dir.path().join(format!("part-{k}"));
                let partition = format!("slice:{k}/3");
                let mut args: Vec<&str> = extra.to_vec();
                args.extend(["--partition", &partition, "--report", part.to_str().unwrap()]);
                let (status, _, stderr) = run(&TOURNAMENT[..5], &args, &dir.path().join("state"));
                assert_eq!(status, Some(0), "{stderr}");
                part
            })
            .collect();
        Split { dir, parts }
    }

    /// Merging `parts` into a new directory fails with exit 2, says
    /// `message` on stderr, and writes nothing.
    fn refused(&self, parts: &[&Path], state: &Path, message: &str) {
        let out = self.dir.path().join("out");
        let result = referee()
            .arg("merge")
            .args(parts)
            .arg("--report")
            .arg(&out)
            .env("XDG_STATE_HOME", state)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&result.stderr);
        assert_eq!(result.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(message), "expected {message:?} in:\n{stderr}");
        assert!(result.stdout.is_empty());
        assert!(!out.exists(), "nothing written");
        let stray: Vec<_> = fs::read_dir(self.dir.path())
            .unwrap()
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().starts_with(".ttt-referee-staged-"))
            .collect();
        assert!(stray.is_empty(), "no staging left behind");
    }
}

#[test]
fn every_bad_merge_of_an_event_is_an_error_naming_it_and_writes_nothing() {
    let split = Split::new(&[]);
    let state = split.dir.path().join("state");
    let [p1, p2, p3] = [&split.parts[0], &split.parts[1], &split.parts[2]].map(PathBuf::as_path);

    split.refused(&[p1, p3], &state, "ttt-referee: parts 2 of 3 are missing: give every part's directory\n");
    split.refused(
        &[p1, p2, p3, p2],
        &state,
        &format!("{} and {} are both part 2 of 3: give each part once", p2.display(), p2.display()),
    );

    // Another seed is another event.
    let other = split.dir.path().join("other-2");
    let (status, _, _) = run(
        &TOURNAMENT[..5],
        &["--seed", "9", "--partition", "slice:2/3", "--report", other.to_str().unwrap()],
        &state,
    );
    assert_eq!(status, Some(0));
    split.refused(
        &[p1, &other, p3],
        &state,
        &format!(
            "{} and {} are parts of two different events (their plans differ): merge only the parts of one event",
            p1.display(),
            other.display()
        ),
    );

    // Another key trusts none of the records.
    split.refused(
        &[p1, p2, p3],
        &split.dir.path().join("another-state"),
        ": game 1: its record is not trusted: its seal does not match",
    );

    // An interrupted part: a game it never recorded.
    let games: Vec<PathBuf> =
        walk(&p2.join("games")).into_iter().filter(|p| p.extension().is_some_and(|e| e == "txt")).collect();
    let lost = &games[0];
    let kept = fs::read(lost).unwrap();
    fs::remove_file(lost).unwrap();
    split.refused(
        &[p1, p2, p3],
        &state,
        "its part did not play it (interrupted? run the part's command again to finish it)",
    );
    fs::write(lost, kept).unwrap();

    // A tampered plan.
    let file = p3.join("event-part.json");
    let honest = fs::read_to_string(&file).unwrap();
    fs::write(&file, honest.replacen("\"seed\": 0", "\"seed\": 1", 1)).unwrap();
    split.refused(&[p1, p2, p3], &state, "its fingerprint is not its plan's");
    fs::write(&file, "{").unwrap();
    split.refused(&[p1, p2, p3], &state, "event-part.json is not one (");
    fs::write(&file, honest).unwrap();

    // An output that is not empty.
    let out = split.dir.path().join("out");
    fs::create_dir(&out).unwrap();
    fs::write(out.join("keep.txt"), "mine").unwrap();
    let result = referee()
        .arg("merge")
        .args([p1, p2, p3])
        .arg("--report")
        .arg(&out)
        .env("XDG_STATE_HOME", &state)
        .output()
        .unwrap();
    assert_eq!(result.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&result.stderr),
        format!("ttt-referee: {}: is not empty; merge writes into a new or empty directory\n", out.display())
    );
    assert_eq!(fs::read_to_string(out.join("keep.txt")).unwrap(), "mine");
    fs::remove_dir_all(&out).unwrap();

    // And when all is well, it merges.
    let result = referee()
        .arg("merge")
        .args([p1, p2, p3])
        .arg("--report")
        .arg(&out)
        .env("XDG_STATE_HOME", &state)
        .output()
        .unwrap();
    assert_eq!(result.status.code(), Some(0), "{}", String::from_utf8_lossy(&result.stderr));
    assert_eq!(String::from_utf8_lossy(&result.stderr), "ttt-referee: merged 3 parts: 12 games\n");
}

#[test]
fn a_part_needs_a_report_directory_and_no_sprt() {
    let state = kept_dir();
    let (status, _, stderr) = run(&TOURNAMENT[..5], &["--partition", "slice:1/2"], state.path());
    assert_eq!(status, Some(2));
    assert_eq!(
        stderr,
        "ttt-referee: --partition slice:1/2: a part is written to a report directory for `merge`; give --report DIR\n"
    );
    let report = state.path().join("r");
    let (status, _, stderr) = run(
        &["match", "perfect", "random", "--sprt", "elo0=0", "elo1=10", "alpha=0.05", "beta=0.05"],
        &["--partition", "hash:1/2", "--report", report.to_str().unwrap()],
        state.path(),
    );
    assert_eq!(status, Some(2));
    assert_eq!(
        stderr,
        "ttt-referee: --partition hash:1/2: --sprt stops a match as soon as it decides, which a part cannot know; run it on one machine\n"
    );
    assert!(!report.exists());
}
