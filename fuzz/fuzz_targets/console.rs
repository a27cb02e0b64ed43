//! Every console profile on arbitrary typing: never a panic, and every game
//! played records a move file that referees without a single violation.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ttt_referee::board::Geometry;
use ttt_referee::engine::EngineKind;
use ttt_referee::play::{PlayError, Profile, Side, Thinking};
use ttt_referee::referee::{Options, referee};

fuzz_target!(|data: &[u8]| {
    // The first byte picks the profile and who plays O; the rest is typed.
    let Some((&pick, typed)) = data.split_first() else { return };
    let profile = [Profile::Default, Profile::Xtreme, Profile::Extended, Profile::Uri, Profile::Smalltalk]
        [usize::from(pick % 5)];
    let o = [Side::Human, Side::Engine(EngineKind::Rules), Side::Engine(EngineKind::Minimax)][usize::from(pick / 4 % 3)];
    let mut console = profile.console([Side::Human, o], Thinking::default(), Geometry::CLASSIC, false, typed, std::io::sink());
    for game in 0..4 {
        let played = match console.game(game) {
            Ok(Some(played)) => played,
            Ok(None) | Err(PlayError::Engine(_)) => return,
            Err(e) => panic!("{e}"),
        };
        let report = referee(played.move_file().as_bytes(), std::io::sink(), &Options::default())
            .expect("a recorded game referees");
        assert_eq!(report.violations, 0);
        assert_eq!(report.game.outcome(), played.game.outcome());
        if !played.is_finished() || !console.again().expect("the console is memory") {
            return;
        }
    }
});
