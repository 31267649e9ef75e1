//! What one benchmark timed, kept by the bench itself so that it can print a summary
//! (criterion's own estimates are not readable from the bench): every batch criterion
//! timed, warm-up first, then its samples, and the Newton iterations of all timed steps.
// Each bench includes this file and uses part of it.
#![allow(dead_code)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::Criterion;

/// Every batch of one benchmark and the Newton iterations of its steps.
#[derive(Default)]
pub struct Record {
    batches: Vec<(u64, Duration)>,
    steps: u64,
    newton_iterations: u64,
}

impl Record {
    /// Times `iters` calls of `step`, each returning its Newton iterations.
    pub fn time(&mut self, iters: u64, mut step: impl FnMut() -> u32) -> Duration {
        let mut newton_iterations = 0_u64;
        let start = Instant::now();
        for _ in 0..iters {
            newton_iterations += u64::from(black_box(step()));
        }
        let elapsed = start.elapsed();
        self.batches.push((iters, elapsed));
        self.steps += iters;
        self.newton_iterations += newton_iterations;
        elapsed
    }

    /// The median time per step of criterion's `samples` samples (the last batches),
    /// in nanoseconds; `None` if the benchmark did not run them (filtered out, or
    /// `--test`).
    pub fn median_ns(&self, samples: usize) -> Option<f64> {
        let first = self.batches.len().checked_sub(samples)?;
        let mut per_step: Vec<f64> = self.batches[first..]
            .iter()
            .map(|&(iters, elapsed)| elapsed.as_nanos() as f64 / iters as f64)
            .collect();
        per_step.sort_by(f64::total_cmp);
        let mid = per_step.len() / 2;
        Some(if per_step.len() % 2 == 0 {
            0.5 * (per_step[mid - 1] + per_step[mid])
        } else {
            per_step[mid]
        })
    }

    /// Mean Newton iterations over every timed step.
    pub fn mean_iterations(&self) -> f64 {
        self.newton_iterations as f64 / self.steps.max(1) as f64
    }

    /// Steps timed, warm-up included.
    pub fn steps(&self) -> u64 {
        self.steps
    }
}

/// Criterion's defaults, or the short CI profile with `LIVENS_BENCH_QUICK=1` (1 s
/// measurement, 0.5 s warm-up, 10 samples); and the number of samples it takes.
pub fn config() -> (Criterion, usize) {
    let quick = std::env::var("LIVENS_BENCH_QUICK").is_ok_and(|v| v == "1");
    if quick {
        let c = Criterion::default()
            .measurement_time(Duration::from_secs(1))
            .warm_up_time(Duration::from_millis(500))
            .sample_size(10);
        (c, 10)
    } else {
        (Criterion::default(), 100)
    }
}
