//! Live runs ([`Sandbox::start`]): a program kept running while the grader
//! talks with it a line at a time, every write and read with a deadline,
//! whatever the program does with its streams.

use std::sync::Arc;
use std::time::{Duration, Instant};

use ttt_referee::sandbox::{Ending, Session, Silence};

use crate::sandbox::library_sandbox;

/// A live session running `script` under `sh -c`, whose directory holds
/// `sleep` as `./{tag}` (a name no other test's process has).
fn session(script: &str, tag: &str) -> Session {
    let (sandbox, job) = library_sandbox(script);
    let build = sandbox.scratch().join("build");
    std::fs::copy("/bin/sleep", build.join(tag)).unwrap();
    sandbox.hand_over(&build).unwrap();
    Arc::new(sandbox).start(&job).unwrap()
}

fn soon() -> Instant {
    Instant::now() + Duration::from_secs(10)
}

#[test]
fn a_live_run_answers_line_after_line_and_ends_when_its_input_does() {
    let mut bot = session("while read line; do echo \"got $line\"; done; echo bye >&2", "-");
    for word in ["one", "two", "three"] {
        bot.send(format!("{word}\n").as_bytes(), soon()).unwrap();
        assert_eq!(bot.receive(soon(), 100).unwrap(), format!("got {word}").into_bytes());
    }
    let run = bot.end(Duration::from_secs(10)).unwrap();
    assert_eq!(run.outcome.ending, Ending::Exited(0));
    assert_eq!(run.stderr, b"bye\n");
}

#[test]
fn a_silent_program_is_a_missed_deadline_and_is_ended_after_its_grace() {
    // It says it has started before it falls silent, so that however
    // loaded the machine, it is running (not still being set up) when its
    // deadline passes and when it is ended.
    let mut bot = session("echo started; exec ./ttt-live-silent 30", "ttt-live-silent");
    assert_eq!(bot.receive(soon(), 100).unwrap(), b"started");
    bot.send(b"3 3 3 X XO .........\n", soon()).unwrap();
    let deadline = Instant::now() + Duration::from_millis(200);
    assert_eq!(bot.receive(deadline, 100), Err(Silence::Time));
    let run = bot.end(Duration::from_millis(100)).unwrap();
    assert_eq!(run.outcome.ending, Ending::Signalled(nix::libc::SIGKILL));
    assert!(!crate::sandbox::alive("ttt-live-silent"), "the program outlived its session");
}

/// A program that floods its output is cut off at the line size the
/// grader keeps: the grader never holds more.
#[test]
fn a_flood_of_output_is_a_line_too_long_and_no_more_is_held() {
    let mut bot = session("exec tr '\\0' x < /dev/zero", "-");
    assert_eq!(bot.receive(soon(), 100), Err(Silence::TooLong(100)));
    assert_eq!(bot.receive(soon(), 100), Err(Silence::TooLong(100)));
    bot.end(Duration::ZERO).unwrap();
}

#[test]
fn a_program_that_exits_or_closes_its_output_is_closed() {
    let mut bot = session("echo 5; exit 4", "-");
    assert_eq!(bot.receive(soon(), 100).unwrap(), b"5");
    assert_eq!(bot.receive(soon(), 100), Err(Silence::Closed));
    assert_eq!(bot.end(Duration::from_secs(10)).unwrap().outcome.ending, Ending::Exited(4));

    let mut bot = session("exec >&-; exec ./ttt-live-closed 30", "ttt-live-closed");
    assert_eq!(bot.receive(soon(), 100), Err(Silence::Closed));
    let run = bot.end(Duration::from_millis(100)).unwrap();
    assert_eq!(run.outcome.ending, Ending::Signalled(nix::libc::SIGKILL));
}

/// A program that never reads its input makes the grader's writes wait
/// only until their deadline, however much is written.
#[test]
fn writes_to_a_program_that_never_reads_stop_at_their_deadline() {
    let mut bot = session("exec ./ttt-live-deaf 30", "ttt-live-deaf");
    let big = vec![b'.'; 4 << 20];
    let deadline = Instant::now() + Duration::from_millis(200);
    assert_eq!(bot.send(&big, deadline), Err(Silence::Time));
    bot.end(Duration::ZERO).unwrap();
}

/// A session dropped without being ended ends its program.
#[test]
fn a_dropped_session_ends_its_program() {
    let bot = session("exec ./ttt-live-dropped 30", "ttt-live-dropped");
    drop(bot);
    assert!(!crate::sandbox::alive("ttt-live-dropped"), "the program outlived its session");
}

/// A live run's CPU clock: a program that spins is computing and its CPU
/// time grows; one blocked reading is not computing (the guard, which
/// waits beside it, is never counted). Bounded by the run's 10 s.
#[test]
fn a_live_runs_cpu_clock_tells_a_computing_program_from_a_blocked_one() {
    for (script, computing) in
        [("read x; echo go; while :; do :; done", true), ("read x; echo go; read y", false)]
    {
        let mut bot = session(script, "-");
        let began = bot.cpu_used(false).expect("a live run's CPU time can be read");
        bot.send(b"go\n", soon()).unwrap();
        assert_eq!(bot.receive(soon(), 100).unwrap(), b"go");
        loop {
            match bot.computing() {
                Some(now) if now == computing => break,
                None => panic!("{script}: the run ended and was never seen computing: {computing}"),
                Some(_) => {}
            }
        }
        if computing {
            while bot.cpu_used(true).is_some_and(|used| used <= began) {}
            assert!(bot.cpu_used(true).is_some_and(|used| used > began), "{script}");
        }
        bot.end(Duration::ZERO).unwrap();
    }
}

/// A session ended before its program has even started (its container
/// still being made) ends the run then, not at its wall-clock limit: what
/// the grader wrote to end it is still there when the guard looks.
#[test]
fn a_session_ended_at_once_ends_its_run_not_at_its_time_limit() {
    for _ in 0..3 {
        let bot = session("exec ./ttt-live-never 30", "ttt-live-never");
        let run = bot.end(Duration::ZERO).unwrap();
        assert_ne!(run.outcome.ending, Ending::TimedOut, "it waited for its time limit");
    }
}
