//! `ttt-referee play`: a game between people and computer players at the
//! console, recorded as a move file and a transcript.

use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Args;

use super::seated::SeatedBot;
use super::{BoardArgs, CliError, EXIT_INTERRUPTED, EXIT_SUCCESS, LayoutArgs, entrants};
use crate::grade::GradeError;
use crate::output::Durability;
use crate::play::{self, Profile, Seated, Setting, Side, Thinking};
use crate::referee;
use crate::referee::Format;
use crate::workshop::Workshop;

pub(super) const AFTER_HELP: &str = "\
Players are human, rules, minimax, perfect or random, or a bot: a directory
holding its source, built as `match` builds one and started in the sandbox
for each game, each answer within --move-time (its first --startup more). A
bot's answer that is no free square, or none in time, forfeits the game,
which the console says (and the record's title; a taken or off-board
answer is its last line); what the bot wrote on standard error is shown when
each game ends. A person types a square number; an invalid or taken square
is refused and asked for again. With a person playing, each game ends by
asking whether to play again; the second game's files get `-2` before their
extension, and so on. The recorded move file, refereed, reproduces the
transcript byte for byte. Bots play at the default console only; with one
seated, Ctrl-C ends `play` at once (exit status 130), the bot stopped.

Profiles reproduce the original assignments' consoles, prompts and messages exactly
(FORMAT.md has every line). They ask for the board themselves, so --board and
--win are refused with them.
  xtreme    StFX asn3: the size, then `x, y` moves; one game.
  extended  Clemson CPSC 2150: 2 to 10 players, their characters, rows, columns, the
            number to win and the board kind, then ROW and COLUMN from 0;
            --x and --o play players 1 and 2 (people by default), the rest
            are people; asks to play again.
  uri       URI CSC 212 Deep Dive 4: the numbered 3x3 board, the AI (--o, minimax by
            default) as player 2; one game.
  smalltalk the Smalltalk exercise: asks whether each player is a human or the computer
            (rules, with --seed), so --x and --o are refused; redraws the
            board on every change, clearing a terminal first; one game.";

#[derive(Debug, Args)]
pub(super) struct PlayArgs {
    /// Who plays X (moves first): human, an engine's name, or a bot: a
    /// directory holding its source [default: human].
    #[arg(long, value_name = super::values::SEAT, value_parser = parse_who)]
    x: Option<Who>,

    /// Who plays O, as --x [default: perfect; human with --profile extended,
    /// minimax with --profile uri].
    #[arg(long, value_name = super::values::SEAT, value_parser = parse_who)]
    o: Option<Who>,

    /// With a bot: the most time it may take over each answer, in seconds.
    #[arg(long, value_name = "SECONDS", default_value = "1", value_parser = super::parse_seconds)]
    move_time: Duration,

    /// With a bot: how much longer than --move-time its first answer of a
    /// game may take, in seconds (its start: a JVM's, say).
    #[arg(long, value_name = "SECONDS", default_value = "5", value_parser = super::parse_seconds)]
    startup: Duration,

    #[command(flatten)]
    board: BoardArgs,

    /// The seed for the computer players' random choices.
    #[arg(long, default_value_t = 0)]
    seed: u64,

    /// The most time the perfect engine thinks over a move, in seconds; out
    /// of time, it plays the best move of the deepest search it finished.
    #[arg(long, value_name = "SECONDS", default_value = "3", value_parser = super::parse_seconds)]
    time: Duration,

    /// The perfect engine's transposition table, in megabytes: its search
    /// uses at most about this much memory however long it thinks.
    #[arg(long, value_name = "MB", default_value_t = crate::engine::DEFAULT_HASH_MB, value_parser = super::parse_hash_mb)]
    hash: u32,

    /// Write the game as a move file.
    #[arg(long, value_name = "MOVES")]
    record: Option<PathBuf>,

    /// Write the game's transcript.
    #[arg(short, long, value_name = "TRANSCRIPT")]
    output: Option<PathBuf>,

    /// The console: `default`, or an original assignment's own prompts and messages.
    #[arg(long, value_enum, default_value_t = Profile::Default)]
    profile: Profile,

    #[command(flatten)]
    layout: LayoutArgs,
}

pub(super) fn run(args: &PlayArgs) -> Result<u8, CliError> {
    if args.profile.sets_up_its_own_board() && (args.board.board.is_some() || args.board.win.is_some()) {
        return Err(CliError::BoardWithProfile { profile: args.profile });
    }
    if args.profile.asks_its_own_players() && (args.x.is_some() || args.o.is_some()) {
        return Err(CliError::SidesWithProfile { profile: args.profile });
    }
    let bots = [&args.x, &args.o].map(|who| match who {
        Some(Who::Bot(dir)) => Some(dir.clone()),
        _ => None,
    });
    if bots.iter().any(Option::is_some) && args.profile != Profile::Default {
        return Err(CliError::BotWithProfile { profile: args.profile });
    }
    let geometry = args.board.geometry()?;
    let side = |who: &Option<Who>| who.as_ref().map(Who::side);
    let sides = args.profile.sides(side(&args.x), side(&args.o));
    let options = args.layout.options(Format::Text);
    let thinking =
        Thinking { time_limit: Some(args.time), hash_mb: args.hash, watcher: Some(crate::spinner::watcher) };
    // Kept until the games are over: its sandbox runs the bots.
    let mut workshop = None;
    let programs = seat(&bots, args, &mut workshop)?;
    let setting =
        Setting { geometry, thinking, terminal: io::stdout().is_terminal(), programs, ..Setting::new(sides) };
    let (input, output) = (Box::new(io::stdin().lock()), Box::new(io::stdout().lock()));
    let mut console = args.profile.dialect().console(setting, input, output);
    play::session(console.as_mut(), args.seed, |number, played| {
        let moves = played.move_file();
        if let Some(path) = &args.record {
            save(&numbered(path, number), moves.as_bytes())?;
        }
        if let Some(path) = &args.output {
            let path = numbered(path, number);
            let mut transcript = Vec::new();
            referee::referee(moves.as_bytes(), &mut transcript, &options)
                .map_err(|error| CliError::Recorded { path: path.clone(), error })?;
            save(&path, &transcript)?;
        }
        Ok::<(), CliError>(())
    })?;
    Ok(EXIT_SUCCESS)
}

/// Who plays a side: a person or an engine ([`Side`]), or a bot.
#[derive(Clone, Debug)]
enum Who {
    Side(Side),
    /// The directory holding a bot's source.
    Bot(PathBuf),
}

impl Who {
    /// The side the console is told of.
    fn side(&self) -> Side {
        match self {
            Who::Side(side) => *side,
            Who::Bot(_) => Side::Program,
        }
    }
}

/// Parses `--x`/`--o`: `human` or an engine's name (a name wins over a
/// directory of that name: `./perfect` names the directory), else an
/// existing directory, a bot.
fn parse_who(text: &str) -> Result<Who, String> {
    if let Ok(side) = Side::parse(text) {
        return Ok(Who::Side(side));
    }
    if Path::new(text).is_dir() {
        return Ok(Who::Bot(PathBuf::from(text)));
    }
    Err(format!(
        "`{}` is not a player; expected human, rules, minimax, perfect, strong, random or a directory holding a bot's source",
        crate::text::inert(text)
    ))
}

/// The programs that play `bots`' sides (X's, then O's), each built in
/// `workshop` (made for the first, with its signals caught: Ctrl-C ends
/// the game at once, the scratch removed).
fn seat(
    bots: &[Option<PathBuf>; 2],
    args: &PlayArgs,
    workshop: &mut Option<Workshop>,
) -> Result<Seated, CliError> {
    let limits = crate::grade::TEST_LIMITS;
    let new_workshop = || {
        let workshop = entrants::workshop(limits)?;
        workshop.end_on_signals(EXIT_INTERRUPTED).map_err(|e| CliError::Grade(GradeError::Scratch(e)))?;
        Ok(workshop)
    };
    let bots_made = entrants::Bots {
        workshop: &new_workshop,
        limits,
        startup: args.startup,
        prebuilt: None,
        keeper: None,
    };
    let mut programs: Seated = Vec::new();
    for bot in bots {
        programs.push(match bot {
            Some(dir) => {
                let entrant = entrants::entrant(&dir.to_string_lossy(), &bots_made, workshop)?;
                Some(Box::new(SeatedBot::new(entrant, args.move_time)))
            }
            None => None,
        });
    }
    Ok(programs)
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
    super::write_whole(path, Durability::Renamed, |out| out.write_all(bytes))
}
