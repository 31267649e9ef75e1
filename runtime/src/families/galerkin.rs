//! Galerkin variational integrators for holonomically constrained systems (Wenger,
//! Ober-Blöbaum, Leyendecker, "Construction and analysis of higher order variational
//! integrators for dynamical systems with holonomic constraints", seed
//! `003_7c34c28b0df0e267.txt`, eq. (22), the paper's case A; spec `next_packages.md`
//! §B.3), assembled at run time from the model's [`PointKernels`] and
//! [`HolonomicKernels`] for positions of any degree `S`, multipliers of degree `W` and a
//! Lagrangian quadrature of `R` nodes (the tables: [`GalerkinTable`]), the scheme
//! [`Galerkin<S, W, Q, R>`](Galerkin) of the catalogue, its rule `Q` the type
//! [`Gauss`](crate::schemes::Gauss) or [`Lobatto`](crate::schemes::Lobatto).
//!
//! On a step the positions are `q_d(τ) = Σ_ν q^ν ℓ_ν(τ)`, `q⁰ = qₖ`, `qˢ = qₖ₊₁`, and the
//! multipliers `λ⁰ … λ^w` sit at the Lobatto points `f_a`, `λ^w = λₖ₊₁⁰` belonging to the
//! next step. With `Q_i = q_d(cᵢ)`, `V_i = q̇_d(cᵢ)/h`, `X_a = q_d(f_a)`, the Lagrangian's
//! sign convention `L − g·λ` and (the extraction prints `+` in the first line; the sign
//! below is the one that differentiates the constraint integral, spec §B.3):
//!
//! ```text
//! ∂_ν L_d = Σᵢ bᵢ [ h ℓ_ν(cᵢ) (D₁L + F)(Qᵢ, Vᵢ) + ℓ̇_ν(cᵢ) D₂L(Qᵢ, Vᵢ) ]
//! F_ν     = h Σ_{a=1}^{w−1} e_a ℓ_ν(f_a) G(X_a)ᵀ λ^a                       (interior points)
//! R₀ = p̃ₖ + ∂₀L_d − ω h e₀ G(qₖ)ᵀ λ⁰ − F₀                                (22), ν = 0
//! R_ν = ∂_ν L_d − F_ν                                   ν = 1 … s − 1     (22)
//! C_a = g(X_a)                                          a = 1 … w         (22), stiffly accurate
//! p̃ₖ₊₁ = ∂_s L_d − F_s
//! ```
//!
//! `ω = 1` on the first step and 2 after (`λₖ⁰` gets `h e₀` from this interval and
//! `h e_w = h e₀` from the one before; the state's `lagged` says which). Unknowns
//! `X = (q¹ … qˢ, λ⁰ … λ^{w−1})`, `N = S·D + W·M`; equations in the same block order,
//! `R₀ … R_{s−1}` facing the `qᵛ` and `C₁ … C_w` the multipliers.
//!
//! The exact Jacobian, from the point kernels at the quadrature nodes and the
//! constraint kernels at the multiplier points (`K_a = Σ λ^a D²g(X_a)`):
//!
//! ```text
//! ∂(∂_ν L_d)/∂q^μ = Σᵢ bᵢ [ h ℓ_ν ℓ_μ (D₁₁L + F_q) + ℓ_ν ℓ̇_μ (D₁₂L + F_v) + ℓ̇_ν ℓ_μ D₂₁L + ℓ̇_ν ℓ̇_μ D₂₂L / h ]
//! ∂F_ν/∂q^μ = h Σ_{a=1}^{w−1} e_a ℓ_ν(f_a) ℓ_μ(f_a) K_a,    ∂F_ν/∂λ^a = h e_a ℓ_ν(f_a) G(X_a)ᵀ
//! ∂R₀/∂λ⁰ = −ω h e₀ G(qₖ)ᵀ,                                 ∂C_a/∂q^μ = ℓ_μ(f_a) G(X_a)
//! ```
//!
//! After the step the state reports the projected momentum `ℙ p̃ₖ₊₁` (eq. (4): `p̃ − Gᵀμ`
//! with `G H_p = 0`, solved as `D₂L(q, v) + Gᵀμ = p̃`, `G v = 0`; one Newton iteration for
//! a kinetic energy quadratic in `v`), its velocity, and `λ` of the continuous equations
//! (70); the paper's lagged `(pₖ⁰, λₖ⁰)` ride along (`GalerkinState`).
//!
//! The step, Newton's system and the workspace are the stage skeleton's
//! ([`super::stages`]) with the Galerkin tables as its coefficients; the Jacobian is
//! factored by the dense LU (no elimination plan yet).
use core::marker::PhantomData;

use nalgebra::{SMatrix, SVector};

use super::blocks::{Assembly, Kernel};
use super::point::Hessians;
use super::stages::{
    block, set_block, Known, StageBuffers, StageEquations, StageWorkspace, StepStart,
};
use crate::error::SolveError;
use crate::kernels::{HolonomicKernels, PointKernels};
use crate::model::Real;
use crate::schemes::{Galerkin, Quadrature};
use crate::solve::lu::Lu;
use crate::solve::Storage;
use crate::state::multiplier::holonomic_multiplier;
use crate::state::{GalerkinState, Lagged};
use crate::tableaux::{admissible, GalerkinTable, Inadmissible, Quadrature as Rule, MAX_POINTS};

pub use super::papers_options as default_options;
pub use super::stages::{equations, stage_system as step_system, step};

/// Memory of a step: Newton's workspace for the `N = S·D + W·M` unknowns, the tables
/// and the kernel buffers, every `D × D` matrix in storage `K`; the marker's parameters
/// in its order ([`Galerkin<S, W, Q, R>`](Galerkin)), then the model's sizes.
#[rustfmt::skip]
pub type GalerkinWorkspace<T, const S: usize, const W: usize, Q, const R: usize, const D: usize, const M: usize, const N: usize, K> =
    StageWorkspace<T, Buffers<T, D, M, W, Q, R, K>, S, N, K, GalerkinTable<S, W, R>>;

/// The tables' rule of the choice `Q` ([`schemes::Gauss`](crate::schemes::Gauss),
/// [`schemes::Lobatto`](crate::schemes::Lobatto)), by its name.
const fn rule<Q: Quadrature>() -> Rule {
    match Rule::named(Q::NAME) {
        Some(rule) => rule,
        None => panic!("a Galerkin scheme needs a quadrature rule, `Gauss` or `Lobatto`"),
    }
}

impl<
        T: Real,
        const S: usize,
        const W: usize,
        Q: Quadrature,
        const R: usize,
        const D: usize,
        const M: usize,
        const N: usize,
        K: Storage,
    > GalerkinWorkspace<T, S, W, Q, R, D, M, N, K>
{
    /// The workspace of `scheme` (its type carries the parameters), or why its
    /// parameters make no scheme.
    pub fn galerkin(_scheme: &Galerkin<S, W, Q, R>) -> Result<Self, Inadmissible> {
        GalerkinTable::new(const { rule::<Q>() }).map(Self::with_coefficients)
    }

    /// The workspace of a scheme a model declares (what `model!` emits, as for every
    /// assembled family): `model!` refuses inadmissible parameters, and for them this
    /// does not compile.
    pub fn declared() -> Self {
        const {
            if admissible(S, W, rule::<Q>(), R).is_err() {
                panic!("an inadmissible Galerkin scheme (see tableaux::admissible)")
            }
        };
        match GalerkinTable::new(rule::<Q>()) {
            Ok(tables) => Self::with_coefficients(tables),
            Err(_) => unreachable!("admissible"),
        }
    }
}

/// The family's kernel buffers: the Lagrangian's second derivatives at one quadrature
/// node, `G` and `Σ λ D²g` at one multiplier point.
#[derive(Clone, Debug, PartialEq)]
pub struct Buffers<
    T: Real,
    const D: usize,
    const M: usize,
    const W: usize,
    Q,
    const R: usize,
    K: Storage,
> {
    hessians: Hessians<T, D, K>,
    contracted: K::Matrix<T, D>,
    matrix: [[T; M]; D],
    /// The rule, which selects the scheme marker the buffers step.
    rule: PhantomData<fn() -> Q>,
}

/// Unknowns `(q¹ … qˢ, λ⁰ … λ^{w−1})`: `N = S·D + W·M`.
impl<
        T: Real,
        const D: usize,
        const M: usize,
        const W: usize,
        Q: Quadrature,
        const R: usize,
        K: Storage,
    > StageBuffers for Buffers<T, D, M, W, Q, R, K>
{
    const PER_STAGE: usize = D;
    const AFTER_STAGES: usize = W * M;
    fn zeros() -> Self {
        Self {
            hessians: Hessians::zeros(),
            contracted: K::zeros(),
            matrix: [[T::zero(); M]; D],
            rule: PhantomData,
        }
    }
}

/// What a state gives a step besides `(qₖ, ℙp̃ₖ)`: the carried `p̃ₖ` and `ω`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Carried<T: Real, const D: usize> {
    /// `p̃ₖ`.
    pub p_tilde: SVector<T, D>,
    /// `ω = 1` on a first step, 2 after.
    pub omega: T,
}

impl<T, Mdl, const D: usize, const M: usize> StepStart<T, Mdl, D> for GalerkinState<T, D, M>
where
    T: Real,
{
    type Extra = Carried<T, D>;
    fn extra(&self, _: &Mdl) -> Result<Carried<T, D>, SolveError<T>> {
        Ok(self.extra_for_equations(&()))
    }
    fn extra_for_equations(&self, _: &Mdl) -> Carried<T, D> {
        let omega = if self.lagged.is_some() { 2.0 } else { 1.0 };
        Carried {
            p_tilde: self.p_tilde,
            omega: nalgebra::convert(omega),
        }
    }
}

/// The known values of a Galerkin step.
type Node<'a, T, Mdl, const S: usize, const W: usize, const R: usize, const D: usize> =
    Known<'a, T, Mdl, Carried<T, D>, S, D, D, GalerkinTable<S, W, R>>;

/// `λ^a`'s first unknown.
const fn multiplier<const S: usize, const D: usize, const M: usize>(a: usize) -> usize {
    S * D + a * M
}

/// `C_a`'s first row, `a = 1 … w`.
const fn constraint<const S: usize, const D: usize, const M: usize>(a: usize) -> usize {
    S * D + (a - 1) * M
}

fn c<T: Real>(x: f64) -> T {
    nalgebra::convert(x)
}

/// The values an iterate determines: the control points, the quadrature points and
/// velocities, the multiplier points and multipliers.
struct Iterate<T: Real, const D: usize, const M: usize, const R: usize> {
    /// `q⁰ … qˢ`.
    control: [SVector<T, D>; MAX_POINTS],
    /// `Qᵢ`, `Vᵢ`.
    q: [SVector<T, D>; R],
    v: [SVector<T, D>; R],
    /// `X₀ … X_w`.
    x: [SVector<T, D>; MAX_POINTS],
    /// `λ⁰ … λ^{w−1}`.
    lambda: [SVector<T, M>; MAX_POINTS],
}

impl<T: Real, const D: usize, const M: usize, const R: usize> Iterate<T, D, M, R> {
    fn new<Mdl, const S: usize, const W: usize, const N: usize>(
        known: &Node<'_, T, Mdl, S, W, R, D>,
        x: &SVector<T, N>,
    ) -> Self {
        let tab = known.tableau;
        let mut control = [SVector::zeros(); MAX_POINTS];
        control[0] = *known.q0;
        for (nu, point) in control.iter_mut().enumerate().take(S + 1).skip(1) {
            *point = block(x, (nu - 1) * D);
        }
        // Σ_ν w_ν q^ν as q⁰ Σ_ν w_ν + Σ_{ν≥1} w_ν (q^ν − q⁰), with Σ_ν ℓ_ν = 1 and
        // Σ_ν ℓ̇_ν = 0 exactly: the increments are small, so the sums lose no digits to
        // cancellation (a rounding per step in the momentum map otherwise, measured
        // 2e-13 in `I_z` over 200 steps of the double pendulum at s = 3).
        let increments: [SVector<T, D>; MAX_POINTS] =
            core::array::from_fn(|nu| control[nu] - control[0]);
        let combine = |start: SVector<T, D>, weights: &[f64; MAX_POINTS]| {
            let mut sum = start;
            for (increment, &w) in increments.iter().zip(weights).take(S + 1).skip(1) {
                sum.axpy(c(w), increment, T::one());
            }
            sum
        };
        let inv_h = T::one() / known.h;
        let q = core::array::from_fn(|i| combine(control[0], &tab.basis[i]));
        let v = core::array::from_fn(|i| combine(SVector::zeros(), &tab.slope[i]) * inv_h);
        let mut xa = [SVector::zeros(); MAX_POINTS];
        for (a, point) in xa.iter_mut().enumerate().take(W + 1) {
            *point = combine(control[0], &tab.at_multiplier[a]);
        }
        // X₀ and X_w are control points: exactly, not through the basis' round-off.
        xa[0] = control[0];
        xa[W] = control[S];
        let mut lambda = [SVector::zeros(); MAX_POINTS];
        for (a, l) in lambda.iter_mut().enumerate().take(W) {
            *l = block(x, multiplier::<S, D, M>(a));
        }
        Self {
            control,
            q,
            v,
            x: xa,
            lambda,
        }
    }
}

impl<T: Real, const D: usize, const M: usize, const W: usize, Q, const R: usize, K: Storage>
    Buffers<T, D, M, W, Q, R, K>
{
    /// `∂_ν L_d − F_ν` for every `ν = 0 … S` (module docs), slot `ν`.
    fn discrete_forces<Mdl, const S: usize>(
        &mut self,
        known: &Node<'_, T, Mdl, S, W, R, D>,
        it: &Iterate<T, D, M, R>,
    ) -> [SVector<T, D>; MAX_POINTS]
    where
        Mdl: PointKernels<T, D> + HolonomicKernels<T, D, M>,
    {
        let (model, h, tab) = (known.model, known.h, known.tableau);
        let u = known.inputs();
        let mut out = [SVector::<T, D>::zeros(); MAX_POINTS];
        for i in 0..R {
            let (q, v) = (&it.q[i], &it.v[i]);
            let mut force = model.l_q(q, v);
            if Mdl::FORCED {
                force += model.f(known.t0 + c::<T>(tab.c[i]) * h, q, v, &u);
            }
            let momentum = model.l_v(q, v);
            for (nu, slot) in out.iter_mut().enumerate().take(S + 1) {
                let b = tab.b[i];
                slot.axpy(h * c(b * tab.basis[i][nu]), &force, T::one());
                slot.axpy(c(b * tab.slope[i][nu]), &momentum, T::one());
            }
        }
        for a in 1..W {
            model.phi_q(&it.x[a], &mut self.matrix);
            let g_t_lambda = transpose_times(&self.matrix, &it.lambda[a]);
            for (nu, slot) in out.iter_mut().enumerate().take(S + 1) {
                let f = -h * c(tab.e[a] * tab.at_multiplier[a][nu]);
                slot.axpy(f, &g_t_lambda, T::one());
            }
        }
        out
    }
}

/// `Gᵀ λ` for `G` in column storage (`g[k][a] = ∂gᵃ/∂q_k`).
fn transpose_times<T: Real, const D: usize, const M: usize>(
    g: &[[T; M]; D],
    lambda: &SVector<T, M>,
) -> SVector<T, D> {
    SVector::from_fn(|k, _| {
        let mut sum = T::zero();
        for a in 0..M {
            sum += g[k][a] * lambda[a];
        }
        sum
    })
}

impl<
        T,
        Mdl,
        K,
        Q,
        const S: usize,
        const W: usize,
        const R: usize,
        const D: usize,
        const M: usize,
        const N: usize,
    > StageEquations<T, Mdl, S, D, N> for Buffers<T, D, M, W, Q, R, K>
where
    T: Real,
    Mdl: PointKernels<T, D> + HolonomicKernels<T, D, M>,
    K: Storage,
    Q: Quadrature,
{
    type Scheme = Galerkin<S, W, Q, R>;
    type Coefficients = GalerkinTable<S, W, R>;
    type State = GalerkinState<T, D, M>;

    /// `qᵛ = qₖ + d_ν h vₖ` (the node velocity), every `λ^a` the state's `λ`.
    fn guess(
        known: &Node<'_, T, Mdl, S, W, R, D>,
        state: &GalerkinState<T, D, M>,
        x: &mut SVector<T, N>,
    ) {
        for nu in 1..=S {
            let d: T = c(known.tableau.control[nu]);
            set_block(x, (nu - 1) * D, &(state.q + state.v * (d * known.h)));
        }
        for a in 0..W {
            set_block(x, multiplier::<S, D, M>(a), &state.lambda);
        }
    }

    /// (22): `R₀ … R_{s−1}`, then `C₁ … C_w`.
    fn residual(
        &mut self,
        known: &Node<'_, T, Mdl, S, W, R, D>,
        x: &SVector<T, N>,
        r: &mut SVector<T, N>,
    ) {
        let model = known.model;
        let it = Iterate::<T, D, M, R>::new(known, x);
        let mut rows = self.discrete_forces(known, &it);
        // R₀ = p̃ₖ + ∂₀L_d − ω h e₀ G(qₖ)ᵀ λ⁰ − F₀.
        model.phi_q(known.q0, &mut self.matrix);
        let first = transpose_times(&self.matrix, &it.lambda[0]);
        let Carried { p_tilde, omega } = known.extra;
        rows[0] += p_tilde;
        rows[0].axpy(-omega * known.h * c(known.tableau.e[0]), &first, T::one());
        for (nu, row) in rows.iter().enumerate().take(S) {
            set_block(r, nu * D, row);
        }
        for a in 1..=W {
            set_block(r, constraint::<S, D, M>(a), &model.phi(&it.x[a]));
        }
    }

    /// The Jacobian of the module docs, quadrature node by node, then multiplier point
    /// by multiplier point (the dense LU's pass only: no plan zeroes entries).
    fn assemble(
        &mut self,
        known: &Node<'_, T, Mdl, S, W, R, D>,
        x: &SVector<T, N>,
        mut out: Assembly<'_, T, N>,
    ) {
        let (model, h, tab) = (known.model, known.h, known.tableau);
        let it = Iterate::<T, D, M, R>::new(known, x);
        let evaluate = out.adds();
        let u = known.inputs();
        let inv_h = T::one() / h;
        for i in 0..R {
            let (q, v) = (&it.q[i], &it.v[i]);
            if evaluate {
                self.hessians.evaluate(model, (q, v), true);
                let t = known.t0 + c::<T>(tab.c[i]) * h;
                self.hessians.evaluate_forces(model, (t, &u), (q, v));
            }
            let [qq, qv, vv] = self
                .hessians
                .kernels::<Mdl>(<Mdl as PointKernels<T, D>>::PATTERNS.map(|p| p.l_qq));
            let forcing = self.hessians.forcing::<Mdl>();
            let (b, basis, slope) = (tab.b[i], &tab.basis[i], &tab.slope[i]);
            for nu in 0..S {
                for mu in 1..=S {
                    let at = (nu * D, (mu - 1) * D);
                    let (pos, vel) = (
                        h * c(b * basis[nu] * basis[mu]),
                        c(b * basis[nu] * slope[mu]),
                    );
                    out.add(at, pos, qq, false);
                    out.add(at, vel, qv, false);
                    out.add(at, c(b * slope[nu] * basis[mu]), qv, true);
                    out.add(at, c::<T>(b * slope[nu] * slope[mu]) * inv_h, vv, false);
                    if let Some([f_q, f_v]) = forcing {
                        out.add(at, pos, f_q, false);
                        out.add(at, vel, f_v, false);
                    }
                }
            }
        }
        let patterns = <Mdl as HolonomicKernels<T, D, M>>::PATTERNS;
        for a in 1..=W {
            let ell = &tab.at_multiplier[a];
            if evaluate {
                model.phi_q(&it.x[a], &mut self.matrix);
            }
            let g = Kernel::new(&self.matrix, patterns.map(|p| p.matrix));
            // C_a: ℓ_μ(f_a) G(X_a) on qᵘ.
            for (mu, &l) in ell.iter().enumerate().take(S + 1).skip(1) {
                out.add((constraint::<S, D, M>(a), (mu - 1) * D), c(l), g, false);
            }
            if a == W {
                break; // λ^w is the next step's λ⁰.
            }
            // −F_ν: −h e_a ℓ_ν(f_a) G(X_a)ᵀ on λ^a, −h e_a ℓ_ν(f_a) ℓ_μ(f_a) K_a on qᵘ.
            for (nu, &l) in ell.iter().enumerate().take(S) {
                let f = -h * c(tab.e[a] * l);
                out.add((nu * D, multiplier::<S, D, M>(a)), f, g, true);
            }
            if evaluate {
                use core::borrow::BorrowMut;
                model.phi_qq_contracted(&it.x[a], &it.lambda[a], self.contracted.borrow_mut());
            }
            let k = Kernel::new(
                core::borrow::Borrow::borrow(&self.contracted),
                patterns.map(|p| p.contracted),
            );
            for nu in 0..S {
                for mu in 1..=S {
                    let f = -h * c(tab.e[a] * ell[nu] * ell[mu]);
                    out.add((nu * D, (mu - 1) * D), f, k, false);
                }
            }
        }
        // R₀'s −ω h e₀ G(qₖ)ᵀ on λ⁰.
        if evaluate {
            model.phi_q(known.q0, &mut self.matrix);
        }
        let g = Kernel::new(&self.matrix, patterns.map(|p| p.matrix));
        let f = -known.extra.omega * h * c(tab.e[0]);
        out.add((0, multiplier::<S, D, M>(0)), f, g, true);
    }

    /// `qₖ₊₁ = qˢ`, `p̃ₖ₊₁ = ∂_s L_d − F_s`, its projection and velocity, `λ` (70) and
    /// the lagged `(pₖ⁰, λₖ⁰)`.
    fn next_state(
        &mut self,
        known: &Node<'_, T, Mdl, S, W, R, D>,
        x: &SVector<T, N>,
    ) -> Result<GalerkinState<T, D, M>, SolveError<T>> {
        let (model, h) = (known.model, known.h);
        let it = Iterate::<T, D, M, R>::new(known, x);
        let p_tilde = self.discrete_forces(known, &it)[S];
        let (q, t) = (it.control[S], known.t0 + h);
        let (p, v) = project(model, &q, &p_tilde, it.v[R - 1])?;
        let lambda = holonomic_multiplier(model, (t, &known.inputs()), &q, &v)?;
        model.phi_q(known.q0, &mut self.matrix);
        let first = transpose_times(&self.matrix, &it.lambda[0]);
        let lagged = Lagged {
            p: known.extra.p_tilde - first * (h * c(known.tableau.e[0])),
            lambda: it.lambda[0],
        };
        Ok(GalerkinState {
            t,
            q,
            p,
            v,
            lambda,
            p_tilde,
            lagged: Some(lagged),
        })
    }
}

/// Newton iterations of the projection at most (one suffices for a kinetic energy
/// quadratic in `v`; the second only confirms it).
const PROJECTION_ITERATIONS: u32 = 8;

/// The projection (4) of `p̃` at `q` and its velocity: `(p, v)` with `p = D₂L(q, v) =
/// p̃ − G(q)ᵀμ` and `G(q) v = 0` (for a constant mass matrix `ℙ p̃` with
/// `ℙ = I − Gᵀ(G M⁻¹ Gᵀ)⁻¹ G M⁻¹`), by Newton on `(v, μ)` from `v`, through the Schur
/// complement `G M⁻¹ Gᵀ`.
fn project<T, Mdl, const D: usize, const M: usize>(
    model: &Mdl,
    q: &SVector<T, D>,
    p_tilde: &SVector<T, D>,
    mut v: SVector<T, D>,
) -> Result<(SVector<T, D>, SVector<T, D>), SolveError<T>>
where
    T: Real,
    Mdl: PointKernels<T, D> + HolonomicKernels<T, D, M>,
{
    let mut columns = [[T::zero(); M]; D];
    model.phi_q(q, &mut columns);
    let g = SMatrix::<T, M, D>::from_data(nalgebra::ArrayStorage(columns));
    let mut mu = SVector::<T, M>::zeros();
    let scale = T::one() + p_tilde.amax();
    let tolerance = c::<T>(64.0) * T::default_epsilon() * scale;
    let mut residual = T::zero();
    for _ in 0..PROJECTION_ITERATIONS {
        let r1 = model.l_v(q, &v) + g.transpose() * mu - p_tilde;
        let r2 = g * v;
        residual = r1.amax().max(r2.amax());
        if residual <= tolerance {
            return Ok((p_tilde - g.transpose() * mu, v));
        }
        let mut square = [[T::zero(); D]; D];
        model.l_vv(q, &v, &mut square);
        let mass = Lu::factor(SMatrix::<T, D, D>::from_data(nalgebra::ArrayStorage(
            square,
        )))?;
        // C δv + Gᵀ δμ = −r1, G δv = −r2: (G C⁻¹ Gᵀ) δμ = r2 − G C⁻¹ r1.
        let mut minv_gt = g.transpose();
        mass.solve_matrix_in_place(&mut minv_gt);
        let mut minv_r1 = r1;
        mass.solve_in_place(&mut minv_r1);
        let mut d_mu = r2 - g * minv_r1;
        Lu::factor(g * minv_gt)?.solve_in_place(&mut d_mu);
        let mut d_v = -(r1 + g.transpose() * d_mu);
        mass.solve_in_place(&mut d_v);
        v += d_v;
        mu += d_mu;
    }
    Err(SolveError::MaxIterations {
        iterations: PROJECTION_ITERATIONS,
        residual,
    })
}
