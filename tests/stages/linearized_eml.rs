//! The linearised step of EML (spec `next_packages.md` §D.3) on the cart-pole: the
//! step's carried state is `z = (q, v, p)` (the residual reads `v⁰` in (72a) and the
//! partitioned derivatives of `T`, `p⁰` in (72b), the hidden row `G(q¹)p¹ − G(q⁰)p⁰`),
//! so `A = ∂(q¹, v¹, p¹)/∂(q⁰, v⁰, p⁰)` is `3d × 3d`, from the implicit-function theorem
//! on the symbolic residual's derivatives that `model!` emits. Checked against central
//! differences of the step at states away from the equilibrium, on C1 (minimal
//! coordinates) and on C2 (the rod a holonomic constraint, the ambient `z`); and EML,
//! an energy–momentum scheme, shown not symplectic where the Lobatto family is.
use livens::prelude::*;
use livens::{Linearize, Linearized};
use livens_models::{CartPole, CartPoleConstrained};

fn tight() -> NewtonOptions<f64> {
    NewtonOptions {
        tolerance: 1e-13,
        ..NewtonOptions::default()
    }
}

fn max_abs<const R: usize, const C: usize>(m: &SMatrix<f64, R, C>) -> f64 {
    m.iter().fold(0.0, |a, x| a.max(x.abs()))
}

/// A model whose step of the EML scheme `S` (`Eml`, `EmlPaper`) is linearised on
/// `z = (q, v, p)` (`NZ = 3D`) with one input.
trait EmlLinear<S, const D: usize, const M: usize, const NZ: usize>:
    Linearize<
        f64,
        S,
        State = NodeState<f64, D, M>,
        Inputs = [f64; 1],
        Linearized = Linearized<NodeState<f64, D, M>, f64, NZ, 1>,
    > + Copy
{
}

impl<Mdl, S, const D: usize, const M: usize, const NZ: usize> EmlLinear<S, D, M, NZ> for Mdl where
    Mdl: Linearize<
            f64,
            S,
            State = NodeState<f64, D, M>,
            Inputs = [f64; 1],
            Linearized = Linearized<NodeState<f64, D, M>, f64, NZ, 1>,
        > + Copy
{
}

/// `z = (q, v, p)` of a state, in the order of `CARRIED`.
fn carried<const D: usize, const M: usize, const NZ: usize>(
    s: &NodeState<f64, D, M>,
) -> SVector<f64, NZ> {
    SVector::from_fn(|k, _| match k / D {
        0 => s.q[k],
        1 => s.v[k - D],
        _ => s.p[k - 2 * D],
    })
}

/// `base` with its `(q, v, p)` replaced by `z` (`λ`, `γ`, Newton's guesses, kept).
fn with_carried<const D: usize, const M: usize, const NZ: usize>(
    base: &NodeState<f64, D, M>,
    z: &SVector<f64, NZ>,
) -> NodeState<f64, D, M> {
    NodeState {
        q: SVector::from_fn(|i, _| z[i]),
        v: SVector::from_fn(|i, _| z[D + i]),
        p: SVector::from_fn(|i, _| z[2 * D + i]),
        ..*base
    }
}

fn integrator<
    S: Default,
    Mdl: EmlLinear<S, D, M, NZ>,
    const D: usize,
    const M: usize,
    const NZ: usize,
>(
    model: Mdl,
    h: f64,
    state: NodeState<f64, D, M>,
    u: f64,
) -> Integrator<f64, Mdl, S> {
    let mut sim = Integrator::new(model, S::default(), h, state).with_options(tight());
    sim.set_inputs([u]).unwrap();
    sim
}

/// The step from `state` under `u`, linearised; the state left as it was.
fn linearize<
    S: Default,
    Mdl: EmlLinear<S, D, M, NZ>,
    const D: usize,
    const M: usize,
    const NZ: usize,
>(
    model: Mdl,
    h: f64,
    state: NodeState<f64, D, M>,
    u: f64,
) -> Linearized<NodeState<f64, D, M>, f64, NZ, 1> {
    let mut sim = integrator::<S, _, D, M, NZ>(model, h, state, u);
    let out = sim.linearize().expect("the step converges");
    assert_eq!(*sim.state(), state, "linearize leaves the state as it was");
    out
}

/// `z⁺` of a step from `base` with its carried state replaced by `z`, under `u`.
fn next<
    S: Default,
    Mdl: EmlLinear<S, D, M, NZ>,
    const D: usize,
    const M: usize,
    const NZ: usize,
>(
    model: Mdl,
    h: f64,
    base: &NodeState<f64, D, M>,
    z: &SVector<f64, NZ>,
    u: f64,
) -> SVector<f64, NZ> {
    let mut sim = integrator::<S, _, D, M, NZ>(model, h, with_carried(base, z), u);
    sim.step().expect("the step converges");
    carried(sim.state())
}

/// `max|[A B] − FD| / max|[A B]|` with `FD` the central differences (`ε = 1e-6`) of
/// `step()` in every component of `z` and in `u`.
fn central_difference_error<
    S: Default,
    Mdl: EmlLinear<S, D, M, NZ>,
    const D: usize,
    const M: usize,
    const NZ: usize,
>(
    model: Mdl,
    h: f64,
    state: &NodeState<f64, D, M>,
    u: f64,
) -> f64 {
    assert_eq!(NZ, 3 * D, "z = (q, v, p)");
    let eps = 1e-6;
    let out = linearize::<S, _, D, M, NZ>(model, h, *state, u);
    let z = carried::<D, M, NZ>(state);
    let mut error = 0.0_f64;
    for k in 0..=NZ {
        let (mut zp, mut zm, mut up, mut um) = (z, z, u, u);
        if k < NZ {
            zp[k] += eps;
            zm[k] -= eps;
        } else {
            up += eps;
            um -= eps;
        }
        let fd = (next::<S, _, D, M, NZ>(model, h, state, &zp, up)
            - next::<S, _, D, M, NZ>(model, h, state, &zm, um))
            / (2.0 * eps);
        let exact = if k < NZ {
            out.a.column(k).into_owned()
        } else {
            out.b.column(0).into_owned()
        };
        error = error.max(max_abs(&(exact - fd)));
    }
    error / max_abs(&out.a).max(max_abs(&out.b))
}

/// States of C1 away from the equilibrium, as `(q, v, u)`: the cart moving, the pole
/// tilted and swinging, pushed.
const STATES: [([f64; 2], [f64; 2], f64); 3] = [
    ([0.3, 0.4], [0.5, -0.8], 1.7),
    ([-1.2, -0.9], [-0.2, 1.5], -4.0),
    ([0.05, 2.5], [1.1, 0.6], 0.3),
];

/// A consistent state of C1 (`p = ∂L/∂v`).
fn c1_state(q: [f64; 2], v: [f64; 2]) -> NodeState<f64, 2, 0> {
    let reject = Consistency::Reject { tolerance: 1e-12 };
    NodeState::consistent(&CartPole::new(), q.into(), v.into(), reject).unwrap()
}

#[test]
fn c1s_linearisation_agrees_with_central_differences_of_the_step() {
    let model = CartPole::new();
    assert_eq!(
        <CartPole<f64> as Linearize<f64, Eml>>::CARRIED,
        ["q.x", "q.theta", "v.x", "v.theta", "p.x", "p.theta"]
    );
    for h in [0.02, 0.05] {
        for (q, v, u) in STATES {
            let error = central_difference_error::<Eml, _, 2, 0, 6>(model, h, &c1_state(q, v), u);
            println!("C1 EML h = {h}, q = {q:?}, v = {v:?}, u = {u}: relative max|[A B] − FD| = {error:.1e}");
            assert!(error <= 1e-7, "h = {h} at {q:?}, {v:?}: {error:e}");
        }
    }
}

/// C2's state with the bob where C1's `(x, θ)` and `(ẋ, θ̇)` put it (`x_b = x + l sin θ`,
/// `z_b = l cos θ`), consistent with the rod (`g = 0`, `G v = 0`; `λ` solved).
fn c2_state(q: [f64; 2], v: [f64; 2]) -> NodeState<f64, 3, 1> {
    let model = CartPoleConstrained::new();
    let (l, [x, theta], [xd, thd]) = (model.l, q, v);
    let (s, c) = theta.sin_cos();
    let q = [x, x + l * s, l * c];
    let v = [xd, xd + l * c * thd, -l * s * thd];
    let reject = Consistency::Reject { tolerance: 1e-12 };
    NodeState::consistent(&model, q.into(), v.into(), reject).unwrap()
}

/// On C2 `z = (q, v, p)` is ambient (`9 × 9`): the differences move the state off the
/// constraint and its hidden constraints, which the step's equations take as they come
/// (`g(q¹) = 0`; the stabilised `Eml` also `G(q¹)v¹ = 0`, `G(q¹)p¹ = G(q⁰)p⁰`, which
/// the paper's (72a–d), `EmlPaper`, does not have).
fn c2_central_differences<S: Default>(name: &str)
where
    CartPoleConstrained<f64>: EmlLinear<S, 3, 1, 9>,
{
    let model = CartPoleConstrained::new();
    assert_eq!(
        <CartPoleConstrained<f64> as Linearize<f64, S>>::CARRIED,
        ["q.xc", "q.xb", "q.zb", "v.xc", "v.xb", "v.zb", "p.xc", "p.xb", "p.zb"]
    );
    for h in [0.02, 0.05] {
        for (q, v, u) in STATES {
            let error = central_difference_error::<S, _, 3, 1, 9>(model, h, &c2_state(q, v), u);
            println!("C2 {name} h = {h}, q = {q:?}, v = {v:?}, u = {u}: relative max|[A B] − FD| = {error:.1e}");
            assert!(error <= 1e-7, "{name}, h = {h} at {q:?}, {v:?}: {error:e}");
        }
    }
}

#[test]
fn c2s_linearisation_agrees_with_central_differences_of_the_step() {
    c2_central_differences::<Eml>("Eml");
    c2_central_differences::<EmlPaper>("EmlPaper");
}

/// The symplecticity defect `max|ÃᵀΩÃ − Ω|` of EML's step as a map of the canonical
/// `(q, p)` at a consistent C1 state, inputs held.
///
/// EML carries `v` besides `(q, p)`, so its `A` is `6 × 6` on `(q, v, p)` and `Ω` has
/// no meaning there. But on a consistent state `v = M(q)⁻¹p` (C1's kinetic energy is
/// quadratic in `v`), and the step started there is a map `(q⁰, p⁰) ↦ (q¹, p¹)` of
/// phase space, whose Jacobian is `Ã = P A E` with `E = ∂(q, v, p)/∂(q, p)`, the rows
/// `(I, ∂_q(M⁻¹p), 0; 0, M⁻¹, I)` inserting `δv = ∂_q(M⁻¹p) δq + M⁻¹ δp`, and `P`
/// reading `(q¹, p¹)` off `z⁺`. (The next step starts from EML's `v¹`, not from
/// `M(q¹)⁻¹p¹`: the one-step map is what a symplectic scheme's step would be, and what
/// is compared.) A variational scheme's map is symplectic, `ÃᵀΩÃ = Ω` (the Lobatto
/// family's passes at 1e-12, `linearized.rs`); an energy–momentum scheme's is not in
/// general (a scheme that conserved both the energy and the symplectic form would be
/// the exact flow up to a time reparametrisation, Ge and Marsden 1988), which is the
/// spec's check.
fn c1_symplecticity_defect(h: f64, q: [f64; 2], v: [f64; 2], u: f64) -> f64 {
    let model = CartPole::new();
    let state = c1_state(q, v);
    let a: SMatrix<f64, 6, 6> = linearize::<Eml, _, 2, 0, 6>(model, h, state, u).a;
    // M(q) of `L = ½(mc + m) ẋ² + m l cos θ ẋ θ̇ + ½ m l² θ̇² − V` and ∂M/∂θ.
    let (mc, m, l) = (model.mc, model.m, model.l);
    let (s, c) = state.q[1].sin_cos();
    let mass = SMatrix::<f64, 2, 2>::new(mc + m, m * l * c, m * l * c, m * l * l);
    let d_mass = SMatrix::<f64, 2, 2>::new(0.0, -m * l * s, -m * l * s, 0.0);
    let inverse = mass.try_inverse().unwrap();
    // ∂(M⁻¹p)/∂θ = −M⁻¹ M_θ M⁻¹ p; `x` is cyclic.
    let dv_dtheta = -inverse * d_mass * inverse * state.p;
    let mut e = SMatrix::<f64, 6, 4>::zeros();
    e.fixed_view_mut::<2, 2>(0, 0).fill_with_identity();
    e.fixed_view_mut::<2, 1>(2, 1).copy_from(&dv_dtheta);
    e.fixed_view_mut::<2, 2>(2, 2).copy_from(&inverse);
    e.fixed_view_mut::<2, 2>(4, 2).fill_with_identity();
    let mut p = SMatrix::<f64, 4, 6>::zeros();
    p.fixed_view_mut::<2, 2>(0, 0).fill_with_identity();
    p.fixed_view_mut::<2, 2>(2, 4).fill_with_identity();
    let reduced = p * a * e;
    let mut omega = SMatrix::<f64, 4, 4>::zeros();
    omega.fixed_view_mut::<2, 2>(0, 2).fill_with_identity();
    omega
        .fixed_view_mut::<2, 2>(2, 0)
        .copy_from(&(-SMatrix::<f64, 2, 2>::identity()));
    max_abs(&(reduced.transpose() * omega * reduced - omega))
}

/// EML is not symplectic (spec §D.3: "`AᵀΩA = Ω` … this must fail for `Eml`"): away
/// from the equilibrium the defect of its `(q, p)` map is far above round-off, and it
/// is a truncation error, shrinking with `h` at the local order of a second-order
/// scheme, `O(h³)` (a ratio near 8 per halving: 7.0 to 10.2 measured at `h` = 0.05,
/// 0.025, 0.0125). At the upright equilibrium, where the
/// linearisation only sees the quadratic Lagrangian and EML's discrete gradients are the
/// midpoint rule's, the same construction gives a symplectic map to round-off: what it
/// measures is the scheme, not the construction.
#[test]
fn eml_is_not_symplectic() {
    let equilibrium = c1_symplecticity_defect(0.05, [0.0; 2], [0.0; 2], 0.0);
    println!("EML (q, p) symplecticity defect at the equilibrium, h = 0.05: {equilibrium:.1e}");
    assert!(equilibrium <= 1e-12, "{equilibrium:e}");
    for (q, v, u) in STATES {
        let defects = [0.05, 0.025, 0.0125].map(|h| c1_symplecticity_defect(h, q, v, u));
        let ratios = [defects[0] / defects[1], defects[1] / defects[2]];
        println!(
            "EML (q, p) symplecticity defect at q = {q:?}, v = {v:?}, u = {u}, h = 0.05, 0.025, 0.0125: {:.2e}, {:.2e}, {:.2e} (ratios {:.2}, {:.2})",
            defects[0], defects[1], defects[2], ratios[0], ratios[1]
        );
        assert!(defects[0] >= 1e-6, "{defects:?}");
        // The observed order, log₂ of the ratio, within half an order of 3.
        for r in ratios {
            let order = r.log2();
            assert!((2.5..=3.5).contains(&order), "ratio {r}: {defects:?}");
        }
    }
}

/// The spec's second oracle: the step in dual numbers, one component of
/// `(q⁰, v⁰, p⁰, u)` seeded, Newton on `Step::equations` in `Dual64` until the real part
/// has converged and then on, so that the dual part is the solution's exact derivative
/// (`tests/stages/linearized.rs`, `dual::newton`). EML's unknowns start with
/// `(q¹, v¹, p¹)` (then the multipliers), read off as `z⁺`. Returns
/// `max|[A B] − dual step| / max|A|`.
fn dual_error<S, Mdl, MD, const D: usize, const M: usize, const NZ: usize, const N: usize>(
    (model, dual_model, scheme): (Mdl, MD, S),
    h: f64,
    state: &NodeState<f64, D, M>,
    u: f64,
) -> f64
where
    S: Default,
    Mdl: EmlLinear<S, D, M, NZ>,
    MD: Step<num_dual::Dual64, S, State = NodeState<num_dual::Dual64, D, M>>,
{
    use livens::solve::Inline;
    use num_dual::Dual64;
    assert_eq!(NZ, 3 * D, "z = (q, v, p)");
    let out = linearize::<S, _, D, M, NZ>(model, h, *state, u);
    let z = carried::<D, M, NZ>(state);
    let mut worst = 0.0_f64;
    for k in 0..=NZ {
        let seeded = |i: usize| {
            let value = if i < NZ { z[i] } else { u };
            Dual64::new(value, if i == k { 1.0 } else { 0.0 })
        };
        let known = NodeState {
            t: Dual64::from_re(0.0),
            q: SVector::from_fn(|i, _| seeded(i)),
            v: SVector::from_fn(|i, _| seeded(D + i)),
            p: SVector::from_fn(|i, _| seeded(2 * D + i)),
            lambda: SVector::zeros(),
            gamma: SVector::zeros(),
        };
        let inputs = [seeded(NZ)];
        let context = StepContext {
            h: Dual64::from_re(h),
            t: Dual64::from_re(0.0),
            inputs: &inputs,
        };
        let mut ws = dual_model.workspace::<Inline>(&scheme);
        let mut x = SVector::<Dual64, N>::from_fn(|i, _| {
            if i < NZ {
                seeded(i)
            } else {
                Dual64::from_re(0.0)
            }
        });
        crate::linearized::dual::newton(&dual_model, &scheme, (context, &known), &mut ws, &mut x);
        let dual = SVector::<f64, NZ>::from_fn(|i, _| x[i].eps);
        let exact = if k < NZ {
            out.a.column(k).into_owned()
        } else {
            out.b.column(0).into_owned()
        };
        worst = worst.max(max_abs(&(exact - dual)) / max_abs(&out.a));
    }
    worst
}

#[test]
fn the_linearisation_is_the_dual_number_steps() {
    use num_dual::Dual64;
    let h = 0.05;
    for (q, v, u) in STATES {
        let c1 = (CartPole::new(), CartPole::<Dual64>::default(), Eml);
        let e1 = dual_error::<_, _, _, 2, 0, 6, 6>(c1, h, &c1_state(q, v), u);
        let c2 = (
            CartPoleConstrained::new(),
            CartPoleConstrained::<Dual64>::default(),
            Eml,
        );
        let e2 = dual_error::<_, _, _, 3, 1, 9, 12>(c2, h, &c2_state(q, v), u);
        let c2p = (
            CartPoleConstrained::new(),
            CartPoleConstrained::<Dual64>::default(),
            EmlPaper,
        );
        let e3 = dual_error::<_, _, _, 3, 1, 9, 10>(c2p, h, &c2_state(q, v), u);
        println!("q = {q:?}, v = {v:?}, u = {u}: max|[A B] − dual step| C1 Eml {e1:.1e}, C2 Eml {e2:.1e}, C2 EmlPaper {e3:.1e}");
        for e in [e1, e2, e3] {
            assert!(e <= 1e-12, "{e:e}");
        }
    }
}
