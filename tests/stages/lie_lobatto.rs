//! The unconstrained Lobatto IIIA–IIIB family on a group (`families::prk_lie`, the
//! nonholonomic paper's Sec. 6.2, scheme S5 of `next_packages.md` §A.4), on the test
//! space `S¹` stored as a unit complex number (2 numbers, tangent 1): a planar pendulum
//! reaches order 2s − 2 against an independent reference, keeps `|z| = 1` to round-off
//! without a projection, has an exact assembled Jacobian (dual numbers), and in a vector
//! space is the Euclidean family's step. On SO(3), whose bracket is not zero, a heavy
//! top has an exact Jacobian, keeps its spatial angular momentum about the vertical to
//! round-off (Thm 6.1) and reaches order 2s − 2.
use crate::support::circle::Circle;
use livens::families::prk::{self, PrkWorkspace};
use livens::families::prk_lie::{self, stage_system, PrkLieWorkspace};
use livens::prelude::*;
use livens::solve::Inline;
use livens::space::{hat, Euclidean, So3, Space};
use livens::{Configuration, PointKernels, Real, SMatrix, StepContext, StepOptions};
use num_dual::Dual64;

/// A planar pendulum of mass `m` and length `l` under gravity `g`, its angle `φ` from
/// the downward vertical stored as `z = (cos φ, sin φ)`, its body velocity `η = φ̇`:
/// `ℓ(z, η) = ½ m l² η² + m g l z₀`. On `S¹` the left generator is `Lg(z) = i z =
/// (−z₁, z₀)`, so the trivialised kernels are `ℓ_ζ = Lgᵀ ∂ℓ/∂z = −m g l z₁` (the
/// torque `−m g l sin φ`), `ℓ_ζζ = (∂ℓ_ζ/∂z) Lg = −m g l z₀`, `ℓ_ζη = 0`,
/// `ℓ_η = m l² η`, `ℓ_ηη = m l²`.
#[derive(Clone, Copy, Debug)]
struct CirclePendulum<T> {
    m: T,
    l: T,
    g: T,
}

impl<T: Real> CirclePendulum<T> {
    fn new() -> Self {
        let c = |x: f64| T::from_subset(&x);
        Self {
            m: c(1.3),
            l: c(0.8),
            g: c(9.81),
        }
    }
    fn inertia(&self) -> T {
        self.m * self.l * self.l
    }
    fn weight(&self) -> T {
        self.m * self.g * self.l
    }
}

impl<T: Real> Configuration<T, 1, 2> for CirclePendulum<T> {
    type Space = Circle;
    type Inputs = [T; 0];
}

impl<T: Real> PointKernels<T, 1, 2> for CirclePendulum<T> {
    fn l_q(&self, z: &SVector<T, 2>, _: &SVector<T, 1>) -> SVector<T, 1> {
        SVector::from([-self.weight() * z[1]])
    }
    fn l_v(&self, _: &SVector<T, 2>, eta: &SVector<T, 1>) -> SVector<T, 1> {
        SVector::from([self.inertia() * eta[0]])
    }
    fn l_qq(&self, z: &SVector<T, 2>, _: &SVector<T, 1>, out: &mut [[T; 1]; 1]) {
        out[0][0] = -self.weight() * z[0];
    }
    fn l_qv(&self, _: &SVector<T, 2>, _: &SVector<T, 1>, out: &mut [[T; 1]; 1]) {
        out[0][0] = T::zero();
    }
    fn l_vv(&self, _: &SVector<T, 2>, _: &SVector<T, 1>, out: &mut [[T; 1]; 1]) {
        out[0][0] = self.inertia();
    }
}

/// The same pendulum in its angle, in the vector space `R`: `ℓ(φ, ω) = ½ m l² ω² + m g
/// l cos φ`.
#[derive(Clone, Copy, Debug)]
struct AnglePendulum(CirclePendulum<f64>);

impl Configuration<f64, 1> for AnglePendulum {
    type Space = Euclidean;
    type Inputs = [f64; 0];
}

impl PointKernels<f64, 1> for AnglePendulum {
    fn l_q(&self, q: &SVector<f64, 1>, _: &SVector<f64, 1>) -> SVector<f64, 1> {
        SVector::from([-self.0.weight() * q[0].sin()])
    }
    fn l_v(&self, _: &SVector<f64, 1>, v: &SVector<f64, 1>) -> SVector<f64, 1> {
        SVector::from([self.0.inertia() * v[0]])
    }
    fn l_qq(&self, q: &SVector<f64, 1>, _: &SVector<f64, 1>, out: &mut [[f64; 1]; 1]) {
        out[0][0] = -self.0.weight() * q[0].cos();
    }
    fn l_qv(&self, _: &SVector<f64, 1>, _: &SVector<f64, 1>, out: &mut [[f64; 1]; 1]) {
        out[0][0] = 0.0;
    }
    fn l_vv(&self, _: &SVector<f64, 1>, _: &SVector<f64, 1>, out: &mut [[f64; 1]; 1]) {
        out[0][0] = self.0.inertia();
    }
}

const PHI0: f64 = 1.1;
const OMEGA0: f64 = 0.7;
const T_END: f64 = 2.0;

pub(crate) fn options() -> StepOptions<f64> {
    let mut options = StepOptions::default();
    options.newton.tolerance = 1e-13;
    options
}

/// `(φ, p)` at `T_END` by the classical Runge–Kutta method on `φ̈ = −(g/l) sin φ` at
/// 2·10⁵ steps: an independent reference, its error about 1e-16 (`h⁴ = 1e-16`).
fn reference() -> (f64, f64) {
    let model = CirclePendulum::<f64>::new();
    let f = |y: [f64; 2]| [y[1], -model.g / model.l * y[0].sin()];
    let n = 200_000;
    let h = T_END / n as f64;
    let mut y = [PHI0, OMEGA0];
    for _ in 0..n {
        let k1 = f(y);
        let k2 = f([y[0] + 0.5 * h * k1[0], y[1] + 0.5 * h * k1[1]]);
        let k3 = f([y[0] + 0.5 * h * k2[0], y[1] + 0.5 * h * k2[1]]);
        let k4 = f([y[0] + h * k3[0], y[1] + h * k3[1]]);
        for i in 0..2 {
            y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
    }
    (y[0], model.inertia() * y[1])
}

fn start() -> PhaseState<f64, 1, 2> {
    let model = CirclePendulum::<f64>::new();
    let z = SVector::from([PHI0.cos(), PHI0.sin()]);
    PhaseState::from_velocities(&model, z, SVector::from([OMEGA0]))
}

/// `steps` steps of `S` stages on the circle: the final state, and the largest
/// `||z| − 1|` on the way.
fn run<const S: usize, const N: usize>(steps: usize) -> (PhaseState<f64, 1, 2>, f64) {
    let model = CirclePendulum::<f64>::new();
    let h = T_END / steps as f64;
    let mut ws: PrkLieWorkspace<f64, S, 1, 2, N, Inline> = PrkLieWorkspace::lobatto();
    let mut state = start();
    let mut worst = 0.0_f64;
    for _ in 0..steps {
        let scheme = LobattoIIIAIIIB::<S>;
        let context = StepContext::new(h, state.t);
        state = prk_lie::step(&model, &scheme, context, &state, &mut ws, &options())
            .expect("converges")
            .0;
        worst = worst.max((state.q.norm() - 1.0).abs());
    }
    (state, worst)
}

/// The errors in `φ` (along the circle) and in `p` at `T_END`.
fn errors<const S: usize, const N: usize>(steps: usize, reference: (f64, f64)) -> (f64, f64) {
    let (state, _) = run::<S, N>(steps);
    let z_ref = SVector::from([reference.0.cos(), reference.0.sin()]);
    let along = <Circle as Space<f64, 1, 2>>::local(&z_ref, &state.q)[0];
    // τ⁻¹ is 2 tan(δφ/2): the angle error to its third order.
    (2.0 * (along / 2.0).atan(), state.p[0] - reference.1)
}

fn orders<const S: usize, const N: usize>(steps: [usize; 3]) -> ([f64; 2], [f64; 2]) {
    let reference = reference();
    let e: Vec<(f64, f64)> = steps
        .iter()
        .map(|&n| errors::<S, N>(n, reference))
        .collect();
    let order = |a: f64, b: f64| (a.abs() / b.abs()).log2();
    let q = [order(e[0].0, e[1].0), order(e[1].0, e[2].0)];
    let p = [order(e[0].1, e[1].1), order(e[1].1, e[2].1)];
    println!("s = {S}: errors {e:?}, orders q {q:.2?}, p {p:.2?}");
    for (a, b) in &e {
        assert!(
            a.abs() > 1e-13 && b.abs() > 1e-13,
            "errors near round-off: {e:?}"
        );
    }
    (q, p)
}

#[test]
fn circle_pendulum_has_order_2s_minus_2() {
    let target = |s: usize| (2 * s - 2) as f64;
    let check = |s: usize, (q, p): ([f64; 2], [f64; 2])| {
        for o in q.iter().chain(&p) {
            assert!(
                (o - target(s)).abs() <= 0.3,
                "s = {s}: orders q {q:?}, p {p:?}"
            );
        }
    };
    check(2, orders::<2, 2>([80, 160, 320]));
    check(3, orders::<3, 3>([20, 40, 80]));
    check(4, orders::<4, 4>([20, 40, 80]));
}

#[test]
fn circle_keeps_the_unit_norm_over_ten_thousand_steps() {
    let (state, worst) = run::<3, 3>(10_000);
    println!("|z| − 1 at most {worst:e} over 10⁴ steps");
    assert!(state.q.iter().all(|x| x.is_finite()));
    assert!(worst <= 1e-14, "{worst:e}");
}

/// Uniform numbers in `[-1, 1]`, deterministic.
pub(crate) fn uniform(seed: u64) -> impl FnMut() -> f64 {
    let mut state = seed;
    move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    }
}

/// The largest relative difference between the assembled Jacobian of `S` stages and
/// the derivatives of the residual by dual numbers, at the points `(q⁰, p⁰, x, h)` that
/// `point` draws (iterates and steps away from any solution).
pub(crate) fn jacobian_defect<
    M,
    MD,
    const S: usize,
    const D: usize,
    const Q: usize,
    const N: usize,
>(
    (model, dual): (&M, &MD),
    count: usize,
    mut point: impl FnMut() -> (SVector<f64, Q>, SVector<f64, D>, SVector<f64, N>, f64),
) -> f64
where
    M: PointKernels<f64, D, Q>,
    MD: PointKernels<Dual64, D, Q>,
{
    let mut ws: PrkLieWorkspace<f64, S, D, Q, N, Inline> = PrkLieWorkspace::lobatto();
    let mut dws: PrkLieWorkspace<Dual64, S, D, Q, N, Inline> = PrkLieWorkspace::lobatto();
    let mut worst = 0.0_f64;
    for _ in 0..count {
        let (q0, p0, x, h) = point();
        let mut r = SVector::zeros();
        let jac = *stage_system(model, &mut ws, h, &q0, &p0, &x, &mut r);
        for j in 0..N {
            let mut xd = x.map(Dual64::from_re);
            xd[j].eps = 1.0;
            let (qd, pd) = (q0.map(Dual64::from_re), p0.map(Dual64::from_re));
            let mut rd = SVector::zeros();
            stage_system(dual, &mut dws, Dual64::from_re(h), &qd, &pd, &xd, &mut rd);
            for i in 0..N {
                assert!((rd[i].re - r[i]).abs() <= 1e-14 * (1.0 + r[i].abs()));
                let scale = 1.0_f64.max(jac[j][i].abs());
                worst = worst.max((jac[j][i] - rd[i].eps).abs() / scale);
            }
        }
    }
    worst
}

#[test]
fn assembled_jacobian_is_exact() {
    let mut u = uniform(5);
    let pendulum = (
        &CirclePendulum::<f64>::new(),
        &CirclePendulum::<Dual64>::new(),
    );
    let worst = jacobian_defect::<_, _, 3, 1, 2, 3>(pendulum, 50, || {
        let phi = 3.0 * u();
        let z0 = SVector::from([phi.cos(), phi.sin()]);
        (
            z0,
            SVector::from([u()]),
            SVector::from_fn(|_, _| 2.0 * u()),
            0.1 + 0.2 * u().abs(),
        )
    });
    println!("assembled Jacobian against dual numbers: {worst:.2e}");
    assert!(worst <= 1e-13, "{worst:e}");
}

/// In a vector space (`B = I`, `E = 0`, `Ad = I`) the group family's step is the
/// Euclidean family's, to rounding: the same pendulum in its angle, 200 steps at s = 3.
#[test]
fn in_a_vector_space_it_is_the_euclidean_family() {
    let model = AnglePendulum(CirclePendulum::new());
    let scheme = LobattoIIIAIIIB::<3>;
    let mut lie: PrkLieWorkspace<f64, 3, 1, 1, 3, Inline> = PrkLieWorkspace::lobatto();
    let mut flat: PrkWorkspace<f64, 3, 1, 3, Inline> = PrkWorkspace::lobatto();
    let start = PhaseState::from_velocities(&model, SVector::from([PHI0]), SVector::from([OMEGA0]));
    let (mut a, mut b) = (start, start);
    let mut worst = 0.0_f64;
    for _ in 0..200 {
        a = prk_lie::step(
            &model,
            &scheme,
            StepContext::new(0.05, a.t),
            &a,
            &mut lie,
            &options(),
        )
        .unwrap()
        .0;
        b = prk::step(
            &model,
            &scheme,
            StepContext::new(0.05, b.t),
            &b,
            &mut flat,
            &options(),
        )
        .unwrap()
        .0;
        worst = worst
            .max((a.q - b.q).abs().max())
            .max((a.p - b.p).abs().max());
    }
    println!("group family against the Euclidean one: {worst:.2e}");
    assert!(worst <= 1e-12, "{worst:e}");
}

/// A heavy top on SO(3) stored as a unit quaternion: `ℓ(q, Ω) = ½ Ωᵀ J Ω − m g Γ·χ`
/// with `Γ = Rᵀ e₃` the vertical in the body frame and `χ` the centre of mass. Under
/// `δR = R ζ̂`, `δΓ = Γ × ζ`, so `ℓ_ζ = −m g χ × Γ`, `ℓ_ζζ = −m g χ̂ Γ̂`, `ℓ_ζη = 0`,
/// `ℓ_η = J Ω`, `ℓ_ηη = J`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct HeavyTop<T> {
    j: SVector<T, 3>,
    mg: T,
    chi: SVector<T, 3>,
}

impl<T: Real> HeavyTop<T> {
    pub(crate) fn new() -> Self {
        let c = |x: f64| T::from_subset(&x);
        Self {
            j: SVector::from([c(2.0), c(3.0), c(1.5)]),
            mg: c(4.0),
            chi: SVector::from([c(0.1), c(0.2), c(0.5)]),
        }
    }
    /// `Γ = Rᵀ e₃` of the unit quaternion `q`.
    fn gamma(q: &SVector<T, 4>) -> SVector<T, 3> {
        let two = T::one() + T::one();
        let (w, x, y, z) = (q[0], q[1], q[2], q[3]);
        SVector::from([
            two * (x * z - w * y),
            two * (y * z + w * x),
            T::one() - two * (x * x + y * y),
        ])
    }
}

impl<T: Real> Configuration<T, 3, 4> for HeavyTop<T> {
    type Space = So3;
    type Inputs = [T; 0];
}

impl<T: Real> PointKernels<T, 3, 4> for HeavyTop<T> {
    fn l_q(&self, q: &SVector<T, 4>, _: &SVector<T, 3>) -> SVector<T, 3> {
        -self.chi.cross(&Self::gamma(q)) * self.mg
    }
    fn l_v(&self, _: &SVector<T, 4>, w: &SVector<T, 3>) -> SVector<T, 3> {
        self.j.component_mul(w)
    }
    fn l_qq(&self, q: &SVector<T, 4>, _: &SVector<T, 3>, out: &mut [[T; 3]; 3]) {
        out.clone_from(&(-hat(&self.chi) * hat(&Self::gamma(q)) * self.mg).data.0);
    }
    fn l_qv(&self, _: &SVector<T, 4>, _: &SVector<T, 3>, out: &mut [[T; 3]; 3]) {
        *out = [[T::zero(); 3]; 3];
    }
    fn l_vv(&self, _: &SVector<T, 4>, _: &SVector<T, 3>, out: &mut [[T; 3]; 3]) {
        *out = SMatrix::<T, 3, 3>::from_diagonal(&self.j).data.0;
    }
}

const TOP_T: f64 = 1.0;

fn top_start() -> PhaseState<f64, 3, 4> {
    let tilt = 0.6_f64;
    let q = SVector::from([(tilt / 2.0).cos(), (tilt / 2.0).sin(), 0.0, 0.0]);
    PhaseState::from_velocities(&HeavyTop::new(), q, SVector::from([1.0, -0.5, 2.0]))
}

/// `(q, J Ω)` at `TOP_T` by the classical Runge–Kutta method on `q̇ = ½ q ⊗ (0, Ω)`,
/// `J Ω̇ = J Ω × Ω − m g χ × Γ` at 10⁵ steps.
fn top_reference() -> (SVector<f64, 4>, SVector<f64, 3>) {
    let top = HeavyTop::<f64>::new();
    let f = |y: &SVector<f64, 7>| {
        let q = SVector::<f64, 4>::from([y[0], y[1], y[2], y[3]]);
        let w = SVector::<f64, 3>::from([y[4], y[5], y[6]]);
        let (a, b) = (q, SVector::<f64, 4>::from([0.0, w[0], w[1], w[2]]));
        let qdot = SVector::<f64, 4>::from([
            a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
            a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
            a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
            a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
        ]) * 0.5;
        let torque =
            top.j.component_mul(&w).cross(&w) - top.chi.cross(&HeavyTop::gamma(&q)) * top.mg;
        let wdot = torque.component_div(&top.j);
        SVector::<f64, 7>::from([
            qdot[0], qdot[1], qdot[2], qdot[3], wdot[0], wdot[1], wdot[2],
        ])
    };
    let start = top_start();
    let w0 = start.v;
    let mut y = SVector::<f64, 7>::from([
        start.q[0], start.q[1], start.q[2], start.q[3], w0[0], w0[1], w0[2],
    ]);
    let n = 100_000;
    let h = TOP_T / n as f64;
    for _ in 0..n {
        let k1 = f(&y);
        let k2 = f(&(y + k1 * (0.5 * h)));
        let k3 = f(&(y + k2 * (0.5 * h)));
        let k4 = f(&(y + k3 * h));
        y += (k1 + k2 * 2.0 + k3 * 2.0 + k4) * (h / 6.0);
    }
    let q = SVector::<f64, 4>::from([y[0], y[1], y[2], y[3]]).normalize();
    (q, top.j.component_mul(&SVector::from([y[4], y[5], y[6]])))
}

fn top_run<const S: usize, const N: usize>(steps: usize, h: f64) -> (PhaseState<f64, 3, 4>, f64) {
    let top = HeavyTop::<f64>::new();
    let mut ws: PrkLieWorkspace<f64, S, 3, 4, N, Inline> = PrkLieWorkspace::lobatto();
    let mut state = top_start();
    // The spatial angular momentum about the vertical, `Γ·μ`.
    let vertical = |s: &PhaseState<f64, 3, 4>| HeavyTop::gamma(&s.q).dot(&s.p);
    let j0 = vertical(&state);
    let mut drift = 0.0_f64;
    for _ in 0..steps {
        let scheme = LobattoIIIAIIIB::<S>;
        let context = StepContext::new(h, state.t);
        state = prk_lie::step(&top, &scheme, context, &state, &mut ws, &options())
            .expect("converges")
            .0;
        drift = drift.max((vertical(&state) - j0).abs());
    }
    (state, drift)
}

#[test]
fn heavy_top_jacobian_is_exact() {
    let mut u = uniform(9);
    let top = (&HeavyTop::<f64>::new(), &HeavyTop::<Dual64>::new());
    let worst = jacobian_defect::<_, _, 3, 3, 4, 9>(top, 30, || {
        let q0 = SVector::<f64, 4>::from_fn(|_, _| u()).normalize();
        let p0 = SVector::from_fn(|_, _| 3.0 * u());
        (
            q0,
            p0,
            SVector::from_fn(|_, _| 2.0 * u()),
            0.1 + 0.2 * u().abs(),
        )
    });
    println!("heavy top: assembled Jacobian against dual numbers: {worst:.2e}");
    assert!(worst <= 1e-12, "{worst:e}");
}

#[test]
fn heavy_top_keeps_its_vertical_momentum_and_the_unit_norm() {
    let (state, drift) = top_run::<3, 9>(2_000, 0.05);
    let norm = (state.q.norm() - 1.0).abs();
    println!("heavy top, 2000 steps: |Γ·μ − J₃⁰| at most {drift:.2e}, ||q| − 1| = {norm:.2e}");
    assert!(drift <= 1e-12, "{drift:e}");
    assert!(norm <= 1e-15, "{norm:e}");
}

#[test]
fn heavy_top_has_order_2s_minus_2() {
    let (q_ref, mu_ref) = top_reference();
    let error = |state: &PhaseState<f64, 3, 4>| {
        let along = <So3 as Space<f64, 3, 4>>::local(&q_ref, &state.q).norm();
        (along, (state.p - mu_ref).norm())
    };
    let sweep = |e: [(f64, f64); 3], s: usize| {
        let order = |a: f64, b: f64| (a / b).log2();
        let q = [order(e[0].0, e[1].0), order(e[1].0, e[2].0)];
        let p = [order(e[0].1, e[1].1), order(e[1].1, e[2].1)];
        println!("heavy top s = {s}: errors {e:?}, orders q {q:.2?}, p {p:.2?}");
        for o in q.iter().chain(&p) {
            assert!(
                (o - (2 * s - 2) as f64).abs() <= 0.3,
                "s = {s}: q {q:?}, p {p:?}"
            );
        }
    };
    let runs2 = [40, 80, 160].map(|n| error(&top_run::<2, 6>(n, TOP_T / n as f64).0));
    sweep(runs2, 2);
    let runs3 = [10, 20, 40].map(|n| error(&top_run::<3, 9>(n, TOP_T / n as f64).0));
    sweep(runs3, 3);
}
