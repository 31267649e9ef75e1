//! The Hamiltonian form of one rigid body in a unit quaternion, on which the paper's
//! Hamiltonian reference schemes MPH and EMH are written (Kinon, Betsch, "Conserving
//! integration of multibody systems with singular and non-constant mass matrix including
//! quaternion-based rigid body dynamics", App. D, eqs. (138)–(145); spec 001 §1.8):
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

/// `¼ J₄⁻¹` of the model's body, symbolic in its parameters.
pub(super) struct BodyHamiltonian {
    quarter_j4_inv: Vec<Vec<Id>>,
}

impl BodyHamiltonian {
    /// The body of a model `check` accepted for a rigid-body scheme: one `Quat`
    /// coordinate, kinetic energy `½ Ω·J₀Ω`.
    pub fn new(model: &mut Model, setup: &Setup) -> Self {
        let g = &mut model.graph;
        let (zero, one) = (g.zero(), g.one());
        let identity = [one, zero, zero, zero];
        let mass = &setup.qs.mass;
        let at_identity: Vec<Vec<Id>> = mass
            .iter()
            .map(|row| super::common::at(model, row, &identity, None))
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
        let quarter_j4_inv = inv
            .iter()
            .map(|row| row.iter().map(|&x| g.mul(quarter, x)).collect())
            .collect();
        BodyHamiltonian { quarter_j4_inv }
    }

    /// The invariant (145), `t = Q_l(q)ᵀ p`.
    pub fn invariant(&self, g: &mut Graph, q: &[Id], p: &[Id]) -> Vec<Id> {
        let ql = quaternion::left_matrix(g, q);
        quaternion::mat_t_vec(g, &ql, p)
    }

    /// `c = ∂_t T* = ¼ J₄⁻¹ t` (138).
    pub fn co_energy_gradient(&self, g: &mut Graph, t: &[Id]) -> Vec<Id> {
        self.quarter_j4_inv
            .iter()
            .map(|row| g.dot(row, t))
            .collect()
    }

    /// `(∂t/∂p)ᵀ c = Q_l(q) c`.
    pub fn along_p(&self, g: &mut Graph, q: &[Id], c: &[Id]) -> Vec<Id> {
        let ql = quaternion::left_matrix(g, q);
        quaternion::mat_vec(g, &ql, c)
    }

    /// `(∂t/∂q)ᵀ c = [p, −G(p)ᵀ] c = p c₀ − G(p)ᵀ c⃗`.
    pub fn along_q(&self, g: &mut Graph, p: &[Id], c: &[Id]) -> Vec<Id> {
        let gp = quaternion::g_matrix(g, p);
        let gt_c = quaternion::mat_t_vec(g, &gp, &c[1..4]);
        p.iter()
            .zip(gt_c)
            .map(|(&pi, x)| {
                let s = g.mul(pi, c[0]);
                g.sub(s, x)
            })
            .collect()
    }

    /// The velocity `v = M₄⁻¹ p = ∂_p T*(q, p)` (143a), the nodal velocity the
    /// Hamiltonian schemes report (the paper's footnote 5).
    pub fn velocity(&self, g: &mut Graph, q: &[Id], p: &[Id]) -> Vec<Id> {
        let t = self.invariant(g, q, p);
        let c = self.co_energy_gradient(g, &t);
        self.along_p(g, q, &c)
    }
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

/// What distinguishes MPH from EMH: the derivative `c` of `T*` in `t`, of `V` and the
/// rows of the constraints' derivative, each at the midpoint or discrete.
pub(super) struct Derivatives {
    pub c: Vec<Id>,
    pub grad_v: Vec<Id>,
    pub constraint_rows: Vec<Vec<Id>>,
}

/// The step equations both Hamiltonian schemes share, unknowns `x = (q¹, p¹, λ)`:
///
/// ```text
/// 0 = q¹ − q⁰ − h Q_l(q^½) c
/// 0 = p¹ − p⁰ + h [p^½, −G(p^½)ᵀ] c + h ∇V + h ∇gᵀ λ
/// 0 = g(q¹)
/// ```
///
/// with `derivatives` supplying `c`, `∇V` and `∇g`; the new state's `v` is `M₄⁻¹ p¹`,
/// and Newton starts from `(q⁰ + h v⁰, p⁰, λ⁰)` whichever guess is asked for (the
/// paper's footnote 5: from `q⁰` the Jacobian is nearly singular and Newton fails).
pub(super) fn template(
    model: &mut Model,
    inputs: &Inputs,
    derivatives: impl FnOnce(&mut Model, &Setup, &BodyHamiltonian, &Nodes) -> Derivatives,
) -> Template {
    let setup = Setup::new(model, inputs);
    let body = BodyHamiltonian::new(model, &setup);
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
        let c = a.vector(&derivs.c);
        let dp_h = a.call(|m| body.along_p(&mut m.graph, &nodes.qm, &c.ids));
        let dq_t = a.call(|m| body.along_q(&mut m.graph, &nodes.pm, &c.ids));
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
