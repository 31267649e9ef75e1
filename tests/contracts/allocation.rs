//! The step path allocates nothing: `Integrator::step`, `Diagnostics::of` and
//! `momentum_maps`, for every scheme the paper's pendulum and top declare (found through
//! `DeclaredSchemes`) and for the assembled Lobatto IIIA–IIIB family, with its
//! workspace inline or boxed.
//!
//! A counting global allocator wraps `System`. Both the on/off flag and the counter are
//! `const`-initialised thread-locals (which never allocate themselves), so the test
//! harness and tests running in parallel on other threads neither disturb nor see the
//! count: a shared counter made this test flaky when another test allocated while
//! counting.
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::hint::black_box;

use livens::prelude::*;
use livens::solve::{Boxed, Inline, Storage};
use livens::{DeclaredSchemes, FromNode, SchemeVisitor};
use livens_models::{
    AnglePendulum, Chain10, FreeBodySo3, HeavyTop, LagrangeTop, MassSpring, ParticleOnTorus,
    Pendulum3d, PlanarPendulum, SphericalPendulum, SpringPendulum, TurntableBall, Unicycle,
};

struct CountingAllocator;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn record() {
    // `try_with`: the allocator may run while this thread's locals are torn down.
    if COUNTING.try_with(Cell::get).unwrap_or(false) {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
    }
}

unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        record();
        System.alloc(layout)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        record();
        System.alloc_zeroed(layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        record();
        System.realloc(ptr, layout, new_size)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
    }
}

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

/// Runs `f` with counting switched on for this thread; returns its result and the
/// number of allocations (`alloc`, `alloc_zeroed`, `realloc`) it made on this thread.
fn allocations_in<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let before = ALLOCATIONS.with(Cell::get);
    COUNTING.with(|c| c.set(true));
    let result = f();
    COUNTING.with(|c| c.set(false));
    let after = ALLOCATIONS.with(Cell::get);
    (result, after - before)
}

/// The counter is not vacuous: it sees allocations on this thread, and only while on.
#[test]
fn counter_counts_allocations() {
    let (v, n) = allocations_in(|| black_box(Vec::<u64>::with_capacity(16)));
    assert!(n >= 1, "a Vec allocation was not counted");
    drop(v);
    let (s, n) = allocations_in(|| black_box(format!("{}", black_box(12_345))));
    assert!(n >= 1, "a String allocation was not counted");
    drop(s);
    let (_, n) = allocations_in(|| black_box(1 + 1));
    assert_eq!(n, 0);
}

const STEPS: usize = 100;

/// Steps `STEPS` times and evaluates diagnostics and momentum maps after every step,
/// asserting that none of it allocates. The integrator (with its workspace in storage
/// `K`) is built outside the region.
fn assert_no_allocation<Mdl, S, K, const D: usize, const M: usize, const P: usize, const Q: usize>(
    label: &str,
    mut sim: Integrator<f64, Mdl, S, K>,
) where
    Mdl: Step<f64, S> + Model<f64, D, M, Q> + MomentumMaps<f64, D, P, Q>,
    Mdl::State: NodeValues<f64, D, Q>,
    K: Storage,
{
    // Stepping alone.
    let (failures, n) = allocations_in(|| {
        let mut failures = 0_usize;
        for _ in 0..STEPS {
            if black_box(sim.step()).is_err() {
                failures += 1;
            }
        }
        failures
    });
    assert_eq!(failures, 0, "{label}: steps failed");
    assert_eq!(
        n, 0,
        "{label}: {n} allocations in {STEPS} calls of Integrator::step"
    );
    assert!(
        sim.state().time() > 0.0,
        "{label}: the state did not advance"
    );

    // Diagnostics and momentum maps alone, at the advanced state.
    let ((d, j), n) = allocations_in(|| {
        let state = sim.state();
        let d = black_box(Diagnostics::of(sim.model(), black_box(state)));
        let j = black_box(
            sim.model()
                .momentum_maps(state.positions(), state.momenta()),
        );
        (d, j)
    });
    assert_eq!(
        n, 0,
        "{label}: {n} allocations in Diagnostics::of + momentum_maps"
    );
    // `energy` (p·v − L with the state's v): a singular mass matrix has no Hamiltonian.
    assert!(d.energy.is_finite() && j.iter().all(|x| x.is_finite()));

    // The whole monitoring loop a real-time caller would run.
    let (checksum, n) = allocations_in(|| {
        let mut checksum = 0.0;
        for _ in 0..STEPS {
            if sim.step().is_err() {
                return f64::NAN;
            }
            let state = sim.state();
            let d = Diagnostics::of(sim.model(), state);
            let j = sim
                .model()
                .momentum_maps(state.positions(), state.momenta());
            checksum += d.energy + d.position_residual + j.sum();
        }
        black_box(checksum)
    });
    assert!(checksum.is_finite(), "{label}: a step failed");
    assert_eq!(n, 0, "{label}: {n} allocations in step + diagnostics loop");
}

/// [`assert_no_allocation`] for every scheme a model declares, from its initial node;
/// `P` is the model's number of momentum maps.
struct EveryScheme<Mdl, const D: usize, const M: usize, const P: usize, const Q: usize> {
    model: Mdl,
    h: f64,
    node: NodeState<f64, D, M, Q>,
    checked: Vec<String>,
}

impl<Mdl, const D: usize, const M: usize, const P: usize, const Q: usize>
    SchemeVisitor<f64, Mdl, D, M, Q> for EveryScheme<Mdl, D, M, P, Q>
where
    Mdl: Model<f64, D, M, Q> + MomentumMaps<f64, D, P, Q> + Clone,
{
    fn visit<S>(&mut self, scheme: S)
    where
        S: SchemeInfo,
        Mdl: Step<f64, S>,
        <Mdl as Step<f64, S>>::State: NodeValues<f64, D, Q> + FromNode<f64, D, M, Q>,
    {
        let label = format!("{}/{}", Mdl::NAME, S::NAME);
        let initial = FromNode::from_node(&self.node);
        let sim = Integrator::new(self.model.clone(), scheme, self.h, initial);
        assert_no_allocation::<_, _, _, D, M, P, Q>(&label, sim);
        self.checked.push(S::NAME.to_owned());
    }
}

/// Every scheme `model` declares; returns their names.
fn every_declared_scheme<Mdl, const D: usize, const M: usize, const P: usize, const Q: usize>(
    model: Mdl,
    h: f64,
    node: NodeState<f64, D, M, Q>,
) -> Vec<String>
where
    Mdl: DeclaredSchemes<f64, D, M, Q> + MomentumMaps<f64, D, P, Q> + Clone,
{
    let mut visitor = EveryScheme::<Mdl, D, M, P, Q> {
        model,
        h,
        node,
        checked: Vec::new(),
    };
    Mdl::visit_schemes(&mut visitor);
    visitor.checked
}

#[test]
fn every_scheme_of_the_pendulum_allocates_nothing() {
    let model = Pendulum3d::new();
    let node = model.initial_state().unwrap();
    let checked = every_declared_scheme(model, Pendulum3d::DEFAULT_STEP, node);
    assert!(checked.iter().any(|s| s == "GglEm"), "{checked:?}");
}

#[test]
fn every_scheme_of_the_spherical_pendulum_allocates_nothing() {
    let model = SphericalPendulum::new();
    let node = model.initial_state().unwrap();
    let checked = every_declared_scheme(model, SphericalPendulum::DEFAULT_STEP, node);
    for scheme in ["HolonomicLobatto", "Rattle", "Shake"] {
        assert!(checked.iter().any(|s| s == scheme), "{scheme}: {checked:?}");
    }
}

/// The discrete gradients of a quartic constraint (Gonzalez in the invariants' space).
#[test]
fn every_scheme_of_the_torus_allocates_nothing() {
    let model = ParticleOnTorus::new();
    let node = model.initial_state().unwrap();
    let checked = every_declared_scheme(model, ParticleOnTorus::DEFAULT_STEP, node);
    for scheme in ["GglEm", "GglEmG", "Eml"] {
        assert!(checked.iter().any(|s| s == scheme), "{scheme}: {checked:?}");
    }
}

#[test]
fn every_scheme_of_the_spring_pendulum_allocates_nothing() {
    let model = SpringPendulum::new();
    let node = model.initial_state().unwrap();
    let checked = every_declared_scheme(model, SpringPendulum::DEFAULT_STEP, node);
    assert!(checked.iter().any(|s| s == "Eml"), "{checked:?}");
    // A singular mass matrix.
    let model = MassSpring::new();
    let node = model.initial_state().unwrap();
    let checked = every_declared_scheme(model, MassSpring::DEFAULT_STEP, node);
    assert!(checked.iter().any(|s| s == "Eml"), "{checked:?}");
    // A quaternion body: a singular, configuration-dependent mass matrix.
    let model = HeavyTop::new();
    let node = model.initial_state().unwrap();
    let checked = every_declared_scheme(model, HeavyTop::DEFAULT_STEP, node);
    for scheme in ["Eml", "Mpl"] {
        assert!(checked.iter().any(|s| s == scheme), "{scheme}: {checked:?}");
    }
}

/// The converted schemes: the standard layer, its second-order variational equations
/// and Newton's 3d × 3d system, all on the stack.
#[test]
fn every_scheme_of_the_angle_pendulum_allocates_nothing() {
    let model = AnglePendulum::new();
    let node = model.initial_state().unwrap();
    let checked = every_declared_scheme(model, AnglePendulum::DEFAULT_STEP, node);
    assert!(checked.iter().any(|s| s == "Converted"), "{checked:?}");
}

/// The constrained converted schemes: Phase B's difference Jacobian and its nested
/// projections, and the Galerkin schemes, on the stack.
#[test]
fn every_scheme_of_the_planar_pendulum_allocates_nothing() {
    let model = PlanarPendulum::new();
    let node = model.initial_state().unwrap();
    let checked = every_declared_scheme(model, PlanarPendulum::DEFAULT_STEP, node);
    for scheme in ["ConvertedHolonomic", "Galerkin"] {
        assert!(checked.iter().any(|s| s == scheme), "{scheme}: {checked:?}");
    }
}

#[test]
fn every_scheme_of_the_top_allocates_nothing() {
    let model = LagrangeTop::new();
    let node = model.initial_state().unwrap();
    let checked = every_declared_scheme(model, LagrangeTop::DEFAULT_STEP, node);
    assert!(checked.iter().any(|s| s == "GglViA"), "{checked:?}");
}

#[macro_use]
#[path = "../../benches/support/small_models.rs"]
mod small_models;

henon_heiles!(HenonHeiles, LobattoIIIAIIIB(3));

// Four masses: a stage Jacobian sparse enough to be factored along its plan.
springs!(Springs, 10, LobattoIIIAIIIB(3));

/// The assembled family, with its workspace inline and on the heap (allocated once, when
/// the integrator is built).
#[test]
fn lobatto_iiia_iiib_allocates_nothing_inline_or_boxed() {
    let model = HenonHeiles::new();
    let (q0, v0) = (SVector::from([0.3, -0.2]), SVector::from([0.1, 0.4]));
    let initial = PhaseState::from_velocities(&model, q0, v0);
    let label = "HenonHeiles/LobattoIIIAIIIB(3)";
    let inline = Integrator::new(model, LobattoIIIAIIIB::<3>, 0.05, initial);
    assert_no_allocation::<_, _, _, 2, 0, 0, 2>(label, inline);
    let boxed: Integrator<f64, _, _, Boxed> =
        Integrator::new_boxed(model, LobattoIIIAIIIB::<3>, 0.05, initial);
    assert_no_allocation::<_, _, _, 2, 0, 0, 2>(&format!("{label}, boxed"), boxed);
}

livens::model! {
    /// The nonholonomic particle (spec 002 §5.1).
    pub struct Particle {
        coords { x: Scalar, y: Scalar, z: Scalar }
        kinetic = 0.5 * (x_dot * x_dot + y_dot * y_dot + z_dot * z_dot);
        potential = 0.5 * (x * x + y * y);
        nonholonomic { phi: z_dot - y * x_dot }
        schemes { NonholonomicLobatto(3) }
    }
}

/// The nonholonomic family, including the first step, which computes `λ₀` from the
/// continuous equations.
#[test]
fn nonholonomic_lobatto_allocates_nothing() {
    let model = Particle::new();
    let (q0, v0) = (
        SVector::from([0.5, 0.3, 0.0]),
        SVector::from([0.2, 0.4, 0.06]),
    );
    let initial = NonholonomicState::from_velocities(&model, q0, v0);
    let sim = Integrator::new(model, NonholonomicLobatto::<3>, 0.05, initial);
    assert_no_allocation::<_, _, _, 3, 0, 0, 3>("Particle/NonholonomicLobatto(3)", sim);
}

/// The assembled families factoring along their plans.
#[test]
fn planned_lobatto_iiia_iiib_allocates_nothing() {
    let model = Springs::new();
    let scheme = LobattoIIIAIIIB::<3>;
    let workspace: livens::families::prk::PrkWorkspace<f64, 3, 30, 90, Inline> =
        model.workspace::<Inline>(&scheme);
    assert!(
        workspace.plan().is_some(),
        "the springs' stages are planned"
    );
    let q0 = SVector::<f64, 30>::from_fn(|i, _| (i / 3) as f64 + 0.2 * (i as f64).sin());
    let v0 = SVector::<f64, 30>::from_fn(|i, _| 0.3 * (i as f64).cos());
    let initial = PhaseState::from_velocities(&model, q0, v0);
    let sim = Integrator::new(model, scheme, 0.1, initial);
    assert_no_allocation::<_, _, _, 30, 0, 0, 30>("Springs/LobattoIIIAIIIB(3)", sim);

    let model = Chain10::new();
    let scheme = HolonomicLobatto::<2>;
    let workspace = model.workspace::<Inline>(&scheme);
    assert!(workspace.plan().is_some(), "the chain's step is planned");
    let (q0, v0) = Chain10::initial_positions_velocities();
    let initial = PhaseState::from_velocities(&model, q0, v0);
    let sim = Integrator::new(model, scheme, Chain10::DEFAULT_STEP, initial);
    assert_no_allocation::<_, _, _, 30, 10, 1, 30>("Chain10/HolonomicLobatto(2)", sim);

    let model = Particle::new();
    let scheme = NonholonomicLobatto::<3>;
    let workspace = model.workspace::<Inline>(&scheme);
    assert!(workspace.plan().is_some(), "the particle's step is planned");
}

/// A failed step (the error path) allocates nothing either.
#[test]
fn failed_step_allocates_nothing() {
    let model = Pendulum3d::new();
    let initial = model.initial_state().unwrap();
    let mut sim = Integrator::new(model, GglEm, Pendulum3d::DEFAULT_STEP, initial).with_options(
        NewtonOptions {
            max_iterations: 1,
            ..NewtonOptions::default()
        },
    );
    let (result, n) = allocations_in(|| black_box(sim.step()));
    assert!(
        result.is_err(),
        "one Newton iteration cannot meet 1e-9: {result:?}"
    );
    assert_eq!(n, 0, "{n} allocations in a failed step");
}

/// The linearised step and the inputs allocate nothing, inline or boxed: `set_inputs`,
/// `linearize`, `step_linearized`, and the LQR design a controller may run where it
/// steps.
#[test]
fn linearize_and_inputs_allocate_nothing() {
    use livens_models::CartPole;
    let model = CartPole::new();
    let (q, v) = (SVector::from([0.1, 0.3]), SVector::from([0.2, -0.1]));
    let start = PhaseState::from_velocities(&model, q, v);
    let mut inline = Integrator::new(model, LobattoIIIAIIIB::<3>, 0.02, start);
    let mut boxed: Integrator<f64, _, _, Boxed> =
        Integrator::new_boxed(model, LobattoIIIAIIIB::<2>, 0.02, start);
    let (lqr, n) = allocations_in(|| {
        inline.set_inputs([1.5]).unwrap();
        boxed.set_inputs([1.5]).unwrap();
        let a = inline.linearize().unwrap();
        let b = boxed.step_linearized().unwrap();
        black_box((inline.step_linearized().unwrap(), b));
        let q = SMatrix::<f64, 4, 4>::identity();
        let r = SMatrix::<f64, 1, 1>::identity();
        livens::control::dlqr(&a.a, &a.b, (&q, &r), 1e-12, 10_000)
    });
    assert!(lqr.is_ok(), "{lqr:?}");
    assert_eq!(n, 0, "linearize, inputs and dlqr allocated {n} times");

    // EML's, from the generated derivatives of its symbolic residual.
    let reject = Consistency::Reject { tolerance: 1e-12 };
    let start = NodeState::consistent(&model, q, v, reject).unwrap();
    let mut inline = Integrator::new(model, Eml, 0.02, start);
    let mut boxed: Integrator<f64, _, _, Boxed> = Integrator::new_boxed(model, Eml, 0.02, start);
    let ((), n) = allocations_in(|| {
        inline.set_inputs([1.5]).unwrap();
        boxed.set_inputs([1.5]).unwrap();
        black_box(inline.linearize().unwrap());
        black_box(boxed.step_linearized().unwrap());
    });
    assert_eq!(n, 0, "EML's linearize allocated {n} times");
}

/// The Lobatto families on a group (SE(2), SO(3), SO(3) × R²): each family and rule
/// once (every scheme of the three models would build 13 steps for no other path), the
/// recomputed multiplier's linear solves included.
#[test]
fn the_families_on_a_group_allocate_nothing() {
    let model = Unicycle::new();
    let node = model.initial_state().expect("consistent");
    let h = Unicycle::DEFAULT_STEP;
    let sim = Integrator::new(
        model,
        NonholonomicLobatto::<3>,
        h,
        FromNode::from_node(&node),
    );
    assert_no_allocation::<_, _, _, 3, 0, 0, 3>("Unicycle/NonholonomicLobatto(3)", sim);
    let scheme = NonholonomicLobattoCarried::<2>;
    let sim = Integrator::new(model, scheme, h, FromNode::from_node(&node));
    assert_no_allocation::<_, _, _, 3, 0, 0, 3>("Unicycle/NonholonomicLobattoCarried(2)", sim);
    let model = TurntableBall::new();
    let node = model.initial_state().expect("consistent");
    let h = TurntableBall::DEFAULT_STEP;
    let sim = Integrator::new(
        model,
        NonholonomicLobatto::<2>,
        h,
        FromNode::from_node(&node),
    );
    assert_no_allocation::<_, _, _, 5, 0, 0, 6>("TurntableBall/NonholonomicLobatto(2)", sim);
    let model = FreeBodySo3::new();
    let node = model.initial_state().expect("finite");
    let h = FreeBodySo3::DEFAULT_STEP;
    let sim = Integrator::new(model, LobattoIIIAIIIB::<3>, h, FromNode::from_node(&node));
    assert_no_allocation::<_, _, _, 3, 0, 0, 4>("FreeBodySo3/LobattoIIIAIIIB(3)", sim);
}
