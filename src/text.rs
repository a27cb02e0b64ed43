//! Text shown to people that came from a program someone else wrote: cut to
//! a size on character boundaries, its end kept, and made inert.
//!
//! Everything a report shows of a student's program — an answer, a line of
//! it, the end of its standard error, a build log, a value a function
//! returned — passes through here, so that no report grows with what a
//! student prints and no cut can land inside a character (which would
//! panic). One cutter, used everywhere: a byte count is always brought
//! down to the nearest character boundary at or below it.

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

/// Student text made inert for a terminal or a spreadsheet: control
/// characters (escape sequences among them) and the invisible characters
/// that reorder or hide text are shown escaped (`\u{1b}`), the rest as is.
#[must_use]
pub fn inert(text: &str) -> Cow<'_, str> {
    let hidden = |c: char| {
        c.is_control()
            || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    if text.contains(hidden) {
        text.chars()
            .map(|c| if hidden(c) { c.escape_unicode().to_string() } else { c.to_string() })
            .collect::<String>()
            .into()
    } else {
        text.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    }
}
