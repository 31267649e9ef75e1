//! What a step knows (the model, the tableau, `h`, `(t⁰, q⁰, p⁰)` and the family's extra
//! values), and the stage values every family computes from it the same way.
use nalgebra::SVector;

use crate::kernels::PointKernels;
use crate::model::{InputValues, Real};
use crate::tableaux::PartitionedTableau;

/// The known values of a step, as the family's methods see them.
#[derive(Clone, Copy, Debug)]
pub struct Known<
    'a,
    T: Real,
    Mdl,
    X,
    const S: usize,
    const D: usize,
    const Q: usize = D,
    C = PartitionedTableau<S>,
> {
    /// The model, for its kernels.
    pub model: &'a Mdl,
    /// The workspace's coefficients: a partitioned tableau, or the family's own
    /// ([`StageEquations::Coefficients`](super::StageEquations::Coefficients)).
    pub tableau: &'a C,
    /// The step size.
    pub h: T,
    /// Time at the start of the step.
    pub t0: T,
    /// Positions at the start of the step (stored in `Q` numbers).
    pub q0: &'a SVector<T, Q>,
    /// Momenta at the start of the step.
    pub p0: &'a SVector<T, D>,
    /// The model's inputs over the step (zero-order hold), as many as it declares
    /// (the drivers check the count).
    pub inputs: &'a [T],
    /// What else the family knows ([`StepStart::Extra`](super::StepStart::Extra)).
    pub extra: X,
}

impl<T: Real, Mdl, X, const S: usize, const D: usize, const Q: usize>
    Known<'_, T, Mdl, X, S, D, Q>
{
    /// `x₀ + h Σⱼ wⱼ yʲ`, the terms in the order of `j`: a stage position or the new
    /// node's (`wⱼ = aᵢⱼ`, `bⱼ`), a momentum (`âᵢⱼ`, `b̂ⱼ`).
    pub fn combine(
        &self,
        x0: &SVector<T, D>,
        y: &[SVector<T, D>; S],
        weights: &[f64; S],
    ) -> SVector<T, D> {
        let mut out = *x0;
        for (yj, &w) in y.iter().zip(weights) {
            let w: T = nalgebra::convert(w);
            out.axpy(self.h * w, yj, T::one());
        }
        out
    }

    /// `D₂L(Qⁱ, Vⁱ) − p⁰ − h Σⱼ âᵢⱼ Wʲ` from `D₂L(Qⁱ, Vⁱ)` and the forces `Wʲ`, the
    /// terms subtracted one by one in the order of `j`.
    pub fn legendre_minus_forces(
        &self,
        l_v: SVector<T, D>,
        w: &[SVector<T, D>; S],
        i: usize,
    ) -> SVector<T, D> {
        let mut ri = l_v - self.p0;
        for (wj, &a_hat) in w.iter().zip(&self.tableau.a_hat[i]) {
            let a_hat: T = nalgebra::convert(a_hat);
            ri.axpy(-self.h * a_hat, wj, T::one());
        }
        ri
    }
}

/// The inputs, whatever the coefficients.
impl<T: Real, Mdl: PointKernels<T, D>, X, const S: usize, const D: usize, C>
    Known<'_, T, Mdl, X, S, D, D, C>
{
    /// The inputs held over the step ([`Configuration::Inputs`](crate::Configuration::Inputs)).
    pub fn inputs(&self) -> Mdl::Inputs {
        // The drivers refuse a step given another number of inputs; the zeros are for
        // the derivative oracles' `stage_system`, which takes none.
        Mdl::Inputs::from_slice(self.inputs).unwrap_or_else(Mdl::Inputs::zeros)
    }
}

/// The stage forces of the unconstrained Lagrangian, with the model's forces.
impl<T: Real, Mdl: PointKernels<T, D>, X, const S: usize, const D: usize>
    Known<'_, T, Mdl, X, S, D>
{
    /// The time of stage `j`, `t⁰ + cⱼ h` (`cⱼ = Σₗ aⱼₗ`, the Lobatto IIIA nodes).
    pub fn stage_time(&self, j: usize) -> T {
        let c: T = nalgebra::convert(self.tableau.c[j]);
        self.t0 + c * self.h
    }

    /// `D₁L(Qʲ, Vʲ) + F(Qʲ, Vʲ, t⁰ + cⱼ h)`: the Lagrangian's force at stage `j` and the
    /// model's, in the discrete Lagrange–d'Alembert principle (spec `next_packages.md`
    /// §D.2); `D₁L` alone, and nothing else computed, for a model without forces.
    pub fn lagrangian_force(
        &self,
        j: usize,
        q: &SVector<T, D>,
        v: &SVector<T, D>,
    ) -> SVector<T, D> {
        self.with_forces(j, (q, v), self.model.l_q(q, v))
    }

    /// `D₁L(Qʲ, Vʲ)` given, with the model's force at stage `j` added if it has one
    /// ([`lagrangian_force`](Self::lagrangian_force) from a kernel already evaluated).
    pub fn with_forces(
        &self,
        j: usize,
        (q, v): (&SVector<T, D>, &SVector<T, D>),
        l_q: SVector<T, D>,
    ) -> SVector<T, D> {
        if Mdl::FORCED {
            l_q + self.model.f(self.stage_time(j), q, v, &self.inputs())
        } else {
            l_q
        }
    }
}

/// In a vector space, where a position moves by adding.
impl<T: Real, Mdl, X, const S: usize, const D: usize> Known<'_, T, Mdl, X, S, D> {
    /// The stage positions `Qⁱ = q⁰ + h Σⱼ aᵢⱼ Vʲ`.
    pub fn stage_positions(&self, v: &[SVector<T, D>; S]) -> [SVector<T, D>; S] {
        core::array::from_fn(|i| self.combine(self.q0, v, &self.tableau.a[i]))
    }
}

/// The `L` unknowns of `x` from `first` on.
pub fn block<T: Real, const L: usize, const N: usize>(
    x: &SVector<T, N>,
    first: usize,
) -> SVector<T, L> {
    SVector::from_fn(|k, _| x[first + k])
}

/// Writes `values` into the `L` entries of `x` from `first` on.
pub fn set_block<T: Real, const L: usize, const N: usize>(
    x: &mut SVector<T, N>,
    first: usize,
    values: &SVector<T, L>,
) {
    for k in 0..L {
        x[first + k] = values[k];
    }
}

/// The stage velocities `Vⁱ`, every family's first `S·D` unknowns.
pub fn stage_velocities<T: Real, const S: usize, const D: usize, const N: usize>(
    x: &SVector<T, N>,
) -> [SVector<T, D>; S] {
    core::array::from_fn(|i| block(x, i * D))
}
