//! What a console profile is, said once: each profile's file implements
//! [`Dialect`], and the console (`play --profile`), the judge (`grade
//! --profile`, [`super::judge`]) and the script generator (`gen --profile`,
//! [`super::scripts`]) all read it. Adding a course's console is one file,
//! a variant of [`super::Profile`] with its arm in
//! [`super::Profile::dialect`], and its name on the command line
//! (`cli/values.rs`).

use std::io::{BufRead, Write};

use super::{Chooser, Console, Dialogue, Driver, Seated, Side, Thinking};
use crate::board::{Geometry, Square};
use crate::engine::rules::Rule;
use crate::game::Game;

/// One console profile: the program it reproduces, what its session fixes
/// and leaves free, and how a person's answers are typed to it.
pub trait Dialect: Sync {
    /// This profile's console over `input` and `output`, set as `setting`
    /// says.
    fn console<'a>(
        &self,
        setting: Setting,
        input: Box<dyn BufRead + 'a>,
        output: Box<dyn Write + 'a>,
    ) -> Box<dyn Console + 'a>;

    /// Whether the profile asks for the board itself (so `--board` does not
    /// apply to it).
    fn sets_up_its_own_board(&self) -> bool {
        true
    }

    /// Whether the profile asks who plays each side itself (so `--x` and
    /// `--o` do not apply to it).
    fn asks_its_own_players(&self) -> bool {
        false
    }

    /// Who plays O (player 2) unless told: the original program's own
    /// opponent.
    fn default_second(&self) -> Side;

    /// The arguments the original program is started with to play `sides`.
    fn program_args(&self, _sides: [Side; 2]) -> &'static [&'static str] {
        &[]
    }

    /// Which lines of this profile's session are compared when a program is
    /// judged by its game.
    fn fixed_lines(&self) -> Lines {
        Lines::All
    }

    /// Whether a line of this profile's own session is one the handout
    /// leaves free ([`Lines::AllButFree`]): any words may stand for it.
    fn is_free(&self, _line: &str) -> bool {
        false
    }

    /// Whether a program's line can only be one the session fixes, so it
    /// cannot stand for a free line (a board's row, a win announcement).
    fn is_never_free(&self, _line: &str) -> bool {
        false
    }

    /// What the program's output calls its computer player in a judgement:
    /// `the computer`, `the AI`.
    fn computer(&self) -> &'static str {
        "the computer"
    }

    /// Whether the computer player's moves are read from the program's
    /// output (its announcement, else its next board) and judged; if not,
    /// a computer move is the console's own, and a program that plays
    /// another shows a line that differs. A dialect with free lines
    /// ([`Lines::AllButFree`]) answers no: where its lines stand in the
    /// program's output is known only once the whole session is.
    fn reads_computer_moves(&self) -> bool {
        true
    }

    /// The square number in a line where the program announces its
    /// computer player's move (`AI's move: 9`), if this profile announces
    /// it in words; otherwise the move is read from the next board drawn.
    fn announced_move<'l>(&self, _line: &'l str) -> Option<&'l str> {
        None
    }

    /// The squares the assignment allows a computer player in `game`, where
    /// the console itself chose `own`, and what decides them.
    fn allowed(&self, _game: &Game, own: Square) -> (Vec<Square>, Decider) {
        (vec![own], Decider::Engine)
    }

    /// How a person's answers are typed to this console, for `gen
    /// --profile`.
    fn typing(&self) -> &'static Typing;
}

/// How a console is set up to play.
pub struct Setting {
    /// Who plays X and O, where the profile does not ask.
    pub sides: [Side; 2],
    /// The board, where the profile does not ask for it (the default
    /// console).
    pub geometry: Geometry,
    /// How long `perfect` may think, for profiles that may play it.
    pub thinking: Thinking,
    /// Whether the output is a terminal (the `smalltalk` console then
    /// clears the screen before each board).
    pub terminal: bool,
    /// Who decides computer players' squares in place of the console, if
    /// anyone ([`Chooser`]).
    pub chooser: Option<Chooser>,
    /// The programs that play the sides that are [`Side::Program`]s (the
    /// default console's only).
    pub programs: Seated,
}

impl Setting {
    /// X and O played by `sides`, on the classic board, `perfect` thinking
    /// without a time limit, no terminal, no chooser, no program seated.
    #[must_use]
    pub fn new(sides: [Side; 2]) -> Setting {
        Setting {
            sides,
            geometry: Geometry::CLASSIC,
            thinking: Thinking::default(),
            terminal: false,
            chooser: None,
            programs: Vec::new(),
        }
    }

    /// `dialogue` driven as this setting says: the one place a console is
    /// made.
    pub(super) fn drive<'a, D: Dialogue + 'a>(self, dialogue: D) -> Box<dyn Console + 'a> {
        let driver = Driver::new(dialogue).thinking(self.thinking).seating(self.programs);
        match self.chooser {
            Some(chooser) => Box::new(driver.choosing(chooser)),
            None => Box::new(driver),
        }
    }
}

/// Which lines of a profile's session are compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lines {
    /// Every line.
    All,
    /// Every line but those the handout leaves free ([`Dialect::is_free`]).
    AllButFree,
    /// Only the boards and the result.
    BoardsAndResult,
}

/// What decides the squares the assignment allows a computer player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decider {
    /// One of the Smalltalk exercise's rules ([`crate::engine::rules`]).
    Strategy(Rule),
    /// URI CSC 212 Deep Dive 4's starter, its `minimax_move`.
    Starter,
    /// The console's own engine: the square it chose.
    Engine,
}

impl Decider {
    /// Whether the assignment leaves the choice among the allowed squares
    /// to chance.
    #[must_use]
    pub fn by_chance(self) -> bool {
        matches!(self, Decider::Strategy(rule) if rule.by_chance())
    }

    /// What a move must be, in words, given the squares allowed (`it must
    /// block at 3`).
    #[must_use]
    pub fn must(self, squares: &str) -> String {
        match self {
            Decider::Strategy(Rule::Win) => format!("it must win at {squares}"),
            Decider::Strategy(Rule::Block) => format!("it must block at {squares}"),
            Decider::Strategy(rule) => format!("it must take the {} {squares}", rule.name()),
            Decider::Starter => format!("the starter's minimax_move takes {squares}"),
            Decider::Engine => format!("it must take the engine {squares}"),
        }
    }
}

/// How a person's answers are typed to a console: the setup answers, a
/// square, the junk a script sometimes types first, and how a script ends.
#[derive(Debug)]
pub struct Typing {
    /// The answers to the setup questions, in order.
    pub setup: &'static [Typed],
    /// Answers that name no square, one of which is sometimes typed before
    /// a square.
    pub junk: &'static [&'static str],
    /// The answer that plays the square at `row` and `col` (from 0).
    pub square: fn(u32, u32) -> String,
    /// The answer that declines another game, for consoles that ask.
    pub decline: Option<&'static str>,
    /// Whether a script is cut at the shortest beginning that finishes a
    /// game; not where the computer leaves moves to chance, since another
    /// game may need more of the person's squares.
    pub shortest: bool,
}

/// One setup answer of a script.
#[derive(Clone, Copy, Debug)]
pub enum Typed {
    /// This answer.
    Always(&'static str),
    /// One of these refused answers, one time in three; else nothing.
    Sometimes(&'static [&'static str]),
    /// The one or the other, at even odds.
    Either(&'static str, &'static str),
}

/// A square typed as its number from 1, in rows from the top left.
#[must_use]
pub fn square_number(row: u32, col: u32) -> String {
    (row * 3 + col + 1).to_string()
}

/// The words of a line, as a result is read from them: runs of letters and
/// digits, read lazily (a line may be megabytes long). `line` is folded
/// first ([`fold`]).
fn words(line: &str) -> impl Iterator<Item = &str> {
    line.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty())
}

/// A line as a person reads it, for reading a result from its words: what
/// only looks like a letter is read as that letter. Compatibility forms
/// are folded (NFKC: fullwidth `ｗ` is `w`), format characters dropped
/// (general category Cf: a zero-width space inside `wins`), and every other
/// character that is not ASCII replaced by its confusable skeleton (Unicode
/// TS 39, the `unicode-security` crate: Cyrillic `і` is `i`, Greek `ο` is
/// `o`), its combining marks dropped (`wíns` is `wins`). ASCII is kept as it
/// is (the skeleton would read `|` as `l` and `m` as `rn`), and an ASCII
/// line is returned untouched, without a copy. Linear in the line.
#[must_use]
pub fn fold(line: &str) -> std::borrow::Cow<'_, str> {
    use unicode_normalization::UnicodeNormalization;
    use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};
    if line.is_ascii() {
        return std::borrow::Cow::Borrowed(line);
    }
    let dropped =
        |c: &char| matches!(c.general_category(), GeneralCategory::Format | GeneralCategory::NonspacingMark);
    let mut folded = String::with_capacity(line.len());
    let mut one = [0u8; 4];
    for c in line.nfkc().filter(|c| !dropped(c)) {
        if c.is_ascii() {
            folded.push(c);
        } else {
            folded.extend(unicode_security::skeleton(c.encode_utf8(&mut one)).filter(|c| !dropped(c)));
        }
    }
    std::borrow::Cow::Owned(folded)
}

/// Whether `word` is one of `these`, in any case.
fn any_of(word: &str, these: &[&str]) -> bool {
    these.iter().any(|w| word.eq_ignore_ascii_case(w))
}

/// Whether a line names a player with win, won or wins, in any case, with
/// or without `!`: `Player O wins`, `X won!`, `player X wins!`, `the winner
/// is X`. A player is a mark, one character, as every dialect names one
/// (`Player X`, `X wins`); `nobody won` and `3 in a row to win` name none.
/// A mark glued to the word counts as well (`PlayerXwins!`, `Xwon`: see
/// [`glued_winner`]). The line is read folded ([`fold`]): `Player X wіns!`
/// with a Cyrillic `і`, a fullwidth `ｗins` or a zero-width space inside
/// `wins` name a winner too. Read in one pass.
#[must_use]
pub fn names_a_winner(line: &str) -> bool {
    let line = fold(line);
    let mark = |w: &str| w.chars().count() == 1;
    let (mut previous, mut player_named, mut win_said, mut after_winner) = ("", false, false, 0u8);
    for word in words(&line) {
        if (any_of(word, &["wins", "won"]) && mark(previous))
            || (after_winner > 0 && mark(word))
            || glued_winner(word)
        {
            return true;
        }
        player_named |= previous.eq_ignore_ascii_case("player") && mark(word);
        win_said |= any_of(word, &["win", "wins", "won", "winner"]);
        if player_named && win_said {
            return true;
        }
        after_winner = if word.eq_ignore_ascii_case("winner") { 2 } else { after_winner.saturating_sub(1) };
        previous = word;
    }
    false
}

/// Whether one word is a mark glued to win, wins, won or winner, with or
/// without `player` before it (`Xwins`, `PlayerXwins`, `playeroWon`): the
/// mark is any one character after `player`, and else a capital letter or
/// a digit (a lower-case letter there is a word of its own: `twins`).
fn glued_winner(word: &str) -> bool {
    let lower = word.to_ascii_lowercase();
    let rest = lower.strip_prefix("player").filter(|r| r.chars().count() > 1);
    let (mark, tail) = match rest {
        Some(rest) => (None, rest),
        None => (word.chars().next(), lower.as_str()),
    };
    let Some(first) = tail.chars().next() else { return false };
    let said = &tail[first.len_utf8()..];
    let marked = mark.is_none_or(|m| m.is_uppercase() || m.is_numeric());
    marked && ["win", "wins", "won", "winner"].contains(&said)
}

/// Whether a line tells a tie: `It's a draw!`, `Cat's game`, `tied`. The
/// line is read folded ([`fold`]), as [`names_a_winner`] reads it.
#[must_use]
pub fn tells_a_tie(line: &str) -> bool {
    words(&fold(line)).any(|w| any_of(w, &["tie", "tied", "draw", "drawn", "cat", "stalemate"]))
}
