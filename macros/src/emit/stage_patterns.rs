//! The structural nonzeros of the assembled stage families' Jacobians, for the
//! elimination plans `model!` hands their workspaces. Each is exactly where the
//! family's assembly in the runtime (`families::prk`, `families::prk_holonomic`) adds
//! a kernel, each kernel over its own pattern (from the model's graph), placed by the
//! Lobatto pair's structural zeros: the first row of IIIA's `a` and the last column of
//! IIIB's `â`. Every other coefficient of the pair (`aᵢⱼ`, `âᵢⱼ`, `bⱼ`, `b̂ⱼ`) is
//! nonzero, and a pattern may hold more than the values' nonzeros (a cancellation only
//! makes a planned entry zero), never less.
use std::collections::BTreeSet;

use crate::ir::Model;
use crate::quantities::Quantities;
use crate::schemes::StagePattern;
use crate::sym::{Id, VarId};

/// `(row, column)` of the structural nonzeros of a matrix.
pub type Pattern = Vec<(usize, usize)>;

/// The pattern of an assembled family's Jacobian with `stages` stages, by the rule its
/// catalogue entry names.
pub fn of(
    rule: StagePattern,
    model: &mut Model,
    quantities: &Quantities,
    stages: usize,
) -> Pattern {
    match rule {
        StagePattern::Unconstrained => unconstrained(model, quantities, stages),
        StagePattern::Holonomic => holonomic(model, quantities, stages),
        StagePattern::Nonholonomic => {
            let rows = velocity_constraint_matrix(model);
            nonholonomic(model, quantities, &rows, stages)
        }
    }
}

/// `A(q)` of the nonholonomic family, `K × D`: the gradients in `v` of the
/// `nonholonomic` block's constraints, then those in `q` of the holonomic ones (their
/// velocity forms, see `kernels::nonholonomic_kernels`).
/// The affine terms `a(q)` of the rows of [`velocity_constraint_matrix`]: each
/// nonholonomic constraint at rest (`v = 0`), zero for the holonomic velocity forms.
pub fn velocity_constraint_affine(model: &mut Model) -> Vec<Id> {
    let zero = model.graph.zero();
    let at_rest: std::collections::HashMap<VarId, Id> =
        model.v.iter().map(|&v| (v, zero)).collect();
    let nonholonomic: Vec<Id> = model.nonholonomic.iter().map(|c| c.expr).collect();
    let mut affine = model.graph.substitute(&nonholonomic, &at_rest);
    affine.extend(model.constraints.iter().map(|_| zero));
    affine
}

pub fn velocity_constraint_matrix(model: &mut Model) -> Vec<Vec<Id>> {
    let (velocities, positions) = (model.v.clone(), model.q.clone());
    let nonholonomic: Vec<Id> = model.nonholonomic.iter().map(|c| c.expr).collect();
    let holonomic: Vec<Id> = model.constraints.iter().map(|c| c.expr).collect();
    let mut a: Vec<Vec<Id>> = nonholonomic
        .iter()
        .map(|&e| model.graph.gradient(e, &velocities))
        .collect();
    a.extend(
        holonomic
            .iter()
            .map(|&g| model.graph.gradient(g, &positions)),
    );
    a
}

/// The nonzeros of the matrix whose row `i` is the gradient of `rows[i]` in `wrt`.
fn gradient_pattern(model: &mut Model, rows: &[Id], wrt: &[VarId]) -> Pattern {
    let mut pattern = Vec::new();
    for (i, &e) in rows.iter().enumerate() {
        for (j, x) in model.graph.gradient(e, wrt).into_iter().enumerate() {
            if !model.graph.is_zero(x) {
                pattern.push((i, j));
            }
        }
    }
    pattern
}

/// The point kernels' patterns: `D₁₁L`, `D₁₂L`, `D₂₂L`, and the forces' `F_q`, `F_v`
/// (empty without a `forces` block), which the assemblies add where `D₁₁L` (or
/// `K_qq`) and `D₁₂L` enter through a stage force `Wʲ`.
struct PointPatterns {
    l_qq: Pattern,
    l_qv: Pattern,
    l_vv: Pattern,
    f_q: Pattern,
    f_v: Pattern,
}

impl PointPatterns {
    fn new(model: &mut Model, quantities: &Quantities) -> Self {
        let (q, v) = (model.q.clone(), model.v.clone());
        let forces = model.forces.clone().unwrap_or_default();
        Self {
            l_qq: gradient_pattern(model, &quantities.dl_dq, &q),
            l_qv: gradient_pattern(model, &quantities.dl_dq, &v),
            l_vv: gradient_pattern(model, &quantities.dl_dv, &v),
            f_q: gradient_pattern(model, &forces, &q),
            f_v: gradient_pattern(model, &forces, &v),
        }
    }
}

/// `pattern`, transposed.
fn transposed(pattern: &[(usize, usize)]) -> Pattern {
    pattern.iter().map(|&(r, c)| (c, r)).collect()
}

/// The pattern being built: blocks placed at their first row and column.
#[derive(Default)]
struct Placed(BTreeSet<(usize, usize)>);

impl Placed {
    fn add(&mut self, (row, column): (usize, usize), block: &[(usize, usize)]) {
        self.0
            .extend(block.iter().map(|&(r, c)| (row + r, column + c)));
    }

    fn into_vec(self) -> Pattern {
        self.0.into_iter().collect()
    }
}

/// The Lobatto IIIA–IIIB pair's structural nonzeros, with `s` stages: `aᵢₗ` (IIIA's
/// first row is zero) and `âᵢⱼ` (IIIB's last column is zero).
struct LobattoZeros {
    s: usize,
}

impl LobattoZeros {
    fn a(&self, i: usize, _l: usize) -> bool {
        i > 0
    }
    fn a_hat(&self, _i: usize, j: usize) -> bool {
        j + 1 < self.s
    }
}

/// The stage Jacobian `∂R/∂X` of `families::prk` (`S·D` stage velocities). Block
/// `(i, l)` of `D × D` holds
///
/// ```text
/// h aᵢₗ D₂₁L + δᵢₗ D₂₂L − h âᵢₗ (D₁₂L + F_v) − h² Σⱼ âᵢⱼ aⱼₗ (D₁₁L + F_q),   D₂₁L = D₁₂Lᵀ.
/// ```
pub fn unconstrained(model: &mut Model, quantities: &Quantities, stages: usize) -> Pattern {
    let d = model.dim();
    let k = PointPatterns::new(model, quantities);
    let l_vq = transposed(&k.l_qv);
    let tab = LobattoZeros { s: stages };
    let mut placed = Placed::default();
    for i in 0..stages {
        for l in 0..stages {
            let at = (i * d, l * d);
            if tab.a(i, l) {
                placed.add(at, &l_vq);
            }
            if tab.a_hat(i, l) {
                placed.add(at, &k.l_qv);
                placed.add(at, &k.f_v);
            }
            if i == l {
                placed.add(at, &k.l_vv);
            }
            if (0..stages).any(|j| tab.a_hat(i, j) && tab.a(j, l)) {
                placed.add(at, &k.l_qq);
                placed.add(at, &k.f_q);
            }
        }
    }
    placed.into_vec()
}

/// A constraint family's kernel patterns (`ConstraintPatterns` in the runtime), of the
/// matrix `R(q)` whose rows are `rows` (`DΦ` for the holonomic family, `A` for the
/// nonholonomic one): `R`, `∂(Rᵀ λ)/∂q` (entry `(i, k)` wherever some `∂Rₐᵢ/∂q_k` is),
/// its union with `D₁₁L`'s, and `∂(R v)/∂q` (entry `(a, k)` wherever some `∂Rₐᵢ/∂q_k`
/// is).
pub struct ConstraintPatterns {
    pub matrix: Pattern,
    pub contracted: Pattern,
    pub k_qq: Pattern,
    pub times_v: Pattern,
}

impl ConstraintPatterns {
    /// `affine`: the rows' affine terms `a(q)` (nonholonomic constraints `A(q) v + a(q)`),
    /// whose derivatives join `∂(R v)/∂q`'s; empty for none.
    pub fn new(
        model: &mut Model,
        quantities: &Quantities,
        rows: &[Vec<Id>],
        affine: &[Id],
    ) -> Self {
        let q = model.q.clone();
        let l_qq = gradient_pattern(model, &quantities.dl_dq, &q);
        let (mut contracted, mut times_v) = (BTreeSet::new(), BTreeSet::new());
        for (a, row) in rows.iter().enumerate() {
            for (i, column) in gradient_pattern(model, row, &q) {
                contracted.insert((i, column));
                times_v.insert((a, column));
            }
        }
        times_v.extend(gradient_pattern(model, affine, &q));
        let k_qq: BTreeSet<_> = contracted.iter().copied().chain(l_qq).collect();
        Self {
            matrix: matrix_pattern(model, rows),
            contracted: contracted.into_iter().collect(),
            k_qq: k_qq.into_iter().collect(),
            times_v: times_v.into_iter().collect(),
        }
    }
}

/// The step Jacobian of `families::prk_holonomic` (module docs there): unknowns
/// `(V¹ … Vˢ, Λ¹ … Λˢ, v¹)`, equations `(R₁ … Rₛ, C₂ … Cₛ, Tg, Lg)`.
pub fn holonomic(model: &mut Model, quantities: &Quantities, stages: usize) -> Pattern {
    let (d, m, s) = (model.dim(), model.n_constraints(), stages);
    let k = PointPatterns::new(model, quantities);
    let ConstraintPatterns {
        matrix: g,
        k_qq,
        times_v: phi_qv,
        ..
    } = ConstraintPatterns::new(model, quantities, &quantities.jac, &[]);
    let (g_t, l_vq) = (transposed(&g), transposed(&k.l_qv));
    // The blocks' first rows and columns (`Layout` of `families::prk_holonomic`).
    let stage = |i: usize| i * d;
    let multiplier = |j: usize| s * d + j * m;
    let constraint = |i: usize| s * d + (i - 1) * m;
    let (tangency, legendre, velocity) = (s * d + (s - 1) * m, s * d + s * m, s * d + s * m);
    let tab = LobattoZeros { s };
    let mut placed = Placed::default();
    for j in 0..s {
        // Row block j: h aⱼₗ D₂₁L(j) + δⱼₗ D₂₂L(j).
        for l in (0..s).filter(|&l| tab.a(j, l)) {
            placed.add((stage(j), stage(l)), &l_vq);
        }
        placed.add((stage(j), stage(j)), &k.l_vv);
        // The rows Wʲ enters (Rᵢ by âᵢⱼ, Lg by b̂ⱼ): K_qq(j) + F_q(j) on Vˡ by aⱼₗ,
        // D₁₂L(j) + F_v(j) on Vʲ, Gⱼᵀ on Λʲ.
        let rows = (0..s)
            .filter(|&i| tab.a_hat(i, j))
            .map(stage)
            .chain([legendre]);
        for row in rows {
            for l in (0..s).filter(|&l| tab.a(j, l)) {
                placed.add((row, stage(l)), &k_qq);
                placed.add((row, stage(l)), &k.f_q);
            }
            placed.add((row, stage(j)), &k.l_qv);
            placed.add((row, stage(j)), &k.f_v);
            placed.add((row, multiplier(j)), &g_t);
        }
        // Cⱼ = Φ(Qʲ), j ≥ 1: Gⱼ on Vˡ by aⱼₗ.
        if j > 0 {
            for l in (0..s).filter(|&l| tab.a(j, l)) {
                placed.add((constraint(j), stage(l)), &g);
            }
        }
    }
    // The new node: D₂L(q¹, v¹) in Lg, the tangency equation; bₗ ≠ 0.
    for l in 0..s {
        placed.add((legendre, stage(l)), &l_vq);
        placed.add((tangency, stage(l)), &phi_qv);
    }
    placed.add((legendre, velocity), &k.l_vv);
    placed.add((tangency, velocity), &g);
    placed.into_vec()
}

/// The structural nonzeros of the matrix of expressions `rows`.
pub fn matrix_pattern(model: &Model, rows: &[Vec<Id>]) -> Pattern {
    let mut pattern = Vec::new();
    for (r, row) in rows.iter().enumerate() {
        for (c, &e) in row.iter().enumerate() {
            if !model.graph.is_zero(e) {
                pattern.push((r, c));
            }
        }
    }
    pattern
}

/// The step Jacobian of `families::prk_nonholonomic` (module docs there): unknowns
/// `(V¹ … Vˢ, Λ¹ … Λˢ, v¹ … vˢ)` and equations `(R₁ … Rₛ, C₁ … Cₛ, L₁ … Lₛ)` in the
/// same order, with `A`, the nonholonomic constraints' matrix (`rows`, `K × D`).
pub fn nonholonomic(
    model: &mut Model,
    quantities: &Quantities,
    rows: &[Vec<Id>],
    stages: usize,
) -> Pattern {
    let (d, k, s) = (model.dim(), rows.len(), stages);
    let point = PointPatterns::new(model, quantities);
    let ConstraintPatterns {
        matrix: a,
        k_qq,
        times_v: a_v_q,
        ..
    } = {
        let affine = velocity_constraint_affine(model);
        ConstraintPatterns::new(model, quantities, rows, &affine)
    };
    let (a_t, l_vq) = (transposed(&a), transposed(&point.l_qv));
    let identity: Pattern = (0..k).map(|i| (i, i)).collect();
    // The blocks' first rows and columns (`Layout` of `families::prk_nonholonomic`).
    let stage = |i: usize| i * d;
    let multiplier = |i: usize| s * d + i * k;
    let velocity = |i: usize| s * d + s * k + i * d;
    let tab = LobattoZeros { s };
    let mut placed = Placed::default();
    for j in 0..s {
        // Rⱼ: h aⱼₗ D₂₁L(j) + δⱼₗ D₂₂L(j).
        for l in (0..s).filter(|&l| tab.a(j, l)) {
            placed.add((stage(j), stage(l)), &l_vq);
        }
        placed.add((stage(j), stage(j)), &point.l_vv);
        // The rows Wʲ enters (Rᵢ by âᵢⱼ, Lᵢ by aᵢⱼ): K_qq(j) + F_q(j) on Vˡ by aⱼₗ,
        // D₁₂L(j) + F_v(j) on Vʲ, A(Qʲ)ᵀ on Λʲ.
        let rows = (0..s)
            .filter(|&i| tab.a_hat(i, j))
            .map(stage)
            .chain((0..s).filter(|&i| tab.a(i, j)).map(velocity));
        for row in rows {
            for l in (0..s).filter(|&l| tab.a(j, l)) {
                placed.add((row, stage(l)), &k_qq);
                placed.add((row, stage(l)), &point.f_q);
            }
            placed.add((row, stage(j)), &point.l_qv);
            placed.add((row, stage(j)), &point.f_v);
            placed.add((row, multiplier(j)), &a_t);
        }
        // Cⱼ: the identity on Λ¹; after, ∂(A vʲ)/∂q on Vˡ by aⱼₗ and A on vʲ.
        if j == 0 {
            placed.add((multiplier(0), multiplier(0)), &identity);
        } else {
            for l in (0..s).filter(|&l| tab.a(j, l)) {
                placed.add((multiplier(j), stage(l)), &a_v_q);
            }
            placed.add((multiplier(j), velocity(j)), &a);
        }
        // Lⱼ's D₂L(Qʲ, vʲ): D₂₁L on Vˡ by aⱼₗ, D₂₂L on vʲ.
        for l in (0..s).filter(|&l| tab.a(j, l)) {
            placed.add((velocity(j), stage(l)), &l_vq);
        }
        placed.add((velocity(j), velocity(j)), &point.l_vv);
    }
    placed.into_vec()
}
