//! Bots built once for every part of a split event (`ttt-referee build`,
//! `--prebuilt DIR`): the parts merge to what one machine writes, the kept
//! build is what runs (none is built again), and a bot edited since, a
//! build altered since, a bot never built, or a manifest that is not one
//! is an error with exit status 2 and no game played.

use std::fs;
use std::path::{Path, PathBuf};

use ttt_referee::workshop::kept::{MANIFEST, Manifest, tree_digest};

use crate::util::{files, kept_dir, referee, root};

/// Runs `args` under `state` (the record key's home): exit status, stdout
/// and stderr.
fn run(args: &[&str], state: &Path) -> (Option<i32>, String, String) {
    let out = referee().args(args).env("XDG_STATE_HOME", state).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Two bots (C, which is compiled, and Python) copied into `dir`, so the
/// tests may edit them.
fn bots(dir: &Path) -> [PathBuf; 2] {
    ["first-c", "first-python"].map(|name| {
        let to = dir.join(name);
        fs::create_dir_all(&to).unwrap();
        for entry in fs::read_dir(root().join("fixtures/bots").join(name)).unwrap() {
            let entry = entry.unwrap();
            fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
        to
    })
}

#[test]
fn a_split_tournament_run_from_kept_builds_merges_to_the_whole() {
    let dir = kept_dir();
    let state = dir.path().join("state");
    let [c, python] = bots(dir.path());
    let built = dir.path().join("built");
    let (status, stdout, stderr) = run(
        &["build", c.to_str().unwrap(), "rules", python.to_str().unwrap(), "--out", built.to_str().unwrap()],
        &state,
    );
    assert_eq!(status, Some(0), "{stderr}");
    assert_eq!(
        stdout,
        format!(
            "first-c: kept (C)\nfirst-python: kept (Python (bot.py))\n2 of 2 bots made runnable, kept in {}\n",
            built.display()
        )
    );
    let manifest = Manifest::read(&built).unwrap();
    assert_eq!(
        manifest.bots.iter().map(|k| k.name.as_str()).collect::<Vec<_>>(),
        ["first-c", "first-python"]
    );
    assert_eq!(manifest.bots[0].source, tree_digest(&c).unwrap());

    let event = ["tournament", c.to_str().unwrap(), "rules", python.to_str().unwrap(), "--quiet"];
    let whole = dir.path().join("whole");
    let (status, standings, stderr) =
        run(&[&event[..], &["--report", whole.to_str().unwrap()]].concat(), &state);
    assert_eq!(status, Some(0), "{stderr}");
    let mut parts = Vec::new();
    for k in 1..=3 {
        let part = dir.path().join(format!("part-{k}"));
        let partition = format!("slice:{k}/3");
        let extra = [
            "--prebuilt",
            built.to_str().unwrap(),
            "--partition",
            &partition,
            "--report",
            part.to_str().unwrap(),
        ];
        let (status, _, stderr) = run(&[&event[..], &extra[..]].concat(), &state);
        assert_eq!(status, Some(0), "{partition}: {stderr}");
        parts.push(part);
    }
    let merged = dir.path().join("merged");
    let mut merge = vec!["merge"];
    merge.extend(parts.iter().map(|p| p.to_str().unwrap()));
    merge.extend(["--report", merged.to_str().unwrap()]);
    let (status, printed, stderr) = run(&merge, &state);
    assert_eq!(status, Some(0), "{stderr}");
    assert_eq!(printed, standings);
    let (whole, merged) = (files(&whole), files(&merged));
    assert_eq!(
        whole.iter().map(|(p, _)| p).collect::<Vec<_>>(),
        merged.iter().map(|(p, _)| p).collect::<Vec<_>>()
    );
    for ((path, whole), (_, merged)) in whole.iter().zip(&merged) {
        assert!(whole == merged, "{} differs", path.display());
    }
}

#[test]
fn a_part_runs_the_build_kept_and_refuses_any_other() {
    let dir = kept_dir();
    let state = dir.path().join("state");
    let [c, _] = bots(dir.path());
    let built = dir.path().join("built");
    let (status, _, stderr) = run(&["build", c.to_str().unwrap(), "--out", built.to_str().unwrap()], &state);
    assert_eq!(status, Some(0), "{stderr}");
    let play = |extra: &[&str]| {
        let args = [&["match", c.to_str().unwrap(), "rules", "--games", "1"][..], extra].concat();
        run(&args, &state)
    };
    let prebuilt = ["--prebuilt", built.to_str().unwrap()];
    let (status, stdout, stderr) = play(&prebuilt);
    assert_eq!(status, Some(0), "{stderr}");
    assert!(stderr.contains("[1/1] first-c (X) vs rules (O): "), "{stderr}");
    assert!(stdout.contains("first-c"), "{stdout}");

    // The kept program replaced by one that always answers 9: refused, as
    // the copy's digest is not the one kept.
    let kept = built.join("001");
    let prog = kept.join("prog");
    fs::write(&prog, "#!/bin/sh\nwhile read line; do echo 9; done\n").unwrap();
    let (status, stdout, stderr) = play(&prebuilt);
    assert_eq!(status, Some(2), "{stderr}");
    assert!(stdout.is_empty());
    assert!(
        stderr.contains(&format!(
            "ttt-referee: first-c: its build in --prebuilt cannot be used: its kept build in {} is not the one that was built (its digest is ",
            kept.display()
        )),
        "{stderr}"
    );

    // With the manifest saying so, the replacement is what plays: the part
    // runs the kept build and builds nothing (the C source answers 1).
    let mut manifest = Manifest::read(&built).unwrap();
    let digest = tree_digest(&kept).unwrap();
    if let ttt_referee::workshop::kept::KeptBuild::Built { tree, .. } = &mut manifest.bots[0].build {
        *tree = digest;
    }
    fs::write(built.join(MANIFEST), serde_json::to_string(&manifest).unwrap()).unwrap();
    let report = dir.path().join("report");
    let (status, _, stderr) = play(&[&prebuilt[..], &["--report", report.to_str().unwrap()]].concat());
    assert_eq!(status, Some(0), "{stderr}");
    let record =
        files(&report.join("games")).into_iter().find(|(p, _)| p.extension().is_some_and(|e| e == "txt"));
    let record = String::from_utf8(record.unwrap().1).unwrap();
    assert!(record.contains("\nX\t9\n"), "the kept program played: {record}");

    // A bot edited since it was built.
    fs::write(c.join("bot.c"), fs::read_to_string(c.join("bot.c")).unwrap() + "/* edited */\n").unwrap();
    let (status, stdout, stderr) = play(&prebuilt);
    assert_eq!(status, Some(2), "{stderr}");
    assert!(stdout.is_empty());
    assert!(
        stderr.contains(&format!(
            "ttt-referee: first-c: its source is not the one --prebuilt {} was built from (its digest is {}, the build's {}); build again",
            built.display(),
            tree_digest(&c).unwrap(),
            manifest.bots[0].source
        )),
        "{stderr}"
    );

    // A bot never built.
    let python = root().join("fixtures/bots/first-python");
    let (status, _, stderr) =
        run(&["match", python.to_str().unwrap(), "rules", "--prebuilt", built.to_str().unwrap()], &state);
    assert_eq!(status, Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "ttt-referee: first-python: --prebuilt {0} holds no build of it; build every participant with `ttt-referee build PARTICIPANT... --out {0}`",
            built.display()
        )),
        "{stderr}"
    );

    // Not a directory of kept builds.
    let empty = dir.path().join("empty");
    fs::create_dir(&empty).unwrap();
    let (status, _, stderr) = play(&["--prebuilt", empty.to_str().unwrap()]);
    assert_eq!(status, Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "ttt-referee: --prebuilt {}: cannot be read: No such file or directory (os error 2)",
            empty.join(MANIFEST).display()
        )),
        "{stderr}"
    );
}

#[test]
fn build_writes_only_into_a_new_or_empty_directory_and_keeps_failed_builds_as_failed() {
    let dir = kept_dir();
    let state = dir.path().join("state");
    let full = dir.path().join("full");
    fs::create_dir(&full).unwrap();
    fs::write(full.join("notes.txt"), "mine\n").unwrap();
    let broken = dir.path().join("broken");
    fs::create_dir(&broken).unwrap();
    fs::write(broken.join("bot.c"), "int main(void) { return }\n").unwrap();
    let (status, stdout, stderr) =
        run(&["build", broken.to_str().unwrap(), "--out", full.to_str().unwrap()], &state);
    assert_eq!(status, Some(2), "{stderr}");
    assert!(stdout.is_empty());
    assert_eq!(
        stderr,
        format!(
            "ttt-referee: {}: is not empty; build writes into a new or empty directory\n",
            full.display()
        )
    );
    assert_eq!(fs::read_dir(&full).unwrap().count(), 1, "nothing written");

    // A bot whose build fails is kept as failed: every part forfeits its
    // games, as an unsplit event would.
    let built = dir.path().join("built");
    let (status, stdout, stderr) =
        run(&["build", broken.to_str().unwrap(), "--out", built.to_str().unwrap()], &state);
    assert_eq!(status, Some(0), "{stderr}");
    assert!(stderr.contains("warning: broken: it cannot play: "), "{stderr}");
    assert_eq!(
        stdout,
        format!(
            "broken: not built; it forfeits its games\n0 of 1 bots made runnable, kept in {}\n",
            built.display()
        )
    );
    let (status, _, stderr) = run(
        &["match", broken.to_str().unwrap(), "rules", "--games", "1", "--prebuilt", built.to_str().unwrap()],
        &state,
    );
    assert_eq!(status, Some(0), "{stderr}");
    assert!(
        stderr.contains("[1/1] broken (X) vs rules (O): O wins by forfeit of X (exited: it could not be started: the build failed:"),
        "{stderr}"
    );

    // A bot too big to digest (a sparse 300 MB file: its copy would be
    // refused too) is kept as not built, and stops no other bot's build.
    let huge = dir.path().join("huge");
    fs::create_dir(&huge).unwrap();
    fs::write(huge.join("bot.c"), "int main(void) { return 0; }\n").unwrap();
    fs::File::create(huge.join("data.bin")).unwrap().set_len(300 << 20).unwrap();
    let [c, _] = bots(dir.path());
    let two = dir.path().join("two");
    let (status, stdout, stderr) =
        run(&["build", huge.to_str().unwrap(), c.to_str().unwrap(), "--out", two.to_str().unwrap()], &state);
    assert_eq!(status, Some(0), "{stderr}");
    assert_eq!(
        stdout,
        format!(
            "huge: not built; it forfeits its games\nfirst-c: kept (C)\n1 of 2 bots made runnable, kept in {}\n",
            two.display()
        )
    );
    let (status, _, stderr) = run(
        &[
            "match",
            huge.to_str().unwrap(),
            c.to_str().unwrap(),
            "--games",
            "1",
            "--prebuilt",
            two.to_str().unwrap(),
        ],
        &state,
    );
    assert_eq!(status, Some(0), "{stderr}");
    assert!(
        stderr.contains("[1/1] huge (X) vs first-c (O): O wins by forfeit of X (exited: it could not be started: its source cannot be read: it holds more than 256 MB)"),
        "{stderr}"
    );
    let stray: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with(".ttt-referee-staged-"))
        .collect();
    assert!(stray.is_empty(), "no staging left behind");
}
