//! The stabilised Livens schemes (EML, REML, Null-EML; the paper's forms are
//! `EmlPaper`, `RemlPaper`, `NullEmlPaper`): the hidden constraints of every holonomic
//! constraint imposed at the nodes, `G(q) v = 0` and `G(q) p = const`, without losing
//! the generalized energy, the momentum maps or `g = 0`. Told for one unit quaternion
//! first (where it started), then in general.
//!
//! # Why
//!
//! A unit quaternion's mass matrix `M̃₄(q) = 4 GᵀJ₀G` is singular along `q` (eq. (46)),
//! so nothing in the paper's step fixes the component of the node velocity along `q`
//! except (72a): with `g(q⁰) = g(q¹) = 0` it gives `q^½·v^½ = 0` (eq. (94)), i.e.
//! `q¹·v¹ = −q⁰·v⁰ + ½ Δq·Δv` (Remark 4.8, eq. (95) with its sign restored). That
//! component alternates in sign from step to step, and it does not stay out of the
//! motion: `v¹ = (2/h) Δq − v⁰` carries `(q⁰·v⁰) q⁰` into `G(q¹) v¹`, hence into
//! `Ω^½` (88), since `G(q¹) q⁰ ≠ 0`. The coupling grows into a period-2 instability:
//! on the paper's free body (Sect. 5.3, `h = 0.05`) Newton fails at `t = 8.2` with
//! `|q·v| ≈ 35`, in the paper's equations written independently of this crate
//! (`docs/oracles/free_body_eml.py`) exactly as in ours. Momenta do the same
//! (`q¹·p¹ = −q⁰·p⁰ − q⁰·p¹ − q¹·p⁰`, from (72c) with `q^½·∂̄_v T = 0`).
//!
//! # The equations
//!
//! The Livens action with both hidden constraints of the block adjoined,
//!
//! ```text
//! S = ∫ L(q, v) + p·(q̇ − v − μ q) − λ g(q) − γ q·v dt,
//! ```
//!
//! gives `q̇ = v + μ q`, `ṗ = ∂_q L − λ q − μ p − γ v`, `p = ∂_v L − γ q`, `q·p = 0`,
//! `q·v = 0`; on solutions `μ = γ = 0` (with `q·q̇ = 0`), so it is the paper's system. Its
//! midpoint terms are bilinear, which keeps every proof of the paper:
//!
//! ```text
//! (72a') q¹ − q⁰ = h (v^½ + μ q^½)
//! (72b') p¹ − p⁰ = [paper's right-hand side] − h μ p^½ − h γ v^½
//! (72c') p^½     = ∂̄_v T − γ q^½
//!        0 = q¹·v¹,   0 = q¹·p¹
//! ```
//!
//! * Energy (Prop. 4.4's proof): the new terms add `−μ (Δp·q^½ + p^½·Δq) − γ (v^½·Δq +
//!   q^½·Δv) = −μ Δ(q·p) − γ Δ(q·v) = 0`, the two brackets being exact differences of
//!   the bilinear `q·p` and `q·v`, zero at both nodes.
//! * Momentum maps (Prop. 4.10's proof, eq. (99)): with `ξ⁺` skew, the `μ` terms add
//!   `−½ h μ (p^½·ξ⁺q^½ + q^½·ξ⁺p^½) = 0`, and the `γ` terms `−½ h γ v^½·ξ⁺q^½` through
//!   (72b') and `+½ h γ v^½·ξ⁺q^½` through (72c') in `−½ Δq·ξ⁺p^½`, which cancel.
//! * For one body `μ` and `γ` are closed forms of the step's other values (Null-EML,
//!   [`single_body_mu`], [`single_body_gamma`]). Both are `O(h²)`: the step is the
//!   paper's to that order and stays second order (measured against RK4).
//!
//! # Every constraint
//!
//! The unit norm is not the only one: on a double heavy top (`DoubleTop`) the joint's
//! velocity form `G_J(q) v` alternates at the nodes the same way and the node angular
//! velocities grow from 140 to 2900 rad/s in two seconds, `E` exact all along, until
//! Newton fails (at every `h` from 1e-2 to 1e-3; the independent implementation
//! `docs/oracles/double_top_eml.py` agrees). The same action with `μ·(G(q) p)` and
//! `γ·(G(q) v)` for all `m` constraints (`q̇ = v + Gᵀμ`, `p = ∂_v L − Gᵀγ`: on solutions
//! `μ = 0` and `p` is `∂_v L` less its part along the constraint normals, which leaves
//! the Lagrange equations with the multiplier `λ − γ̇`) discretises, for constraints of
//! degree ≤ 2 (`G(q) x` bilinear, `H_k` constant), to
//!
//! ```text
//! (72a') q¹ − q⁰ = h (v^½ + G(q^½)ᵀ μ)
//! (72b') p¹ − p⁰ = [paper's right-hand side] − h Σ_k (μ_k H_k p^½ + γ_k H_k v^½)
//! (72c') p^½     = ∂̄_v T − G(q^½)ᵀ γ
//!        0 = G(q¹) v¹,   0 = G(q¹) p¹ − G(q⁰) p⁰
//! ```
//!
//! whose energy balance gains `−μ·Δ(G(q) p) − γ·Δ(G(q) v) = 0` (bilinear identities
//! `Δ(G(q) x)_k = G_k(q^½)·Δx + x^½·H_k Δq`), with `μ`, `γ` unknowns of the step (`3d + 3m`
//! for EML, `d + 3m` for REML). Constraints of higher degree keep the paper's equations
//! (their `μ_k`, `γ_k` are set to 0 by trivial rows). For one unit quaternion the rows
//! are the closed forms above (Null-EML).
use crate::ir::Model;
use crate::quantities::Quantities;
use crate::sym::{Graph, Id};

use super::common::{at, hessian_contraction, mat_vec, Setup};
use super::discrete_gradient::half_sum;

/// Which constraints a stabilised Livens step holds at the nodes: those of degree ≤ 2
/// in `q` (none in the paper's forms).
pub(super) struct Hidden {
    rows: Vec<bool>,
}

impl Hidden {
    pub fn of(model: &Model, quantities: &Quantities, stabilised: bool) -> Self {
        let is_q = |v| model.is_q(v);
        let rows = quantities
            .g
            .iter()
            .map(|&g| stabilised && model.graph.degree(g, &is_q).is_some_and(|d| d <= 2))
            .collect();
        Hidden { rows }
    }

    /// The Jacobian `G(q)` of the stabilised constraints at `q`; zero rows elsewhere.
    fn jacobian_at(&self, model: &mut Model, setup: &Setup, q: &[Id]) -> Vec<Vec<Id>> {
        let zero = model.graph.zero();
        let jac = setup.qs.jac.clone();
        jac.iter()
            .zip(&self.rows)
            .map(|(row, &on)| {
                if on {
                    at(model, row, q, None)
                } else {
                    vec![zero; setup.d]
                }
            })
            .collect()
    }

    /// `G(q^½)ᵀ c`, the term of (72a') (`c = μ`) and (72c') (`c = γ`).
    pub fn normals(&self, model: &mut Model, setup: &Setup, q1: &[Id], c: &[Id]) -> Vec<Id> {
        let qm = half_sum(&mut model.graph, &setup.k.q, q1);
        let w = self.jacobian_at(model, setup, &qm);
        let g = &mut model.graph;
        (0..setup.d)
            .map(|i| {
                let terms: Vec<Id> = w
                    .iter()
                    .zip(c)
                    .map(|(row, &ck)| g.mul(row[i], ck))
                    .collect();
                g.sum(terms)
            })
            .collect()
    }

    /// `Σ_k (μ_k H_k p^½ + γ_k H_k v^½)`, (72b')'s term (without `h`).
    #[allow(clippy::too_many_arguments)]
    pub fn curvature(
        &self,
        model: &mut Model,
        setup: &Setup,
        q1: &[Id],
        v1: &[Id],
        p1: &[Id],
        mu: &[Id],
        gamma: &[Id],
    ) -> Vec<Id> {
        let k = &setup.k;
        let zero = model.graph.zero();
        let jac: Vec<Vec<Id>> = setup
            .qs
            .jac
            .iter()
            .zip(&self.rows)
            .map(|(row, &on)| if on { row.clone() } else { vec![zero; setup.d] })
            .collect();
        let g = &mut model.graph;
        let (qm, vm, pm) = (
            half_sum(g, &k.q, q1),
            half_sum(g, &k.v, v1),
            half_sum(g, &k.p, p1),
        );
        let a = hessian_contraction(model, &jac, mu, &pm, &qm);
        let b = hessian_contraction(model, &jac, gamma, &vm, &qm);
        a.iter()
            .zip(&b)
            .map(|(&x, &y)| model.graph.add(x, y))
            .collect()
    }

    /// The rows of `μ` and `γ`: `G(q¹) v¹ = 0` and `G(q¹) p¹ − G(q⁰) p⁰ = 0` for the
    /// stabilised constraints, `μ_k = 0` and `γ_k = 0` for the others.
    #[allow(clippy::too_many_arguments)]
    pub fn rows(
        &self,
        model: &mut Model,
        setup: &Setup,
        q1: &[Id],
        v1: &[Id],
        p1: &[Id],
        mu: &[Id],
        gamma: &[Id],
    ) -> [Vec<Id>; 2] {
        let k = &setup.k;
        let (w1, w0) = (
            self.jacobian_at(model, setup, q1),
            self.jacobian_at(model, setup, &k.q),
        );
        let gv = mat_vec(model, &w1, v1);
        let gp1 = mat_vec(model, &w1, p1);
        let gp0 = mat_vec(model, &w0, &k.p);
        let g = &mut model.graph;
        let mut rv = Vec::new();
        let mut rp = Vec::new();
        for (i, &on) in self.rows.iter().enumerate() {
            if on {
                rv.push(gv[i]);
                rp.push(g.sub(gp1[i], gp0[i]));
            } else {
                rv.push(mu[i]);
                rp.push(gamma[i]);
            }
        }
        [rv, rp]
    }
}

/// Null-EML's closed forms for its one unit quaternion `q` (the model's only
/// coordinate, its constraint `c (q·q − 1)`): with `v¹ = 2 (Δq/h − μ q^½) − v⁰`,
/// `μ = (2 q¹·Δq/h − q¹·v⁰) / (2 q¹·q^½)` gives `q¹·v¹ = 0`; with
/// `p¹ = 2 ∂̄_v T − 2 γ q^½ − p⁰`, `γ = (2 q¹·∂̄_v T − q¹·p⁰ − q⁰·p⁰) / (2 q¹·q^½)` gives
/// `q¹·p¹ = q⁰·p⁰`. The rows above with `G(q) = c qᵀ`, solved (`c` cancels).
pub(super) fn single_body_mu(g: &mut Graph, q0: &[Id], q1: &[Id], v0: &[Id], h: Id) -> Id {
    let dq: Vec<Id> = q1.iter().zip(q0).map(|(&x, &y)| g.sub(x, y)).collect();
    let two = g.constant(2.0);
    let s = g.dot(q1, &dq);
    let s = g.mul(two, s);
    let s = g.div(s, h);
    let t = g.dot(q1, v0);
    let num = g.sub(s, t);
    let den = denominator(g, q0, q1);
    g.div(num, den)
}

/// See [`single_body_mu`].
pub(super) fn single_body_gamma(g: &mut Graph, q0: &[Id], q1: &[Id], p0: &[Id], dv_t: &[Id]) -> Id {
    let two = g.constant(2.0);
    let s = g.dot(q1, dv_t);
    let s = g.mul(two, s);
    let t = g.dot(q1, p0);
    let u = g.dot(q0, p0);
    let num = g.sub(s, t);
    let num = g.sub(num, u);
    let den = denominator(g, q0, q1);
    g.div(num, den)
}

/// `2 q¹·q^½ = q¹·(q⁰ + q¹)`, near 2 for any step that does not turn the body by π.
fn denominator(g: &mut Graph, a0: &[Id], a1: &[Id]) -> Id {
    let sum: Vec<Id> = a0.iter().zip(a1).map(|(&x, &y)| g.add(x, y)).collect();
    g.dot(a1, &sum)
}
