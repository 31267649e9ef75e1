//! Newton's variants side by side: one step of each model with its energy–momentum
//! scheme (`GglEm`) and one variational scheme (`GglViA`), for every pair of starting
//! point ([`Guess`], spec 000 §3) and Jacobian policy ([`JacobianUpdate`]):
//!
//! - `prev`: the known values at `tⁿ` (the paper's simple guess, the default);
//! - `extra`: the new positions moved to `qⁿ + h vⁿ` (the paper's advanced guess);
//!
//! each with
//!
//! - `every`: the exact Jacobian at every iterate (the paper's full Newton, the default);
//! - `reuse3`, `reuse5`: the factors kept for at most 3 or 5 iterations while the
//!   residual still halves;
//! - `chord`: the Jacobian of the starting point kept for the whole step.
//!
//! Benchmarks are named `<model>_<scheme>/<guess>_<policy>`. The steps are those of
//! `benches/step.rs`: along the paper's trajectory from the model's initial state, reset
//! to it every `RESET` steps (the chain's whole 2 s run, 200 steps, for the others the
//! first 1000).
//!
//! Before timing, each variant runs those steps once. It prints its mean Newton
//! iterations and factorisations per step and how far its final positions are from
//! those of `prev_every` (the variants solve the same equations to the same tolerance,
//! so they should agree to round-off). A variant whose Newton solve fails is reported
//! with the step and the error and not timed; the others go on. At the end a table of
//! every variant is printed: median time per step over criterion's samples, iterations,
//! factorisations, and the time relative to `prev_every` of the same model and scheme.
//!
//! `LIVENS_BENCH_QUICK=1` shortens the run as in `benches/step.rs`: 1 s measurement,
//! 0.5 s warm-up, 10 samples. Otherwise criterion's defaults apply.
//!
//! `LIVENS_BENCH_COUNT=1` times nothing: each variant runs its `RESET` steps once,
//! inside [`counted_run`], and exits. Run under callgrind with
//! `--toggle-collect='*counted_run*' --dump-after='*counted_run*'`, each dump holds the
//! instructions of one variant's steps, in the order printed: a figure that does not
//! depend on the machine's load.
use std::hint::black_box;

use criterion::Criterion;
use livens::prelude::*;
use livens::{JacobianUpdate, SolveError};
use livens_models::{Chain10, FourParticles, LagrangeTop, Pendulum3d};

#[path = "support/record.rs"]
mod record;
use record::Record;

/// Steps after which the integrator restarts from the initial state (the chain's run
/// is shorter).
const RESET: u32 = 1000;

/// The simplified Newton of the brief: keep the factors while the residual at least
/// halves per iteration.
const CONTRACTION: f64 = 0.5;

/// Every variant measured, by name.
const VARIANTS: [(&str, Guess, JacobianUpdate); 8] = {
    use Guess::{Extrapolated, Previous};
    use JacobianUpdate::{Chord, EveryIteration};
    let reuse3 = JacobianUpdate::Reuse {
        max_age: 3,
        contraction: CONTRACTION,
    };
    let reuse5 = JacobianUpdate::Reuse {
        max_age: 5,
        contraction: CONTRACTION,
    };
    [
        ("prev_every", Previous, EveryIteration),
        ("prev_reuse3", Previous, reuse3),
        ("prev_reuse5", Previous, reuse5),
        ("prev_chord", Previous, Chord),
        ("extra_every", Extrapolated, EveryIteration),
        ("extra_reuse3", Extrapolated, reuse3),
        ("extra_reuse5", Extrapolated, reuse5),
        ("extra_chord", Extrapolated, Chord),
    ]
};

/// What the untimed run of `steps` steps of one variant cost.
#[derive(Clone, Copy)]
struct Cost {
    iterations: u64,
    factorizations: u64,
    steps: u32,
}

impl Cost {
    fn per_step(self) -> (f64, f64) {
        let n = f64::from(self.steps);
        (self.iterations as f64 / n, self.factorizations as f64 / n)
    }
}

/// One line of the final table.
struct Row {
    id: String,
    median_ns: Option<f64>,
    /// `None` if the variant failed.
    cost: Option<Cost>,
    /// `max |Δq|` against `prev_every` after the untimed run.
    deviation: f64,
}

/// `steps` steps of `sim` from its current state, with their cost, or the step that
/// failed and why. Not inlined, so that callgrind can count its instructions alone.
#[inline(never)]
fn counted_run<Mdl: Step<f64, S>, S>(
    sim: &mut Integrator<f64, Mdl, S>,
    steps: u32,
) -> Result<Cost, (u32, SolveError<f64>)> {
    let mut cost = Cost {
        iterations: 0,
        factorizations: 0,
        steps,
    };
    for n in 0..steps {
        let report = sim.step().map_err(|e| (n, e))?;
        cost.iterations += u64::from(report.iterations);
        cost.factorizations += u64::from(report.factorizations);
    }
    Ok(black_box(cost))
}

/// How the bench runs: criterion's samples, and whether it only counts.
struct Settings {
    criterion: Criterion,
    samples: usize,
    count_only: bool,
}

/// Every variant of `model` with `scheme` as group `group`, `steps` steps from
/// `initial` before each reset; a row per variant into `rows`.
#[allow(clippy::too_many_arguments)]
fn variants<Mdl, S, const D: usize>(
    settings: &mut Settings,
    rows: &mut Vec<Row>,
    group: &str,
    model: Mdl,
    scheme: S,
    h: f64,
    initial: Mdl::State,
    steps: u32,
) where
    Mdl: Step<f64, S> + Clone,
    S: Clone,
    Mdl::State: NodeValues<f64, D>,
{
    let mut reference: Option<SVector<f64, D>> = None;
    for (name, guess, jacobian) in VARIANTS {
        let id = format!("{group}/{name}");
        let options = NewtonOptions {
            jacobian,
            ..NewtonOptions::default()
        };
        let mut sim = Integrator::new(model.clone(), scheme.clone(), h, initial)
            .with_guess(guess)
            .with_options(options);
        let cost = match counted_run(&mut sim, steps) {
            Ok(cost) => cost,
            Err((n, e)) => {
                eprintln!("{id}: FAILS at step {n} of {steps}: {e}");
                rows.push(Row {
                    id,
                    median_ns: None,
                    cost: None,
                    deviation: f64::NAN,
                });
                continue;
            }
        };
        let q = *sim.state().positions();
        let deviation = reference.map_or(0.0, |r| (q - r).amax());
        reference.get_or_insert(q);
        let (iterations, factorizations) = cost.per_step();
        eprintln!(
            "{id}: {iterations:.2} Newton iterations and {factorizations:.2} factorisations \
             per step over {steps} steps; final positions {deviation:.1e} from prev_every"
        );
        let mut row = Row {
            id,
            median_ns: None,
            cost: Some(cost),
            deviation,
        };
        if !settings.count_only {
            row.median_ns = time(settings, &row.id, &mut sim, initial, steps);
        }
        rows.push(row);
    }
}

/// Criterion's timing of one step of `sim`, reset to `initial` every `steps` steps:
/// the median per step over its samples, if it ran them.
fn time<Mdl: Step<f64, S>, S>(
    settings: &mut Settings,
    id: &str,
    sim: &mut Integrator<f64, Mdl, S>,
    initial: Mdl::State,
    steps: u32,
) -> Option<f64> {
    let (group, name) = id.split_once('/').unwrap_or((id, ""));
    sim.set_state(initial);
    let mut record = Record::default();
    let mut since_reset: u32 = 0;
    let mut bench_group = settings.criterion.benchmark_group(group);
    bench_group.bench_function(name, |b| {
        b.iter_custom(|iters| {
            record.time(iters, || {
                if since_reset == steps {
                    sim.set_state(initial);
                    since_reset = 0;
                }
                since_reset += 1;
                match sim.step() {
                    Ok(report) => report.iterations,
                    // The same steps converged in the untimed run.
                    Err(e) => panic!("{id}: step failed: {e}"),
                }
            })
        });
    });
    bench_group.finish();
    let median = record.median_ns(settings.samples);
    if let Some(median) = median {
        eprintln!(
            "{id}: median {median:.0} ns per step, {:.2} Newton iterations over the {} \
             timed steps",
            record.mean_iterations(),
            record.steps()
        );
    }
    median
}

/// Every variant of `model` with EM and with VI-A, as groups `<name>_em` and
/// `<name>_via`.
fn both_schemes<Mdl, const D: usize, const M: usize>(
    settings: &mut Settings,
    rows: &mut Vec<Row>,
    name: &str,
    model: Mdl,
    h: f64,
    initial: NodeState<f64, D, M>,
    steps: u32,
) where
    Mdl: Step<f64, GglEm, State = NodeState<f64, D, M>>
        + Step<f64, GglViA, State = NodeState<f64, D, M>>
        + Clone,
{
    let em = format!("{name}_em");
    variants(settings, rows, &em, model.clone(), GglEm, h, initial, steps);
    let via = format!("{name}_via");
    variants(settings, rows, &via, model, GglViA, h, initial, steps);
}

/// The table of every variant, as Markdown, with times relative to `prev_every` of the
/// same model and scheme.
fn print_table(rows: &[Row]) {
    eprintln!();
    eprintln!("| variant | per step | vs prev_every | iterations | factorisations | max Δq |");
    eprintln!("|---|---|---|---|---|---|");
    let mut baseline: Option<f64> = None;
    for row in rows {
        if row.id.ends_with("/prev_every") {
            baseline = row.median_ns;
        }
        let Some(cost) = row.cost else {
            eprintln!("| {} | fails | | | | |", row.id);
            continue;
        };
        let (iterations, factorizations) = cost.per_step();
        let (time, ratio) = match (row.median_ns, baseline) {
            (Some(t), Some(b)) => (format_ns(t), format!("{:.2}", t / b)),
            (Some(t), None) => (format_ns(t), String::new()),
            _ => (String::new(), String::new()),
        };
        eprintln!(
            "| {} | {time} | {ratio} | {iterations:.2} | {factorizations:.2} | {:.0e} |",
            row.id, row.deviation
        );
    }
}

fn format_ns(ns: f64) -> String {
    if ns >= 10_000.0 {
        format!("{:.0} µs", ns / 1000.0)
    } else if ns >= 1000.0 {
        format!("{:.1} µs", ns / 1000.0)
    } else {
        format!("{ns:.0} ns")
    }
}

/// Criterion's defaults, or the short CI profile with `LIVENS_BENCH_QUICK=1`; and
/// whether only to count (`LIVENS_BENCH_COUNT=1`).
fn settings() -> Settings {
    let flag = |name: &str| std::env::var(name).is_ok_and(|v| v == "1");
    let (criterion, samples) = record::config();
    Settings {
        criterion: criterion.configure_from_args(),
        samples,
        count_only: flag("LIVENS_BENCH_COUNT"),
    }
}

fn main() {
    let mut settings = settings();
    let mut rows = Vec::new();
    let (s, r) = (&mut settings, &mut rows);

    let pendulum = Pendulum3d::new();
    let initial = pendulum.initial_state().expect("consistent data");
    both_schemes(
        s,
        r,
        "pendulum",
        pendulum,
        Pendulum3d::DEFAULT_STEP,
        initial,
        RESET,
    );

    let top = LagrangeTop::new();
    let initial = top.initial_state().expect("the data project");
    both_schemes(s, r, "top", top, LagrangeTop::DEFAULT_STEP, initial, RESET);

    let particles = FourParticles::new();
    let (h, initial) = (FourParticles::DEFAULT_STEP, particles.initial_state());
    let initial = initial.expect("consistent data");
    both_schemes(s, r, "four_particles", particles, h, initial, RESET);

    let chain = Chain10::new();
    let initial = chain.initial_state().expect("consistent data");
    // The whole run: the chain falls through the vertical and swings back.
    let steps = (Chain10::DEFAULT_SPAN / Chain10::DEFAULT_STEP).round() as u32;
    both_schemes(
        s,
        r,
        "chain10",
        chain,
        Chain10::DEFAULT_STEP,
        initial,
        steps,
    );

    if !settings.count_only {
        settings.criterion.final_summary();
    }
    print_table(&rows);
}
