//! A grading split across a fleet: `grade --partition` run once a part,
//! `merge` of the parts, and the merged reports compared byte for byte with
//! one machine's (the runs' times and the run user's number, which differ
//! between any two gradings, normalised in the comparison only). And every
//! merge that must fail: parts of two gradings, a part twice, a part
//! missing, an interrupted part, a corrupt results.json or part.json.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::util::{first_difference, fixture, kept_dir, referee};

/// A small class of `fixtures/class`: C, C++ and Python, passing, wrong
/// (shrunk), crashed, unbuilt and silent submissions.
const STUDENTS: [&str; 8] =
    ["ada-c", "fay-order", "gus-nocat", "hal-spacing", "ivy-crash", "kim-compile", "max-stdout", "ned-stale"];

/// The files a report directory holds, as `grade --report` writes them.
pub(crate) const REPORTS: [&str; 4] = ["grades.csv", "results.json", "junit.xml", "report.html"];

/// Where everything of this file's gradings goes.
fn dir() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(kept_dir).path()
}

/// `grade` on the small class with `extra` arguments, its report in
/// `report`: the exit status and standard error.
fn grade(report: &Path, extra: &[&str]) -> (Option<i32>, String) {
    let class = fs::canonicalize(fixture("class")).unwrap();
    let output = referee()
        .current_dir(&class)
        .args(["grade", "--tests", "tests", "--jobs", "2", "--generate", "1", "--shrink-time", "100"])
        .args(extra)
        .arg("--report")
        .arg(report)
        .args(STUDENTS.map(|s| format!("students/{s}")))
        .output()
        .unwrap();
    (output.status.code(), String::from_utf8_lossy(&output.stderr).into_owned())
}

/// The class graded on one machine, with seed 5.
fn whole() -> &'static Path {
    static WHOLE: OnceLock<PathBuf> = OnceLock::new();
    WHOLE.get_or_init(|| {
        let report = dir().join("whole");
        let (status, stderr) = grade(&report, &["--seed", "5"]);
        assert_eq!(status, Some(1), "{stderr}");
        report
    })
}

/// The class graded in `of` parts by `scheme`, with seed 5: each part's
/// report directory, part 1 first.
fn parts(scheme: &str, of: u32) -> Vec<PathBuf> {
    (1..=of)
        .map(|k| {
            let report = dir().join(format!("{scheme}-{of}/part-{k}"));
            let partition = format!("{scheme}:{k}/{of}");
            let (status, stderr) = grade(&report, &["--seed", "5", "--partition", &partition]);
            assert!(matches!(status, Some(0 | 1)), "{partition}: {stderr}");
            assert!(stderr.contains(&format!("ttt-referee: part {partition}: ")), "{stderr}");
            report
        })
        .collect()
}

/// The three-part grading the failing merges are made of.
fn three() -> &'static [PathBuf] {
    static THREE: OnceLock<Vec<PathBuf>> = OnceLock::new();
    THREE.get_or_init(|| parts("slice", 3))
}

/// `merge` of `parts` into `out`: exit status, standard output and error.
fn merge(parts: &[PathBuf], out: &Path) -> (Option<i32>, String, String) {
    let output = referee().arg("merge").args(parts).arg("--report").arg(out).output().unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// `text` with the numbers that differ between two gradings of the same
/// class replaced by `T`: the runs' times (`"wall"`, `"cpu"`,
/// `"seconds"` in JSON, `time="…"` in `JUnit`, the HTML's three-decimal
/// time cells) and the unused user a root grader's runs get.
pub(crate) fn normalised(text: &str) -> String {
    let mut out = text.to_owned();
    for prefix in
        ["\"wall\": ", "\"cpu\": ", "\"seconds\": ", "time=\"", "unused user (", "<td class=\"num\">"]
    {
        let mut done = String::with_capacity(out.len());
        let mut rest = out.as_str();
        while let Some(at) = rest.find(prefix) {
            let (before, after) = rest.split_at(at + prefix.len());
            done.push_str(before);
            let end = after
                .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == '-'))
                .unwrap_or(after.len());
            let number = &after[..end];
            // A score cell keeps its number (at most two decimals); a time
            // cell has three.
            let time =
                prefix != "<td class=\"num\">" || number.split_once('.').is_some_and(|(_, d)| d.len() == 3);
            done.push_str(if time && !number.is_empty() { "T" } else { number });
            rest = &after[end..];
        }
        done.push_str(rest);
        out = done;
    }
    out
}

/// The merged reports in `merged` are the unsplit run's, but for times.
fn same_as_whole(merged: &Path) {
    same_reports(whole(), merged);
    assert!(!merged.join("part.json").exists(), "a merged report is no part");
}

/// The reports in `merged` are those in `whole`, but for times.
pub(crate) fn same_reports(whole: &Path, merged: &Path) {
    for file in REPORTS {
        let whole = normalised(&fs::read_to_string(whole.join(file)).unwrap());
        let merged = normalised(&fs::read_to_string(merged.join(file)).unwrap());
        assert!(
            whole == merged,
            "{file} differs from one machine's: {}",
            first_difference(merged.as_bytes(), whole.as_bytes())
        );
    }
}

/// Every submission of `merged`'s results.json is, with its times, the one
/// its part wrote.
fn carried_exactly(parts: &[PathBuf], merged: &Path) {
    let read = |dir: &Path| -> serde_json::Value {
        serde_json::from_slice(&fs::read(dir.join("results.json")).unwrap()).unwrap()
    };
    let merged = read(merged);
    let merged = merged["submissions"].as_array().unwrap();
    let mut from_parts: Vec<serde_json::Value> =
        parts.iter().flat_map(|p| read(p)["submissions"].as_array().unwrap().clone()).collect();
    assert_eq!(merged.len(), STUDENTS.len());
    for submission in merged {
        let at = from_parts.iter().position(|p| p == submission).expect("a merged submission no part wrote");
        from_parts.remove(at);
    }
    assert!(from_parts.is_empty());
}

fn merges_to_the_whole(scheme: &str, of: u32) {
    let mut parts = parts(scheme, of);
    // Given in any order.
    parts.reverse();
    let out = dir().join(format!("{scheme}-{of}/merged"));
    let (status, stdout, stderr) = merge(&parts, &out);
    assert_eq!(status, Some(1), "a class with failing tests merges with grade's status 1: {stderr}");
    assert_eq!(stderr, format!("ttt-referee: merged {of} parts: 8 submissions\n"));
    let names: Vec<&str> = stdout.lines().skip(1).filter_map(|l| l.split_whitespace().next()).collect();
    assert_eq!(names, STUDENTS, "the table lists the class in the grading's order");
    same_as_whole(&out);
    carried_exactly(&parts, &out);
}

#[test]
fn one_part_merges_to_the_whole() {
    merges_to_the_whole("hash", 1);
}

#[test]
fn three_slices_merge_to_the_whole() {
    let parts = three();
    let out = dir().join("slice-3/merged");
    let (status, _, stderr) = merge(parts, &out);
    assert_eq!(status, Some(1), "{stderr}");
    same_as_whole(&out);
    carried_exactly(parts, &out);
    // Slices deal the class round-robin in the order given.
    let part = |k: usize| -> Vec<String> {
        let results: serde_json::Value =
            serde_json::from_slice(&fs::read(parts[k].join("results.json")).unwrap()).unwrap();
        results["submissions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["submission"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(part(0), ["ada-c", "hal-spacing", "max-stdout"]);
    assert_eq!(part(1), ["fay-order", "ivy-crash", "ned-stale"]);
    assert_eq!(part(2), ["gus-nocat", "kim-compile"]);
}

#[test]
fn seven_hashed_parts_merge_to_the_whole() {
    merges_to_the_whole("hash", 7);
}

#[test]
fn seven_slices_merge_to_the_whole() {
    merges_to_the_whole("slice", 7);
}

/// A copy of `part` in `to`, changed by `change`.
fn copied(part: &Path, to: &str, change: impl FnOnce(&Path)) -> PathBuf {
    let copy = dir().join("bad").join(to);
    fs::create_dir_all(&copy).unwrap();
    for entry in fs::read_dir(part).unwrap() {
        let entry = entry.unwrap();
        fs::copy(entry.path(), copy.join(entry.file_name())).unwrap();
    }
    change(&copy);
    copy
}

/// `merge` of `parts` fails with status 2 and `message`, and writes nothing.
fn refused(parts: &[PathBuf], message: &str) {
    // Its own path: a merge refused mid-walk makes and removes its output
    // directory, which another test's check would see.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let out = dir().join("bad").join(format!("never-written-refused-{call}"));
    let (status, stdout, stderr) = merge(parts, &out);
    assert_eq!((status, stdout.as_str()), (Some(2), ""), "{stderr}");
    assert_eq!(stderr, format!("ttt-referee: merge: {message}\n"));
    assert!(!out.exists(), "a refused merge wrote {}", out.display());
}

#[test]
fn a_missing_part_is_named_and_nothing_is_written() {
    let parts = three();
    refused(
        &parts[..2],
        "part 3 of 3 missing: every part of the grading must be merged, or merge --allow-partial for reports marked partial",
    );
    refused(
        &parts[1..2],
        "parts 1, 3 of 3 missing: every part of the grading must be merged, or merge --allow-partial for reports marked partial",
    );
}

#[test]
fn a_part_given_twice_is_refused() {
    let parts = three();
    let again = copied(&parts[1], "again", |_| {});
    refused(
        &[parts[0].clone(), parts[1].clone(), again.clone(), parts[2].clone()],
        &format!("part 2 of 3 is given twice: {} and {}", parts[1].display(), again.display()),
    );
}

#[test]
fn parts_of_two_gradings_never_mix() {
    let parts = three();
    // The same part of the same class graded with another seed.
    let other = dir().join("seed-6/part-2");
    let (status, stderr) = grade(&other, &["--seed", "6", "--partition", "slice:2/3"]);
    assert!(matches!(status, Some(0 | 1)), "{stderr}");
    refused(
        &[parts[0].clone(), other.clone(), parts[2].clone()],
        &format!(
            "{} and {} are parts of two different gradings (their tests, options differ): merge only the parts of one `grade --partition` run, each given the same tests, options, --seed and class",
            parts[0].display(),
            other.display()
        ),
    );
    // Part 2 of a hash partition beside slices.
    let hashed = copied(&parts[1], "hashed", |dir| {
        edit(dir, |part| part["partition"]["scheme"] = "hash".into());
    });
    refused(
        &[parts[0].clone(), hashed.clone(), parts[2].clone()],
        &format!(
            "{} and {} are parts of two different gradings (their partition differ): merge only the parts of one `grade --partition` run, each given the same tests, options, --seed and class",
            parts[0].display(),
            hashed.display()
        ),
    );
}

/// Changes `dir`'s part.json as `change` says.
fn edit(dir: &Path, change: impl FnOnce(&mut serde_json::Value)) {
    let path = dir.join("part.json");
    let mut part: serde_json::Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    change(&mut part);
    fs::write(&path, serde_json::to_vec(&part).unwrap()).unwrap();
}

#[test]
fn corrupt_parts_are_refused() {
    let parts = three();
    let with = |bad: &Path| [parts[0].clone(), bad.to_owned(), parts[2].clone()];
    let cut = copied(&parts[1], "cut", |dir| {
        let results = fs::read(dir.join("results.json")).unwrap();
        fs::write(dir.join("results.json"), &results[..results.len() / 2]).unwrap();
    });
    refused(
        &with(&cut),
        &format!(
            "{}: corrupt: it is not the results.json of this part's part.json (changed or cut short since the part was graded)",
            cut.join("results.json").display()
        ),
    );
    let regraded = copied(&parts[1], "regraded", |dir| {
        let text = fs::read_to_string(dir.join("results.json")).unwrap();
        fs::write(dir.join("results.json"), text.replacen("\"score\": 0", "\"score\": 100", 1)).unwrap();
    });
    refused(
        &with(&regraded),
        &format!(
            "{}: corrupt: it is not the results.json of this part's part.json (changed or cut short since the part was graded)",
            regraded.join("results.json").display()
        ),
    );
    let garbage =
        copied(&parts[1], "garbage", |dir| fs::write(dir.join("part.json"), "{\"version\": 1,").unwrap());
    refused(
        &with(&garbage),
        &format!(
            "{}: corrupt: EOF while parsing a value at line 1 column 14",
            garbage.join("part.json").display()
        ),
    );
    let future = copied(&parts[1], "future", |dir| edit(dir, |part| part["version"] = 2.into()));
    refused(
        &with(&future),
        &format!(
            "{}: corrupt: version 2 where this ttt-referee reads version 1: merge with the ttt-referee that graded the parts",
            future.join("part.json").display()
        ),
    );
    let plain = dir().join("bad/plain");
    fs::create_dir_all(&plain).unwrap();
    let (status, _, stderr) = merge(&with(&plain), &dir().join("bad/never-written-1"));
    assert_eq!(status, Some(2));
    assert!(
        stderr.starts_with(&format!(
            "ttt-referee: merge: {}: not a part of a split grading: cannot read part.json (",
            plain.display()
        )),
        "{stderr}"
    );
}

/// `dir`'s part as `grade` leaves it when stopped before `names` were
/// graded: they are not in its results but in its `not_graded`, and its
/// results.json is marked partial (written by the library's own writer, as
/// the stopped grading writes it).
fn interrupt(dir: &Path, names: &[&str]) {
    use ttt_referee::grade::report::part::PartRecord;
    use ttt_referee::grade::result::SubmissionResult;
    let mut record: PartRecord = serde_json::from_slice(&fs::read(dir.join("part.json")).unwrap()).unwrap();
    record.results.retain(|r| !names.contains(&r.submission.as_str()));
    record.not_graded = names.iter().map(|n| (*n).to_owned()).collect();
    let mut text = serde_json::to_vec(&record).unwrap();
    text.push(b'\n');
    fs::write(dir.join("part.json"), text).unwrap();
    let results: Vec<SubmissionResult> = record.results.into_iter().map(SubmissionResult::from).collect();
    let mut json = Vec::new();
    ttt_referee::grade::report::json(&results, &record.limits, record.seed, true, &mut json).unwrap();
    fs::write(dir.join("results.json"), json).unwrap();
}

#[test]
fn an_interrupted_or_tampered_part_is_refused() {
    let parts = three();
    let with = |bad: &Path| [parts[0].clone(), bad.to_owned(), parts[2].clone()];
    let stopped = copied(&parts[1], "stopped", |dir| interrupt(dir, &["ivy-crash"]));
    refused(
        &with(&stopped),
        &format!(
            "{}: its grading was stopped before these submissions were graded: ivy-crash; run that part again, or merge --allow-partial for reports marked partial",
            stopped.display()
        ),
    );
    // Said not graded, but its results.json says nothing of it.
    let unsaid = copied(&parts[1], "unsaid", |dir| {
        edit(dir, |part| part["not_graded"] = serde_json::json!(["ivy-crash"]));
    });
    let (status, _, stderr) = merge(&with(&unsaid), &dir().join("bad/never-written-2"));
    assert_eq!(status, Some(2), "{stderr}");
    assert!(stderr.contains("corrupt: it is not the results.json"), "{stderr}");
    let short = copied(&parts[1], "short", |dir| {
        edit(dir, |part| {
            part["results"].as_array_mut().unwrap().pop();
        });
    });
    let (status, _, stderr) = merge(&with(&short), &dir().join("bad/never-written-3"));
    assert_eq!(status, Some(2), "{stderr}");
    assert!(stderr.contains("corrupt: it is not the results.json"), "{stderr}");
}

/// A part whose `part.json` says a submission was not graded and holds its
/// result too is refused (its reports' `partial` would say otherwise than
/// the merge's), even with --allow-partial, and nothing is written.
#[test]
fn a_part_that_both_graded_and_did_not_grade_a_submission_is_refused() {
    use ttt_referee::grade::report::part::PartRecord;
    use ttt_referee::grade::result::SubmissionResult;
    let parts = three();
    let both = copied(&parts[1], "both", |dir| {
        let mut record: PartRecord =
            serde_json::from_slice(&fs::read(dir.join("part.json")).unwrap()).unwrap();
        record.not_graded = vec!["ivy-crash".to_owned()];
        let mut text = serde_json::to_vec(&record).unwrap();
        text.push(b'\n');
        fs::write(dir.join("part.json"), text).unwrap();
        let results: Vec<SubmissionResult> = record.results.into_iter().map(SubmissionResult::from).collect();
        let mut json = Vec::new();
        ttt_referee::grade::report::json(&results, &record.limits, record.seed, true, &mut json).unwrap();
        fs::write(dir.join("results.json"), json).unwrap();
    });
    let out = dir().join("bad/never-written-4");
    let (status, stdout, stderr) = merge_partial(&[parts[0].clone(), both.clone(), parts[2].clone()], &out);
    assert_eq!((status, stdout.as_str()), (Some(2), ""), "{stderr}");
    assert_eq!(
        stderr,
        format!(
            "ttt-referee: merge: {}: corrupt: `ivy-crash` is both among its results and among those not graded\n",
            both.join("part.json").display()
        )
    );
    assert!(!out.exists(), "a refused merge wrote {}", out.display());
}

#[test]
fn the_output_may_not_be_a_part() {
    let parts = three();
    let (status, _, stderr) = merge(parts, &parts[1]);
    assert_eq!(status, Some(2));
    assert_eq!(
        stderr,
        format!(
            "ttt-referee: merge: {}: is one of the parts; write the merged report elsewhere\n",
            parts[1].display()
        )
    );
}

#[test]
fn a_part_of_a_seeded_grading_needs_the_seed() {
    let report = dir().join("unseeded");
    let (status, stderr) = grade(&report, &["--partition", "slice:1/2"]);
    assert_eq!(status, Some(2));
    assert!(
        stderr.contains(
            "--partition slice:1/2: this grading's games, cases or generated tests come from a seed, and each part would draw its own; give every part the same --seed N"
        ),
        "{stderr}"
    );
    assert!(!report.exists());
    let output = referee()
        .args(["grade", "--tests", "fixtures/class/tests", "--partition", "slice:0/2", "--report"])
        .arg(&report)
        .arg("fixtures/class/students/ada-c")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains(
            "`slice:0/2` is not a partition: K counts from 1 to N (a Kubernetes index counts from 0: add 1)"
        ),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// `merge --allow-partial` of `parts` into `out`: its exit status, standard
/// output and error.
fn merge_partial(parts: &[PathBuf], out: &Path) -> (Option<i32>, String, String) {
    let output =
        referee().arg("merge").arg("--allow-partial").args(parts).arg("--report").arg(out).output().unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// The submissions `dir`'s results.json holds, and whether it says it is
/// partial.
fn held(dir: &Path) -> (Vec<String>, bool) {
    let results: serde_json::Value =
        serde_json::from_slice(&fs::read(dir.join("results.json")).unwrap()).unwrap();
    let names = results["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["submission"].as_str().unwrap().to_owned())
        .collect();
    (names, results["partial"] == true)
}

#[test]
fn allow_partial_merges_the_parts_there_and_says_which_submissions_are_missing() {
    let parts = three();
    let out = dir().join("partial/missing-part");
    let (status, stdout, stderr) = merge_partial(&[parts[2].clone(), parts[0].clone()], &out);
    assert_eq!(status, Some(1), "{stderr}");
    assert_eq!(
        stderr,
        "ttt-referee: merge: partial: 5 of 8 submissions graded (part 2 of 3 missing); not graded: fay-order, ivy-crash, ned-stale\n\
         ttt-referee: merged 2 of 3 parts: 5 submissions\n"
    );
    assert!(stdout.ends_with("\npartial: 5 of 8 submissions graded\n"), "{stdout}");
    assert_eq!(
        held(&out),
        (["ada-c", "gus-nocat", "hal-spacing", "kim-compile", "max-stdout"].map(String::from).to_vec(), true)
    );
    let html = fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        html.contains("5 of 8 submissions graded. Not graded: fay-order, ivy-crash, ned-stale."),
        "{html}"
    );
    assert!(!out.join("part.json").exists());

    // An interrupted part: what it graded is merged, what it did not is named.
    let stopped = copied(&parts[1], "partial-stopped", |dir| interrupt(dir, &["ivy-crash"]));
    let out = dir().join("partial/stopped");
    let (status, _, stderr) = merge_partial(&[parts[0].clone(), stopped, parts[2].clone()], &out);
    assert_eq!(status, Some(1), "{stderr}");
    assert_eq!(
        stderr,
        "ttt-referee: merge: partial: 7 of 8 submissions graded; not graded: ivy-crash\n\
         ttt-referee: merged 3 parts: 7 submissions\n"
    );
    let (names, partial) = held(&out);
    assert!(partial && names.len() == 7 && !names.contains(&"ivy-crash".to_owned()), "{names:?}");

    // Every part there: the flag changes nothing.
    let out = dir().join("partial/whole");
    let (status, _, stderr) = merge_partial(parts, &out);
    assert_eq!((status, stderr.as_str()), (Some(1), "ttt-referee: merged 3 parts: 8 submissions\n"));
    same_as_whole(&out);

    // Still refused: parts of two gradings, a part twice, a corrupt part.
    let again = copied(&parts[1], "partial-again", |_| {});
    let (status, _, stderr) = merge_partial(&[parts[1].clone(), again], &dir().join("bad/never-written-5"));
    assert_eq!(status, Some(2));
    assert!(stderr.contains("part 2 of 3 is given twice"), "{stderr}");
    assert!(!dir().join("bad/never-written-5").exists());
}
