//! Refereeing many move files at once, in parallel, into an output directory,
//! with a summary of how the games ended. One bad file never stops the rest.

use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::io::{self, IsTerminal};
use std::path::{Path, PathBuf};

use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;

use crate::game::Outcome;
use crate::referee::{Format, Options, Report};

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

/// Referees every job in parallel with `run`, showing a progress bar when
/// standard error is a terminal, and returns each job's result in job order.
pub fn run_all<E: Send>(
    jobs: &[Job],
    options: &Options,
    run: impl Fn(&Job, &Options) -> Result<Report, E> + Sync,
) -> Vec<Result<Report, E>> {
    let progress = if io::stderr().is_terminal() {
        let bar = ProgressBar::new(jobs.len() as u64);
        if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} files {elapsed}") {
            bar.set_style(style);
        }
        bar
    } else {
        ProgressBar::hidden()
    };
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
