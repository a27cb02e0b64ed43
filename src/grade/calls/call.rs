//! One call of a student's function ([`Call`]), how it went ([`Outcome`]),
//! and how what it was given and gave reads to a student.

use std::time::Duration;

use serde_json::{Map, Value};

use crate::grade::Verdict;

/// One call of a student's function: what is sent, what it must give, and
/// how it reads to a student.
pub trait Call: Clone + Send + Sync + Sized {
    /// The test it belongs to: an index into its assignment's
    /// [`functions`](super::Assignment::functions).
    fn function(&self) -> usize;
    /// The request line sent to the harness, without its `id`.
    fn request(&self) -> Map<String, Value>;
    /// The call as the student would write it.
    fn shown(&self) -> String;
    /// Smaller cases come first: the board's squares, then its marks, then
    /// the rest.
    fn size(&self) -> (u64, u64, u64);
    /// Judges the harness's answer to it.
    fn judge(&self, answer: &Map<String, Value>) -> Outcome;
    /// Cases one step smaller (a mark fewer, a row or column fewer), to find
    /// a smaller one that still fails.
    fn smaller(&self) -> Vec<Self>;
}

/// How one call went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The right value, and nothing changed that must not be.
    Pass,
    /// A wrong value, or a right one with an argument changed or rows
    /// shared.
    Wrong {
        /// What a right answer is.
        expected: String,
        /// What the call gave.
        got: String,
        /// What else was wrong, if anything: `it changed its argument board`.
        why: Option<String>,
    },
    /// An exception, or the function is missing.
    Crashed(String),
    /// It did not return within the limit per call.
    TimeLimit,
}

impl Outcome {
    pub(super) fn verdict(&self) -> Verdict {
        match self {
            Outcome::Pass => Verdict::Pass,
            Outcome::Wrong { .. } => Verdict::Wrong,
            Outcome::Crashed(_) => Verdict::Crashed,
            Outcome::TimeLimit => Verdict::TimeLimit,
        }
    }

    /// Fails the way `other` did: the same verdict, and for a crash the
    /// same exception type.
    pub(super) fn same_failure(&self, other: &Outcome) -> bool {
        match (self, other) {
            (Outcome::Crashed(a), Outcome::Crashed(b)) => exception_type(a) == exception_type(b),
            (a, b) => a != &Outcome::Pass && a.verdict() == b.verdict(),
        }
    }

    /// What happened, after the call: `returned True, expected False`.
    pub(super) fn describe(&self, limit: Duration) -> String {
        match self {
            Outcome::Pass => "passed".to_owned(),
            Outcome::Wrong { expected, got, why: None } => format!("gave {got}, expected {expected}"),
            Outcome::Wrong { expected, got, why: Some(why) } => {
                if expected == got {
                    format!("gave the right value, but {why}")
                } else {
                    format!("gave {got}, expected {expected}; and {why}")
                }
            }
            Outcome::Crashed(e) => e.clone(),
            Outcome::TimeLimit => format!("did not return within {}", seconds(limit)),
        }
    }
}

/// At most this many bytes of a value are shown.
const SHOWN_VALUE_BYTES: usize = 2000;

/// `text`, cut at 2,000 bytes with a word on how long it was.
#[must_use]
pub fn cut(text: String) -> String {
    match crate::text::said(&text, SHOWN_VALUE_BYTES) {
        std::borrow::Cow::Borrowed(_) => text,
        std::borrow::Cow::Owned(cut) => cut,
    }
}

/// The exception's type: what comes before the first `:`.
fn exception_type(text: &str) -> &str {
    text.split(':').next().unwrap_or(text)
}

fn seconds(limit: Duration) -> String {
    let s = limit.as_secs_f64();
    if s.fract() == 0.0 { format!("{s:.0} s") } else { format!("{s} s") }
}

/// Judges what every answer has in common: an exception, a missing
/// function, a timeout. `None` when the call returned (`ok`).
#[must_use]
pub fn common(answer: &Map<String, Value>) -> Option<Outcome> {
    let text = |key: &str| answer.get(key).and_then(Value::as_str).map(|t| cut(t.to_owned()));
    if answer.get("timeout").is_some_and(|t| t == &Value::Bool(true)) {
        return Some(Outcome::TimeLimit);
    }
    if let Some(missing) = text("missing") {
        return Some(Outcome::Crashed(missing));
    }
    if let Some(raised) = text("raised") {
        return Some(Outcome::Crashed(format!("raised {raised}")));
    }
    if let Some(raised) = text("setup_raised") {
        return Some(Outcome::Crashed(format!("raised {raised} while the board was set up")));
    }
    if answer.contains_key("ok") {
        return None;
    }
    Some(Outcome::Crashed("the harness's answer could not be read".to_owned()))
}

/// A string as Python or Java writes it in source: JSON's string syntax is
/// theirs too (double quotes; `\"`, `\\`, `\n`, `\t`, `\u00XX`).
#[must_use]
pub fn quoted(text: &str) -> String {
    Value::from(text).to_string()
}
