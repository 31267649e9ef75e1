//! The catalogue's [`Converted<L, B>`](schemes::Converted): the node form's equations
//! ([`node_form`](super::node_form)) as a [`NewtonSystem`] on the `N = 3D` unknowns
//! `(q, v, μ)`, solved by the shared Newton driver ([`solve::solve`]) with its options,
//! failure contract and allocation-free workspace. Its exact Jacobian, column blocks
//! `q`, `v`, `μ` and row blocks position, momentum `q`, momentum `v`:
//!
//! ```text
//! [ J⁻_q   J⁻_v   0      ]
//! [ Q_q    Q_v    −J⁺_qᵀ ]      Q, V: the momentum rows' derivatives in w, from the
//! [ V_q    V_v    −J⁺_vᵀ ]      second-order variational equations (`exact_blocks`)
//! ```
//!
//! and, for [`JacobianUpdate::Chord`](crate::JacobianUpdate::Chord), the paper's
//! approximate `A₀ = [[I, hα⁻I, 0], [0, 0, −I], [0, hM₀, −hα⁺I]]` (Sect. 4.2, (4.9)),
//! `M₀ = L_vv(x_k, v)` at the iterate it is formed at.
use core::borrow::BorrowMut;
use core::marker::PhantomData;

use nalgebra::{SMatrix, SVector};

use super::node_form::{Bias, Conversion, Equations, Residual};
use super::standard::flow;
use super::{EulerLagrangeKernels, FromKernels, SecondOrderKernels};
use crate::error::SolveError;
use crate::kernels::PointKernels;
use crate::model::{Model, Real};
use crate::schemes::{self, StandardLayer};
use crate::solve::{self, NewtonSystem, StepReport, Storage, Workspace};
use crate::state::ConvertedState;
use crate::step::{StepContext, StepOptions, WrongLength};
use crate::tableaux::{Tableau, LAYER_STAGES};

/// Memory of a step of [`Converted<L, B>`](schemes::Converted): Newton's workspace for
/// the `N = 3D` unknowns (its matrix in storage `K`) and the scheme's tableau and bias.
#[derive(Clone, Debug)]
pub struct ConvertedWorkspace<T: Real, L, B, const D: usize, const N: usize, K: Storage> {
    newton: Workspace<T, N, K>,
    scheme: Conversion<LAYER_STAGES>,
    choices: PhantomData<fn() -> (L, B)>,
}

impl<T, L, B, const D: usize, const N: usize, K> ConvertedWorkspace<T, L, B, D, N, K>
where
    T: Real,
    L: StandardLayer,
    B: schemes::Bias,
    K: Storage,
{
    /// The workspace of a scheme a model declares (what `model!` emits). Every choice
    /// of `StandardLayer` and `Bias` names a built-in layer and bias (a test checks
    /// the catalogue's lists).
    pub fn declared() -> Self {
        const { assert!(N == 3 * D, "a converted step has 3D unknowns") };
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

/// The built-in tableau and bias the catalogue's choices `L`, `B` name. Every choice of
/// `StandardLayer` and `Bias` names one (a test checks the catalogue's lists).
pub(super) fn declared_conversion<L: StandardLayer, B: schemes::Bias>() -> Conversion<LAYER_STAGES>
{
    let tableau = match Tableau::standard_layer(L::NAME) {
        Some(tableau) => tableau,
        None => panic!("the standard layer `{}` is not built in", L::NAME),
    };
    let bias = match Bias::named(B::NAME) {
        Some(bias) => bias,
        None => panic!("the bias `{}` is not built in", B::NAME),
    };
    Conversion { tableau, bias }
}

/// One step's equations at the node, as Newton sees them, for a tableau of `S` stages.
struct System<'a, T: Real, Mdl, const D: usize, const S: usize> {
    equations: Equations<'a, T, Mdl, D, S>,
    h: T,
}

/// `x`'s block `k` of `D` entries.
fn part<T: Real, const D: usize, const N: usize>(x: &SVector<T, N>, k: usize) -> SVector<T, D> {
    SVector::from_fn(|i, _| x[k * D + i])
}

/// Writes `block` at block row `r` and block column `c` of the column-stored `jac`.
fn set_block<T: Real, const D: usize, const N: usize>(
    jac: &mut [[T; N]; N],
    (r, c): (usize, usize),
    block: &SMatrix<T, D, D>,
) {
    for j in 0..D {
        for i in 0..D {
            jac[c * D + j][r * D + i] = block[(i, j)];
        }
    }
}

impl<T: Real, Mdl: SecondOrderKernels<T, D>, const D: usize, const S: usize>
    System<'_, T, Mdl, D, S>
{
    fn unknowns<const N: usize>(
        x: &SVector<T, N>,
    ) -> (SVector<T, D>, SVector<T, D>, SVector<T, D>) {
        (part(x, 0), part(x, 1), part(x, 2))
    }

    /// The residual at `x`, written into `r`, with the end maps it evaluated.
    fn write_residual<const N: usize>(
        &self,
        x: &SVector<T, N>,
        r: &mut SVector<T, N>,
    ) -> Residual<T, D> {
        let (q, v, mu) = Self::unknowns(x);
        let residual = self.equations.residual(&q, &v, &mu);
        let blocks = [
            &residual.position,
            &residual.momentum_q,
            &residual.momentum_v,
        ];
        for (k, block) in blocks.into_iter().enumerate() {
            r.fixed_rows_mut::<D>(k * D).copy_from(block);
        }
        residual
    }
}

impl<T, Mdl, const D: usize, const S: usize, const N: usize> NewtonSystem<T, N>
    for System<'_, T, Mdl, D, S>
where
    T: Real,
    Mdl: SecondOrderKernels<T, D>,
{
    fn residual(&mut self, x: &SVector<T, N>, r: &mut SVector<T, N>) {
        self.write_residual(x, r);
    }

    fn residual_and_jacobian(
        &mut self,
        x: &SVector<T, N>,
        r: &mut SVector<T, N>,
        jac: &mut [[T; N]; N],
    ) {
        let residual = self.write_residual(x, r);
        let (q, v, mu) = Self::unknowns(x);
        let blocks = self.equations.exact_blocks(&q, &v, &mu);
        let (minus, plus) = (&residual.minus, &residual.plus);
        let zero = SMatrix::<T, D, D>::zeros();
        set_block(jac, (0, 0), &minus.q_q);
        set_block(jac, (0, 1), &minus.q_v);
        set_block(jac, (0, 2), &zero);
        set_block(jac, (1, 0), &blocks.q_q);
        set_block(jac, (1, 1), &blocks.q_v);
        set_block(jac, (1, 2), &-plus.q_q.transpose());
        set_block(jac, (2, 0), &blocks.v_q);
        set_block(jac, (2, 1), &blocks.v_v);
        set_block(jac, (2, 2), &-plus.q_v.transpose());
    }

    fn approximate_jacobian(&mut self, x: &SVector<T, N>, jac: &mut [[T; N]; N]) {
        let (_, v, _) = Self::unknowns(x);
        let (t_minus, t_plus) = (self.equations.t_minus, self.equations.t_plus);
        let identity = SMatrix::<T, D, D>::identity();
        let mass = self.equations.model.l_vv(&self.equations.x, &v);
        for column in jac.iter_mut() {
            column.fill(T::zero());
        }
        set_block(jac, (0, 0), &identity);
        set_block(jac, (0, 1), &(identity * t_minus));
        set_block(jac, (1, 2), &-identity);
        set_block(jac, (2, 1), &(mass * self.h));
        set_block(jac, (2, 2), &(identity * -t_plus));
    }
}

/// Newton's starting point: the segment velocity of the last step, its position placed
/// so that `x⁻ ≈ x_k` (`q = x_k − t⁻ v`), and `μ = p_k`.
fn guess<T: Real, const D: usize, const N: usize>(
    state: &ConvertedState<T, D>,
    t_minus: T,
    x: &mut SVector<T, N>,
) {
    let q = state.x - state.v * t_minus;
    x.fixed_rows_mut::<D>(0).copy_from(&q);
    x.fixed_rows_mut::<D>(D).copy_from(&state.v);
    x.fixed_rows_mut::<D>(2 * D).copy_from(&state.p);
}

/// One step of the node form with the tableau and bias `conversion` from `state`, on
/// the shared Newton driver with `newton` (`N = 3D` unknowns): Newton from the last
/// segment state, then `x_{k+1} = x⁺(w)`, `p_{k+1} = μ`. On error the state is the
/// caller's, unchanged. What every converted scheme's `Step::step` runs.
pub(super) fn solve_node_form<T, Mdl, const D: usize, const S: usize, const N: usize, K>(
    model: &Mdl,
    conversion: &Conversion<S>,
    context: StepContext<'_, T>,
    state: &ConvertedState<T, D>,
    newton: &mut Workspace<T, N, K>,
    options: &StepOptions<T>,
) -> Result<(ConvertedState<T, D>, StepReport<T>), SolveError<T>>
where
    T: Real,
    Mdl: PointKernels<T, D> + EulerLagrangeKernels<T, D>,
    K: Storage,
{
    const { assert!(N == 3 * D, "a converted step has 3D unknowns") };
    let h = context.h;
    let layer = FromKernels(model);
    let equations = Equations::new(&layer, conversion, h, state.x, state.p);
    guess(state, equations.t_minus, &mut newton.x);
    let t_plus = equations.t_plus;
    let mut system = System { equations, h };
    let report = solve::solve(newton, &options.newton, &mut system)?;
    let (q, v, mu) = System::<T, FromKernels<Mdl>, D, S>::unknowns(&newton.x);
    let x = flow(&layer, &conversion.tableau, t_plus, &q, &v).q;
    if x.iter().any(|x| !x.is_finite()) {
        return Err(SolveError::NonFinite {
            iteration: report.iterations,
        });
    }
    let next = ConvertedState {
        t: context.t + h,
        x,
        p: mu,
        q,
        v,
    };
    Ok((next, report))
}

/// The node form's residual at `x` and its exact Jacobian (column by column) into the
/// caller's slices, through `newton`. What every converted scheme's `Step::equations`
/// runs.
#[allow(clippy::too_many_arguments)]
pub(super) fn node_form_equations<T, Mdl, const D: usize, const S: usize, const N: usize, K>(
    model: &Mdl,
    conversion: &Conversion<S>,
    context: StepContext<'_, T>,
    state: &ConvertedState<T, D>,
    newton: &mut Workspace<T, N, K>,
    x: &[T],
    r: &mut [T],
    jac: &mut [T],
) -> Result<(), WrongLength>
where
    T: Real,
    Mdl: PointKernels<T, D> + EulerLagrangeKernels<T, D>,
    K: Storage,
{
    WrongLength::check(N, x, r, jac)?;
    let layer = FromKernels(model);
    let equations = Equations::new(&layer, conversion, context.h, state.x, state.p);
    let mut system = System {
        equations,
        h: context.h,
    };
    newton.x.as_mut_slice().copy_from_slice(x);
    system.residual_and_jacobian(&newton.x, &mut newton.r, newton.jac.borrow_mut());
    super::super::copy_out(newton, r, jac);
    Ok(())
}

/// [`Step::step`](crate::Step::step) of [`Converted<L, B>`](schemes::Converted).
pub fn step<T, Mdl, L, B, const D: usize, const N: usize, K>(
    model: &Mdl,
    _scheme: &schemes::Converted<L, B>,
    context: StepContext<'_, T>,
    state: &ConvertedState<T, D>,
    ws: &mut ConvertedWorkspace<T, L, B, D, N, K>,
    options: &StepOptions<T>,
) -> Result<(ConvertedState<T, D>, StepReport<T>), SolveError<T>>
where
    T: Real,
    Mdl: Model<T, D, 0> + PointKernels<T, D> + EulerLagrangeKernels<T, D>,
    L: StandardLayer,
    B: schemes::Bias,
    K: Storage,
{
    solve_node_form(model, &ws.scheme, context, state, &mut ws.newton, options)
}

/// [`Step::equations`](crate::Step::equations) of [`Converted<L, B>`](schemes::Converted).
#[allow(clippy::too_many_arguments)]
pub fn equations<T, Mdl, L, B, const D: usize, const N: usize, K>(
    model: &Mdl,
    _scheme: &schemes::Converted<L, B>,
    context: StepContext<'_, T>,
    state: &ConvertedState<T, D>,
    ws: &mut ConvertedWorkspace<T, L, B, D, N, K>,
    x: &[T],
    r: &mut [T],
    jac: &mut [T],
) -> Result<(), WrongLength>
where
    T: Real,
    Mdl: Model<T, D, 0> + PointKernels<T, D> + EulerLagrangeKernels<T, D>,
    L: StandardLayer,
    B: schemes::Bias,
    K: Storage,
{
    node_form_equations(model, &ws.scheme, context, state, &mut ws.newton, x, r, jac)
}
