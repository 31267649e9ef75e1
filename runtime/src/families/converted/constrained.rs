//! The converted variational integrator with holonomic constraints `g(q) = 0` (seed
//! 004, Sect. 3 and Figs. 1–2; spec `next_packages.md` §C.4 with its two corrections),
//! in the reduced two-phase form the spec restates.
//!
//! **Standard layer.** The same explicit map as without constraints ([`flow`]), run on
//! the constrained second-order system, whose acceleration solves the saddle system
//! (the paper's (1.3), (4.2)–(4.3)):
//!
//! ```text
//! [ L_vv  −Gᵀ ] [ A ]   [ L_q − L_vq v ]
//! [ −G     0  ] [ λ ] = [ D²g(v, v)    ]          G = Dg(q)
//! ```
//!
//! and its derivatives the same matrix with the right-hand sides of the differentiated
//! system ([`Constrained`]).
//!
//! **Projection** `ℙ(q̂) = (q, θ)`: `q̂ − q − Dg(q)ᵀθ = 0`, `g(q) = 0` (3.2), by Newton
//! from `(q̂, 0)` ([`project`]); `λ̂ = Dℙᵀλ` from (4.7),
//! `[[I + D²(θᵀg)(q), Dg(q)ᵀ], [Dg(q), 0]] [λ̂; z] = [λ; 0]` ([`project_transpose`]).
//!
//! **Phase B**, one step from the node `(q̄, μ)`, unknowns `(q₂, v₂, θ⁺, λ⁺, ν₁, ν₂)`
//! (`3N + 3d`):
//!
//! ```text
//! R^q_{hα⁻}(w₂) − q̄ − Dg(q̄)ᵀθ⁺ = 0                                                    (N)
//! DL_h(w₂) − λ̂⁺ Ĵ⁺(w₂) + μ̂ Ĵ⁻(w₂) − ν₁[Dg(q₂), 0] − ν₂[v₂ᵀD²g(q₂), Dg(q₂)] = 0       (2N)
//! λ⁺ Dg(q₂⁺)ᵀ = 0,   g(q₂) = 0,   Dg(q₂) v₂ = 0                                           (3d)
//! ```
//!
//! with `(q₂⁺, θ₂⁺) = ℙ(R^q_{hα⁺}(w₂))`, `λ̂⁺ = Dℙᵀλ⁺` there and `μ̂ = Dℙᵀμ` at
//! `(q̄, θ⁺)`; the next node is `(q₂⁺, λ⁺)` ([`step`]). **Phase A**, the start from a
//! segment state `w₁ ∈ TQ`, is one linear solve ([`from_segment`]).
//!
//! Newton's Jacobian of Phase B is formed by central differences of its residual (the
//! residual already holds first derivatives of the standard layer and two nested
//! solves; an exact one would need their derivatives too).
use nalgebra::{SMatrix, SVector};

use super::euler_lagrange::nan;
use super::node_form::{Conversion, ConvertedOptions};
use super::standard::flow;
use super::{EulerLagrangeKernels, FromKernels, SecondOrderKernels};
use crate::error::SolveError;
use crate::kernels::{HolonomicKernels, PointKernels};
use crate::model::Real;
use crate::solve::lu::Lu;
use crate::solve::{self, max_abs, JacobianUpdate, NewtonOptions, NewtonSystem, StepReport};
use crate::solve::{Storage, Workspace};
use crate::state::ConvertedState;

/// What the constrained standard layer and the projection read of a model besides its
/// unconstrained [`SecondOrderKernels`] (whose `L`, `L_q`, `L_v` and second derivatives
/// they use): the constraints and their derivatives, and the Jacobians of the
/// Euler–Lagrange expression `E(q, v, a) = L_vv a + L_vq v − L_q` at any `a`.
pub trait ConstraintKernels<T: Real, const D: usize, const M: usize> {
    /// `g(q)`.
    fn g(&self, q: &SVector<T, D>) -> SVector<T, M>;
    /// `G = Dg(q)`.
    fn g_q(&self, q: &SVector<T, D>) -> SMatrix<T, M, D>;
    /// `D²(λᵀg)(q) = Σₐ λₐ D²gₐ(q)`.
    fn g_qq_contracted(&self, q: &SVector<T, D>, lambda: &SVector<T, M>) -> SMatrix<T, D, D>;
    /// `∂(G(q) v)/∂q`, whose product with `v` is `D²g(v, v)`.
    fn g_qv(&self, q: &SVector<T, D>, v: &SVector<T, D>) -> SMatrix<T, M, D>;
    /// `∂(D²g(q)(v, v))/∂q`: third derivatives of `g`.
    fn curvature_q(&self, q: &SVector<T, D>, v: &SVector<T, D>) -> SMatrix<T, M, D>;
    /// `(E_q, E_v)` at `(q, v, a)`.
    fn e_jacobians(
        &self,
        q: &SVector<T, D>,
        v: &SVector<T, D>,
        a: &SVector<T, D>,
    ) -> (SMatrix<T, D, D>, SMatrix<T, D, D>);
}

/// The holonomic constraints' third derivatives, which the constrained standard layer
/// reads besides [`HolonomicKernels`] (`A_q` differentiates the saddle system's
/// right-hand side `D²Φ(v, v)`). `model!` emits it for a model that declares a
/// constrained converted scheme.
pub trait CurvatureKernels<T: Real, const D: usize, const M: usize> {
    /// `∂(D²Φᵃ(q)(v, v))/∂q`, `M × D`: `out[j][a] = Σₖₗ vₖ vₗ ∂³Φᵃ/∂qₖ∂qₗ∂qⱼ`.
    fn phi_vv_q(&self, q: &SVector<T, D>, v: &SVector<T, D>, out: &mut [[T; M]; D]);
}

/// A matrix written by a kernel into column storage.
fn written<T: Real, const R: usize, const C: usize>(
    write: impl FnOnce(&mut [[T; R]; C]),
) -> SMatrix<T, R, C> {
    let mut m = SMatrix::<T, R, C>::zeros();
    write(&mut m.data.0);
    m
}

/// A model's emitted kernels as the constrained layer reads them: the holonomic
/// kernels, their [`CurvatureKernels`] and the Euler–Lagrange Jacobians.
impl<T, Mdl, const D: usize, const M: usize> ConstraintKernels<T, D, M> for FromKernels<'_, Mdl>
where
    T: Real,
    Mdl: PointKernels<T, D>
        + EulerLagrangeKernels<T, D>
        + HolonomicKernels<T, D, M>
        + CurvatureKernels<T, D, M>,
{
    fn g(&self, q: &SVector<T, D>) -> SVector<T, M> {
        self.0.phi(q)
    }
    fn g_q(&self, q: &SVector<T, D>) -> SMatrix<T, M, D> {
        written(|out| self.0.phi_q(q, out))
    }
    fn g_qq_contracted(&self, q: &SVector<T, D>, lambda: &SVector<T, M>) -> SMatrix<T, D, D> {
        written(|out| self.0.phi_qq_contracted(q, lambda, out))
    }
    fn g_qv(&self, q: &SVector<T, D>, v: &SVector<T, D>) -> SMatrix<T, M, D> {
        written(|out| self.0.phi_qv(q, v, out))
    }
    fn curvature_q(&self, q: &SVector<T, D>, v: &SVector<T, D>) -> SMatrix<T, M, D> {
        written(|out| self.0.phi_vv_q(q, v, out))
    }
    fn e_jacobians(
        &self,
        q: &SVector<T, D>,
        v: &SVector<T, D>,
        a: &SVector<T, D>,
    ) -> (SMatrix<T, D, D>, SMatrix<T, D, D>) {
        let mut e_v = SMatrix::zeros();
        let e_q = written(|e_q| self.0.e_jacobians(q, v, a, e_q, &mut e_v.data.0));
        (e_q, e_v)
    }
}

/// `[[A, Gᵀ], [G, 0]] [x; y] = [f; c]` for a regular `A` (factored) and a `G` of full
/// rank, by the Schur complement `G A⁻¹ Gᵀ`: `D × D` and `M × M` solves only.
#[allow(clippy::type_complexity)]
fn saddle<T: Real, const D: usize, const M: usize, const C: usize>(
    a: &Lu<T, D>,
    g: &SMatrix<T, M, D>,
    f: &SMatrix<T, D, C>,
    c: &SMatrix<T, M, C>,
) -> Result<(SMatrix<T, D, C>, SMatrix<T, M, C>), SolveError<T>> {
    let mut a_inv_f = *f;
    a.solve_matrix_in_place(&mut a_inv_f);
    let mut a_inv_gt = g.transpose();
    a.solve_matrix_in_place(&mut a_inv_gt);
    // G x = c with x = A⁻¹ (f − Gᵀ y):  (G A⁻¹ Gᵀ) y = G A⁻¹ f − c.
    let mut y = g * a_inv_f - c;
    Lu::factor(g * a_inv_gt)?.solve_matrix_in_place(&mut y);
    Ok((a_inv_f - a_inv_gt * y, y))
}

/// A model with holonomic constraints as the standard layer sees it: the unconstrained
/// model's `L` and derivatives, the constrained acceleration of the module's doc and its
/// derivatives. Where the saddle matrix is singular the acceleration is NaN, which the
/// step refuses as a non-finite update.
pub struct Constrained<'a, K, const M: usize>(pub &'a K);

/// `A`, `λ`, the factors of `L_vv` and `G` at one point.
struct Dynamics<T: Real, const D: usize, const M: usize> {
    acceleration: SVector<T, D>,
    lambda: SVector<T, M>,
    mass: Lu<T, D>,
    g: SMatrix<T, M, D>,
}

impl<K, const M: usize> Constrained<'_, K, M> {
    fn dynamics<T: Real, const D: usize>(
        &self,
        q: &SVector<T, D>,
        v: &SVector<T, D>,
    ) -> Option<Dynamics<T, D, M>>
    where
        K: SecondOrderKernels<T, D> + ConstraintKernels<T, D, M>,
    {
        let model = self.0;
        let mass = Lu::factor(model.l_vv(q, v)).ok()?;
        let g = model.g_q(q);
        let f = model.l_q(q, v) - model.l_qv(q, v).transpose() * v;
        let curvature = model.g_qv(q, v) * v;
        // [[M, −Gᵀ], [−G, 0]] [A; λ] = [f; c]  ⇔  [[M, Gᵀ], [G, 0]] [A; −λ] = [f; −c].
        let (acceleration, minus_lambda) = saddle(&mass, &g, &f, &(-curvature)).ok()?;
        Some(Dynamics {
            acceleration,
            lambda: -minus_lambda,
            mass,
            g,
        })
    }

    /// The multiplier `λ` of the constrained second-order system at `(q, v)`.
    pub fn multiplier<T: Real, const D: usize>(
        &self,
        q: &SVector<T, D>,
        v: &SVector<T, D>,
    ) -> Option<SVector<T, M>>
    where
        K: SecondOrderKernels<T, D> + ConstraintKernels<T, D, M>,
    {
        self.dynamics(q, v).map(|d| d.lambda)
    }
}

impl<T: Real, K, const D: usize, const M: usize> SecondOrderKernels<T, D> for Constrained<'_, K, M>
where
    K: SecondOrderKernels<T, D> + ConstraintKernels<T, D, M>,
{
    fn lagrangian(&self, q: &SVector<T, D>, v: &SVector<T, D>) -> T {
        self.0.lagrangian(q, v)
    }
    fn l_q(&self, q: &SVector<T, D>, v: &SVector<T, D>) -> SVector<T, D> {
        self.0.l_q(q, v)
    }
    fn l_v(&self, q: &SVector<T, D>, v: &SVector<T, D>) -> SVector<T, D> {
        self.0.l_v(q, v)
    }
    fn l_qq(&self, q: &SVector<T, D>, v: &SVector<T, D>) -> SMatrix<T, D, D> {
        self.0.l_qq(q, v)
    }
    fn l_qv(&self, q: &SVector<T, D>, v: &SVector<T, D>) -> SMatrix<T, D, D> {
        self.0.l_qv(q, v)
    }
    fn l_vv(&self, q: &SVector<T, D>, v: &SVector<T, D>) -> SMatrix<T, D, D> {
        self.0.l_vv(q, v)
    }

    fn acceleration(&self, q: &SVector<T, D>, v: &SVector<T, D>) -> SVector<T, D> {
        self.dynamics(q, v)
            .map_or_else(|| SVector::from_element(nan()), |d| d.acceleration)
    }

    /// The saddle system differentiated: with `F₁ = E(q, v, a) − Gᵀλ`,
    /// `F₂ = −G a − D²g(v, v)`, `K [A_q; λ_q] = [D²(λᵀg) − E_q; ∂(G A)/∂q + ∂(D²g(v, v))/∂q]`
    /// and `K [A_v; λ_v] = [−E_v; 2 ∂(G v)/∂q]`.
    fn acceleration_jacobians(
        &self,
        q: &SVector<T, D>,
        v: &SVector<T, D>,
    ) -> (SMatrix<T, D, D>, SMatrix<T, D, D>) {
        let (_, a_q, a_v) = self.acceleration_with_jacobians(q, v);
        (a_q, a_v)
    }

    fn acceleration_with_jacobians(
        &self,
        q: &SVector<T, D>,
        v: &SVector<T, D>,
    ) -> (SVector<T, D>, SMatrix<T, D, D>, SMatrix<T, D, D>) {
        let model = self.0;
        let all = self.dynamics(q, v).and_then(|d| {
            let (e_q, e_v) = model.e_jacobians(q, v, &d.acceleration);
            let top_q = model.g_qq_contracted(q, &d.lambda) - e_q;
            let bottom_q = -(model.g_qv(q, &d.acceleration) + model.curvature_q(q, v));
            let (a_q, _) = saddle(&d.mass, &d.g, &top_q, &bottom_q).ok()?;
            let two: T = nalgebra::convert(2.0);
            let bottom_v = -(model.g_qv(q, v) * two);
            let (a_v, _) = saddle(&d.mass, &d.g, &(-e_v), &bottom_v).ok()?;
            Some((d.acceleration, a_q, a_v))
        });
        all.unwrap_or_else(|| {
            let nans = SMatrix::from_element(nan());
            (SVector::from_element(nan()), nans, nans)
        })
    }

    /// By central differences of [`acceleration_jacobians`](Self::acceleration_jacobians)
    /// along `(dq, dv)`: the exact form would need fourth derivatives of `g`. Phase B
    /// forms its Jacobian by differences anyway; this serves the unconstrained node
    /// form's exact Newton when it is handed a constrained model.
    fn acceleration_second(
        &self,
        q: &SVector<T, D>,
        v: &SVector<T, D>,
        dq: &SVector<T, D>,
        dv: &SVector<T, D>,
    ) -> (SMatrix<T, D, D>, SMatrix<T, D, D>) {
        let scale = T::one() + max_abs(q).max(max_abs(v));
        let size = max_abs(dq).max(max_abs(dv));
        if size == T::zero() {
            return (SMatrix::zeros(), SMatrix::zeros());
        }
        let e = T::default_epsilon().cbrt() * scale / size;
        let ahead = self.acceleration_jacobians(&(q + dq * e), &(v + dv * e));
        let behind = self.acceleration_jacobians(&(q - dq * e), &(v - dv * e));
        let two_e = e + e;
        ((ahead.0 - behind.0) / two_e, (ahead.1 - behind.1) / two_e)
    }
}

/// The stopping tolerance of the nested projection: round-off at the point's scale.
fn projection_tolerance<T: Real, const D: usize>(q: &SVector<T, D>) -> T {
    let sixteen: T = nalgebra::convert(16.0);
    T::default_epsilon() * sixteen * (T::one() + max_abs(q))
}

/// `ℙ(q̂) = (q, θ)` (3.2): `q̂ − q − Dg(q)ᵀθ = 0`, `g(q) = 0` by Newton from `(q̂, 0)`,
/// each iteration the saddle system `[[I + D²(θᵀg)(q), Gᵀ], [G, 0]] [δq; δθ] =
/// [r₁; −g(q)]`, until the residual is at round-off.
pub fn project<T: Real, K: ConstraintKernels<T, D, M>, const D: usize, const M: usize>(
    model: &K,
    q_hat: &SVector<T, D>,
) -> Result<(SVector<T, D>, SVector<T, M>), SolveError<T>> {
    const MAX_ITERATIONS: u32 = 50;
    let tolerance = projection_tolerance(q_hat);
    let (mut q, mut theta) = (*q_hat, SVector::<T, M>::zeros());
    for iteration in 1..=MAX_ITERATIONS {
        let g = model.g_q(&q);
        let r1 = q_hat - q - g.transpose() * theta;
        let r2 = model.g(&q);
        let residual = max_abs(&r1).max(max_abs(&r2));
        if !residual.is_finite() {
            return Err(SolveError::NonFinite { iteration });
        }
        if residual <= tolerance {
            return Ok((q, theta));
        }
        let a = Lu::factor(SMatrix::identity() + model.g_qq_contracted(&q, &theta))?;
        let (dq, dtheta) = saddle(&a, &g, &r1, &(-r2))?;
        q += dq;
        theta += dtheta;
    }
    let g = model.g_q(&q);
    let residual = max_abs(&(q_hat - q - g.transpose() * theta)).max(max_abs(&model.g(&q)));
    Err(SolveError::MaxIterations {
        iterations: MAX_ITERATIONS,
        residual,
    })
}

/// `λ̂ = Dℙᵀλ` at the projected point `q` with fibre coordinate `θ` (4.7): the first
/// block of `[[I + D²(θᵀg)(q), Dg(q)ᵀ], [Dg(q), 0]]⁻¹ [λ; 0]`. At `θ = 0`, the orthogonal
/// projection of `λ` onto the constraints' tangent space.
pub fn project_transpose<T: Real, K: ConstraintKernels<T, D, M>, const D: usize, const M: usize>(
    model: &K,
    q: &SVector<T, D>,
    theta: &SVector<T, M>,
    lambda: &SVector<T, D>,
) -> Result<SVector<T, D>, SolveError<T>> {
    let a = Lu::factor(SMatrix::identity() + model.g_qq_contracted(q, theta))?;
    let (lambda_hat, _) = saddle(&a, &model.g_q(q), lambda, &SVector::<T, M>::zeros())?;
    Ok(lambda_hat)
}

/// `x`'s entries `from .. from + L`.
fn slice<T: Real, const X: usize, const L: usize>(x: &SVector<T, X>, from: usize) -> SVector<T, L> {
    SVector::from_fn(|i, _| x[from + i])
}

/// The blocks one after another in a vector of `X` entries (their lengths sum to `X`).
fn stack<'b, T: Real, const X: usize>(blocks: impl IntoIterator<Item = &'b [T]>) -> SVector<T, X> {
    let mut out = SVector::<T, X>::zeros();
    let mut at = 0;
    for block in blocks {
        out.as_mut_slice()[at..at + block.len()].copy_from_slice(block);
        at += block.len();
    }
    debug_assert_eq!(at, X, "the blocks fill the vector");
    out
}

/// Phase B's equations at the node `(q̄, μ)` (the module's doc).
pub(super) struct PhaseB<'a, T: Real, K, const D: usize, const M: usize, const S: usize> {
    model: &'a K,
    scheme: &'a Conversion<S>,
    t_minus: T,
    t_plus: T,
    node: SVector<T, D>,
    momentum: SVector<T, D>,
}

/// Phase B's unknowns, split.
struct Unknowns<T: Real, const D: usize, const M: usize> {
    q: SVector<T, D>,
    v: SVector<T, D>,
    theta: SVector<T, M>,
    lambda: SVector<T, D>,
    nu1: SVector<T, M>,
    nu2: SVector<T, M>,
}

impl<T: Real, const D: usize, const M: usize> Unknowns<T, D, M> {
    fn of<const X: usize>(x: &SVector<T, X>) -> Self {
        Self {
            q: slice(x, 0),
            v: slice(x, D),
            theta: slice(x, 2 * D),
            lambda: slice(x, 2 * D + M),
            nu1: slice(x, 3 * D + M),
            nu2: slice(x, 3 * D + 2 * M),
        }
    }

    fn stacked<const X: usize>(&self) -> SVector<T, X> {
        stack([
            self.q.as_slice(),
            self.v.as_slice(),
            self.theta.as_slice(),
            self.lambda.as_slice(),
            self.nu1.as_slice(),
            self.nu2.as_slice(),
        ])
    }
}

impl<'a, T, K, const D: usize, const M: usize, const S: usize> PhaseB<'a, T, K, D, M, S>
where
    T: Real,
    K: SecondOrderKernels<T, D> + ConstraintKernels<T, D, M>,
{
    pub(super) fn new(
        model: &'a K,
        scheme: &'a Conversion<S>,
        h: T,
        node: SVector<T, D>,
        momentum: SVector<T, D>,
    ) -> Self {
        let (t_minus, t_plus) = scheme.bias.signed_steps(h);
        Self {
            model,
            scheme,
            t_minus,
            t_plus,
            node,
            momentum,
        }
    }

    /// The residual at `x` (equations in the module doc's order) and the next node
    /// position `q₂⁺`.
    fn evaluate<const X: usize>(
        &self,
        x: &SVector<T, X>,
    ) -> Result<(SVector<T, X>, SVector<T, D>), SolveError<T>> {
        let model = self.model;
        let u = Unknowns::<T, D, M>::of(x);
        let layer = Constrained::<K, M>(model);
        let tableau = &self.scheme.tableau;
        let minus = flow(&layer, tableau, self.t_minus, &u.q, &u.v);
        let plus = flow(&layer, tableau, self.t_plus, &u.q, &u.v);
        let position = minus.q - self.node - model.g_q(&self.node).transpose() * u.theta;
        let (next, next_theta) = project(model, &plus.q)?;
        let lambda_hat = project_transpose(model, &next, &next_theta, &u.lambda)?;
        let mu_hat = project_transpose(model, &self.node, &u.theta, &self.momentum)?;
        let g = model.g_q(&u.q);
        let momentum_q = plus.action_q - minus.action_q - plus.q_q.transpose() * lambda_hat
            + minus.q_q.transpose() * mu_hat
            - g.transpose() * u.nu1
            - model.g_qv(&u.q, &u.v).transpose() * u.nu2;
        let momentum_v = plus.action_v - minus.action_v - plus.q_v.transpose() * lambda_hat
            + minus.q_v.transpose() * mu_hat
            - g.transpose() * u.nu2;
        let rows: [SVector<T, D>; 3] = [position, momentum_q, momentum_v];
        let constraints: [SVector<T, M>; 3] = [model.g_q(&next) * u.lambda, model.g(&u.q), g * u.v];
        let blocks = rows
            .iter()
            .map(|b| b.as_slice())
            .chain(constraints.iter().map(|b| b.as_slice()));
        let r = stack(blocks);
        Ok((r, next))
    }

    /// Central differences of the residual, column by column.
    fn jacobian<const X: usize>(
        &self,
        x: &SVector<T, X>,
    ) -> Result<SMatrix<T, X, X>, SolveError<T>> {
        let cube_root_eps = T::default_epsilon().cbrt();
        let mut jac = SMatrix::<T, X, X>::zeros();
        for j in 0..X {
            let e = cube_root_eps * (T::one() + x[j].abs());
            let (mut ahead, mut behind) = (*x, *x);
            ahead[j] += e;
            behind[j] -= e;
            let column = (self.evaluate(&ahead)?.0 - self.evaluate(&behind)?.0) / (e + e);
            jac.set_column(j, &column);
        }
        Ok(jac)
    }
}

/// Phase B as Newton sees it: a residual that is NaN where a nested projection fails
/// (which the driver reports as a non-finite residual), and its central differences.
impl<T, K, const D: usize, const M: usize, const S: usize, const X: usize> NewtonSystem<T, X>
    for PhaseB<'_, T, K, D, M, S>
where
    T: Real,
    K: SecondOrderKernels<T, D> + ConstraintKernels<T, D, M>,
{
    fn residual(&mut self, x: &SVector<T, X>, r: &mut SVector<T, X>) {
        *r = self
            .evaluate(x)
            .map_or_else(|_| SVector::from_element(nan()), |(r, _)| r);
    }

    fn residual_and_jacobian(
        &mut self,
        x: &SVector<T, X>,
        r: &mut SVector<T, X>,
        jac: &mut [[T; X]; X],
    ) {
        NewtonSystem::residual(self, x, r);
        *jac = self
            .jacobian(x)
            .map_or_else(|_| [[nan(); X]; X], |j| j.data.0);
    }

    /// The paper's approximate (Fig. 2, the primed equations (S4.5′)–(S4.7′) with the
    /// spec's two corrections), for [`JacobianUpdate::Chord`]: the standard layer
    /// replaced by its first-order expansion, `R^q_t ≈ q + t v`, `DR^q_t ≈ [I, tI]`,
    /// `DL_h ≈ h [L_q, vᵀM₀ + a₀]`, `Dℙᵀ ≈ I`, every constraint Jacobian frozen at
    /// `G₀ = Dg(q̄)`:
    ///
    /// ```text
    ///            q₂     v₂      θ⁺     λ⁺       ν₁     ν₂
    /// position [ I      hα⁻I    −G₀ᵀ   0        0      0    ]   (S4.7a′)
    /// mom. q   [ 0      0       0      −I       −G₀ᵀ   0    ]   (S4.5a′)
    /// mom. v   [ 0      hM₀     0      −hα⁺I    0      −G₀ᵀ ]   (S4.6a′)
    /// λ⁺ Gᵀ    [ 0      0       0      G₀       0      0    ]   (S4.5b′)
    /// g        [ G₀     0       0      0        0      0    ]   (S4.7b′)
    /// G v      [ 0      G₀      0      0        0      0    ]   (S4.6b′)
    /// ```
    ///
    /// `M₀ = L_vv(q̄, v)` at the iterate it is formed at. One matrix per step, linear
    /// convergence with a factor that falls with `h`.
    fn approximate_jacobian(&mut self, x: &SVector<T, X>, jac: &mut [[T; X]; X]) {
        let u = Unknowns::<T, D, M>::of(x);
        let h = self.t_plus - self.t_minus;
        let g0 = self.model.g_q(&self.node);
        let mass = self.model.l_vv(&self.node, &u.v) * h;
        let identity = SMatrix::<T, D, D>::identity();
        let mut a = SMatrix::<T, X, X>::zeros();
        // Row and column offsets of the blocks: q₂, v₂, θ⁺, λ⁺, ν₁, ν₂ and the rows in
        // the residual's order.
        let (q, v, theta, lambda, nu1, nu2) = (0, D, 2 * D, 2 * D + M, 3 * D + M, 3 * D + 2 * M);
        let (position, momentum_q, momentum_v) = (0, D, 2 * D);
        let (tangent, level, velocity) = (3 * D, 3 * D + M, 3 * D + 2 * M);
        a.fixed_view_mut::<D, D>(position, q).copy_from(&identity);
        a.fixed_view_mut::<D, D>(position, v)
            .copy_from(&(identity * self.t_minus));
        a.fixed_view_mut::<D, M>(position, theta)
            .copy_from(&(-g0.transpose()));
        a.fixed_view_mut::<D, D>(momentum_q, lambda)
            .copy_from(&(-identity));
        a.fixed_view_mut::<D, M>(momentum_q, nu1)
            .copy_from(&(-g0.transpose()));
        a.fixed_view_mut::<D, D>(momentum_v, v).copy_from(&mass);
        a.fixed_view_mut::<D, D>(momentum_v, lambda)
            .copy_from(&(identity * -self.t_plus));
        a.fixed_view_mut::<D, M>(momentum_v, nu2)
            .copy_from(&(-g0.transpose()));
        a.fixed_view_mut::<M, D>(tangent, lambda).copy_from(&g0);
        a.fixed_view_mut::<M, D>(level, q).copy_from(&g0);
        a.fixed_view_mut::<M, D>(velocity, v).copy_from(&g0);
        *jac = a.data.0;
    }
}

impl<'a, T, K, const D: usize, const M: usize, const S: usize> PhaseB<'a, T, K, D, M, S>
where
    T: Real,
    K: SecondOrderKernels<T, D> + ConstraintKernels<T, D, M>,
{
    /// Newton's starting point: the last segment, its position placed so that
    /// `x⁻ ≈ q̄`; `λ⁺ = μ`; no fibre, no `ν`.
    fn guess<const X: usize>(&self, state: &ConvertedState<T, D>) -> SVector<T, X> {
        Unknowns::<T, D, M> {
            q: state.x - state.v * self.t_minus,
            v: state.v,
            theta: SVector::zeros(),
            lambda: state.p,
            nu1: SVector::zeros(),
            nu2: SVector::zeros(),
        }
        .stacked()
    }

    /// The next state from Phase B's solution `x`: the node `(q₂⁺, λ⁺)` and the
    /// segment `(q₂, v₂)`.
    fn next<const X: usize>(
        &self,
        x: &SVector<T, X>,
        t: T,
    ) -> Result<ConvertedState<T, D>, SolveError<T>> {
        let (_, node) = self.evaluate(x)?;
        let u = Unknowns::<T, D, M>::of(x);
        Ok(ConvertedState {
            t,
            x: node,
            p: u.lambda,
            q: u.q,
            v: u.v,
        })
    }
}

/// One step of the constrained conversion (Phase B) from `state`, its node on the
/// constraints, on the shared Newton driver with `ws` (its `X = 3D + 3M` unknowns;
/// the solution stays in `ws.x`) and `options`: the new state and Newton's report. The
/// Jacobian is central differences of the residual; `JacobianUpdate::Chord` and
/// `Reuse` keep it across iterations as for any system. A failed solve is an error;
/// `state` is the caller's, unchanged.
#[allow(clippy::type_complexity)]
pub fn solve_step<T, K, Sto, const D: usize, const M: usize, const S: usize, const X: usize>(
    model: &K,
    scheme: &Conversion<S>,
    h: T,
    state: &ConvertedState<T, D>,
    ws: &mut Workspace<T, X, Sto>,
    options: &NewtonOptions<T>,
) -> Result<(ConvertedState<T, D>, StepReport<T>), SolveError<T>>
where
    T: Real,
    K: SecondOrderKernels<T, D> + ConstraintKernels<T, D, M>,
    Sto: Storage,
{
    const { assert!(X == 3 * D + 3 * M, "Phase B has 3D + 3M unknowns") };
    let mut equations = PhaseB::<T, K, D, M, S>::new(model, scheme, h, state.x, state.p);
    ws.x = equations.guess(state);
    let report = solve::solve(ws, options, &mut equations)?;
    let next = equations.next(&ws.x, state.t + h)?;
    if next.x.iter().chain(next.p.iter()).any(|x| !x.is_finite()) {
        return Err(SolveError::NonFinite {
            iteration: report.iterations,
        });
    }
    Ok((next, report))
}

/// [`solve_step`] with the node form's options (`options.iteration` is not read: the
/// Jacobian is by differences) and a workspace of its own: the new state and the
/// iterations taken.
pub fn step<T, K, const D: usize, const M: usize, const S: usize, const X: usize>(
    model: &K,
    scheme: &Conversion<S>,
    h: T,
    state: &ConvertedState<T, D>,
    options: &ConvertedOptions<T>,
) -> Result<(ConvertedState<T, D>, u32), SolveError<T>>
where
    T: Real,
    K: SecondOrderKernels<T, D> + ConstraintKernels<T, D, M>,
{
    let newton = NewtonOptions {
        tolerance: options.tolerance,
        max_iterations: options.max_iterations,
        divergence: None,
        jacobian: JacobianUpdate::EveryIteration,
    };
    let mut ws = Workspace::<T, X>::new();
    let (next, report) =
        solve_step::<T, K, _, D, M, S, X>(model, scheme, h, state, &mut ws, &newton)?;
    Ok((next, report.iterations))
}

/// Phase A: the node `(q₁⁻, −λ⁻)` of a segment state `w₁ = (q, v)` on the constraints
/// (`g(q) = 0`, `Dg(q) v = 0`), from the linear system
///
/// ```text
/// λ̂⁻ Ĵ₁⁻ + μ̂ Ĵ₁⁺ + ν₁⁻[Dg(q₁), 0] + ν₂⁻[v₁ᵀD²g(q₁), Dg(q₁)] = ℓ₁     (2N)
/// λ⁻ Dg(q₁⁻)ᵀ = 0,   μ Dg(q̄)ᵀ = 0                                    (2d)
/// ```
///
/// in `(λ⁻, μ, ν₁⁻, ν₂⁻)` (`Y = 2D + 2M` unknowns), with `(q₁⁻, θ₁⁻) = ℙ(R^q_{hα⁻}(w₁))`,
/// `(q̄, θ̄) = ℙ(R^q_{hα⁺}(w₁))` and the hats `Dℙᵀ` there. The state carries `w₁`, which
/// the first step solves for again from the node. (`λ⁻` is `D₁L_d`, the node momentum
/// `−D₁L_d` as without constraints; `μ` is the next node's.)
pub fn from_segment<T, K, const D: usize, const M: usize, const S: usize, const Y: usize>(
    model: &K,
    scheme: &Conversion<S>,
    h: T,
    q: &SVector<T, D>,
    v: &SVector<T, D>,
) -> Result<ConvertedState<T, D>, SolveError<T>>
where
    T: Real,
    K: SecondOrderKernels<T, D> + ConstraintKernels<T, D, M>,
{
    const { assert!(Y == 2 * D + 2 * M, "Phase A has 2D + 2M unknowns") };
    let ends = PhaseB::<T, K, D, M, S>::new(model, scheme, h, SVector::zeros(), SVector::zeros());
    let layer = Constrained::<K, M>(model);
    let minus = flow(&layer, &scheme.tableau, ends.t_minus, q, v);
    let plus = flow(&layer, &scheme.tableau, ends.t_plus, q, v);
    let (start, start_theta) = project(model, &minus.q)?;
    let (next, next_theta) = project(model, &plus.q)?;
    let g = model.g_q(q);
    let g_qv = model.g_qv(q, v);
    // The system's columns: its left side applied to each unit vector (it is linear).
    let apply = |y: &SVector<T, Y>| -> Result<SVector<T, Y>, SolveError<T>> {
        let lambda: SVector<T, D> = slice(y, 0);
        let mu: SVector<T, D> = slice(y, D);
        let nu1: SVector<T, M> = slice(y, 2 * D);
        let nu2: SVector<T, M> = slice(y, 2 * D + M);
        let lambda_hat = project_transpose(model, &start, &start_theta, &lambda)?;
        let mu_hat = project_transpose(model, &next, &next_theta, &mu)?;
        let rows_q = minus.q_q.transpose() * lambda_hat
            + plus.q_q.transpose() * mu_hat
            + g.transpose() * nu1
            + g_qv.transpose() * nu2;
        let rows_v = minus.q_v.transpose() * lambda_hat
            + plus.q_v.transpose() * mu_hat
            + g.transpose() * nu2;
        let tangents = [model.g_q(&start) * lambda, model.g_q(&next) * mu];
        let out: SVector<T, Y> = stack([
            rows_q.as_slice(),
            rows_v.as_slice(),
            tangents[0].as_slice(),
            tangents[1].as_slice(),
        ]);
        Ok(out)
    };
    let mut matrix = SMatrix::<T, Y, Y>::zeros();
    for j in 0..Y {
        let mut unit = SVector::<T, Y>::zeros();
        unit[j] = T::one();
        matrix.set_column(j, &apply(&unit)?);
    }
    let mut rhs = SVector::<T, Y>::zeros();
    let (l_q, l_v) = (
        plus.action_q - minus.action_q,
        plus.action_v - minus.action_v,
    );
    rhs.as_mut_slice()[..D].copy_from_slice(l_q.as_slice());
    rhs.as_mut_slice()[D..2 * D].copy_from_slice(l_v.as_slice());
    Lu::factor(matrix)?.solve_in_place(&mut rhs);
    let lambda_minus: SVector<T, D> = slice(&rhs, 0);
    Ok(ConvertedState {
        t: T::zero(),
        x: start,
        p: -lambda_minus,
        q: *q,
        v: *v,
    })
}
