//! The order conditions of a Runge–Kutta method, one per rooted tree (Butcher; Hairer,
//! Nørsett, Wanner, Solving Ordinary Differential Equations I, Sect. II.2, Thm 2.13):
//! the method has order `p` iff `Σᵢ bᵢ Φᵢ(t) = 1/γ(t)` for every rooted tree `t` with
//! at most `p` vertices, where `Φᵢ` is the tree's elementary weight at stage `i` and
//! `γ(t)` its density, the product of the sizes of its subtrees.
//!
//! Trees are enumerated as level sequences (the depth of each vertex in a depth-first
//! walk, the root at depth 1), one canonical sequence per tree, by the successor rule of
//! Beyer and Hedetniemi, "Constant time generation of rooted trees" (SIAM J. Comput.
//! 9, 1980): start from the path `(1, 2, …, n)`; let `p` be the last position whose
//! depth exceeds 2 and `q` the last position before it one level up; repeat the
//! segment `q..p` from `p` on; stop at the star `(1, 2, …, 2)`. Fixed arrays, no
//! allocation: the runtime is `no_std`.
use super::Tableau;

/// The largest tree size the conditions are checked for: order 8 (115 trees of 8
/// vertices, 200 trees in all), beyond any explicit tableau a user gives by hand.
pub const MAX_ORDER: usize = 8;

/// The rooted trees with `n` vertices as level sequences, each passed to `visit`.
fn for_each_tree(n: usize, visit: &mut impl FnMut(&[u8])) {
    let mut level = [0u8; MAX_ORDER];
    for (i, l) in level.iter_mut().enumerate().take(n) {
        *l = i as u8 + 1;
    }
    loop {
        visit(&level[..n]);
        let Some(p) = (1..n).rev().find(|&i| level[i] > 2) else {
            return;
        };
        let q = (0..p)
            .rev()
            .find(|&i| level[i] == level[p] - 1)
            .expect("a vertex one level up precedes every vertex below the root");
        for i in p..n {
            level[i] = level[i - (p - q)];
        }
    }
}

/// `(Σᵢ bᵢ Φᵢ(t), 1/γ(t))` for the tree with level sequence `level`.
fn condition<const S: usize>(tableau: &Tableau<S>, level: &[u8]) -> (f64, f64) {
    let n = level.len();
    // phi[k][i]: the elementary weight of the subtree at vertex k, at stage i — the
    // product over k's children c of (A Φ(c))ᵢ; size[k]: that subtree's vertex count.
    let mut phi = [[1.0; S]; MAX_ORDER];
    let mut size = [1usize; MAX_ORDER];
    let mut density = 1.0;
    // Children follow their parent in the sequence, so a backward sweep completes
    // every subtree before it is folded into its parent.
    for k in (0..n).rev() {
        density *= size[k] as f64;
        if k == 0 {
            break;
        }
        let parent = (0..k)
            .rev()
            .find(|&j| level[j] + 1 == level[k])
            .expect("every vertex but the root has a parent before it");
        let child = phi[k];
        for (i, weight) in phi[parent].iter_mut().enumerate() {
            let a_phi: f64 = (0..S).map(|j| tableau.a[i][j] * child[j]).sum();
            *weight *= a_phi;
        }
        size[parent] += size[k];
    }
    let sum = (0..S).map(|i| tableau.b[i] * phi[0][i]).sum();
    (sum, 1.0 / density)
}

/// The number of rooted trees with `n` vertices (1, 1, 2, 4, 9, 20, 48, 115 for
/// `n = 1..=8`), for the tests of the enumeration.
#[cfg(test)]
fn tree_count(n: usize) -> usize {
    let mut count = 0;
    for_each_tree(n, &mut |_| count += 1);
    count
}

impl<const S: usize> Tableau<S> {
    /// The largest defect `|Σᵢ bᵢ Φᵢ(t) − 1/γ(t)|` over the rooted trees with at most
    /// `p` vertices (`p ≤` [`MAX_ORDER`]): zero up to round-off iff the method has
    /// order `p` on autonomous systems. `0.0` for `p = 0`.
    ///
    /// # Panics
    ///
    /// If `p > MAX_ORDER`.
    pub fn order_defect(&self, p: usize) -> f64 {
        assert!(
            p <= MAX_ORDER,
            "order conditions are enumerated up to {MAX_ORDER}"
        );
        let mut defect: f64 = 0.0;
        for n in 1..=p {
            for_each_tree(n, &mut |level| {
                let (sum, exact) = condition(self, level);
                defect = defect.max((sum - exact).abs());
            });
        }
        defect
    }

    /// The largest `p ≤` [`MAX_ORDER`] whose order conditions all hold to `tolerance`
    /// (absolute, on each condition): the method's classical order. `0` if not even
    /// consistency `Σ bᵢ = 1` holds.
    pub fn order(&self, tolerance: f64) -> usize {
        (1..=MAX_ORDER)
            .take_while(|&p| self.order_defect(p) <= tolerance)
            .last()
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_enumeration_finds_every_rooted_tree_once() {
        // OEIS A000081.
        let counts: [usize; MAX_ORDER] = core::array::from_fn(|n| tree_count(n + 1));
        assert_eq!(counts, [1, 1, 2, 4, 9, 20, 48, 115]);
    }

    #[test]
    fn densities_of_the_trees_of_order_four() {
        // The four trees of order 4 (Hairer–Nørsett–Wanner, Table II.2.1), γ the
        // product of the subtree sizes: the path 4·3·2·1 = 24; a child with two leaves
        // 4·3 = 12; a leaf and a child with a leaf 4·2 = 8; the star 4.
        let t = Tableau::<1> {
            a: [[0.0]],
            b: [1.0],
            c: [0.0],
        };
        let mut densities = [0.0; 4];
        let mut k = 0;
        for_each_tree(4, &mut |level| {
            densities[k] = 1.0 / condition(&t, level).1;
            k += 1;
        });
        densities.sort_by(f64::total_cmp);
        assert_eq!(densities, [4.0, 8.0, 12.0, 24.0]);
    }

    #[test]
    fn the_built_in_tableaux_have_their_orders() {
        let tol = 1e-14;
        assert_eq!(Tableau::euler().order(tol), 1);
        assert_eq!(Tableau::heun2().order(tol), 2);
        assert_eq!(Tableau::kutta3().order(tol), 3);
        assert_eq!(Tableau::rk4().order(tol), 4);
        for t in [
            Tableau::heun2().row_sum_defect(),
            Tableau::kutta3().row_sum_defect(),
        ] {
            assert_eq!(t, 0.0);
        }
        assert_eq!(Tableau::rk4().row_sum_defect(), 0.0);
        assert!(Tableau::rk4().is_explicit());
        // A condition of order 5 fails by at least the tall tree's: bᵀA⁴𝟙 = 0 for four
        // explicit stages, against 1/γ = 1/120.
        assert!(Tableau::rk4().order_defect(5) >= 1.0 / 120.0 - 1e-15);
    }

    #[test]
    fn implicit_tableaux_of_known_order() {
        // Lobatto IIIA with s stages has order 2s − 2; the midpoint rule order 2.
        assert_eq!(Tableau::<3>::lobatto_iiia().order(1e-13), 4);
        assert_eq!(Tableau::<4>::lobatto_iiia().order(1e-13), 6);
        assert!(!Tableau::<3>::lobatto_iiia().is_explicit());
        let midpoint = Tableau {
            a: [[0.5]],
            b: [1.0],
            c: [0.5],
        };
        assert_eq!(midpoint.order(0.0), 2);
    }

    #[test]
    fn a_wrong_weight_is_seen() {
        // RK4 with its weights swapped between stages 1 and 2 keeps Σ b = 1 only:
        // Σ b c = 1/12 + 1/6 + 1/6 = 5/12 against 1/2.
        let mut t = Tableau::rk4();
        t.b = [1.0 / 3.0, 1.0 / 6.0, 1.0 / 3.0, 1.0 / 6.0];
        assert_eq!(t.order(1e-14), 1);
        assert!((t.order_defect(2) - 1.0 / 12.0).abs() < 1e-15);
    }
}
