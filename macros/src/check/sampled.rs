//! Conditions decided by the numbers, at sample points, where syntax cannot decide them:
//! whether the constraints are independent (`2·g` next to `g`, `(x + y)² − (x² + 2xy +
//! y²)`, a holonomic constraint beside its own time derivative), whether they are finite
//! at the parameters' defaults, and whether the mass matrix is regular.
//!
//! A property that holds at a generic point holds at almost every point, so a set of
//! rows independent at one of a few pseudo-random points is independent as a model,
//! and a set dependent at all of them is dependent everywhere but on a null set. The
//! points are fixed, so a model's diagnostics do not change between builds.
use super::linear::{min_norm, solve};
use crate::errors::Errors;
use crate::ir::{Model, Role};
use crate::schemes::SchemeRequest;
use crate::sym::Id;

/// How many points are tried; a point where some checked quantity is not finite
/// (`sqrt` of a negative coordinate, say) is skipped.
const POINTS: usize = 12;

/// A row whose part independent of the earlier rows is below this fraction of its
/// magnitude is dependent on them: round-off leaves about 1e-15, a generic independent
/// row about 1.
const TOLERANCE: f64 = 1e-9;

/// One sample point: a value for every coordinate and velocity, in `±[0.35, 1.15]`.
/// The first point is all positive (`sqrt(x)`, `ln(l)` are finite there), the others
/// have pseudo-random signs.
fn point(k: usize, (nq, nv): (usize, usize)) -> (Vec<f64>, Vec<f64>) {
    // SplitMix64: a fixed sequence, the same in every build.
    let mut state = 0x9E37_79B9_7F4A_7C15u64.wrapping_mul(k as u64 + 1);
    let mut next = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut value = || {
        let bits = next();
        let magnitude = 0.35 + 0.8 * (bits >> 11) as f64 / (1u64 << 53) as f64;
        if k > 0 && bits & 1 == 1 {
            -magnitude
        } else {
            magnitude
        }
    };
    let q = (0..nq).map(|_| value()).collect();
    let v = (0..nv).map(|_| value()).collect();
    (q, v)
}

/// The numbers of a sample point's positions and velocities (different on a group).
fn sizes(model: &Model) -> (usize, usize) {
    (model.storage_dim(), model.dim())
}

/// Values and magnitudes of `rows` at sample point `k`, the parameters at their defaults;
/// `None` if any entry is not finite there.
fn rows_at(model: &Model, rows: &[Vec<Id>], k: usize) -> Option<Vec<Row>> {
    let (q, v) = point(k, sizes(model));
    values_at(model, rows, &q, &v)
}

/// Values and magnitudes of `rows` at `(q, v)`, the parameters at their defaults; `None`
/// if any entry is not finite there.
fn values_at(model: &Model, rows: &[Vec<Id>], q: &[f64], v: &[f64]) -> Option<Vec<Row>> {
    let flat: Vec<Id> = rows.iter().flatten().copied().collect();
    let values = model
        .graph
        .eval_with_magnitude(&flat, &|var| match model.role(var) {
            Role::Q(i) => q[i],
            Role::V(i) => v[i],
            Role::Param(p) => model.params[p].default,
            _ => f64::NAN,
        });
    if values.iter().any(|(x, m)| !x.is_finite() || !m.is_finite()) {
        return None;
    }
    let mut values = values.into_iter();
    Some(
        rows.iter()
            .map(|r| {
                let (value, magnitude) = values.by_ref().take(r.len()).unzip();
                Row { value, magnitude }
            })
            .collect(),
    )
}

/// Sample point `k` with its positions moved onto `g(q) = 0` by Gauss–Newton steps of
/// least norm, `q ← q − Gᵀ(G Gᵀ)⁻¹ g(q)`; `None` if they do not get there (no real
/// solution nearby, a point where `g` is not finite). Near a constraint whose gradient
/// vanishes on `g = 0` the steps converge only linearly, hence the many iterations.
fn on_manifold(model: &Model, g: &[Id], gradients: &[Vec<Id>], k: usize) -> Option<Vec<f64>> {
    let (mut q, v) = point(k, sizes(model));
    let mut rows = vec![g.to_vec()];
    rows.extend(gradients.iter().cloned());
    for _ in 0..200 {
        let at = values_at(model, &rows, &q, &v)?;
        let (gv, gm) = (&at[0].value, &at[0].magnitude);
        if gv.iter().zip(gm).all(|(x, m)| x.abs() <= 1e-14 * m) {
            return Some(q);
        }
        let jac: Vec<&[f64]> = at[1..].iter().map(|r| r.value.as_slice()).collect();
        // A small ridge keeps the step defined where `G` loses rank.
        let step = min_norm(&jac, gv, 1e-14)?;
        for (qi, s) in q.iter_mut().zip(step) {
            *qi -= s;
        }
    }
    None
}

/// A row's entries at a point, and their magnitudes (see `Graph::eval_with_magnitude`).
struct Row {
    value: Vec<f64>,
    magnitude: Vec<f64>,
}

/// What a row is, given the rows before it.
#[derive(Clone, Debug, PartialEq)]
enum Fate {
    Independent,
    /// Zero up to cancelling terms.
    Zero,
    /// A combination of these earlier rows.
    DependsOn(Vec<usize>),
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn norm(a: &[f64]) -> f64 {
    dot(a, a).sqrt()
}

/// Each row's fate at one point: Gram–Schmidt (twice, for round-off) against the
/// independent rows before it.
fn fates_at(rows: &[Row], tolerance: f64) -> Vec<Fate> {
    let mut basis: Vec<Vec<f64>> = Vec::new();
    let mut kept: Vec<usize> = Vec::new();
    let mut fates = Vec::with_capacity(rows.len());
    for (k, row) in rows.iter().enumerate() {
        let scale = norm(&row.magnitude);
        let mut rest = row.value.clone();
        for _ in 0..2 {
            for e in &basis {
                let c = dot(&rest, e);
                rest.iter_mut().zip(e).for_each(|(r, x)| *r -= c * x);
            }
        }
        let left = norm(&rest);
        if scale > 0.0 && left > tolerance * scale {
            basis.push(rest.iter().map(|x| x / left).collect());
            kept.push(k);
            fates.push(Fate::Independent);
        } else if scale == 0.0 || norm(&row.value) <= tolerance * scale {
            fates.push(Fate::Zero);
        } else {
            fates.push(Fate::DependsOn(combination(rows, &kept, &row.value)));
        }
    }
    fates
}

/// The earlier rows (of `kept`, independent) that `r` is a combination of: the least
/// squares coefficients `(B Bᵀ) c = B r`, the rows with a share above 1e-6 of `r`.
fn combination(rows: &[Row], kept: &[usize], r: &[f64]) -> Vec<usize> {
    let b: Vec<&[f64]> = kept.iter().map(|&k| rows[k].value.as_slice()).collect();
    let n = b.len();
    let a: Vec<Vec<f64>> = (0..n)
        .map(|i| (0..n).map(|j| dot(b[i], b[j])).collect())
        .collect();
    let rhs: Vec<f64> = (0..n).map(|i| dot(b[i], r)).collect();
    let Some(c) = solve(a, rhs) else {
        return kept.to_vec();
    };
    let size = norm(r);
    (0..n)
        .filter(|&i| (c[i] * norm(b[i])).abs() > 1e-6 * size)
        .map(|i| kept[i])
        .collect()
}

/// The fate of each row over the usable sample points: independent if it is at any
/// point, otherwise its fate at the first. `None` if no point is usable.
fn fates(model: &Model, rows: &[Vec<Id>]) -> Option<Vec<Fate>> {
    let points = (0..POINTS).filter_map(|k| rows_at(model, rows, k));
    combine(points, TOLERANCE)
}

/// [`fates`] over the rows evaluated at some points.
fn combine(points: impl Iterator<Item = Vec<Row>>, tolerance: f64) -> Option<Vec<Fate>> {
    let mut result: Option<Vec<Fate>> = None;
    for at in points {
        let here = fates_at(&at, tolerance);
        match &mut result {
            None => result = Some(here),
            Some(fates) => {
                for (f, h) in fates.iter_mut().zip(here) {
                    if h == Fate::Independent {
                        *f = h;
                    }
                }
            }
        }
        if result
            .as_ref()
            .is_some_and(|f| f.iter().all(|f| *f == Fate::Independent))
        {
            break;
        }
    }
    result
}

/// Names `a`, `b` and `c` as "`a`, `b` and `c`".
fn names(list: &[String]) -> String {
    let quoted: Vec<String> = list.iter().map(|n| format!("`{n}`")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => quoted.concat(),
    }
}

/// The holonomic constraints' gradients and the nonholonomic constraints' rows of
/// `A(q)`, stacked in that order, must be independent: the steps solve with `G M⁻¹ Gᵀ`
/// (or its nonholonomic analogue), singular otherwise, and the multipliers would not be
/// determined. `reported[k]` marks holonomic constraints the syntactic checks already
/// refused; they are left out here.
pub fn independent_constraints(model: &mut Model, reported: &[bool], errors: &mut Errors) {
    let (q, v) = (model.q.clone(), model.v.clone());
    // (row, name, span, holonomic?)
    let mut rows: Vec<Vec<Id>> = Vec::new();
    let mut labels: Vec<(String, proc_macro2::Span, bool)> = Vec::new();
    for (c, _) in model.constraints.iter().zip(reported).filter(|(_, r)| !**r) {
        labels.push((c.name.clone(), c.span, true));
    }
    let holonomic: Vec<Id> = model
        .constraints
        .iter()
        .zip(reported)
        .filter(|(_, r)| !**r)
        .map(|(c, _)| c.expr)
        .collect();
    for e in holonomic {
        rows.push(model.graph.gradient(e, &q));
    }
    let nonholonomic: Vec<Id> = model.nonholonomic.iter().map(|c| c.expr).collect();
    for e in nonholonomic {
        rows.push(model.graph.gradient(e, &v));
    }
    labels.extend(
        model
            .nonholonomic
            .iter()
            .map(|c| (c.name.clone(), c.span, false)),
    );
    // Constraints that are not finite anywhere (a division by a parameter whose default
    // is 0): reported on their own, and the others checked without them.
    let values: Vec<Vec<Id>> = model
        .constraints
        .iter()
        .zip(reported)
        .filter(|(_, r)| !**r)
        .map(|(c, _)| vec![c.expr])
        .chain(model.nonholonomic.iter().map(|c| vec![c.expr]))
        .zip(&rows)
        .map(|(value, row)| value.into_iter().chain(row.iter().copied()).collect())
        .collect();
    let finite: Vec<bool> = values
        .iter()
        .map(|r| (0..POINTS).any(|k| rows_at(model, std::slice::from_ref(r), k).is_some()))
        .collect();
    for ((name, span, holonomic), _) in labels.iter().zip(&finite).filter(|(_, f)| !**f) {
        let kind = if *holonomic { "" } else { "nonholonomic " };
        // error: constraint `c` is not finite at any sampled point …
        errors.push(
            *span,
            format!(
                "{kind}constraint `{name}` or its gradient is not finite at any sampled point \
                 (coordinates and velocities of either sign, the parameters at their \
                 defaults): check for a division by a parameter whose default is zero, or \
                 a root or logarithm of a negative default"
            ),
        );
    }
    let kept: Vec<usize> = (0..rows.len()).filter(|&k| finite[k]).collect();
    let g: Vec<Id> = kept
        .iter()
        .filter(|&&k| labels[k].2)
        .map(|&k| values[k][0])
        .collect();
    let rows: Vec<Vec<Id>> = kept.iter().map(|&k| rows[k].clone()).collect();
    let labels: Vec<_> = kept.iter().map(|&k| labels[k].clone()).collect();
    let Some(fates) = fates(model, &rows) else {
        return;
    };
    // Independent at generic points, the rows may still lose rank where the constraints
    // hold: `(x² + y² − 1)²` has a zero gradient exactly on its circle.
    if fates.iter().all(|f| *f == Fate::Independent) {
        if let Some(on_g) = manifold_fates(model, &rows, &g) {
            report_dependent(model, &labels, &on_g, true, errors);
        }
    } else {
        report_dependent(model, &labels, &fates, false, errors);
    }
}

/// Where rows that are independent at generic points may still be dependent: within
/// this fraction of their magnitude at points of `g = 0`. The points are only as close
/// to `g = 0` as a squared constraint lets Gauss–Newton get (about 1e-7), so a gradient
/// that vanishes on `g = 0` is about 1e-7 of its magnitude there, where a generic one
/// is of order 1.
const MANIFOLD_TOLERANCE: f64 = 1e-5;

/// The rows' fates at up to four sample points moved onto `g = 0` (the holonomic
/// constraints `g`, whose gradients are the first rows); `None` without holonomic
/// constraints or with fewer than two points that reach `g = 0`.
fn manifold_fates(model: &Model, rows: &[Vec<Id>], g: &[Id]) -> Option<Vec<Fate>> {
    if g.is_empty() {
        return None;
    }
    let gradients = &rows[..g.len()];
    let points: Vec<Vec<f64>> = (0..POINTS)
        .filter_map(|k| on_manifold(model, g, gradients, k))
        .take(4)
        .collect();
    if points.len() < 2 {
        return None;
    }
    let v = point(0, sizes(model)).1;
    let at = points.iter().filter_map(|q| values_at(model, rows, q, &v));
    combine(at, MANIFOLD_TOLERANCE)
}

/// The errors of the rows that are not independent, each on its constraint's name;
/// `on_g` says the fates are those at points of `g = 0`.
fn report_dependent(
    model: &Model,
    labels: &[(String, proc_macro2::Span, bool)],
    fates: &[Fate],
    on_g: bool,
    errors: &mut Errors,
) {
    let d = model.dim();
    let at = if on_g {
        "at every sampled point where the holonomic constraints hold"
    } else {
        "at every sampled point"
    };
    let mut counted = false;
    for (k, fate) in fates.iter().enumerate() {
        let (name, span, holonomic) = &labels[k];
        let kind = if *holonomic { "" } else { "nonholonomic " };
        let message = match fate {
            Fate::Independent => continue,
            // A row past the `d`-th that combines a full basis is one too many, not a
            // repetition: said as a count (once), as the syntactic check says it.
            Fate::DependsOn(on) if on.len() == d => {
                if counted || (*holonomic && model.constraints.len() > d) {
                    continue;
                }
                counted = true;
                format!(
                    "{} constraints on {d} coordinates, {} of them nonholonomic: at most {d} \
                     can be independent; remove the redundant ones",
                    labels.len(),
                    labels.iter().filter(|l| !l.2).count()
                )
            }
            Fate::Zero if *holonomic && on_g => format!(
                "constraint `{name}` has a zero gradient {at}: it is a square (or a higher \
                 power) of a constraint, such as `(x * x + y * y - 1.0).powi(2)`, so `G M⁻¹ \
                 Gᵀ` is singular where the motion is; write the constraint itself"
            ),
            Fate::Zero if *holonomic => format!(
                "constraint `{name}` has a zero gradient {at}: its terms cancel to a constant \
                 in the coordinates, so it constrains nothing (and `G M⁻¹ Gᵀ` is singular); \
                 remove it"
            ),
            Fate::Zero => format!(
                "nonholonomic constraint `{name}` is zero for every velocity {at}: its terms \
                 cancel; remove it"
            ),
            Fate::DependsOn(on) => {
                let listed: Vec<String> = on.iter().map(|&j| labels[j].0.clone()).collect();
                let on_holonomic = !*holonomic && on.iter().any(|&j| labels[j].2);
                let why = if *holonomic {
                    "its gradient is a combination of theirs, so `G M⁻¹ Gᵀ` is singular and the \
                     multipliers are not determined"
                } else if on_holonomic {
                    "its row of `A(q)` is a combination of holonomic gradients and of the rows \
                     before it: the nonholonomic schemes already enforce every holonomic \
                     constraint's time derivative"
                } else {
                    "its row of `A(q)` is a combination of theirs, so the velocity constraints \
                     are singular and the multipliers are not determined"
                };
                format!(
                    "{kind}constraint `{name}` is not independent of {} ({at} {why}); remove it",
                    names(&listed)
                )
            }
        };
        errors.push(*span, message);
    }
}

/// A Lagrangian that is not finite anywhere (`sqrt(-1.0)` in the potential, a division
/// by a parameter whose default is 0) makes every later check meaningless: a momentum
/// map was reported "not conserved" for such a model. Refused first, on the energy.
/// Returns whether the Lagrangian is finite at some sample point.
pub fn finite_lagrangian(model: &Model, errors: &mut Errors) -> bool {
    let l = [vec![model.lagrangian]];
    if (0..POINTS).any(|k| rows_at(model, &l, k).is_some()) {
        return true;
    }
    // error: the Lagrangian is not finite at any sampled point …
    errors.push(
        model.energy_span,
        "the Lagrangian is not finite at any sampled point (coordinates and velocities of \
         either sign, the parameters at their defaults): check for a root or logarithm of a \
         negative number, or a division by a parameter whose default is zero",
    );
    false
}

/// A declared invariant that is constant (identically zero, or its terms cancelling to a
/// number) gives the discrete gradients nothing to be exact about; it is a mistake in
/// the declaration (a sign, a repeated vector), so it is refused where it is written.
pub fn constant_invariants(model: &mut Model, errors: &mut Errors) {
    let state: Vec<_> = model.q.iter().chain(&model.v).copied().collect();
    let mut reported = std::collections::HashSet::new();
    for k in 0..model.invariants.len() {
        let expr = model.invariants[k].expr;
        let gradient = model.graph.gradient(expr, &state);
        let constant = gradient.iter().all(|&e| model.graph.is_zero(e))
            || fates(model, &[gradient]).is_some_and(|f| f[0] == Fate::Zero);
        let inv = &model.invariants[k];
        if constant && reported.insert(inv.name.to_string()) {
            // error: invariant `pi` is constant …
            errors.push(
                inv.name.span(),
                format!(
                    "invariant `{}` is constant: it depends on no coordinate or velocity (its \
                     terms cancel at every sampled point); an invariant must be a quantity \
                     the motion can change, such as `dot(r, r)`",
                    inv.label
                ),
            );
        }
    }
}

/// The stage families solve for the velocities from `p = ∂L/∂v` (their catalogue entry
/// says `mass: Regular`): a singular `∂²L/∂v²` makes every Newton matrix singular. The
/// GGL schemes refuse it through their constant-mass check; this is the same refusal for
/// a mass matrix that depends on the state (a quaternion's `½ ω·J ω` has rank 3 of 4).
pub fn regular_mass(
    model: &Model,
    mass: &[Vec<Id>],
    schemes: &[SchemeRequest],
    errors: &mut Errors,
) {
    let Some(req) = schemes.iter().find(|s| s.kind.needs_regular_mass()) else {
        return;
    };
    let Some(fates) = fates(model, mass) else {
        return;
    };
    let singular: Vec<usize> = (0..fates.len())
        .filter(|&k| fates[k] != Fate::Independent)
        .collect();
    if singular.is_empty() {
        return;
    }
    let rank = fates.len() - singular.len();
    let free: Vec<String> = singular
        .iter()
        .filter(|&&k| fates[k] == Fate::Zero)
        .map(|&k| format!("{}_dot", model.coord_names[k]))
        .collect();
    let detail = if free.is_empty() {
        String::new()
    } else {
        format!("; {} carries no kinetic energy", names(&free))
    };
    let takers: Vec<&str> = crate::schemes::SchemeKind::all()
        .filter(|k| !k.needs_regular_mass() && !k.needs_constant_mass())
        .filter(|k| model.nonholonomic.is_empty() || k.integrates_nonholonomic())
        .map(|k| k.name())
        .collect();
    let instead = if takers.is_empty() {
        "no scheme of the catalogue takes a singular one with nonholonomic constraints".to_string()
    } else {
        format!(
            "the schemes that take a singular one are {}",
            takers.join(", ")
        )
    };
    // error: scheme `HolonomicLobatto` needs a regular mass matrix …
    errors.push(
        req.span,
        format!(
            "scheme `{}` needs a regular mass matrix ∂²L/∂v², but this model's has rank \
             {rank} of {} at every sampled point{detail}; {instead}",
            req.kind.name(),
            fates.len()
        ),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(value: &[f64]) -> Row {
        Row {
            value: value.to_vec(),
            magnitude: value.iter().map(|x| x.abs()).collect(),
        }
    }

    #[test]
    fn fates_name_the_rows_a_row_combines() {
        let rows = [
            row(&[1.0, 0.0, 0.0]),
            row(&[0.0, 2.0, 0.0]),
            row(&[3.0, -4.0, 0.0]),
            row(&[0.0, 0.0, 0.0]),
            row(&[0.0, 1.0, 1.0]),
        ];
        assert_eq!(
            fates_at(&rows, TOLERANCE),
            vec![
                Fate::Independent,
                Fate::Independent,
                Fate::DependsOn(vec![0, 1]),
                Fate::Zero,
                Fate::Independent,
            ]
        );
    }

    #[test]
    fn a_cancelled_row_is_zero_and_a_small_one_is_not() {
        let cancelled = Row {
            value: vec![2e-16, 0.0],
            magnitude: vec![4.0, 0.0],
        };
        let small = row(&[1e-9, 0.0]);
        assert_eq!(fates_at(&[cancelled], TOLERANCE), vec![Fate::Zero]);
        assert_eq!(fates_at(&[small], TOLERANCE), vec![Fate::Independent]);
    }

    #[test]
    fn sample_points_are_fixed_and_in_range() {
        assert_eq!(point(3, (5, 5)), point(3, (5, 5)));
        for k in 0..POINTS {
            let (q, v) = point(k, (7, 7));
            for x in q.iter().chain(&v) {
                assert!((0.35..=1.15).contains(&x.abs()), "{x}");
                assert!(k > 0 || *x > 0.0);
            }
        }
    }
}
