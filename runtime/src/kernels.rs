//! Point kernels: the model's derivatives at one point `(q, v)`, emitted by `model!` for
//! every model. Stage families assemble their step equations from them, so the emitted
//! code does not grow with the number of stages.
use nalgebra::SVector;

use crate::model::{Configuration, Real};

/// First and second derivatives of the Lagrangian at a point, for the runtime-assembled
/// families (spec 002 §4.9 lists what each scheme needs). Derivatives with respect to
/// the configuration (stored in `Q` numbers) are left-trivialised, with `D` entries, as
/// [`Model`](crate::Model)'s are.
///
/// Matrices are written into caller-provided column storage (`out[j][i]` is row `i`,
/// column `j`; every entry is written), so a family keeps them in its workspace, which
/// may be on the heap, and nothing `D × D` passes over the stack.
pub trait PointKernels<T: Real, const D: usize, const Q: usize = D>:
    Configuration<T, D, Q>
{
    /// The structural nonzeros `(row, column)` of `D₁₁L`, `D₁₂L` and `D₂₂L`, if known
    /// (`model!` emits them): an assembly that reads only these entries may skip the
    /// rest, which are zero at every point. `None` reads every entry.
    const PATTERNS: Option<KernelPatterns> = None;
    /// `D₁L = ∂L/∂q`, left-trivialised on a group (`Lg(q)ᵀ ∂L/∂q` for the storage's
    /// generator `Lg`, spec `next_packages.md` §A.3).
    fn l_q(&self, q: &SVector<T, Q>, v: &SVector<T, D>) -> SVector<T, D>;
    /// `D₂L = ∂L/∂v`.
    fn l_v(&self, q: &SVector<T, Q>, v: &SVector<T, D>) -> SVector<T, D>;
    /// `(D₁L, D₂L)` at one point in one call, what a stage residual reads: `model!`
    /// emits it with the two sharing their subexpressions (the trigonometric functions
    /// of a pendulum's angles, computed once); by default [`l_q`](Self::l_q) and
    /// [`l_v`](Self::l_v).
    fn l_q_and_l_v(&self, q: &SVector<T, Q>, v: &SVector<T, D>) -> (SVector<T, D>, SVector<T, D>) {
        (self.l_q(q, v), self.l_v(q, v))
    }
    /// `(D₁L, D₂L)`, and `D₁₁L`, `D₁₂L`, `D₂₂L` written into `qq`, `qv`, `vv` (in the
    /// layouts of [`l_qq`](Self::l_qq), [`l_qv`](Self::l_qv), [`l_vv`](Self::l_vv)): every
    /// derivative a stage reads for a residual and a fresh Jacobian, at one point in one
    /// call. `model!` emits it as one straight-line block, so that the terms they share
    /// are computed once and `sin` and `cos` of one angle become one `sincos`; by default
    /// the separate kernels.
    fn derivatives(
        &self,
        q: &SVector<T, Q>,
        v: &SVector<T, D>,
        [qq, qv, vv]: [&mut [[T; D]; D]; 3],
    ) -> (SVector<T, D>, SVector<T, D>) {
        self.l_qq(q, v, qq);
        self.l_qv(q, v, qv);
        self.l_vv(q, v, vv);
        self.l_q_and_l_v(q, v)
    }
    /// The number of anchors [`derivatives_anchored`](Self::derivatives_anchored)
    /// writes and [`l_q_and_l_v_near`](Self::l_q_and_l_v_near) reads: one per argument
    /// `x` of a `sin` or `cos` in `D₁L` and `D₂L` (`model!` counts them), 0 by default.
    const ANCHORS: usize = 0;
    /// [`derivatives`](Self::derivatives), and for each argument `x` of a `sin` or `cos`
    /// in `D₁L`, `D₂L` the anchor `[x, sin x, cos x]` in `anchors` (in an order of the
    /// model's own; nothing is written if `anchors` holds fewer than
    /// [`ANCHORS`](Self::ANCHORS)). By default `derivatives`.
    fn derivatives_anchored(
        &self,
        q: &SVector<T, Q>,
        v: &SVector<T, D>,
        out: [&mut [[T; D]; D]; 3],
        anchors: &mut [[T; 3]],
    ) -> (SVector<T, D>, SVector<T, D>) {
        let _ = anchors;
        self.derivatives(q, v, out)
    }
    /// [`derivatives`](Self::derivatives) near a point whose `anchors`
    /// [`derivatives_anchored`](Self::derivatives_anchored) wrote, its `sin` and `cos`
    /// continued from them as [`l_q_and_l_v_near`](Self::l_q_and_l_v_near) does (a
    /// step's first stage, at the point where the last step's last stage was). By
    /// default `derivatives`.
    fn derivatives_near(
        &self,
        q: &SVector<T, Q>,
        v: &SVector<T, D>,
        out: [&mut [[T; D]; D]; 3],
        anchors: &[[T; 3]],
    ) -> (SVector<T, D>, SVector<T, D>) {
        let _ = anchors;
        self.derivatives(q, v, out)
    }
    /// [`l_q_and_l_v`](Self::l_q_and_l_v) near a point whose `anchors`
    /// [`derivatives_anchored`](Self::derivatives_anchored) wrote: each `sin x`, `cos x`
    /// continued from its anchor by the angle-addition formulas where `x` moved by at
    /// most `2⁻¹⁰` (see `__private::sin_cos_near`), evaluated where it moved further.
    /// A stage's second residual sits about `1e-8` from its first: its trigonometric
    /// calls become a few multiplications. Equal to `l_q_and_l_v` to a few units in the
    /// last place; by default `l_q_and_l_v`.
    fn l_q_and_l_v_near(
        &self,
        q: &SVector<T, Q>,
        v: &SVector<T, D>,
        anchors: &[[T; 3]],
    ) -> (SVector<T, D>, SVector<T, D>) {
        let _ = anchors;
        self.l_q_and_l_v(q, v)
    }
    /// `D₁₁L`: `out[j][i] = ∂²L/∂qᵢ∂qⱼ`.
    fn l_qq(&self, q: &SVector<T, Q>, v: &SVector<T, D>, out: &mut [[T; D]; D]);
    /// `D₁₂L`: `out[j][i] = ∂²L/∂qᵢ∂vⱼ`, the derivative of `D₁L` with respect to `v`
    /// (its transpose is the derivative of `D₂L` with respect to `q`).
    fn l_qv(&self, q: &SVector<T, Q>, v: &SVector<T, D>, out: &mut [[T; D]; D]);
    /// `D₂₂L`, the mass matrix: `out[j][i] = ∂²L/∂vᵢ∂vⱼ`.
    fn l_vv(&self, q: &SVector<T, Q>, v: &SVector<T, D>, out: &mut [[T; D]; D]);

    /// Whether the model has generalized forces `F(q, v, t, u)` (a `forces` block): the
    /// stage families then add `F(Qʲ, Vʲ, t⁰ + cⱼ h)` to each stage force `Wʲ` (the
    /// discrete Lagrange–d'Alembert principle, spec `next_packages.md` §D.2) and its
    /// derivatives to their Jacobians. `false`: [`f`](Self::f), [`f_q`](Self::f_q) and
    /// [`f_v`](Self::f_v) are never called, and a step does exactly what it did without
    /// them.
    const FORCED: bool = false;
    /// The generalized forces `F(q, v, t, u)` at the inputs `u`, one per coordinate
    /// (zero by default).
    fn f(&self, t: T, q: &SVector<T, Q>, v: &SVector<T, D>, u: &Self::Inputs) -> SVector<T, D> {
        let _ = (t, q, v, u);
        SVector::zeros()
    }
    /// `∂F/∂q` (left-trivialised on a group, as `D₁L`): `out[j][i] = ∂Fᵢ/∂qⱼ` (zero by
    /// default).
    fn f_q(
        &self,
        t: T,
        q: &SVector<T, Q>,
        v: &SVector<T, D>,
        u: &Self::Inputs,
        out: &mut [[T; D]; D],
    ) {
        let _ = (t, q, v, u);
        out.iter_mut().for_each(|column| column.fill(T::zero()));
    }
    /// `∂F/∂v`: `out[j][i] = ∂Fᵢ/∂vⱼ` (zero by default).
    fn f_v(
        &self,
        t: T,
        q: &SVector<T, Q>,
        v: &SVector<T, D>,
        u: &Self::Inputs,
        out: &mut [[T; D]; D],
    ) {
        let _ = (t, q, v, u);
        out.iter_mut().for_each(|column| column.fill(T::zero()));
    }
    /// `∂F/∂u`, row by row: `out[i][k] = ∂Fᵢ/∂uₖ` (zero by default), for the
    /// linearised step.
    fn f_u(
        &self,
        t: T,
        q: &SVector<T, Q>,
        v: &SVector<T, D>,
        u: &Self::Inputs,
        out: &mut [Self::Inputs; D],
    ) {
        let _ = (t, q, v, u);
        out.iter_mut().for_each(|row| row.as_mut().fill(T::zero()));
    }
}

/// The structural nonzeros `(row, column)` of each second derivative of
/// [`PointKernels`], and of the forces' first derivatives: every other entry is zero at
/// every point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelPatterns {
    /// Of `D₁₁L`.
    pub l_qq: &'static [(u16, u16)],
    /// Of `D₁₂L` (row: position, column: velocity).
    pub l_qv: &'static [(u16, u16)],
    /// Of `D₂₂L`.
    pub l_vv: &'static [(u16, u16)],
    /// Of `∂F/∂q`, the forces' (empty without forces).
    pub f_q: &'static [(u16, u16)],
    /// Of `∂F/∂v` (empty without forces).
    pub f_v: &'static [(u16, u16)],
}

/// The holonomic constraints `Φ(q) = 0` at a point and their derivatives, for the
/// holonomically constrained stage family (spec 002 §4.9, row S2/S3). `model!` emits
/// them for every model with `M ≥ 1` holonomic constraints.
///
/// Matrices are written into caller-provided column storage (`out[j][i]` is row `i`,
/// column `j`; every entry is written).
pub trait HolonomicKernels<T: Real, const D: usize, const M: usize, const Q: usize = D> {
    /// The structural nonzeros `(row, column)` of the constraint kernels, if known
    /// (`model!` emits them), as [`PointKernels::PATTERNS`]. `None` reads every entry.
    const PATTERNS: Option<ConstraintPatterns> = None;
    /// `Φ(q)`.
    fn phi(&self, q: &SVector<T, Q>) -> SVector<T, M>;
    /// `DΦ(q)`, `M × D`: `out[j][a] = ∂Φᵃ/∂qⱼ`.
    fn phi_q(&self, q: &SVector<T, Q>, out: &mut [[T; M]; D]);
    /// `Σₐ λₐ D²Φᵃ(q)`, `D × D`: `out[j][i] = Σₐ λₐ ∂²Φᵃ/∂qᵢ∂qⱼ`.
    fn phi_qq_contracted(&self, q: &SVector<T, Q>, lambda: &SVector<T, M>, out: &mut [[T; D]; D]);
    /// The derivative of `DΦ(q) v` with respect to `q`, `M × D`:
    /// `out[j][a] = Σₖ vₖ ∂²Φᵃ/∂qₖ∂qⱼ`.
    fn phi_qv(&self, q: &SVector<T, Q>, v: &SVector<T, D>, out: &mut [[T; M]; D]);
}

/// The structural nonzeros `(row, column)` of a constraint family's kernels: those of
/// [`HolonomicKernels`], with `R = DΦ`, or of [`NonholonomicKernels`], with `R = A`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConstraintPatterns {
    /// Of `R(q)` (row: constraint, column: coordinate).
    pub matrix: &'static [(u16, u16)],
    /// Of `∂(R(q)ᵀ λ)/∂q`, for any `λ`.
    pub contracted: &'static [(u16, u16)],
    /// Of `D₁₁L + ∂(R(q)ᵀ λ)/∂q`, the union of `contracted` and
    /// [`KernelPatterns::l_qq`]: the families add the two once per stage and scatter the
    /// sum.
    pub k_qq: &'static [(u16, u16)],
    /// Of `∂(R(q) v)/∂q`, for any `v` (row: constraint, column: coordinate).
    pub times_v: &'static [(u16, u16)],
}

/// The nonholonomic constraints `Φ(q, v) = A(q) v + a(q) = 0` (affine in the
/// velocities, as `model!` checks) through their matrix, their affine term and their
/// derivatives, for the nonholonomic stage families and the consistent multiplier (spec
/// 002 §4.8, §4.9 row S4; spec `next_packages.md` §A.3 for the affine term, the
/// turntable's). `model!` emits them for every model with a `nonholonomic { … }` block.
///
/// On a group ([`Space`](crate::space::Space) not flat) `v` is the body velocity `η`
/// and every derivative along `q` is left-trivialised, `∂_s f · Lg(g)` (spec
/// `next_packages.md` §A.3), as [`PointKernels`]' are.
///
/// Matrices are written into caller-provided column storage (`out[j][i]` is row `i`,
/// column `j`; every entry is written).
pub trait NonholonomicKernels<T: Real, const D: usize, const K: usize, const Q: usize = D> {
    /// The structural nonzeros of the kernels' matrices, if known (`model!` emits
    /// them), as [`PointKernels::PATTERNS`]. `None` reads every entry.
    const PATTERNS: Option<ConstraintPatterns> = None;
    /// `A(q) = ∂Φ/∂v`, `K × D`: `out[j][a] = ∂Φᵃ/∂vⱼ`.
    fn a(&self, q: &SVector<T, Q>, out: &mut [[T; K]; D]);
    /// `∂(A(q)ᵀ λ)/∂q`, `D × D`: `out[j][i] = Σₐ λₐ ∂Aₐᵢ/∂qⱼ`.
    fn a_t_lambda_q(&self, q: &SVector<T, Q>, lambda: &SVector<T, K>, out: &mut [[T; D]; D]);
    /// `∂Φ(q, v)/∂q = ∂(A(q) v + a(q))/∂q`, `K × D`: `out[j][a] = Σᵢ vᵢ ∂Aₐᵢ/∂qⱼ +
    /// ∂aₐ/∂qⱼ`. It holds the affine term's derivative, so that every use (a stage's
    /// constraint row, `d/dt Φ = A v̇ + (∂Φ/∂q) q̇` in the multiplier) reads one kernel.
    fn a_v_q(&self, q: &SVector<T, Q>, v: &SVector<T, D>, out: &mut [[T; K]; D]);
    /// The affine term `a(q)`: zero for constraints linear in the velocities, the
    /// default.
    fn affine(&self, q: &SVector<T, Q>) -> SVector<T, K> {
        let _ = q;
        SVector::zeros()
    }
}
