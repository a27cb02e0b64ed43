//! Which language a submission is written in, found from its files, and the
//! commands that build and run it: a built-in table (a Makefile, Java, C++,
//! C, Python) that a course's `grade.toml` can extend or change.

use std::fmt::{self, Write as _};
use std::fs;
use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::Deserialize;

/// How one submission is built and run, as found from its files (or given
/// for everyone with `--build`/`--run`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Commands {
    /// The language's name as reports show it: `C++`, `Java (ttt.Main)`,
    /// or `given` for commands given for everyone.
    pub language: String,
    /// A shell command run once in the submission's copy, if any.
    pub build: Option<String>,
    /// The program's command line, split into words as a shell would.
    pub run: String,
}

/// What a built-in language needs to find in a submission to run it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Entry {
    /// The command lines are fixed.
    Fixed,
    /// `{main}` is the Python file to run (see [`python_main`]).
    PythonMain,
    /// `{main}` is the Java class holding `main` (see [`java_main`]);
    JavaMain,
    /// `{makefile}` is where `make` is told which makefile to read: nothing
    /// for a student's, `-B -f FILE` for the course's (see [`CourseBuild`]).
    Make,
}

/// One row of the table.
#[derive(Clone, Debug)]
struct Language {
    name: String,
    /// File-name patterns; a submission holding a file (at any depth) that
    /// matches one is in this language.
    files: GlobSet,
    patterns: Vec<String>,
    build: Option<String>,
    run: String,
    entry: Entry,
}

/// The languages `grade` recognises, in the order they are tried.
#[derive(Clone, Debug)]
pub struct Languages {
    table: Vec<Language>,
}

/// A `grade.toml` that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Read {
        /// The configuration file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Not the expected TOML: the file, its line and what was expected.
    #[error("{path}:{line}: {message}")]
    Invalid {
        /// The configuration file.
        path: PathBuf,
        /// The line (1-based) where the problem is.
        line: usize,
        /// What is wrong and what was expected.
        message: String,
    },
}

/// `grade.toml`'s shape: `[[language]]` tables.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    #[serde(default)]
    language: Vec<LanguageConfig>,
    /// `grade --play`'s tests, read by [`crate::grade::play_config`].
    #[serde(default, rename = "play")]
    _play: Option<toml::Table>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LanguageConfig {
    name: String,
    files: Vec<String>,
    build: Option<String>,
    run: String,
}

/// A built-in row: name, patterns, build, run, entry.
type Builtin = (&'static str, &'static [&'static str], Option<&'static str>, &'static str, Entry);

/// The built-in table, tried in this order: a Makefile says best how its
/// author builds; Java, C++ and C are compiled from every source file at
/// any depth; Python runs its main file. C and C++ are compiled with
/// `-Wall`, as courses ask students to ("no warning with `g++ -Wall`"), so
/// the build log shows what `--warnings` grades.
const BUILTIN: [Builtin; 5] = [
    (
        "Makefile",
        &["Makefile", "makefile", "GNUmakefile"],
        Some(
            "make{makefile} && { test -x prog || { echo \"the Makefile's default target must build ./prog\" >&2; exit 1; }; }",
        ),
        "./prog",
        Entry::Make,
    ),
    (
        "Java",
        &["*.java"],
        Some("mkdir -p classes && find . -name '*.java' -exec javac -encoding UTF-8 -d classes {} +"),
        "java {jvm} -cp classes {main}",
        Entry::JavaMain,
    ),
    (
        "C++",
        &["*.cpp", "*.cc", "*.cxx", "*.C"],
        Some(
            "find . \\( -name '*.cpp' -o -name '*.cc' -o -name '*.cxx' -o -name '*.C' \\) -exec g++ -O2 -Wall -o prog {} +",
        ),
        "./prog",
        Entry::Fixed,
    ),
    (
        "C",
        &["*.c"],
        Some("find . -name '*.c' -exec sh -c 'exec gcc -O2 -Wall -o prog \"$@\" -lm' sh {} +"),
        "./prog",
        Entry::Fixed,
    ),
    ("Python", &["*.py"], None, "python3 {main}", Entry::PythonMain),
];

fn glob_set(patterns: &[String]) -> Result<GlobSet, globset::Error> {
    let mut builder = GlobSetBuilder::new();
    for pattern in patterns {
        builder.add(Glob::new(pattern)?);
    }
    builder.build()
}

impl Languages {
    /// The table in words, a row a line (name, patterns, build, run, how its
    /// entry is found): what a grading's fingerprint takes of it, the same
    /// on every machine (the glob sets' own form is not).
    #[must_use]
    pub fn fingerprint_text(&self) -> String {
        self.table.iter().fold(String::new(), |mut text, l| {
            let _ = writeln!(text, "{:?} {:?} {:?} {:?} {:?}", l.name, l.patterns, l.build, l.run, l.entry);
            text
        })
    }

    /// The built-in table alone.
    #[must_use]
    pub fn builtin() -> Languages {
        let table = BUILTIN
            .iter()
            .map(|&(name, patterns, build, run, entry)| {
                let patterns: Vec<String> = patterns.iter().map(|&p| p.to_owned()).collect();
                Language {
                    name: name.to_owned(),
                    files: glob_set(&patterns).expect("the built-in patterns are valid"),
                    patterns,
                    build: build.map(str::to_owned),
                    run: run.to_owned(),
                    entry,
                }
            })
            .collect();
        Languages { table }
    }

    /// The built-in table changed by the configuration file at `path`: a
    /// `[[language]]` with a built-in's name (in any case) replaces it where
    /// it stands; any other is tried before the built-ins, in file order.
    pub fn from_config(path: &Path) -> Result<Languages, ConfigError> {
        let text =
            fs::read_to_string(path).map_err(|source| ConfigError::Read { path: path.to_owned(), source })?;
        Languages::from_config_text(&text, path)
    }

    /// As [`Languages::from_config`], from the file's text (`path` names it
    /// in errors).
    pub fn from_config_text(text: &str, path: &Path) -> Result<Languages, ConfigError> {
        let invalid = |offset: usize, message: String| ConfigError::Invalid {
            path: path.to_owned(),
            line: text[..offset.min(text.len())].matches('\n').count() + 1,
            message,
        };
        let config: Config = toml::from_str(text).map_err(|e| {
            let message = e.message().trim_end().to_owned();
            invalid(e.span().map_or(0, |s| s.start), message)
        })?;
        let mut languages = Languages::builtin();
        let mut added = Vec::new();
        for (index, row) in config.language.into_iter().enumerate() {
            // Where this row starts, for errors about its values.
            let offset = text.match_indices("[[language]]").nth(index).map_or(0, |(at, _)| at);
            if row.files.is_empty() {
                return Err(invalid(
                    offset,
                    format!("language `{}` has no `files`: expected patterns such as [\"*.rs\"]", row.name),
                ));
            }
            let files = glob_set(&row.files).map_err(|e| {
                invalid(offset, format!("language `{}`: {e}; expected patterns such as \"*.rs\"", row.name))
            })?;
            if argv(&row.run).is_err() {
                return Err(invalid(
                    offset,
                    format!("language `{}`: `run` is not a command line: {}", row.name, row.run),
                ));
            }
            let language = Language {
                name: row.name,
                files,
                patterns: row.files,
                build: row.build.filter(|b| !b.trim().is_empty()),
                run: row.run,
                entry: Entry::Fixed,
            };
            match languages.table.iter_mut().find(|l| l.name.eq_ignore_ascii_case(&language.name)) {
                Some(builtin) => *builtin = language,
                None => added.push(language),
            }
        }
        added.append(&mut languages.table);
        Ok(Languages { table: added })
    }

    /// The languages' names and patterns, in the order they are tried (for
    /// messages and documentation).
    #[must_use]
    pub fn describe(&self) -> String {
        self.table
            .iter()
            .map(|l| format!("{} ({})", l.name, l.patterns.join(" ")))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The course's build, when the course's provided files (`provided`,
    /// paths relative to their directory) hold a build file at their top:
    /// a name, not a pattern, in a language's `files` (`Makefile`,
    /// `Cargo.toml`). The first language in the order they are tried that
    /// names one is the course's; of several make files, the one make reads
    /// first ([`MAKEFILES`]).
    #[must_use]
    pub fn course_build<'a>(&self, provided: impl IntoIterator<Item = &'a Path>) -> Option<CourseBuild> {
        let top: Vec<&str> =
            provided.into_iter().filter(|p| p.components().count() == 1).filter_map(Path::to_str).collect();
        self.table.iter().enumerate().find_map(|(index, language)| {
            let names = language.build_files();
            let mut files: Vec<&str> = top.iter().copied().filter(|f| names.iter().any(|n| n == f)).collect();
            files.sort_by_key(|f| MAKEFILES.iter().position(|m| m == f).unwrap_or(MAKEFILES.len()));
            let file = (*files.first()?).to_owned();
            Some(CourseBuild { language: index, file, names })
        })
    }

    /// The commands for the submission copied at `source`: the first
    /// language any of whose patterns a file matches. `memory` (bytes) is
    /// the run's memory limit, which sizes the JVM. An error says why no
    /// language applies, in words for the student.
    pub fn detect(&self, source: &Path, memory: u64) -> Result<Commands, String> {
        self.detect_for(source, memory, None)
    }

    /// As [`Languages::detect`], but with a course's build (`course`) its
    /// language is the submission's whatever else the copy holds, and a
    /// make build reads the course's file alone, every target made anew
    /// (`make -B -f FILE`): no makefile and no object of the student's
    /// takes its place.
    pub fn detect_for(
        &self,
        source: &Path,
        memory: u64,
        course: Option<&CourseBuild>,
    ) -> Result<Commands, String> {
        let files = files(source);
        for (index, language) in self.table.iter().enumerate() {
            if course.is_some_and(|c| c.language != index) {
                continue;
            }
            let found: Vec<&PathBuf> =
                files.iter().filter(|f| f.file_name().is_some_and(|n| language.files.is_match(n))).collect();
            if found.is_empty() {
                continue;
            }
            let (name, main) = match language.entry {
                Entry::Fixed | Entry::Make => (language.name.clone(), String::new()),
                Entry::PythonMain => {
                    let main = python_main(source, &found)?;
                    (format!("{} ({main})", language.name), main)
                }
                Entry::JavaMain => {
                    let main = java_main(source, &found)?;
                    (format!("{} ({main})", language.name), main)
                }
            };
            let run = language
                .run
                .replace("{main}", &shell_words::quote(&main))
                .replace("{jvm}", &jvm_flags(memory));
            let makefile = match course {
                Some(course) => format!(" -B -f {} {MAKE_WARNINGS}", shell_words::quote(&course.file)),
                None => String::new(),
            };
            let build = match language.entry {
                Entry::Make => language.build.as_ref().map(|b| b.replace("{makefile}", &makefile)),
                _ => language.build.clone(),
            };
            return Ok(Commands { language: name, build, run });
        }
        Err(format!("no language found: expected one of {}", self.describe()))
    }
}

/// What a make build with the course's Makefile is given on its command
/// line: `-Wall` in every built-in rule that compiles or links C, C++,
/// Objective-C, Fortran or Pascal. Each of them (`COMPILE.c = $(CC)
/// $(CFLAGS) $(CPPFLAGS) $(TARGET_ARCH) -c`, `COMPILE.cc`, `LINK.c`, …)
/// reads `TARGET_ARCH`, which courses leave alone, so a student's `board.c`
/// in a C++ course whose Makefile sets only `CXXFLAGS` is compiled with
/// `-Wall` too, while the course's own rules and flags stay as written. Not
/// `-r` (no built-in rules): a course's Makefile that relies on them
/// (`prog: main.o board.o`) would no longer build; not `CFLAGS=`: a
/// command-line variable replaces the Makefile's own value, and with it the
/// course's other flags.
pub const MAKE_WARNINGS: &str = "TARGET_ARCH=-Wall";

/// The names GNU make reads a makefile from when told none, in the order
/// it tries them.
pub const MAKEFILES: [&str; 3] = ["GNUmakefile", "makefile", "Makefile"];

/// The course's build: a build file among its provided files, and its
/// language ([`Languages::course_build`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CourseBuild {
    /// The language's place in the table.
    language: usize,
    /// The course's build file, at the top of the provided files.
    pub file: String,
    /// Every build file name of its language (for make, [`MAKEFILES`]):
    /// none but the course's may stand in a copy.
    pub names: Vec<String>,
}

impl Language {
    /// Its build files: the names among its `files` that are no pattern
    /// (`Makefile`, `Cargo.toml`; not `*.cpp`).
    fn build_files(&self) -> Vec<String> {
        let pattern = |p: &String| p.contains(['*', '?', '[', ']', '{', '}', '\\']);
        self.patterns.iter().filter(|p| !pattern(p)).cloned().collect()
    }
}

impl fmt::Display for Commands {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.language)
    }
}

/// The JVM's flags under a memory limit of `memory` bytes: a heap of a
/// quarter of it and small reserved areas, so that its whole address space
/// fits under the limit even where only an address-space limit holds.
#[must_use]
pub fn jvm_flags(memory: u64) -> String {
    let heap = (memory >> 20) / 4;
    format!(
        "-Xmx{}m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=32m \
         -XX:MaxMetaspaceSize=96m -XX:CompressedClassSpaceSize=32m -XX:ActiveProcessorCount=1",
        heap.max(16)
    )
}

/// Every regular file under `root`, relative to it, sorted (the copy caps
/// how many and how deep).
pub fn files(root: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(root)
        .follow_links(false)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter_map(|e| e.path().strip_prefix(root).ok().map(Path::to_path_buf))
        .collect();
    files.sort();
    files
}

/// The most of a source file read to find its entry point.
const SOURCE_BYTES: u64 = 1 << 20;

/// The start of the source file `file` under `source` (at most 1 MB), as
/// text: enough to find an entry point; empty if it cannot be read.
#[must_use]
pub fn read_source(source: &Path, file: &Path) -> String {
    use std::io::Read;
    let mut text = Vec::new();
    if let Ok(f) = fs::File::open(source.join(file)) {
        let _ = f.take(SOURCE_BYTES).read_to_end(&mut text);
    }
    String::from_utf8_lossy(&text).into_owned()
}

/// The Python file to run: the only one; else the one that tests
/// `__name__ == "__main__"` (if just one does); else `main.py`.
fn python_main(source: &Path, found: &[&PathBuf]) -> Result<String, String> {
    let shown = |p: &PathBuf| p.to_string_lossy().into_owned();
    if let [only] = found {
        return Ok(shown(only));
    }
    let mains: Vec<&&PathBuf> =
        found.iter().filter(|f| read_source(source, f).contains("__main__")).collect();
    if let [only] = mains.as_slice() {
        return Ok(shown(only));
    }
    if let Some(main) = found.iter().find(|f| f.as_os_str() == "main.py") {
        return Ok(shown(main));
    }
    Err(format!(
        "which Python file to run: {} files and {} test `__name__ == \"__main__\"`; expected one that does, or main.py",
        found.len(),
        mains.len()
    ))
}

/// The package a Java source declares, if it declares one.
pub fn java_package(text: &str) -> Option<String> {
    text.lines()
        .map(str::trim)
        .find_map(|l| l.strip_prefix("package "))
        .map(|p| p.trim_end_matches(';').trim().to_owned())
        .filter(|p| !p.is_empty())
}

/// The Java class to run: the one whose source declares
/// `static void main` (prefixed with its `package`); if several do, the
/// one named `Main`.
fn java_main(source: &Path, found: &[&PathBuf]) -> Result<String, String> {
    let mut mains = Vec::new();
    for file in found {
        let text = read_source(source, file);
        let squeezed: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if !squeezed.contains("static void main(") && !squeezed.contains("static void main (") {
            continue;
        }
        let class = file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        mains.push(match java_package(&text) {
            Some(p) => format!("{p}.{class}"),
            None => class,
        });
    }
    match mains.as_slice() {
        [only] => Ok(only.clone()),
        [] => Err("no Java class declares `public static void main(String[] args)`".to_owned()),
        several => several.iter().find(|m| m.rsplit('.').next() == Some("Main")).cloned().ok_or_else(|| {
            format!(
                "several Java classes declare main ({}); expected one, or one named Main",
                several.join(", ")
            )
        }),
    }
}

/// A command line split into words as a shell would: the one place a run
/// command is parsed.
///
/// # Errors
/// Why it is not a command line (an unclosed quote), in words.
pub fn argv(command: &str) -> Result<Vec<String>, String> {
    match shell_words::split(command) {
        Ok(words) if words.is_empty() => Err("it has no words".to_owned()),
        Ok(words) => Ok(words),
        Err(e) => Err(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_is_split_once_as_a_shell_would_or_refused_saying_why() {
        assert_eq!(argv("java -cp 'my classes' Main").unwrap(), ["java", "-cp", "my classes", "Main"]);
        assert_eq!(argv("./prog 'unclosed").unwrap_err(), "missing closing quote");
        assert_eq!(argv("  ").unwrap_err(), "it has no words");
    }

    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            let path = dir.path().join(name);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }
        dir
    }

    fn detect(files: &[(&str, &str)]) -> Result<Commands, String> {
        Languages::builtin().detect(tree(files).path(), 512 << 20)
    }

    #[test]
    fn each_builtin_language_is_found_from_its_files() {
        assert_eq!(detect(&[("ttt.c", "")]).unwrap().language, "C");
        assert_eq!(detect(&[("main.cpp", ""), ("board.cpp", ""), ("board.h", "")]).unwrap().language, "C++");
        assert_eq!(detect(&[("Makefile", ""), ("main.cpp", "")]).unwrap().language, "Makefile");
        // C and C++ are built with -Wall, so their warnings show.
        for source in ["ttt.c", "ttt.cpp"] {
            let build = detect(&[(source, "")]).unwrap().build.unwrap();
            assert!(build.contains(" -O2 -Wall -o prog "), "{build}");
        }
        let python = detect(&[("ttt.py", "")]).unwrap();
        assert_eq!(
            (python.language.as_str(), python.run.as_str(), python.build),
            ("Python (ttt.py)", "python3 ttt.py", None)
        );
    }

    #[test]
    fn a_courses_makefile_is_the_build_read_alone_and_made_anew() {
        let builtin = Languages::builtin();
        let course = |names: &[&str]| builtin.course_build(names.iter().map(Path::new));
        // No build file among the course's, or one below the top: no course build.
        assert_eq!(course(&["main.cpp", "board.h"]), None);
        assert_eq!(course(&["sub/Makefile", "main.cpp"]), None);
        let makefile = course(&["Makefile", "main.cpp"]).unwrap();
        assert_eq!(
            (makefile.file.as_str(), makefile.names.clone()),
            ("Makefile", vec!["Makefile".to_owned(), "makefile".to_owned(), "GNUmakefile".to_owned()])
        );
        // Of several, the one make reads first.
        assert_eq!(course(&["Makefile", "GNUmakefile"]).unwrap().file, "GNUmakefile");
        // The student's Java and own makefile do not choose the language.
        let dir =
            tree(&[("Makefile", ""), ("Main.java", "class Main { public static void main(String[] a) {} }")]);
        let commands = builtin.detect_for(dir.path(), 1 << 29, Some(&makefile)).unwrap();
        assert_eq!(commands.language, "Makefile");
        assert!(
            commands.build.as_deref().unwrap().starts_with("make -B -f Makefile TARGET_ARCH=-Wall && "),
            "{commands:?}"
        );
        // Without the course's, the student's makefile is read as make finds it.
        let own = builtin.detect(dir.path(), 1 << 29).unwrap();
        assert!(own.build.as_deref().unwrap().starts_with("make && "), "{own:?}");
        // A course's language of its own names its build file.
        let text = "[[language]]\nname = \"Rust\"\nfiles = [\"Cargo.toml\", \"*.rs\"]\nrun = \"./t\"\n";
        let languages = Languages::from_config_text(text, Path::new("grade.toml")).unwrap();
        let cargo = languages.course_build([Path::new("Cargo.toml")]).unwrap();
        assert_eq!(
            (cargo.file.as_str(), cargo.names.as_slice()),
            ("Cargo.toml", &["Cargo.toml".to_owned()][..])
        );
    }

    #[test]
    fn java_runs_the_class_with_main_in_its_package() {
        let java = detect(&[
            (
                "src/ttt/Main.java",
                "package ttt;\npublic class Main {\n  public static void main(String[] args) {}\n}\n",
            ),
            ("src/ttt/Board.java", "package ttt;\nclass Board {}\n"),
        ])
        .unwrap();
        assert_eq!(java.language, "Java (ttt.Main)");
        assert!(java.run.starts_with("java -Xmx128m "), "{}", java.run);
        assert!(java.run.ends_with(" -cp classes ttt.Main"), "{}", java.run);
    }

    #[test]
    fn an_ambiguous_entry_point_is_explained() {
        let why = detect(&[("a.py", ""), ("b.py", "")]).unwrap_err();
        assert_eq!(
            why,
            "which Python file to run: 2 files and 0 test `__name__ == \"__main__\"`; expected one that does, or main.py"
        );
        assert_eq!(
            detect(&[("a.py", "import b"), ("b.py", "if __name__ == \"__main__\": pass")]).unwrap().run,
            "python3 b.py"
        );
        let why = detect(&[("A.java", "class A {}")]).unwrap_err();
        assert_eq!(why, "no Java class declares `public static void main(String[] args)`");
    }

    #[test]
    fn nothing_recognisable_is_explained() {
        let why = detect(&[("notes.txt", "")]).unwrap_err();
        assert!(
            why.starts_with(
                "no language found: expected one of Makefile (Makefile makefile GNUmakefile), Java (*.java)"
            ),
            "{why}"
        );
    }

    #[test]
    fn a_config_adds_and_replaces_languages() {
        let text = "[[language]]\nname = \"Rust\"\nfiles = [\"Cargo.toml\"]\nbuild = \"cargo build --offline\"\nrun = \"./target/debug/ttt\"\n\n[[language]]\nname = \"python\"\nfiles = [\"*.py\"]\nrun = \"python3 -S ttt.py\"\n";
        let languages = Languages::from_config_text(text, Path::new("grade.toml")).unwrap();
        let dir = tree(&[("Cargo.toml", ""), ("ttt.py", "")]);
        assert_eq!(languages.detect(dir.path(), 1 << 29).unwrap().language, "Rust");
        let dir = tree(&[("ttt.py", "")]);
        let python = languages.detect(dir.path(), 1 << 29).unwrap();
        assert_eq!((python.language.as_str(), python.run.as_str()), ("python", "python3 -S ttt.py"));
    }

    #[test]
    fn a_bad_config_names_its_line() {
        let error = |text: &str| {
            Languages::from_config_text(text, Path::new("t/grade.toml")).unwrap_err().to_string()
        };
        assert!(
            error("[[language]]\nname = \"R\"\nfile = []\n")
                .starts_with("t/grade.toml:3: unknown field `file`"),
            "{}",
            error("[[language]]\nname = \"R\"\nfile = []\n")
        );
        assert_eq!(
            error("\n[[language]]\nname = \"R\"\nfiles = []\nrun = \"x\"\n"),
            "t/grade.toml:2: language `R` has no `files`: expected patterns such as [\"*.rs\"]"
        );
        assert!(
            error("[[language]]\nname = \"R\"\nfiles = [\"a\"]\n")
                .starts_with("t/grade.toml:1: missing field `run`"),
            "{}",
            error("[[language]]\nname = \"R\"\nfiles = [\"a\"]\n")
        );
        assert_eq!(
            error("[[language]]\nname = \"R\"\nfiles = [\"a\"]\nrun = \"'\"\n"),
            "t/grade.toml:1: language `R`: `run` is not a command line: '"
        );
    }
}
