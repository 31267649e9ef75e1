//! EML, the energy–momentum scheme from the Livens principle (Kinon, Betsch, "Conserving
//! integration of multibody systems with singular and non-constant mass matrix including
//! quaternion-based rigid body dynamics", Sect. 4.2, eqs. (72a–d); spec 001 §2.2), for
//! any Lagrangian `L = T(q, v) − V(q)`: the mass matrix may depend on `q` and be singular,
//! and it is never inverted. Unknowns `x = (q¹, v¹, p¹, λ)`:
//!
//! ```text
//! (72a) 0 = q¹ − q⁰ − h v^½
//! (72b) 0 = p¹ − p⁰ − h ∂̄_q T + h ∇̄V + h ∇̄gᵀ λ − h F(q^½, v^½, tⁿ + h/2)
//! (72c) 0 = p^½ − ∂̄_v T
//! (72d) 0 = g(q¹)
//! ```
//!
//! with the partitioned discrete derivatives of App. A, eqs. (129)–(131),
//!
//! ```text
//! ∂̄_q T = ½ (∂̄_q T|v⁰ + ∂̄_q T|v¹),   ∂̄_q T|v = Gonzalez gradient of T(·, v) from q⁰ to q¹,
//! ∂̄_v T = ½ (∂̄_v T|q⁰ + ∂̄_v T|q¹),   ∂̄_v T|q = Gonzalez gradient of T(q, ·) from v⁰ to v¹,
//! ```
//!
//! each the midpoint gradient where `T` has degree ≤ 2 in that argument (so
//! `∂̄_v T = ½ (M(q⁰) + M(q¹)) v^½`, eq. (83), for a kinetic energy quadratic in `v`), the
//! invariant-based discrete gradient `∇̄V` of the GGL schemes, and Gonzalez gradients
//! `∇̄g` of the constraints (the midpoint gradient for degree ≤ 2; invariant-based for
//! constraints written in declared invariants). Directionality of every one makes the
//! generalized energy `E = p·v − T + V` (eq. (74)) exact. The forces of a `forces` block
//! enter (72b) at the midpoint in `q`, `v` and `t`, as in the authors' code for the
//! closed loop (spec 001 §2.4, §3.5).
//!
//! `λ` has no time index: the state carries it as Newton's next starting point, `γ = 0`.
use super::algebra::{Algebra, Scalar, Vector};
use super::common::{at, forces_at, Inputs, Setup, Template};
use super::constraint_gradient::constraint_gradients;
use super::discrete_gradient::{discrete_gradient_v, gonzalez_in, half_sum, invariant_groups};
use super::hidden::Hidden;
use crate::ir::Model;
use crate::sym::{Id, VarId};

/// The step equations of the stabilised EML (the default; [`super::hidden`]): the
/// paper's (72a–d) with the constraints' hidden constraints `G(q) v = 0`,
/// `G(q) p = const` held at the nodes by the unknowns `μ`, `γ`.
pub fn template(model: &mut Model, inputs: &Inputs) -> Template {
    template_with(model, inputs, true)
}

/// The step equations as the paper writes them, eqs. (72a–d) (`EmlPaper`).
pub fn paper(model: &mut Model, inputs: &Inputs) -> Template {
    template_with(model, inputs, false)
}

fn template_with(model: &mut Model, inputs: &Inputs, stabilised: bool) -> Template {
    let setup = Setup::new(model, inputs);
    let Setup { k, qs, x, .. } = &setup;
    let (q1, v1, p1, lambda) = (&x[0], &x[1], &x[2], &x[3]);
    let mut derivs = derivatives(model, &setup, q1, v1, Some(lambda));
    let hidden = Hidden::of(model, inputs.quantities, stabilised);
    // The stabilised form's unknowns μ and γ ([`super::hidden`]), and its terms.
    let extra = stabilised.then(|| {
        let (mu, gamma) = (&x[4], &x[5]);
        let mu_n = hidden.normals(model, &setup, q1, mu);
        let gamma_n = hidden.normals(model, &setup, q1, gamma);
        derivs.hidden = Some(hidden.curvature(model, &setup, q1, v1, p1, mu, gamma));
        let rows = hidden.rows(model, &setup, q1, v1, p1, mu, gamma);
        (mu_n, gamma_n, rows)
    });
    let mut residual = {
        let a = Algebra::new(model);
        let (q0, v0, p0) = (a.vector(&k.q), a.vector(&k.v), a.vector(&k.p));
        let (q1, v1, p1) = (a.vector(q1), a.vector(v1), a.vector(p1));
        let h = a.scalar(k.h);
        let (vm, pm) = (a.midpoint(&v0, &v1), a.midpoint(&p0, &p1));

        // (72a); (72a') adds `h G(q^½)ᵀ μ`
        let mut r1 = &q1 - &q0 - h * &vm;
        // (72b); (72b') adds its curvature terms (`derivs.hidden`)
        let r2 = derivs.momentum_balance(&a, &p1, &p0, h);
        // (72c); (72c') adds `G(q^½)ᵀ γ`
        let mut r3 = &pm - &a.vector(&derivs.dv_t);
        if let Some((mu_n, gamma_n, _)) = &extra {
            r1 = r1 - h * a.vector(mu_n);
            r3 = r3 + a.vector(gamma_n);
        }
        // (72d)
        let r4 = a.vector_at(&qs.g, &q1);
        vec![r2.ids, r1.ids, r3.ids, r4.ids]
    };
    if let Some((_, _, rows)) = extra {
        residual.extend(rows);
    }
    Template::livens(model, &setup, residual)
}

/// The discrete derivatives of a Livens step from the known `(q⁰, v⁰)` to `(q¹, v¹)`
/// (expressions in the unknowns), shared by EML and its size-reduced forms.
pub(super) struct Derivatives {
    /// `∂̄_q T`.
    pub dq_t: Vec<Id>,
    /// `∂̄_v T`, the right-hand side of (72c).
    pub dv_t: Vec<Id>,
    /// `∇̄V + ∇̄gᵀ λ` (without `λ`, no constraint forces).
    pub dv_g: Vec<Id>,
    /// `F(q^½, v^½, tⁿ + h/2)` of a forced model (spec 001 §2.4, §3.5, so that
    /// `Eⁿ⁺¹ − Eⁿ = h F·v^½`, §4 item 11).
    pub forces: Option<Vec<Id>>,
    /// `Σ_k (μ_k H_k p^½ + γ_k H_k v^½)`, (72b')'s term of the stabilised form
    /// ([`super::hidden`]).
    pub hidden: Option<Vec<Id>>,
}

impl Derivatives {
    /// (72b)'s residual `p¹ − p⁰ − h ∂̄_q T + h (∇̄V + ∇̄gᵀ λ) − h F`.
    pub fn momentum_balance<'a, 'm>(
        &self,
        a: &'a Algebra<'m>,
        p1: &Vector<'a, 'm>,
        p0: &Vector<'a, 'm>,
        h: Scalar<'a, 'm>,
    ) -> Vector<'a, 'm> {
        let r = p1 - p0 - h * &a.vector(&self.dq_t) + h * a.vector(&self.dv_g);
        let r = match &self.hidden {
            Some(x) => r + h * a.vector(x),
            None => r,
        };
        match &self.forces {
            Some(f) => r - h * a.vector(f),
            None => r,
        }
    }
}

pub(super) fn derivatives(
    model: &mut Model,
    setup: &Setup,
    q1: &[Id],
    v1: &[Id],
    lambda: Option<&[Id]>,
) -> Derivatives {
    let Setup { k, qs, .. } = setup;
    let (dq_t, dv_t) = partitioned_kinetic_gradients(model, &k.q, q1, &k.v, v1);
    let dg: Vec<Vec<Id>> = match lambda {
        Some(lambda) if !lambda.is_empty() => constraint_gradients(model, &k.q, q1),
        _ => Vec::new(),
    };
    let a = Algebra::new(model);
    let (q0, v0) = (a.vector(&k.q), a.vector(&k.v));
    let (q1, v1) = (a.vector(q1), a.vector(v1));
    let (qm, vm) = (a.midpoint(&q0, &q1), a.midpoint(&v0, &v1));
    let dv = a.call(|m| discrete_gradient_v(m, &qs.grad_v, &q0.ids, &q1.ids, &qm.ids));
    let dg_t_lambda = if dg.is_empty() {
        a.zeros(setup.d)
    } else {
        a.matrix(&dg).t() * &a.vector(lambda.unwrap_or_default())
    };
    let dv_g = (dv + dg_t_lambda).ids;
    let forces = a.call(|m| forces_at(m, k, &qm.ids, &vm.ids, 0.5).unwrap_or_default());
    let forces = (!forces.ids.is_empty()).then_some(forces.ids);
    Derivatives {
        dq_t,
        dv_t,
        dv_g,
        forces,
        hidden: None,
    }
}

/// `(∂̄_q T, ∂̄_v T)`. The kinetic energy as written is split into additive terms:
///
/// * terms in declared invariants only (a rigid body's `T̃(Ω)` with `Ω = omega(q, q_dot)`)
///   get the invariant-based ("G-equivariant") discrete derivative, eqs. (87)–(88):
///   with `c = ∇̄T̃(π⁰, π¹)` the discrete gradient in the invariants' space (the
///   midpoint `∇T̃(π^½)`, `π^½ = ½(π⁰ + π¹)`, where `T̃` is quadratic),
///   `∂̄_q T = (∂π/∂q)ᵀ c` and `∂̄_v T = (∂π/∂v)ᵀ c`, the Jacobians at `(q^½, v^½)`. An
///   invariant quadratic in `(q, v)` jointly gives `Δπ = ∂π/∂q Δq + ∂π/∂v Δv` exactly
///   (directionality, eq. (89)), and one invariant under a symmetry makes the derivative
///   orthogonal to its generator (eqs. (90)–(92): momentum maps conserved);
/// * all other terms: the partitioned Gonzalez derivatives of App. A, eqs. (129)–(131),
///   the mean of the Gonzalez gradients in one argument with the other at its two ends.
pub(super) fn partitioned_kinetic_gradients(
    model: &mut Model,
    q0: &[Id],
    q1: &[Id],
    v0: &[Id],
    v1: &[Id],
) -> (Vec<Id>, Vec<Id>) {
    let (rest, groups) = invariant_groups(model, model.kinetic_raw);
    let (mut dq_t, mut dv_t) = generic_kinetic_gradients(model, rest, q0, q1, v0, v1);
    for (uses, w) in groups {
        let (dq, dv) = invariant_kinetic_gradient(model, w, &uses, q0, q1, v0, v1);
        for (t, x) in dq_t.iter_mut().zip(dq) {
            *t = model.graph.add(*t, x);
        }
        for (t, x) in dv_t.iter_mut().zip(dv) {
            *t = model.graph.add(*t, x);
        }
    }
    (dq_t, dv_t)
}

/// The eqs. (129)–(131) derivatives of `t`, a function of `q` and `v`.
fn generic_kinetic_gradients(
    model: &mut Model,
    t: Id,
    q0: &[Id],
    q1: &[Id],
    v0: &[Id],
    v1: &[Id],
) -> (Vec<Id>, Vec<Id>) {
    let (qs, vs) = (model.q.clone(), model.v.clone());
    // ∂̄_q T|v for v = v⁰, v¹: T with its velocities fixed, a function of q.
    let mut in_q = Vec::new();
    for v in [v0, v1] {
        let map = vs.iter().copied().zip(v.iter().copied()).collect();
        let t_at_v = model.graph.substitute(&[t], &map)[0];
        in_q.push(gonzalez_in(model, t_at_v, &qs, q0, q1));
    }
    // ∂̄_v T|q for q = q⁰, q¹: T with its positions fixed, a function of v.
    let mut in_v = Vec::new();
    for q in [q0, q1] {
        let t_at_q = at(model, &[t], q, None)[0];
        in_v.push(gonzalez_in(model, t_at_q, &vs, v0, v1));
    }
    let dq_t = half_sum(&mut model.graph, &in_q[0], &in_q[1]);
    let dv_t = half_sum(&mut model.graph, &in_v[0], &in_v[1]);
    (dq_t, dv_t)
}

/// Eqs. (87)–(88) for `w`, a function of the invariants `uses` only.
fn invariant_kinetic_gradient(
    model: &mut Model,
    w: Id,
    uses: &[usize],
    q0: &[Id],
    q1: &[Id],
    v0: &[Id],
    v1: &[Id],
) -> (Vec<Id>, Vec<Id>) {
    let vars: Vec<VarId> = uses.iter().map(|&k| model.invariants[k].var).collect();
    let exprs: Vec<Id> = uses.iter().map(|&k| model.invariants[k].expr).collect();
    let pi0 = at(model, &exprs, q0, Some(v0));
    let pi1 = at(model, &exprs, q1, Some(v1));
    let c = gonzalez_in(model, w, &vars, &pi0, &pi1);
    let qm = half_sum(&mut model.graph, q0, q1);
    let vm = half_sum(&mut model.graph, v0, v1);
    let (qs, vs) = (model.q.clone(), model.v.clone());
    let (mut dq, mut dv) = (Vec::new(), Vec::new());
    for (vars, out) in [(&qs, &mut dq), (&vs, &mut dv)] {
        let jac: Vec<Vec<Id>> = exprs
            .iter()
            .map(|&e| model.graph.gradient(e, vars))
            .collect();
        let jac_m: Vec<Vec<Id>> = jac
            .iter()
            .map(|row| at(model, row, &qm, Some(&vm)))
            .collect();
        for i in 0..vars.len() {
            let terms: Vec<Id> = jac_m
                .iter()
                .zip(&c)
                .map(|(row, &ck)| model.graph.mul(ck, row[i]))
                .collect();
            out.push(model.graph.sum(terms));
        }
    }
    (dq, dv)
}
