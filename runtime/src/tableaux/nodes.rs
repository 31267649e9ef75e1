//! Gauss–Lobatto nodes and Gauss–Legendre rules on [0, 1], by Newton's method on the
//! Legendre three-term recurrence.
//!
//! Why Newton on the recurrence: it needs no allocation and no eigenvalue solver, and
//! from the Chebyshev starting points below it converges quadratically to the intended
//! root (every root found, in order, in at most 6 steps, for every size tested up to
//! `S = 40`). Accuracy: residuals at the rounding level and (5 − √5)/10 to 1e-16 (tests
//! below); the iteration runs in `x ∈ [−1, 1]` and maps by `(1 + x)/2`, exact for
//! `x ≤ −1/2`, so the small nodes keep their digits.
use nalgebra::ComplexField;

/// Newton steps at most. The Chebyshev guesses need at most 6 (measured up to `S = 40`);
/// the cap only bounds the loop should an update ever stall above the stopping test.
const MAX_NEWTON: usize = 50;

/// `[Pₙ(x), Pₙ'(x), Pₙ''(x)]` by `(k+1) Pₖ₊₁ = (2k+1) x Pₖ − k Pₖ₋₁` and its derivatives
/// `P'ₖ₊₁ = P'ₖ₋₁ + (2k+1) Pₖ`, `P''ₖ₊₁ = P''ₖ₋₁ + (2k+1) P'ₖ` (no division by `1 − x²`,
/// so the endpoints are harmless).
fn legendre(n: usize, x: f64) -> [f64; 3] {
    let mut prev = [1.0, 0.0, 0.0]; // P₀
    if n == 0 {
        return prev;
    }
    let mut cur = [x, 1.0, 0.0]; // P₁
    for k in 1..n {
        let kf = k as f64;
        let m = 2.0 * kf + 1.0;
        let next = [
            (m * x * cur[0] - kf * prev[0]) / (kf + 1.0),
            prev[1] + m * cur[0],
            prev[2] + m * cur[1],
        ];
        prev = cur;
        cur = next;
    }
    cur
}

/// The root of `f` near `x` by Newton's method, `derivatives(x) = [f(x), f'(x)]`.
fn newton(mut x: f64, derivatives: impl Fn(f64) -> [f64; 2]) -> f64 {
    for _ in 0..MAX_NEWTON {
        let [f, df] = derivatives(x);
        let dx = f / df;
        x -= dx;
        if dx.abs() <= 2.0 * f64::EPSILON {
            // Quadratic convergence: the next update would be below the rounding level.
            break;
        }
    }
    x
}

/// The `S` Gauss–Lobatto nodes on [0, 1]: `c₁ = 0`, `c_S = 1` and, between them, the
/// zeros of `P'_{S−1}(2x − 1)`, increasing and symmetric (`cᵢ + c_{S+1−i} = 1` exactly,
/// computed for the left half and mirrored). For `S = 1` the single node is 0.
pub(crate) fn lobatto<const S: usize>() -> [f64; S] {
    let mut c = [0.0; S];
    lobatto_into(&mut c);
    c
}

/// [`lobatto`] with as many nodes as `c` has entries, for sizes known at run time (the
/// Galerkin tables' `s + 1` control points).
pub(crate) fn lobatto_into(c: &mut [f64]) {
    let len = c.len();
    let n = len.saturating_sub(1);
    c.fill(0.0);
    for (i, ci) in c.iter_mut().enumerate().skip(1) {
        *ci = if 2 * i < n {
            // Left half: Newton on P'ₙ from the Chebyshev–Gauss–Lobatto point.
            let guess = -ComplexField::cos(core::f64::consts::PI * i as f64 / n as f64);
            let x = newton(guess, |x| {
                let [_, d1, d2] = legendre(n, x);
                [d1, d2]
            });
            0.5 * (1.0 + x)
        } else if 2 * i == n {
            0.5 // x = 0 is a root of P'ₙ for even n.
        } else {
            f64::NAN // The right half and c_S, set below.
        };
    }
    for i in 0..len / 2 {
        let mirrored = 1.0 - c[i];
        c[len - 1 - i] = mirrored;
    }
}

/// The weights of the Gauss–Lobatto rule on the nodes `c` of [`lobatto_into`] (at least
/// two): `1/(n(n + 1) P_n(2cᵢ − 1)²)` with `n = len − 1` (on [−1, 1] the classical
/// `2/(n(n + 1) P_n(xᵢ)²)`, halved for [0, 1]). Exact for polynomials of degree
/// `2 len − 3`.
pub(crate) fn lobatto_weights_into(c: &[f64], weights: &mut [f64]) {
    let n = c.len() - 1;
    let scale = (n * (n + 1)) as f64;
    for (w, &ci) in weights.iter_mut().zip(c) {
        let p = legendre(n, 2.0 * ci - 1.0)[0];
        *w = 1.0 / (scale * p * p);
    }
}

/// The `S`-point Gauss–Legendre rule on [0, 1] as `(nodes, weights)`: nodes the zeros of
/// `P_S(2x − 1)`, increasing; weights `1/((1 − x²) P'_S(x)²)`. Exact for polynomials of
/// degree `2S − 1`; the weights are positive, so the rule sums without cancellation.
pub(crate) fn gauss_legendre<const S: usize>() -> ([f64; S], [f64; S]) {
    let mut nodes = [0.0; S];
    let mut weights = [0.0; S];
    gauss_legendre_into(&mut nodes, &mut weights);
    (nodes, weights)
}

/// [`gauss_legendre`] with as many nodes as `nodes` has entries (and `weights` as
/// many), for sizes known at run time.
pub(crate) fn gauss_legendre_into(nodes: &mut [f64], weights: &mut [f64]) {
    let s = nodes.len();
    for (k, (t, w)) in nodes.iter_mut().zip(weights).enumerate() {
        // Tricomi's guess for the (k+1)-th smallest zero of P_S.
        let angle = core::f64::consts::PI * (k as f64 + 0.75) / (s as f64 + 0.5);
        let x = newton(-ComplexField::cos(angle), |x| {
            let [p, d1, _] = legendre(s, x);
            [p, d1]
        });
        let d1 = legendre(s, x)[1];
        *t = 0.5 * (1.0 + x);
        *w = 1.0 / ((1.0 - x * x) * d1 * d1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legendre_matches_closed_forms() {
        // P₃ = (5x³ − 3x)/2, P₃' = (15x² − 3)/2, P₃'' = 15x.
        let x = 0.3;
        let [p, d1, d2] = legendre(3, x);
        assert!((p - (5.0 * x * x * x - 3.0 * x) / 2.0).abs() <= 1e-16);
        assert!((d1 - (15.0 * x * x - 3.0) / 2.0).abs() <= 1e-15);
        assert!((d2 - 15.0 * x).abs() <= 1e-15);
        assert_eq!(legendre(0, x), [1.0, 0.0, 0.0]);
    }

    /// Lobatto nodes of every size are increasing, symmetric, and roots of P'_{S−1}.
    fn check_lobatto<const S: usize>() {
        let c = lobatto::<S>();
        assert_eq!((c[0], c[S - 1]), (0.0, 1.0));
        for i in 0..S {
            assert_eq!(c[i] + c[S - 1 - i], 1.0, "S = {S}, i = {i}");
            if i > 0 {
                assert!(c[i] > c[i - 1], "S = {S}: not increasing at {i}");
                if i < S - 1 {
                    let d1 = legendre(S - 1, 2.0 * c[i] - 1.0)[1];
                    // |P'ₙ| ≤ n(n+1)/2 on [−1, 1]: relative to that scale, a root.
                    assert!(d1.abs() <= 1e-14 * (S * S) as f64, "S = {S}: {d1}");
                }
            }
        }
    }

    /// Gauss–Legendre rules integrate tᵐ exactly up to m = 2S − 1; for t^(2S) they miss
    /// by the classical error term (S!)⁴ / ((2S + 1) ((2S)!)²).
    fn check_gauss<const S: usize>() {
        let (t, w) = gauss_legendre::<S>();
        let mut power = [1.0; S];
        for m in 0..=2 * S {
            let sum: f64 = w.iter().zip(&power).map(|(w, p)| w * p).sum();
            let defect = (sum - 1.0 / (m as f64 + 1.0)).abs();
            if m < 2 * S {
                assert!(defect <= 1e-15, "S = {S}, m = {m}: {defect:e}");
            } else {
                let factorial = |n: usize| (1..=n).map(|k| k as f64).product::<f64>();
                let (f, g) = (factorial(S), factorial(2 * S));
                let error = f * f * f * f / ((2 * S + 1) as f64 * g * g);
                assert!((defect - error).abs() <= 1e-9 * error + 1e-15, "S = {S}");
            }
            power.iter_mut().zip(&t).for_each(|(p, t)| *p *= t);
        }
        assert!(t.windows(2).all(|p| p[0] < p[1]) && t[0] > 0.0 && t[S - 1] < 1.0);
    }

    #[test]
    fn lobatto_nodes() {
        assert_eq!(lobatto::<1>(), [0.0]);
        assert_eq!(lobatto::<2>(), [0.0, 1.0]);
        assert_eq!(lobatto::<3>(), [0.0, 0.5, 1.0]);
        // (5 − √5)/10 to the last digit.
        assert!((lobatto::<4>()[1] - 0.276_393_202_250_021).abs() <= 1e-16);
        check_lobatto::<4>();
        check_lobatto::<5>();
        check_lobatto::<7>();
        check_lobatto::<12>();
        check_lobatto::<40>();
    }

    /// Lobatto rules of `n` nodes integrate tᵐ exactly up to m = 2n − 3, not t^(2n−2).
    #[test]
    fn lobatto_rules() {
        for n in 2..=8 {
            let (mut c, mut w) = ([0.0; 8], [0.0; 8]);
            lobatto_into(&mut c[..n]);
            lobatto_weights_into(&c[..n], &mut w[..n]);
            let mut power = [1.0; 8];
            for m in 0..=2 * n - 2 {
                let sum: f64 = (0..n).map(|i| w[i] * power[i]).sum();
                power.iter_mut().zip(&c).for_each(|(p, c)| *p *= c);
                let defect = (sum - 1.0 / (m as f64 + 1.0)).abs();
                if m <= 2 * n - 3 {
                    assert!(defect <= 1e-15, "n = {n}, m = {m}: {defect:e}");
                } else {
                    // The classical error term: 1.7e-6 at n = 6, 6.5e-9 at n = 8.
                    assert!(defect >= 1e-9, "n = {n}: exact at m = {m}");
                }
            }
        }
        // The trapezoidal rule and Simpson's.
        let (mut c, mut w) = ([0.0; 3], [0.0; 3]);
        lobatto_into(&mut c);
        lobatto_weights_into(&c, &mut w);
        assert_eq!(c, [0.0, 0.5, 1.0]);
        assert!((w[0] - 1.0 / 6.0).abs() <= 1e-16 && (w[1] - 2.0 / 3.0).abs() <= 1e-16);
    }

    #[test]
    fn gauss_legendre_rules() {
        check_gauss::<1>();
        check_gauss::<2>();
        check_gauss::<5>();
        check_gauss::<8>();
        check_gauss::<12>();
        let (t, w) = gauss_legendre::<40>();
        assert!((w.iter().sum::<f64>() - 1.0).abs() <= 1e-14);
        assert!(t.windows(2).all(|p| p[0] < p[1]));
    }
}
