//! The whole referee on arbitrary bytes, in every format, style and storage:
//! never a panic, and dense and sparse storage always agree.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ttt_referee::board::Storage;
use ttt_referee::movefile::MoveReader;
use ttt_referee::referee::{Format, Options, referee};
use ttt_referee::render::Style;
use ttt_referee::transcript::{Boards, Layout};

fuzz_target!(|data: &[u8]| {
    // The first byte picks the options; the rest is the move file.
    let Some((&pick, input)) = data.split_first() else { return };
    let style = [Style::Classic, Style::Grid, Style::Table][usize::from(pick % 3)];
    let mut boards = [Boards::Each, Boards::Final, Boards::None][usize::from(pick / 3 % 3)];
    // Output goes to memory here: print only boards small enough to hold
    // there many times over (printing itself is bounded by row; see render.rs).
    if MoveReader::new(input).is_ok_and(|r| r.header().geometry.cells() > 4096) {
        boards = Boards::None;
    }
    let format = if pick & 0x80 == 0 { Format::Text } else { Format::Json };
    let options = |storage| Options {
        layout: Layout { style, boards, ..Layout::default() },
        storage,
        format,
    };
    let mut auto = Vec::new();
    let result = referee(input, &mut auto, &options(Storage::Auto)).map(|r| r.violations);
    // Sparse storage fits every board; compare it with the default.
    let mut sparse = Vec::new();
    let again = referee(input, &mut sparse, &options(Storage::Sparse)).map(|r| r.violations);
    assert_eq!(result.is_ok(), again.is_ok());
    if result.is_ok() {
        assert_eq!(auto, sparse);
    }
});
