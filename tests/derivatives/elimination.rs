//! The elimination plans `model!` emits (static diagonal pivots for the primal
//! unknowns and 2 × 2 pivots for pairs of multipliers in minimum-fill order, a block
//! with partial pivoting for the multipliers left) solve the step
//! Jacobians exactly as the dense LU with partial pivoting does: for every GGL scheme
//! of the catalogue's models, at pseudo-random points, the planned solution of
//! `J x = r` agrees with the dense one, and on the papers' runs no static pivot ever
//! fails its threshold test.
//!
//! In the test profile the plans run table-driven (`solve::sparse::factor`); release
//! builds compile `model!`'s straight-line code for them instead, and CI runs this file
//! with `--release` as well, so both paths are held to the same checks.
use livens::prelude::*;
use livens::solve::lu;
use livens_models::{
    Chain10, ClosedLoop, DoubleTop, FourParticles, FreeBody, HeavyTop, LagrangeTop, MassSpring,
    ParticleOnTorus, Pendulum3d, SpringPendulum,
};

// Twenty links: long enough that release builds fold the plan's repeated sweeps into
// loops (`for t in 0..5` over ten static steps, two 2 × 2 pivots among them). Only
// there: the test profile runs every plan table-driven, as it does the ten links', and
// the declaration costs its build 9 s.
#[cfg(not(debug_assertions))]
#[macro_use]
#[path = "../../benches/support/chains.rs"]
mod chains;
#[cfg(not(debug_assertions))]
chain!(Chain20, 20);

/// xorshift64, as elsewhere in the tests.
struct Rng(u64);
impl Rng {
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        lo + (hi - lo) * ((self.0 >> 11) as f64 / (1u64 << 53) as f64)
    }
}

/// Worst relative difference between the planned and the dense solve over `points`
/// random unknowns near `state`, and how many of them fell back.
fn worst_difference<Mdl, S, const D: usize, const M: usize, const N: usize>(
    model: &Mdl,
    scheme: S,
    h: f64,
    state: &NodeState<f64, D, M>,
    points: usize,
) -> (f64, usize)
where
    Mdl: DiscreteSystem<f64, S, D, M, N> + Step<f64, S, State = NodeState<f64, D, M>>,
{
    let plan = Mdl::PLAN.unwrap_or_else(|| panic!("{}: no plan", Mdl::NAME));
    println!(
        "{}: {N} unknowns, {} static pivots, block of {} ({}), {} multiply-adds",
        Mdl::NAME,
        plan.pivots.len(),
        plan.block_columns.len(),
        match plan.band {
            Some((lower, upper)) => format!("band {lower} + {upper}"),
            None => "dense".into(),
        },
        plan.flops()
    );
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut worst: f64 = 0.0;
    let mut fell_back = 0;
    for _ in 0..points {
        let x: SVector<f64, N> =
            model.initial_guess(&scheme, h, state, &InputValues::zeros(), Guess::Previous)
                + SVector::from_fn(|_, _| rng.uniform(-0.1, 0.1));
        let mut r = SVector::<f64, N>::zeros();
        // NaN wherever the writer does not write (the structural zeros): the plan must
        // never read them, but for its fill, which it zeroes itself.
        // In release builds the planned writer packs the plan's entries and the dense
        // one unpacks them: the dense solve below checks the unpacking too.
        let mut planned = [[f64::NAN; N]; N];
        model.residual_and_jacobian_planned(
            &scheme,
            h,
            state,
            &InputValues::zeros(),
            &x,
            &mut r,
            &mut planned,
        );
        let mut dense = [[0.0; N]; N];
        model.residual_and_jacobian(
            &scheme,
            h,
            state,
            &InputValues::zeros(),
            &x,
            &mut r,
            &mut dense,
        );
        let mut slot = [0usize; N];
        match model
            .factor_planned(&mut planned, &mut slot)
            .expect("a plan")
        {
            Ok(()) => {}
            // Far from a step's solution a static pivot may fail its test: that is the
            // fallback's case, counted, not a wrong answer.
            Err(_) => {
                fell_back += 1;
                continue;
            }
        }
        let mut x_planned = r;
        model.solve_planned(&planned, &slot, &mut x_planned);
        let mut perm = [0usize; N];
        lu::factor_in_place(&mut dense, &mut perm).unwrap();
        let mut x_dense = r;
        lu::solve_in_place(&dense, &perm, &mut x_dense);
        let scale = x_dense.amax().max(1e-300);
        worst = worst.max((x_planned - x_dense).amax() / scale);
    }
    (worst, fell_back)
}

/// The quaternion bodies' Livens schemes, whose plans fall back now and then (see
/// docs/performance.md): bounded, not zero.
fn quaternion_body(label: &str) -> bool {
    ["free body", "heavy top", "closed loop"]
        .iter()
        .any(|m| label.starts_with(m))
}

#[test]
fn planned_solves_agree_with_partial_pivoting() {
    // Every scheme of every catalogue model, at the papers' step sizes.
    macro_rules! differences {
        ($model:expr, $h:expr, $points:expr, $name:literal: $($scheme:expr),*) => {{
            let model = $model;
            let state = model.initial_state().unwrap();
            vec![$((
                format!("{}/{:?}", $name, $scheme),
                worst_difference(&model, $scheme, $h, &state, $points),
            )),*]
        }};
    }
    let mut results = vec![];
    results.extend(
        differences!(Pendulum3d::new(), 0.05, 50, "pendulum": GglViS, GglViA,
        GglViB, GglThetaA::default(), GglThetaB::default(), GglEm, GglEmG, Rattle),
    );
    results.extend(
        differences!(LagrangeTop::new(), 0.002, 20, "top": GglViS, GglViA,
        GglViB, GglThetaA::default(), GglThetaB::default(), GglEm, GglEmG, Rattle),
    );
    results.extend(
        differences!(FourParticles::new(), 0.01, 20, "four": GglViS, GglViA,
        GglViB, GglThetaA::default(), GglThetaB::default(), GglEm, GglEmG, Rattle),
    );
    results.extend(differences!(Chain10::new(), 0.01, 20, "chain": GglEm, GglViA));
    // Spec 001: singular and configuration-dependent mass matrices, a quartic
    // constraint, quaternion bodies, four of them in a closed loop.
    results.extend(differences!(SpringPendulum::new(), 0.01, 20, "spring": Eml));
    results.extend(differences!(MassSpring::new(), 0.1, 20, "mass-spring": Eml));
    results.extend(
        differences!(ParticleOnTorus::new(), 0.01, 20, "torus": GglEm, GglEmG, Eml, Rattle),
    );
    results.extend(
        differences!(FreeBody::new(), 0.01, 20, "free body": Eml, Reml, NullEml, Mpl, Mph, Emh),
    );
    results.extend(
        differences!(HeavyTop::new(), 0.01, 20, "heavy top": Eml, Reml, NullEml, Mpl, Mph, Emh),
    );
    results.extend(differences!(ClosedLoop::new(), 0.05, 5, "closed loop": Eml, RemlPaper, Mpl));
    results.extend(differences!(DoubleTop::new(), 0.01, 20, "double top": Emh));
    #[cfg(not(debug_assertions))]
    {
        let chain20 = Chain20::new();
        results.push((
            "chain20/GglEm".into(),
            worst_difference(&chain20, GglEm, 0.01, &chain20.initial_state(), 10),
        ));
    }
    for (label, (worst, fell_back)) in results {
        println!("{label}: worst relative difference {worst:.1e}, {fell_back} fell back");
        assert!(worst < 1e-10, "{label}: {worst:e}");
        if quaternion_body(&label) {
            continue;
        }
        // A perturbation of 0.1 in every unknown is far from a step's solution: the
        // top's VI-S, whose `h` is 0.002, meets 2 × 2 pivots that fail their test at
        // 6 of its 20 points (none in its 1000 factorisations of real steps, below).
        assert!(fell_back <= 6, "{label}: {fell_back} fell back");
    }
}

#[test]
fn the_papers_runs_never_fall_back_to_partial_pivoting() {
    fn run<Mdl, S, const D: usize, const M: usize>(
        model: Mdl,
        scheme: S,
        h: f64,
        state: NodeState<f64, D, M>,
        steps: usize,
    ) -> (u64, u64)
    where
        Mdl: Step<f64, S, State = NodeState<f64, D, M>>,
    {
        let mut sim = Integrator::new(model, scheme, h, state);
        let (mut factorizations, mut fallbacks) = (0, 0);
        for _ in 0..steps {
            let report = sim.step().unwrap();
            factorizations += u64::from(report.factorizations);
            fallbacks += u64::from(report.pivoting_fallbacks);
        }
        (factorizations, fallbacks)
    }
    // Every scheme of every catalogue model, at the papers' step sizes (the chain's
    // as the chain bench's).
    macro_rules! runs {
        ($model:expr, $h:expr, $name:literal: $($scheme:expr),*) => {{
            let model = $model;
            vec![$((
                format!("{}/{:?}", $name, $scheme),
                run(model, $scheme, $h, model.initial_state().unwrap(), 200),
            )),*]
        }};
    }
    let mut results = vec![];
    results.extend(
        runs!(Pendulum3d::new(), 0.05, "pendulum": GglViS, GglViA, GglViB,
        GglThetaA::default(), GglThetaB::default(), GglEm, GglEmG, Rattle),
    );
    results.extend(
        runs!(LagrangeTop::new(), 0.002, "top": GglViS, GglViA, GglViB,
        GglThetaA::default(), GglThetaB::default(), GglEm, GglEmG, Rattle),
    );
    results.extend(
        runs!(FourParticles::new(), 0.01, "four": GglViS, GglViA, GglViB,
        GglThetaA::default(), GglThetaB::default(), GglEm, GglEmG, Rattle),
    );
    results.extend(runs!(Chain10::new(), 0.01, "chain": GglEm, GglViA));
    results.extend(runs!(SpringPendulum::new(), 0.01, "spring": Eml));
    results.extend(runs!(MassSpring::new(), 0.1, "mass-spring": Eml));
    results.extend(runs!(ParticleOnTorus::new(), 0.01, "torus": GglEm, GglEmG, Eml, Rattle));
    results.extend(runs!(FreeBody::new(), 0.01, "free body": Eml, Reml, NullEml, Mpl, Mph, Emh));
    results.extend(runs!(HeavyTop::new(), 0.01, "heavy top": Eml, Reml, NullEml, Mpl, Mph, Emh));
    results.extend(runs!(ClosedLoop::new(), 0.05, "closed loop": Eml, RemlPaper, Mpl));
    results.extend(runs!(DoubleTop::new(), 0.01, "double top": Emh));
    #[cfg(not(debug_assertions))]
    {
        let chain20 = Chain20::new();
        results.push((
            "chain20/GglEm".into(),
            run(chain20, GglEm, 0.01, chain20.initial_state(), 200),
        ));
    }
    for (label, (factorizations, fallbacks)) in results {
        println!("{label}: {fallbacks} of {factorizations} factorisations fell back");
        assert!(factorizations > 0);
        if quaternion_body(&label) {
            // Their static pivots meet the singular mass matrix `4 GᵀJ₀G` in the
            // reduced (REML) block and fail now and then (the stabilised EML on the
            // closed loop 211 of 840, the paper's 176 of 799; Null-EML 68–106 of about
            // 1000); before EML's and MPL's linear pivots they failed in every
            // factorisation.
            assert!(
                fallbacks * 3 <= factorizations,
                "{label}: {fallbacks} of {factorizations} fell back"
            );
            continue;
        }
        assert!(
            fallbacks == 0,
            "{label}: {fallbacks} of {factorizations} fell back"
        );
    }
}
