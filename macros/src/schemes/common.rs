//! What every template shares: the known state and the unknowns as variables, model
//! quantities evaluated at other points by substitution, and the output description.
use std::collections::HashMap;

use crate::ir::{Model, Role};
use crate::quantities::Quantities;
use crate::sym::{Id, VarId};

/// The step equations of one scheme, as graph nodes.
pub struct Template {
    /// The named blocks of the unknowns (`q1`, `p1`, …) and their sizes, in order.
    pub blocks: Vec<(String, usize)>,
    /// The unknown variables `x`, in order.
    pub unknowns: Vec<VarId>,
    /// `R(known, x, h)`, one entry per unknown.
    pub residual: Vec<Id>,
    /// Newton's starting point, in terms of the known state.
    pub guess: Vec<Id>,
    /// The "advanced" starting point: `guess` with the first block (`q1`, the new
    /// positions) moved to `qⁿ + h vⁿ`.
    pub guess_extrapolated: Vec<Id>,
    /// The state at `tⁿ⁺¹` in terms of the known state and `x`.
    pub next: NextState,
    /// Named intermediate values `w_k = f_k(known, x)` (variables of role
    /// `Role::Intermediate(k)`) in which the residual and the next state may be written;
    /// the guesses may not use them. The emitter computes them first and builds the
    /// Jacobian by the chain rule, `∂R/∂x + ∂R/∂w · ∂w/∂x`: a residual that uses a
    /// nonlinear map of every unknown many times (Null-EML's `q¹ = exp(ϑ) ∘ q⁰`)
    /// would otherwise have every node's derivative dense in the unknowns.
    pub intermediates: Vec<(VarId, Id)>,
    /// Unknowns whose own equation (residual row `i` for unknown `i`) is linear in them
    /// with a constant coefficient, eliminated first and exempt from the run-time
    /// threshold test (`Elimination::plan_with_linear_pivots`).
    pub linear_pivots: Vec<usize>,
    /// The known state's blocks the step may read, `(name, variables)`: `q`, `v`, `p`,
    /// `lambda`, `gamma` at `tⁿ`, in that order (what a linearisation differentiates
    /// with respect to, `emit::scheme::linearized_system`).
    pub known: Vec<(&'static str, Vec<Id>)>,
    /// The inputs held over the step, `k.u`.
    pub controls: Vec<Id>,
}

impl Template {
    /// The template of a scheme whose unknowns are `x = (q¹, p¹, v, λ, γ)` (VI-S and the
    /// θ-methods): Newton starts from the known values of the same quantities and the
    /// new state is the solution itself.
    pub fn velocity_form(model: &mut Model, setup: &Setup, residual: &[Vec<Id>]) -> Self {
        let (known, x) = (&setup.k, &setup.x);
        let guess = [&known.q, &known.p, &known.v, &known.lambda, &known.gamma]
            .map(|b| b.clone())
            .concat();
        let next = NextState {
            q: x[0].clone(),
            p: x[1].clone(),
            v: x[2].clone(),
            lambda: x[3].clone(),
            gamma: x[4].clone(),
        };
        Template::new(model, setup, residual.concat(), guess, next)
    }

    /// The template of a scheme whose unknowns are `x = (q¹, p¹, and two multiplier
    /// blocks)` (EM, RATTLE): Newton starts from the known `(q, p, λ, γ)`, the new state
    /// is the solution with `v = v¹` (`M⁻¹ p¹`, computed by the template).
    pub fn momentum_form(
        model: &mut Model,
        setup: &Setup,
        residual: &[Vec<Id>],
        v1: Vec<Id>,
    ) -> Self {
        let (known, x) = (&setup.k, &setup.x);
        let guess = [&known.q, &known.p, &known.lambda, &known.gamma]
            .map(|b| b.clone())
            .concat();
        let next = NextState {
            q: x[0].clone(),
            v: v1,
            p: x[1].clone(),
            lambda: x[2].clone(),
            gamma: x[3].clone(),
        };
        Template::new(model, setup, residual.concat(), guess, next)
    }

    /// The template of a scheme whose unknowns are `x = (q¹, v¹, p¹, λ)` (EML, MPL),
    /// or `x = (q¹, v¹, p¹, λ, μ, γ)` (the stabilised EML, `schemes/hidden.rs`), given
    /// its equations: the momentum balance, the position update (linear in `v¹` with
    /// the coefficient `−h/2`), the discrete Legendre transform (linear in `p¹` with
    /// `½`), the constraints, and the stabilised form's two rows of nodal hidden
    /// constraints. They are ordered so that each of `q¹`, `v¹`, `p¹` has its own row on
    /// the diagonal: the balance for `q¹`, and the two linear equations as linear
    /// pivots, eliminated first, which leaves REML's Jacobian to the plan (the mass
    /// matrix, singular for a quaternion body, is never a pivot). Newton starts from the
    /// known `(q, v, p, λ)` (and `μ = 0`, the known `γ`), the new state is the solution
    /// (`γ = 0` in the paper's forms).
    pub fn livens(model: &mut Model, setup: &Setup, blocks: Vec<Vec<Id>>) -> Self {
        let (k, x) = (&setup.k, &setup.x);
        let zero = model.graph.zero();
        let mut guess = [&k.q, &k.v, &k.p, &k.lambda].map(|b| b.clone()).concat();
        let gamma = if x.len() == 6 {
            guess.extend(vec![zero; setup.m]);
            guess.extend(k.gamma.iter().copied());
            x[5].clone()
        } else {
            vec![zero; setup.m]
        };
        let next = NextState {
            q: x[0].clone(),
            v: x[1].clone(),
            p: x[2].clone(),
            lambda: x[3].clone(),
            gamma,
        };
        let d = setup.d;
        let residual = blocks.concat();
        let mut t = Template::new(model, setup, residual, guess, next);
        t.linear_pivots = (d..3 * d).collect();
        t
    }

    /// A template from its residual, simple guess and next state; the blocks and
    /// unknowns are the setup's, the extrapolated guess is derived.
    pub fn new(
        model: &mut Model,
        setup: &Setup,
        residual: Vec<Id>,
        guess: Vec<Id>,
        next: NextState,
    ) -> Self {
        debug_assert_eq!(setup.blocks.first().map(|b| b.0.as_str()), Some("q1"));
        let k = &setup.k;
        let mut guess_extrapolated = guess.clone();
        for (i, g) in guess_extrapolated.iter_mut().take(setup.d).enumerate() {
            let hv = model.graph.mul(k.h, k.v[i]);
            *g = model.graph.add(k.q[i], hv);
        }
        Self::with_guesses(setup, residual, [guess, guess_extrapolated], next)
    }

    /// A template whose unknowns do not start with `q¹` (Null-EML's rotation vector):
    /// its simple and extrapolated guesses given.
    pub fn with_guesses(
        setup: &Setup,
        residual: Vec<Id>,
        [guess, guess_extrapolated]: [Vec<Id>; 2],
        next: NextState,
    ) -> Self {
        Template {
            blocks: setup.blocks.clone(),
            unknowns: setup.vars.clone(),
            residual,
            guess,
            guess_extrapolated,
            next,
            intermediates: Vec::new(),
            linear_pivots: Vec::new(),
            known: vec![
                ("q", setup.k.q.clone()),
                ("v", setup.k.v.clone()),
                ("p", setup.k.p.clone()),
                ("lambda", setup.k.lambda.clone()),
                ("gamma", setup.k.gamma.clone()),
            ],
            controls: setup.k.u.clone(),
        }
    }

    /// This template with its residual and next state written in the intermediates
    /// `w_k = definition_k` (see [`Template::intermediates`]).
    pub fn with_intermediates(mut self, intermediates: Vec<(VarId, Id)>) -> Self {
        self.intermediates = intermediates;
        self
    }
}

pub struct NextState {
    pub q: Vec<Id>,
    pub v: Vec<Id>,
    pub p: Vec<Id>,
    pub lambda: Vec<Id>,
    pub gamma: Vec<Id>,
}

impl NextState {
    /// The new state of a scheme without a velocity-level multiplier: `γ` is `m`
    /// copies of `zero`.
    pub fn without_gamma(q: Vec<Id>, v: Vec<Id>, p: Vec<Id>, lambda: Vec<Id>, zero: Id) -> Self {
        let gamma = vec![zero; lambda.len()];
        NextState {
            q,
            v,
            p,
            lambda,
            gamma,
        }
    }
}

/// How long an input block is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum InputSize {
    /// One entry per coordinate.
    Coordinates,
    /// One entry per holonomic constraint.
    Constraints,
    /// A scalar.
    Scalar,
    /// One entry per scalar control input.
    Inputs,
}

/// An input of a step: a named block of the known state (or a scalar argument), and the
/// Rust expression the generated code reads it from.
pub struct Input {
    pub name: &'static str,
    pub size: InputSize,
    pub source: &'static str,
}

/// The inputs of a GGL step: the known state at `tⁿ` (the `NodeState` argument `known`)
/// and the step size (the argument `h`). A new input (the time, a control) is one row
/// here and one field of the `Known` it fills.
pub const GGL_INPUTS: &[Input] = &[
    Input {
        name: "known_q",
        size: InputSize::Coordinates,
        source: "known.q",
    },
    Input {
        name: "known_v",
        size: InputSize::Coordinates,
        source: "known.v",
    },
    Input {
        name: "known_p",
        size: InputSize::Coordinates,
        source: "known.p",
    },
    Input {
        name: "known_lambda",
        size: InputSize::Constraints,
        source: "known.lambda",
    },
    Input {
        name: "known_gamma",
        size: InputSize::Constraints,
        source: "known.gamma",
    },
    Input {
        name: "known_t",
        size: InputSize::Scalar,
        source: "known.t",
    },
    Input {
        name: "h",
        size: InputSize::Scalar,
        source: "h",
    },
    Input {
        name: "known_u",
        size: InputSize::Inputs,
        source: "inputs",
    },
];

/// Variables of the known state at `tⁿ` and the step size.
pub struct Known {
    pub q: Vec<Id>,
    pub v: Vec<Id>,
    pub p: Vec<Id>,
    pub lambda: Vec<Id>,
    pub gamma: Vec<Id>,
    /// The time `tⁿ`.
    pub t: Id,
    pub h: Id,
    /// The inputs held over the step.
    pub u: Vec<Id>,
}

impl Known {
    pub fn new(model: &mut Model) -> Self {
        let (d, m) = (model.dim(), model.n_constraints());
        let mut blocks: HashMap<&str, Vec<Id>> = HashMap::new();
        for input in GGL_INPUTS {
            let ids = match input.size {
                InputSize::Scalar => {
                    vec![model.new_var(input.name, Role::Input(input.name, None)).1]
                }
                size => {
                    let n = match size {
                        InputSize::Coordinates => d,
                        InputSize::Constraints => m,
                        _ => model.inputs.len(),
                    };
                    (0..n)
                        .map(|i| {
                            let name = format!("{}{i}", input.name);
                            model.new_var(name, Role::Input(input.name, Some(i))).1
                        })
                        .collect()
                }
            };
            blocks.insert(input.name, ids);
        }
        let mut take = |name| {
            blocks
                .remove(name)
                .expect("every GGL input is in the table")
        };
        let (q, v, p) = (take("known_q"), take("known_v"), take("known_p"));
        let (lambda, gamma) = (take("known_lambda"), take("known_gamma"));
        let (t, h) = (take("known_t")[0], take("h")[0]);
        Known {
            q,
            v,
            p,
            lambda,
            gamma,
            t,
            h,
            u: take("known_u"),
        }
    }
}

/// What a template is built from: the model's quantities (derived once per model) and
/// the named blocks of its unknowns, from the scheme's catalogue entry.
pub struct Inputs<'a> {
    pub quantities: &'a Quantities,
    pub blocks: &'a [(String, usize)],
}

/// What every GGL template starts from: the sizes, the known state, the model's
/// quantities, the constant `M⁻¹` (empty when the mass matrix is not constant: `check`
/// admits such a model only for schemes that never invert it), and the unknowns in
/// blocks.
pub struct Setup {
    /// The named blocks of the unknowns and their sizes; the first is `q1`.
    pub blocks: Vec<(String, usize)>,
    pub d: usize,
    pub m: usize,
    pub k: Known,
    pub qs: Quantities,
    pub minv: Vec<Vec<Id>>,
    pub vars: Vec<VarId>,
    pub x: Vec<Vec<Id>>,
}

impl Setup {
    /// The setup of a template built from `inputs`.
    pub fn new(model: &mut Model, inputs: &Inputs) -> Self {
        let (d, m) = (model.dim(), model.n_constraints());
        let k = Known::new(model);
        let qs = inputs.quantities.clone();
        // `check` rejects a scheme that needs M⁻¹ unless the mass matrix is constant and
        // nonsingular.
        let minv = qs.minv.clone().unwrap_or_default();
        let blocks = inputs.blocks.to_vec();
        let sizes: Vec<usize> = blocks.iter().map(|b| b.1).collect();
        let (vars, x) = unknowns(model, &sizes);
        Setup {
            blocks,
            d,
            m,
            k,
            qs,
            minv,
            vars,
            x,
        }
    }
}

/// Allocates the unknowns in blocks of the given sizes.
pub fn unknowns(model: &mut Model, blocks: &[usize]) -> (Vec<VarId>, Vec<Vec<Id>>) {
    let mut all = Vec::new();
    let mut out = Vec::new();
    for &n in blocks {
        let mut block = Vec::new();
        for _ in 0..n {
            let i = all.len();
            let (v, id) = model.new_var(format!("x{i}"), Role::Unknown(i));
            all.push(v);
            block.push(id);
        }
        out.push(block);
    }
    (all, out)
}

/// `exprs` (in the model's `q` and `v`) evaluated at `q = at_q`, `v = at_v`.
pub fn at(model: &mut Model, exprs: &[Id], at_q: &[Id], at_v: Option<&[Id]>) -> Vec<Id> {
    let mut map: HashMap<VarId, Id> = model.q.iter().copied().zip(at_q.iter().copied()).collect();
    if let Some(at_v) = at_v {
        map.extend(model.v.iter().copied().zip(at_v.iter().copied()));
    }
    model.graph.substitute(exprs, &map)
}

/// The generalized forces of the `forces` block at `(q, v)` and the time `tⁿ + θ h`
/// (`None` for a model without forces).
pub fn forces_at(model: &mut Model, k: &Known, q: &[Id], v: &[Id], theta: f64) -> Option<Vec<Id>> {
    let forces = model.forces.clone()?;
    let mut map: HashMap<VarId, Id> = model.q.iter().copied().zip(q.iter().copied()).collect();
    map.extend(model.v.iter().copied().zip(v.iter().copied()));
    if let Some(time) = model.time_var() {
        let theta = model.graph.constant(theta);
        let dt = model.graph.mul(theta, k.h);
        map.insert(time, model.graph.add(k.t, dt));
    }
    let controls = model.inputs.iter().map(|&(var, _)| var);
    map.extend(controls.zip(k.u.iter().copied()));
    Some(model.graph.substitute(&forces, &map))
}

/// A scheme coefficient: a number fixed by the scheme, or a field of the scheme value
/// read at run time (the general θ-methods).
#[derive(Clone, Copy)]
pub enum Coef {
    Const(f64),
    Field(&'static str),
}

/// The node of a scheme coefficient.
pub fn coef(model: &mut Model, c: Coef) -> Id {
    match c {
        Coef::Const(x) => model.graph.constant(x),
        Coef::Field(name) => model.new_var(name, Role::SchemeParam(name)).1,
    }
}

/// `(1 − θ) a + θ b`, elementwise.
pub fn lerp(model: &mut Model, a: &[Id], b: &[Id], theta: Id) -> Vec<Id> {
    let g = &mut model.graph;
    let one = g.one();
    let (ca, cb) = (g.sub(one, theta), theta);
    a.iter()
        .zip(b)
        .map(|(&x, &y)| {
            let (s, t) = (g.mul(ca, x), g.mul(cb, y));
            g.add(s, t)
        })
        .collect()
}

/// The arithmetic mean of `a` and `b`, elementwise.
pub fn midpoint(model: &mut Model, a: &[Id], b: &[Id]) -> Vec<Id> {
    let half = model.graph.constant(0.5);
    lerp(model, a, b, half)
}

/// Matrix–vector product of row-major symbolic matrices.
pub fn mat_vec(model: &mut Model, a: &[Vec<Id>], x: &[Id]) -> Vec<Id> {
    a.iter().map(|row| model.graph.dot(row, x)).collect()
}

/// `Σ_k γ_k H_k(q) w = ∇_q (γ · G(q) w)` for `γ`, `w` independent of `q`, evaluated at
/// `q = at_q`: the contraction `T(q, γ) w` of spec 000 without a third-order tensor.
pub fn hessian_contraction(
    model: &mut Model,
    jac: &[Vec<Id>],
    gamma: &[Id],
    w: &[Id],
    at_q: &[Id],
) -> Vec<Id> {
    let gw = mat_vec(model, jac, w);
    let s = model.graph.dot(gamma, &gw);
    let qv = model.q.clone();
    let grad = model.graph.gradient(s, &qv);
    at(model, &grad, at_q, None)
}
