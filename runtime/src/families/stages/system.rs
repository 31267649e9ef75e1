//! The step equations as Newton sees them: the family's residual and assembly, the
//! Jacobian zeroed before it is assembled (with an elimination plan only the entries
//! the assembly writes, the plan's fill being zeroed by the factorisation itself), and
//! the factorisation and solve along the plan, the dense LU's without one.
use nalgebra::SVector;

use super::{KnownOf, StageEquations};
use crate::families::blocks::{Assembly, Write};
use crate::model::Real;
use crate::solve::sparse::{self, NeedsPivoting, Plan};
use crate::solve::{lu, NewtonSystem};

/// The equations of family `F` at known values, with the kernel buffers they evaluate
/// into and the plan their Jacobian is factored along.
pub(crate) struct Stages<
    'a,
    T,
    Mdl,
    F,
    const S: usize,
    const D: usize,
    const N: usize,
    const Q: usize,
> where
    T: Real,
    F: StageEquations<T, Mdl, S, D, N, Q>,
{
    pub(super) known: KnownOf<'a, T, Mdl, F, S, D, N, Q>,
    pub(super) kernels: &'a mut F,
    pub(super) plan: Option<&'static Plan>,
}

impl<T, Mdl, F, const S: usize, const D: usize, const N: usize, const Q: usize> NewtonSystem<T, N>
    for Stages<'_, T, Mdl, F, S, D, N, Q>
where
    T: Real,
    F: StageEquations<T, Mdl, S, D, N, Q>,
{
    fn residual(&mut self, x: &SVector<T, N>, r: &mut SVector<T, N>) {
        self.kernels.residual(&self.known, x, r);
    }

    fn residual_and_jacobian(
        &mut self,
        x: &SVector<T, N>,
        r: &mut SVector<T, N>,
        jac: &mut [[T; N]; N],
    ) {
        for column in jac.iter_mut() {
            column.fill(T::zero());
        }
        self.kernels
            .residual_and_assemble(&self.known, x, r, Assembly::new(jac, Write::Add));
    }

    fn residual_and_jacobian_planned(
        &mut self,
        x: &SVector<T, N>,
        r: &mut SVector<T, N>,
        jac: &mut [[T; N]; N],
    ) {
        if self.plan.is_none() {
            return self.residual_and_jacobian(x, r, jac);
        }
        self.kernels
            .assemble(&self.known, x, Assembly::new(jac, Write::Zero));
        self.kernels
            .residual_and_assemble(&self.known, x, r, Assembly::new(jac, Write::Add));
    }

    fn factor_planned(
        &mut self,
        jac: &mut [[T; N]; N],
        slot: &mut [usize; N],
    ) -> Option<Result<(), NeedsPivoting>> {
        self.plan.map(|plan| sparse::factor(plan, jac, slot))
    }

    fn solve_planned(&mut self, lu: &[[T; N]; N], slot: &[usize; N], r: &mut SVector<T, N>) {
        match self.plan {
            Some(plan) => sparse::solve(plan, lu, slot, r),
            None => lu::solve_in_place(lu, slot, r),
        }
    }
}
