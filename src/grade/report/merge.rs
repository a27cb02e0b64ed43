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

use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::part::{PART_FILE, PART_VERSION, PartRecord};
use super::{Grading, ReportDir, ReportError, Sink, formats};
use crate::grade::result::{Graded, SubmissionResult};
use crate::outcome::Limits;
use crate::partition::Partition;
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

/// The parts of one grading, checked and put together.
#[derive(Debug)]
pub struct Merged {
    /// The tests' names, in report order.
    pub tests: Vec<String>,
    /// The limits of each test run.
    pub limits: Limits,
    /// The grading's seed, when any of it came from one.
    pub seed: Option<u64>,
    /// The protections every part was graded under.
    pub protections: String,
    /// How many parts.
    pub parts: u32,
    /// The parts not given (`--allow-partial`).
    pub missing_parts: Vec<u32>,
    /// Every submission's result, in the grading's order; with
    /// `--allow-partial`, the class's submissions no part graded too.
    pub graded: Graded,
}

/// Reads a part's record from `dir`, and checks its `results.json` is the
/// one it writes.
fn read_part(dir: &Path) -> Result<(PartRecord, Vec<SubmissionResult>), MergeError> {
    /// The version alone, read before the rest (whose shape it decides)
    /// without building the whole file as a tree of values.
    #[derive(serde::Deserialize)]
    struct Versioned {
        version: Option<serde_json::Value>,
    }
    let path = dir.join(PART_FILE);
    let bytes = fs::read(&path).map_err(|source| MergeError::Unreadable { dir: dir.to_owned(), source })?;
    let corrupt = |why: String| MergeError::Corrupt { path: path.clone(), why };
    let version = serde_json::from_slice::<Versioned>(&bytes)
        .map_err(|e| corrupt(e.to_string()))?
        .version
        .as_ref()
        .and_then(serde_json::Value::as_u64);
    if version != Some(u64::from(PART_VERSION)) {
        return Err(corrupt(format!(
            "version {} where this ttt-referee reads version {PART_VERSION}: merge with the ttt-referee that graded the parts",
            version.map_or_else(|| "missing".to_owned(), |v| v.to_string())
        )));
    }
    let mut record: PartRecord = serde_json::from_slice(&bytes).map_err(|e| corrupt(e.to_string()))?;
    drop(bytes);
    let results_path = dir.join("results.json");
    let written = fs::read(&results_path).map_err(|_| MergeError::Results { path: results_path.clone() })?;
    let results: Vec<SubmissionResult> =
        std::mem::take(&mut record.results).into_iter().map(SubmissionResult::from).collect();
    let mut expected = Vec::new();
    formats::json(&results, &record.limits, record.seed, !record.not_graded.is_empty(), &mut expected)
        .map_err(|e| corrupt(e.to_string()))?;
    if written != expected {
        return Err(MergeError::Results { path: results_path });
    }
    Ok((record, results))
}

/// Reads and checks the parts in `dirs` (in any order), and puts them
/// together; `out`, where the merged reports go, must not be one of them.
/// With `partial` (`--allow-partial`), a part may be missing or
/// interrupted: the submissions no part graded are then the merged
/// grading's `not_graded`, and its reports are marked partial.
///
/// # Errors
/// The first thing found wrong ([`MergeError`]); nothing is written.
pub fn merge(dirs: &[PathBuf], out: &Path, partial: bool) -> Result<Merged, MergeError> {
    if dirs.is_empty() {
        return Err(MergeError::NoParts);
    }
    for dir in dirs {
        if same_file::is_same_file(dir, out).unwrap_or(false) {
            return Err(MergeError::OutputIsAPart { dir: out.to_owned() });
        }
    }
    let parts: Vec<(PathBuf, PartRecord, Vec<SubmissionResult>)> = dirs
        .iter()
        .map(|dir| read_part(dir).map(|(record, results)| (dir.clone(), record, results)))
        .collect::<Result<_, _>>()?;
    let (first_dir, first, _) = &parts[0];
    let of = first.partition.of;
    let mut given: HashMap<u32, &Path> = HashMap::new();
    for (dir, part, _) in &parts {
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
    let (tests, limits, seed, class) = (first.tests.clone(), first.limits, first.seed, first.class.clone());
    // Part 1's words, whatever order the parts were given in.
    let protections = parts
        .iter()
        .find(|(_, p, _)| p.partition.part == 1)
        .map_or_else(String::new, |(_, p, _)| p.protections.clone());
    let class = &class;
    let index: HashMap<&str, usize> = class.iter().enumerate().map(|(i, n)| (n.as_str(), i)).collect();
    let mut slots: Vec<Option<SubmissionResult>> = vec![None; class.len()];
    for (dir, part, results) in parts {
        if !part.not_graded.is_empty() && !partial {
            let names = part.not_graded.iter().map(|n| inert(n).into_owned()).collect();
            return Err(MergeError::NotGraded { dir, names });
        }
        let wrong = |what, name: &str| MergeError::Submission {
            dir: dir.clone(),
            what,
            name: inert(name).into_owned(),
        };
        for result in results {
            let name = result.submission.clone();
            let Some(&i) = index.get(name.as_str()) else {
                return Err(wrong("holds a submission not in the class", &name));
            };
            if part.partition.part_of(i, &name) != part.partition.part {
                return Err(wrong("holds a submission of another part", &name));
            }
            if slots[i].replace(result).is_some() {
                return Err(wrong("holds twice the submission", &name));
            }
        }
        let own = Partition { part: part.partition.part, ..part.partition };
        if let Some(lacking) = class.iter().enumerate().find(|(i, name)| {
            own.part_of(*i, name) == own.part && slots[*i].is_none() && !part.not_graded.contains(*name)
        }) {
            return Err(wrong("lacks the submission", lacking.1));
        }
    }
    let not_graded: Vec<String> =
        class.iter().zip(&slots).filter(|(_, slot)| slot.is_none()).map(|(name, _)| name.clone()).collect();
    let results: Vec<SubmissionResult> = slots.into_iter().flatten().collect();
    Ok(Merged {
        tests,
        limits,
        seed,
        protections,
        parts: of,
        missing_parts: missing,
        graded: Graded { results, not_graded },
    })
}

impl Merged {
    /// Writes the reports one machine grading the whole class would have
    /// written into `dir` (`--report DIR`): `grades.csv`, `results.json`,
    /// `junit.xml`, `report.html`, through the same sink.
    ///
    /// # Errors
    /// When a file cannot be written.
    pub fn write(&self, dir: &Path) -> Result<(), ReportError> {
        let mut report = ReportDir::new(dir.to_owned());
        report.begin(&Grading {
            tests: &self.tests,
            submissions: self.graded.results.len(),
            limits: &self.limits,
            protections: &self.protections,
            seed: self.seed,
        });
        report.finish(&self.graded)
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
