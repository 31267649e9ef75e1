//! Lobatto IIIA–IIIB, the partitioned pair of the variational and the nonholonomic
//! schemes: Martín de Diego & Sato Martín de Almagro, "High-order geometric methods for
//! nonholonomic mechanical systems", App. A (seed `002_58ccdee782047e15.txt`); spec 002
//! §3. The tableaux for s = 2, 3 are drawn at [`PartitionedTableau::lobatto_iiia_iiib`].
//!
//! For s = 2..5 the coefficients are the closed forms of spec 002 §3 (Hairer–Lubich–
//! Wanner, Geometric Numerical Integration, II.1.4) in `closed.rs`, with √5 and √21
//! evaluated once, so each entry carries at most a few roundings. For larger s they are
//! computed from their definition (paper eq. 41), `aᵢⱼ = ∫₀^cᵢ ℓⱼ` and `bⱼ = ∫₀¹ ℓⱼ`, by
//! an `S`-point Gauss–Legendre rule (exact for the degree-(s−1) Lagrange polynomials)
//! with `ℓⱼ` in product form. Why not solve the Vandermonde systems of B(s) and C(s)
//! instead: the monomial Vandermonde matrix on the Lobatto nodes of [0, 1] has a
//! condition number growing about sixfold per stage (1-norm, measured: 5.0e3 at s = 6,
//! 3.0e4 at s = 7, 2.0e8 at s = 12), and that factor multiplies the rounding error of a
//! solve. The quadrature sums positive weights times products of differences of distinct
//! nodes and has no such factor: it agrees with the closed forms to 6.7e-16 at s = 5 and
//! keeps every order condition to 1e-14 up to s = 16 (tests below). IIIB is the
//! symplectic conjugate, `âᵢⱼ = bⱼ (1 − aⱼᵢ / bᵢ)`, `b̂ = b`.
use core::array::from_fn;

use super::{nodes, PartitionedTableau, Tableau};

mod closed;

impl<const S: usize> PartitionedTableau<S> {
    /// The `S`-stage Lobatto IIIA–IIIB pair: IIIA (`a`, continuous collocation) for the
    /// positions, IIIB (`a_hat`, its symplectic conjugate) for the momenta. Martín de Diego
    /// & Sato Martín de Almagro, App. A, eq. (41); spec 002 §3; Hairer–Lubich–Wanner,
    /// Geometric Numerical Integration, II.1.4.
    ///
    /// ```text
    /// s = 2 (the trapezoidal rule / Störmer–Verlet), order 2
    ///
    ///       Lobatto IIIA            Lobatto IIIB
    ///   0 │ 0     0             0 │ 1/2   0
    ///   1 │ 1/2   1/2           1 │ 1/2   0
    ///   ──┼───────────          ──┼───────────
    ///     │ 1/2   1/2             │ 1/2   1/2
    ///
    /// s = 3, order 4
    ///
    ///         Lobatto IIIA                    Lobatto IIIB
    ///   0   │ 0      0     0            0   │ 1/6   −1/6   0
    ///   1/2 │ 5/24   1/3  −1/24         1/2 │ 1/6    1/3   0
    ///   1   │ 1/6    2/3   1/6          1   │ 1/6    5/6   0
    ///   ────┼───────────────────        ────┼──────────────────
    ///       │ 1/6    2/3   1/6              │ 1/6    2/3   1/6
    /// ```
    ///
    /// Order 2s − 2 (B(2s−2)); IIIA satisfies C(s), D(s−2), IIIB C(s−2), D(s), the pair
    /// CĈ(s) and the hypotheses H1–H3, H1'–H2' of the constrained schemes; IIIA has
    /// `R(∞) = (−1)^(s−1)`. All of these are measured by the tests below.
    ///
    /// Closed forms for `S = 2..=5`; computed in f64 for larger `S` (the computation
    /// agrees with the closed forms to 1e-15 where both exist). No allocation.
    ///
    /// ```
    /// use livens_runtime::tableaux::PartitionedTableau;
    ///
    /// let pair = PartitionedTableau::<3>::lobatto_iiia_iiib();
    /// assert_eq!(pair.c, [0.0, 0.5, 1.0]);
    /// assert!(pair.first().b(4) <= 1e-15 && pair.first().b(5) > 1e-3); // order 4
    /// assert!(pair.symplectic_defect() <= 1e-15);
    /// ```
    ///
    /// `S < 2` is rejected at compile time, as there is no Lobatto rule with one node (a
    /// post-monomorphisation error: `cargo build` and `cargo test` report it, `cargo
    /// check` does not):
    ///
    /// ```compile_fail
    /// let _ = livens_runtime::tableaux::PartitionedTableau::<1>::lobatto_iiia_iiib();
    /// ```
    pub fn lobatto_iiia_iiib() -> Self {
        const { assert!(S >= 2, "Lobatto IIIA–IIIB needs at least two stages") };
        let closed = match S {
            2 => resize(&closed::s2()),
            3 => resize(&closed::s3()),
            4 => resize(&closed::s4()),
            5 => resize(&closed::s5()),
            _ => None,
        };
        closed.unwrap_or_else(Self::lobatto_iiia_iiib_computed)
    }

    /// The pair computed from its definition for any `S` (see the module doc); the
    /// closed forms are checked against it. Meaningless, but harmless, for `S < 2`.
    pub(crate) fn lobatto_iiia_iiib_computed() -> Self {
        let c = nodes::lobatto::<S>();
        let (t, w) = nodes::gauss_legendre::<S>();
        // ∫₀^upper ℓⱼ by the Gauss–Legendre rule mapped to [0, upper].
        let integral = |upper: f64, j: usize| -> f64 {
            t.iter()
                .zip(&w)
                .map(|(&tk, &wk)| upper * wk * lagrange(&c, j, upper * tk))
                .sum()
        };
        let a: [[f64; S]; S] = from_fn(|i| from_fn(|j| integral(c[i], j)));
        // With c_S = 1 exactly this is bit for bit the last row of `a` (H3).
        let b: [f64; S] = from_fn(|j| integral(1.0, j));
        let a_hat = from_fn(|i| from_fn(|j| b[j] * (1.0 - a[j][i] / b[i])));
        Self {
            a,
            a_hat,
            b,
            b_hat: b,
            c,
        }
    }
}

impl<const S: usize> Tableau<S> {
    /// Lobatto IIIA: the first method of [`PartitionedTableau::lobatto_iiia_iiib`].
    pub fn lobatto_iiia() -> Self {
        PartitionedTableau::lobatto_iiia_iiib().first()
    }

    /// Lobatto IIIB: the second method of [`PartitionedTableau::lobatto_iiia_iiib`].
    pub fn lobatto_iiib() -> Self {
        PartitionedTableau::lobatto_iiia_iiib().second()
    }
}

/// The Lagrange basis polynomial `ℓⱼ(τ) = Πₘ≠ⱼ (τ − cₘ)/(cⱼ − cₘ)`.
fn lagrange<const S: usize>(c: &[f64; S], j: usize, tau: f64) -> f64 {
    let cj = c.get(j).copied().unwrap_or(f64::NAN);
    c.iter()
        .enumerate()
        .filter(|&(m, _)| m != j)
        .map(|(_, &cm)| (tau - cm) / (cj - cm))
        .product()
}

/// `t` as a `PartitionedTableau<S>` if `N = S` (the closed forms have a literal size).
fn resize<const N: usize, const S: usize>(
    t: &PartitionedTableau<N>,
) -> Option<PartitionedTableau<S>> {
    if N != S {
        return None;
    }
    // In bounds: i, j < S = N.
    let matrix = |m: &[[f64; N]; N]| from_fn(|i| from_fn(|j| m[i][j]));
    let vector = |v: &[f64; N]| from_fn(|i| v[i]);
    Some(PartitionedTableau {
        a: matrix(&t.a),
        a_hat: matrix(&t.a_hat),
        b: vector(&t.b),
        b_hat: vector(&t.b_hat),
        c: vector(&t.c),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spec 002 §6 A asks 1e-14 for s = 2..5; it holds as well for every size tested up to
    /// s = 16, except `R(∞)` beyond s = 7 (see `large_sizes`).
    const TOL: f64 = 1e-14;

    fn factorial(n: usize) -> f64 {
        (1..=n).map(|k| k as f64).product()
    }

    /// Determinant by Gaussian elimination with partial pivoting.
    fn det<const S: usize>(mut m: [[f64; S]; S]) -> f64 {
        let mut det = 1.0;
        for k in 0..S {
            let pivot = (k..S).fold(k, |p, i| if m[i][k].abs() > m[p][k].abs() { i } else { p });
            if pivot != k {
                m.swap(pivot, k);
                det = -det;
            }
            det *= m[k][k];
            for i in k + 1..S {
                let f = m[i][k] / m[k][k];
                let pivot_row = m[k];
                for (x, p) in m[i].iter_mut().zip(&pivot_row).skip(k) {
                    *x -= f * p;
                }
            }
        }
        det
    }

    /// What holds: H1–H3, H1'–H2', conjugacy, row sums, B(2s−2), C(s), D(s−2), B̂(2s−2),
    /// Ĉ(s−2), D̂(s), CĈ(s) to `TOL`, and R(∞) = (−1)^(s−1) to `r_tol`.
    fn holds<const S: usize>(t: &PartitionedTableau<S>, r_tol: f64) {
        let (s, iiia, iiib) = (S, t.first(), t.second());
        for i in 0..S {
            assert!(t.a[0][i].abs() <= TOL, "H1, s = {s}");
            assert!((t.a[S - 1][i] - t.b[i]).abs() <= TOL, "H3, s = {s}");
            assert!(t.a_hat[i][S - 1].abs() <= TOL, "H1', s = {s}");
            assert!((t.a_hat[i][0] - t.b_hat[0]).abs() <= TOL, "H2', s = {s}");
            let row_sum: f64 = t.a[i].iter().sum();
            assert!((row_sum - t.c[i]).abs() <= TOL, "Σⱼ aᵢⱼ = cᵢ, s = {s}");
        }
        // H2. With row 1 of A replaced by e₁ᵀ the determinant is det Ã. Since
        // det(I − zA) = det(I − zÃ) is the denominator of R(z), the (s−1, s−1) Padé
        // approximant of eᶻ, det Ã is (up to sign) that denominator's leading
        // coefficient (s−1)!/(2s−2)!: exactly known and far above the rounding level of
        // the entries (1.5e-6 at s = 7; measured relative error ≤ 2e-14 up to s = 16).
        let m = from_fn(|i| {
            from_fn(|j| match (i, j) {
                (0, 0) => 1.0,
                (0, _) => 0.0,
                _ => t.a[i][j],
            })
        });
        let expected = factorial(s - 1) / factorial(2 * s - 2);
        assert!(
            (det::<S>(m) - expected).abs() <= 1e-12 * expected,
            "H2, s = {s}"
        );
        assert!(t.symplectic_defect() <= TOL, "conjugacy, s = {s}");
        let conditions = [
            ("B(2s−2)", iiia.b(2 * s - 2)),
            ("C(s)", iiia.c(s)),
            ("D(s−2)", iiia.d(s - 2)),
            ("B̂(2s−2)", iiib.b(2 * s - 2)),
            ("Ĉ(s−2)", iiib.c(s - 2)),
            ("D̂(s)", iiib.d(s)),
            ("CĈ(s)", t.cc_hat(s)),
        ];
        for (name, defect) in conditions {
            assert!(defect <= TOL, "{name}, s = {s}: {defect:e}");
        }
        let sign = if s % 2 == 1 { 1.0 } else { -1.0 };
        let r = iiia.stability_at_infinity().expect("H1 and H2 hold");
        assert!((r - sign).abs() <= r_tol, "R(∞), s = {s}: {r}");
    }

    /// What fails, by how much: the next condition of each family. B(2s−1) is pinned to
    /// the quadrature error (1.05e-7 at s = 7); the others are at least 7.0e-7 up to
    /// s = 7 (CĈ(s+1) at s = 7), seven orders of magnitude above `TOL`.
    fn fails<const S: usize>(t: &PartitionedTableau<S>) {
        let (s, iiia, iiib) = (S, t.first(), t.second());
        // The Lobatto quadrature error for t^(2s−2) on [0, 1]:
        // s (s−1)³ ((s−2)!)⁴ / ((2s−1) ((2s−2)!)²), e.g. 1/6 for the trapezoidal rule.
        let f = factorial(s - 2);
        let g = factorial(2 * s - 2);
        let quadrature = (s * (s - 1).pow(3)) as f64 * f * f * f * f / ((2 * s - 1) as f64 * g * g);
        assert!(
            (iiia.b(2 * s - 1) - quadrature).abs() <= 1e-9 * quadrature,
            "B(2s−1)"
        );
        let next = [
            ("C(s+1)", iiia.c(s + 1)),
            ("D(s−1)", iiia.d(s - 1)),
            ("Ĉ(s−1)", iiib.c(s - 1)),
            ("D̂(s+1)", iiib.d(s + 1)),
            ("CĈ(s+1)", t.cc_hat(s + 1)),
        ];
        for (name, defect) in next {
            assert!(defect >= 1e-7, "{name} holds at s = {s}: {defect:e}");
        }
    }

    fn check<const S: usize>() {
        let t = PartitionedTableau::<S>::lobatto_iiia_iiib();
        holds(&t, TOL);
        fails(&t);
        assert_eq!(Tableau::<S>::lobatto_iiia(), t.first());
        assert_eq!(Tableau::<S>::lobatto_iiib(), t.second());
    }

    #[test]
    fn closed_forms() {
        check::<2>();
        check::<3>();
        check::<4>();
        check::<5>();
    }

    #[test]
    fn computed() {
        check::<6>();
        check::<7>();
    }

    #[test]
    fn large_sizes() {
        // R(∞) is an LU solve with Ã, whose determinant falls to 6e-11 at s = 10 and 5e-21
        // at s = 16: measured |R(∞) − (−1)^(s−1)| = 9e-15 at s = 10, 2.4e-14 at s = 12,
        // 1.0e-14 at s = 16, so 1e-13 here. Every other condition holds to 1e-14.
        holds(&PartitionedTableau::<10>::lobatto_iiia_iiib(), 1e-13);
        holds(&PartitionedTableau::<12>::lobatto_iiia_iiib(), 1e-13);
        holds(&PartitionedTableau::<16>::lobatto_iiia_iiib(), 1e-13);
    }

    /// The pair's zeros are exactly where `model!`'s stage patterns
    /// (`macros/src/emit/stage_patterns.rs`) put them: IIIA's first row and IIIB's last
    /// column exactly zero (the assemblies skip a zero coefficient when they add, and
    /// the patterns leave those blocks out), and every other coefficient nonzero (else
    /// the patterns would hold more than the assemblies write).
    fn structural_zeros<const S: usize>() {
        let t = PartitionedTableau::<S>::lobatto_iiia_iiib();
        for i in 0..S {
            assert!(t.b[i] != 0.0 && t.b_hat[i] != 0.0, "s = {S}");
            for j in 0..S {
                assert_eq!(t.a[i][j] == 0.0, i == 0, "s = {S}: a[{i}][{j}]");
                assert_eq!(t.a_hat[i][j] == 0.0, j == S - 1, "s = {S}: â[{i}][{j}]");
            }
        }
    }

    #[test]
    fn structural_zeros_of_every_stage_count() {
        structural_zeros::<2>();
        structural_zeros::<3>();
        structural_zeros::<4>();
        structural_zeros::<5>();
        structural_zeros::<6>();
        structural_zeros::<7>();
        structural_zeros::<8>();
        structural_zeros::<9>();
        structural_zeros::<10>();
    }

    /// The closed forms and the computed path, entry by entry.
    fn max_difference<const S: usize>() -> f64 {
        let (x, y) = (
            PartitionedTableau::<S>::lobatto_iiia_iiib(),
            PartitionedTableau::<S>::lobatto_iiia_iiib_computed(),
        );
        let mut diff: f64 = 0.0;
        for i in 0..S {
            for j in 0..S {
                diff = diff.max((x.a[i][j] - y.a[i][j]).abs());
                diff = diff.max((x.a_hat[i][j] - y.a_hat[i][j]).abs());
            }
            diff = diff
                .max((x.b[i] - y.b[i]).abs())
                .max((x.b_hat[i] - y.b_hat[i]).abs());
            diff = diff.max((x.c[i] - y.c[i]).abs());
        }
        diff
    }

    #[test]
    fn closed_forms_agree_with_computed() {
        // Measured: 0, 1.1e-16, 2.2e-16, 6.7e-16 for s = 2..5.
        assert_eq!(max_difference::<2>(), 0.0);
        assert!(max_difference::<3>() <= TOL);
        assert!(max_difference::<4>() <= TOL);
        assert!(max_difference::<5>() <= TOL);
    }

    #[test]
    fn spot_values() {
        // Spec 002 §6 A.2.
        let t = PartitionedTableau::<3>::lobatto_iiia_iiib();
        let close = |x: &[f64], y: &[f64]| x.iter().zip(y).all(|(x, y)| (x - y).abs() <= TOL);
        assert!(close(&t.a[1], &[5.0 / 24.0, 1.0 / 3.0, -1.0 / 24.0]));
        assert!(close(&t.a_hat[0], &[1.0 / 6.0, -1.0 / 6.0, 0.0]));
        let c2 = PartitionedTableau::<4>::lobatto_iiia_iiib().c[1];
        assert!((c2 - 0.276_393_202_250_021).abs() <= 1e-16);
        assert!((PartitionedTableau::<4>::lobatto_iiia_iiib_computed().c[1] - c2).abs() <= 1e-16);
    }
}
