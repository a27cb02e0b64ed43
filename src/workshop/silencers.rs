//! What in a submission would hide its compiler's warnings from
//! `--warnings`: a pragma that makes gcc or clang treat a file as a system
//! header (whose warnings they never print) or turns warnings off, in any
//! spelling the preprocessor accepts, and files a compiler reads that no
//! one can (a precompiled header). No compiler flag undoes such a pragma
//! (`-Wsystem-headers` would print every real system header's warnings
//! too, and nothing overrides `#pragma GCC diagnostic ignored`), so they
//! are found and named instead: `build-warnings` fails on them, naming the
//! file, the line and what is there.
//!
//! The search reads the source as the preprocessor's first phases do —
//! trigraphs, lines joined by a backslash, comments, digraphs (`%:` for
//! `#`) — then looks at each directive and, outside comments, at every
//! identifier and string. It cannot run the preprocessor: a `_Pragma`
//! whose name is pasted together (`a ## b`) is found by the paste, and one
//! pasted by a system header's macro is found only for glibc's
//! `__CONCAT`.

use std::fs;
use std::io::Read as _;
use std::path::Path;

use super::language::files;
use crate::text;

/// One thing in a submission's files that would hide compiler warnings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Silencer {
    /// The file, relative to the submission, `/`-separated.
    pub file: String,
    /// Its line (1-based), where the directive or the name starts; 0 for
    /// a whole file.
    pub line: usize,
    /// What is there, in words (`#pragma GCC system_header`).
    pub what: String,
}

impl Silencer {
    /// Where it is, as compilers say it: `board.h:1`, or the file alone.
    #[must_use]
    pub fn place(&self) -> String {
        if self.line == 0 { self.file.clone() } else { format!("{}:{}", self.file, self.line) }
    }

    /// Each of `silencers` as the `build-warnings` verdict reads them:
    /// where it is, and what.
    #[must_use]
    pub fn said(silencers: &[Silencer]) -> Vec<(String, String)> {
        silencers.iter().map(|s| (s.place(), s.what.clone())).collect()
    }
}

/// The most of a directive shown.
const WHAT_BYTES: usize = 200;

/// The most of one file read (the copy caps a submission at 64 MB).
const FILE_BYTES: u64 = 16 << 20;

/// Every silencer in the files under `source` but those at `skip` (the
/// course's provided files, which students cannot change), in path and
/// line order. Every file is read, whatever its name or bytes: any can be
/// `#include`d, and a NUL byte in a comment hides nothing from the
/// compiler, so none is skipped as binary. A precompiled header (`*.gch`,
/// `*.pch`), whose pragmas the compiler reads and no one else can, is a
/// silencer whole.
#[must_use]
pub fn find(source: &Path, skip: &[&Path]) -> Vec<Silencer> {
    let mut found = Vec::new();
    for path in files(source) {
        if skip.contains(&path.as_path()) {
            continue;
        }
        let shown = text::inert(&path.to_string_lossy()).into_owned();
        // A precompiled header, or a file in a directory of them.
        let precompiled =
            path.iter().any(|part| Path::new(part).extension().is_some_and(|e| e == "gch" || e == "pch"));
        if precompiled {
            found.push(Silencer {
                file: shown,
                line: 0,
                what:
                    "a precompiled header: the compiler reads it, and any pragma in it, in place of a header"
                        .to_owned(),
            });
            continue;
        }
        let mut bytes = Vec::new();
        if fs::File::open(source.join(&path))
            .and_then(|f| f.take(FILE_BYTES).read_to_end(&mut bytes))
            .is_err()
        {
            continue;
        }
        for (line, what) in in_text(&String::from_utf8_lossy(&bytes)) {
            // The student's words: cut, and inert wherever they are shown.
            let what = text::inert(&text::cut(&what, WHAT_BYTES)).into_owned();
            found.push(Silencer { file: shown.clone(), line, what });
        }
    }
    found
}

/// One logical line of source: where it starts, and its code (comments
/// gone, string literals kept).
struct Logical {
    line: usize,
    code: String,
}

/// The silencers in one file's `text`: each line and what is there.
#[must_use]
pub fn in_text(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for logical in logical_lines(text) {
        let code = logical.code.trim_start();
        let directive = code.strip_prefix('#').or_else(|| code.strip_prefix("%:"));
        if let Some(directive) = directive
            && let Some(what) = directive_silences(directive)
        {
            found.push((logical.line, what));
        }
        if let Some(what) = names_silence(&logical.code, directive) {
            found.push((logical.line, what));
        }
    }
    found.dedup();
    found
}

/// What a directive (after its `#`) hides, if anything: a pragma making a
/// system header or turning diagnostics off, or a line marker flagging
/// what follows as a system header (`# 1 "x.h" 3`).
fn directive_silences(directive: &str) -> Option<String> {
    let shown = || format!("#{}", directive.split_whitespace().collect::<Vec<_>>().join(" "));
    let trimmed = directive.trim_start();
    if trimmed.starts_with(|c: char| c.is_ascii_digit()) {
        // A line marker, `# LINE "FILE" FLAGS`: flag 3 says a system
        // header follows, 4 one in an `extern "C"` block.
        let flags = trimmed.rfind('"').map_or("", |end| &trimmed[end + 1..]);
        let marker = || format!("# {}", trimmed.split_whitespace().collect::<Vec<_>>().join(" "));
        return flags.split_whitespace().any(|f| matches!(f, "3" | "4")).then(marker);
    }
    let words: Vec<&str> = directive
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '"' || c == '-'))
        .filter(|w| !w.is_empty())
        .collect();
    match words.as_slice() {
        ["pragma", rest @ ..] => {
            let silences = rest.contains(&"system_header")
                || matches!(rest, [ns, "diagnostic", kind, ..]
                    if matches!(*ns, "GCC" | "clang") && !matches!(*kind, "push" | "pop" | "error"))
                || matches!(rest, ["warning", ..])
                || rest.first().is_some_and(|w| w.starts_with("diag_") || w.starts_with("nv_diag_"));
            silences.then(shown)
        }
        _ => None,
    }
}

/// What a line's code hides through names and strings: the `_Pragma`
/// operator (or MSVC's `__pragma`), glibc's `__CONCAT` (which can paste
/// one together), a paste in a macro's definition, or a pragma's words in
/// code or a string (`"GCC diagnostic ignored …"` made into a pragma).
fn names_silence(code: &str, directive: Option<&str>) -> Option<String> {
    let words: Vec<&str> =
        code.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).collect();
    for name in ["_Pragma", "__pragma", "__CONCAT"] {
        if words.contains(&name) {
            return Some(format!("{name}: a pragma made in code"));
        }
    }
    let first = directive.map(str::trim_start);
    if first.is_some_and(|d| d.starts_with("define")) && (code.contains("##") || code.contains("%:%:")) {
        return Some("## in a macro: it can paste a _Pragma together".to_owned());
    }
    // A pragma's own words are judged as a directive, above.
    if first.is_some_and(|d| d.starts_with("pragma") || d.starts_with(|c: char| c.is_ascii_digit())) {
        return None;
    }
    if words.contains(&"system_header") {
        return Some("system_header: a pragma's words".to_owned());
    }
    let diagnostic =
        words.windows(2).any(|pair| matches!(pair[0], "GCC" | "clang") && pair[1] == "diagnostic");
    diagnostic.then(|| "GCC diagnostic: a pragma's words".to_owned())
}

/// `text` as the preprocessor's first phases see it: trigraphs replaced,
/// lines ending in a backslash joined to the next, comments gone; each
/// logical line with the physical line it starts on.
fn logical_lines(text: &str) -> Vec<Logical> {
    let text = text.replace("??=", "#").replace("??/", "\\");
    let chars: Vec<char> = text.chars().collect();
    let mut lines = Vec::new();
    let mut code = String::new();
    let (mut line, mut start) = (1, 1);
    let mut i = 0;
    // Past a backslash that ends a line (spaces may follow it): the next
    // character's index, counting the line.
    let spliced = |i: usize, line: &mut usize| -> Option<usize> {
        if chars.get(i) != Some(&'\\') {
            return None;
        }
        let mut j = i + 1;
        while matches!(chars.get(j), Some(' ' | '\t' | '\r')) {
            j += 1;
        }
        (chars.get(j) == Some(&'\n')).then(|| {
            *line += 1;
            j + 1
        })
    };
    while i < chars.len() {
        if let Some(next) = spliced(i, &mut line) {
            i = next;
            continue;
        }
        let c = chars[i];
        let peek = |k: usize| chars.get(i + k).copied();
        match c {
            '\n' => {
                lines.push(Logical { line: start, code: std::mem::take(&mut code) });
                line += 1;
                start = line;
                i += 1;
            }
            '/' if peek(1) == Some('/') => {
                // To the end of the line, which a backslash continues.
                while i < chars.len() && chars[i] != '\n' {
                    i = spliced(i, &mut line).unwrap_or(i + 1);
                }
                code.push(' ');
            }
            '/' if peek(1) == Some('*') => {
                i += 2;
                while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                    if chars[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
                i += 2;
                code.push(' ');
            }
            'R' if peek(1) == Some('"') && (!ends_in_name(&code) || raw_prefix(&code)) => {
                // A raw string: R"delim( … )delim", newlines and all.
                let open = chars[i + 2..].iter().position(|&c| c == '(' || c == '\n').map(|p| i + 2 + p);
                let Some(open) = open.filter(|&o| chars[o] == '(') else {
                    code.push(c);
                    i += 1;
                    continue;
                };
                let close: String =
                    std::iter::once(')').chain(chars[i + 2..open].iter().copied()).chain(['"']).collect();
                let close: Vec<char> = close.chars().collect();
                let mut j = open + 1;
                while j < chars.len() && !chars[j..].starts_with(&close) {
                    if chars[j] == '\n' {
                        line += 1;
                    }
                    j += 1;
                }
                code.push('"');
                code.extend(&chars[open + 1..j.min(chars.len())]);
                code.push('"');
                i = j + close.len();
            }
            '"' | '\'' if c == '"' || !ends_in_number(&code) => {
                code.push(c);
                i += 1;
                while i < chars.len() && chars[i] != c && chars[i] != '\n' {
                    if let Some(next) = spliced(i, &mut line) {
                        i = next;
                        continue;
                    }
                    if chars[i] == '\\' && i + 1 < chars.len() {
                        code.push(chars[i]);
                        i += 1;
                    }
                    code.push(chars[i]);
                    i += 1;
                }
                code.push(c);
                if chars.get(i) == Some(&c) {
                    i += 1;
                }
            }
            _ => {
                code.push(c);
                i += 1;
            }
        }
    }
    lines.push(Logical { line: start, code });
    lines
}

/// Whether `code` ends inside a name (so an `R` there is no raw string's).
fn ends_in_name(code: &str) -> bool {
    code.chars().last().is_some_and(|c| c.is_alphanumeric() || c == '_')
}

/// Whether `code` ends in a raw string's encoding prefix (`u8`, `u`, `U`,
/// `L`) standing alone.
fn raw_prefix(code: &str) -> bool {
    let name: String = code
        .chars()
        .rev()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    matches!(name.as_str(), "u8" | "u" | "U" | "L")
}

/// Whether `code` ends in a number, where `'` is a digit separator
/// (`1'000`), not a character literal.
fn ends_in_number(code: &str) -> bool {
    let token: String =
        code.chars().rev().take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '\'')).collect();
    token.chars().last().is_some_and(|c| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<usize> {
        in_text(text).into_iter().map(|(line, _)| line).collect()
    }

    #[test]
    fn each_spelling_of_a_silencing_pragma_is_found_on_its_line() {
        let cases = [
            ("#pragma GCC system_header\n", "#pragma GCC system_header"),
            ("  #  pragma   clang system_header\n", "#pragma clang system_header"),
            ("#pragma GCC diagnostic ignored \"-Wall\"\n", "#pragma GCC diagnostic ignored \"-Wall\""),
            (
                "#pragma clang diagnostic warning \"-Wunused\"\n",
                "#pragma clang diagnostic warning \"-Wunused\"",
            ),
            ("#pragma warning(disable: 4996)\n", "#pragma warning(disable: 4996)"),
            ("%:pragma GCC system_header\n", "#pragma GCC system_header"),
            ("??=pragma GCC system_header\n", "#pragma GCC system_header"),
            ("#/* a comment */pragma GCC system_header\n", "#pragma GCC system_header"),
            ("# 1 \"/usr/include/stdio.h\" 3\n", "# 1 \"/usr/include/stdio.h\" 3"),
        ];
        for (text, what) in cases {
            let found = in_text(&format!("int a;\n{text}int b;\n"));
            let what = what.split_whitespace().collect::<Vec<_>>().join(" ");
            assert_eq!(found, [(2, what)], "{text:?}");
        }
        // A line joined to the next by a backslash starts where it starts.
        assert_eq!(lines("int a;\n#pra\\\ngma GCC system_header\nint b;\n"), [2]);
        assert_eq!(lines("/* two\nlines */ #pragma GCC diagnostic ignored \"-Wall\"\n"), [1]);
    }

    #[test]
    fn a_pragma_made_in_code_is_found_by_its_name_or_its_words() {
        assert_eq!(
            in_text("int a;\n_Pragma(\"GCC diagnostic ignored \\\"-Wall\\\"\")\n"),
            [(2, "_Pragma: a pragma made in code".to_owned())]
        );
        assert_eq!(lines("#define CAT(a, b) a ## b\n"), [1]);
        assert_eq!(lines("#define CAT(a, b) a %:%: b\n"), [1]);
        assert_eq!(lines("__CONCAT(_Pra, gma)(S(x))\n"), [1]);
        assert_eq!(lines("#define S(x) #x\nS(GCC diagnostic ignored \"-Wall\")\n"), [2]);
        assert_eq!(lines("const char* p = \"GCC system_header\";\n"), [1]);
    }

    #[test]
    fn what_hides_nothing_is_not_found() {
        let honest = "#pragma once\n#pragma GCC diagnostic push\n#pragma GCC diagnostic pop\n\
                      #pragma GCC diagnostic error \"-Wall\"\n#pragma pack(1)\n# 12 \"board.cpp\"\n\
                      // #pragma GCC system_header\n/* _Pragma(\"x\") */\n\
                      int big = 1'000'000; char c = '#'; const char* s = \"#pragma once\";\n\
                      const char* r = R\"x(\n#pragma once\n)x\";\nint diagnostic = 0;\n";
        assert_eq!(in_text(honest), []);
    }

    #[test]
    fn a_submissions_files_are_searched_but_the_courses_nul_bytes_and_all() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("sub")).unwrap();
        fs::write(dir.path().join("board.h"), "#pragma GCC system_header\n").unwrap();
        fs::write(dir.path().join("sub/notes.txt"), "x\n_Pragma(\"GCC diagnostic ignored \\\"-Wall\\\"\")\n")
            .unwrap();
        fs::write(dir.path().join("main.cpp"), "#pragma GCC system_header\n").unwrap();
        fs::write(dir.path().join("prog.o"), b"\0#pragma GCC system_header\n").unwrap();
        fs::write(dir.path().join("mine.h.gch"), b"\0gpch").unwrap();
        fs::write(dir.path().join("q.inc"), b"//\0\n#pragma GCC diagnostic ignored \"-Wunused-variable\"\n")
            .unwrap();
        let found = find(dir.path(), &[Path::new("main.cpp")]);
        let shown: Vec<(&str, usize)> = found.iter().map(|s| (s.file.as_str(), s.line)).collect();
        // `prog.o` too: a NUL byte before a pragma (in a comment, say) hides
        // nothing from gcc, so no file is skipped as binary.
        assert_eq!(
            shown,
            [("board.h", 1), ("mine.h.gch", 0), ("prog.o", 1), ("q.inc", 2), ("sub/notes.txt", 2)]
        );
        assert_eq!(found[0].what, "#pragma GCC system_header");
    }
}
