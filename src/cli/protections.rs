//! The protections list as `grade` says it on standard error before it
//! grades: one line when every protection is in force; otherwise each
//! reason a protection is missing said once, with the protections it takes
//! away and what would give them back. `--verbose` adds the whole list, a
//! line a protection (`  in force  …`, `  MISSING   … (why)`), as the
//! reports keep it.

use std::fmt::Write as _;

use crate::sandbox::{Protection, Protections};
use crate::text::inert;

/// What gives back the container's protections (its own root, namespaces
/// and tmpfs, and with them no copy of the referee in reach).
const NAMESPACES: &str = "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on \
                          Ubuntu also kernel.apparmor_restrict_unprivileged_userns=0), or run as root; inside a \
                          container that refuses them (Docker's default profile, Gradescope) the container is \
                          the wall";

/// What gives back the cgroup.
const CGROUP: &str = "run as root or with a delegated cgroup (systemd-run --user --scope -p Delegate=yes \
                      ttt-referee grade ...)";

/// What gives back the CPU share where the cgroup is there without it.
const CPU: &str = "delegate the cpu controller too (systemd-run --user --scope -p 'Delegate=cpu memory pids' \
                   ttt-referee grade ...)";

/// What gives back Landlock.
const LANDLOCK: &str = "a Linux kernel of 5.13 or later with Landlock enabled (landlock in its lsm= list)";

/// What gives back the seccomp filter.
const SECCOMP: &str = "a Linux kernel with seccomp filters (CONFIG_SECCOMP_FILTER), outside a profile that \
                       refuses them";

/// The remedy for `missing`, one of `all`'s protections, by what it
/// guards: the cgroup's two, Landlock, the seccomp filter, or the
/// container's.
fn remedy(missing: &Protection, all: &[Protection]) -> &'static str {
    let cgroup_in_force = all.iter().any(|p| p.name.starts_with("a cgroup") && p.missing.is_none());
    if missing.name.starts_with("a cgroup") {
        CGROUP
    } else if missing.name.starts_with("a fair share of the CPU") {
        if cgroup_in_force { CPU } else { CGROUP }
    } else if missing.name.starts_with("Landlock") {
        LANDLOCK
    } else if missing.name.contains("(seccomp)") {
        SECCOMP
    } else {
        NAMESPACES
    }
}

/// A protection's name in short: up to its first `:`, `;` or ` (`.
fn short(name: &str) -> &str {
    let end = [": ", "; ", " ("].iter().filter_map(|mark| name.find(mark)).min().unwrap_or(name.len());
    &name[..end]
}

/// What `grade` says of `protections` on standard error, each line starting
/// `ttt-referee: ` or indented: with every one in force, one line; else how
/// many are, then for each reason (said once, in the list's order) the
/// protections it takes away and the remedy. With `verbose`, then the whole
/// list, a line a protection.
#[must_use]
pub fn said(protections: &Protections, verbose: bool) -> String {
    let all = &protections.list;
    let in_force = all.iter().filter(|p| p.missing.is_none()).count();
    let mut text = if in_force == all.len() {
        format!(
            "ttt-referee: sandbox: all {} protections in force{}\n",
            all.len(),
            if verbose { ":" } else { " (--verbose lists them)" }
        )
    } else {
        format!("ttt-referee: sandbox: {in_force} of {} protections in force; missing:\n", all.len())
    };
    // Each reason once, with the protections it takes away.
    let mut reasons: Vec<(&str, Vec<&Protection>)> = Vec::new();
    for p in all {
        let Some(why) = &p.missing else { continue };
        match reasons.iter_mut().find(|(said, _)| *said == why.as_str()) {
            Some((_, those)) => those.push(p),
            None => reasons.push((why, vec![p])),
        }
    }
    for (why, those) in &reasons {
        let names: Vec<&str> = those.iter().map(|p| short(&p.name)).collect();
        let mut remedies: Vec<&str> = those.iter().map(|p| remedy(p, all)).collect();
        remedies.dedup();
        let _ = writeln!(text, "  - {}: {}", names.join("; "), inert(why));
        for remedy in remedies {
            let _ = writeln!(text, "    remedy: {remedy}");
        }
    }
    if verbose {
        if in_force < all.len() {
            text.push_str("ttt-referee: the protections, each:\n");
        }
        text.push_str(&inert_list(protections));
    }
    text
}

/// The whole list, a line a protection (as [`Protections`]' `Display`
/// writes it), each part made inert.
fn inert_list(protections: &Protections) -> String {
    let mut text = String::new();
    for p in &protections.list {
        let _ = match &p.missing {
            None => writeln!(text, "  in force  {}", inert(&p.name)),
            Some(why) => writeln!(text, "  MISSING   {} ({})", inert(&p.name), inert(why)),
        };
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn protection(name: &str, missing: Option<&str>) -> Protection {
        Protection { name: name.to_owned(), missing: missing.map(str::to_owned) }
    }

    /// The list as a probe makes it, with what `missing` names (by the
    /// start of a name) missing for the reason given.
    fn list(missing: &[(&str, &str)]) -> Protections {
        let names = [
            "its own session, no terminal; TIOCSTI, ptrace, keyrings and new namespaces refused (seccomp)",
            "its own root: /usr, /bin; nothing of the grader's",
            "its own PID, network, IPC and UTS namespaces: every process ends with its run, no network",
            "no copy of the referee to run, by PATH, /proc or its install path",
            "a size-capped tmpfs for all it writes (any depth, unlinked)",
            "a cgroup: memory of all its processes together, and their number",
            "a fair share of the CPU: the same cgroup weight as every other run, whatever its processes",
            "Landlock: writes only in its box, reads only system directories; no TCP",
            "limits on time, CPU, file size and processes; no core files; only fds 0, 1, 2",
        ];
        let list = names
            .iter()
            .map(|name| {
                let why = missing.iter().find(|(start, _)| name.starts_with(start)).map(|&(_, why)| why);
                protection(name, why)
            })
            .collect();
        Protections { list }
    }

    #[test]
    fn every_protection_in_force_is_one_line() {
        let all = list(&[]);
        assert_eq!(
            said(&all, false),
            "ttt-referee: sandbox: all 9 protections in force (--verbose lists them)\n"
        );
        let verbose = said(&all, true);
        assert!(
            verbose.starts_with(
                "ttt-referee: sandbox: all 9 protections in force:\n  in force  its own session"
            )
        );
        assert_eq!(verbose.lines().count(), 10, "{verbose}");
    }

    #[test]
    fn each_reason_is_said_once_with_its_remedy() {
        let no_cgroup = "no cgroup v2 with memory and pids can be written by this user";
        let missing = list(&[("a cgroup", no_cgroup), ("a fair share", no_cgroup)]);
        let text = said(&missing, false);
        assert_eq!(
            text,
            format!(
                "ttt-referee: sandbox: 7 of 9 protections in force; missing:\n  - a cgroup; a fair share of the CPU: \
                 {no_cgroup}\n    remedy: {CGROUP}\n"
            )
        );
        assert_eq!(text.matches(no_cgroup).count(), 1);
        assert!(text.contains("run as root or with a delegated cgroup"));

        // Docker's default profile: the container's four for one reason,
        // the cgroup's two for another; the cpu controller alone missing
        // asks for it to be delegated.
        let docker = list(&[
            ("its own root", "unshare: EPERM"),
            ("its own PID", "unshare: EPERM"),
            ("no copy", "unshare: EPERM"),
            ("a size-capped", "unshare: EPERM"),
            ("a cgroup", "/sys/fs/cgroup cannot be written by this user: Read-only file system"),
            ("a fair share", "/sys/fs/cgroup cannot be written by this user: Read-only file system"),
        ]);
        let text = said(&docker, false);
        assert_eq!(text.lines().count(), 5, "{text}");
        assert!(text.starts_with("ttt-referee: sandbox: 3 of 9 protections in force; missing:\n"), "{text}");
        assert!(
            text.contains(
                "  - its own root; its own PID, network, IPC and UTS namespaces; no copy of the referee to run, by \
                 PATH, /proc or its install path; a size-capped tmpfs for all it writes: unshare: EPERM\n    remedy: \
                 allow unprivileged user namespaces"
            ),
            "{text}"
        );
        assert_eq!(text.matches("unshare: EPERM").count(), 1, "{text}");
        let cpu = said(
            &list(&[("a fair share", "/sys/fs/cgroup/x offers no cpu controller (not delegated)")]),
            false,
        );
        assert!(cpu.ends_with(&format!("    remedy: {CPU}\n")), "{cpu}");
        // --verbose: the whole list too, each line as before.
        let verbose = said(&docker, true);
        assert!(
            verbose.contains(
                "\n  MISSING   its own root: /usr, /bin; nothing of the grader's (unshare: EPERM)\n"
            )
        );
        assert!(verbose.contains("\n  in force  Landlock: "), "{verbose}");
    }

    #[test]
    fn a_reason_is_inert() {
        let text = said(&list(&[("Landlock", "x\u{1b}[2J\n::error::y")]), true);
        assert!(!text.contains('\u{1b}'), "{text}");
        assert!(text.contains("  - Landlock: x\\u{1b}[2J\\u{a}::error::y\n"), "{text}");
    }
}
