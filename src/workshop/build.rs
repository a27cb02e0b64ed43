//! The one build of a submission (or of a harness beside it), in the
//! sandbox: the built tree and its log, the log of a build that failed, or
//! why the build could not be made (the grader's fault, not the
//! submission's).
//!
//! A build is bounded the way a run is: every JVM it starts (`javac`, a
//! Makefile's `java`, a harness's compiler) is given a heap, a number of
//! processors and reserved areas sized to the build's limits, through
//! `JAVA_TOOL_OPTIONS`, which every JVM reads, and glibc's malloc is held to
//! two arenas (`MALLOC_ARENA_MAX`); left to itself the JVM sizes its heap
//! and threads from the whole machine, each thread's malloc arena reserves
//! 64 MB, and where there is no cgroup and only an address-space limit
//! holds, javac fails at random (`There is insufficient memory for the Java
//! Runtime Environment to continue`: 6 builds of 11 of a six-file class failed
//! as an unused uid with no cgroup on a 2-core machine; with these, 20 of 20
//! built). A build that still fails for want of what the sandbox gives
//! (killed at the memory limit, a JVM or a fork refused) is the grader's
//! error, said with its reason: never `build-failed`, which costs the
//! student every test.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::outcome::{Run, Stopped, describe_ending, megabytes};
use crate::sandbox::{Collect, Ending, Job, Limits, Sandbox, SandboxError};
use crate::text;

/// The most of a build's output reports keep to show: half from its
/// standard output, half from its standard error.
pub const BUILD_LOG_BYTES: usize = 64 << 10;

/// How a build went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Build {
    /// It built: the tree to run from, and what the build said.
    Built {
        /// The build's directory.
        dir: PathBuf,
        /// Its log.
        log: String,
    },
    /// It failed: its log, ending with how.
    Failed {
        /// Its log.
        log: String,
    },
    /// The sandbox refused to run it: a protection promised when the
    /// grading began was missing. The grader's fault, not the build's.
    Refused {
        /// Why, in words.
        why: String,
    },
    /// It failed for the sandbox's reason, not the submission's: it ran
    /// out of the memory or processes a build is given, or the sandbox
    /// could not run it. The grader's error.
    Starved {
        /// Its log, ending with the reason.
        log: String,
        /// The reason in words that follow "the build": `ran out of
        /// memory (4096 MB): …`.
        why: String,
    },
}

/// The variable every JVM reads its extra options from (`javac` and `java`
/// alike, whatever starts them).
pub const JAVA_OPTIONS: &str = "JAVA_TOOL_OPTIONS";

/// The JVM's options in a build within `limits`: a heap of a quarter of
/// its memory, one processor (one compiler thread, no parallel collector
/// threads), the client compiler alone, and reserved areas small enough
/// that the whole address space fits under the limit where only an
/// address-space limit holds (no cgroup).
#[must_use]
pub fn build_jvm_options(limits: &Limits) -> String {
    let heap = ((limits.memory >> 20) / 4).max(64);
    format!(
        "-Xmx{heap}m -Xss1m -XX:+UseSerialGC -XX:ActiveProcessorCount=1 -XX:TieredStopAtLevel=1 \
         -XX:ReservedCodeCacheSize=64m -XX:MaxMetaspaceSize=256m -XX:CompressedClassSpaceSize=64m"
    )
}

/// The line a JVM prints on standard error when it reads
/// [`JAVA_OPTIONS`]: the grader's, taken out of the build's log.
fn picked_up(options: &str) -> String {
    format!("Picked up {JAVA_OPTIONS}: {options}")
}

/// What builds print when the sandbox, not the source, made them fail: a
/// JVM that could not start or start its threads, a shell or compiler that
/// could not fork, a compiler out of memory. Matched on lines that start
/// unindented or after the JVM's `# ` (compilers quote a source line
/// indented or after its number).
const STARVED_SAID: [&str; 11] = [
    "There is insufficient memory for the Java Runtime Environment",
    "Could not reserve enough space for",
    "Error occurred during initialization of VM",
    "unable to create native thread",
    "pthread_create failed",
    "Cannot fork",
    "fork: Resource temporarily unavailable",
    "fork: retry: Resource temporarily unavailable",
    "fork: Cannot allocate memory",
    "virtual memory exhausted",
    "out of memory allocating",
];

/// Why the failed build `run`, made within `limits`, failed for the
/// sandbox's reason, if it did: killed at (or grown to most of) the memory
/// limit, or said one of [`STARVED_SAID`] (its line, on standard error).
#[must_use]
pub fn starved(run: &Run, limits: &Limits) -> Option<String> {
    let outcome = &run.outcome;
    if outcome.out_of_memory || outcome.max_rss >= limits.memory / 10 * 8 {
        return Some(format!("ran out of the memory a build is given ({})", megabytes(limits.memory)));
    }
    let stderr = String::from_utf8_lossy(&run.stderr);
    // The JVM's own report of a fatal error is in lines that start `# `.
    let said = stderr.lines().find(|line| {
        let line = line.strip_prefix("# ").unwrap_or(line);
        !line.starts_with([' ', '\t']) && STARVED_SAID.iter().any(|s| line.contains(s))
    })?;
    Some(format!(
        "could not get the memory or processes it needed ({} of memory, {} processes): {}",
        megabytes(limits.memory),
        limits.processes,
        text::cut(said.strip_prefix("# ").unwrap_or(said), 300)
    ))
}

/// Builds the tree at `source` (in `area`) with the shell `command`, in
/// `sandbox` within `limits`: the build's directory (`area/built`) and its
/// log, or the log of a build that failed, ending with how it failed. For
/// submissions and harnesses alike.
///
/// # Errors
/// [`Stopped`] when the grading was stopped.
pub fn build(
    sandbox: &Sandbox,
    limits: Limits,
    area: &Path,
    source: PathBuf,
    command: &str,
) -> Result<Build, Stopped> {
    let built = area.join("built");
    let options = build_jvm_options(&limits);
    let job = Job {
        argv: vec!["/bin/sh".to_owned(), "-c".to_owned(), command.to_owned()],
        start: Some(source),
        files: Vec::new(),
        stdin: None,
        collect: Collect::Tree(built.clone()),
        limits,
        env: vec![
            (JAVA_OPTIONS.to_owned(), options.clone()),
            // glibc's malloc reserves up to 64 MB of address space for each
            // thread's arena, 8 arenas a processor: under an address-space
            // limit a JVM's threads run out of it at random.
            ("MALLOC_ARENA_MAX".to_owned(), "2".to_owned()),
        ],
    };
    match sandbox.run(&job) {
        Ok(mut run) => {
            // The grader's own line, which every JVM prints, is no part of
            // what the build said.
            let ours = picked_up(&options);
            let stderr = String::from_utf8_lossy(&run.stderr);
            if stderr.lines().any(|l| l == ours) {
                let kept: String =
                    stderr.split_inclusive('\n').filter(|l| l.trim_end_matches('\n') != ours).collect();
                run.stderr = kept.into_bytes();
            }
            // Each stream's start, cut on a character's boundary: what a
            // compiler says first is what matters.
            let mut log = text::shown(&run.stdout, BUILD_LOG_BYTES / 2);
            log.push_str(&text::shown(&run.stderr, BUILD_LOG_BYTES / 2));
            if run.outcome.ending == Ending::Exited(0) && run.answer.is_ok() {
                return Ok(Build::Built { dir: built, log });
            }
            let ending = describe_ending(&run.outcome, &limits);
            if let Some(why) = starved(&run, &limits) {
                let _ = write!(
                    log,
                    "\n[the build {ending}: it {why}; the grader's error, not the submission's]\n"
                );
                return Ok(Build::Starved { log, why });
            }
            let why = run.answer.err().map(|e| format!(" ({})", text::cut(&e, 1000))).unwrap_or_default();
            let _ = write!(log, "\n[the build {ending}{why}]\n");
            Ok(Build::Failed { log })
        }
        Err(SandboxError::Interrupted) => Err(Stopped),
        Err(e @ SandboxError::Unprotected { .. }) => Ok(Build::Refused { why: e.to_string() }),
        Err(e) => {
            let why = format!("could not be run by the sandbox: {e}");
            Ok(Build::Starved { log: format!("[the build {why}; the grader's error]\n"), why })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::made_up::{LIMITS, run};

    fn failed(stderr: &str) -> Run {
        let mut failed = run(Ending::Exited(1));
        failed.stderr = stderr.as_bytes().to_vec();
        failed
    }

    #[test]
    fn a_jvm_or_a_fork_refused_is_the_sandboxs_reason() {
        for said in [
            "#\n# There is insufficient memory for the Java Runtime Environment to continue.\n# Cannot create worker GC thread. Out of system resources.\n",
            "Error occurred during initialization of VM\nCould not reserve enough space for object heap\n",
            "[0.011s][warning][os,thread] Failed to start thread \"GC Thread#0\" - pthread_create failed (EAGAIN)\n",
            "/bin/sh: 1: Cannot fork\n",
            "make: fork: Resource temporarily unavailable\n",
            "cc1plus: out of memory allocating 65536 bytes after a total of 4000000000 bytes\n",
        ] {
            let why = starved(&failed(said), &LIMITS).unwrap_or_else(|| panic!("not the sandbox's: {said}"));
            assert!(
                why.starts_with("could not get the memory or processes it needed (512 MB of memory"),
                "{why}"
            );
        }
    }

    #[test]
    fn killed_at_the_memory_limit_is_the_sandboxs_reason() {
        let mut killed = failed("");
        killed.outcome.ending = Ending::Signalled(nix::libc::SIGKILL);
        killed.outcome.out_of_memory = true;
        assert_eq!(
            starved(&killed, &LIMITS).as_deref(),
            Some("ran out of the memory a build is given (512 MB)")
        );
    }

    #[test]
    fn a_compile_error_is_the_submissions_even_quoting_those_words() {
        for said in [
            "main.c:3:5: error: expected ';' before 'return'\n",
            // A compiler quotes the student's line indented, or after its number.
            "Main.java:3: error: ';' expected\n        String s = \"Cannot fork\"\n",
            "    3 |   puts(\"There is insufficient memory for the Java Runtime Environment\")\n",
            "",
        ] {
            assert_eq!(starved(&failed(said), &LIMITS), None, "{said}");
        }
    }

    #[test]
    fn a_builds_jvm_fits_its_limits() {
        let options = build_jvm_options(&Limits { memory: 4 << 30, ..LIMITS });
        assert!(options.starts_with("-Xmx1024m "), "{options}");
        for flag in
            ["-XX:ActiveProcessorCount=1", "-XX:+UseSerialGC", "-XX:CompressedClassSpaceSize=", "-Xss"]
        {
            assert!(options.contains(flag), "{flag} missing: {options}");
        }
        assert_eq!(picked_up("-Xmx1m"), "Picked up JAVA_TOOL_OPTIONS: -Xmx1m");
    }
}
