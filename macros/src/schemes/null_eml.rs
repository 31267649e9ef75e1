//! Null-EML, the discrete null-space form of EML for one rigid body (Kinon, Betsch,
//! "Conserving integration of multibody systems with singular and non-constant mass
//! matrix including quaternion-based rigid body dynamics", Remark 4.11, eqs. (104)–(105);
//! spec 001 §2.6). The update is a rotation of the quaternion, so the unit constraint
//! holds by construction, and (72b) premultiplied by the discrete null-space matrix
//! `G(q^½)` (with `G(q^½) q^½ = 0`, eq. (104)) no longer sees the multiplier. Unknown: the
//! incremental rotation vector `ϑ ∈ R³`:
//!
//! ```text
//! (105) q¹ = exp_S³((0, ½ϑ)) ∘ q⁰,   exp_S³((0, ½ϑ)) = (cos ½|ϑ|, sin ½|ϑ| ϑ/|ϑ|)   (40)
//! (101) v¹ = (2/h)(q¹ − q⁰) − v⁰,    (102) p¹ = 2 ∂̄_v T − p⁰
//! (104) 0  = G(q^½) (p¹ − p⁰ − h (∂̄_q T − ∇̄V + F))
//! ```
//!
//! The same trajectory as EML; `λ` is not computed (the state carries 0). Near `ϑ = 0`
//! (Newton's first guess) the two trigonometric factors switch to their Taylor series,
//! whose truncation is far below round-off there.
use super::algebra::Algebra;
use super::common::{Inputs, NextState, Setup, Template};
use super::discrete_gradient::half_sum;
use super::eml::derivatives;
use super::hidden;
use super::reml::velocity;
use crate::ir::{Model, Role};
use crate::quaternion;
use crate::sym::{Func, Graph, Id};

/// `|ϑ|²` below which `cos ½|ϑ|` and `sin ½|ϑ| / |ϑ|` are their series to `|ϑ|⁴`
/// (truncation `|ϑ|⁶/46080 < 3e-23` there).
const SERIES: f64 = 1e-6;

/// The step equations of the stabilised Null-EML (the default; [`super::hidden`]): the
/// null-space form of the stabilised EML, `v¹` and `p¹` from (72a') and (72c').
pub fn template(model: &mut Model, inputs: &Inputs) -> Template {
    template_with(model, inputs, true)
}

/// The step equations as the paper writes them, Remark 4.11 (`NullEmlPaper`).
pub fn paper(model: &mut Model, inputs: &Inputs) -> Template {
    template_with(model, inputs, false)
}

fn template_with(model: &mut Model, inputs: &Inputs, stabilised: bool) -> Template {
    let setup = Setup::new(model, inputs);
    let Setup { k, x, .. } = &setup;
    let theta = &x[0];
    let rotated = {
        let g = &mut model.graph;
        let e = exponential(g, theta);
        quaternion::product(g, &e, &k.q)
    };
    // Every equation below is written in `q¹` as the intermediate `w`: its Jacobian is
    // `∂R/∂q¹ · ∂q¹/∂ϑ` (`Template::intermediates`), not the derivative of the
    // exponential map carried through every term.
    let (w_vars, q1): (Vec<_>, Vec<Id>) = (0..rotated.len())
        .map(|i| model.new_var(format!("q1_{i}"), Role::Intermediate(i)))
        .unzip();
    // The stabilised form ([`super::hidden`]) in closed form for the one quaternion:
    // `μ`, `γ` scalars, `μ q^½` in (72a') and `γ q^½` in (72c').
    let qm = half_sum(&mut model.graph, &k.q, &q1);
    let zeros = vec![model.graph.zero(); setup.d];
    let (mu, mu_q) = if stabilised {
        let g = &mut model.graph;
        let mu = hidden::single_body_mu(g, &k.q, &q1, &k.v, k.h);
        (Some(mu), qm.iter().map(|&x| g.mul(mu, x)).collect())
    } else {
        (None, zeros.clone())
    };
    let v1 = velocity(model, &setup, &q1, &mu_q);
    let mut derivs = derivatives(model, &setup, &q1, &v1, None);
    let gamma_q: Vec<Id> = match mu {
        Some(mu) => {
            let g = &mut model.graph;
            let gamma = hidden::single_body_gamma(g, &k.q, &q1, &k.p, &derivs.dv_t);
            // (72b')'s `μ p^½ + γ v^½` (`H = I` for `½ (q·q − 1)`), with (72c')'s
            // `p^½ = ∂̄_v T − γ q^½`.
            let vm = half_sum(g, &k.v, &v1);
            let extra = (0..setup.d)
                .map(|i| {
                    let gq = g.mul(gamma, qm[i]);
                    let pm = g.sub(derivs.dv_t[i], gq);
                    let a = g.mul(mu, pm);
                    let b = g.mul(gamma, vm[i]);
                    g.add(a, b)
                })
                .collect();
            derivs.hidden = Some(extra);
            qm.iter().map(|&x| g.mul(gamma, x)).collect()
        }
        None => zeros,
    };
    let (residual, next) = {
        let a = Algebra::new(model);
        let (q0, p0, q1) = (a.vector(&k.q), a.vector(&k.p), a.vector(&q1));
        let two = a.constant(2.0);
        // (102); (72c') in the stabilised form: `p¹ = 2 (∂̄_v T − γ q^½) − p⁰`
        let p1 = two * &(a.vector(&derivs.dv_t) - a.vector(&gamma_q)) - &p0;
        // (104): `G(q^½)` does not annihilate (72b')'s `μ p^½ + γ v^½`, which stay
        // (`G(q^½) q^½ = 0` removes only `λ q^½`)
        let qm = a.midpoint(&q0, &q1);
        let balance = derivs.momentum_balance(&a, &p1, &p0, a.scalar(k.h));
        let null = a.call(|m| {
            let g = quaternion::g_matrix(&mut m.graph, &qm.ids);
            quaternion::mat_vec(&mut m.graph, &g, &balance.ids)
        });
        let zero = a.constant(0.0).id;
        let lambda = vec![zero; setup.m];
        let next = NextState::without_gamma(q1.ids, v1.clone(), p1.ids, lambda, zero);
        (null.ids, next)
    };
    // Newton starts from no rotation, or (extrapolated) from `ϑ = h ω⁰`, the spatial
    // angular velocity `ω = 2 E(q) v` (43) over one step.
    let zero = model.graph.zero();
    let guess = vec![zero; 3];
    let extrapolated = {
        let g = &mut model.graph;
        quaternion::angular_velocity(g, &setup.k.q, &setup.k.v, true)
            .into_iter()
            .map(|w| g.mul(setup.k.h, w))
            .collect()
    };
    Template::with_guesses(&setup, residual, [guess, extrapolated], next)
        .with_intermediates(w_vars.into_iter().zip(rotated).collect())
}

/// `exp_S³((0, ½ϑ))`, eq. (40), with the series branch near `ϑ = 0`.
fn exponential(g: &mut Graph, theta: &[Id]) -> Vec<Id> {
    let n2 = g.dot(theta, theta);
    let n = g.func(Func::Sqrt, n2);
    let half = g.constant(0.5);
    let angle = g.mul(half, n);
    let (cos, sin) = (g.func(Func::Cos, angle), g.func(Func::Sin, angle));
    let sinc = g.div(sin, n);
    // cos ½x = 1 − x²/8 + x⁴/384,  sin ½x / x = ½ − x²/48 + x⁴/3840.
    let series = |g: &mut Graph, c: [f64; 3]| {
        let (c0, c1, c2) = (g.constant(c[0]), g.constant(c[1]), g.constant(c[2]));
        let inner = g.mul(c2, n2);
        let inner = g.add(c1, inner);
        let inner = g.mul(inner, n2);
        g.add(c0, inner)
    };
    let cos_series = series(g, [1.0, -1.0 / 8.0, 1.0 / 384.0]);
    let sinc_series = series(g, [0.5, -1.0 / 48.0, 1.0 / 3840.0]);
    let small = g.constant(SERIES);
    let c = g.select_lt(n2, small, cos_series, cos);
    let s = g.select_lt(n2, small, sinc_series, sinc);
    let mut e = vec![c];
    e.extend(theta.iter().map(|&t| g.mul(s, t)));
    e
}
