//! The reports of a grading run: a table for the terminal, and files for
//! gradebooks (CSV), tools (JSON), CI (`JUnit` XML) and people (one HTML
//! page); Gradescope's is [`super::gradescope`]. Each writer writes to any
//! `io::Write`; the sinks ([`super::files`]) make the files appear whole.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::time::Duration;

use maud::{DOCTYPE, Markup, PreEscaped, html};
use serde::Serialize;

use super::games::{self, GameFiles};
use crate::check::Unmatched;
use crate::grade::result::{SubmissionResult, TestResult, Verdict};
use crate::spreadsheet::CsvTable;
use crate::text::{inert, inert_lines};

/// Scores as reports print them: at most two decimals, no trailing zeros.
#[must_use]
pub fn score(value: f64) -> String {
    let text = format!("{value:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// The most failing tests the terminal's table names in a row; the rest
/// are counted.
const TABLE_FAILED: usize = 3;

/// The tests of `r` that did not pass, as the terminal's table names them:
/// `vs-perfect, legal`; at most [`TABLE_FAILED`] then `(+N more)`; `all`
/// when every one of several failed (a failed build, say); empty when none
/// did.
fn failed_tests(r: &SubmissionResult) -> String {
    let failed: Vec<&str> =
        r.tests.iter().filter(|t| t.verdict != Verdict::Pass).map(|t| t.test.as_str()).collect();
    if failed.len() > 1 && failed.len() == r.tests.len() {
        return "all".to_owned();
    }
    let mut text = failed.iter().take(TABLE_FAILED).map(|name| inert(name)).collect::<Vec<_>>().join(", ");
    if failed.len() > TABLE_FAILED {
        let _ = write!(text, " (+{} more)", failed.len() - TABLE_FAILED);
    }
    text
}

/// The terminal's table: submission, language, score, tests, then a count
/// per verdict, then the tests that failed, by name.
pub fn table(results: &[SubmissionResult], out: &mut impl Write) -> io::Result<()> {
    table_in_colour(results, false, out)
}

/// The colour a verdict's count is shown in on a terminal: green for a
/// pass, yellow for a limit reached, red for a wrong answer or a crash.
fn verdict_style(verdict: Verdict) -> anstyle::Style {
    use anstyle::AnsiColor;
    let colour = match verdict {
        Verdict::Pass => AnsiColor::Green,
        Verdict::TimeLimit | Verdict::OutputLimit => AnsiColor::Yellow,
        Verdict::BuildFailed | Verdict::Error => AnsiColor::Magenta,
        _ => AnsiColor::Red,
    };
    colour.on_default()
}

/// What the terminal's table and the page's overview show of a submission:
/// kept for every submission while a merge streams the rest of its result.
#[derive(Clone, Debug)]
pub struct Row {
    /// Its name, as given (made inert where shown).
    pub submission: String,
    /// Its language.
    pub language: String,
    /// Its score.
    pub score: f64,
    /// How many tests it has.
    pub tests: usize,
    /// How many tests had each verdict, in [`Verdict::ALL`]'s order.
    pub counts: [usize; 8],
    /// The tests that did not pass, as the table names them.
    pub failed: String,
}

impl Row {
    /// `r`'s row.
    #[must_use]
    pub fn of(r: &SubmissionResult) -> Row {
        Row {
            submission: r.submission.clone(),
            language: r.language.clone(),
            score: r.score,
            tests: r.tests.len(),
            counts: Verdict::ALL.map(|v| r.count(v)),
            failed: failed_tests(r),
        }
    }

    /// How many tests had `verdict`.
    fn count(&self, verdict: Verdict) -> usize {
        Verdict::ALL.iter().position(|&v| v == verdict).map_or(0, |i| self.counts[i])
    }

    /// Whether every test passed.
    #[must_use]
    pub fn all_passed(&self) -> bool {
        self.count(Verdict::Pass) == self.tests
    }
}

/// [`table`], each verdict count above 0 in its colour ([`verdict_style`])
/// when `colour`: for a terminal that asked for it (`--color`).
pub fn table_in_colour(results: &[SubmissionResult], colour: bool, out: &mut impl Write) -> io::Result<()> {
    let rows: Vec<Row> = results.iter().map(Row::of).collect();
    rows_table(&rows, colour, out)
}

/// [`table_in_colour`] from the submissions' [`Row`]s.
pub fn rows_table(rows: &[Row], colour: bool, out: &mut impl Write) -> io::Result<()> {
    let widest = |header: &str, text: &dyn Fn(&Row) -> &str| {
        rows.iter().map(|r| inert(text(r)).chars().count()).max().unwrap_or(0).max(header.len())
    };
    let width = widest("submission", &|r| &r.submission);
    let lang = widest("language", &|r| &r.language);
    write!(out, "{:<width$}  {:<lang$}  {:>6}  {:>5}", "submission", "language", "score", "tests")?;
    for verdict in Verdict::ALL {
        write!(out, "  {}", verdict.name())?;
    }
    writeln!(out, "  failed")?;
    for r in rows {
        write!(
            out,
            "{:<width$}  {:<lang$}  {:>6}  {:>5}",
            inert(&r.submission),
            inert(&r.language),
            score(r.score),
            r.tests
        )?;
        for verdict in Verdict::ALL {
            let (count, w) = (r.count(verdict), verdict.name().len());
            if colour && count > 0 {
                let style = verdict_style(verdict);
                write!(out, "  {}{count:>w$}{}", style.render(), style.render_reset())?;
            } else {
                write!(out, "  {count:>w$}")?;
            }
        }
        if r.failed.is_empty() {
            writeln!(out)?;
        } else {
            writeln!(out, "  {}", r.failed)?;
        }
    }
    Ok(())
}

/// `grades.csv`: `submission,language,score,tests,passed`, then a column per test
/// holding its verdict — the shape a gradebook import wants.
pub fn csv(results: &[SubmissionResult], tests: &[String], out: &mut impl Write) -> io::Result<()> {
    let mut table = csv_head(tests, out)?;
    for r in results {
        csv_row(&mut table, r)?;
    }
    table.finish()
}

/// [`csv`]'s header row, the table to write its rows into.
pub fn csv_head<W: Write>(tests: &[String], out: W) -> io::Result<CsvTable<W>> {
    let mut table = CsvTable::new(out);
    let header = ["submission", "language", "score", "tests", "passed"].map(String::from);
    table.row(header.into_iter().chain(tests.iter().cloned()))?;
    Ok(table)
}

/// [`csv`]'s row of `r`.
pub fn csv_row<W: Write>(table: &mut CsvTable<W>, r: &SubmissionResult) -> io::Result<()> {
    let counts = [score(r.score), r.tests.len().to_string(), r.count(Verdict::Pass).to_string()];
    let verdicts = r.tests.iter().map(|t| t.verdict.name().to_owned());
    table.row([r.submission.clone(), r.language.clone()].into_iter().chain(counts).chain(verdicts))
}

/// `results.json`: every submission and test (FORMAT.md has the schema);
/// `partial` for a grading stopped before every submission was graded
/// (`"partial": true`, left out otherwise).
pub fn json(
    results: &[SubmissionResult],
    limits: &crate::outcome::Limits,
    seed: Option<u64>,
    partial: bool,
    out: &mut impl Write,
) -> io::Result<()> {
    let mut stream = JsonStream::begin(limits, seed, partial, out)?;
    for r in results {
        stream.push(&json_element(r)?)?;
    }
    stream.finish().map(drop)
}

/// [`json`] written a submission at a time: the document's head, each
/// submission as [`json_element`] gives it ([`JsonStream::push`]), then its
/// end ([`JsonStream::finish`]) — the same bytes as serde's pretty printer
/// writes for the whole document.
pub struct JsonStream<W: Write> {
    out: W,
    /// Submissions written so far.
    written: usize,
}

impl<W: Write> JsonStream<W> {
    /// Writes the document's head into `out`.
    ///
    /// # Errors
    /// When `out` cannot be written.
    pub fn begin(
        limits: &crate::outcome::Limits,
        seed: Option<u64>,
        partial: bool,
        mut out: W,
    ) -> io::Result<JsonStream<W>> {
        #[derive(Serialize)]
        struct Document<'a> {
            version: u32,
            #[serde(skip_serializing_if = "std::ops::Not::not")]
            partial: bool,
            limits: LimitsShown,
            #[serde(skip_serializing_if = "Option::is_none")]
            seed: Option<u64>,
            submissions: &'a [SubmissionResult],
        }
        #[derive(Serialize)]
        struct LimitsShown {
            wall_seconds: f64,
            cpu_seconds: f64,
            memory_mb: u64,
            output_mb: u64,
            processes: u64,
        }
        let document = Document {
            version: 1,
            partial,
            limits: LimitsShown {
                wall_seconds: limits.wall.as_secs_f64(),
                cpu_seconds: limits.cpu.as_secs_f64(),
                memory_mb: limits.memory >> 20,
                output_mb: limits.output >> 20,
                processes: limits.processes,
            },
            seed,
            submissions: &[],
        };
        let mut head = serde_json::to_vec_pretty(&document)?;
        // Its empty list of submissions and the document's end, `[]\n}`,
        // are written by `finish`.
        head.truncate(head.len().saturating_sub(b"[]\n}".len()));
        out.write_all(&head)?;
        Ok(JsonStream { out, written: 0 })
    }

    /// Writes one submission, `element` as [`json_element`] made it.
    ///
    /// # Errors
    /// When `out` cannot be written.
    pub fn push(&mut self, element: &[u8]) -> io::Result<()> {
        self.out.write_all(if self.written == 0 { b"[\n    " } else { b",\n    " })?;
        self.written += 1;
        self.out.write_all(element)
    }

    /// Ends the document, and gives back the output.
    ///
    /// # Errors
    /// When `out` cannot be written.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.write_all(if self.written == 0 { b"[]\n}\n" } else { b"\n  ]\n}\n" })?;
        self.out.flush()?;
        Ok(self.out)
    }
}

/// `r` as [`json`] writes it among the submissions, indented as it is
/// there (serde's pretty printer writes a string's line breaks escaped,
/// so every line break it writes starts a line to indent).
///
/// # Errors
/// When `r` cannot be serialized.
pub fn json_element(r: &SubmissionResult) -> io::Result<Vec<u8>> {
    let alone = serde_json::to_vec_pretty(r)?;
    let lines = memchr::memchr_iter(b'\n', &alone).count();
    let mut element = Vec::with_capacity(alone.len() + 4 * lines);
    for piece in alone.split_inclusive(|&b| b == b'\n') {
        element.extend_from_slice(piece);
        if piece.ends_with(b"\n") {
            element.extend_from_slice(b"    ");
        }
    }
    Ok(element)
}

/// The name of `junit.xml`'s report.
const JUNIT_NAME: &str = "ttt-referee grade";

/// `junit.xml`: a suite per submission, a test case per test
/// (`classname` the submission, `name` the test); failures carry the
/// verdict and the first difference. Every text is made inert ([`inert`],
/// [`inert_lines`]): CI shows these messages in its logs.
///
/// Written a suite at a time: its head (with the totals, [`JunitTotals`]),
/// each suite ([`junit_suite_text`]), its end ([`junit_tail`]).
pub fn junit(results: &[SubmissionResult], out: &mut impl Write) -> io::Result<()> {
    if results.is_empty() {
        return quick_junit::Report::new(JUNIT_NAME).serialize(&mut *out).map_err(io::Error::other);
    }
    let mut totals = JunitTotals::default();
    for r in results {
        totals.add(r);
    }
    junit_head(&totals, out)?;
    for r in results {
        out.write_all(&junit_suite_text(r)?)?;
    }
    junit_tail(out)
}

/// What `junit.xml`'s head counts of every suite.
#[derive(Clone, Copy, Debug, Default)]
pub struct JunitTotals {
    tests: usize,
    failures: usize,
    errors: usize,
}

impl JunitTotals {
    /// Counts `r`'s tests: a wrong answer a failure, any other verdict
    /// but a pass an error (as [`junit_suite`] makes them).
    pub fn add(&mut self, r: &SubmissionResult) {
        self.tests += r.tests.len();
        self.failures += r.count(Verdict::Wrong);
        self.errors +=
            r.tests.iter().filter(|t| !matches!(t.verdict, Verdict::Pass | Verdict::Wrong)).count();
    }
}

/// Where `junit.xml`'s report element's start tag ends in `whole`.
fn junit_head_end(whole: &[u8]) -> io::Result<usize> {
    let tag = whole.windows(b"<testsuites".len()).position(|w| w == b"<testsuites");
    tag.and_then(|at| whole[at..].iter().position(|&b| b == b'>').map(|end| at + end + 1))
        .ok_or_else(|| io::Error::other("junit.xml: no <testsuites> element"))
}

/// `junit.xml`'s end, after the last suite.
const JUNIT_TAIL: &[u8] = b"\n</testsuites>\n";

/// Writes `junit.xml`'s head, up to its first suite, counting `totals`.
///
/// # Errors
/// When `out` cannot be written.
pub fn junit_head(totals: &JunitTotals, out: &mut impl Write) -> io::Result<()> {
    let mut report = quick_junit::Report::new(JUNIT_NAME);
    report.tests = totals.tests;
    report.failures = totals.failures;
    report.errors = totals.errors;
    let mut whole = Vec::new();
    report.serialize(&mut whole).map_err(io::Error::other)?;
    out.write_all(&whole[..junit_head_end(&whole)?])
}

/// Writes `junit.xml`'s end, after its last suite.
///
/// # Errors
/// When `out` cannot be written.
pub fn junit_tail(out: &mut impl Write) -> io::Result<()> {
    out.write_all(JUNIT_TAIL)
}

/// `r`'s suite as `junit.xml` has it among the others.
///
/// # Errors
/// When it cannot be serialized.
pub fn junit_suite_text(r: &SubmissionResult) -> io::Result<Vec<u8>> {
    let mut report = quick_junit::Report::new(JUNIT_NAME);
    report.add_test_suite(junit_suite(r));
    let mut whole = Vec::new();
    report.serialize(&mut whole).map_err(io::Error::other)?;
    let start = junit_head_end(&whole)?;
    let end = whole
        .ends_with(JUNIT_TAIL)
        .then(|| whole.len() - JUNIT_TAIL.len())
        .filter(|&end| end >= start)
        .ok_or_else(|| io::Error::other("junit.xml: a suite not followed by the report's end"))?;
    whole.truncate(end);
    whole.drain(..start);
    Ok(whole)
}

/// `r`'s suite of `junit.xml`.
fn junit_suite(r: &SubmissionResult) -> quick_junit::TestSuite {
    use quick_junit::{NonSuccessKind, TestCase, TestCaseStatus, TestSuite};
    let submission = inert(&r.submission);
    let mut suite = TestSuite::new(submission.as_ref());
    for t in &r.tests {
        let status = if t.verdict == Verdict::Pass {
            TestCaseStatus::success()
        } else {
            let kind =
                if t.verdict == Verdict::Wrong { NonSuccessKind::Failure } else { NonSuccessKind::Error };
            let mut status = TestCaseStatus::non_success(kind);
            status.set_type(t.verdict.name());
            let mut message = format!("{}: {}", t.verdict, inert(&t.detail));
            let mut description = t
                .first_difference
                .as_ref()
                .map(|d| inert_lines(&d.to_string()).into_owned())
                .unwrap_or_default();
            if let Some(warnings) = t.warnings() {
                description.push_str(&inert_lines(warnings));
            }
            if let Some(s) = &t.smallest_failing_input {
                let _ = write!(message, "; {}: {}", s.heading(), inert(&s.in_one_line()));
                // The XML text keeps no tabs: a tab between a move's fields becomes a space.
                let _ =
                    write!(description, "\n\n{}:\n{}", s.heading(), inert_lines(&s.input.replace('\t', " ")));
                if let Some(d) = &s.first_difference {
                    let _ = write!(description, "on it:\n{}", inert_lines(&d.to_string()));
                }
            }
            status.set_message(message);
            if !description.is_empty() {
                status.set_description(description.trim_start());
            }
            status
        };
        let mut case = TestCase::new(inert(&t.test).as_ref(), status);
        case.set_classname(submission.as_ref());
        case.set_time(Duration::from_secs_f64(t.wall));
        suite.add_test_case(case);
    }
    if let Some(log) = &r.build_log {
        suite.set_system_out(inert_lines(log).as_ref());
    }
    suite
}

/// The colour of a verdict on the page.
fn colour(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Pass => "#2e7d32",
        Verdict::Wrong => "#c62828",
        Verdict::NoOutput => "#6d4c41",
        Verdict::TimeLimit => "#ef6c00",
        Verdict::Crashed => "#6a1b9a",
        Verdict::OutputLimit => "#ad1457",
        Verdict::BuildFailed => "#424242",
        Verdict::Error => "#000000",
    }
}

const STYLE: &str = "
body { font: 15px/1.4 system-ui, sans-serif; margin: 2em auto; max-width: 80em; padding: 0 1em; color: #222; }
.partial { background: #fff3cd; border: 2px solid #ef6c00; padding: .5em 1em; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: .5em 0; }
th, td { padding: .3em .7em; border: 1px solid #ddd; text-align: left; vertical-align: top; }
th.sort { cursor: pointer; background: #f3f3f3; user-select: none; }
th.sort::after { content: ' \\2195'; color: #999; }
.key { display: inline-block; width: .8em; height: .8em; margin-right: .35em; border-radius: 2px; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.verdict { color: #fff; border-radius: .3em; padding: .1em .5em; font-size: .9em; white-space: nowrap; }
.bar { display: flex; height: .8em; width: 14em; border-radius: .3em; overflow: hidden; background: #eee; }
.diff { display: grid; grid-template-columns: 1fr 1fr; gap: .5em; margin: .5em 0 1.5em; }
.diff pre { margin: 0; padding: .5em; background: #fafafa; border: 1px solid #ddd; overflow-x: auto; font-size: .85em; }
.diff .bad { background: #ffd7d7; display: block; }
.diff h4 { margin: 0 0 .2em; font-size: .9em; }
details > summary { cursor: pointer; }
.smallest { border-left: 4px solid #c62828; padding-left: .8em; }
pre.input { margin: .3em 0; padding: .5em; background: #fff8e1; border: 1px solid #ddd; font-size: .85em; }
pre.warnings { margin: .3em 0 1.5em; padding: .5em; background: #fafafa; border: 1px solid #ddd; overflow-x: auto; font-size: .85em; }
p.provided { color: #8a4b00; }
";

const SCRIPT: &str = "
document.querySelectorAll('table.sortable').forEach(function (table) {
  table.querySelectorAll('th.sort').forEach(function (th, column) {
    th.addEventListener('click', function () {
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      var down = th.dataset.order !== 'asc';
      th.dataset.order = down ? 'asc' : 'desc';
      rows.sort(function (a, b) {
        var x = a.cells[column].dataset.key, y = b.cells[column].dataset.key;
        var nx = parseFloat(x), ny = parseFloat(y);
        var c = (isNaN(nx) || isNaN(ny)) ? x.localeCompare(y) : nx - ny;
        return down ? c : -c;
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
});
document.body.dataset.ready = 'yes';
";

fn verdict_badge(verdict: Verdict) -> Markup {
    html! { span.verdict style={ "background:" (colour(verdict)) } { (verdict.name()) } }
}

/// Expected and actual side by side, marking the lines that the comparison's
/// diff left unmatched (the same diff that scored the test).
fn side_by_side(expected: &str, actual: &str, unmatched: &Unmatched) -> Markup {
    let column = |text: &str, unmatched: &dyn Fn(usize) -> bool| {
        html! {
            @for (i, line) in text.lines().enumerate() {
                @let line = inert_lines(line);
                @if unmatched(i + 1) { span.bad { (line) "\n" } } @else { (line) "\n" }
            }
        }
    };
    html! {
        div.diff {
            div { h4 { "expected" } pre { (column(expected, &|n| unmatched.has_expected(n))) } }
            div { h4 { "the program's answer" } pre { (column(actual, &|n| unmatched.has_actual(n))) } }
        }
    }
}

/// `report.html`: one self-contained page — a sortable overview coloured by
/// verdict, then each submission's tests, a wrong answer shown beside the
/// expected one. Every text of a submission's is made inert ([`inert`],
/// [`inert_lines`]), then escaped by maud.
///
/// `not_graded` names the submissions a stopped grading never finished: the
/// page then opens with a banner saying it is partial.
///
/// Written a piece at a time: its head with the overview ([`html_head`],
/// from the submissions' [`Row`]s), each submission's section
/// ([`html_section`]), its end ([`html_tail`]).
pub fn html_page(
    results: &[SubmissionResult],
    protections: &str,
    seed: Option<u64>,
    not_graded: &[String],
    games: &GameFiles,
    out: &mut impl Write,
) -> io::Result<()> {
    let rows: Vec<Row> = results.iter().map(Row::of).collect();
    html_head(&rows, protections, seed, not_graded, out)?;
    for (index, r) in results.iter().enumerate() {
        html_section(index, r, games, out)?;
    }
    html_tail(out)
}

/// [`html_page`]'s head: up to the first submission's section.
///
/// # Errors
/// When `out` cannot be written.
pub fn html_head(
    rows: &[Row],
    protections: &str,
    seed: Option<u64>,
    not_graded: &[String],
    out: &mut impl Write,
) -> io::Result<()> {
    let head = html! {
        (DOCTYPE)
        (PreEscaped("<html lang=\"en\">"))
        head {
            meta charset="utf-8";
            meta name="viewport" content="width=device-width, initial-scale=1";
            title { "Grades — ttt-referee" }
            style { (PreEscaped(STYLE)) (PreEscaped(games::STYLE)) }
        }
        (PreEscaped("<body>"))
        h1 { "Grades" }
        @if !not_graded.is_empty() {
            p.partial role="alert" {
                strong { "Partial: " } "the grading was interrupted; " (rows.len()) " of "
                (rows.len() + not_graded.len()) " submissions graded. Not graded: "
                (not_graded.iter().map(|n| inert(n).into_owned()).collect::<Vec<_>>().join(", ")) "."
            }
        }
        p { (rows.len()) " submissions, "
            (rows.first().map_or(0, |r| r.tests)) " tests each. Click a column to sort." }
        @if let Some(seed) = seed {
            p { "The graded games, cases or generated tests came from seed " (seed)
                ": " code { "--seed " (seed) } " grades them again." }
        }
        table.sortable #overview {
            thead { tr {
                th.sort { "submission" } th.sort { "language" } th.sort { "score" } th { "verdicts" }
                @for v in Verdict::ALL { th.sort { span.key style={ "background:" (colour(v)) } {} (v.name()) } }
            } }
            tbody {
                @for r in rows {
                    tr {
                        td data-key=(inert(&r.submission)) { a href={ "#s-" (anchor(&r.submission)) } { (inert(&r.submission)) } }
                        td data-key=(inert(&r.language)) { (inert(&r.language)) }
                        td.num data-key=(score(r.score)) { (score(r.score)) }
                        td data-key=(score(r.score)) { div.bar {
                            @for v in Verdict::ALL {
                                @let n = r.count(v);
                                @if n > 0 {
                                    span title={ (n) " " (v.name()) } style={ "flex:" (n) ";background:" (colour(v)) } {}
                                }
                            }
                        } }
                        @for v in Verdict::ALL { td.num data-key=(r.count(v)) { (r.count(v)) } }
                    }
                }
            }
        }
        details { summary { "Protections in force during this run" } pre { (inert_lines(protections)) } }
    };
    out.write_all(head.into_string().as_bytes())
}

/// [`html_page`]'s section of `r`, the `index`th submission (`games` has
/// its failing games under that index).
///
/// # Errors
/// When `out` cannot be written.
pub fn html_section(
    index: usize,
    r: &SubmissionResult,
    games: &GameFiles,
    out: &mut impl Write,
) -> io::Result<()> {
    out.write_all(submission_section(index, r, games).into_string().as_bytes())
}

/// [`html_page`]'s end, after the last submission's section.
///
/// # Errors
/// When `out` cannot be written.
pub fn html_tail(out: &mut impl Write) -> io::Result<()> {
    let tail = html! { script { (PreEscaped(games::STEP_SCRIPT)) (PreEscaped(SCRIPT)) } };
    out.write_all(tail.into_string().as_bytes())?;
    out.write_all(b"</body></html>")
}

/// A submission's section of `report.html`: its tests, then each failing
/// one's evidence (a bot's game move by move, from `games`, where it has
/// one); `index` is its place in the results.
fn submission_section(index: usize, r: &SubmissionResult, games: &GameFiles) -> Markup {
    html! {
        section.submission {
            h2 #{ "s-" (anchor(&r.submission)) } { (inert(&r.submission)) " — " (score(r.score)) }
            p { "Language: " (inert(&r.language)) }
            @for note in r.provided_notes() { p.provided { (inert(&note)) } }
            @if let Some(log) = r.build_log.as_ref().filter(|l| !l.trim().is_empty()) {
                details open[r.build_failed] { summary { "build log" } pre { (inert_lines(log)) } }
            }
            table {
                thead { tr { th { "test" } th { "verdict" } th { "score" } th { "detail" } th { "time (s)" } } }
                tbody {
                    @for t in &r.tests {
                        tr {
                            td { (inert(&t.test)) } td { (verdict_badge(t.verdict)) }
                            td.num { (score(t.score)) }
                            td { (inert(&t.detail))
                                @if !t.stderr.is_empty() {
                                    details { summary { "standard error" } pre { (inert_lines(&t.stderr)) } }
                                }
                            }
                            td.num { (format!("{:.3}", t.wall)) }
                        }
                    }
                }
            }
            @for (at, t) in r.tests.iter().enumerate().filter(|(_, t)| t.verdict == Verdict::Wrong || t.smallest_failing_input.is_some()) {
                h3 { (inert(&t.test)) }
                @if let Some(warnings) = t.warnings() {
                    h4 { "The compiler's warnings" } pre.warnings { (inert_lines(warnings)) }
                }
                @if let Some(s) = &t.smallest_failing_input {
                    div.smallest {
                        h4 { (capitalized(&s.heading())) ": " (s.verdict.name()) ", " (inert(&s.detail)) }
                        @if let Some((path, game)) = games.get(index, at) {
                            @let path = path.to_string_lossy().replace('\\', "/");
                            p { "Its record is " a href=(path) { (path) } " in this report's directory: replay it with "
                                code { "ttt-referee FILE" } ", or play your bot on from its position after N moves with "
                                code { "ttt-referee match BOT perfect --from FILE --after N" } "." }
                            (games::game_markup(game))
                            details { summary { "the move file" } pre.input { (inert_lines(&s.input)) } }
                        } @else {
                            pre.input { (inert_lines(&s.input)) }
                        }
                        // A bot's game has no answers of its own.
                        @if !(s.expected.is_empty() && s.actual.is_empty()) {
                            (side_by_side(&s.expected, &s.actual, &s.unmatched))
                        }
                        @if !s.stderr.is_empty() {
                            details { summary { "standard error on it" } pre { (inert_lines(&s.stderr)) } }
                        }
                    }
                    @if whole_answer(t) { h4 { "The test itself" } }
                }
                @if whole_answer(t) { (side_by_side(&t.expected, &t.actual, &t.unmatched)) }
            }
        }
    }
}

/// A wrong test with answers of its own to show (a function graded with
/// `--api` has only its smallest failing call's; the build's warnings test
/// shows its warnings instead).
fn whole_answer(t: &TestResult) -> bool {
    t.verdict == Verdict::Wrong && !(t.expected.is_empty() && t.actual.is_empty()) && t.warnings().is_none()
}

/// `text` with its first letter a capital.
pub(super) fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

/// A name made safe for an HTML id.
fn anchor(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn submission(name: &str, verdicts: &[(&str, Verdict)]) -> SubmissionResult {
        let tests = verdicts
            .iter()
            .map(|&(test, verdict)| TestResult::not_run(test, verdict, String::new()))
            .collect();
        SubmissionResult::graded(name.to_owned(), "C".to_owned(), None, tests)
    }

    // The whole-document writers as they were before they were streamed:
    // the streamed pieces must make the same bytes.
    fn reference_json(
        results: &[SubmissionResult],
        limits: &crate::outcome::Limits,
        seed: Option<u64>,
        partial: bool,
        out: &mut impl Write,
    ) -> io::Result<()> {
        #[derive(Serialize)]
        struct Document<'a> {
            version: u32,
            #[serde(skip_serializing_if = "std::ops::Not::not")]
            partial: bool,
            limits: LimitsShown,
            #[serde(skip_serializing_if = "Option::is_none")]
            seed: Option<u64>,
            submissions: &'a [SubmissionResult],
        }
        #[derive(Serialize)]
        struct LimitsShown {
            wall_seconds: f64,
            cpu_seconds: f64,
            memory_mb: u64,
            output_mb: u64,
            processes: u64,
        }
        let document = Document {
            version: 1,
            partial,
            limits: LimitsShown {
                wall_seconds: limits.wall.as_secs_f64(),
                cpu_seconds: limits.cpu.as_secs_f64(),
                memory_mb: limits.memory >> 20,
                output_mb: limits.output >> 20,
                processes: limits.processes,
            },
            seed,
            submissions: results,
        };
        serde_json::to_writer_pretty(&mut *out, &document)?;
        writeln!(out)
    }

    fn reference_html_page(
        results: &[SubmissionResult],
        protections: &str,
        seed: Option<u64>,
        not_graded: &[String],
        games: &GameFiles,
        out: &mut impl Write,
    ) -> io::Result<()> {
        let page = html! {
            (DOCTYPE)
            html lang="en" {
                head {
                    meta charset="utf-8";
                    meta name="viewport" content="width=device-width, initial-scale=1";
                    title { "Grades — ttt-referee" }
                    style { (PreEscaped(STYLE)) (PreEscaped(games::STYLE)) }
                }
                body {
                    h1 { "Grades" }
                    @if !not_graded.is_empty() {
                        p.partial role="alert" {
                            strong { "Partial: " } "the grading was interrupted; " (results.len()) " of "
                            (results.len() + not_graded.len()) " submissions graded. Not graded: "
                            (not_graded.iter().map(|n| inert(n).into_owned()).collect::<Vec<_>>().join(", ")) "."
                        }
                    }
                    p { (results.len()) " submissions, "
                        (results.first().map_or(0, |r| r.tests.len())) " tests each. Click a column to sort." }
                    @if let Some(seed) = seed {
                        p { "The graded games, cases or generated tests came from seed " (seed)
                            ": " code { "--seed " (seed) } " grades them again." }
                    }
                    table.sortable #overview {
                        thead { tr {
                            th.sort { "submission" } th.sort { "language" } th.sort { "score" } th { "verdicts" }
                            @for v in Verdict::ALL { th.sort { span.key style={ "background:" (colour(v)) } {} (v.name()) } }
                        } }
                        tbody {
                            @for r in results {
                                tr {
                                    td data-key=(inert(&r.submission)) { a href={ "#s-" (anchor(&r.submission)) } { (inert(&r.submission)) } }
                                    td data-key=(inert(&r.language)) { (inert(&r.language)) }
                                    td.num data-key=(score(r.score)) { (score(r.score)) }
                                    td data-key=(score(r.score)) { div.bar {
                                        @for v in Verdict::ALL {
                                            @let n = r.count(v);
                                            @if n > 0 {
                                                span title={ (n) " " (v.name()) } style={ "flex:" (n) ";background:" (colour(v)) } {}
                                            }
                                        }
                                    } }
                                    @for v in Verdict::ALL { td.num data-key=(r.count(v)) { (r.count(v)) } }
                                }
                            }
                        }
                    }
                    details { summary { "Protections in force during this run" } pre { (inert_lines(protections)) } }
                    @for (index, r) in results.iter().enumerate() { (submission_section(index, r, games)) }
                    script { (PreEscaped(games::STEP_SCRIPT)) (PreEscaped(SCRIPT)) }
                }
            }
        };
        out.write_all(page.into_string().as_bytes())
    }

    fn reference_junit(results: &[SubmissionResult], out: &mut impl Write) -> io::Result<()> {
        let mut report = quick_junit::Report::new(JUNIT_NAME);
        for r in results {
            report.add_test_suite(junit_suite(r));
        }
        report.serialize(&mut *out).map_err(io::Error::other)
    }

    fn sample() -> Vec<SubmissionResult> {
        let mut wrong =
            TestResult::not_run("vs <perfect>", Verdict::Wrong, "lost & \"quoted\"\nline".to_owned());
        wrong.expected = "1\n2\n".to_owned();
        wrong.actual = "1\n3\n".to_owned();
        wrong.stderr = "oops\u{1b}[2J".to_owned();
        wrong.wall = 0.125;
        let mut results = vec![
            submission("ann", &[("vs-perfect", Verdict::Pass), ("vs-random", Verdict::Pass)]),
            submission("bo \u{1b}", &[("a", Verdict::TimeLimit), ("b", Verdict::Crashed)]),
            submission("cy", &[("a", Verdict::BuildFailed), ("b", Verdict::BuildFailed)]),
        ];
        results[1].tests.push(wrong);
        results[2].build_log = Some("cc: error\n".to_owned());
        results
    }

    #[test]
    fn the_streamed_reports_are_the_whole_ones_byte_for_byte() {
        let limits = crate::grade::TEST_LIMITS;
        let games = GameFiles::default();
        for results in [sample(), Vec::new(), sample()[..1].to_vec()] {
            for (seed, partial, not_graded) in
                [(None, false, vec![]), (Some(7), true, vec!["dee".to_owned()])]
            {
                let (mut whole, mut streamed) = (Vec::new(), Vec::new());
                reference_json(&results, &limits, seed, partial, &mut whole).unwrap();
                json(&results, &limits, seed, partial, &mut streamed).unwrap();
                assert_eq!(String::from_utf8(streamed).unwrap(), String::from_utf8(whole).unwrap());
                let (mut whole, mut streamed) = (Vec::new(), Vec::new());
                reference_html_page(&results, "  in force  x <y>\n", seed, &not_graded, &games, &mut whole)
                    .unwrap();
                html_page(&results, "  in force  x <y>\n", seed, &not_graded, &games, &mut streamed).unwrap();
                assert_eq!(String::from_utf8(streamed).unwrap(), String::from_utf8(whole).unwrap());
            }
            let (mut whole, mut streamed) = (Vec::new(), Vec::new());
            reference_junit(&results, &mut whole).unwrap();
            junit(&results, &mut streamed).unwrap();
            assert_eq!(String::from_utf8(streamed).unwrap(), String::from_utf8(whole).unwrap());
        }
    }

    #[test]
    fn the_table_names_the_tests_that_failed() {
        let results = [
            submission("ann", &[("vs-perfect", Verdict::Pass), ("vs-random", Verdict::Pass)]),
            submission(
                "bo",
                &[("vs-perfect", Verdict::Wrong), ("legal", Verdict::TimeLimit), ("x", Verdict::Pass)],
            ),
            submission("cy", &[("a", Verdict::BuildFailed), ("b", Verdict::BuildFailed)]),
            submission(
                "dee\u{1b}",
                &[
                    ("1", Verdict::Wrong),
                    ("2", Verdict::Wrong),
                    ("3", Verdict::Crashed),
                    ("4\u{1b}[2J", Verdict::Wrong),
                    ("5", Verdict::Wrong),
                    ("6", Verdict::Pass),
                ],
            ),
        ];
        let mut out = Vec::new();
        table(&results, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].ends_with("  build-failed  error  failed"), "{text}");
        assert!(lines[1].ends_with("  0"), "nothing failed, nothing named: {text}");
        assert!(lines[2].ends_with("  0  vs-perfect, legal"), "{text}");
        assert!(lines[3].ends_with("  0  all"), "{text}");
        assert!(lines[4].ends_with("  0  1, 2, 3 (+2 more)"), "{text}");
        assert!(!text.contains('\u{1b}'), "{text}");
    }

    #[test]
    fn a_coloured_table_colours_only_counts_above_zero_and_keeps_its_columns() {
        let results = [submission("ann", &[("a", Verdict::Pass), ("b", Verdict::Wrong)])];
        let (mut plain, mut coloured) = (Vec::new(), Vec::new());
        table(&results, &mut plain).unwrap();
        table_in_colour(&results, true, &mut coloured).unwrap();
        let coloured = String::from_utf8(coloured).unwrap();
        assert!(coloured.contains("\u{1b}[32m"), "pass in green: {coloured:?}");
        assert!(coloured.contains("\u{1b}[31m"), "wrong in red: {coloured:?}");
        assert!(!coloured.contains("\u{1b}[33m"), "no limit reached, no yellow: {coloured:?}");
        // Without its escapes, the same table.
        let mut stripped = String::new();
        let mut rest = coloured.as_str();
        while let Some(at) = rest.find('\u{1b}') {
            stripped.push_str(&rest[..at]);
            rest = &rest[at + rest[at..].find('m').unwrap() + 1..];
        }
        stripped.push_str(rest);
        assert_eq!(stripped, String::from_utf8(plain).unwrap());
    }
}
