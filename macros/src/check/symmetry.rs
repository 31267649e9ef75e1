//! A declared momentum map is a conservation law only if its group action is a
//! symmetry of the Lagrangian and of the constraint manifold (Noether). Declared
//! otherwise, the map is reported as "conserved" to round-off by the energy–momentum
//! schemes' diagnostics while the flow changes it: `rotation(e1)` on a pendulum under
//! gravity along e3 drifted from 0 to −1.62 in 100 steps, unnoticed.
//!
//! The check is numerical, at the parameters' defaults, and exact in what it asks:
//! at a few pseudo-random consistent points `(q, v)` (positions projected onto
//! `g(q) = 0`, velocities onto its tangent space), the derivatives along the
//! generator `ξ` must vanish to round-off:
//!
//! ```text
//! dL/dε = ∂L/∂q · ξ(q) + ∂L/∂v · ξ'(q) v = 0,      dg/dε = G(q) ξ(q) = 0.
//! ```
//!
//! A symbolic zero test would be stronger where the simplifier can decide it, but it
//! cannot always (the top's `phi − l d3` constraint is invariant only on `g = 0`), and
//! a false refusal of a true symmetry is worse than a check at points.
use crate::errors::Errors;
use crate::ir::{CoordKind, Model, Role, Symmetry};
use crate::quantities::Quantities;
use crate::sym::Id;

/// Consistent points each momentum map is tested at.
const POINTS: usize = 4;
/// Relative size of a derivative along `ξ` that round-off cannot explain.
const TOLERANCE: f64 = 1e-8;

/// Reports every declared momentum map that is identically zero or whose action
/// changes `L` or a constraint.
pub fn symmetries(model: &mut Model, quantities: &Quantities, errors: &mut Errors) {
    if model.momenta.is_empty() {
        return;
    }
    let has = |kind| model.coords.iter().any(|c| c.kind == kind);
    let (vec3, quat) = (has(CoordKind::Vec3), has(CoordKind::Quat));
    let points = consistent_points(model, quantities);
    let momenta: Vec<(String, Symmetry, proc_macro2::TokenStream)> = model
        .momenta
        .iter()
        .map(|m| (m.name.to_string(), m.symmetry, m.tokens.clone()))
        .collect();
    for (name, symmetry, tokens) in momenta {
        // A rotation acts on `Vec3` and `Quat` blocks, a translation on `Vec3` blocks only
        // (`Model::generator`).
        let (kind, axis, acted_on, blocks) = match symmetry {
            Symmetry::Rotation(a) => ("rotation", a, vec3 || quat, "`Vec3` and `Quat`"),
            Symmetry::Translation(a) => ("translation", a, vec3, "`Vec3`"),
        };
        if !acted_on {
            // error: momentum map `jz` is identically zero …
            errors.add(syn::Error::new_spanned(
                &tokens,
                format!(
                    "momentum map `{name}` is identically zero: a {kind} acts on the {blocks} \
                     coordinates, and this model has none; remove it"
                ),
            ));
            continue;
        }
        if axis == [0.0; 3] {
            errors.add(syn::Error::new_spanned(
                &tokens,
                format!("momentum map `{name}` is identically zero: its axis is the zero vector"),
            ));
            continue;
        }
        let generator = Generator::new(model, symmetry);
        if let Some(broken) = points
            .iter()
            .find_map(|point| broken_invariance(model, quantities, &generator, point))
        {
            // error: `jx: rotation(e1)` is not a symmetry of the model: the Lagrangian …
            errors.add(syn::Error::new_spanned(
                &tokens,
                format!(
                    "momentum map `{name}` is not conserved: this {kind} is not a symmetry of \
                     the model, since {broken} changes along it; declare only symmetries \
                     of the Lagrangian and the constraints"
                ),
            ));
        }
    }
}

/// A symmetry's generator `ξ(q)` and its lift to the velocities `ξ'(q) v`, as nodes.
struct Generator {
    xi: Vec<Id>,
    lift: Vec<Id>,
}

impl Generator {
    fn new(model: &mut Model, symmetry: Symmetry) -> Self {
        let xi = model.generator(symmetry);
        let (q, v) = (model.q.clone(), model.v.clone());
        let lift = xi
            .iter()
            .map(|&x| {
                let terms: Vec<Id> = q
                    .iter()
                    .zip(&v)
                    .map(|(&qj, &vj)| {
                        let d = model.graph.diff(x, qj);
                        let vj = model.graph.var_node(vj);
                        model.graph.mul(d, vj)
                    })
                    .collect();
                model.graph.sum(terms)
            })
            .collect();
        Generator { xi, lift }
    }
}

/// A consistent state: positions and velocities.
struct Point {
    q: Vec<f64>,
    v: Vec<f64>,
}

/// What `symmetry` changes at `point` ("the Lagrangian", "the constraint `c`"), if
/// anything.
fn broken_invariance(
    model: &Model,
    quantities: &Quantities,
    generator: &Generator,
    point: &Point,
) -> Option<String> {
    let d = model.dim();
    let mut outputs: Vec<Id> = quantities.dl_dq.clone();
    outputs.extend(&quantities.dl_dv);
    outputs.extend(quantities.jac.iter().flatten());
    outputs.extend(&generator.xi);
    outputs.extend(&generator.lift);
    let values = evaluate(model, &outputs, point);
    let (dl_dq, rest) = values.split_at(d);
    let (dl_dv, rest) = rest.split_at(d);
    let (jac, rest) = rest.split_at(model.n_constraints() * d);
    let (xi, xi_dot) = rest.split_at(d);
    let terms = (0..d).flat_map(|i| [dl_dq[i] * xi[i], dl_dv[i] * xi_dot[i]]);
    if !invariant(terms) {
        return Some("the Lagrangian".to_string());
    }
    for (k, c) in model.constraints.iter().enumerate() {
        let row = &jac[k * d..(k + 1) * d];
        if !invariant((0..d).map(|i| row[i] * xi[i])) {
            return Some(format!("the constraint `{}`", c.name));
        }
    }
    None
}

/// Whether a sum of terms vanishes to round-off relative to their size.
fn invariant(terms: impl Iterator<Item = f64>) -> bool {
    let (sum, size) = terms.fold((0.0, 0.0), |(s, a), t| (s + t, a + t.abs()));
    sum.abs() <= TOLERANCE * size
}

/// The values of `outputs` at `point`, with the parameters at their defaults.
fn evaluate(model: &Model, outputs: &[Id], point: &Point) -> Vec<f64> {
    model.graph.eval_many(outputs, &|v| match model.role(v) {
        Role::Param(k) => model.params[k].default,
        Role::Q(i) => point.q[i],
        Role::V(i) => point.v[i],
        _ => f64::NAN,
    })
}

/// Up to [`POINTS`] consistent points from a fixed pseudo-random sequence: `q` by
/// minimum-norm Gauss–Newton onto `g(q) = 0`, `v` projected onto `G(q) v = 0`. Points
/// where the projection fails (a singular `G`) are skipped; with none left, nothing is
/// checked rather than something refused.
fn consistent_points(model: &Model, quantities: &Quantities) -> Vec<Point> {
    let (d, m) = (model.dim(), model.n_constraints());
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut uniform = move || {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    let mut outputs: Vec<Id> = quantities.g.clone();
    outputs.extend(quantities.jac.iter().flatten());
    let mut points = Vec::new();
    for _ in 0..3 * POINTS {
        if points.len() == POINTS {
            break;
        }
        let mut point = Point {
            q: (0..d).map(|_| uniform()).collect(),
            v: (0..d).map(|_| uniform()).collect(),
        };
        if m == 0 {
            points.push(point);
            continue;
        }
        let mut converged = false;
        for _ in 0..30 {
            let values = evaluate(model, &outputs, &point);
            let (g, jac) = values.split_at(m);
            if g.iter().all(|x| x.abs() <= 1e-13) {
                converged = true;
                break;
            }
            let Some(step) = min_norm(jac, g, d) else {
                break;
            };
            for (q, s) in point.q.iter_mut().zip(step) {
                *q -= s;
            }
        }
        if !converged {
            continue;
        }
        let jac = &evaluate(model, &outputs, &point)[m..];
        let gv: Vec<f64> = (0..m)
            .map(|k| (0..d).map(|i| jac[k * d + i] * point.v[i]).sum())
            .collect();
        let Some(step) = min_norm(jac, &gv, d) else {
            continue;
        };
        for (v, s) in point.v.iter_mut().zip(step) {
            *v -= s;
        }
        if point.q.iter().chain(&point.v).all(|x| x.is_finite()) {
            points.push(point);
        }
    }
    points
}

/// `Gᵀ (G Gᵀ)⁻¹ y` for the row-major `m × d` matrix `jac`: the smallest `x` with
/// `G x = y`. `None` if `G Gᵀ` is singular.
fn min_norm(jac: &[f64], y: &[f64], d: usize) -> Option<Vec<f64>> {
    let rows: Vec<&[f64]> = jac.chunks(d).take(y.len()).collect();
    super::linear::min_norm(&rows, y, 0.0)
}
