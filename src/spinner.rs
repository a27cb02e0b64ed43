//! What long work shows on a terminal, so that nobody waits on a silent
//! process: the spinner of a long `perfect` search, and the progress bar of
//! a batch or a grading. Nothing is shown when standard error is not a
//! terminal, nor for a search that ends within a second.

use std::io::{self, IsTerminal};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

use crate::engine::{Progress, Watcher};

/// A progress bar of `len` items on standard error, counted in `unit`
/// (`files`, `tests`), or a hidden one when standard error is not a
/// terminal. The one progress bar of batch runs and gradings.
#[must_use]
pub fn progress_bar(len: u64, unit: &str) -> ProgressBar {
    if !io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    if let Ok(style) = ProgressStyle::with_template(&format!("{{bar:40}} {{pos}}/{{len}} {unit} {{elapsed}}"))
    {
        bar.set_style(style);
    }
    bar
}

/// How long a search runs before its spinner appears.
const QUIET_FOR: Duration = Duration::from_secs(1);

/// [`search_spinner`] for [`crate::play::Thinking::watcher`].
#[must_use]
pub fn watcher() -> Watcher {
    Box::new(search_spinner())
}

/// A progress callback for [`crate::engine::Engine::on_progress`] that draws
/// a spinner with the depth and positions per second on standard error, if
/// it is a terminal.
pub fn search_spinner() -> impl FnMut(Progress) + Send {
    let terminal = io::stderr().is_terminal();
    let mut bar: Option<ProgressBar> = None;
    move |progress: Progress| {
        if !terminal {
            return;
        }
        if progress.done {
            if let Some(bar) = bar.take() {
                bar.finish_and_clear();
            }
            return;
        }
        // The search's own clock, read where it decides to stop: one that
        // runs out its time limit (over a second) always shows the spinner
        // before it ends, however loaded the machine.
        let elapsed = progress.elapsed;
        if elapsed < QUIET_FOR {
            return;
        }
        let bar = bar.get_or_insert_with(|| {
            let bar = ProgressBar::new_spinner();
            if let Ok(style) = ProgressStyle::with_template("{spinner} thinking: {msg} {elapsed}") {
                bar.set_style(style);
            }
            bar.enable_steady_tick(Duration::from_millis(100));
            bar
        });
        let rate = u128::from(progress.nodes) * 1000 / elapsed.as_millis().max(1);
        bar.set_message(format!("{} moves ahead, {rate} positions/s", progress.depth));
    }
}
