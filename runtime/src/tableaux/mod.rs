//!
//! A scheme takes its order and its structure from its tableau, so the coefficients live
//! here as plain arrays, each constructor citing where they come from, and every claim
//! about them is a method that measures it: the simplifying assumptions B, C, D and CĈ
//! ([`Tableau::b`], [`Tableau::c`], [`Tableau::d`], [`PartitionedTableau::cc_hat`]),
//! symplectic conjugacy ([`PartitionedTableau::symplectic_defect`]) and the stability
//! function at infinity ([`Tableau::stability_at_infinity`]).
//!
//! The order conditions of any tableau are checked tree by tree
//! ([`Tableau::order`], [`Tableau::order_defect`]).
//!
//! Provided: [`PartitionedTableau::lobatto_iiia_iiib`] (any `S ≥ 2`),
//! [`Tableau::lobatto_iiia`], [`Tableau::lobatto_iiib`], the explicit methods the
//! conversion of seed 004 takes as standard layers ([`Tableau::euler`],
//! [`Tableau::heun2`], [`Tableau::kutta3`], [`Tableau::rk4`]), and the Galerkin schemes'
//! Lagrange bases and quadratures ([`GalerkinTable`](crate::tableaux::GalerkinTable)).
//!
// rustdoc resolves the links of this doc in the crate root, where the `mod` line's doc
// lives, hence the full paths.
//! [`Tableau::b`]: crate::tableaux::Tableau::b
//! [`Tableau::c`]: crate::tableaux::Tableau::c
//! [`Tableau::d`]: crate::tableaux::Tableau::d
//! [`Tableau::stability_at_infinity`]: crate::tableaux::Tableau::stability_at_infinity
//! [`Tableau::lobatto_iiia`]: crate::tableaux::Tableau::lobatto_iiia
//! [`Tableau::order`]: crate::tableaux::Tableau::order
//! [`Tableau::euler`]: crate::tableaux::Tableau::euler
//! [`Tableau::heun2`]: crate::tableaux::Tableau::heun2
//! [`Tableau::kutta3`]: crate::tableaux::Tableau::kutta3
//! [`Tableau::rk4`]: crate::tableaux::Tableau::rk4
//! [`Tableau::order_defect`]: crate::tableaux::Tableau::order_defect
//! [`Tableau::lobatto_iiib`]: crate::tableaux::Tableau::lobatto_iiib
//! [`PartitionedTableau::cc_hat`]: crate::tableaux::PartitionedTableau::cc_hat
//! [`PartitionedTableau::symplectic_defect`]: crate::tableaux::PartitionedTableau::symplectic_defect
//! [`PartitionedTableau::lobatto_iiia_iiib`]: crate::tableaux::PartitionedTableau::lobatto_iiia_iiib
mod conditions;
mod explicit;
mod galerkin;
mod lobatto;
mod nodes;
mod stability;
mod trees;

pub use explicit::{layer_order, LayerError, LAYER_STAGES, ORDER_TOLERANCE};
pub use galerkin::{
    admissible, galerkin_order, GalerkinTable, Inadmissible, Quadrature, MAX_POINTS,
};
pub use trees::MAX_ORDER;

/// `a == b`, in a `const fn`.
pub(crate) const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// An `S`-stage Runge–Kutta tableau: row `i` of `a` is stage `i`, so the stages are
/// `Yᵢ = y₀ + h Σⱼ a[i][j] kⱼ` and the step is `y₁ = y₀ + h Σᵢ b[i] kᵢ`.
///
/// ```text
/// c │ A
/// ──┼───
///   │ bᵀ
/// ```
///
/// The methods `b(k)`, `c(k)`, `d(k)` (not the fields) measure the simplifying
/// assumptions B(k), C(k), D(k) of the paper's notation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tableau<const S: usize> {
    /// The stage coefficients `a[i][j]`.
    pub a: [[f64; S]; S],
    /// The weights.
    pub b: [f64; S],
    /// The nodes.
    pub c: [f64; S],
}

/// An `S`-stage partitioned Runge–Kutta pair `(A, b, c)`, `(Â, b̂, c)` sharing its nodes:
/// the first method integrates the positions, the second the momenta.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PartitionedTableau<const S: usize> {
    /// The stage coefficients of the first method.
    pub a: [[f64; S]; S],
    /// The stage coefficients of the second method.
    pub a_hat: [[f64; S]; S],
    /// The weights of the first method.
    pub b: [f64; S],
    /// The weights of the second method.
    pub b_hat: [f64; S],
    /// The nodes of both methods.
    pub c: [f64; S],
}

impl<const S: usize> PartitionedTableau<S> {
    /// The first method `(A, b, c)`.
    pub fn first(&self) -> Tableau<S> {
        Tableau {
            a: self.a,
            b: self.b,
            c: self.c,
        }
    }

    /// The second method `(Â, b̂, c)`.
    pub fn second(&self) -> Tableau<S> {
        Tableau {
            a: self.a_hat,
            b: self.b_hat,
            c: self.c,
        }
    }
}
