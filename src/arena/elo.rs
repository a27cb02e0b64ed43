//! The Elo difference a score stands for, with its 95% interval: the
//! logistic model cutechess-cli, fastchess and Ordo's simple estimate use.
//!
//! With `s` the score fraction (points / games, a win 1, a draw ½):
//!
//! ```text
//! elo(s) = -400 · log10(1/s - 1)
//! σ      = sqrt( (W·(1-s)² + D·(½-s)² + L·s²) / N ) / sqrt(N)
//! value  = elo(s),  low = elo(s - 1.96·σ),  high = elo(s + 1.96·σ)
//! ```
//!
//! Defined only when `0 < s < 1`; a bound that falls outside (0, 1) is
//! unbounded (`None`), and so are both when every game ended alike (all
//! draws): σ is then 0, and an interval of no width would claim a certainty
//! that a few games cannot give.

use serde::Serialize;

/// An Elo difference and its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Elo {
    /// The difference the score stands for.
    pub value: f64,
    /// The interval's low end; `None` when unbounded below.
    pub low: Option<f64>,
    /// The interval's high end; `None` when unbounded above.
    pub high: Option<f64>,
}

/// The Elo of `wins`, `draws` and `losses`, or `None` for no games or a
/// score of 0 or 100%.
#[must_use]
#[allow(clippy::cast_precision_loss)] // game counts are far below 2^52
pub fn elo(wins: u64, draws: u64, losses: u64) -> Option<Elo> {
    let games = (wins + draws + losses) as f64;
    let (w, d, l) = (wins as f64, draws as f64, losses as f64);
    let s = (w + d / 2.0) / games;
    if !(s > 0.0 && s < 1.0) {
        return None;
    }
    let variance = (w * (1.0 - s).powi(2) + d * (0.5 - s).powi(2) + l * s.powi(2)) / games;
    let margin = 1.96 * (variance / games).sqrt();
    let bounded = |s: f64| (margin > 0.0 && s > 0.0 && s < 1.0).then(|| difference(s));
    Some(Elo { value: difference(s), low: bounded(s - margin), high: bounded(s + margin) })
}

/// The logistic Elo difference of the score fraction `s` (0 < s < 1).
fn difference(s: f64) -> f64 {
    -400.0 * (1.0 / s - 1.0).log10()
}

/// `+190.8`, `-12.0`, `0.0`: an Elo as reports print it.
#[must_use]
pub fn shown(value: f64) -> String {
    let text = format!("{value:+.1}");
    if text == "-0.0" || text == "+0.0" { "0.0".to_owned() } else { text }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_that_all_ended_alike_give_no_interval() {
        assert_eq!(elo(0, 4, 0), Some(Elo { value: 0.0, low: None, high: None }));
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 0.05
    }

    #[test]
    fn known_scores_give_known_differences() {
        // 75%: -400·log10(1/3) = +190.8.
        let e = elo(3, 0, 1).unwrap();
        assert!(close(e.value, 190.85), "{e:?}");
        assert!(close(elo(2, 2, 0).unwrap().value, 190.85));
        assert!(close(elo(1, 0, 1).unwrap().value, 0.0));
        assert!(close(elo(9, 0, 1).unwrap().value, 381.7));
        assert!(close(elo(1, 0, 3).unwrap().value, -190.85));
    }

    #[test]
    fn the_interval_comes_from_the_per_game_variance() {
        // 60 wins, 20 draws, 20 losses: s = 0.7, per-game variance
        // (60·0.09 + 20·0.04 + 20·0.49)/100 = 0.16, σ = 0.04, s ± 0.0784.
        let e = elo(60, 20, 20).unwrap();
        assert!(close(e.value, 147.2), "{e:?}");
        assert!(close(e.low.unwrap(), difference(0.7 - 0.0784)), "{e:?}");
        assert!(close(e.high.unwrap(), difference(0.7 + 0.0784)), "{e:?}");
        assert!(close(e.low.unwrap(), 86.2) && close(e.high.unwrap(), 218.3), "{e:?}");
        // Few games: the interval runs off the scale.
        let e = elo(3, 0, 1).unwrap();
        assert_eq!(e.high, None);
        assert!(e.low.is_some());
    }

    #[test]
    fn it_is_undefined_at_zero_and_full_scores() {
        assert_eq!(elo(0, 0, 0), None);
        assert_eq!(elo(4, 0, 0), None);
        assert_eq!(elo(0, 0, 4), None);
        assert!(elo(0, 1, 3).is_some());
        assert_eq!(shown(190.849), "+190.8");
        assert_eq!(shown(-0.01), "0.0");
        assert_eq!(shown(-12.04), "-12.0");
    }
}
