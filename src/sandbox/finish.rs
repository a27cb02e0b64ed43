//! What became of a run, read once its guard is done with it: the guard's
//! report, what the run's cgroup and the guard's standard error say, and
//! the run's answer and output, made into a [`Run`] (or why there is
//! none).

use std::fs;
use std::path::Path;
use std::time::Duration;

use super::cgroup;
use super::files::read_capped;
use super::promise::Promise;
use super::protocol::{Closed, Line};
use super::wait::Waited;
use super::{Collect, Ending, Gaps, Job, Outcome, Run, Sandbox, SandboxError};

/// What a run's cgroup says of its memory, and why there is none; with
/// what its guard wrote on standard error.
pub(super) fn settled(group: &Result<cgroup::RunGroup, String>, failure: String) -> Settled {
    let (out_of_memory, peak) = group.as_ref().map_or((false, None), |g| (g.out_of_memory(), g.peak()));
    let Gaps { cgroup: no_cgroup, cpu: no_cpu, .. } = group_gaps(group);
    Settled { out_of_memory, peak, no_cgroup, no_cpu, failure }
}

/// The gaps a run's cgroup leaves (none but `cgroup` and `cpu`), known
/// before the run is handed over.
pub(super) fn group_gaps(group: &Result<cgroup::RunGroup, String>) -> Gaps {
    Gaps {
        cgroup: group.as_ref().err().cloned(),
        cpu: group.as_ref().map_or_else(|why| Some(why.clone()), cgroup::RunGroup::no_cpu),
        ..Gaps::default()
    }
}

/// A run whose wait is over: how, its report, its wall-clock time, and
/// what its cgroup and guard said.
pub(super) struct Over {
    pub(super) waited: Waited,
    pub(super) report: Vec<u8>,
    pub(super) wall: Duration,
    pub(super) settled: Settled,
}

/// What a run's guard found once the run was over.
pub(super) struct Settled {
    /// Whether the kernel killed a process of the run for want of memory.
    out_of_memory: bool,
    /// The run's peak memory, from its cgroup.
    peak: Option<u64>,
    /// Why the run had no cgroup.
    no_cgroup: Option<String>,
    /// Why the run's cgroup had no `cpu` controller (or there was no cgroup).
    no_cpu: Option<String>,
    /// What the guard wrote on standard error (read only when the run
    /// did not report its end from a container).
    failure: String,
}

/// The outcome of a run whose end no guard reported: timed out, with
/// nothing measured but its wall-clock time.
fn unreported(wall: Duration) -> Outcome {
    Outcome {
        ending: Ending::TimedOut,
        wall,
        cpu: Duration::ZERO,
        max_rss: 0,
        written: 0,
        disk_full: false,
        out_of_memory: false,
    }
}

/// Reads the guard's report lines: the outcome (timed out unless it
/// ended), why there is no answer (`Err`, empty when it did not say), and
/// whether the program ended. Anything that is not a report fails the run.
fn read_report(
    report: &str,
    wall: Duration,
    gaps: &mut Gaps,
) -> Result<(Outcome, Result<(), String>, bool), SandboxError> {
    let mut outcome = unreported(wall);
    let mut answer = Err(String::new());
    let mut ended = false;
    for line in report.lines() {
        match serde_json::from_str::<Line>(line) {
            Ok(Line::Namespaces(why)) => gaps.namespaces = why,
            Ok(Line::Confined { landlock, seccomp }) => {
                gaps.landlock = landlock;
                gaps.seccomp = seccomp;
            }
            Ok(Line::Ended { code, signal, cpu_us, max_rss_kb, written, full, answer: why, timed_out }) => {
                ended = true;
                outcome.cpu = Duration::from_micros(cpu_us);
                outcome.max_rss = max_rss_kb * 1024;
                outcome.written = written;
                outcome.disk_full = full;
                outcome.ending = match (signal, code) {
                    _ if timed_out => Ending::TimedOut,
                    (Some(signal), _) => Ending::Signalled(signal),
                    (None, code) => Ending::Exited(code.unwrap_or(-1)),
                };
                answer = why.map_or(Ok(()), Err);
            }
            Ok(Line::Failed(why) | Line::Closed(Closed::Failed(why) | Closed::NoContainer(why))) => {
                return Err(SandboxError::Guard(why));
            }
            Ok(Line::Closed(Closed::Done)) => {}
            Err(_) => {
                return Err(SandboxError::Guard(format!("unreadable report `{}`", line.escape_debug())));
            }
        }
    }
    Ok((outcome, answer, ended))
}

impl Sandbox {
    /// Reads a run's report, answer and output once its guard is done with
    /// it; a run that lacked a protection `promise` promised (the guard
    /// then refuses to start the program, and says what it lacked) is
    /// [`SandboxError::Unprotected`], whatever else it reported.
    pub(super) fn finish(job: &Job, area: &Path, over: Over, promise: Promise) -> Result<Run, SandboxError> {
        let start = SandboxError::Start;
        let Over { waited, report, wall, settled } = over;
        if waited == Waited::Stopped {
            return Err(SandboxError::Interrupted);
        }
        let timed_out = waited == Waited::TimedOut;

        let mut gaps = Gaps { cgroup: settled.no_cgroup, cpu: settled.no_cpu, ..Gaps::default() };
        // Process 1 or the launcher, in the run's cgroup, may be the
        // process the kernel kills when the run is out of memory: the run
        // then ended at its memory limit, not for a fault of the guard.
        let killed = settled.out_of_memory && !timed_out;
        let read = read_report(&String::from_utf8_lossy(&report), wall, &mut gaps);
        promise.check(&gaps)?;
        let (mut outcome, answer, ended) = match read {
            Err(SandboxError::Guard(_)) if killed => (unreported(wall), Err(String::new()), false),
            read => read?,
        };
        outcome.out_of_memory = settled.out_of_memory;
        if let Some(peak) = settled.peak {
            outcome.max_rss = peak;
        }
        if timed_out {
            outcome.ending = Ending::TimedOut;
        } else if !ended && killed {
            outcome.ending = Ending::Signalled(nix::libc::SIGKILL);
        } else if !ended {
            let failure = settled.failure;
            let why =
                if failure.trim().is_empty() { "it ended without a report".to_owned() } else { failure };
            return Err(SandboxError::Guard(why.trim().to_owned()));
        }
        let out = area.join("out");
        let limit = job.limits.output;
        let answer = match (&job.collect, answer) {
            (Collect::File(_), Ok(())) => {
                read_capped(&out.join("answer"), limit).ok_or_else(|| "no answer".to_owned())
            }
            (Collect::File(_), Err(why)) if !why.is_empty() => Err(why),
            (Collect::File(name), Err(_)) => Err(format!("it wrote no {name}")),
            // A tree that could not be copied out whole (too deep, too
            // many files) is no build: what was copied is left behind.
            (Collect::Tree(_), Err(why)) if !why.is_empty() => {
                Err(format!("its files could not be kept: {why}"))
            }
            (Collect::Tree(to), _) => {
                if ended {
                    fs::rename(out.join("tree"), to).map_err(start)?;
                }
                Ok(Vec::new())
            }
            (Collect::Nothing, _) => Ok(Vec::new()),
        };
        Ok(Run {
            outcome,
            stdout: read_capped(&out.join("stdout"), limit).unwrap_or_default(),
            stderr: read_capped(&out.join("stderr"), limit).unwrap_or_default(),
            answer,
            gaps,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::Limits;

    fn job() -> Job {
        Job {
            argv: vec!["./prog".to_owned()],
            start: None,
            files: Vec::new(),
            stdin: None,
            collect: Collect::File("TTTgame.txt".to_owned()),
            limits: Limits {
                wall: Duration::from_secs(1),
                cpu: Duration::from_secs(1),
                memory: 32 << 20,
                output: 1 << 20,
                processes: 8,
                open_files: 64,
            },
            env: Vec::new(),
        }
    }

    /// The end of a run whose guard reported `lines`, its wait over as
    /// `waited`, held to `promise`.
    fn finished(lines: &[Line], out_of_memory: bool, promise: Promise) -> Result<Run, SandboxError> {
        let area = tempfile::tempdir().unwrap();
        fs::create_dir(area.path().join("out")).unwrap();
        let report: String = lines.iter().map(|line| serde_json::to_string(line).unwrap() + "\n").collect();
        let settled = Settled {
            out_of_memory,
            peak: Some(32 << 20),
            no_cgroup: None,
            no_cpu: None,
            failure: String::new(),
        };
        let over =
            Over { waited: Waited::Closed, report: report.into_bytes(), wall: Duration::ZERO, settled };
        Sandbox::finish(&job(), area.path(), over, promise)
    }

    /// A run whose guard failed after its process 1 started, as a guard
    /// killed by the kernel reports it.
    fn failed(out_of_memory: bool) -> Result<Run, SandboxError> {
        let why = "the run's init failed: process(/proc/self/exe) received signal SIGKILL";
        finished(
            &[Line::Namespaces(None), Line::Closed(Closed::Failed(why.to_owned()))],
            out_of_memory,
            Promise::default(),
        )
    }

    fn ended() -> Line {
        Line::Ended {
            code: Some(0),
            signal: None,
            cpu_us: 0,
            max_rss_kb: 0,
            written: 0,
            full: false,
            answer: None,
            timed_out: false,
        }
    }

    /// A guard that refused to run without the container it was promised
    /// (it says why there is none, then fails) is a refused run that names
    /// the container, not a guard's failure.
    #[test]
    fn a_run_refused_for_want_of_its_container_says_so() {
        let promise = Promise::of(&Gaps::default());
        let lines = [
            Line::Namespaces(Some("unshare: EPERM".to_owned())),
            Line::Failed("no container could be made (unshare: EPERM)".to_owned()),
        ];
        let error = finished(&lines, false, promise).unwrap_err();
        assert!(
            matches!(&error, SandboxError::Unprotected { missing } if missing.len() == 1
                && missing[0].protection == "the container" && missing[0].why == "unshare: EPERM"),
            "{error:?}"
        );
    }

    /// A run that got less than promised and ran all the same (a guard
    /// that did not hold to it) is refused when it is over: what it did
    /// is never handed back as a run.
    #[test]
    fn a_run_that_ran_with_less_than_promised_is_not_handed_back() {
        let promise = Promise::of(&Gaps::default());
        let lines = [
            Line::Namespaces(None),
            Line::Confined { landlock: None, seccomp: Some("EINVAL".to_owned()) },
            ended(),
        ];
        let error = finished(&lines, false, promise).unwrap_err();
        assert!(error.to_string().ends_with("the seccomp filter: EINVAL"), "{error}");
        // Where nothing was promised, the same run is a run, its gap said.
        let run = finished(&lines, false, Promise::default()).unwrap();
        assert_eq!(run.gaps.seccomp.as_deref(), Some("EINVAL"));
    }

    #[test]
    fn a_guard_killed_for_the_runs_memory_is_a_run_killed_at_its_memory_limit() {
        let run = failed(true).unwrap();
        assert_eq!(run.outcome.ending, Ending::Signalled(nix::libc::SIGKILL));
        assert!(run.outcome.out_of_memory);
        assert_eq!(run.answer, Err("it wrote no TTTgame.txt".to_owned()));
        assert_eq!(run.gaps.namespaces, None);
    }

    #[test]
    fn a_guard_that_failed_otherwise_fails_the_run_and_says_why() {
        let error = failed(false).unwrap_err();
        assert_eq!(
            error.to_string(),
            "the guard failed: the run's init failed: process(/proc/self/exe) received signal SIGKILL"
        );
    }
}
