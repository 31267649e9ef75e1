//! The catalogue's [`ConvertedHolonomic<L, B>`](schemes::ConvertedHolonomic): the
//! constrained conversion's Phase B ([`constrained`], seed 004
//! Fig. 2 reduced as spec `next_packages.md` §C.4 restates it) on the shared Newton
//! driver, its `N = 3D + 3M` unknowns `(q₂, v₂, θ⁺, λ⁺, ν₁, ν₂)`, for a model whose
//! kernels `model!` emits: the point kernels, [`EulerLagrangeKernels`],
//! [`HolonomicKernels`] and [`CurvatureKernels`], read through [`FromKernels`].
//!
//! The state is the node `(x_k, p_k)` with `g(x_k) = 0` and the segment `(q, v)` that
//! reached it, on `TQ` (`g(q) = 0`, `Dg(q) v = 0`). Started "from a node" (`FromNode`:
//! `p₀ = ∂L/∂v(q₀, v₀)`, whose component along `Dg(q₀)ᵀ` the step's `Dℙᵀ` removes);
//! the paper's start from a segment is [`constrained::from_segment`].
use core::borrow::BorrowMut;
use core::marker::PhantomData;

use super::constrained::{self, CurvatureKernels};
use super::node_form::Conversion;
use super::scheme::declared_conversion;
use super::{EulerLagrangeKernels, FromKernels};
use crate::error::SolveError;
use crate::kernels::{HolonomicKernels, PointKernels};
use crate::model::{Model, Real};
use crate::schemes::{self, StandardLayer};
use crate::solve::{NewtonSystem, StepReport, Storage, Workspace};
use crate::state::ConvertedState;
use crate::step::{StepContext, StepOptions, WrongLength};
use crate::tableaux::LAYER_STAGES;

pub use crate::families::papers_options as default_options;

/// Memory of a step of [`ConvertedHolonomic<L, B>`](schemes::ConvertedHolonomic):
/// Newton's workspace for the `N = 3D + 3M` unknowns (its matrix in storage `K`) and
/// the scheme's tableau and bias.
#[derive(Clone, Debug)]
pub struct ConvertedHolonomicWorkspace<
    T: Real,
    L,
    B,
    const D: usize,
    const M: usize,
    const N: usize,
    K: Storage,
> {
    newton: Workspace<T, N, K>,
    scheme: Conversion<LAYER_STAGES>,
    choices: PhantomData<fn() -> (L, B)>,
}

impl<T, L, B, const D: usize, const M: usize, const N: usize, K>
    ConvertedHolonomicWorkspace<T, L, B, D, M, N, K>
where
    T: Real,
    L: StandardLayer,
    B: schemes::Bias,
    K: Storage,
{
    /// The workspace of a scheme a model declares (what `model!` emits).
    pub fn declared() -> Self {
        const {
            assert!(
                N == 3 * D + 3 * M,
                "a constrained converted step has 3D + 3M unknowns"
            )
        };
        Self {
            newton: Workspace::new(),
            scheme: declared_conversion::<L, B>(),
            choices: PhantomData,
        }
    }

    /// The scheme the workspace steps: its padded tableau and bias.
    pub fn conversion(&self) -> &Conversion<LAYER_STAGES> {
        &self.scheme
    }
}

/// [`Step::step`](crate::Step::step) of a constrained converted scheme: Phase B from
/// the node, then `x_{k+1} = ℙ(x⁺(w))`, `p_{k+1} = λ⁺`. On error the state is the
/// caller's, unchanged.
pub fn step<T, Mdl, L, B, const D: usize, const M: usize, const N: usize, K>(
    model: &Mdl,
    _scheme: &schemes::ConvertedHolonomic<L, B>,
    context: StepContext<'_, T>,
    state: &ConvertedState<T, D>,
    ws: &mut ConvertedHolonomicWorkspace<T, L, B, D, M, N, K>,
    options: &StepOptions<T>,
) -> Result<(ConvertedState<T, D>, StepReport<T>), SolveError<T>>
where
    T: Real,
    Mdl: Model<T, D, M>
        + PointKernels<T, D>
        + EulerLagrangeKernels<T, D>
        + HolonomicKernels<T, D, M>
        + CurvatureKernels<T, D, M>,
    L: StandardLayer,
    B: schemes::Bias,
    K: Storage,
{
    let at = ConvertedState {
        t: context.t,
        ..*state
    };
    constrained::solve_step::<_, _, K, D, M, LAYER_STAGES, N>(
        &FromKernels(model),
        &ws.scheme,
        context.h,
        &at,
        &mut ws.newton,
        &options.newton,
    )
}

/// [`Step::equations`](crate::Step::equations) of a constrained converted scheme: Phase
/// B's residual at `x` and its Jacobian by central differences (column by column).
#[allow(clippy::too_many_arguments)]
pub fn equations<T, Mdl, L, B, const D: usize, const M: usize, const N: usize, K>(
    model: &Mdl,
    _scheme: &schemes::ConvertedHolonomic<L, B>,
    context: StepContext<'_, T>,
    state: &ConvertedState<T, D>,
    ws: &mut ConvertedHolonomicWorkspace<T, L, B, D, M, N, K>,
    x: &[T],
    r: &mut [T],
    jac: &mut [T],
) -> Result<(), WrongLength>
where
    T: Real,
    Mdl: Model<T, D, M>
        + PointKernels<T, D>
        + EulerLagrangeKernels<T, D>
        + HolonomicKernels<T, D, M>
        + CurvatureKernels<T, D, M>,
    L: StandardLayer,
    B: schemes::Bias,
    K: Storage,
{
    WrongLength::check(N, x, r, jac)?;
    let layer = FromKernels(model);
    let mut system = constrained::PhaseB::<T, _, D, M, LAYER_STAGES>::new(
        &layer, &ws.scheme, context.h, state.x, state.p,
    );
    let newton = &mut ws.newton;
    newton.x.as_mut_slice().copy_from_slice(x);
    system.residual_and_jacobian(&newton.x, &mut newton.r, newton.jac.borrow_mut());
    super::super::copy_out(newton, r, jac);
    Ok(())
}
