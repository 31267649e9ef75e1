//! Small dense linear algebra for the checks at sample points: one Gaussian elimination,
//! the least-norm solution of an underdetermined system (the symmetry check and the
//! sampled rank checks) and a Cholesky test of positive definiteness (the mass checks).

/// The solution of `a x = b` by Gaussian elimination with partial pivoting; `None` if a
/// pivot is (numerically) zero or not finite.
pub fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let n = b.len();
    for k in 0..n {
        let p = (k..n).max_by(|&i, &j| a[i][k].abs().total_cmp(&a[j][k].abs()))?;
        if a[p][k].abs() <= 1e-300 || !a[p][k].is_finite() {
            return None;
        }
        a.swap(k, p);
        b.swap(k, p);
        let pivot_row = a[k].clone();
        for i in k + 1..n {
            let f = a[i][k] / pivot_row[k];
            for (x, p) in a[i][k..].iter_mut().zip(&pivot_row[k..]) {
                *x -= f * p;
            }
            b[i] -= f * b[k];
        }
    }
    for k in (0..n).rev() {
        let s: f64 = (k + 1..n).map(|j| a[k][j] * b[j]).sum();
        b[k] = (b[k] - s) / a[k][k];
    }
    b.iter().all(|x| x.is_finite()).then_some(b)
}

/// `Gᵀ (G Gᵀ + μ I)⁻¹ y` for the rows `g` of `G`, with `μ = ridge · trace(G Gᵀ) / m`:
/// the smallest `x` with `G x = y` (`ridge = 0`), or a step that stays defined where `G`
/// loses rank (`ridge > 0`). `None` if the system is singular.
pub fn min_norm(g: &[&[f64]], y: &[f64], ridge: f64) -> Option<Vec<f64>> {
    let m = y.len();
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
    let mut a: Vec<Vec<f64>> = (0..m)
        .map(|i| (0..m).map(|j| dot(g[i], g[j])).collect())
        .collect();
    if ridge > 0.0 {
        let trace: f64 = (0..m).map(|i| a[i][i]).sum();
        let mu = ridge * trace.max(f64::MIN_POSITIVE) / m as f64;
        for (i, row) in a.iter_mut().enumerate() {
            row[i] += mu;
        }
    }
    let z = solve(a, y.to_vec())?;
    let d = g.first().map_or(0, |r| r.len());
    Some(
        (0..d)
            .map(|i| (0..m).map(|k| g[k][i] * z[k]).sum())
            .collect(),
    )
}

/// Cholesky, column by column, of a symmetric matrix: the first pivot `≤ 0` (or NaN), at
/// its column, or `None` when the matrix is positive definite (an empty one is).
pub fn nonpositive_pivot(a: &[Vec<f64>]) -> Option<(usize, f64)> {
    let n = a.len();
    let mut l = vec![vec![0.0; n]; n];
    for j in 0..n {
        let pivot = a[j][j] - (0..j).map(|k| l[j][k] * l[j][k]).sum::<f64>();
        if pivot.is_nan() || pivot <= 0.0 {
            return Some((j, pivot));
        }
        l[j][j] = pivot.sqrt();
        for i in j + 1..n {
            l[i][j] = (a[i][j] - (0..j).map(|k| l[i][k] * l[j][k]).sum::<f64>()) / l[j][j];
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn least_norm_solutions() {
        // x + y = 2: the least-norm solution is (1, 1).
        let g: [&[f64]; 1] = [&[1.0, 1.0]];
        let x = min_norm(&g, &[2.0], 0.0).unwrap();
        assert!((x[0] - 1.0).abs() < 1e-15 && (x[1] - 1.0).abs() < 1e-15);
        // A zero row is singular without a ridge and defined with one.
        let g: [&[f64]; 1] = [&[0.0, 0.0]];
        assert!(min_norm(&g, &[1.0], 0.0).is_none());
        assert!(
            solve(vec![vec![0.0, 1.0], vec![2.0, 0.0]], vec![3.0, 4.0]) == Some(vec![2.0, 3.0])
        );
    }
}
