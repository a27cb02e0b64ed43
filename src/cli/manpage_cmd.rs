//! `ttt-referee manpage`: the man pages, rendered by `clap_mangen` from the
//! command-line definition: the top page on standard output, or with
//! --out-dir a page for every command.
//!
//! `clap_mangen` puts a command's after-help in a section called EXTRA as
//! filled text, which `man` justifies and hyphenates (`stu- dents/*` cannot
//! be pasted). [`Page::render`] puts it instead in NOTES and EXAMPLES as
//! literal blocks, sets the whole page ragged-right without hyphenation, and
//! adds EXIT STATUS and SEE ALSO.

use std::fmt::Write as _;
use std::fs;
use std::io::{self, Write};
use std::path::PathBuf;

use clap::{Args, Command};
use clap_mangen::Man;

use super::{CliError, EXIT_SUCCESS, write_whole};
use crate::output::Durability;

pub(super) const AFTER_HELP: &str = "\
With --out-dir DIR it writes ttt-referee.1 and a page for every subcommand
(ttt-referee-grade.1, ...), each replaced whole, and says what it wrote.
With --install it writes them beside the binary, in BIN/../share/man/man1,
where `man` looks for every directory on PATH with no MANPATH set:
~/.cargo/share/man/man1 after `cargo install`, /usr/local/share/man/man1
for /usr/local/bin. Then `man ttt-referee-grade`:
  ttt-referee manpage --install
  ttt-referee manpage --out-dir ~/.cargo/share/man/man1   # the same, named";

#[derive(Debug, Args)]
pub(super) struct ManpageArgs {
    /// Write every command's page into DIR (created if missing) instead of
    /// printing the top page. (`--dir` is the old spelling.)
    #[arg(long, value_name = "DIR", alias = "dir", conflicts_with = "install")]
    out_dir: Option<PathBuf>,
    /// Write every command's page beside this binary, in
    /// BIN/../share/man/man1, where `man` finds them with no MANPATH.
    #[arg(long)]
    install: bool,
}

/// Where `--install` puts the pages for the binary at `exe`:
/// `BIN/../share/man/man1`, which man-db searches for every `BIN` on
/// `PATH` (`~/.cargo/bin` gives `~/.cargo/share/man/man1`).
#[must_use]
pub(super) fn beside(exe: &std::path::Path) -> Option<PathBuf> {
    let bin = exe.parent()?;
    let prefix = bin.parent()?;
    Some(prefix.join("share").join("man").join("man1"))
}

pub(super) fn run(args: &ManpageArgs, cmd: Command) -> Result<u8, CliError> {
    let pages = pages(cmd);
    let installed = if args.install {
        let exe =
            std::env::current_exe().map_err(|source| CliError::write(std::path::Path::new("."), source))?;
        Some(beside(&exe).ok_or_else(|| {
            CliError::write(
                &exe,
                io::Error::other("the binary is in no directory with a parent to put pages beside"),
            )
        })?)
    } else {
        None
    };
    let Some(dir) = installed.as_ref().or(args.out_dir.as_ref()) else {
        let mut page = Vec::new();
        pages[0].render(&mut page).map_err(CliError::stdout)?;
        io::stdout().write_all(&page).map_err(CliError::stdout)?;
        return Ok(EXIT_SUCCESS);
    };
    fs::create_dir_all(dir).map_err(|source| CliError::write(dir, source))?;
    for page in &pages {
        let path = dir.join(page.man.get_filename());
        write_whole(&path, Durability::Renamed, |out| page.render(out))?;
    }
    let _ = writeln!(
        io::stderr(),
        "ttt-referee: wrote {} man pages into {} ({}, ...); `man {}` {}",
        pages.len(),
        dir.display(),
        pages[0].man.get_filename(),
        pages[0].name,
        found_when(dir),
    );
    Ok(EXIT_SUCCESS)
}

/// When `man` finds pages written into `dir`, in words that follow "`man
/// NAME`": a `PREFIX/share/man/man1` is searched while `PREFIX/bin` is on
/// `PATH`; any other directory's parent must be on `MANPATH`.
fn found_when(dir: &std::path::Path) -> String {
    let prefix = dir.ends_with("share/man/man1").then(|| dir.parent()?.parent()?.parent()).flatten();
    match prefix {
        Some(prefix) => format!("finds them while {} is on PATH", prefix.join("bin").display()),
        None => format!(
            "finds them once {} is on MANPATH (or write them into BIN/../share/man/man1 with BIN on PATH: --install)",
            dir.parent().unwrap_or(dir).display()
        ),
    }
}

/// One command's page, and the pages its SEE ALSO names.
struct Page {
    man: Man,
    /// The command's usage lines, as `--help` shows them
    /// (`ttt-referee grade [OPTIONS] <SUBMISSION>...`): the SYNOPSIS, where
    /// `clap_mangen` lists every option without its value. Each is the
    /// command's words (its `bin_name`, in bold) and the rest.
    usage: Vec<(String, String)>,
    /// The page's name: `ttt-referee-grade`.
    name: String,
    /// The command's exit statuses, for EXIT STATUS.
    exit_status: &'static [(&'static str, &'static str)],
    /// The pages related to this one (its parents and subcommands, or for
    /// the top page every other page).
    see_also: Vec<String>,
}

/// Exit statuses every command shares.
const EXIT_STATUS: &[(&str, &str)] = &[
    ("0", "Success."),
    ("2", "A usage error, unreadable or malformed input, or an I/O failure (nothing is written)."),
];

/// The top page's: the referee, and `check` and `grade` in short.
const EXIT_STATUS_TOP: &[(&str, &str)] = &[
    ("0", "Success (with --out-dir, every file refereed)."),
    ("1", "check: the transcripts differ; grade: a test did not pass."),
    (
        "2",
        "A usage error, unreadable or malformed input, or an I/O failure (with --out-dir, any file that failed).",
    ),
    ("130", "grade, match, tournament: stopped by Ctrl-C or SIGTERM."),
];

const EXIT_STATUS_CHECK: &[(&str, &str)] = &[
    ("0", "The transcripts match."),
    ("1", "They differ, or a transcript is missing."),
    ("2", "An error, such as a malformed move file or a missing directory."),
];

const EXIT_STATUS_GRADE: &[(&str, &str)] = &[
    ("0", "Every test passed."),
    ("1", "Some test did not pass."),
    ("2", "Grading could not be done (usage error, unreadable tests, no sandbox with --require-sandbox)."),
    ("130", "Ctrl-C or SIGTERM stopped it; the submissions graded so far are reported."),
];

/// `match`'s: forfeits are results, not errors.
const EXIT_STATUS_MATCH: &[(&str, &str)] = &[
    ("0", "Every game was played (forfeits and bots that do not build included)."),
    (
        "2",
        "A usage error, a participant that is none, a record of another setup in the report directory, or an I/O failure.",
    ),
    ("130", "Ctrl-C or SIGTERM stopped it; the games finished are recorded, and the same command resumes."),
];

/// `tournament`'s: `match`'s, and its openings file.
const EXIT_STATUS_TOURNAMENT: &[(&str, &str)] = &[
    ("0", "Every game was played (forfeits and bots that do not build included)."),
    (
        "2",
        "A usage error, a participant that is none, a bad openings file, a record of another setup in the report directory, or an I/O failure.",
    ),
    ("130", "Ctrl-C or SIGTERM stopped it; the games finished are recorded, and the same command resumes."),
];

/// The exit statuses of the command at `path` (its names below the top).
fn exit_status(path: &[&str]) -> &'static [(&'static str, &'static str)] {
    match path {
        [] => EXIT_STATUS_TOP,
        ["check"] => EXIT_STATUS_CHECK,
        ["grade"] => EXIT_STATUS_GRADE,
        ["match"] => EXIT_STATUS_MATCH,
        ["tournament"] => EXIT_STATUS_TOURNAMENT,
        _ => EXIT_STATUS,
    }
}

impl Page {
    /// Renders the page: `clap_mangen`'s, but for what [the module
    /// docs](self) say.
    fn render(&self, out: &mut dyn Write) -> io::Result<()> {
        let mut page = Vec::new();
        self.man.render(&mut page)?;
        let page = String::from_utf8_lossy(&page);
        let page = with_synopsis(&page, &self.usage);
        let (head, extra, tail) = split_extra(&page);
        let mut text = String::with_capacity(page.len() + 1024);
        // Ragged-right and never hyphenated: no word of an option or a path
        // is split over two lines.
        for line in head.lines() {
            text.push_str(line);
            text.push('\n');
            if line.starts_with(".TH ") {
                text.push_str(".ad l\n.nh\n");
            }
        }
        let (notes, examples) = split_examples(extra);
        literal_section(&mut text, "NOTES", &notes);
        text.push_str(".SH \"EXIT STATUS\"\n");
        for (code, meaning) in self.exit_status {
            let _ = write!(text, ".TP\n{code}\n{}\n", escape(meaning));
        }
        literal_section(&mut text, "EXAMPLES", &examples);
        text.push_str(tail);
        if !self.see_also.is_empty() {
            text.push_str(".SH \"SEE ALSO\"\n");
            let pages: Vec<String> =
                self.see_also.iter().map(|p| format!("\\fB{}\\fR(1)", escape(p))).collect();
            text.push_str(&pages.join(",\n"));
            text.push_str("\n.PP\nREADME.md and FORMAT.md in ttt-referee's source.\n");
        }
        out.write_all(text.as_bytes())
    }
}

/// `page` with its SYNOPSIS section's body replaced by `usage`, a line
/// each, the command's words in bold (unchanged if either is missing).
fn with_synopsis(page: &str, usage: &[(String, String)]) -> String {
    const SYNOPSIS: &str = ".SH SYNOPSIS\n";
    let Some(start) = page.find(SYNOPSIS).map(|at| at + SYNOPSIS.len()) else { return page.to_owned() };
    let Some(end) = page[start..].find("\n.SH ").map(|at| start + at + 1) else { return page.to_owned() };
    if usage.is_empty() {
        return page.to_owned();
    }
    let lines: Vec<String> =
        usage.iter().map(|(command, rest)| format!("\\fB{}\\fR{}", escape(command), escape(rest))).collect();
    format!("{}{}\n{}", &page[..start], lines.join("\n.br\n"), &page[end..])
}

/// The page before the EXTRA section, the section's lines (roff text, one
/// a line of the after-help), and the page after it.
fn split_extra(page: &str) -> (&str, &str, &str) {
    const EXTRA: &str = ".SH EXTRA\n";
    let Some(start) = page.find(EXTRA) else {
        return match page.find("\n.SH VERSION") {
            Some(end) => (&page[..=end], "", &page[end + 1..]),
            None => (page, "", ""),
        };
    };
    let body = &page[start + EXTRA.len()..];
    let end = body.find("\n.SH ").map_or(body.len(), |i| i + 1);
    (&page[..start], &body[..end], &body[end..])
}

/// The after-help's lines split into notes and examples: an `Examples:`
/// line and the lines after it up to a blank one are examples (the heading
/// dropped). A paragraph that starts `Exit status:` is dropped: EXIT STATUS
/// says it.
fn split_examples(extra: &str) -> (Vec<&str>, Vec<&str>) {
    let (mut notes, mut examples) = (Vec::new(), Vec::new());
    let mut in_examples = false;
    let mut skipping = false;
    for line in extra.lines() {
        if line.trim().is_empty() {
            in_examples = false;
            skipping = false;
            notes.push(line);
        } else if line == "Examples:" {
            in_examples = true;
        } else if in_examples {
            examples.push(line);
        } else if skipping || line.starts_with("Exit status:") && notes.last().is_none_or(|l| l.is_empty()) {
            skipping = true;
        } else {
            notes.push(line);
        }
    }
    // The blank lines left where paragraphs were taken out.
    let mut kept: Vec<&str> = Vec::new();
    for line in notes {
        if !(line.is_empty() && kept.last().is_none_or(|l: &&str| l.is_empty())) {
            kept.push(line);
        }
    }
    while kept.last().is_some_and(|l| l.is_empty()) {
        kept.pop();
    }
    (kept, examples)
}

/// A section of `lines` (already roff text) shown as written: no filling,
/// no justification, so examples paste as they are.
fn literal_section(text: &mut String, title: &str, lines: &[&str]) {
    if lines.is_empty() {
        return;
    }
    let _ = write!(text, ".SH {title}\n.nf\n");
    for line in lines {
        text.push_str(line);
        text.push('\n');
    }
    text.push_str(".fi\n");
}

/// `text` as roff text: backslashes and hyphen-minus escaped, a leading
/// `.` or `'` made inert.
fn escape(text: &str) -> String {
    let text = text.replace('\\', "\\\\").replace('-', "\\-");
    if text.starts_with(['.', '\'']) { format!("\\&{text}") } else { text }
}

/// A page for `cmd` and one for each of its visible subcommands, nested ones
/// too, the top page first. `help` has no page (its text is every page), so
/// no page names one.
fn pages(cmd: Command) -> Vec<Page> {
    fn collect(cmd: Command, top: &str, source: &str, parents: &[String], pages: &mut Vec<Page>) {
        let subcommands: Vec<Command> = cmd.get_subcommands().filter(|s| !s.is_hide_set()).cloned().collect();
        // Built with the top command, each command knows its words.
        let words = cmd.get_bin_name().unwrap_or(cmd.get_name()).to_owned();
        let usage = cmd
            .clone()
            .render_usage()
            .to_string()
            .lines()
            .map(|line| line.trim().trim_start_matches("Usage:").trim())
            .filter_map(|line| line.strip_prefix(words.as_str()))
            .map(|rest| (words.clone(), rest.to_owned()))
            .collect();
        let man = Man::new(cmd).source(source);
        let name = man.get_filename().trim_end_matches(".1").to_owned();
        let children: Vec<String> = subcommands.iter().map(|s| format!("{name}-{}", s.get_name())).collect();
        let see_also = parents.iter().cloned().chain(children).collect();
        let path: Vec<&str> = name.strip_prefix(top).unwrap_or_default().split('-').skip(1).collect();
        pages.push(Page { man, usage, exit_status: exit_status(&path), name: name.clone(), see_also });
        let parents: Vec<String> = parents.iter().cloned().chain([name]).collect();
        for sub in subcommands {
            collect(sub, top, source, &parents, pages);
        }
    }
    let mut cmd = cmd.disable_help_subcommand(true);
    cmd.build();
    let source = format!("{} {}", cmd.get_name(), cmd.get_version().unwrap_or_default());
    let top = cmd.get_name().to_owned();
    let mut pages = Vec::new();
    collect(cmd, &top, &source, &[], &mut pages);
    // The top page names every other page.
    let all: Vec<String> = pages.iter().skip(1).map(|p| p.name.clone()).collect();
    pages[0].see_also = all;
    pages
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;
    use crate::cli::Cli;

    fn rendered(page: &Page) -> String {
        let mut out = Vec::new();
        page.render(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn every_subcommand_has_a_page_and_help_none() {
        let names: Vec<String> = pages(Cli::command()).iter().map(|p| p.man.get_filename()).collect();
        assert_eq!(names[0], "ttt-referee.1");
        for sub in ["check", "gen", "grade", "hint", "play", "match", "tournament", "completions", "manpage"]
        {
            assert!(names.contains(&format!("ttt-referee-{sub}.1")), "{sub}: {names:?}");
        }
        assert!(!names.iter().any(|n| n.contains("help")), "{names:?}");
    }

    #[test]
    fn nested_subcommands_get_pages_named_for_their_path() {
        let cmd =
            Command::new("tool").version("1.0").subcommand(Command::new("a").subcommand(Command::new("b")));
        let pages = pages(cmd);
        let names: Vec<String> = pages.iter().map(|p| p.man.get_filename()).collect();
        assert_eq!(names, ["tool.1", "tool-a.1", "tool-a-b.1"]);
        assert_eq!(pages[2].see_also, ["tool", "tool-a"]);
        assert_eq!(pages[0].see_also, ["tool-a", "tool-a-b"]);
    }

    /// The examples are a literal block, the page is neither justified nor
    /// hyphenated, and nothing is left in an EXTRA section.
    #[test]
    fn examples_are_literal_and_the_page_never_justified_nor_hyphenated() {
        let pages = pages(Cli::command());
        let grade = pages.iter().find(|p| p.name == "ttt-referee-grade").unwrap();
        let page = rendered(grade);
        assert!(page.contains(".TH ttt-referee-grade 1  \"ttt-referee 0.1.0\" \n.ad l\n.nh\n"), "{page}");
        assert!(!page.contains(".SH EXTRA"), "{page}");
        let examples = page.split(".SH EXAMPLES\n").nth(1).unwrap();
        assert!(
            examples.starts_with(
                ".nf\n  ttt\\-referee grade \\-\\-tests tests/ students/*\n  ttt\\-referee grade \\-\\-tests tests/ \\-\\-build \\*(Aqg++ \\-O2 \\-o prog *.cpp\\*(Aq students/*\n"
            ),
            "{examples}"
        );
        let examples = &examples[..examples.find(".fi\n").unwrap()];
        assert!(!examples.contains(".SH"), "{examples}");
        // The notes keep the help's paragraphs and lists as written.
        let notes = page.split(".SH NOTES\n.nf\n").nth(1).unwrap();
        assert!(notes.starts_with("Each SUBMISSION is a directory named after its author"), "{notes}");
        assert!(notes.contains("\n  xtreme      StFX asn3"), "{notes}");
    }

    #[test]
    fn every_page_has_exit_status_and_see_also() {
        let pages = pages(Cli::command());
        let top = rendered(&pages[0]);
        let status = top.split(".SH \"EXIT STATUS\"\n").nth(1).unwrap();
        assert!(
            status.starts_with(".TP\n0\nSuccess (with \\-\\-out\\-dir, every file refereed).\n.TP\n1\n"),
            "{status}"
        );
        assert!(top.contains(".SH \"SEE ALSO\"\n\\fBttt\\-referee\\-check\\fR(1),\n"), "{top}");
        // The top page's own paragraph on exit statuses is not repeated in NOTES.
        assert!(!top.contains("Exit status: 0 success"), "{top}");
        for page in &pages {
            let text = rendered(page);
            assert!(text.contains(".SH \"EXIT STATUS\"\n.TP\n0\n"), "{}: {text}", page.name);
            assert!(text.contains(".SH \"SEE ALSO\"\n\\fBttt\\-referee"), "{}: {text}", page.name);
        }
        let check = rendered(pages.iter().find(|p| p.name == "ttt-referee-check").unwrap());
        assert!(check.contains(".TP\n1\nThey differ, or a transcript is missing.\n"), "{check}");
        assert!(check.contains(".SH \"SEE ALSO\"\n\\fBttt\\-referee\\fR(1)\n"), "{check}");
    }
}
