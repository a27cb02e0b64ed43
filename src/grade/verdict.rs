//! The verdict on a finished run, decided without running anything: which
//! of [`Verdict`]'s verdicts applies when several could (the time limit,
//! then the output limit, then a crash, then no answer, then the
//! comparison), the score, and what the reports say of how it ended.

use super::{
    Io, Plan, SHOWN_BYTES, SHOWN_LINES, STDERR_BYTES, STDERR_LINES, Test, TestResult, Verdict, WARNINGS_TEST,
};
use crate::check::{Comparison, compare};
use crate::outcome::{End, Ending, Limits, Outcome, Run, describe_ending, megabytes, signal_name};
use crate::play::judge::{self, Departure, DepartureKind};
use crate::play::{Profile, Side};
use crate::text;
use std::fmt::Write as _;

/// The verdict on a finished run of `test`, which read and wrote as `io`
/// says: see [`Verdict`] for the order.
pub(super) fn judge(test: &Test, run: &Run, io: &Io, plan: &Plan) -> TestResult {
    if let Io::Console { profile, sides, seed } = io {
        return judge_game(test, run, (*profile, *sides, *seed), plan);
    }
    let limits = &plan.limits;
    let outcome = &run.outcome;
    let signal = match outcome.ending {
        Ending::Signalled(s) => Some(s),
        _ => None,
    };
    let answer: Result<&[u8], &str> = match (io, &run.answer) {
        (Io::Files { .. } | Io::Args, Ok(bytes)) => Ok(bytes),
        (Io::Files { .. } | Io::Args, Err(why)) => Err(why),
        (Io::Stdout | Io::Console { .. }, _) => Ok(&run.stdout),
    };
    let mut comparison: Option<Comparison> = None;
    let (verdict, detail) = if let Some(ended) = ended_badly(run, limits) {
        ended
    } else {
        match answer {
            Err(why) if run.stdout.is_empty() => (Verdict::NoOutput, why.to_owned()),
            Err(why) => (
                Verdict::NoOutput,
                format!("{why}, but {} bytes on standard output", text::thousands(run.stdout.len())),
            ),
            Ok([]) => (Verdict::NoOutput, "its answer is empty".to_owned()),
            Ok(answer) => {
                let c = compare(&test.expected, answer, plan.check);
                let verdict = if c.matches() { Verdict::Pass } else { Verdict::Wrong };
                let detail = match &c.first_difference {
                    // Counted as the score counts them, blank lines left out:
                    // "non-blank" says why 40 lines match in a file of 51.
                    None => format!("all {} non-blank lines match", c.expected),
                    Some(d) => format!(
                        "the first difference: {}; {} of {} non-blank lines match, {} written",
                        d.at(),
                        c.matched,
                        c.expected,
                        text::thousands(c.actual)
                    ),
                };
                comparison = Some(c);
                (verdict, detail)
            }
        }
    };
    let score = match verdict {
        Verdict::Pass => 1.0,
        Verdict::Wrong if plan.partial => comparison.as_ref().map_or(0.0, Comparison::score),
        _ => 0.0,
    };
    TestResult {
        test: test.name.clone(),
        verdict,
        score,
        detail,
        wall: outcome.wall.as_secs_f64(),
        cpu: outcome.cpu.as_secs_f64(),
        exit_status: exit_status(outcome),
        signal: signal.map(signal_name),
        lines_matched: comparison.as_ref().map(|c| (c.matched, c.expected)),
        lines_found: comparison.as_ref().map(|c| c.actual),
        unmatched: comparison.as_ref().map(|c| c.unmatched.clone()).unwrap_or_default(),
        first_difference: comparison.and_then(|c| c.first_difference),
        expected: shown(&test.expected),
        actual: answer.map(shown).unwrap_or_default(),
        stderr: if verdict == Verdict::Pass { String::new() } else { tail(&run.stderr) },
        smallest_failing_input: None,
        choices: Vec::new(),
    }
}

/// How a run that did not end well ended, in the order of [`Verdict`]: the
/// time limit, then the output limit, then a crash ([`End`] decides);
/// `None` for a run that exited with status 0 within its limits.
fn ended_badly(run: &Run, limits: &Limits) -> Option<(Verdict, String)> {
    let outcome = &run.outcome;
    Some(match End::of(run, limits) {
        End::TimeLimit | End::CpuLimit(_) => (Verdict::TimeLimit, describe_ending(outcome, limits)),
        End::OutputLimit => {
            (Verdict::OutputLimit, format!("it wrote more than {}", megabytes(limits.output)))
        }
        End::OutOfMemory => (
            Verdict::Crashed,
            format!(
                "{} (memory: it reached the {} limit)",
                describe_ending(outcome, limits),
                megabytes(limits.memory)
            ),
        ),
        End::Killed(_) | End::Exited(_) => (Verdict::Crashed, describe_ending(outcome, limits)),
        End::Clean => return None,
    })
}

/// The verdict on a console program's run, judged by the game it shows
/// ([`crate::play::judge`]): the first departure from the game the
/// assignment allows is `wrong`, whatever the program did after; a run that
/// stopped while still on the script is judged by how it ended; and once the
/// script has ended mid-game, what the program does at the end of its input
/// (an exception, a loop) is not held against it.
fn judge_game(test: &Test, run: &Run, console: (Profile, [Side; 2], u64), plan: &Plan) -> TestResult {
    let (profile, sides, seed) = console;
    let limits = &plan.limits;
    let ended = ended_badly(run, limits);
    let (verdict, detail, expected, choices) =
        match judge::judge(profile, sides, seed, &test.input, &run.stdout) {
            Err(e) => {
                (Verdict::Crashed, format!("the profile cannot replay its game: {e}"), Vec::new(), Vec::new())
            }
            Ok(judged) => {
                let (verdict, detail) = match judged.departure {
                    Some(Departure { kind: DepartureKind::Wrong, why }) => (Verdict::Wrong, why),
                    Some(Departure { kind: DepartureKind::Short, why }) => match ended {
                        Some(ended) => ended,
                        None if run.stdout.is_empty() => {
                            (Verdict::NoOutput, "its answer is empty".to_owned())
                        }
                        None => (Verdict::Wrong, why),
                    },
                    None if !judged.finished => (
                        Verdict::Pass,
                        "its game is one the assignment allows, as far as the script goes".to_owned(),
                    ),
                    None => ended.unwrap_or_else(|| {
                        (Verdict::Pass, "its game is one the assignment allows".to_owned())
                    }),
                };
                (verdict, detail, judged.expected, judged.choices)
            }
        };
    let outcome = &run.outcome;
    TestResult {
        test: test.name.clone(),
        verdict,
        score: if verdict == Verdict::Pass { 1.0 } else { 0.0 },
        detail,
        wall: outcome.wall.as_secs_f64(),
        cpu: outcome.cpu.as_secs_f64(),
        exit_status: exit_status(outcome),
        signal: match outcome.ending {
            Ending::Signalled(s) => Some(signal_name(s)),
            _ => None,
        },
        expected: shown(&expected),
        actual: shown(&run.stdout),
        stderr: if verdict == Verdict::Pass { String::new() } else { tail(&run.stderr) },
        choices,
        ..TestResult::not_run(&test.name, verdict, String::new())
    }
}

/// The status a run exited with, if it exited.
fn exit_status(outcome: &Outcome) -> Option<i32> {
    match outcome.ending {
        Ending::Exited(code) => Some(code),
        _ => None,
    }
}

/// Bytes to show: at most [`SHOWN_BYTES`] and [`SHOWN_LINES`] lines, as
/// text, each line longer than [`text::LINE_BYTES`] cut with its length
/// said.
pub(super) fn shown(bytes: &[u8]) -> String {
    text::shown_lines(bytes, SHOWN_BYTES, SHOWN_LINES)
}

/// The end of a program's standard error: its last [`STDERR_LINES`] lines,
/// at most [`STDERR_BYTES`], with `…` where it was cut.
pub(super) fn tail(stderr: &[u8]) -> String {
    text::tail(stderr, STDERR_LINES, STDERR_BYTES)
}

/// What marks a line of a build's output as a warning: gcc, g++, clang and
/// javac all print it (javac's `Note:` lines are not warnings).
const WARNING_MARK: &str = "warning:";

/// The [`WARNINGS_TEST`] of a build that succeeded with `log` (`None`: the
/// submission needs no build), whose files held `silencers` (pragmas that
/// hide warnings, each where it is and what, as the workshop found them:
/// plain words, so the verdict needs nothing of the workshop): `pass` when no line of the log is a warning and nothing
/// hides one, else `wrong`. Its detail counts the warnings, then names the
/// first silencer (file, line, what) and counts the others; its `actual`
/// holds the warnings, then a line for each silencer (the log is already
/// cut as build logs are, so the warnings are too).
pub(super) fn warnings_test(log: Option<&str>, silencers: &[(String, String)]) -> TestResult {
    let warnings: Vec<&str> =
        log.unwrap_or_default().lines().filter(|line| line.contains(WARNING_MARK)).collect();
    if warnings.is_empty() && silencers.is_empty() {
        let detail = if log.is_some() { "the build printed no warning" } else { "no build, so no warning" };
        return TestResult {
            score: 1.0,
            ..TestResult::not_run(WARNINGS_TEST, Verdict::Pass, detail.to_owned())
        };
    }
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let mut said = Vec::new();
    if !warnings.is_empty() {
        said.push(format!("{} compiler warning{}", text::thousands(warnings.len()), plural(warnings.len())));
    }
    if let Some((place, what)) = silencers.first() {
        let others = match silencers.len() - 1 {
            0 => String::new(),
            n => format!(" (and {n} more)"),
        };
        said.push(format!("warnings hidden: {place}: {what}{others}"));
    }
    let mut actual = String::new();
    for warning in warnings {
        actual.push_str(warning);
        actual.push('\n');
    }
    for (place, what) in silencers {
        let _ = writeln!(actual, "{place}: hides warnings: {what}");
    }
    TestResult {
        actual: text::said(&actual, SHOWN_BYTES).into_owned(),
        ..TestResult::not_run(WARNINGS_TEST, Verdict::Wrong, said.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{CheckOptions, Header};
    use crate::grade::{Mode, Program, Programs, TEST_LIMITS, build_limits};
    use crate::referee;
    use crate::sandbox::copy;
    use nix::libc::{SIGKILL, SIGSEGV, SIGXCPU, SIGXFSZ};
    use std::time::Duration;

    const EXPECTED: &str = "Programmer: A\nP\n\nMove 1: X 5\n- - -\n- X -\n- - -\n\nWinner: None\n";

    fn plan(partial: bool) -> Plan {
        Plan {
            mode: Mode::Program(Program {
                tests: Vec::new(),
                programs: Programs::Given { build: None, run: "./prog".to_owned() },
                io: files(),
                layout: referee::Options::default(),
                warnings: false,
                provided: None,
            }),
            limits: TEST_LIMITS,
            build_limits: build_limits(&TEST_LIMITS),
            jobs: 1,
            partial,
            check: CheckOptions { exact: false, header: Header::Label },
            copy_caps: copy::Caps::SUBMISSION,
            require_sandbox: false,
            shrink: None,
            seed: None,
        }
    }

    /// The verdict on `run` of the test, read and written as `io` says.
    fn judge_with(io: &Io, partial: bool, run: &Run) -> TestResult {
        judge(&test(), run, io, &plan(partial))
    }

    fn files() -> Io {
        Io::Files { input: "TTTmoves.txt".to_owned(), output: "TTTgame.txt".to_owned() }
    }

    fn test() -> Test {
        Test {
            name: "t".to_owned(),
            input: b"Game\n".to_vec(),
            expected: EXPECTED.as_bytes().to_vec(),
            complete: false,
        }
    }

    /// A run that ended with `ending`, and wrote `answer` as its file.
    fn run(ending: Ending, answer: Result<&str, &str>) -> Run {
        Run {
            answer: answer.map(|a| a.as_bytes().to_vec()).map_err(str::to_owned),
            ..crate::outcome::made_up::run(ending)
        }
    }

    /// Every way a run can end, each with what else could apply, and the
    /// one verdict that wins.
    #[test]
    #[allow(clippy::too_many_lines, reason = "a table, one row per way a run can end")]
    fn the_first_verdict_that_applies_wins() {
        let wrong = EXPECTED.replace("Winner: None", "Winner: X");
        let cases: Vec<(&str, Run, Verdict, &str)> = vec![
            (
                "timed out, wrong",
                run(Ending::TimedOut, Ok(&wrong)),
                Verdict::TimeLimit,
                "was stopped at the time limit (2 s)",
            ),
            (
                "SIGXCPU, over the output limit",
                {
                    let mut r = run(Ending::Signalled(SIGXCPU), Ok(EXPECTED));
                    r.outcome.written = u64::MAX;
                    r
                },
                Verdict::TimeLimit,
                "used its CPU time (2 s) and was killed by SIGXCPU",
            ),
            (
                "SIGKILL at the CPU limit",
                {
                    let mut r = run(Ending::Signalled(SIGKILL), Ok(EXPECTED));
                    r.outcome.cpu = Duration::from_secs(3);
                    r
                },
                Verdict::TimeLimit,
                "used its CPU time (2 s) and was killed by SIGKILL",
            ),
            (
                "over the output limit, crashed",
                {
                    let mut r = run(Ending::Exited(3), Ok(EXPECTED));
                    r.outcome.written = (16 << 20) + 1;
                    r
                },
                Verdict::OutputLimit,
                "it wrote more than 16 MB",
            ),
            (
                "SIGXFSZ",
                run(Ending::Signalled(SIGXFSZ), Ok(EXPECTED)),
                Verdict::OutputLimit,
                "it wrote more than 16 MB",
            ),
            (
                "its box full",
                {
                    let mut r = run(Ending::Exited(0), Ok(EXPECTED));
                    r.outcome.disk_full = true;
                    r
                },
                Verdict::OutputLimit,
                "it wrote more than 16 MB",
            ),
            (
                "a right answer, then exit 3",
                run(Ending::Exited(3), Ok(EXPECTED)),
                Verdict::Crashed,
                "exited with status 3",
            ),
            (
                "SIGSEGV, no answer",
                run(Ending::Signalled(SIGSEGV), Err("it wrote no TTTgame.txt")),
                Verdict::Crashed,
                "was killed by SIGSEGV",
            ),
            (
                "killed at the memory limit",
                {
                    let mut r = run(Ending::Signalled(SIGKILL), Err("it wrote no TTTgame.txt"));
                    r.outcome.out_of_memory = true;
                    r
                },
                Verdict::Crashed,
                "was killed by SIGKILL (memory: it reached the 512 MB limit)",
            ),
            (
                "no answer",
                run(Ending::Exited(0), Err("it wrote no TTTgame.txt")),
                Verdict::NoOutput,
                "it wrote no TTTgame.txt",
            ),
            (
                "no answer, but standard output",
                {
                    let mut r = run(Ending::Exited(0), Err("it wrote no TTTgame.txt"));
                    r.stdout = vec![b'x'; 1234];
                    r
                },
                Verdict::NoOutput,
                "it wrote no TTTgame.txt, but 1,234 bytes on standard output",
            ),
            ("an empty answer", run(Ending::Exited(0), Ok("")), Verdict::NoOutput, "its answer is empty"),
            (
                "a wrong answer",
                run(Ending::Exited(0), Ok(&wrong)),
                Verdict::Wrong,
                "the first difference: expected line 9, found line 9; 6 of 7 non-blank lines match, 7 written",
            ),
            (
                "the right answer",
                run(Ending::Exited(0), Ok(EXPECTED)),
                Verdict::Pass,
                "all 7 non-blank lines match",
            ),
        ];
        for (case, ran, verdict, detail) in cases {
            let result = judge_with(&files(), false, &ran);
            assert_eq!((result.verdict, result.detail.as_str()), (verdict, detail), "{case}");
            let score = if verdict == Verdict::Pass { 1.0 } else { 0.0 };
            assert!((result.score - score).abs() < f64::EPSILON, "{case}: {}", result.score);
        }
    }

    #[test]
    fn partial_credit_goes_to_a_wrong_answer_only() {
        let wrong = EXPECTED.replace("Winner: None", "Winner: X");
        let result = judge_with(&files(), true, &run(Ending::Exited(0), Ok(&wrong)));
        assert_eq!(result.verdict, Verdict::Wrong);
        assert!((result.score - 12.0 / 14.0).abs() < 1e-9, "{}", result.score);
        assert_eq!((result.lines_matched, result.lines_found), (Some((6, 7)), Some(7)));
        // A crash scores nothing, however right its answer.
        let crashed = judge_with(&files(), true, &run(Ending::Exited(1), Ok(EXPECTED)));
        assert!(crashed.score.abs() < f64::EPSILON);
    }

    #[test]
    fn standard_output_is_the_answer_where_the_plan_says() {
        let mut ran = run(Ending::Exited(0), Err("unused"));
        ran.stdout = EXPECTED.as_bytes().to_vec();
        assert_eq!(judge_with(&Io::Stdout, false, &ran).verdict, Verdict::Pass);
        assert_eq!(judge_with(&files(), false, &ran).verdict, Verdict::NoOutput);
    }

    #[test]
    fn a_failing_runs_standard_error_is_kept_a_passing_ones_is_not() {
        let mut ran = run(Ending::Exited(2), Ok(EXPECTED));
        ran.stderr = b"trace\n".repeat(100);
        let result = judge_with(&files(), false, &ran);
        assert!(result.stderr.starts_with("…\n") && result.stderr.lines().count() == STDERR_LINES + 1);
        ran.outcome.ending = Ending::Exited(0);
        assert_eq!(judge_with(&files(), false, &ran).stderr, "");
    }

    #[test]
    fn a_build_that_warns_fails_the_warnings_test_with_its_warnings() {
        let log = "main.cpp: In function 'int main()':\n\
                   main.cpp:4:9: warning: unused variable 'x' [-Wunused-variable]\n\
                   \x20   4 |     int x;\n\
                   board.cpp:9:23: warning: comparison of integer expressions of different signedness\n\
                   Note: Main.java uses unchecked or unsafe operations.\n";
        let test = warnings_test(Some(log), &[]);
        assert_eq!((test.test.as_str(), test.verdict, test.score), (WARNINGS_TEST, Verdict::Wrong, 0.0));
        assert_eq!(test.detail, "2 compiler warnings");
        assert_eq!(
            test.actual,
            "main.cpp:4:9: warning: unused variable 'x' [-Wunused-variable]\n\
             board.cpp:9:23: warning: comparison of integer expressions of different signedness\n"
        );
        assert_eq!(warnings_test(Some("a.c:1:1: warning: x\n"), &[]).detail, "1 compiler warning");
    }

    #[test]
    fn a_quiet_build_or_none_passes_the_warnings_test() {
        let quiet = warnings_test(Some("Note: Main.java uses unchecked or unsafe operations.\n"), &[]);
        assert_eq!(
            (quiet.verdict, quiet.score, quiet.detail.as_str()),
            (Verdict::Pass, 1.0, "the build printed no warning")
        );
        let none = warnings_test(None, &[]);
        assert_eq!(
            (none.verdict, none.score, none.detail.as_str()),
            (Verdict::Pass, 1.0, "no build, so no warning")
        );
    }

    #[test]
    fn a_pragma_that_hides_warnings_fails_the_warnings_test_naming_it() {
        let hidden = [
            ("board.h:1".to_owned(), "#pragma GCC system_header".to_owned()),
            ("mine.h.gch".to_owned(), "a precompiled header".to_owned()),
        ];
        let test = warnings_test(Some(""), &hidden);
        assert_eq!((test.verdict, test.score), (Verdict::Wrong, 0.0));
        assert_eq!(test.detail, "warnings hidden: board.h:1: #pragma GCC system_header (and 1 more)");
        assert_eq!(
            test.actual,
            "board.h:1: hides warnings: #pragma GCC system_header\nmine.h.gch: hides warnings: a precompiled header\n"
        );
        // Shown where warnings are, after them.
        assert_eq!(test.warnings(), Some(test.actual.as_str()));
        let both = warnings_test(Some("a.c:1:1: warning: x\n"), &hidden[..1]);
        assert_eq!(both.detail, "1 compiler warning; warnings hidden: board.h:1: #pragma GCC system_header");
        assert_eq!(
            both.actual,
            "a.c:1:1: warning: x\nboard.h:1: hides warnings: #pragma GCC system_header\n"
        );
    }
}
