//! Name resolution and lowering of a parsed model to the IR, one declaration block at a
//! time: parameters, coordinates, `let`s, the Lagrangian, constraints, symmetries,
//! schemes. Errors are collected, so one expansion reports every mistake; a failed
//! declaration poisons its name so that its uses add no follow-up errors.
mod expr;
mod names;
#[cfg(test)]
mod tests;
mod value;

use proc_macro2::Span;
use syn::{Expr, Ident};

use expr::{symmetry, Lowerer, Scope, MAX_REPEAT};
use names::{report, Kind, Names, Sym};
use value::Val;

use crate::dsl::{CoordAst, ForceAst, ModelAst, ParamAst, SchemeArgAst, SchemeAst};
use crate::errors::Errors;
use crate::ir::{
    Comparison, Constraint, Coord, CoordKind, Invariant, Model, Momentum, Param, Requirement, Role,
};
use crate::schemes::{Given, SchemeKind, SchemeRequest};
use crate::sym::{Id, VarId};
use std::collections::HashMap;

/// Constraint, momentum and observable names label the model's name lists
/// (`Model::CONSTRAINTS`, …) and the command's CSV columns (`lambda[name]`,
/// `momentum[name]`, `observable[name]`): one name twice in a list would give two
/// columns of that name. Holonomic and nonholonomic constraints share the multiplier
/// block, so they share one list.
fn unique_labels(errors: &mut Errors, ast: &ModelAst) {
    use syn::ext::IdentExt;
    let constraints = ast.holonomic.iter().chain(&ast.nonholonomic);
    let lists: [(&str, Vec<&Ident>); 3] = [
        ("constraint", constraints.map(|(n, _)| n).collect()),
        (
            "momentum map",
            ast.momentum.iter().map(|(n, _)| n).collect(),
        ),
        (
            "observable",
            ast.observables.iter().map(|(n, _)| n).collect(),
        ),
    ];
    for (what, list) in lists {
        let mut seen = std::collections::HashSet::new();
        for name in list {
            let plain = name.unraw().to_string();
            if !seen.insert(plain.clone()) {
                // error: the constraint name `c` is used twice; …
                errors.push(
                    name.span(),
                    format!(
                        "the {what} name `{plain}` is used twice: the model's list of {what}s \
                         and the CSV would have two entries of that name; rename one"
                    ),
                );
            }
        }
    }
}

/// Lowers the parsed model to the IR and its requested schemes, collecting every error.
pub fn lower(mut ast: ModelAst) -> Result<(Model, Vec<SchemeRequest>), syn::Error> {
    let mut errors = Errors::default();
    let mut model = Model::new(
        std::mem::take(&mut ast.attrs),
        ast.vis.clone(),
        ast.name.clone(),
    );
    let mut names = Names::with_builtins(&mut model.graph);
    declare_params(
        &mut model,
        &mut names,
        &mut errors,
        std::mem::take(&mut ast.params),
    );
    if ast.coords.is_empty() {
        errors.push(
            model.name.span(),
            "the model declares no coordinates; add `coords { name: Vec3 }`",
        );
    }
    declare_coords(
        &mut model,
        &mut names,
        &mut errors,
        std::mem::take(&mut ast.coords),
    );

    declare_inputs(
        &mut model,
        &mut names,
        &mut errors,
        std::mem::take(&mut ast.inputs),
    );

    let velocities = model.v.clone();
    let model_dim = model.dim();
    let name_span = model.name.span();
    let defaults: Vec<f64> = model.params.iter().map(|p| p.default).collect();
    let mut lw = Lowerer {
        g: &mut model.graph,
        roles: &mut model.roles,
        names,
        velocities,
        velocity_invariants: Vec::new(),
        time: None,
        kinetic: None,
        indices: Vec::new(),
        extents: Vec::new(),
    };
    let invariants = declare_invariants(&mut lw, &mut errors, &ast.invariants);
    lower_lets(&mut lw, &mut errors, &ast.lets);
    let requirements = requirements(&mut lw, &mut errors, &ast.requires, &defaults);
    let lagrangian = lagrangian(&mut lw, &mut errors, &ast, name_span);
    unique_labels(&mut errors, &ast);
    let constraints = constraints(&mut lw, &mut errors, &ast.holonomic, Holonomy::Holonomic);
    let nonholonomic = constraints_linear_in_velocities(&mut lw, &mut errors, &ast.nonholonomic);
    let momenta = momenta(&mut lw, &mut errors, &ast.momentum);
    let observables = observables(&mut lw, &mut errors, &ast.observables);
    let forces = forces(&mut lw, &mut errors, &ast.forces, model_dim);
    let schemes = schemes(&mut errors, &ast.schemes);
    let model_budget = budget(&mut errors, ast.budget.as_ref());
    let kinetic = lw.kinetic;

    errors.finish()?;
    let Some(lagrangian) = lagrangian else {
        return Err(syn::Error::new(name_span, "no Lagrangian"));
    };
    energies_as_written(&mut model, lagrangian, kinetic, &invariants);
    let expand: HashMap<VarId, Id> = invariants.iter().map(|i| (i.var, i.expr)).collect();
    let mut exprs = vec![lagrangian, model.potential_raw];
    exprs.extend(constraints.iter().map(|c| c.expr));
    exprs.extend(nonholonomic.iter().map(|c| c.expr));
    exprs.extend(observables.iter().map(|c| c.expr));
    let n_forces = forces.as_ref().map_or(0, Vec::len);
    exprs.extend(forces.iter().flatten());
    let expanded = model.graph.substitute(&exprs, &expand);
    model.constraints_raw = constraints.iter().map(|c| c.expr).collect();
    model.lagrangian = expanded[0];
    model.potential = expanded[1];
    model.constraints = constraints;
    model.nonholonomic = nonholonomic;
    model.observables = observables;
    let declared = model
        .constraints
        .iter_mut()
        .chain(model.nonholonomic.iter_mut())
        .chain(model.observables.iter_mut());
    let n_declared = expanded.len() - 2 - n_forces;
    for (c, &e) in declared.zip(&expanded[2..2 + n_declared]) {
        c.expr = e;
    }
    if forces.is_some() {
        model.forces = Some(expanded[2 + n_declared..].to_vec());
    }
    model.invariants = invariants;
    model.budget = model_budget;
    model.momenta = momenta;
    model.requirements = requirements;
    model.energy_span = ast
        .kinetic
        .as_ref()
        .or(ast.lagrangian.as_ref())
        .map_or(name_span, |(span, _)| *span);
    collect_like_terms(&mut model);
    Ok((model, schemes))
}

/// The most temporaries one scheme's step may take: `schemes(budget = N)`, or the
/// default.
fn budget(errors: &mut Errors, budget: Option<&syn::LitInt>) -> usize {
    let Some(budget) = budget else {
        return crate::emit::BUDGET;
    };
    match budget.base10_parse::<usize>() {
        Ok(n) if n > 0 && budget.suffix().is_empty() => n,
        _ => {
            errors.push(
                budget.span(),
                format!(
                    "the budget is a number of temporaries ≥ 1 without a suffix, such as \
                     `schemes(budget = 40000)` (the default is {})",
                    crate::emit::BUDGET
                ),
            );
            crate::emit::BUDGET
        }
    }
}

/// The potential and kinetic energies as written: they keep the invariants as variables
/// (for the discrete gradients), while everything else sees their definitions. At rest,
/// an invariant of the velocities takes its value at v = 0 (0 for `omega`). The kinetic
/// energy is the one written, or `L + V` for a model that declares its Lagrangian.
fn energies_as_written(
    model: &mut Model,
    lagrangian: Id,
    kinetic: Option<Id>,
    invariants: &[Invariant],
) {
    let zero = model.graph.zero();
    let mut rest: HashMap<VarId, Id> = model.v.iter().map(|&v| (v, zero)).collect();
    for inv in invariants {
        let at_rest = model.graph.substitute(&[inv.expr], &rest)[0];
        if at_rest != inv.expr {
            rest.insert(inv.var, at_rest);
        }
    }
    let l0 = model.graph.substitute(&[lagrangian], &rest)[0];
    model.potential_raw = model.graph.neg(l0);
    model.kinetic_raw = kinetic.unwrap_or_else(|| model.graph.add(lagrangian, model.potential_raw));
}

/// Every expression of the model in the normal form of `Graph::collect_like_terms`, in
/// one pass so that what they share stays shared: everything later (the derivatives,
/// the checks, the step equations) starts from the collected sums.
fn collect_like_terms(model: &mut Model) {
    let mut roots = vec![
        model.lagrangian,
        model.potential,
        model.potential_raw,
        model.kinetic_raw,
    ];
    roots.extend(model.constraints.iter().map(|c| c.expr));
    roots.extend(model.constraints_raw.iter().copied());
    roots.extend(model.nonholonomic.iter().map(|c| c.expr));
    roots.extend(model.observables.iter().map(|c| c.expr));
    roots.extend(model.invariants.iter().map(|i| i.expr));
    roots.extend(model.forces.iter().flatten().copied());
    let normal = model.graph.collect_like_terms(&roots);
    let mut normal = normal.into_iter();
    let mut next = || normal.next().expect("one normal form per root");
    model.lagrangian = next();
    model.potential = next();
    model.potential_raw = next();
    model.kinetic_raw = next();
    for c in &mut model.constraints {
        c.expr = next();
    }
    for c in &mut model.constraints_raw {
        *c = next();
    }
    for c in &mut model.nonholonomic {
        c.expr = next();
    }
    for c in &mut model.observables {
        c.expr = next();
    }
    for i in &mut model.invariants {
        i.expr = next();
    }
    for f in model.forces.iter_mut().flatten() {
        *f = next();
    }
}

/// Parameters: runtime fields whose defaults are numbers.
fn declare_params(
    model: &mut Model,
    names: &mut Names,
    errors: &mut Errors,
    params: Vec<ParamAst>,
) {
    for p in params {
        let mut lw = Lowerer {
            g: &mut model.graph,
            roles: &mut model.roles,
            names: Names::empty(),
            velocities: Vec::new(),
            velocity_invariants: Vec::new(),
            time: None,
            kinetic: None,
            indices: Vec::new(),
            extents: Vec::new(),
        };
        let scope = Scope::Constant(
            "a parameter's default must be a number",
            "write a number such as `1.0`, and derive quantities from parameters with `let`",
        );
        let default = match lw.lower(&p.default, scope) {
            Ok(Val::S(x)) => model.graph.as_const(x).unwrap_or_else(|| {
                errors.add(syn::Error::new_spanned(
                    &p.default,
                    "a parameter's default must be a number",
                ));
                0.0
            }),
            Ok(other) => {
                errors.add(syn::Error::new_spanned(
                    &p.default,
                    format!("a parameter is a scalar, found {}", other.shape()),
                ));
                0.0
            }
            Err(e) => {
                errors.add(e);
                0.0
            }
        };
        let (_, node) = model.new_var(p.name.to_string(), Role::Param(model.params.len()));
        names.declare(
            errors,
            &p.name,
            Sym {
                val: Val::S(node),
                kind: Kind::Param,
            },
        );
        model.params.push(Param {
            attrs: p.attrs,
            name: p.name,
            default,
        });
    }
}

/// Coordinates, their velocities `name_dot`, and the momentum variables (used by the
/// momentum maps and `velocity`).
fn declare_coords(
    model: &mut Model,
    names: &mut Names,
    errors: &mut Errors,
    coords: Vec<CoordAst>,
) {
    for c in coords {
        // `r#type` would derive `r#type_dot`, which is no identifier.
        if c.name.to_string().starts_with("r#") {
            errors.push(
                c.name.span(),
                format!(
                    "a coordinate cannot have a raw name (`{}`): its velocity is named by \
                     appending `_dot`; choose a plain name",
                    c.name
                ),
            );
            // Names are looked up without `r#` (`Names::declare`).
            let plain = syn::ext::IdentExt::unraw(&c.name).to_string();
            names.poison(format!("{plain}_dot"));
            names.poison(plain);
            continue;
        }
        // rustc hands a name with an emoji to the macro (after its own error), and
        // `Ident::new` panics on `…_dot` made from it.
        let plain = c.name.to_string();
        if !plain.chars().all(|ch| ch.is_alphanumeric() || ch == '_') {
            errors.push(
                c.name.span(),
                format!(
                    "the coordinate name `{plain}` is not an identifier of letters, digits and \
                     underscores, so its velocity `{plain}_dot` cannot be named; choose another"
                ),
            );
            names.poison(plain.clone());
            names.poison(format!("{plain}_dot"));
            continue;
        }
        let dot_name = Ident::new(&format!("{plain}_dot"), c.name.span());
        let kind = match c.kind.to_string().as_str() {
            "Scalar" => CoordKind::Scalar,
            "Vec3" => CoordKind::Vec3,
            "Quat" => CoordKind::Quat,
            "SO3" => CoordKind::So3,
            "SE2" => CoordKind::Se2,
            other => {
                let message = format!(
                    "unknown coordinate kind `{other}`; the kinds are `Scalar`, `Vec3`, `Quat`, \
                     and the Lie groups `SO3` and `SE2`"
                );
                errors.push(c.kind.span(), message);
                // Uses of the coordinate and its velocity are not errors of their own.
                names.poison(c.name.to_string());
                names.poison(dot_name.to_string());
                continue;
            }
        };
        let len = match &c.len {
            None => None,
            Some(lit) => match array_len(lit) {
                Ok(n) => Some(n),
                Err(e) => {
                    errors.add(e);
                    names.poison(c.name.to_string());
                    names.poison(dot_name.to_string());
                    continue;
                }
            },
        };
        // One coordinate block per element: the momentum maps act on each `Vec3` one.
        let (mut qvals, mut vvals) = (Vec::new(), Vec::new());
        for element in 0..len.unwrap_or(1) {
            let name = match len {
                None => c.name.to_string(),
                Some(_) => format!("{}[{element}]", c.name),
            };
            let (q, v) = declare_block(model, kind, &name);
            qvals.push(q);
            vvals.push(v);
        }
        let (qval, vval) = match len {
            None => (qvals.swap_remove(0), vvals.swap_remove(0)),
            Some(_) => (Val::A(qvals), Val::A(vvals)),
        };
        let coord_twice = names.taken(&c.name.to_string());
        names.declare(
            errors,
            &c.name,
            Sym {
                val: qval,
                kind: Kind::Coord,
            },
        );
        if coord_twice {
            // Already reported: a coordinate declared twice has its velocity declared twice.
            names.poison(dot_name.to_string());
        } else {
            names.declare(
                errors,
                &dot_name,
                Sym {
                    val: vval,
                    kind: Kind::Velocity,
                },
            );
        }
    }
}

/// The `inputs` block: per input a `Scalar` or `Vec3` (or an array of them), each scalar
/// a variable of its own (`Role::Control`) that only `forces` may read (`Kind::Input`).
fn declare_inputs(
    model: &mut Model,
    names: &mut Names,
    errors: &mut Errors,
    inputs: Vec<CoordAst>,
) {
    for c in inputs {
        let name = c.name.to_string();
        if name == "t" {
            // error: `t` is the time of the forces ...
            errors.push(
                c.name.span(),
                "`t` is the time the forces read; name the input otherwise",
            );
            continue;
        }
        if names.taken(&name) {
            // The other declaration keeps the name: its uses are not errors.
            errors.push(
                c.name.span(),
                format!("`{name}` is declared twice; rename one of the declarations"),
            );
            continue;
        }
        let len = match c.kind.to_string().as_str() {
            "Scalar" => 1,
            "Vec3" => 3,
            other => {
                // error: an input is a `Scalar` or a `Vec3` ...
                errors.push(
                    c.kind.span(),
                    format!(
                        "an input is a `Scalar` or a `Vec3` (or an array of them), not `{other}`"
                    ),
                );
                names.poison(name);
                continue;
            }
        };
        let count = match &c.len {
            None => None,
            Some(lit) => match array_len(lit) {
                Ok(n) => Some(n),
                Err(e) => {
                    errors.add(e);
                    names.poison(name);
                    continue;
                }
            },
        };
        let mut elements = Vec::new();
        for element in 0..count.unwrap_or(1) {
            let base = match count {
                None => name.clone(),
                Some(_) => format!("{name}[{element}]"),
            };
            let ids: Vec<Id> = (0..len)
                .map(|k| {
                    let label = match len {
                        1 => base.clone(),
                        _ => format!("{base}.{}", ["x", "y", "z"][k]),
                    };
                    let (var, id) = model.new_var(label.clone(), Role::Control(model.inputs.len()));
                    model.inputs.push((var, label));
                    id
                })
                .collect();
            elements.push(match len {
                1 => Val::S(ids[0]),
                _ => Val::V(ids),
            });
        }
        let val = match count {
            None => elements.swap_remove(0),
            Some(_) => Val::A(elements),
        };
        names.declare(
            errors,
            &c.name,
            Sym {
                val,
                kind: Kind::Input,
            },
        );
    }
}

/// The length of a coordinate array, `1..=MAX_REPEAT`.
fn array_len(lit: &syn::LitInt) -> syn::Result<usize> {
    let n = lit.base10_parse::<usize>().unwrap_or(usize::MAX);
    match n {
        // error: an array of coordinates has at least one element …
        0 => Err(syn::Error::new(
            lit.span(),
            "an array of coordinates has at least one element; remove the coordinate or \
             give it a length such as `2`",
        )),
        n if n > MAX_REPEAT as usize => Err(syn::Error::new(
            lit.span(),
            format!(
                "an array of coordinates has at most {MAX_REPEAT} elements; a model this \
                 large is beyond what the schemes can expand"
            ),
        )),
        n => Ok(n),
    }
}

/// The variables of one coordinate block named `name` (`r`, `r[3]`): its positions,
/// velocities and momenta, and its display names (`r[3].x`).
///
/// A group coordinate stores more numbers than its velocity has (`SO3`: a quaternion and
/// the body angular velocity), so its positions and velocities are declared apart; its
/// velocity is a `Vec3` (`g_dot.x` …).
fn declare_block(model: &mut Model, kind: CoordKind, name: &str) -> (Val, Val) {
    let (offset, velocity_offset) = (model.q.len(), model.v.len());
    let (mut qs, mut vs) = (Vec::new(), Vec::new());
    for k in 0..kind.len() {
        let i = offset + k;
        let label = match kind {
            CoordKind::Scalar => name.to_string(),
            CoordKind::Vec3 => format!("{name}.{}", ["x", "y", "z"][k]),
            CoordKind::Quat | CoordKind::So3 => format!("{name}.{}", ["w", "x", "y", "z"][k]),
            CoordKind::Se2 => format!("{name}.{}", ["x", "y", "theta"][k]),
        };
        let (qv, qn) = model.new_var(format!("q{i}"), Role::Q(i));
        model.q.push(qv);
        model.coord_names.push(label);
        qs.push(qn);
    }
    for k in 0..kind.velocity_len() {
        let i = velocity_offset + k;
        let (vv, vn) = model.new_var(format!("v{i}"), Role::V(i));
        let (pv, _) = model.new_var(format!("p{i}"), Role::P(i));
        let label = if kind.is_group() {
            format!("{name}_dot.{}", ["x", "y", "z"][k])
        } else {
            model.coord_names[offset + k].clone()
        };
        model.velocity_names.push(label);
        model.v.push(vv);
        model.p.push(pv);
        vs.push(vn);
    }
    model.coords.push(Coord {
        kind,
        offset,
        velocity_offset,
    });
    match kind {
        CoordKind::Scalar => (Val::S(qs[0]), Val::S(vs[0])),
        _ => (Val::V(qs), Val::V(vs)),
    }
}

/// Declared invariants: functions of the positions, or of positions and velocities
/// (the convected angular velocity `omega(q, q_dot)` of a rigid body), scalar or vector
/// (one invariant per component, `Omega[0]` …), each a variable of its own
/// (`Role::Invariant`) that the energies and constraints may use; `check` verifies they
/// are quadratic. Those that depend on the velocities go to `velocity_invariants`, so
/// that the potential and the constraints cannot use them.
fn declare_invariants(
    lw: &mut Lowerer,
    errors: &mut Errors,
    decls: &[(Ident, Expr)],
) -> Vec<Invariant> {
    let mut out = Vec::new();
    for (name, e) in decls {
        let label = name.to_string();
        let components = match lw.lower(e, Scope::Any) {
            Ok(Val::S(expr)) => vec![(label.clone(), expr)],
            Ok(Val::V(exprs)) => exprs
                .into_iter()
                .enumerate()
                .map(|(k, x)| (format!("{label}[{k}]"), x))
                .collect(),
            Ok(other) => {
                errors.add(syn::Error::new_spanned(
                    e,
                    format!(
                        "an invariant is a scalar or a vector, found {}",
                        other.shape()
                    ),
                ));
                lw.names.poison(label);
                continue;
            }
            Err(e) => {
                report(errors, e);
                lw.names.poison(label);
                continue;
            }
        };
        let scalar = components.len() == 1 && components[0].0 == label;
        let mut nodes = Vec::new();
        for (component, expr) in components {
            let k = out.len();
            let (var, node) = lw.new_var(component.clone(), Role::Invariant(k));
            let velocities = lw.velocities.clone();
            if lw.g.depends_on_any(expr, |v| velocities.contains(&v)) {
                lw.velocity_invariants.push(var);
            }
            nodes.push(node);
            out.push(Invariant {
                name: name.clone(),
                label: component,
                var,
                expr,
            });
        }
        let val = if scalar {
            Val::S(nodes[0])
        } else {
            Val::V(nodes)
        };
        lw.names.declare(
            errors,
            name,
            Sym {
                val,
                kind: Kind::Invariant,
            },
        );
    }
    out
}

/// `let` definitions, in order: each may use the ones before it.
fn lower_lets(lw: &mut Lowerer, errors: &mut Errors, lets: &[(Ident, Expr)]) {
    for (name, e) in lets {
        match lw.lower(e, Scope::Any) {
            Ok(val) => lw.names.declare(
                errors,
                name,
                Sym {
                    val,
                    kind: Kind::Let,
                },
            ),
            Err(e) => {
                report(errors, e);
                lw.names.poison(name.to_string());
            }
        }
    }
}

/// The `requires` block: comparisons of parameter expressions, each true at the
/// declared defaults (checked here), checked again at run time by the generated
/// `Model::check_parameters`.
fn requirements(
    lw: &mut Lowerer,
    errors: &mut Errors,
    conditions: &[Expr],
    defaults: &[f64],
) -> Vec<Requirement> {
    let mut out = Vec::new();
    for condition in conditions {
        // error: a requirement compares two expressions of the parameters …
        let Expr::Binary(b) = condition else {
            errors.add(syn::Error::new_spanned(
                condition,
                "a requirement compares two expressions of the parameters with `<`, `<=`, \
                 `>` or `>=`, such as `m > 0.0` or `J1 <= J2 + J3`",
            ));
            continue;
        };
        let op = match b.op {
            syn::BinOp::Lt(_) => Comparison::Lt,
            syn::BinOp::Le(_) => Comparison::Le,
            syn::BinOp::Gt(_) => Comparison::Gt,
            syn::BinOp::Ge(_) => Comparison::Ge,
            _ => {
                errors.add(syn::Error::new_spanned(
                    b.op,
                    "a requirement compares with `<`, `<=`, `>` or `>=`, such as `m > 0.0`",
                ));
                continue;
            }
        };
        let what = "a requirement";
        let rule = "requirements are conditions on the parameters";
        let scope = || Scope::Positions { what, rule };
        let (Some(lhs), Some(rhs)) = (
            scalar_in(lw, errors, &b.left, what, scope()),
            scalar_in(lw, errors, &b.right, what, scope()),
        ) else {
            continue;
        };
        let roles = &*lw.roles;
        let not_param = |v: VarId| !matches!(roles[v.0 as usize], Role::Param(_));
        if lw.g.depends_on_any(lhs, not_param) || lw.g.depends_on_any(rhs, not_param) {
            errors.add(syn::Error::new_spanned(
                condition,
                "a requirement mentions the coordinates; requirements are conditions on \
                 the parameters, checked before each step",
            ));
            continue;
        }
        let value = |e| {
            lw.g.eval(e, &|v| match roles[v.0 as usize] {
                Role::Param(k) => defaults[k],
                _ => f64::NAN,
            })
        };
        let (a, c) = (value(lhs), value(rhs));
        let text = quote::quote!(#condition).to_string();
        if !op.holds(a, c) {
            errors.add(syn::Error::new_spanned(
                condition,
                format!(
                    "the parameters' defaults violate the requirement `{text}` ({a:?} against \
                     {c:?}); change the defaults or the requirement"
                ),
            ));
            continue;
        }
        out.push(Requirement { text, lhs, op, rhs });
    }
    out
}

/// A scalar-valued expression, or `None` after reporting why not.
fn scalar(lw: &mut Lowerer, errors: &mut Errors, e: &Expr, what: &str) -> Option<Id> {
    scalar_in(lw, errors, e, what, Scope::Any)
}

/// [`scalar`] in a scope that restricts what `e` may mention.
fn scalar_in(
    lw: &mut Lowerer,
    errors: &mut Errors,
    e: &Expr,
    what: &str,
    scope: Scope,
) -> Option<Id> {
    match lw.lower(e, scope) {
        Ok(Val::S(x)) => Some(x),
        Ok(other) => {
            errors.add(syn::Error::new_spanned(
                e,
                format!("{what} must be a scalar, found {}", other.shape()),
            ));
            None
        }
        Err(e) => {
            report(errors, e);
            None
        }
    }
}

/// The Lagrangian: `lagrangian`, or `kinetic − potential`.
fn lagrangian(
    lw: &mut Lowerer,
    errors: &mut Errors,
    ast: &ModelAst,
    name_span: Span,
) -> Option<Id> {
    match (&ast.lagrangian, &ast.kinetic, &ast.potential) {
        (Some((_, e)), None, None) => scalar(lw, errors, e, "the Lagrangian"),
        (Some((span, _)), _, _) => {
            errors.push(
                *span,
                "declare either `lagrangian` or `kinetic` and `potential`, not both",
            );
            None
        }
        (None, Some((_, t)), v) => {
            let t = scalar(lw, errors, t, "the kinetic energy");
            // A velocity in the potential would silently change the mass matrix.
            let positions = Scope::Positions {
                what: "the potential energy",
                rule: "a potential depends on the positions only; write velocity terms in \
                       `kinetic`, or declare the whole `lagrangian`",
            };
            let v = match v {
                Some((_, v)) => scalar_in(lw, errors, v, "the potential energy", positions),
                None => Some(lw.g.zero()),
            };
            t.zip(v).map(|(t, v)| {
                lw.kinetic = Some(t);
                lw.g.sub(t, v)
            })
        }
        (None, None, Some((span, _))) => {
            errors.push(
                *span,
                "a `potential` needs a `kinetic` energy beside it; add `kinetic = ...;`, or declare \
                 `lagrangian = ...;` instead of both",
            );
            None
        }
        (None, None, None) => {
            errors.push(
                name_span,
                "the model declares no `kinetic` energy or `lagrangian`; add `kinetic = ...;` \
                 (with an optional `potential = ...;`) or `lagrangian = ...;`",
            );
            None
        }
    }
}

/// Which block of named expressions an expression comes from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Holonomy {
    /// `holonomic`: positions only.
    Holonomic,
    /// `nonholonomic`: linear in the velocities (checked after lowering).
    Nonholonomic,
    /// `observables`: any expression in the positions and velocities.
    Observable,
}

/// Constraints of one block; a vector-valued one gives one per component.
fn constraints(
    lw: &mut Lowerer,
    errors: &mut Errors,
    declared: &[(Ident, Expr)],
    holonomy: Holonomy,
) -> Vec<Constraint> {
    let mut out = Vec::new();
    for (name, e) in declared {
        constraint(lw, errors, &mut out, name, name.to_string(), e, holonomy);
    }
    out
}

/// The `observables` block: any expression in `q` and `v`, lowered as the constraint
/// blocks are (a vector split into its components, families) with velocities allowed.
fn observables(
    lw: &mut Lowerer,
    errors: &mut Errors,
    declared: &[(Ident, Expr)],
) -> Vec<Constraint> {
    constraints(lw, errors, declared, Holonomy::Observable)
}

/// Nonholonomic constraints `A(q)·v + a(q) = 0` (spec 002 §2; affine, spec
/// `next_packages.md` §A.3, the turntable's `Ω` terms): each must depend on the
/// velocities, and only linearly. The nonholonomic method differentiates them once in
/// `v` and takes that derivative as `A(q)`, and their value at rest as `a(q)`; one
/// without velocities would be a holonomic constraint in disguise, and a nonlinear one
/// would make `A` depend on `v`.
fn constraints_linear_in_velocities(
    lw: &mut Lowerer,
    errors: &mut Errors,
    declared: &[(Ident, Expr)],
) -> Vec<Constraint> {
    let out = constraints(lw, errors, declared, Holonomy::Nonholonomic);
    let velocities = lw.velocities.clone();
    for c in &out {
        let name = &c.name;
        let moving =
            |g: &crate::sym::Graph, x: Id| g.depends_on_any(x, |v| velocities.contains(&v));
        if !moving(lw.g, c.expr) {
            // error: nonholonomic constraint `c` does not depend on the velocities; ...
            errors.push(
                c.span,
                format!(
                    "nonholonomic constraint `{name}` does not depend on the velocities; a \
                     constraint on the positions belongs in `holonomic`"
                ),
            );
            continue;
        }
        let gradient = lw.g.gradient(c.expr, &velocities);
        if gradient.iter().any(|&a| moving(lw.g, a)) {
            errors.push(
                c.span,
                format!(
                    "nonholonomic constraint `{name}` is not linear in the velocities; \
                     nonholonomic constraints are A(q)·v + a(q) = 0, each velocity multiplied \
                     by a function of the positions"
                ),
            );
        }
    }
    out
}

/// The constraint `label` (`link`, or `link[2]` in a family), or the family
/// `for i in a..b { e }` (`link[a]` …, nested families `c[i][j]`); false after an
/// error, which ends the family (its other members would repeat it).
fn constraint(
    lw: &mut Lowerer,
    errors: &mut Errors,
    out: &mut Vec<Constraint>,
    name: &Ident,
    label: String,
    e: &Expr,
    holonomy: Holonomy,
) -> bool {
    if let Expr::ForLoop(family) = e {
        let (var, range, body) = match lw.family(family) {
            Ok(family) => family,
            Err(e) => {
                report(errors, e);
                return false;
            }
        };
        lw.extents.push(range.end - range.start);
        for k in range {
            lw.indices.push((var.clone(), k));
            let ok = constraint(
                lw,
                errors,
                out,
                name,
                format!("{label}[{k}]"),
                body,
                holonomy,
            );
            lw.indices.pop();
            if !ok {
                lw.extents.pop();
                return false;
            }
        }
        lw.extents.pop();
        return true;
    }
    let what = format!("holonomic constraint `{label}`");
    let rule = "holonomic constraints depend on positions only (velocity-dependent \
                constraints are nonholonomic)";
    let scope = match holonomy {
        Holonomy::Holonomic => Scope::Positions { what: &what, rule },
        Holonomy::Nonholonomic | Holonomy::Observable => Scope::Any,
    };
    match lw.lower(e, scope) {
        Ok(Val::S(x)) => out.push(Constraint {
            name: label,
            expr: x,
            span: name.span(),
        }),
        Ok(Val::V(xs)) => {
            for (k, x) in xs.into_iter().enumerate() {
                let comp = ["x", "y", "z"]
                    .get(k)
                    .map_or_else(|| k.to_string(), |s| (*s).to_string());
                out.push(Constraint {
                    name: format!("{label}.{comp}"),
                    expr: x,
                    span: name.span(),
                });
            }
        }
        Ok(other) => {
            errors.add(syn::Error::new_spanned(
                e,
                format!(
                    "{} is a scalar or a vector, found {}",
                    if holonomy == Holonomy::Observable {
                        "an observable"
                    } else {
                        "a constraint"
                    },
                    other.shape()
                ),
            ));
            return false;
        }
        Err(e) => {
            report(errors, e);
            return false;
        }
    }
    true
}

/// The `forces` block: per entry, the generalized force on one coordinate (or one
/// element of an array of coordinates), of that coordinate's shape, in `q`, `v` and the
/// time `t` (a variable of its own, `Role::Time`); forces on the same coordinate add up.
/// `None` without a block, else one entry per scalar coordinate (zero where no force
/// acts).
fn forces(
    lw: &mut Lowerer,
    errors: &mut Errors,
    declared: &[ForceAst],
    dim: usize,
) -> Option<Vec<Id>> {
    if declared.is_empty() {
        return None;
    }
    let (_, time) = lw.new_var("t".to_string(), Role::Time);
    lw.time = Some(time);
    let zero = lw.g.zero();
    let mut total = vec![zero; dim];
    for force in declared {
        match force_on(lw, force) {
            Ok(entries) => {
                for (i, f) in entries {
                    total[i] = lw.g.add(total[i], f);
                }
            }
            Err(e) => report(errors, e),
        }
    }
    lw.time = None;
    Some(total)
}

/// The entries `(coordinate index, force)` of one `forces` entry.
fn force_on(lw: &mut Lowerer, force: &ForceAst) -> syn::Result<Vec<(usize, Id)>> {
    let name = syn::ext::IdentExt::unraw(&force.coord).to_string();
    let target = match lw.names.env.get(&name) {
        Some(Sym {
            kind: Kind::Coord,
            val,
        }) => val.clone(),
        _ => {
            return Err(syn::Error::new(
                force.coord.span(),
                format!(
                    "a force acts on a coordinate, and `{name}` is not one; {}",
                    lw.names.declared()
                ),
            ))
        }
    };
    let target = match (target, &force.index) {
        (Val::A(items), Some(lit)) => {
            let k = lit.base10_parse::<usize>()?;
            items.get(k).cloned().ok_or_else(|| {
                syn::Error::new(
                    lit.span(),
                    format!(
                        "`{name}` has {} elements; index {k} is out of range",
                        items.len()
                    ),
                )
            })?
        }
        (Val::A(items), None) => {
            return Err(syn::Error::new(
                force.coord.span(),
                format!(
                    "`{name}` is an array of {} coordinates; write the force on one element, \
                     `{name}[0]: …`",
                    items.len()
                ),
            ))
        }
        (_, Some(lit)) => {
            return Err(syn::Error::new(
                lit.span(),
                format!("`{name}` is a single coordinate, not an array; remove the index"),
            ))
        }
        (val, None) => val,
    };
    let value = lw.lower(&force.value, Scope::Any)?;
    let (targets, values) = match (&target, value) {
        (Val::S(q), Val::S(f)) => (vec![*q], vec![f]),
        (Val::V(q), Val::V(f)) if q.len() == f.len() => (q.clone(), f),
        (target, value) => {
            // error: the force on `phi[0]` must be a 3-vector (the coordinate's shape), found a scalar
            return Err(syn::Error::new_spanned(
                &force.value,
                format!(
                    "the force on `{name}` must have the coordinate's shape, {}, found {}",
                    target.shape(),
                    value.shape()
                ),
            ));
        }
    };
    let index = |q: Id| match lw.g.node(q) {
        crate::sym::Node::Var(v) => match lw.roles[v.0 as usize] {
            Role::Q(i) => i,
            _ => unreachable!("coordinates are position variables"),
        },
        _ => unreachable!("coordinates are variables"),
    };
    Ok(targets.into_iter().map(index).zip(values).collect())
}

/// Momentum maps: `rotation(axis)` or `translation(axis)` with a constant axis.
fn momenta(lw: &mut Lowerer, errors: &mut Errors, momentum: &[(Ident, Expr)]) -> Vec<Momentum> {
    let mut out = Vec::new();
    for (name, e) in momentum {
        match symmetry(lw, e) {
            Ok(symmetry) => out.push(Momentum {
                name: name.clone(),
                symmetry,
                tokens: quote::ToTokens::to_token_stream(e),
            }),
            Err(e) => report(errors, e),
        }
    }
    out
}

/// The requested schemes, by marker name and parameters; an error lands on the
/// argument it is about, or on the name.
fn schemes(errors: &mut Errors, schemes: &[SchemeAst]) -> Vec<SchemeRequest> {
    let mut out = Vec::new();
    'schemes: for s in schemes {
        let mut given = Vec::new();
        for arg in &s.args {
            given.push(match arg {
                SchemeArgAst::Count(lit) => match lit.base10_parse::<usize>() {
                    Ok(n) if lit.suffix().is_empty() => Given::Count(n),
                    // The parser's own words ("invalid digit found in string") name no
                    // reason a user can act on.
                    _ => {
                        let digits = lit.base10_digits();
                        let why = if !lit.suffix().is_empty() {
                            format!("is written without a suffix (`{}`)", digits)
                        } else if digits.starts_with('-') {
                            "is a count, not a negative number".to_string()
                        } else {
                            "is too large to be a count".to_string()
                        };
                        // error: a scheme's parameter `-2` is a count, …
                        errors.push(
                            lit.span(),
                            format!(
                                "the scheme parameter `{lit}` {why}; see the scheme's range of \
                                 values in the README's scheme table"
                            ),
                        );
                        continue 'schemes;
                    }
                },
                SchemeArgAst::Name(ident) => Given::Name(ident.to_string()),
            });
        }
        match SchemeKind::resolve(&s.name.to_string(), &given) {
            Ok(kind) if out.iter().any(|r: &SchemeRequest| r.kind == kind) => {
                errors.push(
                    s.name.span(),
                    format!("scheme `{}` is listed twice", s.name),
                );
            }
            Ok(kind) => out.push(SchemeRequest {
                kind,
                span: s.name.span(),
            }),
            Err(error) => {
                let span = error
                    .argument
                    .and_then(|i| s.args.get(i))
                    .map_or(s.name.span(), SchemeArgAst::span);
                errors.push(span, error.message);
            }
        }
    }
    out
}
