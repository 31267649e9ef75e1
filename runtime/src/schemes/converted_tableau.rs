//! The converted variational integrator with a standard layer given as data.
use crate::families::converted::node_form::{Bias, Conversion};
use crate::tableaux::{LayerError, Tableau};

/// The most stages of a standard layer given as data ([`ConvertedTableau::new`]): room
/// for the explicit methods of order 5 (Dormand–Prince's seven stages).
pub const USER_STAGES: usize = 8;

/// A one-step method turned into a variational integrator of the same order (Patrick,
/// Cuell, Spiteri, Zhang, Sect. 3 and 4.2; spec `next_packages.md` §C.3), as
/// [`Converted<L, B>`](super::Converted) but with any explicit Runge–Kutta tableau of
/// up to [`USER_STAGES`] stages as its standard layer, given at run time and checked
/// against the order it claims ([`Tableau::check_layer`]):
///
/// ```
/// use livens_runtime::families::converted::node_form::Bias;
/// use livens_runtime::schemes::ConvertedTableau;
/// use livens_runtime::tableaux::{LayerError, Tableau};
///
/// // Ralston's third-order method.
/// let ralston = Tableau {
///     a: [[0.0, 0.0, 0.0], [0.5, 0.0, 0.0], [0.0, 0.75, 0.0]],
///     b: [2.0 / 9.0, 1.0 / 3.0, 4.0 / 9.0],
///     c: [0.0, 0.5, 0.75],
/// };
/// let scheme = ConvertedTableau::new(ralston, Bias::Symmetric, 3).unwrap();
/// assert_eq!(scheme.order(), 4); // the next even order with the symmetric bias
/// // Claiming more than its order conditions give is refused, with the order they give.
/// let refused = ConvertedTableau::new(ralston, Bias::Forward, 4).unwrap_err();
/// assert!(matches!(refused, LayerError::Order { claimed: 4, order: 3, .. }));
/// ```
///
/// Unknowns `(q, v, μ)`, `3d`; Newton with the exact Jacobian, or the paper's chord
/// iteration with `JacobianUpdate::Chord`. The default is classical RK4 with the
/// forward bias.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConvertedTableau {
    conversion: Conversion<USER_STAGES>,
    order: usize,
}

impl ConvertedTableau {
    /// The scheme with standard layer `tableau` and `bias`, if the tableau is finite,
    /// explicit, has `c = A·1` and satisfies the order conditions up to `claimed`;
    /// otherwise why not.
    pub fn new<const S: usize>(
        tableau: Tableau<S>,
        bias: Bias,
        claimed: usize,
    ) -> Result<Self, LayerError> {
        const {
            assert!(
                S <= USER_STAGES,
                "a standard layer given as data has at most 8 stages"
            )
        };
        let conversion = Conversion::checked(tableau, bias, claimed)?;
        Ok(Self {
            order: conversion.order(),
            conversion: Conversion {
                tableau: tableau.padded(),
                bias,
            },
        })
    }

    /// The scheme's order: its tableau's, the next even one with the symmetric bias.
    pub fn order(&self) -> usize {
        self.order
    }

    /// The tableau (padded to [`USER_STAGES`]) and the bias.
    pub fn conversion(&self) -> &Conversion<USER_STAGES> {
        &self.conversion
    }
}

impl Default for ConvertedTableau {
    /// Classical RK4 with the forward bias: [`Converted<Rk4, Forward>`](super::Converted).
    fn default() -> Self {
        match Self::new(Tableau::rk4(), Bias::Forward, 4) {
            Ok(scheme) => scheme,
            Err(error) => panic!("RK4 is a standard layer of order 4: {error}"),
        }
    }
}
