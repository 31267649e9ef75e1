//! Discrete-time LQR on a linearised step ([`crate::Linearize`]): the gain `K` of the
//! feedback `u = −K z` that minimises `Σ zₖᵀ Q zₖ + uₖᵀ R uₖ` for `zₖ₊₁ = A zₖ + B uₖ`,
//! from the discrete algebraic Riccati equation
//!
//! ```text
//! P = Q + Aᵀ P A − Aᵀ P B (R + Bᵀ P B)⁻¹ Bᵀ P A,    K = (R + Bᵀ P B)⁻¹ Bᵀ P A,
//! ```
//!
//! solved by iterating it from `P = Q` (value iteration), which converges for a
//! stabilisable `(A, B)` and an observable `(A, Q^½)`. `no_std`, on the stack, so that a
//! controller can design its gain where it runs.
use nalgebra::SMatrix;

use crate::model::Real;

/// The gain and the Riccati solution of [`dlqr`], and the iterations it took.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lqr<T, const NZ: usize, const NU: usize> {
    /// The feedback gain: `u = −K z`.
    pub k: SMatrix<T, NU, NZ>,
    /// The stabilising solution `P` of the discrete algebraic Riccati equation.
    pub p: SMatrix<T, NZ, NZ>,
    /// Riccati iterations taken.
    pub iterations: u32,
}

/// Why [`dlqr`] found no gain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LqrError {
    /// `R + Bᵀ P B` is singular (`R` not positive definite).
    Singular,
    /// The iteration did not settle within the budget: `(A, B)` not stabilisable, or
    /// the closed loop too close to the unit circle for the budget.
    NoConvergence,
    /// An entry of `A`, `B`, `Q` or `R` is NaN or infinite, or the iteration overflowed.
    NotFinite,
}

impl core::fmt::Display for LqrError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::Singular => "R + BᵀPB is singular: R must be positive definite",
            Self::NoConvergence => {
                "the Riccati iteration did not settle: is (A, B) stabilisable and (A, Q) detectable?"
            }
            Self::NotFinite => "a matrix of the LQR problem is not finite",
        })
    }
}

#[cfg(feature = "std")]
impl std::error::Error for LqrError {}

/// The discrete LQR gain of `(A, B)` with weights `Q` (on the state) and `R` (on the
/// inputs), by Riccati iteration until `P` changes by at most `tolerance` relative to
/// its size, within `max_iterations`.
pub fn dlqr<T: Real, const NZ: usize, const NU: usize>(
    a: &SMatrix<T, NZ, NZ>,
    b: &SMatrix<T, NZ, NU>,
    (q, r): (&SMatrix<T, NZ, NZ>, &SMatrix<T, NU, NU>),
    tolerance: T,
    max_iterations: u32,
) -> Result<Lqr<T, NZ, NU>, LqrError> {
    let finite = |m: &[T]| m.iter().all(|x| x.is_finite());
    if !(finite(a.as_slice())
        && finite(b.as_slice())
        && finite(q.as_slice())
        && finite(r.as_slice()))
    {
        return Err(LqrError::NotFinite);
    }
    let mut p = *q;
    let gain = |p: &SMatrix<T, NZ, NZ>| -> Result<SMatrix<T, NU, NZ>, LqrError> {
        let s = r + b.transpose() * p * b;
        let s_inv = s.try_inverse().ok_or(LqrError::Singular)?;
        Ok(s_inv * b.transpose() * p * a)
    };
    for iterations in 1..=max_iterations {
        let k = gain(&p)?;
        // Pₖ₊₁ = Q + Aᵀ Pₖ (A − B K).
        let next = q + a.transpose() * p * (a - b * k);
        // Symmetrised against round-off.
        let next = (next + next.transpose()) * nalgebra::convert::<f64, T>(0.5);
        if !finite(next.as_slice()) {
            return Err(LqrError::NotFinite);
        }
        let change = (next - p).amax();
        p = next;
        if change <= tolerance * p.amax() {
            return Ok(Lqr {
                k: gain(&p)?,
                p,
                iterations,
            });
        }
    }
    Err(LqrError::NoConvergence)
}

/// A linearised step reduced to a subspace of the carried state (the tangent space of
/// a constrained model's consistent states), and how far that subspace is from
/// invariant under it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reduced<T, const NR: usize, const NU: usize> {
    /// `A_r = T_b⁺ A T_b`.
    pub a: SMatrix<T, NR, NR>,
    /// `B_r = T_b⁺ B`.
    pub b: SMatrix<T, NR, NU>,
    /// `max|A T_b − T_b A_r|`: zero to round-off where the subspace is invariant (at a
    /// fixed point of the step, the tangent space of the constraints).
    pub invariance: T,
}

/// `(A, B)` of a step on the ambient state reduced to the span of the columns of
/// `basis` (`NZ × NR`, of full rank), by its pseudo-inverse `T_b⁺ = (T_bᵀ T_b)⁻¹ T_bᵀ`;
/// `None` if the basis is rank-deficient.
pub fn reduce<T: Real, const NZ: usize, const NU: usize, const NR: usize>(
    a: &SMatrix<T, NZ, NZ>,
    b: &SMatrix<T, NZ, NU>,
    basis: &SMatrix<T, NZ, NR>,
) -> Option<Reduced<T, NR, NU>> {
    let gram = (basis.transpose() * basis).try_inverse()?;
    let pinv = gram * basis.transpose();
    let a_r = pinv * a * basis;
    let invariance = (a * basis - basis * a_r).amax();
    Some(Reduced {
        a: a_r,
        b: pinv * b,
        invariance,
    })
}
