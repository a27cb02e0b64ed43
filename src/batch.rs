//! Refereeing many move files at once, in parallel, into an output directory,
//! with a summary of how the games ended. One bad file never stops the rest.

use std::collections::BTreeMap;
use std::fmt;
use std::fs::{self, File};
use std::io::{self, BufReader};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use thiserror::Error;

use crate::game::Outcome;
use crate::output::{Durability, Staged};
use crate::referee::{self, Format, Options, RefereeError, Report};

/// How a batch went: one count per ending, and how many files failed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Games won, by winning mark.
    pub wins: BTreeMap<char, u64>,
    /// Games that filled the board without a winner.
    pub cats: u64,
    /// Games whose moves ran out before the end.
    pub unfinished: u64,
    /// Files that could not be refereed (malformed, unreadable, unwritable).
    pub failed: u64,
}

impl Summary {
    /// Counts one refereed game.
    pub fn add(&mut self, report: &Report) {
        match report.game.outcome() {
            Some(Outcome::Win(player)) => {
                *self.wins.entry(report.game.players().get(player).mark.char()).or_default() += 1;
            }
            Some(Outcome::Cat) => self.cats += 1,
            None => self.unfinished += 1,
        }
    }

    /// How many files were counted.
    #[must_use]
    pub fn files(&self) -> u64 {
        self.wins.values().sum::<u64>() + self.cats + self.unfinished + self.failed
    }
}

impl fmt::Display for Summary {
    /// `12 files: 5 won by X, 4 won by O, 2 Cat, 1 unfinished, 0 failed`; X
    /// and O are always listed, other marks when they won.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let files = self.files();
        write!(f, "{files} file{}:", if files == 1 { "" } else { "s" })?;
        let x = self.wins.get(&'X').copied().unwrap_or(0);
        let o = self.wins.get(&'O').copied().unwrap_or(0);
        write!(f, " {x} won by X, {o} won by O,")?;
        for (mark, count) in self.wins.iter().filter(|(m, _)| !matches!(m, 'X' | 'O')) {
            write!(f, " {count} won by {mark},")?;
        }
        write!(f, " {} Cat, {} unfinished, {} failed", self.cats, self.unfinished, self.failed)
    }
}

/// One input of a batch and where its output goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    /// The move file.
    pub input: PathBuf,
    /// Its output in the out directory.
    pub output: PathBuf,
}

/// The move files named by `inputs` (files as given, and the `*.txt` files
/// directly inside directories, hidden ones left out, in name order), each
/// with its output path in `out_dir`: the input's file name, with `.json` for
/// JSON output.
///
/// Only `*.txt` files are taken from directories so that transcripts and
/// other files kept beside the move files (`gen` writes `*.expected` there)
/// are not mistaken for move files.
///
/// # Errors
/// A directory that cannot be listed, with its path.
pub fn jobs(inputs: &[PathBuf], out_dir: &Path, format: Format) -> Result<Vec<Job>, (PathBuf, io::Error)> {
    let mut files = Vec::new();
    for input in inputs {
        if input.is_dir() {
            let mut inside = Vec::new();
            for entry in fs::read_dir(input).map_err(|e| (input.clone(), e))? {
                let entry = entry.map_err(|e| (input.clone(), e))?;
                let name = entry.file_name();
                let name = name.to_string_lossy();
                let wanted = !name.starts_with('.') && name.ends_with(".txt");
                if wanted && entry.file_type().is_ok_and(|t| t.is_file() || t.is_symlink()) {
                    inside.push(entry.path());
                }
            }
            inside.sort();
            files.extend(inside);
        } else {
            files.push(input.clone());
        }
    }
    Ok(files
        .into_iter()
        .map(|input| {
            let mut output = out_dir.join(input.file_name().unwrap_or(input.as_os_str()));
            if format == Format::Json {
                output.set_extension("json");
            }
            Job { input, output }
        })
        .collect())
}

/// Why one move file could not be refereed into its output; each names the
/// path it concerns.
#[derive(Debug, Error)]
pub enum JobError {
    /// The move file could not be opened.
    #[error("{}: cannot open: {source}", .path.display())]
    Open {
        /// The move file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// The move file is a directory.
    #[error("{}: is a directory; expected a move file", .path.display())]
    Directory {
        /// The directory.
        path: PathBuf,
    },
    /// The output is the move file itself, which writing would destroy.
    #[error("{}: is the input file; refusing to overwrite it", .path.display())]
    SameFile {
        /// The output path given.
        path: PathBuf,
    },
    /// The referee rejected the move file (malformed, or a board too big for
    /// the options); never [`RefereeError::Write`], which is [`JobError::Write`].
    #[error("{}: {error}", .path.display())]
    Referee {
        /// The move file.
        path: PathBuf,
        /// Why.
        error: RefereeError,
    },
    /// The output could not be written or renamed into place.
    #[error("{}: cannot write: {source}", .path.display())]
    Write {
        /// The output.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
}

/// Opens the move file `path` to referee it into `output` (if a file):
/// refuses a directory, and an output that is the move file itself (under
/// any name), before anything is written.
///
/// # Errors
/// [`JobError::Open`], [`JobError::Directory`] or [`JobError::SameFile`].
pub fn open_move_file(path: &Path, output: Option<&Path>) -> Result<BufReader<File>, JobError> {
    let open_error = |source| JobError::Open { path: path.to_owned(), source };
    let file = File::open(path).map_err(open_error)?;
    if file.metadata().map_err(open_error)?.is_dir() {
        return Err(JobError::Directory { path: path.to_owned() });
    }
    if let Some(out) = output
        && same_file::is_same_file(path, out).unwrap_or(false)
    {
        return Err(JobError::SameFile { path: out.to_owned() });
    }
    Ok(BufReader::with_capacity(64 << 10, file))
}

/// Referees one job with `options`. Its output appears whole or not at all:
/// renamed into place once written, as a single `-o` is, but not synced (a
/// sync for each of many small files would cost more than the work).
///
/// # Errors
/// Any [`JobError`]; the output is then left as it was.
pub fn run(job: &Job, options: &Options) -> Result<Report, JobError> {
    let input = open_move_file(&job.input, Some(&job.output))?;
    let write_error = |source| JobError::Write { path: job.output.clone(), source };
    let mut staged = Staged::file(&job.output, Durability::Renamed).map_err(write_error)?;
    let report = referee::referee(input, &mut staged, options).map_err(|error| match error {
        RefereeError::Write(source) => write_error(source),
        error => JobError::Referee { path: job.input.clone(), error },
    })?;
    staged.commit().map_err(write_error)?;
    Ok(report)
}

/// Referees every job in parallel with `options` (each as [`run`] does),
/// showing a progress bar when standard error is a terminal, and returns
/// each job's result in job order.
#[must_use]
pub fn run_all(jobs: &[Job], options: &Options) -> Vec<Result<Report, JobError>> {
    let progress = crate::spinner::progress_bar(jobs.len() as u64, "files");
    let results = jobs
        .par_iter()
        .map(|job| {
            let result = run(job, options);
            progress.inc(1);
            result
        })
        .collect();
    progress.finish_and_clear();
    results
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_expand_directories_to_their_txt_files_in_name_order() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["b.txt", "a.txt", ".hidden.txt", "a.expected"] {
            fs::write(dir.path().join(name), "").unwrap();
        }
        fs::create_dir(dir.path().join("sub")).unwrap();
        let out = Path::new("out");
        let jobs = jobs(&[dir.path().to_path_buf(), PathBuf::from("x/c.txt")], out, Format::Text).unwrap();
        let names: Vec<_> = jobs.iter().map(|j| j.output.clone()).collect();
        assert_eq!(names, [out.join("a.txt"), out.join("b.txt"), out.join("c.txt")]);
        let json = super::jobs(&[PathBuf::from("g.txt")], out, Format::Json).unwrap();
        assert_eq!(json[0].output, out.join("g.json"));
    }

    #[test]
    fn a_job_that_fails_names_its_path_and_leaves_its_output_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let options = Options::default();
        let moves = dir.path().join("m.txt");
        fs::write(&moves, "Game\nX: a O: b\n\nX 5\n").unwrap();

        let missing = Job { input: dir.path().join("none.txt"), output: dir.path().join("none.out") };
        let error = run(&missing, &options).unwrap_err();
        assert!(matches!(&error, JobError::Open { path, .. } if *path == missing.input), "{error:?}");
        assert!(error.to_string().ends_with("none.txt: cannot open: No such file or directory (os error 2)"));

        let onto_itself = Job { input: moves.clone(), output: moves.clone() };
        let error = run(&onto_itself, &options).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!("{}: is the input file; refusing to overwrite it", moves.display())
        );
        assert_eq!(fs::read_to_string(&moves).unwrap(), "Game\nX: a O: b\n\nX 5\n");

        let nowhere = Job { input: moves.clone(), output: dir.path().join("no/such/m.txt") };
        let error = run(&nowhere, &options).unwrap_err();
        assert!(matches!(&error, JobError::Write { path, .. } if *path == nowhere.output), "{error:?}");

        let bad = dir.path().join("bad.txt");
        fs::write(&bad, "").unwrap();
        let kept = Job { input: bad.clone(), output: dir.path().join("kept.txt") };
        fs::write(&kept.output, "old").unwrap();
        let error = run(&kept, &options).unwrap_err();
        assert!(matches!(&error, JobError::Referee { path, .. } if *path == bad), "{error:?}");
        assert!(error.to_string().starts_with(&format!("{}: line 1: the file is empty", bad.display())));
        assert_eq!(fs::read_to_string(&kept.output).unwrap(), "old");

        let good = Job { input: moves, output: dir.path().join("good.txt") };
        assert!(run(&good, &options).unwrap().game.outcome().is_none());
        assert!(fs::read_to_string(&good.output).unwrap().ends_with("Winner: None\n"));
    }

    #[test]
    fn summaries_count_every_ending() {
        let mut s = Summary { cats: 2, unfinished: 1, failed: 3, ..Summary::default() };
        s.wins.insert('X', 4);
        s.wins.insert('Z', 1);
        assert_eq!(
            s.to_string(),
            "11 files: 4 won by X, 0 won by O, 1 won by Z, 2 Cat, 1 unfinished, 3 failed"
        );
    }
}
