//! The runtime-assembled Lobatto IIIA–IIIB families with and without the elimination
//! plan of their step Jacobians, in one criterion run: `stages/<model>/s<S>/planned`
//! (the workspace `model!` builds, with the plan it chose: `with_plan`) against
//! `…/dense` (the same step with the family's `lobatto()` workspace, the dense LU with
//! partial pivoting).
//!
//! The models:
//!
//! - `LobattoIIIAIIIB(s)`: ten masses in space joined by springs, each in a quartic
//!   well (30 coordinates; its second derivatives are block tridiagonal), at s = 3 and
//!   5 (90 and 150 stage unknowns), and the Hénon–Heiles system (2 coordinates), whose
//!   stage Jacobian is dense and is not planned;
//! - `HolonomicLobatto(s)`: the spherical pendulum of spec 002 §6 C at s = 4 (19
//!   unknowns, too small to be planned: the same code twice), and the ten-link chain
//!   (`livens_models::Chain10`: 30 coordinates, 10 constraints) at s = 2 and 3 (110
//!   and 150 unknowns), falling from the horizontal;
//! - `NonholonomicLobatto(s)`: the chaotic system of spec 002 §5.3 (7 coordinates, one
//!   constraint) at s = 2 and 3 (30 and 45 unknowns).
//!
//! At the end each pair's medians and ratio are printed. `LIVENS_BENCH_QUICK=1`
//! shortens the run.
use std::hint::black_box;

use criterion::Criterion;
use livens::families::prk::{self, PrkWorkspace};
use livens::families::prk_holonomic::{self, PrkHolonomicWorkspace};
use livens::families::prk_nonholonomic::{self, PrkNonholonomicWorkspace};
use livens::prelude::*;
use livens::solve::Inline;
use livens::{HolonomicKernels, NonholonomicKernels, StepOptions, StepReport};
use livens_models::{Chain10, Chaotic, SphericalPendulum};

#[path = "support/record.rs"]
mod record;
use record::Record;

#[macro_use]
#[path = "support/small_models.rs"]
mod small_models;

springs!(Springs, 10, LobattoIIIAIIIB(3), LobattoIIIAIIIB(5));
henon_heiles!(HenonHeiles, LobattoIIIAIIIB(3));

/// Steps after which each run restarts from its initial state.
const RESET: u32 = 200;

/// Times `step` from `initial` with the workspace `model!` builds (`planned`, factoring
/// along the plan it chose) and with the dense LU's (`dense`), as
/// `stages/<name>/planned` and `…/dense`.
fn pair<W, State: Copy>(
    c: &mut Criterion,
    name: &str,
    [planned, dense]: [W; 2],
    initial: State,
    step: impl Fn(&State, &mut W) -> (State, StepReport<f64>),
) -> [(String, Record); 2] {
    let mut group = c.benchmark_group(format!("stages/{name}"));
    let records = [("planned", planned), ("dense", dense)].map(|(label, mut ws)| {
        let mut record = Record::default();
        let (mut state, mut since_reset) = (initial, 0);
        group.bench_function(label, |b| {
            b.iter_custom(|iters| {
                record.time(iters, || {
                    if since_reset == RESET {
                        state = initial;
                        since_reset = 0;
                    }
                    since_reset += 1;
                    let (next, report) = step(&state, black_box(&mut ws));
                    state = next;
                    report.iterations
                })
            })
        });
        (format!("stages/{name}/{label}"), record)
    });
    group.finish();
    records
}

/// [`pair`] for the unconstrained family, `LobattoIIIAIIIB<S>`.
fn unconstrained<Mdl, const S: usize, const D: usize, const N: usize>(
    c: &mut Criterion,
    name: &str,
    model: Mdl,
    h: f64,
    initial: PhaseState<f64, D>,
) -> [(String, Record); 2]
where
    Mdl: PointKernels<f64, D>
        + Step<f64, LobattoIIIAIIIB<S>, Workspace<Inline> = PrkWorkspace<f64, S, D, N, Inline>>,
{
    let (scheme, options) = (LobattoIIIAIIIB::<S>, StepOptions::default());
    let workspaces = [
        model.workspace::<Inline>(&scheme),
        PrkWorkspace::<f64, S, D, N, Inline>::lobatto(),
    ];
    pair(c, name, workspaces, initial, |state, ws| {
        prk::step(
            &model,
            &scheme,
            StepContext::new(h, state.t),
            state,
            ws,
            &options,
        )
        .expect("a stage step converges")
    })
}

/// [`pair`] for the holonomically constrained family, `HolonomicLobatto<S>`.
fn holonomic<Mdl, const S: usize, const D: usize, const M: usize, const N: usize>(
    c: &mut Criterion,
    name: &str,
    model: Mdl,
    h: f64,
    initial: PhaseState<f64, D>,
) -> [(String, Record); 2]
where
    Mdl: PointKernels<f64, D>
        + HolonomicKernels<f64, D, M>
        + Step<
            f64,
            HolonomicLobatto<S>,
            Workspace<Inline> = PrkHolonomicWorkspace<f64, S, D, M, N, Inline>,
        >,
{
    let (scheme, options) = (HolonomicLobatto::<S>, StepOptions::default());
    let workspaces = [
        model.workspace::<Inline>(&scheme),
        PrkHolonomicWorkspace::<f64, S, D, M, N, Inline>::lobatto(),
    ];
    pair(c, name, workspaces, initial, |state, ws| {
        prk_holonomic::step(
            &model,
            &scheme,
            StepContext::new(h, state.t),
            state,
            ws,
            &options,
        )
        .expect("a constrained step converges")
    })
}

/// [`pair`] for the nonholonomic family, `NonholonomicLobatto<S>`.
fn nonholonomic<Mdl, const S: usize, const D: usize, const K: usize, const N: usize>(
    c: &mut Criterion,
    name: &str,
    model: Mdl,
    h: f64,
    initial: NonholonomicState<f64, D, K>,
) -> [(String, Record); 2]
where
    Mdl: PointKernels<f64, D>
        + NonholonomicKernels<f64, D, K>
        + Step<
            f64,
            NonholonomicLobatto<S>,
            Workspace<Inline> = PrkNonholonomicWorkspace<f64, S, D, K, N, Inline>,
        >,
{
    let (scheme, options) = (NonholonomicLobatto::<S>, StepOptions::default());
    let workspaces = [
        model.workspace::<Inline>(&scheme),
        PrkNonholonomicWorkspace::<f64, S, D, K, N, Inline>::lobatto(),
    ];
    pair(c, name, workspaces, initial, |state, ws| {
        prk_nonholonomic::step(
            &model,
            &scheme,
            StepContext::new(h, state.t),
            state,
            ws,
            &options,
        )
        .expect("a nonholonomic step converges")
    })
}

fn run() {
    let (config, samples) = record::config();
    let mut c = config.configure_from_args();
    let springs = Springs::new();
    let q = SVector::<f64, 30>::from_fn(|i, _| (i / 3) as f64 + 0.2 * (i as f64).sin());
    let v = SVector::<f64, 30>::from_fn(|i, _| 0.3 * (i as f64).cos());
    let springs_initial = PhaseState::from_velocities(&springs, q, v);
    let henon = HenonHeiles::new();
    let henon_initial = PhaseState::from_velocities(
        &henon,
        SVector::from([0.3, -0.2]),
        SVector::from([0.1, 0.4]),
    );
    let chain = Chain10::new();
    let (q, v) = Chain10::initial_positions_velocities();
    let chain_initial = PhaseState::from_velocities(&chain, q, v);
    let h = Chain10::DEFAULT_STEP;
    let sphere = SphericalPendulum::new();
    let (q, v) = SphericalPendulum::initial_positions_velocities();
    let sphere_initial = PhaseState::from_velocities(&sphere, q, v);
    let chaotic = Chaotic::new();
    let node = chaotic.initial_state().expect("the spec's data");
    let chaotic_initial = NonholonomicState::from_velocities(&chaotic, node.q, node.v);
    let pairs = [
        unconstrained::<_, 3, 30, 90>(&mut c, "springs/s3", springs, 0.1, springs_initial),
        unconstrained::<_, 5, 30, 150>(&mut c, "springs/s5", springs, 0.1, springs_initial),
        unconstrained::<_, 3, 2, 6>(&mut c, "henon_heiles/s3", henon, 0.1, henon_initial),
        holonomic::<_, 4, 3, 1, 19>(
            &mut c,
            "spherical_pendulum/s4",
            sphere,
            0.05,
            sphere_initial,
        ),
        holonomic::<_, 2, 30, 10, 110>(&mut c, "chain_holonomic/s2", chain, h, chain_initial),
        holonomic::<_, 3, 30, 10, 150>(&mut c, "chain_holonomic/s3", chain, h, chain_initial),
        nonholonomic::<_, 2, 7, 1, 30>(&mut c, "chaotic/s2", chaotic, 0.1, chaotic_initial),
        nonholonomic::<_, 3, 7, 1, 45>(&mut c, "chaotic/s3", chaotic, 0.1, chaotic_initial),
    ];
    c.final_summary();
    for [(planned_name, planned), (_, dense)] in &pairs {
        if let (Some(p), Some(d)) = (planned.median_ns(samples), dense.median_ns(samples)) {
            eprintln!(
                "{planned_name}: median {:.2} µs per step against {:.2} µs dense ({:.2}×), \
                 mean Newton iterations {:.2} and {:.2}",
                p / 1e3,
                d / 1e3,
                p / d,
                planned.mean_iterations(),
                dense.mean_iterations(),
            );
        }
    }
}

fn main() {
    std::thread::Builder::new()
        .name("stages bench".into())
        .stack_size(8 << 20)
        .spawn(run)
        .expect("a thread")
        .join()
        .expect("the bench thread finished");
}
