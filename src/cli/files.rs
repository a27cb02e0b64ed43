//! Files as the commands open and write them: a move file or standard
//! input, and output that appears whole.

use std::io::{self, BufRead};
use std::path::Path;

use super::error::{CliError, is_dash};
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
