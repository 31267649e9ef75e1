//! Discrete gradients `𝖣V(q⁰, q¹)` of the potential for the energy–momentum schemes
//! (spec 000 §2.6): they satisfy directionality, `𝖣V · (q¹ − q⁰) = V(q¹) − V(q⁰)`, which
//! makes the energy exact, and are second-order perturbations of `∇V(q^½)`.
use super::common::at;
use crate::ir::Model;
use crate::sym::Id;

/// `𝖣V(q⁰, q¹)`: the midpoint gradient for `V` of degree ≤ 2 (exact directionality),
/// the Gonzalez formula otherwise.
pub fn discrete_gradient_v(
    model: &mut Model,
    grad_v: &[Id],
    q0: &[Id],
    q1: &[Id],
    qm: &[Id],
) -> Vec<Id> {
    let gm = at(model, grad_v, qm, None);
    let is_q = |v| model.is_q(v);
    if model
        .graph
        .degree(model.potential, &is_q)
        .is_some_and(|deg| deg <= 2)
    {
        return gm;
    }
    let v0 = at(model, &[model.potential], q0, None)[0];
    let v1 = at(model, &[model.potential], q1, None)[0];
    let g = &mut model.graph;
    let dq: Vec<Id> = q1.iter().zip(q0).map(|(&a, &b)| g.sub(a, b)).collect();
    let dq2 = g.dot(&dq, &dq);
    let slope = g.dot(&gm, &dq);
    let dv = g.sub(v1, v0);
    let num = g.sub(dv, slope);
    let coef = g.div(num, dq2);
    let eps = g.constant(1e-12);
    gm.iter()
        .zip(&dq)
        .map(|(&gi, &di)| {
            let corr = g.mul(coef, di);
            let gonzalez = g.add(gi, corr);
            g.select_lt(dq2, eps, gi, gonzalez)
        })
        .collect()
}
