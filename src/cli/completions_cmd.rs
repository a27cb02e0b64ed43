//! `ttt-referee completions SHELL`: print the shell's completion script, as
//! `clap_complete` writes it from the command-line definition, repaired
//! where it goes wrong for this command line (see [`repair_bash`],
//! [`repair_zsh`], [`repair_fish`]), and with the engines' names offered
//! beside files wherever a value is an engine or a path ([`Named`]): a
//! static script can offer a list or files for a value, not both, so each
//! shell's script is given both where the definition asks for them.
//!
//! The top level takes either a subcommand or move files (clap's
//! `args_conflicts_with_subcommands`), which `clap_complete` does not model:
//! its zsh script took the first word for a move file and the second for
//! the subcommand, so `ttt-referee grade --hea<TAB>` found nothing, and its
//! fish script completed no top-level option's value.

use std::io::{self, Write};

use clap::{Args, Command};
use clap_complete::Shell;

use super::values::{OPPONENT, PARTICIPANT, SEAT, versus_engines};
use super::{CliError, EXIT_SUCCESS};
use crate::engine::EngineKind;

pub(super) const AFTER_HELP: &str = "\
Install the script where the shell looks for completions, then start a new shell:
  bash  ttt-referee completions bash > ~/.local/share/bash-completion/completions/ttt-referee
  zsh   ttt-referee completions zsh > ~/.zfunc/_ttt-referee
        (with `fpath+=~/.zfunc; autoload -Uz compinit; compinit` in ~/.zshrc)
  fish  mkdir -p ~/.config/fish/completions
        ttt-referee completions fish > ~/.config/fish/completions/ttt-referee.fish
A participant of match or tournament, and grade --versus, completes as an
engine's name or a file (a bot's directory).";

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
    let named = named(&cmd);
    match shell {
        Shell::Bash => engines_bash(&repair_bash(&script, &name), &name, &named),
        Shell::Zsh => engines_zsh(&repair_zsh(&script, &name), &named),
        Shell::Fish => engines_fish(&repair_fish(&script, &name, &subcommands(&cmd)), &name, &cmd, &named),
        _ => script,
    }
}

/// A value that is an engine's name or a path: a subcommand's positional
/// argument (`option` `None`) or option.
#[derive(Debug, PartialEq, Eq)]
struct Named {
    /// The subcommand, below its parents (`autograder gradescope`).
    path: Vec<String>,
    /// The option's long name, or `None` for the positional arguments.
    option: Option<String>,
    /// The engines it takes.
    engines: Vec<&'static str>,
}

/// Every value of `cmd`'s subcommands that is an engine or a path, found
/// by its value name in the definition: [`PARTICIPANT`] (every engine) and
/// [`OPPONENT`] (the engines `--versus` takes).
fn named(cmd: &Command) -> Vec<Named> {
    let mut named = Vec::new();
    find_named(cmd, &[], &mut named);
    named
}

/// [`named`] of `cmd`, itself below the subcommands `path`, each of its
/// subcommands and theirs in turn (`help`'s aside: it takes no value).
fn find_named(cmd: &Command, path: &[String], named: &mut Vec<Named>) {
    for sub in cmd.get_subcommands().filter(|sub| sub.get_name() != "help") {
        let mut path = path.to_vec();
        path.push(sub.get_name().to_owned());
        for arg in sub.get_arguments() {
            let engines =
                match arg.get_value_names().and_then(|names| names.first()).map(clap::builder::Str::as_str) {
                    Some(PARTICIPANT) => EngineKind::ALL.map(EngineKind::name).to_vec(),
                    Some(OPPONENT) => versus_engines(),
                    Some(SEAT) => {
                        std::iter::once("human").chain(EngineKind::ALL.map(EngineKind::name)).collect()
                    }
                    _ => continue,
                };
            let option = if arg.is_positional() { None } else { arg.get_long().map(str::to_owned) };
            named.push(Named { path: path.clone(), option, engines });
        }
        find_named(sub, &path, named);
    }
}

/// An engine's help (or `human`'s), as `play --help` would list it, for
/// fish's list.
fn engine_help(name: &str) -> String {
    use clap::ValueEnum;
    crate::play::Side::parse(name)
        .ok()
        .and_then(|side| side.to_possible_value())
        .and_then(|value| value.get_help().map(ToString::to_string))
        .unwrap_or_default()
        .replace('\\', "\\\\")
        .replace('\'', "\\'")
}

/// The bash script's arm for the subcommand `path` (from its label to its `;;`), as
/// a range of `script`.
fn bash_arm(script: &str, name: &str, path: &[String]) -> Option<std::ops::Range<usize>> {
    let subcommands: Vec<String> = path.iter().map(|p| p.replace('-', "__")).collect();
    let label =
        format!("\n        {}__subcmd__{})\n", name.replace('-', "__"), subcommands.join("__subcmd__"));
    let start = script.find(&label)?;
    let len = script[start..].find("\n            ;;\n")?;
    Some(start..start + len)
}

/// Makes bash offer the engines beside files: for a participant, any word
/// not an option (the first included: `clap_complete` offered only options
/// there) completes as an engine or a file; for an option, its value does.
fn engines_bash(script: &str, name: &str, named: &[Named]) -> String {
    let mut script = script.to_owned();
    for n in named {
        let Some(arm) = bash_arm(&script, name, &n.path) else { continue };
        let both = format!(
            "COMPREPLY=($(compgen -W \"{}\" -- \"${{cur}}\") $(compgen -f -- \"${{cur}}\"))",
            n.engines.join(" ")
        );
        let repaired = match &n.option {
            None => script[arm.clone()]
                .replacen("if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then", "if [[ ${cur} == -* ]] ; then", 1)
                .replacen(
                    "            esac\n            COMPREPLY=( $(compgen -W \"${opts}\" -- \"${cur}\") )\n            return 0",
                    &format!("            esac\n            {both}\n            return 0"),
                    1,
                ),
            Some(option) => script[arm.clone()].replacen(
                &format!("                --{option})\n                    COMPREPLY=($(compgen -f \"${{cur}}\"))\n"),
                &format!("                --{option})\n                    {both}\n"),
                1,
            ),
        };
        script.replace_range(arm, &repaired);
    }
    script
}

/// Makes zsh offer the engines beside directories: the value's action,
/// `_default` as `clap_complete` writes it, becomes `_alternative` of the
/// engines and `_files -/`.
fn engines_zsh(script: &str, named: &[Named]) -> String {
    let mut script = script.to_owned();
    for n in named {
        let Some(last) = n.path.last() else { continue };
        // The arm's label, alone on its line (indented when nested).
        let label = format!("({last})\n_arguments ");
        let Some(start) = script.match_indices(&label).map(|(at, _)| at).find(|&at| {
            script[..at].rsplit('\n').next().is_some_and(|before| before.trim_start().is_empty())
        }) else {
            continue;
        };
        let Some(len) = script[start..].find("\n&& ret=0\n") else { continue };
        // An option's action is cut at its colons (the option's next
        // argument would follow one), so they are escaped, and braces keep
        // `_arguments` from giving `_alternative` options of its own.
        let both = match &n.option {
            None => format!(
                ":_alternative \"engines:engine:({})\" \"bots:bot directory:_files -/\"'",
                n.engines.join(" ")
            ),
            Some(_) => format!(
                ":{{_alternative \"engines\\:engine\\:({})\" \"bots\\:bot directory\\:_files -/\"}}'",
                n.engines.join(" ")
            ),
        };
        let arm = &script[start..start + len];
        let repaired = arm
            .lines()
            .map(|line| {
                let this = match &n.option {
                    None => line.starts_with("'*::"),
                    Some(option) => line.contains(&format!("--{option}=[")),
                };
                match line.strip_suffix(":_default' \\") {
                    Some(spec) if this => format!("{spec}{both} \\"),
                    _ => line.to_owned(),
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        script.replace_range(start..start + len, &repaired);
    }
    script
}

/// Makes fish offer the engines beside files for each [`Named`] value (fish
/// adds files to a list unless told not to), and each subcommand's
/// positional values that are a fixed list (`completions SHELL`) without
/// files: `clap_complete` writes no line for a positional argument.
fn engines_fish(script: &str, name: &str, cmd: &Command, named: &[Named]) -> String {
    let function = name.replace('-', "_");
    let mut script = script.to_owned();
    // As `clap_complete` writes it: the first subcommand, then the last.
    let condition = |path: &[String]| match path {
        [sub] => format!("complete -c {name} -n \"__fish_{function}_using_subcommand {sub}\""),
        [first, .., last] => format!(
            "complete -c {name} -n \"__fish_{function}_using_subcommand {first}; and __fish_seen_subcommand_from {last}\""
        ),
        [] => String::new(),
    };
    for n in named {
        let engines =
            n.engines.iter().map(|e| format!("{e}\\t'{}'", engine_help(e))).collect::<Vec<_>>().join(" ");
        let line = match &n.option {
            None => format!("{} -a \"{engines}\"\n", condition(&n.path)),
            Some(option) => {
                let start = format!("{} -l {option} ", condition(&n.path));
                // The option's own line then offers files alone: replaced.
                if let Some(at) = script.find(&start) {
                    let end = script[at..].find('\n').map_or(script.len(), |i| at + i + 1);
                    script.replace_range(at..end, "");
                }
                let help = n
                    .path
                    .iter()
                    .try_fold(cmd, |cmd, sub| cmd.find_subcommand(sub))
                    .and_then(|sub| sub.get_arguments().find(|a| a.get_long() == Some(option)))
                    .and_then(|a| a.get_help().map(ToString::to_string))
                    .unwrap_or_default()
                    .replace('\\', "\\\\")
                    .replace('\'', "\\'");
                format!("{start}-d '{help}' -r -a \"{engines}\"\n")
            }
        };
        script.push_str(&line);
    }
    for sub in cmd.get_subcommands() {
        for arg in sub.get_arguments().filter(|a| a.is_positional()) {
            let values: Vec<String> = arg
                .get_possible_values()
                .iter()
                .filter(|v| !v.is_hide_set())
                .map(|v| v.get_name().to_owned())
                .collect();
            if !values.is_empty() {
                let _ = std::fmt::Write::write_fmt(
                    &mut script,
                    format_args!(
                        "{} -f -a \"{}\"\n",
                        condition(&[sub.get_name().to_owned()]),
                        values.join(" ")
                    ),
                );
            }
        }
    }
    script
}

/// The names of `cmd`'s subcommands, `help` included.
fn subcommands(cmd: &Command) -> Vec<String> {
    let mut names: Vec<String> = cmd.get_subcommands().map(|c| c.get_name().to_owned()).collect();
    if !names.iter().any(|n| n == "help") {
        names.push("help".to_owned());
    }
    names
}

/// Makes the zsh script complete the first word as a subcommand or a move
/// file. `clap_complete` declares the move files as the first word and the
/// subcommand as the second (`$line[2]`); this takes the move files'
/// declaration out of the top level's, completes subcommands and files as
/// the first word, reads the subcommand from `$line[1]`, and adds an arm
/// for a first word that is no subcommand (a move file): the top level's
/// options and more move files. A script not shaped as expected is left
/// as it is.
fn repair_zsh(script: &str, name: &str) -> String {
    const ARGUMENTS: &str = "_arguments \"${_arguments_options[@]}\" : \\\n";
    let commands = format!("\":: :_{name}_commands\" \\\n");
    let (Some(start), Some(at)) = (script.find(ARGUMENTS), script.find(&commands)) else {
        return script.to_owned();
    };
    let options_start = start + ARGUMENTS.len();
    // The move files' declaration: the line before the subcommand's.
    let Some(moves_start) = script[..at].rfind("\n'").map(|i| i + 1) else { return script.to_owned() };
    if moves_start < options_start || !script[moves_start..at].starts_with("':") {
        return script.to_owned();
    }
    let options = &script[options_start..moves_start];
    let moves = format!("'*{}", &script[moves_start + 1..at]);
    let end = "        esac\n    ;;\nesac\n}\n";
    let Some(last_arm) = script.find(end) else { return script.to_owned() };
    let mut repaired = String::with_capacity(script.len() + options.len() + 256);
    repaired.push_str(&script[..moves_start]);
    let middle = script[at..last_arm].replacen("$line[2]", "$line[1]", 3);
    repaired.push_str(&middle);
    repaired.push_str("(*)\n");
    repaired.push_str(ARGUMENTS);
    repaired.push_str(options);
    repaired.push_str(&moves);
    repaired.push_str("&& ret=0\n;;\n");
    repaired.push_str(&script[last_arm..]);
    // The first word: a subcommand or a move file.
    let describe = format!("    _describe -t commands '{name} commands' commands \"$@\"\n");
    let both = format!(
        "    local ret=1\n    _describe -t commands '{name} commands' commands \"$@\" && ret=0\n    _files \"$@\" && ret=0\n    return ret\n"
    );
    let function = format!("\n_{name}_commands() {{\n");
    match repaired.find(&function) {
        Some(at) => {
            let (head, tail) = repaired.split_at(at);
            format!("{head}{}", tail.replacen(&describe, &both, 1))
        }
        None => repaired,
    }
}

/// Makes the fish script complete the top level's option values and its
/// options after a move file. `clap_complete`'s test for "no subcommand
/// yet" failed while an option waited for its value (`--style <TAB>`), and
/// took a move file for a subcommand; here an option waiting for its value
/// is at the top level, and only a subcommand's name is a subcommand.
fn repair_fish(script: &str, name: &str, subcommands: &[String]) -> String {
    let function = name.replace('-', "_");
    let head = format!("function __fish_{function}_needs_command\n");
    let Some(start) = script.find(&head) else { return script.to_owned() };
    let Some(len) = script[start..].find("\nend\n") else { return script.to_owned() };
    let body = &script[start..start + len];
    let repaired = body.replacen("    or return\n", "    or return 0\n", 1).replacen(
        "    if set -q argv[1]\n",
        &format!("    if set -q argv[1]; and contains -- $argv[1] {}\n", subcommands.join(" ")),
        1,
    );
    format!("{}{repaired}{}", &script[..start], &script[start + len..])
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

    /// The zsh script completes the first word as a subcommand (or a move
    /// file), reads the subcommand from it, and after a move file offers
    /// the top level's options.
    #[test]
    fn zsh_completes_a_subcommand_as_the_first_word() {
        let script = script(Shell::Zsh, Cli::command());
        let top = &script[..script.find("\n    case $state in").unwrap()];
        assert!(
            top.ends_with("\":: :_ttt-referee_commands\" \\\n\"*::: :->ttt-referee\" \\\n&& ret=0"),
            "{top}"
        );
        assert!(!top.contains("':moves"), "{top}");
        assert!(!script.contains("$line[2]"), "{script}");
        assert!(script.contains("        case $line[1] in\n            (check)\n"), "{script}");
        let commands = &script[script.find("\n_ttt-referee_commands() {").unwrap()..];
        assert!(
            commands.contains("commands \"$@\" && ret=0\n    _files \"$@\" && ret=0\n    return ret\n}"),
            "{commands}"
        );
        // grade's options, and the arm for a move file, last in the top case.
        assert!(script.contains("(grade)\n_arguments \"${_arguments_options[@]}\" : \\\n"), "{script}");
        assert!(script.contains("'--header=[The header lines"), "{script}");
        let arm = &script[script.find("\n(*)\n").unwrap()..];
        assert!(arm.contains("\n'--style=[How boards are drawn]:STYLE:((classic"), "{arm}");
        assert!(arm.contains("\n'*:moves -- Move files to referee;"), "{arm}");
        assert!(arm.contains("&& ret=0\n;;\n        esac\n    ;;\nesac\n}\n"), "{arm}");
        // Every player is a value to complete.
        assert!(
            script.contains(":PLAYER:((human\\:\"a person, typing at the console\"\nrules\\:"),
            "{script}"
        );
    }

    #[test]
    fn fish_knows_the_top_level_from_a_subcommand() {
        let script = script(Shell::Fish, Cli::command());
        assert!(script.contains("    or return 0\n"), "{script}");
        assert!(
            script.contains("    if set -q argv[1]; and contains -- $argv[1] check hint play match tournament brain gen grade build merge autograder completions manpage help\n"),
            "{script}"
        );
        assert!(
            script.contains("-l x -d 'With --profile, who plays X (as `play --x`) [default: human]' -r -f -a \"human\\t'a person"),
            "{script}"
        );
    }

    #[test]
    fn engines_are_offered_wherever_a_participant_is_named() {
        let cmd = Cli::command();
        let named = named(&cmd);
        let all = vec!["perfect", "strong", "minimax", "rules", "random"];
        let at = |path: &[&str], option: Option<&str>| Named {
            path: path.iter().map(|&p| p.to_owned()).collect(),
            option: option.map(str::to_owned),
            engines: match option {
                Some("x" | "o") => [&["human"][..], &all].concat(),
                Some(_) => vec!["strong", "minimax", "rules"],
                None => all.clone(),
            },
        };
        assert_eq!(
            named,
            [
                at(&["play"], Some("x")),
                at(&["play"], Some("o")),
                at(&["match"], None),
                at(&["tournament"], None),
                at(&["grade"], Some("versus")),
                // Taken as match and tournament take them (engines are left out).
                at(&["build"], None),
                at(&["autograder", "gradescope"], Some("versus")),
                at(&["autograder", "github"], Some("versus")),
            ]
        );
        let bash = script(Shell::Bash, Cli::command());
        let both = "COMPREPLY=($(compgen -W \"perfect strong minimax rules random\" -- \"${cur}\") $(compgen -f -- \"${cur}\"))";
        assert_eq!(bash.matches(both).count(), 3, "{bash}");
        // play's --x and --o: a person, an engine, or a bot's directory.
        let seat = "COMPREPLY=($(compgen -W \"human perfect strong minimax rules random\" -- \"${cur}\") $(compgen -f -- \"${cur}\"))";
        assert_eq!(bash.matches(seat).count(), 2, "{bash}");
        assert_eq!(
            bash.matches("--versus)\n                    COMPREPLY=($(compgen -W \"strong minimax rules\"")
                .count(),
            3,
            "{bash}"
        );
        let zsh = script(Shell::Zsh, Cli::command());
        let alternative = ":_alternative \"engines:engine:(perfect strong minimax rules random)\" \"bots:bot directory:_files -/\"' \\\n";
        assert_eq!(zsh.matches(alternative).count(), 3, "{zsh}");
        assert_eq!(
            zsh.matches(":WHO:{_alternative \"engines\\:engine\\:(human perfect strong minimax rules random)\" \"bots\\:bot directory\\:_files -/\"}'").count(),
            2,
            "{zsh}"
        );
        assert_eq!(zsh.matches("{_alternative \"engines\\:engine\\:(strong minimax rules)\" \"bots\\:bot directory\\:_files -/\"}'").count(), 3, "{zsh}");
        let fish = script(Shell::Fish, Cli::command());
        assert!(fish.contains("\ncomplete -c ttt-referee -n \"__fish_ttt_referee_using_subcommand match\" -a \"perfect\\t'a full solver"), "{fish}");
        // Files too (no `-f`), and a person.
        assert!(fish.contains("using_subcommand play\" -l x -d 'Who plays X (moves first): human, an engine\\'s name, or a bot: a directory holding its source [default: human]' -r -a \"human\\t'a person, typing at the console' perfect\\t'"), "{fish}");
        assert_eq!(fish.matches(" -l versus ").count(), 3, "{fish}");
        assert_eq!(fish.matches(" -l versus -d 'With --play: a test of its own").count(), 3, "{fish}");
        assert_eq!(fish.matches(" -r -a \"strong\\t'").count(), 3, "{fish}");
        assert!(
            fish.contains("using_subcommand completions\" -f -a \"bash elvish fish powershell zsh\"\n"),
            "{fish}"
        );
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
