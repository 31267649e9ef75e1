//! The paper's full Stage 4 (seed 004, Fig. 2, (S4.1)–(S4.8); spec `next_packages.md`
//! §C.4): `12N + 5d` equations in every multiplier, hat and projected point at once,
//! solved here by Newton with a difference Jacobian from a guess that knows nothing of
//! the reduced form. The reduced Phase A ([`from_segment`]) and Phase B ([`step`]) of the
//! runtime must reach the same points and momenta: the check that the reduction
//! (eliminating the hats through `Dℙᵀ`, the projected points through `ℙ`) is exact.
use std::println;

use nalgebra::{SMatrix, SVector, Vector2};

use super::constrained::ConstraintKernels;
use super::constrained::{from_segment, project, project_transpose, step, Constrained};
use super::constrained_tests::{on_circle, P3};
use super::node_form::{Bias, Conversion, ConvertedOptions, Iteration};
use super::standard::{flow, Flow};
use crate::tableaux::{Tableau, LAYER_STAGES};

const N: usize = 2;
const D: usize = 1;
/// Stage 4's unknowns and equations: `12N + 5d`.
const X: usize = 12 * N + 5 * D;

/// Stage 4's unknowns by name: the next segment `w₂ = (q₂, v₂)`, the projected points
/// `q₁⁻, q̄, q₂⁺`, the multipliers `λ⁻, λ⁺, μ` and their hats `λ̂⁻, λ̂⁺, μ̂₁, μ̂₂`, the
/// fibre coordinate `θ⁺` and `ν₁⁻, ν₂⁻, ν₁⁺, ν₂⁺`.
#[derive(Clone, Copy, Debug)]
struct Stage4 {
    q2: Vector2<f64>,
    v2: Vector2<f64>,
    q1_minus: Vector2<f64>,
    q_bar: Vector2<f64>,
    q2_plus: Vector2<f64>,
    lambda_minus: Vector2<f64>,
    lambda_plus: Vector2<f64>,
    mu: Vector2<f64>,
    lambda_hat_minus: Vector2<f64>,
    lambda_hat_plus: Vector2<f64>,
    mu_hat1: Vector2<f64>,
    mu_hat2: Vector2<f64>,
    theta_plus: f64,
    nu: [f64; 4],
}

impl Stage4 {
    fn vectors(&self) -> [&Vector2<f64>; 12] {
        [
            &self.q2,
            &self.v2,
            &self.q1_minus,
            &self.q_bar,
            &self.q2_plus,
            &self.lambda_minus,
            &self.lambda_plus,
            &self.mu,
            &self.lambda_hat_minus,
            &self.lambda_hat_plus,
            &self.mu_hat1,
            &self.mu_hat2,
        ]
    }

    fn stacked(&self) -> SVector<f64, X> {
        let mut x = SVector::<f64, X>::zeros();
        for (k, v) in self.vectors().iter().enumerate() {
            x[2 * k] = v[0];
            x[2 * k + 1] = v[1];
        }
        x[24] = self.theta_plus;
        x.as_mut_slice()[25..].copy_from_slice(&self.nu);
        x
    }

    fn of(x: &SVector<f64, X>) -> Self {
        let v = |k: usize| Vector2::new(x[2 * k], x[2 * k + 1]);
        Stage4 {
            q2: v(0),
            v2: v(1),
            q1_minus: v(2),
            q_bar: v(3),
            q2_plus: v(4),
            lambda_minus: v(5),
            lambda_plus: v(6),
            mu: v(7),
            lambda_hat_minus: v(8),
            lambda_hat_plus: v(9),
            mu_hat1: v(10),
            mu_hat2: v(11),
            theta_plus: x[24],
            nu: [x[25], x[26], x[27], x[28]],
        }
    }
}

/// `Dℙ(p)ᵀλ`: the transpose at the projection of `p` (4.7).
fn dp_transpose(p: &Vector2<f64>, lambda: &Vector2<f64>) -> Vector2<f64> {
    let (q, theta) = project(&P3, p).expect("projects");
    project_transpose(&P3, &q, &theta, lambda).expect("solves")
}

/// `ℙ(p)`'s point.
fn projected(p: &Vector2<f64>) -> Vector2<f64> {
    project(&P3, p).expect("projects").0
}

/// (S4.1)–(S4.8) at `x`, given `w₁` and its end maps `(minus1, plus1)`, in the
/// figure's order.
fn residual(
    scheme: &Conversion<LAYER_STAGES>,
    h: f64,
    w1: &(Vector2<f64>, Vector2<f64>),
    ends1: &(Flow<f64, N>, Flow<f64, N>),
    x: &SVector<f64, X>,
) -> SVector<f64, X> {
    let model = &P3;
    let u = Stage4::of(x);
    let [nu1_minus, nu2_minus, nu1_plus, nu2_plus] = u.nu.map(SVector::<f64, D>::new);
    let (q1, v1) = w1;
    let (minus1, plus1) = ends1;
    let layer = Constrained::<_, D>(model);
    let (t_minus, t_plus) = scheme.bias.signed_steps(h);
    let minus2 = flow(&layer, &scheme.tableau, t_minus, &u.q2, &u.v2);
    let plus2 = flow(&layer, &scheme.tableau, t_plus, &u.q2, &u.v2);
    let (g1, g2) = (model.g_q(q1), model.g_q(&u.q2));
    let rows: [Vector2<f64>; 12] = [
        // (S4.1), (S4.2)
        u.q1_minus - projected(&minus1.q),
        u.q_bar - projected(&plus1.q),
        // (S4.3a), (S4.3c)
        minus1.q_q.transpose() * u.lambda_hat_minus
            + g1.transpose() * nu1_minus
            + plus1.q_q.transpose() * u.mu_hat1
            + model.g_qv(q1, v1).transpose() * nu2_minus
            - (plus1.action_q - minus1.action_q),
        u.lambda_hat_minus - dp_transpose(&minus1.q, &u.lambda_minus),
        // (S4.4a), (S4.4c)
        plus1.q_v.transpose() * u.mu_hat1
            + g1.transpose() * nu2_minus
            + minus1.q_v.transpose() * u.lambda_hat_minus
            - (plus1.action_v - minus1.action_v),
        u.mu_hat1 - dp_transpose(&plus1.q, &u.mu),
        // (S4.5a), (S4.5c)
        plus2.q_q.transpose() * u.lambda_hat_plus + g2.transpose() * nu1_plus
            - minus2.q_q.transpose() * u.mu_hat2
            + model.g_qv(&u.q2, &u.v2).transpose() * nu2_plus
            - (plus2.action_q - minus2.action_q),
        u.lambda_hat_plus - dp_transpose(&plus2.q, &u.lambda_plus),
        // (S4.6a), (S4.6c)
        (plus2.action_v - minus2.action_v)
            - g2.transpose() * nu2_plus
            - plus2.q_v.transpose() * u.lambda_hat_plus
            + minus2.q_v.transpose() * u.mu_hat2,
        u.mu_hat2 - dp_transpose(&minus2.q, &u.mu),
        // (S4.7a): ∂̂⁻_h(w₂) = ι(q̄, θ⁺) = q̄ + Dg(q̄)ᵀθ⁺.
        minus2.q - u.q_bar - model.g_q(&u.q_bar).transpose() * u.theta_plus,
        // (S4.8)
        u.q2_plus - projected(&plus2.q),
    ];
    let scalars: [f64; 5] = [
        (model.g_q(&u.q1_minus) * u.lambda_minus)[0], // (S4.3b)
        (model.g_q(&u.q_bar) * u.mu)[0],              // (S4.4b)
        (model.g_q(&u.q2_plus) * u.lambda_plus)[0],   // (S4.5b)
        (g2 * u.v2)[0],                               // (S4.6b)
        model.g(&u.q2)[0],                            // (S4.7b)
    ];
    let mut r = SVector::<f64, X>::zeros();
    for (k, row) in rows.iter().enumerate() {
        r[2 * k] = row[0];
        r[2 * k + 1] = row[1];
    }
    r.as_mut_slice()[24..].copy_from_slice(&scalars);
    r
}

/// Stage 4 by Newton with a central-difference Jacobian from `guess`: the solution and
/// the iterations taken.
fn solve_stage4(
    scheme: &Conversion<LAYER_STAGES>,
    h: f64,
    w1: &(Vector2<f64>, Vector2<f64>),
    guess: Stage4,
) -> (Stage4, usize) {
    let layer = Constrained::<_, D>(&P3);
    let (t_minus, t_plus) = scheme.bias.signed_steps(h);
    let ends1 = (
        flow(&layer, &scheme.tableau, t_minus, &w1.0, &w1.1),
        flow(&layer, &scheme.tableau, t_plus, &w1.0, &w1.1),
    );
    let f = |x: &SVector<f64, X>| residual(scheme, h, w1, &ends1, x);
    let mut x = guess.stacked();
    for iteration in 1..=40 {
        let r = f(&x);
        let mut jac = SMatrix::<f64, X, X>::zeros();
        for j in 0..X {
            let e = 1e-6 * (1.0 + x[j].abs());
            let (mut ahead, mut behind) = (x, x);
            ahead[j] += e;
            behind[j] -= e;
            jac.set_column(j, &((f(&ahead) - f(&behind)) / (2.0 * e)));
        }
        let delta = jac
            .lu()
            .solve(&(-r))
            .expect("Stage 4's Jacobian is regular");
        x += delta;
        if delta.amax() < 1e-14 {
            assert!(f(&x).amax() < 1e-12, "Stage 4 residual {:e}", f(&x).amax());
            return (Stage4::of(&x), iteration);
        }
    }
    panic!("Stage 4 did not converge");
}

#[test]
fn stage4_and_the_reduced_phases_reach_the_same_step() {
    let options = ConvertedOptions {
        tolerance: 1e-14,
        max_iterations: 50,
        iteration: Iteration::FiniteDifferenceNewton,
    };
    let h = 0.05;
    for (tableau, bias) in [
        (Tableau::rk4().padded(), Bias::Forward),
        (Tableau::kutta3().padded(), Bias::Symmetric),
    ] {
        let scheme: Conversion<LAYER_STAGES> = Conversion { tableau, bias };
        // A moving pendulum, so that every block of the system is awake.
        let w1 = on_circle(1.0, 0.7);
        // The reduced form: Phase A gives the node before w₁, two Phase B steps the
        // nodes (q̄, μ) at its end and (q₂⁺, λ⁺) at the end of w₂.
        let start = from_segment::<_, _, N, D, LAYER_STAGES, 6>(&P3, &scheme, h, &w1.0, &w1.1)
            .expect("Phase A");
        let first = step::<_, _, N, D, LAYER_STAGES, 9>(&P3, &scheme, h, &start, &options)
            .expect("Phase B")
            .0;
        let second = step::<_, _, N, D, LAYER_STAGES, 9>(&P3, &scheme, h, &first, &options)
            .expect("Phase B")
            .0;
        // Stage 4 from a guess built from w₁ alone: straight-line points, every
        // momentum L_v(w₁) = v₁, no fibre, no ν.
        let (q1, v1) = w1;
        let (alpha_minus, alpha_plus) = bias.alphas();
        let guess = Stage4 {
            q2: q1 + v1 * h,
            v2: v1,
            q1_minus: q1 + v1 * (alpha_minus * h),
            q_bar: q1 + v1 * (alpha_plus * h),
            q2_plus: q1 + v1 * ((1.0 + alpha_plus) * h),
            lambda_minus: -v1,
            lambda_plus: v1,
            mu: v1,
            lambda_hat_minus: -v1,
            lambda_hat_plus: v1,
            mu_hat1: v1,
            mu_hat2: v1,
            theta_plus: 0.0,
            nu: [0.0; 4],
        };
        let (full, iterations) = solve_stage4(&scheme, h, &w1, guess);
        let gaps = [
            ("w₁ again", (first.q - q1).amax().max((first.v - v1).amax())),
            ("q₁⁻", (full.q1_minus - start.x).amax()),
            ("λ⁻", (full.lambda_minus + start.p).amax()),
            ("q̄", (full.q_bar - first.x).amax()),
            ("μ", (full.mu - first.p).amax()),
            ("q₂", (full.q2 - second.q).amax()),
            ("v₂", (full.v2 - second.v).amax()),
            ("q₂⁺", (full.q2_plus - second.x).amax()),
            ("λ⁺", (full.lambda_plus - second.p).amax()),
        ];
        println!("{bias:?}: Stage 4 ({X} unknowns) in {iterations} Newton iterations");
        for (name, gap) in gaps {
            println!("  {name}: {gap:.1e}");
            assert!(gap < 1e-12, "{bias:?}: {name} differs by {gap:e}");
        }
        // The guess is far from the solution: the agreement is not the guess's.
        assert!((guess.q2 - full.q2).amax() > 1e-4);
    }
}
