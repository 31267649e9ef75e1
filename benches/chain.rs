//! Step cost against model size: chains of n = 2, 5, 10, 20 and 40 point masses on
//! rigid rods (`benches/support/chains.rs`, one `model!` declaration per length, the
//! EM scheme), timed in one criterion run as `chain_em/<n>`. The step Jacobian has
//! `8n` unknowns; with the elimination plans its factorisation costs a multiple of the
//! links, so the time per unknown should stay roughly flat.
//!
//! Everything runs on a thread with a 2 MiB stack, the size a user's worker thread
//! typically gets; the integrators are boxed (the 40-link chain's workspace holds a
//! 320 × 320 Jacobian, 800 KiB). Each measured iteration is one step along the
//! chain's fall from the horizontal, restarting every `RESET` steps (2 s of motion at
//! h = 0.01).
//!
//! At the end it prints each median, the time per unknown, the mean Newton iterations
//! and t(40) / t(10). `LIVENS_BENCH_QUICK=1` shortens the run for CI.
//!
//! `LIVENS_BENCH_COUNT=1` times nothing: each chain runs its first `RESET` steps once,
//! inside [`counted_run`], in the order above, and the bench exits. Under callgrind
//! with `--toggle-collect='*counted_run*' --dump-after='chain::counted_run*'` each dump
//! holds one chain's steps (its totals divided by `RESET` are the instructions per
//! step), a figure that does not depend on the machine's load; with `--cache-sim=yes`
//! and this machine's caches, its simulated cache misses (docs/performance.md).
use std::hint::black_box;

use criterion::Criterion;
use livens::prelude::*;

#[macro_use]
#[path = "support/chains.rs"]
mod chains;
#[path = "support/record.rs"]
mod record;
use record::Record;

chain!(Chain2, 2);
chain!(Chain5, 5);
chain!(Chain10, 10);
chain!(Chain20, 20);
chain!(Chain40, 40);

/// Steps after which each chain restarts from the horizontal.
const RESET: u32 = 200;
const STEP: f64 = 0.01;

/// The first `RESET` steps from the state `sim` holds; the mean Newton iterations.
#[inline(never)]
fn counted_run<Mdl: Step<f64, GglEm>>(sim: &mut Integrator<f64, Mdl, GglEm>) -> f64 {
    let mut iterations = 0;
    for n in 0..RESET {
        match sim.step() {
            Ok(report) => iterations += u64::from(report.iterations),
            Err(e) => panic!("step {n} failed: {e}"),
        }
    }
    iterations as f64 / f64::from(RESET)
}

/// Whether only to count (`LIVENS_BENCH_COUNT=1`, see the header).
fn count_only() -> bool {
    std::env::var("LIVENS_BENCH_COUNT").is_ok_and(|v| v == "1")
}

/// Times one step of `model` as `chain_em/<links>` (when only counting, runs
/// [`counted_run`] once instead).
fn bench<Mdl, const D: usize, const M: usize>(
    c: &mut Criterion,
    links: usize,
    model: Mdl,
    initial: NodeState<f64, D, M>,
) -> Record
where
    Mdl: Step<f64, GglEm, State = NodeState<f64, D, M>>,
{
    let mut sim = Box::new(Integrator::new(model, GglEm, STEP, initial));
    if count_only() {
        let iterations = counted_run(&mut sim);
        eprintln!("chain_em/{links}: {RESET} steps, mean Newton iterations {iterations:.3}");
        return Record::default();
    }
    let mut record = Record::default();
    let mut since_reset: u32 = 0;
    let mut group = c.benchmark_group("chain_em");
    group.bench_function(links.to_string(), |b| {
        b.iter_custom(|iters| {
            record.time(iters, || {
                if since_reset == RESET {
                    sim.set_state(initial);
                    since_reset = 0;
                }
                since_reset += 1;
                match black_box(&mut sim).step() {
                    Ok(report) => {
                        assert_eq!(report.pivoting_fallbacks, 0, "chain_em/{links}");
                        report.iterations
                    }
                    Err(e) => panic!("chain_em/{links}: step failed: {e}"),
                }
            })
        });
    });
    group.finish();
    record
}

fn run() {
    let (config, samples) = record::config();
    let mut c = config.configure_from_args();
    let records = [
        (
            2,
            bench(&mut c, 2, Chain2::new(), Chain2::new().initial_state()),
        ),
        (
            5,
            bench(&mut c, 5, Chain5::new(), Chain5::new().initial_state()),
        ),
        (
            10,
            bench(&mut c, 10, Chain10::new(), Chain10::new().initial_state()),
        ),
        (
            20,
            bench(&mut c, 20, Chain20::new(), Chain20::new().initial_state()),
        ),
        (
            40,
            bench(&mut c, 40, Chain40::new(), Chain40::new().initial_state()),
        ),
    ];
    if count_only() {
        return;
    }
    c.final_summary();
    let mut medians = Vec::new();
    for (links, record) in &records {
        if let Some(median) = record.median_ns(samples) {
            eprintln!(
                "chain_em/{links}: median {:.1} µs per step, {:.1} ns per unknown, mean Newton \
                 iterations {:.2}",
                median / 1e3,
                median / (8 * links) as f64,
                record.mean_iterations(),
            );
            medians.push((*links, median));
        }
    }
    let at = |n: usize| medians.iter().find(|&&(links, _)| links == n).map(|m| m.1);
    if let (Some(ten), Some(forty)) = (at(10), at(40)) {
        eprintln!("chain_em: t(40) / t(10) = {:.2}", forty / ten);
    }
}

fn main() {
    std::thread::Builder::new()
        .name("chain bench".into())
        .stack_size(2 << 20)
        .spawn(run)
        .expect("a thread")
        .join()
        .expect("the bench thread finished");
}
