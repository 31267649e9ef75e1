//! REML, the size-reduced EML (Kinon, Betsch, "Conserving integration of multibody
//! systems with singular and non-constant mass matrix including quaternion-based rigid
//! body dynamics", Sect. 4.5, eqs. (101)–(103); spec 001 §2.5): EML's (72a) and (72c)
//! solved for `v¹` and `p¹` in closed form and substituted into (72b), leaving the
//! unknowns `x = (Δq, λ)`, `q¹ = q⁰ + Δq`:
//!
//! ```text
//! (101) v¹ = (2/h)(q¹ − q⁰) − v⁰
//! (102) p¹ = 2 ∂̄_v T(q⁰, q¹, v⁰, v¹) − p⁰
//! (103) 0  = p¹ − p⁰ − h (∂̄_q T − ∇̄V − ∇̄gᵀ λ + F),   0 = g(q¹)
//! ```
//!
//! with EML's discrete derivatives ([`super::eml`]): the same trajectory as EML (to
//! round-off) with `d + m` unknowns instead of `3d + m`. The default form is the
//! stabilised one of [`super::hidden`] (`RemlPaper` the paper's), with the unknowns
//! `(q¹, λ, μ, γ)`, `d + 3m`. The paper writes it for one rigid
//! body; nothing in it is specific to one, so it takes any model EML takes.
use super::algebra::Algebra;
use super::common::{Inputs, NextState, Setup, Template};
use super::eml::derivatives;
use super::hidden::Hidden;
use crate::ir::Model;
use crate::sym::Id;

/// The step equations of the stabilised REML (the default; [`super::hidden`]): (101)–(103)
/// with (72a') and (72c') solved instead of (72a) and (72c).
pub fn template(model: &mut Model, inputs: &Inputs) -> Template {
    template_with(model, inputs, true)
}

/// The step equations as the paper writes them, eqs. (101)–(103) (`RemlPaper`).
pub fn paper(model: &mut Model, inputs: &Inputs) -> Template {
    template_with(model, inputs, false)
}

fn template_with(model: &mut Model, inputs: &Inputs, stabilised: bool) -> Template {
    let setup = Setup::new(model, inputs);
    let Setup { k, qs, x, .. } = &setup;
    // The unknown is the increment `Δq = q¹ − q⁰`, not `q¹`: (101) divides `q¹ − q⁰` by
    // `h/2`, and an unknown `q¹` is only known to `ε|q|`, which (101) turns into
    // `2ε|q|/h` in `v¹` and, step after step, a drift of the energy `E = p·v − T + V`
    // 1000 times EML's on the spring pendulum (issue 30); `Δq` is known to `ε|Δq|`.
    let (dq, lambda) = (&x[0], &x[1]);
    let q1: Vec<Id> = {
        let g = &mut model.graph;
        k.q.iter().zip(dq).map(|(&a, &b)| g.add(a, b)).collect()
    };
    let q1 = &q1;
    let hidden = Hidden::of(model, inputs.quantities, stabilised);
    let zeros = vec![model.graph.zero(); setup.d];
    // The stabilised form's unknowns μ, γ ([`super::hidden`]) and their terms in (72a'),
    // (72c'): `G(q^½)ᵀ μ`, `G(q^½)ᵀ γ`.
    let (mu_n, gamma_n) = if stabilised {
        (
            hidden.normals(model, &setup, q1, &x[2]),
            hidden.normals(model, &setup, q1, &x[3]),
        )
    } else {
        (zeros.clone(), zeros)
    };
    let v1 = velocity_from_increment(model, &setup, dq, &mu_n);
    let mut derivs = derivatives(model, &setup, q1, &v1, Some(lambda));
    // (102); (72c') in the stabilised form: `p¹ = 2 (∂̄_v T − G(q^½)ᵀ γ) − p⁰`
    let p1 = {
        let a = Algebra::new(model);
        let two = a.constant(2.0);
        (two * &(a.vector(&derivs.dv_t) - a.vector(&gamma_n)) - &a.vector(&k.p)).ids
    };
    let rows = stabilised.then(|| {
        let (mu, gamma) = (&x[2], &x[3]);
        derivs.hidden = Some(hidden.curvature(model, &setup, q1, &v1, &p1, mu, gamma));
        hidden.rows(model, &setup, q1, &v1, &p1, mu, gamma)
    });
    let (residual, next) = {
        let a = Algebra::new(model);
        let p0 = a.vector(&k.p);
        let (q1, lambda, p1) = (a.vector(q1), a.vector(lambda), a.vector(&p1));
        // (103), with (72b')'s terms in the stabilised form
        let r1 = derivs.momentum_balance(&a, &p1, &p0, a.scalar(k.h));
        let r2 = a.vector_at(&qs.g, &q1);
        let zero = a.constant(0.0).id;
        let mut residual = [r1.ids, r2.ids].concat();
        let mut next = NextState::without_gamma(q1.ids, v1.clone(), p1.ids, lambda.ids, zero);
        if let Some([rv, rp]) = rows {
            residual.extend(rv);
            residual.extend(rp);
            next.gamma = x[3].clone();
        }
        (residual, next)
    };
    // Newton starts from `Δq = 0`, or (extrapolated) `Δq = h v⁰`.
    let zero = model.graph.zero();
    let mut guess = [vec![zero; setup.d], k.lambda.clone()].concat();
    if stabilised {
        guess.extend(vec![zero; setup.m]);
        guess.extend(k.gamma.iter().copied());
    }
    let mut extrapolated = guess.clone();
    for (g, &v) in extrapolated.iter_mut().zip(&k.v) {
        *g = model.graph.mul(k.h, v);
    }
    Template::with_guesses(&setup, residual, [guess, extrapolated], next)
}

/// (101): `v¹ = (2/h)(q¹ − q⁰) − v⁰`, EML's (72a) solved for `v¹`; (72a') of the
/// stabilised form, `− 2 G(q^½)ᵀ μ` more (`mu_n`, zeros in the paper's form).
pub(super) fn velocity(model: &mut Model, setup: &Setup, q1: &[Id], mu_n: &[Id]) -> Vec<Id> {
    let dq: Vec<Id> = {
        let g = &mut model.graph;
        q1.iter()
            .zip(&setup.k.q)
            .map(|(&a, &b)| g.sub(a, b))
            .collect()
    };
    velocity_from_increment(model, setup, &dq, mu_n)
}

/// [`velocity`] from the increment `Δq` itself: `(2/h) Δq − v⁰ − 2 G(q^½)ᵀ μ`, without
/// rounding `q⁰ + Δq` first.
fn velocity_from_increment(model: &mut Model, setup: &Setup, dq: &[Id], mu_n: &[Id]) -> Vec<Id> {
    let k = &setup.k;
    let a = Algebra::new(model);
    let (v0, dq) = (a.vector(&k.v), a.vector(dq));
    let two = a.constant(2.0);
    let two_over_h = two / a.scalar(k.h);
    (two_over_h * &dq - &v0 - two * &a.vector(mu_n)).ids
}
