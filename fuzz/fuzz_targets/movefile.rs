//! The move-file reader on arbitrary bytes: it returns records or an error
//! with a line number, and never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ttt_referee::movefile::MoveReader;

fuzz_target!(|data: &[u8]| {
    let Ok(mut reader) = MoveReader::new(data) else { return };
    let mut last_line = 0;
    loop {
        match reader.next_record() {
            Ok(Some(record)) => {
                assert!(record.line > last_line, "line numbers increase");
                assert!(!record.label.is_empty() && !record.square.is_empty());
                last_line = record.line;
            }
            Ok(None) => break,
            Err(e) => {
                assert!(e.line() >= 1);
                break;
            }
        }
    }
});
