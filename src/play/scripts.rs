//! Typed scripts for grading console programs (`gen --profile`): sessions
//! that finish, with some refused answers in them.
//!
//! Script N of a seed has its own random stream, so a larger set extends a
//! smaller one. Each script is cut right after the input that ends its
//! first game (plus the `n` that declines another, for profiles that ask),
//! and checked to finish before it is returned.

use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{Profile, session};

/// Script `index` of `seed` for `profile`'s console, played with the
/// profile's default sides (a person as X).
#[must_use]
pub fn script(profile: Profile, seed: u64, index: u64) -> String {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let mut lines: Vec<String> = Vec::new();
    let sometimes = |rng: &mut ChaCha8Rng, lines: &mut Vec<String>, bad: &[&str]| {
        if rng.random_range(0..3) == 0 {
            lines.push(bad[rng.random_range(0..bad.len())].to_owned());
        }
    };
    match profile {
        Profile::Xtreme => {
            sometimes(&mut rng, &mut lines, &["0", "101", "three"]);
            lines.push("3".to_owned());
        }
        Profile::Extended => {
            sometimes(&mut rng, &mut lines, &["11", "1"]);
            lines.push("2".to_owned());
            lines.push("X".to_owned());
            sometimes(&mut rng, &mut lines, &["x", "X"]);
            lines.push("O".to_owned());
            sometimes(&mut rng, &mut lines, &["2", "101"]);
            lines.extend(["3", "3", "3"].map(str::to_owned));
            sometimes(&mut rng, &mut lines, &["q", "fast"]);
            lines.push(if rng.random_range(0..2) == 0 { "F" } else { "m" }.to_owned());
        }
        Profile::Smalltalk => {
            sometimes(&mut rng, &mut lines, &["robot", "person", ""]);
            lines.push("human".to_owned());
            lines.push(if rng.random_range(0..2) == 0 { "computer" } else { "human" }.to_owned());
        }
        Profile::Default | Profile::Uri => {}
    }
    let mut squares: Vec<u32> = (0..9).collect();
    squares.shuffle(&mut rng);
    for square in squares {
        let junk: &[&str] = match profile {
            Profile::Xtreme => &["5, 5", "1 1"],
            Profile::Extended => &["-1\n0", "3\n3"],
            Profile::Uri => &["0"],
            Profile::Default | Profile::Smalltalk => &["0", "10", "abc"],
        };
        sometimes(&mut rng, &mut lines, junk);
        let (row, col) = (square / 3, square % 3);
        lines.push(match profile {
            Profile::Xtreme => format!("{col}, {row}"),
            Profile::Extended => format!("{row}\n{col}"),
            _ => (square + 1).to_string(),
        });
    }
    // The shortest beginning that finishes the first game; but a computer
    // that plays the Smalltalk exercise's strategy leaves corners to chance, and another
    // game may need more of the person's squares, so a `smalltalk` script
    // keeps them all (the game ends, whatever the computer draws, before
    // they run out).
    let all = lines.join("\n") + "\n";
    let end = all
        .match_indices('\n')
        .map(|(i, _)| i + 1)
        .find(|&end| profile != Profile::Smalltalk && finishes(profile, &all[..end]));
    let mut cut = all[..end.unwrap_or(all.len())].to_owned();
    if matches!(profile, Profile::Default | Profile::Extended) {
        cut.push_str("n\n");
    }
    cut
}

/// Whether `script` finishes a game on `profile`'s console.
#[must_use]
pub fn finishes(profile: Profile, script: &str) -> bool {
    let mut console = profile.console(script.as_bytes(), std::io::sink());
    let mut finished = false;
    let _ = session(console.as_mut(), 0, |_, played| {
        finished |= played.is_finished();
        Ok::<(), super::PlayError>(())
    });
    finished
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_smalltalk_script_finishes_whatever_corners_the_computer_draws() {
        for index in 0..20 {
            let text = script(Profile::Smalltalk, 7, index);
            for seed in 0..8 {
                let mut console = Profile::Smalltalk.console(text.as_bytes(), std::io::sink());
                let mut finished = false;
                session(console.as_mut(), seed, |_, played| {
                    finished |= played.is_finished();
                    Ok::<(), crate::play::PlayError>(())
                })
                .unwrap();
                assert!(finished, "{index} at seed {seed}:\n{text}");
            }
        }
    }

    #[test]
    fn every_profile_gets_scripts_that_finish() {
        for profile in
            [Profile::Default, Profile::Xtreme, Profile::Extended, Profile::Uri, Profile::Smalltalk]
        {
            for index in 0..20 {
                let text = script(profile, 7, index);
                assert!(finishes(profile, &text), "{profile:?} {index}:\n{text}");
                assert_eq!(text, script(profile, 7, index), "the same seed gives the same script");
            }
        }
    }
}
