//! The catalogue's [`ConvertedTableau`](schemes::ConvertedTableau): the node form
//! ([`node_form`](super::node_form)) with the tableau and bias the scheme value carries,
//! on the shared Newton driver, as [`Converted<L, B>`](schemes::Converted) runs its
//! built-in ones.
use super::scheme::{node_form_equations, solve_node_form};
use super::EulerLagrangeKernels;
use crate::error::SolveError;
use crate::kernels::PointKernels;
use crate::model::{Model, Real};
use crate::schemes;
use crate::solve::{StepReport, Storage, Workspace};
use crate::state::ConvertedState;
use crate::step::{StepContext, StepOptions, WrongLength};

pub use crate::families::papers_options as default_options;

/// Memory of a step of [`ConvertedTableau`](schemes::ConvertedTableau): Newton's
/// workspace for the `N = 3D` unknowns (its matrix in storage `K`). The tableau is the
/// scheme value's.
#[derive(Clone, Debug)]
pub struct ConvertedTableauWorkspace<T: Real, const D: usize, const N: usize, K: Storage> {
    newton: Workspace<T, N, K>,
}

impl<T: Real, const D: usize, const N: usize, K: Storage> ConvertedTableauWorkspace<T, D, N, K> {
    /// The workspace of a scheme a model declares (what `model!` emits).
    pub fn declared() -> Self {
        const { assert!(N == 3 * D, "a converted step has 3D unknowns") };
        Self {
            newton: Workspace::new(),
        }
    }
}

/// [`Step::step`](crate::Step::step) of [`ConvertedTableau`](schemes::ConvertedTableau).
pub fn step<T, Mdl, const D: usize, const N: usize, K>(
    model: &Mdl,
    scheme: &schemes::ConvertedTableau,
    context: StepContext<'_, T>,
    state: &ConvertedState<T, D>,
    ws: &mut ConvertedTableauWorkspace<T, D, N, K>,
    options: &StepOptions<T>,
) -> Result<(ConvertedState<T, D>, StepReport<T>), SolveError<T>>
where
    T: Real,
    Mdl: Model<T, D, 0> + PointKernels<T, D> + EulerLagrangeKernels<T, D>,
    K: Storage,
{
    solve_node_form(
        model,
        scheme.conversion(),
        context,
        state,
        &mut ws.newton,
        options,
    )
}

/// [`Step::equations`](crate::Step::equations) of
/// [`ConvertedTableau`](schemes::ConvertedTableau).
#[allow(clippy::too_many_arguments)]
pub fn equations<T, Mdl, const D: usize, const N: usize, K>(
    model: &Mdl,
    scheme: &schemes::ConvertedTableau,
    context: StepContext<'_, T>,
    state: &ConvertedState<T, D>,
    ws: &mut ConvertedTableauWorkspace<T, D, N, K>,
    x: &[T],
    r: &mut [T],
    jac: &mut [T],
) -> Result<(), WrongLength>
where
    T: Real,
    Mdl: Model<T, D, 0> + PointKernels<T, D> + EulerLagrangeKernels<T, D>,
    K: Storage,
{
    node_form_equations(
        model,
        scheme.conversion(),
        context,
        state,
        &mut ws.newton,
        x,
        r,
        jac,
    )
}
