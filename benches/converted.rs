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
//! Lobatto IIIA–IIIB family at `s = 4` on the same model in the same run; and the
//! constrained `ConvertedHolonomic(Rk4, Forward)` on the Cartesian pendulum P3
//! (`PlanarPendulum`, `h = 0.05`), Newton with its difference Jacobian and the paper's
//! chord, with the Galerkin scheme `(2, 2, Gauss, 2)` on the same model in the same run,
//! as `converted_holonomic/<scheme>/<update>`.
//!
//! At the end each benchmark's median per step and its mean iterations are printed.
//! `LIVENS_BENCH_QUICK=1` shortens the run.
use std::hint::black_box;

use criterion::Criterion;
use livens::families::converted::node_form::{
    from_segment, step, Bias, Conversion, ConvertedOptions, ConvertedState, Iteration,
};
use livens::families::converted::SecondOrderKernels;
use livens::schemes::{
    Converted, ConvertedHolonomic, Forward, Galerkin, Gauss, Kutta3, LobattoIIIAIIIB, Rk4,
    Symmetric,
};
use livens::tableaux::Tableau;
use livens::{FromNode, Integrator, JacobianUpdate, NewtonOptions, NodeValues, Step};
use livens_models::{AnglePendulum, PlanarPendulum};
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

/// `scheme` on `model` from `initial` with step `h` through the integrator, with
/// Newton's Jacobian policies `EveryIteration` and `Chord`, restarted every [`RESET`]
/// steps, as `<group>/<name>/<update>`.
#[allow(clippy::too_many_arguments)]
fn bench_catalogue<Mdl, S, const D: usize, const M: usize>(
    c: &mut Criterion,
    group_name: &str,
    model: Mdl,
    initial: <Mdl as Step<f64, S>>::State,
    h: f64,
    name: &str,
    scheme: S,
) -> Vec<(String, Record)>
where
    S: Clone + std::fmt::Debug + 'static,
    Mdl: Step<f64, S> + Copy,
    <Mdl as Step<f64, S>>::State: NodeValues<f64, D> + Copy,
{
    let mut group = c.benchmark_group(format!("{group_name}/{name}"));
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
        let mut sim = Integrator::new(model, scheme.clone(), h, initial).with_options(options);
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
        records.push((format!("{group_name}/{name}/{label}"), record));
    }
    group.finish();
    records
}

/// [`bench_catalogue`] on the double pendulum from its start, `h = 0.01`.
fn double_pendulum<S>(c: &mut Criterion, name: &str, scheme: S) -> Vec<(String, Record)>
where
    S: Clone + std::fmt::Debug + 'static,
    AnglePendulum<f64>: Step<f64, S>,
    <AnglePendulum<f64> as Step<f64, S>>::State: NodeValues<f64, 2> + FromNode<f64, 2, 0> + Copy,
{
    let model = AnglePendulum::new();
    let initial = FromNode::from_node(&model.initial_state().expect("a consistent start"));
    bench_catalogue::<_, _, 2, 0>(c, "converted_catalogue", model, initial, 0.01, name, scheme)
}

/// [`bench_catalogue`] on P3, the Cartesian pendulum (`PlanarPendulum`), from its start,
/// `h = 0.05`.
fn cartesian_pendulum<S>(c: &mut Criterion, name: &str, scheme: S) -> Vec<(String, Record)>
where
    S: Clone + std::fmt::Debug + 'static,
    PlanarPendulum<f64>: Step<f64, S>,
    <PlanarPendulum<f64> as Step<f64, S>>::State: NodeValues<f64, 2> + FromNode<f64, 2, 1> + Copy,
{
    let model = PlanarPendulum::new();
    let initial = FromNode::from_node(&model.initial_state().expect("a consistent start"));
    bench_catalogue::<_, _, 2, 1>(c, "converted_holonomic", model, initial, 0.05, name, scheme)
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
    records.extend(double_pendulum(
        &mut c,
        "rk4_forward",
        Converted::<Rk4, Forward>::default(),
    ));
    records.extend(double_pendulum(
        &mut c,
        "kutta3_symmetric",
        Converted::<Kutta3, Symmetric>::default(),
    ));
    records.extend(double_pendulum(&mut c, "lobatto4", LobattoIIIAIIIB::<4>));
    records.extend(cartesian_pendulum(
        &mut c,
        "rk4_forward",
        ConvertedHolonomic::<Rk4, Forward>::default(),
    ));
    records.extend(cartesian_pendulum(
        &mut c,
        "galerkin_2_2_gauss_2",
        Galerkin::<2, 2, Gauss, 2>::default(),
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
