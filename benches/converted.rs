//! The converted variational integrator of seed 004 (`livens::families::converted`) with
//! its three iterations in one criterion run: the paper's chord iteration, Newton with
//! the exact Jacobian (the second-order variational equations) and Newton with a
//! finite-difference Jacobian, as `converted/<layer>/<iteration>`, on the central
//! potential with a magnetic term (the spec's P2, two coordinates, `h = 0.1`, from
//! `q = (1, 0)`, `v = (0, 0.7)`). The model's kernels are written by hand, in the file
//! the runtime's tests use.
//!
//! Then the catalogue's `Converted(L, B)` through `Integrator::step`, on the kernels
//! `model!` emits for the double pendulum in its angles (`AnglePendulum`, `h = 0.01`
//! from its start): Newton with the exact Jacobian and the paper's chord
//! (`JacobianUpdate::Chord`), as `converted_catalogue/<scheme>/<update>`, with the
//! Lobatto IIIA–IIIB family at `s = 4` on the same model in the same run.
//!
//! At the end each benchmark's median per step and its mean iterations are printed.
//! `LIVENS_BENCH_QUICK=1` shortens the run.
use std::hint::black_box;

use criterion::Criterion;
use livens::families::converted::node_form::{
    from_segment, step, Bias, Conversion, ConvertedOptions, ConvertedState, Iteration,
};
use livens::families::converted::SecondOrderKernels;
use livens::schemes::{Converted, Forward, Kutta3, LobattoIIIAIIIB, Rk4, Symmetric};
use livens::tableaux::Tableau;
use livens::{FromNode, Integrator, JacobianUpdate, NewtonOptions, NodeValues, Step};
use livens_models::AnglePendulum;
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

/// `scheme` on the double pendulum through the integrator, with Newton's Jacobian
/// policy `update`, restarted every [`RESET`] steps.
fn bench_catalogue<S>(c: &mut Criterion, name: &str, scheme: S) -> Vec<(String, Record)>
where
    S: Clone + std::fmt::Debug + 'static,
    AnglePendulum<f64>: Step<f64, S>,
    <AnglePendulum<f64> as Step<f64, S>>::State: NodeValues<f64, 2> + FromNode<f64, 2, 0>,
{
    let model = AnglePendulum::new();
    let initial = FromNode::from_node(&model.initial_state().expect("a consistent start"));
    let mut group = c.benchmark_group(format!("converted_catalogue/{name}"));
    let mut records = Vec::new();
    for (label, jacobian) in [
        ("newton", JacobianUpdate::EveryIteration),
        ("chord", JacobianUpdate::Chord),
    ] {
        let options = NewtonOptions {
            tolerance: 1e-12,
            max_iterations: 100,
            divergence: None,
            jacobian,
        };
        let mut sim = Integrator::new(model, scheme.clone(), 0.01, initial).with_options(options);
        let mut record = Record::default();
        let mut since_reset = 0;
        group.bench_function(label, |b| {
            b.iter_custom(|iters| {
                record.time(iters, || {
                    if since_reset == RESET {
                        sim.set_state(initial);
                        since_reset = 0;
                    }
                    since_reset += 1;
                    sim.step().expect("converges").iterations
                })
            })
        });
        records.push((format!("converted_catalogue/{name}/{label}"), record));
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
    records.extend(bench_catalogue(
        &mut c,
        "rk4_forward",
        Converted::<Rk4, Forward>::default(),
    ));
    records.extend(bench_catalogue(
        &mut c,
        "kutta3_symmetric",
        Converted::<Kutta3, Symmetric>::default(),
    ));
    records.extend(bench_catalogue(&mut c, "lobatto4", LobattoIIIAIIIB::<4>));
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
