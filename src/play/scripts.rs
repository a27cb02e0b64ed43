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

use super::dialect::Typed;
use super::{Profile, session};

/// Script `index` of `seed` for `profile`'s console, played with the
/// profile's default sides (a person as X), typed as its dialect says
/// ([`super::Dialect::typing`]).
#[must_use]
pub fn script(profile: Profile, seed: u64, index: u64) -> String {
    let typing = profile.dialect().typing();
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let mut lines: Vec<String> = Vec::new();
    let sometimes = |rng: &mut ChaCha8Rng, lines: &mut Vec<String>, bad: &[&str]| {
        if rng.random_range(0..3) == 0 {
            lines.push(bad[rng.random_range(0..bad.len())].to_owned());
        }
    };
    for typed in typing.setup {
        match *typed {
            Typed::Always(answer) => lines.push(answer.to_owned()),
            Typed::Sometimes(bad) => sometimes(&mut rng, &mut lines, bad),
            Typed::Either(one, other) => {
                lines.push(if rng.random_range(0..2) == 0 { one } else { other }.to_owned());
            }
        }
    }
    let mut squares: Vec<u32> = (0..9).collect();
    squares.shuffle(&mut rng);
    for square in squares {
        sometimes(&mut rng, &mut lines, typing.junk);
        lines.push((typing.square)(square / 3, square % 3));
    }
    // The shortest beginning that finishes the first game; but where the
    // computer leaves moves to chance, another game may need more of the
    // person's squares, so such a script keeps them all (the game ends,
    // whatever the computer draws, before they run out).
    let all = lines.join("\n") + "\n";
    let end = all
        .match_indices('\n')
        .map(|(i, _)| i + 1)
        .find(|&end| typing.shortest && finishes(profile, &all[..end]));
    let mut cut = all[..end.unwrap_or(all.len())].to_owned();
    if let Some(decline) = typing.decline {
        cut.push_str(decline);
        cut.push('\n');
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
