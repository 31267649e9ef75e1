//! The discrete gradients and derivatives `model!` builds, evaluated at random points
//! (spec 001 §4 A items 3–4): directionality (69), consistency (70), symmetry in the two
//! points, and, for functions written in declared invariants, orthogonality to the
//! symmetry generators (eqs. (90)–(92), which make the momentum maps exact).
//!
//! Each case lowers a small model, builds the discrete gradient of its potential
//! (`discrete_gradient_v`) or the discrete derivatives of its kinetic energy
//! (`eml::partitioned_kinetic_gradients`: the invariant-based (87)–(88) and the
//! partitioned (129)–(131)) between two points given as fresh variables, and evaluates
//! the expressions in `f64` with the symbolic engine's evaluator.
use std::collections::HashMap;

use super::common::at;
use super::discrete_gradient::{discrete_gradient_v, half_sum};
use super::eml::partitioned_kinetic_gradients;
use crate::ir::{Model, Role, Symmetry};
use crate::sym::{Id, VarId};
use crate::test_rng::Rng;

/// Random points per case.
const POINTS: usize = 200;

/// Random points in `[-1.5, 1.5)ⁿ`.
fn vector(rng: &mut Rng, n: usize) -> Vec<f64> {
    (0..n).map(|_| rng.uniform(-1.5, 1.5)).collect()
}

/// The model declared by `source`, lowered.
fn lowered(source: &str) -> Model {
    let ast = syn::parse_str::<crate::dsl::ModelAst>(source).expect("parses");
    crate::lower::lower(ast).expect("lowers").0
}

/// The two points of a discrete gradient as fresh variables: `(x⁰, x¹)` for the
/// coordinates and, if asked, for the velocities.
struct Points {
    vars: Vec<VarId>,
    q0: Vec<Id>,
    q1: Vec<Id>,
    v0: Vec<Id>,
    v1: Vec<Id>,
}

impl Points {
    fn new(model: &mut Model) -> Self {
        let d = model.dim();
        let mut vars = Vec::new();
        let mut fresh = |model: &mut Model, name: &'static str| -> Vec<Id> {
            (0..d)
                .map(|i| {
                    let (v, id) = model.new_var(format!("{name}{i}"), Role::Input(name, Some(i)));
                    vars.push(v);
                    id
                })
                .collect()
        };
        let (q0, q1) = (fresh(model, "q0"), fresh(model, "q1"));
        let (v0, v1) = (fresh(model, "v0"), fresh(model, "v1"));
        Points {
            vars,
            q0,
            q1,
            v0,
            v1,
        }
    }
}

/// Values of the points' variables and the parameters (at their defaults).
struct Values(HashMap<VarId, f64>);

impl Values {
    fn new(model: &Model, points: &Points, x: [&[f64]; 4]) -> Self {
        let mut map: HashMap<VarId, f64> = points
            .vars
            .iter()
            .copied()
            .zip(x.iter().flat_map(|s| s.iter().copied()))
            .collect();
        for (i, role) in model.roles.iter().enumerate() {
            if let Role::Param(k) = role {
                map.insert(VarId(i as u32), model.params[*k].default);
            }
        }
        Values(map)
    }

    fn eval(&self, model: &Model, e: &[Id]) -> Vec<f64> {
        // The evaluator visits every node up to the outputs, the model's own `q` and `v`
        // among them: those get NaN, which reaches a checked value only if an output
        // depends on them (and then fails the check).
        model
            .graph
            .eval_many(e, &|v| self.0.get(&v).copied().unwrap_or(f64::NAN))
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn sub(a: &[f64], b: &[f64]) -> Vec<f64> {
    a.iter().zip(b).map(|(x, y)| x - y).collect()
}

fn max_abs(a: &[f64]) -> f64 {
    a.iter().fold(0.0_f64, |m, x| m.max(x.abs()))
}

/// The worst relative error of the checks of one property, and how many were made.
#[derive(Default)]
struct Worst {
    error: f64,
    count: usize,
}

impl Worst {
    fn check(&mut self, got: f64, want: f64, scale: f64) {
        let error = (got - want).abs() / scale.max(1.0);
        // `f64::max` would drop a NaN.
        self.error = if error.is_nan() {
            f64::INFINITY
        } else {
            self.error.max(error)
        };
        self.count += 1;
    }

    fn assert_below(&self, tolerance: f64, what: &str) {
        println!("{what}: {:.1e} over {} checks", self.error, self.count);
        assert!(self.count > 0, "{what}: nothing checked");
        assert!(
            self.error <= tolerance,
            "{what}: {:.3e} > {tolerance:e}",
            self.error
        );
    }
}

/// The potential's discrete gradient `𝖣V(q⁰, q¹)`: directionality, symmetry in the two
/// points, consistency (the small-increment branch at `q¹ = q⁰` gives `∇V(q⁰)`, and
/// `q¹ = q⁰ + δ` approaches it as `δ → 0`), and, for each symmetry in `symmetries`,
/// `𝖣V · ξ_Q(q^½) = 0` if `equivariant` (the potential is written in invariants), and
/// `≠ 0` if not (Gonzalez in the coordinates: the warning of spec 000 §2.6).
fn potential_properties(source: &str, symmetries: &[Symmetry], equivariant: bool, seed: u64) {
    let mut model = lowered(source);
    let pts = Points::new(&mut model);
    let qv = model.q.clone();
    let grad_v = model.graph.gradient(model.potential, &qv);
    let qm = half_sum(&mut model.graph, &pts.q0, &pts.q1);
    let dg = discrete_gradient_v(&mut model, &grad_v, &pts.q0, &pts.q1, &qm);
    let swapped = {
        let qm = half_sum(&mut model.graph, &pts.q1, &pts.q0);
        discrete_gradient_v(&mut model, &grad_v, &pts.q1, &pts.q0, &qm)
    };
    let potential = model.potential;
    let v0 = at(&mut model, &[potential], &pts.q0, None)[0];
    let v1 = at(&mut model, &[potential], &pts.q1, None)[0];
    let grad_at_q0 = at(&mut model, &grad_v, &pts.q0, None);
    let generators: Vec<Vec<Id>> = symmetries
        .iter()
        .map(|&s| {
            let xi = model.generator(s);
            at(&mut model, &xi, &qm, None)
        })
        .collect();

    let d = model.dim();
    let mut rng = Rng(seed);
    let mut w: [Worst; 5] = Default::default();
    let [direction, symmetric, at_same, near, orthogonal] = &mut w;
    let zeros = vec![0.0; d];
    for _ in 0..POINTS {
        let x0 = vector(&mut rng, d);
        let x1 = vector(&mut rng, d);
        let vals = Values::new(&model, &pts, [&x0, &x1, &zeros, &zeros]);
        let g = vals.eval(&model, &dg);
        let e = vals.eval(&model, &[v0, v1]);
        let scale = e[0].abs().max(e[1].abs());
        direction.check(dot(&g, &sub(&x1, &x0)), e[1] - e[0], scale);
        let s = vals.eval(&model, &swapped);
        for (a, b) in g.iter().zip(&s) {
            symmetric.check(*a, *b, max_abs(&g));
        }
        for xi in &generators {
            let xi = vals.eval(&model, xi);
            orthogonal.check(dot(&g, &xi), 0.0, max_abs(&g) * max_abs(&xi));
        }
        // Consistency: the same point, and a point 1e-5 away (outside the branch).
        let grad = vals.eval(&model, &grad_at_q0);
        let same = Values::new(&model, &pts, [&x0, &x0, &zeros, &zeros]);
        for (a, b) in same.eval(&model, &dg).iter().zip(&grad) {
            at_same.check(*a, *b, max_abs(&grad));
        }
        let x_near: Vec<f64> = x0
            .iter()
            .map(|x| x + 1e-5 * rng.uniform(-1.0, 1.0))
            .collect();
        let close = Values::new(&model, &pts, [&x0, &x_near, &zeros, &zeros]);
        for (a, b) in close.eval(&model, &dg).iter().zip(&grad) {
            near.check(*a, *b, max_abs(&grad));
        }
    }
    direction.assert_below(1e-12, "directionality 𝖣V·Δq = ΔV");
    symmetric.assert_below(1e-12, "symmetry 𝖣V(q⁰, q¹) = 𝖣V(q¹, q⁰)");
    at_same.assert_below(1e-14, "consistency 𝖣V(q, q) = ∇V(q)");
    // First order in the increment: |q¹ − q⁰| ≤ 1e-5 · √d, curvatures of order 10.
    near.assert_below(1e-3, "consistency 𝖣V(q, q + δ) → ∇V(q)");
    if symmetries.is_empty() {
        assert_eq!(orthogonal.count, 0);
    } else if equivariant {
        orthogonal.assert_below(1e-13, "orthogonality 𝖣V·ξ(q^½) = 0");
    } else {
        println!("no orthogonality: {:.1e}", orthogonal.error);
        assert!(orthogonal.error > 1e-3, "{}", orthogonal.error);
    }
}

/// The kinetic energy's discrete derivatives `(∂̄_q T, ∂̄_v T)` between `(q⁰, v⁰)` and
/// `(q¹, v¹)`: directionality `∂̄_q T·Δq + ∂̄_v T·Δv = ΔT` (eqs. (89), (131)), symmetry
/// in the two points, consistency (`(∂_q T, ∂_v T)` at equal points), and, for each
/// symmetry, `∂̄_q T·ξ(q^½) + ∂̄_v T·ξ(v^½) = 0` (eqs. (90)–(92)), `ξ` linear in its
/// argument (its tangent lift acts on velocities by the same matrix), if `equivariant`;
/// `≠ 0` if not.
fn kinetic_properties(source: &str, symmetries: &[Symmetry], equivariant: bool, seed: u64) {
    let mut model = lowered(source);
    let pts = Points::new(&mut model);
    let (dq, dv) = partitioned_kinetic_gradients(&mut model, &pts.q0, &pts.q1, &pts.v0, &pts.v1);
    let (sq, sv) = partitioned_kinetic_gradients(&mut model, &pts.q1, &pts.q0, &pts.v1, &pts.v0);
    let t = model.kinetic_raw;
    let expand: HashMap<VarId, Id> = model.invariants.iter().map(|i| (i.var, i.expr)).collect();
    let t = model.graph.substitute(&[t], &expand)[0];
    let t0 = at(&mut model, &[t], &pts.q0, Some(&pts.v0))[0];
    let t1 = at(&mut model, &[t], &pts.q1, Some(&pts.v1))[0];
    let (qv, vv) = (model.q.clone(), model.v.clone());
    let grad_q = model.graph.gradient(t, &qv);
    let grad_v = model.graph.gradient(t, &vv);
    let grad_q0 = at(&mut model, &grad_q, &pts.q0, Some(&pts.v0));
    let grad_v0 = at(&mut model, &grad_v, &pts.q0, Some(&pts.v0));
    let qm = half_sum(&mut model.graph, &pts.q0, &pts.q1);
    let vm = half_sum(&mut model.graph, &pts.v0, &pts.v1);
    let generators: Vec<(Vec<Id>, Vec<Id>)> = symmetries
        .iter()
        .map(|&s| {
            let xi = model.generator(s);
            (
                at(&mut model, &xi, &qm, None),
                at(&mut model, &xi, &vm, None),
            )
        })
        .collect();

    let d = model.dim();
    let mut rng = Rng(seed);
    let mut w: [Worst; 4] = Default::default();
    let [direction, symmetric, at_same, orthogonal] = &mut w;
    for _ in 0..POINTS {
        let (x0, x1) = (vector(&mut rng, d), vector(&mut rng, d));
        let (u0, u1) = (vector(&mut rng, d), vector(&mut rng, d));
        let vals = Values::new(&model, &pts, [&x0, &x1, &u0, &u1]);
        let (gq, gv) = (vals.eval(&model, &dq), vals.eval(&model, &dv));
        let e = vals.eval(&model, &[t0, t1]);
        let scale = e[0].abs().max(e[1].abs());
        let work = dot(&gq, &sub(&x1, &x0)) + dot(&gv, &sub(&u1, &u0));
        direction.check(work, e[1] - e[0], scale);
        let g_scale = max_abs(&gq).max(max_abs(&gv));
        let (s_q, s_v) = (vals.eval(&model, &sq), vals.eval(&model, &sv));
        for (a, b) in gq.iter().chain(&gv).zip(s_q.iter().chain(&s_v)) {
            symmetric.check(*a, *b, g_scale);
        }
        for (xq, xv) in &generators {
            let (xq, xv) = (vals.eval(&model, xq), vals.eval(&model, xv));
            let scale = g_scale * max_abs(&xq).max(max_abs(&xv));
            orthogonal.check(dot(&gq, &xq) + dot(&gv, &xv), 0.0, scale);
        }
        let same = Values::new(&model, &pts, [&x0, &x0, &u0, &u0]);
        let want: Vec<f64> = [grad_q0.as_slice(), grad_v0.as_slice()]
            .iter()
            .flat_map(|g| same.eval(&model, g))
            .collect();
        let got: Vec<f64> = [dq.as_slice(), dv.as_slice()]
            .iter()
            .flat_map(|g| same.eval(&model, g))
            .collect();
        for (a, b) in got.iter().zip(&want) {
            at_same.check(*a, *b, max_abs(&want));
        }
    }
    direction.assert_below(1e-12, "directionality ∂̄_qT·Δq + ∂̄_vT·Δv = ΔT");
    symmetric.assert_below(1e-12, "symmetry in the two points");
    at_same.assert_below(1e-13, "consistency at equal points");
    if symmetries.is_empty() {
        assert_eq!(orthogonal.count, 0);
    } else if equivariant {
        orthogonal.assert_below(1e-13, "orthogonality ∂̄_qT·ξ(q^½) + ∂̄_vT·ξ(v^½) = 0");
    } else {
        println!("no orthogonality: {:.1e}", orthogonal.error);
        assert!(orthogonal.error > 1e-3, "{}", orthogonal.error);
    }
}

/// A rotation about an axis that is none of the coordinate axes.
const TILTED: Symmetry = Symmetry::Rotation([0.48, -0.6, 0.64]);

#[test]
fn gonzalez_gradient_of_a_potential_in_the_coordinates() {
    potential_properties(
        "pub struct Quartic {
            params { m = 1.0, k = 2.0 }
            coords { r: Vec3 }
            kinetic = 0.5 * m * dot(r_dot, r_dot);
            potential = k * r.x.powi(4) + r.x * r.y * r.z + sin(r.y) * exp(0.3 * r.z);
            schemes { GglEm }
        }",
        &[],
        false,
        0xD6_0001,
    );
}

#[test]
fn greenspan_gradient_of_a_potential_in_one_invariant_is_orthogonal_to_rotations() {
    potential_properties(
        "pub struct Central {
            params { m = 1.0, k = 2.0, c = 0.5 }
            coords { r: Vec3 }
            invariants { rho: dot(r, r) }
            kinetic = 0.5 * m * dot(r_dot, r_dot);
            potential = k * rho * rho + c * sin(rho);
            schemes { GglEm }
        }",
        &[
            Symmetry::Rotation([1.0, 0.0, 0.0]),
            Symmetry::Rotation([0.0, 0.0, 1.0]),
            TILTED,
        ],
        true,
        0xD6_0002,
    );
}

#[test]
fn gonzalez_gradient_in_several_invariants_is_orthogonal_to_rotations() {
    potential_properties(
        "pub struct Pair {
            params { m = 1.0, k = 0.7 }
            coords { a: Vec3, b: Vec3 }
            invariants { aa: dot(a, a), ab: dot(a, b), bb: dot(b, b) }
            kinetic = 0.5 * m * (dot(a_dot, a_dot) + dot(b_dot, b_dot));
            potential = k * aa * ab + sin(bb) * ab + 0.1 * aa * bb * bb;
            schemes { GglEm }
        }",
        &[Symmetry::Rotation([0.0, 1.0, 0.0]), TILTED],
        true,
        0xD6_0003,
    );
}

/// The negative control: the same rotation-invariant potential as above, written in the
/// coordinates, gets Gonzalez's formula there, which keeps the energy but is not
/// orthogonal to the rotations.
#[test]
fn gonzalez_gradient_in_the_coordinates_is_not_orthogonal_to_rotations() {
    potential_properties(
        "pub struct Central {
            params { m = 1.0, k = 2.0, c = 0.5 }
            coords { r: Vec3 }
            kinetic = 0.5 * m * dot(r_dot, r_dot);
            potential = k * dot(r, r) * dot(r, r) + c * sin(dot(r, r));
            schemes { GglEm }
        }",
        &[Symmetry::Rotation([0.0, 0.0, 1.0]), TILTED],
        false,
        0xD6_0006,
    );
}

#[test]
fn equivariant_derivative_of_a_quaternion_body() {
    kinetic_properties(
        "pub struct Body {
            params { j1 = 6.0, j2 = 8.0, j3 = 3.0 }
            coords { q: Quat }
            invariants { w: omega(q, q_dot) }
            kinetic = 0.5 * (j1 * w[0] * w[0] + j2 * w[1] * w[1] + j3 * w[2] * w[2]);
            holonomic { unit: 0.5 * (dot(q, q) - 1.0) }
            schemes { Eml }
        }",
        &[
            Symmetry::Rotation([1.0, 0.0, 0.0]),
            Symmetry::Rotation([0.0, 1.0, 0.0]),
            TILTED,
        ],
        true,
        0xD6_0004,
    );
}

/// The negative control (spec 001 §4 B item 7): the same body with `T` written in `q`
/// and `q̇` gets the partitioned derivatives (129)–(131), not orthogonal to rotations.
#[test]
fn partitioned_derivative_of_a_quaternion_body_is_not_equivariant() {
    kinetic_properties(
        "pub struct Body {
            params { j1 = 6.0, j2 = 8.0, j3 = 3.0 }
            coords { q: Quat }
            let w = omega(q, q_dot);
            kinetic = 0.5 * (j1 * w[0] * w[0] + j2 * w[1] * w[1] + j3 * w[2] * w[2]);
            holonomic { unit: 0.5 * (dot(q, q) - 1.0) }
            schemes { Eml }
        }",
        &[Symmetry::Rotation([0.0, 1.0, 0.0]), TILTED],
        false,
        0xD6_0007,
    );
}

#[test]
fn partitioned_derivatives_of_a_configuration_dependent_mass_matrix() {
    // The spring pendulum of spec 001 §3.2 in spherical coordinates, and a term of
    // degree four in q: Gonzalez's formula in both arguments (129)–(131).
    kinetic_properties(
        "pub struct Spring {
            params { m = 1.3, c = 0.4 }
            coords { r: Scalar, theta: Scalar, phi: Scalar }
            kinetic = 0.5 * m * (r_dot * r_dot + r * r * theta_dot * theta_dot
                + r * r * sin(theta) * sin(theta) * phi_dot * phi_dot)
                + c * r * r * r * r * theta_dot * phi_dot;
            schemes { Eml }
        }",
        &[],
        false,
        0xD6_0005,
    );
}
