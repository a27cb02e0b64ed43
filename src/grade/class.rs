//! The submissions a grading is given, sorted out before anything runs:
//! each is a directory (anything else is skipped, with a warning, so a
//! stray file among `students/*` does not stop a class), and each has a
//! name of its own, by which every report names it.

use std::collections::HashMap;
use std::path::PathBuf;

use crate::text::inert;
use crate::workshop::submission_name;

/// The submissions to grade, and what was given that is not one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Class {
    /// The directories, in the order given.
    pub submissions: Vec<PathBuf>,
    /// What was given that is not a directory, skipped.
    pub skipped: Vec<PathBuf>,
}

/// Why the submissions given cannot be graded.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ClassError {
    /// No directory among them.
    #[error("no submissions to grade: expected one directory per student")]
    NoSubmissions,
    /// Two submissions have the same name: no report could tell them apart.
    #[error(
        "two submissions are named `{name}` ({first} and {second}): reports name a submission by its directory, so each must have a name of its own"
    )]
    SameName {
        /// The name they share (made inert).
        name: String,
        /// The first submission so named (made inert).
        first: String,
        /// Another (made inert).
        second: String,
    },
}

impl Class {
    /// Sorts out `given`: the directories are the submissions, the rest is
    /// skipped.
    #[must_use]
    pub fn sort(given: &[PathBuf]) -> Class {
        let (submissions, skipped) = given.iter().cloned().partition(|p| p.is_dir());
        Class { submissions, skipped }
    }

    /// Whether the class can be graded: a submission at least, each with a
    /// name of its own.
    ///
    /// # Errors
    /// When there is no submission, or two have the same name.
    pub fn check(&self) -> Result<(), ClassError> {
        if self.submissions.is_empty() {
            return Err(ClassError::NoSubmissions);
        }
        let mut seen: HashMap<String, &PathBuf> = HashMap::new();
        for submission in &self.submissions {
            let name = submission_name(submission);
            if let Some(first) = seen.insert(name.clone(), submission) {
                return Err(ClassError::SameName {
                    name: inert(&name).into_owned(),
                    first: inert(&first.display().to_string()).into_owned(),
                    second: inert(&submission.display().to_string()).into_owned(),
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    #[test]
    fn directories_are_submissions_and_the_rest_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let (ann, bo, stray) = (dir.path().join("ann"), dir.path().join("bo"), dir.path().join("notes.txt"));
        fs::create_dir(&ann).unwrap();
        fs::create_dir(&bo).unwrap();
        fs::write(&stray, "").unwrap();
        let class = Class::sort(&[ann.clone(), stray.clone(), bo.clone()]);
        assert_eq!(class, Class { submissions: vec![ann, bo], skipped: vec![stray.clone()] });
        assert_eq!(class.check(), Ok(()));
        let strays = Class::sort(std::slice::from_ref(&stray));
        assert_eq!(strays, Class { submissions: Vec::new(), skipped: vec![stray] });
        assert_eq!(strays.check(), Err(ClassError::NoSubmissions));
    }

    #[test]
    fn two_submissions_of_one_name_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a/ann"), dir.path().join("b/ann"));
        fs::create_dir_all(&a).unwrap();
        fs::create_dir_all(&b).unwrap();
        let error = Class::sort(&[a.clone(), b.clone()]).check().unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "two submissions are named `ann` ({} and {}): reports name a submission by its directory, so each must have a name of its own",
                a.display(),
                b.display()
            )
        );
    }
}
