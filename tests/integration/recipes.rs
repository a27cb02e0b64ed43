//! The fleet recipes of `examples/fleet/` (GUIDE.md, "Past one machine"),
//! run here as their fleet would run them: the GitHub Actions workflow's
//! own `run:` steps, read from its YAML, each matrix part in its own
//! workspace and process, a plain copy standing in for the artifacts; the
//! Slurm scripts with the array's variables set, a task a process; the
//! Kubernetes Indexed Job's command with `JOB_COMPLETION_INDEX` from 0.
//! Each part runs as a user of its own when the tests run as root (through
//! `setpriv`), writing only what that user owns. The merged reports are
//! compared with one unsplit run's, byte for byte but for the runs' times.
//! And GUIDE.md quotes every recipe as its file is, byte for byte.

use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use yaml_rust2::{Yaml, YamlLoader};

use crate::autograder::copy_dir;
use crate::util::{files, first_difference, fixture, kept_dir, root, skip};

/// The class every recipe grades: part of `fixtures/class` (C, C++ and
/// Python; passing, wrong, crashed, unbuilt and silent submissions).
const STUDENTS: [&str; 8] =
    ["ada-c", "fay-order", "gus-nocat", "hal-spacing", "ivy-crash", "kim-compile", "max-stdout", "ned-stale"];

/// The options every recipe grades with.
const OPTIONS: &str = "--tests tests/ --seed 42 --shrink-time 60";

/// A runner's `PATH`: the system's directories only, so the grader is found
/// only where the recipe puts it.
const SYSTEM_PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/// A recipe's text.
fn recipe(name: &str) -> String {
    fs::read_to_string(root().join("examples/fleet").join(name)).unwrap()
}

#[test]
fn the_guide_quotes_every_recipe_byte_for_byte() {
    let guide = fs::read_to_string(root().join("GUIDE.md")).unwrap();
    let lines: Vec<&str> = guide.split_inclusive('\n').collect();
    let mut quoted = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(name) = line.strip_prefix("`examples/fleet/").and_then(|l| l.strip_suffix("`:\n")) else {
            continue;
        };
        assert_eq!(lines[i + 1], "\n", "GUIDE.md line {}: a blank line, then the quote", i + 2);
        assert!(lines[i + 2].starts_with("```"), "GUIDE.md line {}: the quote of {name}", i + 3);
        let end = i + 3 + lines[i + 3..].iter().position(|l| *l == "```\n").expect("the quote's end");
        let quote = lines[i + 3..end].concat();
        let file = recipe(name);
        assert!(
            quote == file,
            "GUIDE.md's quote of examples/fleet/{name} is not the file: {}",
            first_difference(quote.as_bytes(), file.as_bytes())
        );
        quoted.push(name.to_owned());
    }
    quoted.sort();
    let mut files: Vec<String> = fs::read_dir(root().join("examples/fleet"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(quoted, files, "GUIDE.md quotes every recipe once");
}

/// Users `count` processes can run as, none in /etc/passwd or /etc/group:
/// `None` each when the tests do not run as root (they then run as this
/// user, and say so).
fn users(test: &str, count: usize) -> Vec<Option<u32>> {
    if !nix::unistd::geteuid().is_root() {
        skip(&format!("{test}: not root, so every part runs as this user, not as a user of its own"));
        return vec![None; count];
    }
    if Command::new("setpriv").arg("--version").output().is_err() {
        skip(&format!("{test}: no setpriv, so every part runs as root, not as a user of its own"));
        return vec![None; count];
    }
    let taken = crate::install::taken_ids();
    // Apart from the ones other tests take (61000 and up, by process id).
    (62_000..).filter(|uid| !taken.contains(uid)).take(count).map(Some).collect()
}

/// `path` and everything under it given to `uid` (when there is one).
fn give(path: &Path, uid: Option<u32>) {
    if let Some(uid) = uid {
        let status = Command::new("chown").arg("-R").arg(format!("{uid}:{uid}")).arg(path).status().unwrap();
        assert!(status.success());
    }
}

/// One machine of a fleet: a user, with a home and a scratch directory of
/// its own.
struct Machine {
    uid: Option<u32>,
    home: PathBuf,
}

impl Machine {
    fn new(dir: &Path, name: &str, uid: Option<u32>) -> Machine {
        let home = dir.join(format!("home-{name}"));
        fs::create_dir_all(home.join("tmp")).unwrap();
        give(&home, uid);
        Machine { uid, home }
    }

    /// `program` with `args`, run in `cwd` as this machine's user, with
    /// `path` before the system's directories in `PATH`.
    fn command(&self, program: &str, args: &[&str], cwd: &Path, path: &[PathBuf]) -> Command {
        let mut command = match self.uid {
            Some(uid) => {
                let mut c = Command::new("setpriv");
                c.arg(format!("--reuid={uid}")).arg(format!("--regid={uid}")).args(["--clear-groups", "--"]);
                c.arg(program);
                c
            }
            None => Command::new(program),
        };
        let mut search: Vec<String> = path.iter().map(|p| p.display().to_string()).collect();
        search.push(SYSTEM_PATH.to_owned());
        command
            .args(args)
            .current_dir(cwd)
            .env_clear()
            .env("PATH", search.join(":"))
            .env("HOME", &self.home)
            .env("TMPDIR", self.home.join("tmp"))
            .env("LANG", "C.UTF-8");
        command
    }
}

/// A part's report was written by its own user (when the parts run as
/// users of their own).
fn written_by(part: &Path, uid: Option<u32>) {
    use std::os::unix::fs::MetadataExt;
    let file = part.join("part.json");
    let owner = fs::metadata(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display())).uid();
    if let Some(uid) = uid {
        assert_eq!(owner, uid, "{} written by its part's user", file.display());
    }
}

/// What ran, for a failure's message.
fn said(output: &Output) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// A fleet's shared place: the grader's binaries in `bin/`, readable by
/// every user.
struct Fleet {
    dir: tempfile::TempDir,
    bin: PathBuf,
    /// What a checkout of the recipe's repository puts in a workspace.
    repository: Box<dyn Fn(&Path) + Send + Sync>,
}

impl Fleet {
    fn new(repository: impl Fn(&Path) + Send + Sync + 'static) -> Fleet {
        let dir = kept_dir();
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
        let bin = dir.path().join("bin");
        fs::create_dir(&bin).unwrap();
        for (name, built) in [
            ("ttt-referee", env!("CARGO_BIN_EXE_ttt-referee")),
            ("ttt-guard", env!("CARGO_BIN_EXE_ttt-guard")),
        ] {
            symlink(built, bin.join(name)).unwrap();
        }
        Fleet { dir, bin, repository: Box::new(repository) }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }
}

/// The class (its tests and submissions) copied into `to`, given to
/// `uid`: a checkout, or the shared filesystem.
fn class_into(to: &Path, uid: Option<u32>) {
    copy_dir(&fixture("class/tests"), &to.join("tests"));
    for student in STUDENTS {
        copy_dir(&fixture(&format!("class/students/{student}")), &to.join("students").join(student));
    }
    give(to, uid);
}

/// The class graded whole on one machine, as a user of its own when root:
/// `grade` with the options every recipe gives, its report directory.
fn whole() -> &'static Path {
    static WHOLE: OnceLock<(Fleet, PathBuf)> = OnceLock::new();
    let (_, report) = WHOLE.get_or_init(|| {
        for name in ["grade.yml", "grade.sbatch", "grade-job.yaml"] {
            let text = recipe(name);
            let text = text.split_whitespace().filter(|w| *w != "\\").collect::<Vec<_>>().join(" ");
            assert!(text.contains(&format!("ttt-referee grade {OPTIONS} ")), "{name}: {text}");
        }
        let fleet = Fleet::new(|_| {});
        let uid = users("the unsplit grading", 1)[0];
        let class = fleet.path().join("class");
        class_into(&class, uid);
        let machine = Machine::new(fleet.path(), "whole", uid);
        let output = machine
            .command(
                "sh",
                &["-c", &format!("ttt-referee grade {OPTIONS} --report whole students/*")],
                &class,
                std::slice::from_ref(&fleet.bin),
            )
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{}", said(&output));
        let report = class.join("whole");
        (fleet, report)
    });
    report
}

/// The merged reports in `merged` are the unsplit run's, but for times.
fn same_as_whole(merged: &Path) {
    crate::fleet::same_reports(whole(), merged);
}

/// The secret the tournament's workflow seals its records with, as the
/// test's repository would hold it.
const RECORD_KEY: &str = "the-recipes-test-record-key";

/// `${{ matrix.part }}` and `${{ secrets.RECORD_KEY }}` put in, as GitHub
/// does; no other expression is expected.
fn expand(text: &str, part: Option<&str>) -> String {
    let text = match part {
        Some(part) => text.replace("${{ matrix.part }}", part),
        None => text.to_owned(),
    };
    let text = text.replace("${{ secrets.RECORD_KEY }}", RECORD_KEY);
    assert!(!text.contains("${{"), "an expression the test does not know: {text}");
    text
}

/// A copy of `from` in `to`, whole (an artifact uploaded or downloaded).
fn copy(from: &Path, to: &Path) {
    assert!(from.is_dir(), "{}: no such directory to copy", from.display());
    copy_dir(from, to);
}

/// One job of the workflow, run on `machine` in `workspace` with the
/// matrix's `part` (if any): its steps in order, as GitHub runs them —
/// `run:` through `bash --noprofile --norc -eo pipefail`, `GITHUB_PATH`
/// read after each; `actions/checkout` the fleet's repository;
/// upload and download of artifacts a copy to and from `artifacts`.
fn github_job(
    fleet: &Fleet,
    workflow: &Yaml,
    job: &Yaml,
    part: Option<&str>,
    machine: &Machine,
    workspace: &Path,
    artifacts: &Path,
) {
    let env: Vec<(String, String)> = workflow["env"]
        .as_hash()
        .into_iter()
        .flatten()
        .map(|(k, v)| (k.as_str().unwrap().to_owned(), expand(v.as_str().unwrap(), part)))
        .collect();
    fs::create_dir_all(workspace).unwrap();
    let github_path = machine.home.join("github_path");
    fs::write(&github_path, "").unwrap();
    give(&github_path, machine.uid);
    for step in job["steps"].as_vec().expect("the job's steps") {
        if let Some(script) = step["run"].as_str() {
            let script = expand(script, part);
            // Each line of GITHUB_PATH goes before the PATH, the last first.
            let mut path: Vec<PathBuf> =
                fs::read_to_string(&github_path).unwrap().lines().rev().map(PathBuf::from).collect();
            path.dedup();
            let mut command = machine.command(
                "bash",
                &["--noprofile", "--norc", "-eo", "pipefail", "-c", &script],
                workspace,
                &path,
            );
            command.envs(env.iter().map(|(k, v)| (k, v)));
            let output = command.env("GITHUB_PATH", &github_path).output().unwrap();
            assert!(output.status.success(), "part {part:?}: `{script}`: {}", said(&output));
            continue;
        }
        let action = step["uses"].as_str().expect("a step runs or uses");
        let with = &step["with"];
        match action.split('@').next().unwrap() {
            "actions/checkout" => {
                (fleet.repository)(workspace);
                give(workspace, machine.uid);
            }
            "actions/upload-artifact" => {
                let name = expand(with["name"].as_str().unwrap(), part);
                let path = expand(with["path"].as_str().unwrap(), part);
                copy(&workspace.join(path), &artifacts.join(name));
            }
            // One artifact by name, into `path`: the kept builds.
            "actions/download-artifact" if with["name"].as_str().is_some() => {
                let name = with["name"].as_str().unwrap();
                let path = with["path"].as_str().unwrap_or(".");
                copy(&artifacts.join(name), &workspace.join(path));
                give(workspace, machine.uid);
            }
            "actions/download-artifact" => {
                let pattern = with["pattern"].as_str().unwrap();
                let prefix = pattern.strip_suffix('*').expect("a pattern `NAME*`");
                for entry in fs::read_dir(artifacts).unwrap() {
                    let name = entry.unwrap().file_name().to_string_lossy().into_owned();
                    if name.starts_with(prefix) {
                        copy(&artifacts.join(&name), &workspace.join(&name));
                    }
                }
                give(workspace, machine.uid);
            }
            other => panic!("an action the test does not stand in for: {other}"),
        }
    }
}

/// Runs the workflow `name` as GitHub would: its matrix job once a part,
/// every part at once, each its own runner and user; then the job that
/// needs it. The merge job's workspace and the artifacts' directory.
fn run_workflow(fleet: &Fleet, name: &str) -> (PathBuf, PathBuf) {
    let workflow = &YamlLoader::load_from_str(&recipe(name)).unwrap()[0];
    let jobs: Vec<(&Yaml, &Yaml)> = workflow["jobs"].as_hash().unwrap().iter().collect();
    let [before @ .., play, merge] = jobs.as_slice() else { panic!("{name}: a parts job and a merge job") };
    assert_eq!(merge.1["needs"].as_str(), play.0.as_str(), "{name}: the merge waits for the parts");
    let artifacts = fleet.path().join("artifacts");
    fs::create_dir(&artifacts).unwrap();
    // A job before the parts' (the tournament's build), on a runner of its own.
    for (job, runs) in before {
        let job = job.as_str().unwrap();
        assert_eq!(play.1["needs"].as_str(), Some(job), "{name}: the parts wait for {job}");
        let uid = users(&format!("the GitHub Actions workflow {name}'s {job}"), 1)[0];
        let machine = Machine::new(fleet.path(), job, uid);
        let workspace = fleet.path().join(job);
        fs::create_dir(&workspace).unwrap();
        give(&workspace, uid);
        github_job(fleet, workflow, runs, None, &machine, &workspace, &artifacts);
    }
    let play = play.1;
    let parts: Vec<String> = play["strategy"]["matrix"]["part"]
        .as_vec()
        .unwrap()
        .iter()
        .map(|p| p.as_i64().unwrap().to_string())
        .collect();
    assert_eq!(parts, ["1", "2", "3", "4"]);
    let uids = users(&format!("the GitHub Actions workflow {name}"), parts.len() + 1);
    // Every part at once, each its own runner.
    std::thread::scope(|scope| {
        for (part, uid) in parts.iter().zip(&uids) {
            let artifacts = &artifacts;
            scope.spawn(move || {
                let machine = Machine::new(fleet.path(), &format!("part-{part}"), *uid);
                let workspace = fleet.path().join(format!("part-{part}"));
                fs::create_dir(&workspace).unwrap();
                give(&workspace, *uid);
                github_job(fleet, workflow, play, Some(part), &machine, &workspace, artifacts);
                let written = workspace.join(format!("part-{part}"));
                if written.join("part.json").exists() {
                    written_by(&written, *uid);
                }
            });
        }
    });
    let uploaded: Vec<String> = fs::read_dir(&artifacts)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("part-"))
        .collect();
    assert_eq!(uploaded.len(), parts.len(), "{uploaded:?}");
    let merger = Machine::new(fleet.path(), "merge", uids[parts.len()]);
    let workspace = fleet.path().join("merge");
    fs::create_dir(&workspace).unwrap();
    give(&workspace, merger.uid);
    github_job(fleet, workflow, merge.1, None, &merger, &workspace, &artifacts);
    (workspace, artifacts)
}

/// The grader's binaries in `workspace/ttt-static/bin/`, as the recipes'
/// repository holds them.
fn grader_in(workspace: &Path) {
    let bin = workspace.join("ttt-static/bin");
    fs::create_dir_all(&bin).unwrap();
    for (name, built) in
        [("ttt-referee", env!("CARGO_BIN_EXE_ttt-referee")), ("ttt-guard", env!("CARGO_BIN_EXE_ttt-guard"))]
    {
        symlink(built, bin.join(name)).unwrap();
    }
}

#[test]
fn the_github_actions_workflow_runs_its_parts_and_merges_to_the_whole() {
    let fleet = Fleet::new(|workspace| {
        grader_in(workspace);
        class_into(workspace, None);
    });
    let (workspace, artifacts) = run_workflow(&fleet, "grade.yml");
    same_as_whole(&workspace.join("report"));
    assert!(artifacts.join("report/report.html").is_file(), "the merged report is kept");
}

/// The bots the tournament recipe plays (deterministic ones: a game played
/// twice is played the same).
const BOTS: [&str; 4] = ["crash", "first-c", "first-python", "pattern-python"];

#[test]
fn the_tournament_workflow_runs_its_parts_and_merges_to_the_whole_byte_for_byte() {
    let fleet = Fleet::new(|workspace| {
        grader_in(workspace);
        for bot in BOTS {
            copy_dir(&fixture(&format!("bots/{bot}")), &workspace.join("bots").join(bot));
        }
    });
    let (workspace, artifacts) = run_workflow(&fleet, "tournament.yml");
    // The same tournament on one machine, under the same key.
    let uid = users("the unsplit tournament", 1)[0];
    let one = fleet.path().join("one");
    fs::create_dir(&one).unwrap();
    (fleet.repository)(&one);
    give(&one, uid);
    let machine = Machine::new(fleet.path(), "one", uid);
    let output = machine
        .command(
            "sh",
            &["-c", "ttt-referee tournament bots/* --rounds 2 --seed 7 --quiet --report whole"],
            &one,
            &[one.join("ttt-static/bin")],
        )
        .env("TTT_REFEREE_RECORD_KEY", RECORD_KEY)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", said(&output));
    let recipe = recipe("tournament.yml");
    assert!(
        recipe.contains("ttt-referee tournament bots/* --rounds 2 --seed 7 --quiet --prebuilt built\n"),
        "{recipe}"
    );
    // Built once: each part ran the build job's bots, and built none.
    let kept = ttt_referee::workshop::kept::Manifest::read(&artifacts.join("built")).unwrap();
    assert_eq!(kept.bots.iter().map(|k| k.name.as_str()).collect::<Vec<_>>(), BOTS);
    let (whole, merged) = (files(&one.join("whole")), files(&workspace.join("tournament")));
    assert_eq!(
        whole.iter().map(|(p, _)| p).collect::<Vec<_>>(),
        merged.iter().map(|(p, _)| p).collect::<Vec<_>>(),
        "the same files"
    );
    for ((path, whole), (_, merged)) in whole.iter().zip(&merged) {
        assert!(
            whole == merged,
            "{} differs from one machine's: {}",
            path.display(),
            first_difference(merged, whole)
        );
    }
    assert!(artifacts.join("tournament/standings.txt").is_file(), "the merged report is kept");
}

/// The class on a shared filesystem in `dir`, given to `owner`, with
/// `parts/part-K/` made for each part's user (`uids`).
fn shared_class(dir: &Path, owner: Option<u32>, uids: &[Option<u32>]) {
    class_into(dir, owner);
    for (k, uid) in uids.iter().enumerate() {
        let part = dir.join(format!("parts/part-{}", k + 1));
        fs::create_dir_all(&part).unwrap();
        give(&part, *uid);
    }
}

/// Runs each of `commands` at once (one a part), and each must succeed.
fn all_at_once(commands: Vec<(String, Command)>) {
    let running: Vec<(String, std::process::Child)> = commands
        .into_iter()
        .map(|(name, mut command)| {
            let child = command
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            (name, child)
        })
        .collect();
    for (name, child) in running {
        let output = child.wait_with_output().unwrap();
        assert!(output.status.success(), "{name}: {}", said(&output));
    }
}

#[test]
fn the_slurm_array_runs_its_tasks_and_the_merge_job_merges_to_the_whole() {
    let submit = recipe("submit.sh");
    assert!(submit.contains("--array=1-50 grade.sbatch"), "{submit}");
    assert!(submit.contains("--dependency=afterany:\"$job\" merge.sbatch"), "{submit}");
    // Three tasks here, not 50: the script takes the count from Slurm.
    let tasks = 3;
    let fleet = Fleet::new(|_| {});
    let uids = users("the Slurm array", tasks + 1);
    let class = fleet.path().join("class");
    shared_class(&class, uids[tasks], &uids[..tasks]);
    for script in ["grade.sbatch", "merge.sbatch"] {
        fs::write(class.join(script), recipe(script)).unwrap();
        give(&class.join(script), uids[tasks]);
    }
    let path = std::slice::from_ref(&fleet.bin);
    all_at_once(
        (1..=tasks)
            .map(|k| {
                let machine = Machine::new(fleet.path(), &format!("task-{k}"), uids[k - 1]);
                let mut command = machine.command("sh", &["grade.sbatch"], &class, path);
                command
                    .env("SLURM_ARRAY_TASK_ID", k.to_string())
                    .env("SLURM_ARRAY_TASK_COUNT", tasks.to_string())
                    .env("SLURM_CPUS_PER_TASK", "1");
                (format!("task {k}"), command)
            })
            .collect(),
    );
    for k in 1..=tasks {
        written_by(&class.join(format!("parts/part-{k}")), uids[k - 1]);
    }
    let merger = Machine::new(fleet.path(), "merge", uids[tasks]);
    let output = merger.command("sh", &["merge.sbatch"], &class, path).output().unwrap();
    assert!(output.status.success(), "{}", said(&output));
    same_as_whole(&class.join("report"));
}

/// A Job's one container's command, with its working directory checked to
/// be the class's volume.
fn container_command(job: &Yaml) -> Vec<String> {
    let container = &job["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(container["workingDir"].as_str(), Some("/class"));
    assert_eq!(container["volumeMounts"][0]["mountPath"].as_str(), Some("/class"));
    container["command"].as_vec().unwrap().iter().map(|a| a.as_str().unwrap().to_owned()).collect()
}

#[test]
fn the_kubernetes_indexed_job_runs_its_indices_and_the_merge_job_merges_to_the_whole() {
    let grade = &YamlLoader::load_from_str(&recipe("grade-job.yaml")).unwrap()[0];
    let merge = &YamlLoader::load_from_str(&recipe("merge-job.yaml")).unwrap()[0];
    assert_eq!(grade["spec"]["completionMode"].as_str(), Some("Indexed"));
    let completions = usize::try_from(grade["spec"]["completions"].as_i64().unwrap()).unwrap();
    assert_eq!(completions, 20);
    let fleet = Fleet::new(|_| {});
    let uids = users("the Kubernetes Jobs", completions + 1);
    // The volume, mounted at /class in every pod: here, the directory each
    // runs in.
    let class = fleet.path().join("class");
    shared_class(&class, uids[completions], &uids[..completions]);
    let path = std::slice::from_ref(&fleet.bin);
    let command = container_command(grade);
    let args: Vec<&str> = command[1..].iter().map(String::as_str).collect();
    all_at_once(
        (0..completions)
            .map(|index| {
                let machine = Machine::new(fleet.path(), &format!("pod-{index}"), uids[index]);
                let mut pod = machine.command(&command[0], &args, &class, path);
                pod.env("JOB_COMPLETION_INDEX", index.to_string());
                (format!("index {index}"), pod)
            })
            .collect(),
    );
    for (index, uid) in uids[..completions].iter().enumerate() {
        written_by(&class.join(format!("parts/part-{}", index + 1)), *uid);
    }
    let command = container_command(merge);
    let args: Vec<&str> = command[1..].iter().map(String::as_str).collect();
    let merger = Machine::new(fleet.path(), "merge", uids[completions]);
    let output = merger.command(&command[0], &args, &class, path).output().unwrap();
    assert!(output.status.success(), "{}", said(&output));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("merged 20 parts: 8 submissions"),
        "{}",
        said(&output)
    );
    same_as_whole(&class.join("report"));
}
