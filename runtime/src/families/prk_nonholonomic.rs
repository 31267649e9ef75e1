//! The nonholonomic partitioned Runge–Kutta method of the Lobatto IIIA–IIIB pair (Martín
//! de Diego, Sato Martín de Almagro, "High-order geometric methods for nonholonomic
//! mechanical systems", eqs. (14), App. D; spec 002 S4), assembled at run time from the
//! model's [`PointKernels`] and [`NonholonomicKernels`] for any number of stages `S`,
//! in the velocity form for any regular Lagrangian.
//!
//! Unknowns `X = (V¹ … Vˢ, Λ¹ … Λˢ, v¹ … vˢ)`, `N = S (2D + K)`; with
//! `Wʲ = D₁L(Qʲ, Vʲ) + A(Qʲ)ᵀ Λʲ` (14c), `Qⁱ = qₖ + h Σⱼ aᵢⱼ Vʲ` and
//! `pⁱ = pₖ + h Σⱼ aᵢⱼ Wʲ` (14d, the IIIA coefficients) the equations are, block by block
//! in the order of the unknowns,
//!
//! ```text
//! Rᵢ  = D₂L(Qⁱ, Vⁱ) − pₖ − h Σⱼ âᵢⱼ Wʲ      i = 1 … s     (14b, 14c)
//! C₁  = Λ¹ − λₖ,   Cᵢ = A(Qⁱ) vⁱ            i = 2 … s     (14e: Ψ(qⁱ, pⁱ) = 0)
//! Lᵢ  = D₂L(Qⁱ, vⁱ) − pⁱ                    i = 1 … s     (App. D: pⁱ = D₂L(qⁱ, vⁱ))
//! ```
//!
//! The spec's recommended solve (S4) takes `Λ²…Λˢ` and `v²…vˢ` as unknowns; `Λ¹` and
//! `v¹` are kept here with their trivial equations (`C₁`, and `L₁`, which is
//! `D₂L(qₖ, v¹) = pₖ` since `a₁ⱼ = 0`) so that every block has one per stage: two more
//! blocks of `K` and `D` for Newton, solved exactly in its first iteration. The
//! constraint at stage 1 holds already (`q¹ = qₖ`, `p¹ = pₖ`, a consistent state).
//! Outputs (14a): `qₖ₊₁ = qₖ + h Σⱼ bⱼ Vʲ`, `pₖ₊₁ = pₖ + h Σⱼ b̂ⱼ Wʲ`, `vₖ₊₁ = vˢ`,
//! `λₖ₊₁ = Λˢ`.
//!
//! The exact Jacobian, with `K_qq(j) = D₁₁L(j) + ∂(A(q)ᵀ Λʲ)/∂q` at `(Qʲ, Vʲ)`:
//!
//! ```text
//! ∂Wʲ/∂Vˡ = h aⱼₗ K_qq(j) + δⱼₗ D₁₂L(j),   ∂Wʲ/∂Λʲ = A(Qʲ)ᵀ
//! ∂Rᵢ/∂Vˡ = h aᵢₗ D₂₁L(i) + δᵢₗ D₂₂L(i) − h Σⱼ âᵢⱼ ∂Wʲ/∂Vˡ,   ∂Rᵢ/∂Λʲ = −h âᵢⱼ A(Qʲ)ᵀ
//! ∂Cᵢ/∂Vˡ = h aᵢₗ ∂(A(q) vⁱ)/∂q |Qⁱ,   ∂Cᵢ/∂vⁱ = A(Qⁱ),   ∂C₁/∂Λ¹ = I
//! ∂Lᵢ/∂Vˡ = h aᵢₗ D₂₁L(Qⁱ, vⁱ) − h Σⱼ aᵢⱼ ∂Wʲ/∂Vˡ,   ∂Lᵢ/∂Λʲ = −h aᵢⱼ A(Qʲ)ᵀ,
//! ∂Lᵢ/∂vⁱ = D₂₂L(Qⁱ, vⁱ)
//! ```
//!
//! assembled stage by stage over the kernels' structural nonzeros
//! ([`PointKernels::PATTERNS`], [`NonholonomicKernels::PATTERNS`]) and factored along
//! the elimination plan `model!` hands the workspace when one pays
//! ([`PrkNonholonomicWorkspace::with_plan`]: `Λ¹`'s identity is a pivot of its own, the
//! later stages' multipliers have none), by the dense LU otherwise. A state without `λ`
//! gets the multiplier of the continuous equations at its `(q, v)` (spec 002 §4.8).
use nalgebra::SVector;

use super::blocks::{add, nonzero, Kernel, Write};
use crate::error::SolveError;
use crate::kernels::{NonholonomicKernels, PointKernels};
use crate::model::Real;
use crate::schemes::NonholonomicLobatto;
use crate::solve::sparse::{self, NeedsPivoting, Plan};
use crate::solve::{self, NewtonSystem, StepReport, Storage, Workspace};
use crate::state::multiplier::multiplier;
use crate::state::NonholonomicState;
use crate::step::{StepOptions, WrongLength};
use crate::tableaux::PartitionedTableau;
use core::borrow::BorrowMut;

/// Memory of a step: Newton's workspace for the `N = S (2D + K)` unknowns, the tableau,
/// and the kernel buffers, every `D × D` matrix in storage `Z`.
#[derive(Clone, Debug, PartialEq)]
pub struct PrkNonholonomicWorkspace<
    T: Real,
    const S: usize,
    const D: usize,
    const K: usize,
    const N: usize,
    Z: Storage,
> {
    newton: Workspace<T, N, Z>,
    tableau: PartitionedTableau<S>,
    kernels: Buffers<T, D, K, Z>,
    plan: Option<&'static Plan>,
}

/// The kernels of one point.
#[derive(Clone, Debug, PartialEq)]
struct Buffers<T: Real, const D: usize, const K: usize, Z: Storage> {
    /// `K_qq = D₁₁L + ∂(Aᵀ Λ)/∂q`, and the constraint term alone before it is added.
    k_qq: Z::Matrix<T, D>,
    a_t_lambda_q: Z::Matrix<T, D>,
    l_qv: Z::Matrix<T, D>,
    l_vv: Z::Matrix<T, D>,
    /// `A(q)` and `∂(A v)/∂q`.
    a: [[T; K]; D],
    a_v_q: [[T; K]; D],
}

impl<T: Real, const S: usize, const D: usize, const K: usize, const N: usize, Z: Storage>
    PrkNonholonomicWorkspace<T, S, D, K, N, Z>
{
    /// A workspace for the Lobatto IIIA–IIIB pair with `S` stages.
    pub fn lobatto() -> Self {
        const { assert!(N == S * (2 * D + K), "N must be S (2D + K)") };
        Self {
            newton: Workspace::new(),
            tableau: PartitionedTableau::lobatto_iiia_iiib(),
            kernels: Buffers {
                k_qq: Z::zeros(),
                a_t_lambda_q: Z::zeros(),
                l_qv: Z::zeros(),
                l_vv: Z::zeros(),
                a: [[T::zero(); K]; D],
                a_v_q: [[T::zero(); K]; D],
            },
            plan: None,
        }
    }

    /// The workspace factoring the step Jacobian along `plan` (an elimination plan of
    /// its `N × N` pattern) instead of by the dense LU.
    pub fn with_plan(mut self, plan: Option<&'static Plan>) -> Self {
        if let Some(plan) = plan {
            assert_eq!(plan.n, N, "a plan of the step Jacobian's size");
        }
        self.plan = plan;
        self
    }

    /// The plan the step Jacobian is factored along, if any.
    pub fn plan(&self) -> Option<&'static Plan> {
        self.plan
    }

    /// Newton's workspace, and the step equations at `(qₖ, pₖ, λₖ)` over the rest.
    fn split<'w, 's, Mdl>(
        &'w mut self,
        model: &'s Mdl,
        h: T,
        node: Node<'s, T, D, K>,
    ) -> (
        &'w mut Workspace<T, N, Z>,
        Equations<'s, T, Mdl, S, D, K, Z>,
    )
    where
        'w: 's,
    {
        let system = Equations {
            model,
            tableau: &self.tableau,
            kernels: &mut self.kernels,
            plan: self.plan,
            h,
            node,
        };
        (&mut self.newton, system)
    }
}

/// The known values of a step: `qₖ`, `pₖ` and `λₖ`.
#[derive(Clone, Copy)]
struct Node<'a, T: Real, const D: usize, const K: usize> {
    q: &'a SVector<T, D>,
    p: &'a SVector<T, D>,
    lambda: SVector<T, K>,
}

/// Where each block of the unknowns (and of the equations, in the same order) starts.
struct Layout<const S: usize, const D: usize, const K: usize>;

impl<const S: usize, const D: usize, const K: usize> Layout<S, D, K> {
    /// `Vⁱ` and `Rᵢ`.
    const fn stage(i: usize) -> usize {
        i * D
    }
    /// `Λⁱ` and `Cᵢ`.
    const fn multiplier(i: usize) -> usize {
        S * D + i * K
    }
    /// `vⁱ` and `Lᵢ`.
    const fn velocity(i: usize) -> usize {
        S * D + S * K + i * D
    }
}

/// The values an iterate determines: `Qⁱ`, `Vⁱ`, `Λⁱ`, `vⁱ`.
struct Iterate<T: Real, const S: usize, const D: usize, const K: usize> {
    q: [SVector<T, D>; S],
    v_stage: [SVector<T, D>; S],
    lambda: [SVector<T, K>; S],
    v: [SVector<T, D>; S],
}

impl<T: Real, const S: usize, const D: usize, const K: usize> Iterate<T, S, D, K> {
    fn new<const N: usize>(
        tableau: &PartitionedTableau<S>,
        h: T,
        q0: &SVector<T, D>,
        x: &SVector<T, N>,
    ) -> Self {
        type L<const S: usize, const D: usize, const K: usize> = Layout<S, D, K>;
        let v_stage: [SVector<T, D>; S] =
            core::array::from_fn(|i| SVector::from_fn(|k, _| x[L::<S, D, K>::stage(i) + k]));
        let lambda =
            core::array::from_fn(|i| SVector::from_fn(|a, _| x[L::<S, D, K>::multiplier(i) + a]));
        let v = core::array::from_fn(|i| SVector::from_fn(|k, _| x[L::<S, D, K>::velocity(i) + k]));
        let q = core::array::from_fn(|i| combine(h, q0, &v_stage, &tableau.a[i]));
        Iterate {
            q,
            v_stage,
            lambda,
            v,
        }
    }
}

/// `x₀ + h Σⱼ wⱼ yʲ`.
fn combine<T: Real, const S: usize, const D: usize>(
    h: T,
    x0: &SVector<T, D>,
    y: &[SVector<T, D>; S],
    weights: &[f64; S],
) -> SVector<T, D> {
    let mut out = *x0;
    for (yj, &w) in y.iter().zip(weights) {
        let w: T = nalgebra::convert(w);
        out.axpy(h * w, yj, T::one());
    }
    out
}

/// The step equations at a known node and step size, as Newton sees them.
struct Equations<'a, T: Real, Mdl, const S: usize, const D: usize, const K: usize, Z: Storage> {
    model: &'a Mdl,
    tableau: &'a PartitionedTableau<S>,
    kernels: &'a mut Buffers<T, D, K, Z>,
    plan: Option<&'static Plan>,
    h: T,
    node: Node<'a, T, D, K>,
}

impl<T, Mdl, Z, const S: usize, const D: usize, const K: usize> Equations<'_, T, Mdl, S, D, K, Z>
where
    T: Real,
    Mdl: PointKernels<T, D> + NonholonomicKernels<T, D, K>,
    Z: Storage,
{
    /// `Wʲ = D₁L(Qʲ, Vʲ) + A(Qʲ)ᵀ Λʲ` (14c).
    fn forces(&mut self, it: &Iterate<T, S, D, K>) -> [SVector<T, D>; S] {
        core::array::from_fn(|j| {
            let mut w = self.model.l_q(&it.q[j], &it.v_stage[j]);
            self.model.a(&it.q[j], &mut self.kernels.a);
            for (k, column) in self.kernels.a.iter().enumerate() {
                for (a, &e) in column.iter().enumerate() {
                    w[k] += e * it.lambda[j][a];
                }
            }
            w
        })
    }
}

impl<T, Mdl, Z, const S: usize, const D: usize, const K: usize, const N: usize> NewtonSystem<T, N>
    for Equations<'_, T, Mdl, S, D, K, Z>
where
    T: Real,
    Mdl: PointKernels<T, D> + NonholonomicKernels<T, D, K>,
    Z: Storage,
{
    fn residual(&mut self, x: &SVector<T, N>, r: &mut SVector<T, N>) {
        type L<const S: usize, const D: usize, const K: usize> = Layout<S, D, K>;
        let (h, tab) = (self.h, self.tableau);
        let it = Iterate::<T, S, D, K>::new(tab, h, self.node.q, x);
        let w = self.forces(&it);
        for i in 0..S {
            // Rᵢ = D₂L(Qⁱ, Vⁱ) − pₖ − h Σⱼ âᵢⱼ Wʲ
            let ri = self.model.l_v(&it.q[i], &it.v_stage[i])
                - combine(h, self.node.p, &w, &tab.a_hat[i]);
            // Lᵢ = D₂L(Qⁱ, vⁱ) − pⁱ, pⁱ = pₖ + h Σⱼ aᵢⱼ Wʲ
            let li = self.model.l_v(&it.q[i], &it.v[i]) - combine(h, self.node.p, &w, &tab.a[i]);
            for k in 0..D {
                r[L::<S, D, K>::stage(i) + k] = ri[k];
                r[L::<S, D, K>::velocity(i) + k] = li[k];
            }
            // C₁ = Λ¹ − λₖ, Cᵢ = A(Qⁱ) vⁱ
            let ci = if i == 0 {
                it.lambda[0] - self.node.lambda
            } else {
                self.model.a(&it.q[i], &mut self.kernels.a);
                SVector::from_fn(|a, _| {
                    let mut c = T::zero();
                    for k in 0..D {
                        c += self.kernels.a[k][a] * it.v[i][k];
                    }
                    c
                })
            };
            for a in 0..K {
                r[L::<S, D, K>::multiplier(i) + a] = ci[a];
            }
        }
    }

    fn residual_and_jacobian(
        &mut self,
        x: &SVector<T, N>,
        r: &mut SVector<T, N>,
        jac: &mut [[T; N]; N],
    ) {
        self.residual(x, r);
        for column in jac.iter_mut() {
            column.fill(T::zero());
        }
        self.assemble(x, jac, Write::Add);
    }

    planned_newton_methods!();
}

impl<T, Mdl, Z, const S: usize, const D: usize, const K: usize> Equations<'_, T, Mdl, S, D, K, Z>
where
    T: Real,
    Mdl: PointKernels<T, D> + NonholonomicKernels<T, D, K>,
    Z: Storage,
{
    /// Adds the Jacobian (module docs) to `jac`, stage by stage, each kernel over its
    /// pattern ([`PointKernels::PATTERNS`], [`NonholonomicKernels::PATTERNS`]; every
    /// entry without one). With [`Write::Zero`] it zeroes the entries it would add to
    /// instead, without evaluating the kernels.
    fn assemble<const N: usize>(&mut self, x: &SVector<T, N>, jac: &mut [[T; N]; N], write: Write) {
        type L<const S: usize, const D: usize, const K: usize> = Layout<S, D, K>;
        let it = Iterate::<T, S, D, K>::new(self.tableau, self.h, self.node.q, x);
        let (h, tab) = (self.h, self.tableau);
        let c = |x: f64| -> T { nalgebra::convert(x) };
        let point = <Mdl as PointKernels<T, D>>::PATTERNS;
        let constraint = <Mdl as NonholonomicKernels<T, D, K>>::PATTERNS;
        let (p_qv, p_vv) = (point.map(|p| p.l_qv), point.map(|p| p.l_vv));
        let (p_a, p_qq, p_av) = (
            constraint.map(|p| p.matrix),
            constraint.map(|p| p.k_qq),
            constraint.map(|p| p.times_v),
        );
        let stage = L::<S, D, K>::stage;
        // The rows a stage's `Wʲ` enters, with their weights: `Rᵢ` by `âᵢⱼ`, `Lᵢ` by `aᵢⱼ`.
        let w_rows = |j: usize| {
            (0..S)
                .map(move |i| (stage(i), tab.a_hat[i][j]))
                .chain((0..S).map(move |i| (L::<S, D, K>::velocity(i), tab.a[i][j])))
        };
        for j in 0..S {
            let Buffers {
                k_qq,
                a_t_lambda_q,
                l_qv,
                l_vv,
                a,
                a_v_q,
            } = &mut *self.kernels;
            let (k_qq, a_t_lambda_q): (&mut [[T; D]; D], &mut [[T; D]; D]) =
                (k_qq.borrow_mut(), a_t_lambda_q.borrow_mut());
            let (l_qv, l_vv): (&mut [[T; D]; D], &mut [[T; D]; D]) =
                (l_qv.borrow_mut(), l_vv.borrow_mut());
            let (qj, vj) = (&it.q[j], &it.v_stage[j]);
            if write == Write::Add {
                self.model.l_qq(qj, vj, k_qq);
                self.model.a_t_lambda_q(qj, &it.lambda[j], a_t_lambda_q);
                for (k, column) in k_qq.iter_mut().enumerate() {
                    for (i, e) in column.iter_mut().enumerate() {
                        *e += a_t_lambda_q[k][i];
                    }
                }
                self.model.l_qv(qj, vj, l_qv);
                self.model.l_vv(qj, vj, l_vv);
                self.model.a(qj, a);
            }
            let qq = Kernel::new(&*k_qq, p_qq);
            let qv = Kernel::new(&*l_qv, p_qv);
            let vv = Kernel::new(&*l_vv, p_vv);
            let am = Kernel::new(&*a, p_a);
            // Row block Rⱼ: ∂D₂L(Qʲ, Vʲ)/∂Vˡ = h aⱼₗ D₂₁L(j) + δⱼₗ D₂₂L(j).
            let row = stage(j);
            for (l, a_jl) in nonzero(&tab.a[j]) {
                let f = h * c(a_jl);
                add(jac, (row, stage(l)), f, qv, true, write);
            }
            add(jac, (row, row), T::one(), vv, false, write);
            // The rows Wʲ enters, weight g: −h g (h aⱼₗ K_qq(j) + δⱼₗ D₁₂L(j)) on Vˡ,
            // −h g A(Qʲ)ᵀ on Λʲ.
            for (row, weight) in w_rows(j) {
                if weight == 0.0 {
                    continue;
                }
                let g = -h * c(weight);
                for (l, a_jl) in nonzero(&tab.a[j]) {
                    let f = g * h * c(a_jl);
                    add(jac, (row, stage(l)), f, qq, false, write);
                }
                add(jac, (row, stage(j)), g, qv, false, write);
                add(jac, (row, L::<S, D, K>::multiplier(j)), g, am, true, write);
            }
            // Cⱼ: the identity on Λ¹ at j = 0; A(Qʲ) vʲ after: h aⱼₗ ∂(A vʲ)/∂q on Vˡ,
            // A(Qʲ) on vʲ.
            let (crow, vcol) = (L::<S, D, K>::multiplier(j), L::<S, D, K>::velocity(j));
            if j == 0 {
                for a in 0..K {
                    let target = &mut jac[crow + a][crow + a];
                    match write {
                        Write::Zero => *target = T::zero(),
                        Write::Add => *target += T::one(),
                    }
                }
            } else {
                if write == Write::Add {
                    self.model.a_v_q(qj, &it.v[j], a_v_q);
                }
                let av = Kernel::new(&*a_v_q, p_av);
                for (l, a_jl) in nonzero(&tab.a[j]) {
                    let f = h * c(a_jl);
                    add(jac, (crow, stage(l)), f, av, false, write);
                }
                add(jac, (crow, vcol), T::one(), am, false, write);
            }
            // Lⱼ's D₂L(Qʲ, vʲ): h aⱼₗ D₂₁L on Vˡ, D₂₂L on vʲ.
            if write == Write::Add {
                self.model.l_qv(qj, &it.v[j], l_qv);
                self.model.l_vv(qj, &it.v[j], l_vv);
            }
            let qv = Kernel::new(&*l_qv, p_qv);
            let vv = Kernel::new(&*l_vv, p_vv);
            for (l, a_jl) in nonzero(&tab.a[j]) {
                let f = h * c(a_jl);
                add(jac, (vcol, stage(l)), f, qv, true, write);
            }
            add(jac, (vcol, vcol), T::one(), vv, false, write);
        }
    }
}

/// `λₖ`: the state's, or from the continuous equations at its `(q, v)`.
fn lambda<T, Mdl, const D: usize, const K: usize>(
    model: &Mdl,
    state: &NonholonomicState<T, D, K>,
) -> Result<SVector<T, K>, SolveError<T>>
where
    T: Real,
    Mdl: PointKernels<T, D> + NonholonomicKernels<T, D, K>,
{
    match state.lambda {
        Some(lambda) => Ok(lambda),
        None => multiplier(model, &state.q, &state.v),
    }
}

/// One step: Newton from `Vⁱ = vⁱ = vₖ`, `Λⁱ = λₖ`, then (14a). `state` is only read, so
/// a failed step leaves it as it was.
pub fn step<T, Mdl, Z, const S: usize, const D: usize, const K: usize, const N: usize>(
    model: &Mdl,
    _scheme: &NonholonomicLobatto<S>,
    h: T,
    state: &NonholonomicState<T, D, K>,
    ws: &mut PrkNonholonomicWorkspace<T, S, D, K, N, Z>,
    options: &StepOptions<T>,
) -> Result<(NonholonomicState<T, D, K>, StepReport<T>), SolveError<T>>
where
    T: Real,
    Mdl: PointKernels<T, D> + NonholonomicKernels<T, D, K>,
    Z: Storage,
{
    type L<const S: usize, const D: usize, const K: usize> = Layout<S, D, K>;
    let node = Node {
        q: &state.q,
        p: &state.p,
        lambda: lambda(model, state)?,
    };
    let (newton, mut system) = ws.split(model, h, node);
    for i in 0..S {
        for k in 0..D {
            newton.x[L::<S, D, K>::stage(i) + k] = state.v[k];
            newton.x[L::<S, D, K>::velocity(i) + k] = state.v[k];
        }
        for a in 0..K {
            newton.x[L::<S, D, K>::multiplier(i) + a] = node.lambda[a];
        }
    }
    let report = solve::solve(newton, &options.newton, &mut system)?;
    let tab = system.tableau;
    let it = Iterate::<T, S, D, K>::new(tab, h, &state.q, &newton.x);
    let w = system.forces(&it);
    let next = NonholonomicState {
        t: state.t + h,
        q: combine(h, &state.q, &it.v_stage, &tab.b),
        p: combine(h, &state.p, &w, &tab.b_hat),
        v: it.v[S - 1],
        lambda: Some(it.lambda[S - 1]),
    };
    Ok((next, report))
}

/// [`Step::equations`](crate::Step::equations) of the family: the step equations and
/// their assembled Jacobian at `x` (a state without `λ` takes it from the continuous
/// equations; if that fails, from zero).
#[allow(clippy::too_many_arguments)]
pub fn equations<T, Mdl, Z, const S: usize, const D: usize, const K: usize, const N: usize>(
    model: &Mdl,
    _scheme: &NonholonomicLobatto<S>,
    h: T,
    state: &NonholonomicState<T, D, K>,
    ws: &mut PrkNonholonomicWorkspace<T, S, D, K, N, Z>,
    x: &[T],
    r: &mut [T],
    jac: &mut [T],
) -> Result<(), WrongLength>
where
    T: Real,
    Mdl: PointKernels<T, D> + NonholonomicKernels<T, D, K>,
    Z: Storage,
{
    WrongLength::check(N, x, r, jac)?;
    let node = Node {
        q: &state.q,
        p: &state.p,
        lambda: lambda(model, state).unwrap_or_else(|_| SVector::zeros()),
    };
    let (newton, mut system) = ws.split(model, h, node);
    super::equations_at(newton, &mut system, x, r, jac);
    Ok(())
}
