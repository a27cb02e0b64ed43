//! `ttt-referee completions SHELL`: print the shell's completion script, as
//! `clap_complete` writes it from the command-line definition (with bash's
//! repaired, see [`repair_bash`]).

use std::io::{self, Write};

use clap::{Args, Command};
use clap_complete::Shell;

use super::{CliError, EXIT_SUCCESS};

pub(super) const AFTER_HELP: &str = "\
Install the script where the shell looks for completions, then start a new shell:
  bash  ttt-referee completions bash > ~/.local/share/bash-completion/completions/ttt-referee
  zsh   ttt-referee completions zsh > ~/.zfunc/_ttt-referee
        (with `fpath+=~/.zfunc; autoload -Uz compinit; compinit` in ~/.zshrc)
  fish  ttt-referee completions fish > ~/.config/fish/completions/ttt-referee.fish";

#[derive(Debug, Args)]
pub(super) struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    shell: Shell,
}

pub(super) fn run(args: &CompletionsArgs, cmd: Command) -> Result<u8, CliError> {
    io::stdout().write_all(script(args.shell, cmd).as_bytes()).map_err(CliError::stdout)?;
    Ok(EXIT_SUCCESS)
}

/// The completion script of `shell` for `cmd`, completing the command's name.
fn script(shell: Shell, mut cmd: Command) -> String {
    let name = cmd.get_name().to_owned();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, &name, &mut script);
    let script = String::from_utf8_lossy(&script).into_owned();
    if shell == Shell::Bash { repair_bash(&script, &name) } else { script }
}

/// Relabels the arms of a `clap_complete` bash script for a command whose name
/// has a hyphen. The loop over the words spells grade's state
/// `ttt__referee__subcmd__grade` but its arm is labelled
/// `ttt__subcmd__referee__subcmd__grade`, so no subcommand's option ever
/// completed (clap-rs/clap#6421, still so in `clap_complete` 4.6.11). The arms
/// get the loop's spelling; for a name without a hyphen nothing changes.
fn repair_bash(script: &str, name: &str) -> String {
    const SEPARATOR: &str = "__subcmd__";
    let wrong = format!("{}{SEPARATOR}", name.replace('-', SEPARATOR));
    let right = format!("{}{SEPARATOR}", name.replace('-', "__"));
    script.replace(&wrong, &right)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use clap::CommandFactory;

    use super::*;
    use crate::cli::Cli;

    /// The states the loop over the words sets (`cmd="..."`) and the arms
    /// that complete them (`        NAME)` in `case "${cmd}"`).
    fn states_and_arms(script: &str) -> (BTreeSet<&str>, BTreeSet<&str>) {
        let states = script
            .lines()
            .filter_map(|l| l.trim().strip_prefix("cmd=\"")?.strip_suffix('"'))
            .filter(|s| !s.is_empty())
            .collect();
        let arms = script
            .lines()
            .filter(|l| l.starts_with("        ") && !l.starts_with("         "))
            .filter_map(|l| l.trim().strip_suffix(')'))
            .collect();
        (states, arms)
    }

    #[test]
    fn every_bash_state_has_its_arm() {
        let script = script(Shell::Bash, Cli::command());
        let (states, arms) = states_and_arms(&script);
        assert!(states.contains("ttt__referee__subcmd__grade"), "{states:?}");
        let missing: Vec<_> = states.difference(&arms).collect();
        assert!(missing.is_empty(), "states without an arm: {missing:?}\narms: {arms:?}");
    }

    #[test]
    fn a_name_without_a_hyphen_is_left_alone() {
        let script = "_tool() {\n        tool__subcmd__grade)\n";
        assert_eq!(repair_bash(script, "tool"), script);
        assert_eq!(
            repair_bash("        a__subcmd__b__subcmd__c__subcmd__grade)", "a-b-c"),
            "        a__b__c__subcmd__grade)"
        );
    }
}
