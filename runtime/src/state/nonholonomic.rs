//! The state of the nonholonomic Lobatto method (spec 002 S4): `(q, p, v)` at a node and
//! the multiplier `λ`, which the method feeds forward (`Λ¹ = λₖ`, `λₖ₊₁ = Λˢ`).
use nalgebra::SVector;

use crate::error::InitError;
use crate::kernels::{NonholonomicKernels, PointKernels};
use crate::model::{InputValues, Model, Real};
use crate::solve::lu::{self, Lu};
use crate::state::multiplier::multiplier;
use crate::state::{Consistency, FromNode, NodeState, NodeValues};

/// `(q, p, v, λ)` at a time node of a model with `K` velocity-level constraints: its
/// nonholonomic ones, then (in a model that also has holonomic constraints `g(q) = 0`)
/// their velocity forms `G(q) v = 0`, whose multipliers are the holonomic ones.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NonholonomicState<T: Real, const D: usize, const K: usize, const Q: usize = D> {
    /// Time `tⁿ`.
    pub t: T,
    /// Positions `qⁿ` (stored in `Q` numbers).
    pub q: SVector<T, Q>,
    /// Conjugate momenta `pⁿ = D₂L(qⁿ, vⁿ)`.
    pub p: SVector<T, D>,
    /// Velocities `vⁿ` (after a step, the last stage's `vˢ`, which satisfies
    /// `D₂L(qⁿ, vⁿ) = pⁿ` and `A(qⁿ) vⁿ = 0`).
    pub v: SVector<T, D>,
    /// The multiplier `λⁿ`. `None` until the first step, which computes it from the
    /// continuous equations at `(q, v)` ([`nonholonomic_multiplier`](crate::nonholonomic_multiplier),
    /// spec 002 §4.8): the method has its orders only from that one.
    pub lambda: Option<SVector<T, K>>,
}

impl<T: Real, const D: usize, const K: usize, const Q: usize> NonholonomicState<T, D, K, Q> {
    /// The state at `t = 0` from positions and velocities, `p = D₂L(q, v)`, `λ` from the
    /// continuous equations at the first step.
    pub fn from_velocities<Mdl: PointKernels<T, D, Q>>(
        model: &Mdl,
        q: SVector<T, Q>,
        v: SVector<T, D>,
    ) -> Self {
        Self {
            t: T::zero(),
            q,
            p: model.l_v(&q, &v),
            v,
            lambda: None,
        }
    }
}

impl<T: Real, const D: usize, const K: usize> NonholonomicState<T, D, K> {
    /// The state at `t = 0` from `(q, v)` checked against the model's holonomic
    /// constraints as [`NodeState::consistent`] checks them (`g(q)` and `G(q) v`, rejected
    /// or projected, after the model's parameters), then against `A(q) v + a(q) = 0`:
    /// with [`Consistency::Reject`], `max|A(q) v + a(q)|` above the tolerance is
    /// [`InitError::Inconsistent`]; with [`Consistency::Project`], `v` is replaced by its
    /// projection onto `A(q) v + a(q) = 0` in the metric of the mass matrix at `(q, v)`,
    /// `v − M⁻¹Aᵀ (A M⁻¹ Aᵀ)⁻¹ (A v + a)` (exact for a kinetic energy quadratic in `v`). `p` is
    /// `D₂L(q, v)` and `λ` the continuous multiplier (spec 002 §4.8).
    pub fn consistent<Mdl, const M: usize>(
        model: &Mdl,
        q: SVector<T, D>,
        v: SVector<T, D>,
        consistency: Consistency<T>,
    ) -> Result<Self, InitError<T>>
    where
        Mdl: Model<T, D, M> + PointKernels<T, D> + NonholonomicKernels<T, D, K>,
    {
        // Parameters, tolerance, finite inputs, and g(q) = 0, G(q) v = 0 (nothing to do
        // without holonomic constraints).
        let holonomic = NodeState::<T, D, M>::consistent(model, q, v, consistency)?;
        let (q, mut v) = (holonomic.q, holonomic.v);
        let mut columns = [[T::zero(); K]; D];
        model.a(&q, &mut columns);
        let a = nalgebra::SMatrix::<T, K, D>::from_data(nalgebra::ArrayStorage(columns));
        let residual = a * v + model.affine(&q);
        let violation = residual.iter().fold(T::zero(), |m, x| m.max(x.abs()));
        match consistency {
            Consistency::Reject { tolerance } => {
                if !(tolerance >= T::zero() && tolerance.is_finite()) {
                    return Err(InitError::InvalidTolerance { tolerance });
                }
                if violation > tolerance {
                    return Err(InitError::Inconsistent {
                        position: T::zero(),
                        velocity: violation,
                    });
                }
            }
            Consistency::Project { tolerance } => {
                if !(tolerance >= T::zero() && tolerance.is_finite()) {
                    return Err(InitError::InvalidTolerance { tolerance });
                }
                v = project_velocity(model, &q, v, &a, residual)?;
            }
        }
        let lambda = multiplier(model, (T::zero(), &InputValues::zeros()), &q, &v)
            .map_err(|_| InitError::SingularConstraints)?;
        Ok(Self {
            t: T::zero(),
            q,
            p: model.l_v(&q, &v),
            v,
            lambda: Some(lambda),
        })
    }
}

/// `v − M⁻¹Aᵀ (A M⁻¹ Aᵀ)⁻¹ A v` with `M = ∂²L/∂v²` at `(q, v)`: the one `D × D` matrix
/// built and factored in place, and kept out of line, so that a model's `consistent`
/// holds it on the stack only when it projects (as [`NodeState::consistent`] does).
#[inline(never)]
fn project_velocity<T: Real, Mdl: PointKernels<T, D>, const D: usize, const K: usize>(
    model: &Mdl,
    q: &SVector<T, D>,
    v: SVector<T, D>,
    a: &nalgebra::SMatrix<T, K, D>,
    residual: SVector<T, K>,
) -> Result<SVector<T, D>, InitError<T>> {
    let mut mass = [[T::zero(); D]; D];
    let mut perm = [0; D];
    model.l_vv(q, &v, &mut mass);
    lu::factor_in_place(&mut mass, &mut perm).map_err(|_| InitError::SingularConstraints)?;
    // W = M⁻¹ Aᵀ, column by column.
    let mut w = a.transpose();
    for c in 0..K {
        let mut column: SVector<T, D> = w.column(c).into_owned();
        lu::solve_in_place(&mass, &perm, &mut column);
        w.set_column(c, &column);
    }
    let mut y = residual;
    Lu::factor(a * w)
        .map_err(|_| InitError::SingularConstraints)?
        .solve_in_place(&mut y);
    Ok(v - w * y)
}

impl<T: Real, const D: usize, const K: usize, const Q: usize> NodeValues<T, D, Q>
    for NonholonomicState<T, D, K, Q>
{
    fn time(&self) -> T {
        self.t
    }
    fn positions(&self) -> &SVector<T, Q> {
        &self.q
    }
    fn momenta(&self) -> &SVector<T, D> {
        &self.p
    }
    fn velocities(&self) -> Option<&SVector<T, D>> {
        Some(&self.v)
    }
    fn multipliers(&self, visit: &mut dyn FnMut(&'static str, &[T])) {
        if let Some(lambda) = &self.lambda {
            visit("lambda", lambda.as_slice());
        }
    }
    fn multiplier_blocks(&self, visit: &mut dyn FnMut(&'static str, usize)) {
        visit("lambda", K);
    }
}

/// `(q, p, v)` of the node; `λ` from the continuous equations at the first step.
impl<T: Real, const D: usize, const M: usize, const K: usize, const Q: usize> FromNode<T, D, M, Q>
    for NonholonomicState<T, D, K, Q>
{
    fn from_node(node: &NodeState<T, D, M, Q>) -> Self {
        Self {
            t: node.t,
            q: node.q,
            p: node.p,
            v: node.v,
            lambda: None,
        }
    }
}
