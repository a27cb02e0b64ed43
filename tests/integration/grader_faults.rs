//! Fault injection in the grader's own steps: each step the grader takes
//! with a submission's files (the copy, clearing old answers, the hand-over
//! to the run user, placing a harness, the clean-up) is made to fail on one
//! submission of three, and only that submission fails, with the reason in
//! its result; the grading goes on. A panic in the grader while it grades
//! one submission is caught at that submission's boundary.

use std::io;
use std::path::PathBuf;
use std::sync::Arc;

use ttt_referee::check::{CheckOptions, Header};
use ttt_referee::grade::report::{Grading, ReportError, Sink, Sinks};
use ttt_referee::grade::{
    self, Api, CallsPlan, CaseOptions, Faults, Graded, Grader, Io, Mode, Plan, Program, Programs, Step,
    SubmissionResult, TestResult, Verdict, suite,
};
use ttt_referee::referee;
use ttt_referee::sandbox::{Sandbox, copy};

use crate::util::fixture;

/// Three correct students of the class fixture.
fn students() -> Vec<PathBuf> {
    ["ada-c", "ben-cpp", "cleo-py"].iter().map(|s| fixture("class/students").join(s)).collect()
}

/// The plan: the class fixture's first two tests, one job at a time so the
/// faults land in a known order.
fn plan() -> Plan {
    let io = Io::Files { input: grade::DEFAULT_INPUT.to_owned(), output: grade::DEFAULT_OUTPUT.to_owned() };
    let layout = referee::Options::default();
    let mut tests = suite::load(&fixture("class/tests"), &io, &layout).unwrap();
    tests.truncate(2);
    Plan {
        mode: Mode::Program(Program {
            tests,
            programs: Programs::Detected(grade::Languages::builtin()),
            io,
            layout,
            warnings: false,
            provided: None,
        }),
        limits: grade::TEST_LIMITS,
        build_limits: grade::build_limits(&grade::TEST_LIMITS),
        jobs: 2,
        partial: false,
        check: CheckOptions { exact: false, header: Header::Label },
        copy_caps: copy::Caps::SUBMISSION,
        require_sandbox: false,
        shrink: None,
        seed: None,
    }
}

/// Grades the three students with `faults` injected.
fn grade_with(faults: Faults) -> Vec<SubmissionResult> {
    let sandbox = Sandbox::with_guard(PathBuf::from(env!("CARGO_BIN_EXE_ttt-guard"))).unwrap();
    let mut grader = Grader::with_sandbox(plan(), sandbox).unwrap();
    grader.inject_faults(faults);
    let mut told = Told::default();
    let done = grader.grade(&students(), &mut told).unwrap();
    assert!(done.not_graded.is_empty());
    // The sink was told of every test of every submission, the failed one's
    // too, and of each submission once, before the whole.
    assert_eq!(told.begun, Some((2, 3)));
    let mut tested: Vec<String> = told.tests.clone();
    tested.sort();
    let mut every: Vec<String> = done
        .results
        .iter()
        .flat_map(|r| r.tests.iter().map(|t| format!("{}/{}", r.submission, t.test)))
        .collect();
    every.sort();
    assert_eq!(tested, every);
    let mut submissions = told.submissions.clone();
    submissions.sort();
    assert_eq!(submissions, ["ada-c", "ben-cpp", "cleo-py"]);
    assert_eq!(told.finished, 3);
    done.results
}

/// A sink that keeps what it is told.
#[derive(Default)]
struct Told {
    /// The tests and submissions of the grading begun.
    begun: Option<(usize, usize)>,
    /// `submission/test`, for each test told.
    tests: Vec<String>,
    /// Each submission told.
    submissions: Vec<String>,
    /// How many results the finished grading had.
    finished: usize,
}

impl Sink for Told {
    fn begin(&mut self, grading: &Grading<'_>) {
        self.begun = Some((grading.tests.len(), grading.submissions));
    }

    fn test(&mut self, submission: &str, test: &TestResult) {
        self.tests.push(format!("{submission}/{}", test.test));
    }

    fn submission(&mut self, result: &SubmissionResult) {
        self.submissions.push(result.submission.clone());
    }

    fn finish(&mut self, graded: &Graded) -> Result<(), ReportError> {
        self.finished = graded.results.len();
        Ok(())
    }
}

/// A fault at `step` for the submission `victim` alone.
fn fault_at(step: Step, victim: &'static str) -> Faults {
    Arc::new(move |at, name| {
        if at == step && name == victim {
            Err(io::Error::other(format!("injected at {at:?}")))
        } else {
            Ok(())
        }
    })
}

/// The submission `name` passed every test.
fn passed(results: &[SubmissionResult], name: &str) {
    let result = results.iter().find(|r| r.submission == name).unwrap();
    assert!(result.tests.iter().all(|t| t.verdict == Verdict::Pass), "{name}: {result:#?}");
    assert!((result.score - 100.0).abs() < 1e-9);
}

#[test]
fn each_step_that_fails_fails_only_its_submission() {
    for (step, says) in [
        (Step::Copy, "the grader failed copying the submission (source): injected at Copy"),
        (
            Step::ClearAnswers,
            "the grader failed clearing old answers from the copy (source/TTTgame.txt): injected at ClearAnswers",
        ),
        (Step::HandOver, "the grader failed handing the copy to the run user: injected at HandOver"),
    ] {
        let results = grade_with(fault_at(step, "ben-cpp"));
        assert_eq!(results.len(), 3);
        passed(&results, "ada-c");
        passed(&results, "cleo-py");
        let ben = results.iter().find(|r| r.submission == "ben-cpp").unwrap();
        assert!(ben.build_failed, "{step:?}: {ben:#?}");
        assert_eq!(ben.build_log.as_deref(), Some(says), "{step:?}");
        for test in &ben.tests {
            assert_eq!((test.verdict, test.detail.as_str()), (Verdict::BuildFailed, says), "{step:?}");
        }
    }
}

/// With `--api xtreme`, the harness's placement fails one submission alone.
#[test]
fn a_harness_that_cannot_be_placed_fails_only_its_submission() {
    let mut plan = plan();
    plan.mode = Mode::Calls(CallsPlan { api: Api::Xtreme, cases: CaseOptions { per_function: 5, seed: 0 } });
    let sandbox = Sandbox::with_guard(PathBuf::from(env!("CARGO_BIN_EXE_ttt-guard"))).unwrap();
    let mut grader = Grader::with_sandbox(plan, sandbox).unwrap();
    grader.inject_faults(fault_at(Step::PlaceHarness, "ben-shallow"));
    let students: Vec<PathBuf> =
        ["ada-correct", "ben-shallow"].iter().map(|s| fixture("api/xtreme").join(s)).collect();
    let done = grader.grade(&students, &mut Sinks::new()).unwrap();
    let [ada, ben] = done.results.as_slice() else { panic!("{:#?}", done.results) };
    assert!(ada.tests.iter().all(|t| t.verdict == Verdict::Pass), "{ada:#?}");
    let says = "the grader failed placing the harness's files (api/submission): injected at PlaceHarness";
    assert_eq!(ben.build_log.as_deref(), Some(says));
    assert!(ben.tests.iter().all(|t| t.verdict == Verdict::BuildFailed && t.detail == says), "{ben:#?}");
}

#[test]
fn a_clean_up_that_fails_changes_no_grade() {
    // The copy is left for the scratch directory's removal at the end.
    let results = grade_with(fault_at(Step::CleanUp, "ben-cpp"));
    for name in ["ada-c", "ben-cpp", "cleo-py"] {
        passed(&results, name);
    }
}

#[test]
fn a_panic_grading_one_submission_is_that_submissions_internal_error() {
    let faults: Faults = Arc::new(|step, name| {
        assert!(!(step == Step::HandOver && name == "ada-c"), "a bug met while handing over ada-c");
        Ok(())
    });
    let results = grade_with(faults);
    passed(&results, "ben-cpp");
    passed(&results, "cleo-py");
    let ada = results.iter().find(|r| r.submission == "ada-c").unwrap();
    assert!(ada.build_failed);
    let detail = &ada.tests[0].detail;
    assert_eq!(
        detail,
        "internal error: the grader failed on this submission (a bug met while handing over ada-c); the others \
         were graded. This is a bug in ttt-referee: please report it with this message."
    );
}

/// Fail closed: a container lost mid-grading (after the probe promised
/// one) refuses every later run, builds too, and no test is graded as if
/// it had been protected: each is `error`, saying why, and none scores.
/// Plain programs that would pass are graded, so a pass here could only come
/// from a run made without its container.
#[test]
fn a_protection_lost_mid_grading_makes_every_test_an_error_never_a_pass() {
    use ttt_referee::sandbox::Fault;
    let sandbox = Sandbox::with_guard(PathBuf::from(env!("CARGO_BIN_EXE_ttt-guard"))).unwrap();
    let grader = Grader::with_sandbox(plan(), sandbox).unwrap();
    if !grader.protections().complete() {
        // Where no container is promised there is nothing to lose
        // (sandbox.rs tests that runs there say what they lacked).
        crate::util::skip("this machine gives the sandbox no container to promise");
        return;
    }
    grader.sandbox().inject_fault(Fault::NoContainer);
    let done = grader.grade(&students(), &mut Told::default()).unwrap();
    for result in &done.results {
        assert!(result.score.abs() < f64::EPSILON, "{}: {}", result.submission, result.score);
        for test in &result.tests {
            assert_eq!(test.verdict, Verdict::Error, "{}/{}: {}", result.submission, test.test, test.detail);
            assert!(test.detail.contains("the container"), "{}", test.detail);
        }
    }
    // A language whose build needs no sandbox run (Python) is refused at
    // its first test; the compiled ones at their build.
    let python = done.results.iter().find(|r| r.submission == "cleo-py").unwrap();
    assert!(!python.build_failed, "{python:?}");
}

/// A bot's games in a match, then the container lost (a launcher that can
/// make no more): the next game's run is refused, the event stops with the
/// reason, no game is recorded for it, and the bot forfeits nothing for
/// the grader's loss. `grade --play` makes every test of the bot `error`.
#[test]
fn a_protection_lost_mid_event_stops_it_and_no_bot_forfeits_for_it() {
    use std::time::Duration;
    use ttt_referee::arena::seal::RecordKey;
    use ttt_referee::arena::{Bot, EngineEntrant, Entrant, Event, EventError, schedule};
    use ttt_referee::board::Geometry;
    use ttt_referee::engine::EngineKind;
    use ttt_referee::player::Mark;
    use ttt_referee::sandbox::Fault;
    use ttt_referee::workshop::{Workshop, recipe::Recipe};

    let sandbox = Sandbox::with_guard(PathBuf::from(env!("CARGO_BIN_EXE_ttt-guard"))).unwrap();
    let limits = grade::TEST_LIMITS;
    let workshop =
        Workshop::new(sandbox, limits, grade::build_limits(&limits), copy::Caps::SUBMISSION).unwrap();
    if !workshop.protections().complete() {
        crate::util::skip("this machine gives the sandbox no container to promise");
        return;
    }
    let built = workshop
        .prepare_apart(&fixture("bots/first-python"), &Recipe::detected(grade::Languages::builtin()))
        .unwrap();
    let startup = Duration::from_secs(10);
    let entrants: Vec<Box<dyn Entrant>> = vec![
        Box::new(Bot::new(&built, Arc::clone(workshop.sandbox()), limits, startup)),
        Box::new(EngineEntrant::new(EngineKind::Random)),
    ];
    let event = || Event {
        kind: "Match",
        geometry: Geometry::CLASSIC,
        marks: vec![Mark::X, Mark::O],
        seed: 1,
        move_time: Duration::from_secs(5),
        clock: None,
        sprt: None,
        entrants: &entrants,
        fixtures: schedule::match_games(2, 2, 0),
        openings: Vec::new(),
        key: RecordKey::ephemeral("a test"),
        part: None,
        stop: None,
    };
    let played = event().run(None, 1, &mut |_| ()).unwrap();
    assert_eq!(played.len(), 2, "both games played while the container is there");

    workshop.sandbox().inject_fault(Fault::NoContainer);
    let report = crate::util::kept_dir();
    let error = event().run(Some(report.path()), 1, &mut |_| ()).unwrap_err();
    let EventError::Unprotected { number, name, why } = &error else { panic!("{error}") };
    assert_eq!((*number, name.as_str()), (1, "first-python"), "{error}");
    assert!(why.contains("container"), "{why}");
    assert!(
        error
            .to_string()
            .ends_with("; the games finished are recorded, and none was played without the protection"),
        "{error}"
    );
    assert!(!report.path().join("games/001.txt").exists(), "a refused game is not recorded");

    // grade --play: every test the grader's error, none a fail.
    let io =
        grade::Io::Files { input: grade::DEFAULT_INPUT.to_owned(), output: grade::DEFAULT_OUTPUT.to_owned() };
    let plan = Plan {
        mode: Mode::Play(grade::PlayPlan {
            program: Program {
                tests: Vec::new(),
                programs: Programs::Detected(grade::Languages::builtin()),
                io,
                layout: referee::Options::default(),
                warnings: false,
                provided: None,
            },
            geometry: Geometry::CLASSIC,
            games: 10,
            bars: [0.5, 0.3],
            proof_games: 200,
            versus: Vec::new(),
            move_time: Duration::from_secs(5),
            startup,
            seed: 1,
        }),
        ..plan()
    };
    let sandbox = Sandbox::with_guard(PathBuf::from(env!("CARGO_BIN_EXE_ttt-guard"))).unwrap();
    let grader = Grader::with_sandbox(plan, sandbox).unwrap();
    grader.sandbox().inject_fault(Fault::NoContainer);
    let done = grader.grade(&[fixture("bots/first-python")], &mut Told::default()).unwrap();
    let tests = &done.results[0].tests;
    assert!(!tests.is_empty());
    for test in tests {
        assert_eq!(test.verdict, Verdict::Error, "{}: {}", test.test, test.detail);
        assert!(test.detail.contains("container"), "{}", test.detail);
    }
}
