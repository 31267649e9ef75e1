//! The linearised step of the Lobatto IIIA–IIIB family on the cart-pole C1 (spec
//! `next_packages.md` §D.3–D.5): `A = ∂(q¹, p¹)/∂(q⁰, p⁰)` and `B = ∂(q¹, p¹)/∂u`
//! from the implicit-function theorem, against the spec's closed-form matrices at the
//! upright equilibrium (Störmer–Verlet on the quadratic Lagrangian there), against the
//! exact flow `expm(h A_c)` at the local orders 3 and 5, against central differences of
//! the step at states away from the equilibrium, and as a symplectic map.
use livens::prelude::*;
use livens::{Linearize, Linearized};
use livens_models::CartPole;

type Lin = Linearized<PhaseState<f64, 2>, f64, 4, 1>;

fn tight() -> NewtonOptions<f64> {
    NewtonOptions {
        tolerance: 1e-13,
        ..NewtonOptions::default()
    }
}

/// The step from `(q, p)` (with `v` the momentum's velocity as Newton's guess) under the
/// input `u`, and its linearisation.
fn linearize<const S: usize>(h: f64, q: [f64; 2], p: [f64; 2], u: f64) -> Lin
where
    CartPole<f64>: Linearize<
        f64,
        LobattoIIIAIIIB<S>,
        State = PhaseState<f64, 2>,
        Inputs = [f64; 1],
        Linearized = Lin,
    >,
{
    let model = CartPole::new();
    let (q, p) = (SVector::from(q), SVector::from(p));
    let v = model.velocity(&q, &p);
    let state = PhaseState { t: 0.0, q, p, v };
    let mut sim = Integrator::new(model, LobattoIIIAIIIB::<S>, h, state).with_options(tight());
    sim.set_inputs([u]).unwrap();
    let out = sim.linearize().expect("the step converges");
    assert_eq!(*sim.state(), state, "linearize leaves the state as it was");
    out
}

fn max_abs<const R: usize, const C: usize>(m: &SMatrix<f64, R, C>) -> f64 {
    m.iter().fold(0.0, |a, x| a.max(x.abs()))
}

/// The spec's `A_d`, `B_d` for `LobattoIIIAIIIB(2)` at `h = 0.01`, upright, at rest,
/// `u = 0`: Störmer–Verlet on the linearised Lagrangian (`M* = [[1.1, 0.05], [0.05,
/// 0.025]]`, `M*⁻¹ = [[1, −2], [−2, 44]]`, stiffness `−m g l = −0.4905` in `θ`), every
/// entry a short decimal.
#[test]
fn equilibrium_matrices_are_the_specs() {
    let out = linearize::<2>(0.01, [0.0; 2], [0.0; 2], 0.0);
    #[rustfmt::skip]
    let a_d = SMatrix::<f64, 4, 4>::from_row_slice(&[
        1.0, -4.905e-5,         1.0e-2,   -2.0e-2,
        0.0, 1.0010791,        -2.0e-2,    4.4e-1,
        0.0, 0.0,               1.0,       0.0,
        0.0, 4.90764649275e-3, -4.905e-5,  1.0010791,
    ]);
    let b_d = SMatrix::<f64, 4, 1>::from_column_slice(&[5.0e-5, -1.0e-4, 1.0e-2, -2.4525e-7]);
    let (ea, eb) = (max_abs(&(out.a - a_d)), max_abs(&(out.b - b_d)));
    println!("max|A − A_d| = {ea:.1e}, max|B − B_d| = {eb:.1e}");
    assert!(ea <= 1e-12 && eb <= 1e-12, "A = {}, B = {}", out.a, out.b);
    // At rest and upright the step stays there.
    assert!(out.next.q.norm() <= 1e-15 && out.next.p.norm() <= 1e-15);
}

/// `exp(M)` by scaling and squaring a 20-term Taylor series: far below the schemes'
/// errors for the `h A_c` here (norm below 1).
fn expm<const N: usize>(m: &SMatrix<f64, N, N>) -> SMatrix<f64, N, N> {
    let squarings = 6;
    let scaled = m / f64::from(1 << squarings);
    let (mut sum, mut term) = (
        SMatrix::<f64, N, N>::identity(),
        SMatrix::<f64, N, N>::identity(),
    );
    for k in 1..=20 {
        term = term * scaled / f64::from(k);
        sum += term;
    }
    for _ in 0..squarings {
        sum = sum * sum;
    }
    sum
}

/// The spec's continuous linearisation at the upright equilibrium, `A_c` in
/// `(x, θ, ẋ, θ̇)`, moved to `(q, p)` by `T = diag(I, M*)`.
fn continuous() -> SMatrix<f64, 4, 4> {
    #[rustfmt::skip]
    let a_c = SMatrix::<f64, 4, 4>::from_row_slice(&[
        0.0, 0.0,    1.0, 0.0,
        0.0, 0.0,    0.0, 1.0,
        0.0, -0.981, 0.0, 0.0,
        0.0, 21.582, 0.0, 0.0,
    ]);
    let mut t = SMatrix::<f64, 4, 4>::identity();
    t.fixed_view_mut::<2, 2>(2, 2)
        .copy_from(&SMatrix::<f64, 2, 2>::new(1.1, 0.05, 0.05, 0.025));
    t * a_c * t.try_inverse().unwrap()
}

/// `max|A_d − expm(h A_c)|` at the equilibrium for `s` stages and three step sizes, in
/// `(q, p)`: `A_c` of the spec in `(x, θ, ẋ, θ̇)`, moved by `T = diag(I, M*)`. The local
/// error of a method of order `2s − 2` is `O(h^{2s−1})`: ratios 8 (`s = 2`) and 32
/// (`s = 3`) per halving, and the spec's values.
fn expm_errors<const S: usize>() -> [f64; 3]
where
    CartPole<f64>: Linearize<
        f64,
        LobattoIIIAIIIB<S>,
        State = PhaseState<f64, 2>,
        Inputs = [f64; 1],
        Linearized = Lin,
    >,
{
    let a_qp = continuous();
    [0.04, 0.02, 0.01].map(|h| {
        let out = linearize::<S>(h, [0.0; 2], [0.0; 2], 0.0);
        max_abs(&(out.a - expm(&(a_qp * h))))
    })
}

#[test]
fn the_linearisation_converges_to_the_flows_at_the_local_order() {
    for (s, errors, spec, ratio) in [
        (2, expm_errors::<2>(), [1.015e-2, 1.267e-3, 1.583e-4], 8.0),
        (3, expm_errors::<3>(), [2.908e-6, 9.103e-8, 2.846e-9], 32.0),
    ] {
        let ratios = [errors[0] / errors[1], errors[1] / errors[2]];
        let shown = errors.map(|e| format!("{e:.3e}"));
        println!("s = {s}: max|A_d − expm(h A_c)| = {shown:?}, ratios {ratios:.2?}");
        for (e, expected) in errors.iter().zip(spec) {
            assert!(
                (e / expected - 1.0).abs() < 2e-3,
                "s = {s}: {e:e} against {expected:e}"
            );
        }
        for r in ratios {
            assert!((r / ratio - 1.0).abs() < 0.05, "s = {s}: ratio {r}");
        }
    }
}

/// States away from the equilibrium, with inputs: the cart moving, the pole tilted and
/// swinging.
const STATES: [([f64; 2], [f64; 2], f64); 3] = [
    ([0.3, 0.4], [0.5, -0.05], 1.7),
    ([-1.2, -0.9], [-0.2, 0.03], -4.0),
    ([0.05, 2.5], [1.1, 0.12], 0.3),
];

/// `(q¹, p¹)` of a step from `z = (q, p)` under `u`.
fn next<const S: usize>(h: f64, z: &SVector<f64, 4>, u: f64) -> SVector<f64, 4>
where
    CartPole<f64>: Step<f64, LobattoIIIAIIIB<S>, State = PhaseState<f64, 2>, Inputs = [f64; 1]>,
{
    let model = CartPole::new();
    let (q, p) = (
        z.fixed_rows::<2>(0).into_owned(),
        z.fixed_rows::<2>(2).into_owned(),
    );
    let v = model.velocity(&q, &p);
    let state = PhaseState { t: 0.0, q, p, v };
    let mut sim = Integrator::new(model, LobattoIIIAIIIB::<S>, h, state).with_options(tight());
    sim.set_inputs([u]).unwrap();
    sim.step().expect("the step converges");
    let s = sim.state();
    SVector::from([s.q[0], s.q[1], s.p[0], s.p[1]])
}

fn central_differences<const S: usize>(h: f64)
where
    CartPole<f64>: Linearize<
        f64,
        LobattoIIIAIIIB<S>,
        State = PhaseState<f64, 2>,
        Inputs = [f64; 1],
        Linearized = Lin,
    >,
{
    let eps = 1e-6;
    for (q, p, u) in STATES {
        let out = linearize::<S>(h, q, p, u);
        let z = SVector::from([q[0], q[1], p[0], p[1]]);
        let mut fd = SMatrix::<f64, 4, 5>::zeros();
        for k in 0..5 {
            let (mut zp, mut zm, mut up, mut um) = (z, z, u, u);
            if k < 4 {
                zp[k] += eps;
                zm[k] -= eps;
            } else {
                up += eps;
                um -= eps;
            }
            fd.set_column(
                k,
                &((next::<S>(h, &zp, up) - next::<S>(h, &zm, um)) / (2.0 * eps)),
            );
        }
        let mut exact = SMatrix::<f64, 4, 5>::zeros();
        exact.fixed_columns_mut::<4>(0).copy_from(&out.a);
        exact.set_column(4, &out.b.column(0));
        let error = max_abs(&(exact - fd)) / max_abs(&exact);
        println!("s = {S}, z = {z:?}, u = {u}: relative max|[A B] − FD| = {error:.1e}");
        assert!(error <= 1e-7, "s = {S} at {z:?}, u = {u}: {error:e}");
    }
}

#[test]
fn the_linearisation_agrees_with_central_differences_of_the_step() {
    central_differences::<2>(0.02);
    central_differences::<3>(0.05);
}

/// `AᵀΩA = Ω` at states away from the equilibrium, inputs held: the step of a
/// variational scheme is a symplectic map of `(q, p)` for fixed `u`.
#[test]
fn the_linearised_step_is_symplectic() {
    let mut omega = SMatrix::<f64, 4, 4>::zeros();
    omega.fixed_view_mut::<2, 2>(0, 2).fill_with_identity();
    omega
        .fixed_view_mut::<2, 2>(2, 0)
        .copy_from(&(-SMatrix::<f64, 2, 2>::identity()));
    for (q, p, u) in STATES {
        for a in [
            linearize::<2>(0.05, q, p, u).a,
            linearize::<3>(0.05, q, p, u).a,
        ] {
            let defect = max_abs(&(a.transpose() * omega * a - omega));
            assert!(defect <= 1e-12, "{defect:e}");
        }
    }
}

/// `step_linearized` advances the state to the one `step` reaches, bit for bit.
#[test]
fn step_linearized_advances_as_step_does() {
    let model = CartPole::new();
    let (q, p) = (SVector::from([0.3, 0.4]), SVector::from([0.5, -0.05]));
    let v = model.velocity(&q, &p);
    let state = PhaseState { t: 0.0, q, p, v };
    let mut a = Integrator::new(model, LobattoIIIAIIIB::<3>, 0.05, state);
    let mut b = a.clone();
    a.set_inputs([2.0]).unwrap();
    b.set_inputs([2.0]).unwrap();
    for _ in 0..5 {
        let out = a.step_linearized().unwrap();
        b.step().unwrap();
        assert_eq!(a.state(), b.state());
        assert_eq!(out.next, *b.state());
    }
    // A NaN input is refused and the input held is kept.
    assert_eq!(
        a.set_inputs([f64::NAN]),
        Err(SolveError::NonFiniteInput { index: 0 })
    );
    assert_eq!(a.inputs(), &[2.0]);
}

/// The same linearisation in single precision, as a controller on a microcontroller
/// computes it, agrees with double precision to 1e-4 relative.
#[test]
fn single_precision_linearisation_agrees_with_double() {
    for (q, p, u) in STATES {
        let double = linearize::<2>(0.02, q, p, u);
        let model = CartPole::<f32>::default();
        let (q, p) = (
            SVector::from(q.map(|x| x as f32)),
            SVector::from(p.map(|x| x as f32)),
        );
        let v = model.velocity(&q, &p);
        let state = PhaseState { t: 0.0, q, p, v };
        let mut sim = Integrator::new(model, LobattoIIIAIIIB::<2>, 0.02f32, state);
        sim.set_inputs([u as f32]).unwrap();
        let single = sim.linearize().unwrap();
        let error = max_abs(&(single.a.map(f64::from) - double.a)) / max_abs(&double.a);
        let error_b = max_abs(&(single.b.map(f64::from) - double.b)) / max_abs(&double.b);
        println!("f32 against f64: A {error:.1e}, B {error_b:.1e}");
        assert!(error <= 1e-4 && error_b <= 1e-4, "{error:e} {error_b:e}");
    }
}

/// The LQR design of the spec on the `s = 2` linearisation at `h = 0.01`: weights
/// `Q = diag(10, 100, 1, 1)` on `(x, θ, ẋ, θ̇)` and `R = 1`, moved to `z = (q, p)` by
/// `T = diag(I, M*)` (`Q_z = T⁻ᵀ Q T⁻¹`).
fn design() -> (Lin, livens::control::Lqr<f64, 4, 1>, SMatrix<f64, 4, 4>) {
    let out = linearize::<2>(0.01, [0.0; 2], [0.0; 2], 0.0);
    let mut t = SMatrix::<f64, 4, 4>::identity();
    t.fixed_view_mut::<2, 2>(2, 2)
        .copy_from(&SMatrix::<f64, 2, 2>::new(1.1, 0.05, 0.05, 0.025));
    let t_inv = t.try_inverse().unwrap();
    let q = SMatrix::<f64, 4, 4>::from_diagonal(&SVector::from([10.0, 100.0, 1.0, 1.0]));
    let q_z = t_inv.transpose() * q * t_inv;
    let r = SMatrix::<f64, 1, 1>::new(1.0);
    let lqr = livens::control::dlqr(&out.a, &out.b, (&q_z, &r), 1e-14, 100_000).unwrap();
    (out, lqr, t)
}

#[test]
fn the_lqr_gain_and_the_closed_loop_spectrum_are_the_specs() {
    let (out, lqr, t) = design();
    let k = lqr.k;
    let spec = [-2.97019102, -38.0677867, 12.13688578, -350.43686742];
    let on_v = k * t;
    let spec_v = [-2.97019102, -38.0677867, -4.17126901, -8.1540774];
    println!(
        "K on (q, p) = {k}, on (q, v) = {on_v}, {} iterations",
        lqr.iterations
    );
    for i in 0..4 {
        assert!(
            (k[i] - spec[i]).abs() <= 1e-6,
            "K[{i}] = {} against {}",
            k[i],
            spec[i]
        );
        assert!(
            (on_v[i] - spec_v[i]).abs() <= 1e-6,
            "K_v[{i}] = {}",
            on_v[i]
        );
    }
    let closed = out.a - out.b * k;
    let rho = closed
        .complex_eigenvalues()
        .iter()
        .fold(0.0f64, |m, e| m.max(e.norm()));
    println!("ρ(A − BK) = {rho:.8}");
    assert!((rho - 0.98907105).abs() <= 1e-5, "ρ = {rho}");
}

/// The nonlinear cart-pole under the gain, sampled every `h = 0.01` with the input held
/// in between (zero-order hold); the plant is stepped by `LobattoIIIAIIIB(3)` at a
/// quarter of the control period (order 4, far below the closed loop's figures).
/// Returns `max|(x, θ, ẋ, θ̇)|` over `t ≥ 10 − h` and `max|u|`.
fn closed_loop(theta0: f64) -> (f64, f64) {
    let (_, lqr, _) = design();
    let model = CartPole::new();
    let (q, v) = (SVector::from([0.0, theta0]), SVector::zeros());
    let state = PhaseState::from_velocities(&model, q, v);
    let mut plant = Integrator::new(model, LobattoIIIAIIIB::<3>, 0.0025, state);
    let mut max_u = 0.0f64;
    for _ in 0..1000 {
        let s = plant.state();
        let z = SVector::from([s.q[0], s.q[1], s.p[0], s.p[1]]);
        let u = -(lqr.k * z)[0];
        max_u = max_u.max(u.abs());
        plant.set_inputs([u]).unwrap();
        plant.run(4).expect("the plant steps");
    }
    let s = plant.state();
    assert!((s.t - 10.0).abs() < 1e-9);
    let end = [s.q[0], s.q[1], s.v[0], s.v[1]];
    (end.iter().fold(0.0f64, |m, x| m.max(x.abs())), max_u)
}

#[test]
fn the_gain_stabilises_the_nonlinear_cart_pole() {
    for (theta0, bound, spec_u) in [(0.2, 1e-4, 7.61), (0.5, 3e-4, 19.03)] {
        let (end, max_u) = closed_loop(theta0);
        println!("θ₀ = {theta0}: max|state(10)| = {end:.2e}, max|u| = {max_u:.3}");
        assert!(end <= bound, "θ₀ = {theta0}: {end:e}");
        assert!(
            (max_u / spec_u - 1.0).abs() < 5e-3,
            "θ₀ = {theta0}: max|u| = {max_u}"
        );
    }
}

mod constrained {
    //! C2, the cart-pole in redundant coordinates `q = (x_c, x_b, z_b)` with the rod a
    //! holonomic constraint: `HolonomicLobatto(2)` linearised on the ambient `(q, p)`,
    //! reduced to the tangent space of the constraints at the upright equilibrium
    //! (`δq, δp ∈ span(e₁, e₂)`, reduced coordinates `r = (x_c, x_b, p_c, p_b)`), and
    //! tied to C1 through `(x, θ, p_x, p_θ) = S r`.
    use super::*;
    use livens::control::reduce;
    use livens_models::CartPoleConstrained;

    type Lin2 = Linearized<PhaseState<f64, 3>, f64, 6, 1>;
    const L: f64 = 0.5;

    fn linearize2(h: f64, q: [f64; 3], p: [f64; 3], u: f64) -> Lin2 {
        let model = CartPoleConstrained::new();
        let (q, p) = (SVector::from(q), SVector::from(p));
        let v = model.velocity(&q, &p);
        let state = PhaseState { t: 0.0, q, p, v };
        let mut sim = Integrator::new(model, HolonomicLobatto::<2>, h, state).with_options(tight());
        sim.set_inputs([u]).unwrap();
        sim.linearize().expect("the step converges")
    }

    /// The tangent basis at the equilibrium: `q` and `p` along `x_c` and `x_b`.
    fn basis() -> SMatrix<f64, 6, 4> {
        let mut t = SMatrix::<f64, 6, 4>::zeros();
        for (row, column) in [(0, 0), (1, 1), (3, 2), (4, 3)] {
            t[(row, column)] = 1.0;
        }
        t
    }

    /// `S`: `(x, θ, p_x, p_θ) = S (x_c, x_b, p_c, p_b)` at the linear level.
    fn s_map() -> SMatrix<f64, 4, 4> {
        #[rustfmt::skip]
        let s = SMatrix::<f64, 4, 4>::from_row_slice(&[
            1.0,      0.0,     0.0, 0.0,
            -1.0 / L, 1.0 / L, 0.0, 0.0,
            0.0,      0.0,     1.0, 1.0,
            0.0,      0.0,     0.0, L,
        ]);
        s
    }

    #[test]
    fn the_reduced_linearisation_is_invariant_and_is_c1s() {
        let a_qp = continuous();
        let s = s_map();
        let s_inv = s.try_inverse().unwrap();
        let mut errors = [0.0; 3];
        for (k, h) in [0.04, 0.02, 0.01].into_iter().enumerate() {
            let out = linearize2(h, [0.0, 0.0, L], [0.0; 3], 0.0);
            let reduced = reduce(&out.a, &out.b, &basis()).unwrap();
            assert!(
                reduced.invariance <= 1e-10,
                "h = {h}: {:e}",
                reduced.invariance
            );
            let mapped = s * reduced.a * s_inv;
            errors[k] = max_abs(&(mapped - expm(&(a_qp * h))));
            // C1's own step, through S: at the equilibrium both steps are Störmer–Verlet
            // on the same quadratic Lagrangian, so they agree to round-off (the spec
            // asks O(h³)).
            let c1 = linearize::<2>(h, [0.0; 2], [0.0; 2], 0.0);
            let (ea, eb) = (max_abs(&(mapped - c1.a)), max_abs(&(s * reduced.b - c1.b)));
            assert!(ea <= 1e-12, "h = {h}: max|S A_r S⁻¹ − A_C1| = {ea:e}");
            println!("h = {h}: invariance {:.1e}, max|S A_r S⁻¹ − expm| = {:.3e}, against C1 {ea:.1e} and {eb:.1e}", reduced.invariance, errors[k]);
            assert!(eb <= 1e-15, "h = {h}: max|S B_r − B_C1| = {eb:e}");
        }
        let ratios = [errors[0] / errors[1], errors[1] / errors[2]];
        println!("ratios {ratios:.2?}");
        for r in ratios {
            assert!((r / 8.0 - 1.0).abs() < 0.1, "local order 3: ratio {r}");
        }
    }

    /// C1's gain, mapped by `S`, stabilises C2's reduced linearisation and the nonlinear
    /// constrained cart-pole, whose nodes stay on the constraint to round-off.
    #[test]
    fn c1s_gain_stabilises_the_constrained_cart_pole() {
        let (_, lqr, _) = design();
        let k_r = lqr.k * s_map();
        let out = linearize2(0.01, [0.0, 0.0, L], [0.0; 3], 0.0);
        let reduced = reduce(&out.a, &out.b, &basis()).unwrap();
        let rho = (reduced.a - reduced.b * k_r)
            .complex_eigenvalues()
            .iter()
            .fold(0.0f64, |m, e| m.max(e.norm()));
        println!("ρ(A_r − B_r K S) = {rho:.6}");
        assert!(rho < 1.0, "{rho}");
        let model = CartPoleConstrained::new();
        let theta0: f64 = 0.2;
        let q = SVector::from([0.0, L * theta0.sin(), L * theta0.cos()]);
        let start = PhaseState::from_velocities(&model, q, SVector::zeros());
        let mut plant =
            Integrator::new(model, HolonomicLobatto::<2>, 0.0025, start).with_options(tight());
        let mut worst_constraint = 0.0f64;
        for _ in 0..1000 {
            let s = *plant.state();
            let r = SVector::from([s.q[0], s.q[1], s.p[0], s.p[1]]);
            plant.set_inputs([-(k_r * r)[0]]).unwrap();
            for _ in 0..4 {
                plant.step().expect("the plant steps");
                worst_constraint = worst_constraint.max(model.constraints(&plant.state().q).amax());
            }
        }
        let s = plant.state();
        let theta = (s.q[1] - s.q[0]).atan2(s.q[2]);
        let end = [s.q[0], theta, s.v[0], s.v[1]]
            .iter()
            .fold(0.0f64, |m, x| m.max(x.abs()));
        println!("C2 closed loop from θ₀ = 0.2: max|state(10)| = {end:.2e}, max|g(q)| = {worst_constraint:.1e}");
        assert!(end <= 1e-3, "{end:e}");
        assert!(worst_constraint <= 1e-13, "{worst_constraint:e}");
    }
}

/// Relinearising along a trajectory, as an MPC does: the time-varying `(Aₖ, Bₖ)` of
/// `step_linearized` propagate a perturbation of the initial state and of every input,
/// `δzₖ₊₁ = Aₖ δzₖ + Bₖ δuₖ`, to the difference of the perturbed and the nominal
/// nonlinear trajectories, to first order in the perturbation (relative error
/// `O(ε)`, here below 1e-4 at `ε = 1e-6` over 50 steps of a swinging, pushed cart-pole).
#[test]
fn relinearising_along_a_trajectory_predicts_a_perturbed_one() {
    let model = CartPole::new();
    let (q, v) = (SVector::from([0.1, 0.6]), SVector::from([0.3, -0.4]));
    let start = PhaseState::from_velocities(&model, q, v);
    let (eps, h) = (1e-6, 0.02);
    let dz0 = SVector::<f64, 4>::from([0.3, -1.0, 0.5, 0.2]);
    let push = |k: u32| 2.0 * (0.3 * f64::from(k)).sin();
    let du = |k: u32| (0.7 * f64::from(k)).cos();
    let mut nominal = Integrator::new(model, LobattoIIIAIIIB::<3>, h, start).with_options(tight());
    let perturbed_start = PhaseState {
        q: start.q + dz0.fixed_rows::<2>(0) * eps,
        p: start.p + dz0.fixed_rows::<2>(2) * eps,
        ..start
    };
    let mut perturbed =
        Integrator::new(model, LobattoIIIAIIIB::<3>, h, perturbed_start).with_options(tight());
    let mut dz = dz0;
    for k in 0..50 {
        nominal.set_inputs([push(k)]).unwrap();
        perturbed.set_inputs([push(k) + eps * du(k)]).unwrap();
        let out = nominal.step_linearized().unwrap();
        perturbed.step().unwrap();
        dz = out.a * dz + out.b * du(k);
    }
    let (a, b) = (nominal.state(), perturbed.state());
    let actual = SVector::from([
        b.q[0] - a.q[0],
        b.q[1] - a.q[1],
        b.p[0] - a.p[0],
        b.p[1] - a.p[1],
    ]) / eps;
    let error = (actual - dz).amax() / dz.amax();
    println!("predicted δz = {dz:?}, actual {actual:?}: relative error {error:.1e}");
    assert!(error <= 1e-4, "{error:e}");
}

pub(crate) mod dual {
    //! The second oracle of the spec (§D.5): the step in dual numbers. One component of
    //! `(q⁰, p⁰, u)` carries a unit dual part; Newton on the step equations
    //! (`Step::equations` in `Dual64`) converges the real part, and each further
    //! iteration from a converged real part makes the dual part the exact derivative of
    //! the solution (`ẋ = −J⁻¹ R_z ż`, the implicit-function theorem in one step); the
    //! next state `q¹ = q⁰ + h Σ bⱼ Vʲ`, `p¹ = p⁰ + h Σ b̂ⱼ (D₁L + F)(Qʲ, Vʲ, tʲ, u)` in
    //! dual numbers then carries a column of `[A B]`. Nothing of `linearize` is used.
    use super::*;
    use livens::solve::lu::Lu;
    use livens::solve::Inline;
    use livens::tableaux::PartitionedTableau;
    use num_dual::Dual64;

    /// Newton on a step's equations in dual numbers from `x`: quadratic convergence of
    /// the real part, then iterations at a converged real part for the dual part.
    pub(crate) fn newton<Mdl, Sch, const N: usize>(
        model: &Mdl,
        scheme: &Sch,
        (context, state): (StepContext<'_, Dual64>, &Mdl::State),
        ws: &mut Mdl::Workspace<Inline>,
        x: &mut SVector<Dual64, N>,
    ) where
        Mdl: Step<Dual64, Sch>,
    {
        for _ in 0..12 {
            let mut r = SVector::<Dual64, N>::zeros();
            let mut jac = SMatrix::<Dual64, N, N>::zeros();
            let (r_out, jac_out) = (r.as_mut_slice(), jac.as_mut_slice());
            model
                .equations(scheme, context, state, ws, x.as_slice(), r_out, jac_out)
                .unwrap();
            Lu::factor(jac).unwrap().solve_in_place(&mut r);
            *x -= r;
        }
    }

    /// Column `k` of `[A B]` (`k < 4`: `z = (q, p)`, `k = 4`: `u`) by the dual step.
    fn column<const S: usize, const N: usize>(
        h: f64,
        z: [f64; 4],
        u: f64,
        k: usize,
    ) -> SVector<f64, 4>
    where
        CartPole<Dual64>: Step<Dual64, LobattoIIIAIIIB<S>, State = PhaseState<Dual64, 2>>,
    {
        let model = CartPole::<Dual64>::default();
        let seeded = |i: usize, x: f64| Dual64::new(x, if i == k { 1.0 } else { 0.0 });
        let q = SVector::from([seeded(0, z[0]), seeded(1, z[1])]);
        let p = SVector::from([seeded(2, z[2]), seeded(3, z[3])]);
        let inputs = [seeded(4, u)];
        let v = model.velocity(&q, &p);
        let state = PhaseState {
            t: Dual64::from_re(0.0),
            q,
            p,
            v,
        };
        let scheme = LobattoIIIAIIIB::<S>;
        let mut ws = Step::workspace::<Inline>(&model, &scheme);
        let context = StepContext {
            h: Dual64::from_re(h),
            t: Dual64::from_re(0.0),
            inputs: &inputs,
        };
        let mut x = SVector::<Dual64, N>::zeros();
        for j in 0..S {
            x.fixed_rows_mut::<2>(2 * j).copy_from(&v);
        }
        newton(&model, &scheme, (context, &state), &mut ws, &mut x);
        let tab = PartitionedTableau::<S>::lobatto_iiia_iiib();
        let c = |x: f64| Dual64::from_re(x);
        let vj = |j: usize| x.fixed_rows::<2>(2 * j).into_owned();
        let (mut q1, mut p1) = (q, p);
        for j in 0..S {
            let mut qj = q;
            for l in 0..S {
                qj += vj(l) * (c(h) * c(tab.a[j][l]));
            }
            let tj = c(h * tab.c[j]);
            let w = model.l_q(&qj, &vj(j)) + model.f(tj, &qj, &vj(j), &inputs);
            q1 += vj(j) * (c(h) * c(tab.b[j]));
            p1 += w * (c(h) * c(tab.b_hat[j]));
        }
        SVector::from([q1[0].eps, q1[1].eps, p1[0].eps, p1[1].eps])
    }

    fn agrees<const S: usize, const N: usize>(h: f64)
    where
        CartPole<Dual64>: Step<Dual64, LobattoIIIAIIIB<S>, State = PhaseState<Dual64, 2>>,
        CartPole<f64>: Linearize<
            f64,
            LobattoIIIAIIIB<S>,
            State = PhaseState<f64, 2>,
            Inputs = [f64; 1],
            Linearized = Lin,
        >,
    {
        for (q, p, u) in STATES {
            let out = linearize::<S>(h, q, p, u);
            let z = [q[0], q[1], p[0], p[1]];
            let mut worst = 0.0f64;
            for k in 0..5 {
                let exact = if k < 4 {
                    out.a.column(k).into_owned()
                } else {
                    out.b.column(0).into_owned()
                };
                let dual = column::<S, N>(h, z, u, k);
                worst = worst.max((exact - dual).amax() / out.a.amax());
            }
            println!("s = {S}, z = {z:?}, u = {u}: max|[A B] − dual step| = {worst:.1e}");
            assert!(worst <= 1e-12, "s = {S} at {z:?}: {worst:e}");
        }
    }

    #[test]
    fn the_linearisation_is_the_dual_number_steps() {
        agrees::<2, 4>(0.02);
        agrees::<3, 6>(0.05);
    }
}

mod holonomic_oracles {
    //! `HolonomicLobatto(s)` on C2 away from the equilibrium: `[A B]` on the ambient
    //! `(q, p)` against central differences of the step and against the step in dual
    //! numbers (the next state read as `q¹ = q⁰ + h Σ bⱼ Vʲ`, `p¹ = D₂L(q¹, v¹)`, which
    //! the converged equations make equal to `p⁰ + h Σ b̂ⱼ Wʲ`).
    use super::*;
    use livens::solve::Inline;
    use livens::tableaux::PartitionedTableau;
    use livens_models::CartPoleConstrained;
    use num_dual::Dual64;

    type Lin2 = Linearized<PhaseState<f64, 3>, f64, 6, 1>;
    const L: f64 = 0.5;

    /// Consistent states: the bob on the rod's circle, velocities tangent to it.
    fn states() -> [([f64; 3], [f64; 3], f64); 3] {
        let at = |xc: f64, theta: f64, vc: f64, w: f64, u: f64| {
            let q = [xc, xc + L * theta.sin(), L * theta.cos()];
            let v = [vc, vc + L * w * theta.cos(), -L * w * theta.sin()];
            (q, [v[0], 0.1 * v[1], 0.1 * v[2]], u) // p = M v, M = diag(1, 0.1, 0.1)
        };
        [
            at(0.3, 0.4, 0.5, -0.3, 1.7),
            at(-1.2, -0.9, -0.2, 0.6, -4.0),
            at(0.05, 2.5, 1.1, 1.2, 0.3),
        ]
    }

    fn linearize2<const S: usize>(h: f64, q: [f64; 3], p: [f64; 3], u: f64) -> Lin2
    where
        CartPoleConstrained<f64>: Linearize<
            f64,
            HolonomicLobatto<S>,
            State = PhaseState<f64, 3>,
            Inputs = [f64; 1],
            Linearized = Lin2,
        >,
    {
        let model = CartPoleConstrained::new();
        let (q, p) = (SVector::from(q), SVector::from(p));
        let state = PhaseState {
            t: 0.0,
            q,
            p,
            v: model.velocity(&q, &p),
        };
        let mut sim = Integrator::new(model, HolonomicLobatto::<S>, h, state).with_options(tight());
        sim.set_inputs([u]).unwrap();
        sim.linearize().expect("the step converges")
    }

    fn next<const S: usize>(h: f64, z: &SVector<f64, 6>, u: f64) -> SVector<f64, 6>
    where
        CartPoleConstrained<f64>:
            Step<f64, HolonomicLobatto<S>, State = PhaseState<f64, 3>, Inputs = [f64; 1]>,
    {
        let model = CartPoleConstrained::new();
        let (q, p) = (
            z.fixed_rows::<3>(0).into_owned(),
            z.fixed_rows::<3>(3).into_owned(),
        );
        let state = PhaseState {
            t: 0.0,
            q,
            p,
            v: model.velocity(&q, &p),
        };
        let mut sim = Integrator::new(model, HolonomicLobatto::<S>, h, state).with_options(tight());
        sim.set_inputs([u]).unwrap();
        sim.step().expect("the step converges");
        let s = sim.state();
        SVector::from([s.q[0], s.q[1], s.q[2], s.p[0], s.p[1], s.p[2]])
    }

    /// Column `k` of `[A B]` by the dual step (`k < 6`: `z`, `k = 6`: `u`).
    fn dual_column<const S: usize, const N: usize>(
        h: f64,
        z: &SVector<f64, 6>,
        u: f64,
        k: usize,
    ) -> SVector<f64, 6>
    where
        CartPoleConstrained<Dual64>:
            Step<Dual64, HolonomicLobatto<S>, State = PhaseState<Dual64, 3>>,
    {
        let model = CartPoleConstrained::<Dual64>::default();
        let seeded = |i: usize, x: f64| Dual64::new(x, if i == k { 1.0 } else { 0.0 });
        let q = SVector::from([seeded(0, z[0]), seeded(1, z[1]), seeded(2, z[2])]);
        let p = SVector::from([seeded(3, z[3]), seeded(4, z[4]), seeded(5, z[5])]);
        let inputs = [seeded(6, u)];
        let v = model.velocity(&q, &p);
        let state = PhaseState {
            t: Dual64::from_re(0.0),
            q,
            p,
            v,
        };
        let scheme = HolonomicLobatto::<S>;
        let mut ws = Step::workspace::<Inline>(&model, &scheme);
        let context = StepContext {
            h: Dual64::from_re(h),
            t: Dual64::from_re(0.0),
            inputs: &inputs,
        };
        // Unknowns (V¹ … Vˢ, Λ¹ … Λˢ, v¹): the velocities at v, the multipliers at 0.
        let mut x = SVector::<Dual64, N>::zeros();
        for j in 0..S {
            x.fixed_rows_mut::<3>(3 * j).copy_from(&v);
        }
        x.fixed_rows_mut::<3>(N - 3).copy_from(&v);
        super::dual::newton(&model, &scheme, (context, &state), &mut ws, &mut x);
        let tab = PartitionedTableau::<S>::lobatto_iiia_iiib();
        let mut q1 = q;
        for j in 0..S {
            q1 += x.fixed_rows::<3>(3 * j).into_owned() * Dual64::from_re(h * tab.b[j]);
        }
        let p1 = model.l_v(&q1, &x.fixed_rows::<3>(N - 3).into_owned());
        SVector::from([
            q1[0].eps, q1[1].eps, q1[2].eps, p1[0].eps, p1[1].eps, p1[2].eps,
        ])
    }

    fn oracles<const S: usize, const N: usize>(h: f64)
    where
        CartPoleConstrained<f64>: Linearize<
            f64,
            HolonomicLobatto<S>,
            State = PhaseState<f64, 3>,
            Inputs = [f64; 1],
            Linearized = Lin2,
        >,
        CartPoleConstrained<Dual64>:
            Step<Dual64, HolonomicLobatto<S>, State = PhaseState<Dual64, 3>>,
    {
        let eps = 1e-6;
        for (q, p, u) in states() {
            let out = linearize2::<S>(h, q, p, u);
            let z = SVector::from([q[0], q[1], q[2], p[0], p[1], p[2]]);
            let (mut fd_error, mut dual_error) = (0.0f64, 0.0f64);
            let scale = out.a.amax();
            for k in 0..7 {
                let exact = if k < 6 {
                    out.a.column(k).into_owned()
                } else {
                    out.b.column(0).into_owned()
                };
                let (mut zp, mut zm, mut up, mut um) = (z, z, u, u);
                if k < 6 {
                    zp[k] += eps;
                    zm[k] -= eps;
                } else {
                    up += eps;
                    um -= eps;
                }
                let fd = (next::<S>(h, &zp, up) - next::<S>(h, &zm, um)) / (2.0 * eps);
                fd_error = fd_error.max((exact - fd).amax() / scale);
                dual_error =
                    dual_error.max((exact - dual_column::<S, N>(h, &z, u, k)).amax() / scale);
            }
            println!("HolonomicLobatto({S}) at {z:?}, u = {u}: against central differences {fd_error:.1e}, against the dual step {dual_error:.1e}");
            assert!(fd_error <= 1e-7, "{fd_error:e}");
            assert!(dual_error <= 1e-12, "{dual_error:e}");
        }
    }

    /// RATTLE is symplectic on the constraint manifold `{g(q) = 0, G M⁻¹ p = 0}`: with
    /// `P` the projector onto its tangent space at a consistent state,
    /// `Pᵀ (AᵀΩA − Ω) P = 0` (on the ambient `(q, p)` it is not: `A` moves vectors off
    /// the manifold in directions the step never sees).
    #[test]
    fn the_constrained_linearisation_is_symplectic_on_the_manifold() {
        let mut omega = SMatrix::<f64, 6, 6>::zeros();
        omega.fixed_view_mut::<3, 3>(0, 3).fill_with_identity();
        omega
            .fixed_view_mut::<3, 3>(3, 0)
            .copy_from(&(-SMatrix::<f64, 3, 3>::identity()));
        for (q, p, u) in states() {
            let a = linearize2::<2>(0.05, q, p, u).a;
            // The constraint rows at (q, p), w = M⁻¹ p: G δq = 0 and
            // ∂(G w)/∂q δq + G M⁻¹ δp = 0, with G = (−d, d, z_b)/l², d = x_b − x_c.
            let w = [p[0], p[1] / 0.1, p[2] / 0.1];
            let d = q[1] - q[0];
            let g = [-d / (L * L), d / (L * L), q[2] / (L * L)];
            let dgw = [
                -(w[1] - w[0]) / (L * L),
                (w[1] - w[0]) / (L * L),
                w[2] / (L * L),
            ];
            #[rustfmt::skip]
            let c = SMatrix::<f64, 2, 6>::from_row_slice(&[
                g[0], g[1], g[2], 0.0, 0.0, 0.0,
                dgw[0], dgw[1], dgw[2], g[0], g[1] / 0.1, g[2] / 0.1,
            ]);
            let projector = SMatrix::<f64, 6, 6>::identity()
                - c.transpose() * (c * c.transpose()).try_inverse().unwrap() * c;
            let restricted =
                projector.transpose() * (a.transpose() * omega * a - omega) * projector;
            let ambient = (a.transpose() * omega * a - omega).amax();
            println!(
                "RATTLE at {q:?}: on the manifold {:.1e}, ambient {ambient:.1e}",
                restricted.amax()
            );
            assert!(restricted.amax() <= 1e-12, "{:e}", restricted.amax());
            assert!(
                ambient > 1e-3,
                "the ambient map is not symplectic: {ambient:e}"
            );
        }
    }

    #[test]
    fn the_constrained_linearisation_is_the_steps_derivative() {
        // C2 declares `HolonomicLobatto(2)`, RATTLE for its Lagrangian.
        oracles::<2, 11>(0.02);
        oracles::<2, 11>(0.05);
    }
}
