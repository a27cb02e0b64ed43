//! Chance judged as chance: where the assignment leaves a computer move to
//! chance (a free corner, the centre of an even board, the last free
//! squares), a console test is played [`GAMES`] times, and the squares the
//! program took in each position are held to a fair draw by a
//! goodness-of-fit test.
//!
//! For each position reached (with the rule and the squares it allows),
//! the count of each allowed square is compared with a uniform draw by the
//! chi-square statistic, Σ (count − expected)² / expected. Its p-value — the
//! chance that a fair program's counts are at least as uneven — is exact,
//! counted over every way the games could have fallen, when those are at
//! most [`MOST_OUTCOMES`] (always, on the classic board: at most 4 squares
//! and [`GAMES`] games); otherwise it is read from the chi-square
//! distribution with one degree of freedom fewer than the squares
//! (`statrs`). A position is tested only if it was reached often enough to
//! show anything at [`FALSE_FAILURE`] (`k^(1−n) ≤ 1/10,000` for `n` games
//! among `k` squares); each of the `m` positions tested fails below
//! `FALSE_FAILURE / m` (Bonferroni), so a fair program fails a test at most
//! once in 10,000.
//!
//! Why [`GAMES`] is 100: the program to catch takes the first free corner
//! 60% of the time and a random corner otherwise. Over the 44 games played
//! before, this test would catch it in a position with 3 free corners only
//! 92% of the time, and with 2 free corners 47%; over 100 games, 99.999%
//! and 99.4%, and with 4 corners always
//! (`tests::a_first_corner_bias_of_60_percent_is_caught` computes these
//! exactly).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use statrs::distribution::{ChiSquared, ContinuousCDF};

use super::judge::Choice;

/// How many times a console test whose game leaves a computer move to
/// chance is played. Also enough that a program breaking a rule in one
/// game in ten is caught with 99.99% confidence (0.9^100 < 0.0001).
pub const GAMES: usize = 100;

/// The most often a fair program fails one test: 1 in 10,000.
pub const FALSE_FAILURE: f64 = 1e-4;

/// The most outcomes the exact p-value counts (ways `n` games fall among
/// `k` squares); beyond, the chi-square distribution stands in for them.
pub const MOST_OUTCOMES: u128 = 1_000_000;

/// Judges the choices left to chance in every game of one test (each
/// game's [`Choice`]s, as the judge recorded them): `None` if they look
/// like a fair draw, else what was seen and why it fails, in words
/// (`the corner was 3 in 73 of 100 games that reached that position (7 in
/// 14, 9 in 13); …`).
#[must_use]
pub fn judge(games: &[Vec<Choice>]) -> Option<String> {
    // Each position (with its rule and squares): the count of each square.
    let mut seen: BTreeMap<(&str, &str, &[u64]), Vec<u64>> = BTreeMap::new();
    for choice in games.iter().flatten() {
        let counts = seen
            .entry((choice.position.as_str(), choice.what, choice.among.as_slice()))
            .or_insert_with(|| vec![0; choice.among.len()]);
        if let Some(at) = choice.among.iter().position(|&s| s == choice.square) {
            counts[at] += 1;
        }
    }
    let tested: Vec<_> = seen.iter().filter(|(_, counts)| can_show_bias(counts)).collect();
    let level = FALSE_FAILURE / f64::from(u32::try_from(tested.len()).unwrap_or(u32::MAX).max(1));
    let ((_, what, among), counts, p) = tested
        .into_iter()
        .map(|(key, counts)| (key, counts, p_value(counts)))
        .filter(|(_, _, p)| *p <= level)
        .min_by(|a, b| a.2.total_cmp(&b.2))?;
    Some(uneven(what, among, counts, p))
}

/// What an uneven choice looked like, in words.
fn uneven(what: &str, among: &[u64], counts: &[u64], p: f64) -> String {
    let games: u64 = counts.iter().sum();
    let mut order: Vec<usize> = (0..counts.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(counts[i]));
    let mut text = format!(
        "the {what} was {} in {} of {games} games that reached that position",
        among[order[0]], counts[order[0]]
    );
    let rest: Vec<String> = order[1..].iter().map(|&i| format!("{} in {}", among[i], counts[i])).collect();
    let _ = write!(text, " ({})", rest.join(", "));
    let among: Vec<String> = among.iter().map(u64::to_string).collect();
    let _ = write!(
        text,
        "; the rules leave it to chance among {}, and a fair choice is this uneven less than once in 10,000 tests (p = {p:.1e})",
        among.join(", ")
    );
    text
}

/// Whether `n` games among `k` squares could fail a fair test at all: the
/// most uneven counts (all on one square) have chance `k^(1−n)`.
fn can_show_bias(counts: &[u64]) -> bool {
    let (k, n) = (counts.len(), counts.iter().sum::<u64>());
    #[allow(clippy::cast_precision_loss)]
    let least = (1.0 - n as f64) * (k as f64).ln();
    k >= 2 && n >= 2 && least <= FALSE_FAILURE.ln()
}

/// The chance that a fair draw among `counts.len()` squares, made as many
/// times, gives counts at least as uneven (a chi-square statistic at least
/// as large): exact when there are at most [`MOST_OUTCOMES`] ways for the
/// draws to fall, else from the chi-square distribution.
#[must_use]
pub fn p_value(counts: &[u64]) -> f64 {
    let (k, n) = (counts.len(), counts.iter().sum::<u64>());
    if k < 2 || n == 0 {
        return 1.0;
    }
    // The chi-square statistic is (k/n)·Σc² − n: ordering outcomes by Σc²
    // orders them by it, in whole numbers.
    let squares: u64 = counts.iter().map(|c| c * c).sum();
    if outcomes(n, k) <= MOST_OUTCOMES {
        let mut tail = 0.0;
        each_outcome(n, k, |sum_of_squares, chance| {
            if sum_of_squares >= squares {
                tail += chance;
            }
        });
        return tail.min(1.0);
    }
    #[allow(clippy::cast_precision_loss)]
    let (k, n, squares) = (k as f64, n as f64, squares as f64);
    let statistic = k / n * squares - n;
    ChiSquared::new(k - 1.0).map_or(1.0, |distribution| distribution.sf(statistic))
}

/// How many ways `n` draws fall among `k` squares, as counts: `C(n+k−1,
/// k−1)`, saturating.
fn outcomes(n: u64, k: usize) -> u128 {
    let mut ways: u128 = 1;
    for i in 1..k as u128 {
        ways = ways.saturating_mul(u128::from(n) + i) / i;
    }
    ways
}

/// Calls `each` with every way `n` fair draws among `k` squares can fall,
/// as counts: their sum of squares and their chance.
fn each_outcome(n: u64, k: usize, mut each: impl FnMut(u64, f64)) {
    /// The counts of the last `parts` squares, `left` draws among them.
    fn split(left: u64, parts: usize, squares: u64, ln: f64, table: &[f64], each: &mut impl FnMut(u64, f64)) {
        let ln_factorial = |c: u64| usize::try_from(c).map_or(f64::INFINITY, |c| table[c]);
        if parts == 1 {
            each(squares + left * left, (ln - ln_factorial(left)).exp());
            return;
        }
        for c in 0..=left {
            split(left - c, parts - 1, squares + c * c, ln - ln_factorial(c), table, each);
        }
    }
    // ln(i!) for i up to n; n is at most a few hundred games.
    let table: Vec<f64> = (0..=n)
        .scan(0.0, |sum, i| {
            if i > 0 {
                *sum += f64::from(u32::try_from(i).unwrap_or(u32::MAX)).ln();
            }
            Some(*sum)
        })
        .collect();
    let whole = |i: u64| f64::from(u32::try_from(i).unwrap_or(u32::MAX));
    let base = table.last().copied().unwrap_or(0.0) - whole(n) * whole(k as u64).ln();
    split(n, k, 0, base, &table, &mut each);
}

#[cfg(test)]
#[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
mod tests {
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;

    /// The exact p-value of `counts`, by listing every sequence of draws.
    fn by_listing(counts: &[u64]) -> f64 {
        let (k, n) = (counts.len() as u64, counts.iter().sum::<u64>());
        let squares: u64 = counts.iter().map(|c| c * c).sum();
        let total = k.pow(u32::try_from(n).unwrap());
        let uneven = (0..total)
            .filter(|&sequence| {
                let mut tally = vec![0u64; counts.len()];
                let mut rest = sequence;
                for _ in 0..n {
                    tally[usize::try_from(rest % k).unwrap()] += 1;
                    rest /= k;
                }
                tally.iter().map(|c| c * c).sum::<u64>() >= squares
            })
            .count();
        uneven as f64 / total as f64
    }

    #[test]
    fn the_exact_p_value_is_the_share_of_draws_at_least_as_uneven() {
        for counts in [&[3, 0][..], &[2, 2], &[5, 1, 0], &[2, 2, 2], &[4, 0, 0, 0], &[3, 1, 1, 1], &[6, 2, 0]]
        {
            let (exact, listed) = (p_value(counts), by_listing(counts));
            assert!((exact - listed).abs() < 1e-12, "{counts:?}: {exact} against {listed}");
        }
        assert!((p_value(&[44, 0, 0]) - 3f64.powi(-43)).abs() < 1e-30);
        assert!((p_value(&[1, 1]) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn the_chi_square_distribution_stands_in_for_too_many_outcomes() {
        // 10 squares and 200 draws: C(209, 9) ways, far more than counted.
        let counts = [20; 10];
        assert!(outcomes(200, 10) > MOST_OUTCOMES);
        assert!((p_value(&counts) - 1.0).abs() < 1e-9);
        let lopsided = [38, 18, 18, 18, 18, 18, 18, 18, 18, 18];
        let p = p_value(&lopsided);
        // χ² = (10/200)·Σc² − 200 = 18 on 9 degrees of freedom: p ≈ 0.035.
        assert!((p - 0.0352).abs() < 0.001, "{p}");
        // Where both can be had, the two agree on the order of magnitude.
        let (exact, approximate) = (p_value(&[45, 30, 25]), {
            let statistic = 3.0 / 100.0 * (45.0f64 * 45.0 + 900.0 + 625.0) - 100.0;
            ChiSquared::new(2.0).unwrap().sf(statistic)
        });
        assert!(exact / approximate > 0.5 && exact / approximate < 2.0, "{exact} {approximate}");
    }

    /// The least sum of squares an exact test at `level` fails among `k`
    /// squares and `n` games, and the chance a fair program reaches it.
    fn threshold(n: u64, k: usize, level: f64) -> (u64, f64) {
        let mut by_squares: BTreeMap<u64, f64> = BTreeMap::new();
        each_outcome(n, k, |squares, chance| *by_squares.entry(squares).or_default() += chance);
        let mut tail = 0.0;
        let mut least = u64::MAX;
        for (&squares, &chance) in by_squares.iter().rev() {
            if tail + chance > level {
                break;
            }
            tail += chance;
            least = squares;
        }
        (least, tail)
    }

    /// The chance that draws with chances `p` reach `least`.
    fn power(n: u64, p: &[f64], least: u64) -> f64 {
        fn split(left: u64, i: usize, squares: u64, ln: f64, p: &[f64], least: u64, caught: &mut f64) {
            if i + 1 == p.len() {
                if squares + left * left >= least {
                    *caught += (ln - ln_factorial(left) + left as f64 * p[i].ln()).exp();
                }
                return;
            }
            for c in 0..=left {
                let ln = ln - ln_factorial(c) + c as f64 * p[i].ln();
                split(left - c, i + 1, squares + c * c, ln, p, least, caught);
            }
        }
        fn ln_factorial(n: u64) -> f64 {
            (1..=n).map(|i| (i as f64).ln()).sum()
        }
        let mut caught = 0.0;
        split(n, 0, 0, ln_factorial(n), p, least, &mut caught);
        caught
    }

    #[test]
    fn a_fair_program_fails_at_most_once_in_10000_tests() {
        for k in 2..=4 {
            for n in [20, 44, GAMES as u64] {
                let (_, size) = threshold(n, k, FALSE_FAILURE);
                assert!(size <= FALSE_FAILURE, "{n} games among {k}: {size}");
            }
        }
    }

    #[test]
    fn a_first_corner_bias_of_60_percent_is_caught() {
        // The first free corner 60% of the time, else any corner at random.
        let biased = |k: usize| -> Vec<f64> {
            (0..k).map(|i| if i == 0 { 0.6 + 0.4 / k as f64 } else { 0.4 / k as f64 }).collect()
        };
        let caught = |n: u64, k: usize| power(n, &biased(k), threshold(n, k, FALSE_FAILURE).0);
        // With the 44 games played before: too often missed.
        assert!(caught(44, 2) < 0.5 && caught(44, 3) < 0.93, "{} {}", caught(44, 2), caught(44, 3));
        // With GAMES: caught with 2, 3 or 4 corners free.
        let n = GAMES as u64;
        assert!(caught(n, 2) > 0.99, "{}", caught(n, 2));
        assert!(caught(n, 3) > 0.9999, "{}", caught(n, 3));
        assert!(caught(n, 4) > 0.999_999, "{}", caught(n, 4));
    }

    /// `games` games with one corner to choose among 3, 7 and 9, each
    /// taken by `pick`.
    fn corners(games: usize, mut pick: impl FnMut() -> u64) -> Vec<Vec<Choice>> {
        (0..games)
            .map(|_| {
                let square = pick();
                vec![Choice { position: "----X---O".into(), what: "corner", square, among: vec![3, 7, 9] }]
            })
            .collect()
    }

    #[test]
    fn a_choice_that_never_varies_fails_and_says_what_was_seen() {
        let why = judge(&corners(44, || 3)).unwrap();
        assert!(
            why.starts_with(
                "the corner was 3 in 44 of 44 games that reached that position (7 in 0, 9 in 0); \
                 the rules leave it to chance among 3, 7, 9, and a fair choice is this uneven less than \
                 once in 10,000 tests (p = "
            ),
            "{why}"
        );
    }

    #[test]
    fn a_fair_choice_passes_and_a_biased_one_fails() {
        let mut rng = ChaCha8Rng::seed_from_u64(36);
        let corner = |rng: &mut ChaCha8Rng| [3, 7, 9][rng.random_range(0..3)];
        let fair = corners(GAMES, || corner(&mut rng));
        assert_eq!(judge(&fair), None);
        let biased = corners(GAMES, || if rng.random_range(0..10) < 6 { 3 } else { corner(&mut rng) });
        let why = judge(&biased).unwrap();
        assert!(why.starts_with("the corner was 3 in "), "{why}");
    }

    #[test]
    fn a_position_reached_too_seldom_to_show_anything_is_not_tested() {
        // 8 games among 3 corners, all alike: 3^-7 is no proof at 1 in 10,000.
        assert_eq!(judge(&corners(8, || 3)), None);
        // Nor does it dilute the test of a position that can show something.
        let mut games = corners(30, || 9);
        games.extend(corners(8, || 3).into_iter().map(|mut game| {
            game[0].position = "X---O----".into();
            game
        }));
        assert!(judge(&games).unwrap().starts_with("the corner was 9 in 30 of 30"));
    }
}
