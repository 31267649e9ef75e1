//! The stabilised Livens schemes (EML, REML, Null-EML; the paper's forms are
//! `EmlPaper`, `RemlPaper`, `NullEmlPaper`): each unit quaternion's two hidden
//! constraints imposed at the nodes, `q·v = 0` and `q·p = 0`, without losing the
//! generalized energy, the momentum maps or `g = 0`.
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
//! * `μ` and `γ` are closed forms of the step's other values, so no unknown is added:
//!   with `v¹ = 2 (Δq/h − μ q^½) − v⁰` and `p¹ = 2 ∂̄_v T − 2 γ q^½ − p⁰`,
//!   `μ = (2 q¹·Δq/h − q¹·v⁰) / (2 q¹·q^½)` and `γ = (2 q¹·∂̄_v T − q¹·p⁰) / (2 q¹·q^½)`,
//!   each block's own (`∂̄_v T` does not depend on `γ`). Both are `O(h²)`: the step is
//!   the paper's to that order and stays second order (measured against RK4).
//!
//! A block is stabilised when the model has its unit norm, `c (q·q − 1)`, as a
//! constraint and its mass matrix is singular along it (`M(q) q_a = 0`, so that
//! `q·p = q·∂_v L = 0` is a hidden constraint). Other coordinates keep the paper's
//! equations.
use crate::ir::{CoordKind, Model, Role};
use crate::quantities::Quantities;
use crate::sym::{Graph, Id};

/// The stabilised quaternion blocks of a model (their offsets in `q`); empty for the
/// paper's forms.
pub(super) struct Hidden {
    offsets: Vec<usize>,
}

impl Hidden {
    /// The blocks of `model` to stabilise, or none (`stabilised = false`: the paper's
    /// equations).
    pub fn of(model: &Model, quantities: &Quantities, stabilised: bool) -> Self {
        let offsets = if stabilised {
            model
                .coords
                .iter()
                .filter(|c| c.kind == CoordKind::Quat)
                .map(|c| c.offset)
                .filter(|&o| unit_norm(model, o) && singular_along(model, quantities, o))
                .collect()
        } else {
            Vec::new()
        };
        Hidden { offsets }
    }

    pub fn is_empty(&self) -> bool {
        self.offsets.is_empty()
    }

    /// `μ_a = (2 q¹·Δq/h − q¹·v⁰) / (2 q¹·q^½)` per block: the value that makes (72a')'s
    /// `v¹` tangent, `q¹·v¹ = 0`.
    pub fn mu(&self, g: &mut Graph, q0: &[Id], q1: &[Id], v0: &[Id], h: Id) -> Vec<Id> {
        self.offsets
            .iter()
            .map(|&o| {
                let (a0, a1, w0) = (&q0[o..o + 4], &q1[o..o + 4], &v0[o..o + 4]);
                let dq: Vec<Id> = a1.iter().zip(a0).map(|(&x, &y)| g.sub(x, y)).collect();
                let two = g.constant(2.0);
                let s = g.dot(a1, &dq);
                let s = g.mul(two, s);
                let s = g.div(s, h);
                let t = g.dot(a1, w0);
                let num = g.sub(s, t);
                let den = denominator(g, a0, a1);
                g.div(num, den)
            })
            .collect()
    }

    /// `γ_a = (2 q¹·∂̄_v T − q¹·p⁰) / (2 q¹·q^½)` per block: the value that makes (72c')'s
    /// `p¹` tangent, `q¹·p¹ = 0`.
    pub fn gamma(&self, g: &mut Graph, q0: &[Id], q1: &[Id], p0: &[Id], dv_t: &[Id]) -> Vec<Id> {
        self.offsets
            .iter()
            .map(|&o| {
                let (a0, a1) = (&q0[o..o + 4], &q1[o..o + 4]);
                let two = g.constant(2.0);
                let s = g.dot(a1, &dv_t[o..o + 4]);
                let s = g.mul(two, s);
                let t = g.dot(a1, &p0[o..o + 4]);
                let num = g.sub(s, t);
                let den = denominator(g, a0, a1);
                g.div(num, den)
            })
            .collect()
    }

    /// The `d`-vector with `c_a x_a` in each stabilised block `a` and 0 elsewhere.
    pub fn along(&self, g: &mut Graph, c: &[Id], x: &[Id]) -> Vec<Id> {
        let mut out = vec![g.zero(); x.len()];
        for (&o, &ca) in self.offsets.iter().zip(c) {
            for i in o..o + 4 {
                out[i] = g.mul(ca, x[i]);
            }
        }
        out
    }
}

/// `2 q¹·q^½ = q¹·(q⁰ + q¹)`, near 2 for any step that does not turn the body by π.
fn denominator(g: &mut Graph, a0: &[Id], a1: &[Id]) -> Id {
    let sum: Vec<Id> = a0.iter().zip(a1).map(|(&x, &y)| g.add(x, y)).collect();
    g.dot(a1, &sum)
}

/// Sample points for the checks below: every coordinate away from special values.
fn points(d: usize) -> Vec<Vec<f64>> {
    (0..4)
        .map(|k| {
            (0..d)
                .map(|i| 0.3 + 0.7 * ((1.7 * (i as f64 + 1.0) + 2.3 * k as f64).sin()))
                .collect()
        })
        .collect()
}

fn value(model: &Model, e: Id, q: &[f64]) -> f64 {
    model.graph.eval(e, &|v| match model.role(v) {
        Role::Q(i) => q[i],
        Role::Param(k) => model.params[k].default,
        _ => f64::NAN,
    })
}

/// Whether one constraint is `c (q_a·q_a − 1)` with `c ≠ 0` constant, at the sample
/// points (every other coordinate varying too).
fn unit_norm(model: &Model, o: usize) -> bool {
    let pts = points(model.dim());
    model.constraints.iter().any(|con| {
        let ratios: Vec<f64> = pts
            .iter()
            .map(|q| {
                value(model, con.expr, q) / (q[o..o + 4].iter().map(|x| x * x).sum::<f64>() - 1.0)
            })
            .collect();
        ratios[0].is_finite()
            && ratios[0].abs() > 1e-12
            && ratios
                .iter()
                .all(|r| (r - ratios[0]).abs() <= 1e-12 * ratios[0].abs())
    })
}

/// Whether `M(q) q_a = 0` (the block's `q_a`, zero elsewhere) at the sample points, so
/// that `q_a·p_a = q_a·∂_v L = 0` holds on every motion.
fn singular_along(model: &Model, quantities: &Quantities, o: usize) -> bool {
    points(model.dim()).iter().all(|q| {
        let rows: Vec<Vec<f64>> = quantities
            .mass
            .iter()
            .map(|row| row.iter().map(|&e| value(model, e, q)).collect())
            .collect();
        let scale = rows.iter().flatten().fold(0.0f64, |s, x| s.max(x.abs()));
        scale.is_finite()
            && rows.iter().all(|row| {
                let mq: f64 = (0..4).map(|i| row[o + i] * q[o + i]).sum();
                mq.abs() <= 1e-12 * scale.max(1e-300)
            })
    })
}
