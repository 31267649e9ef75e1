//! A model's second-order system from the kernels `model!` emits (spec `next_packages.md`
//! §C.2). For a model that declares a converted scheme, `model!` emits the derivatives
//! of the Euler–Lagrange expression
//!
//! ```text
//! E(q, v, a) = L_vv(q, v) a + L_vq(q, v) v − L_q(q, v)
//! ```
//!
//! ([`EulerLagrangeKernels`]: third and fourth derivatives of `L`); with the point
//! kernels they give [`SecondOrderKernels`] ([`FromKernels`]) by the implicit-function
//! theorem on `E(q, v, A(q, v)) = 0`:
//!
//! ```text
//! A   = L_vv⁻¹ (L_q − L_vq v)
//! A_q = −L_vv⁻¹ E_q(q, v, A),                A_v = −L_vv⁻¹ E_v(q, v, A)
//! A_q′ = −L_vv⁻¹ (E′_q + E′_a A_q),          A_v′ = −L_vv⁻¹ (E′_v + E′_a A_v)
//! ```
//!
//! where the primes are derivatives along `(dq, dv)`, `E′ = E_q dq + E_v dv + L_vv dA`
//! is `E`'s derivative along `(dq, dv, dA)` with `dA = A_q dq + A_v dv`, and
//! `E′_a = ∂E′/∂a` is `L_vv`'s derivative along `(dq, dv)`. Differentiating the identity
//! rather than the formula for `A` keeps the emitted code to derivatives of `L` (no
//! inverse of a symbolic matrix), and one `D × D` factorisation of `L_vv` serves `A`
//! and all its derivatives at a point.
use nalgebra::{SMatrix, SVector};

use super::SecondOrderKernels;
use crate::kernels::PointKernels;
use crate::model::Real;
use crate::solve::lu::Lu;

/// The derivatives of the Euler–Lagrange expression `E(q, v, a)` of the module's doc,
/// which `model!` emits for a model that declares a converted scheme. Matrices are
/// written in column storage (`out[j][i]` is row `i`, column `j`; every entry is
/// written), as [`PointKernels`]' are.
pub trait EulerLagrangeKernels<T: Real, const D: usize> {
    /// `L(q, v)`: the model's Lagrangian, whatever its count of constraints (the
    /// standard layer's action reads it).
    fn lagrangian(&self, q: &SVector<T, D>, v: &SVector<T, D>) -> T;

    /// `E_q[j][i] = ∂Eᵢ/∂qⱼ` and `E_v[j][i] = ∂Eᵢ/∂vⱼ` at `(q, v, a)`: third
    /// derivatives of `L` contracted with `a` and `v`.
    fn e_jacobians(
        &self,
        q: &SVector<T, D>,
        v: &SVector<T, D>,
        a: &SVector<T, D>,
        e_q: &mut [[T; D]; D],
        e_v: &mut [[T; D]; D],
    );

    /// The derivatives by `q`, `v` and `a` of `E′ = E_q dq + E_v dv + L_vv da`, `E`'s
    /// derivative along `(dq, dv, da)`: `E_q`'s and `E_v`'s own derivatives along the
    /// direction (fourth derivatives of `L`), and `L_vv`'s (`∂E′/∂a`).
    #[allow(clippy::too_many_arguments)]
    fn e_tangent_jacobians(
        &self,
        q: &SVector<T, D>,
        v: &SVector<T, D>,
        a: &SVector<T, D>,
        direction: (&SVector<T, D>, &SVector<T, D>, &SVector<T, D>),
        e_q: &mut [[T; D]; D],
        e_v: &mut [[T; D]; D],
        e_a: &mut [[T; D]; D],
    );
}

/// NaN in `T`: what a singular `L_vv` makes of `A` and its derivatives.
pub(super) fn nan<T: Real>() -> T {
    nalgebra::convert(f64::NAN)
}

/// A matrix written by a kernel into column storage.
fn columns<T: Real, const D: usize>(write: impl FnOnce(&mut [[T; D]; D])) -> SMatrix<T, D, D> {
    let mut m = SMatrix::<T, D, D>::zeros();
    write(&mut m.data.0);
    m
}

/// `A(q, v)` and the factors of `L_vv(q, v)` that produced it; `None` where `L_vv` is
/// singular, and then `A` is NaN, which the step refuses as a non-finite update.
struct Point<T: Real, const D: usize> {
    acceleration: SVector<T, D>,
    mass: Option<Lu<T, D>>,
}

impl<T: Real, const D: usize> Point<T, D> {
    fn at<Mdl: PointKernels<T, D>>(model: &Mdl, q: &SVector<T, D>, v: &SVector<T, D>) -> Self {
        let l_vv = columns(|out| model.l_vv(q, v, out));
        let l_qv = columns(|out| model.l_qv(q, v, out));
        // (L_vq v)ᵢ = Σⱼ ∂²L/∂vᵢ∂qⱼ vⱼ = (L_qvᵀ v)ᵢ.
        let mut acceleration = model.l_q(q, v) - l_qv.transpose() * v;
        match Lu::factor(l_vv) {
            Ok(mass) => {
                mass.solve_in_place(&mut acceleration);
                Self {
                    acceleration,
                    mass: Some(mass),
                }
            }
            Err(_) => Self {
                acceleration: SVector::from_element(nan()),
                mass: None,
            },
        }
    }

    /// `−L_vv⁻¹ m`, NaN where `L_vv` is singular.
    fn minus_solve(&self, m: SMatrix<T, D, D>) -> SMatrix<T, D, D> {
        match &self.mass {
            Some(mass) => {
                let mut x = -m;
                mass.solve_matrix_in_place(&mut x);
                x
            }
            None => SMatrix::from_element(nan()),
        }
    }

    /// `(A_q, A_v)` from `E`'s Jacobians at `(q, v, A)`.
    fn jacobians<Mdl: EulerLagrangeKernels<T, D>>(
        &self,
        model: &Mdl,
        q: &SVector<T, D>,
        v: &SVector<T, D>,
    ) -> (SMatrix<T, D, D>, SMatrix<T, D, D>) {
        let (mut e_q, mut e_v) = (SMatrix::zeros(), SMatrix::zeros());
        model.e_jacobians(q, v, &self.acceleration, &mut e_q.data.0, &mut e_v.data.0);
        (self.minus_solve(e_q), self.minus_solve(e_v))
    }
}

/// A model with point kernels and emitted [`EulerLagrangeKernels`] as the standard
/// layer's second-order system (the module's doc): its own acceleration, without
/// constraints. (A wrapper rather than an impl for every such model: a blanket impl
/// would overlap the constrained layer's, `constrained::Constrained`.)
#[derive(Clone, Copy, Debug)]
pub struct FromKernels<'a, Mdl>(pub &'a Mdl);

impl<T, Mdl, const D: usize> SecondOrderKernels<T, D> for FromKernels<'_, Mdl>
where
    T: Real,
    Mdl: PointKernels<T, D> + EulerLagrangeKernels<T, D>,
{
    fn lagrangian(&self, q: &SVector<T, D>, v: &SVector<T, D>) -> T {
        EulerLagrangeKernels::lagrangian(self.0, q, v)
    }

    fn l_q(&self, q: &SVector<T, D>, v: &SVector<T, D>) -> SVector<T, D> {
        PointKernels::l_q(self.0, q, v)
    }

    fn l_v(&self, q: &SVector<T, D>, v: &SVector<T, D>) -> SVector<T, D> {
        PointKernels::l_v(self.0, q, v)
    }

    fn l_qq(&self, q: &SVector<T, D>, v: &SVector<T, D>) -> SMatrix<T, D, D> {
        columns(|out| PointKernels::l_qq(self.0, q, v, out))
    }

    fn l_qv(&self, q: &SVector<T, D>, v: &SVector<T, D>) -> SMatrix<T, D, D> {
        columns(|out| PointKernels::l_qv(self.0, q, v, out))
    }

    fn l_vv(&self, q: &SVector<T, D>, v: &SVector<T, D>) -> SMatrix<T, D, D> {
        columns(|out| PointKernels::l_vv(self.0, q, v, out))
    }

    fn acceleration(&self, q: &SVector<T, D>, v: &SVector<T, D>) -> SVector<T, D> {
        Point::at(self.0, q, v).acceleration
    }

    fn acceleration_jacobians(
        &self,
        q: &SVector<T, D>,
        v: &SVector<T, D>,
    ) -> (SMatrix<T, D, D>, SMatrix<T, D, D>) {
        Point::at(self.0, q, v).jacobians(self.0, q, v)
    }

    fn acceleration_second(
        &self,
        q: &SVector<T, D>,
        v: &SVector<T, D>,
        dq: &SVector<T, D>,
        dv: &SVector<T, D>,
    ) -> (SMatrix<T, D, D>, SMatrix<T, D, D>) {
        let point = self.acceleration_with_jacobians(q, v);
        self.acceleration_second_at(q, v, &point, dq, dv)
    }

    fn acceleration_with_jacobians(
        &self,
        q: &SVector<T, D>,
        v: &SVector<T, D>,
    ) -> (SVector<T, D>, SMatrix<T, D, D>, SMatrix<T, D, D>) {
        let point = Point::at(self.0, q, v);
        let (a_q, a_v) = point.jacobians(self.0, q, v);
        (point.acceleration, a_q, a_v)
    }

    fn acceleration_second_at(
        &self,
        q: &SVector<T, D>,
        v: &SVector<T, D>,
        (acceleration, a_q, a_v): &(SVector<T, D>, SMatrix<T, D, D>, SMatrix<T, D, D>),
        dq: &SVector<T, D>,
        dv: &SVector<T, D>,
    ) -> (SMatrix<T, D, D>, SMatrix<T, D, D>) {
        // Only L_vv's factors are needed again.
        let point = Point {
            acceleration: *acceleration,
            mass: Lu::factor(columns(|out| PointKernels::l_vv(self.0, q, v, out))).ok(),
        };
        let (a_q, a_v) = (*a_q, *a_v);
        let da = a_q * dq + a_v * dv;
        let (mut e_q, mut e_v, mut e_a) = (SMatrix::zeros(), SMatrix::zeros(), SMatrix::zeros());
        self.0.e_tangent_jacobians(
            q,
            v,
            &point.acceleration,
            (dq, dv, &da),
            &mut e_q.data.0,
            &mut e_v.data.0,
            &mut e_a.data.0,
        );
        (
            point.minus_solve(e_q + e_a * a_q),
            point.minus_solve(e_v + e_a * a_v),
        )
    }
}
