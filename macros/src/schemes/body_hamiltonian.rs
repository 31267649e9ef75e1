//! The Hamiltonian form of rigid bodies in unit quaternions and particles, on which the
//! paper's Hamiltonian reference schemes MPH and EMH are written (Kinon, Betsch,
//! "Conserving integration of multibody systems with singular and non-constant mass
//! matrix including quaternion-based rigid body dynamics", App. D, eqs. (138)–(145); spec
//! 001 §1.8). For each body `b` (a `Quat` coordinate):
//!
//! ```text
//! (139) M₄ = 4 Q_l(q) J₄ Q_l(q)ᵀ,   J₄ = diag(½ tr J₀, J₀)    (regular; M̃₄ = 4 GᵀJ₀G is not)
//! (145) t  = Q_l(q)ᵀ p = [qᵀ; G(q)] p = [pᵀ; −G(p)] q         (bilinear in q and p)
//! (138) T* = ½ p·M₄⁻¹p = ⅛ t·J₄⁻¹ t                           (for |q| = 1)
//! ```
//!
//! so that `∂_p T* = Q_l(q) c` and `∂_q T* = [p, −G(p)ᵀ] c` with `c = ∂_t T* = ¼ J₄⁻¹ t`.
//! `J₀` is read off the model's mass matrix: `M̃₄(e) = 4 G(e)ᵀJ₀G(e) = diag(0, 4 J₀)` at the
//! identity `e = (1, 0, 0, 0)`; `check` has verified that `M(q) = 4 G(q)ᵀJ₀G(q)` at other
//! points, i.e. that the kinetic energy is the body's `½ Ω·J₀Ω` with `Ω = 2 G(q) q̇`.
//! The other coordinates (the particles, `Vec3` and `Scalar`) have a constant mass matrix
//! `M_r`, `T*_r = ½ p_r·M_r⁻¹p_r`, and `check` has verified that no term of the kinetic
//! energy couples two blocks. The paper writes App. D for one body; the co-energy of
//! several is the sum of theirs, and each conservation argument is the one body's, term
//! by term (issue 30: the double top, which EML's nodal velocities cannot carry at
//! `h = 0.01`).
//!
//! The co-energy is written with the formula of (138) away from the unit sphere too (the
//! midpoint `q^½` has `|q^½| < 1`); this is the paper's Hamiltonian, whose flow keeps
//! `|q| = 1` and `q·p = 0` (Remark D.1).
use super::algebra::Algebra;
use super::common::{Inputs, NextState, Setup, Template};
use crate::ir::Model;
use crate::quantities::constant_inverse;
use crate::quaternion;
use crate::sym::{Graph, Id};
use std::collections::HashMap;

/// One rigid body: where its quaternion sits in `q` (and `p`), and `¼ J₄⁻¹` symbolic in
/// the model's parameters.
struct Body {
    offset: usize,
    quarter_j4_inv: Vec<Vec<Id>>,
}

/// The co-energy `T* = Σ_b ⅛ t_b·J₄,b⁻¹ t_b + ½ p_r·M_r⁻¹ p_r` of the model's bodies and
/// particles.
pub(super) struct Hamiltonian {
    bodies: Vec<Body>,
    /// The indices of the particles' coordinates, and `M_r⁻¹` on them.
    rest: Vec<usize>,
    rest_minv: Vec<Vec<Id>>,
}

impl Hamiltonian {
    /// The bodies and particles of a model `check` accepted for a rigid-body scheme:
    /// `Quat` coordinates with kinetic energy `½ Ω·J₀Ω` each, the others with a constant
    /// mass matrix, no term coupling two blocks.
    pub fn new(model: &mut Model, setup: &Setup) -> Self {
        let mass = setup.qs.mass.clone();
        let (offsets, rest) = model.bodies_and_particles();
        let bodies = offsets
            .into_iter()
            .map(|offset| Body {
                offset,
                quarter_j4_inv: quarter_j4_inv(model, &mass, offset),
            })
            .collect();
        let rest_mass: Vec<Vec<Id>> = rest
            .iter()
            .map(|&i| rest.iter().map(|&j| mass[i][j]).collect())
            .collect();
        // `check` has verified that M_r is constant and positive definite (and that no
        // coordinate is on a group, so that `q` and `p` share the offsets used here).
        let rest_minv =
            constant_inverse(model, &rest_mass).expect("check: M_r constant, positive definite");
        Hamiltonian {
            bodies,
            rest,
            rest_minv,
        }
    }

    /// The invariants (145), `t_b = Q_l(q_b)ᵀ p_b`, of every body.
    pub fn invariants(&self, g: &mut Graph, q: &[Id], p: &[Id]) -> Vec<Vec<Id>> {
        self.bodies
            .iter()
            .map(|b| {
                let ql = quaternion::left_matrix(g, &q[b.offset..b.offset + 4]);
                quaternion::mat_t_vec(g, &ql, &p[b.offset..b.offset + 4])
            })
            .collect()
    }

    /// `c_b = ∂_t T* = ¼ J₄⁻¹ t_b` (138) of every body.
    pub fn co_energy_gradients(&self, g: &mut Graph, t: &[Vec<Id>]) -> Vec<Vec<Id>> {
        self.bodies
            .iter()
            .zip(t)
            .map(|(b, t)| b.quarter_j4_inv.iter().map(|row| g.dot(row, t)).collect())
            .collect()
    }

    /// `∂_p T*` with the bodies' `c`: `Q_l(q_b) c_b` on each body, `M_r⁻¹ p_r` on the
    /// particles (`T*_r` is quadratic: its gradient at the midpoint is its discrete one).
    pub fn along_p(&self, g: &mut Graph, q: &[Id], p: &[Id], c: &[Vec<Id>]) -> Vec<Id> {
        let mut out = vec![g.zero(); q.len()];
        for (b, c) in self.bodies.iter().zip(c) {
            let ql = quaternion::left_matrix(g, &q[b.offset..b.offset + 4]);
            let x = quaternion::mat_vec(g, &ql, c);
            out[b.offset..b.offset + 4].copy_from_slice(&x);
        }
        let p_rest: Vec<Id> = self.rest.iter().map(|&j| p[j]).collect();
        for (&i, row) in self.rest.iter().zip(&self.rest_minv) {
            out[i] = g.dot(row, &p_rest);
        }
        out
    }

    /// `∂_q T*` with the bodies' `c`: `[p_b, −G(p_b)ᵀ] c_b = p_b c₀ − G(p_b)ᵀ c⃗` on each
    /// body, zero on the particles (constant mass).
    pub fn along_q(&self, g: &mut Graph, p: &[Id], c: &[Vec<Id>]) -> Vec<Id> {
        let mut out = vec![g.zero(); p.len()];
        for (b, c) in self.bodies.iter().zip(c) {
            let pb = &p[b.offset..b.offset + 4];
            let gp = quaternion::g_matrix(g, pb);
            let gt_c = quaternion::mat_t_vec(g, &gp, &c[1..4]);
            for (k, (&pi, x)) in pb.iter().zip(gt_c).enumerate() {
                let s = g.mul(pi, c[0]);
                out[b.offset + k] = g.sub(s, x);
            }
        }
        out
    }

    /// The velocity `v = ∂_p T*(q, p)` (`M₄⁻¹ p_b` on each body (143a), `M_r⁻¹ p_r` on
    /// the particles), the nodal velocity the Hamiltonian schemes report (the paper's
    /// footnote 5).
    pub fn velocity(&self, g: &mut Graph, q: &[Id], p: &[Id]) -> Vec<Id> {
        let t = self.invariants(g, q, p);
        let c = self.co_energy_gradients(g, &t);
        self.along_p(g, q, p, &c)
    }
}

/// `¼ J₄⁻¹` of the body whose quaternion starts at `offset`, `J₀ = ¼ M̃₄(e)[1.., 1..]`.
fn quarter_j4_inv(model: &mut Model, mass: &[Vec<Id>], offset: usize) -> Vec<Vec<Id>> {
    let g = &mut model.graph;
    let (zero, one) = (g.zero(), g.one());
    let identity = [one, zero, zero, zero];
    let map: HashMap<_, _> = model.q[offset..offset + 4]
        .iter()
        .copied()
        .zip(identity)
        .collect();
    let at_identity: Vec<Vec<Id>> = (offset..offset + 4)
        .map(|i| model.graph.substitute(&mass[i][offset..offset + 4], &map))
        .collect();
    let g = &mut model.graph;
    let quarter = g.constant(0.25);
    // J₀ = ¼ M̃₄(e)[1..4, 1..4]
    let j0: Vec<Vec<Id>> = (1..4)
        .map(|i| (1..4).map(|j| g.mul(quarter, at_identity[i][j])).collect())
        .collect();
    let half = g.constant(0.5);
    let trace = g.sum([j0[0][0], j0[1][1], j0[2][2]]);
    let j0s = g.mul(half, trace);
    let mut j4 = vec![vec![j0s, zero, zero, zero]];
    j4.extend(j0.iter().map(|row| {
        let mut r = vec![zero];
        r.extend(row);
        r
    }));
    // J₀ is positive definite for a body `check` accepted (its entries are the
    // model's parameters: the inverse is a symbolic expression in them).
    let inv = constant_inverse(model, &j4).expect("J₄ = diag(½ tr J₀, J₀) is regular");
    let g = &mut model.graph;
    inv.iter()
        .map(|row| row.iter().map(|&x| g.mul(quarter, x)).collect())
        .collect()
}

/// The states a Hamiltonian step is written in: the known `(q⁰, p⁰)`, the unknowns
/// `(q¹, p¹)` and their midpoints.
pub(super) struct Nodes {
    pub q0: Vec<Id>,
    pub q1: Vec<Id>,
    pub p0: Vec<Id>,
    pub p1: Vec<Id>,
    pub qm: Vec<Id>,
    pub pm: Vec<Id>,
}

/// What distinguishes MPH from EMH: the derivatives `c_b` of `T*` in each body's `t`,
/// of `V` and the rows of the constraints' derivative, each at the midpoint or discrete.
pub(super) struct Derivatives {
    pub c: Vec<Vec<Id>>,
    pub grad_v: Vec<Id>,
    pub constraint_rows: Vec<Vec<Id>>,
}

/// The step equations both Hamiltonian schemes share, unknowns `x = (q¹, p¹, λ)`:
///
/// ```text
/// 0 = q¹ − q⁰ − h Q_l(q^½) c          (on each body; − h M_r⁻¹ p^½ on the particles)
/// 0 = p¹ − p⁰ + h [p^½, −G(p^½)ᵀ] c + h ∇V + h ∇gᵀ λ     (no `c` term on the particles)
/// 0 = g(q¹)
/// ```
///
/// with `derivatives` supplying the `c_b`, `∇V` and `∇g`; the new state's `v` is
/// `∂_p T*(q¹, p¹)`,
/// and Newton starts from `(q⁰ + h v⁰, p⁰, λ⁰)` whichever guess is asked for (the
/// paper's footnote 5: from `q⁰` the Jacobian is nearly singular and Newton fails).
pub(super) fn template(
    model: &mut Model,
    inputs: &Inputs,
    derivatives: impl FnOnce(&mut Model, &Setup, &Hamiltonian, &Nodes) -> Derivatives,
) -> Template {
    let setup = Setup::new(model, inputs);
    let body = Hamiltonian::new(model, &setup);
    let Setup { k, qs, x, .. } = &setup;
    let nodes = {
        let qm = super::common::midpoint(model, &k.q, &x[0]);
        let pm = super::common::midpoint(model, &k.p, &x[1]);
        Nodes {
            q0: k.q.clone(),
            q1: x[0].clone(),
            p0: k.p.clone(),
            p1: x[1].clone(),
            qm,
            pm,
        }
    };
    let derivs = derivatives(model, &setup, &body, &nodes);
    let (residual, next) = {
        let a = Algebra::new(model);
        let (q0, p0) = (a.vector(&nodes.q0), a.vector(&nodes.p0));
        let (q1, p1, lambda) = (a.vector(&nodes.q1), a.vector(&nodes.p1), a.vector(&x[2]));
        let h = a.scalar(k.h);
        let c = &derivs.c;
        let dp_h = a.call(|m| body.along_p(&mut m.graph, &nodes.qm, &nodes.pm, c));
        let dq_t = a.call(|m| body.along_q(&mut m.graph, &nodes.pm, c));
        let grad_v = a.vector(&derivs.grad_v);
        let dg_lambda = if derivs.constraint_rows.is_empty() {
            a.zeros(setup.d)
        } else {
            a.matrix(&derivs.constraint_rows).t() * &lambda
        };
        let r1 = &q1 - &q0 - h * &dp_h;
        let r2 = &p1 - &p0 + h * &dq_t + h * &grad_v + h * dg_lambda;
        let r3 = a.vector_at(&qs.g, &q1);
        let v1 = a.call(|m| body.velocity(&mut m.graph, &q1.ids, &p1.ids));
        let zero = a.constant(0.0).id;
        let next = NextState::without_gamma(q1.ids, v1.ids, p1.ids, lambda.ids, zero);
        ([r1.ids, r2.ids, r3.ids].concat(), next)
    };
    let simple = [&k.q, &k.p, &k.lambda].map(|b| b.clone()).concat();
    let mut t = Template::new(model, &setup, residual, simple, next);
    t.guess = t.guess_extrapolated.clone();
    t
}
