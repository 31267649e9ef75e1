//! Ctrl-C (SIGINT, or the console's Ctrl-C on Windows) during a run: the first one asks
//! the step loop to stop at the next step boundary, so that the CSV is flushed and the
//! table and the plot of the partial run are written; a second one ends the process at
//! once, with the same exit code.
use std::sync::atomic::{AtomicBool, Ordering};

use super::error::INTERRUPTED;

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// Installs the handler. If the platform refuses it, Ctrl-C keeps its default action
/// (the process ends, as before this handler existed), so the error is not fatal.
pub fn install() {
    let _ = ctrlc::set_handler(|| {
        if REQUESTED.swap(true, Ordering::SeqCst) {
            std::process::exit(i32::from(INTERRUPTED));
        }
    });
}

/// Whether Ctrl-C was pressed: cheap enough to ask at every step.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::Relaxed)
}
