//! The workshop: a submission made runnable once, for whoever runs it —
//! a grading's tests, a bot's games. Below both `grade` and `arena`, as
//! cargo's `ops::compile` sits below `cargo run` and `cargo test`.
//!
//! [`Workshop::prepare`] takes a submission's directory and a [`Recipe`]
//! and gives a [`Built`] program (where its runs start, its run command
//! split once into words) or why it is [`NotBuilt`]:
//!
//! - [`intake`]: the workshop's own steps with a submission's files, each
//!   failing that submission alone, and the faults tests inject in them;
//! - [`provided`]: the course's provided files, written over each copy;
//! - [`language`]: how a submission is built and run, found from its files;
//! - [`build`]: the one build, for submissions and harnesses alike;
//! - [`kept`]: builds kept in a directory for other machines to run
//!   (`ttt-referee build`, `--prebuilt`);
//! - [`recipe`]: what a submission is made runnable by;
//! - [`silencers`]: what in a submission would hide its compiler's
//!   warnings.

pub mod build;
pub mod intake;
pub mod kept;
pub mod language;
pub mod provided;
pub mod recipe;
pub mod silencers;

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use self::build::Build;
use self::intake::{Failed, Faults, Step, Steps};
use self::language::{Commands, Languages};
use self::provided::Placed;
use self::recipe::{Programs, Recipe};
use self::silencers::Silencer;
use crate::outcome::Stopped;
use crate::sandbox::{Limits, Protections, Sandbox, SandboxError, copy};

/// How soon after an interrupt a signal is the same interrupt, not a
/// second ([`Workshop::stop_on_signals`]).
const SAME_INTERRUPT: Duration = Duration::from_millis(200);

pub use self::build::BUILD_LOG_BYTES;
pub use self::recipe::{argv, build_limits};

/// Makes submissions runnable in a sandbox that was probed: copied in,
/// given the course's files, built once, handed to the run user.
pub struct Workshop {
    sandbox: Arc<Sandbox>,
    protections: Protections,
    run_limits: Limits,
    build_limits: Limits,
    copy_caps: copy::Caps,
    faults: Option<Faults>,
}

/// A submission made runnable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Built {
    /// Its name (its directory's).
    pub name: String,
    /// Its language, as found (or `given`).
    pub language: String,
    /// Where each of its runs starts: its build, or its copy with no build.
    pub start: PathBuf,
    /// Its run command, split into words once.
    pub argv: Vec<String>,
    /// What its runs' environment has besides the sandbox's own (a
    /// harness's settings; nothing for a submission).
    pub env: Vec<(String, String)>,
    /// The build's log, when there was a build.
    pub build_log: Option<String>,
    /// What the copy lacked or changed of the course's provided files,
    /// when the recipe provides some.
    pub provided: Option<Placed>,
    /// What in its files would hide its compiler's warnings (a
    /// `#pragma GCC system_header`), when it was built: `--warnings` fails
    /// on them.
    pub silencers: Vec<Silencer>,
}

/// Why a submission was not made runnable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotBuilt {
    /// The grading or event was stopped.
    Stopped,
    /// It cannot run: refused, no language found, a failed build, a step
    /// of the workshop's failed.
    Failed(Box<Failure>),
}

/// Why a submission cannot run, for its reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// Its language, as far as it was found (`unknown` before).
    pub language: String,
    /// The whole account: a failed build's log, or the reason.
    pub log: String,
    /// The reason in one line: `the build failed`, or the reason itself.
    pub detail: String,
    /// What the copy lacked or changed of the provided files, if they
    /// were placed before it failed.
    pub provided: Option<Placed>,
    /// Whether the grader is at fault, not the submission: the sandbox
    /// refused its build for a protection it lacked, or starved it.
    pub by_grader: bool,
    /// Whether the sandbox refused its build for a protection it lacked
    /// (not starved: a build can fake starving, by printing what a starved
    /// JVM prints, but not this).
    pub unprotected: bool,
}

impl Failure {
    /// A failure before its language was found, `why` said alike in the
    /// log and the detail.
    #[must_use]
    pub fn early(why: String) -> Failure {
        Failure {
            language: "unknown".to_owned(),
            log: why.clone(),
            detail: why,
            provided: None,
            by_grader: false,
            unprotected: false,
        }
    }

    /// A build of `language` the sandbox refused for a protection it could
    /// not have (`why`): the grader's error.
    #[must_use]
    pub fn refused(language: String, why: String) -> Failure {
        Failure { language, by_grader: true, unprotected: true, ..Failure::early(why) }
    }

    /// A build of `language` that failed for the sandbox's reason (`why`,
    /// words that follow "the build"), its log `log`: the grader's error,
    /// with its reason and what to do.
    #[must_use]
    pub fn starved(language: String, log: String, why: &str) -> Failure {
        Failure {
            language,
            log,
            detail: format!(
                "the grader's error: the build {why}; not the submission's fault \
                 (grade it again, with fewer --jobs or on a machine with more memory)"
            ),
            provided: None,
            by_grader: true,
            unprotected: false,
        }
    }

    /// What a caller that shows one message says: the detail, then the log
    /// when it says more (a build's).
    #[must_use]
    pub fn message(&self) -> String {
        if self.detail == self.log {
            self.detail.clone()
        } else {
            format!("{}:\n{}", self.detail, self.log.trim_end())
        }
    }
}

impl From<Failure> for NotBuilt {
    fn from(failure: Failure) -> NotBuilt {
        NotBuilt::Failed(Box::new(failure))
    }
}

impl From<Stopped> for NotBuilt {
    fn from(Stopped: Stopped) -> NotBuilt {
        NotBuilt::Stopped
    }
}

impl From<Failed> for NotBuilt {
    fn from(Failed(why): Failed) -> NotBuilt {
        NotBuilt::from(Failure::early(why))
    }
}

impl Workshop {
    /// A workshop over `sandbox`, probed for runs within `run_limits`;
    /// builds run within `build_limits`, copies are held to `copy_caps`.
    ///
    /// # Errors
    /// When the sandbox cannot run anything here.
    pub fn new(
        sandbox: Sandbox,
        run_limits: Limits,
        build_limits: Limits,
        copy_caps: copy::Caps,
    ) -> Result<Workshop, SandboxError> {
        let protections = sandbox.probe(run_limits)?;
        Ok(Workshop {
            sandbox: Arc::new(sandbox),
            protections,
            run_limits,
            build_limits,
            copy_caps,
            faults: None,
        })
    }

    /// The sandbox programs run in.
    #[must_use]
    pub fn sandbox(&self) -> &Arc<Sandbox> {
        &self.sandbox
    }

    /// What the sandbox protects on this machine.
    #[must_use]
    pub fn protections(&self) -> &Protections {
        &self.protections
    }

    /// The limits of each build.
    #[must_use]
    pub fn build_limits(&self) -> Limits {
        self.build_limits
    }

    /// Set it to stop: the runs under way are killed, and no more start.
    #[must_use]
    pub fn stopper(&self) -> Arc<AtomicBool> {
        self.sandbox.stopper()
    }

    /// Ctrl-C, SIGTERM or SIGHUP (its terminal closed) stops as
    /// [`Workshop::stopper`] does; a second signal ends the process at
    /// once, with exit status `status`, once every temporary output file
    /// ([`crate::output::remove_temporaries`]) is removed (its scratch is
    /// then left to the next sandbox's sweep), saying so on standard error.
    ///
    /// A signal within [`SAME_INTERRUPT`] of the first is the same
    /// interrupt, not a second: `timeout -s INT` sends its signal to the
    /// program and then to its whole process group, and a signal sent to a
    /// group reaches the grader by each route, microseconds apart. No one
    /// presses Ctrl-C twice that fast.
    pub fn stop_on_signals(&self, status: u8) {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let stop = self.stopper();
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            let _ = signal_hook::flag::register(signal, Arc::clone(&stop));
        }
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else { return };
        let _ = std::thread::Builder::new().name("signals".to_owned()).spawn(move || {
            let mut first = None;
            for _ in signals.forever() {
                let Some(at) = first else {
                    first = Some(std::time::Instant::now());
                    continue;
                };
                if at.elapsed() < SAME_INTERRUPT {
                    continue;
                }
                crate::output::remove_temporaries();
                let _ = writeln!(
                    std::io::stderr(),
                    "ttt-referee: interrupted again: stopped at once, no reports written (the next grade, match \
                     or tournament removes what the runs left)"
                );
                std::process::exit(status.into());
            }
        });
    }

    /// Ctrl-C, SIGTERM or SIGHUP ends the process at once with exit status
    /// `status`, the runs under way stopped and the scratch directory
    /// removed first: for a command that waits on a person at the console
    /// (`play` with a bot), where a stop flag would wait for the next line
    /// typed.
    ///
    /// # Errors
    /// The signals cannot be caught, or the thread that waits for them
    /// cannot start.
    pub fn end_on_signals(&self, status: u8) -> std::io::Result<()> {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])?;
        let stop = self.stopper();
        let scratch = self.sandbox.scratch().to_owned();
        std::thread::Builder::new().name("signals".to_owned()).spawn(move || {
            if signals.forever().next().is_some() {
                stop.store(true, std::sync::atomic::Ordering::SeqCst);
                crate::output::remove_temporaries();
                crate::sandbox::remove_all(&scratch);
                std::process::exit(status.into());
            }
        })?;
        Ok(())
    }

    /// Makes each [`Step`] call `faults` first, for a submission, with its
    /// name: an error there fails the step. For tests of the workshop's own
    /// failures; nothing else sets it.
    #[doc(hidden)]
    pub fn inject_faults(&mut self, faults: Faults) {
        self.faults = Some(faults);
    }

    /// The steps with the submission `name`'s files in `area`.
    #[must_use]
    pub fn steps<'a>(&'a self, name: &'a str, area: &'a Path) -> Steps<'a> {
        Steps { name, area, faults: self.faults.as_ref() }
    }

    /// Copies `submission` into `area`'s `source`, as [`Step::Copy`].
    ///
    /// # Errors
    /// [`NotBuilt`]: the copy refused (the submission too large, say), or
    /// the step failed.
    pub fn copy_in(&self, submission: &Path, steps: &Steps<'_>) -> Result<PathBuf, NotBuilt> {
        let source = steps.area.join("source");
        steps.take(Step::Copy, &source, || fs::create_dir_all(&source))?;
        // A root grader copies only what the submission's owner owns: no file
        // of anyone else's can be linked into it.
        let owner = self.sandbox.run_user().and_then(|_| fs::metadata(submission).ok()).map(|m| {
            use std::os::unix::fs::MetadataExt;
            m.uid()
        });
        match copy::copy_tree(submission, &source, self.copy_caps, owner) {
            Ok(_) => Ok(source),
            Err(e) => Err(NotBuilt::from(Failure::early(format!("the submission was refused: {e}")))),
        }
    }

    /// Builds the tree at `source` in `steps`' area with `command` (a
    /// submission's, or a harness's beside it) and hands the build to the
    /// run user: the build's directory and its log, or the log of a build
    /// that failed.
    ///
    /// # Errors
    /// [`NotBuilt`]: stopped, or the hand-over failed.
    pub fn build(&self, steps: &Steps<'_>, source: PathBuf, command: &str) -> Result<Build, NotBuilt> {
        let build = build::build(&self.sandbox, self.build_limits, steps.area, source, command)?;
        if let Build::Built { dir, .. } = &build {
            steps.hand_over(&self.sandbox, dir)?;
        }
        Ok(build)
    }

    /// `submission`, copied into `area`, made runnable by `recipe`: the
    /// course's provided files placed, its language found, answers cleared,
    /// handed to the run user, built once, its run command split once.
    ///
    /// # Errors
    /// [`NotBuilt`]: why it cannot run, or that the work was stopped.
    pub fn prepare(&self, submission: &Path, area: &Path, recipe: &Recipe) -> Result<Built, NotBuilt> {
        let name = submission_name(submission);
        let steps = self.steps(&name, area);
        let source = self.copy_in(submission, &steps)?;
        // The course's build file, if it provides one, is the build: its
        // language is the submission's, and no other build file of that
        // language stays in the copy.
        let course = recipe.provided.as_ref().and_then(|provided| {
            let paths = provided.files().map(|(path, _, _)| path);
            match &recipe.programs {
                Programs::Detected(languages) => languages.course_build(paths),
                // A course's --build runs as given; its make still finds
                // only the course's makefile.
                Programs::Given { .. } => Languages::builtin().course_build(paths),
            }
        });
        // Before its language is found: a copy lacking the provided main.cpp
        // is C++ once it has it.
        let provided = match &recipe.provided {
            Some(provided) => {
                let names = course.as_ref().map_or(&[][..], |c| c.names.as_slice());
                Some(provided.place_over(&steps, &source, names)?)
            }
            None => None,
        };
        let with_provided = |mut failure: Failure| {
            failure.provided.clone_from(&provided);
            NotBuilt::from(failure)
        };
        let commands = match &recipe.programs {
            Programs::Given { build, run } => {
                Commands { language: "given".to_owned(), build: build.clone(), run: run.clone() }
            }
            Programs::Detected(languages) => languages
                .detect_for(&source, self.run_limits.memory, course.as_ref())
                .map_err(|why| with_provided(Failure::early(why)))?,
        };
        let language = commands.language.clone();
        let clear = |dir: &Path| recipe.clear.iter().try_for_each(|name| steps.clear(dir, name));
        let failed = |Failed(why): Failed| {
            with_provided(Failure { language: language.clone(), ..Failure::early(why) })
        };
        clear(&source).map_err(failed)?;
        // Read before the build, as the student handed it in with the
        // course's files placed (which are not searched: students cannot
        // change them).
        let silencers = match (&commands.build, &recipe.provided) {
            (None, _) => Vec::new(),
            (Some(_), None) => silencers::find(&source, &[]),
            (Some(_), Some(provided)) => {
                let skip: Vec<&Path> = provided.files().map(|(path, _, _)| path).collect();
                silencers::find(&source, &skip)
            }
        };
        steps.hand_over(&self.sandbox, area).map_err(failed)?;

        let mut start = source.clone();
        let mut build_log = None;
        if let Some(command) = &commands.build {
            match self.build(&steps, source, command) {
                Err(NotBuilt::Failed(failure)) => {
                    return Err(with_provided(Failure { language, ..*failure }));
                }
                Err(NotBuilt::Stopped) => return Err(NotBuilt::Stopped),
                Ok(Build::Failed { log }) => {
                    return Err(with_provided(Failure {
                        language,
                        log,
                        detail: "the build failed".to_owned(),
                        provided: None,
                        by_grader: false,
                        unprotected: false,
                    }));
                }
                Ok(Build::Refused { why }) => {
                    return Err(with_provided(Failure::refused(language, why)));
                }
                Ok(Build::Starved { log, why }) => {
                    return Err(with_provided(Failure::starved(language, log, &why)));
                }
                Ok(Build::Built { dir, log }) => {
                    build_log = Some(log);
                    clear(&dir).map_err(failed)?;
                    start = dir;
                }
            }
        }
        let mut argv = argv(&commands.run).map_err(|e| {
            let why = format!("its run command `{}` is not a command line: {e}", commands.run);
            with_provided(Failure { language: language.clone(), ..Failure::early(why) })
        })?;
        if let Programs::Detected(_) = recipe.programs {
            argv.extend(recipe.args.iter().cloned());
        }
        Ok(Built { name, language, start, argv, env: Vec::new(), build_log, provided, silencers })
    }

    /// As [`Workshop::prepare`], in an area of its own in the scratch
    /// directory (a bot, made runnable for an event's games).
    ///
    /// # Errors
    /// As [`Workshop::prepare`], and when no area can be made.
    pub fn prepare_apart(&self, submission: &Path, recipe: &Recipe) -> Result<Built, NotBuilt> {
        let area = tempfile::Builder::new()
            .prefix("prepared-")
            .tempdir_in(self.sandbox.scratch())
            .map_err(|e| {
                NotBuilt::from(Failure::early(format!("the grader failed to make room for it: {e}")))
            })?
            .keep();
        self.prepare(submission, &area, recipe)
    }
}

/// A submission's name: its directory's last component (the real one for
/// `.` or a path ending in `/`).
#[must_use]
pub fn submission_name(path: &Path) -> String {
    let named = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned());
    named(path)
        .or_else(|| fs::canonicalize(path).ok().as_deref().and_then(named))
        .unwrap_or_else(|| path.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_says_its_log_only_when_it_says_more() {
        let early = Failure::early("no language found".to_owned());
        assert_eq!(early.message(), "no language found");
        let build = Failure {
            log: "main.c:1: error: x\n".to_owned(),
            detail: "the build failed".to_owned(),
            ..early
        };
        assert_eq!(build.message(), "the build failed:\nmain.c:1: error: x");
    }

    #[test]
    fn a_submission_is_named_by_its_directory() {
        assert_eq!(submission_name(Path::new("class/ann")), "ann");
        assert_eq!(submission_name(Path::new("class/ann/")), "ann");
    }
}
