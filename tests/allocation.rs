//! The step path allocates nothing: `Integrator::step`, `Diagnostics::of` and
//! `momentum_maps`, for both models × both schemes.
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
use livens_models::{LagrangeTop, Pendulum3d};

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
/// asserting that none of it allocates. The integrator is built outside the region.
fn assert_no_allocation<Mdl, S, const D: usize, const M: usize, const K: usize>(
    label: &str,
    model: Mdl,
    scheme: S,
    h: f64,
    initial: GglState<f64, D, M>,
) where
    Mdl: Step<f64, S, State = GglState<f64, D, M>> + Model<f64, D, M> + MomentumMaps<f64, D, K>,
    S: SchemeInfo,
{
    let mut sim = Integrator::new(model, scheme, h, initial);

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
    assert!(sim.state().t > 0.0, "{label}: the state did not advance");

    // Diagnostics and momentum maps alone, at the advanced state.
    let ((d, j), n) = allocations_in(|| {
        let state = sim.state();
        let d = black_box(Diagnostics::of(sim.model(), black_box(state)));
        let j = black_box(sim.model().momentum_maps(&state.q, &state.p));
        (d, j)
    });
    assert_eq!(
        n, 0,
        "{label}: {n} allocations in Diagnostics::of + momentum_maps"
    );
    assert!(d.hamiltonian.is_finite() && j.iter().all(|x| x.is_finite()));

    // The whole monitoring loop a real-time caller would run.
    let (checksum, n) = allocations_in(|| {
        let mut checksum = 0.0;
        for _ in 0..STEPS {
            if sim.step().is_err() {
                return f64::NAN;
            }
            let state = sim.state();
            let d = Diagnostics::of(sim.model(), state);
            let j = sim.model().momentum_maps(&state.q, &state.p);
            checksum += d.energy + d.position_residual + j.sum();
        }
        black_box(checksum)
    });
    assert!(checksum.is_finite(), "{label}: a step failed");
    assert_eq!(n, 0, "{label}: {n} allocations in step + diagnostics loop");
}

#[test]
fn pendulum_em_allocates_nothing() {
    let model = Pendulum3d::new();
    let initial = model.initial_state().unwrap();
    assert_no_allocation(
        "pendulum/GglEm",
        model,
        GglEm,
        Pendulum3d::DEFAULT_STEP,
        initial,
    );
}

#[test]
fn pendulum_via_allocates_nothing() {
    let model = Pendulum3d::new();
    let initial = model.initial_state().unwrap();
    assert_no_allocation(
        "pendulum/GglViA",
        model,
        GglViA,
        Pendulum3d::DEFAULT_STEP,
        initial,
    );
}

#[test]
fn top_em_allocates_nothing() {
    let model = LagrangeTop::new();
    let initial = model.initial_state().unwrap();
    assert_no_allocation(
        "top/GglEm",
        model,
        GglEm,
        LagrangeTop::DEFAULT_STEP,
        initial,
    );
}

#[test]
fn top_via_allocates_nothing() {
    let model = LagrangeTop::new();
    let initial = model.initial_state().unwrap();
    assert_no_allocation(
        "top/GglViA",
        model,
        GglViA,
        LagrangeTop::DEFAULT_STEP,
        initial,
    );
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
