//! The [`NewtonSystem`](crate::solve::NewtonSystem) methods every stage family shares
//! for its elimination plan: the families differ in their residual and assembly, not in
//! how a plan is followed.

/// Inside a stage family's `impl NewtonSystem<T, N>`, whose system has a field
/// `plan: Option<&'static Plan>` and a method `assemble(x, jac, Write)` that writes (or,
/// with [`Write::Zero`](super::blocks::Write), zeroes) exactly the entries of its
/// Jacobian's pattern: the planned residual and Jacobian (only those entries zeroed
/// first, the plan's fill zeroed by the factorisation itself), and the factorisation
/// and solve along the plan, the dense LU's without one.
macro_rules! planned_newton_methods {
    () => {
        fn residual_and_jacobian_planned(
            &mut self,
            x: &SVector<T, N>,
            r: &mut SVector<T, N>,
            jac: &mut [[T; N]; N],
        ) {
            if self.plan.is_none() {
                return self.residual_and_jacobian(x, r, jac);
            }
            self.residual(x, r);
            self.assemble(x, jac, Write::Zero);
            self.assemble(x, jac, Write::Add);
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
                None => solve::lu::solve_in_place(lu, slot, r),
            }
        }
    };
}
