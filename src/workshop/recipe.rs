//! What a submission is made runnable by: how its build and run commands
//! are found ([`Programs`]), the course's provided files, what is cleared
//! from its copy, the words its run command takes ([`Recipe`]); and the
//! limits of a build.

use std::time::Duration;

use super::language::Languages;
pub use super::language::argv;
use super::provided::Provided;
use crate::sandbox::Limits;

/// How each submission's build and run commands are found.
#[derive(Clone, Debug)]
pub enum Programs {
    /// The same commands for everyone (`--build`, `--run`).
    Given {
        /// A shell command run once in each submission's copy.
        build: Option<String>,
        /// The program's command line, split into words as a shell would.
        run: String,
    },
    /// Found for each submission from its files.
    Detected(Languages),
}

/// How a submission is made runnable: one recipe for a whole grading or
/// event, followed for each submission by
/// [`Workshop::prepare`](super::Workshop::prepare).
#[derive(Clone, Debug)]
pub struct Recipe {
    /// How its build and run commands are found.
    pub programs: Programs,
    /// The course's provided files, written over the copy before its
    /// language is found (a copy lacking the provided `main.cpp` is C++
    /// once it has it).
    pub provided: Option<Provided>,
    /// Names removed from the copy and from the build before anything
    /// runs: no answer left from the author's own runs can pass for one,
    /// and nothing stands where a test goes.
    pub clear: Vec<String>,
    /// Words added to a run command found from the files (a console
    /// program is started as its handout starts it); a given `--run` is
    /// used as written.
    pub args: Vec<String>,
}

impl Recipe {
    /// Commands found from each submission's files, nothing provided,
    /// cleared or added: how a bot is made runnable.
    #[must_use]
    pub fn detected(languages: Languages) -> Recipe {
        Recipe {
            programs: Programs::Detected(languages),
            provided: None,
            clear: Vec::new(),
            args: Vec::new(),
        }
    }
}

/// The limits of a build, given a run's: two minutes, and at least 4 GB,
/// 256 MB written, 64 processes and 1024 open files each (compilers and
/// build tools need more than programs).
#[must_use]
pub fn build_limits(run: &Limits) -> Limits {
    Limits {
        wall: Duration::from_mins(2),
        cpu: Duration::from_mins(2),
        memory: run.memory.max(4 << 30),
        output: run.output.max(256 << 20),
        processes: run.processes.max(64),
        open_files: run.open_files.max(1024),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_build_gets_at_least_what_compilers_need() {
        let run = Limits {
            wall: Duration::from_secs(2),
            cpu: Duration::from_secs(2),
            memory: 512 << 20,
            output: 16 << 20,
            processes: 8,
            open_files: 256,
        };
        let build = build_limits(&run);
        assert_eq!((build.wall, build.memory, build.output), (Duration::from_mins(2), 4 << 30, 256 << 20));
        assert_eq!((build.processes, build.open_files), (64, 1024));
    }
}
