//! The tables of a Galerkin variational integrator (Wenger, Ober-Blöbaum, Leyendecker,
//! "Construction and analysis of higher order variational integrators for dynamical
//! systems with holonomic constraints", seed `003_7c34c28b0df0e267.txt`, §3; spec
//! `next_packages.md` §B.2–B.3): on each step the positions are a polynomial of degree
//! `s` through `s + 1` control points, the Lagrangian is integrated by a quadrature rule
//! of `r` nodes, the multipliers are a polynomial of degree `w` whose control points are
//! the `w + 1` Lobatto nodes, and the constraint integral is the Lobatto rule on them.
//!
//! ```text
//! q_d(τ) = Σ_ν q^ν ℓ_ν(τ),   ℓ_ν the Lagrange basis on d₀ = 0 < d₁ < … < d_s = 1
//! Q_i = q_d(c_i),  V_i = (1/h) Σ_ν q^ν ℓ̇_ν(c_i)                   quadrature (c_i, b_i)
//! X_a = q_d(f_a)                                                   Lobatto (f_a, e_a), a = 0 … w
//! ```
//!
//! The control points `d` are the `s + 1` Lobatto nodes: in exact arithmetic the scheme
//! does not depend on them (the paper's Thm 1 is stated for any symmetric choice), and
//! the Lobatto nodes keep the Lagrange basis well conditioned (spec `next_packages.md`
//! §B.2). The basis is evaluated in product form, never through a Vandermonde matrix.
//!
//! Sizes: `S = s` (the unknown control points `q¹ … qˢ`), `W = w`, `R = r`, as const
//! generics, so that every table is a fixed array; the control and multiplier points
//! (`s + 1` and `w + 1` of them) are stored in [`MAX_POINTS`] slots, of which the first
//! `S + 1` (`W + 1`) are used.
use super::nodes;
use super::same;

/// Slots for the `s + 1` control points and the `w + 1` multiplier points: degrees up to 7.
pub const MAX_POINTS: usize = 8;

/// The quadrature rule of the Lagrangian's integral.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quadrature {
    /// Gauss–Legendre with `r` nodes, exact to degree `2r − 1` (ordL = 2r).
    Gauss,
    /// Gauss–Lobatto with `r ≥ 2` nodes, exact to degree `2r − 3` (ordL = 2r − 2).
    Lobatto,
}

impl Quadrature {
    /// The rule's name, as `model!` spells it.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Gauss => "Gauss",
            Self::Lobatto => "Lobatto",
        }
    }

    /// The rule named `name` as `model!` spells it (a choice of the catalogue's
    /// `Quadrature`, `livens::schemes::Gauss`'s name), if there is one.
    pub const fn named(name: &str) -> Option<Self> {
        if same(name, Self::Gauss.name()) {
            Some(Self::Gauss)
        } else if same(name, Self::Lobatto.name()) {
            Some(Self::Lobatto)
        } else {
            None
        }
    }

    /// Its order as a quadrature rule with `r` nodes (the paper's ordL).
    pub const fn order(self, r: usize) -> usize {
        match self {
            Self::Gauss => 2 * r,
            Self::Lobatto => 2 * r - 2,
        }
    }
}

/// The order of `Galerkin(s, w, rule, r)` in `q`, and so in the state's `p` and `λ`,
/// which are recomputed from `q` (the projected momentum (4), the multiplier (70)): the
/// paper's Thm 2 and Tables 1–2 (spec `next_packages.md` §B.4, §B.7). With
/// `ordL = rule.order(r)`, `min(ordL, 2w)` while the multipliers keep up with the
/// positions (`s ≤ w + 1`), else `max(2, 2(2w − s + 1))`: the constraint, met at only
/// `w` points, caps the positions. For an admissible combination ([`admissible`]).
pub const fn galerkin_order(s: usize, w: usize, rule: Quadrature, r: usize) -> u32 {
    let order = if s <= w + 1 {
        let ord_l = rule.order(r);
        if ord_l < 2 * w {
            ord_l
        } else {
            2 * w
        }
    } else if 2 * w + 1 > s {
        let capped = 2 * (2 * w + 1 - s);
        if capped > 2 {
            capped
        } else {
            2
        }
    } else {
        2
    };
    order as u32
}

/// Why a combination `(s, w, rule, r)` has no Galerkin integrator (the paper's Thm 1 and
/// §4: "does not work" outside these bounds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inadmissible {
    /// The degree of the positions is 0 or above `MAX_POINTS − 1`.
    Degree,
    /// `w` outside `1 ≤ w ≤ s`: the multipliers' polynomial would have more control
    /// points than the positions' can satisfy constraints at.
    MultiplierDegree,
    /// `r < s` (or a Lobatto rule of fewer than 2 nodes): the quadrature cannot determine
    /// the `s` unknown control points.
    TooFewNodes,
}

impl core::fmt::Display for Inadmissible {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::Degree => "the degree s of the positions must be in 1..=7",
            Self::MultiplierDegree => "the degree w of the multipliers must satisfy 1 ≤ w ≤ s",
            Self::TooFewNodes => "the quadrature must have r ≥ s nodes (and r ≥ 2 for Lobatto)",
        })
    }
}

/// Whether `(s, w, rule, r)` is a Galerkin integrator of the paper ([`Inadmissible`]).
pub const fn admissible(
    s: usize,
    w: usize,
    rule: Quadrature,
    r: usize,
) -> Result<(), Inadmissible> {
    if s == 0 || s >= MAX_POINTS {
        Err(Inadmissible::Degree)
    } else if w == 0 || w > s {
        Err(Inadmissible::MultiplierDegree)
    } else if r < s || (matches!(rule, Quadrature::Lobatto) && r < 2) {
        Err(Inadmissible::TooFewNodes)
    } else {
        Ok(())
    }
}

/// The tables of one Galerkin scheme with positions of degree `S`, multipliers of degree
/// `W` and an `R`-node rule for the Lagrangian (module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GalerkinTable<const S: usize, const W: usize, const R: usize> {
    /// The Lagrangian's rule.
    pub rule: Quadrature,
    /// The control points `d₀ = 0 … d_S = 1` (the first `S + 1` slots).
    pub control: [f64; MAX_POINTS],
    /// The quadrature nodes `cᵢ` on [0, 1].
    pub c: [f64; R],
    /// The quadrature weights `bᵢ`.
    pub b: [f64; R],
    /// `basis[i][ν] = ℓ_ν(cᵢ)`, `ν = 0 … S`.
    pub basis: [[f64; MAX_POINTS]; R],
    /// `slope[i][ν] = ℓ̇_ν(cᵢ)`, the derivative in `τ`.
    pub slope: [[f64; MAX_POINTS]; R],
    /// The multiplier points `f₀ = 0 … f_W = 1`, the `W + 1` Lobatto nodes (the paper's
    /// `f₁ … f_{w+1}`).
    pub f: [f64; MAX_POINTS],
    /// Their Lobatto weights `e₀ … e_W`.
    pub e: [f64; MAX_POINTS],
    /// `at_multiplier[a][ν] = ℓ_ν(f_a)`.
    pub at_multiplier: [[f64; MAX_POINTS]; MAX_POINTS],
}

impl<const S: usize, const W: usize, const R: usize> GalerkinTable<S, W, R> {
    /// The tables for the rule `rule`, or why `(S, W, rule, R)` is not a scheme.
    pub fn new(rule: Quadrature) -> Result<Self, Inadmissible> {
        admissible(S, W, rule, R)?;
        let mut control = [0.0; MAX_POINTS];
        nodes::lobatto_into(&mut control[..=S]);
        let (mut c, mut b) = ([0.0; R], [0.0; R]);
        match rule {
            Quadrature::Gauss => nodes::gauss_legendre_into(&mut c, &mut b),
            Quadrature::Lobatto => {
                nodes::lobatto_into(&mut c);
                nodes::lobatto_weights_into(&c, &mut b);
            }
        }
        let (mut f, mut e) = ([0.0; MAX_POINTS], [0.0; MAX_POINTS]);
        nodes::lobatto_into(&mut f[..=W]);
        nodes::lobatto_weights_into(&f[..=W], &mut e[..=W]);
        let points = &control[..=S];
        let mut basis = [[0.0; MAX_POINTS]; R];
        let mut slope = [[0.0; MAX_POINTS]; R];
        for i in 0..R {
            for nu in 0..=S {
                basis[i][nu] = lagrange(points, nu, c[i]);
                slope[i][nu] = lagrange_slope(points, nu, c[i]);
            }
        }
        let mut at_multiplier = [[0.0; MAX_POINTS]; MAX_POINTS];
        for (row, &fa) in at_multiplier.iter_mut().zip(&f).take(W + 1) {
            for (nu, value) in row.iter_mut().enumerate().take(S + 1) {
                *value = lagrange(points, nu, fa);
            }
        }
        Ok(Self {
            rule,
            control,
            c,
            b,
            basis,
            slope,
            f,
            e,
            at_multiplier,
        })
    }
}

/// `ℓ_ν(τ) = Π_{μ≠ν} (τ − d_μ)/(d_ν − d_μ)`.
fn lagrange(d: &[f64], nu: usize, tau: f64) -> f64 {
    let mut value = 1.0;
    for (mu, &dm) in d.iter().enumerate() {
        if mu != nu {
            value *= (tau - dm) / (d[nu] - dm);
        }
    }
    value
}

/// `ℓ̇_ν(τ) = Σ_{κ≠ν} 1/(d_ν − d_κ) Π_{μ≠ν,κ} (τ − d_μ)/(d_ν − d_μ)`: the product rule,
/// without a division by `τ − d_μ`, so exact at the control points too.
fn lagrange_slope(d: &[f64], nu: usize, tau: f64) -> f64 {
    let mut sum = 0.0;
    for (kappa, &dk) in d.iter().enumerate() {
        if kappa == nu {
            continue;
        }
        let mut term = 1.0 / (d[nu] - dk);
        for (mu, &dm) in d.iter().enumerate() {
            if mu != nu && mu != kappa {
                term *= (tau - dm) / (d[nu] - dm);
            }
        }
        sum += term;
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Σ_ν ℓ_ν = 1 and Σ_ν d_ν^m ℓ_ν(τ) = τ^m (m ≤ s) at every node, and the slopes
    /// reproduce the derivatives: the basis interpolates polynomials of degree s exactly.
    fn check<const S: usize, const W: usize, const R: usize>(rule: Quadrature) {
        let t = GalerkinTable::<S, W, R>::new(rule).unwrap();
        let pow = |x: f64, m: usize| (0..m).fold(1.0, |p, _| p * x);
        for m in 0..=S {
            for i in 0..R {
                let (mut value, mut slope) = (0.0, 0.0);
                for nu in 0..=S {
                    value += pow(t.control[nu], m) * t.basis[i][nu];
                    slope += pow(t.control[nu], m) * t.slope[i][nu];
                }
                let exact_slope = if m == 0 {
                    0.0
                } else {
                    m as f64 * pow(t.c[i], m - 1)
                };
                assert!((value - pow(t.c[i], m)).abs() <= 1e-14, "S {S} m {m}");
                assert!((slope - exact_slope).abs() <= 1e-12, "S {S} m {m}: {slope}");
            }
            for a in 0..=W {
                let value: f64 = (0..=S)
                    .map(|nu| pow(t.control[nu], m) * t.at_multiplier[a][nu])
                    .sum();
                assert!((value - pow(t.f[a], m)).abs() <= 1e-14);
            }
        }
        // The rules integrate 1 and the multiplier points run from 0 to 1.
        assert!((t.b.iter().sum::<f64>() - 1.0).abs() <= 1e-15);
        assert!((t.e[..=W].iter().sum::<f64>() - 1.0).abs() <= 1e-15);
        assert_eq!(
            (t.f[0], t.f[W], t.control[0], t.control[S]),
            (0.0, 1.0, 0.0, 1.0)
        );
    }

    #[test]
    fn tables_interpolate_and_integrate() {
        check::<1, 1, 2>(Quadrature::Lobatto);
        check::<1, 1, 1>(Quadrature::Gauss);
        check::<2, 2, 2>(Quadrature::Gauss);
        check::<3, 2, 3>(Quadrature::Lobatto);
        check::<4, 4, 5>(Quadrature::Lobatto);
        check::<6, 6, 6>(Quadrature::Gauss);
        check::<7, 7, 8>(Quadrature::Lobatto);
    }

    /// Table 1 (Gauss, any `r ≥ s`; Lobatto with `r ≥ s + 1` the same) and Table 2
    /// (Lobatto with `r = s`) of the paper, row `w`, column `s`.
    #[test]
    fn orders_are_the_papers_tables() {
        use Quadrature::{Gauss, Lobatto};
        #[rustfmt::skip]
        let table_1: [(usize, &[(usize, u32)]); 6] = [
            (1, &[(1, 2), (2, 2), (3, 2), (4, 2), (5, 2), (6, 2)]),
            (2, &[(2, 4), (3, 4), (4, 2), (5, 2), (6, 2)]),
            (3, &[(3, 6), (4, 6), (5, 4), (6, 2)]),
            (4, &[(4, 8), (5, 8), (6, 6)]),
            (5, &[(5, 10), (6, 10)]),
            (6, &[(6, 12)]),
        ];
        for (w, row) in table_1 {
            for &(s, order) in row {
                for r in s..=8 {
                    assert_eq!(
                        galerkin_order(s, w, Gauss, r),
                        order,
                        "Gauss ({s}, {w}, {r})"
                    );
                }
                for r in s + 1..=8 {
                    assert_eq!(
                        galerkin_order(s, w, Lobatto, r),
                        order,
                        "Lobatto ({s}, {w}, {r})"
                    );
                }
            }
        }
        #[rustfmt::skip]
        let table_2: [((usize, usize), u32); 15] = [
            ((2, 2), 2), ((3, 2), 4), ((3, 3), 4), ((4, 3), 6), ((4, 4), 6),
            ((5, 4), 8), ((5, 5), 8), ((6, 5), 10), ((6, 6), 10),
            ((4, 2), 2), ((5, 2), 2), ((6, 2), 2), ((5, 3), 4), ((6, 3), 2), ((6, 4), 6),
        ];
        for ((s, w), order) in table_2 {
            assert_eq!(
                galerkin_order(s, w, Lobatto, s),
                order,
                "Lobatto ({s}, {w}, {s})"
            );
        }
    }

    #[test]
    fn rules_are_named_as_model_spells_them() {
        for rule in [Quadrature::Gauss, Quadrature::Lobatto] {
            assert_eq!(Quadrature::named(rule.name()), Some(rule));
        }
        assert_eq!(Quadrature::named("Radau"), None);
        assert_eq!(Quadrature::named("Gaus"), None);
    }

    #[test]
    fn inadmissible_combinations_are_refused() {
        use Quadrature::{Gauss, Lobatto};
        assert_eq!(
            admissible(2, 3, Gauss, 2),
            Err(Inadmissible::MultiplierDegree)
        );
        assert_eq!(
            admissible(2, 0, Gauss, 2),
            Err(Inadmissible::MultiplierDegree)
        );
        assert_eq!(admissible(3, 2, Gauss, 2), Err(Inadmissible::TooFewNodes));
        assert_eq!(admissible(1, 1, Lobatto, 1), Err(Inadmissible::TooFewNodes));
        assert_eq!(admissible(0, 1, Gauss, 1), Err(Inadmissible::Degree));
        assert_eq!(admissible(8, 1, Gauss, 8), Err(Inadmissible::Degree));
        assert!(admissible(1, 1, Gauss, 1).is_ok() && admissible(6, 5, Lobatto, 6).is_ok());
        assert!(GalerkinTable::<3, 4, 3>::new(Gauss).is_err());
    }
}
