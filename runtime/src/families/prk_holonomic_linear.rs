//! The linearised step of the holonomically constrained Lobatto IIIA–IIIB family
//! ([`super::prk_holonomic`]; spec `next_packages.md` §D.3) with respect to the carried
//! state `z = (q⁰, p⁰)` and the inputs `u`, on the ambient `(q, p)`: a controller
//! reduces it to the tangent space of the constraints
//! ([`crate::control::reduce`]). With `K_qq(j) = D₁₁L(j) + Σₐ Λʲₐ D²Φᵃ(Qʲ) + F_q(j)`,
//! `K_qv(j) = D₁₂L(j) + F_v(j)`, `Gⱼ = DΦ(Qʲ)`, and at the new node `D₂₁L¹` and
//! `∂(DΦ v¹)/∂q` at `(q¹, v¹)` (`q⁰` enters through every `Qⁱ` and `q¹`):
//!
//! ```text
//! ∂Rᵢ/∂q⁰ = D₂₁L(i) − h Σⱼ âᵢⱼ K_qq(j),   ∂Rᵢ/∂p⁰ = −I,   ∂Rᵢ/∂u = −h Σⱼ âᵢⱼ F_u(j)
//! ∂Cᵢ/∂q⁰ = Gᵢ,   ∂Tg/∂q⁰ = ∂(DΦ v¹)/∂q |q¹
//! ∂Lg/∂q⁰ = D₂₁L¹ − h Σⱼ b̂ⱼ K_qq(j),   ∂Lg/∂p⁰ = −I,   ∂Lg/∂u = −h Σⱼ b̂ⱼ F_u(j)
//! q¹ = q⁰ + h Σⱼ bⱼ Vʲ,  p¹ = p⁰ + h Σⱼ b̂ⱼ Wʲ:  as the unconstrained family's
//!     ([`super::prk_linear`]), and ∂p¹/∂Λʲ = h b̂ⱼ Gⱼᵀ
//! ```
use nalgebra::{SMatrix, SVector};

use super::prk_holonomic::PrkHolonomicWorkspace;
use super::prk_linear::{converged, stage_kernels, Sensitivities};
use super::stages::block;
use crate::error::SolveError;
use crate::kernels::{HolonomicKernels, PointKernels};
use crate::linearize::Linearized;
use crate::model::{InputValues, Real};
use crate::schemes::HolonomicLobatto;
use crate::solve::Storage;
use crate::state::PhaseState;
use crate::step::{StepContext, StepOptions};

/// One step of `HolonomicLobatto<S>` from `state` and its linearisation on the ambient
/// `z = (q, p)` (module docs). The state is only read.
#[allow(clippy::too_many_arguments)]
pub fn linearize<
    T,
    Mdl,
    K,
    const S: usize,
    const D: usize,
    const M: usize,
    const N: usize,
    const NZ: usize,
    const NU: usize,
>(
    model: &Mdl,
    scheme: &HolonomicLobatto<S>,
    context: StepContext<'_, T>,
    state: &PhaseState<T, D>,
    ws: &mut PrkHolonomicWorkspace<T, S, D, M, N, K>,
    options: &StepOptions<T>,
) -> Result<Linearized<PhaseState<T, D>, T, NZ, NU>, SolveError<T>>
where
    T: Real,
    Mdl: PointKernels<T, D> + HolonomicKernels<T, D, M>,
    K: Storage,
{
    const {
        assert!(
            N == S * (D + M) + D && NZ == 2 * D,
            "z = (q, p) and the family's unknowns"
        );
        assert!(
            NU == <Mdl::Inputs as InputValues<T>>::LEN,
            "one column per input"
        );
    };
    // The rows and columns of the family's layout (`prk_holonomic::Layout`).
    let multiplier = |j: usize| S * D + j * M;
    let constraint = |i: usize| S * D + (i - 1) * M;
    let (tangency, legendre) = (S * D + (S - 1) * M, S * D + S * M);

    let (next, report, x, lu) = converged(model, scheme, context, state, ws, options)?;

    let (h, tab) = (context.h, ws.tableau());
    let c = |x: f64| -> T { nalgebra::convert(x) };
    let u = Mdl::Inputs::from_slice(context.inputs).unwrap_or_else(Mdl::Inputs::zeros);
    let v: [SVector<T, D>; S] = core::array::from_fn(|j| block(&x, j * D));
    let combine = |weights: &[f64; S]| {
        let mut out = state.q;
        for (vl, &w) in v.iter().zip(weights) {
            out.axpy(h * c(w), vl, T::one());
        }
        out
    };
    let q: [SVector<T, D>; S] = core::array::from_fn(|i| combine(&tab.a[i]));
    let (q1, v1): (SVector<T, D>, SVector<T, D>) = (combine(&tab.b), block(&x, legendre));

    let mut z = Sensitivities::<T, N, NZ, NU>::new();
    let mut g = [[T::zero(); M]; D];
    let mut curvature = [[T::zero(); D]; D];
    for j in 0..S {
        let t = context.t + c(tab.c[j]) * h;
        let lambda: SVector<T, M> = block(&x, multiplier(j));
        let mut kernels = stage_kernels(model, t, (&q[j], &v[j]), &u);
        model.phi_qq_contracted(&q[j], &lambda, &mut curvature);
        kernels.k_qq += SMatrix::from_data(nalgebra::ArrayStorage(curvature));
        model.phi_q(&q[j], &mut g);
        let g_j = SMatrix::<T, M, D>::from_fn(|a, k| g[k][a]);
        // Rⱼ through Qʲ and Vʲ, every Rᵢ and Lg through Wʲ, q¹ and p¹ (as unconstrained).
        z.stage(j, (h, tab), &kernels, Some(legendre));
        // Wʲ's constraint force Gⱼᵀ Λʲ: in p¹ by h b̂ⱼ.
        let mut p_lambda = z.psi_x.fixed_view_mut::<D, M>(D, multiplier(j));
        p_lambda += g_j.transpose() * (h * c(tab.b_hat[j]));
        // Cⱼ = Φ(Qʲ), j ≥ 1: Gⱼ on q⁰.
        if j > 0 {
            z.r_z
                .fixed_view_mut::<M, D>(constraint(j), 0)
                .copy_from(&g_j);
        }
    }
    // The new node: Lg's D₂L(q¹, v¹) and the tangency DΦ(q¹) v¹, through q¹ on q⁰.
    let mut buffer = [[T::zero(); D]; D];
    model.l_qv(&q1, &v1, &mut buffer);
    let mut lg = z.r_z.fixed_view_mut::<D, D>(legendre, 0);
    lg += SMatrix::from_data(nalgebra::ArrayStorage(buffer)).transpose();
    for k in 0..D {
        // Lg = D₂L(q¹, v¹) − p¹: p¹'s own −I on p⁰ (its Wʲ terms are `stage`'s).
        z.r_z[(legendre + k, D + k)] = -T::one();
    }
    model.phi_qv(&q1, &v1, &mut g);
    let g_v = SMatrix::<T, M, D>::from_fn(|a, k| g[k][a]);
    z.r_z.fixed_view_mut::<M, D>(tangency, 0).copy_from(&g_v);
    let (a, b) = z.solve(&lu);
    Ok(Linearized { next, a, b, report })
}
