//! `autograder gradescope` and `autograder github` as the platforms use
//! them: the zip unpacked into a temporary root that plays `/autograder`,
//! its install step and `run_autograder` run as root; the GitHub grading
//! step run as an ordinary user (an unused uid, through `setpriv`). The
//! binaries a package carries must start on the platform's oldest image:
//! checked by their ELF files' needs.

use std::fs;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use ttt_referee::grade::package::portable::{self, Glibc, Linking};

use crate::install::{install, runnable, unused_uid};
use crate::util::{fixture, referee};

/// This machine's glibc, which the tests' platform has: the zips made here
/// are run here, so they say so with `--glibc`.
fn this_glibc() -> String {
    let out = Command::new("getconf").arg("GNU_LIBC_VERSION").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    text.trim().strip_prefix("glibc ").unwrap().to_owned()
}

/// Copies the directory `from` to `to` (plain files only).
pub(crate) fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Unpacks `zip` into `dir` with the modes it records, as `unzip` does.
fn unzip(zip: &Path, dir: &Path) {
    let mut archive = zip::ZipArchive::new(fs::File::open(zip).unwrap()).unwrap();
    for i in 0..archive.len() {
        let mut file = archive.by_index(i).unwrap();
        let path = dir.join(file.enclosed_name().unwrap());
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let mut out = fs::File::create(&path).unwrap();
        std::io::copy(&mut file, &mut out).unwrap();
        if let Some(mode) = file.unix_mode() {
            fs::set_permissions(&path, fs::Permissions::from_mode(mode & 0o777)).unwrap();
        }
    }
}

/// A platform's root: `autograder/` and a prefix to install into.
struct Platform {
    dir: tempfile::TempDir,
}

impl Platform {
    fn root(&self) -> PathBuf {
        self.dir.path().join("autograder")
    }

    /// Runs one of the zip's scripts as Gradescope does.
    fn run(&self, script: &Path) -> std::process::Output {
        Command::new("bash")
            .arg(script)
            .current_dir(self.root())
            .env("AUTOGRADER_ROOT", self.root())
            .env("TTT_PREFIX", self.dir.path().join("prefix"))
            .output()
            .unwrap()
    }

    fn results(&self) -> serde_json::Value {
        serde_json::from_slice(&fs::read(self.root().join("results/results.json")).unwrap()).unwrap()
    }
}

/// The zip for the class's tests (20 points, test 09 hidden), unpacked,
/// installed, and ready for `submission`.
fn gradescope(submission: &str) -> Platform {
    let platform = Platform { dir: tempfile::tempdir().unwrap() };
    let referee = install(&platform.dir.path().join("build"));
    let zip = platform.dir.path().join("autograder.zip");
    let made = Command::new(&referee)
        .args(["autograder", "gradescope", "--tests"])
        .arg(fixture("class/tests"))
        .args(["--points", "20", "--hidden", "09-*", "--time", "5", "--glibc", &this_glibc(), "--binary"])
        .arg(&referee)
        .arg("-o")
        .arg(&zip)
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let root = platform.root();
    unzip(&zip, &root.join("source"));
    copy_dir(&fixture("class/students").join(submission), &root.join("submission"));
    let setup = platform.run(&root.join("source/setup.sh"));
    assert!(setup.status.success(), "setup.sh: {}", String::from_utf8_lossy(&setup.stderr));
    fs::copy(root.join("source/run_autograder"), root.join("run_autograder")).unwrap();
    platform
}

#[test]
fn gradescope_grades_a_submission_into_results_json() {
    if !runnable(false) {
        return;
    }
    let platform = gradescope("ivy-crash");
    let run = platform.run(&platform.root().join("run_autograder"));
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let results = platform.results();
    // The specification's fields and types.
    assert!(
        results["score"].is_number() && results["execution_time"].is_u64() && results["output"].is_string()
    );
    let tests = results["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 9);
    let (mut max, mut score) = (0.0, 0.0);
    for test in tests {
        assert!(test["name"].is_string() && test["output"].is_string(), "{test:#}");
        assert!(["passed", "failed"].contains(&test["status"].as_str().unwrap()), "{test:#}");
        assert!(["visible", "hidden"].contains(&test["visibility"].as_str().unwrap()), "{test:#}");
        max += test["max_score"].as_f64().unwrap();
        score += test["score"].as_f64().unwrap();
    }
    assert!((max - 20.0_f64).abs() < 1e-9, "the tests' points add up to {max}");
    assert!((score - results["score"].as_f64().unwrap()).abs() < 1e-9);
    // ivy-crash fails tests 03 and 08 by crashing, and says why.
    assert_eq!(tests[2]["status"], "failed");
    assert!(tests[2]["output"].as_str().unwrap().contains("out_of_range"), "{:#}", tests[2]);
    assert_eq!(tests[8]["visibility"], "hidden");
    assert_eq!(tests[0]["visibility"], "visible");
    let overview = results["output"].as_str().unwrap();
    assert!(overview.starts_with("C\\+\\+: 7 of 9 tests passed.\n"), "{overview}");
    assert_eq!(results["output_format"], "md");
}

#[test]
fn gradescope_says_why_when_grading_cannot_be_done() {
    if !runnable(false) {
        return;
    }
    let platform = gradescope("ada-c");
    for test in fs::read_dir(platform.root().join("source/tests")).unwrap() {
        fs::remove_file(test.unwrap().path()).unwrap();
    }
    let run = platform.run(&platform.root().join("run_autograder"));
    assert!(
        run.status.success(),
        "run_autograder always ends well: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let results = platform.results();
    assert_eq!(results["score"], 0.0);
    assert_eq!(results["tests"], serde_json::json!([]));
    let output = results["output"].as_str().unwrap();
    assert!(
        output.starts_with("The autograder could not grade this submission:\n\n```text\n")
            && output.contains("no tests"),
        "{output}"
    );
}

#[test]
fn the_github_grading_step_runs_as_an_ordinary_user() {
    if !runnable(true) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    if fs::metadata(dir.path().parent().unwrap()).unwrap().permissions().mode() & 0o001 == 0 {
        crate::util::skip("the temporary directory cannot be passed through by another user");
        return;
    }
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
    let referee = install(&dir.path().join("build"));
    // Java, as an ordinary user has no memory cgroup: the JVM must fit under
    // the address-space limit.
    let repo = dir.path().join("dev");
    copy_dir(&fixture("class/students/dev-java"), &repo);
    let made = Command::new(&referee)
        .args(["autograder", "github", "--tests"])
        .arg(fixture("class/tests"))
        .args(["--time", "5", "--glibc", &this_glibc(), "--binary"])
        .arg(&referee)
        .arg("--out-dir")
        .arg(&repo)
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let workflow = fs::read_to_string(repo.join(".github/workflows/grade.yml")).unwrap();
    assert!(workflow.contains(".github/ttt-referee/grade"), "{workflow}");
    let uid = unused_uid();
    for made in ["home", "tmp", "report"] {
        fs::create_dir(dir.path().join(made)).unwrap();
    }
    let status =
        Command::new("chown").arg("-R").arg(format!("{uid}:{uid}")).arg(dir.path()).status().unwrap();
    assert!(status.success());
    let run = Command::new("setpriv")
        .arg(format!("--reuid={uid}"))
        .arg(format!("--regid={uid}"))
        .args(["--clear-groups", "--"])
        .arg(repo.join(".github/ttt-referee/grade"))
        .current_dir(&repo)
        .env("HOME", dir.path().join("home"))
        .env("TMPDIR", dir.path().join("tmp"))
        .env("TTT_REPORT", dir.path().join("report"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(0), "{stdout}\n{}", String::from_utf8_lossy(&run.stderr));
    assert!(stdout.contains("dev ") && stdout.contains("Java (ttt.Main)"), "{stdout}");
    let results: serde_json::Value =
        serde_json::from_slice(&fs::read(dir.path().join("report/results.json")).unwrap()).unwrap();
    assert_eq!(results["submissions"][0]["score"], 100.0);
    assert_eq!(fs::read_dir(dir.path().join("tmp")).unwrap().count(), 0, "the grader left its scratch");
}

#[test]
fn gradescope_grades_functions_one_by_one_with_no_tests_directory() {
    if !runnable(false) {
        return;
    }
    let platform = Platform { dir: tempfile::tempdir().unwrap() };
    let referee = install(&platform.dir.path().join("build"));
    let zip = platform.dir.path().join("autograder.zip");
    let made = Command::new(&referee)
        .args(["autograder", "gradescope", "--api", "xtreme", "--cases", "20", "--glibc", &this_glibc()])
        .arg("--binary")
        .arg(&referee)
        .arg("-o")
        .arg(&zip)
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    assert!(String::from_utf8_lossy(&made.stderr).contains("(functions graded one by one)"));
    let root = platform.root();
    unzip(&zip, &root.join("source"));
    assert!(!root.join("source/tests").exists());
    copy_dir(&fixture("api/xtreme/kit-tuple"), &root.join("submission"));
    let setup = platform.run(&root.join("source/setup.sh"));
    assert!(setup.status.success(), "setup.sh: {}", String::from_utf8_lossy(&setup.stderr));
    fs::copy(root.join("source/run_autograder"), root.join("run_autograder")).unwrap();
    let run = platform.run(&root.join("run_autograder"));
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let results = platform.results();
    let tests = results["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 12);
    assert_eq!(tests[1]["name"], "parse_move");
    assert_eq!(tests[1]["status"], "failed");
    let output = tests[1]["output"].as_str().unwrap();
    assert!(
        output.contains("The smallest failing call") && output.contains("parse_move(\"2,1\")"),
        "{output}"
    );
    let overview = results["output"].as_str().unwrap();
    assert!(overview.starts_with("Python \\(asn3\\.py\\): 11 of 12 tests passed.\n"), "{overview}");
}

/// `--output` (the top level's name for the one file a command writes) is
/// the zip's, and `--out`, the old spelling, still works: the command that
/// was refused with a tip towards `--output-name` now builds the zip.
#[test]
fn gradescope_writes_its_zip_to_output() {
    let dir = tempfile::tempdir().unwrap();
    for flag in ["--output", "-o", "--out"] {
        let zip = dir.path().join(format!("x{flag}.zip"));
        let out = crate::util::referee()
            .args([
                "autograder",
                "gradescope",
                "--tests",
                "fixtures/class/tests",
                "--glibc",
                &this_glibc(),
                flag,
            ])
            .arg(&zip)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{flag}: {stderr}");
        assert!(stderr.contains(&format!("ttt-referee: wrote {} (9 tests)", zip.display())), "{stderr}");
        let unpacked = dir.path().join(format!("unpacked{flag}"));
        unzip(&zip, &unpacked);
        let run = fs::read_to_string(unpacked.join("run_autograder")).unwrap();
        assert!(run.contains(" grade --tests \"$root/source/tests\"  --gradescope \"$results\""), "{run}");
        assert!(!run.contains("-name") && !run.contains("-file"), "{run}");
    }
}

/// The newest `GLIBC_x.y` that `readelf -V` (binutils) lists for `path`:
/// a reading of the ELF file independent of ours, if readelf is here.
fn readelf_newest_glibc(path: &Path) -> Option<Glibc> {
    let out = Command::new("readelf").arg("-V").arg(path).output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .filter_map(|word| word.strip_prefix("GLIBC_")?.parse::<Glibc>().ok())
        .max()
}

/// A program `gcc -static` built into `dir` as `name`, or `None` (said
/// on standard error) when this machine cannot build one.
fn static_c_program(dir: &Path, name: &str) -> Option<PathBuf> {
    let source = dir.join("hello.c");
    fs::write(&source, "#include <stdio.h>\nint main(void) { puts(\"hello\"); return 0; }\n").unwrap();
    let program = dir.join(name);
    match Command::new("gcc").arg("-static").arg("-o").arg(&program).arg(&source).output() {
        Ok(out) if out.status.success() => Some(program),
        _ => {
            crate::util::skip("in part: gcc -static cannot build here");
            None
        }
    }
}

#[test]
fn the_binaries_linking_is_read_from_their_elf_files() {
    // The test's own build: linked against this machine's glibc (2.34 or
    // newer for any binary linked today: __libc_start_main@GLIBC_2.34).
    let built = Path::new(env!("CARGO_BIN_EXE_ttt-referee"));
    let Linking::Dynamic(Some(needs)) = portable::linking(&fs::read(built).unwrap()).unwrap() else {
        panic!("the test binary should be dynamic, needing a versioned glibc");
    };
    assert!(needs >= Glibc(2, 34), "{needs}");
    if let Some(readelf) = readelf_newest_glibc(built) {
        assert_eq!(needs, readelf, "readelf -V disagrees");
    }
    assert_eq!(
        portable::check(&fs::read(built).unwrap(), portable::GRADESCOPE).unwrap_err().to_string(),
        format!("needs glibc {needs}, and Gradescope's oldest base image (Ubuntu 18.04) has 2.27")
    );
    let dir = tempfile::tempdir().unwrap();
    if let Some(program) = static_c_program(dir.path(), "hello") {
        let bytes = fs::read(&program).unwrap();
        assert_eq!(portable::linking(&bytes), Ok(Linking::Static));
        assert_eq!(portable::check(&bytes, portable::GRADESCOPE), Ok(Linking::Static));
    }
}

/// `autograder gradescope` with `args` (the class's tests, the zip in
/// `dir`): its exit status and standard error, and whether it wrote the zip.
fn package(dir: &Path, args: &[&std::ffi::OsStr]) -> (Option<i32>, String, bool) {
    let zip = dir.join("autograder.zip");
    let out = referee()
        .args(["autograder", "gradescope", "--tests", "fixtures/class/tests", "-o"])
        .arg(&zip)
        .args(args)
        .output()
        .unwrap();
    (out.status.code(), String::from_utf8(out.stderr).unwrap(), zip.exists())
}

#[test]
fn gradescope_refuses_a_binary_its_oldest_image_cannot_start_and_says_how_to_build_one() {
    let dir = tempfile::tempdir().unwrap();
    let built = Path::new(env!("CARGO_BIN_EXE_ttt-referee"));
    let Ok(Linking::Dynamic(Some(needs))) = portable::linking(&fs::read(built).unwrap()) else {
        panic!("the test binary should be dynamic");
    };
    let repository = env!("CARGO_MANIFEST_DIR");
    let refusal = |path: &Path, why: &str| {
        format!(
            "ttt-referee: {}: {why}; it would not start there. Build a statically linked ttt-referee \
             and ttt-guard, which start on any x86-64 Linux, into ttt-static/bin/ (this works from any \
             directory; if {repository} has moved, put your clone's path there):\n  cargo install --locked \
             --path {repository} --root ttt-static --target x86_64-unknown-linux-gnu --config \
             'target.x86_64-unknown-linux-gnu.rustflags=[\"-C\",\"target-feature=+crt-static\"]'\nthen pass \
             --binary ttt-static/bin/ttt-referee (or, if every image it will run on is newer, give that \
             image's glibc with --glibc: Ubuntu 22.04 has 2.35, 24.04 has 2.39)\n",
            path.display()
        )
    };
    // Run from this build, and given it with --binary: refused the same way.
    let (status, stderr, wrote) = package(dir.path(), &[]);
    assert_eq!((status, wrote), (Some(2), false), "{stderr}");
    let why = format!("needs glibc {needs}, and Gradescope's oldest base image (Ubuntu 18.04) has 2.27");
    assert_eq!(stderr, refusal(built, &why));
    let (status, stderr, _) = package(dir.path(), &["--binary".as_ref(), built.as_os_str()]);
    assert_eq!((status, stderr), (Some(2), refusal(built, &why)));
    // Told the image is one whose glibc is older than the binary needs.
    let older = format!("{}.{}", needs.0, needs.1 - 1);
    let (status, stderr, _) = package(dir.path(), &["--glibc".as_ref(), older.as_ref()]);
    let why = format!("needs glibc {needs}, and the image --glibc names has {older}");
    assert_eq!((status, stderr), (Some(2), refusal(built, &why)));
    // Told the image has the glibc it needs: packaged.
    let (status, stderr, wrote) = package(dir.path(), &["--glibc".as_ref(), needs.to_string().as_ref()]);
    assert_eq!((status, wrote), (Some(0), true), "{stderr}");
    // Not a Linux executable at all.
    let script = dir.path().join("ttt-referee");
    fs::write(&script, "#!/bin/sh\n").unwrap();
    let (status, stderr, _) = package(dir.path(), &["--binary".as_ref(), script.as_os_str()]);
    assert_eq!((status, stderr), (Some(2), refusal(&script, "is not a 64-bit Linux executable")));
    // A version that is not one.
    let (status, stderr, _) = package(dir.path(), &["--glibc".as_ref(), "2.x".as_ref()]);
    assert_eq!(status, Some(2));
    assert!(
        stderr.starts_with(
            "error: invalid value '2.x' for '--glibc <X.Y>': expected a glibc version such as 2.35\n"
        ),
        "{stderr}"
    );
}

#[test]
fn gradescope_packages_static_binaries_whatever_binary_it_runs_from() {
    let dir = tempfile::tempdir().unwrap();
    let Some(referee_stand_in) = static_c_program(dir.path(), "ttt-referee") else { return };
    fs::copy(&referee_stand_in, dir.path().join("ttt-guard")).unwrap();
    let (status, stderr, wrote) = package(dir.path(), &["--binary".as_ref(), referee_stand_in.as_os_str()]);
    assert_eq!((status, wrote), (Some(0), true), "{stderr}");
    let mut archive =
        zip::ZipArchive::new(fs::File::open(dir.path().join("autograder.zip")).unwrap()).unwrap();
    for name in ["bin/ttt-referee", "bin/ttt-guard"] {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut archive.by_name(name).unwrap(), &mut bytes).unwrap();
        assert_eq!(portable::check(&bytes, portable::GRADESCOPE), Ok(Linking::Static), "{name}");
    }
}

/// The workflow `autograder github` writes, byte for byte
/// (`fixtures/classroom/grade.yml`), and as YAML (read by python3's yaml,
/// where it is here): the name and the one job GitHub Classroom takes points
/// from, and the grading step's result given to Classroom's reporter.
#[test]
fn the_github_workflow_is_the_golden_one_and_parses() {
    let dir = tempfile::tempdir().unwrap();
    let out = referee()
        .args([
            "autograder",
            "github",
            "--tests",
            "fixtures/class/tests",
            "--glibc",
            &this_glibc(),
            "--out-dir",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let workflow = dir.path().join(".github/workflows/grade.yml");
    assert_eq!(
        fs::read_to_string(&workflow).unwrap(),
        fs::read_to_string(fixture("classroom/grade.yml")).unwrap()
    );
    let check = "import json, sys, yaml\n\
                 w = yaml.safe_load(open(sys.argv[1]))\n\
                 steps = w['jobs']['run-autograding-tests']['steps']\n\
                 print(json.dumps([w['name'], list(w['jobs']), [s.get('id') for s in steps], steps[2]]))";
    match Command::new("python3").args(["-c", check]).arg(&workflow).output() {
        Ok(parsed) if parsed.status.success() => {
            let parsed: serde_json::Value = serde_json::from_slice(&parsed.stdout).unwrap();
            assert_eq!(parsed[0], "Autograding Tests");
            assert_eq!(parsed[1], serde_json::json!(["run-autograding-tests"]));
            assert_eq!(parsed[2], serde_json::json!([null, "grade", null, null]));
            assert_eq!(parsed[3]["uses"], "classroom-resources/autograding-grading-reporter@v1");
            assert_eq!(parsed[3]["env"]["GRADE_RESULTS"], "${{ steps.grade.outputs.result }}");
            assert_eq!(parsed[3]["with"]["runners"], "grade");
        }
        _ => eprintln!("the YAML not parsed: python3 with yaml is not here"),
    }
}

/// The grading step as GitHub runs it, on a failing student, with
/// `GITHUB_STEP_SUMMARY` and `GITHUB_OUTPUT` set (not as root through sudo:
/// `GITHUB_ACTIONS` is not set): the summary is the Markdown table and the
/// failing tests' details, the output Classroom's reporter reads.
#[test]
fn the_github_grading_step_leaves_a_markdown_summary_and_the_points() {
    if !runnable(false) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("ivy");
    copy_dir(&fixture("class/students/ivy-crash"), &repo);
    let made = referee()
        .args(["autograder", "github", "--tests", "fixtures/class/tests", "--points", "20", "--time", "5"])
        .args(["--glibc", &this_glibc(), "--out-dir"])
        .arg(&repo)
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let (summary, output) = (dir.path().join("summary.md"), dir.path().join("output"));
    fs::write(&summary, "earlier steps' summary\n").unwrap();
    let run = Command::new(repo.join(".github/ttt-referee/grade"))
        .current_dir(&repo)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("GITHUB_OUTPUT", &output)
        .env("TTT_REPORT", dir.path().join("report"))
        .env_remove("GITHUB_ACTIONS")
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1), "{}", String::from_utf8_lossy(&run.stderr));
    let summary = fs::read_to_string(&summary).unwrap();
    let expected_start = "earlier steps' summary\n\
        ### C\\+\\+: 7 of 9 tests passed (15.56 of 20 points)\n\n\
        | test | verdict | points | detail |\n| --- | --- | ---: | --- |\n\
        | 01\\-sample\\-cat\\.txt | pass | 2.23 / 2.23 | all 40 non\\-blank lines match |\n";
    assert!(summary.starts_with(expected_start), "{summary}");
    for part in [
        "| 03\\-x\\-wins\\-column\\.txt | **crashed** | 0 / 2.22 | was killed by SIGABRT |\n",
        "#### 03\\-x\\-wins\\-column\\.txt: crashed\n\nwas killed by SIGABRT\n\nThe end of its standard error:\n\n```text\nterminate called after throwing an instance of 'std::out_of_range'\n",
        "The smallest game that still fails (6 of the test's 7 move lines): crashed, was killed by SIGABRT\n\n```text\nTic-Tac-Toe Game Data\n",
        "#### 08\\-every\\-violation\\.txt: crashed\n",
    ] {
        assert!(summary.contains(part), "{part}\nnot in\n{summary}");
    }
    let output = fs::read_to_string(&output).unwrap();
    let encoded = output.strip_prefix("result=").and_then(|o| o.strip_suffix('\n')).expect(&output);
    let decoded = Command::new("base64")
        .arg("-d")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut decoded.stdin.as_ref().unwrap(), encoded.as_bytes()).unwrap();
    let decoded = decoded.wait_with_output().unwrap();
    let result: serde_json::Value = serde_json::from_slice(&decoded.stdout).unwrap();
    assert_eq!(
        (&result["status"], &result["max_score"]),
        (&serde_json::json!("fail"), &serde_json::json!(20.0))
    );
    let tests = result["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 9);
    let points: f64 = tests.iter().map(|t| t["score"].as_f64().unwrap()).sum();
    assert!((points - 15.56).abs() < 1e-9, "{points}");
    assert_eq!(tests[2]["status"], "fail");
    assert_eq!(tests[2]["message"], "crashed: was killed by SIGABRT");
}

#[test]
fn classroom_feedback_is_for_one_submission_and_says_why_grading_could_not_be_done() {
    let dir = tempfile::tempdir().unwrap();
    let out = referee()
        .args(["grade", "--tests", "fixtures/class/tests", "--classroom"])
        .arg(dir.path())
        .args(["fixtures/class/students/ada-c", "fixtures/class/students/ivy-crash"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "ttt-referee: --classroom writes the feedback of one submission; 2 were given\n"
    );
    let empty = tempfile::tempdir().unwrap();
    let out = referee()
        .args(["grade", "--points", "20", "--tests"])
        .arg(empty.path())
        .arg("--classroom")
        .arg(dir.path())
        .arg("fixtures/class/students/ada-c")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let why =
        String::from_utf8_lossy(&out.stderr).trim_end().strip_prefix("ttt-referee: ").unwrap().to_owned();
    assert_eq!(
        fs::read_to_string(dir.path().join("summary.md")).unwrap(),
        format!("### The grading could not be done\n\n```text\n{why}\n```\n\nPlease tell your instructor.\n")
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("result.json")).unwrap(),
        "{\"version\":1,\"status\":\"error\",\"max_score\":20.0,\"tests\":[]}\n"
    );
}

/// `autograder try` runs a Gradescope zip's `setup.sh` and `run_autograder` on
/// a submission in a scratch `autograder/` and prints `results.json`'s score
/// and tests; and a GitHub template's grading step, with its summary.
#[test]
fn autograder_try_runs_the_zip_and_the_template_as_their_platforms_do() {
    if !runnable(false) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let binary = install(&dir.path().join("build"));
    let zip = dir.path().join("autograder.zip");
    let made = Command::new(&binary)
        .args(["autograder", "gradescope", "--tests"])
        .arg(fixture("class/tests"))
        .args(["--points", "20", "--hidden", "09-*", "--time", "5", "--glibc", &this_glibc(), "--binary"])
        .arg(&binary)
        .arg("-o")
        .arg(&zip)
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let tried = referee()
        .args(["autograder", "try"])
        .arg(&zip)
        .arg("fixtures/class/students/ivy-crash")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&tried.stdout);
    assert_eq!(tried.status.code(), Some(0), "{stdout}\n{}", String::from_utf8_lossy(&tried.stderr));
    assert!(
        stdout.contains("as Gradescope does\nsetup.sh: exit status 0\nrun_autograder: exit status 0\n"),
        "{stdout}"
    );
    assert!(stdout.contains("score: 15.56 of 20.00, 9 tests\n"), "{stdout}");
    assert!(stdout.contains("  failed  03-"), "{stdout}");
    assert!(stdout.contains("(hidden)"), "{stdout}");
    // results.json's output as written: Markdown.
    // Gradescope's Markdown read back for the terminal: no escapes.
    assert!(stdout.contains("output: C++: 7 of 9 tests passed."), "{stdout}");

    let repo = dir.path().join("template");
    let made = Command::new(&binary)
        .args(["autograder", "github", "--tests"])
        .arg(fixture("class/tests"))
        .args(["--time", "5", "--glibc", &this_glibc(), "--binary"])
        .arg(&binary)
        .arg("--out-dir")
        .arg(&repo)
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let tried = referee()
        .args(["autograder", "try"])
        .arg(&repo)
        .arg("fixtures/class/students/ivy-crash")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&tried.stdout);
    assert_eq!(tried.status.code(), Some(0), "{stdout}\n{}", String::from_utf8_lossy(&tried.stderr));
    // The step exits 1: a test failed.
    assert!(stdout.contains("as GitHub does\ngrade: exit status 1\n"), "{stdout}");
    assert!(stdout.contains("7 of 9"), "{stdout}");

    // Neither a zip nor a template: said, exit status 2.
    let tried = referee()
        .args(["autograder", "try", "fixtures", "fixtures/class/students/ivy-crash"])
        .output()
        .unwrap();
    assert_eq!(tried.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&tried.stderr).contains("neither a Gradescope zip"));
}
