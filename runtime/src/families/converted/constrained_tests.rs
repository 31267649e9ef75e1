//! The constrained conversion on the Cartesian pendulum P3 (spec `next_packages.md`
//! §C.5–C.6): the constrained acceleration against the pendulum's closed form and its
//! derivatives against differences, the projection and its transpose against their
//! closed forms on the circle, and Phase B's orders and constraints at every node
//! against an independent reference.
use std::println;

use nalgebra::{SMatrix, SVector, Vector1, Vector2};

use super::constrained::{
    from_segment, project, project_transpose, solve_step, step, Constrained, ConstraintKernels,
};
use super::node_form::{self, Bias, Conversion, ConvertedOptions, Iteration};
use super::test_models::{Pendulum, G as PENDULUM_G};
// The pendulum in its angle by classical RK4 in small steps: the reference, with P1's
// gravity, which is P3's.
use super::tests::pendulum_reference;
use super::SecondOrderKernels;
use crate::solve::{JacobianUpdate, NewtonOptions, Workspace};
use crate::state::ConvertedState;
use crate::tableaux::{Tableau, LAYER_STAGES};

/// Gravity of P3.
const G: f64 = 9.81;

/// P3: a unit mass in the plane, `L = ½|v|² − g y`, on the circle
/// `g(q) = s ½(|q|² − 1) = 0` (`s = 1` in the spec; another `s` describes the same
/// constraint).
pub(super) struct CartesianPendulum {
    scale: f64,
}

pub(super) const P3: CartesianPendulum = CartesianPendulum { scale: 1.0 };

impl SecondOrderKernels<f64, 2> for CartesianPendulum {
    fn lagrangian(&self, q: &Vector2<f64>, v: &Vector2<f64>) -> f64 {
        0.5 * v.norm_squared() - G * q[1]
    }
    fn l_q(&self, _: &Vector2<f64>, _: &Vector2<f64>) -> Vector2<f64> {
        Vector2::new(0.0, -G)
    }
    fn l_v(&self, _: &Vector2<f64>, v: &Vector2<f64>) -> Vector2<f64> {
        *v
    }
    fn l_qq(&self, _: &Vector2<f64>, _: &Vector2<f64>) -> SMatrix<f64, 2, 2> {
        SMatrix::zeros()
    }
    fn l_qv(&self, _: &Vector2<f64>, _: &Vector2<f64>) -> SMatrix<f64, 2, 2> {
        SMatrix::zeros()
    }
    fn l_vv(&self, _: &Vector2<f64>, _: &Vector2<f64>) -> SMatrix<f64, 2, 2> {
        SMatrix::identity()
    }
    // The unconstrained system (free fall), which the constrained layer never reads.
    fn acceleration(&self, _: &Vector2<f64>, _: &Vector2<f64>) -> Vector2<f64> {
        Vector2::new(0.0, -G)
    }
    fn acceleration_jacobians(
        &self,
        _: &Vector2<f64>,
        _: &Vector2<f64>,
    ) -> (SMatrix<f64, 2, 2>, SMatrix<f64, 2, 2>) {
        (SMatrix::zeros(), SMatrix::zeros())
    }
    fn acceleration_second(
        &self,
        _: &Vector2<f64>,
        _: &Vector2<f64>,
        _: &Vector2<f64>,
        _: &Vector2<f64>,
    ) -> (SMatrix<f64, 2, 2>, SMatrix<f64, 2, 2>) {
        (SMatrix::zeros(), SMatrix::zeros())
    }
}

impl ConstraintKernels<f64, 2, 1> for CartesianPendulum {
    fn g(&self, q: &Vector2<f64>) -> Vector1<f64> {
        Vector1::new(self.scale * 0.5 * (q.norm_squared() - 1.0))
    }
    fn g_q(&self, q: &Vector2<f64>) -> SMatrix<f64, 1, 2> {
        q.transpose() * self.scale
    }
    fn g_qq_contracted(&self, _: &Vector2<f64>, lambda: &Vector1<f64>) -> SMatrix<f64, 2, 2> {
        SMatrix::identity() * (self.scale * lambda[0])
    }
    fn g_qv(&self, _: &Vector2<f64>, v: &Vector2<f64>) -> SMatrix<f64, 1, 2> {
        v.transpose() * self.scale
    }
    // D²g(v, v) = |v|², independent of q.
    fn curvature_q(&self, _: &Vector2<f64>, _: &Vector2<f64>) -> SMatrix<f64, 1, 2> {
        SMatrix::zeros()
    }
    // E = a − L_q = a + g e₂.
    fn e_jacobians(
        &self,
        _: &Vector2<f64>,
        _: &Vector2<f64>,
        _: &Vector2<f64>,
    ) -> (SMatrix<f64, 2, 2>, SMatrix<f64, 2, 2>) {
        (SMatrix::zeros(), SMatrix::zeros())
    }
}

/// A point of `TQ`: on the circle at angle `a`, tangent velocity `w`.
pub(super) fn on_circle(a: f64, w: f64) -> (Vector2<f64>, Vector2<f64>) {
    (
        Vector2::new(a.sin(), -a.cos()),
        Vector2::new(a.cos(), a.sin()) * w,
    )
}

#[test]
fn the_constrained_acceleration_is_the_pendulums() {
    // On the circle, A = −g e₂ + λ q with −q·A = |v|²: λ = g q₂ − |v|² (|q| = 1).
    let layer = Constrained::<_, 1>(&P3);
    let (q, v) = on_circle(0.8, 1.3);
    let lambda = G * q[1] - v.norm_squared();
    let expected = Vector2::new(0.0, -G) + q * lambda;
    assert!((layer.acceleration(&q, &v) - expected).amax() < 1e-13);
    assert!((layer.multiplier(&q, &v).unwrap()[0] - lambda).abs() < 1e-13);
    // Its Jacobians against central differences, off the circle too.
    let (q, v) = (Vector2::new(0.7, -0.9), Vector2::new(0.4, 0.6));
    let (a_q, a_v) = layer.acceleration_jacobians(&q, &v);
    let e = 1e-6;
    for k in 0..2 {
        let mut d = Vector2::zeros();
        d[k] = e;
        let by_q =
            (layer.acceleration(&(q + d), &v) - layer.acceleration(&(q - d), &v)) / (2.0 * e);
        let by_v =
            (layer.acceleration(&q, &(v + d)) - layer.acceleration(&q, &(v - d))) / (2.0 * e);
        assert!((by_q - a_q.column(k)).amax() < 1e-8, "A_q column {k}");
        assert!((by_v - a_v.column(k)).amax() < 1e-8, "A_v column {k}");
    }
}

#[test]
fn the_projection_and_its_transpose_on_the_circle() {
    // ℙ(r (cos a, sin a)) = ((cos a, sin a), r − 1): q̂ − q = θ q.
    let model = P3;
    let a: f64 = 0.6;
    let q_hat = Vector2::new(a.cos(), a.sin()) * 1.3;
    let (q, theta) = project(&model, &q_hat).expect("projects");
    assert!((q - Vector2::new(a.cos(), a.sin())).amax() < 1e-15);
    assert!((theta[0] - 0.3).abs() < 1e-14);
    // Dℙᵀ at θ: K = [[(1 + θ) I, q], [qᵀ, 0]]: λ̂ = (I − q qᵀ) λ / (1 + θ).
    let lambda = Vector2::new(0.4, -1.1);
    let hat = project_transpose(&model, &q, &theta, &lambda).expect("solves");
    let expected = (SMatrix::<f64, 2, 2>::identity() - q * q.transpose()) * lambda / 1.3;
    assert!((hat - expected).amax() < 1e-15);
}

/// The largest errors `(w, node x)` of P3 over `[0, 1]` (spec §C.5: from
/// `q₀ = (sin 1, −cos 1)` at rest), started by Phase A from `w₁` the exact state at
/// `−α⁻h`, and the largest `|g|`, `|Dg v|` of the segments and `|g|` of the nodes.
fn p3_run(
    model: &CartesianPendulum,
    scheme: &Conversion<LAYER_STAGES>,
    h: f64,
) -> ([f64; 2], f64, ConvertedState<f64, 2>) {
    let options = ConvertedOptions {
        tolerance: 1e-13,
        max_iterations: 50,
        iteration: Iteration::FiniteDifferenceNewton,
    };
    let (alpha_minus, _) = scheme.bias.alphas();
    let segment_angle = pendulum_reference(1.0, 0.0, -alpha_minus * h);
    let (q, v) = on_circle(segment_angle.0, segment_angle.1);
    let mut state: ConvertedState<f64, 2> =
        from_segment::<_, _, 2, 1, LAYER_STAGES, 6>(model, scheme, h, &q, &v).expect("starts");
    let (mut node, mut segment) = ((1.0, 0.0), segment_angle);
    let (mut worst, mut constraints) = ([0.0f64; 2], 0.0f64);
    for _ in 0..(1.0 / h).round() as usize {
        let x_error = (state.x - on_circle(node.0, node.1).0).amax();
        let next = step::<_, _, 2, 1, LAYER_STAGES, 9>(model, scheme, h, &state, &options)
            .expect("converges")
            .0;
        let (sq, sv) = on_circle(segment.0, segment.1);
        let w_error = (next.q - sq).amax().max((next.v - sv).amax());
        worst = [worst[0].max(w_error), worst[1].max(x_error)];
        constraints = constraints
            .max(model.g(&next.q)[0].abs())
            .max((model.g_q(&next.q) * next.v)[0].abs())
            .max(model.g(&next.x)[0].abs());
        state = next;
        node = pendulum_reference(node.0, node.1, h);
        segment = pendulum_reference(segment.0, segment.1, h);
    }
    (worst, constraints, state)
}

#[test]
fn p3_orders_and_constraints() {
    let cases: [(&str, Conversion<LAYER_STAGES>, [f64; 2], f64); 3] = [
        (
            "RK4 (0, 1)",
            Conversion {
                tableau: Tableau::rk4().padded(),
                bias: Bias::Forward,
            },
            [0.05, 0.025],
            4.0,
        ),
        (
            "Kutta-3 (−½, ½)",
            Conversion {
                tableau: Tableau::kutta3().padded(),
                bias: Bias::Symmetric,
            },
            [0.05, 0.025],
            4.0,
        ),
        (
            "Heun (0, 1)",
            Conversion {
                tableau: Tableau::heun2().padded(),
                bias: Bias::Forward,
            },
            [0.025, 0.0125],
            2.0,
        ),
    ];
    for (name, scheme, hs, expected) in cases {
        let (coarse, c1, _) = p3_run(&P3, &scheme, hs[0]);
        let (fine, c2, _) = p3_run(&P3, &scheme, hs[1]);
        let rate = |k: usize| (coarse[k] / fine[k]).log2() / (hs[0] / hs[1]).log2();
        println!(
            "{name}: w errors {:.3e}, {:.3e} (order {:.2}); node errors {:.3e}, {:.3e} (order {:.2}); constraints {:.1e}",
            coarse[0],
            fine[0],
            rate(0),
            coarse[1],
            fine[1],
            rate(1),
            c1.max(c2)
        );
        assert!(
            (rate(0) - expected).abs() < 0.25,
            "{name}: w order {}",
            rate(0)
        );
        assert!(
            (rate(1) - expected).abs() < 0.25,
            "{name}: node order {}",
            rate(1)
        );
        assert!(c1.max(c2) < 1e-13, "{name}: constraints {}", c1.max(c2));
    }
}

#[test]
fn p3_calibration_and_a_rescaled_constraint() {
    // Spec §C.6: RK4 with the forward bias, w-error 1.39e-4 at h = 0.05 in the
    // prototype. And `2g` describes the same constraint: the same segments and nodes
    // (the multipliers, inside the step, halve).
    let scheme = Conversion {
        tableau: Tableau::rk4().padded(),
        bias: Bias::Forward,
    };
    let (errors, _, once) = p3_run(&P3, &scheme, 0.05);
    assert!(
        (errors[0] - 1.39e-4).abs() <= 0.006 * 1.39e-4,
        "w-error {:e} against the spec's 1.39e-4",
        errors[0]
    );
    let (_, _, twice) = p3_run(&CartesianPendulum { scale: 2.0 }, &scheme, 0.05);
    let gap = [
        (once.x - twice.x).amax(),
        (once.p - twice.p).amax(),
        (once.q - twice.q).amax(),
        (once.v - twice.v).amax(),
    ];
    assert!(gap.iter().all(|&g| g < 1e-12), "{gap:?}");
}

/// P1 seen as a model with no constraints (`d = 0`).
impl ConstraintKernels<f64, 1, 0> for Pendulum {
    fn g(&self, _: &Vector1<f64>) -> SVector<f64, 0> {
        SVector::zeros()
    }
    fn g_q(&self, _: &Vector1<f64>) -> SMatrix<f64, 0, 1> {
        SMatrix::zeros()
    }
    fn g_qq_contracted(&self, _: &Vector1<f64>, _: &SVector<f64, 0>) -> SMatrix<f64, 1, 1> {
        SMatrix::zeros()
    }
    fn g_qv(&self, _: &Vector1<f64>, _: &Vector1<f64>) -> SMatrix<f64, 0, 1> {
        SMatrix::zeros()
    }
    fn curvature_q(&self, _: &Vector1<f64>, _: &Vector1<f64>) -> SMatrix<f64, 0, 1> {
        SMatrix::zeros()
    }
    // E = a − L_q = a + g sin q.
    fn e_jacobians(
        &self,
        q: &Vector1<f64>,
        _: &Vector1<f64>,
        _: &Vector1<f64>,
    ) -> (SMatrix<f64, 1, 1>, SMatrix<f64, 1, 1>) {
        (
            SMatrix::<f64, 1, 1>::new(PENDULUM_G * q[0].cos()),
            SMatrix::zeros(),
        )
    }
}

#[test]
fn without_constraints_the_constrained_path_is_the_unconstrained_one() {
    // d = 0: ℙ and Dℙᵀ are the identity and Phase B is the node form's equations, so
    // both steps reach the same node and segment.
    let options = ConvertedOptions {
        tolerance: 1e-13,
        max_iterations: 50,
        iteration: Iteration::Newton,
    };
    for (tableau, bias) in [
        (Tableau::rk4().padded(), Bias::Forward),
        (Tableau::kutta3().padded(), Bias::Symmetric),
    ] {
        let scheme: Conversion<LAYER_STAGES> = Conversion { tableau, bias };
        let start = ConvertedState {
            t: 0.0,
            x: Vector1::new(1.0),
            p: Vector1::new(0.0),
            q: Vector1::new(1.0),
            v: Vector1::new(0.0),
        };
        let (mut plain, mut constrained) = (start, start);
        for _ in 0..20 {
            plain = node_form::step(&Pendulum, &scheme, 0.1, &plain, &options)
                .expect("converges")
                .0;
            constrained = step::<_, _, 1, 0, LAYER_STAGES, 3>(
                &Pendulum,
                &scheme,
                0.1,
                &constrained,
                &options,
            )
            .expect("converges")
            .0;
            let gap = [
                (plain.x - constrained.x).amax(),
                (plain.p - constrained.p).amax(),
                (plain.q - constrained.q).amax(),
                (plain.v - constrained.v).amax(),
            ];
            assert!(gap.iter().all(|&g| g < 1e-12), "{bias:?}: {gap:?}");
        }
    }
}

/// P3's first `steps` steps from rest by Phase B on the shared driver with the Jacobian
/// policy `jacobian`: the last state and the Newton iterations of each step.
fn p3_driver(
    scheme: &Conversion<LAYER_STAGES>,
    h: f64,
    steps: usize,
    jacobian: JacobianUpdate,
) -> (ConvertedState<f64, 2>, std::vec::Vec<u32>) {
    let options = NewtonOptions {
        tolerance: 1e-14,
        max_iterations: 200,
        divergence: None,
        jacobian,
    };
    let (q, v) = on_circle(1.0, 0.0);
    let mut state = ConvertedState {
        t: 0.0,
        x: q,
        p: v,
        q,
        v,
    };
    let mut ws = Workspace::<f64, 9>::new();
    let mut iterations = std::vec::Vec::new();
    for _ in 0..steps {
        let (next, report) =
            solve_step::<_, _, _, 2, 1, LAYER_STAGES, 9>(&P3, scheme, h, &state, &mut ws, &options)
                .expect("converges");
        iterations.push(report.iterations);
        state = next;
    }
    (state, iterations)
}

#[test]
fn the_papers_chord_reaches_newtons_step_and_contracts_faster_at_smaller_steps() {
    // Phase B by the paper's approximate (S4.5′)–(S4.7′) as a chord matrix, and by
    // Newton with the difference Jacobian: the same nodes and segments to round-off.
    for bias in [Bias::Forward, Bias::Symmetric] {
        let scheme = Conversion {
            tableau: Tableau::rk4().padded(),
            bias,
        };
        let (chord, chord_iterations) = p3_driver(&scheme, 0.05, 20, JacobianUpdate::Chord);
        let (newton, newton_iterations) =
            p3_driver(&scheme, 0.05, 20, JacobianUpdate::EveryIteration);
        let gap = [
            (chord.x - newton.x).amax(),
            (chord.p - newton.p).amax(),
            (chord.q - newton.q).amax(),
            (chord.v - newton.v).amax(),
        ];
        println!(
            "{bias:?}: chord {} iterations, Newton {} over 20 steps; gaps {gap:?}",
            chord_iterations.iter().sum::<u32>(),
            newton_iterations.iter().sum::<u32>()
        );
        assert!(gap.iter().all(|&g| g < 1e-12), "{bias:?}: {gap:?}");
    }
    // The chord's iterations on the first step, whose guess is the same at every h,
    // fall with h: its contraction factor does.
    let scheme = Conversion {
        tableau: Tableau::rk4().padded(),
        bias: Bias::Forward,
    };
    let counts =
        [0.2, 0.1, 0.05, 0.025].map(|h| p3_driver(&scheme, h, 1, JacobianUpdate::Chord).1[0]);
    println!("chord iterations of the first step at h = 0.2, 0.1, 0.05, 0.025: {counts:?}");
    assert!(counts.windows(2).all(|w| w[1] < w[0]), "{counts:?}");
}
