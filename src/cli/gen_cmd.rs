//! `ttt-referee gen`: write a seeded corpus of move files, and optionally the
//! referee's transcript of each.

use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};

use super::{BoardArgs, CliError, EXIT_SUCCESS, LayoutArgs, Shown};
use crate::corpus::{GenOptions, Guarantees, move_file};
use crate::output::{Durability, Listed};
use crate::play::{Profile, scripts};
use crate::referee::{self, Format};

pub(super) const AFTER_HELP: &str = "\
Files are named game-0001.txt, game-0002.txt, ...; with --with-transcripts each
gets its transcript beside it as game-0001.expected. The same seed always gives
the same files, and file N does not depend on --count. Any 8 consecutive files
cover every ending (a win by each of the first two players, Cat, moves running
out) with either player moving first, and every file holds every violation its
game allows.

--within says what the files promise the programs they test:
  well-formed  only that the referee reads them: labels such as X: or XO,
               squares such as abc, 5.0 or 05, games whose moves run out
               (the default; a hostile corpus)
  cs1044       CS 1044's promises to its students: 3x3, X and O each with two
               names, every move line one character, a tab and a plain
               integer, at least 5 valid moves in every file and 9 when
               nobody wins. Illegal players (one character), squares out of
               range (0, 12, -1), double moves and marked squares remain; the
               fourth ending is a win followed by moves the program must not
               play. Correct students' programs pass every such file.

With --profile P it writes typed scripts for that console instead,
session-0001.stdin, ...: each plays one game to its end with some refused
answers on the way, for `grade --profile P`.

The corpus is written into a hidden directory beside --out-dir and renamed
into place once complete, so an interrupted gen leaves nothing. An --out-dir
that holds files is refused, unless --force: the files are then written over
those of the same names one by one (each whole), the others left.";

#[derive(Debug, Args)]
pub(super) struct GenArgs {
    /// How many move files to write.
    #[arg(long, default_value_t = 20)]
    count: u64,

    /// The seed: the same seed gives the same corpus.
    #[arg(long, default_value_t = 0)]
    seed: u64,

    /// The directory to write into (created if missing; refused if it holds
    /// files, unless --force).
    #[arg(long, value_name = "DIR")]
    out_dir: PathBuf,

    /// Write into an --out-dir that holds files, over those of the same names.
    #[arg(long)]
    force: bool,

    #[command(flatten)]
    board: BoardArgs,

    /// How many players, 2 to 10.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(2..=10))]
    players: u8,

    /// Also write each file's transcript, as NAME.expected.
    #[arg(long)]
    with_transcripts: bool,

    /// What the files promise the programs they test (see below).
    #[arg(long, value_enum, value_name = "GUARANTEES", default_value_t = Within::WellFormed)]
    within: Within,

    /// Write typed scripts for this console profile instead of move files.
    #[arg(long, value_enum, value_name = "P", conflicts_with_all = ["with_transcripts", "players", "board", "win", "within"])]
    profile: Option<Profile>,

    #[command(flatten)]
    layout: LayoutArgs,
}

/// The guarantees `--within` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Within {
    /// Only files the referee reads: a hostile corpus.
    #[value(help = "only files the referee reads: a hostile corpus")]
    WellFormed,
    /// CS 1044's promises to its students (CS 1044 Project 6).
    #[value(name = "cs1044", help = "CS 1044's promises to its students (CS 1044 Project 6)")]
    Cs1044,
}

impl From<Within> for Guarantees {
    fn from(within: Within) -> Guarantees {
        match within {
            Within::WellFormed => Guarantees::WellFormed,
            Within::Cs1044 => Guarantees::Cs1044,
        }
    }
}

pub(super) fn run(args: &GenArgs) -> Result<u8, CliError> {
    let geometry = args.board.geometry()?;
    if geometry.rule() != crate::board::WinRule::AtLeast {
        return Err(CliError::RuleNotRecorded { command: "gen" });
    }
    let options = GenOptions {
        seed: args.seed,
        geometry,
        players: usize::from(args.players),
        guarantees: args.within.into(),
    };
    options.check().map_err(CliError::Within)?;
    let referee_options = args.layout.options(Format::Text);
    super::files::check_output_path(&args.out_dir, "--out-dir", true)?;
    let holds_files = fs::read_dir(&args.out_dir).is_ok_and(|mut entries| entries.next().is_some());
    if holds_files && !args.force {
        return Err(CliError::NotEmpty { path: Shown::output(Some(&args.out_dir)) });
    }
    // Into a hidden directory beside it, renamed into place once complete;
    // with --force, straight into it.
    let staging = if holds_files { None } else { Some(Staging::new(&args.out_dir)?) };
    let into = staging.as_ref().map_or(args.out_dir.as_path(), |s| s.path.as_path());
    let digits = args.count.to_string().len().max(4);
    // 20,000 files take seconds: a bar on a terminal, nothing on a pipe.
    let progress = crate::spinner::progress_bar(args.count, "files");
    let name = |stem: &str, index: u64, extension: &str| format!("{stem}-{:0digits$}.{extension}", index + 1);
    let (stem, extension) = if args.profile.is_some() { ("session", "stdin") } else { ("game", "txt") };
    for index in 0..args.count {
        let path = into.join(name(stem, index, extension));
        if let Some(profile) = args.profile {
            write_file(&path, scripts::script(profile, args.seed, index).as_bytes())?;
        } else {
            let text = move_file(&options, index).map_err(CliError::Within)?;
            write_file(&path, text.as_bytes())?;
            if args.with_transcripts {
                let mut transcript = Vec::new();
                referee::referee(text.as_bytes(), &mut transcript, &referee_options)
                    .map_err(|error| CliError::Generated { path: path.clone(), error })?;
                write_file(&path.with_extension("expected"), &transcript)?;
            }
        }
        progress.inc(1);
    }
    progress.finish_and_clear();
    if let Some(staging) = staging {
        staging.commit(&args.out_dir)?;
    }
    let what = match args.profile {
        Some(profile) => {
            format!(
                "typed scripts for --profile {}",
                profile.to_possible_value().map_or_else(String::new, |v| v.get_name().to_owned())
            )
        }
        None if args.with_transcripts => "move files and their transcripts (.expected)".to_owned(),
        None => "move files".to_owned(),
    };
    let files = match args.count {
        0 => String::new(),
        1 => format!(" ({})", name(stem, 0, extension)),
        n => format!(" ({} to {})", name(stem, 0, extension), name(stem, n - 1, extension)),
    };
    let _ = writeln!(
        io::stderr(),
        "ttt-referee: wrote {} {what} into {}{files}",
        args.count,
        args.out_dir.display()
    );
    Ok(EXIT_SUCCESS)
}

/// Writes one generated file whole: staged and renamed into place, so an
/// interrupted `gen` never leaves a half-written test (a batch of many small
/// files, so no sync each).
fn write_file(path: &std::path::Path, bytes: &[u8]) -> Result<(), CliError> {
    super::write_whole(path, Durability::Renamed, |out| std::io::Write::write_all(out, bytes))
}

/// The hidden directory a corpus is made in, beside its `--out-dir`: listed
/// for removal on a signal ([`Listed`]) and removed if dropped before
/// [`Staging::commit`].
struct Staging {
    path: PathBuf,
    _listed: Listed,
}

impl Staging {
    /// Makes `.ttt-referee-gen-PID-N.tmp` beside `out_dir` (its parents made
    /// if need be), with the permissions a new directory gets.
    fn new(out_dir: &Path) -> Result<Staging, CliError> {
        let parent = match out_dir.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        fs::create_dir_all(parent).map_err(|source| CliError::write(parent, source))?;
        let mut last = io::Error::from(io::ErrorKind::AlreadyExists);
        for n in 0..1000 {
            let path = parent.join(format!(".ttt-referee-gen-{}-{n}.tmp", std::process::id()));
            // Listed before it exists: a signal the moment it is made still
            // finds it to remove.
            let listed = Listed::new(&path);
            match fs::create_dir(&path) {
                Ok(()) => return Ok(Staging { _listed: listed, path }),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = e,
                Err(e) => return Err(CliError::write(&path, e)),
            }
        }
        Err(CliError::write(parent, last))
    }

    /// Renames the corpus into place as `out_dir` (new, or empty: an
    /// empty directory is replaced, keeping its permissions).
    fn commit(self, out_dir: &Path) -> Result<(), CliError> {
        if let Ok(meta) = fs::metadata(out_dir) {
            fs::set_permissions(&self.path, meta.permissions()).map_err(|e| CliError::write(out_dir, e))?;
        }
        fs::rename(&self.path, out_dir).map_err(|source| CliError::write(out_dir, source))
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        // Gone already once committed; else a failure's half corpus.
        let _ = fs::remove_dir_all(&self.path);
    }
}
