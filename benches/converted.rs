//! The converted variational integrator of seed 004 (`livens::families::converted`) with
//! its three iterations in one criterion run: the paper's chord iteration, Newton with
//! the exact Jacobian (the second-order variational equations) and Newton with a
//! finite-difference Jacobian, as `converted/<layer>/<iteration>`, on the central
//! potential with a magnetic term (the spec's P2, two coordinates, `h = 0.1`, from
//! `q = (1, 0)`, `v = (0, 0.7)`). The model's kernels are written by hand, in the file
//! the runtime's tests use: `model!` does not emit them yet.
//!
//! At the end each benchmark's median per step and its mean iterations are printed.
//! `LIVENS_BENCH_QUICK=1` shortens the run.
use std::hint::black_box;

use criterion::Criterion;
use livens::families::converted::node_form::{
    from_segment, step, Bias, Conversion, ConvertedOptions, ConvertedState, Iteration,
};
use livens::families::converted::SecondOrderKernels;
use livens::tableaux::Tableau;
use nalgebra::Vector2;

#[path = "support/record.rs"]
mod record;
use record::Record;

// The runtime tests' hand-written models; this one is P2.
#[allow(dead_code)]
#[path = "../runtime/src/families/converted/test_models.rs"]
mod test_models;
use test_models::Central;

/// Steps after which each run restarts from its initial state.
const RESET: u32 = 200;

fn bench<const S: usize>(
    c: &mut Criterion,
    name: &str,
    scheme: Conversion<S>,
) -> Vec<(String, Record)> {
    let model = Central { epsilon: 0.3 };
    let h = 0.1;
    let initial = from_segment(
        &model,
        &scheme,
        h,
        &Vector2::new(1.0, 0.0),
        &Vector2::new(0.0, 0.7),
    )
    .expect("a first node");
    let mut group = c.benchmark_group(format!("converted/{name}"));
    let mut records = Vec::new();
    for (label, iteration) in [
        ("chord", Iteration::Chord),
        ("newton", Iteration::Newton),
        ("fd_newton", Iteration::FiniteDifferenceNewton),
    ] {
        let options = ConvertedOptions {
            tolerance: 1e-12,
            max_iterations: 100,
            iteration,
        };
        let mut record = Record::default();
        let (mut state, mut since_reset): (ConvertedState<f64, 2>, u32) = (initial, 0);
        group.bench_function(label, |b| {
            b.iter_custom(|iters| {
                record.time(iters, || {
                    if since_reset == RESET {
                        state = initial;
                        since_reset = 0;
                    }
                    since_reset += 1;
                    let (next, iterations) =
                        step(&model, &scheme, black_box(h), &state, &options).expect("converges");
                    state = next;
                    iterations
                })
            })
        });
        records.push((format!("converted/{name}/{label}"), record));
    }
    group.finish();
    records
}

fn main() {
    let (config, samples) = record::config();
    let mut c = config.configure_from_args();
    let mut records = bench(
        &mut c,
        "rk4_forward",
        Conversion {
            tableau: Tableau::rk4(),
            bias: Bias::Forward,
        },
    );
    records.extend(bench(
        &mut c,
        "kutta3_symmetric",
        Conversion {
            tableau: Tableau::kutta3(),
            bias: Bias::Symmetric,
        },
    ));
    c.final_summary();
    for (name, record) in &records {
        if let Some(median) = record.median_ns(samples) {
            eprintln!(
                "{name}: median {:.2} µs per step, mean iterations {:.2}",
                median / 1e3,
                record.mean_iterations()
            );
        }
    }
}
