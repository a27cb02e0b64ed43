//! The command line: parses arguments, opens files, reports errors and decides
//! the exit status, all in one place.
//!
//! Exit status: 0 success; 1 a check found differences; 2 a usage error,
//! unreadable or malformed input, or an I/O failure.

mod arena_cmd;
mod args;
mod autograder_cmd;
mod brain_cmd;
mod build_cmd;
mod check_cmd;
mod completions_cmd;
mod entrants;
mod error;
mod files;
mod gen_cmd;
mod grade_cmd;
mod hint_cmd;
mod manpage_cmd;
mod match_cmd;
mod merge_cmd;
mod play_cmd;
mod protections;
mod seated;
mod signals;
mod tournament_cmd;
mod values;
mod verbose;

use std::ffi::OsString;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::batch::{self, Summary};
use crate::board::Storage;
use crate::output::{Durability, Staged};
use crate::referee::{self, Format, Options, Report};
use crate::render::Style;
use crate::sandbox;
use crate::text;
use crate::transcript::{Boards, Layout};

use self::args::{BoardArgs, HeaderArg, LayoutArgs, parse_hash_mb, parse_seconds, parse_size};
use self::error::{CliError, Shown, is_dash};
pub use self::error::{EXIT_DIFFERENCES, EXIT_ERROR, EXIT_INTERRUPTED, EXIT_SUCCESS};
use self::files::{open_input, write_whole};

const EXAMPLES: &str = "\
Examples:
  ttt-referee TTTmoves.txt -o TTTgame.txt    referee a move file into a transcript
  ttt-referee - < TTTmoves.txt               read standard input, write standard output
  ttt-referee submissions/ --out-dir out/    referee every file in a directory, in parallel
  ttt-referee check TTTmoves.txt student.txt compare a student's transcript with the referee's
  ttt-referee gen --count 20 --seed 7 --out-dir corpus/ --with-transcripts
  ttt-referee hint TTTmoves.txt              the best square for the side to move
  ttt-referee play --o perfect --record game.txt -o transcript.txt
  ttt-referee match perfect random --games 10 --report out/
  ttt-referee tournament perfect minimax rules random --jobs 4 --report out/
  ttt-referee grade --tests tests/ --build 'g++ -O2 -o prog *.cpp' students/*

Exit status: 0 success (a closed pipe too); 1 check found differences, or
grade a test that did not pass; 2 usage error, unreadable or malformed input,
or an I/O failure; 130 grade, match, tournament or play with a bot stopped by
Ctrl-C; 128 + the signal's number any other command a signal ended (its
temporary files removed).";

/// Referee tic-tac-toe move files into exact transcripts.
#[derive(Debug, Parser)]
#[command(
    name = "ttt-referee",
    version,
    about,
    after_help = EXAMPLES,
    arg_required_else_help = true,
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,

    #[command(flatten)]
    referee: RefereeArgs,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Compare a transcript someone produced with the referee's own.
    #[command(after_help = check_cmd::AFTER_HELP)]
    Check(check_cmd::CheckArgs),
    /// Referee a move file, then name the square an engine would take next.
    #[command(after_help = hint_cmd::AFTER_HELP)]
    Hint(hint_cmd::HintArgs),
    /// Play a game (people, computer players or both) and record it.
    #[command(after_help = play_cmd::AFTER_HELP)]
    Play(play_cmd::PlayArgs),
    /// Play games between engines (or bots) live, record them and keep the standings.
    #[command(after_help = match_cmd::AFTER_HELP)]
    Match(match_cmd::MatchArgs),
    /// A round robin between engines (or bots): every pair from both sides.
    #[command(after_help = tournament_cmd::AFTER_HELP)]
    Tournament(tournament_cmd::TournamentArgs),
    /// Speak the Gomocup protocol as a brain (an engine) on standard input and output.
    #[command(after_help = brain_cmd::AFTER_HELP)]
    Brain(brain_cmd::BrainArgs),
    /// Generate seeded move files (and their transcripts) for a test corpus.
    #[command(after_help = gen_cmd::AFTER_HELP)]
    Gen(gen_cmd::GenArgs),
    /// Run students' programs against tests in a sandbox and report.
    #[command(after_help = grade_cmd::SHORT_AFTER_HELP, after_long_help = grade_cmd::AFTER_HELP)]
    Grade(Box<grade_cmd::GradeArgs>),
    /// Build every bot of an event once and keep the builds, for the parts of a split event.
    #[command(after_help = build_cmd::AFTER_HELP)]
    Build(build_cmd::BuildArgs),
    /// Merge the parts of a grading split by `grade --partition` into its reports.
    #[command(after_help = merge_cmd::AFTER_HELP)]
    Merge(merge_cmd::MergeArgs),
    /// Package a grading for Gradescope or GitHub Classroom: the grader, the
    /// tests and grade's options.
    Autograder {
        #[command(subcommand)]
        command: Box<autograder_cmd::AutograderCommand>,
    },
    /// Print a shell completion script.
    #[command(after_help = completions_cmd::AFTER_HELP)]
    Completions(completions_cmd::CompletionsArgs),
    /// Print the man page (roff), or with --out-dir write every command's page.
    #[command(after_help = manpage_cmd::AFTER_HELP)]
    Manpage(manpage_cmd::ManpageArgs),
}

#[derive(Debug, Args)]
struct RefereeArgs {
    /// Move files to referee; `-` reads standard input. Several files, or
    /// directories (every *.txt file in them), need --out-dir.
    #[arg(value_name = "MOVES", required = true)]
    moves: Vec<PathBuf>,

    /// Write the transcript to FILE, replacing it only once the transcript is
    /// complete; `-` (or no -o) writes standard output.
    #[arg(short, long, value_name = "FILE", conflicts_with = "out_dir")]
    output: Option<PathBuf>,

    /// Referee every input in parallel, writing each output to DIR under the
    /// input's file name (with `.json` for --format json), and print a summary.
    #[arg(long, value_name = "DIR")]
    out_dir: Option<PathBuf>,

    /// The output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,

    #[command(flatten)]
    layout: LayoutArgs,
}

/// Runs the program with the process's arguments and returns its exit status.
#[must_use]
pub fn main() -> ExitCode {
    main_with(std::env::args_os())
}

/// Runs the program with `args` (the first is the program name).
pub fn main_with<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    // The grader's guard is this binary in a hidden mode (see `sandbox`).
    if let Some(stage) = args.get(1).and_then(|a| a.to_str())
        && [sandbox::GUARD_ARG, sandbox::INIT_ARG, sandbox::LAUNCH_ARG].contains(&stage)
    {
        sandbox::guard_main(stage, &args[2..]);
    }
    // The common case, one move file and perhaps `-o FILE`, skips clap:
    // building the whole command tree (every subcommand's arguments and help)
    // is most of a one-file run's own work (BENCHMARKS.md).
    if let Some(referee) = plain_referee_args(&args[1..]) {
        return finish(run_referee(&referee));
    }
    // A mistyped command (`grde --tests t/ s/`) would reach clap as a move
    // file followed by options it cannot take, and be told to use `--`.
    if let Some(error) = args.get(1).and_then(|first| mistyped_command(&[PathBuf::from(first)])) {
        return finish(Err(error));
    }
    // The matches are kept: the autograder commands pass on the grade
    // options given, as given.
    let parsed = Cli::command().try_get_matches_from(args).and_then(|m| Ok((Cli::from_arg_matches(&m)?, m)));
    let (cli, matches) = match parsed {
        Ok(parsed) => parsed,
        Err(e) => {
            // Printing help into a closed pipe is not worth a second error.
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { EXIT_ERROR } else { EXIT_SUCCESS });
        }
    };
    // A command that writes files, with no grading or games to stop, ends
    // on a signal with its temporary files removed (`grade`, `match`,
    // `tournament` and `play` stop their own way).
    if matches!(
        cli.command,
        Some(
            Command::Check(_)
                | Command::Gen(_)
                | Command::Merge(_)
                | Command::Autograder { .. }
                | Command::Manpage(_)
        )
    ) {
        signals::end_removing_temporaries();
    }
    let status = match cli.command {
        None => run_referee(&cli.referee),
        Some(Command::Check(args)) => check_cmd::run(&args),
        Some(Command::Gen(args)) => gen_cmd::run(&args),
        Some(Command::Hint(args)) => hint_cmd::run(&args),
        Some(Command::Play(args)) => play_cmd::run(&args),
        Some(Command::Match(args)) => match_cmd::run(&args),
        Some(Command::Tournament(args)) => tournament_cmd::run(&args),
        Some(Command::Brain(args)) => brain_cmd::run(&args),
        Some(Command::Grade(args)) => grade_cmd::run(&args),
        Some(Command::Merge(args)) => merge_cmd::run(&args),
        Some(Command::Build(args)) => build_cmd::run(&args),
        Some(Command::Autograder { command }) => {
            let sub = matches.subcommand().and_then(|(_, m)| m.subcommand()).map(|(_, m)| m);
            autograder_cmd::run(&command, sub.unwrap_or(&matches))
        }
        Some(Command::Completions(args)) => completions_cmd::run(&args, Cli::command()),
        Some(Command::Manpage(args)) => manpage_cmd::run(&args, Cli::command()),
    };
    finish(status)
}

fn finish(status: Result<u8, CliError>) -> ExitCode {
    // A signal is ending the process, and removing what it was writing may
    // be why this failed: the signal's thread ends it, with its status.
    if crate::output::ending() {
        loop {
            std::thread::park();
        }
    }
    match status {
        Ok(code) => ExitCode::from(code),
        Err(CliError::BrokenPipe) => ExitCode::from(EXIT_SUCCESS),
        Err(e) => {
            // An error may quote a student's file or program: inert, line by line.
            eprintln!("ttt-referee: {}", text::inert_lines(&e.to_string()));
            ExitCode::from(EXIT_ERROR)
        }
    }
}

/// The arguments clap would parse from `args` (without the program name)
/// when they are exactly one move file and at most one `-o FILE`,
/// `--output FILE` or `--output=FILE`, in either order; `None` for anything
/// else, which clap then parses. Only forms clap reads the same way are
/// taken: a move file that could be a word for a command (only lowercase
/// letters and hyphens, `-` included), an empty value or one that begins
/// with `-`, and arguments that are not UTF-8 all go to clap.
fn plain_referee_args(args: &[OsString]) -> Option<RefereeArgs> {
    let value = |arg: &str| (!arg.is_empty() && !arg.starts_with('-')).then(|| PathBuf::from(arg));
    let mut moves = None;
    let mut output = None;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let arg = arg.to_str()?;
        let given = if arg == "-o" || arg == "--output" {
            &mut output
        } else if let Some(rest) = arg.strip_prefix("--output=") {
            if output.replace(value(rest)?).is_some() {
                return None;
            }
            continue;
        } else if arg.bytes().all(|b| b.is_ascii_lowercase() || b == b'-') {
            return None;
        } else {
            if moves.replace(value(arg)?).is_some() {
                return None;
            }
            continue;
        };
        if given.replace(value(args.next()?.to_str()?)?).is_some() {
            return None;
        }
    }
    Some(RefereeArgs {
        moves: vec![moves?],
        output,
        out_dir: None,
        format: Format::Text,
        layout: LayoutArgs {
            programmer: Layout::DEFAULT_PROGRAMMER.to_owned(),
            project: Layout::DEFAULT_PROJECT.to_owned(),
            style: Style::Classic,
            boards: Boards::Each,
            storage: Storage::Auto,
        },
    })
}

fn run_referee(args: &RefereeArgs) -> Result<u8, CliError> {
    let options = args.layout.options(args.format);
    // Only a run that writes files has temporaries to remove on a signal;
    // standard output alone keeps the signals' default action.
    if args.out_dir.is_some() || args.output.as_deref().is_some_and(|p| !is_dash(p)) {
        signals::end_removing_temporaries();
    }
    if let Some(out_dir) = &args.out_dir {
        return run_batch(&args.moves, out_dir, &options);
    }
    if let Some(error) = mistyped_command(&args.moves) {
        return Err(error);
    }
    let [moves] = args.moves.as_slice() else {
        return Err(CliError::SeveralInputs { count: args.moves.len() });
    };
    let output = args.output.as_deref().filter(|p| !is_dash(p));
    // Renamed into place whole: a kill or a failure never leaves half a file.
    // A sync as well would triple the run's time (README, Performance).
    let report = referee_file(moves, output, &options, Durability::Renamed)?;
    if report.game.outcome().is_none() {
        let _ = writeln!(
            io::stderr(),
            "ttt-referee: warning: {}: the moves ran out before the game ended (Winner: None)",
            Shown::input(moves)
        );
    }
    Ok(EXIT_SUCCESS)
}

/// The error for a first "move file" that does not exist and is a word
/// close to a command's name (`chek` for `check`): clap takes any word that
/// is not a command for a move file.
fn mistyped_command(moves: &[PathBuf]) -> Option<CliError> {
    let given = moves.first()?.to_str()?;
    if given.is_empty()
        || !given.bytes().all(|b| b.is_ascii_lowercase() || b == b'-')
        || Path::new(given).exists()
    {
        return None;
    }
    let commands = Cli::command();
    let names: Vec<&str> =
        commands.get_subcommands().filter(|c| !c.is_hide_set()).map(clap::Command::get_name).collect();
    if given == "help" || names.contains(&given) {
        return None;
    }
    // The nearest name within a typo or two, else the only one it begins.
    let near = names
        .iter()
        .map(|name| (edit_distance(given, name), *name))
        .filter(|&(distance, name)| distance <= if name.len() <= 4 { 1 } else { 2 })
        .min();
    let command = near.map(|(_, name)| name).or_else(|| {
        let mut starting = names.iter().filter(|name| given.len() >= 3 && name.starts_with(given));
        starting.next().filter(|_| starting.next().is_none()).copied()
    })?;
    Some(CliError::UnknownCommand { given: given.to_owned(), command: command.to_owned() })
}

/// The edits (insertions, deletions, substitutions, swaps of neighbours)
/// that turn `a` into `b`.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut rows = vec![(0..=b.len()).collect::<Vec<usize>>()];
    for i in 1..=a.len() {
        let mut row = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            row[j] = (rows[i - 1][j] + 1).min(row[j - 1] + 1).min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                row[j] = row[j].min(rows[i - 2][j - 2] + 1);
            }
        }
        rows.push(row);
    }
    rows[a.len()][b.len()]
}

/// Referees `moves` into `output` (standard output if `None`), all or nothing.
fn referee_file(
    moves: &Path,
    output: Option<&Path>,
    options: &Options,
    durability: Durability,
) -> Result<Report, CliError> {
    let input = open_input(moves, output)?;
    let mut staged = match output {
        Some(path) => Staged::file(path, durability).map_err(|source| CliError::write(path, source))?,
        None => Staged::stdout(),
    };
    let report =
        referee::referee(input, &mut staged, options).map_err(|e| CliError::referee(e, moves, output))?;
    staged.commit().map_err(|source| match output {
        Some(path) => CliError::write(path, source),
        None => CliError::stdout(source),
    })?;
    Ok(report)
}

/// Referees every file of `inputs` into `out_dir` in parallel; reports each
/// failure, then a summary, on standard error.
fn run_batch(inputs: &[PathBuf], out_dir: &Path, options: &Options) -> Result<u8, CliError> {
    if inputs.iter().any(|p| is_dash(p)) {
        return Err(CliError::StdinInBatch);
    }
    fs::create_dir_all(out_dir).map_err(|source| CliError::write(out_dir, source))?;
    let jobs = batch::jobs(inputs, out_dir, options.format)
        .map_err(|(path, source)| CliError::Open { path: Shown::input(&path), source })?;

    // Two inputs with one file name would overwrite each other's output: the
    // first keeps the name, the others fail.
    let mut seen = std::collections::HashSet::new();
    let (jobs, clashes): (Vec<_>, Vec<_>) = jobs.into_iter().partition(|job| seen.insert(job.output.clone()));
    let clashes =
        clashes.into_iter().map(|job| Err(CliError::SameOutput { input: job.input, output: job.output }));
    let results = batch::run_all(&jobs, options).into_iter().map(|result| result.map_err(CliError::from));

    let mut summary = Summary::default();
    let mut stderr = io::stderr().lock();
    for result in clashes.chain(results) {
        match &result {
            Ok(report) => summary.add(report),
            Err(e) => {
                summary.failed += 1;
                let _ = writeln!(stderr, "ttt-referee: {}", text::inert_lines(&e.to_string()));
            }
        }
    }
    let _ = writeln!(stderr, "ttt-referee: {summary}");
    Ok(if summary.failed > 0 { EXIT_ERROR } else { EXIT_SUCCESS })
}

#[cfg(test)]
mod tests {
    use super::error::describe;
    use super::*;
    use crate::board::Geometry;
    use crate::grade::GradeError;
    use crate::grade::report::gradescope::ScoringError;
    use crate::player::Mark;
    use crate::referee::RefereeError;

    #[test]
    fn the_command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn the_plain_referee_path_parses_as_clap_does() {
        let taken: &[&[&str]] = &[
            &["TTTmoves.txt"],
            &["TTTmoves.txt", "-o", "out.txt"],
            &["-o", "out.txt", "moves/a.txt"],
            &["TTTmoves.txt", "--output", "out"],
            &["TTTmoves.txt", "--output=out.txt"],
            &["./check", "-o", "x"],
        ];
        let left: &[&[&str]] = &[
            &[],
            &["-"],
            &["check"],
            &["chek"],
            &["help"],
            &[""],
            &["a.txt", "b.txt"],
            &["a.txt", "-o"],
            &["a.txt", "-o", ""],
            &["a.txt", "-o", "-"],
            &["a.txt", "-o", "x", "-o", "y"],
            &["a.txt", "--output="],
            &["a.txt", "-ox"],
            &["a.txt", "-o=x"],
            &["a.txt", "--out-dir", "d"],
            &["a.txt", "--format", "json"],
            &["a.txt", "--"],
            &["--version"],
            &["-o", "x"],
        ];
        for args in taken {
            let plain = plain_referee_args(&args.iter().map(OsString::from).collect::<Vec<_>>())
                .unwrap_or_else(|| panic!("{args:?} should be taken"));
            let cli =
                Cli::try_parse_from(std::iter::once("ttt-referee").chain(args.iter().copied())).unwrap();
            assert!(cli.command.is_none(), "{args:?}");
            assert_eq!(format!("{plain:?}"), format!("{:?}", cli.referee), "{args:?}");
        }
        for args in left {
            let os: Vec<OsString> = args.iter().map(OsString::from).collect();
            assert!(plain_referee_args(&os).is_none(), "{args:?} should be left to clap");
        }
    }

    /// The referee's error on `text`.
    fn refereed(text: &str, options: &Options) -> RefereeError {
        referee::referee(text.as_bytes(), io::sink(), options).unwrap_err()
    }

    fn too_big_to_print() -> RefereeError {
        RefereeError::TooBigToPrint(Geometry::new(5000, 5000, 3).unwrap())
    }

    #[test]
    fn referee_errors_name_the_file_they_concern() {
        let malformed = CliError::referee(refereed("", &Options::default()), Path::new("-"), None);
        assert!(matches!(malformed, CliError::Malformed { path: Shown::Stdin, .. }), "{malformed:?}");
        assert!(malformed.to_string().starts_with("<stdin>:1: the file is empty; expected a title line"));

        let unplayable = CliError::referee(too_big_to_print(), Path::new("big.txt"), None);
        assert!(
            matches!(&unplayable, CliError::Unplayable { path: Shown::Path(p), .. } if p == Path::new("big.txt"))
        );
        assert_eq!(
            unplayable.to_string(),
            "big.txt: a 5000x5000 board has 25000000 squares, too many to print (at most 16777216); use --boards none"
        );

        let write = RefereeError::Write(io::Error::from_raw_os_error(28));
        let unwritable = CliError::referee(write, Path::new("in.txt"), Some(Path::new("out.txt")));
        assert_eq!(unwritable.to_string(), "out.txt: cannot write: No space left on device");
        let write = RefereeError::Write(io::Error::from_raw_os_error(28));
        assert_eq!(
            CliError::referee(write, Path::new("in.txt"), None).to_string(),
            "<stdout>: cannot write: No space left on device"
        );
    }

    #[test]
    fn errors_no_command_line_should_reach_still_say_what_and_where() {
        assert_eq!(
            CliError::CheckInputs.to_string(),
            "check needs MOVES TRANSCRIPT, or --moves DIR --transcripts DIR"
        );
        let generated =
            CliError::Generated { path: "corpus/game-0001.txt".into(), error: too_big_to_print() };
        assert!(
            generated.to_string().starts_with(
                "corpus/game-0001.txt: generated a file the referee rejects: a 5000x5000 board has"
            ),
            "{generated}"
        );
        let recorded = CliError::Recorded { path: "game-2.out".into(), error: too_big_to_print() };
        assert!(
            recorded
                .to_string()
                .starts_with("game-2.out: the recorded game does not referee: a 5000x5000 board"),
            "{recorded}"
        );
        assert_eq!(
            CliError::CurrentExe(io::Error::from_raw_os_error(2)).to_string(),
            "cannot find this program to package it: No such file or directory; pass --binary"
        );
        assert_eq!(
            CliError::Board { rows: 0, cols: 3, win: 3 }.to_string(),
            "--board 0x3 --win 3 is not a playable board; expected sides from 1 to 1000000 and a win from 1 to the longer side"
        );
        // clap already refuses --points 0.
        assert_eq!(
            CliError::Scoring(ScoringError::Points(0.0)).to_string(),
            "0 points: expected a number above 0"
        );
        assert_eq!(
            CliError::GameOver { path: Shown::Path("won.txt".into()), winner: Some(Mark::X) }.to_string(),
            "won.txt: the game is over (Winner: X); there is no move to hint"
        );
    }

    #[test]
    fn a_grading_that_cannot_start_its_threads_says_so_without_a_path() {
        let source = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .spawn_handler(|_| Err(io::Error::from_raw_os_error(11)))
            .build()
            .unwrap_err();
        let stopped = CliError::GradingStopped(GradeError::Threads { jobs: 3, source });
        assert_eq!(
            stopped.to_string(),
            "grading stopped: cannot start 3 worker threads: Resource temporarily unavailable (os error 11)"
        );
    }

    #[test]
    fn io_errors_lose_the_os_error_suffix() {
        let e = io::Error::from_raw_os_error(2);
        assert_eq!(describe(&e), "No such file or directory");
    }
}
