//! The reports a grading writes when it is over: the terminal's table
//! ([`Table`]) and the report directory ([`ReportDir`]), with a bot's
//! failing games beside it ([`GameFiles`]).

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::games::GameFiles;
use super::part::{PART_FILE, Part, PartRecord};
use super::{Grading, ReportError, Sink, formats, write_file};
use crate::grade::result::Graded;
use crate::outcome::Limits;

/// The table on standard output: a row per submission graded, its
/// verdict counts in colour if `colour` (`--color`).
#[derive(Debug, Default)]
pub struct Table {
    /// Whether verdict counts are coloured.
    pub colour: bool,
}

impl Sink for Table {
    /// The table, then for a stopped grading a line saying it is partial.
    fn finish(&mut self, graded: &Graded) -> Result<(), ReportError> {
        let mut stdout = io::stdout().lock();
        formats::table_in_colour(&graded.results, self.colour, &mut stdout)
            .and_then(|()| {
                if graded.not_graded.is_empty() {
                    return Ok(());
                }
                writeln!(
                    stdout,
                    "partial: interrupted; {} of {} submissions graded",
                    graded.results.len(),
                    graded.results.len() + graded.not_graded.len()
                )
            })
            .and_then(|()| stdout.flush())
            .map_err(|source| ReportError { path: None, source })
    }
}

/// `--report DIR`: `grades.csv`, `results.json`, `junit.xml` and
/// `report.html`, each written whole, and each failing game as
/// `games/SUBMISSION/TEST.txt`; for a part of a split grading
/// ([`ReportDir::part`]), `part.json` too, last.
///
/// A stopped grading's reports are marked partial, and never replace
/// reports that were in DIR when the grading began: they then go into a
/// fresh directory beside it, `DIR.partial` (or `DIR.partial-2`, ...).
#[derive(Debug)]
pub struct ReportDir {
    dir: PathBuf,
    /// Whether DIR held anything when the grading began.
    held_reports: bool,
    tests: Vec<String>,
    limits: Option<Limits>,
    protections: String,
    seed: Option<u64>,
    part: Option<Part>,
}

impl ReportDir {
    /// The reports of a grading, to be written into `dir` (made if need be).
    #[must_use]
    pub fn new(dir: PathBuf) -> ReportDir {
        ReportDir {
            dir,
            held_reports: false,
            tests: Vec::new(),
            limits: None,
            protections: String::new(),
            seed: None,
            part: None,
        }
    }

    /// The reports of `part` of a split grading: `part.json` is written
    /// after the others, for `merge`.
    #[must_use]
    pub fn part(mut self, part: Part) -> ReportDir {
        self.part = Some(part);
        self
    }
}

impl Sink for ReportDir {
    fn begin(&mut self, grading: &Grading<'_>) {
        self.tests = grading.tests.to_vec();
        self.limits = Some(*grading.limits);
        grading.protections.clone_into(&mut self.protections);
        self.seed = grading.seed;
        self.held_reports = fs::read_dir(&self.dir).is_ok_and(|mut entries| entries.next().is_some());
    }

    fn finish(&mut self, graded: &Graded) -> Result<(), ReportError> {
        let results = &graded.results;
        let partial = !graded.not_graded.is_empty();
        let dir = if partial && self.held_reports {
            let fresh = fresh_dir(&self.dir)
                .map_err(|source| ReportError { path: Some(self.dir.clone()), source })?;
            let _ = writeln!(
                io::stderr(),
                "ttt-referee: interrupted: {} is left as it was; the partial reports are in {}",
                crate::text::inert(&self.dir.display().to_string()),
                crate::text::inert(&fresh.display().to_string())
            );
            fresh
        } else {
            self.dir.clone()
        };
        let dir = &dir;
        fs::create_dir_all(dir).map_err(|source| ReportError { path: Some(dir.clone()), source })?;
        let limits = self.limits.unwrap_or(crate::grade::TEST_LIMITS);
        write_file(&dir.join("grades.csv"), |out| formats::csv(results, &self.tests, out))?;
        write_file(&dir.join("results.json"), |out| {
            formats::json(results, &limits, self.seed, partial, out)
        })?;
        write_file(&dir.join("junit.xml"), |out| formats::junit(results, out))?;
        let games = GameFiles::of(results);
        games.write(dir)?;
        write_file(&dir.join("report.html"), |out| {
            formats::html_page(results, &self.protections, self.seed, &graded.not_graded, &games, out)
        })?;
        if let Some(part) = &self.part {
            let record = PartRecord::new(
                part,
                &self.tests,
                limits,
                self.seed,
                &self.protections,
                results,
                &graded.not_graded,
            );
            write_file(&dir.join(PART_FILE), |out| {
                serde_json::to_writer(&mut *out, &record)?;
                writeln!(out)
            })?;
        }
        Ok(())
    }
}

/// A directory beside `dir` made now, so no other grading's: `DIR.partial`,
/// or the first of `DIR.partial-2`, `DIR.partial-3`, ... not yet taken.
pub(super) fn fresh_dir(dir: &Path) -> io::Result<PathBuf> {
    let name = dir.file_name().map_or_else(|| "report".into(), |n| n.to_string_lossy().into_owned());
    let mut last = None;
    for n in 1..=1000 {
        let suffix = if n == 1 { String::new() } else { format!("-{n}") };
        let fresh = dir.with_file_name(format!("{name}.partial{suffix}"));
        match fs::create_dir(&fresh) {
            Ok(()) => return Ok(fresh),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::from(io::ErrorKind::AlreadyExists)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grade::result::{SubmissionResult, TestResult, Verdict};

    fn graded(not_graded: &[&str]) -> Graded {
        let tests = vec![TestResult::not_run("t1", Verdict::Pass, String::new())];
        Graded {
            results: vec![SubmissionResult::graded("ann".to_owned(), "C".to_owned(), None, tests)],
            not_graded: not_graded.iter().map(|n| (*n).to_owned()).collect(),
        }
    }

    fn report(dir: &Path, graded: &Graded) {
        let tests = ["t1".to_owned()];
        let grading = Grading {
            tests: &tests,
            submissions: graded.results.len() + graded.not_graded.len(),
            limits: &crate::grade::TEST_LIMITS,
            protections: "",
            seed: None,
        };
        let mut sink = ReportDir::new(dir.to_owned());
        sink.begin(&grading);
        sink.finish(graded).unwrap();
    }

    #[test]
    fn a_partial_grading_is_marked_and_never_replaces_earlier_reports() {
        let area = tempfile::tempdir().unwrap();
        let dir = area.path().join("report");

        // Into a new directory: there, marked partial.
        report(&dir, &graded(&["bo"]));
        let json = fs::read_to_string(dir.join("results.json")).unwrap();
        assert!(json.contains("\"partial\": true"), "{json}");
        let html = fs::read_to_string(dir.join("report.html")).unwrap();
        assert!(html.contains("Partial: ") && html.contains("1 of 2 submissions graded. Not graded: bo."));

        // A complete grading replaces it, and says nothing of partial.
        report(&dir, &graded(&[]));
        let complete = fs::read_to_string(dir.join("results.json")).unwrap();
        assert!(!complete.contains("partial"), "{complete}");
        assert!(!fs::read_to_string(dir.join("report.html")).unwrap().contains("Partial: "));

        // A partial grading beside a complete one: a fresh directory each time.
        report(&dir, &graded(&["bo"]));
        report(&dir, &graded(&["cy"]));
        assert_eq!(fs::read_to_string(dir.join("results.json")).unwrap(), complete);
        for fresh in ["report.partial", "report.partial-2"] {
            let json = fs::read_to_string(area.path().join(fresh).join("results.json")).unwrap();
            assert!(json.contains("\"partial\": true"), "{fresh}: {json}");
        }
    }
}
