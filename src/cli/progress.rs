//! A progress bar that appears only once a run has taken more than a second, and only
//! on a terminal (indicatif draws nothing when standard error is redirected).
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long a run goes before its bar appears.
const DELAY: Duration = Duration::from_secs(1);

/// The bar of one run.
pub struct Progress {
    bar: ProgressBar,
    start: Instant,
    shown: bool,
}

impl Progress {
    /// A hidden bar for `steps` steps, labelled `label`.
    pub fn new(steps: usize, label: &str) -> Self {
        let style = ProgressStyle::with_template(
            "{prefix:>6} [{wide_bar:.cyan/blue}] {pos}/{len} steps, {msg}, {eta} left",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
        let bar = ProgressBar::with_draw_target(Some(steps as u64), ProgressDrawTarget::hidden())
            .with_style(style)
            .with_prefix(label.to_owned());
        Self {
            bar,
            start: Instant::now(),
            shown: false,
        }
    }

    /// Reports that `step` steps are done, at time `t`. Cheap enough for every step:
    /// the bar is updated and the clock read only every 256 steps, and a hidden bar
    /// draws nothing.
    pub fn update(&mut self, step: usize, t: f64) {
        if step % 256 != 0 {
            return;
        }
        self.bar.set_position(step as u64);
        self.bar
            .set_message(format!("t = {}", super::times::fmt_time(t)));
        if !self.shown && self.start.elapsed() > DELAY {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
            self.shown = true;
        }
    }

    /// Removes the bar.
    pub fn finish(self) {
        self.bar.finish_and_clear();
    }
}
