//! Every console profile on arbitrary typing: never a panic, and every game
//! played records a move file that referees without a single violation.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ttt_referee::board::Geometry;
use ttt_referee::engine::EngineKind;
use ttt_referee::play::extended::Extended;
use ttt_referee::play::smalltalk::Smalltalk;
use ttt_referee::play::uri::Uri;
use ttt_referee::play::xtreme::Xtreme;
use ttt_referee::play::{Console, Driver, Plain, PlayError, Profile, Side};
use ttt_referee::referee::{Options, referee};

fuzz_target!(|data: &[u8]| {
    // The first byte picks the profile and who plays O; the rest is typed.
    let Some((&pick, typed)) = data.split_first() else { return };
    let profile = [Profile::Default, Profile::Xtreme, Profile::Extended, Profile::Uri, Profile::Smalltalk]
        [usize::from(pick % 5)];
    let o = [Side::Human, Side::Engine(EngineKind::Rules), Side::Engine(EngineKind::Minimax)][usize::from(pick / 4 % 3)];
    let (sides, output) = ([Side::Human, o], std::io::sink());
    let mut console: Box<dyn Console + '_> = match profile {
        Profile::Default => Box::new(Driver::new(Plain::new(sides, Geometry::CLASSIC, typed, output))),
        Profile::Xtreme => Box::new(Driver::new(Xtreme::new(sides, typed, output))),
        Profile::Extended => Box::new(Driver::new(Extended::new(sides, typed, output))),
        Profile::Uri => Box::new(Driver::new(Uri::new(sides, typed, output))),
        Profile::Smalltalk => Box::new(Driver::new(Smalltalk::new(false, typed, output))),
    };
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
