//! `ttt-referee merge`: the parts of a split grading (`grade --partition`)
//! put back together into one grading's reports.

use std::io::{self, Write};
use std::path::PathBuf;

use clap::Args;

use super::{CliError, EXIT_DIFFERENCES, EXIT_SUCCESS};
use crate::grade::report::{self, merge};

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
it, and nothing is written.

Exit status: as grade's: 0 when every test passed, 1 when any did not, 2 when
the parts cannot be merged.

Example:
  ttt-referee merge parts/part-* --report report/";

#[derive(Debug, Args)]
pub(super) struct MergeArgs {
    /// The parts: each part's --report directory, in any order.
    #[arg(value_name = "PART_DIR", required = true)]
    parts: Vec<PathBuf>,

    /// Write grades.csv, results.json, junit.xml and report.html into DIR.
    #[arg(long, value_name = "DIR", required = true)]
    report: PathBuf,

    #[command(flatten)]
    colour: super::args::ColourArgs,
}

pub(super) fn run(args: &MergeArgs) -> Result<u8, CliError> {
    let merged = merge::merge(&args.parts, &args.report).map_err(CliError::Merge)?;
    merged.write(&args.report).map_err(CliError::report)?;
    let mut stdout = io::stdout().lock();
    report::table_in_colour(&merged.graded.results, args.colour.stdout(), &mut stdout)
        .and_then(|()| stdout.flush())
        .map_err(|source| CliError::report(report::ReportError { path: None, source }))?;
    let _ = writeln!(
        io::stderr(),
        "ttt-referee: merged {} parts: {} submissions",
        merged.parts,
        merged.graded.results.len()
    );
    Ok(if merged.graded.all_passed() { EXIT_SUCCESS } else { EXIT_DIFFERENCES })
}
