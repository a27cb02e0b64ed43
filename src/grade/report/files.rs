//! The reports a grading writes when it is over: the terminal's table
//! ([`Table`]) and the report directory ([`ReportDir`]), with a bot's
//! failing games beside it ([`GameFiles`]).

use std::fs;
use std::io::{self, Write};
use std::path::PathBuf;

use super::games::GameFiles;
use super::part::{PART_FILE, Part, PartRecord};
use super::{Grading, ReportError, Sink, formats, write_file};
use crate::grade::result::Graded;
use crate::outcome::Limits;

/// The table on standard output: a row per submission graded.
#[derive(Debug, Default)]
pub struct Table;

impl Sink for Table {
    fn finish(&mut self, graded: &Graded) -> Result<(), ReportError> {
        let mut stdout = io::stdout().lock();
        formats::table(&graded.results, &mut stdout)
            .and_then(|()| stdout.flush())
            .map_err(|source| ReportError { path: None, source })
    }
}

/// `--report DIR`: `grades.csv`, `results.json`, `junit.xml` and
/// `report.html`, each written whole, and each failing game as
/// `games/SUBMISSION/TEST.txt`; for a part of a split grading
/// ([`ReportDir::part`]), `part.json` too, last.
#[derive(Debug)]
pub struct ReportDir {
    dir: PathBuf,
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
        ReportDir { dir, tests: Vec::new(), limits: None, protections: String::new(), seed: None, part: None }
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
    }

    fn finish(&mut self, graded: &Graded) -> Result<(), ReportError> {
        let (dir, results) = (&self.dir, &graded.results);
        fs::create_dir_all(dir).map_err(|source| ReportError { path: Some(dir.clone()), source })?;
        let limits = self.limits.unwrap_or(crate::grade::TEST_LIMITS);
        write_file(&dir.join("grades.csv"), |out| formats::csv(results, &self.tests, out))?;
        write_file(&dir.join("results.json"), |out| formats::json(results, &limits, self.seed, out))?;
        write_file(&dir.join("junit.xml"), |out| formats::junit(results, out))?;
        let games = GameFiles::of(results);
        games.write(dir)?;
        write_file(&dir.join("report.html"), |out| {
            formats::html_page(results, &self.protections, self.seed, &games, out)
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
