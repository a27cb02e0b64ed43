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
/// without the means of running anything; nor do they know the workshop
/// that makes programs runnable.
#[test]
fn results_and_verdicts_import_no_stage_of_the_grading() {
    let stages = ["grader", "stage", "program", "play", "calls", "Grader", "workshop"];
    for file in ["result.rs", "verdict.rs", "shrink/mod.rs"] {
        let (names, _) = room_imports("grade", file);
        let reached: Vec<&&str> = stages.iter().filter(|s| names.contains(**s)).collect();
        assert!(reached.is_empty(), "{file} imports {reached:?}");
    }
    for file in ["result.rs", "verdict.rs"] {
        let (_, crates) = room_imports("grade", file);
        assert!(!crates.contains("sandbox"), "{file} imports the sandbox");
        assert!(!crates.contains("workshop"), "{file} imports the workshop");
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

/// The workshop (`src/workshop/`) makes a submission runnable for grading
/// and the arena alike, so it sits below both and above the engines (the
/// list in `src/lib.rs`, which `src_lib_lists_every_module_in_its_real_import_order`
/// holds to the imports); and grading has one loop over submissions:
/// `Grader` is named in `grade/grader.rs` alone (its stages are handed a
/// `Stage`, never the grader).
#[test]
fn the_workshop_is_below_grading_and_the_arena_and_only_the_grader_names_grader() {
    let listed = listed();
    let at =
        |name: &str| listed.iter().position(|m| m == name).unwrap_or_else(|| panic!("{name} not listed"));
    assert!(at("grade") < at("workshop") && at("arena") < at("workshop"), "{listed:?}");
    assert!(at("workshop") < at("engine") && at("workshop") < at("sandbox"), "{listed:?}");
    let graph = imports();
    assert!(graph["grade"].contains("workshop") && graph["arena"].contains("workshop"), "{graph:?}");
    let grade = root().join("src/grade");
    let mut named = Vec::new();
    for file in files_under(&grade) {
        let text = fs::read_to_string(&file).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap();
        let relative = file.strip_prefix(&grade).unwrap().to_string_lossy().into_owned();
        let names_it = code
            .lines()
            .filter(|line| !line.trim_start().starts_with("//"))
            .any(|line| line.match_indices("Grader").any(|(i, _)| !is_ident(line[i + 6..].chars().next())));
        if names_it && relative != "grader.rs" && relative != "mod.rs" {
            named.push(relative);
        }
    }
    assert!(named.is_empty(), "files of grade/ other than grader.rs name `Grader`: {named:?}");
}

fn is_ident(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric() || c == '_')
}

/// Every `.rs` file under `dir`.
fn files_under(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(path) = todo.pop() {
        if path.is_dir() {
            todo.extend(fs::read_dir(&path).unwrap().map(|entry| entry.unwrap().path()));
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
    found.sort();
    found
}

/// The files of `src/` as modules: each file's module path (`grade/mod.rs`
/// and `grade.rs` are `grade`; `lib.rs` is the crate), binaries left out.
fn module_files() -> BTreeMap<Vec<String>, String> {
    let src = root().join("src");
    let mut files = BTreeMap::new();
    for path in files_under(&src) {
        let relative = path.strip_prefix(&src).unwrap().to_string_lossy().into_owned();
        let mut parts: Vec<String> = relative.trim_end_matches(".rs").split('/').map(str::to_owned).collect();
        if parts[0] == "bin" || relative == "main.rs" {
            continue;
        }
        if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
            parts.pop();
        }
        files.insert(parts, relative);
    }
    files
}

/// A file's code: no tests, no comment lines.
fn code_of(relative: &str) -> String {
    let text = fs::read_to_string(root().join("src").join(relative)).unwrap();
    let code = text.split("#[cfg(test)]").next().unwrap();
    code.lines().filter(|line| !line.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

/// The paths a `use` tree names: `a::{b, c::{d, e}}` is `a::b`, `a::c::d`
/// and `a::c::e` (each with any `as` rename dropped).
fn use_paths(tree: &str) -> Vec<String> {
    let tree: String = tree.split_whitespace().collect::<Vec<_>>().join(" ");
    let Some(open) = tree.find('{') else {
        return vec![tree.split(" as ").next().unwrap().trim().to_owned()];
    };
    let prefix = &tree[..open];
    let close = tree.rfind('}').filter(|&close| close > open).unwrap_or(tree.len());
    let inner = &tree[open + 1..close];
    let mut parts = Vec::new();
    let (mut depth, mut current) = (0, String::new());
    for c in inner.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    parts.push(current);
    parts
        .iter()
        .map(|part| part.trim())
        .filter(|part| !part.is_empty())
        .flat_map(|part| use_paths(&format!("{prefix}{part}")))
        .collect()
}

/// Every `use` tree in `code` (`use a::b;`, `pub(crate) use a::{b, c};`,
/// over several lines), each with whether it is a re-export (`pub`).
fn uses(code: &str) -> Vec<(bool, String)> {
    let mut found = Vec::new();
    let mut lines = code.lines();
    while let Some(line) = lines.next() {
        let line = line.trim_start();
        let public = line.starts_with("pub");
        let rest =
            if public { line.split_once(") use ").or_else(|| line.split_once("pub use ")) } else { None };
        let tree = match rest {
            Some((_, tree)) => tree,
            None if line.starts_with("use ") => &line[4..],
            None => continue,
        };
        let mut tree = tree.to_owned();
        while !tree.contains(';') {
            match lines.next() {
                Some(more) => tree.push_str(more),
                None => break,
            }
        }
        found.push((public, tree.split(';').next().unwrap_or_default().to_owned()));
    }
    found
}

/// `path` (`crate::a::b`, `super::x`, `self::y`) named in the module
/// `module`, as an absolute module path; `None` for another crate's.
fn absolute(module: &[String], path: &str) -> Option<Vec<String>> {
    let mut segments: Vec<&str> = path.split("::").map(str::trim).collect();
    let mut current = module.to_vec();
    match segments.first().copied() {
        Some("crate") => {
            current.clear();
            segments.remove(0);
        }
        Some("self") => {
            segments.remove(0);
        }
        Some("super") => {
            while segments.first() == Some(&"super") {
                current.pop();
                segments.remove(0);
            }
        }
        _ => return None,
    }
    current.extend(segments.iter().map(|s| (*s).to_owned()));
    Some(current)
}

/// The file a path leads to: its longest prefix that is a module, and
/// when the next segment is a name that module imports (`use`), where that
/// name comes from; followed at most ten times.
fn resolve(
    files: &BTreeMap<Vec<String>, String>,
    imported: &BTreeMap<(Vec<String>, String), Vec<String>>,
    path: &[String],
    depth: usize,
) -> Vec<String> {
    let mut end = path.len();
    while end > 0 && !files.contains_key(&path[..end]) {
        end -= 1;
    }
    let module = path[..end].to_vec();
    if end < path.len()
        && depth < 10
        && let Some(target) = imported.get(&(module.clone(), path[end].clone()))
    {
        let mut next = target.clone();
        next.extend_from_slice(&path[end + 1..]);
        return resolve(files, imported, &next, depth + 1);
    }
    module
}

/// The import graph of `src/`'s files: an arrow from a file to each other
/// file whose items its code names — through `use`, or a path such as
/// `super::x::f()` or `check_cmd::run()` — with every name followed through
/// the modules that import it on to the file that defines it. A module's
/// `pub use` re-exports are its façade, followed, not arrows of its own.
fn file_graph() -> BTreeMap<String, BTreeSet<String>> {
    let files = module_files();
    let mut imported: BTreeMap<(Vec<String>, String), Vec<String>> = BTreeMap::new();
    for (module, relative) in &files {
        for (_, tree) in uses(&code_of(relative)) {
            for path in use_paths(&tree) {
                let (path, alias) = match path.split_once(" as ") {
                    Some((path, alias)) => (path.trim().to_owned(), Some(alias.trim().to_owned())),
                    None => (path, None),
                };
                let Some(mut target) = absolute(module, &path) else { continue };
                if target.last().is_some_and(|s| s == "self") {
                    target.pop();
                }
                if let Some(name) = alias.or_else(|| target.last().cloned()) {
                    imported.insert((module.clone(), name), target);
                }
            }
        }
    }
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, relative) in &files {
        let code = code_of(relative);
        let mut paths: Vec<String> = Vec::new();
        for (public, tree) in uses(&code) {
            if !public {
                paths.extend(use_paths(&tree));
            }
        }
        let own: String = code
            .lines()
            .filter(|line| {
                !line.trim_start().starts_with("pub use")
                    && !line.trim_start().starts_with("pub(crate) use")
                    && !line.trim_start().starts_with("pub(super) use")
            })
            .collect::<Vec<_>>()
            .join("\n");
        let chars: Vec<char> = own.chars().collect();
        let mut at = 0;
        while at < chars.len() {
            if is_ident(Some(chars[at]))
                && (at == 0 || (!is_ident(Some(chars[at - 1])) && chars[at - 1] != ':'))
            {
                let mut end = at;
                while end < chars.len()
                    && (is_ident(Some(chars[end]))
                        || (chars[end] == ':'
                            && chars.get(end + 1) == Some(&':')
                            && chars.get(end + 2).is_some_and(|c| is_ident(Some(*c)))))
                {
                    end += if chars[end] == ':' { 2 } else { 1 };
                }
                let word: String = chars[at..end].iter().collect();
                if word.contains("::") {
                    let first = word.split("::").next().unwrap_or_default();
                    let mut child = module.clone();
                    child.push(first.to_owned());
                    if matches!(first, "crate" | "super" | "self") {
                        paths.push(word);
                    } else if files.contains_key(&child) {
                        paths.push(format!("self::{word}"));
                    }
                }
                at = end.max(at + 1);
            } else {
                at += 1;
            }
        }
        let targets = graph.entry(relative.clone()).or_default();
        for path in paths {
            let path = path.split(" as ").next().unwrap().trim().to_owned();
            let Some(path) = absolute(module, &path) else { continue };
            if path.last().is_some_and(|s| s == "self") || files.contains_key(&path) {
                continue;
            }
            let target = resolve(&files, &imported, &path, 0);
            if &target != module
                && let Some(file) = files.get(&target)
            {
                targets.insert(file.clone());
            }
        }
    }
    graph
}

/// No two files of `src/` import each other, directly or round a loop: a
/// room's files read downward too, as its modules do.
#[test]
fn no_file_imports_another_that_imports_it_back() {
    let graph = file_graph();
    assert!(graph.get("grade/grader.rs").is_some_and(|t| t.contains("workshop/mod.rs")), "{graph:?}");
    assert!(graph.get("cli/check_cmd.rs").is_some_and(|t| t.contains("cli/error.rs")), "{graph:?}");
    let mut circles = Vec::new();
    for (file, targets) in &graph {
        for target in targets {
            // `target` reaches back to `file`?
            let mut seen = BTreeSet::new();
            let mut todo = vec![target.clone()];
            while let Some(next) = todo.pop() {
                if next == *file {
                    circles.push(format!("{file} -> {target} -> … -> {file}"));
                    break;
                }
                if seen.insert(next.clone()) {
                    todo.extend(graph.get(&next).into_iter().flatten().cloned());
                }
            }
        }
    }
    assert!(circles.is_empty(), "files import each other in a circle:\n{}", circles.join("\n"));
}
