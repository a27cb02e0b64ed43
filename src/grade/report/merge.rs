//! `merge`: the parts of a split grading (`grade --partition`), each a
//! report directory with its `part.json`, put back together into what one
//! machine grading the whole class would have written — the same files,
//! byte for byte, but for the times the runs took.
//!
//! Every part is checked before anything is written: each is read whole
//! (`part.json`, and its `results.json` must be the one its record
//! writes), all have one fingerprint and one partition, parts 1 to N are
//! each there once, each holds exactly the submissions the partition deals
//! it, fully graded, and all were graded under the same protections.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::io::{self, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;

use rayon::prelude::*;

use super::ReportError;
use super::files::fresh_dir;
use super::formats::{self, JsonStream, JunitTotals, Row};
use super::games::GameFiles;
use super::part::{PART_FILE, PART_VERSION, PartHeader, PartReader};
use crate::grade::result::SubmissionResult;
use crate::outcome::Limits;
use crate::output::{Durability, Staged};
use crate::spreadsheet::CsvTable;
use crate::text::inert;

/// Why parts cannot be merged. Each names the directories concerned.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// No part was given.
    #[error("no parts to merge: give every part's report directory")]
    NoParts,
    /// A part's `part.json` cannot be read.
    #[error(
        "{}: not a part of a split grading: cannot read {PART_FILE} ({source}); a part is the --report directory of `grade --partition`, written when its grading ended",
        .dir.display()
    )]
    Unreadable {
        /// The part's directory.
        dir: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A part's `part.json` is not one this version reads.
    #[error("{}: corrupt: {why}", .path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// A part's `results.json` is not the one its `part.json` writes.
    #[error(
        "{}: corrupt: it is not the results.json of this part's {PART_FILE} (changed or cut short since the part was graded)",
        .path.display()
    )]
    Results {
        /// The file.
        path: PathBuf,
    },
    /// Two parts of different gradings.
    #[error(
        "{} and {} are parts of two different gradings (their {} differ): merge only the parts of one `grade --partition` run, each given the same tests, options, --seed and class",
        .first.display(), .other.display(), .differ.join(", ")
    )]
    TwoGradings {
        /// The first part given.
        first: PathBuf,
        /// A part of another grading.
        other: PathBuf,
        /// What differs: `tests`, `options`, `class`, or `partition`.
        differ: Vec<&'static str>,
    },
    /// One part given twice (or graded twice).
    #[error("part {part} of {of} is given twice: {} and {}", .first.display(), .second.display())]
    PartTwice {
        /// The part.
        part: u32,
        /// How many parts.
        of: u32,
        /// Where it was first.
        first: PathBuf,
        /// Where it was again.
        second: PathBuf,
    },
    /// Parts are missing.
    #[error(
        "{} of {of} missing: every part of the grading must be merged, or merge --allow-partial for reports marked partial",
        parts_missing(.missing)
    )]
    PartsMissing {
        /// The parts missing.
        missing: Vec<u32>,
        /// How many parts.
        of: u32,
    },
    /// A part whose grading was interrupted.
    #[error(
        "{}: its grading was stopped before these submissions were graded: {}; run that part again, or merge --allow-partial for reports marked partial",
        .dir.display(), .names.join(", ")
    )]
    NotGraded {
        /// The part's directory.
        dir: PathBuf,
        /// The submissions not graded (made inert).
        names: Vec<String>,
    },
    /// A part holds a submission its partition does not deal it, or one
    /// twice, or lacks one it deals it.
    #[error("{}: {what} `{name}`", .dir.display())]
    Submission {
        /// The part's directory.
        dir: PathBuf,
        /// What is wrong: `holds a submission of another part`, ….
        what: &'static str,
        /// The submission (made inert).
        name: String,
    },
    /// Parts graded under different protections.
    #[error(
        "{} and {} were graded under different protections (their part.json's `protections` differ); one report says one set: grade every part on machines set up alike",
        .first.display(), .other.display()
    )]
    Protections {
        /// The first part given.
        first: PathBuf,
        /// A part with others.
        other: PathBuf,
    },
    /// A merged report cannot be written.
    #[error(transparent)]
    Write(#[from] ReportError),
    /// The output directory is one of the parts.
    #[error("{}: is one of the parts; write the merged report elsewhere", .dir.display())]
    OutputIsAPart {
        /// The directory.
        dir: PathBuf,
    },
}

/// Protections as parts compare them: the unused user a root grader's
/// runs get is another for each grading (`as an unused user (1900012345)`),
/// and only its number may differ.
fn alike(protections: &str) -> String {
    const USER: &str = "unused user (";
    let mut text = String::with_capacity(protections.len());
    let mut rest = protections;
    while let Some(at) = rest.find(USER) {
        let (before, after) = rest.split_at(at + USER.len());
        text.push_str(before);
        rest = after.trim_start_matches(|c: char| c.is_ascii_digit());
    }
    text.push_str(rest);
    text
}

/// `part 2` or `parts 2, 5`.
fn parts_missing(missing: &[u32]) -> String {
    let list: Vec<String> = missing.iter().map(u32::to_string).collect();
    format!("part{} {}", if missing.len() == 1 { "" } else { "s" }, list.join(", "))
}

/// The parts of one grading, checked, put together and written.
#[derive(Debug)]
pub struct Merged {
    /// How many parts.
    pub parts: u32,
    /// The parts not given (`--allow-partial`).
    pub missing_parts: Vec<u32>,
    /// Every submission graded, in the grading's order, as the terminal's
    /// table shows it.
    pub rows: Vec<Row>,
    /// With `--allow-partial`, the class's submissions no part graded.
    pub not_graded: Vec<String>,
    /// Whether every test of every submission graded passed.
    pub all_passed: bool,
}

/// Reads a part's record from `dir`, and checks its `results.json` is the
/// one it writes: the whole file at once, as the merge read parts before it
/// streamed them. Used only for what is wrong with a part the streaming
/// reader cannot follow, so that `serde_json` says it in its own words.
fn whole_part_error(dir: &Path) -> MergeError {
    /// The version alone, read before the rest (whose shape it decides)
    /// without building the whole file as a tree of values.
    #[derive(serde::Deserialize)]
    struct Versioned {
        version: Option<serde_json::Value>,
    }
    let path = dir.join(PART_FILE);
    let bytes = match fs::read(&path) {
        Ok(bytes) => bytes,
        Err(source) => return MergeError::Unreadable { dir: dir.to_owned(), source },
    };
    let corrupt = |why: String| MergeError::Corrupt { path: path.clone(), why };
    let version = match serde_json::from_slice::<Versioned>(&bytes) {
        Ok(versioned) => versioned.version.as_ref().and_then(serde_json::Value::as_u64),
        Err(e) => return corrupt(e.to_string()),
    };
    if version != Some(u64::from(PART_VERSION)) {
        return corrupt(format!(
            "version {} where this ttt-referee reads version {PART_VERSION}: merge with the ttt-referee that graded the parts",
            version.map_or_else(|| "missing".to_owned(), |v| v.to_string())
        ));
    }
    match serde_json::from_slice::<super::part::PartRecord>(&bytes) {
        Err(e) => corrupt(e.to_string()),
        // Read whole, it is sound: then it is the results.json that is not
        // (read at once, it can only be cut short or changed meanwhile).
        Ok(_) => MergeError::Results { path: dir.join("results.json") },
    }
}

/// A part's `results.json` compared, a piece at a time, with what its
/// `part.json`'s results write: each write must be the file's next bytes.
struct SameAs {
    /// The file (none once its check has ended).
    file: Option<io::BufReader<fs::File>>,
    buf: Vec<u8>,
}

impl io::Write for SameAs {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let file = self.file.as_mut().ok_or_else(|| io::Error::other("ended"))?;
        self.buf.resize(bytes.len(), 0);
        io::Read::read_exact(file, &mut self.buf)?;
        if self.buf != bytes {
            return Err(io::Error::other("differs"));
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl SameAs {
    /// Whether the file has no more.
    fn at_end(&mut self) -> bool {
        self.file.as_mut().is_some_and(|file| io::Read::read(file, &mut [0u8; 1]).is_ok_and(|n| n == 0))
    }
}

/// One part being merged.
struct Opened {
    dir: PathBuf,
    header: PartHeader,
    /// Its submissions an interruption left ungraded.
    not_graded: HashSet<String>,
    /// Where its results come from.
    source: Source,
    /// Its result read and not yet merged, and its element of results.json.
    pending: Option<(SubmissionResult, Vec<u8>)>,
    /// Whether it has no more (or failed).
    ended: bool,
}

/// Where a part's results come from: read ahead on a thread of its own
/// (parsing, and checking its results.json, while the merge writes), or
/// read here when no thread could be made (or before it is started).
enum Source {
    Here(Box<Reading>),
    Ahead(mpsc::Receiver<Step>),
    Done,
}

/// A part's `part.json` being read, and its `results.json` checked against
/// it.
struct Reading {
    dir: PathBuf,
    reader: PartReader,
    /// Its results.json's check (none once ended).
    check: Option<JsonStream<SameAs>>,
}

/// A part's next result read: the result and its element of
/// results.json, or what is wrong with the part.
enum Step {
    Result(SubmissionResult, Vec<u8>),
    Failed(MergeError),
}

/// How many results a part's thread reads ahead of the merge.
const AHEAD: usize = 16;

impl Reading {
    /// The next result, checked against results.json; `None` after the
    /// last, once results.json is found to end there too.
    fn step(&mut self) -> Option<Step> {
        let results = || MergeError::Results { path: self.dir.join("results.json") };
        match self.reader.next_result() {
            None => {
                let ended = self
                    .check
                    .take()
                    .and_then(|check| check.finish().ok())
                    .is_some_and(|mut same| same.at_end());
                (!ended).then(|| Step::Failed(results()))
            }
            Some(None) => Some(Step::Failed(whole_part_error(&self.dir))),
            Some(Some(stored)) => {
                let r = SubmissionResult::from(stored);
                Some(match formats::json_element(&r) {
                    Ok(element) if self.check.as_mut().is_some_and(|check| check.push(&element).is_ok()) => {
                        Step::Result(r, element)
                    }
                    _ => Step::Failed(results()),
                })
            }
        }
    }
}

impl Opened {
    /// `dir`'s part: its header read, its results.json's head checked.
    fn open(dir: &Path) -> Result<Opened, MergeError> {
        let path = dir.join(PART_FILE);
        let file =
            fs::File::open(&path).map_err(|source| MergeError::Unreadable { dir: dir.to_owned(), source })?;
        let reader = PartReader::open(file).ok_or_else(|| whole_part_error(dir))?;
        let header = reader.header.clone();
        let results_path = dir.join("results.json");
        let bad = || MergeError::Results { path: results_path.clone() };
        let written = fs::File::open(&results_path).map_err(|_| bad())?;
        let same = SameAs { file: Some(io::BufReader::with_capacity(1 << 16, written)), buf: Vec::new() };
        let check = JsonStream::begin(&header.limits, header.seed, !header.not_graded.is_empty(), same)
            .map_err(|_| bad())?;
        let not_graded = header.not_graded.iter().cloned().collect();
        let reading = Reading { dir: dir.to_owned(), reader, check: Some(check) };
        Ok(Opened {
            dir: dir.to_owned(),
            header,
            not_graded,
            source: Source::Here(Box::new(reading)),
            pending: None,
            ended: false,
        })
    }

    /// Starts reading its results ahead, on a thread of its own (if one
    /// can be made).
    fn start(&mut self) {
        let Source::Here(_) = self.source else { return };
        let Source::Here(mut reading) = std::mem::replace(&mut self.source, Source::Done) else { return };
        let (send, receive) = mpsc::sync_channel(AHEAD);
        let spawned = std::thread::Builder::new().name("merge-part".to_owned()).spawn(move || {
            while let Some(step) = reading.step() {
                let failed = matches!(step, Step::Failed(_));
                if send.send(step).is_err() || failed {
                    return;
                }
            }
        });
        self.source = match spawned {
            Ok(_) => Source::Ahead(receive),
            // No thread (what was to be read on it is gone with it): the
            // part is opened again and read here.
            Err(_) => Opened::open(&self.dir).map_or(Source::Done, |again| again.source),
        };
    }

    /// Its next result, read if need be (and left pending).
    fn peek(&mut self) -> Result<Option<&SubmissionResult>, MergeError> {
        if self.pending.is_none() && !self.ended {
            let step = match &mut self.source {
                Source::Here(reading) => reading.step(),
                Source::Ahead(receive) => receive.recv().ok(),
                Source::Done => None,
            };
            match step {
                Some(Step::Result(r, element)) => self.pending = Some((r, element)),
                Some(Step::Failed(error)) => {
                    self.ended = true;
                    return Err(error);
                }
                None => self.ended = true,
            }
        }
        Ok(self.pending.as_ref().map(|(r, _)| r))
    }
}

/// The merged reports being written: each staged beside its file (invisible
/// until all are committed, after the last check), `junit.xml`'s suites and
/// `report.html`'s sections spooled to unnamed files until their heads,
/// which count every submission, can be written.
struct Writing {
    dir: PathBuf,
    csv: CsvTable<Staged>,
    json: JsonStream<Staged>,
    junit: io::BufWriter<fs::File>,
    totals: JunitTotals,
    html: io::BufWriter<fs::File>,
    games: GameFiles,
    rows: Vec<Row>,
}

impl Writing {
    fn new(
        dir: &Path,
        tests: &[String],
        limits: &Limits,
        seed: Option<u64>,
        partial: bool,
    ) -> io::Result<Writing> {
        let staged = |name: &str| Staged::replacing(&dir.join(name), Durability::Synced);
        let spool = || tempfile::tempfile_in(dir).map(|file| io::BufWriter::with_capacity(1 << 16, file));
        Ok(Writing {
            dir: dir.to_owned(),
            csv: formats::csv_head(tests, staged("grades.csv")?)?,
            json: JsonStream::begin(limits, seed, partial, staged("results.json")?)?,
            junit: spool()?,
            totals: JunitTotals::default(),
            html: spool()?,
            games: GameFiles::default(),
            rows: Vec::new(),
        })
    }

    /// Writes `r`, its result's element of results.json `element`.
    fn push(&mut self, r: &SubmissionResult, element: &[u8]) -> io::Result<()> {
        let index = self.rows.len();
        formats::csv_row(&mut self.csv, r)?;
        self.json.push(element)?;
        self.totals.add(r);
        self.junit.write_all(&formats::junit_suite_text(r)?)?;
        self.games.add(index, r);
        formats::html_section(index, r, &self.games, &mut self.html)?;
        self.rows.push(Row::of(r));
        Ok(())
    }

    /// Writes the heads and ends, and puts every file in place, in the
    /// order [`ReportDir`](super::ReportDir) writes them.
    fn commit(
        self,
        protections: &str,
        seed: Option<u64>,
        not_graded: &[String],
    ) -> Result<Vec<Row>, ReportError> {
        let Writing { dir, csv, json, junit, totals, html, games, rows } = self;
        let at = |name: &str| {
            let path = dir.join(name);
            move |source| ReportError { path: Some(path), source }
        };
        csv.into_inner().and_then(Staged::commit).map_err(at("grades.csv"))?;
        json.finish().and_then(Staged::commit).map_err(at("results.json"))?;
        let spooled = |spool: io::BufWriter<fs::File>| -> io::Result<fs::File> {
            let mut file = spool.into_inner().map_err(io::IntoInnerError::into_error)?;
            file.seek(SeekFrom::Start(0))?;
            Ok(file)
        };
        let junit_path = dir.join("junit.xml");
        (|| {
            let mut out = Staged::replacing(&junit_path, Durability::Synced)?;
            if rows.is_empty() {
                formats::junit(&[], &mut out)?;
            } else {
                formats::junit_head(&totals, &mut out)?;
                io::copy(&mut spooled(junit)?, &mut out)?;
                formats::junit_tail(&mut out)?;
            }
            out.commit()
        })()
        .map_err(at("junit.xml"))?;
        games.write(&dir)?;
        let html_path = dir.join("report.html");
        (|| {
            let mut out = Staged::replacing(&html_path, Durability::Synced)?;
            formats::html_head(&rows, protections, seed, not_graded, &mut out)?;
            io::copy(&mut spooled(html)?, &mut out)?;
            formats::html_tail(&mut out)?;
            out.commit()
        })()
        .map_err(at("report.html"))?;
        Ok(rows)
    }
}

/// Makes `dir` and any directory above it missing; returns those it made,
/// the outermost first.
fn make_dirs(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut missing = Vec::new();
    let mut at = Some(dir);
    while let Some(path) = at.filter(|p| !p.as_os_str().is_empty() && !p.exists()) {
        missing.push(path.to_owned());
        at = path.parent();
    }
    missing.reverse();
    fs::create_dir_all(dir)?;
    Ok(missing)
}

/// Checks the parts' headers: one grading, one partition, each part once,
/// none missing or interrupted unless `partial`. Gives the first part's
/// header and the parts missing.
fn check(parts: &[Opened], partial: bool) -> Result<(PartHeader, Vec<u32>), MergeError> {
    let first_dir = parts[0].dir.clone();
    let first = parts[0].header.clone();
    let of = first.partition.of;
    let mut given: HashMap<u32, &Path> = HashMap::new();
    for Opened { dir, header: part, .. } in parts {
        let mut differ = first.fingerprint.differences(&part.fingerprint);
        if (part.partition.scheme, part.partition.of) != (first.partition.scheme, of) {
            differ.push("partition");
        }
        if !differ.is_empty() {
            return Err(MergeError::TwoGradings { first: first_dir.clone(), other: dir.clone(), differ });
        }
        // Equal fingerprints and one version: these come from the same plan.
        if (&part.tests, part.limits, part.seed, &part.class)
            != (&first.tests, first.limits, first.seed, &first.class)
        {
            return Err(MergeError::TwoGradings {
                first: first_dir.clone(),
                other: dir.clone(),
                differ: vec!["records"],
            });
        }
        if alike(&part.protections) != alike(&first.protections) {
            return Err(MergeError::Protections { first: first_dir.clone(), other: dir.clone() });
        }
        if let Some(earlier) = given.insert(part.partition.part, dir) {
            return Err(MergeError::PartTwice {
                part: part.partition.part,
                of,
                first: earlier.to_owned(),
                second: dir.clone(),
            });
        }
    }
    let missing: Vec<u32> = (1..=of).filter(|k| !given.contains_key(k)).collect();
    if !missing.is_empty() && !partial {
        return Err(MergeError::PartsMissing { missing, of });
    }
    if !partial && let Some(part) = parts.iter().find(|p| !p.not_graded.is_empty()) {
        let names = part.header.not_graded.iter().map(|n| inert(n).into_owned()).collect();
        return Err(MergeError::NotGraded { dir: part.dir.clone(), names });
    }
    Ok((first, missing))
}

/// Reads and checks the parts in `dirs` (in any order), and writes into
/// `out` (which must not be one of them) what one machine grading the whole
/// class would have written there: `grades.csv`, `results.json`,
/// `junit.xml`, `report.html` (as [`ReportDir`](super::ReportDir) writes them). The parts'
/// results are read in the class's order, a result at a time from each
/// part (every part holds its own in that order), and each is written into
/// every report as it is read, then dropped: what is held is a row a
/// submission for the table and the page's overview, and the failing
/// games' move files. With `partial` (`--allow-partial`), a part may be
/// missing or interrupted: the submissions no part graded are then said
/// not graded, and the reports are marked partial.
///
/// # Errors
/// The first thing found wrong ([`MergeError`]); nothing is written (the
/// reports are staged and put in place only once every part is read and
/// found sound).
pub fn merge(dirs: &[PathBuf], out: &Path, partial: bool) -> Result<Merged, MergeError> {
    if dirs.is_empty() {
        return Err(MergeError::NoParts);
    }
    for dir in dirs {
        if same_file::is_same_file(dir, out).unwrap_or(false) {
            return Err(MergeError::OutputIsAPart { dir: out.to_owned() });
        }
    }
    // Opened on every core: each a pass over its part.json.
    let opened: Vec<Result<Opened, MergeError>> = dirs.par_iter().map(|dir| Opened::open(dir)).collect();
    let mut parts: Vec<Opened> = opened.into_iter().collect::<Result<_, _>>()?;
    let (first, missing) = check(&parts, partial)?;
    // Part 1's words, whatever order the parts were given in.
    let protections = parts
        .iter()
        .find(|p| p.header.partition.part == 1)
        .map_or_else(String::new, |p| p.header.protections.clone());
    let class = &first.class;
    let deal = first.partition;
    let by_part: HashMap<u32, usize> =
        parts.iter().enumerate().map(|(n, p)| (p.header.partition.part, n)).collect();
    // Marked partial when any submission of the class is not graded: known
    // before any result is read (a part's results and its not_graded are
    // checked apart below).
    let is_partial = class.iter().enumerate().any(|(i, name)| {
        by_part.get(&deal.part_of(i, name)).is_none_or(|&n| parts[n].not_graded.contains(name))
    });
    parts.iter_mut().for_each(Opened::start);
    let held_reports = fs::read_dir(out).is_ok_and(|mut entries| entries.next().is_some());
    let fresh = is_partial && held_reports;
    let written =
        |source, path: &Path| MergeError::Write(ReportError { path: Some(path.to_owned()), source });
    let (dir, made) = if fresh {
        let dir = fresh_dir(out).map_err(|source| written(source, out))?;
        (dir.clone(), vec![dir])
    } else {
        (out.to_owned(), make_dirs(out).map_err(|source| written(source, out))?)
    };
    let walked = (|| {
        let mut writing = Writing::new(&dir, &first.tests, &first.limits, first.seed, is_partial)
            .map_err(|source| written(source, &dir))?;
        let index: HashMap<&str, usize> = class.iter().enumerate().map(|(i, n)| (n.as_str(), i)).collect();
        let mut not_graded = Vec::new();
        let mut graded = vec![false; class.len()];
        for (i, name) in class.iter().enumerate() {
            let Some(&n) = by_part.get(&deal.part_of(i, name)) else {
                not_graded.push(name.clone());
                continue;
            };
            let part = &mut parts[n];
            let next = part.peek()?.map(|r| r.submission.clone());
            match next {
                Some(got) if got == *name => {
                    let Some((r, element)) = part.pending.take() else { continue };
                    if part.not_graded.contains(name) {
                        return Err(both(part, name));
                    }
                    writing.push(&r, &element).map_err(|source| written(source, &dir))?;
                    graded[i] = true;
                }
                _ if part.not_graded.contains(name) => not_graded.push(name.clone()),
                Some(got) => return Err(misplaced(part, &got, Some(name), &index, &graded)),
                // Its results.json was found to end there too.
                None => return Err(misplaced(part, name, Some(name), &index, &graded)),
            }
        }
        for part in &mut parts {
            if let Some(got) = part.peek()?.map(|r| r.submission.clone()) {
                return Err(misplaced(part, &got, None, &index, &graded));
            }
        }
        Ok((writing, not_graded))
    })();
    let committed = walked.and_then(|(writing, not_graded)| {
        writing
            .commit(&protections, first.seed, &not_graded)
            .map(|rows| (rows, not_graded))
            .map_err(MergeError::Write)
    });
    let (rows, not_graded) = match committed {
        Ok(done) => done,
        Err(error) => {
            for made in made.iter().rev() {
                let _ = fs::remove_dir(made);
            }
            return Err(error);
        }
    };
    if fresh {
        let _ = writeln!(
            io::stderr(),
            "ttt-referee: interrupted: {} is left as it was; the partial reports are in {}",
            inert(&out.display().to_string()),
            inert(&dir.display().to_string())
        );
    }
    let all_passed = rows.iter().all(Row::all_passed);
    Ok(Merged { parts: first.partition.of, missing_parts: missing, rows, not_graded, all_passed })
}

/// A part's result `name` that its `part.json` also says was not graded.
fn both(part: &Opened, name: &str) -> MergeError {
    MergeError::Corrupt {
        path: part.dir.join(PART_FILE),
        why: format!("`{}` is both among its results and among those not graded", inert(name)),
    }
}

/// What is wrong with `part` holding the submission `got` where the class's
/// order wants `expected` (or nothing more, `None`); `graded` says which of
/// the class are merged already.
fn misplaced(
    part: &Opened,
    got: &str,
    expected: Option<&String>,
    index: &HashMap<&str, usize>,
    graded: &[bool],
) -> MergeError {
    let wrong = |what, name: &str| MergeError::Submission {
        dir: part.dir.clone(),
        what,
        name: inert(name).into_owned(),
    };
    match index.get(got) {
        None => wrong("holds a submission not in the class", got),
        Some(&j) if part.header.partition.part_of(j, got) != part.header.partition.part => {
            wrong("holds a submission of another part", got)
        }
        Some(&j) if graded[j] => wrong("holds twice the submission", got),
        Some(_) if part.not_graded.contains(got) => both(part, got),
        Some(_) => wrong("lacks the submission", expected.map_or(got, String::as_str)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protections_differ_only_in_the_unused_users_number() {
        let one = "  in force  no capabilities, as an unused user (1900014175) outside\n  in force  x\n";
        let two = "  in force  no capabilities, as an unused user (1900015121) outside\n  in force  x\n";
        assert_eq!(alike(one), alike(two));
        assert_eq!(alike(one), "  in force  no capabilities, as an unused user () outside\n  in force  x\n");
        assert_ne!(
            alike(one),
            alike("  MISSING   no capabilities, as an unused user (1) outside\n  in force  x\n")
        );
    }
}
