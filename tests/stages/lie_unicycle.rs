//! The nonholonomic Lobatto family on SE(2) (`families::prk_lie_nonholonomic`, scheme S7
//! of the nonholonomic paper, App. F): the vertical disc (unicycle) on a spring of its
//! Sec. 7.4, with the data of spec `next_packages.md` §A.6 (M-A1).
//!
//! - Its assembled Jacobian against dual numbers, on a skewed variant whose constraint
//!   matrix and affine term depend on the configuration, so that every kernel enters.
//! - Orders against a closed-form reference (below): the paper's carried multiplier gives
//!   `g`, `μ` of order `2s − 2` and `λ` of order `s` (even `s`) or `s − 1` (odd `s`), the
//!   spec's calibration errors at `s = 3, 4`, and `|η₂|` at round-off at every node;
//!   starting it from `λ₀ = 0` instead of the consistent value lowers the orders; the
//!   recomputed multiplier, the default, keeps `2s − 2` for `g` and `μ`.
//! - The same system in `(x, y, θ)` coordinates under the vector family, either rule (a
//!   second route), converges to the same reference with the same orders, and the group
//!   family on that flat model is the vector family's step.
//!
//! The reference: with `v₂ = 0` the heading turns uniformly, `θ = θ₀ + ω t`, and the
//! centre seen along and across the heading, `s = c · e(θ)` and `r = c · e⊥(θ)`, with
//! the forward speed `v₁`, obey the constant linear system `ṡ = v₁ + ω r`, `ṙ = −ω s`,
//! `m v̇₁ = −k s`, solved by its matrix exponential; the multiplier is
//! `λ = m ω v₁ + k r`.
use crate::lie_lobatto::uniform;
use crate::lie_planar::PlanarBody;
use livens::families::prk_lie_nonholonomic::{self, Buffers, MultiplierRule};
use livens::families::prk_lie_nonholonomic::{Carried, Recomputed};
use livens::families::prk_nonholonomic;
use livens::families::stages::{StageEquations, StageWorkspace};
use livens::prelude::*;
use livens::solve::Inline;
use livens::space::Se2;
use livens::tableaux::PartitionedTableau;
use livens::{Configuration, NonholonomicKernels, PointKernels, Real, StepContext, StepOptions};
use num_dual::Dual64;

/// The planar body of `lie_planar` with the rolling constraint `A(g) η + a(g) = 0`,
/// `A = (σx, 1, σθ)`, `a = σy`: `σ = 0` is the unicycle (`η₂ = 0`), `σ ≠ 0` a variant
/// whose every constraint kernel is nonzero, for the Jacobian check.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Unicycle<T> {
    body: PlanarBody<T>,
    skew: T,
}

impl<T: Real> Unicycle<T> {
    pub(crate) fn new(skew: f64) -> Self {
        Self {
            body: PlanarBody::new(),
            skew: T::from_subset(&skew),
        }
    }
}

impl<T: Real> Configuration<T, 3, 3> for Unicycle<T> {
    type Space = Se2;
    type Inputs = [T; 0];
}

impl<T: Real> PointKernels<T, 3, 3> for Unicycle<T> {
    fn l_q(&self, g: &SVector<T, 3>, eta: &SVector<T, 3>) -> SVector<T, 3> {
        self.body.l_q(g, eta)
    }
    fn l_v(&self, g: &SVector<T, 3>, eta: &SVector<T, 3>) -> SVector<T, 3> {
        self.body.l_v(g, eta)
    }
    fn l_qq(&self, g: &SVector<T, 3>, eta: &SVector<T, 3>, out: &mut [[T; 3]; 3]) {
        self.body.l_qq(g, eta, out)
    }
    fn l_qv(&self, g: &SVector<T, 3>, eta: &SVector<T, 3>, out: &mut [[T; 3]; 3]) {
        self.body.l_qv(g, eta, out)
    }
    fn l_vv(&self, g: &SVector<T, 3>, eta: &SVector<T, 3>, out: &mut [[T; 3]; 3]) {
        self.body.l_vv(g, eta, out)
    }
}

/// The left-trivialised derivatives multiply the storage gradients by
/// `Lg(g) = diag(R(θ), 1)`: a row `(p, q, r)` over `(x, y, θ)` becomes
/// `(p cos θ + q sin θ, −p sin θ + q cos θ, r)`.
impl<T: Real> NonholonomicKernels<T, 3, 1, 3> for Unicycle<T> {
    fn a(&self, g: &SVector<T, 3>, out: &mut [[T; 1]; 3]) {
        *out = [[self.skew * g[0]], [T::one()], [self.skew * g[2]]];
    }
    fn a_t_lambda_q(&self, g: &SVector<T, 3>, lambda: &SVector<T, 1>, out: &mut [[T; 3]; 3]) {
        // Rows of ∂_s(Aᵀλ): (σλ, 0, 0), 0, (0, 0, σλ); times Lg.
        let (s, c) = g[2].sin_cos();
        let sl = self.skew * lambda[0];
        let zero = T::zero();
        *out = [
            [sl * c, zero, zero],
            [-sl * s, zero, zero],
            [zero, zero, sl],
        ];
    }
    fn a_v_q(&self, g: &SVector<T, 3>, eta: &SVector<T, 3>, out: &mut [[T; 1]; 3]) {
        // ∂_s(A η + a) = (σ η₁, σ, σ η₃); times Lg.
        let (s, c) = g[2].sin_cos();
        let (p, q) = (self.skew * eta[0], self.skew);
        *out = [[p * c + q * s], [-p * s + q * c], [self.skew * eta[2]]];
    }
    fn affine(&self, g: &SVector<T, 3>) -> SVector<T, 1> {
        SVector::from([self.skew * g[1]])
    }
}

livens::model! {
    /// The unicycle in `(x, y, θ)`: the same Lagrangian, the constraint
    /// `Φ = ẏ cos θ − ẋ sin θ = 0` (the body velocity's `η₂`).
    pub struct FlatUnicycle {
        coords { x: Scalar, y: Scalar, theta: Scalar }
        kinetic = 0.5 * (x_dot * x_dot + y_dot * y_dot) + 0.25 * theta_dot * theta_dot;
        potential = 0.5 * (x * x + y * y);
        nonholonomic { roll: cos(theta) * y_dot - sin(theta) * x_dot }
        // Stepped through the families' drivers: no scheme's `Step` impl is needed.
        schemes { NonholonomicLobatto(2) }
    }
}

/// Spec §A.6: `m = 1`, `I = 0.5`, `k = 1`, `g₀ = (1, 0, 0.3)`, `η₀ = (0.5, 0, 0.7)`.
const G0: [f64; 3] = [1.0, 0.0, 0.3];
const ETA0: [f64; 3] = [0.5, 0.0, 0.7];
const T_END: f64 = 2.0;

type State = NonholonomicState<f64, 3, 1, 3>;

fn options() -> StepOptions<f64> {
    let mut options = StepOptions::default();
    options.newton.tolerance = 1e-14;
    options
}

/// The exact `(g, μ, λ)` at `t` (module docs).
fn exact(t: f64) -> (SVector<f64, 3>, SVector<f64, 3>, f64) {
    let body = PlanarBody::<f64>::new();
    let w = ETA0[2];
    let (s0, c0) = G0[2].sin_cos();
    let y0 = SVector::<f64, 3>::from([c0 * G0[0] + s0 * G0[1], -s0 * G0[0] + c0 * G0[1], ETA0[0]]);
    // ẏ = A y, y = (s, r, v₁); exp(A t) by its Taylor series (|A t| < 3: 60 terms
    // reach round-off).
    let a = nalgebra::Matrix3::new(0.0, w, 1.0, -w, 0.0, 0.0, -body.k / body.m, 0.0, 0.0) * t;
    let (mut term, mut y) = (y0, y0);
    for n in 1..60 {
        term = a * term / n as f64;
        y += term;
    }
    let theta = G0[2] + w * t;
    let (s, c) = theta.sin_cos();
    let g = SVector::from([y[0] * c - y[1] * s, y[0] * s + y[1] * c, theta]);
    let mu = SVector::from([body.m * y[2], 0.0, body.i * w]);
    (g, mu, body.m * w * y[2] + body.k * y[1])
}

/// The Frobenius norm of the difference of two SE(2) elements as 3 × 3 matrices (the
/// spec's `|Δg|`).
fn frobenius(a: &SVector<f64, 3>, b: &SVector<f64, 3>) -> f64 {
    let (d_cos, d_sin) = (a[2].cos() - b[2].cos(), a[2].sin() - b[2].sin());
    (2.0 * d_cos * d_cos + 2.0 * d_sin * d_sin + (a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2))
        .sqrt()
}

/// The errors at `T_END` after `steps` steps of the group family with rule `R`, from
/// `λ₀` (`None`: the consistent one): `|Δg|` (Frobenius), `|Δμ|`, `|Δλ|`, and the
/// largest `|η₂|` at the nodes.
fn errors<R, const S: usize, const N: usize>(steps: usize, lambda0: Option<f64>) -> [f64; 4]
where
    R: MultiplierRule,
    R::Scheme<S>: Default,
    Buffers<f64, 3, 1, 3, R>: StageEquations<
        f64,
        Unicycle<f64>,
        S,
        3,
        N,
        3,
        Scheme = R::Scheme<S>,
        State = State,
        Coefficients = PartitionedTableau<S>,
    >,
{
    let model = Unicycle::<f64>::new(0.0);
    let h = T_END / steps as f64;
    let mut ws: StageWorkspace<f64, Buffers<f64, 3, 1, 3, R>, S, N, Inline> =
        StageWorkspace::lobatto();
    let mut state = State::from_velocities(&model, G0.into(), ETA0.into());
    state.lambda = lambda0.map(|l| SVector::from([l]));
    let mut eta2: f64 = 0.0;
    for _ in 0..steps {
        let context = StepContext::new(h, state.t);
        let scheme = R::Scheme::<S>::default();
        state = prk_lie_nonholonomic::step(&model, &scheme, context, &state, &mut ws, &options())
            .expect("converges")
            .0;
        eta2 = eta2.max(state.v[1].abs());
    }
    let (g, mu, lambda) = exact(T_END);
    let lambda_n = state.lambda.expect("a step sets λ")[0];
    [
        frobenius(&g, &state.q),
        (state.p - mu).norm(),
        (lambda_n - lambda).abs(),
        eta2,
    ]
}

/// The rows of errors, each entry in `e` notation.
fn show(e: &[[f64; 4]]) -> String {
    let rows: Vec<String> = e
        .iter()
        .map(|row| {
            format!(
                "[{:.3e}, {:.3e}, {:.3e}, {:.1e}]",
                row[0], row[1], row[2], row[3]
            )
        })
        .collect();
    rows.join(", ")
}

/// `log₂` of successive error ratios of each of the first three errors.
fn orders(e: &[[f64; 4]]) -> [Vec<f64>; 3] {
    core::array::from_fn(|k| e.windows(2).map(|w| (w[0][k] / w[1][k]).log2()).collect())
}

fn assert_orders(label: &str, got: &[f64], expected: usize) {
    for o in got {
        assert!(
            (o - expected as f64).abs() <= 0.3,
            "{label}: orders {got:.2?}, expected {expected}"
        );
    }
}

/// The paper's map: `g`, `μ` of order `2s − 2`, `λ` of order `s` or `s − 1`.
fn carried_sweep<const S: usize, const N: usize>(steps: &[usize]) -> Vec<[f64; 4]> {
    let e: Vec<_> = steps
        .iter()
        .map(|&n| errors::<Carried, S, N>(n, None))
        .collect();
    let [g, mu, lambda] = orders(&e);
    println!(
        "unicycle, carried λ, s = {S}, steps {steps:?}: errors {}",
        show(&e)
    );
    println!("  orders g {g:.2?}, μ {mu:.2?}, λ {lambda:.2?}");
    assert_orders("g", &g, 2 * S - 2);
    assert_orders("μ", &mu, 2 * S - 2);
    assert_orders("λ", &lambda, if S % 2 == 0 { S } else { S - 1 });
    for row in &e {
        assert!(row[3] <= 1e-15, "|η₂| = {:e}", row[3]);
    }
    e
}

/// The largest relative difference between the Jacobian `equations` assembles at `x`
/// and the dual-number derivatives of the residual `dual` evaluates (column by column,
/// `jac[j·N + i] = ∂Rᵢ/∂xⱼ`); both residuals agree to round-off.
pub(crate) fn equations_defect<const N: usize>(
    x: &SVector<f64, N>,
    mut equations: impl FnMut(&[f64], &mut [f64], &mut [f64]),
    mut dual: impl FnMut(&[Dual64], &mut [Dual64], &mut [Dual64]),
) -> f64 {
    let (mut r, mut jac) = (vec![0.0; N], vec![0.0; N * N]);
    equations(x.as_slice(), &mut r, &mut jac);
    let zero = Dual64::from_re(0.0);
    let (mut rd, mut jd) = (vec![zero; N], vec![zero; N * N]);
    let mut worst: f64 = 0.0;
    for j in 0..N {
        let mut xd: Vec<Dual64> = x.iter().map(|&v| Dual64::from_re(v)).collect();
        xd[j].eps = 1.0;
        dual(&xd, &mut rd, &mut jd);
        for i in 0..N {
            assert!((rd[i].re - r[i]).abs() <= 1e-14 * (1.0 + r[i].abs()));
            let entry = jac[j * N + i];
            worst = worst.max((entry - rd[i].eps).abs() / entry.abs().max(1.0));
        }
    }
    worst
}

/// The state in dual numbers (no derivative part).
pub(crate) fn to_dual<const D: usize, const K: usize, const Q: usize>(
    state: &NonholonomicState<f64, D, K, Q>,
) -> NonholonomicState<Dual64, D, K, Q> {
    NonholonomicState {
        t: Dual64::from_re(state.t),
        q: state.q.map(Dual64::from_re),
        p: state.p.map(Dual64::from_re),
        v: state.v.map(Dual64::from_re),
        lambda: state.lambda.map(|l| l.map(Dual64::from_re)),
    }
}

#[test]
fn unicycle_jacobian_is_exact() {
    let mut u = uniform(32);
    let (model, dual) = (Unicycle::<f64>::new(0.3), Unicycle::<Dual64>::new(0.3));
    let mut ws: StageWorkspace<f64, Buffers<f64, 3, 1, 3, Carried>, 3, 21, Inline> =
        StageWorkspace::lobatto();
    let mut dws: StageWorkspace<Dual64, Buffers<Dual64, 3, 1, 3, Carried>, 3, 21, Inline> =
        StageWorkspace::lobatto();
    let scheme = NonholonomicLobattoCarried::<3>;
    let mut worst: f64 = 0.0;
    for _ in 0..30 {
        let state = State {
            t: 0.3 * u(),
            q: SVector::from([u(), u(), 4.0 * u()]),
            p: SVector::from_fn(|_, _| 2.0 * u()),
            v: SVector::from_fn(|_, _| 2.0 * u()),
            lambda: Some(SVector::from([u()])),
        };
        let x = SVector::<f64, 21>::from_fn(|_, _| 2.0 * u());
        let h = 0.1 + 0.2 * u().abs();
        let dstate = to_dual(&state);
        let context = StepContext::new(h, state.t);
        let dual_context = StepContext::new(Dual64::from_re(h), dstate.t);
        worst = worst.max(equations_defect(
            &x,
            |x, r, jac| {
                prk_lie_nonholonomic::equations(
                    &model, &scheme, context, &state, &mut ws, x, r, jac,
                )
                .expect("sizes")
            },
            |x, r, jac| {
                prk_lie_nonholonomic::equations(
                    &dual,
                    &scheme,
                    dual_context,
                    &dstate,
                    &mut dws,
                    x,
                    r,
                    jac,
                )
                .expect("sizes")
            },
        ));
    }
    println!("skewed unicycle: assembled Jacobian against dual numbers: {worst:.2e}");
    assert!(worst <= 1e-13, "{worst:e}");
}

#[test]
fn unicycle_reaches_the_papers_orders_with_the_carried_multiplier() {
    carried_sweep::<2, 14>(&[16, 32, 64, 128]);
    let e3 = carried_sweep::<3, 21>(&[8, 16, 32, 64]);
    let e4 = carried_sweep::<4, 28>(&[8, 16, 32]);
    // Spec §A.7's calibration, from the prototype of the same equations: at s = 3,
    // N = 64, |Δg| = 8.40e-9 and |Δλ| = 1.00e-4; at s = 4, N = 32, 1.58e-11 and 1.41e-7.
    let near = |got: f64, spec: f64| (got / spec - 1.0).abs() <= 0.02;
    assert!(
        near(e3[3][0], 8.40e-9) && near(e3[3][2], 1.00e-4),
        "{}",
        show(&e3[3..])
    );
    assert!(
        near(e4[2][0], 1.58e-11) && near(e4[2][2], 1.41e-7),
        "{}",
        show(&e4[2..])
    );
}

/// Starting the paper's map from `λ₀ = 0` instead of the consistent multiplier costs
/// orders (spec §A.5; the vector family loses them the same way).
#[test]
fn unicycle_loses_orders_from_a_zero_first_multiplier() {
    for (steps, consistent, zero) in [16, 32, 64].map(|n| {
        (
            n,
            errors::<Carried, 3, 21>(n, None)[0],
            errors::<Carried, 3, 21>(n, Some(0.0))[0],
        )
    }) {
        println!("s = 3, {steps} steps: |Δg| {consistent:.3e} consistent λ₀, {zero:.3e} λ₀ = 0");
    }
    let e: Vec<_> = [16, 32, 64]
        .iter()
        .map(|&n| errors::<Carried, 3, 21>(n, Some(0.0)))
        .collect();
    let [g, ..] = orders(&e);
    println!("s = 3 from λ₀ = 0: orders of g {g:.2?}");
    assert!(g.iter().all(|o| *o < 3.0), "orders of g from λ₀ = 0: {g:?}");
}

#[test]
fn unicycle_keeps_its_orders_with_the_recomputed_multiplier() {
    fn sweep<const S: usize, const N: usize>(steps: &[usize]) {
        let e: Vec<_> = steps
            .iter()
            .map(|&n| errors::<Recomputed, S, N>(n, None))
            .collect();
        let [g, mu, lambda] = orders(&e);
        println!("unicycle, recomputed λ, s = {S}: errors {}", show(&e));
        println!("  orders g {g:.2?}, μ {mu:.2?}, λ {lambda:.2?}");
        assert_orders("g", &g, 2 * S - 2);
        assert_orders("μ", &mu, 2 * S - 2);
        // λ, a function of (g, η) at the node, has at least their order (at s = 4 more
        // on these steps, until round-off: 2.2e-9, 4.7e-12, 1.3e-13).
        for (o, pair) in lambda.iter().zip(e.windows(2)) {
            let resolved = pair[1][2] > 1e-11;
            assert!(
                !resolved || *o >= (2 * S - 2) as f64 - 0.3,
                "λ: orders {lambda:.2?}"
            );
        }
        for row in &e {
            assert!(row[3] <= 1e-15, "|η₂| = {:e}", row[3]);
        }
    }
    sweep::<2, 14>(&[16, 32, 64]);
    // Its μ and λ are pre-asymptotic below 32 steps (orders 3.65 from 16 to 32).
    sweep::<3, 21>(&[32, 64, 128]);
    sweep::<4, 28>(&[8, 16, 32]);
}

/// The twin in `(x, y, θ)` under the vector family with rule `R`: its errors against the
/// same reference, with `μ` the body momentum `(R(θ)ᵀ p_xy, p_θ)`, and `λ` the same
/// multiplier (`Φ` is `η₂`).
fn twin_errors<R, const S: usize, const N: usize>(steps: usize) -> [f64; 4]
where
    R: MultiplierRule,
    R::Scheme<S>: Default,
    prk_nonholonomic::Buffers<f64, 3, 1, Inline, R>: StageEquations<
        f64,
        FlatUnicycle<f64>,
        S,
        3,
        N,
        Scheme = R::Scheme<S>,
        State = NonholonomicState<f64, 3, 1>,
        Coefficients = PartitionedTableau<S>,
    >,
{
    let model = FlatUnicycle::new();
    let (s0, c0) = G0[2].sin_cos();
    let v0 = SVector::from([
        c0 * ETA0[0] - s0 * ETA0[1],
        s0 * ETA0[0] + c0 * ETA0[1],
        ETA0[2],
    ]);
    let mut st = NonholonomicState::from_velocities(&model, G0.into(), v0);
    let h = T_END / steps as f64;
    let mut ws: StageWorkspace<f64, prk_nonholonomic::Buffers<f64, 3, 1, Inline, R>, S, N, Inline> =
        StageWorkspace::lobatto();
    let scheme = R::Scheme::<S>::default();
    let mut phi: f64 = 0.0;
    for _ in 0..steps {
        let context = StepContext::new(h, st.t);
        st = prk_nonholonomic::step(&model, &scheme, context, &st, &mut ws, &options())
            .expect("converges")
            .0;
        phi = phi.max((st.q[2].cos() * st.v[1] - st.q[2].sin() * st.v[0]).abs());
    }
    let (s, c) = st.q[2].sin_cos();
    let mu = SVector::from([
        c * st.p[0] + s * st.p[1],
        -s * st.p[0] + c * st.p[1],
        st.p[2],
    ]);
    let (g, mu_ref, lambda) = exact(T_END);
    [
        frobenius(&g, &st.q),
        (mu - mu_ref).norm(),
        (st.lambda.expect("a step sets λ")[0] - lambda).abs(),
        phi,
    ]
}

/// The second route of spec §A.6: the same system in `R³` coordinates, under the vector
/// family with either rule, converges to the same reference with the same orders as the
/// group family (`λ` of order `s − s % 2` carried, at least `2s − 2` recomputed).
#[test]
fn unicycle_in_flat_coordinates_converges_to_the_same_reference() {
    fn sweep<R: MultiplierRule, const S: usize, const N: usize>(label: &str, steps: &[usize])
    where
        R::Scheme<S>: Default,
        prk_nonholonomic::Buffers<f64, 3, 1, Inline, R>: StageEquations<
            f64,
            FlatUnicycle<f64>,
            S,
            3,
            N,
            Scheme = R::Scheme<S>,
            State = NonholonomicState<f64, 3, 1>,
            Coefficients = PartitionedTableau<S>,
        >,
    {
        let e: Vec<_> = steps.iter().map(|&n| twin_errors::<R, S, N>(n)).collect();
        let [g, mu, lambda] = orders(&e);
        println!(
            "unicycle in (x, y, θ), {label} λ, s = {S}: errors {}",
            show(&e)
        );
        println!("  orders g {g:.2?}, μ {mu:.2?}, λ {lambda:.2?}");
        assert_orders("g", &g, 2 * S - 2);
        assert_orders("μ", &mu, 2 * S - 2);
        if R::CARRIED {
            assert_orders("λ", &lambda, if S % 2 == 0 { S } else { S - 1 });
        } else {
            for (o, pair) in lambda.iter().zip(e.windows(2)) {
                let resolved = pair[1][2] > 1e-11;
                assert!(
                    !resolved || *o >= (2 * S - 2) as f64 - 0.3,
                    "λ: {lambda:.2?}"
                );
            }
        }
        for row in &e {
            assert!(row[3] <= 1e-14, "|Φ| = {:e}", row[3]);
        }
    }
    sweep::<Carried, 2, 14>("carried", &[16, 32, 64]);
    sweep::<Carried, 3, 21>("carried", &[8, 16, 32]);
    sweep::<Carried, 4, 28>("carried", &[8, 16, 32]);
    sweep::<Recomputed, 2, 14>("recomputed", &[16, 32, 64]);
    sweep::<Recomputed, 3, 21>("recomputed", &[32, 64, 128]);
    sweep::<Recomputed, 4, 28>("recomputed", &[8, 16, 32]);
}

/// On a flat model (`B = I`, `E = 0`, `Ad = I`) the group family's equations are the
/// vector family's: from each node of a 50-step run, one step of each, both rules, to
/// round-off (Newton's tolerance 1e-14).
#[test]
fn group_family_on_a_flat_model_is_the_vector_family() {
    use livens::families::prk_lie_nonholonomic::{
        PrkLieNonholonomicCarriedWorkspace, PrkLieNonholonomicWorkspace,
    };
    use livens::families::prk_nonholonomic::{
        PrkNonholonomicCarriedWorkspace, PrkNonholonomicWorkspace,
    };
    type Flat = NonholonomicState<f64, 3, 1>;
    let model = FlatUnicycle::<f64>::new();
    let v0 = SVector::from([0.4, 0.15, 0.7]);
    let start = Flat::consistent::<_, 0>(
        &model,
        G0.into(),
        v0,
        Consistency::Project { tolerance: 0.0 },
    )
    .expect("projects");
    let h = 0.1;
    let mut worst: f64 = 0.0;
    let mut compare = |a: &Flat, b: &Flat| {
        let lambda = (a.lambda.unwrap() - b.lambda.unwrap()).norm();
        let d = [
            (a.q - b.q).norm(),
            (a.p - b.p).norm(),
            (a.v - b.v).norm(),
            lambda,
        ];
        worst = d.into_iter().fold(worst, f64::max);
    };
    let (mut a, mut ca) = (start, start);
    let mut wa: PrkNonholonomicWorkspace<f64, 3, 3, 1, 21, Inline> =
        PrkNonholonomicWorkspace::lobatto();
    let mut wb: PrkLieNonholonomicWorkspace<f64, 3, 3, 1, 3, 21, Inline> =
        PrkLieNonholonomicWorkspace::lobatto();
    let mut wca: PrkNonholonomicCarriedWorkspace<f64, 3, 3, 1, 21, Inline> =
        PrkNonholonomicCarriedWorkspace::lobatto();
    let mut wcb: PrkLieNonholonomicCarriedWorkspace<f64, 3, 3, 1, 3, 21, Inline> =
        PrkLieNonholonomicCarriedWorkspace::lobatto();
    for _ in 0..50 {
        let context = StepContext::new(h, a.t);
        let scheme = NonholonomicLobatto::<3>;
        let b = prk_lie_nonholonomic::step(&model, &scheme, context, &a, &mut wb, &options())
            .expect("converges")
            .0;
        a = prk_nonholonomic::step(&model, &scheme, context, &a, &mut wa, &options())
            .expect("converges")
            .0;
        compare(&a, &b);
        let scheme = NonholonomicLobattoCarried::<3>;
        let cb = prk_lie_nonholonomic::step(&model, &scheme, context, &ca, &mut wcb, &options())
            .expect("converges")
            .0;
        ca = prk_nonholonomic::step(&model, &scheme, context, &ca, &mut wca, &options())
            .expect("converges")
            .0;
        compare(&ca, &cb);
    }
    println!("flat unicycle, one step of the group family against the vector family: {worst:.2e}");
    assert!(worst <= 1e-13, "{worst:e}");
}
