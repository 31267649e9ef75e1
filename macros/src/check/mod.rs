//! Checks that a model supports the schemes it asks for. One function per condition,
//! each with the reason it exists; errors land on the user's token.
mod linear;
mod momentum_drift;
mod rigid_bodies;
mod sampled;
mod symmetry;

pub use momentum_drift::momentum_drift;

use crate::errors::Errors;
use crate::ir::{CoordKind, Model, Role};
use crate::quantities::{is_constant, Quantities};
use crate::schemes::{ModelShape, SchemeKind, SchemeRequest};

/// Where the user finds every scheme with its requirements.
const CATALOGUE_HINT: &str = "the README's scheme table lists every scheme with its requirements";

/// Runs every check, reporting all failures together.
pub fn check(
    model: &mut Model,
    quantities: &Quantities,
    schemes: &[SchemeRequest],
) -> syn::Result<()> {
    let mut errors = Errors::default();
    let reported = degenerate_constraints(model, &mut errors);
    sampled::independent_constraints(model, &reported, &mut errors);
    sampled::regular_mass(model, &quantities.mass, schemes, &mut errors);
    quadratic_invariants(model, &mut errors);
    sampled::constant_invariants(model, &mut errors);
    constant_mass_matrix(model, quantities, schemes, &mut errors);
    unconstrained_only(model, schemes, &mut errors);
    nonholonomic_schemes(model, schemes, &mut errors);
    forced_schemes(model, schemes, &mut errors);
    group_models(model, schemes, &mut errors);
    single_quaternion(model, schemes, &mut errors);
    rigid_bodies::rigid_bodies(model, quantities, schemes, &mut errors);
    // A group model's `momentum` block is `group_models`'s error.
    if sampled::finite_lagrangian(model, &mut errors) && !model.is_group() {
        symmetry::symmetries(model, quantities, &mut errors);
    }
    errors.finish()
}

/// Null-EML rotates the one quaternion of the model and drops the multiplier of its
/// unit-norm constraint (spec 001 §2.6): the model must be that and nothing more,
/// recognised at points: the constraint `g(q) = c (q·q − 1)` for one `c ≠ 0`.
fn single_quaternion(model: &Model, schemes: &[SchemeRequest], errors: &mut Errors) {
    let at = |e, q: &[f64; 4]| {
        model.graph.eval(e, &|v| match model.role(v) {
            Role::Q(i) => q[i],
            Role::Param(k) => model.params[k].default,
            _ => f64::NAN,
        })
    };
    for req in schemes
        .iter()
        .filter(|s| s.kind.model_shape() == ModelShape::OneQuaternion)
    {
        let one_quaternion = matches!(model.coords.as_slice(), [c] if c.kind == CoordKind::Quat);
        let unit = one_quaternion && model.constraints.len() == 1 && {
            let g = model.constraints[0].expr;
            is_unit_norm(POINTS.iter().map(|q| (at(g, q), &q[..])))
        };
        if !unit {
            // error: scheme `NullEml` is for one rigid body …
            errors.push(
                req.span,
                format!(
                    "scheme `{}` is for one rigid body: its update rotates the model's only \
                     coordinate, a `Quat`, whose only constraint is its unit norm (`holonomic \
                     {{ unit: 0.5 * (dot(q, q) - 1.0) }}`); use `Eml` or `Reml` for other models",
                    req.kind.name()
                ),
            );
        }
    }
}

/// Whether a constraint is `c (q·q − 1)` for one `c ≠ 0`, from its values at points
/// (not unit) and the quaternion `q` there: the ratios agree to 1e-12.
fn is_unit_norm<'a>(values: impl Iterator<Item = (f64, &'a [f64])>) -> bool {
    let ratios: Vec<f64> = values
        .map(|(g, q)| g / (q.iter().map(|x| x * x).sum::<f64>() - 1.0))
        .collect();
    ratios[0].abs() > 1e-12
        && ratios
            .iter()
            .all(|r| (r - ratios[0]).abs() <= 1e-12 * ratios[0].abs())
}

/// Points (not unit) where a rigid-body scheme's model is recognised: the unit-norm
/// constraint's ratio to `q·q − 1`, and the mass matrix against `4 GᵀJ₀G`, an identity
/// for every `q` ([`rigid_bodies`]).
const POINTS: [[f64; 4]; 3] = [
    [0.3, -0.7, 0.2, 0.9],
    [1.4, 0.1, -0.5, 0.2],
    [-0.2, 0.6, 0.8, -1.1],
];

/// A scheme whose equations have no force term would integrate the unforced system.
fn forced_schemes(model: &Model, schemes: &[SchemeRequest], errors: &mut Errors) {
    if model.forces.is_none() {
        return;
    }
    let takers: Vec<&str> = SchemeKind::all()
        .filter(|k| k.takes_forces())
        .map(SchemeKind::name)
        .collect();
    for req in schemes.iter().filter(|s| !s.kind.takes_forces()) {
        // error: scheme `GglEm` does not take `forces` yet; …
        errors.push(
            req.span,
            format!(
                "scheme `{}` does not take `forces` yet: its equations have no force term; \
                 the schemes that do are {}",
                req.kind.name(),
                takers.join(", ")
            ),
        );
    }
}

/// The schemes written on a Lie group (spec `next_packages.md` §A: the Lobatto
/// IIIA–IIIB family and its nonholonomic form, `families::prk_lie` and
/// `prk_lie_nonholonomic`), the only ones a model with `SO3` or `SE2` coordinates takes.
const ON_GROUPS: [&str; 3] = [
    "LobattoIIIAIIIB",
    "NonholonomicLobatto",
    "NonholonomicLobattoCarried",
];

/// A model with a coordinate on a Lie group is stepped by the families written on
/// groups; every other scheme would move its storage as a vector and leave the group.
/// The blocks those families do not take on a group yet are refused too.
fn group_models(model: &Model, schemes: &[SchemeRequest], errors: &mut Errors) {
    if !model.is_group() {
        return;
    }
    for req in schemes
        .iter()
        .filter(|s| !ON_GROUPS.contains(&s.kind.name()))
    {
        // error: scheme `GglEm` steps models in a vector space; …
        errors.push(
            req.span,
            format!(
                "scheme `{}` steps models in a vector space, and this model has a coordinate \
                 on a Lie group (`SO3`, `SE2`); use `LobattoIIIAIIIB(s)`, or \
                 `NonholonomicLobatto(s)` with a `nonholonomic` block, which keep it on its \
                 group",
                req.kind.name(),
            ),
        );
    }
    if let Some(c) = model.constraints.first() {
        errors.push(
            c.span,
            "a model with `SO3` or `SE2` coordinates takes no `holonomic` block yet; write the \
             constraint at velocity level in `nonholonomic`, or use vector coordinates",
        );
    }
    if let Some(m) = model.momenta.first() {
        errors.push(
            m.name.span(),
            "`momentum` maps are not derived on `SO3` or `SE2` coordinates yet; declare the \
             momentum as an observable (a rigid body's spatial angular momentum is \
             `rotate(R, vec3(j1 * R_dot.x, j2 * R_dot.y, j3 * R_dot.z))`)",
        );
    }
    if model.forces.is_some() || !model.inputs.is_empty() {
        errors.push(
            model.name.span(),
            "the families on a Lie group take no `forces` or `inputs` yet; this model has \
             `SO3` or `SE2` coordinates",
        );
    }
}

/// A scheme for unconstrained models would silently ignore the constraints. The error
/// names a scheme of the catalogue that takes holonomic constraints (one, so that the
/// message does not change with every scheme added).
fn unconstrained_only(model: &Model, schemes: &[SchemeRequest], errors: &mut Errors) {
    // A group model's `holonomic` block is `group_models`'s error.
    if model.constraints.is_empty() || model.is_group() {
        return;
    }
    let example = SchemeKind::all()
        .find(|k| k.supports_constraints())
        .map_or("", SchemeKind::name);
    // A nonholonomic scheme takes holonomic constraints at velocity level; whether it
    // applies at all is `nonholonomic_schemes`'s question.
    let refused =
        |s: &&SchemeRequest| !s.kind.supports_constraints() && !s.kind.integrates_nonholonomic();
    for req in schemes.iter().filter(refused) {
        // error: scheme `LobattoIIIAIIIB` is for unconstrained models ...
        errors.push(
            req.span,
            format!(
                "scheme `{}` is for unconstrained models and would ignore the `holonomic` \
                 block (its constrained forms are not built yet); use a scheme that takes \
                 holonomic constraints, such as `{example}` ({CATALOGUE_HINT})",
                req.kind.name(),
            ),
        );
    }
}

/// A scheme that does not integrate nonholonomic constraints would step the model as if
/// they were not there; a nonholonomic scheme needs some (and takes holonomic ones
/// besides, at velocity level).
fn nonholonomic_schemes(model: &Model, schemes: &[SchemeRequest], errors: &mut Errors) {
    let nonholonomic = !model.nonholonomic.is_empty();
    let example = SchemeKind::all()
        .find(|k| k.integrates_nonholonomic())
        .map_or("", SchemeKind::name);
    for req in schemes {
        let message = match (nonholonomic, req.kind.integrates_nonholonomic()) {
            // error: scheme `GglEm` would ignore the `nonholonomic` block ...
            (true, false) => format!(
                "scheme `{}` would ignore the `nonholonomic` block; use `{example}(s)`, which \
                 integrates nonholonomic constraints ({CATALOGUE_HINT})",
                req.kind.name(),
            ),
            (false, true) => {
                // The stage family of the same paper for the model's constraints.
                let instead = SchemeKind::all()
                    .filter(|k| k.family().assembled().is_some() && !k.integrates_nonholonomic())
                    .find(|k| k.supports_constraints() != model.constraints.is_empty())
                    .map_or("", SchemeKind::name);
                let what = if model.constraints.is_empty() {
                    "an unconstrained model"
                } else {
                    "holonomic constraints"
                };
                format!(
                    "scheme `{}` integrates nonholonomic constraints and the model declares \
                     none; use `{instead}(s)` for {what}",
                    req.kind.name(),
                )
            }
            _ => continue,
        };
        errors.push(req.span, message);
    }
}

/// Constraints that constrain nothing, or one thing twice, make `G M⁻¹ Gᵀ` singular: the
/// step's Newton matrix then fails at run time with advice about the step size. Refuse
/// them here, where the user can see which one: identically zero, independent of the
/// coordinates, the same as (or the negative of) an earlier one, or more scalar
/// constraints than coordinates. Returns which constraints it reported; the sampled
/// check (`sampled::independent_constraints`) decides the rest by the numbers.
fn degenerate_constraints(model: &mut Model, errors: &mut Errors) -> Vec<bool> {
    let d = model.dim();
    let mut reported = vec![false; model.constraints.len()];
    let mut seen: Vec<(crate::sym::Id, String)> = Vec::new();
    // `a` repeats `b` if the simplifier cancels `a − b` or `a + b` to zero.
    let repeats = |g: &mut crate::sym::Graph, a, b| {
        let (diff, sum) = (g.sub(a, b), g.add(a, b));
        g.is_zero(diff) || g.is_zero(sum)
    };
    for (k, c) in model.constraints.iter().enumerate() {
        reported[k] = true;
        if model.graph.is_zero(c.expr) {
            errors.push(
                c.span,
                format!("constraint `{}` is identically zero; remove it", c.name),
            );
        } else if !model.graph.depends_on_any(c.expr, |v| model.is_q(v)) {
            errors.push(
                c.span,
                format!(
                    "constraint `{}` does not depend on the coordinates, so it cannot hold \
                     (or holds trivially); a holonomic constraint is a function of the positions",
                    c.name
                ),
            );
        } else if let Some((_, first)) = seen
            .iter()
            .find(|(e, _)| repeats(&mut model.graph, c.expr, *e))
        {
            errors.push(
                c.span,
                format!(
                    "constraint `{}` repeats `{first}`; remove one of them",
                    c.name
                ),
            );
        } else if k == d {
            errors.push(
                c.span,
                format!(
                    "{} scalar constraints on {d} coordinates: at most {d} can be independent; \
                     remove the redundant ones",
                    model.constraints.len()
                ),
            );
        } else {
            reported[k] = false;
        }
        seen.push((c.expr, c.name.clone()));
    }
    reported
}

/// A declared invariant enters the energy–momentum schemes' discrete gradient as
/// `Δπ = ∇π(q^½) · Δq` (spec 000 §2.6, eqs. (122)–(126)), or `∂π/∂q Δq + ∂π/∂v Δv` at
/// the midpoint for one of the velocities (spec 001 eqs. (87)–(89)), which is exact only
/// for functions of degree ≤ 2 in the positions and velocities together.
fn quadratic_invariants(model: &Model, errors: &mut Errors) {
    let is_state = |v| model.is_q(v) || model.is_v(v);
    let mut reported = std::collections::HashSet::new();
    for inv in &model.invariants {
        let deg = model.graph.degree(inv.expr, &is_state);
        // A vector invariant is reported once, at its first offending component.
        if deg.is_none_or(|d| d > 2) && reported.insert(inv.name.to_string()) {
            let what = deg.map_or_else(
                || "is not a polynomial".to_string(),
                |d| format!("has degree {d}"),
            );
            errors.push(
                inv.name.span(),
                format!(
                    "invariant `{}` {what}; declared invariants must be quadratic in the \
                     coordinates and velocities (squared distances, dot products, \
                     `omega(q, q_dot)`), so that the discrete gradient built on them is exact",
                    inv.label
                ),
            );
        }
    }
}

/// Every GGL scheme assumes `L = ½ vᵀ M v − V(q)` with a constant, nonsingular `M`
/// (spec 000 §1 and Sect. 7 of the paper): the discrete equations use `M⁻¹` and the
/// secondary constraint `G M⁻¹ p`.
fn constant_mass_matrix(
    model: &mut Model,
    quantities: &Quantities,
    schemes: &[SchemeRequest],
    errors: &mut Errors,
) {
    let Some(req) = schemes.iter().find(|s| s.kind.needs_constant_mass()) else {
        return;
    };
    let (name, span) = (req.kind.name(), req.span);
    if !is_constant(model, &quantities.mass) {
        // error: scheme `GglEm` needs a constant mass matrix, but ∂²L/∂v² depends on the coordinates
        errors.push(
            span,
            format!(
                "scheme `{name}` needs a constant mass matrix (L = ½ vᵀMv − V(q)), but \
                 ∂²L/∂v² of this model depends on the coordinates or velocities; declare the \
                 model in redundant (e.g. Cartesian) coordinates with holonomic constraints, \
                 so that the kinetic energy has constant coefficients"
            ),
        );
        return;
    }
    // No terms linear in v: ∂L/∂v must vanish at v = 0.
    let is_v = |v| model.is_v(v);
    let quadratic = model
        .graph
        .degree(model.lagrangian, &is_v)
        .is_some_and(|d| d <= 2);
    let zero = model.graph.zero();
    let map = model.v.iter().map(|&v| (v, zero)).collect();
    let at_rest = model.graph.substitute(&quantities.dl_dv, &map);
    if !quadratic || at_rest.iter().any(|&e| !model.graph.is_zero(e)) {
        errors.push(
            span,
            format!("scheme `{name}` needs a Lagrangian of the form ½ vᵀMv − V(q), with no terms linear in the velocities"),
        );
        return;
    }
    if let Err(e) = positive_definite(model, &quantities.mass) {
        errors.push(
            model.energy_span,
            format!("{e}; scheme `{name}` inverts it"),
        );
    } else if quantities.minv.is_none() {
        errors.push(
            span,
            format!("scheme `{name}` needs a nonsingular mass matrix; some coordinate has no kinetic energy"),
        );
    }
}

/// A constant mass matrix must be symmetric positive definite for the kinetic energy
/// to be a kinetic energy, and for `M⁻¹` (built symbolically without pivoting, see
/// `quantities::constant_inverse`) to exist. Its entries depend on the parameters
/// only, so it is checked at their defaults by a Cholesky factorisation; the
/// `requires` block keeps run-time values in range (`m > 0.0`). A negative mass or an
/// indefinite inertia used to pass as "nonsingular".
fn positive_definite(model: &Model, mass: &[Vec<crate::sym::Id>]) -> Result<(), String> {
    let defaults: Vec<f64> = model.params.iter().map(|p| p.default).collect();
    let value = |e| {
        model.graph.eval(e, &|v| match model.role(v) {
            crate::ir::Role::Param(k) => defaults[k],
            _ => f64::NAN,
        })
    };
    let a: Vec<Vec<f64>> = mass
        .iter()
        .map(|row| row.iter().map(|&e| value(e)).collect())
        .collect();
    for (k, row) in a.iter().enumerate() {
        if row.iter().all(|&x| x == 0.0) {
            return Err(format!(
                "the coordinate `{}` carries no kinetic energy (its row of the mass matrix \
                 ∂²L/∂v² is zero at the parameters' defaults)",
                model.coord_names[k]
            ));
        }
    }
    // A pivot ≤ 0 (or NaN) means M is not positive definite.
    if let Some((j, pivot)) = linear::nonpositive_pivot(&a) {
        return Err(format!(
            "the mass matrix ∂²L/∂v² is not positive definite at the parameters' defaults \
             (elimination meets a pivot of {pivot:?} at the coordinate `{}`): the kinetic \
             energy must be positive for every nonzero velocity, so check the signs of \
             the masses and inertias",
            model.coord_names[j]
        ));
    }
    Ok(())
}
