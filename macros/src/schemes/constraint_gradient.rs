//! Discrete derivatives of the holonomic constraints `g(q)` and of the velocity
//! constraints `gᵛ(q, p) = G(q) M⁻¹ p` for the energy–momentum schemes, for constraints
//! of any degree (Kinon, Betsch, Schneider, "The GGL variational principle for
//! constrained mechanical systems", Sect. 5, eqs. (84)–(91); spec 000 §2.6; the
//! invariant-based form of spec 001 §2.1).
//!
//! A constraint is split into additive terms as the potential is
//! (`discrete_gradient`): terms written in declared (quadratic) invariants get
//! derivatives in the invariants' space carried back by `∇π(q^½)`, which are orthogonal
//! to every symmetry generator, so the momentum maps stay exact; the other terms get
//! Gonzalez's formula in the coordinates (eq. (71) of the Livens paper), which keeps
//! the energy only. Terms of degree ≤ 2 get the midpoint derivatives, where every
//! formula here reduces to the paper's `𝖣g = G(q^½)`, `𝖣_p gᵛ = G(q^½) M⁻¹`,
//! `𝖣_q gᵛ = (H_k M⁻¹ p^½)ᵀ` row by row.
use super::common::at;
use super::discrete_gradient::{
    add_along_invariants, expanded_sum, gonzalez_in, half_sum, invariant_space_gradient,
    split_by_invariants,
};
use crate::ir::Model;
use crate::sym::{Id, VarId};

/// Whether every constraint is written in the coordinates only with degree ≤ 2: the
/// paper's case, where the midpoint derivatives are exact and the schemes keep their
/// original (midpoint) form.
pub fn midpoint_exact(model: &Model) -> bool {
    let is_q = |v| model.is_q(v);
    let is_inv = |v| model.invariants.iter().any(|i| i.var == v);
    model.constraints_raw.iter().all(|&c| {
        !model.graph.depends_on_any(c, is_inv)
            && model.graph.degree(c, &is_q).is_some_and(|d| d <= 2)
    })
}

/// `𝖣g_k(q⁰, q¹)` for every constraint, rows of the discrete Jacobian: directional,
/// `𝖣g_k · (q¹ − q⁰) = g_k(q¹) − g_k(q⁰)` (eq. (86c)), and orthogonal to the declared
/// symmetries (eq. (85c)) when written in invariants.
pub fn constraint_gradients(model: &mut Model, q0: &[Id], q1: &[Id]) -> Vec<Vec<Id>> {
    (0..model.n_constraints())
        .map(|k| constraint_gradient(model, k, q0, q1))
        .collect()
}

fn constraint_gradient(model: &mut Model, k: usize, q0: &[Id], q1: &[Id]) -> Vec<Id> {
    let qv = model.q.clone();
    let (groups, rest) = split_by_invariants(model, model.constraints_raw[k]);
    if groups.is_empty() {
        // No invariants: Gonzalez in q (the midpoint gradient for degree ≤ 2).
        let gk = model.constraints[k].expr;
        return gonzalez_in(model, gk, &qv, q0, q1);
    }
    let rest_g = expanded_sum(model, rest);
    let mut total = gonzalez_in(model, rest_g, &qv, q0, q1);
    let qm = half_sum(&mut model.graph, q0, q1);
    for (uses, terms) in groups {
        let phi = model.graph.sum(terms);
        let coefs = invariant_space_gradient(model, phi, &uses, q0, q1);
        add_along_invariants(model, &mut total, &uses, &coefs, &qm);
    }
    total
}

/// The discrete derivatives of the velocity constraints `gᵛ_k(q, p) = ∇g_k(q) · w`,
/// `w = M⁻¹ p`, as the rows `(𝖣_q gᵛ_k, a_k)` with `𝖣_p gᵛ_k = a_k M⁻¹`, given
/// `w⁰ = M⁻¹ p⁰` and `w¹ = M⁻¹ p¹`.
///
/// # What the scheme needs of them
///
/// EM (eq. (84)) with `v` eliminated reads
/// `Δq = h M⁻¹ p^½ + h (𝖣_p gᵛ)ᵀ γ`, `Δp = −h 𝖣V − h 𝖣gᵀ λ − h (𝖣_q gᵛ)ᵀ γ`. With
/// `E = ½ p·M⁻¹p + V` and `M⁻¹ p^½ = Δq/h − (𝖣_p gᵛ)ᵀ γ` (M symmetric),
///
/// ```text
/// ΔE = M⁻¹p^½·Δp + 𝖣V·Δq = Δq·Δp/h − γ·𝖣_p gᵛ Δp + 𝖣V·Δq
///    = −λ·𝖣g Δq − γ·(𝖣_q gᵛ Δq + 𝖣_p gᵛ Δp)          (eqs. (87)–(89))
///    = −λ·Δg − γ·Δgᵛ = 0,
/// ```
///
/// using the directionality of `𝖣V` and `𝖣g` (eqs. (86a), (86c)), the partitioned
/// directionality of `gᵛ` in `(q, p)` (eq. (86b)), and `g = gᵛ = 0` at both nodes
/// ((84d), (84e)). So (86b) is all the energy needs, and `(𝖣_p gᵛ)ᵀ` (not `M⁻¹ 𝖣gᵀ`)
/// must be the matrix in (84a). The momentum map `J = p·ξq` changes by
/// `−h [𝖣V·ξq^½ + λ·𝖣g ξq^½ + γ·(𝖣_q gᵛ ξq^½ − 𝖣_p gᵛ ξᵀp^½)]` (eqs. (90)–(91)): it
/// also needs the orthogonality (85b), since `γ¹` is small but not zero.
///
/// # The construction
///
/// `gᵛ` is linear in `w`; split its increment at the means (`x^½ = ½(x⁰ + x¹)`):
///
/// ```text
/// ∇g(q¹)·w¹ − ∇g(q⁰)·w⁰ = ½(∇g(q⁰) + ∇g(q¹))·Δw + (∇g(q¹) − ∇g(q⁰))·w^½.
/// ```
///
/// A term `f` of `g` in the coordinates: `a = ½(∇f(q⁰) + ∇f(q¹))` (exact in `w`), and
/// `𝖣_q gᵛ` the Gonzalez gradient in `q` of `χ(q) = ∇f(q)·w^½` (`w^½` frozen), whose
/// directionality is the second term. Both are consistent (`∇gᵛ` at `q⁰ = q¹`) and
/// symmetric, so the scheme stays second order.
///
/// A term `φ(π(q))` in quadratic invariants `π_j`: `gᵛ = Σ_j ∂_jφ(π) σ_j` with the
/// bilinear invariants `σ_j(q, w) = ∇π_j(q)·w` of the joint action on `(q, w)`. The same
/// split in `(π, σ)` gives `ā_j = ½(∂_jφ(π⁰) + ∂_jφ(π¹))` as the coefficient of `Δσ_j`,
/// and the discrete derivative `c` in the invariants' space (the Greenspan quotient
/// (126) for one invariant, Gonzalez for several) of `χ(π) = Σ_j ∂_jφ(π) σ_j^½` with
/// `σ_j^½ = ½(σ_j(q⁰, w⁰) + σ_j(q¹, w¹))`. Bilinearity makes
/// `Δσ_j = H_j w^½·Δq + ∇π_j(q^½)·Δw` exact (`H_j` the constant Hessian of `π_j`), so
///
/// ```text
/// 𝖣_q gᵛ = Σ_j c_j ∇π_j(q^½) + ā_j H_j w^½,      a = Σ_j ā_j ∇π_j(q^½)
/// ```
///
/// are directional, and (85b) holds: `∇π_j·ξq = 0`, and what remains is
/// `Σ_j ā_j (∂_qσ_j ξq^½ + ∂_wσ_j ξw^½) = 0`, the invariance of `σ_j`, given that
/// `M⁻¹ ξᵀ = −ξ M⁻¹` (the symmetry condition (41a) on the kinetic energy). With the
/// constraint derivative `𝖣g = Σ_j c'_j ∇π_j(q^½)` of the same invariants ((85c)), the
/// momentum maps are exact.
pub fn velocity_constraint_gradients(
    model: &mut Model,
    q0: &[Id],
    q1: &[Id],
    w0: &[Id],
    w1: &[Id],
) -> (Vec<Vec<Id>>, Vec<Vec<Id>>) {
    (0..model.n_constraints())
        .map(|k| velocity_constraint_gradient(model, k, q0, q1, w0, w1))
        .unzip()
}

fn velocity_constraint_gradient(
    model: &mut Model,
    k: usize,
    q0: &[Id],
    q1: &[Id],
    w0: &[Id],
    w1: &[Id],
) -> (Vec<Id>, Vec<Id>) {
    let (groups, rest) = split_by_invariants(model, model.constraints_raw[k]);
    let f = if groups.is_empty() {
        model.constraints[k].expr
    } else {
        expanded_sum(model, rest)
    };
    let wm = half_sum(&mut model.graph, w0, w1);
    let (mut dq, mut a) = coordinate_parts(model, f, q0, q1, &wm);
    for (uses, terms) in groups {
        let phi = model.graph.sum(terms);
        invariant_parts(model, phi, &uses, [q0, q1], [w0, w1], &mut dq, &mut a);
    }
    (dq, a)
}

/// `(𝖣_q gᵛ, a)` of a term `f(q)`: Gonzalez in `q` of `∇f(q)·w^½`, and the mean of
/// `∇f` at the nodes (`∇f(q^½)`, the same, for degree ≤ 2).
fn coordinate_parts(
    model: &mut Model,
    f: Id,
    q0: &[Id],
    q1: &[Id],
    wm: &[Id],
) -> (Vec<Id>, Vec<Id>) {
    let qv = model.q.clone();
    let grad = model.graph.gradient(f, &qv);
    let is_q = |v| model.is_q(v);
    let a = if model.graph.degree(f, &is_q).is_some_and(|d| d <= 2) {
        let qm = half_sum(&mut model.graph, q0, q1);
        at(model, &grad, &qm, None)
    } else {
        let (g0, g1) = (at(model, &grad, q0, None), at(model, &grad, q1, None));
        half_sum(&mut model.graph, &g0, &g1)
    };
    let chi = model.graph.dot(&grad, wm);
    let dq = gonzalez_in(model, chi, &qv, q0, q1);
    (dq, a)
}

/// Adds `(𝖣_q gᵛ, a)` of a term `φ(π_uses)` to `dq` and `a` (see
/// [`velocity_constraint_gradients`]).
fn invariant_parts(
    model: &mut Model,
    phi: Id,
    uses: &[usize],
    [q0, q1]: [&[Id]; 2],
    [w0, w1]: [&[Id]; 2],
    dq: &mut [Id],
    a: &mut [Id],
) {
    let qv = model.q.clone();
    let qm = half_sum(&mut model.graph, q0, q1);
    let wm = half_sum(&mut model.graph, w0, w1);
    let vars: Vec<VarId> = uses.iter().map(|&j| model.invariants[j].var).collect();
    let exprs: Vec<Id> = uses.iter().map(|&j| model.invariants[j].expr).collect();
    let (pi0, pi1) = (at(model, &exprs, q0, None), at(model, &exprs, q1, None));
    // ∂_jφ, in the invariant variables and at π⁰, π¹.
    let dphi: Vec<Id> = vars.iter().map(|&v| model.graph.diff(phi, v)).collect();
    let at_pi = |model: &mut Model, pi: &[Id]| {
        let map = vars.iter().copied().zip(pi.iter().copied()).collect();
        model.graph.substitute(&dphi, &map)
    };
    let (dphi0, dphi1) = (at_pi(model, &pi0), at_pi(model, &pi1));
    let abar = half_sum(&mut model.graph, &dphi0, &dphi1);
    // σ_j^½ and χ(π) = Σ_j ∂_jφ(π) σ_j^½.
    let mut chi_terms = Vec::new();
    let mut hess_w = Vec::new();
    for (&e, &d) in exprs.iter().zip(&dphi) {
        let grad = model.graph.gradient(e, &qv);
        let (g0, g1) = (at(model, &grad, q0, None), at(model, &grad, q1, None));
        let (s0, s1) = (model.graph.dot(&g0, w0), model.graph.dot(&g1, w1));
        let sm = half_sum(&mut model.graph, &[s0], &[s1])[0];
        chi_terms.push(model.graph.mul(d, sm));
        // H_j w^½ = ∇_q (∇π_j(q)·w^½), constant in q for a quadratic π_j.
        let sigma_m = model.graph.dot(&grad, &wm);
        let h = model.graph.gradient(sigma_m, &qv);
        hess_w.push(at(model, &h, &qm, None));
    }
    let chi = model.graph.sum(chi_terms);
    let c = invariant_space_gradient(model, chi, uses, q0, q1);
    add_along_invariants(model, dq, uses, &c, &qm);
    add_along_invariants(model, a, uses, &abar, &qm);
    for (&aj, hw) in abar.iter().zip(&hess_w) {
        for (t, &hi) in dq.iter_mut().zip(hw) {
            let s = model.graph.mul(aj, hi);
            *t = model.graph.add(*t, s);
        }
    }
}
