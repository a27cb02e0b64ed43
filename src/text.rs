//! Text shown to people that came from a program someone else wrote: cut to
//! a size on character boundaries, its end kept, and made inert.
//!
//! Everything a report shows of a student's program — an answer, a line of
//! it, the end of its standard error, a build log, a value a function
//! returned — passes through here, so that no report grows with what a
//! student prints and no cut can land inside a character (which would
//! panic). One cutter, used everywhere: a byte count is always brought
//! down to the nearest character boundary at or below it.
//!
//! And one neutraliser, [`inert`] (with [`inert_lines`] and [`markdown`]
//! built on it): every student- or bot-controlled string passes through it
//! before a terminal, a record, a report, Markdown or a CI log, so that no
//! escape sequence, reordering or hidden character, workflow command or
//! link of someone else's reaches a person or a runner.

use std::borrow::Cow;

/// The longest line a report shows, in bytes: a longer one is cut, with its
/// length said ([`line()`]).
pub const LINE_BYTES: usize = 512;

/// The longest prefix of `text` of at most `max` bytes that ends on a
/// character boundary.
#[must_use]
pub fn prefix(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut at = max;
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    &text[..at]
}

/// The longest suffix of `text` of at most `max` bytes that begins on a
/// character boundary.
#[must_use]
pub fn suffix(text: &str, max: usize) -> &str {
    let mut at = text.len().saturating_sub(max);
    while !text.is_char_boundary(at) {
        at += 1;
    }
    &text[at..]
}

/// At most `max` bytes of `bytes` as text: invalid UTF-8 becomes `�`, and
/// a character the cut would split is left out whole. The bytes past `max`
/// are never decoded, so the cost is bounded by `max`.
#[must_use]
pub fn shown(bytes: &[u8], max: usize) -> String {
    if bytes.len() <= max {
        return String::from_utf8_lossy(bytes).into_owned();
    }
    let head = &bytes[..max];
    String::from_utf8_lossy(&head[..complete(head)]).into_owned()
}

/// As [`shown`], at most `lines` lines, each longer than [`LINE_BYTES`]
/// cut as [`line()`] cuts it (the lines keep their numbers), and a last line
/// `… (N more lines)` where lines were left out.
#[must_use]
pub fn shown_lines(bytes: &[u8], max: usize, lines: usize) -> String {
    let text = shown(bytes, max);
    let mut kept: Vec<Cow<'_, str>> = text.split('\n').take(lines).map(line).collect();
    let total = memchr::memchr_iter(b'\n', bytes).count() + usize::from(!bytes.ends_with(b"\n"));
    if kept.len() < text.split('\n').count() || (kept.len() == lines && total > lines) {
        kept.push(Cow::Owned(format!("… ({} more lines)", thousands(total - lines.min(total)))));
    }
    kept.join("\n")
}

/// The length of `bytes` less an incomplete UTF-8 sequence at its end.
fn complete(bytes: &[u8]) -> usize {
    // A sequence is at most 4 bytes: look back that far for its lead byte.
    for back in 1..=bytes.len().min(4) {
        let lead = bytes[bytes.len() - back];
        if lead & 0xC0 != 0x80 {
            let length = match lead {
                0xC0..=0xDF => 2,
                0xE0..=0xEF => 3,
                0xF0..=0xF7 => 4,
                _ => 1,
            };
            return if length > back { bytes.len() - back } else { bytes.len() };
        }
    }
    bytes.len()
}

/// `text` cut at `max` bytes, with `…` where it was cut; whole if it fits.
#[must_use]
pub fn cut(text: &str, max: usize) -> Cow<'_, str> {
    if text.len() <= max { Cow::Borrowed(text) } else { Cow::Owned(format!("{}…", prefix(text, max))) }
}

/// One line to show: whole if it is at most [`LINE_BYTES`], else its start
/// and how long it was (`aaaa… (6,291,456 bytes in all)`).
#[must_use]
pub fn line(text: &str) -> Cow<'_, str> {
    said(text, LINE_BYTES)
}

/// `text` whole if it is at most `max` bytes, else its first `max` and how
/// long it was.
#[must_use]
pub fn said(text: &str, max: usize) -> Cow<'_, str> {
    if text.len() <= max {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(format!("{}… ({} bytes in all)", prefix(text, max), thousands(text.len())))
    }
}

/// The end of a program's output: its last `lines` lines, at most `max`
/// bytes, trailing white space left out, with `…` on a line of its own
/// where the start was cut. Only the last `max` bytes are decoded.
#[must_use]
pub fn tail(bytes: &[u8], lines: usize, max: usize) -> String {
    let mut from = bytes.len().saturating_sub(max);
    // Begin on a character's first byte.
    while from > 0 && from < bytes.len() && bytes[from] & 0xC0 == 0x80 {
        from += 1;
    }
    let decoded = String::from_utf8_lossy(&bytes[from..]);
    let text = decoded.trim_end();
    let start = text.match_indices('\n').rev().nth(lines.saturating_sub(1)).map_or(0, |(at, _)| at + 1);
    // Invalid bytes decode to three (`�`): the size is bounded again.
    let kept = suffix(&text[start..], max);
    if from == 0 && kept.len() == text.len() { kept.to_owned() } else { format!("…\n{kept}") }
}

/// `1,234,567` for 1234567.
#[must_use]
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Student text made inert on one line, for a terminal, a record, a
/// report, a spreadsheet or a CI log: every control character (a newline,
/// a tab and an escape sequence's ESC among them), bidirectional override
/// and isolate, other invisible format character (Unicode's category `Cf`:
/// zero-width spaces and joiners, the byte-order mark…), line and paragraph
/// separator and invisible filler is shown escaped (`\u{1b}`), and so is
/// the first character of a workflow command a CI runner would obey:
/// `##[…]` (and Azure's `##vso[…]`) anywhere, `::name::` at the start of a
/// line (GitHub's runner trims white space first). The rest is kept as is.
///
/// The one function every student- or bot-controlled string (a name, a
/// file name, a build log, standard error, an answer) passes through before
/// it is shown: [`inert_lines`] keeps the lines and tabs of longer text,
/// and [`markdown`] makes inert text Markdown too. Inert text stays inert
/// when made inert again (the escapes are plain text).
///
/// ```
/// use ttt_referee::text::inert;
///
/// assert_eq!(inert("a\u{1b}[2J\u{202e}b"), "a\\u{1b}[2J\\u{202e}b");
/// assert_eq!(inert("::error::x ##[warning]y"), "\\u{3a}:error::x \\u{23}#[warning]y");
/// assert_eq!(inert("ann"), "ann");
/// ```
#[must_use]
pub fn inert(text: &str) -> Cow<'_, str> {
    neutral(text, false)
}

/// As [`inert`], but for longer text shown as it was laid out (a build
/// log, standard error, an answer): its newlines and tabs are kept (a
/// `\r\n` line end is a newline), and each line is neutralised as a line.
#[must_use]
pub fn inert_lines(text: &str) -> Cow<'_, str> {
    neutral(text, true)
}

/// Student text made [`inert`] and then plain Markdown text, for a table
/// cell or a line of prose (GitHub's step summary): every ASCII punctuation
/// mark is escaped with a backslash, so nothing in it is Markdown or HTML
/// (`|` cannot end a cell, `<b>` is shown as written), and every `@` is set
/// apart as code (`` `@` ``), so that no e-mail address or mention in it
/// becomes a link (GitHub links an address after its escapes are read;
/// escaped `:` and `.` already keep URLs and `www.` from being linked).
#[must_use]
pub fn markdown(text: &str) -> String {
    let text = inert(text);
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    for c in text.chars() {
        if c == '@' {
            out.push_str("`@`");
            continue;
        }
        if c.is_ascii_punctuation() {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Markdown written with [`markdown`]'s escapes, read back for a terminal
/// (`autograder try`), where `C\+\+` should read `C++`: outside fenced
/// code blocks (which were never escaped), a backslash before an ASCII
/// punctuation mark and the code span around an `@` are dropped. The
/// result is then made [`inert_lines`], as every text shown is.
#[must_use]
pub fn markdown_read(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut fenced = false;
    for line in text.split_inclusive('\n') {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            out.push_str(line);
            continue;
        }
        if fenced {
            out.push_str(line);
            continue;
        }
        let line = line.replace("`@`", "@");
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '\\' && chars.peek().is_some_and(char::is_ascii_punctuation) {
                continue;
            }
            out.push(c);
        }
    }
    inert_lines(&out).into_owned()
}

/// What [`inert`] and [`inert_lines`] both are: `text` with every hidden
/// character escaped and every workflow command broken, its lines and tabs
/// kept when `lines` is true. Borrowed when nothing needed a change.
fn neutral(text: &str, lines: bool) -> Cow<'_, str> {
    // Written from the first change on; before it, `text` itself.
    let mut out: Option<String> = None;
    // Nothing but white space (or marks a runner may ignore) yet on the
    // line: a `::` here would be a command.
    let mut line_start = true;
    for (at, c) in text.char_indices() {
        let rest = &text[at + c.len_utf8()..];
        // The layout kept: newlines and tabs, and a `\r` before a `\n`,
        // which is left out (the newline ends the line).
        let layout = lines && (matches!(c, '\n' | '\t') || (c == '\r' && rest.starts_with('\n')));
        let dropped = layout && c == '\r';
        let escaped = !layout
            && (hidden(c)
                || (c == '#' && workflow_after_hash(rest))
                || (c == ':' && line_start && skip_ignorable(rest).starts_with(':')));
        if (escaped || dropped) && out.is_none() {
            let mut started = String::with_capacity(text.len() + 16);
            started.push_str(&text[..at]);
            out = Some(started);
        }
        if dropped {
            continue;
        }
        if let Some(out) = &mut out {
            if escaped {
                out.extend(c.escape_unicode());
            } else {
                out.push(c);
            }
        }
        if c == '\n' && !escaped {
            line_start = true;
        } else if escaped || !(c.is_whitespace() || ignorable(c)) {
            line_start = false;
        }
    }
    out.map_or(Cow::Borrowed(text), Cow::Owned)
}

/// A character [`inert`] shows escaped wherever it is: a control
/// character, an invisible format character (`Cf`: bidirectional controls,
/// zero-width characters, the byte-order mark, soft hyphens…), a line or
/// paragraph separator, or a filler that draws as nothing.
fn hidden(c: char) -> bool {
    use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};
    // ASCII's only hidden characters are its controls (it has no format
    // characters, separators or fillers): answered without the table.
    if c.is_ascii() {
        return c.is_ascii_control();
    }
    matches!(
        c.general_category(),
        GeneralCategory::Control
            | GeneralCategory::Format
            | GeneralCategory::LineSeparator
            | GeneralCategory::ParagraphSeparator
    ) || matches!(c, '\u{115f}' | '\u{1160}' | '\u{3164}' | '\u{ffa0}')
}

/// A character a runner's culture-aware comparison may pass over as if it
/// were not there (a combining or enclosing mark, a variation selector):
/// `#\u{fe0f}#[` must not be read as `##[`.
fn ignorable(c: char) -> bool {
    use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};
    // ASCII has no marks.
    if c.is_ascii() {
        return false;
    }
    matches!(c.general_category(), GeneralCategory::NonspacingMark | GeneralCategory::EnclosingMark)
}

/// `text` from its first character that is not [`ignorable`].
fn skip_ignorable(text: &str) -> &str {
    text.trim_start_matches(ignorable)
}

/// Whether a `#` followed by `rest` begins a workflow command: `#[` or
/// `#vso[` (any case) comes next, marks between ignored.
fn workflow_after_hash(rest: &str) -> bool {
    let Some(rest) = skip_ignorable(rest).strip_prefix('#') else { return false };
    let rest = skip_ignorable(rest);
    rest.starts_with('[') || rest.get(..4).is_some_and(|vso| vso.eq_ignore_ascii_case("vso["))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_read_back_is_the_inert_text_outside_code_and_leaves_code_alone() {
        let hostile = "C++ | <b>x</b> @ann \\ \u{1b}[2J";
        let written = format!("{}\n```text\na\\(b\n```\n", markdown(hostile));
        assert_eq!(markdown_read(&written), format!("{}\n```text\na\\(b\n```\n", inert(hostile)));
    }

    #[test]
    fn ascii_is_answered_as_the_table_answers_it() {
        use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};
        for c in (0u8..128).map(char::from) {
            let category = c.general_category();
            let hidden_by_table = matches!(
                category,
                GeneralCategory::Control
                    | GeneralCategory::Format
                    | GeneralCategory::LineSeparator
                    | GeneralCategory::ParagraphSeparator
            );
            assert_eq!(hidden(c), hidden_by_table, "{c:?}");
            let ignorable_by_table =
                matches!(category, GeneralCategory::NonspacingMark | GeneralCategory::EnclosingMark);
            assert_eq!(ignorable(c), ignorable_by_table, "{c:?}");
        }
    }

    #[test]
    fn a_cut_never_lands_inside_a_character() {
        let text = format!("a{}", "é".repeat(40_000));
        for max in 0..8 {
            assert!(prefix(&text, max).len() <= max);
            assert!(suffix(&text, max).len() <= max);
        }
        assert_eq!(prefix(&text, 2), "a");
        assert_eq!(prefix(&text, 3), "aé");
        assert_eq!(suffix(&text, 3), "é");
        assert_eq!(cut(&text, 2), "a…");
        assert_eq!(cut("abc", 3), "abc");
    }

    #[test]
    fn shown_bytes_drop_a_character_split_at_the_cut() {
        let bytes = format!("a{}", "é".repeat(10)).into_bytes();
        assert_eq!(shown(&bytes, 2), "a");
        assert_eq!(shown(&bytes, 3), "aé");
        assert_eq!(shown(&bytes, 100), String::from_utf8(bytes.clone()).unwrap());
        // Invalid bytes before the cut are still shown as `�`.
        assert_eq!(shown(b"\xffab\xc3\xa9\xc3\xa9", 6), "\u{fffd}abé");
        assert_eq!(shown(b"ab\xf0\x9f\x98\x80", 5), "ab");
    }

    #[test]
    fn shown_lines_are_cut_one_by_one() {
        let bytes = format!("short\n{}\nend\n", "y".repeat(1000)).into_bytes();
        let text = shown_lines(&bytes, 1 << 16, 100);
        let lines: Vec<&str> = text.split('\n').collect();
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[0], "short");
        assert!(lines[1].ends_with("… (1,000 bytes in all)"), "{}", lines[1]);
        assert_eq!(lines[2], "end");
        assert_eq!(shown_lines(b"a\nb\n", 100, 100), "a\nb\n");
        // Many short lines: the first few, and how many more.
        let many = b"x\n".repeat(5000);
        let text = shown_lines(&many, 1 << 16, 3);
        assert_eq!(text, "x\nx\nx\n… (4,997 more lines)");
    }

    #[test]
    fn a_long_line_says_how_long_it_was() {
        let long = "x".repeat(6 << 20);
        let shown = line(&long);
        assert!(shown.len() < LINE_BYTES + 40, "{}", shown.len());
        assert!(shown.ends_with("… (6,291,456 bytes in all)"), "{}", &shown[LINE_BYTES - 5..]);
        assert_eq!(line("short"), "short");
    }

    #[test]
    fn the_tail_keeps_the_last_lines_and_bytes() {
        let text: String =
            (1..=30).flat_map(|n| ["line ".to_owned(), n.to_string(), "\n".to_owned()]).collect();
        let end = tail(text.as_bytes(), 3, 1000);
        assert_eq!(end, "…\nline 28\nline 29\nline 30");
        assert_eq!(tail(b"one\ntwo\n\n", 20, 100), "one\ntwo");
        let wide = "é".repeat(5000);
        let end = tail(wide.as_bytes(), 20, 101);
        assert!(end.starts_with("…\n"));
        assert_eq!(end.trim_start_matches("…\n"), "é".repeat(50));
    }

    #[test]
    fn thousands_and_inert() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(inert("a\u{1b}[2Jb"), "a\\u{1b}[2Jb");
        assert_eq!(inert("plain"), "plain");
        assert!(matches!(inert("plain é ∑ 😀 std::vector"), Cow::Borrowed(_)));
    }

    #[test]
    fn hidden_characters_are_shown_escaped() {
        // Control characters, bidirectional overrides and isolates, every
        // other format character, separators and fillers.
        for c in [
            '\u{0}',
            '\u{7}',
            '\u{8}',
            '\t',
            '\n',
            '\r',
            '\u{1b}',
            '\u{7f}',
            '\u{85}',
            '\u{9b}',
            '\u{ad}',
            '\u{61c}',
            '\u{180e}',
            '\u{200b}',
            '\u{200c}',
            '\u{200d}',
            '\u{200e}',
            '\u{200f}',
            '\u{202a}',
            '\u{202e}',
            '\u{2028}',
            '\u{2029}',
            '\u{2060}',
            '\u{2066}',
            '\u{2069}',
            '\u{206f}',
            '\u{3164}',
            '\u{feff}',
            '\u{fff9}',
            '\u{e0041}',
        ] {
            let text = format!("a{c}b");
            assert_eq!(inert(&text), format!("a{}b", c.escape_unicode()), "{c:?}");
        }
        // What is visible stays: letters, marks on letters, symbols, spaces.
        assert_eq!(inert("Zoë Ünal, 名前 ❤\u{fe0f} a\u{301}"), "Zoë Ünal, 名前 ❤\u{fe0f} a\u{301}");
    }

    #[test]
    fn workflow_commands_are_broken() {
        // GitHub's runner obeys `##[…]` anywhere in a line, Azure's `##vso[…]` too.
        assert_eq!(inert("x ##[warning]y"), "x \\u{23}#[warning]y");
        assert_eq!(inert("###[error]"), "#\\u{23}#[error]");
        assert_eq!(inert("##VSO[task.setvariable]"), "\\u{23}#VSO[task.setvariable]");
        assert_eq!(inert("#\u{fe0f}#[error]"), "\\u{23}\u{fe0f}#[error]");
        assert_eq!(inert("## heading, #[attr], C's a ## b"), "## heading, #[attr], C's a ## b");
        // `::name::` at a line's start, after white space too.
        assert_eq!(inert("::error::x"), "\\u{3a}:error::x");
        assert_eq!(inert("  ::stop-commands::t"), "  \\u{3a}:stop-commands::t");
        assert_eq!(inert("\u{301}::error::x"), "\u{301}\\u{3a}:error::x");
        assert_eq!(inert("std::vector ::x"), "std::vector ::x");
        // An escaped newline or return is no line's start.
        assert_eq!(inert("a\n::error::x"), "a\\u{a}::error::x");
        assert_eq!(inert("a\r::x"), "a\\u{d}::x");
        // Made inert twice, text is as made inert once.
        let hostile = "##[warning]\u{1b}[2J\n::error::\u{202e}x\r\n  ::y";
        for once in [inert(hostile), inert_lines(hostile)] {
            assert_eq!(inert_lines(&once), once);
        }
    }

    #[test]
    fn lines_keep_their_layout_and_are_neutralised_each() {
        assert_eq!(
            inert_lines("a\tb\r\n::error::x\n\t::warning::y\n##[group]z\rw\u{1b}"),
            "a\tb\n\\u{3a}:error::x\n\t\\u{3a}:warning::y\n\\u{23}#[group]z\\u{d}w\\u{1b}"
        );
        assert!(matches!(inert_lines("one\n\ttwo\n"), Cow::Borrowed(_)));
    }

    #[test]
    fn markdown_holds_no_syntax_and_no_link() {
        assert_eq!(markdown("a|b `c` <b>x</b>\n*y*"), "a\\|b \\`c\\` \\<b\\>x\\<\\/b\\>\\\\u\\{a\\}\\*y\\*");
        assert_eq!(markdown("ann@example.com"), "ann`@`example\\.com");
        assert_eq!(markdown("see https://x.io and www.x.io"), "see https\\:\\/\\/x\\.io and www\\.x\\.io");
        assert_eq!(markdown("::error::x"), "\\\\u\\{3a\\}\\:error\\:\\:x");
    }
}
