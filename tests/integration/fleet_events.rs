//! A match or tournament split across machines (`--partition`) and merged
//! back (`merge`): byte for byte what one machine writes, at 1, 3 and 7
//! parts, with engines and with bots; and every bad merge an error with
//! exit status 2 and nothing written.

use std::fs;
use std::path::{Path, PathBuf};

use crate::util::{files, kept_dir, referee, root};

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

    split.refused(
        &[p1, p3],
        &state,
        "ttt-referee: part 2 of 3 is missing (games 2, 5, 8, 11): give every part's directory, or merge --allow-partial for the standings so far\n",
    );
    split.refused(
        &[p2],
        &state,
        "ttt-referee: parts 1, 3 of 3 are missing (games 1, 3, 4, 6, 7, 9, 10, 12): give every part's directory, or merge --allow-partial for the standings so far\n",
    );
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

    // Interrupted parts: games they never recorded, every one named.
    let lost = [p2.join("games/005.txt"), p2.join("games/011.txt"), p3.join("games/003.txt")];
    let kept: Vec<Vec<u8>> = lost.iter().map(|game| fs::read(game).unwrap()).collect();
    for game in &lost {
        fs::remove_file(game).unwrap();
    }
    split.refused(
        &[p1, p2, p3],
        &state,
        &format!(
            "ttt-referee: {}: game 3 not played (no record: the part was interrupted? run its command again to finish it); {}: games 5, 11 not played (no record: the part was interrupted? run its command again to finish it); or merge --allow-partial for the standings so far\n",
            p3.display(),
            p2.display()
        ),
    );
    for (game, bytes) in lost.iter().zip(&kept) {
        fs::write(game, bytes).unwrap();
    }

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

/// `merge --allow-partial` of `parts` into `out` under `state`: exit
/// status, standard output and error.
fn merge_partial(parts: &[&Path], out: &Path, state: &Path) -> (Option<i32>, String, String) {
    let result = referee()
        .arg("merge")
        .arg("--allow-partial")
        .args(parts)
        .arg("--report")
        .arg(out)
        .env("XDG_STATE_HOME", state)
        .output()
        .unwrap();
    (
        result.status.code(),
        String::from_utf8_lossy(&result.stdout).into_owned(),
        String::from_utf8_lossy(&result.stderr).into_owned(),
    )
}

#[test]
fn allow_partial_writes_the_standings_so_far_and_says_which_games_are_missing() {
    let split = Split::new(&[]);
    let state = split.dir.path().join("state");
    let [p1, p2, p3] = [&split.parts[0], &split.parts[1], &split.parts[2]].map(PathBuf::as_path);

    // A part missing.
    let out = split.dir.path().join("without-2");
    let (status, stdout, stderr) = merge_partial(&[p3, p1], &out, &state);
    assert_eq!(status, Some(0), "{stderr}");
    assert_eq!(
        stderr,
        "ttt-referee: merge: partial: 8 of 12 games; missing games 2, 5, 8, 11 (part 2 not given)\n\
         ttt-referee: merged 2 of 3 parts: 8 games\n"
    );
    let note = "partial: 8 of 12 games; missing games 2, 5, 8, 11 (their parts not merged or not finished)\n";
    assert!(stdout.starts_with("Tournament: 8 games on 3x3"), "{stdout}");
    assert!(stdout.ends_with(&format!("\n\n{note}")), "{stdout}");
    assert_eq!(fs::read_to_string(out.join("standings.txt")).unwrap(), stdout);
    let results: serde_json::Value =
        serde_json::from_slice(&fs::read(out.join("results.json")).unwrap()).unwrap();
    assert_eq!(results["partial"], true);
    assert_eq!(results["missing_games"], serde_json::json!([2, 5, 8, 11]));
    assert_eq!(results["games"].as_array().unwrap().len(), 8);
    let html = fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("Partial: </strong>8 of 12 games; missing games 2, 5, 8, 11"), "{html}");

    // A game an interrupted part did not record.
    let lost = p2.join("games/005.txt");
    let kept = fs::read(&lost).unwrap();
    fs::remove_file(&lost).unwrap();
    let out = split.dir.path().join("without-5");
    let (status, _, stderr) = merge_partial(&[p1, p2, p3], &out, &state);
    fs::write(&lost, kept).unwrap();
    assert_eq!(status, Some(0), "{stderr}");
    assert_eq!(
        stderr,
        "ttt-referee: merge: partial: 11 of 12 games; missing game 5\nttt-referee: merged 3 parts: 11 games\n"
    );

    // Every game there: the flag changes nothing, byte for byte.
    let (flagged, plain) = (split.dir.path().join("flagged"), split.dir.path().join("plain"));
    let (status, _, stderr) = merge_partial(&[p1, p2, p3], &flagged, &state);
    assert_eq!((status, stderr.as_str()), (Some(0), "ttt-referee: merged 3 parts: 12 games\n"));
    let result = referee()
        .arg("merge")
        .args([p1, p2, p3])
        .arg("--report")
        .arg(&plain)
        .env("XDG_STATE_HOME", &state)
        .output()
        .unwrap();
    assert_eq!(result.status.code(), Some(0));
    assert_eq!(files(&flagged), files(&plain));

    // A record not trusted is still an error.
    let (status, _, stderr) = merge_partial(
        &[p1, p2, p3],
        &split.dir.path().join("untrusted"),
        &split.dir.path().join("another-state"),
    );
    assert_eq!(status, Some(2));
    assert!(stderr.contains(": game 1: its record is not trusted"), "{stderr}");
}
