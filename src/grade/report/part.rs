//! `part.json`: a part of a split grading (`grade --partition`) as it was,
//! whole, for `merge` to put back together with the others. The report
//! directory of a part is an ordinary one (its `results.json`,
//! `grades.csv`, … are its own submissions'); `part.json` adds which part
//! it is, the grading's [`Fingerprint`], the whole class's names, and every
//! result with what `results.json` leaves out but `report.html` and
//! `junit.xml` show (the answers, the lines left unmatched, a smallest
//! input's kind). It is written last, so a part stopped before its reports
//! were written has none.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};

use serde::{Deserialize, Serialize};

use crate::check::{Difference, Unmatched};
use crate::grade::fingerprint::Fingerprint;
use crate::grade::result::{Evidence, Smallest, SubmissionResult, TestResult, Verdict};
use crate::outcome::Limits;
use crate::partition::Partition;

/// The file's name in a part's report directory.
pub const PART_FILE: &str = "part.json";

/// The version of `part.json` this writes and reads.
pub const PART_VERSION: u32 = 1;

/// What a part of a split grading is: the grading it belongs to, and which
/// part of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    /// Which part.
    pub partition: Partition,
    /// The grading's fingerprint.
    pub fingerprint: Fingerprint,
    /// Every submission of the whole class, by name, in the grading's order.
    pub class: Vec<String>,
}

/// `part.json`, read or to be written.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartRecord {
    /// [`PART_VERSION`].
    pub version: u32,
    /// Which part this is.
    pub partition: Partition,
    /// The grading's fingerprint.
    pub fingerprint: Fingerprint,
    /// The whole class's names, in the grading's order.
    pub class: Vec<String>,
    /// The tests' names, in report order.
    pub tests: Vec<String>,
    /// The limits of each test run.
    pub limits: Limits,
    /// The grading's seed, when any of it came from one.
    pub seed: Option<u64>,
    /// The protections in force, as the grading said them.
    pub protections: String,
    /// This part's submissions an interruption left ungraded.
    pub not_graded: Vec<String>,
    /// This part's submissions graded, in the grading's order.
    pub results: Vec<StoredSubmission>,
}

/// A [`SubmissionResult`] whole.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs, reason = "the fields of SubmissionResult, documented there")]
pub struct StoredSubmission {
    pub submission: String,
    pub language: String,
    pub score: f64,
    pub build_failed: bool,
    pub build_log: Option<String>,
    pub provided_missing: Option<Vec<String>>,
    pub provided_changed: Option<Vec<String>>,
    pub provided_removed: Option<Vec<String>>,
    pub tests: Vec<StoredTest>,
}

/// A [`TestResult`] whole, but for its `choices` (what a console's
/// program chose where the game left it to chance: used while grading, and
/// shown by no report).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs, reason = "the fields of TestResult, documented there")]
pub struct StoredTest {
    pub test: String,
    pub verdict: Verdict,
    pub score: f64,
    pub detail: String,
    pub wall: f64,
    pub cpu: f64,
    pub exit_status: Option<i32>,
    pub signal: Option<String>,
    pub lines_matched: Option<(usize, usize)>,
    pub lines_found: Option<usize>,
    pub first_difference: Option<Difference>,
    pub expected: String,
    pub actual: String,
    pub stderr: String,
    pub unmatched: Unmatched,
    pub smallest_failing_input: Option<StoredSmallest>,
}

/// A [`Smallest`] whole.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs, reason = "the fields of Smallest, documented there")]
pub struct StoredSmallest {
    pub input: String,
    pub evidence: Evidence,
    pub verdict: Verdict,
    pub detail: String,
    pub expected: String,
    pub actual: String,
    pub first_difference: Option<Difference>,
    pub stderr: String,
    pub runs: usize,
    pub seconds: f64,
    pub complete: bool,
    pub unmatched: Unmatched,
}

impl From<&SubmissionResult> for StoredSubmission {
    fn from(result: &SubmissionResult) -> StoredSubmission {
        // Every field named: a field added to SubmissionResult is a
        // compile error here until it is stored too.
        let SubmissionResult {
            submission,
            language,
            score,
            build_failed,
            build_log,
            provided_missing,
            provided_changed,
            provided_removed,
            tests,
        } = result;
        StoredSubmission {
            submission: submission.clone(),
            language: language.clone(),
            score: *score,
            build_failed: *build_failed,
            build_log: build_log.clone(),
            provided_missing: provided_missing.clone(),
            provided_changed: provided_changed.clone(),
            provided_removed: provided_removed.clone(),
            tests: tests.iter().map(StoredTest::from).collect(),
        }
    }
}

impl From<StoredSubmission> for SubmissionResult {
    fn from(stored: StoredSubmission) -> SubmissionResult {
        SubmissionResult {
            submission: stored.submission,
            language: stored.language,
            score: stored.score,
            build_failed: stored.build_failed,
            build_log: stored.build_log,
            provided_missing: stored.provided_missing,
            provided_changed: stored.provided_changed,
            provided_removed: stored.provided_removed,
            tests: stored.tests.into_iter().map(TestResult::from).collect(),
        }
    }
}

impl From<&TestResult> for StoredTest {
    fn from(result: &TestResult) -> StoredTest {
        let TestResult {
            test,
            verdict,
            score,
            detail,
            wall,
            cpu,
            exit_status,
            signal,
            lines_matched,
            lines_found,
            first_difference,
            expected,
            actual,
            stderr,
            unmatched,
            smallest_failing_input,
            choices: _,
        } = result;
        StoredTest {
            test: test.clone(),
            verdict: *verdict,
            score: *score,
            detail: detail.clone(),
            wall: *wall,
            cpu: *cpu,
            exit_status: *exit_status,
            signal: signal.clone(),
            lines_matched: *lines_matched,
            lines_found: *lines_found,
            first_difference: first_difference.clone(),
            expected: expected.clone(),
            actual: actual.clone(),
            stderr: stderr.clone(),
            unmatched: unmatched.clone(),
            smallest_failing_input: smallest_failing_input.as_ref().map(StoredSmallest::from),
        }
    }
}

impl From<StoredTest> for TestResult {
    fn from(stored: StoredTest) -> TestResult {
        TestResult {
            test: stored.test,
            verdict: stored.verdict,
            score: stored.score,
            detail: stored.detail,
            wall: stored.wall,
            cpu: stored.cpu,
            exit_status: stored.exit_status,
            signal: stored.signal,
            lines_matched: stored.lines_matched,
            lines_found: stored.lines_found,
            first_difference: stored.first_difference,
            expected: stored.expected,
            actual: stored.actual,
            stderr: stored.stderr,
            unmatched: stored.unmatched,
            smallest_failing_input: stored.smallest_failing_input.map(Smallest::from),
            choices: Vec::new(),
        }
    }
}

impl From<&Smallest> for StoredSmallest {
    fn from(smallest: &Smallest) -> StoredSmallest {
        let Smallest {
            input,
            evidence,
            verdict,
            detail,
            expected,
            actual,
            first_difference,
            stderr,
            runs,
            seconds,
            complete,
            unmatched,
        } = smallest;
        StoredSmallest {
            input: input.clone(),
            evidence: evidence.clone(),
            verdict: *verdict,
            detail: detail.clone(),
            expected: expected.clone(),
            actual: actual.clone(),
            first_difference: first_difference.clone(),
            stderr: stderr.clone(),
            runs: *runs,
            seconds: *seconds,
            complete: *complete,
            unmatched: unmatched.clone(),
        }
    }
}

impl From<StoredSmallest> for Smallest {
    fn from(stored: StoredSmallest) -> Smallest {
        Smallest {
            input: stored.input,
            evidence: stored.evidence,
            verdict: stored.verdict,
            detail: stored.detail,
            expected: stored.expected,
            actual: stored.actual,
            first_difference: stored.first_difference,
            stderr: stored.stderr,
            runs: stored.runs,
            seconds: stored.seconds,
            complete: stored.complete,
            unmatched: stored.unmatched,
        }
    }
}

impl PartRecord {
    /// The record of `part`, whose grading told `tests`, `limits`, `seed`
    /// and `protections`, and graded `results` (leaving `not_graded`).
    #[must_use]
    #[allow(clippy::too_many_arguments, reason = "each is one field of the record")]
    pub fn new(
        part: &Part,
        tests: &[String],
        limits: Limits,
        seed: Option<u64>,
        protections: &str,
        results: &[SubmissionResult],
        not_graded: &[String],
    ) -> PartRecord {
        PartRecord {
            version: PART_VERSION,
            partition: part.partition,
            fingerprint: part.fingerprint.clone(),
            class: part.class.clone(),
            tests: tests.to_vec(),
            limits,
            seed,
            protections: protections.to_owned(),
            not_graded: not_graded.to_vec(),
            results: results.iter().map(StoredSubmission::from).collect(),
        }
    }
}

/// `part.json` but its results: what `merge` checks of every part before it
/// reads any part's results ([`PartReader`]).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs, reason = "the fields of PartRecord, documented there")]
pub struct PartHeader {
    pub version: u32,
    pub partition: Partition,
    pub fingerprint: Fingerprint,
    pub class: Vec<String>,
    pub tests: Vec<String>,
    pub limits: Limits,
    pub seed: Option<u64>,
    pub protections: String,
    pub not_graded: Vec<String>,
}

/// A `part.json` read a result at a time: its [`PartHeader`] at once, then
/// its results in order ([`PartReader::next_result`]), each parsed when
/// asked for and dropped by the caller once used, so a part's results are
/// never held together.
///
/// As `part.json` is written, its results are its last member: then its
/// header is what precedes them, read by a pass over the file's beginning
/// that follows only its structure (strings, brackets, the top level's
/// members), and the results are parsed one after the other from there,
/// the file read once. A file whose results are not last (one edited by
/// hand, say) is first passed over whole to find where each result is.
/// Any file it cannot follow is said to be so (`None`): the caller then
/// reads it the whole way, for `serde_json`'s own words on what is wrong.
pub struct PartReader {
    /// What precedes (and follows) the results.
    pub header: PartHeader,
    how: How,
}

/// How a [`PartReader`] reads its results.
enum How {
    /// In the file's order, from just after the results' `[`: `buf[at..]`
    /// is what is read of the file and not yet parsed.
    InTurn { file: File, buf: Vec<u8>, at: usize, first: bool, ended: bool },
    /// Each from where a pass over the whole file found it.
    Found {
        file: BufReader<File>,
        /// Where `file` is.
        at: u64,
        /// Where each result not yet read is: its first byte and the one
        /// after its last.
        elements: std::vec::IntoIter<(u64, u64)>,
        buf: Vec<u8>,
    },
}

/// How many members [`PartHeader`] has.
const HEADER_MEMBERS: usize = 9;

/// How much of a part is read at a time.
const CHUNK: usize = 1 << 20;

impl PartReader {
    /// Reads `file`'s header and where its results are; `None` when it is
    /// not a `part.json` of this version that this reader can follow.
    #[must_use]
    pub fn open(mut file: File) -> Option<PartReader> {
        let early = layout(BufReader::with_capacity(1 << 16, &mut file), true)?;
        // Every member of the header before the results (one left out
        // may be one that may be left out, `seed`, or one that follows).
        let whole_header = early.members == HEADER_MEMBERS;
        if let (Some(start), true, Ok(header)) =
            (early.results_at, whole_header, serde_json::from_slice::<PartHeader>(&early.header))
        {
            if header.version != PART_VERSION {
                return None;
            }
            file.seek(SeekFrom::Start(start)).ok()?;
            let how = How::InTurn { file, buf: Vec::new(), at: 0, first: true, ended: false };
            return Some(PartReader { header, how });
        }
        file.seek(SeekFrom::Start(0)).ok()?;
        let whole = layout(BufReader::with_capacity(1 << 18, &mut file), false)?;
        let header: PartHeader = serde_json::from_slice(&whole.header).ok()?;
        if header.version != PART_VERSION {
            return None;
        }
        file.seek(SeekFrom::Start(0)).ok()?;
        let how = How::Found {
            file: BufReader::with_capacity(1 << 18, file),
            at: 0,
            elements: whole.elements.into_iter(),
            buf: Vec::new(),
        };
        Some(PartReader { header, how })
    }

    /// The next result, `None` after the last; `Some(None)` when it cannot
    /// be read or is not a result (or, after the last, the file does not
    /// end there).
    pub fn next_result(&mut self) -> Option<Option<StoredSubmission>> {
        match &mut self.how {
            How::InTurn { file, buf, at, first, ended } => {
                if *ended {
                    return None;
                }
                let read = in_turn(file, buf, at, first);
                if !matches!(read, Some(Some(_))) {
                    *ended = true;
                }
                read
            }
            How::Found { file, at, elements, buf } => {
                let (start, end) = elements.next()?;
                Some(found(file, at, buf, start, end))
            }
        }
    }
}

/// The next result of a part read in turn ([`How::InTurn`]), as
/// [`PartReader::next_result`] gives it.
#[allow(clippy::option_option, reason = "as next_result gives it")]
fn in_turn(
    file: &mut File,
    buf: &mut Vec<u8>,
    at: &mut usize,
    first: &mut bool,
) -> Option<Option<StoredSubmission>> {
    let Some(next) = next_byte(file, buf, at) else { return Some(None) };
    if next == b']' {
        *at += 1;
        // The results are the last member, and the file ends with it.
        let Some(b'}') = next_byte(file, buf, at) else { return Some(None) };
        *at += 1;
        return if next_byte(file, buf, at).is_none() && buf.len() == *at { None } else { Some(None) };
    }
    if !*first {
        if next != b',' {
            return Some(None);
        }
        *at += 1;
    }
    *first = false;
    loop {
        let mut stream = serde_json::Deserializer::from_slice(&buf[*at..]).into_iter::<StoredSubmission>();
        match stream.next() {
            Some(Ok(result)) => {
                *at += stream.byte_offset();
                return Some(Some(result));
            }
            // Cut by the end of what is read so far: read on.
            Some(Err(e)) if e.is_eof() => {
                if !more(file, buf, at) {
                    return Some(None);
                }
            }
            None => {
                if !more(file, buf, at) {
                    return Some(None);
                }
            }
            Some(Err(_)) => return Some(None),
        }
    }
}

/// The next byte of `buf[at..]` that is not white space (`at` left on it),
/// reading on as need be; `None` at the file's end.
fn next_byte(file: &mut File, buf: &mut Vec<u8>, at: &mut usize) -> Option<u8> {
    loop {
        while let Some(&b) = buf.get(*at) {
            if !matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
                return Some(b);
            }
            *at += 1;
        }
        if !more(file, buf, at) {
            return None;
        }
    }
}

/// Reads on into `buf`, dropping what is parsed (`buf[..at]`); false at
/// the file's end (or on an error).
fn more(file: &mut File, buf: &mut Vec<u8>, at: &mut usize) -> bool {
    buf.drain(..*at);
    *at = 0;
    let len = buf.len();
    buf.resize(len + CHUNK, 0);
    let n = loop {
        match file.read(&mut buf[len..]) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            other => break other.unwrap_or(0),
        }
    };
    buf.truncate(len + n);
    n > 0
}

/// The result at bytes `start..end` of a part read as found
/// ([`How::Found`]).
fn found(
    file: &mut BufReader<File>,
    at: &mut u64,
    buf: &mut Vec<u8>,
    start: u64,
    end: u64,
) -> Option<StoredSubmission> {
    let skip = i64::try_from(start.checked_sub(*at)?).ok()?;
    file.seek_relative(skip).ok()?;
    buf.resize(usize::try_from(end - start).ok()?, 0);
    file.read_exact(buf).ok()?;
    *at = end;
    serde_json::from_slice(buf).ok()
}

/// Where a `part.json`'s results are: its other members as a JSON object
/// of their own, and each result's bytes.
struct Layout {
    header: Vec<u8>,
    elements: Vec<(u64, u64)>,
    /// Read `early`: where the results begin, just after their `[`, if
    /// they were reached (the header is then what preceded them).
    results_at: Option<u64>,
    /// How many members the header has.
    members: usize,
}

/// [`Layout`] of the JSON object `input` holds, its member `results` an
/// array of objects; `None` when it does not follow that structure (the
/// parser then says why). Strings are skipped whole, their escapes
/// followed; whether the bytes are JSON otherwise is left to the parser,
/// which reads the header and every result.
#[allow(clippy::too_many_lines, reason = "one state machine over the bytes, each state beside the others")]
fn layout(mut input: impl BufRead, early: bool) -> Option<Layout> {
    /// Where the reading is in the top level's object.
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum At {
        Start,
        Key,
        InKey,
        Colon,
        Value,
        InValue,
        Comma,
        End,
    }
    let mut header = Vec::new();
    let mut elements = Vec::new();
    let mut key = Vec::new();
    let mut members = 0;
    let (mut at, mut depth, mut in_string, mut escape) = (At::Start, 0u32, false, false);
    let (mut results, mut seen_results, mut element_start, mut offset) = (false, false, 0u64, 0u64);
    loop {
        let chunk = input.fill_buf().ok()?;
        let n = chunk.len();
        if n == 0 {
            break;
        }
        let mut i = 0;
        while i < n {
            if in_string {
                let sink = match at {
                    At::InKey => Some(&mut key),
                    At::InValue if !results => Some(&mut header),
                    _ => None,
                };
                if escape {
                    escape = false;
                    if let Some(sink) = sink {
                        sink.push(chunk[i]);
                    }
                    i += 1;
                    continue;
                }
                let Some(j) = memchr::memchr2(b'"', b'\\', &chunk[i..]) else {
                    if let Some(sink) = sink {
                        sink.extend_from_slice(&chunk[i..]);
                    }
                    i = n;
                    continue;
                };
                let c = chunk[i + j];
                if let Some(sink) = sink {
                    sink.extend_from_slice(&chunk[i..=i + j]);
                }
                i += j + 1;
                if c == b'\\' {
                    escape = true;
                } else {
                    in_string = false;
                    if at == At::InKey {
                        at = At::Colon;
                    }
                }
                continue;
            }
            let b = chunk[i];
            let pos = offset + i as u64;
            i += 1;
            let space = matches!(b, b' ' | b'\n' | b'\r' | b'\t');
            match at {
                _ if space && !(at == At::InValue && !results && depth > 0) => {}
                At::Start if b == b'{' => {
                    header.push(b'{');
                    at = At::Key;
                }
                At::Key if b == b'"' => {
                    key.clear();
                    key.push(b'"');
                    in_string = true;
                    at = At::InKey;
                }
                At::Key if b == b'}' && header.len() == 1 => {
                    header.push(b'}');
                    at = At::End;
                }
                At::Colon if b == b':' => {
                    results = key == b"\"results\"";
                    if results {
                        if seen_results {
                            return None;
                        }
                        seen_results = true;
                    } else {
                        if header.len() > 1 {
                            header.push(b',');
                        }
                        members += 1;
                        header.extend_from_slice(&key);
                        header.push(b':');
                    }
                    at = At::Value;
                }
                At::Value if results => {
                    if b != b'[' {
                        return None;
                    }
                    if early {
                        header.push(b'}');
                        return Some(Layout { header, elements, results_at: Some(pos + 1), members });
                    }
                    depth = 1;
                    at = At::InValue;
                }
                At::Value => {
                    header.push(b);
                    match b {
                        b'{' | b'[' => depth = 1,
                        b'"' => in_string = true,
                        _ => {}
                    }
                    at = At::InValue;
                }
                At::InValue if results => match (depth, b) {
                    (1, b',') => {}
                    (1, b'{') => {
                        element_start = pos;
                        depth = 2;
                    }
                    (1, b']') => {
                        depth = 0;
                        at = At::Comma;
                    }
                    (1, _) => return None,
                    (_, b'"') => in_string = true,
                    (_, b'{' | b'[') => depth += 1,
                    (_, b'}' | b']') => {
                        depth -= 1;
                        if depth == 1 {
                            elements.push((element_start, pos + 1));
                        }
                    }
                    _ => {}
                },
                At::InValue if depth == 0 => match b {
                    b',' => at = At::Key,
                    b'}' => {
                        header.push(b'}');
                        at = At::End;
                    }
                    _ => header.push(b),
                },
                At::InValue => {
                    header.push(b);
                    match b {
                        b'"' => in_string = true,
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => depth -= 1,
                        _ => {}
                    }
                }
                At::Comma if b == b',' => at = At::Key,
                At::Comma if b == b'}' => {
                    header.push(b'}');
                    at = At::End;
                }
                _ => return None,
            }
        }
        offset += n as u64;
        input.consume(n);
    }
    (at == At::End && seen_results).then_some(Layout { header, elements, results_at: None, members })
}

#[cfg(test)]
mod tests {
    /// A time or score read back from `part.json` is the very number it was
    /// written from, to the last bit: `merge` writes the part's
    /// `results.json` again from it and must get the same bytes (without
    /// `serde_json`'s `float_roundtrip`, 7,914 of these 100,000 numbers
    /// came back one bit off, and a sound part was refused as corrupt: seen
    /// in the recipes' tests).
    #[test]
    fn every_number_reads_back_to_the_same_bits() {
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut off = Vec::new();
        for _ in 0..100_000 {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            #[allow(clippy::cast_precision_loss, reason = "any spread of numbers will do")]
            let x = (state >> 11) as f64 / (1u64 << 53) as f64 * 10.0;
            let back: f64 = serde_json::from_str(&serde_json::to_string(&x).unwrap()).unwrap();
            if back.to_bits() != x.to_bits() {
                off.push(x);
            }
        }
        assert!(off.is_empty(), "{} numbers came back changed, such as {:?}", off.len(), off.first());
    }
}
