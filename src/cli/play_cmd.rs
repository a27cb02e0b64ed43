//! `ttt-referee play`: a game between people and computer players at the
//! console, recorded as a move file and a transcript.

use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};

use clap::Args;

use super::{BoardArgs, CliError, EXIT_SUCCESS, LayoutArgs};
use crate::output::{Durability, Staged};
use crate::play::{Side, has_human, play, xtreme};
use crate::referee;
use crate::referee::Format;

pub(super) const AFTER_HELP: &str = "\
Players are human, rules, minimax or perfect. `--profile xtreme` is seeds/003's
console (it asks the size itself, so --board does not apply). A person types a square number;
an invalid or taken square is refused and asked for again. With a person
playing, each game ends by asking whether to play again; the second game's
files get `-2` before their extension, and so on. The recorded move file,
refereed, reproduces the transcript byte for byte.";

#[derive(Debug, Args)]
pub(super) struct PlayArgs {
    /// Who plays X (moves first): human, rules, minimax or perfect.
    #[arg(long, value_name = "PLAYER", default_value = "human", value_parser = Side::parse)]
    x: Side,

    /// Who plays O: human, rules, minimax or perfect.
    #[arg(long, value_name = "PLAYER", default_value = "perfect", value_parser = Side::parse)]
    o: Side,

    #[command(flatten)]
    board: BoardArgs,

    /// The seed for the computer players' random choices.
    #[arg(long, default_value_t = 0)]
    seed: u64,

    /// Write the game as a move file.
    #[arg(long, value_name = "MOVES")]
    record: Option<PathBuf>,

    /// Write the game's transcript.
    #[arg(short, long, value_name = "TRANSCRIPT")]
    output: Option<PathBuf>,

    /// The console: `default`, or a seed program's own prompts and messages.
    #[arg(long, value_enum, default_value_t = Profile::Default)]
    profile: Profile,

    #[command(flatten)]
    layout: LayoutArgs,
}

/// The console a game is played at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Profile {
    /// A plain prompt: the board, `X to move (1-9): `, square numbers.
    #[value(help = "a plain prompt with square numbers")]
    Default,
    /// seeds/003's program: the size asked first, `x, y` moves, `Move Counter`.
    #[value(help = "seeds/003's console: `Game Board Size: `, `X's move (x, y): `")]
    Xtreme,
}

pub(super) fn run(args: &PlayArgs) -> Result<u8, CliError> {
    let geometry = args.board.geometry()?;
    let sides = [args.x, args.o];
    let options = args.layout.options(Format::Text);
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let mut console = io::stdout().lock();
    for number in 1u64.. {
        let seed = args.seed.wrapping_add(2 * (number - 1));
        let played = match args.profile {
            Profile::Default => play(sides, geometry, seed, &mut input, &mut console).map(Some),
            Profile::Xtreme => xtreme::play(sides, seed, &mut input, &mut console),
        }
        .map_err(|e| match e {
            crate::play::PlayError::Io(source) => CliError::stdout(source),
            crate::play::PlayError::Engine(error) => CliError::Message(error.to_string()),
        })?;
        // The input ended before a game began.
        let Some(played) = played else { break };
        let moves = played.move_file();
        if let Some(path) = &args.record {
            save(&numbered(path, number), moves.as_bytes())?;
        }
        if let Some(path) = &args.output {
            let mut transcript = Vec::new();
            referee::referee(moves.as_bytes(), &mut transcript, &options)
                .map_err(|e| CliError::Message(format!("the recorded game does not referee: {e}")))?;
            save(&numbered(path, number), &transcript)?;
        }
        // seeds/003's program plays one game and ends; so does its profile.
        let asks = args.profile == Profile::Default && has_human(sides);
        if played.game.outcome().is_none() || !asks || !again(&mut input, &mut console)? {
            break;
        }
    }
    Ok(EXIT_SUCCESS)
}

/// Asks whether to play again; yes only for an answer starting with `y`.
fn again(input: &mut impl BufRead, console: &mut impl Write) -> Result<bool, CliError> {
    write!(console, "Play again? [y/N] ").and_then(|()| console.flush()).map_err(CliError::stdout)?;
    let mut answer = String::new();
    let read = input
        .read_line(&mut answer)
        .map_err(|source| CliError::Open { path: super::Shown("<stdin>".into()), source })?;
    if read == 0 {
        writeln!(console).map_err(CliError::stdout)?;
    }
    Ok(answer.trim_start().starts_with(['y', 'Y']))
}

/// `path` for game `number`: the first game's as given, later ones with
/// `-N` before the extension.
fn numbered(path: &Path, number: u64) -> PathBuf {
    if number == 1 {
        return path.to_path_buf();
    }
    let stem = path.file_stem().map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let name = match path.extension() {
        Some(ext) => format!("{stem}-{number}.{}", ext.to_string_lossy()),
        None => format!("{stem}-{number}"),
    };
    path.with_file_name(name)
}

fn save(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    let mut staged =
        Staged::file(path, Durability::Renamed).map_err(|source| CliError::write(path, source))?;
    staged.write_all(bytes).and_then(|()| staged.commit()).map_err(|source| CliError::write(path, source))
}
