//! The multipliers from the continuous equations, of nonholonomic constraints (spec 002
//! §4.8: the nonholonomic Lobatto method converges with its full order in `λ`, and in
//! `q`, `p` for s ≥ 3, only when its first `Λ¹ = λ₀` is this one; with `λ₀ = 0` the
//! orders drop) and of holonomic ones (the multiplier the Galerkin family reports, eq.
//! (70) of the Galerkin paper).
use nalgebra::{SMatrix, SVector};

use crate::error::{InitError, SolveError};
use crate::kernels::{HolonomicKernels, NonholonomicKernels, PointKernels};
use crate::model::{InputValues, Real};
use crate::solve::lu::{self, Lu};
use crate::space::Space;

/// `λ` of the continuous nonholonomic equations at `(q, v)`:
///
/// ```text
/// d/dt D₂L(q, v) = D₁L(q, v) + F(q, v, t) + A(q)ᵀ λ,      A(q) v + a(q) = 0
/// ```
///
/// differentiated once in time: with `M = D₂₂L`, `f = D₁L + F − (∂D₂L/∂q) v`,
///
/// ```text
/// (A M⁻¹ Aᵀ) λ = −(∂(A v + a)/∂q) v − A M⁻¹ f
/// ```
///
/// The forces `F` of a model with a `forces` block are taken at `t = 0`, the time of
/// the states [`NonholonomicState::consistent`](crate::NonholonomicState::consistent)
/// makes (a step from a state without `λ` takes them at the state's time).
///
/// [`InitError::SingularConstraints`] if `M` or `A M⁻¹ Aᵀ` is singular (redundant
/// constraints, or a singular mass matrix).
pub fn nonholonomic_multiplier<T, Mdl, const D: usize, const K: usize>(
    model: &Mdl,
    q: &SVector<T, D>,
    v: &SVector<T, D>,
) -> Result<SVector<T, K>, InitError<T>>
where
    T: Real,
    Mdl: PointKernels<T, D> + NonholonomicKernels<T, D, K>,
{
    nonholonomic_multiplier_on_group(model, q, v)
}

/// [`nonholonomic_multiplier`] for a model on a group (its configuration stored in `Q`
/// numbers, `v` its body velocity): the kernels are left-trivialised and `f` has the
/// Euler–Poincaré term `ad*_v ℓ_v` (spec `next_packages.md` §A.3,
/// `C λ = −(Aη + a)_ζ η − A ℓ_ηη⁻¹ (ad*_η ℓ_η + ℓ_ζ − ℓ_ηζ η)`). In a vector space it is
/// [`nonholonomic_multiplier`].
pub fn nonholonomic_multiplier_on_group<T, Mdl, const D: usize, const K: usize, const Q: usize>(
    model: &Mdl,
    q: &SVector<T, Q>,
    v: &SVector<T, D>,
) -> Result<SVector<T, K>, InitError<T>>
where
    T: Real,
    Mdl: PointKernels<T, D, Q> + NonholonomicKernels<T, D, K, Q>,
{
    multiplier(model, (T::zero(), &InputValues::zeros()), q, v)
        .map_err(|_| InitError::SingularConstraints)
}

/// [`nonholonomic_multiplier`] at time `t`, with the factorisation's error, on any
/// configuration space: on a group, `v` is the body velocity `η` and the kernels are
/// left-trivialised, and the same formula holds with the Euler–Poincaré term
/// `ad*_η ℓ_η` in `f` (spec `next_packages.md` §A.3:
/// `C λ = −(Aη + a)_ζ η − A ℓ_ηη⁻¹ (ad*_η ℓ_η + ℓ_ζ − ℓ_ηζ η)`).
pub(crate) fn multiplier<T, Mdl, const D: usize, const K: usize, const Q: usize>(
    model: &Mdl,
    (t, u): (T, &Mdl::Inputs),
    q: &SVector<T, Q>,
    v: &SVector<T, D>,
) -> Result<SVector<T, K>, SolveError<T>>
where
    T: Real,
    Mdl: PointKernels<T, D, Q> + NonholonomicKernels<T, D, K, Q>,
{
    let constraints = (
        |q: &SVector<T, Q>, out: &mut [[T; K]; D]| model.a(q, out),
        |q: &SVector<T, Q>, v: &SVector<T, D>, out: &mut [[T; K]; D]| model.a_v_q(q, v, out),
    );
    continuous(model, (t, u), q, v, constraints)
}

/// The multiplier of holonomic constraints `g(q) = 0` from the continuous equations at
/// `(q, v)`, `v` tangent (`G v = 0`), with the sign of a Lagrangian `L − g(q)·λ`
/// (constraint force `−Gᵀλ`, as the GGL and Galerkin families write it): `d²g/dt² = 0`
/// with `d/dt D₂L = D₁L + F − Gᵀλ` gives, with `M = D₂₂L`, `f = D₁L + F − (∂D₂L/∂q) v`,
///
/// ```text
/// (G M⁻¹ Gᵀ) λ = (∂(G v)/∂q) v + G M⁻¹ f
/// ```
///
/// the Galerkin paper's eq. (70) in Lagrangian terms (spec `next_packages.md` §B.3: for
/// a constant `M`, `λ = (G M⁻¹ Gᵀ)⁻¹ (D²g(M⁻¹p, M⁻¹p) − G M⁻¹ ∇V)`).
pub(crate) fn holonomic_multiplier<T, Mdl, const D: usize, const M: usize>(
    model: &Mdl,
    (t, u): (T, &Mdl::Inputs),
    q: &SVector<T, D>,
    v: &SVector<T, D>,
) -> Result<SVector<T, M>, SolveError<T>>
where
    T: Real,
    Mdl: PointKernels<T, D> + HolonomicKernels<T, D, M>,
{
    let constraints = (
        |q: &SVector<T, D>, out: &mut [[T; M]; D]| model.phi_q(q, out),
        |q: &SVector<T, D>, v: &SVector<T, D>, out: &mut [[T; M]; D]| model.phi_qv(q, v, out),
    );
    // The nonholonomic form's force is `+Aᵀλ`: the same equations give `−λ`.
    continuous(model, (t, u), q, v, constraints).map(|lambda| -lambda)
}

/// `λ` of `d/dt D₂L = D₁L + F + Rᵀλ` with `R(q) v = 0` differentiated once in time:
/// `(R M⁻¹ Rᵀ) λ = −(∂(R v)/∂q) v − R M⁻¹ f`, `R` and `∂(R v)/∂q` from `matrix` and
/// `times_v`.
fn continuous<T, Mdl, const D: usize, const K: usize, const Q: usize>(
    model: &Mdl,
    (t, u): (T, &Mdl::Inputs),
    q: &SVector<T, Q>,
    v: &SVector<T, D>,
    (matrix, times_v): (
        impl Fn(&SVector<T, Q>, &mut [[T; K]; D]),
        impl Fn(&SVector<T, Q>, &SVector<T, D>, &mut [[T; K]; D]),
    ),
) -> Result<SVector<T, K>, SolveError<T>>
where
    T: Real,
    Mdl: PointKernels<T, D, Q>,
{
    // One `D × D` buffer, for `∂D₂L/∂q` and then `M`, factored in place: the recomputed
    // nonholonomic family calls this twice a step, on the step's stack.
    let mut square = [[T::zero(); D]; D];
    // f = D₁L − (∂D₂L/∂q) v; `l_qv` holds ∂²L/∂qᵣ∂v꜀ at [c][r], so (∂D₂L/∂q)ᵢⱼ is [i][j].
    model.l_qv(q, v, &mut square);
    let mut f = model.l_q(q, v);
    if Mdl::FORCED {
        f += model.f(t, q, v, u);
    }
    for (i, column) in square.iter().enumerate() {
        for (j, &e) in column.iter().enumerate() {
            f[i] -= e * v[j];
        }
    }
    if !<Mdl::Space as Space<T, D, Q>>::FLAT {
        // The Euler–Poincaré term of d/dt ℓ_η = ad*_η ℓ_η + ℓ_ζ + Aᵀλ on a group.
        let mut ad = [[T::zero(); D]; D];
        <Mdl::Space as Space<T, D, Q>>::ad(v, &mut ad);
        f += SMatrix::<T, D, D>::from_data(nalgebra::ArrayStorage(ad)).tr_mul(&model.l_v(q, v));
    }
    model.l_vv(q, v, &mut square);
    let mut perm = [0; D];
    lu::factor_in_place(&mut square, &mut perm)?;
    let mut a = [[T::zero(); K]; D];
    matrix(q, &mut a);
    let a = SMatrix::<T, K, D>::from_data(nalgebra::ArrayStorage(a));
    let mut minv_at: SMatrix<T, D, K> = a.transpose();
    for c in 0..K {
        let mut column: SVector<T, D> = minv_at.column(c).into_owned();
        lu::solve_in_place(&square, &perm, &mut column);
        minv_at.set_column(c, &column);
    }
    lu::solve_in_place(&square, &perm, &mut f);
    let mut a_v_q = [[T::zero(); K]; D];
    times_v(q, v, &mut a_v_q);
    let a_v_q = SMatrix::<T, K, D>::from_data(nalgebra::ArrayStorage(a_v_q));
    let mut lambda = -(a_v_q * v) - a * f;
    Lu::factor(a * minv_at)?.solve_in_place(&mut lambda);
    Ok(lambda)
}
