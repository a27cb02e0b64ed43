//! Work split into parts (`--partition slice:K/N` or `hash:K/N`), as
//! cargo-nextest splits a test run: each machine of a fleet grades one part
//! of a class (`grade`), or plays one part of an event's games (`match`,
//! `tournament`: a game is dealt by its number), and `merge` puts the
//! parts' reports back together ([`crate::grade::report::merge`],
//! [`crate::arena::part`]).
//!
//! - `slice` deals the class round-robin, in the order the grading takes
//!   it: the first submission to part 1, the second to part 2, …, the
//!   N+1th to part 1 again. The parts are as even as can be.
//! - `hash` places each submission by a stable hash of its name (the first
//!   8 bytes of its SHA-256, big-endian, modulo N): the same name goes to
//!   the same part on every machine and in every run, and a late
//!   submission moves no other.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::workshop::submission_name;

/// How the class is dealt among the parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scheme {
    /// Round-robin, in the grading's order.
    Slice,
    /// By a stable hash of each submission's name.
    Hash,
}

impl Scheme {
    /// Its name on the command line and in `part.json`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Slice => "slice",
            Scheme::Hash => "hash",
        }
    }
}

/// One part of a grading: part `part` of `of`, counted from 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Partition {
    /// How the class is dealt.
    pub scheme: Scheme,
    /// Which part this is, from 1 to `of`.
    pub part: u32,
    /// How many parts there are.
    pub of: u32,
}

/// A `--partition` that is not `slice:K/N` or `hash:K/N` with 1 ≤ K ≤ N.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("`{given}` is not a partition: {why}")]
pub struct PartitionError {
    /// What was given.
    pub given: String,
    /// What is wrong with it.
    pub why: &'static str,
}

impl FromStr for Partition {
    type Err = PartitionError;

    fn from_str(text: &str) -> Result<Partition, PartitionError> {
        let error = |why| PartitionError { given: crate::text::inert(text).into_owned(), why };
        let (scheme, numbers) =
            text.split_once(':').ok_or_else(|| error("expected slice:K/N or hash:K/N, such as slice:2/5"))?;
        let scheme = match scheme {
            "slice" => Scheme::Slice,
            "hash" => Scheme::Hash,
            _ => return Err(error("the scheme is slice or hash, such as slice:2/5")),
        };
        let (part, of) = numbers.split_once('/').ok_or_else(|| error("expected K/N after the scheme"))?;
        let number =
            |s: &str| s.parse::<u32>().map_err(|_| error("K and N are whole numbers, K from 1 to N"));
        let (part, of) = (number(part)?, number(of)?);
        if of == 0 {
            return Err(error("N, the number of parts, is at least 1"));
        }
        if part == 0 || part > of {
            return Err(error("K counts from 1 to N (a Kubernetes index counts from 0: add 1)"));
        }
        Ok(Partition { scheme, part, of })
    }
}

impl fmt::Display for Partition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}/{}", self.scheme.name(), self.part, self.of)
    }
}

impl Partition {
    /// The part (from 1) the submission named `name`, `index`th in the
    /// grading's order (from 0), belongs to.
    #[must_use]
    pub fn part_of(self, index: usize, name: &str) -> u32 {
        let of = u64::from(self.of);
        let slot = match self.scheme {
            Scheme::Slice => u64::try_from(index).unwrap_or(u64::MAX) % of,
            Scheme::Hash => stable_hash(name) % of,
        };
        // Below `of`, a u32.
        u32::try_from(slot).unwrap_or(0) + 1
    }

    /// Whether this part plays an event's game `number` (from 1): slice
    /// deals the games round-robin by number, hash by a stable hash of the
    /// number written in decimal.
    #[must_use]
    pub fn holds_game(self, number: u64) -> bool {
        let index = usize::try_from(number.saturating_sub(1)).unwrap_or(usize::MAX);
        self.part_of(index, &number.to_string()) == self.part
    }

    /// The submissions of this part, in the order given.
    #[must_use]
    pub fn select(self, submissions: &[PathBuf]) -> Vec<PathBuf> {
        submissions
            .iter()
            .enumerate()
            .filter(|(index, path)| self.part_of(*index, &submission_name(path)) == self.part)
            .map(|(_, path)| path.clone())
            .collect()
    }
}

/// A hash of `name` that every machine and every run agrees on: the first 8
/// bytes of its SHA-256, big-endian.
#[must_use]
pub fn stable_hash(name: &str) -> u64 {
    let digest = Sha256::digest(name.as_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    u64::from_be_bytes(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_are_read_as_nextest_writes_them() {
        assert_eq!("slice:2/5".parse(), Ok(Partition { scheme: Scheme::Slice, part: 2, of: 5 }));
        assert_eq!("hash:1/1".parse(), Ok(Partition { scheme: Scheme::Hash, part: 1, of: 1 }));
        assert_eq!("hash:3/7".parse::<Partition>().unwrap().to_string(), "hash:3/7");
        for (bad, why) in [
            ("2/5", "expected slice:K/N or hash:K/N, such as slice:2/5"),
            ("count:1/2", "the scheme is slice or hash, such as slice:2/5"),
            ("slice:2", "expected K/N after the scheme"),
            ("slice:0/3", "K counts from 1 to N (a Kubernetes index counts from 0: add 1)"),
            ("slice:4/3", "K counts from 1 to N (a Kubernetes index counts from 0: add 1)"),
            ("slice:1/0", "N, the number of parts, is at least 1"),
            ("slice:/3", "K and N are whole numbers, K from 1 to N"),
            ("slice:-1/3", "K and N are whole numbers, K from 1 to N"),
        ] {
            assert_eq!(bad.parse::<Partition>(), Err(PartitionError { given: bad.to_owned(), why }), "{bad}");
        }
    }

    #[test]
    fn slice_deals_round_robin_and_every_submission_lands_once() {
        let class: Vec<PathBuf> = (0..10).map(|i| PathBuf::from(format!("s/{i:02}"))).collect();
        let parts: Vec<Vec<PathBuf>> =
            (1..=3).map(|part| Partition { scheme: Scheme::Slice, part, of: 3 }.select(&class)).collect();
        let names = |part: &[PathBuf]| part.iter().map(|p| submission_name(p)).collect::<Vec<_>>().join(" ");
        assert_eq!(names(&parts[0]), "00 03 06 09");
        assert_eq!(names(&parts[1]), "01 04 07");
        assert_eq!(names(&parts[2]), "02 05 08");
        for scheme in [Scheme::Slice, Scheme::Hash] {
            let mut all: Vec<PathBuf> =
                (1..=7).flat_map(|part| Partition { scheme, part, of: 7 }.select(&class)).collect();
            all.sort();
            assert_eq!(all, class, "{scheme:?}");
        }
    }

    #[test]
    fn hash_places_a_name_by_its_sha256_alone() {
        // The first 8 bytes of SHA-256("ada"), as `printf ada | sha256sum` says.
        assert_eq!(stable_hash("ada"), 0xfdee_430d_40bd_57de);
        let hash = |part| Partition { scheme: Scheme::Hash, part, of: 4 };
        let before: Vec<PathBuf> = ["ann", "bo", "cy", "di", "ed"].iter().map(PathBuf::from).collect();
        let mut after = before.clone();
        after.insert(0, PathBuf::from("a-late-one"));
        for part in 1..=4 {
            let mut moved = hash(part).select(&after);
            moved.retain(|p| p != &PathBuf::from("a-late-one"));
            assert_eq!(moved, hash(part).select(&before), "a late submission moved another");
        }
    }
}
