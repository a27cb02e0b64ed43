//! Comparing a transcript someone produced with the referee's own: the first
//! difference with both line numbers, and a score from a real line diff.
//!
//! The tolerant comparison forgives what the original grading system forgave:
//! horizontal spacing (runs of spaces and tabs, leading and trailing ones),
//! `\r\n` against `\n`, and blank lines at the end. Tokens run together are
//! still a difference: `Move1:` is not `Move 1:`.
//!
//! One diff decides everything: the lines it matches give the score, its
//! first difference that involves a non-blank line is the one reported, and
//! the lines it leaves unmatched are the ones a report marks.

use std::borrow::Cow;
use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use similar::{Algorithm, DiffOp};

use crate::text;

/// How the header, the first two lines (programmer and project), is compared.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Header {
    /// Like any other line. The default: a bare comparison compares
    /// everything (`check`'s command line keeps it; `grade`'s chooses
    /// [`Header::Label`]).
    #[default]
    Exact,
    /// Only each expected line's label, the text up to and including its
    /// first `:`, must begin the line found (`Programmer: Ann Lee` matches
    /// `Programmer: Dwight Barnette`); an expected line without a `:` is
    /// compared whole.
    Label,
    /// Left out of the comparison on both sides.
    Skip,
}

/// How strictly to compare.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CheckOptions {
    /// Compare bytes exactly instead of tolerantly.
    pub exact: bool,
    /// How the first two lines are compared.
    pub header: Header,
}

/// How many lines the header is.
const HEADER_LINES: usize = 2;

/// The outcome of comparing one transcript with the expected one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Comparison {
    /// How many expected lines the diff matched. Blank lines are layout,
    /// not content: they are never counted, here or below (a difference in
    /// them is still a difference).
    pub matched: usize,
    /// How many lines were expected (after skipping the header, if asked).
    pub expected: usize,
    /// How many lines the transcript has (counted as the expected ones are:
    /// the header skipped if asked).
    pub actual: usize,
    /// The first place they differ, if they do: the first of the diff's
    /// differences that involves a non-blank line, or the first difference
    /// if they all concern blank lines only.
    pub first_difference: Option<Difference>,
    /// The lines the diff left unmatched, for reports that mark them.
    #[serde(skip)]
    pub unmatched: Unmatched,
}

/// However long a transcript, at most this many of its lines more than four
/// times the expected ones are diffed: the rest are counted, and cannot
/// match (see [`compare`]).
pub const COMPARED_EXTRA_LINES: usize = 1000;

/// However long a line, at most this many of its bytes more than four times
/// the longest expected line's are read: a longer line is a line that
/// cannot match.
pub const COMPARED_EXTRA_BYTES: usize = 1024;

/// The line numbers (1-based, as in the files) of the lines the diff left
/// unmatched on each side, in order. Lines left out of the comparison (a
/// skipped header, forgiven blank lines at the end) are never among them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unmatched {
    /// Expected lines the transcript lacks or has otherwise.
    pub expected: Vec<usize>,
    /// The transcript's lines that are not expected.
    pub actual: Vec<usize>,
    /// Every transcript line from this number on is unmatched too: the
    /// lines past the part that was diffed ([`COMPARED_EXTRA_LINES`]).
    pub actual_from: Option<usize>,
}

impl Unmatched {
    /// Whether expected line `number` (1-based) was left unmatched.
    #[must_use]
    pub fn has_expected(&self, number: usize) -> bool {
        self.expected.binary_search(&number).is_ok()
    }

    /// Whether the transcript's line `number` (1-based) was left unmatched.
    #[must_use]
    pub fn has_actual(&self, number: usize) -> bool {
        self.actual.binary_search(&number).is_ok() || self.actual_from.is_some_and(|from| number >= from)
    }
}

/// The first difference: a line of each side, either of which may be past
/// the end of its file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Difference {
    /// The expected line's number (1-based) and text, if there is one.
    pub expected: Option<(usize, String)>,
    /// The checked transcript's line number and text, if there is one.
    pub actual: Option<(usize, String)>,
}

impl Comparison {
    /// Whether the transcripts match.
    #[must_use]
    pub fn matches(&self) -> bool {
        self.first_difference.is_none()
    }

    /// How alike the two are, from 0 to 1: the lines matched, counted on
    /// both sides, over all the lines of both, 2·matched / (expected +
    /// actual), blank lines left out. A line the transcript has that is not
    /// expected costs as much as an expected line it lacks, so padding an
    /// answer with every line a referee could write (or with blank lines)
    /// earns next to nothing. 1 only for a match (two empty transcripts
    /// too); anything else is at most
    /// [`Comparison::MOST_FOR_A_DIFFERENCE`].
    #[must_use]
    pub fn score(&self) -> f64 {
        if self.matches() {
            return 1.0;
        }
        let lines = self.expected + self.actual;
        if lines == 0 {
            return 0.0;
        }
        #[allow(clippy::cast_precision_loss, reason = "line counts are far below 2^52")]
        let score = 2.0 * self.matched as f64 / lines as f64;
        score.min(Self::MOST_FOR_A_DIFFERENCE)
    }

    /// The most a transcript that differs can score: never the whole.
    pub const MOST_FOR_A_DIFFERENCE: f64 = 0.99;
}

impl Difference {
    /// Where the two part, on one line: `expected line 14, found line 14`,
    /// a side past its end being `(end of file)`. The one wording of a
    /// first difference in a sentence, for `check`'s table and `grade`'s
    /// details alike; [`Difference`]'s `Display` adds the lines' text.
    #[must_use]
    pub fn at(&self) -> String {
        let side = |line: &Option<(usize, String)>| match line {
            Some((n, _)) => format!("line {n}"),
            None => END_OF_FILE.to_owned(),
        };
        format!("expected {}, found {}", side(&self.expected), side(&self.actual))
    }
}

/// How a side past its end is shown.
const END_OF_FILE: &str = "(end of file)";

impl fmt::Display for Difference {
    /// Two indented lines: `expected …` and `found    …`; a blank line is
    /// shown as `(blank line)`, a side past its end as `(end of file)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = |line: &Option<(usize, String)>| match line {
            Some((n, text)) if is_blank(text) => format!("line {n}: (blank line)"),
            Some((n, text)) => format!("line {n}: {text}"),
            None => END_OF_FILE.to_owned(),
        };
        writeln!(f, "  expected {}", side(&self.expected))?;
        write!(f, "  found    {}", side(&self.actual))
    }
}

/// Whether a line holds nothing but spaces, tabs and a `\r`.
fn is_blank(line: &str) -> bool {
    is_blank_bytes(line.as_bytes())
}

/// As [`is_blank`], for a line not yet decoded.
fn is_blank_bytes(line: &[u8]) -> bool {
    line.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r'))
}

/// A line as written (for messages) and as compared.
struct Line<'a> {
    number: usize,
    shown: Cow<'a, str>,
    key: Cow<'a, str>,
    /// Its length in the file, in bytes, when it was longer than what was
    /// read of it.
    cut: Option<usize>,
}

impl Line<'_> {
    fn is_blank(&self) -> bool {
        is_blank(&self.shown)
    }
}

/// The lines of `text` that are compared, the header (if skipped) and
/// forgiven blank lines at the end left out: at most `most` of them, each
/// read up to `longest` bytes (a longer one gets a key no expected line
/// has). Then how many lines there are in all, and the first line past
/// `most`, if any. The lines past `most` are only counted, so the cost is
/// bounded by `most` × `longest` whatever the text's size.
fn lines(text: &[u8], options: CheckOptions, most: usize, longest: usize) -> Lines<'_> {
    let mut text = text;
    if !options.exact {
        // A final newline, or blank lines at the end, are forgiven: the
        // text ends with the line of its last byte that is not blank.
        let blank = |b: &u8| matches!(b, b' ' | b'\t' | b'\r' | b'\n');
        text = match text.iter().rposition(|b| !blank(b)) {
            None => b"",
            Some(last) => &text[..memchr::memchr(b'\n', &text[last..]).map_or(text.len(), |at| last + at)],
        };
    }
    let skip = if options.header == Header::Skip { HEADER_LINES } else { 0 };
    // No text at all is no lines (not one empty line).
    let mut raw = (!text.is_empty() || options.exact)
        .then(|| text.split(|&b| b == b'\n'))
        .into_iter()
        .flatten()
        .enumerate()
        .skip(skip);
    let kept: Vec<Line<'_>> =
        raw.by_ref().take(most).map(|(i, bytes)| Line::new(i + 1, bytes, options, longest)).collect();
    let past = raw.next().map(|(i, bytes)| Line::new(i + 1, bytes, options, longest));
    let total = kept.iter().chain(&past).filter(|l| !l.is_blank()).count()
        + raw.filter(|(_, bytes)| !is_blank_bytes(bytes)).count();
    Lines { kept, total, past }
}

/// What [`lines`] found.
struct Lines<'a> {
    kept: Vec<Line<'a>>,
    /// The lines that are not blank, of all of them.
    total: usize,
    past: Option<Line<'a>>,
}

impl<'a> Line<'a> {
    fn new(number: usize, bytes: &'a [u8], options: CheckOptions, longest: usize) -> Line<'a> {
        let too_long = bytes.len() > longest;
        let shown = String::from_utf8_lossy(&bytes[..bytes.len().min(longest)]);
        let mut key = if options.exact { shown.clone() } else { Cow::Owned(normalise(&shown)) };
        if too_long {
            // No expected line is this long, nor holds a NUL.
            key.to_mut().push('\0');
        }
        let shown = match shown {
            Cow::Borrowed(s) => Cow::Borrowed(s.trim_end_matches('\r')),
            Cow::Owned(s) => Cow::Owned(s.trim_end_matches('\r').to_owned()),
        };
        Line { number, shown, key, cut: too_long.then_some(bytes.len()) }
    }

    /// The line as a report shows it: cut if it is long, with its length.
    fn shown(&self) -> String {
        match self.cut {
            Some(length) => format!(
                "{}… ({} bytes in all)",
                text::prefix(&self.shown, text::LINE_BYTES),
                text::thousands(length)
            ),
            None => text::line(&self.shown).into_owned(),
        }
    }
}

/// Runs of spaces and tabs become one space; leading and trailing ones and a
/// final `\r` go.
fn normalise(line: &str) -> String {
    let mut key = String::with_capacity(line.len());
    for token in line.trim_end_matches('\r').split([' ', '\t']).filter(|t| !t.is_empty()) {
        if !key.is_empty() {
            key.push(' ');
        }
        key.push_str(token);
    }
    key
}

/// With [`Header::Label`]: each of the first two expected lines that has a
/// `:` is compared by its label alone (up to and including the first `:`),
/// and the transcript's line in the same place matches when it begins with
/// that label.
fn compare_labels_only(want: &mut [Line<'_>], got: &mut [Line<'_>]) {
    for (want, got) in want.iter_mut().zip(got.iter_mut()).take(HEADER_LINES) {
        let Some(colon) = want.key.find(':') else { continue };
        let label = want.key[..=colon].to_owned();
        if got.key.starts_with(&label) {
            got.key = Cow::Owned(label.clone());
        }
        want.key = Cow::Owned(label);
    }
}

/// Compares `actual` (a transcript someone produced) with `expected` (the
/// referee's).
///
/// The cost is bounded by the expected transcript, whatever the size of the
/// one checked: of its lines, at most four times the expected ones and
/// [`COMPARED_EXTRA_LINES`] more are diffed, each read up to four times the
/// longest expected line and [`COMPARED_EXTRA_BYTES`] more; the lines past
/// them are counted (they are unmatched: a transcript that long is wrong
/// whatever they hold), and a line longer than that matches nothing.
#[must_use]
pub fn compare(expected: &[u8], actual: &[u8], options: CheckOptions) -> Comparison {
    let want = lines(expected, options, usize::MAX, usize::MAX);
    let mut want = want.kept;
    if options.exact && expected == actual {
        let expected = want.iter().filter(|l| !l.is_blank()).count();
        return Comparison {
            matched: expected,
            expected,
            actual: expected,
            first_difference: None,
            unmatched: Unmatched::default(),
        };
    }
    let most = want.len().saturating_mul(4).saturating_add(COMPARED_EXTRA_LINES);
    let longest = want.iter().map(|l| l.shown.len()).max().unwrap_or(0);
    let longest = longest.saturating_mul(4).saturating_add(COMPARED_EXTRA_BYTES);
    let Lines { kept: mut got, total, past } = lines(actual, options, most, longest);
    if options.header == Header::Label {
        compare_labels_only(&mut want, &mut got);
    }
    let want_keys: Vec<&str> = want.iter().map(|l| l.key.as_ref()).collect();
    let got_keys: Vec<&str> = got.iter().map(|l| l.key.as_ref()).collect();
    let ops = similar::capture_diff_slices_deadline(
        Algorithm::Myers,
        &want_keys,
        &got_keys,
        Some(std::time::Instant::now() + Duration::from_secs(10)),
    );
    let mut matched = 0;
    let mut unmatched = Unmatched::default();
    // The first difference that involves a non-blank line, and the very
    // first, should every difference concern blank lines only.
    let mut explaining = None;
    let mut first = None;
    for op in &ops {
        if let DiffOp::Equal { old_index, len, .. } = *op {
            matched += want[old_index..old_index + len].iter().filter(|l| !l.is_blank()).count();
            continue;
        }
        let (old, new) = (op.old_range(), op.new_range());
        unmatched.expected.extend(want[old.clone()].iter().map(|l| l.number));
        unmatched.actual.extend(got[new.clone()].iter().map(|l| l.number));
        if explaining.is_some() {
            continue;
        }
        // Each side's first non-blank line in the change, else its first
        // line (or, for a side with none, the line that follows).
        let pick = |lines: &[Line<'_>], range: std::ops::Range<usize>| {
            let line = lines[range.clone()].iter().find(|l| !l.is_blank()).or_else(|| lines.get(range.start));
            line.map(|l| (l.number, l.shown()))
        };
        let blank_only = want[old.clone()].iter().chain(&got[new.clone()]).all(Line::is_blank);
        let difference = Difference { expected: pick(&want, old), actual: pick(&got, new) };
        if blank_only {
            first.get_or_insert(difference);
        } else {
            explaining = Some(difference);
        }
    }
    if let Some(past) = past {
        // The lines past the part diffed: unmatched, and a difference if
        // the part diffed had none.
        unmatched.actual_from = Some(past.number);
        let difference = Difference { expected: None, actual: Some((past.number, past.shown())) };
        if past.is_blank() {
            first.get_or_insert(difference);
        } else if explaining.is_none() {
            explaining = Some(difference);
        }
    }
    Comparison {
        matched,
        expected: want.iter().filter(|l| !l.is_blank()).count(),
        actual: total,
        first_difference: explaining.or(first),
        unmatched,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXPECTED: &str = "Programmer: A\nP\n\nMove 1: X 5\n- - -\n- X -\n- - -\n\nWinner: None\n";

    fn tolerant(actual: &str) -> Comparison {
        compare(EXPECTED.as_bytes(), actual.as_bytes(), CheckOptions::default())
    }

    #[test]
    fn identical_transcripts_match_fully() {
        let c = tolerant(EXPECTED);
        assert!(c.matches());
        assert_eq!((c.matched, c.expected), (7, 7));
        assert!(
            compare(
                EXPECTED.as_bytes(),
                EXPECTED.as_bytes(),
                CheckOptions { exact: true, ..CheckOptions::default() }
            )
            .matches()
        );
    }

    #[test]
    fn spacing_line_ends_and_trailing_blank_lines_are_forgiven() {
        let mangled = EXPECTED.replace('\n', "  \r\n").replace("Move 1: X 5", "Move\t1:   X 5") + "\r\n\n";
        assert!(tolerant(&mangled).matches());
        let exact = compare(
            EXPECTED.as_bytes(),
            mangled.as_bytes(),
            CheckOptions { exact: true, ..CheckOptions::default() },
        );
        assert!(!exact.matches());
        assert_eq!(exact.first_difference.unwrap().expected.unwrap().0, 1);
    }

    #[test]
    fn tokens_run_together_are_a_difference() {
        let c = tolerant(&EXPECTED.replace("Move 1:", "Move1:"));
        let d = c.first_difference.clone().unwrap();
        assert_eq!(d.expected, Some((4, "Move 1: X 5".to_owned())));
        assert_eq!(d.actual, Some((4, "Move1: X 5".to_owned())));
        assert_eq!((c.matched, c.expected), (6, 7));
    }

    #[test]
    fn a_missing_line_shifts_only_what_follows() {
        let c = tolerant(&EXPECTED.replace("- X -\n", ""));
        assert_eq!(c.first_difference.clone().unwrap().expected.unwrap().0, 6);
        assert_eq!((c.matched, c.expected, c.actual), (6, 7, 6));
        assert!((c.score() - 12.0 / 13.0).abs() < 1e-9);
    }

    #[test]
    fn a_short_transcript_differs_at_the_end_of_file() {
        let c = tolerant("Programmer: A\nP\n");
        let d = c.first_difference.unwrap();
        assert_eq!(d.actual, None);
        // Line 3 is blank: the first line missing that says something is 4.
        assert_eq!(d.expected, Some((4, "Move 1: X 5".to_owned())));
        assert_eq!(d.at(), "expected line 4, found (end of file)");
        assert_eq!(d.to_string(), "  expected line 4: Move 1: X 5\n  found    (end of file)");
    }

    fn with_header(expected: &str, actual: &str, header: Header) -> Comparison {
        compare(expected.as_bytes(), actual.as_bytes(), CheckOptions { header, ..CheckOptions::default() })
    }

    /// The seed's header: a label on the first line, none on the second.
    const SEEDED: &str =
        "Programmer: Dwight Barnette\nCS 1044 Project 6 Spring 2002\n\nMove 1: X 5\n\nWinner: None\n";

    #[test]
    fn the_header_can_be_skipped() {
        let other = EXPECTED.replace("Programmer: A\nP", "Programmer: Someone Else\nCS 9999");
        assert!(!tolerant(&other).matches());
        let c = with_header(EXPECTED, &other, Header::Skip);
        assert!(c.matches());
        assert_eq!((c.matched, c.expected), (5, 5));
        // Line numbers stay the files' own.
        let c = with_header(EXPECTED, &other.replace("Winner: None", "Winner: X"), Header::Skip);
        assert_eq!(c.first_difference.unwrap().expected, Some((9, "Winner: None".to_owned())));
    }

    #[test]
    fn an_exact_header_is_compared_like_any_line() {
        let other = SEEDED.replace("Dwight Barnette", "Ann Lee");
        let c = with_header(SEEDED, &other, Header::Exact);
        let d = c.first_difference.clone().unwrap();
        assert_eq!(d.expected, Some((1, "Programmer: Dwight Barnette".to_owned())));
        assert_eq!(d.actual, Some((1, "Programmer: Ann Lee".to_owned())));
        assert_eq!((c.matched, c.expected), (3, 4));
        assert!(with_header(SEEDED, SEEDED, Header::Exact).matches());
    }

    #[test]
    fn a_labelled_header_needs_only_its_labels() {
        // A name of another length, spaced differently.
        let other = SEEDED.replace("Programmer: Dwight Barnette", "  Programmer:   Ann   Lee");
        let c = with_header(SEEDED, &other, Header::Label);
        assert!(c.matches(), "{c:?}");
        assert_eq!((c.matched, c.expected), (4, 4));
        assert!(with_header(SEEDED, &SEEDED.replace("Dwight Barnette", "Ann"), Header::Label).matches());
        // Exact bytes: the label must be exact, the name may still differ.
        let exact = CheckOptions { exact: true, header: Header::Label };
        let ann = SEEDED.replace("Dwight Barnette", "Ann Lee");
        assert!(compare(SEEDED.as_bytes(), ann.as_bytes(), exact).matches());
        assert!(!compare(SEEDED.as_bytes(), other.as_bytes(), exact).matches());
    }

    #[test]
    fn a_labelled_header_still_needs_the_label_and_a_line_without_one_whole() {
        let c = with_header(SEEDED, &SEEDED.replace("Programmer: Dwight Barnette", "Ann Lee"), Header::Label);
        let d = c.first_difference.clone().unwrap();
        assert_eq!(d.expected, Some((1, "Programmer: Dwight Barnette".to_owned())));
        assert_eq!(d.actual, Some((1, "Ann Lee".to_owned())));
        assert_eq!((c.matched, c.expected), (3, 4));
        let c = with_header(SEEDED, &SEEDED.replace("Programmer:", "Programmer Dwight"), Header::Label);
        assert_eq!(c.first_difference.unwrap().expected.unwrap().0, 1);
        // `CS 1044 Project 6 Spring 2002` has no `:`: it is compared whole.
        let c = with_header(SEEDED, &SEEDED.replace("Spring 2002", "Fall 2002"), Header::Label);
        let d = c.first_difference.unwrap();
        assert_eq!(d.expected, Some((2, "CS 1044 Project 6 Spring 2002".to_owned())));
        assert_eq!(d.actual, Some((2, "CS 1044 Project 6 Fall 2002".to_owned())));
        // A label anywhere but the first two lines is an ordinary line.
        let c = with_header(SEEDED, &SEEDED.replace("Winner: None", "Winner: X"), Header::Label);
        assert_eq!(c.first_difference.unwrap().expected.unwrap().0, 6);
        // A transcript of one line is no trouble.
        assert_eq!(with_header(SEEDED, "Programmer: Ann\n", Header::Label).matched, 1);
    }

    /// The seed's transcript, as a program that prints no blank lines and
    /// forgets `Winner: Cat` writes it.
    fn without_blank_lines_or_winner() -> (String, String) {
        let expected = "Programmer: A\nP\n\nGame\n\nMove 1: X 5\n- - -\n- X -\n- - -\n\n\
                        Move 2: O 1\nO - -\n- X -\n- - -\n\nWinner: Cat\n";
        let kept: Vec<&str> =
            expected.lines().filter(|l| !l.is_empty() && !l.starts_with("Winner")).collect();
        let actual = kept.join("\n") + "\n";
        (expected.to_owned(), actual)
    }

    #[test]
    fn the_first_difference_reported_is_not_a_blank_line() {
        let (expected, actual) = without_blank_lines_or_winner();
        let c = compare(expected.as_bytes(), actual.as_bytes(), CheckOptions::default());
        let d = c.first_difference.clone().unwrap();
        assert_eq!(d.expected, Some((16, "Winner: Cat".to_owned())));
        assert_eq!(d.actual, None);
        assert_eq!((c.matched, c.expected), (11, 12));
        // The diff leaves unmatched the blank lines and the Winner line, and
        // nothing else.
        assert_eq!(c.unmatched.expected, [3, 5, 10, 15, 16]);
        assert!(c.unmatched.actual.is_empty());
        assert!(c.unmatched.has_expected(16) && !c.unmatched.has_expected(4));
    }

    #[test]
    fn blank_lines_alone_are_still_a_difference() {
        let c = tolerant(&EXPECTED.replacen("\n\n", "\n", 1));
        let d = c.first_difference.clone().unwrap();
        assert_eq!(d.expected, Some((3, String::new())));
        assert_eq!(d.actual, Some((3, "Move 1: X 5".to_owned())));
        assert_eq!(d.to_string(), "  expected line 3: (blank line)\n  found    line 3: Move 1: X 5");
        assert_eq!(c.unmatched.expected, [3]);
        let c = tolerant(&EXPECTED.replace("- X -\n", "- X -\n  \n"));
        assert_eq!(
            c.first_difference.unwrap().to_string(),
            "  expected line 7: - - -\n  found    line 7: (blank line)"
        );
    }

    #[test]
    fn extra_lines_cost_as_much_as_missing_ones() {
        // Every line of the expected transcript, each among many that are
        // not: every line matched, and yet next to nothing scored.
        let padding: String =
            EXPECTED.lines().flat_map(|l| [l, "\n", "Winner: X\nWinner: O\nWinner: Cat\n"]).collect();
        let c = tolerant(&padding);
        assert_eq!((c.matched, c.expected, c.actual), (7, 7, 34));
        assert!((c.score() - 14.0 / 41.0).abs() < 1e-9, "{}", c.score());
        // Twice the transcript: half the lines extra.
        let c = tolerant(&EXPECTED.repeat(2));
        assert_eq!((c.matched, c.actual), (7, 14));
        assert!((c.score() - 2.0 / 3.0).abs() < 1e-9);
        assert!(tolerant(EXPECTED).score() >= 1.0);
        assert!(tolerant("").score() == 0.0);
        let empty = compare(b"", b"", CheckOptions::default());
        assert!(empty.matches() && empty.score() >= 1.0);
    }

    #[test]
    fn blank_lines_are_layout_and_score_nothing() {
        // The header, then a blank line for every line expected: every
        // expected blank line is matched, and none of it counts.
        let blanks = "Programmer: A\nP\n".to_owned() + &"\n".repeat(20) + "Winner: X\n";
        let c = tolerant(&blanks);
        assert_eq!((c.matched, c.expected, c.actual), (2, 7, 3));
        assert!((c.score() - 0.4).abs() < 1e-9, "{}", c.score());
        // Missing blank lines cost nothing, but they are still a difference.
        let c = tolerant(&EXPECTED.replace("\n\n", "\n"));
        assert!(!c.matches());
        assert!((c.score() - Comparison::MOST_FOR_A_DIFFERENCE).abs() < 1e-9);
    }

    #[test]
    fn a_difference_never_scores_the_whole() {
        // 300 lines, one of them changed: the ratio rounds to more than 0.99.
        let expected: String =
            (0..300).flat_map(|n| ["line ".to_owned(), n.to_string(), "\n".to_owned()]).collect();
        let actual = expected.replace("line 7\n", "line 7 \n").replace("line 7 \n", "line 7!\n");
        let c = compare(expected.as_bytes(), actual.as_bytes(), CheckOptions::default());
        assert!(!c.matches());
        assert!(c.score() <= Comparison::MOST_FOR_A_DIFFERENCE, "{}", c.score());
    }

    #[test]
    fn a_huge_answer_is_diffed_only_as_far_as_the_expected_one_reaches() {
        // 15 MiB of one-character lines after the right transcript.
        let mut actual = EXPECTED.as_bytes().to_vec();
        actual.extend(b"a\n".repeat(15 << 19));
        let c = compare(EXPECTED.as_bytes(), &actual, CheckOptions::default());
        assert_eq!((c.matched, c.expected, c.actual), (7, 7, 7 + (15 << 19)));
        let d = c.first_difference.clone().unwrap();
        assert_eq!((d.expected, d.actual), (None, Some((10, "a".to_owned()))));
        // The lines past the part diffed are unmatched without a list.
        assert!(c.unmatched.has_actual(10) && c.unmatched.has_actual(5_000_000));
        assert!(c.unmatched.actual.len() <= 9 * 4 + COMPARED_EXTRA_LINES);
        assert!(c.score() < 1e-5);
        // Past the lines diffed, a difference is still the first one found.
        let mut early = EXPECTED.replace("Winner: None", "Winner: X").into_bytes();
        early.extend(b"a\n".repeat(1 << 20));
        let c = compare(EXPECTED.as_bytes(), &early, CheckOptions::default());
        assert_eq!(c.first_difference.unwrap().expected, Some((9, "Winner: None".to_owned())));
    }

    #[test]
    fn a_line_too_long_to_be_right_is_read_only_in_part_and_shown_cut() {
        let long = "Winner: None".to_owned() + &" ".repeat(6 << 20) + "x";
        let c = tolerant(&EXPECTED.replace("Winner: None", &long));
        let d = c.first_difference.unwrap();
        let (number, shown) = d.actual.unwrap();
        assert_eq!(number, 9);
        assert!(shown.len() < 600, "{}", shown.len());
        assert!(shown.ends_with("… (6,291,469 bytes in all)"), "{shown}");
        // Spacing is forgiven within what is read.
        let spaced = EXPECTED.replace("Winner: None", &format!("Winner:{}None", " ".repeat(40)));
        assert!(tolerant(&spaced).matches());
    }

    #[test]
    fn a_difference_shows_the_end_of_a_file() {
        let d = Difference { expected: Some((9, "Winner: Cat".to_owned())), actual: None };
        assert_eq!(d.to_string(), "  expected line 9: Winner: Cat\n  found    (end of file)");
    }
}
