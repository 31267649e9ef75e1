//! Explicit Runge–Kutta tableaux: the standard layers of the conversion of a one-step
//! method into a variational integrator (Patrick, Cuell, Spiteri, Zhang, seed
//! `004_caa2b5d5d51972f0.txt`; spec `next_packages.md` §C.1), where the paper names
//! explicit Runge–Kutta methods as its example. Coefficients from Hairer, Nørsett,
//! Wanner, Solving Ordinary Differential Equations I, Sect. II.1, Table 1.1 (Euler,
//! Heun's second-order method, Kutta's third-order method, the classical fourth-order
//! method), as spec §C.1 lists them.
use super::Tableau;

impl Tableau<1> {
    /// The explicit Euler method: `a = 0`, `b = 1`, `c = 0`. Order 1.
    pub fn euler() -> Self {
        Tableau {
            a: [[0.0]],
            b: [1.0],
            c: [0.0],
        }
    }
}

impl Tableau<2> {
    /// Heun's second-order method: `a₂₁ = 1`, `b = (½, ½)`. Order 2.
    pub fn heun2() -> Self {
        Tableau {
            a: [[0.0, 0.0], [1.0, 0.0]],
            b: [0.5, 0.5],
            c: [0.0, 1.0],
        }
    }
}

impl Tableau<3> {
    /// Kutta's third-order method: `a₂₁ = ½`, `a₃₁ = −1`, `a₃₂ = 2`,
    /// `b = (1/6, 2/3, 1/6)`. Order 3.
    pub fn kutta3() -> Self {
        Tableau {
            a: [[0.0, 0.0, 0.0], [0.5, 0.0, 0.0], [-1.0, 2.0, 0.0]],
            b: [1.0 / 6.0, 2.0 / 3.0, 1.0 / 6.0],
            c: [0.0, 0.5, 1.0],
        }
    }
}

impl Tableau<4> {
    /// The classical Runge–Kutta method: `a₂₁ = a₃₂ = ½`, `a₄₃ = 1`,
    /// `b = (1/6, 1/3, 1/3, 1/6)`. Order 4.
    pub fn rk4() -> Self {
        Tableau {
            a: [
                [0.0, 0.0, 0.0, 0.0],
                [0.5, 0.0, 0.0, 0.0],
                [0.0, 0.5, 0.0, 0.0],
                [0.0, 0.0, 1.0, 0.0],
            ],
            b: [1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0],
            c: [0.0, 0.5, 0.5, 1.0],
        }
    }
}

impl<const S: usize> Tableau<S> {
    /// Whether every stage reads only the stages before it (`aᵢⱼ = 0` for `j ≥ i`), so
    /// that the stages are computed one after another without a solve.
    pub fn is_explicit(&self) -> bool {
        (0..S).all(|i| (i..S).all(|j| self.a[i][j] == 0.0))
    }

    /// The largest `|cᵢ − Σⱼ aᵢⱼ|`: the row-sum condition that the order conditions of
    /// [`order`](Self::order) assume (they are stated for autonomous systems; the
    /// nodes enter only through time-dependent forces).
    pub fn row_sum_defect(&self) -> f64 {
        (0..S)
            .map(|i| (self.c[i] - self.a[i].iter().sum::<f64>()).abs())
            .fold(0.0, f64::max)
    }
}

/// The most stages of a built-in standard layer ([`Tableau::standard_layer`]).
pub const LAYER_STAGES: usize = 4;

/// The built-in standard layers by the names of the catalogue's `StandardLayer`
/// choices, with the order each tableau's own conditions give ([`Tableau::order`]; a
/// test checks it): what the catalogue's order of a converted scheme reads, in a `const`.
const LAYERS: [(&str, usize); 4] = [("Euler", 1), ("Heun", 2), ("Kutta3", 3), ("Rk4", 4)];

/// The order of the built-in standard layer `name` (`None` for another name).
pub const fn layer_order(name: &str) -> Option<usize> {
    let mut i = 0;
    while i < LAYERS.len() {
        if super::same(name, LAYERS[i].0) {
            return Some(LAYERS[i].1);
        }
        i += 1;
    }
    None
}

impl Tableau<LAYER_STAGES> {
    /// The built-in standard layer `name` (`Euler`, `Heun`, `Kutta3`, `Rk4`: the
    /// choices of the catalogue's `StandardLayer`), padded to [`LAYER_STAGES`] stages
    /// ([`padded`](Tableau::padded)); `None` for another name.
    pub fn standard_layer(name: &str) -> Option<Self> {
        match name {
            "Euler" => Some(Tableau::euler().padded()),
            "Heun" => Some(Tableau::heun2().padded()),
            "Kutta3" => Some(Tableau::kutta3().padded()),
            "Rk4" => Some(Tableau::rk4().padded()),
            _ => None,
        }
    }
}

impl<const S: usize> Tableau<S> {
    /// The same method with `P − S` stages appended that nothing reads (zero
    /// coefficients and weights), so that methods of different stage counts share one
    /// type; [`active_stages`](Self::active_stages) tells a step where to stop.
    ///
    /// # Panics
    ///
    /// If `P < S`.
    pub fn padded<const P: usize>(&self) -> Tableau<P> {
        assert!(P >= S, "padding {S} stages to {P}");
        let mut padded = Tableau {
            a: [[0.0; P]; P],
            b: [0.0; P],
            c: [0.0; P],
        };
        for i in 0..S {
            padded.a[i][..S].copy_from_slice(&self.a[i]);
        }
        padded.b[..S].copy_from_slice(&self.b);
        padded.c[..S].copy_from_slice(&self.c);
        padded
    }

    /// The stages a step must compute: up to the last one with a weight or read by a
    /// later stage (an explicit tableau's trailing stages that nothing reads are skipped).
    pub fn active_stages(&self) -> usize {
        (0..S)
            .rev()
            .find(|&i| self.b[i] != 0.0 || (i + 1..S).any(|j| self.a[j][i] != 0.0))
            .map_or(0, |i| i + 1)
    }
}

/// The tolerance on each order condition when a user's tableau is checked: round-off
/// of coefficients written as fractions (`1.0 / 6.0`) passes, ten-digit decimals do not.
pub const ORDER_TOLERANCE: f64 = 1e-12;

/// Why a tableau given as data is refused as a standard layer
/// ([`Tableau::check_layer`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LayerError {
    /// A coefficient is NaN or infinite.
    NonFinite,
    /// Stage `stage` reads stage `reads ≥ stage` (`a[stage][reads] ≠ 0`): the standard
    /// layer runs explicit tableaux only, each stage from the ones before it.
    Implicit {
        /// The stage (from 0).
        stage: usize,
        /// The stage it reads.
        reads: usize,
    },
    /// `cᵢ ≠ Σⱼ aᵢⱼ` at stage `stage`, which the order conditions assume.
    RowSum {
        /// The stage (from 0).
        stage: usize,
        /// `|cᵢ − Σⱼ aᵢⱼ|`.
        defect: f64,
    },
    /// The claimed order is 0 or above [`MAX_ORDER`](super::MAX_ORDER), where the
    /// conditions are not enumerated.
    UncheckableOrder {
        /// The order claimed.
        claimed: usize,
    },
    /// The tableau fails the order conditions of the order it claims.
    Order {
        /// The order claimed.
        claimed: usize,
        /// The order its conditions give ([`Tableau::order`] at [`ORDER_TOLERANCE`]).
        order: usize,
        /// The largest defect `|Σᵢ bᵢ Φᵢ(t) − 1/γ(t)|` over the trees of order
        /// `order + 1`, the first order that fails.
        defect: f64,
    },
}

impl core::fmt::Display for LayerError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            Self::NonFinite => f.write_str("a coefficient of the tableau is not finite"),
            Self::Implicit { stage, reads } => write!(
                f,
                "the tableau is not explicit: stage {stage} reads stage {reads} (a[{stage}][{reads}] ≠ 0)"
            ),
            Self::RowSum { stage, defect } => write!(
                f,
                "c[{stage}] differs from the row sum of a by {defect:e} (c = A·1 is assumed)"
            ),
            Self::UncheckableOrder { claimed } => write!(
                f,
                "order {claimed} cannot be checked: the conditions are enumerated for orders 1..={}",
                super::MAX_ORDER
            ),
            Self::Order {
                claimed,
                order,
                defect,
            } => write!(
                f,
                "the tableau claims order {claimed} but its order conditions give {order}: the trees of order {} miss by {defect:e} (tolerance {ORDER_TOLERANCE:e})",
                order + 1
            ),
        }
    }
}

impl<const S: usize> Tableau<S> {
    /// Checks a tableau given as data against what the standard layer of a converted
    /// scheme needs and the order it claims: finite, explicit, `c = A·1`, and every
    /// order condition up to `claimed` to [`ORDER_TOLERANCE`]. `Ok` with the tableau's
    /// own order (which may exceed the claim).
    pub fn check_layer(&self, claimed: usize) -> Result<usize, LayerError> {
        let finite = self.a.iter().flatten().chain(&self.b).chain(&self.c);
        if !finite.into_iter().all(|x| x.is_finite()) {
            return Err(LayerError::NonFinite);
        }
        for (stage, row) in self.a.iter().enumerate() {
            if let Some(reads) = (stage..S).find(|&j| row[j] != 0.0) {
                return Err(LayerError::Implicit { stage, reads });
            }
            let defect = (self.c[stage] - row.iter().sum::<f64>()).abs();
            if defect > ORDER_TOLERANCE {
                return Err(LayerError::RowSum { stage, defect });
            }
        }
        if claimed == 0 || claimed > super::MAX_ORDER {
            return Err(LayerError::UncheckableOrder { claimed });
        }
        let order = self.order(ORDER_TOLERANCE);
        if order < claimed {
            return Err(LayerError::Order {
                claimed,
                order,
                defect: self.order_defect(order + 1),
            });
        }
        Ok(order)
    }
}

#[cfg(test)]
mod tests {
    use std::string::ToString;

    use super::{layer_order, LayerError, Tableau, LAYERS};

    /// The orders the catalogue reads in a `const` are those the tableaux' own order
    /// conditions give, and padding changes neither the order nor what a step computes.
    #[test]
    fn the_layers_orders_are_their_tableaux_orders() {
        for (name, order) in LAYERS {
            let tableau = Tableau::standard_layer(name).expect("a built-in layer");
            assert_eq!(tableau.order(1e-12), order, "{name}");
            assert_eq!(layer_order(name), Some(order));
            assert!(tableau.is_explicit());
        }
        assert_eq!(layer_order("Rk5"), None);
        assert!(Tableau::standard_layer("Rk5").is_none());
        let stages = LAYERS.map(|(name, _)| Tableau::standard_layer(name).unwrap().active_stages());
        assert_eq!(stages, [1, 2, 3, 4]);
        assert_eq!(Tableau::rk4().padded::<4>(), Tableau::rk4());
    }

    /// A tableau given as data: the built-in ones pass at their orders; one that claims
    /// more than its conditions give, an implicit one, one with a wrong node and a NaN
    /// are each refused with the reason.
    #[test]
    fn a_users_tableau_is_checked_against_its_claimed_order() {
        assert_eq!(Tableau::rk4().check_layer(4), Ok(4));
        assert_eq!(Tableau::kutta3().check_layer(2), Ok(3));
        // Ralston's third-order method (a₂₁ = ½, a₃₂ = ¾, b = (2/9, 1/3, 4/9)).
        let ralston = Tableau {
            a: [[0.0, 0.0, 0.0], [0.5, 0.0, 0.0], [0.0, 0.75, 0.0]],
            b: [2.0 / 9.0, 1.0 / 3.0, 4.0 / 9.0],
            c: [0.0, 0.5, 0.75],
        };
        assert_eq!(ralston.check_layer(3), Ok(3));
        // The same with b₃ off by 1e-3: consistency fails by that much.
        let broken = Tableau {
            b: [2.0 / 9.0, 1.0 / 3.0, 4.0 / 9.0 + 1e-3],
            ..ralston
        };
        match broken.check_layer(3) {
            Err(LayerError::Order {
                claimed: 3,
                order: 0,
                defect,
            }) => {
                assert!((defect - 1e-3).abs() < 1e-12, "{defect}");
            }
            other => panic!("{other:?}"),
        }
        // Heun claims 3: its conditions give 2, the trees of order 3 miss.
        match Tableau::heun2().check_layer(3) {
            Err(e @ LayerError::Order { order: 2, .. }) => {
                assert!(e
                    .to_string()
                    .contains("claims order 3 but its order conditions give 2"));
            }
            other => panic!("{other:?}"),
        }
        let implicit = Tableau {
            a: [[0.5]],
            b: [1.0],
            c: [0.5],
        };
        assert_eq!(
            implicit.check_layer(1),
            Err(LayerError::Implicit { stage: 0, reads: 0 })
        );
        let shifted = Tableau {
            c: [0.0, 0.9],
            ..Tableau::heun2()
        };
        assert!(matches!(
            shifted.check_layer(2),
            Err(LayerError::RowSum { stage: 1, .. })
        ));
        let nan = Tableau {
            b: [f64::NAN],
            ..Tableau::euler()
        };
        assert_eq!(nan.check_layer(1), Err(LayerError::NonFinite));
        assert_eq!(
            Tableau::rk4().check_layer(9),
            Err(LayerError::UncheckableOrder { claimed: 9 })
        );
    }
}
