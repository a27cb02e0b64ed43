//! Files as the commands open and write them: a move file or standard
//! input, and output that appears whole.

use std::fs;
use std::io::{self, BufRead, Write};
use std::path::Path;

use super::error::{CliError, Shown, is_dash};
use crate::batch;
use crate::output::{self, Durability, Staged};

/// Writes `path` whole through `write`: the file appears, renamed into
/// place, only once everything is written.
pub(super) fn write_whole(
    path: &Path,
    durability: Durability,
    write: impl FnOnce(&mut Staged) -> io::Result<()>,
) -> Result<(), CliError> {
    output::write_whole(path, durability, write).map_err(|source| CliError::write(path, source))
}

/// Opens a move file, refusing an output path that is the same file.
pub(super) fn open_input(path: &Path, output: Option<&Path>) -> Result<Box<dyn BufRead>, CliError> {
    if is_dash(path) {
        return Ok(Box::new(io::stdin().lock()));
    }
    Ok(Box::new(batch::open_move_file(path, output)?))
}

/// Fails when the report directory `dir` given with `option` holds files
/// but no earlier report (no `results.json`): a grading replaces an
/// earlier report of its own, never a folder of the TA's other files (a
/// course folder's own `grades.csv`, say). Where it holds an earlier
/// report, says that this grading will replace it. Checked before any
/// work, with [`check_output_path`].
pub(super) fn check_report_dir(dir: &Path, option: &'static str) -> Result<(), CliError> {
    let holds = fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_some());
    if !holds {
        return Ok(());
    }
    if !dir.join("results.json").is_file() {
        return Err(CliError::InTheWay {
            path: Shown::output(Some(dir)),
            option,
            expected: "a new or empty directory, or an earlier report (with its results.json) to replace",
            found: "a directory of other files",
        });
    }
    let _ = writeln!(
        io::stderr(),
        "ttt-referee: {} holds an earlier report, which this grading replaces",
        Shown::output(Some(dir))
    );
    Ok(())
}

/// Fails when something of the wrong kind is in the way of the output
/// `path` given with `option` (a directory if `dir`, else a file): checked
/// before any work, so a grading never ends in "cannot write".
pub(super) fn check_output_path(path: &Path, option: &'static str, dir: bool) -> Result<(), CliError> {
    let in_the_way = |at: &Path, expected: &'static str, found: &'static str| CliError::InTheWay {
        path: Shown::output(Some(at)),
        option,
        expected,
        found,
    };
    match fs::metadata(path) {
        Ok(meta) if dir && !meta.is_dir() => return Err(in_the_way(path, "a directory", "a file")),
        Ok(meta) if !dir && meta.is_dir() => return Err(in_the_way(path, "a file", "a directory")),
        Ok(_) => return Ok(()),
        Err(_) => {}
    }
    // The nearest existing directory above it must be one.
    for above in path.ancestors().skip(1).filter(|p| !p.as_os_str().is_empty()) {
        match fs::metadata(above) {
            Ok(meta) if meta.is_dir() => return Ok(()),
            Ok(_) => return Err(in_the_way(above, "a directory", "a file")),
            Err(_) => {}
        }
    }
    Ok(())
}
