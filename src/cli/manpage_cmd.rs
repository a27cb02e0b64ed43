//! `ttt-referee manpage`: the man pages, rendered by `clap_mangen` from the
//! command-line definition: the top page on standard output, or with --dir a
//! page for every command.

use std::fs;
use std::io::{self, Write};
use std::path::PathBuf;

use clap::{Args, Command};
use clap_mangen::Man;

use super::{CliError, EXIT_SUCCESS, write_whole};
use crate::output::Durability;

pub(super) const AFTER_HELP: &str = "\
With --dir DIR it writes ttt-referee.1 and a page for every subcommand
(ttt-referee-grade.1, ...), each replaced whole. Into a directory `man` reads:
  ttt-referee manpage --dir ~/.local/share/man/man1
  sudo ttt-referee manpage --dir /usr/local/share/man/man1
then `man ttt-referee-grade`.";

#[derive(Debug, Args)]
pub(super) struct ManpageArgs {
    /// Write every command's page into DIR (created if missing) instead of
    /// printing the top page.
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
}

pub(super) fn run(args: &ManpageArgs, cmd: Command) -> Result<u8, CliError> {
    let pages = pages(cmd);
    let Some(dir) = &args.dir else {
        let mut page = Vec::new();
        pages[0].render(&mut page).map_err(CliError::stdout)?;
        io::stdout().write_all(&page).map_err(CliError::stdout)?;
        return Ok(EXIT_SUCCESS);
    };
    fs::create_dir_all(dir).map_err(|source| CliError::write(dir, source))?;
    for page in &pages {
        let path = dir.join(page.get_filename());
        write_whole(&path, Durability::Renamed, |out| page.render(out))?;
    }
    Ok(EXIT_SUCCESS)
}

/// A page for `cmd` and one for each of its visible subcommands, nested ones
/// too, the top page first. `help` has no page (its text is every page), so
/// no page names one.
fn pages(cmd: Command) -> Vec<Man> {
    fn collect(cmd: Command, source: &str, pages: &mut Vec<Man>) {
        let subcommands: Vec<Command> = cmd.get_subcommands().filter(|s| !s.is_hide_set()).cloned().collect();
        pages.push(Man::new(cmd).source(source));
        for sub in subcommands {
            collect(sub, source, pages);
        }
    }
    let mut cmd = cmd.disable_help_subcommand(true);
    cmd.build();
    let source = format!("{} {}", cmd.get_name(), cmd.get_version().unwrap_or_default());
    let mut pages = Vec::new();
    collect(cmd, &source, &mut pages);
    pages
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;
    use crate::cli::Cli;

    #[test]
    fn every_subcommand_has_a_page_and_help_none() {
        let names: Vec<String> = pages(Cli::command()).iter().map(Man::get_filename).collect();
        assert_eq!(names[0], "ttt-referee.1");
        for sub in ["check", "gen", "grade", "hint", "play", "match", "tournament", "completions", "manpage"]
        {
            assert!(names.contains(&format!("ttt-referee-{sub}.1")), "{sub}: {names:?}");
        }
        assert!(!names.iter().any(|n| n.contains("help")), "{names:?}");
    }

    #[test]
    fn nested_subcommands_get_pages_named_for_their_path() {
        let cmd =
            Command::new("tool").version("1.0").subcommand(Command::new("a").subcommand(Command::new("b")));
        let names: Vec<String> = pages(cmd).iter().map(Man::get_filename).collect();
        assert_eq!(names, ["tool.1", "tool-a.1", "tool-a-b.1"]);
    }
}
