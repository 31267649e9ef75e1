//! The model IR: every quantity of the model as nodes of one symbolic graph, with the
//! user's names and spans kept for later error messages.
use proc_macro2::Span;
use syn::{Attribute, Ident, Visibility};

use crate::quaternion;
use crate::sym::{Func, Graph, Id, VarId};

/// What a variable of the graph stands for; decides how the emitter reads it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Role {
    /// Runtime parameter `self.<name>`, by index into [`Model::params`].
    Param(usize),
    /// Model-level coordinate `q[i]`, velocity `v[i]`, momentum `p[i]`.
    Q(usize),
    V(usize),
    P(usize),
    /// Step templates: entry `i` of a named input block (the known state at `tⁿ`), or
    /// a scalar input (`None`: the step size `h`). The family's input table
    /// (`schemes::common::GGL_INPUTS`) says where the generated code reads each block.
    Input(&'static str, Option<usize>),
    /// Step templates: the `i`-th unknown of the step equations.
    Unknown(usize),
    /// Step templates: the `k`-th intermediate, a named value of the known state and the
    /// unknowns (`Template::intermediates`) that the residual is written in, so that the
    /// Jacobian follows the chain rule through it instead of differentiating its
    /// definition once per use.
    Intermediate(usize),
    /// Step templates: `∂w_k/∂x_j`, the derivative of intermediate `k` by unknown `j`.
    IntermediateDerivative(usize, usize),
    /// A declared invariant `π_k`, by index into [`Model::invariants`]. Only the
    /// potential and the constraints as written (`potential_raw`, `constraints_raw`)
    /// contain these; everything emitted has them substituted by their definitions.
    Invariant(usize),
    /// Step templates: an `f64` field of the scheme value (`theta`, `vartheta`).
    SchemeParam(&'static str),
    /// The `k`-th scalar control input `u` (the argument `u` of `Model::forces`; the
    /// step templates substitute the inputs held over the step).
    Control(usize),
    /// The time `t` of the `forces` block (the argument `t` of `Model::forces`; the
    /// step templates substitute the time they evaluate the forces at).
    Time,
}

pub struct Param {
    pub attrs: Vec<Attribute>,
    pub name: Ident,
    pub default: f64,
}

/// A condition on the parameters from the `requires` block: `lhs op rhs`.
pub struct Requirement {
    /// The condition as written, for messages at run time (`m > 0.0`).
    pub text: String,
    pub lhs: Id,
    pub op: Comparison,
    pub rhs: Id,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Comparison {
    Lt,
    Le,
    Gt,
    Ge,
}

impl Comparison {
    pub fn holds(self, a: f64, b: f64) -> bool {
        match self {
            Comparison::Lt => a < b,
            Comparison::Le => a <= b,
            Comparison::Gt => a > b,
            Comparison::Ge => a >= b,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum CoordKind {
    Scalar,
    Vec3,
    /// A quaternion `(q₀, q⃗)` (scalar part first), for the orientation of a rigid body;
    /// the unit-norm constraint is an ordinary holonomic constraint of the model.
    Quat,
    /// The rotation group SO(3), stored as a unit quaternion `(w, x, y, z)` that the
    /// group's retraction keeps on the sphere; its velocity is the body angular
    /// velocity `ω` (3 numbers, spec `next_packages.md` §A.5).
    So3,
    /// The planar rigid motions SE(2), stored as `(x, y, θ)`; its velocity is the body
    /// velocity `(v₁, v₂, ω)`.
    Se2,
}

impl CoordKind {
    /// The numbers that store one coordinate (its entries of `q`).
    pub fn len(self) -> usize {
        match self {
            CoordKind::Scalar => 1,
            CoordKind::Vec3 | CoordKind::Se2 => 3,
            CoordKind::Quat | CoordKind::So3 => 4,
        }
    }

    /// The numbers of its velocity (its entries of `v` and `p`): the group's algebra
    /// for `So3` and `Se2`, its storage otherwise.
    pub fn velocity_len(self) -> usize {
        match self {
            CoordKind::So3 => 3,
            other => other.len(),
        }
    }

    /// Whether the coordinate lives on a Lie group, moved by its retraction.
    pub fn is_group(self) -> bool {
        matches!(self, CoordKind::So3 | CoordKind::Se2)
    }
}

pub struct Coord {
    pub kind: CoordKind,
    /// Index of the first scalar of this coordinate in `q`.
    pub offset: usize,
    /// Index of the first scalar of its velocity in `v` (and `p`).
    pub velocity_offset: usize,
}

pub struct Constraint {
    pub name: String,
    pub expr: Id,
    pub span: Span,
}

/// A one-parameter symmetry group acting on every `Vec3` and `Quat` coordinate block
/// ([`Model::generator`]).
#[derive(Clone, Copy, Debug)]
pub enum Symmetry {
    /// Rotations about a fixed axis: `ξ_Q(q) = a × q` per block.
    Rotation([f64; 3]),
    /// Translations along a fixed direction: `ξ_Q(q) = a` per block.
    Translation([f64; 3]),
}

/// A declared quadratic invariant: its variable in `potential_raw` and its definition.
pub struct Invariant {
    /// The declaration's name (`Omega` for every component of a vector invariant).
    pub name: Ident,
    /// This component's name (`Omega[1]`, or the name of a scalar invariant).
    pub label: String,
    pub var: VarId,
    pub expr: Id,
}

pub struct Momentum {
    pub name: Ident,
    pub symmetry: Symmetry,
    /// The declaration `rotation(e3)`, for errors spanning it.
    pub tokens: proc_macro2::TokenStream,
}

/// Most temporaries the residual and Jacobian of one model × scheme may take. rustc's
/// time and memory grow about linearly with them (measured on a 2-core machine, test
/// profile, debug info on: 7 800 temporaries build in 8 s and 0.6 GB, 32 000 in 43 s and
/// 2.7 GB, 131 000 in 240 s and 19 GB); the papers' models take 80–1 200. The budget
/// keeps one model × scheme near 10 s and 1 GB.
pub(crate) const BUDGET: usize = 10_000;

pub struct Model {
    pub graph: Graph,
    /// Role of every variable, indexed by `VarId`.
    pub roles: Vec<Role>,
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub name: Ident,
    pub params: Vec<Param>,
    pub requirements: Vec<Requirement>,
    pub coords: Vec<Coord>,
    /// Scalar coordinate, velocity and momentum variables, in `q` order.
    pub q: Vec<VarId>,
    pub v: Vec<VarId>,
    pub p: Vec<VarId>,
    /// Display name of every scalar coordinate (`r.x`, `theta`).
    pub coord_names: Vec<String>,
    /// Display name of every scalar velocity: the coordinate's in a vector space, the
    /// body velocity's components of a group coordinate (`g_dot.x`).
    pub velocity_names: Vec<String>,
    pub lagrangian: Id,
    /// Where the kinetic energy (or the Lagrangian) is declared, for errors about the
    /// mass matrix.
    pub energy_span: Span,
    /// `V(q) = −L(q, 0)`.
    pub potential: Id,
    /// The potential as written, in the coordinates and the invariant variables.
    pub potential_raw: Id,
    /// The kinetic energy as written (`L + V`), in the coordinates, the velocities and
    /// the invariant variables.
    pub kinetic_raw: Id,
    pub invariants: Vec<Invariant>,
    pub constraints: Vec<Constraint>,
    /// The holonomic constraints as written, in the coordinates and the invariant
    /// variables (as `potential_raw`), for their invariant-based discrete gradients.
    pub constraints_raw: Vec<Id>,
    /// Nonholonomic constraints `A(q)·v = 0` (checked linear in the velocities when
    /// lowered), in declaration order.
    pub nonholonomic: Vec<Constraint>,
    pub momenta: Vec<Momentum>,
    /// Declared observables (`observables { … }`), any expression in `q` and `v`, one
    /// per scalar component, in declaration order.
    pub observables: Vec<Constraint>,
    /// The generalized forces `F(q, v, t)` of the `forces` block, one per scalar
    /// coordinate, if the model declares any.
    pub forces: Option<Vec<Id>>,
    /// The scalar control inputs of the `inputs` block, in order: their variables
    /// (`Role::Control`) and display names (`u`, `f.x`, `w[1]`).
    pub inputs: Vec<(VarId, String)>,
    /// The most temporaries one symbolic scheme's step equations may take
    /// (`schemes(budget = N)`, or the default [`BUDGET`]).
    pub budget: usize,
}

impl Model {
    /// An empty model: no parameters, coordinates or equations yet.
    pub fn new(attrs: Vec<Attribute>, vis: Visibility, name: Ident) -> Self {
        Model {
            graph: Graph::new(),
            roles: Vec::new(),
            attrs,
            vis,
            name,
            params: Vec::new(),
            requirements: Vec::new(),
            coords: Vec::new(),
            q: Vec::new(),
            v: Vec::new(),
            p: Vec::new(),
            coord_names: Vec::new(),
            velocity_names: Vec::new(),
            lagrangian: Id::default(),
            energy_span: Span::call_site(),
            potential: Id::default(),
            potential_raw: Id::default(),
            kinetic_raw: Id::default(),
            invariants: Vec::new(),
            constraints: Vec::new(),
            constraints_raw: Vec::new(),
            nonholonomic: Vec::new(),
            momenta: Vec::new(),
            observables: Vec::new(),
            forces: None,
            inputs: Vec::new(),
            budget: BUDGET,
        }
    }

    /// A fresh variable of the given role.
    pub fn new_var(&mut self, name: impl Into<String>, role: Role) -> (VarId, Id) {
        let (v, id) = self.graph.new_var(name);
        debug_assert_eq!(v.0 as usize, self.roles.len());
        self.roles.push(role);
        (v, id)
    }

    pub fn role(&self, v: VarId) -> Role {
        self.roles[v.0 as usize]
    }

    /// Number of scalar velocities `d` (the `D` of the trait impls): the number of
    /// coordinates in a vector space, the algebra's dimension on a group.
    pub fn dim(&self) -> usize {
        self.v.len()
    }

    /// Number of numbers that store the configuration (the `Q` of the trait impls).
    pub fn storage_dim(&self) -> usize {
        self.q.len()
    }

    /// The rigid bodies and particles of a model in a vector space (the Hamiltonian
    /// schemes' split): where each `Quat` coordinate starts, and the indices of every
    /// other scalar coordinate. Off a group `q` and `v` share these indices.
    pub fn bodies_and_particles(&self) -> (Vec<usize>, Vec<usize>) {
        let (bodies, rest): (Vec<&Coord>, Vec<&Coord>) =
            self.coords.iter().partition(|c| c.kind == CoordKind::Quat);
        let bodies = bodies.iter().map(|c| c.offset).collect();
        let rest = rest
            .iter()
            .flat_map(|c| c.offset..c.offset + c.kind.len())
            .collect();
        (bodies, rest)
    }

    /// Whether a coordinate lives on a Lie group (`SO3`, `SE2`).
    pub fn is_group(&self) -> bool {
        self.coords.iter().any(|c| c.kind.is_group())
    }

    /// The derivative of `e` along the configuration, one entry per velocity: `∂e/∂q` in
    /// a vector space, the left-trivialised `Lg(q)ᵀ ∂e/∂q` on a group (spec
    /// `next_packages.md` §A.2–A.3: `Lg = diag(R(θ), 1)` on SE(2), `½ G(q)ᵀ` on SO(3),
    /// the identity on the vector factors), the kernels' `ℓ_ζ`, and applied again to
    /// `ℓ_ζ`, `ℓ_ζζ`.
    pub fn config_gradient(&mut self, e: Id) -> Vec<Id> {
        let q = self.q.clone();
        let grad = self.graph.gradient(e, &q);
        if !self.is_group() {
            return grad;
        }
        let zero = self.graph.zero();
        let mut out = vec![zero; self.dim()];
        let blocks: Vec<(CoordKind, usize, usize)> = self
            .coords
            .iter()
            .map(|c| (c.kind, c.offset, c.velocity_offset))
            .collect();
        for (kind, off, voff) in blocks {
            let g = &mut self.graph;
            match kind {
                CoordKind::Se2 => {
                    let theta = g.var_node(q[off + 2]);
                    let (sin, cos) = (g.func(Func::Sin, theta), g.func(Func::Cos, theta));
                    let (gx, gy) = (grad[off], grad[off + 1]);
                    let (a, b) = (g.mul(cos, gx), g.mul(sin, gy));
                    out[voff] = g.add(a, b);
                    let (a, b) = (g.mul(sin, gx), g.mul(cos, gy));
                    out[voff + 1] = g.sub(b, a);
                    out[voff + 2] = grad[off + 2];
                }
                CoordKind::So3 => {
                    let storage: Vec<Id> = (0..4).map(|k| g.var_node(q[off + k])).collect();
                    let gm = quaternion::g_matrix(g, &storage);
                    let half = g.constant(0.5);
                    for (k, x) in quaternion::mat_vec(g, &gm, &grad[off..off + 4])
                        .into_iter()
                        .enumerate()
                    {
                        out[voff + k] = g.mul(half, x);
                    }
                }
                flat => out[voff..voff + flat.len()].copy_from_slice(&grad[off..off + flat.len()]),
            }
        }
        out
    }

    /// Number of scalar holonomic constraints `m`.
    pub fn n_constraints(&self) -> usize {
        self.constraints.len()
    }

    /// The velocity-level constraints `A(q) v = 0` a nonholonomic scheme integrates: the
    /// `nonholonomic` block, then (in a model that has one) every holonomic constraint's
    /// velocity form `G(q) v = 0`; none without a `nonholonomic` block.
    pub fn n_velocity_constraints(&self) -> usize {
        if self.nonholonomic.is_empty() {
            0
        } else {
            self.nonholonomic.len() + self.constraints.len()
        }
    }

    /// Whether `v` is a coordinate, velocity or momentum variable.
    /// The generator `ξ_Q(q)` of a symmetry, one entry per scalar coordinate: per `Vec3`
    /// block `a × q` for `rotation(a)` and `a` for `translation(a)`; per `Quat` block
    /// `½ a⁺ q = ½ E(q)ᵀ a` for `rotation(a)` (the left product `exp((0, ½εa))∘q`, a
    /// rotation by the angle ε about `a`; spec 001 §1.7, eqs. (53), (65)), nothing for a
    /// translation; nothing on scalar coordinates.
    pub fn generator(&mut self, symmetry: Symmetry) -> Vec<Id> {
        let zero = self.graph.zero();
        let mut xi = vec![zero; self.dim()];
        let blocks: Vec<(CoordKind, usize)> =
            self.coords.iter().map(|c| (c.kind, c.offset)).collect();
        for (kind, off) in blocks {
            let q: Vec<Id> = (0..kind.len())
                .map(|k| self.graph.var_node(self.q[off + k]))
                .collect();
            let g = &mut self.graph;
            let block: Vec<Id> = match (kind, symmetry) {
                // Group coordinates take no `momentum` block (`check` refuses it).
                (CoordKind::Scalar | CoordKind::So3 | CoordKind::Se2, _)
                | (CoordKind::Quat, Symmetry::Translation(_)) => continue,
                (CoordKind::Vec3, Symmetry::Rotation(a)) => {
                    let a: Vec<Id> = a.iter().map(|&x| g.constant(x)).collect();
                    crate::quaternion::cross(g, &a, &q).to_vec()
                }
                (CoordKind::Vec3, Symmetry::Translation(a)) => {
                    a.iter().map(|&x| g.constant(x)).collect()
                }
                (CoordKind::Quat, Symmetry::Rotation(a)) => {
                    let half: Vec<Id> = a.iter().map(|&x| g.constant(0.5 * x)).collect();
                    let e = quaternion::e_matrix(g, &q);
                    quaternion::mat_t_vec(g, &e, &half)
                }
            };
            xi[off..off + block.len()].copy_from_slice(&block);
        }
        xi
    }

    /// The time variable of the `forces` block, if the model declares forces.
    pub fn time_var(&self) -> Option<VarId> {
        self.roles
            .iter()
            .position(|&r| r == Role::Time)
            .map(|k| VarId(k as u32))
    }

    pub fn is_q(&self, v: VarId) -> bool {
        matches!(self.role(v), Role::Q(_))
    }

    pub fn is_v(&self, v: VarId) -> bool {
        matches!(self.role(v), Role::V(_))
    }

    pub fn constraint_exprs(&self) -> Vec<Id> {
        self.constraints.iter().map(|c| c.expr).collect()
    }
}
