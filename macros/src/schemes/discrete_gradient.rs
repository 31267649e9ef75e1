//! Discrete gradients `𝖣V(q⁰, q¹)` of the potential for the energy–momentum schemes
//! (spec 000 §2.6). They satisfy directionality, `𝖣V · (q¹ − q⁰) = V(q¹) − V(q⁰)`, which
//! makes the energy exact, and are second-order perturbations of `∇V(q^½)`.
//!
//! The potential as written is split into additive terms:
//! * terms in declared invariants only, grouped by the invariants they use: a group of
//!   one invariant gets the Greenspan quotient (126),
//!   `[Ṽ(π¹) − Ṽ(π⁰)] / (π¹ − π⁰) · ∇π(q^½)`; a group of several gets the Gonzalez
//!   formula in the invariants' space. Because each invariant is quadratic,
//!   `∇π(q^½) · Δq = Δπ` exactly (directionality), and `∇π` is orthogonal to the
//!   symmetry generators (momentum maps conserved);
//! * all other terms: the midpoint gradient if they have degree ≤ 2 (exact), else the
//!   Gonzalez formula in the coordinates, which keeps the energy but not, in general,
//!   the momentum maps (the warning of spec 000 §2.6).
//!
//! Each quotient has a small-increment branch (`SelectLt`) with the midpoint derivative,
//! where the quotient would cancel catastrophically; its Jacobian is exact on both sides.
use std::collections::{BTreeMap, HashMap};

use super::common::at;
use crate::ir::Model;
use crate::sym::{Graph, Id, Node, VarId};

/// Squared increment below which the quotients switch to the midpoint derivative,
/// relative to `1 + (midpoint value)²`: the quotient's rounding error grows like
/// `ε/|Δ|` and the midpoint's directionality error like `|Δ|³`; `|Δ| ≈ 1e-6` balances
/// them far below the step's own error in double precision.
const SMALL: f64 = 1e-12;

/// `𝖣V(q⁰, q¹)`, given `∇V` in the model's coordinates and `q^½`.
pub fn discrete_gradient_v(
    model: &mut Model,
    grad_v: &[Id],
    q0: &[Id],
    q1: &[Id],
    qm: &[Id],
) -> Vec<Id> {
    let (groups, rest) = split_by_invariants(model, model.potential_raw);
    if groups.is_empty() {
        return coordinate_gradient(model, model.potential, grad_v, q0, q1, qm);
    }
    let rest_v = expanded_sum(model, rest);
    let qv = model.q.clone();
    let rest_grad = model.graph.gradient(rest_v, &qv);
    let mut total = coordinate_gradient(model, rest_v, &rest_grad, q0, q1, qm);
    for (uses, terms) in groups {
        let w = model.graph.sum(terms);
        let coefs = invariant_space_gradient(model, w, &uses, q0, q1);
        add_along_invariants(model, &mut total, &uses, &coefs, qm);
    }
    total
}

/// Additive terms grouped by the invariants they use, and the other terms.
pub(super) type Split = (BTreeMap<Vec<usize>, Vec<Id>>, Vec<Id>);

/// The additive terms of `raw` (an expression in the coordinates and the declared
/// invariants) written in invariants only, grouped by the set of invariants they use,
/// and the other terms.
pub(super) fn split_by_invariants(model: &mut Model, raw: Id) -> Split {
    let inv_vars: Vec<VarId> = model.invariants.iter().map(|i| i.var).collect();
    let mut groups: BTreeMap<Vec<usize>, Vec<Id>> = BTreeMap::new();
    let mut rest: Vec<Id> = Vec::new();
    for term in additive_terms(&mut model.graph, raw) {
        let uses: Vec<usize> = (0..inv_vars.len())
            .filter(|&k| model.graph.depends_on(term, inv_vars[k]))
            .collect();
        // A term in the coordinates or velocities themselves is not one of the
        // invariants' (velocities occur in a kinetic energy only).
        let direct = model
            .graph
            .depends_on_any(term, |v| model.is_q(v) || model.is_v(v));
        if uses.is_empty() || direct {
            rest.push(term);
        } else {
            groups.entry(uses).or_default().push(term);
        }
    }
    (groups, rest)
}

/// The sum of `terms` with the invariants replaced by their definitions: a function of
/// the coordinates.
pub(super) fn expanded_sum(model: &mut Model, terms: Vec<Id>) -> Id {
    let expand: HashMap<VarId, Id> = model.invariants.iter().map(|i| (i.var, i.expr)).collect();
    let sum = model.graph.sum(terms);
    model.graph.substitute(&[sum], &expand)[0]
}

/// `total += Σ_j coefs_j ∇π_{uses_j}(q^½)`: a discrete derivative in the invariants'
/// space carried back to the coordinates. `∇π(q^½)·Δq = Δπ` exactly for a quadratic
/// `π` (directionality), and `∇π·ξ_Q = 0` for every symmetry `ξ` (orthogonality).
pub(super) fn add_along_invariants(
    model: &mut Model,
    total: &mut [Id],
    uses: &[usize],
    coefs: &[Id],
    qm: &[Id],
) {
    let qv = model.q.clone();
    for (&k, &c) in uses.iter().zip(coefs) {
        let expr = model.invariants[k].expr;
        let grad = model.graph.gradient(expr, &qv);
        let grad_m = at(model, &grad, qm, None);
        for (t, gi) in total.iter_mut().zip(grad_m) {
            let s = model.graph.mul(c, gi);
            *t = model.graph.add(*t, s);
        }
    }
}

/// [`split_by_invariants`] with each group summed and the other terms' sum expanded.
pub fn invariant_groups(model: &mut Model, raw: Id) -> (Id, Vec<(Vec<usize>, Id)>) {
    let (groups, rest) = split_by_invariants(model, raw);
    let rest = expanded_sum(model, rest);
    let groups = groups
        .into_iter()
        .map(|(uses, terms)| (uses, model.graph.sum(terms)))
        .collect();
    (rest, groups)
}

/// The terms of a sum, through `Add` nodes and through negations and constant
/// multiples of sums (`c·(a + b)` is the terms `c·a`, `c·b`), so that the split does
/// not depend on how the simplifier arranged the sum: it factors `½a + ½b` into
/// `½(a + b)`, which counted as one term using the invariants of both. Without
/// recursion: a sum written out can have thousands of terms.
fn additive_terms(g: &mut Graph, e: Id) -> Vec<Id> {
    let mut terms = Vec::new();
    let mut stack = vec![(1.0, e)];
    while let Some((c, x)) = stack.pop() {
        match g.node(x) {
            Node::Add(a, b) => {
                stack.push((c, b));
                stack.push((c, a));
            }
            Node::Neg(a) if matches!(g.node(a), Node::Add(..)) => stack.push((-c, a)),
            Node::Mul(k, a)
                if matches!(g.node(a), Node::Add(..))
                    && g.as_const(k).is_some_and(|k| (c * k).is_finite()) =>
            {
                stack.push((c * g.as_const(k).unwrap_or(1.0), a));
            }
            _ => {
                let k = g.constant(c);
                terms.push(g.mul(k, x));
            }
        }
    }
    terms
}

/// The discrete gradient of `f` in the variables `vars` between `x⁰` and `x¹` (other
/// variables of `f` left as they are): the midpoint gradient `∇f(x^½)` if `f` has degree
/// ≤ 2 in `vars` (exact: its Gonzalez correction vanishes), else Gonzalez's formula (71)
/// of the Livens paper with its small-increment branch.
pub fn gonzalez_in(model: &mut Model, f: Id, vars: &[VarId], x0: &[Id], x1: &[Id]) -> Vec<Id> {
    let g = &mut model.graph;
    let grad: Vec<Id> = vars.iter().map(|&v| g.diff(f, v)).collect();
    let xm = half_sum(g, x0, x1);
    let subst = |g: &mut Graph, e: &[Id], at: &[Id]| {
        let map: HashMap<VarId, Id> = vars.iter().copied().zip(at.iter().copied()).collect();
        g.substitute(e, &map)
    };
    let gm = subst(g, &grad, &xm);
    if g.degree(f, &|x| vars.contains(&x))
        .is_some_and(|deg| deg <= 2)
    {
        return gm;
    }
    let f0 = subst(g, &[f], x0)[0];
    let f1 = subst(g, &[f], x1)[0];
    gonzalez(g, &gm, f0, f1, x0, x1)
}

/// Discrete gradient of `v` in the coordinates: the midpoint gradient for degree ≤ 2,
/// else Gonzalez's `∇V(q^½) + (V(q¹) − V(q⁰) − ∇V(q^½)·Δq) / |Δq|² Δq`.
fn coordinate_gradient(
    model: &mut Model,
    v: Id,
    grad_v: &[Id],
    q0: &[Id],
    q1: &[Id],
    qm: &[Id],
) -> Vec<Id> {
    let gm = at(model, grad_v, qm, None);
    let is_q = |x| model.is_q(x);
    if model.graph.degree(v, &is_q).is_some_and(|deg| deg <= 2) {
        return gm;
    }
    let v0 = at(model, &[v], q0, None)[0];
    let v1 = at(model, &[v], q1, None)[0];
    gonzalez(&mut model.graph, &gm, v0, v1, q0, q1)
}

/// `½ (a + b)`, elementwise: the midpoint as every discrete gradient here forms it.
pub fn half_sum(g: &mut Graph, a: &[Id], b: &[Id]) -> Vec<Id> {
    let half = g.constant(0.5);
    a.iter()
        .zip(b)
        .map(|(&x, &y)| {
            let s = g.add(x, y);
            g.mul(half, s)
        })
        .collect()
}

/// `∇W(x^½) + (W(x¹) − W(x⁰) − ∇W(x^½)·Δx) / |Δx|² Δx`, or `∇W(x^½)` when
/// `|Δx|² < SMALL (1 + |x^½|²)`.
fn gonzalez(g: &mut Graph, gm: &[Id], w0: Id, w1: Id, x0: &[Id], x1: &[Id]) -> Vec<Id> {
    let dx: Vec<Id> = x1.iter().zip(x0).map(|(&a, &b)| g.sub(a, b)).collect();
    let dx2 = g.dot(&dx, &dx);
    let xm = half_sum(g, x0, x1);
    let xm2 = g.dot(&xm, &xm);
    let one = g.one();
    let small = g.constant(SMALL);
    let scale = g.add(one, xm2);
    let threshold = g.mul(small, scale);
    let slope = g.dot(gm, &dx);
    let dw = g.sub(w1, w0);
    let num = g.sub(dw, slope);
    let coef = g.div(num, dx2);
    gm.iter()
        .zip(&dx)
        .map(|(&gi, &di)| {
            let corr = g.mul(coef, di);
            let full = g.add(gi, corr);
            g.select_lt(dx2, threshold, gi, full)
        })
        .collect()
}

/// The discrete derivative of `w` (a function of the invariants `uses` only) with
/// respect to each of them, between `q⁰` and `q¹`: the Greenspan quotient for one
/// invariant (spec 000 eq. (126)), Gonzalez in the invariants' space for several.
pub(super) fn invariant_space_gradient(
    model: &mut Model,
    w: Id,
    uses: &[usize],
    q0: &[Id],
    q1: &[Id],
) -> Vec<Id> {
    let vars: Vec<VarId> = uses.iter().map(|&k| model.invariants[k].var).collect();
    let exprs: Vec<Id> = uses.iter().map(|&k| model.invariants[k].expr).collect();
    let pi0 = at(model, &exprs, q0, None);
    let pi1 = at(model, &exprs, q1, None);
    let g = &mut model.graph;
    let pim = half_sum(g, &pi0, &pi1);
    let subst = |g: &mut Graph, e: &[Id], at: &[Id]| {
        let map: HashMap<VarId, Id> = vars.iter().copied().zip(at.iter().copied()).collect();
        g.substitute(e, &map)
    };
    let grad_w: Vec<Id> = vars.iter().map(|&v| g.diff(w, v)).collect();
    let grad_m = subst(g, &grad_w, &pim);
    let w0 = subst(g, &[w], &pi0)[0];
    let w1 = subst(g, &[w], &pi1)[0];
    if vars.len() == 1 {
        // Greenspan: (W(π¹) − W(π⁰)) / (π¹ − π⁰), W'(π^½) for a small increment.
        let d = g.sub(pi1[0], pi0[0]);
        let d2 = g.mul(d, d);
        let pm2 = g.mul(pim[0], pim[0]);
        let one = g.one();
        let scale = g.add(one, pm2);
        let small = g.constant(SMALL);
        let threshold = g.mul(small, scale);
        let dw = g.sub(w1, w0);
        let quotient = g.div(dw, d);
        return vec![g.select_lt(d2, threshold, grad_m[0], quotient)];
    }
    gonzalez(g, &grad_m, w0, w1, &pi0, &pi1)
}
