//! The linearised step of the Lobatto IIIA–IIIB family ([`super::prk`]; spec
//! `next_packages.md` §D.3) with respect to the carried state `z = (q⁰, p⁰)` and the
//! inputs `u`. With `K_qq(j) = D₁₁L(j) + F_q(j)`, `K_qv(j) = D₁₂L(j) + F_v(j)` and the
//! forces' `F_u(j)` at stage `j`:
//!
//! ```text
//! ∂Rᵢ/∂q⁰ = D₂₁L(i) − h Σⱼ âᵢⱼ K_qq(j)     (∂Qⁱ/∂q⁰ = I)
//! ∂Rᵢ/∂p⁰ = −I,     ∂Rᵢ/∂u = −h Σⱼ âᵢⱼ F_u(j)
//! q¹ = q⁰ + h Σⱼ bⱼ Vʲ:   ∂q¹/∂Vˡ = h bₗ I,  ∂q¹/∂q⁰ = I
//! p¹ = p⁰ + h Σⱼ b̂ⱼ Wʲ:   ∂p¹/∂Vˡ = h Σⱼ b̂ⱼ (h aⱼₗ K_qq(j) + δⱼₗ K_qv(j)),
//!                         ∂p¹/∂q⁰ = h Σⱼ b̂ⱼ K_qq(j),  ∂p¹/∂p⁰ = I,
//!                         ∂p¹/∂u = h Σⱼ b̂ⱼ F_u(j)
//! ```
//!
//! and `A = Ψ_z − Ψ_x J⁻¹ R_z`, `B = Ψ_u − Ψ_x J⁻¹ R_u` ([`crate::linearize`]), `J` the
//! family's exact block Jacobian re-assembled at the converged stage velocities.
use nalgebra::{ArrayStorage, SMatrix, SVector};

use super::prk::PrkWorkspace;
use super::stages::{block, equations, step, StageEquations, StageWorkspace};
use crate::error::SolveError;
use crate::kernels::PointKernels;
use crate::linearize::Linearized;
use crate::model::{Configuration, InputValues, Real};
use crate::schemes::LobattoIIIAIIIB;
use crate::solve::lu::Lu;
use crate::solve::{StepReport, Storage};
use crate::state::PhaseState;
use crate::step::{StepContext, StepOptions};
use crate::tableaux::PartitionedTableau;

/// A kernel's column storage (`out[j][i]` row `i`, column `j`) as a matrix.
fn matrix<T: Real, const D: usize>(columns: [[T; D]; D]) -> SMatrix<T, D, D> {
    SMatrix::from_data(ArrayStorage(columns))
}

/// The derivatives of a stage's force `Wʲ = D₁L + F` and of its Legendre transform
/// `D₂L` at `(Qʲ, Vʲ)`: `K_qq = D₁₁L + F_q` (a constrained family adds its constraint
/// term), `D₁₂L`, `K_qv = D₁₂L + F_v` and `F_u`.
pub(crate) struct StageKernels<T, const D: usize, const NU: usize> {
    pub k_qq: SMatrix<T, D, D>,
    pub l_qv: SMatrix<T, D, D>,
    pub k_qv: SMatrix<T, D, D>,
    pub f_u: SMatrix<T, D, NU>,
}

/// [`StageKernels`] at `(q, v)`, the forces at time `t` and the inputs `u`.
pub(crate) fn stage_kernels<T, Mdl, const D: usize, const NU: usize>(
    model: &Mdl,
    t: T,
    (q, v): (&SVector<T, D>, &SVector<T, D>),
    u: &Mdl::Inputs,
) -> StageKernels<T, D, NU>
where
    T: Real,
    Mdl: PointKernels<T, D>,
{
    let mut buffer = [[T::zero(); D]; D];
    model.l_qq(q, v, &mut buffer);
    let mut k_qq = matrix(buffer);
    model.l_qv(q, v, &mut buffer);
    let l_qv = matrix(buffer);
    let mut k_qv = l_qv;
    let mut f_u = SMatrix::<T, D, NU>::zeros();
    if Mdl::FORCED {
        model.f_q(t, q, v, u, &mut buffer);
        k_qq += matrix(buffer);
        model.f_v(t, q, v, u, &mut buffer);
        k_qv += matrix(buffer);
        let mut rows = [Mdl::Inputs::zeros(); D];
        model.f_u(t, q, v, u, &mut rows);
        for (i, row) in rows.iter().enumerate() {
            for (k, &e) in row.as_ref().iter().enumerate().take(NU) {
                f_u[(i, k)] = e;
            }
        }
    }
    StageKernels {
        k_qq,
        l_qv,
        k_qv,
        f_u,
    }
}

/// The blocks of the implicit-function theorem for a step whose stage velocities are
/// the first `S·D` unknowns and whose next state is `q¹ = q⁰ + h Σ bⱼ Vʲ`,
/// `p¹ = p⁰ + h Σ b̂ⱼ Wʲ`: `R_z`, `R_u`, `Ψ_x`, and `A`, `B` started at `Ψ_z`, `Ψ_u`.
pub(crate) struct Sensitivities<T, const N: usize, const NZ: usize, const NU: usize> {
    pub r_z: SMatrix<T, N, NZ>,
    pub r_u: SMatrix<T, N, NU>,
    pub psi_x: SMatrix<T, NZ, N>,
    pub a: SMatrix<T, NZ, NZ>,
    pub b: SMatrix<T, NZ, NU>,
}

impl<T: Real, const N: usize, const NZ: usize, const NU: usize> Sensitivities<T, N, NZ, NU> {
    /// `Ψ_z = I` (`∂q¹/∂q⁰ = ∂p¹/∂p⁰ = I`), everything else zero.
    pub fn new() -> Self {
        Self {
            r_z: SMatrix::zeros(),
            r_u: SMatrix::zeros(),
            psi_x: SMatrix::zeros(),
            a: SMatrix::identity(),
            b: SMatrix::zeros(),
        }
    }

    /// Stage `j`'s terms: `Rⱼ = D₂L(Qʲ, Vʲ) − p⁰ − …` on `(q⁰, p⁰)`; `Wʲ` in every
    /// `Rᵢ` (weight `âᵢⱼ`), in the row block `legendre` if the family has one (weight
    /// `b̂ⱼ`, the new node's Legendre transform `… − p¹`), and in `p¹`; `Vʲ` in `q¹`.
    pub fn stage<const S: usize, const D: usize>(
        &mut self,
        j: usize,
        (h, tab): (T, &PartitionedTableau<S>),
        kernels: &StageKernels<T, D, NU>,
        legendre: Option<usize>,
    ) {
        let c = |x: f64| -> T { nalgebra::convert(x) };
        let StageKernels {
            k_qq,
            l_qv,
            k_qv,
            f_u,
        } = kernels;
        // ∂Rⱼ/∂q⁰ has D₂₁L(j) = D₁₂L(j)ᵀ (∂Qʲ/∂q⁰ = I), ∂Rⱼ/∂p⁰ = −I.
        let mut own = self.r_z.fixed_view_mut::<D, D>(j * D, 0);
        own += l_qv.transpose();
        for k in 0..D {
            self.r_z[(j * D + k, D + k)] = -T::one();
        }
        // −h g Wʲ in the rows it enters: −h g K_qq(j) on q⁰, −h g F_u(j) on u.
        let rows = (0..S).map(|i| (i * D, tab.a_hat[i][j]));
        for (row, g) in rows.chain(legendre.map(|row| (row, tab.b_hat[j]))) {
            let w = -h * c(g);
            let mut on_q = self.r_z.fixed_view_mut::<D, D>(row, 0);
            on_q += k_qq * w;
            let mut on_u = self.r_u.fixed_view_mut::<D, NU>(row, 0);
            on_u += f_u * w;
        }
        // q¹ by h bⱼ Vʲ; p¹ by h b̂ⱼ Wʲ through Qʲ (on every Vˡ and on q⁰), Vʲ and u.
        let (hb, hb_hat) = (h * c(tab.b[j]), h * c(tab.b_hat[j]));
        for k in 0..D {
            self.psi_x[(k, j * D + k)] = hb;
        }
        for (l, &a_jl) in tab.a[j].iter().enumerate() {
            let mut through = self.psi_x.fixed_view_mut::<D, D>(D, l * D);
            through += k_qq * (hb_hat * h * c(a_jl));
        }
        let mut direct = self.psi_x.fixed_view_mut::<D, D>(D, j * D);
        direct += k_qv * hb_hat;
        let mut p_q = self.a.fixed_view_mut::<D, D>(D, 0);
        p_q += k_qq * hb_hat;
        let mut p_u = self.b.fixed_view_mut::<D, NU>(D, 0);
        p_u += f_u * hb_hat;
    }

    /// `A = Ψ_z − Ψ_x J⁻¹ R_z`, `B = Ψ_u − Ψ_x J⁻¹ R_u`, `J` factored in `lu`.
    pub fn solve(mut self, lu: &Lu<T, N>) -> (SMatrix<T, NZ, NZ>, SMatrix<T, NZ, NU>) {
        lu.solve_matrix_in_place(&mut self.r_z);
        lu.solve_matrix_in_place(&mut self.r_u);
        (
            self.a - self.psi_x * self.r_z,
            self.b - self.psi_x * self.r_u,
        )
    }
}

/// What the implicit-function theorem starts from: the step of a stage family from
/// `state` (its new state and report), the converged unknowns `x`, and the step
/// Jacobian `J` re-assembled there and factored (Newton's last factors are those of the
/// previous iterate).
#[allow(clippy::type_complexity)]
pub(crate) fn converged<T, Mdl, F, K, const S: usize, const D: usize, const N: usize>(
    model: &Mdl,
    scheme: &F::Scheme,
    context: StepContext<'_, T>,
    state: &F::State,
    ws: &mut StageWorkspace<T, F, S, N, K, F::Coefficients>,
    options: &StepOptions<T>,
) -> Result<(F::State, StepReport<T>, SVector<T, N>, Lu<T, N>), SolveError<T>>
where
    T: Real,
    Mdl: Configuration<T, D>,
    F: StageEquations<T, Mdl, S, D, N>,
    K: Storage,
{
    let (next, report) = step(model, scheme, context, state, ws, options)?;
    let x: SVector<T, N> = ws.unknowns();
    let mut jac = SMatrix::<T, N, N>::zeros();
    let mut r = [T::zero(); N];
    // The step above checked the context: `equations` cannot refuse it.
    let refused = SolveError::WrongInputCount {
        expected: Mdl::Inputs::LEN,
        given: context.inputs.len(),
    };
    let (x_in, jac_out) = (x.as_slice(), jac.as_mut_slice());
    equations(model, scheme, context, state, ws, x_in, &mut r, jac_out).map_err(|_| refused)?;
    // `equations` left the solution in the workspace: the next step continues it, as it
    // would after `step` alone.
    ws.solved(context.h, &next);
    Ok((next, report, x, Lu::factor(jac)?))
}

/// One step of `LobattoIIIAIIIB<S>` from `state` and its linearisation (module docs):
/// `A` on `z = (q, p)` (`NZ = 2D`), `B` on the `NU` inputs. The state is only read.
#[allow(clippy::too_many_arguments)]
pub fn linearize<
    T,
    Mdl,
    K,
    const S: usize,
    const D: usize,
    const N: usize,
    const NZ: usize,
    const NU: usize,
>(
    model: &Mdl,
    scheme: &LobattoIIIAIIIB<S>,
    context: StepContext<'_, T>,
    state: &PhaseState<T, D>,
    ws: &mut PrkWorkspace<T, S, D, N, K>,
    options: &StepOptions<T>,
) -> Result<Linearized<PhaseState<T, D>, T, NZ, NU>, SolveError<T>>
where
    T: Real,
    Mdl: PointKernels<T, D>,
    K: Storage,
{
    const {
        assert!(
            N == S * D && NZ == 2 * D,
            "z = (q, p) and the S stage velocities"
        );
        assert!(
            NU == <Mdl::Inputs as InputValues<T>>::LEN,
            "one column per input"
        );
    };
    let (next, report, x, lu) = converged(model, scheme, context, state, ws, options)?;

    let (h, tab) = (context.h, ws.tableau());
    let c = |x: f64| -> T { nalgebra::convert(x) };
    let u = Mdl::Inputs::from_slice(context.inputs).unwrap_or_else(Mdl::Inputs::zeros);
    let v: [SVector<T, D>; S] = core::array::from_fn(|j| block(&x, j * D));
    let mut z = Sensitivities::<T, N, NZ, NU>::new();
    for j in 0..S {
        // Qʲ = q⁰ + h Σₗ aⱼₗ Vˡ at the stage time t⁰ + cⱼ h.
        let mut q = state.q;
        for (vl, &a) in v.iter().zip(&tab.a[j]) {
            q.axpy(h * c(a), vl, T::one());
        }
        let t = context.t + c(tab.c[j]) * h;
        z.stage(j, (h, tab), &stage_kernels(model, t, (&q, &v[j]), &u), None);
    }
    let (a, b) = z.solve(&lu);
    Ok(Linearized { next, a, b, report })
}
