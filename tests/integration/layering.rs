//! The library's modules form a stack: each imports only from modules below
//! it, never back up (CONTRIBUTING.md, "Layout"). Read from the source, so a new
//! `use crate::…` that closes a circle fails here.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use crate::util::root;

/// Each top-level module and the top-level modules its code (not its doc
/// comments or tests) names through `crate::`.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let src = root().join("src");
    let mut files = vec![src.clone()];
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(fs::read_dir(&path).unwrap().map(|entry| entry.unwrap().path()));
            continue;
        }
        let relative = path.strip_prefix(&src).unwrap();
        let module = module_of(relative);
        // `bin` holds binaries of their own, which use the library by name.
        if matches!(module.as_str(), "lib" | "main" | "bin") {
            continue;
        }
        let text = fs::read_to_string(&path).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap();
        let names = graph.entry(module.clone()).or_default();
        for line in code.lines().filter(|line| !line.trim_start().starts_with("//")) {
            for (at, _) in line.match_indices("crate::") {
                let name: String =
                    line[at + 7..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if name != module {
                    names.insert(name);
                }
            }
        }
    }
    graph
}

fn module_of(relative: &Path) -> String {
    let first = relative.components().next().unwrap().as_os_str().to_string_lossy();
    first.trim_end_matches(".rs").to_owned()
}

/// The modules `from` reaches through imports.
fn reach(graph: &BTreeMap<String, BTreeSet<String>>, from: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut todo = vec![from.to_owned()];
    while let Some(module) = todo.pop() {
        for next in graph.get(&module).into_iter().flatten() {
            if seen.insert(next.clone()) {
                todo.push(next.clone());
            }
        }
    }
    seen
}

#[test]
fn no_module_imports_back_up() {
    let graph = imports();
    assert!(graph.len() > 10, "found only {:?}", graph.keys());
    let circles: Vec<String> = graph
        .iter()
        .flat_map(|(module, names)| names.iter().map(move |name| (module, name)))
        .filter(|(module, name)| reach(&graph, name).contains(*module))
        .map(|(module, name)| format!("{module} -> {name} -> … -> {module}"))
        .collect();
    assert!(circles.is_empty(), "modules import each other in a circle:\n{}", circles.join("\n"));
}

#[test]
fn the_referee_stack_reads_downward() {
    let graph = imports();
    let below = |upper: &str, lower: &str| reach(&graph, upper).contains(lower);
    assert!(below("cli", "referee") && below("referee", "transcript") && below("referee", "json"));
    assert!(below("transcript", "recorder") && below("json", "recorder"));
    assert!(below("recorder", "game") && below("game", "board"));
}

/// The modules as `src/lib.rs` lists them, top of the stack first: its doc
/// lines of the form ``//! N. [`name`]: …``.
fn listed() -> Vec<String> {
    let lib = fs::read_to_string(root().join("src/lib.rs")).unwrap();
    lib.lines()
        .filter_map(|line| line.strip_prefix("//! "))
        .filter_map(|line| {
            let (number, rest) = line.split_once(". [`")?;
            number.parse::<u32>().ok()?;
            Some(rest.split_once('`')?.0.to_owned())
        })
        .collect()
}

#[test]
fn src_lib_lists_every_module_in_its_real_import_order() {
    let graph = imports();
    let listed = listed();
    let modules: BTreeSet<String> = graph.keys().cloned().collect();
    assert_eq!(listed.iter().cloned().collect::<BTreeSet<_>>(), modules, "src/lib.rs lists {listed:?}");
    assert_eq!(listed.len(), modules.len(), "a module listed twice: {listed:?}");
    let upward: Vec<String> = listed
        .iter()
        .enumerate()
        .flat_map(|(at, module)| {
            let above = &listed[..at];
            graph[module]
                .iter()
                .filter(|name| above.contains(name))
                .map(move |name| format!("{module} -> {name}"))
        })
        .collect();
    assert!(upward.is_empty(), "modules import ones listed above them in src/lib.rs:\n{}", upward.join("\n"));
}

/// The modules of a room (`src/<room>/`) a file of it names (`super::x`,
/// `crate::<room>::x`), and the other top-level modules it names
/// (`crate::x`); its code only, not its comments or tests.
fn room_imports(room: &str, file: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    let text = fs::read_to_string(root().join("src").join(room).join(file)).unwrap();
    let code = text.split("#[cfg(test)]").next().unwrap();
    let mut names = BTreeSet::new();
    let mut crates = BTreeSet::new();
    for line in code.lines().filter(|line| !line.trim_start().starts_with("//")) {
        for (at, _) in line.match_indices("crate::") {
            let name: String =
                line[at + 7..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if name != room {
                crates.insert(name);
            }
        }
        for prefix in ["super::".to_owned(), format!("crate::{room}::")] {
            for (at, _) in line.match_indices(&prefix) {
                let rest = &line[at + prefix.len()..];
                let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                names.insert(name);
            }
        }
        // `use super::{a, b}` names several at once.
        if let Some(group) = line.split("super::{").nth(1) {
            for name in group.split([',', '}']) {
                let name: String =
                    name.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if !name.is_empty() {
                    names.insert(name);
                }
            }
        }
    }
    (names, crates)
}

/// What a grading finds, and how a verdict is decided, depend on no stage
/// of the pipeline that runs things: the results and the verdict are the
/// pipeline's bottom, which the stages, the reports and the CLI build on.
/// `calls` is the whole of grading functions call by call (`calls/`: the
/// assignments, the engine and the grader's side); the smallest failing
/// input a result holds (`shrink/mod.rs`), of a game or of a call, is
/// below it too. Nor do the results and the verdict read anything of the
/// sandbox: what a run was given and gave back is plain data below it
/// (`crate::outcome`), so a verdict can be decided, and a result held,
/// without the means of running anything.
#[test]
fn results_and_verdicts_import_no_stage_of_the_grading() {
    let stages = ["grader", "intake", "build", "run", "calls", "Grader"];
    for file in ["result.rs", "verdict.rs", "shrink/mod.rs"] {
        let (names, _) = room_imports("grade", file);
        let reached: Vec<&&str> = stages.iter().filter(|s| names.contains(**s)).collect();
        assert!(reached.is_empty(), "{file} imports {reached:?}");
    }
    for file in ["result.rs", "verdict.rs"] {
        let (_, crates) = room_imports("grade", file);
        assert!(!crates.contains("sandbox"), "{file} imports the sandbox");
    }
}

/// The wire protocol between the grader and the guard
/// (`src/sandbox/protocol.rs`) is what both sides must agree on: it names
/// at most the public data of a job (`job`) and the limits a job carries
/// (`crate::outcome`), and nothing of either side, so that neither side
/// changes it unseen.
#[test]
fn the_sandbox_protocol_imports_neither_side() {
    let (names, crates) = room_imports("sandbox", "protocol.rs");
    let sides: Vec<&String> = names.iter().filter(|name| name.as_str() != "job").collect();
    assert!(sides.is_empty(), "protocol.rs imports {sides:?}");
    let others: Vec<&String> = crates.iter().filter(|name| name.as_str() != "outcome").collect();
    assert!(others.is_empty(), "protocol.rs imports {others:?}");
    assert!(
        crates.contains("outcome"),
        "protocol.rs no longer reads its imports as this test does: {crates:?}"
    );
}
