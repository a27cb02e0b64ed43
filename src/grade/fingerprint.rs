//! What a grading is, in three SHA-256 digests every machine of a fleet
//! works out alike ([`Fingerprint`]): its tests, its options, its class.
//! Each part of a split grading writes them (`part.json`), and `merge`
//! puts together only parts whose fingerprints are equal, so the parts of
//! two gradings never mix.
//!
//! Nothing that differs from machine to machine goes in: no path (a
//! checkout's place, the provided files' directory), no `--jobs`, no
//! protections; what decides the results does: the tests' bytes and
//! expected answers, the commands, the limits, the comparison, the
//! shrinking budget, the seed, the board, and the ttt-referee version.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::plan::{Mode, Plan, Program};
use crate::workshop::recipe::Programs;

/// A grading's three digests, each 64 hexadecimal digits.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fingerprint {
    /// The tests: each one's name, the digests of its input and of its
    /// expected answer, in report order (with `--api` and `--play`, the
    /// tests' names).
    pub tests: String,
    /// Everything else that decides a result: the mode and its options
    /// (commands, I/O, layout, board, games, bars, provided files' digests),
    /// the limits, the comparison, the shrinking budget, the seed, and the
    /// version of ttt-referee.
    pub options: String,
    /// The whole class's submission names, in the grading's order (not only
    /// a part's).
    pub class: String,
}

impl Fingerprint {
    /// The fingerprint of grading `class` (every submission's name, in
    /// order) by `plan`.
    #[must_use]
    pub fn of(plan: &Plan, class: &[String]) -> Fingerprint {
        Fingerprint {
            tests: hex(tests(plan)),
            options: hex(options(plan)),
            class: hex(class.iter().fold(String::new(), |mut text, name| {
                let _ = writeln!(text, "{name:?}");
                text
            })),
        }
    }

    /// The names of the digests that differ from `other`'s: `tests`,
    /// `options`, `class`.
    #[must_use]
    pub fn differences(&self, other: &Fingerprint) -> Vec<&'static str> {
        [
            ("tests", self.tests == other.tests),
            ("options", self.options == other.options),
            ("class", self.class == other.class),
        ]
        .into_iter()
        .filter(|(_, same)| !same)
        .map(|(name, _)| name)
        .collect()
    }
}

/// The tests in words: a line each.
fn tests(plan: &Plan) -> String {
    let mut text = String::new();
    match &plan.mode {
        Mode::Program(program) => {
            for test in &program.tests {
                let _ = writeln!(
                    text,
                    "{:?} {} {} {}",
                    test.name,
                    hex(&test.input),
                    hex(&test.expected),
                    test.complete
                );
            }
        }
        Mode::Calls(_) | Mode::Play(_) => {}
    }
    for name in plan.test_names() {
        let _ = writeln!(text, "{name:?}");
    }
    text
}

/// The options in words: a line each.
fn options(plan: &Plan) -> String {
    let mut text = format!("ttt-referee {}\n", env!("CARGO_PKG_VERSION"));
    match &plan.mode {
        Mode::Program(program) => {
            text.push_str("program\n");
            program_options(program, &mut text);
        }
        Mode::Calls(calls) => {
            let _ = writeln!(text, "calls {calls:?}");
        }
        Mode::Play(bots) => {
            let _ = writeln!(
                text,
                "play {:?} games {} bars {:?} proof {} versus {:?} move {:?} startup {:?} seed {}",
                bots.geometry,
                bots.games,
                bots.bars,
                bots.proof_games,
                bots.versus,
                bots.move_time,
                bots.startup,
                bots.seed
            );
            program_options(&bots.program, &mut text);
        }
    }
    let _ = writeln!(text, "limits {:?}", plan.limits);
    let _ = writeln!(text, "build {:?}", plan.build_limits);
    let _ = writeln!(text, "partial {} check {:?}", plan.partial, plan.check);
    let _ = writeln!(text, "caps {:?} require-sandbox {}", plan.copy_caps, plan.require_sandbox);
    let _ = writeln!(text, "shrink {:?} seed {:?}", plan.shrink, plan.seed);
    text
}

/// How whole programs are built, run and read, in words.
fn program_options(program: &Program, text: &mut String) {
    match &program.programs {
        Programs::Given { build, run } => {
            let _ = writeln!(text, "given {build:?} {run:?}");
        }
        Programs::Detected(languages) => {
            let _ = write!(text, "detected\n{}", languages.fingerprint_text());
        }
    }
    let _ = writeln!(text, "io {:?}", program.io);
    let _ = writeln!(text, "layout {:?}", program.layout);
    let _ = writeln!(text, "warnings {}", program.warnings);
    for (path, bytes, executable) in
        program.provided.iter().flat_map(crate::workshop::provided::Provided::files)
    {
        let _ = writeln!(text, "provided {:?} {} {executable}", path.to_string_lossy(), hex(bytes));
    }
}

/// SHA-256 of `bytes`, in lower-case hexadecimal.
fn hex(bytes: impl AsRef<[u8]>) -> String {
    hex::encode(Sha256::digest(bytes.as_ref()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grade::plan::{CallsPlan, TEST_LIMITS};
    use crate::grade::{Api, CaseOptions};
    use crate::sandbox::copy;

    fn plan(seed: u64, jobs: usize) -> Plan {
        Plan {
            mode: Mode::Calls(CallsPlan { api: Api::Xtreme, cases: CaseOptions { per_function: 10, seed } }),
            limits: TEST_LIMITS,
            build_limits: TEST_LIMITS,
            jobs,
            partial: false,
            check: crate::check::CheckOptions::default(),
            copy_caps: copy::Caps::SUBMISSION,
            require_sandbox: false,
            shrink: None,
            seed: Some(seed),
        }
    }

    #[test]
    fn the_seed_and_the_class_change_it_and_the_machines_cores_do_not() {
        let class = ["ann".to_owned(), "bo".to_owned()];
        let one = Fingerprint::of(&plan(1, 2), &class);
        assert_eq!(one, Fingerprint::of(&plan(1, 64), &class), "--jobs is each machine's own");
        assert_eq!(one.differences(&Fingerprint::of(&plan(2, 2), &class)), ["options"]);
        let reordered = ["bo".to_owned(), "ann".to_owned()];
        assert_eq!(one.differences(&Fingerprint::of(&plan(1, 2), &reordered)), ["class"]);
        assert_eq!(one.tests.len(), 64);
    }
}
