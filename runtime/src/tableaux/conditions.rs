//! The simplifying assumptions B, C, D, CĈ and symplectic conjugacy as measured defects.
//!
//! Each check returns the largest absolute defect over all its equations rather than a
//! `bool`, so that a test states its own tolerance and an audit can print how far a
//! tableau is from a condition. They are plain sums over the coefficients, with no
//! knowledge of which family a tableau belongs to: a condition that does not hold shows
//! up as a defect of the size of the neglected term, not as zero. Notation and equation
//! numbers: Martín de Diego & Sato Martín de Almagro, App. A, eqs. (43)–(45) and the pair
//! conditions below them; spec 002 §3.
use super::{PartitionedTableau, Tableau};

impl<const S: usize> Tableau<S> {
    /// Defect of B(k): the largest `|Σᵢ bᵢ cᵢ^(κ−1) − 1/κ|` over `κ = 1..=k` (quadrature
    /// order `k`). `0.0` for `k = 0`.
    pub fn b(&self, k: usize) -> f64 {
        let mut defect: f64 = 0.0;
        let mut power = [1.0; S]; // cᵢ^(κ−1)
        for kappa in 1..=k {
            let sum: f64 = (0..S).map(|i| self.b[i] * power[i]).sum();
            defect = defect.max((sum - 1.0 / kappa as f64).abs());
            next_power(&mut power, &self.c);
        }
        defect
    }

    /// Defect of C(k): the largest `|Σⱼ aᵢⱼ cⱼ^(κ−1) − cᵢ^κ/κ|` over all stages `i` and
    /// `κ = 1..=k` (stage order `k`). `0.0` for `k = 0`.
    pub fn c(&self, k: usize) -> f64 {
        let mut defect: f64 = 0.0;
        let mut power = [1.0; S]; // cⱼ^(κ−1)
        for kappa in 1..=k {
            for i in 0..S {
                let sum: f64 = (0..S).map(|j| self.a[i][j] * power[j]).sum();
                let exact = power[i] * self.c[i] / kappa as f64;
                defect = defect.max((sum - exact).abs());
            }
            next_power(&mut power, &self.c);
        }
        defect
    }

    /// Defect of D(k): the largest `|Σᵢ bᵢ cᵢ^(κ−1) aᵢⱼ − bⱼ (1 − cⱼ^κ)/κ|` over all
    /// stages `j` and `κ = 1..=k`. `0.0` for `k = 0`.
    pub fn d(&self, k: usize) -> f64 {
        let mut defect: f64 = 0.0;
        let mut power = [1.0; S]; // cᵢ^(κ−1)
        for kappa in 1..=k {
            for j in 0..S {
                let sum: f64 = (0..S).map(|i| self.b[i] * power[i] * self.a[i][j]).sum();
                let exact = self.b[j] * (1.0 - power[j] * self.c[j]) / kappa as f64;
                defect = defect.max((sum - exact).abs());
            }
            next_power(&mut power, &self.c);
        }
        defect
    }
}

impl<const S: usize> PartitionedTableau<S> {
    /// Defect of symplectic conjugacy (Hairer–Lubich–Wanner, Geometric Numerical
    /// Integration, Thm VI.4.6; the paper's App. A.3.1): the largest of
    /// `|bᵢ âᵢⱼ + b̂ⱼ aⱼᵢ − bᵢ b̂ⱼ|` over all `i, j` and `|bᵢ − b̂ᵢ|` over all `i`.
    pub fn symplectic_defect(&self) -> f64 {
        let mut defect: f64 = 0.0;
        for i in 0..S {
            defect = defect.max((self.b[i] - self.b_hat[i]).abs());
            for j in 0..S {
                let sum = self.b[i] * self.a_hat[i][j] + self.b_hat[j] * self.a[j][i];
                defect = defect.max((sum - self.b[i] * self.b_hat[j]).abs());
            }
        }
        defect
    }

    /// Defect of CĈ(k): the largest `|Σⱼ Σₗ aᵢⱼ âⱼₗ cₗ^(κ−2) − cᵢ^κ/(κ(κ−1))|` over all
    /// stages `i` and `κ = 2..=k`. `0.0` for `k < 2`. For Lobatto IIIA–IIIB, CĈ(s) is what
    /// makes the IIIA-reintegrated momenta at the stages accurate to order s (paper
    /// Sec. 5.1), which the nonholonomic constraint is imposed on.
    pub fn cc_hat(&self, k: usize) -> f64 {
        let mut defect: f64 = 0.0;
        let mut power = [1.0; S]; // cₗ^(κ−2)
        for kappa in 2..=k {
            // Σₗ âⱼₗ cₗ^(κ−2), once per κ rather than once per (i, j).
            let inner: [f64; S] =
                core::array::from_fn(|j| (0..S).map(|l| self.a_hat[j][l] * power[l]).sum());
            let denominator = (kappa * (kappa - 1)) as f64;
            for ((row, &p), &ci) in self.a.iter().zip(&power).zip(&self.c) {
                let sum: f64 = row.iter().zip(&inner).map(|(a, y)| a * y).sum();
                defect = defect.max((sum - p * ci * ci / denominator).abs());
            }
            next_power(&mut power, &self.c);
        }
        defect
    }
}

/// Advances `power[i] = cᵢ^m` to `cᵢ^(m+1)`.
fn next_power<const S: usize>(power: &mut [f64; S], c: &[f64; S]) {
    for (p, &ci) in power.iter_mut().zip(c) {
        *p *= ci;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The implicit midpoint rule, paired with itself: a = 1/2, b = 1, c = 1/2.
    fn midpoint() -> PartitionedTableau<1> {
        PartitionedTableau {
            a: [[0.5]],
            a_hat: [[0.5]],
            b: [1.0],
            b_hat: [1.0],
            c: [0.5],
        }
    }

    // The defects are pinned to their exact values (all dyadic, so exact in f64): a
    // failing condition must report the size of its first neglected term.
    #[test]
    fn midpoint_defects_are_exact() {
        let t = midpoint().first();
        // B: Σ b c^(κ−1) = 2^(1−κ) against 1/κ: exact for κ = 1, 2; κ = 3: |1/4 − 1/3|.
        assert_eq!(t.b(0), 0.0);
        assert_eq!(t.b(2), 0.0);
        assert_eq!(t.b(3), (0.25f64 - 1.0 / 3.0).abs());
        // C(2): a c = 1/4 against c²/2 = 1/8.
        assert_eq!(t.c(1), 0.0);
        assert_eq!(t.c(2), 0.125);
        // D(2): b c a = 1/4 against b (1 − c²)/2 = 3/8.
        assert_eq!(t.d(1), 0.0);
        assert_eq!(t.d(2), 0.125);
        // CĈ(2): a â = 1/4 against c²/2 = 1/8.
        assert_eq!(midpoint().cc_hat(1), 0.0);
        assert_eq!(midpoint().cc_hat(2), 0.125);
        // b â + b a = 1 = b b: the midpoint rule is its own symplectic conjugate.
        assert_eq!(midpoint().symplectic_defect(), 0.0);
    }

    #[test]
    fn symplectic_defect_sees_both_conditions() {
        // Two implicit Euler methods: b â + b a − b b = 1 + 1 − 1.
        let euler = PartitionedTableau {
            a: [[1.0]],
            a_hat: [[1.0]],
            b: [1.0],
            b_hat: [1.0],
            c: [1.0],
        };
        assert_eq!(euler.symplectic_defect(), 1.0);
        // Conjugate stage coefficients but b̂ ≠ b.
        let mut unequal = midpoint();
        unequal.b_hat = [0.75];
        assert!(unequal.symplectic_defect() >= 0.25);
    }

    #[test]
    fn empty_tableau_has_no_defect() {
        let t = Tableau::<0> {
            a: [],
            b: [],
            c: [],
        };
        // Σ over no stages is 0, so B(1) reports |0 − 1|; C and D have no equations.
        assert_eq!(t.b(1), 1.0);
        assert_eq!(t.c(3), 0.0);
        assert_eq!(t.d(3), 0.0);
    }
}
