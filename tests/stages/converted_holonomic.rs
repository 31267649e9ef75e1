//! The constrained converted schemes (seed 004, Sect. 3; spec `next_packages.md` §C.4) on
//! models `model!` declares: the emitted constraint, curvature and Euler–Lagrange
//! kernels and the constrained acceleration against dual numbers run through the same
//! generic code; P3 (the Cartesian pendulum, `PlanarPendulum` at its defaults) through
//! the catalogue's `ConvertedHolonomic<L, B>` on the shared Newton driver: orders
//! against the pendulum in its angle, the constraints at every node and segment, a
//! failed solve reported with the state kept.
use livens::families::converted::constrained::{Constrained, ConstraintKernels};
use livens::families::converted::{FromKernels, SecondOrderKernels};
use livens::prelude::*;
use livens::schemes::{ConvertedHolonomic, Forward, Kutta3, Rk4, Symmetric};
use livens::{ConvertedState, FromNode, JacobianUpdate, NewtonOptions};
use livens_models::{PlanarPendulum, SphericalPendulum};
use num_dual::Dual64;

use crate::support::pendulum_reference::pendulum_reference;

livens::model! {
    /// A bead on a cubic curve with a configuration-dependent mass, so that every
    /// kernel the constrained layer reads is nontrivial: `D³g ≠ 0` (the curvature
    /// kernel), `∂L_vv/∂q ≠ 0` (the Euler–Lagrange Jacobians).
    pub struct CubicBead {
        params { g = 9.81 }
        coords { x: Scalar, y: Scalar }
        kinetic = 0.5 * (1.0 + 0.2 * y * y) * x_dot * x_dot + 0.5 * y_dot * y_dot;
        potential = g * y;
        holonomic { curve: x * x + y * y + 0.3 * x * x * y - 1.0 }
        schemes { ConvertedHolonomic(Rk4, Forward) }
    }
}

/// A point off the curve and a velocity, away from every symmetry.
fn point() -> (SVector<f64, 2>, SVector<f64, 2>) {
    (SVector::from([0.6, -0.7]), SVector::from([0.9, 0.4]))
}

fn lift(x: &SVector<f64, 2>, dx: &SVector<f64, 2>) -> SVector<Dual64, 2> {
    SVector::from_fn(|i, _| Dual64::new(x[i], dx[i]))
}

fn unit(k: usize) -> SVector<f64, 2> {
    SVector::from_fn(|i, _| if i == k { 1.0 } else { 0.0 })
}

#[test]
fn the_emitted_constraint_kernels_match_dual_numbers() {
    // Each kernel is the derivative of the one before it: G = Dg, ∂(G v)/∂q,
    // ∂(D²g(v, v))/∂q, D²(λᵀg); their ε parts along each coordinate.
    let (real, dual) = (CubicBead::new(), CubicBead::<Dual64>::default());
    let (real, dual) = (FromKernels(&real), FromKernels(&dual));
    let (q, v) = point();
    let v_dual = lift(&v, &SVector::zeros());
    let lambda = SVector::<f64, 1>::new(0.7);
    let lambda_dual = SVector::<Dual64, 1>::new(Dual64::from(0.7));
    let mut worst = [0.0f64; 4];
    for k in 0..2 {
        let q_dual = lift(&q, &unit(k));
        let g = dual.g(&q_dual);
        let g_q = dual.g_q(&q_dual);
        let g_qv = dual.g_qv(&q_dual, &v_dual);
        let curvature = g_qv * v_dual;
        let gaps = [
            (g[0].eps - real.g_q(&q)[(0, k)]).abs(),
            ((g_q * v_dual)[0].eps - real.g_qv(&q, &v)[(0, k)]).abs(),
            (curvature[0].eps - real.curvature_q(&q, &v)[(0, k)]).abs(),
            ((g_q.transpose() * lambda_dual).map(|x| x.eps)
                - real.g_qq_contracted(&q, &lambda).column(k))
            .amax(),
        ];
        for (w, gap) in worst.iter_mut().zip(gaps) {
            *w = w.max(gap);
        }
    }
    assert!(
        worst.iter().all(|&w| w < 1e-13),
        "G, ∂(Gv)/∂q, ∂(D²g(v,v))/∂q, D²(λᵀg): {worst:?}"
    );
    // The curvature kernel is not trivially zero on this model.
    assert!(real.curvature_q(&q, &v).amax() > 0.1);
}

#[test]
fn the_constrained_acceleration_derivatives_match_dual_numbers() {
    // The saddle system's solution A(q, v) run on dual numbers: its ε parts against
    // the constrained layer's A_q, A_v (which read the emitted E_q, E_v, D²(λᵀg),
    // ∂(G v)/∂q and the curvature kernel).
    let (real, dual) = (CubicBead::new(), CubicBead::<Dual64>::default());
    let (real, dual) = (FromKernels(&real), FromKernels(&dual));
    let (real, dual) = (Constrained::<_, 1>(&real), Constrained::<_, 1>(&dual));
    let (q, v) = point();
    let zero = SVector::<f64, 2>::zeros();
    let (a_q, a_v) = real.acceleration_jacobians(&q, &v);
    let mut worst = 0.0f64;
    for k in 0..2 {
        let by_q = dual.acceleration(&lift(&q, &unit(k)), &lift(&v, &zero));
        let by_v = dual.acceleration(&lift(&q, &zero), &lift(&v, &unit(k)));
        for i in 0..2 {
            worst = worst
                .max((by_q[i].eps - a_q[(i, k)]).abs())
                .max((by_v[i].eps - a_v[(i, k)]).abs());
        }
    }
    assert!(worst < 1e-12, "A_q, A_v against dual numbers: {worst}");
}

fn options() -> NewtonOptions<f64> {
    NewtonOptions {
        tolerance: 1e-13,
        max_iterations: 50,
        divergence: None,
        jacobian: JacobianUpdate::EveryIteration,
    }
}

/// P3 over `[0, 1]` by the scheme `S` with step `h`, started from the node: the largest
/// node position error against the angle reference, and the largest `|g|` at the nodes
/// and `|g|`, `|Dg v|` at the segments.
fn p3_run<S>(scheme: S, h: f64) -> (f64, f64)
where
    S: Clone + std::fmt::Debug + 'static,
    PlanarPendulum<f64>: Step<f64, S, State = ConvertedState<f64, 2>>,
{
    let model = PlanarPendulum::new();
    let start = FromNode::from_node(&model.initial_state().expect("consistent"));
    let mut sim = Integrator::new(model, scheme, h, start).with_options(options());
    let (mut node, mut worst, mut constraints) = ((1.0, 0.0), 0.0f64, 0.0f64);
    for _ in 0..(1.0 / h).round() as usize {
        sim.step().expect("converges");
        node = pendulum_reference(node.0, node.1, h);
        let state = *sim.state();
        let exact = SVector::from([node.0.sin(), -node.0.cos()]);
        worst = worst.max((state.x - exact).amax());
        let model = FromKernels(sim.model());
        constraints = constraints
            .max(model.g(&state.x)[0].abs())
            .max(model.g(&state.q)[0].abs())
            .max((model.g_q(&state.q) * state.v)[0].abs());
    }
    (worst, constraints)
}

#[test]
fn p3_orders_and_constraints_through_the_catalogue() {
    let rate = |coarse: f64, fine: f64| (coarse / fine).log2();
    let (c1, g1) = p3_run(ConvertedHolonomic::<Rk4, Forward>::default(), 0.05);
    let (c2, g2) = p3_run(ConvertedHolonomic::<Rk4, Forward>::default(), 0.025);
    let (s1, g3) = p3_run(ConvertedHolonomic::<Kutta3, Symmetric>::default(), 0.05);
    let (s2, g4) = p3_run(ConvertedHolonomic::<Kutta3, Symmetric>::default(), 0.025);
    println!(
        "RK4 forward: {c1:.3e}, {c2:.3e} (order {:.2}); Kutta-3 symmetric: {s1:.3e}, {s2:.3e} (order {:.2}); constraints {:.1e}",
        rate(c1, c2),
        rate(s1, s2),
        g1.max(g2).max(g3).max(g4)
    );
    assert!(
        (rate(c1, c2) - 4.0).abs() < 0.3,
        "RK4 forward: {}",
        rate(c1, c2)
    );
    assert!(
        (rate(s1, s2) - 4.0).abs() < 0.3,
        "Kutta-3 symmetric: {}",
        rate(s1, s2)
    );
    assert!(g1.max(g2).max(g3).max(g4) < 1e-13);
}

#[test]
fn a_failed_solve_is_an_error_and_keeps_the_state() {
    let model = PlanarPendulum::new();
    let start: ConvertedState<f64, 2> =
        FromNode::from_node(&model.initial_state().expect("consistent"));
    let tight = NewtonOptions {
        max_iterations: 1,
        ..options()
    };
    let mut sim = Integrator::new(
        model,
        ConvertedHolonomic::<Rk4, Forward>::default(),
        0.05,
        start,
    )
    .with_options(tight);
    assert!(sim.step().is_err());
    assert_eq!(*sim.state(), start);
}

#[test]
fn the_node_momentum_map_is_conserved_with_constraints() {
    // The spherical pendulum: the rotation about e3 leaves g, L and the standard layer's
    // end maps invariant (a linear action, an explicit tableau), so the node's
    // J₃ = (x × p)·e3 is the discrete Noether quantity (seed 004, Sect. 3); the
    // segment's (q × v)·e3 is not conserved, as the paper warns.
    let model = SphericalPendulum::new();
    let start: ConvertedState<f64, 3> =
        FromNode::from_node(&model.initial_state().expect("consistent"));
    let j = |q: &SVector<f64, 3>, p: &SVector<f64, 3>| q[0] * p[1] - q[1] * p[0];
    let mut sim = Integrator::new(
        model,
        ConvertedHolonomic::<Rk4, Forward>::default(),
        SphericalPendulum::DEFAULT_STEP * 4.0,
        start,
    )
    .with_options(options());
    sim.step().expect("converges");
    let (j0, w0) = (
        j(&sim.state().x, &sim.state().p),
        j(&sim.state().q, &sim.state().v),
    );
    let (mut node_drift, mut segment_drift) = (0.0f64, 0.0f64);
    for _ in 0..200 {
        sim.step().expect("converges");
        let s = sim.state();
        node_drift = node_drift.max((j(&s.x, &s.p) - j0).abs());
        segment_drift = segment_drift.max((j(&s.q, &s.v) - w0).abs());
    }
    println!("J₃ drift over 200 steps: node {node_drift:.1e}, segment {segment_drift:.1e}");
    assert!(node_drift < 1e-13, "node J₃ drifts by {node_drift:e}");
    assert!(
        segment_drift > 1e-7,
        "segment (q × v)·e3 drifts by {segment_drift:e}"
    );
}
