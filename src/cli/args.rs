//! The options several commands share: how transcripts look
//! ([`LayoutArgs`]), how headers compare ([`HeaderArg`]), a board
//! ([`BoardArgs`]), and the parsers of sizes, times and table sizes.

use std::time::Duration;

use clap::Args;

use super::error::CliError;
use crate::board::{Geometry, Storage, WinRule};
use crate::check;
use crate::referee::{Format, Options};
use crate::render::Style;
use crate::transcript::{Boards, Layout};

/// How transcripts look: shared by every command that writes or rebuilds one.
#[derive(Debug, Args)]
pub(super) struct LayoutArgs {
    /// The programmer named on the transcript's first line.
    #[arg(long, value_name = "NAME", default_value = Layout::DEFAULT_PROGRAMMER, value_parser = one_line)]
    pub(super) programmer: String,

    /// The transcript's second line.
    #[arg(long, value_name = "TEXT", default_value = Layout::DEFAULT_PROJECT, value_parser = one_line)]
    pub(super) project: String,

    /// How boards are drawn.
    #[arg(long, value_enum, default_value_t = Style::Classic)]
    pub(super) style: Style,

    /// Which boards the transcript shows.
    #[arg(long, value_enum, default_value_t = Boards::Each)]
    pub(super) boards: Boards,

    /// How the board is stored in memory; rulings are identical either way.
    #[arg(long, value_enum, default_value_t = Storage::Auto)]
    pub(super) storage: Storage,
}

impl LayoutArgs {
    pub(super) fn options(&self, format: Format) -> Options {
        Options {
            layout: Layout {
                programmer: self.programmer.clone(),
                project: self.project.clone(),
                style: self.style,
                boards: self.boards,
            },
            storage: self.storage,
            format,
        }
    }
}

/// How `--header` compares the first two lines (programmer and project);
/// shared by the commands that compare transcripts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum HeaderArg {
    /// Compare them like any other line.
    Exact,
    /// Compare only each expected line's label, up to and including its
    /// first `:` (`Programmer:`); a line without a `:` is compared whole.
    Label,
    /// Leave them out of the comparison.
    Skip,
}

impl From<HeaderArg> for check::Header {
    fn from(header: HeaderArg) -> check::Header {
        match header {
            HeaderArg::Exact => check::Header::Exact,
            HeaderArg::Label => check::Header::Label,
            HeaderArg::Skip => check::Header::Skip,
        }
    }
}

/// A board chosen on the command line (for games that have no move file).
#[derive(Debug, Args)]
pub(super) struct BoardArgs {
    /// The board, as `ROWSxCOLS` (default 3x3).
    #[arg(long, value_name = "RxC", value_parser = parse_size)]
    pub(super) board: Option<(u32, u32)>,

    /// Marks in a row to win (default 3, or the longer side if smaller).
    #[arg(long, value_name = "K")]
    pub(super) win: Option<u32>,

    /// Which lines win: K or more in a row, or exactly K (an overline does
    /// not win: Gomocup's "standard" rule).
    #[arg(long, value_enum, value_name = "RULE", default_value_t = WinRule::AtLeast)]
    pub(super) rule: WinRule,
}

impl BoardArgs {
    pub(super) fn geometry(&self) -> Result<Geometry, CliError> {
        let (rows, cols) = self.board.unwrap_or((3, 3));
        let win = self.win.unwrap_or_else(|| rows.max(cols).min(3));
        Geometry::new(rows, cols, win).map(|g| g.with_rule(self.rule)).map_err(|_| CliError::Board {
            rows,
            cols,
            win,
        })
    }
}

pub(super) fn parse_size(text: &str) -> Result<(u32, u32), String> {
    let (rows, cols) = text.split_once(['x', 'X']).ok_or("expected ROWSxCOLS, such as 5x7")?;
    let number =
        |s: &str| s.trim().parse::<u32>().map_err(|_| format!("`{s}` is not a number of rows or columns"));
    Ok((number(rows)?, number(cols)?))
}

/// A search time in seconds: a positive number, such as `5` or `0.5`.
pub(super) fn parse_seconds(text: &str) -> Result<Duration, String> {
    match text.parse::<f64>() {
        Ok(seconds) if seconds > 0.0 && seconds <= 1e9 => Ok(Duration::from_secs_f64(seconds)),
        _ => Err(format!("`{text}` is not a time; expected a number of seconds above 0, such as 5 or 0.5")),
    }
}

/// Parses `--hash`: a whole number of MiB within the engine's limits.
pub(super) fn parse_hash_mb(text: &str) -> Result<u32, String> {
    use crate::engine::{MAX_HASH_MB, MIN_HASH_MB};
    match text.parse::<u32>() {
        Ok(mb) if (MIN_HASH_MB..=MAX_HASH_MB).contains(&mb) => Ok(mb),
        _ => Err(format!(
            "`{text}` is not a table size; expected a whole number of megabytes from {MIN_HASH_MB} to {MAX_HASH_MB}, such as 256"
        )),
    }
}

/// `--color WHEN`: whether the terminal's table is coloured.
#[derive(Debug, Args)]
pub(super) struct ColourArgs {
    /// Colour the table's verdicts: `auto` on a terminal unless `NO_COLOR` is
    /// set (and not empty) or `TERM` is `dumb`, `always`, or `never`.
    #[arg(long = "color", value_name = "WHEN", value_enum, default_value_t = clap::ColorChoice::Auto)]
    pub(super) color: clap::ColorChoice,
}

impl ColourArgs {
    /// Whether standard output gets colour.
    pub(super) fn stdout(&self) -> bool {
        use std::io::IsTerminal;
        match self.color {
            clap::ColorChoice::Always => true,
            clap::ColorChoice::Never => false,
            clap::ColorChoice::Auto => {
                std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
                    && std::io::stdout().is_terminal()
            }
        }
    }
}

/// Accepts a value that fits on one transcript line.
pub(super) fn one_line(value: &str) -> Result<String, String> {
    if value.contains(['\n', '\r']) { Err("must be a single line".to_owned()) } else { Ok(value.to_owned()) }
}
