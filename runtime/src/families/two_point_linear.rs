//! The linearised step of the two-point family ([`super::two_point`]; spec
//! `next_packages.md` §D.3) with respect to the carried state `z` and the inputs `u`.
//!
//! A GGL step solves `R(x; z, u, h) = 0` for its unknowns `x` and reads the next state
//! off them, `z⁺ = Ψ(x; z, u, h)` (for EML `x = (q¹, v¹, p¹, λ, …)` and
//! `z⁺ = (q¹, v¹, p¹)`, so `Ψ_x` is a selection and `Ψ_z = Ψ_u = 0`). `model!`
//! differentiates the template's residual and next state with respect to the known rows
//! the step reads and to the inputs, through the template's intermediates by the chain
//! rule, and emits them as [`LinearizedSystem::sensitivities`]; by the
//! implicit-function theorem on the converged equations
//!
//! ```text
//! A = ∂z⁺/∂z = Ψ_z − Ψ_x J⁻¹ R_z,    B = ∂z⁺/∂u = Ψ_u − Ψ_x J⁻¹ R_u
//! ```
//!
//! with `J = ∂R/∂x` the emitted exact Jacobian re-assembled (densely, column-stored) at
//! the converged `x` ([`crate::linearize`]).
//!
//! For EML (Kinon, Betsch, Sect. 4.2, eqs. (72a–d), and the stabilised (72a'–c') of
//! `macros/src/schemes/hidden.rs`) the step reads `q⁰` everywhere, `v⁰` in (72a) and in
//! the partitioned derivatives of `T` (eqs. (129)–(131)), `p⁰` in (72b) and the hidden
//! row `G(q¹)p¹ − G(q⁰)p⁰`, and `u` through the midpoint force of (72b): `z = (q, v, p)`.
//! Its `λ` and `γ` only seed Newton, so they are not carried.
use nalgebra::{ArrayStorage, SMatrix, SVector};

use super::two_point::{step, DiscreteSystem};
use crate::error::SolveError;
use crate::linearize::Linearized;
use crate::model::{InputValues, Real};
use crate::schemes::info::SchemeInfo;
use crate::solve::lu::Lu;
use crate::solve::{Storage, Workspace};
use crate::state::NodeState;
use crate::step::{StepContext, StepOptions};

/// The derivatives of a GGL step's equations at its solution with respect to the
/// carried state `z` (`NZ` rows of the known state, in the order of
/// [`Linearize::CARRIED`](crate::Linearize::CARRIED)) and the inputs `u`: `R_z`, `R_u`,
/// and those of the next state `z⁺ = Ψ(x; z, u)`, `Ψ_x`, `Ψ_z`, `Ψ_u`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sensitivities<T, const N: usize, const NZ: usize, const NU: usize> {
    /// `∂R/∂z`.
    pub r_z: SMatrix<T, N, NZ>,
    /// `∂R/∂u`.
    pub r_u: SMatrix<T, N, NU>,
    /// `∂Ψ/∂x`.
    pub psi_x: SMatrix<T, NZ, N>,
    /// `∂Ψ/∂z`.
    pub psi_z: SMatrix<T, NZ, NZ>,
    /// `∂Ψ/∂u`.
    pub psi_u: SMatrix<T, NZ, NU>,
}

impl<T: Real, const N: usize, const NZ: usize, const NU: usize> Sensitivities<T, N, NZ, NU> {
    /// Every block zero: the emitted writer fills only the structural nonzeros.
    pub fn zeros() -> Self {
        Self {
            r_z: SMatrix::zeros(),
            r_u: SMatrix::zeros(),
            psi_x: SMatrix::zeros(),
            psi_z: SMatrix::zeros(),
            psi_u: SMatrix::zeros(),
        }
    }

    /// `A = Ψ_z − Ψ_x J⁻¹ R_z`, `B = Ψ_u − Ψ_x J⁻¹ R_u`, `J` factored in `lu`.
    fn solve(mut self, lu: &Lu<T, N>) -> (SMatrix<T, NZ, NZ>, SMatrix<T, NZ, NU>) {
        lu.solve_matrix_in_place(&mut self.r_z);
        lu.solve_matrix_in_place(&mut self.r_u);
        (
            self.psi_z - self.psi_x * self.r_z,
            self.psi_u - self.psi_x * self.r_u,
        )
    }
}

/// A [`DiscreteSystem`] whose step `model!` can linearise: emitted for the schemes that
/// support it on models with an `inputs` block, `NZ` the carried state's size and `NU`
/// the inputs'.
pub trait LinearizedSystem<
    T: Real,
    S,
    const D: usize,
    const M: usize,
    const N: usize,
    const NZ: usize,
    const NU: usize,
>: DiscreteSystem<T, S, D, M, N>
{
    /// Writes the structural nonzeros of `R_z`, `R_u`, `Ψ_x`, `Ψ_z`, `Ψ_u` at the
    /// unknowns `x` of the step from `known` under `inputs` into `out` (the rest is left
    /// as it was).
    #[allow(clippy::too_many_arguments)]
    fn sensitivities(
        &self,
        scheme: &S,
        h: T,
        known: &NodeState<T, D, M>,
        inputs: &Self::Inputs,
        x: &SVector<T, N>,
        out: &mut Sensitivities<T, N, NZ, NU>,
    );
}

/// One step of a GGL scheme from `state` ([`step`]) and its linearisation (module
/// docs): `A` on the carried state (`NZ` rows, [`LinearizedSystem`]), `B` on the `NU`
/// inputs. The state is only read.
#[allow(clippy::too_many_arguments)]
pub fn linearize<
    T,
    Mdl,
    S,
    K,
    const D: usize,
    const M: usize,
    const N: usize,
    const NZ: usize,
    const NU: usize,
>(
    model: &Mdl,
    scheme: &S,
    context: StepContext<'_, T>,
    state: &NodeState<T, D, M>,
    ws: &mut Workspace<T, N, K>,
    options: &StepOptions<T>,
) -> Result<Linearized<NodeState<T, D, M>, T, NZ, NU>, SolveError<T>>
where
    T: Real,
    Mdl: LinearizedSystem<T, S, D, M, N, NZ, NU>,
    S: SchemeInfo,
    K: Storage,
{
    const {
        assert!(
            NU == <Mdl::Inputs as InputValues<T>>::LEN,
            "one column per input"
        );
    };
    let (next, report) = step(model, scheme, context, state, ws, options)?;
    // `step` has read the inputs from the context: this cannot refuse them.
    let inputs = Mdl::Inputs::from_slice(context.inputs).ok_or(SolveError::WrongInputCount {
        expected: NU,
        given: context.inputs.len(),
    })?;
    // The equations of the step as `step` solved them: from the context's time.
    let known = NodeState {
        t: context.t,
        ..*state
    };
    let (h, x) = (context.h, ws.x);
    // J at the converged x: Newton's last factors are those of the previous iterate (or
    // of an older one, under a frozen Jacobian). The writer leaves structural zeros as
    // they were: they start at zero here, and the dense layout is the column-stored one.
    let mut columns = [[T::zero(); N]; N];
    let mut r = SVector::<T, N>::zeros();
    model.residual_and_jacobian(scheme, h, &known, &inputs, &x, &mut r, &mut columns);
    let lu = Lu::factor(SMatrix::from_data(ArrayStorage(columns)))?;
    let mut sensitivities = Sensitivities::zeros();
    model.sensitivities(scheme, h, &known, &inputs, &x, &mut sensitivities);
    let (a, b) = sensitivities.solve(&lu);
    Ok(Linearized { next, a, b, report })
}
