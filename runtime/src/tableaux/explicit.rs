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

#[cfg(test)]
mod tests {
    use super::{layer_order, Tableau, LAYERS};

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
}
