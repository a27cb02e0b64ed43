//! What the sandbox promises every run, and the check that holds it to
//! that: the sandbox fails closed.
//!
//! Before its probe a sandbox promises nothing: the probe's trial run gets
//! what it can and says what it lacked. From then on the sandbox promises
//! each later run every protection that run had ([`Promise::of`]), and no
//! run that would have less is made. The guard is told what is promised
//! ([`Required`]) and does not start the program without it: no container
//! means no run, never a run without one. What the grader itself gives a
//! run (its cgroup) is checked before the run is handed over; and every
//! run's gaps are checked once more when it is over ([`Promise::broken`]).
//! A run that got less than promised is [`SandboxError::Unprotected`],
//! never a [`Run`](super::Run). With `--require-sandbox` the grading goes
//! ahead only when the probe found every protection, so every run is then
//! promised, and held to, all of them.

use super::protocol::Required;
use super::{Gaps, Missing, SandboxError};

/// The protections promised, one for each of [`Gaps`]' fields: those the
/// guard puts in force, and the grader's own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Promise {
    /// The container, Landlock and the seccomp filter.
    guard: Required,
    /// The run's cgroup.
    cgroup: bool,
    /// The `cpu` controller on the run's cgroup.
    cpu: bool,
}

impl Promise {
    /// Every protection that was in force in a run with these gaps.
    pub(super) fn of(gaps: &Gaps) -> Promise {
        Promise {
            guard: Required {
                container: gaps.namespaces.is_none(),
                landlock: gaps.landlock.is_none(),
                seccomp: gaps.seccomp.is_none(),
            },
            cgroup: gaps.cgroup.is_none(),
            cpu: gaps.cpu.is_none(),
        }
    }

    /// What the guard must put in force before it starts the program.
    pub(super) fn required(self) -> Required {
        self.guard
    }

    /// Each protection promised that a run with these gaps lacked, with
    /// why (empty when the promise was kept).
    pub(super) fn broken(self, gaps: &Gaps) -> Vec<Missing> {
        [
            (self.guard.container, "the container", &gaps.namespaces),
            (self.guard.landlock, "Landlock", &gaps.landlock),
            (self.guard.seccomp, "the seccomp filter", &gaps.seccomp),
            (self.cgroup, "the cgroup", &gaps.cgroup),
            (self.cpu, "the CPU share", &gaps.cpu),
        ]
        .into_iter()
        .filter_map(|(promised, protection, gap)| {
            gap.as_ref().filter(|_| promised).map(|why| Missing { protection, why: why.clone() })
        })
        .collect()
    }

    /// [`SandboxError::Unprotected`] when a run with these gaps got less
    /// than promised.
    pub(super) fn check(self, gaps: &Gaps) -> Result<(), SandboxError> {
        let missing = self.broken(gaps);
        if missing.is_empty() { Ok(()) } else { Err(SandboxError::Unprotected { missing }) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gaps(namespaces: Option<&str>, seccomp: Option<&str>, cpu: Option<&str>) -> Gaps {
        Gaps {
            namespaces: namespaces.map(str::to_owned),
            landlock: None,
            seccomp: seccomp.map(str::to_owned),
            cgroup: None,
            cpu: cpu.map(str::to_owned),
        }
    }

    #[test]
    fn a_run_is_held_to_what_the_probe_found_and_no_more() {
        let everything = Promise::of(&Gaps::default());
        assert_eq!(everything.required(), Required { container: true, landlock: true, seccomp: true });
        assert!(everything.check(&Gaps::default()).is_ok());
        // A machine without namespaces: the promise leaves the container out.
        let bare = Promise::of(&gaps(Some("unshare: EPERM"), None, None));
        assert!(!bare.required().container);
        assert!(bare.check(&gaps(Some("unshare: EPERM"), None, None)).is_ok());
        // …but not the filter, which that machine had.
        assert!(bare.check(&gaps(Some("unshare: EPERM"), Some("EINVAL"), None)).is_err());
        // Before the probe, nothing is promised.
        assert!(Promise::default().check(&gaps(Some("a"), Some("b"), Some("c"))).is_ok());
        assert_eq!(Promise::default().required(), Required::default());
    }

    #[test]
    fn a_broken_promise_names_each_protection_missing_and_why() {
        let everything = Promise::of(&Gaps::default());
        let error =
            everything.check(&gaps(Some("unshare: EPERM"), None, Some("no cpu controller"))).unwrap_err();
        assert_eq!(
            error.to_string(),
            "the run was refused: it lacked protections the sandbox promised when the grading began: \
             the container: unshare: EPERM; the CPU share: no cpu controller"
        );
        let SandboxError::Unprotected { missing } = error else { panic!("{error:?}") };
        assert_eq!(missing.len(), 2);
        assert_eq!(missing[0], Missing { protection: "the container", why: "unshare: EPERM".to_owned() });
    }
}
