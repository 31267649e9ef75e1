//! Every derivative `model!` emits, checked against two independent oracles at 100
//! random points per model (and per scheme).
//!
//! **Oracle 1: dual numbers** (`num_dual::Dual64`). The generated code is generic over
//! the scalar type, so the *undifferentiated* functions (`lagrangian`, `dl_dv`,
//! `constraints`, `residual`, …) can be evaluated with `T = Dual64`: seeding `ε = 1` on
//! one input component gives that column of the exact derivative, to round-off, without
//! going through the symbolic differentiator at all. Agreement is required to
//! `1e-12` relative ([`DUAL_TOL`]). The curvature `vᵀ H_k v` additionally gets a
//! hyper-dual check straight from `constraints` (`num_dual::HyperDual64`), which does not
//! even trust the generated `G`.
//!
//! **Oracle 2: central finite differences** in `f64`, which need no generic code at
//! all and so also catch a bug shared by the generated code and its dual evaluation.
//! Their accuracy is limited, see [`FD_TOL`].
//!
//! Points are generic, *not* on the constraint manifold, so that every term of every
//! residual is exercised: all components of `q, v, p, λ, γ` and of the unknowns `x` are
//! uniform in `[-1.5, 1.5]`, `h` is uniform in `[0.01, 0.1]`; every third point also has
//! its model parameters scaled by random factors in `[0.8, 1.25]` (which keeps the top's
//! `Eᵢ = ½(I_j + I_k − I_i)` positive). The generator is a seeded xorshift64*, so every
//! run sees the same points and a failure is reproducible.
//!
//! Each test prints the worst normalised error of every family of checks
//! (`cargo test --test derivatives -- --nocapture`).
use std::fmt::Debug;

use livens::schemes::*;
use livens::step::{block_of, Block};
use livens::{
    DeclaredSchemes, DiscreteSystem, FromNode, InputValues, Model, NodeState, SMatrix, SVector,
    SchemeInfo, SchemeVisitor, Step, StepContext,
};
use livens_models::{
    ClosedLoop, DoubleTop, FourParticles, FreeBody, HeavyTop, LagrangeTop, ParticleOnTorus,
    Pendulum3d,
};
use num_dual::{Dual64, HyperDual64};

/// Random points per model and per scheme.
const POINTS: usize = 100;

/// Generated derivative vs. dual-number evaluation (and other exact identities):
/// `|a − b| ≤ 1e-12 · max(1, |b|, scale)`, where `scale` is the max-abs of the column
/// (or vector) `b` belongs to. Both sides are exact derivatives evaluated in `f64`, so
/// they differ by round-off only, which is proportional to the magnitude of the terms
/// being summed, i.e. to the column's scale rather than to the entry itself (a small
/// entry of a large column is the sum of large terms that cancel).
const DUAL_TOL: f64 = 1e-12;

/// Generated derivative vs. central finite difference:
/// `|a − fd| ≤ 1e-6 · max(1, |fd|, scale, |f|)`. With the step `δ = 1e-6 · max(1, |x_j|)`
/// ([`FD_STEP`]) the truncation error is `δ² |f'''| / 6 ≈ 1e-13` (every residual here is
/// a polynomial of low degree in `x`) and the rounding error is `≈ ε |f| / δ ≈ 2e-10 |f|`,
/// so `1e-6` of the larger of the column scale and the function values `|f|` (the
/// magnitude of what is being differenced) leaves a safety factor of well over 1000
/// while still catching any wrong entry, which would be off by O(1) relative.
const FD_TOL: f64 = 1e-6;

/// Relative step of the central differences, see [`FD_TOL`].
const FD_STEP: f64 = 1e-6;

/// `residual_and_jacobian`'s `r` vs. `residual`'s, relative to `max(1, |r|∞)`.
const SAME_TOL: f64 = 1e-15;

/// `f32` instance vs. the `f64` instance at the same (`f32`-representable) inputs,
/// relative to `max(1, |b|, scale)`: `f32` round-off is `6e-8` per operation.
const F32_TOL: f64 = 1e-4;

// ---------------------------------------------------------------------------------------
// Random points
// ---------------------------------------------------------------------------------------

/// xorshift64* (Vigna 2016): tiny, seeded, good enough for test points.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed.max(1))
    }

    fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `[lo, hi)`, from the top 53 bits.
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        let u = (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        lo + (hi - lo) * u
    }

    fn vector<const K: usize>(&mut self) -> SVector<f64, K> {
        SVector::from_fn(|_, _| self.uniform(-1.5, 1.5))
    }

    fn step(&mut self) -> f64 {
        self.uniform(0.01, 0.1)
    }

    fn state<const D: usize, const M: usize>(&mut self) -> NodeState<f64, D, M> {
        NodeState {
            t: 0.0,
            q: self.vector(),
            v: self.vector(),
            p: self.vector(),
            lambda: self.vector(),
            gamma: self.vector(),
        }
    }
}

// ---------------------------------------------------------------------------------------
// The same model in several scalar types
// ---------------------------------------------------------------------------------------

/// A model under test: its `f64` instance, and instances with the same parameters in the
/// other scalar types the oracles need.
trait Fixture<const D: usize, const M: usize>: Model<f64, D, M> + Default + Copy + Debug {
    type Dual: Model<Dual64, D, M>;
    type Hyper: Model<HyperDual64, D, M>;
    type Single: Model<f32, D, M>;
    /// Same parameters as dual numbers with zero derivative part.
    fn to_dual(&self) -> Self::Dual;
    fn to_hyper(&self) -> Self::Hyper;
    /// Parameters rounded to `f32`.
    fn to_f32(&self) -> Self::Single;
    /// The `f64` model with exactly the parameters of an `f32` one.
    fn from_f32(single: &Self::Single) -> Self;
    /// Every parameter scaled by a random factor in `[0.8, 1.25]`.
    fn perturbed(&self, rng: &mut Rng) -> Self;
}

macro_rules! fixture {
    ($model:ident, $d:literal, $m:literal, [$($param:ident),+]) => {
        impl Fixture<$d, $m> for $model<f64> {
            type Dual = $model<Dual64>;
            type Hyper = $model<HyperDual64>;
            type Single = $model<f32>;
            fn to_dual(&self) -> $model<Dual64> {
                $model { $($param: Dual64::from_re(self.$param)),+ }
            }
            fn to_hyper(&self) -> $model<HyperDual64> {
                $model { $($param: HyperDual64::from_re(self.$param)),+ }
            }
            fn to_f32(&self) -> $model<f32> {
                $model { $($param: self.$param as f32),+ }
            }
            fn from_f32(single: &$model<f32>) -> Self {
                $model { $($param: f64::from(single.$param)),+ }
            }
            fn perturbed(&self, rng: &mut Rng) -> Self {
                $model { $($param: self.$param * rng.uniform(0.8, 1.25)),+ }
            }
        }
    };
}

fixture!(Pendulum3d, 3, 1, [m, l, g]);
fixture!(LagrangeTop, 12, 9, [m, i1, i2, i3, l, g]);
fixture!(
    FourParticles,
    12,
    2,
    [m1, m2, m3, m4, k13, k24, l13, l24, l12, l34]
);

fixture!(ParticleOnTorus, 3, 1, [m, g, big_r, small_r]);

/// The model of point `i`: declared parameters, or perturbed ones for every third point.
fn model_at<F: Fixture<D, M>, const D: usize, const M: usize>(rng: &mut Rng, i: usize) -> F {
    if i % 3 == 2 {
        F::default().perturbed(rng)
    } else {
        F::default()
    }
}

fn dual<const K: usize>(x: &SVector<f64, K>) -> SVector<Dual64, K> {
    x.map(Dual64::from_re)
}

/// `x` as dual numbers with `ε = 1` on component `j`.
fn seeded<const K: usize>(x: &SVector<f64, K>, j: usize) -> SVector<Dual64, K> {
    let mut d = dual(x);
    d[j].eps = 1.0;
    d
}

fn eps<const K: usize>(x: &SVector<Dual64, K>) -> SVector<f64, K> {
    x.map(|d| d.eps)
}

/// `x ± δ e_j` with `δ = FD_STEP · max(1, |x_j|)`, and `2δ`.
fn fd_pair<const K: usize>(
    x: &SVector<f64, K>,
    j: usize,
) -> (SVector<f64, K>, SVector<f64, K>, f64) {
    let delta = FD_STEP * x[j].abs().max(1.0);
    let (mut plus, mut minus) = (*x, *x);
    plus[j] += delta;
    minus[j] -= delta;
    // The actually represented step, not the intended one.
    (plus, minus, plus[j] - minus[j])
}

fn max_abs<const R: usize, const C: usize>(a: &SMatrix<f64, R, C>) -> f64 {
    a.iter().fold(0.0, |m, x| m.max(x.abs()))
}

// ---------------------------------------------------------------------------------------
// Assertions with bookkeeping
// ---------------------------------------------------------------------------------------

/// One family of checks: asserts every comparison and remembers the worst error.
struct Tally {
    name: &'static str,
    tol: f64,
    count: usize,
    /// Worst `|a − b| / max(1, |b|, scale)`, the asserted quantity.
    worst: f64,
    /// Worst `|a − b| / max(|b|, scale)`, without the floor at 1 (for the report only:
    /// the top's inertias are `5e-4`, so many of its entries are far below 1).
    worst_unfloored: f64,
    worst_at: String,
}

impl Tally {
    fn new(name: &'static str, tol: f64) -> Self {
        Tally {
            name,
            tol,
            count: 0,
            worst: 0.0,
            worst_unfloored: 0.0,
            worst_at: String::new(),
        }
    }

    /// Asserts `|got − want| ≤ tol · max(1, |want|, scale)`; `what` names the entry.
    fn check(&mut self, got: f64, want: f64, scale: f64, what: impl Fn() -> String) {
        let diff = (got - want).abs();
        let norm = want.abs().max(scale).max(1.0);
        let err = diff / norm;
        assert!(
            err <= self.tol,
            "{}: {}\n  generated = {got:.17e}\n  oracle    = {want:.17e}\n  |diff| = {diff:.3e} > {:.0e} × {norm:.3e}",
            self.name,
            what(),
            self.tol,
        );
        self.count += 1;
        let unfloored = want.abs().max(scale);
        if unfloored > 0.0 {
            self.worst_unfloored = self.worst_unfloored.max(diff / unfloored);
        }
        if err > self.worst || self.worst_at.is_empty() {
            self.worst = err;
            self.worst_at = what();
        }
    }

    fn report(&self) {
        println!(
            "{:<44} {:>6} checks  worst {:.2e} (tol {:.0e}; without floor 1: {:.2e})  at {}",
            self.name, self.count, self.worst, self.tol, self.worst_unfloored, self.worst_at
        );
    }
}

// ---------------------------------------------------------------------------------------
// Model-level functions
// ---------------------------------------------------------------------------------------

/// `dl_dq`, `dl_dv`, `mass_matrix`, `constraint_jacobian`, `constraint_curvature`,
/// `energy` and `velocity` of model `F` at `POINTS` random points.
fn model_functions<F: Fixture<D, M>, const D: usize, const M: usize>(seed: u64) {
    let mut rng = Rng::new(seed);
    let name = F::NAME;
    let mut t_dl_dq = Tally::new("dl_dq vs dual ∂L/∂q", DUAL_TOL);
    let mut t_dl_dv = Tally::new("dl_dv vs dual ∂L/∂v", DUAL_TOL);
    let mut t_mass = Tally::new("mass_matrix vs dual ∂(dl_dv)/∂v", DUAL_TOL);
    let mut t_jac = Tally::new("constraint_jacobian vs dual ∂g/∂q", DUAL_TOL);
    let mut t_curv = Tally::new("curvature vs dual d/dε G(q+εv)v", DUAL_TOL);
    let mut t_curv2 = Tally::new("curvature vs hyper-dual vᵀ(∂²g/∂q²)v", DUAL_TOL);
    let mut t_energy = Tally::new("energy vs dl_dv·v − L", DUAL_TOL);
    let mut t_vel = Tally::new("mass_matrix · velocity(q, p) vs p", DUAL_TOL);
    let mut t_fd = Tally::new("model functions vs central differences", FD_TOL);

    for i in 0..POINTS {
        let model: F = model_at(&mut rng, i);
        let dm = model.to_dual();
        let (q, v, p) = (rng.vector::<D>(), rng.vector::<D>(), rng.vector::<D>());
        let at = |what: &str, k: usize| {
            format!(
                "{name} point {i} ({model:?}): {what}[{}]",
                F::COORDINATES[k]
            )
        };
        let (dq, dv) = (dual(&q), dual(&v));
        let lag = model.lagrangian(&q, &v);

        // ∂L/∂q and ∂L/∂v: one dual direction per coordinate.
        let (gq, gv) = (model.dl_dq(&q, &v), model.dl_dv(&q, &v));
        let oq = SVector::<f64, D>::from_fn(|j, _| dm.lagrangian(&seeded(&q, j), &dv).eps);
        let ov = SVector::<f64, D>::from_fn(|j, _| dm.lagrangian(&dq, &seeded(&v, j)).eps);
        for j in 0..D {
            t_dl_dq.check(gq[j], oq[j], max_abs(&oq), || at("dl_dq", j));
            t_dl_dv.check(gv[j], ov[j], max_abs(&ov), || at("dl_dv", j));
            let (plus, minus, step) = fd_pair(&q, j);
            let fd = (model.lagrangian(&plus, &v) - model.lagrangian(&minus, &v)) / step;
            t_fd.check(gq[j], fd, max_abs(&oq).max(lag.abs()), || at("dl_dq", j));
            let (plus, minus, step) = fd_pair(&v, j);
            let fd = (model.lagrangian(&q, &plus) - model.lagrangian(&q, &minus)) / step;
            t_fd.check(gv[j], fd, max_abs(&ov).max(lag.abs()), || at("dl_dv", j));
        }

        // Mass matrix, column j = ∂(∂L/∂v)/∂v_j.
        let mass = model.mass_matrix(&q, &v);
        for j in 0..D {
            let col = eps(&dm.dl_dv(&dq, &seeded(&v, j)));
            let (plus, minus, step) = fd_pair(&v, j);
            let fd = (model.dl_dv(&q, &plus) - model.dl_dv(&q, &minus)) / step;
            let fscale = max_abs(&gv);
            for r in 0..D {
                let what = || {
                    format!(
                        "{name} point {i} ({model:?}): mass_matrix[{}, {}]",
                        F::COORDINATES[r],
                        F::COORDINATES[j]
                    )
                };
                t_mass.check(mass[(r, j)], col[r], max_abs(&col), what);
                t_fd.check(mass[(r, j)], fd[r], max_abs(&col).max(fscale), what);
            }
        }

        // Constraint Jacobian, column j = ∂g/∂q_j.
        let jac = model.constraint_jacobian(&q);
        let g = model.constraints(&q);
        for j in 0..D {
            let col = eps(&dm.constraints(&seeded(&q, j)));
            let (plus, minus, step) = fd_pair(&q, j);
            let fd = (model.constraints(&plus) - model.constraints(&minus)) / step;
            for k in 0..M {
                let what = || {
                    format!(
                        "{name} point {i} ({model:?}): G[{}, {}]",
                        F::CONSTRAINTS[k],
                        F::COORDINATES[j]
                    )
                };
                t_jac.check(jac[(k, j)], col[k], max_abs(&col), what);
                t_fd.check(jac[(k, j)], fd[k], max_abs(&col).max(max_abs(&g)), what);
            }
        }

        // Curvature c_k = vᵀ H_k v = d/dε [G(q + εv) v]; and, independently of the
        // generated G, ∂²/∂ε₁∂ε₂ g(q + ε₁v + ε₂v) with hyper-dual numbers.
        let curv = model.constraint_curvature(&q, &v);
        let q_eps = SVector::<Dual64, D>::from_fn(|k, _| Dual64::new(q[k], v[k]));
        let o1 = eps(&(dm.constraint_jacobian(&q_eps) * dv));
        let q_hyper =
            SVector::<HyperDual64, D>::from_fn(|k, _| HyperDual64::new(q[k], v[k], v[k], 0.0));
        let o2 = model.to_hyper().constraints(&q_hyper).map(|x| x.eps1eps2);
        let delta = FD_STEP;
        let gv_plus = model.constraint_jacobian(&(q + v * delta)) * v;
        let gv_minus = model.constraint_jacobian(&(q - v * delta)) * v;
        let fd = (gv_plus - gv_minus) / (2.0 * delta);
        let fscale = max_abs(&(jac * v));
        for k in 0..M {
            let what = || {
                format!(
                    "{name} point {i} ({model:?}): constraint_curvature[{}]",
                    F::CONSTRAINTS[k]
                )
            };
            t_curv.check(curv[k], o1[k], max_abs(&o1), what);
            t_curv2.check(curv[k], o2[k], max_abs(&o2), what);
            t_fd.check(curv[k], fd[k], max_abs(&o1).max(fscale), what);
        }

        // Energy E = ∂L/∂v · v − L.
        let pv = gv.dot(&v);
        let e = model.energy(&q, &v);
        t_energy.check(e, pv - lag, pv.abs().max(lag.abs()), || {
            format!("{name} point {i} ({model:?}): energy")
        });

        // velocity(q, p) solves M v = p.
        let vel = model.velocity(&q, &p);
        let mp = model.mass_matrix(&q, &vel) * vel;
        for k in 0..D {
            t_vel.check(mp[k], p[k], max_abs(&p), || at("(M · velocity(q, p))", k));
        }
    }

    println!("--- {name}: model functions at {POINTS} points");
    for t in [
        &t_dl_dq, &t_dl_dv, &t_mass, &t_jac, &t_curv, &t_curv2, &t_energy, &t_vel, &t_fd,
    ] {
        t.report();
    }
}

// ---------------------------------------------------------------------------------------
// Scheme Jacobians
// ---------------------------------------------------------------------------------------

/// Name of unknown (or residual row) `j` of a scheme, read from the layout the macro
/// emits (`DiscreteSystem::UNKNOWNS`): `q1[r.x]`, or `R(q1)[r.x]` for the residual row
/// paired with that unknown. Entries are named by coordinate in a block of `D` and by
/// constraint in a block of `M`.
fn label<F: Model<f64, D, M>, const D: usize, const M: usize>(
    layout: &[Block],
    j: usize,
    row: bool,
) -> String {
    let Some((block, k)) = block_of(layout, j) else {
        panic!("index {j} outside the layout {layout:?}")
    };
    let entry = if block.len == D {
        F::COORDINATES[k]
    } else {
        F::CONSTRAINTS[k]
    };
    if row {
        format!("R({})[{entry}]", block.name)
    } else {
        format!("{}[{entry}]", block.name)
    }
}

/// `residual_and_jacobian` of scheme `S` on model `F` at `POINTS` random points: its
/// `r` against `residual`, its `jac` column by column against the dual evaluation of
/// `residual` and against central differences of `residual`.
fn scheme_jacobian<F, S, const D: usize, const M: usize, const N: usize>(sch: S, seed: u64)
where
    F: Fixture<D, M> + DiscreteSystem<f64, S, D, M, N>,
    F::Dual: DiscreteSystem<Dual64, S, D, M, N>,
    S: SchemeInfo,
{
    let mut rng = Rng::new(seed);
    let (name, scheme) = (F::NAME, S::LABEL);
    let mut t_same = Tally::new("r of residual_and_jacobian vs residual", SAME_TOL);
    let mut t_dual = Tally::new("jac vs dual ∂R/∂x", DUAL_TOL);
    let mut t_fd = Tally::new("jac vs central differences of R", FD_TOL);
    let mut bitwise_equal = 0;
    let mut nonzeros = 0;

    for i in 0..POINTS {
        let model: F = model_at(&mut rng, i);
        let known = rng.state::<D, M>();
        let h = rng.step();
        // Every fourth point puts q¹ within 1e-8 of q⁰, where the discrete gradients take
        // their small-increment branch. Central differences with a 1e-6 step would cross
        // the branch switch there, so only the dual oracle (exact on either side) is
        // applied at those points.
        let small_increment = i % 4 == 3;
        let mut x = rng.vector::<N>();
        if small_increment {
            for k in 0..D {
                x[k] = known.q[k] + 1e-8 * rng.uniform(-1.0, 1.0);
            }
        }
        let dm = model.to_dual();
        let (dknown, dh) = (known.map(Dual64::from_re), Dual64::from_re(h));
        let where_ = || format!("{name}/{scheme} point {i} (h = {h}, {model:?})");

        // The writer skips structural zeros (the elimination plan never reads them), so
        // the matrix starts at zero: an entry it wrongly skips then differs from the
        // oracles.
        let (mut r, mut jac) = (
            SVector::<f64, N>::from_element(f64::NAN),
            SMatrix::<f64, N, N>::zeros(),
        );
        DiscreteSystem::<f64, S, D, M, N>::residual_and_jacobian(
            &model,
            &sch,
            h,
            &known,
            &InputValues::zeros(),
            &x,
            &mut r,
            &mut jac.data.0,
        );
        let mut r_only = SVector::<f64, N>::from_element(f64::NAN);
        DiscreteSystem::<f64, S, D, M, N>::residual(
            &model,
            &sch,
            h,
            &known,
            &InputValues::zeros(),
            &x,
            &mut r_only,
        );
        let r_scale = max_abs(&r_only);
        for k in 0..N {
            let what = || format!("{}: {}", where_(), label::<F, D, M>(F::UNKNOWNS, k, true));
            t_same.check(r[k], r_only[k], r_scale, what);
        }
        if r.iter()
            .zip(r_only.iter())
            .all(|(a, b)| a.to_bits() == b.to_bits())
        {
            bitwise_equal += 1;
        }

        for j in 0..N {
            let mut rd = SVector::<Dual64, N>::from_element(Dual64::from_re(f64::NAN));
            DiscreteSystem::<Dual64, S, D, M, N>::residual(
                &dm,
                &sch,
                dh,
                &dknown,
                &InputValues::zeros(),
                &seeded(&x, j),
                &mut rd,
            );
            let col = eps(&rd);
            let (plus, minus, step) = fd_pair(&x, j);
            let (mut rp, mut rm) = (SVector::<f64, N>::zeros(), SVector::<f64, N>::zeros());
            DiscreteSystem::<f64, S, D, M, N>::residual(
                &model,
                &sch,
                h,
                &known,
                &InputValues::zeros(),
                &plus,
                &mut rp,
            );
            DiscreteSystem::<f64, S, D, M, N>::residual(
                &model,
                &sch,
                h,
                &known,
                &InputValues::zeros(),
                &minus,
                &mut rm,
            );
            let fd = (rp - rm) / step;
            let scale = max_abs(&col);
            for k in 0..N {
                let what = || {
                    format!(
                        "{}: ∂{}/∂{}",
                        where_(),
                        label::<F, D, M>(F::UNKNOWNS, k, true),
                        label::<F, D, M>(F::UNKNOWNS, j, false)
                    )
                };
                t_dual.check(jac[(k, j)], col[k], scale, what);
                if !small_increment {
                    t_fd.check(jac[(k, j)], fd[k], scale.max(r_scale), what);
                }
                if jac[(k, j)] != 0.0 {
                    nonzeros += 1;
                }
            }
        }
    }

    println!(
        "--- {name}/{scheme}: N = {N}, {POINTS} points, mean nonzeros of jac {}",
        nonzeros / POINTS
    );
    println!(
        "r of residual_and_jacobian bit-identical to residual at {bitwise_equal}/{POINTS} points"
    );
    for t in [&t_same, &t_dual, &t_fd] {
        t.report();
    }
}

#[test]
fn pendulum3d_model_functions() {
    model_functions::<Pendulum3d<f64>, 3, 1>(0x5EED_0001);
}

#[test]
fn four_particles_model_functions() {
    model_functions::<FourParticles<f64>, 12, 2>(0x5EED_0009);
}

#[test]
fn torus_model_functions() {
    model_functions::<ParticleOnTorus<f64>, 3, 1>(0x5EED_0020);
}

#[test]
fn lagrange_top_model_functions() {
    model_functions::<LagrangeTop<f64>, 12, 9>(0x5EED_0002);
}

/// Every scheme of a model: the θ-methods with coefficients other than their VI-A and
/// VI-B defaults, so that the run-time coefficients are exercised.
macro_rules! all_schemes {
    ($check:ident, $model:ty, $d:literal, $m:literal $(, $arg:expr)*) => {{
        const N3: usize = 3 * $d + 2 * $m;
        $check::<$model, GglViS, $d, $m, N3>(GglViS $(, $arg)*);
        $check::<$model, GglViA, $d, $m, N3>(GglViA $(, $arg)*);
        $check::<$model, GglViB, $d, $m, N3>(GglViB $(, $arg)*);
        let theta_a = GglThetaA::new(0.3).expect("valid θ");
        $check::<$model, GglThetaA, $d, $m, N3>(theta_a $(, $arg)*);
        let theta_b = GglThetaB::new(0.7, 0.4).expect("valid θ, ϑ");
        $check::<$model, GglThetaB, $d, $m, N3>(theta_b $(, $arg)*);
        $check::<$model, GglEm, $d, $m, { 2 * $d + 2 * $m }>(GglEm $(, $arg)*);
        $check::<$model, GglEmG, $d, $m, { 2 * $d + $m }>(GglEmG $(, $arg)*);
    }};
}

#[test]
fn pendulum3d_scheme_jacobians() {
    all_schemes!(scheme_jacobian, Pendulum3d<f64>, 3, 1, 0x5EED_0003);
}

/// The four-particle system exercises the invariant-based discrete gradient of EM and
/// EM-G (Greenspan quotients with their small-increment branch).
#[test]
fn four_particles_scheme_jacobians() {
    all_schemes!(scheme_jacobian, FourParticles<f64>, 12, 2, 0x5EED_0008);
}

#[test]
fn lagrange_top_scheme_jacobians() {
    all_schemes!(scheme_jacobian, LagrangeTop<f64>, 12, 9, 0x5EED_0005);
}

// ---------------------------------------------------------------------------------------
// Every declared scheme, through `Step::equations`
// ---------------------------------------------------------------------------------------

/// An unconstrained model with a configuration-dependent mass matrix (a double pendulum
/// in joint angles) that declares the assembled family, so that its Jacobian is under
/// the same oracles as the symbolic ones.
#[macro_use]
#[path = "../../benches/support/small_models.rs"]
mod small_models;

mod angles {
    double_pendulum!(DoublePendulum, LobattoIIIAIIIB(2), LobattoIIIAIIIB(3));
}
use angles::DoublePendulum;
fixture!(DoublePendulum, 2, 0, [m1, m2, l1, l2, g]);

/// The unconstrained stage family with forces in `q`, `v` and `t` (the discrete
/// Lagrange–d'Alembert principle, spec `next_packages.md` §D.2): a particle in the plane
/// with a position-dependent mass, under drag coupling its coordinates and a drive whose
/// amplitude depends on the position.
mod dragged {
    livens::model! {
        pub struct DraggedParticle {
            params { m = 1.2, c = 0.3, k = 0.8, w = 1.9 }
            coords { x: Scalar, y: Scalar }
            kinetic = 0.5 * m * (1.0 + 0.2 * y * y) * x_dot * x_dot + 0.5 * m * y_dot * y_dot;
            potential = 0.5 * k * (x * x + y * y) + 0.1 * x * x * y;
            forces {
                x: -c * x_dot * (1.0 + x * y) + sin(w * t) * cos(y),
                y: -c * y_dot * y_dot * x - k * x * x_dot * sin(0.5 * t),
            }
            schemes { LobattoIIIAIIIB(2), LobattoIIIAIIIB(3) }
        }
    }
}
use dragged::DraggedParticle;
fixture!(DraggedParticle, 2, 0, [m, c, k, w]);

/// A constrained model for the holonomically constrained stage family: a mass matrix
/// that depends on the position, two constraints of degree three and a transcendental
/// one, so that every constraint kernel (`DΦ`, `Σ λ D²Φ`, `∂(DΦ v)/∂q`) has entries
/// that vary with the point.
mod surface {
    livens::model! {
        pub struct SurfaceParticle {
            params { m = 1.3, c = 0.4, g = 9.81, k = 0.2 }
            coords { r: Vec3 }
            kinetic = 0.5 * m * dot(r_dot, r_dot) + 0.5 * c * r.x * r.x * r_dot.z * r_dot.z;
            potential = m * g * r.z + k * r.x.powi(4);
            holonomic {
                cubic: dot(r, r) - 1.0 + 0.2 * r.x * r.y * r.z,
                wave: r.z - 0.1 * sin(r.x * r.y),
            }
            schemes { HolonomicLobatto(2), HolonomicLobatto(3) }
        }
    }
}
use surface::SurfaceParticle;
fixture!(SurfaceParticle, 3, 2, [m, c, g, k]);

/// A nonholonomic model for the nonholonomic stage family: the pendulum-driven
/// transmission (spec 002 §5.2), whose `A(q) = (sin y, 0, 1)` varies with the point, with
/// a mass that couples `y` to its speed so that `D₂₂L` and `D₁₂L` are not constant, and
/// forces in `q`, `v` and `t` so that the family's forced stage forces are checked too
/// (the unforced family: `MixedParticle` below).
mod transmission {
    livens::model! {
        pub struct Transmission {
            params { epsilon = 0.5, c = 0.3 }
            coords { x: Scalar, y: Scalar, z: Scalar }
            kinetic = 0.5 * (x_dot * x_dot + (1.0 + c * x * x) * y_dot * y_dot + z_dot * z_dot);
            potential = 0.5 * (x * x + z * z - 2.0 * cos(y) + epsilon * sin(2.0 * y));
            nonholonomic { phi: z_dot + sin(y) * x_dot }
            forces {
                x: -c * x_dot * (1.0 + y * y),
                y: 0.4 * sin(1.7 * t) * cos(x) - c * z * y_dot,
            }
            schemes { NonholonomicLobatto(2), NonholonomicLobatto(3) }
        }
    }
}
use transmission::Transmission;
fixture!(Transmission, 3, 0, [epsilon, c]);

/// Holonomic and nonholonomic constraints together: the holonomic one enters the
/// nonholonomic family as a further row `G(q) v` of `A(q)`, so its curvature reaches the
/// `∂(Aᵀ λ)/∂q` and `∂(A v)/∂q` kernels; the mass depends on the position.
mod mixed {
    livens::model! {
        pub struct MixedParticle {
            params { c = 0.3, k = 0.7 }
            coords { x: Scalar, y: Scalar, z: Scalar, w: Scalar }
            kinetic = 0.5 * ((1.0 + c * y * y) * x_dot * x_dot + y_dot * y_dot
                + z_dot * z_dot + w_dot * w_dot);
            potential = 0.5 * k * (x * x + y * y + w * w);
            holonomic { lift: w - sin(x) + 0.1 * x * y * y }
            nonholonomic { phi: z_dot - y * x_dot + cos(w) * y_dot }
            schemes { NonholonomicLobatto(2), NonholonomicLobatto(3) }
        }
    }
}
use mixed::MixedParticle;
fixture!(MixedParticle, 4, 1, [c, k]);

/// EML (spec 001 §2.2) on a bead on a wire: a mass matrix that depends on the position
/// (so `∂̄_q T` takes Gonzalez's formula), a quartic potential and a transcendental
/// constraint (Gonzalez gradients of `V` and `g`), each with its small-increment branch.
mod bead {
    livens::model! {
        pub struct BeadOnWire {
            params { m = 1.2, c = 0.5, k = 2.0 }
            coords { r: Vec3 }
            kinetic = 0.5 * m * dot(r_dot, r_dot)
                + 0.5 * c * sin(r.x) * sin(r.x) * r_dot.y * r_dot.y;
            potential = k * r.x.powi(4) + m * 9.81 * r.z;
            holonomic { wire: r.z - 0.3 * sin(r.x * r.y) }
            schemes { Eml }
        }
    }
}
use bead::BeadOnWire;
fixture!(BeadOnWire, 3, 1, [m, c, k]);

/// Points per scheme of the declared-scheme oracles.
const EQUATION_POINTS: usize = 40;

/// Checks `Step::equations` of every scheme a model declares, found through
/// `DeclaredSchemes`: a scheme declared by a model is checked here without an edit. The
/// model is evaluated in `Dual64` throughout: the real parts of its Jacobian are the
/// generated (or assembled) `f64` Jacobian (dual arithmetic does the same IEEE
/// operations on them), the `ε` parts of the residual with `ε = 1` on `xⱼ` are the dual
/// oracle's column `j`, and central differences of the real parts are the third
/// opinion.
struct EquationOracles<'r, F> {
    rng: &'r mut Rng,
    name: &'static str,
    _fixture: core::marker::PhantomData<F>,
}

impl<F, const D: usize, const M: usize> SchemeVisitor<Dual64, F::Dual, D, M>
    for EquationOracles<'_, F>
where
    F: Fixture<D, M>,
{
    fn visit<S>(&mut self, scheme: S)
    where
        S: SchemeInfo + Debug,
        F::Dual: Step<Dual64, S>,
        <F::Dual as Step<Dual64, S>>::State: FromNode<Dual64, D, M>,
    {
        let layout = <F::Dual as Step<Dual64, S>>::UNKNOWNS;
        let n: usize = layout.iter().map(|b| b.len).sum();
        let what_scheme = format!("{}/{scheme:?} {}", self.name, S::INSTANCE);
        let mut t_dual = Tally::new("equations: jac vs dual ∂R/∂x", DUAL_TOL);
        let mut t_fd = Tally::new("equations: jac vs central differences of R", FD_TOL);
        let q1 = layout.iter().find(|b| b.name == "q1").map(|b| b.offset);
        let theta = layout.iter().find(|b| b.name == "theta").map(|b| b.offset);
        let rng = &mut *self.rng;
        for i in 0..EQUATION_POINTS {
            let model = model_at::<F, D, M>(rng, i).to_dual();
            let node = rng.state::<D, M>().map(Dual64::from_re);
            let state =
                <<F::Dual as Step<Dual64, S>>::State as FromNode<Dual64, D, M>>::from_node(&node);
            let h = Dual64::from_re(rng.step());
            let mut ws = model.workspace::<livens::solve::Inline>(&scheme);
            let mut x: Vec<f64> = (0..n).map(|_| rng.uniform(-1.5, 1.5)).collect();
            // As in `scheme_jacobian`: some points take the discrete gradients'
            // small-increment branch, where only the dual oracle applies.
            let small_increment = q1.is_some() && i % 4 == 3;
            if let (Some(o), true) = (q1, small_increment) {
                for k in 0..D {
                    x[o + k] = node.q[k].re + 1e-8 * rng.uniform(-1.0, 1.0);
                }
            }
            // Null-EML's rotation vector near 0 takes the series branch of exp_S³ (both
            // oracles apply: the series is smooth).
            if let (Some(o), true) = (theta, i % 4 == 1) {
                for k in 0..3 {
                    x[o + k] = 1e-4 * rng.uniform(-1.0, 1.0);
                }
            }
            let mut eval = |x: &[Dual64]| {
                let (mut r, mut jac) = (
                    vec![Dual64::from_re(f64::NAN); n],
                    vec![Dual64::from_re(f64::NAN); n * n],
                );
                model
                    .equations(
                        &scheme,
                        StepContext {
                            h,
                            t: node.t,
                            inputs: &[],
                        },
                        &state,
                        &mut ws,
                        x,
                        &mut r,
                        &mut jac,
                    )
                    .expect("lengths from UNKNOWNS");
                (r, jac)
            };
            let xd: Vec<Dual64> = x.iter().map(|&v| Dual64::from_re(v)).collect();
            let (r, jac) = eval(&xd);
            let r_scale = r.iter().fold(0.0_f64, |m, v| m.max(v.re.abs()));
            for j in 0..n {
                let mut seeded = xd.clone();
                seeded[j].eps = 1.0;
                let (rd, _) = eval(&seeded);
                let delta = FD_STEP * x[j].abs().max(1.0);
                let (mut plus, mut minus) = (xd.clone(), xd.clone());
                plus[j].re += delta;
                minus[j].re -= delta;
                let step = plus[j].re - minus[j].re;
                let (rp, _) = eval(&plus);
                let (rm, _) = eval(&minus);
                let scale = rd.iter().fold(0.0_f64, |m, v| m.max(v.eps.abs()));
                for k in 0..n {
                    let got = jac[j * n + k].re;
                    let what = || {
                        let (row, a) = block_of(layout, k).expect("in layout");
                        let (col, b) = block_of(layout, j).expect("in layout");
                        format!(
                            "{what_scheme} point {i}: ∂R({})[{a}]/∂{}[{b}]",
                            row.name, col.name
                        )
                    };
                    t_dual.check(got, rd[k].eps, scale, what);
                    if !small_increment {
                        t_fd.check(got, (rp[k].re - rm[k].re) / step, scale.max(r_scale), what);
                    }
                }
            }
        }
        println!("--- {what_scheme}: n = {n}, {EQUATION_POINTS} points");
        t_dual.report();
        t_fd.report();
        assert!(
            t_dual.count > 0 && t_fd.count > 0,
            "{what_scheme}: nothing checked"
        );
    }
}

impl<'r, F> EquationOracles<'r, F> {
    fn new<const D: usize, const M: usize>(rng: &'r mut Rng) -> Self
    where
        F: Fixture<D, M>,
    {
        EquationOracles {
            rng,
            name: F::NAME,
            _fixture: core::marker::PhantomData,
        }
    }
}

/// A test per model: every scheme it declares and, for the GGL models, the θ-methods
/// with coefficients other than their defaults (VI-A, VI-B), so that the run-time
/// coefficients are exercised.
macro_rules! declared_scheme_equations {
    ($test:ident, $model:ty, $d:literal, $m:literal, $seed:literal $(, $theta:ident)?) => {
        #[test]
        fn $test() {
            type F = $model;
            let mut rng = Rng::new($seed);
            let mut oracles = EquationOracles::<F>::new::<$d, $m>(&mut rng);
            <F as Fixture<$d, $m>>::Dual::visit_schemes(&mut oracles);
            $(
                let _ = stringify!($theta);
                oracles.visit(GglThetaA::new(0.3).expect("valid θ"));
                oracles.visit(GglThetaB::new(0.7, 0.4).expect("valid θ, ϑ"));
            )?
        }
    };
}

declared_scheme_equations!(
    pendulum3d_declared_scheme_equations,
    Pendulum3d<f64>,
    3,
    1,
    0x5EED_000A,
    theta
);
declared_scheme_equations!(
    four_particles_declared_scheme_equations,
    FourParticles<f64>,
    12,
    2,
    0x5EED_000B,
    theta
);
declared_scheme_equations!(
    lagrange_top_declared_scheme_equations,
    LagrangeTop<f64>,
    12,
    9,
    0x5EED_000C,
    theta
);
// A quartic constraint in declared invariants: EM, EM-G and EML with the invariant-based
// discrete derivatives of `g` and `G M⁻¹ p` (Gonzalez in the invariants' space), whose
// small-increment branch every fourth point takes (`q¹` within 1e-8 of `q⁰`).
declared_scheme_equations!(
    torus_declared_scheme_equations,
    ParticleOnTorus<f64>,
    3,
    1,
    0x5EED_0021
);
// The assembled family (Lobatto IIIA–IIIB, s = 2 and 3) on a configuration-dependent
// mass matrix.
declared_scheme_equations!(
    double_pendulum_declared_scheme_equations,
    DoublePendulum<f64>,
    2,
    0,
    0x5EED_000D
);

declared_scheme_equations!(
    dragged_particle_declared_scheme_equations,
    DraggedParticle<f64>,
    2,
    0,
    0x5EED_0022
);

// ---------------------------------------------------------------------------------------
// f32
// ---------------------------------------------------------------------------------------

/// Points at which the `f32` instances are compared with the `f64` ones.
const F32_POINTS: usize = 10;

fn to_f32<const R: usize, const C: usize>(a: &SMatrix<f64, R, C>) -> SMatrix<f32, R, C> {
    a.map(|x| x as f32)
}

fn to_f64<const R: usize, const C: usize>(a: &SMatrix<f32, R, C>) -> SMatrix<f64, R, C> {
    a.map(f64::from)
}

/// `lagrangian` and `residual_and_jacobian` of the `f32` instance of `F` with scheme
/// `S`, against the `f64` instance at identical (`f32`-representable) parameters and
/// inputs.
fn f32_agrees<F, S, const D: usize, const M: usize, const N: usize>(
    sch: S,
    rng: &mut Rng,
    tally: &mut Tally,
) where
    F: Fixture<D, M> + DiscreteSystem<f64, S, D, M, N>,
    F::Single: DiscreteSystem<f32, S, D, M, N>,
    S: SchemeInfo,
{
    let (name, scheme) = (F::NAME, S::LABEL);
    for i in 0..F32_POINTS {
        let single = model_at::<F, D, M>(rng, i).to_f32();
        let model = F::from_f32(&single);
        let known32 = rng.state::<D, M>().map(|x| x as f32);
        let known = known32.map(f64::from);
        let h32 = rng.step() as f32;
        let h = f64::from(h32);
        let x32 = to_f32(&rng.vector::<N>());
        let x = to_f64(&x32);
        let where_ = || format!("{name}/{scheme} f32 point {i}");

        let l32 = single.lagrangian(&known32.q, &known32.v);
        let l64 = model.lagrangian(&known.q, &known.v);
        tally.check(f64::from(l32), l64, l64.abs(), || {
            format!("{}: lagrangian", where_())
        });

        let (mut r32, mut j32) = (SVector::<f32, N>::zeros(), SMatrix::<f32, N, N>::zeros());
        DiscreteSystem::<f32, S, D, M, N>::residual_and_jacobian(
            &single,
            &sch,
            h32,
            &known32,
            &InputValues::zeros(),
            &x32,
            &mut r32,
            &mut j32.data.0,
        );
        let (mut r, mut jac) = (SVector::<f64, N>::zeros(), SMatrix::<f64, N, N>::zeros());
        DiscreteSystem::<f64, S, D, M, N>::residual_and_jacobian(
            &model,
            &sch,
            h,
            &known,
            &InputValues::zeros(),
            &x,
            &mut r,
            &mut jac.data.0,
        );
        let r_scale = max_abs(&r);
        for k in 0..N {
            let what = || format!("{}: {}", where_(), label::<F, D, M>(F::UNKNOWNS, k, true));
            tally.check(f64::from(r32[k]), r[k], r_scale, what);
        }
        for j in 0..N {
            let scale = max_abs(&jac.column(j).into_owned());
            for k in 0..N {
                let what = || {
                    format!(
                        "{}: ∂{}/∂{}",
                        where_(),
                        label::<F, D, M>(F::UNKNOWNS, k, true),
                        label::<F, D, M>(F::UNKNOWNS, j, false)
                    )
                };
                tally.check(f64::from(j32[(k, j)]), jac[(k, j)], scale, what);
            }
        }
    }
}

#[test]
fn f32_instances_agree_with_f64() {
    let mut rng = Rng::new(0x5EED_0007);
    let mut tally = Tally::new("f32 vs f64 (lagrangian, r, jac)", F32_TOL);
    all_schemes!(f32_agrees, Pendulum3d<f64>, 3, 1, &mut rng, &mut tally);
    all_schemes!(f32_agrees, LagrangeTop<f64>, 12, 9, &mut rng, &mut tally);
    all_schemes!(f32_agrees, FourParticles<f64>, 12, 2, &mut rng, &mut tally);
    tally.report();
}

declared_scheme_equations!(
    surface_particle_declared_scheme_equations,
    SurfaceParticle<f64>,
    3,
    2,
    0x5EED_000E
);

declared_scheme_equations!(
    transmission_declared_scheme_equations,
    Transmission<f64>,
    3,
    0,
    0x5EED_000F
);

declared_scheme_equations!(
    mixed_particle_declared_scheme_equations,
    MixedParticle<f64>,
    4,
    1,
    0x5EED_0010
);

declared_scheme_equations!(
    bead_on_wire_declared_scheme_equations,
    BeadOnWire<f64>,
    3,
    1,
    0x5EED_0011
);

// Quaternion bodies (spec 001 §3.3–3.4): EML's G-equivariant derivative (87)–(88) and
// MPL, with the singular, configuration-dependent mass matrix `4 GᵀJ₀G`; MPH and EMH
// with the regular `M₄` of App. D.
fixture!(FreeBody, 4, 1, [j1, j2, j3]);
fixture!(HeavyTop, 4, 1, [rho, a, gravity]);

declared_scheme_equations!(
    free_body_declared_scheme_equations,
    FreeBody<f64>,
    4,
    1,
    0x5EED_0012
);

declared_scheme_equations!(
    heavy_top_declared_scheme_equations,
    HeavyTop<f64>,
    4,
    1,
    0x5EED_0013
);

/// The `f32` instance of a quaternion model (spec 001's heavy top) against its `f64`
/// one, with both schemes it declares.
#[test]
fn f32_instance_of_a_quaternion_model_agrees_with_f64() {
    let mut rng = Rng::new(0x5EED_0014);
    let mut tally = Tally::new("f32 vs f64, heavy top (lagrangian, r, jac)", F32_TOL);
    f32_agrees::<HeavyTop<f64>, Eml, 4, 1, 15>(Eml, &mut rng, &mut tally);
    f32_agrees::<HeavyTop<f64>, Mpl, 4, 1, 13>(Mpl, &mut rng, &mut tally);
    f32_agrees::<HeavyTop<f64>, Emh, 4, 1, 9>(Emh, &mut rng, &mut tally);
    tally.report();
    assert!(tally.count > 0);
}

/// Generalized forces in `q`, `v` and `t` (spec 001 §2.4: at the midpoint in all three):
/// a particle on a sphere under quadratic drag and a periodic drive. The holonomic stage
/// family adds them at its stages' times, with `∂F/∂q` and `∂F/∂v` in its Jacobian.
mod driven {
    livens::model! {
        pub struct DrivenParticle {
            params { m = 1.1, c = 0.3, w = 2.0, a = 0.7 }
            coords { r: Vec3 }
            kinetic = 0.5 * m * dot(r_dot, r_dot);
            potential = m * 9.81 * r.z;
            holonomic { sphere: 0.5 * (dot(r, r) - 1.0) }
            forces { r: -c * norm(r_dot) * r_dot + a * sin(w * t) * e1 + c * cross(r, r_dot) }
            schemes { Eml, Reml, Mpl, HolonomicLobatto(2), HolonomicLobatto(3) }
        }
    }
}
use driven::DrivenParticle;
fixture!(DrivenParticle, 3, 1, [m, c, w, a]);
fixture!(ClosedLoop, 28, 16, [l, rho, fm]);

declared_scheme_equations!(
    driven_particle_declared_scheme_equations,
    DrivenParticle<f64>,
    3,
    1,
    0x5EED_0015
);

// Four quaternion bodies and four translational ones, 16 constraints, an external load:
// 132 unknowns in the stabilised EML, 100 in the paper's and MPL (the paper's REML: 44). Checked like the GGL schemes above (the `f64` Jacobian against the dual
// and finite-difference columns of the residual) rather than through
// `declared_scheme_equations!`, whose `Dual64` instance of the whole step, Jacobian
// included, took 80 of this file's 157 s of compile time for this model alone.
#[test]
fn closed_loop_scheme_jacobians() {
    scheme_jacobian::<ClosedLoop<f64>, Eml, 28, 16, 132>(Eml, 0x5EED_0016);
    scheme_jacobian::<ClosedLoop<f64>, Mpl, 28, 16, 100>(Mpl, 0x5EED_0017);
    scheme_jacobian::<ClosedLoop<f64>, RemlPaper, 28, 16, 44>(RemlPaper, 0x5EED_0018);
    scheme_jacobian::<ClosedLoop<f64>, EmlPaper, 28, 16, 100>(EmlPaper, 0x5EED_0019);
}

fixture!(DoubleTop, 11, 5, [rho, a, gravity]);

/// EMH on two bodies and a particle (issue 30): each body's `M₄` block, the particle's
/// constant `M⁻¹` and the joint's rows of `∇̄g`, checked as the closed loop's are.
#[test]
fn double_top_emh_jacobian() {
    scheme_jacobian::<DoubleTop<f64>, Emh, 11, 5, 27>(Emh, 0x5EED_001A);
}
