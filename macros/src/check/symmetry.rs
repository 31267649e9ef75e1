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
pub fn symmetries(model: &Model, quantities: &Quantities, errors: &mut Errors) {
    if model.momenta.is_empty() {
        return;
    }
    let blocks: Vec<usize> = model
        .coords
        .iter()
        .filter(|c| c.kind == CoordKind::Vec3)
        .map(|c| c.offset)
        .collect();
    let points = consistent_points(model, quantities);
    for momentum in &model.momenta {
        let (kind, axis) = match momentum.symmetry {
            Symmetry::Rotation(a) => ("rotation", a),
            Symmetry::Translation(a) => ("translation", a),
        };
        if blocks.is_empty() {
            // error: momentum map `jz` is identically zero …
            errors.add(syn::Error::new_spanned(
                &momentum.tokens,
                format!(
                    "momentum map `{}` is identically zero: a {kind} acts on the `Vec3` \
                     coordinates, and this model has none; remove it",
                    momentum.name
                ),
            ));
            continue;
        }
        if axis == [0.0; 3] {
            errors.add(syn::Error::new_spanned(
                &momentum.tokens,
                format!(
                    "momentum map `{}` is identically zero: its axis is the zero vector",
                    momentum.name
                ),
            ));
            continue;
        }
        if let Some(broken) = points.iter().find_map(|point| {
            broken_invariance(model, quantities, momentum.symmetry, &blocks, point)
        }) {
            // error: `jx: rotation(e1)` is not a symmetry of the model: the Lagrangian …
            errors.add(syn::Error::new_spanned(
                &momentum.tokens,
                format!(
                    "momentum map `{}` is not conserved: this {kind} is not a symmetry of \
                     the model, since {broken} changes along it; declare only symmetries \
                     of the Lagrangian and the constraints",
                    momentum.name
                ),
            ));
        }
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
    symmetry: Symmetry,
    blocks: &[usize],
    point: &Point,
) -> Option<String> {
    let d = model.dim();
    // ξ(q) and its lift ξ'(q) v to the velocities, per Vec3 block.
    let (mut xi, mut xi_dot) = (vec![0.0; d], vec![0.0; d]);
    for &b in blocks {
        let (q, v) = (&point.q[b..b + 3], &point.v[b..b + 3]);
        let (x, xd) = match symmetry {
            Symmetry::Rotation(a) => (cross(a, q), cross(a, v)),
            Symmetry::Translation(a) => (a, [0.0; 3]),
        };
        xi[b..b + 3].copy_from_slice(&x);
        xi_dot[b..b + 3].copy_from_slice(&xd);
    }
    let mut outputs: Vec<Id> = quantities.dl_dq.clone();
    outputs.extend(&quantities.dl_dv);
    outputs.extend(quantities.jac.iter().flatten());
    let values = evaluate(model, &outputs, point);
    let (dl_dq, rest) = values.split_at(d);
    let (dl_dv, jac) = rest.split_at(d);
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

fn cross(a: [f64; 3], b: &[f64]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
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
    let m = y.len();
    let row = |k: usize| &jac[k * d..(k + 1) * d];
    let mut a: Vec<Vec<f64>> = (0..m)
        .map(|i| {
            (0..m)
                .map(|j| row(i).iter().zip(row(j)).map(|(x, y)| x * y).sum())
                .collect()
        })
        .collect();
    let mut z = y.to_vec();
    // Gaussian elimination with partial pivoting.
    for k in 0..m {
        let p = (k..m).max_by(|&i, &j| a[i][k].abs().total_cmp(&a[j][k].abs()))?;
        if a[p][k].abs() <= 1e-300 || !a[p][k].is_finite() {
            return None;
        }
        a.swap(k, p);
        z.swap(k, p);
        let pivot_row = a[k].clone();
        for i in k + 1..m {
            let f = a[i][k] / pivot_row[k];
            for (x, p) in a[i][k..].iter_mut().zip(&pivot_row[k..]) {
                *x -= f * p;
            }
            z[i] -= f * z[k];
        }
    }
    for k in (0..m).rev() {
        let s: f64 = (k + 1..m).map(|j| a[k][j] * z[j]).sum();
        z[k] = (z[k] - s) / a[k][k];
    }
    Some(
        (0..d)
            .map(|i| (0..m).map(|k| row(k)[i] * z[k]).sum())
            .collect(),
    )
}
