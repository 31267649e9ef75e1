//! The Hamiltonian schemes MPH and EMH write the model with the regular mass matrix
//! `M₄ = 4 Q_l J₄ Q_lᵀ` of each rigid body, built from its inertia `J₀` (Kinon, Betsch
//! 2024, App. D; spec 001 §2.8–2.9), and the inverse of a constant mass matrix on the
//! other coordinates (`schemes::body_hamiltonian`). So the model must be rigid bodies in
//! unit quaternions and particles, recognised at points:
//!
//! - every `Quat` coordinate has its unit norm among the constraints, `c (q·q − 1)` for one
//!   `c ≠ 0` (the Hamiltonian form is the model's on `|q| = 1` only, Remark D.1);
//! - its block of the mass matrix is `4 G(q)ᵀJ₀G(q)` with `J₀` read at the identity,
//!   constant and positive definite (the kinetic energy `½ Ω·J₀Ω`, `Ω = 2 G(q) q̇`);
//! - no term of the kinetic energy couples a body to another coordinate;
//! - the other coordinates' mass matrix is constant and positive definite.
use super::POINTS;
use crate::errors::Errors;
use crate::ir::{Model, Role};
use crate::quantities::{is_constant, Quantities};
use crate::schemes::{ModelShape, SchemeRequest};

/// Reports every rigid-body scheme the model cannot take, with the first reason.
pub fn rigid_bodies(
    model: &Model,
    quantities: &Quantities,
    schemes: &[SchemeRequest],
    errors: &mut Errors,
) {
    let requests: Vec<&SchemeRequest> = schemes
        .iter()
        .filter(|s| s.kind.model_shape() == ModelShape::RigidBody)
        .collect();
    if requests.is_empty() {
        return;
    }
    let Err(why) = recognise(model, quantities) else {
        return;
    };
    for req in requests {
        // error: scheme `Emh` needs …
        errors.push(req.span, format!("scheme `{}` {why}", req.kind.name()));
    }
}

/// `Ok` for rigid bodies and particles, else why not (the message after the scheme's name).
fn recognise(model: &Model, quantities: &Quantities) -> Result<(), String> {
    let d = model.dim();
    let (bodies, rest) = model.bodies_and_particles();
    if bodies.is_empty() || model.coords.iter().any(|c| c.kind.is_group()) {
        return Err(format!(
            "is for rigid bodies in unit quaternions: its equations are the Hamiltonian form \
             of `Quat` coordinates and particles; use `Eml` or `Mpl` for {}",
            if bodies.is_empty() {
                "a model without a `Quat`"
            } else {
                "a model on a group"
            }
        ));
    }
    let points = sample_points(d, &bodies);
    let eval = |e, z: &[f64]| {
        model.graph.eval(e, &|v| match model.role(v) {
            Role::Q(i) => z[i],
            Role::Param(k) => model.params[k].default,
            _ => f64::NAN,
        })
    };
    for &b in &bodies {
        let unit = model
            .constraints
            .iter()
            .any(|c| super::is_unit_norm(points.iter().map(|z| (eval(c.expr, z), &z[b..b + 4]))));
        if !unit {
            let name = model.coord_names[b].split('.').next().unwrap_or("q");
            return Err(format!(
                "is for rigid bodies in unit quaternions: the `Quat` coordinate `{name}` needs \
                 its unit norm among the constraints (`holonomic {{ unit: 0.5 * (dot({name}, \
                 {name}) - 1.0) }}`), since the Hamiltonian form with `M4` is the model's on \
                 `|{name}| = 1` only; use `Eml` or `Reml` for other models"
            ));
        }
    }
    let mass = |z: &[f64]| -> Vec<Vec<f64>> {
        let m = &quantities.mass;
        m.iter()
            .map(|row| row.iter().map(|&e| eval(e, z)).collect())
            .collect()
    };
    let rest_mass: Vec<Vec<_>> = rest
        .iter()
        .map(|&i| rest.iter().map(|&j| quantities.mass[i][j]).collect())
        .collect();
    let masses: Vec<Vec<Vec<f64>>> = points.iter().map(|z| mass(z)).collect();
    let bodies_ok = bodies.iter().all(|&b| {
        let mut at_identity = points[0].clone();
        at_identity[b..b + 4].copy_from_slice(&[1.0, 0.0, 0.0, 0.0]);
        let m_e = mass(&at_identity);
        let j0: Vec<Vec<f64>> = (1..4)
            .map(|i| (1..4).map(|j| 0.25 * m_e[b + i][b + j]).collect())
            .collect();
        positive_definite(&j0)
            && m_e[b][b..b + 4].iter().all(|&x| x == 0.0)
            && points.iter().zip(&masses).all(|(z, m)| {
                let scale = m.iter().flatten().fold(1.0f64, |s, x| s.max(x.abs()));
                let want = body_mass(&j0, &z[b..b + 4]);
                (0..d).all(|r| {
                    (0..4).all(|c| {
                        let expected = if (b..b + 4).contains(&r) {
                            want[r - b][c]
                        } else {
                            0.0
                        };
                        (m[r][b + c] - expected).abs() <= 1e-12 * scale
                    })
                })
            })
    });
    let rest_ok = is_constant(model, &rest_mass)
        && positive_definite(
            &rest
                .iter()
                .map(|&i| rest.iter().map(|&j| masses[0][i][j]).collect())
                .collect::<Vec<_>>(),
        );
    if bodies_ok && rest_ok {
        return Ok(());
    }
    Err("needs the kinetic energy of rigid bodies and particles: `0.5 * dot(w, J0 w)` for \
         each `Quat` with `w = omega(q, q_dot)` and a constant positive definite `J0`, \
         `0.5 * dot(v, M v)` with a constant positive definite `M` for the other coordinates, \
         and no term coupling a body's velocity to another coordinate's: it builds the regular mass \
         matrix `M4` of each body from its `J0`; use `Eml` or `Mpl` for other kinetic energies"
        .to_string())
}

/// Points (not unit) where the model is recognised: each body takes one of [`POINTS`]
/// in turn, the other coordinates values that differ between the points.
fn sample_points(d: usize, bodies: &[usize]) -> Vec<Vec<f64>> {
    (0..POINTS.len())
        .map(|k| {
            let mut z: Vec<f64> = (0..d)
                .map(|i| 0.37 * ((3 * i + 5 * k) % 7) as f64 - 1.1)
                .collect();
            for (n, &b) in bodies.iter().enumerate() {
                z[b..b + 4].copy_from_slice(&POINTS[(k + n) % POINTS.len()]);
            }
            z
        })
        .collect()
}

/// `4 G(q)ᵀ J₀ G(q)`, with `G(q) = [ −q⃗ , q₀ I₃ − hat(q⃗) ]` (35a).
fn body_mass(j0: &[Vec<f64>], q: &[f64]) -> [[f64; 4]; 4] {
    let g = [
        [-q[1], q[0], q[3], -q[2]],
        [-q[2], -q[3], q[0], q[1]],
        [-q[3], q[2], -q[1], q[0]],
    ];
    let mut out = [[0.0; 4]; 4];
    for (r, row) in out.iter_mut().enumerate() {
        for (c, x) in row.iter_mut().enumerate() {
            *x = (0..3)
                .map(|i| {
                    (0..3)
                        .map(|j| 4.0 * g[i][r] * j0[i][j] * g[j][c])
                        .sum::<f64>()
                })
                .sum();
        }
    }
    out
}

/// Whether a symmetric matrix is positive definite (a NaN entry, from a mass that depends
/// on the velocities, is not).
fn positive_definite(a: &[Vec<f64>]) -> bool {
    super::linear::nonpositive_pivot(a).is_none()
}
