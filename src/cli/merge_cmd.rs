//! `ttt-referee merge`: the parts of a split grading (`grade --partition`)
//! put back together into one grading's reports.

use std::io::{self, Write};
use std::path::PathBuf;

use clap::Args;

use super::{CliError, EXIT_DIFFERENCES, EXIT_SUCCESS};
use crate::arena::part;
use crate::arena::report as arena_report;
use crate::arena::{EngineEntrant, Entrant, Standings, Unbuilt};
use crate::engine::EngineKind;
use crate::grade::report::{self, merge};
use crate::text::inert;

pub(super) const AFTER_HELP: &str = "\
Each PART is the --report directory of one `grade --partition slice:K/N` (or
hash:K/N) run: its part.json says which part it is and fingerprints the
grading (the tests and their digests, the options, the seed, the whole
class's names). merge checks that every part is of the same grading, that
parts 1 to N are each given once, and that every submission of the class was
graded in exactly one; then it prints the table and writes into --report DIR
what `grade --report DIR` on one machine would have written: grades.csv,
results.json, junit.xml, report.html, byte for byte but for the runs' times.

Anything wrong (parts of two gradings, a part twice, a part missing, an
interrupted part, a corrupt part.json or results.json) is an error naming
it, and nothing is written. With --allow-partial, a missing or interrupted
part is not: the reports are written from the parts given, marked partial
(results.json's partial, report.html's banner), naming the
submissions no part graded.

A PART may instead be the --report directory of one `match` or `tournament`
run with --partition: its event-part.json says which part it is and holds the
event's plan. merge then checks the parts are of one event, each given once,
and reads every game back from its sealed record (the records are trusted
under the key that sealed them: give every machine, and the merge, one
TTT_REFEREE_RECORD_KEY); no game is played and no bot is built. It writes into
--report DIR what one machine would have written: every record and its seal,
results.json, standings.txt and report.html, and prints the standings. A
game no part played (a part missing or interrupted) is an error naming the
games; with --allow-partial, the standings so far are written from the games
played, and every report says it is partial and which games are missing.

Exit status: as grade's: 0 when every test passed, 1 when any did not, 2 when
the parts cannot be merged (for an event, 0 once merged).

Examples:
  ttt-referee merge parts/part-* --report report/
  ttt-referee merge tournament-part-* --report tournament/
  ttt-referee merge tournament-part-* --allow-partial --report so-far/";

#[derive(Debug, Args)]
pub(super) struct MergeArgs {
    /// The parts: each part's --report directory, in any order.
    #[arg(value_name = "PART_DIR", required = true)]
    parts: Vec<PathBuf>,

    /// Write grades.csv, results.json, junit.xml and report.html into DIR.
    #[arg(long, value_name = "DIR", required = true)]
    report: PathBuf,

    /// Merge what is there when parts are missing or were interrupted:
    /// the reports are marked partial and say what is missing.
    #[arg(long)]
    allow_partial: bool,

    #[command(flatten)]
    colour: super::args::ColourArgs,
}

pub(super) fn run(args: &MergeArgs) -> Result<u8, CliError> {
    if args.parts.iter().any(|dir| dir.join(part::PART_FILE).exists()) {
        return run_event(args);
    }
    let merged =
        merge::merge(&args.parts, &args.report, args.allow_partial).map_err(|error| match error {
            merge::MergeError::Write(error) => CliError::report(error),
            error => CliError::Merge(error),
        })?;
    let (rows, not_graded) = (&merged.rows, &merged.not_graded);
    let class = rows.len() + not_graded.len();
    let mut stdout = io::stdout().lock();
    report::formats::rows_table(rows, args.colour.stdout(), &mut stdout)
        .and_then(|()| {
            if not_graded.is_empty() {
                return Ok(());
            }
            writeln!(stdout, "partial: {} of {class} submissions graded", rows.len())
        })
        .and_then(|()| stdout.flush())
        .map_err(|source| CliError::report(report::ReportError { path: None, source }))?;
    let mut stderr = io::stderr().lock();
    if !not_graded.is_empty() {
        let names: Vec<String> = not_graded.iter().map(|n| inert(n).into_owned()).collect();
        let parts: Vec<String> = merged.missing_parts.iter().map(u32::to_string).collect();
        let _ = writeln!(
            stderr,
            "ttt-referee: merge: partial: {} of {class} submissions graded{}; not graded: {}",
            rows.len(),
            if parts.is_empty() {
                String::new()
            } else {
                format!(
                    " (part{} {} of {} missing)",
                    if parts.len() == 1 { "" } else { "s" },
                    parts.join(", "),
                    merged.parts
                )
            },
            names.join(", ")
        );
    }
    let given = merged.parts - u32::try_from(merged.missing_parts.len()).unwrap_or(0);
    let _ = writeln!(
        stderr,
        "ttt-referee: merged {}parts: {} submissions",
        if given == merged.parts { format!("{given} ") } else { format!("{given} of {} ", merged.parts) },
        rows.len()
    );
    Ok(if merged.all_passed { EXIT_SUCCESS } else { EXIT_DIFFERENCES })
}

/// Merges the parts of a split match or tournament (`--partition`, each
/// with its `event-part.json`): every game read back from its sealed
/// record, none played, no bot built; the standings printed as the event
/// prints them.
fn run_event(args: &MergeArgs) -> Result<u8, CliError> {
    let (plan, parts, missing_parts) = part::read_parts(&args.parts, args.allow_partial)?;
    // The engines are asked again for the moves their records claim; a
    // bot is only a name here.
    let entrants: Vec<Box<dyn Entrant>> = plan
        .names
        .iter()
        .map(|name| -> Box<dyn Entrant> {
            match EngineKind::from_name(name) {
                Some(kind) => Box::new(EngineEntrant::new(kind)),
                None => Box::new(Unbuilt::new(name.clone(), "a merge plays no game")),
            }
        })
        .collect();
    let key = super::arena_cmd::record_key()?;
    let event =
        plan.event(&entrants, key).ok_or_else(|| part::MergeError::BadPlan { dir: parts[0].dir.clone() })?;
    let (results, missing) = part::merge(&event, &parts, &args.report, args.allow_partial)?;
    let standings = Standings::new(&event.names(), &results);
    let mut shown = arena_report::standings_text(&event, &results, &standings);
    if !missing.is_empty() {
        shown.push('\n');
        shown.push_str(&arena_report::partial_text(&event, results.len(), &missing));
    }
    io::stdout().write_all(shown.as_bytes()).map_err(CliError::stdout)?;
    let mut stderr = io::stderr().lock();
    if !missing.is_empty() {
        let parts: Vec<String> = missing_parts.iter().map(u32::to_string).collect();
        let _ = writeln!(
            stderr,
            "ttt-referee: merge: partial: {} of {} games; missing {}{}",
            results.len(),
            event.fixtures.len(),
            arena_report::games_list(&missing),
            if parts.is_empty() {
                String::new()
            } else {
                format!(" (part{} {} not given)", if parts.len() == 1 { "" } else { "s" }, parts.join(", "))
            }
        );
    }
    let of = parts.len() + missing_parts.len();
    let _ = writeln!(
        stderr,
        "ttt-referee: merged {}parts: {} games",
        if missing_parts.is_empty() { format!("{of} ") } else { format!("{} of {of} ", parts.len()) },
        results.len()
    );
    Ok(EXIT_SUCCESS)
}
