//! Comparing a transcript someone produced with the referee's own: the first
//! difference with both line numbers, and a score from a real line diff.
//!
//! The tolerant comparison forgives what the original grading system forgave:
//! horizontal spacing (runs of spaces and tabs, leading and trailing ones),
//! `\r\n` against `\n`, and blank lines at the end. Tokens run together are
//! still a difference: `Move1:` is not `Move 1:`.

use std::borrow::Cow;
use std::fmt;
use std::time::Duration;

use serde::Serialize;
use similar::{Algorithm, DiffOp};

/// How strictly to compare.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CheckOptions {
    /// Compare bytes exactly instead of tolerantly.
    pub exact: bool,
    /// Leave out the first two lines (programmer and project) of both.
    pub skip_header: bool,
}

/// The outcome of comparing one transcript with the expected one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Comparison {
    /// How many expected lines the diff matched.
    pub matched: usize,
    /// How many lines were expected (after skipping the header, if asked).
    pub expected: usize,
    /// The first place they differ, if they do.
    pub first_difference: Option<Difference>,
}

/// The first difference: a line of each side, either of which may be past
/// the end of its file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
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

    /// The share of expected lines matched, from 0 to 1 (1 for two empty
    /// transcripts).
    #[must_use]
    pub fn score(&self) -> f64 {
        if self.expected == 0 {
            return if self.matches() { 1.0 } else { 0.0 };
        }
        #[allow(clippy::cast_precision_loss, reason = "line counts are far below 2^52")]
        let score = self.matched as f64 / self.expected as f64;
        score
    }
}

impl fmt::Display for Difference {
    /// Two indented lines: `expected: …` and `found:    …`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = |line: &Option<(usize, String)>| match line {
            Some((n, text)) => format!("line {n}: {text}"),
            None => "(end of file)".to_owned(),
        };
        writeln!(f, "  expected {}", side(&self.expected))?;
        write!(f, "  found    {}", side(&self.actual))
    }
}

/// A line as written (for messages) and as compared.
struct Line<'a> {
    number: usize,
    shown: Cow<'a, str>,
    key: Cow<'a, str>,
}

fn lines(text: &[u8], options: CheckOptions) -> Vec<Line<'_>> {
    let mut raw: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
    if !options.exact {
        // A final newline, or blank lines at the end, are forgiven.
        while raw.last().is_some_and(|l| l.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r'))) {
            raw.pop();
        }
    }
    let skip = if options.skip_header { 2 } else { 0 };
    raw.into_iter()
        .enumerate()
        .skip(skip)
        .map(|(i, bytes)| {
            let shown = String::from_utf8_lossy(bytes);
            let key = if options.exact { shown.clone() } else { Cow::Owned(normalise(&shown)) };
            let shown = Cow::Owned(shown.trim_end_matches('\r').to_owned());
            Line { number: i + 1, shown, key }
        })
        .collect()
}

/// Runs of spaces and tabs become one space; leading and trailing ones and a
/// final `\r` go.
fn normalise(line: &str) -> String {
    line.trim_end_matches('\r').split([' ', '\t']).filter(|t| !t.is_empty()).collect::<Vec<_>>().join(" ")
}

/// Compares `actual` (a transcript someone produced) with `expected` (the
/// referee's).
#[must_use]
pub fn compare(expected: &[u8], actual: &[u8], options: CheckOptions) -> Comparison {
    if options.exact && !options.skip_header && expected == actual {
        let expected = lines(expected, options).len();
        return Comparison { matched: expected, expected, first_difference: None };
    }
    let want = lines(expected, options);
    let got = lines(actual, options);
    let want_keys: Vec<&str> = want.iter().map(|l| l.key.as_ref()).collect();
    let got_keys: Vec<&str> = got.iter().map(|l| l.key.as_ref()).collect();
    let ops = similar::capture_diff_slices_deadline(
        Algorithm::Myers,
        &want_keys,
        &got_keys,
        Some(std::time::Instant::now() + Duration::from_secs(10)),
    );
    let mut matched = 0;
    let mut first_difference = None;
    for op in &ops {
        match *op {
            DiffOp::Equal { len, .. } => matched += len,
            DiffOp::Delete { old_index, new_index, .. }
            | DiffOp::Insert { old_index, new_index, .. }
            | DiffOp::Replace { old_index, new_index, .. } => {
                first_difference.get_or_insert_with(|| {
                    let side = |lines: &[Line<'_>], i: usize| {
                        lines.get(i).map(|l| (l.number, l.shown.clone().into_owned()))
                    };
                    Difference { expected: side(&want, old_index), actual: side(&got, new_index) }
                });
            }
        }
    }
    Comparison { matched, expected: want.len(), first_difference }
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
        assert_eq!((c.matched, c.expected), (9, 9));
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
        assert_eq!((c.matched, c.expected), (8, 9));
    }

    #[test]
    fn a_missing_line_shifts_only_what_follows() {
        let c = tolerant(&EXPECTED.replace("- X -\n", ""));
        assert_eq!(c.first_difference.clone().unwrap().expected.unwrap().0, 6);
        assert_eq!((c.matched, c.expected), (8, 9));
        assert!((c.score() - 8.0 / 9.0).abs() < 1e-9);
    }

    #[test]
    fn a_short_transcript_differs_at_the_end_of_file() {
        let c = tolerant("Programmer: A\nP\n");
        let d = c.first_difference.unwrap();
        assert_eq!(d.actual, None);
        assert_eq!(d.expected.unwrap().0, 3);
    }

    #[test]
    fn the_header_can_be_skipped() {
        let other = EXPECTED.replace("Programmer: A\nP", "Programmer: Someone Else\nCS 9999");
        assert!(!tolerant(&other).matches());
        let c = compare(
            EXPECTED.as_bytes(),
            other.as_bytes(),
            CheckOptions { skip_header: true, ..CheckOptions::default() },
        );
        assert!(c.matches());
        assert_eq!(c.expected, 7);
    }
}
