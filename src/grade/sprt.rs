//! Wald's sequential probability ratio test on wins, as fastchess and
//! cutechess judge an engine change: games are played until the evidence
//! is clear, not a fixed number. A bot's share of wins against `random` is
//! tested against a bar `p1`: it passes once the games favour "its share is
//! at least `p1`" over "its share is at most `p0`" (`p0` a little below the
//! bar) strongly enough, and fails once they favour the other. A bot whose
//! share is at least the bar fails with chance at most `beta`; one whose
//! share is at most `p0` passes with chance at most `alpha`.

/// The two hypotheses and the two error rates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// The share at or below which a bot should fail.
    pub p0: f64,
    /// The share (the bar) at or above which a bot should pass.
    pub p1: f64,
    /// The chance of passing a bot at `p0`.
    pub alpha: f64,
    /// The chance of failing a bot at `p1`.
    pub beta: f64,
}

/// What the games so far say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Its share is at least the bar.
    Pass,
    /// Its share is below the bar.
    Fail,
    /// Not yet clear: play on.
    Undecided,
}

/// How far below the bar a share must be for the test to fail it with the
/// stated confidence: ten points.
pub const MARGIN: f64 = 0.10;

/// Each error rate: one in a hundred.
pub const ERROR: f64 = 0.01;

impl Sprt {
    /// The test of the bar `bar` (a share of games, 0 to 1): `p0` is
    /// [`MARGIN`] below it (or half of it, for a small bar), both error
    /// rates [`ERROR`].
    #[must_use]
    pub fn for_bar(bar: f64) -> Sprt {
        let p1 = bar.clamp(0.0, 1.0);
        Sprt { p0: (p1 - MARGIN).max(p1 / 2.0), p1, alpha: ERROR, beta: ERROR }
    }

    /// The log-likelihood ratio of `score` in `games` (for a pass over a
    /// fail): `score` is the games' sum, each 1 for a win and 0 for a loss
    /// (or ½ for a draw, where draws count half: a game of ½ weighs as half
    /// a win and half a loss).
    #[must_use]
    #[allow(clippy::cast_precision_loss, reason = "game counts are far below 2^52")]
    pub fn llr(&self, score: f64, games: u64) -> f64 {
        let wins = score.clamp(0.0, games as f64);
        let losses = games as f64 - wins;
        let ln = |a: f64, b: f64| (a / b).ln();
        let mut llr = 0.0;
        if wins > 0.0 {
            llr += wins * ln(self.p1, self.p0);
        }
        if losses > 0.0 {
            llr += losses * ln(1.0 - self.p1, 1.0 - self.p0);
        }
        llr
    }

    /// What `score` (see [`Sprt::llr`]) in `games` says so far.
    #[must_use]
    pub fn decide(&self, score: f64, games: u64) -> Decision {
        if self.p1 <= 0.0 {
            return Decision::Pass;
        }
        let llr = self.llr(score, games);
        if llr.is_nan() {
            return Decision::Undecided;
        }
        if llr >= ((1.0 - self.beta) / self.alpha).ln() {
            Decision::Pass
        } else if llr <= (self.beta / (1.0 - self.alpha)).ln() {
            Decision::Fail
        } else {
            Decision::Undecided
        }
    }

    /// The verdict when the games run out undecided: whether the share
    /// seen is at least halfway between `p0` and the bar.
    #[must_use]
    #[allow(clippy::cast_precision_loss, reason = "game counts are far below 2^52")]
    pub fn at_the_end(&self, score: f64, games: u64) -> Decision {
        match self.decide(score, games) {
            Decision::Undecided if games > 0 && score / games as f64 >= f64::midpoint(self.p0, self.p1) => {
                Decision::Pass
            }
            Decision::Undecided => Decision::Fail,
            decided => decided,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clear_share_is_decided_early_and_a_bar_of_zero_passes_at_once() {
        let sprt = Sprt::for_bar(0.8);
        assert_eq!((sprt.p0, sprt.p1), (0.8 - MARGIN, 0.8));
        assert_eq!(sprt.decide(0.0, 0), Decision::Undecided);
        // All wins: the ratio (0.8/0.7) per game passes after 35 games.
        assert_eq!(sprt.decide(34.0, 34), Decision::Undecided);
        assert_eq!(sprt.decide(35.0, 35), Decision::Pass);
        // A quarter: far below the bar, failed quickly.
        assert_eq!(sprt.decide(10.0, 20), Decision::Undecided);
        assert_eq!(sprt.decide(5.0, 20), Decision::Fail);
        assert_eq!(Sprt::for_bar(0.0).decide(0.0, 0), Decision::Pass);
        assert!((Sprt::for_bar(0.1).p0 - 0.05).abs() < 1e-12);
    }

    #[test]
    fn undecided_at_the_end_is_judged_at_the_midpoint() {
        let sprt = Sprt::for_bar(0.6);
        assert_eq!(sprt.at_the_end(11.0, 20), Decision::Pass);
        assert_eq!(sprt.at_the_end(10.0, 20), Decision::Fail);
        assert_eq!(sprt.at_the_end(0.0, 0), Decision::Fail);
    }

    #[test]
    #[allow(clippy::cast_precision_loss, reason = "small counts")]
    fn its_error_rates_hold_for_bots_at_the_bar_and_at_p0() {
        // Simulated bots, with a fixed seed: at the bar it passes, at p0
        // it fails, each at least 98.5% of the time in 1000 trials of at
        // most 1000 games (`grade --play`'s default cap; the cap is what
        // lifts the error above the untruncated 1%).
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let sprt = Sprt::for_bar(0.55);
        for (share, want) in [(0.55, Decision::Pass), (0.45, Decision::Fail)] {
            let mut right = 0;
            for _ in 0..1000 {
                let (mut wins, mut games) = (0, 0);
                let mut verdict = Decision::Undecided;
                while verdict == Decision::Undecided && games < 1000 {
                    games += 1;
                    wins += u64::from(rng.random_bool(share));
                    verdict = sprt.decide(wins as f64, games);
                }
                right += u32::from(sprt.at_the_end(wins as f64, games) == want);
            }
            assert!(right >= 985, "{share}: {right} of 1000");
        }
    }
}
