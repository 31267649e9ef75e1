//! The state of the partitioned Runge–Kutta family: a point of phase space, and the
//! velocity that starts the next step's Newton iteration.
use nalgebra::SVector;

use crate::kernels::PointKernels;
use crate::model::Real;
use crate::state::NodeValues;

/// `(q, p)` at a time node, with a velocity guess for the next step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PhaseState<T: Real, const D: usize, const Q: usize = D> {
    /// Time `tⁿ`.
    pub t: T,
    /// Positions `qⁿ` (stored in `Q` numbers).
    pub q: SVector<T, Q>,
    /// Conjugate momenta `pⁿ`.
    pub p: SVector<T, D>,
    /// Newton's starting point for every stage velocity of the next step: the initial
    /// velocity, then the last stage velocity `Vˢ` of the step that ended here. It is a
    /// guess, not the node velocity: `D₂L(qⁿ, v) = pⁿ` need not hold.
    pub v: SVector<T, D>,
}

impl<T: Real, const D: usize, const Q: usize> PhaseState<T, D, Q> {
    /// The state at `t = 0` from positions and velocities, with `p = D₂L(q, v)`.
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
        }
    }
}

impl<T: Real, const D: usize, const Q: usize> NodeValues<T, D, Q> for PhaseState<T, D, Q> {
    fn time(&self) -> T {
        self.t
    }
    fn positions(&self) -> &SVector<T, Q> {
        &self.q
    }
    fn momenta(&self) -> &SVector<T, D> {
        &self.p
    }
    /// `None`: the stored `v` is a Newton guess, not the node velocity.
    fn velocities(&self) -> Option<&SVector<T, D>> {
        None
    }
}
