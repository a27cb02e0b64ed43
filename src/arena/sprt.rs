//! The sequential probability ratio test of a match (`match A B --sprt
//! elo0=E0 elo1=E1 alpha=A beta=B`), as fastchess runs it with
//! `model=logistic`: the generalized SPRT (GSPRT) of Michel Van den Bergh,
//! on the pentanomial counts of game pairs (each opening played from both
//! sides) or, when the games do not come in pairs, on the trinomial counts
//! of games (wins, draws, losses), all from A's side.
//!
//! For each hypothesis (A is `elo` stronger, logistic Elo: an expected
//! score of `1 / (1 + 10^(-elo/400))`), the distribution nearest the
//! observed one with that expected score (its maximum likelihood
//! estimate, found by solving for the Lagrange multiplier θ) gives a log
//! likelihood; the LLR is their difference, times the number of pairs (or
//! games). A count of zero counts as 0.001, as fastchess does. The test
//! stops at LLR ≥ ln((1-β)/α) (H1: A is elo1 stronger) or LLR ≤
//! ln(β/(1-α)) (H0: elo0). fastchess solves for θ to 0.001 (ITP); this
//! solves to the precision of an `f64`, so the figures agree to a few
//! thousandths.

use std::fmt;

use super::contest::Score;
use super::result::GameResult;

/// The test's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// The Elo difference of H0.
    pub elo0: f64,
    /// The Elo difference of H1 (above `elo0`).
    pub elo1: f64,
    /// The false positive rate (accepting H1 when H0 holds).
    pub alpha: f64,
    /// The false negative rate.
    pub beta: f64,
}

/// What the test says so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// H0 accepted: A is not elo1 stronger.
    H0,
    /// H1 accepted: A is elo1 stronger.
    H1,
    /// Not yet decided: play on.
    Continue,
}

/// The scores of the trinomial categories (a loss, a draw, a win).
const TRINOMIAL: [f64; 3] = [0.0, 0.5, 1.0];

/// The scores of the pentanomial categories of a pair (LL, LD, WL or DD,
/// WD, WW).
const PENTANOMIAL: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];

impl Sprt {
    /// Parses the words `elo0=E0 elo1=E1 alpha=A beta=B` (in any order;
    /// alpha and beta default to 0.05).
    ///
    /// # Errors
    /// What is wrong, in words.
    pub fn parse(words: &[String]) -> Result<Sprt, String> {
        let (mut elo0, mut elo1, mut alpha, mut beta) = (None, None, 0.05, 0.05);
        for word in words.iter().flat_map(|w| w.split_whitespace()) {
            let Some((key, value)) = word.split_once('=') else {
                return Err(format!("`{word}`: expected KEY=VALUE (elo0, elo1, alpha, beta)"));
            };
            let value: f64 = match value.parse() {
                Ok(v) if f64::is_finite(v) => v,
                _ => return Err(format!("`{word}`: `{value}` is not a number")),
            };
            match key {
                "elo0" => elo0 = Some(value),
                "elo1" => elo1 = Some(value),
                "alpha" => alpha = value,
                "beta" => beta = value,
                _ => {
                    return Err(format!(
                        "`{key}` is not a parameter of the test; expected elo0, elo1, alpha, beta"
                    ));
                }
            }
        }
        let (Some(elo0), Some(elo1)) = (elo0, elo1) else {
            return Err("expected elo0=E0 elo1=E1 (and alpha=A beta=B, 0.05 if not given)".to_owned());
        };
        if elo0 >= elo1 {
            return Err(format!("elo0 ({elo0}) must be less than elo1 ({elo1})"));
        }
        if !(alpha > 0.0 && alpha < 1.0 && beta > 0.0 && beta < 1.0 && alpha + beta < 1.0) {
            return Err(format!(
                "alpha ({alpha}) and beta ({beta}) must be between 0 and 1, and their sum below 1"
            ));
        }
        if elo0.abs() >= 1000.0 || elo1.abs() >= 1000.0 {
            return Err("elo0 and elo1 must be within ±1000".to_owned());
        }
        Ok(Sprt { elo0, elo1, alpha, beta })
    }

    /// The bounds: below the lower, H0; above the upper, H1.
    #[must_use]
    pub fn bounds(&self) -> (f64, f64) {
        ((self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln())
    }

    /// The LLR of `wins`, `draws` and `losses` (A's).
    #[must_use]
    pub fn llr_trinomial(&self, wins: u64, draws: u64, losses: u64) -> f64 {
        llr(&TRINOMIAL, [losses, draws, wins], self.elo0, self.elo1)
    }

    /// The LLR of pairs' results: `[LL, LD, WL + DD, WD, WW]` (A's).
    #[must_use]
    pub fn llr_pentanomial(&self, pairs: [u64; 5]) -> f64 {
        llr(&PENTANOMIAL, pairs, self.elo0, self.elo1)
    }

    /// What an LLR decides.
    #[must_use]
    pub fn decide(&self, llr: f64) -> Decision {
        let (lower, upper) = self.bounds();
        if llr >= upper {
            Decision::H1
        } else if llr <= lower {
            Decision::H0
        } else {
            Decision::Continue
        }
    }
}

impl fmt::Display for Sprt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "elo0={} elo1={} alpha={} beta={}", self.elo0, self.elo1, self.alpha, self.beta)
    }
}

/// A logistic Elo difference's expected score.
fn score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The GSPRT's LLR of `counts` of categories scoring `scores`, between
/// expected scores of `elo0` and `elo1`.
fn llr<const N: usize>(scores: &[f64; N], counts: [u64; N], elo0: f64, elo1: f64) -> f64 {
    #[allow(clippy::cast_precision_loss)]
    let counts = counts.map(|c| if c == 0 { 1e-3 } else { c as f64 });
    let total: f64 = counts.iter().sum();
    let observed = counts.map(|c| c / total);
    let p0 = nearest(scores, &observed, score(elo0));
    let p1 = nearest(scores, &observed, score(elo1));
    let mut sum = 0.0;
    for i in 0..N {
        sum += observed[i] * (p1[i].ln() - p0[i].ln());
    }
    total * sum
}

/// The distribution nearest `observed` (maximum likelihood) whose expected
/// score is `s`: `observed[i] / (1 + θ (scores[i] - s))`, θ the root of
/// `Σ observed[i] (scores[i] - s) / (1 + θ (scores[i] - s))`, which falls
/// from +∞ to -∞ on its interval: found by bisection.
fn nearest<const N: usize>(scores: &[f64; N], observed: &[f64; N], s: f64) -> [f64; N] {
    let f = |theta: f64| -> f64 {
        (0..N).map(|i| observed[i] * (scores[i] - s) / (1.0 + theta * (scores[i] - s))).sum()
    };
    let (mut low, mut high) = (-1.0 / (scores[N - 1] - s), -1.0 / (scores[0] - s));
    for _ in 0..200 {
        let middle = f64::midpoint(low, high);
        if middle <= low || middle >= high {
            break;
        }
        if f(middle) > 0.0 {
            low = middle;
        } else {
            high = middle;
        }
    }
    let theta = f64::midpoint(low, high);
    let mut p = [0.0; N];
    for i in 0..N {
        p[i] = observed[i] / (1.0 + theta * (scores[i] - s));
    }
    p
}

/// The counts of a match's results so far, from the side of participant 0
/// (A): games, and pairs of games (numbers 2k-1 and 2k, the same opening
/// from both sides) once both have ended.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// A's wins, draws and losses.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// Losses.
    pub losses: u64,
    /// Pairs: `[LL, LD, WL + DD, WD, WW]`.
    pub pairs: [u64; 5],
    /// The first game of a pair whose second has not ended: its number
    /// and A's score in halves.
    waiting: Vec<(u64, u64)>,
}

impl Tally {
    /// Counts `result`.
    pub fn add(&mut self, result: &GameResult) {
        let Some(seat) = result.seats.iter().position(|&who| who == 0) else { return };
        let score = result.score(seat);
        match score {
            Score::Win => self.wins += 1,
            Score::Draw => self.draws += 1,
            Score::Loss => self.losses += 1,
        }
        let partner = if result.number % 2 == 1 { result.number + 1 } else { result.number - 1 };
        if let Some(at) = self.waiting.iter().position(|&(n, _)| n == partner) {
            let (_, other) = self.waiting.swap_remove(at);
            let halves = other + score.half_points();
            if let Some(slot) = usize::try_from(halves).ok().and_then(|h| self.pairs.get_mut(h)) {
                *slot += 1;
            }
        } else {
            self.waiting.push((result.number, score.half_points()));
        }
    }

    /// The LLR: of the pairs with `paired`, else of the games.
    #[must_use]
    pub fn llr(&self, sprt: &Sprt, paired: bool) -> f64 {
        if paired {
            sprt.llr_pentanomial(self.pairs)
        } else {
            sprt.llr_trinomial(self.wins, self.draws, self.losses)
        }
    }
}

impl Tally {
    /// The tally of `results`.
    #[must_use]
    pub fn of(results: &[GameResult]) -> Tally {
        let mut tally = Tally::default();
        for result in results {
            tally.add(result);
        }
        tally
    }

    /// How many games it counts.
    #[must_use]
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }
}

/// The LLR as each game's line shows it: `LLR 1.23 (-2.94, 2.94)`.
#[must_use]
pub fn progress(sprt: &Sprt, tally: &Tally, paired: bool) -> String {
    let (lower, upper) = sprt.bounds();
    format!("LLR {:.2} ({lower:.2}, {upper:.2})", tally.llr(sprt, paired))
}

/// The test's result in one line: its parameters, its model, the LLR and
/// what it decided.
#[must_use]
pub fn summary(sprt: &Sprt, tally: &Tally, paired: bool) -> String {
    let llr = tally.llr(sprt, paired);
    let counts = if paired {
        let p = &tally.pairs;
        format!("pentanomial, pairs LL {} LD {} WL+DD {} WD {} WW {}", p[0], p[1], p[2], p[3], p[4])
    } else {
        format!("trinomial, W {} D {} L {}", tally.wins, tally.draws, tally.losses)
    };
    let decided = match sprt.decide(llr) {
        Decision::H1 => format!("H1 accepted: the first is stronger by {} Elo or more", sprt.elo1),
        Decision::H0 => format!("H0 accepted: the first is not stronger by {} Elo", sprt.elo1),
        Decision::Continue => "undecided".to_owned(),
    };
    format!("SPRT {sprt} (logistic, {counts}): {}: {decided}", progress(sprt, tally, paired))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::contest::Ending;
    use crate::player::Mark;

    fn sprt(elo0: f64, elo1: f64) -> Sprt {
        Sprt { elo0, elo1, alpha: 0.05, beta: 0.05 }
    }

    /// Each LLR against fastchess's logistic formula computed
    /// independently (`fixtures/sprt/llr_reference.py`: mpmath, 40 digits,
    /// θ by bisection to the end).
    #[test]
    fn the_llr_is_fastchesss_on_fixed_counts() {
        let close = |got: f64, want: f64| assert!((got - want).abs() < 1e-9, "{got} != {want}");
        close(sprt(0.0, 10.0).llr_trinomial(60, 30, 10), 2.005_543_991_301_647_4);
        close(sprt(0.0, 10.0).llr_trinomial(10, 30, 60), -2.105_772_430_383_272_4);
        close(sprt(0.0, 5.0).llr_trinomial(25, 50, 25), -0.020_707_681_503_184_887);
        close(sprt(0.0, 10.0).llr_trinomial(100, 0, 0), 2.836_815_176_110_885_7);
        close(sprt(-5.0, 5.0).llr_trinomial(7, 3, 0), 0.287_769_678_245_869_34);
        close(sprt(0.0, 10.0).llr_pentanomial([5, 10, 40, 20, 25]), 1.831_950_732_875_917_8);
        close(sprt(0.0, 10.0).llr_pentanomial([25, 20, 40, 10, 5]), -2.001_530_497_404_732);
        close(sprt(0.0, 5.0).llr_pentanomial([0, 0, 10, 0, 0]), -0.139_427_638_815_4);
        close(sprt(-10.0, 10.0).llr_pentanomial([3, 7, 30, 12, 8]), 1.629_796_595_033_599_6);
    }

    #[test]
    fn the_bounds_decide() {
        let test = sprt(0.0, 10.0);
        let (lower, upper) = test.bounds();
        assert!((lower - (0.05f64 / 0.95).ln()).abs() < 1e-12 && (upper - 19f64.ln()).abs() < 1e-12);
        assert_eq!(test.decide(2.95), Decision::H1);
        assert_eq!(test.decide(-2.95), Decision::H0);
        assert_eq!(test.decide(0.0), Decision::Continue);
    }

    #[test]
    fn parameters_are_parsed_and_checked() {
        let words = |s: &str| vec![s.to_owned()];
        assert_eq!(
            Sprt::parse(&words("elo0=0 elo1=10 alpha=0.05 beta=0.1")),
            Ok(Sprt { elo0: 0.0, elo1: 10.0, alpha: 0.05, beta: 0.1 })
        );
        assert_eq!(
            Sprt::parse(&words("elo1=5 elo0=-5")),
            Ok(Sprt { elo0: -5.0, elo1: 5.0, alpha: 0.05, beta: 0.05 })
        );
        for (bad, said) in [
            ("elo0=10 elo1=0", "elo0 (10) must be less than elo1 (0)"),
            ("elo0=0", "expected elo0=E0 elo1=E1 (and alpha=A beta=B, 0.05 if not given)"),
            (
                "elo0=0 elo1=5 alpha=0",
                "alpha (0) and beta (0.05) must be between 0 and 1, and their sum below 1",
            ),
            (
                "elo0=0 elo1=5 alpha=0.6 beta=0.5",
                "alpha (0.6) and beta (0.5) must be between 0 and 1, and their sum below 1",
            ),
            ("elo0=x", "`elo0=x`: `x` is not a number"),
            ("gamma=1", "`gamma` is not a parameter of the test; expected elo0, elo1, alpha, beta"),
            ("elo0", "`elo0`: expected KEY=VALUE (elo0, elo1, alpha, beta)"),
            ("elo0=0 elo1=1e9", "elo0 and elo1 must be within ±1000"),
        ] {
            assert_eq!(Sprt::parse(&words(bad)).unwrap_err(), said, "{bad}");
        }
    }

    fn result(number: u64, a_first: bool, ending: Ending) -> GameResult {
        GameResult {
            number,
            seats: if a_first { vec![0, 1] } else { vec![1, 0] },
            marks: vec![Mark::X, Mark::O],
            moves: 5,
            ending,
            record: None,
            stderr: None,
            resumed: false,
        }
    }

    /// Games counted in any order make the same pairs: A wins game 1 (as
    /// X) and draws game 2; loses 4 (as O) and 3 (as X).
    #[test]
    fn pairs_are_counted_once_both_games_have_ended() {
        let mut tally = Tally::default();
        tally.add(&result(2, false, Ending::Draw));
        assert_eq!(tally.pairs, [0; 5]);
        tally.add(&result(4, false, Ending::Win(0)));
        tally.add(&result(1, true, Ending::Win(0)));
        assert_eq!(tally.pairs, [0, 0, 0, 1, 0]);
        tally.add(&result(3, true, Ending::Win(1)));
        assert_eq!(tally.pairs, [1, 0, 0, 1, 0]);
        assert_eq!((tally.wins, tally.draws, tally.losses), (1, 1, 2));
        assert!(tally.llr(&sprt(0.0, 10.0), true) < 0.0);
    }
}
