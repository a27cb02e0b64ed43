//! What Ctrl-C, SIGTERM and SIGHUP do to a command that writes files and
//! has no grading to stop: every temporary file it made (the hidden
//! `.ttt-referee-*.tmp` beside an output, `gen`'s corpus being made) is
//! removed, then the process ends with status 128 + the signal's number, as
//! a shell reports a process the signal ended.

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

use crate::output;

/// From now on, Ctrl-C, SIGTERM or SIGHUP removes this process's temporary
/// files and ends it. Best effort: if the signals cannot be caught, they
/// keep their default action (and a temporary file may be left).
pub(super) fn end_removing_temporaries() {
    let Ok(mut signals) = Signals::new([SIGINT, SIGTERM, SIGHUP]) else { return };
    let _ = std::thread::Builder::new().name("signals".to_owned()).spawn(move || {
        if let Some(signal) = signals.forever().next() {
            output::remove_temporaries();
            std::process::exit(128 + signal);
        }
    });
}
