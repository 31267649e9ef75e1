//! Variational integrators converted from one-step methods (Patrick, Cuell, Spiteri,
//! Zhang, seed `004_caa2b5d5d51972f0.txt`; spec `next_packages.md` §C): a one-step
//! method run on the model's second-order system augmented with the action (the
//! paper's "standard layer", [`standard`]) defines end maps and a discrete Lagrangian,
//! from which a variational integrator of the same order follows.
//!
//! The standard layer runs explicit Runge–Kutta tableaux and gives its first and second
//! derivatives ([`standard`]); [`node_form`] holds one step's equations in the node
//! variables `(x_k, p_k)` and steps them with its own iterations (the paper's chord,
//! Newton, finite-difference Newton) for any tableau; [`step`] and [`equations`] are the
//! catalogue's [`Converted<L, B>`](crate::schemes::Converted) on the shared Newton driver.
//! What they need of a model is [`SecondOrderKernels`]: written by hand, or from the
//! point kernels and the [`EulerLagrangeKernels`] that `model!` emits
//! ([`euler_lagrange`]).
use nalgebra::{SMatrix, SVector};

use crate::model::Real;

pub mod constrained;
pub mod euler_lagrange;
pub mod holonomic;
pub mod node_form;
mod scheme;
pub mod standard;
pub mod tableau;

pub use constrained::CurvatureKernels;
pub use euler_lagrange::{EulerLagrangeKernels, FromKernels};
pub use scheme::{equations, step, ConvertedWorkspace};

pub use super::papers_options as default_options;

/// A model as the standard layer sees it: the Lagrangian `L(q, v)`, the acceleration
/// `A(q, v)` of its second-order system `q̇ = v, v̇ = A(q, v)` (spec §C.2:
/// `L_vv A = L_q − L_vq v` unconstrained), and their first derivatives, which the
/// derivative of the Runge–Kutta map (the same map run on the variational equations)
/// reads.
pub trait SecondOrderKernels<T: Real, const N: usize> {
    /// `L(q, v)`.
    fn lagrangian(&self, q: &SVector<T, N>, v: &SVector<T, N>) -> T;
    /// `∂L/∂q`.
    fn l_q(&self, q: &SVector<T, N>, v: &SVector<T, N>) -> SVector<T, N>;
    /// `∂L/∂v`.
    fn l_v(&self, q: &SVector<T, N>, v: &SVector<T, N>) -> SVector<T, N>;
    /// `∂²L/∂q²`.
    fn l_qq(&self, q: &SVector<T, N>, v: &SVector<T, N>) -> SMatrix<T, N, N>;
    /// `∂²L/∂q∂v`: entry `(i, j)` is `∂²L/∂qᵢ∂vⱼ`.
    fn l_qv(&self, q: &SVector<T, N>, v: &SVector<T, N>) -> SMatrix<T, N, N>;
    /// `∂²L/∂v²`, the chord iteration's `M₀`.
    fn l_vv(&self, q: &SVector<T, N>, v: &SVector<T, N>) -> SMatrix<T, N, N>;
    /// `A(q, v)`.
    fn acceleration(&self, q: &SVector<T, N>, v: &SVector<T, N>) -> SVector<T, N>;
    /// `(∂A/∂q, ∂A/∂v)`.
    fn acceleration_jacobians(
        &self,
        q: &SVector<T, N>,
        v: &SVector<T, N>,
    ) -> (SMatrix<T, N, N>, SMatrix<T, N, N>);
    /// The derivative of `(∂A/∂q, ∂A/∂v)` at `(q, v)` along `(dq, dv)`: what the exact
    /// Newton Jacobian of the step reads (through the second-order variational
    /// equations, [`standard::flow_tangent`]).
    fn acceleration_second(
        &self,
        q: &SVector<T, N>,
        v: &SVector<T, N>,
        dq: &SVector<T, N>,
        dv: &SVector<T, N>,
    ) -> (SMatrix<T, N, N>, SMatrix<T, N, N>);

    /// `(A, ∂A/∂q, ∂A/∂v)` at one point, what the standard layer reads at each stage: by
    /// default from [`acceleration`](Self::acceleration) and
    /// [`acceleration_jacobians`](Self::acceleration_jacobians); a model whose two
    /// share work (one factorisation of `L_vv`) computes them together.
    #[allow(clippy::type_complexity)]
    fn acceleration_with_jacobians(
        &self,
        q: &SVector<T, N>,
        v: &SVector<T, N>,
    ) -> (SVector<T, N>, SMatrix<T, N, N>, SMatrix<T, N, N>) {
        let (a_q, a_v) = self.acceleration_jacobians(q, v);
        (self.acceleration(q, v), a_q, a_v)
    }

    /// [`acceleration_second`](Self::acceleration_second) at a point whose
    /// [`acceleration_with_jacobians`](Self::acceleration_with_jacobians) the caller
    /// already has, so that a model need not compute them again.
    #[allow(clippy::type_complexity)]
    fn acceleration_second_at(
        &self,
        q: &SVector<T, N>,
        v: &SVector<T, N>,
        point: &(SVector<T, N>, SMatrix<T, N, N>, SMatrix<T, N, N>),
        dq: &SVector<T, N>,
        dv: &SVector<T, N>,
    ) -> (SMatrix<T, N, N>, SMatrix<T, N, N>) {
        let _ = point;
        self.acceleration_second(q, v, dq, dv)
    }
}

#[cfg(test)]
mod constrained_tests;
#[cfg(test)]
mod stage4_tests;
#[cfg(test)]
mod test_models;
#[cfg(test)]
mod tests;
