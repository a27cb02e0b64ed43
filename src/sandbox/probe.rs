//! What the sandbox enforces on this machine: [`Sandbox::probe`] runs
//! `true` through it and lists each protection ([`Protection`]) with
//! whether it is in force, for `grade`'s report and `--require-sandbox`.

use serde::Serialize;

use super::guard::{MEMLOCK, MSGQUEUE, SIGPENDING, UMASK};
use super::promise::Promise;
use super::root;
use super::{Collect, Ending, Job, Limits, Sandbox, SandboxError};

/// One protection and whether it is in force.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Protection {
    /// What it guards against, in a few words.
    pub name: String,
    /// `None` when in force; otherwise why not.
    pub missing: Option<String>,
}

/// What the sandbox enforces on this machine, found by running a program
/// through it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Protections {
    /// Each protection, in a fixed order.
    pub list: Vec<Protection>,
}

impl Protections {
    /// Whether every protection is in force.
    #[must_use]
    pub fn complete(&self) -> bool {
        self.list.iter().all(|p| p.missing.is_none())
    }
}

impl std::fmt::Display for Protections {
    /// One line per protection: `  in force  …` or `  MISSING   … (why)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for p in &self.list {
            match &p.missing {
                None => writeln!(f, "  in force  {}", p.name)?,
                Some(why) => writeln!(f, "  MISSING   {} ({why})", p.name)?,
            }
        }
        Ok(())
    }
}

impl Sandbox {
    /// Finds what the sandbox enforces here by running `true` through it,
    /// and promises every later run what that run had: from then on a run
    /// that would have less is refused with
    /// [`SandboxError::Unprotected`], and none runs without a container
    /// once this one had one.
    pub fn probe(&self, limits: Limits) -> Result<Protections, SandboxError> {
        let job = Job {
            argv: vec!["true".to_owned()],
            start: None,
            files: Vec::new(),
            stdin: None,
            collect: Collect::Nothing,
            limits,
            env: Vec::new(),
        };
        let run = self.run(&job)?;
        if run.outcome.ending != Ending::Exited(0) {
            return Err(SandboxError::Guard(format!(
                "a trial run of `true` in the sandbox ended with {:?}: {}",
                run.outcome.ending,
                String::from_utf8_lossy(&run.stderr).trim()
            )));
        }
        let gaps = run.gaps;
        // Every later run is held to what this one had.
        self.promise(Promise::of(&gaps));
        let contained = |name: &str| Protection { name: name.to_owned(), missing: gaps.namespaces.clone() };
        // Without the container, the referee's copies are out of reach
        // only where Landlock leaves them out of its rules.
        let referee_missing = gaps.namespaces.as_ref().and_then(|no_container| {
            gaps.landlock.as_ref().map(|no_landlock| format!("{no_container}; Landlock: {no_landlock}"))
        });
        let list = vec![
            Protection {
                name: "its own session, no terminal; TIOCSTI, ptrace, keyrings and new namespaces refused (seccomp)"
                    .to_owned(),
                missing: gaps.seccomp.clone(),
            },
            contained(&format!(
                "its own root: {}; nothing of the grader's, the tests', other submissions' or the host's",
                root::described()
            )),
            contained("its own PID, network, IPC and UTS namespaces: every process ends with its run, no network"),
            Protection {
                name: "no copy of the referee to run, by PATH, /proc or its install path".to_owned(),
                missing: referee_missing,
            },
            contained("a size-capped tmpfs for all it writes (any depth, unlinked, preallocated, /tmp, /dev/shm)"),
            Protection {
                name: "a cgroup: memory of all its processes together, and their number".to_owned(),
                missing: gaps.cgroup,
            },
            Protection {
                name: "a fair share of the CPU: the same cgroup weight as every other run, whatever its processes"
                    .to_owned(),
                missing: gaps.cpu,
            },
            Protection {
                name: "Landlock: writes only in its box, reads only system directories; no TCP".to_owned(),
                missing: gaps.landlock,
            },
            Protection {
                name: "limits on time, CPU, file size and processes; no core files; only fds 0, 1, 2".to_owned(),
                missing: None,
            },
            Protection {
                name: format!(
                    "small limits on what the machine shares: {} open files a process, {} KiB locked, \
                     {} KiB of message queues, {} signals queued; umask {:03o}",
                    limits.open_files,
                    MEMLOCK >> 10,
                    MSGQUEUE >> 10,
                    SIGPENDING,
                    UMASK
                ),
                missing: None,
            },
            // In the container, an empty bounding set and "no root" locked;
            // without one, the run is not root (a root grader's runs are the
            // unused user), and the guard clears the ambient set and sets
            // no_new_privs or fails the run.
            Protection {
                name: match self.run_user() {
                    Some(uid) => format!("no capabilities, as an unused user ({uid}) outside"),
                    None => "no capabilities, as the grader's own user outside".to_owned(),
                },
                missing: None,
            },
        ];
        Ok(Protections { list })
    }
}
