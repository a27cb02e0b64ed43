//! Players: their one-character marks, their names and their turn order.

use std::fmt;

/// The fewest players a game can have.
pub const MIN_PLAYERS: usize = 2;
/// The most players a game can have.
pub const MAX_PLAYERS: usize = 10;

/// A player's one-character mark, such as `X` or `O`.
///
/// Marks are case-sensitive. `-`, `:` and `|` are reserved by the renderings
/// and the players line, and whitespace or control characters could not be
/// seen in a transcript, so none of those is a mark.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Mark(char);

impl Mark {
    /// The mark `X`, which the classic game's first player uses.
    pub const X: Mark = Mark('X');
    /// The mark `O`, which the classic game's second player uses.
    pub const O: Mark = Mark('O');

    /// Returns the mark for `c`, or `None` if `c` cannot be a mark.
    #[must_use]
    pub fn new(c: char) -> Option<Mark> {
        let reserved = matches!(c, '-' | ':' | '|') || c.is_whitespace() || c.is_control();
        (!reserved).then_some(Mark(c))
    }

    /// The mark as a character.
    #[must_use]
    pub fn char(self) -> char {
        self.0
    }
}

impl fmt::Display for Mark {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A player's place in the turn order declared by the players line (0-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PlayerId(u8);

impl PlayerId {
    /// The player at `index` in the declared order.
    ///
    /// # Panics
    /// If `index` is not below [`MAX_PLAYERS`].
    #[must_use]
    pub fn new(index: usize) -> PlayerId {
        assert!(index < MAX_PLAYERS, "player index {index} out of range");
        PlayerId(u8::try_from(index).expect("MAX_PLAYERS fits in u8"))
    }

    /// The index in the declared order.
    #[must_use]
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
}

/// One declared player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Player {
    /// The player's mark.
    pub mark: Mark,
    /// The player's name, its words joined by single spaces.
    pub name: String,
}

/// The players of a game, in turn order, with 2 to 10 distinct marks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Players {
    players: Vec<Player>,
}

/// Why a list of players is not a valid game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlayersError {
    /// Fewer than [`MIN_PLAYERS`] or more than [`MAX_PLAYERS`].
    Count(usize),
    /// Two players share a mark.
    DuplicateMark(Mark),
}

impl Players {
    /// Checks the count and distinctness of `players` and keeps their order.
    ///
    /// # Errors
    /// [`PlayersError`] says which condition failed.
    pub fn new(players: Vec<Player>) -> Result<Players, PlayersError> {
        for (i, player) in players.iter().enumerate() {
            if players[..i].iter().any(|p| p.mark == player.mark) {
                return Err(PlayersError::DuplicateMark(player.mark));
            }
        }
        if !(MIN_PLAYERS..=MAX_PLAYERS).contains(&players.len()) {
            return Err(PlayersError::Count(players.len()));
        }
        Ok(Players { players })
    }

    /// The classic pair: `X` and `O` with the given names.
    #[must_use]
    pub fn classic(x_name: &str, o_name: &str) -> Players {
        Players {
            players: vec![
                Player { mark: Mark::X, name: x_name.to_owned() },
                Player { mark: Mark::O, name: o_name.to_owned() },
            ],
        }
    }

    /// How many players there are.
    #[must_use]
    pub fn len(&self) -> usize {
        self.players.len()
    }

    /// Always false: a game has at least two players.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.players.is_empty()
    }

    /// The player with the given id.
    #[must_use]
    pub fn get(&self, id: PlayerId) -> &Player {
        &self.players[id.index()]
    }

    /// The players in turn order with their ids.
    #[must_use]
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (PlayerId, &Player)> {
        self.players.iter().enumerate().map(|(i, p)| (PlayerId::new(i), p))
    }

    /// The player whose mark is exactly `label`, if any.
    ///
    /// `label` must be the mark and nothing else: `x`, `XO` and `X:` are no
    /// player's label when the mark is `X`.
    #[must_use]
    pub fn find(&self, label: &str) -> Option<PlayerId> {
        let mut chars = label.chars();
        let (Some(c), None) = (chars.next(), chars.next()) else {
            return None;
        };
        self.players.iter().position(|p| p.mark.char() == c).map(PlayerId::new)
    }

    /// The player who follows `id` in the cyclic turn order.
    #[must_use]
    pub fn next_after(&self, id: PlayerId) -> PlayerId {
        PlayerId::new((id.index() + 1) % self.players.len())
    }
}

impl fmt::Display for Players {
    /// The normalised players line: `X: D Barnette O: D Allison`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.players.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{}: {}", p.mark, p.name)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn player(c: char) -> Player {
        Player { mark: Mark::new(c).unwrap(), name: format!("P {c}") }
    }

    #[test]
    fn reserved_characters_are_not_marks() {
        for c in ['-', ':', '|', ' ', '\t', '\u{a0}', '\0'] {
            assert_eq!(Mark::new(c), None, "{c:?}");
        }
        assert_eq!(Mark::new('x').map(Mark::char), Some('x'));
    }

    #[test]
    fn find_matches_the_whole_label_case_sensitively() {
        let players = Players::classic("A", "B");
        assert_eq!(players.find("X"), Some(PlayerId::new(0)));
        assert_eq!(players.find("O"), Some(PlayerId::new(1)));
        for label in ["x", "XO", "X:", "", "0", "Y"] {
            assert_eq!(players.find(label), None, "{label}");
        }
    }

    #[test]
    fn counts_and_duplicates_are_checked() {
        assert_eq!(Players::new(vec![player('X')]), Err(PlayersError::Count(1)));
        let eleven = "ABCDEFGHIJK".chars().map(player).collect();
        assert_eq!(Players::new(eleven), Err(PlayersError::Count(11)));
        let dup = vec![player('X'), player('O'), player('X')];
        assert_eq!(Players::new(dup), Err(PlayersError::DuplicateMark(Mark::X)));
    }

    #[test]
    fn turn_order_is_cyclic() {
        let players = Players::new("XOZ".chars().map(player).collect()).unwrap();
        assert_eq!(players.next_after(PlayerId::new(1)), PlayerId::new(2));
        assert_eq!(players.next_after(PlayerId::new(2)), PlayerId::new(0));
    }

    #[test]
    fn displays_the_normalised_line() {
        assert_eq!(Players::classic("D Barnette", "D Allison").to_string(), "X: D Barnette O: D Allison");
    }
}
