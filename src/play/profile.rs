//! The consoles by name ([`Profile`], `--profile`): each one's dialect, and
//! the one factory of its console.

use std::io::{BufRead, Write};

use super::dialect::{Dialect, Setting};
use super::{Chooser, Console, Side, extended, plain, smalltalk, uri, xtreme};

/// The console a session is played at.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Profile {
    /// A plain prompt: the board, `X to move (1-9): `, square numbers.
    #[default]
    Default,
    /// StFX asn3's program: the size asked first, `x, y` moves, `Move Counter`.
    Xtreme,
    /// Clemson CPSC 2150's program: players, marks, board and win asked first; rows
    /// and columns from 0.
    Extended,
    /// The Smalltalk exercise's program: each player's type asked first, the board redrawn
    /// on every change.
    Smalltalk,
    /// URI CSC 212 Deep Dive 4's program: the numbered 3×3 board, `Player 1 make your move: `.
    Uri,
}

impl Profile {
    /// This profile's dialect: everything the console, the judge and the
    /// script generator know of it.
    #[must_use]
    pub fn dialect(self) -> &'static dyn Dialect {
        match self {
            Profile::Default => &plain::PlainDialect,
            Profile::Xtreme => &xtreme::XtremeDialect,
            Profile::Extended => &extended::ExtendedDialect,
            Profile::Smalltalk => &smalltalk::SmalltalkDialect,
            Profile::Uri => &uri::UriDialect,
        }
    }

    /// Whether the profile asks for the board itself (so `--board` does not
    /// apply to it).
    #[must_use]
    pub fn sets_up_its_own_board(self) -> bool {
        self.dialect().sets_up_its_own_board()
    }

    /// Whether the profile asks who plays each side itself (so `--x` and
    /// `--o` do not apply to it).
    #[must_use]
    pub fn asks_its_own_players(self) -> bool {
        self.dialect().asks_its_own_players()
    }

    /// Who plays O (player 2) unless told: the original program's own opponent.
    #[must_use]
    pub fn default_second(self) -> Side {
        self.dialect().default_second()
    }

    /// This profile's console over `input` and `output` as its seed
    /// program runs it: a person as X (player 1), [`Profile::default_second`]
    /// as O, the classic board where the profile does not ask for one, and
    /// no time limit. Each profile's own constructor sets the rest.
    pub fn console<'a>(self, input: impl BufRead + 'a, output: impl Write + 'a) -> Box<dyn Console + 'a> {
        self.console_with(self.sides(None, None), input, output, None)
    }

    /// Who plays X and O at this profile's console: those given, else a
    /// person as X and [`Profile::default_second`] as O.
    #[must_use]
    pub fn sides(self, x: Option<Side>, o: Option<Side>) -> [Side; 2] {
        [x.unwrap_or(Side::Human), o.unwrap_or_else(|| self.default_second())]
    }

    /// The arguments the original program is started with to play `sides`.
    #[must_use]
    pub fn program_args(self, sides: [Side; 2]) -> &'static [&'static str] {
        self.dialect().program_args(sides)
    }

    /// As [`Profile::console`], X and O played by `sides` (where the
    /// profile does not ask), computer players' squares decided by
    /// `chooser` when there is one ([`Chooser`]).
    pub fn console_with<'a>(
        self,
        sides: [Side; 2],
        input: impl BufRead + 'a,
        output: impl Write + 'a,
        chooser: Option<Chooser>,
    ) -> Box<dyn Console + 'a> {
        let setting = Setting { chooser, ..Setting::new(sides) };
        self.dialect().console(setting, Box::new(input), Box::new(output))
    }
}
