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
