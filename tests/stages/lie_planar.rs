//! The unconstrained Lobatto IIIA–IIIB family on SE(2) (`families::prk_lie` with
//! `space::Se2`): a planar rigid body on a spring, the nonholonomic paper's unicycle
//! (Sec. 7.4) without its rolling constraint, whose algebra `se(2)` does not commute.
//! Its assembled Jacobian is exact (dual numbers), and its configuration and momentum
//! reach order 2s − 2 against the exact solution, which is elementary in the fixed
//! frame: the centre oscillates and the heading turns uniformly.
use crate::lie_lobatto::{jacobian_defect, options, uniform};
use livens::families::prk_lie::{self, PrkLieWorkspace};
use livens::prelude::*;
use livens::solve::Inline;
use livens::space::{Se2, Space};
use livens::{Configuration, PointKernels, Real, StepContext};
use num_dual::Dual64;

/// A body of mass `m` and moment of inertia `i` at `g = (x, y, θ)`, its centre pulled to
/// the origin by a spring of stiffness `k`, with the body velocity `η = (v₁, v₂, ω)`:
/// `ℓ(g, η) = ½ (m (v₁² + v₂²) + i ω²) − ½ k (x² + y²)`. With `(a, b) = R(θ)ᵀ (x, y)`
/// the centre seen from the body, the left generator `Lg(g) = diag(R(θ), 1)` gives
/// `ℓ_ζ = Lgᵀ ∂ℓ/∂g = −k (a, b, 0)` and `ℓ_ζζ = (∂ℓ_ζ/∂g) Lg = [[−k, 0, −k b],
/// [0, −k, k a], [0, 0, 0]]` (not symmetric: it holds the derivative of `Lg`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PlanarBody<T> {
    pub(crate) m: T,
    pub(crate) i: T,
    pub(crate) k: T,
}

impl<T: Real> PlanarBody<T> {
    pub(crate) fn new() -> Self {
        let c = |x: f64| T::from_subset(&x);
        Self {
            m: c(1.0),
            i: c(0.5),
            k: c(1.0),
        }
    }
    /// The centre seen from the body, `R(θ)ᵀ (x, y)`.
    fn centre(g: &SVector<T, 3>) -> (T, T) {
        let (s, c) = g[2].sin_cos();
        (c * g[0] + s * g[1], -s * g[0] + c * g[1])
    }
}

impl<T: Real> Configuration<T, 3, 3> for PlanarBody<T> {
    type Space = Se2;
    type Inputs = [T; 0];
}

impl<T: Real> PointKernels<T, 3, 3> for PlanarBody<T> {
    fn l_q(&self, g: &SVector<T, 3>, _: &SVector<T, 3>) -> SVector<T, 3> {
        let (a, b) = Self::centre(g);
        SVector::from([-self.k * a, -self.k * b, T::zero()])
    }
    fn l_v(&self, _: &SVector<T, 3>, eta: &SVector<T, 3>) -> SVector<T, 3> {
        SVector::from([self.m * eta[0], self.m * eta[1], self.i * eta[2]])
    }
    fn l_qq(&self, g: &SVector<T, 3>, _: &SVector<T, 3>, out: &mut [[T; 3]; 3]) {
        let (a, b) = Self::centre(g);
        let (k, zero) = (self.k, T::zero());
        // Column storage: out[j][i] = ∂(ℓ_ζ)ᵢ/∂ζⱼ.
        *out = [[-k, zero, zero], [zero, -k, zero], [-k * b, k * a, zero]];
    }
    fn l_qv(&self, _: &SVector<T, 3>, _: &SVector<T, 3>, out: &mut [[T; 3]; 3]) {
        *out = [[T::zero(); 3]; 3];
    }
    fn l_vv(&self, _: &SVector<T, 3>, _: &SVector<T, 3>, out: &mut [[T; 3]; 3]) {
        let zero = T::zero();
        *out = [
            [self.m, zero, zero],
            [zero, self.m, zero],
            [zero, zero, self.i],
        ];
    }
}

const G0: [f64; 3] = [1.0, 0.0, 0.3];
const ETA0: [f64; 3] = [0.5, 0.2, 0.7];
const T_END: f64 = 2.0;

fn start() -> PhaseState<f64, 3, 3> {
    PhaseState::from_velocities(&PlanarBody::new(), SVector::from(G0), SVector::from(ETA0))
}

/// The exact `(g, μ)` at `t`: in the fixed frame the centre is a harmonic oscillator of
/// frequency `√(k/m)` and the heading turns at the constant `ω`; the body momentum is
/// `(m R(θ)ᵀ ċ, i ω)`.
fn exact(t: f64) -> (SVector<f64, 3>, SVector<f64, 3>) {
    let body = PlanarBody::<f64>::new();
    let w = (body.k / body.m).sqrt();
    let (s0, c0) = G0[2].sin_cos();
    // The centre's initial velocity in the fixed frame, R(θ₀) v.
    let v0 = [c0 * ETA0[0] - s0 * ETA0[1], s0 * ETA0[0] + c0 * ETA0[1]];
    let (sw, cw) = (w * t).sin_cos();
    let x = [G0[0] * cw + v0[0] / w * sw, G0[1] * cw + v0[1] / w * sw];
    let xdot = [-G0[0] * w * sw + v0[0] * cw, -G0[1] * w * sw + v0[1] * cw];
    let theta = G0[2] + ETA0[2] * t;
    let (s, c) = theta.sin_cos();
    let g = SVector::from([x[0], x[1], theta]);
    let mu = SVector::from([
        body.m * (c * xdot[0] + s * xdot[1]),
        body.m * (-s * xdot[0] + c * xdot[1]),
        body.i * ETA0[2],
    ]);
    (g, mu)
}

/// The errors in `g` (the length of `τ⁻¹(g_ref⁻¹ g)`) and in `μ` at `T_END` after
/// `steps` steps of `S` stages.
fn errors<const S: usize, const N: usize>(steps: usize) -> (f64, f64) {
    let body = PlanarBody::<f64>::new();
    let h = T_END / steps as f64;
    let mut ws: PrkLieWorkspace<f64, S, 3, 3, N, Inline> = PrkLieWorkspace::lobatto();
    let mut state = start();
    for _ in 0..steps {
        let context = StepContext::new(h, state.t);
        state = prk_lie::step(
            &body,
            &LobattoIIIAIIIB::<S>,
            context,
            &state,
            &mut ws,
            &options(),
        )
        .expect("converges")
        .0;
    }
    let (g, mu) = exact(T_END);
    let along = <Se2 as Space<f64, 3, 3>>::local(&g, &state.q).norm();
    (along, (state.p - mu).norm())
}

fn sweep<const S: usize, const N: usize>(steps: [usize; 3]) {
    let e = steps.map(errors::<S, N>);
    let order = |a: f64, b: f64| (a / b).log2();
    let g = [order(e[0].0, e[1].0), order(e[1].0, e[2].0)];
    let mu = [order(e[0].1, e[1].1), order(e[1].1, e[2].1)];
    println!("planar body on SE(2), s = {S}: errors {e:?}, orders g {g:.2?}, μ {mu:.2?}");
    for (a, b) in &e {
        assert!(a.min(*b) > 1e-13, "errors near round-off: {e:?}");
    }
    for o in g.iter().chain(&mu) {
        assert!(
            (o - (2 * S - 2) as f64).abs() <= 0.3,
            "s = {S}: orders g {g:?}, μ {mu:?}"
        );
    }
}

#[test]
fn planar_body_jacobian_is_exact() {
    let mut u = uniform(21);
    let body = (&PlanarBody::<f64>::new(), &PlanarBody::<Dual64>::new());
    let worst = jacobian_defect::<_, _, 3, 3, 3, 9>(body, 30, || {
        (
            SVector::from([u(), u(), 4.0 * u()]),
            SVector::from_fn(|_, _| 2.0 * u()),
            SVector::from_fn(|_, _| 2.0 * u()),
            0.1 + 0.2 * u().abs(),
        )
    });
    println!("planar body: assembled Jacobian against dual numbers: {worst:.2e}");
    assert!(worst <= 1e-12, "{worst:e}");
}

#[test]
fn planar_body_has_order_2s_minus_2() {
    sweep::<2, 6>([16, 32, 64]);
    sweep::<3, 9>([8, 16, 32]);
    sweep::<4, 12>([8, 16, 32]);
}
