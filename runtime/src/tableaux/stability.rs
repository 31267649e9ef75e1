//! The stability function at infinity, `R(∞)`, of a stiffly accurate tableau whose first
//! stage is explicit (Lobatto IIIA).
//!
//! Why not `1 − bᵀA⁻¹𝟙`: that formula needs `A` invertible, and under H1 (`a₁ⱼ = 0`)
//! the first row of `A` is zero. Derivation (spec 002 §3): split
//! `A = [[0, 0ᵀ], [α, Ã]]` with `α = (aᵢ₁)ᵢ≥₂` and `Ã = (aᵢⱼ)ᵢ,ⱼ≥₂` (invertible by
//! H2). Then `(I − zA)⁻¹𝟙 = (1, (I − zÃ)⁻¹(zα + 𝟙))`, and since
//! `(I − zÃ)⁻¹ = −Ã⁻¹/z + O(1/z²)`, the second block tends to `−Ã⁻¹α`. Under H3
//! (`a_sⱼ = bⱼ`) `R(z) = e_sᵀ(I − zA)⁻¹𝟙`, so `R(∞) = −(Ã⁻¹α)_last`. That is the last
//! component of the solution `x` of `M x = e₁` with `M = A + e₁e₁ᵀ = [[1, 0ᵀ], [α, Ã]]`:
//! one `S × S` LU solve, no reduced-size array (which const generics cannot spell).
use nalgebra::{SMatrix, SVector};

use super::Tableau;
use crate::solve::lu::Lu;

impl<const S: usize> Tableau<S> {
    /// `lim_{z→∞} e_sᵀ(I − zA)⁻¹𝟙` for a tableau with an explicit first stage
    /// (H1: `a₁ⱼ = 0` for all `j`): the value `R(∞)` of the stability function when the
    /// method is stiffly accurate (H3: `a_sⱼ = bⱼ`, not checked here; check it with
    /// `a[S − 1]` against `b`). `(−1)^(s−1)` for `s`-stage Lobatto IIIA.
    ///
    /// Returns `None` if the first row of `A` is not exactly zero, if `S = 0`, or if
    /// `Ã = (aᵢⱼ)ᵢ,ⱼ≥₂` is singular (H2 fails; the limit does not exist then).
    pub fn stability_at_infinity(&self) -> Option<f64> {
        if self.a.first()?.iter().any(|&x| x != 0.0) {
            return None;
        }
        let m = SMatrix::<f64, S, S>::from_fn(|i, j| match (i, j) {
            (0, 0) => 1.0,
            _ => self.a[i][j],
        });
        let mut x = SVector::<f64, S>::from_fn(|i, _| if i == 0 { 1.0 } else { 0.0 });
        Lu::factor(m).ok()?.solve_in_place(&mut x);
        x.as_slice().last().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trapezoidal_rule() {
        // Lobatto IIIA, s = 2: R(z) = (2 + z)/(2 − z) → −1.
        let t = Tableau {
            a: [[0.0, 0.0], [0.5, 0.5]],
            b: [0.5, 0.5],
            c: [0.0, 1.0],
        };
        assert_eq!(t.stability_at_infinity(), Some(-1.0));
    }

    #[test]
    fn explicit_euler_plus_implicit_stage() {
        // a = [[0, 0], [1 − θ, θ]]: R(z) = (1 + (1 − θ)z)/(1 − θz) → −(1 − θ)/θ.
        let theta = 0.25;
        let t = Tableau {
            a: [[0.0, 0.0], [1.0 - theta, theta]],
            b: [1.0 - theta, theta],
            c: [0.0, 1.0],
        };
        assert_eq!(t.stability_at_infinity(), Some(-3.0));
    }

    #[test]
    fn hypotheses_that_fail_give_none() {
        // Implicit midpoint: the first stage is implicit (H1 fails).
        let midpoint = Tableau {
            a: [[0.5]],
            b: [1.0],
            c: [0.5],
        };
        assert_eq!(midpoint.stability_at_infinity(), None);
        // Explicit trapezoidal (Heun): Ã = [0] is singular (H2 fails), R(z) = 1 + z + z²/2.
        let heun = Tableau {
            a: [[0.0, 0.0], [1.0, 0.0]],
            b: [0.5, 0.5],
            c: [0.0, 1.0],
        };
        assert_eq!(heun.stability_at_infinity(), None);
        let empty = Tableau::<0> {
            a: [],
            b: [],
            c: [],
        };
        assert_eq!(empty.stability_at_infinity(), None);
    }
}
