//! The runtime-assembled partitioned Runge–Kutta family (spec 002 S1): the Lobatto
//! IIIA–IIIB method is Störmer–Verlet at two stages, has order 2s − 2 (Hénon–Heiles and
//! a double pendulum in its angles), a symplectic one-step map (spec 002 §6 B), an exact
//! assembled Jacobian (dual numbers, finite differences), and steps a model with more
//! than 500 unknowns on a 2 MiB thread without allocating.
use livens::families::prk::{self, stage_system, PrkWorkspace};
use livens::prelude::*;
use livens::solve::{Boxed, Inline};
use num_dual::Dual64;

#[macro_use]
#[path = "../../benches/support/small_models.rs"]
mod small_models;

henon_heiles!(
    HenonHeiles,
    LobattoIIIAIIIB(2),
    LobattoIIIAIIIB(3),
    LobattoIIIAIIIB(4),
    LobattoIIIAIIIB(5)
);

livens::model! {
    /// Six charged masses in a uniform magnetic field along e3, in the Landau gauge
    /// (vector potential `b y e1`), neighbours joined by springs, each in a quartic
    /// well of each component: `D₁₂L` has the single entry `∂²L/∂y∂ẋ = b` per mass, so
    /// its pattern is not symmetric, and `D₁₁L` couples no two components, so the
    /// pattern's transpose is not covered by it. The stage Jacobian is sparse enough
    /// to be planned.
    pub struct Charged {
        params { b = 0.7, k = 1.0, c = 0.1 }
        coords { r: [Vec3; 6] }
        lagrangian = sum(i in 0..6, 0.5 * dot(r_dot[i], r_dot[i])
                + b * r[i].y * r_dot[i].x)
            - sum(i in 1..6, 0.5 * k * norm_squared(r[i] - r[i - 1]))
            - sum(i in 0..6, 0.25 * c * (r[i].x.powi(4) + r[i].y.powi(4) + r[i].z.powi(4)));
        schemes { LobattoIIIAIIIB(3) }
    }
}

livens::model! {
    /// The charged chain under forces in `q`, `v` and `t` whose derivatives reach
    /// entries no second derivative of its Lagrangian has (`x` of a body driven by `z`
    /// of its own velocity and of its neighbour's position): a plan made without `F_q`'s
    /// and `F_v`'s patterns would leave those entries stale or out.
    pub struct DrivenCharged {
        params { b = 0.7, k = 1.0, c = 0.1, w = 1.3 }
        coords { r: [Vec3; 6] }
        lagrangian = sum(i in 0..6, 0.5 * dot(r_dot[i], r_dot[i])
                + b * r[i].y * r_dot[i].x)
            - sum(i in 1..6, 0.5 * k * norm_squared(r[i] - r[i - 1]))
            - sum(i in 0..6, 0.25 * c * (r[i].x.powi(4) + r[i].y.powi(4) + r[i].z.powi(4)));
        forces {
            r[0]: -c * r_dot[0] + 0.2 * (r_dot[0].z + r[1].z) * e1 + 0.3 * cos(w * t) * e3,
            r[1]: -c * r_dot[1] + 0.2 * (r_dot[1].z + r[2].z) * e1,
            r[2]: -c * r_dot[2] + 0.2 * (r_dot[2].z + r[3].z) * e1,
            r[3]: -c * r_dot[3] + 0.2 * (r_dot[3].z + r[4].z) * e1,
            r[4]: -c * r_dot[4] + 0.2 * (r_dot[4].z + r[5].z) * e1,
            r[5]: -c * r_dot[5] + 0.2 * r_dot[5].z * r[0].z * e2,
        }
        schemes { LobattoIIIAIIIB(3) }
    }
}

livens::model! {
    /// A pendulum in its angle, with a kinetic energy that depends on the position (a
    /// bead on a rotating hoop): `D₁₂L`, `D₂₂L(q)` are not trivial.
    pub struct Hoop {
        params { omega = 0.7, g = 2.0 }
        coords { th: Scalar }
        lagrangian = 0.5 * th_dot * th_dot + 0.5 * omega * omega * sin(th) * sin(th) + g * cos(th)
            + 0.3 * sin(th) * th_dot * th_dot;
        schemes { LobattoIIIAIIIB(3) }
    }
}

livens::model! {
    /// A chain of 34 unit masses in space (102 coordinates), neighbours joined by
    /// linear springs, each mass in a quartic well: the size test of the family.
    pub struct Chain {
        params { k = 1.0, c = 0.1 }
        coords { b00: Vec3, b01: Vec3, b02: Vec3, b03: Vec3, b04: Vec3, b05: Vec3, b06: Vec3, b07: Vec3, b08: Vec3, b09: Vec3, b10: Vec3, b11: Vec3, b12: Vec3, b13: Vec3, b14: Vec3, b15: Vec3, b16: Vec3, b17: Vec3, b18: Vec3, b19: Vec3, b20: Vec3, b21: Vec3, b22: Vec3, b23: Vec3, b24: Vec3, b25: Vec3, b26: Vec3, b27: Vec3, b28: Vec3, b29: Vec3, b30: Vec3, b31: Vec3, b32: Vec3, b33: Vec3 }
        kinetic = 0.5 * (dot(b00_dot, b00_dot) + dot(b01_dot, b01_dot) + dot(b02_dot, b02_dot) + dot(b03_dot, b03_dot) + dot(b04_dot, b04_dot) + dot(b05_dot, b05_dot) + dot(b06_dot, b06_dot) + dot(b07_dot, b07_dot) + dot(b08_dot, b08_dot) + dot(b09_dot, b09_dot) + dot(b10_dot, b10_dot) + dot(b11_dot, b11_dot) + dot(b12_dot, b12_dot) + dot(b13_dot, b13_dot) + dot(b14_dot, b14_dot) + dot(b15_dot, b15_dot) + dot(b16_dot, b16_dot) + dot(b17_dot, b17_dot) + dot(b18_dot, b18_dot) + dot(b19_dot, b19_dot) + dot(b20_dot, b20_dot) + dot(b21_dot, b21_dot) + dot(b22_dot, b22_dot) + dot(b23_dot, b23_dot) + dot(b24_dot, b24_dot) + dot(b25_dot, b25_dot) + dot(b26_dot, b26_dot) + dot(b27_dot, b27_dot) + dot(b28_dot, b28_dot) + dot(b29_dot, b29_dot) + dot(b30_dot, b30_dot) + dot(b31_dot, b31_dot) + dot(b32_dot, b32_dot) + dot(b33_dot, b33_dot));
        potential = 0.5 * k * (norm_squared(b01 - b00) + norm_squared(b02 - b01) + norm_squared(b03 - b02) + norm_squared(b04 - b03) + norm_squared(b05 - b04) + norm_squared(b06 - b05) + norm_squared(b07 - b06) + norm_squared(b08 - b07) + norm_squared(b09 - b08) + norm_squared(b10 - b09) + norm_squared(b11 - b10) + norm_squared(b12 - b11) + norm_squared(b13 - b12) + norm_squared(b14 - b13) + norm_squared(b15 - b14) + norm_squared(b16 - b15) + norm_squared(b17 - b16) + norm_squared(b18 - b17) + norm_squared(b19 - b18) + norm_squared(b20 - b19) + norm_squared(b21 - b20) + norm_squared(b22 - b21) + norm_squared(b23 - b22) + norm_squared(b24 - b23) + norm_squared(b25 - b24) + norm_squared(b26 - b25) + norm_squared(b27 - b26) + norm_squared(b28 - b27) + norm_squared(b29 - b28) + norm_squared(b30 - b29) + norm_squared(b31 - b30) + norm_squared(b32 - b31) + norm_squared(b33 - b32)) + 0.25 * c * (norm_squared(b00).powi(2) + norm_squared(b01).powi(2) + norm_squared(b02).powi(2) + norm_squared(b03).powi(2) + norm_squared(b04).powi(2) + norm_squared(b05).powi(2) + norm_squared(b06).powi(2) + norm_squared(b07).powi(2) + norm_squared(b08).powi(2) + norm_squared(b09).powi(2) + norm_squared(b10).powi(2) + norm_squared(b11).powi(2) + norm_squared(b12).powi(2) + norm_squared(b13).powi(2) + norm_squared(b14).powi(2) + norm_squared(b15).powi(2) + norm_squared(b16).powi(2) + norm_squared(b17).powi(2) + norm_squared(b18).powi(2) + norm_squared(b19).powi(2) + norm_squared(b20).powi(2) + norm_squared(b21).powi(2) + norm_squared(b22).powi(2) + norm_squared(b23).powi(2) + norm_squared(b24).powi(2) + norm_squared(b25).powi(2) + norm_squared(b26).powi(2) + norm_squared(b27).powi(2) + norm_squared(b28).powi(2) + norm_squared(b29).powi(2) + norm_squared(b30).powi(2) + norm_squared(b31).powi(2) + norm_squared(b32).powi(2) + norm_squared(b33).powi(2));
        schemes { LobattoIIIAIIIB(4), LobattoIIIAIIIB(5) }
    }
}

const Q0: [f64; 2] = [0.3, -0.2];
const V0: [f64; 2] = [0.1, 0.4];

fn initial() -> PhaseState<f64, 2> {
    PhaseState::from_velocities(&HenonHeiles::new(), SVector::from(Q0), SVector::from(V0))
}

/// `(q, p)` at `t_end` with `S` stages and step `h`.
fn run<const S: usize>(h: f64, t_end: f64) -> (SVector<f64, 2>, SVector<f64, 2>)
where
    HenonHeiles: Step<f64, LobattoIIIAIIIB<S>, State = PhaseState<f64, 2>>,
{
    let steps = (t_end / h).round() as usize;
    let mut sim = Integrator::new(HenonHeiles::new(), LobattoIIIAIIIB::<S>, h, initial());
    sim.run(steps).expect("steps converge");
    (sim.state().q, sim.state().p)
}

/// Störmer–Verlet, written out: p½ = p − h/2 ∇V(q), q¹ = q + h p½, p¹ = p½ − h/2 ∇V(q¹).
#[test]
fn two_stages_are_stormer_verlet() {
    let grad_v = |q: &SVector<f64, 2>| {
        let (x, y) = (q[0], q[1]);
        SVector::from([x + 2.0 * x * y, y + x * x - y * y])
    };
    let h = 0.05;
    let (mut q, mut p) = (SVector::from(Q0), SVector::from(V0));
    let mut sim = Integrator::new(HenonHeiles::new(), LobattoIIIAIIIB::<2>, h, initial());
    let mut worst: f64 = 0.0;
    for _ in 0..200 {
        let half = p - grad_v(&q) * (h / 2.0);
        q += half * h;
        p = half - grad_v(&q) * (h / 2.0);
        sim.step().expect("converges");
        worst = worst
            .max((sim.state().q - q).amax())
            .max((sim.state().p - p).amax());
    }
    println!("Lobatto IIIA–IIIB(2) vs Störmer–Verlet over 200 steps: {worst:.2e}");
    assert!(worst <= 1e-13, "{worst:e}");
}

/// Global error at t = 1 against the five-stage method at h = 1/320; slopes between
/// successive halvings of h.
#[test]
fn order_is_two_s_minus_two() {
    let t_end = 1.0;
    let reference = run::<5>(1.0 / 320.0, t_end);
    let error = |(q, p): (SVector<f64, 2>, SVector<f64, 2>)| {
        (q - reference.0).amax().max((p - reference.1).amax())
    };
    let slopes =
        |errors: &[f64]| -> Vec<f64> { errors.windows(2).map(|w| (w[0] / w[1]).log2()).collect() };
    let hs = [0.2, 0.1, 0.05];
    let cases: [(usize, Vec<f64>); 4] = [
        (2, hs.iter().map(|&h| error(run::<2>(h, t_end))).collect()),
        (3, hs.iter().map(|&h| error(run::<3>(h, t_end))).collect()),
        (4, hs.iter().map(|&h| error(run::<4>(h, t_end))).collect()),
        (
            5,
            [0.5, 0.25, 0.125]
                .iter()
                .map(|&h| error(run::<5>(h, t_end)))
                .collect(),
        ),
    ];
    for (s, errors) in &cases {
        let slopes = slopes(errors);
        println!("s = {s}: errors {errors:?}, slopes {slopes:.2?}");
        let expected = (2 * s - 2) as f64;
        for slope in slopes {
            assert!(
                (slope - expected).abs() <= 0.35,
                "s = {s}: slope {slope} vs {expected}"
            );
        }
    }
}

/// The assembled Jacobian against dual numbers (exact) and central differences, at
/// random stage velocities, for a Lagrangian with position-dependent mass.
#[test]
fn assembled_jacobian_is_exact() {
    let (model, dual) = (Hoop::new(), Hoop::<Dual64>::default());
    let mut ws = PrkWorkspace::<f64, 3, 1, 3, Inline>::lobatto();
    let mut dws = PrkWorkspace::<Dual64, 3, 1, 3, Inline>::lobatto();
    let mut seed: u64 = 0x5EED_0101;
    let mut uniform = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as f64 / (1u64 << 53) as f64 * 3.0 - 1.5
    };
    let (mut worst_dual, mut worst_fd): (f64, f64) = (0.0, 0.0);
    for _ in 0..50 {
        let (q0, p0) = (SVector::from([uniform()]), SVector::from([uniform()]));
        let x = SVector::<f64, 3>::from_fn(|_, _| uniform());
        let h = 0.05 + 0.05 * uniform().abs();
        let mut r = SVector::zeros();
        let jac = *stage_system(&model, &mut ws, h, &q0, &p0, &x, &mut r);
        for j in 0..3 {
            let mut xd = x.map(Dual64::from_re);
            xd[j].eps = 1.0;
            let mut rd = SVector::zeros();
            let (dq, dp) = (q0.map(Dual64::from_re), p0.map(Dual64::from_re));
            stage_system(&dual, &mut dws, Dual64::from_re(h), &dq, &dp, &xd, &mut rd);
            let step = 1e-6;
            let (mut xp, mut xm) = (x, x);
            xp[j] += step;
            xm[j] -= step;
            let (mut rp, mut rm) = (SVector::zeros(), SVector::zeros());
            stage_system(&model, &mut ws, h, &q0, &p0, &xp, &mut rp);
            stage_system(&model, &mut ws, h, &q0, &p0, &xm, &mut rm);
            for i in 0..3 {
                let scale = 1.0_f64.max(jac[j][i].abs());
                worst_dual = worst_dual.max((jac[j][i] - rd[i].eps).abs() / scale);
                worst_fd = worst_fd.max((jac[j][i] - (rp[i] - rm[i]) / (2.0 * step)).abs() / scale);
            }
        }
    }
    println!("assembled Jacobian: vs dual {worst_dual:.2e}, vs central differences {worst_fd:.2e}");
    assert!(worst_dual <= 1e-12, "{worst_dual:e}");
    assert!(worst_fd <= 1e-6, "{worst_fd:e}");
}

/// 102 coordinates × 5 stages = 510 unknowns: the 2 MB Newton matrix and the kernel
/// buffers live on the heap (`new_boxed`), so a step runs on a 2 MiB thread.
#[test]
fn five_hundred_unknowns_on_a_small_stack() {
    let result = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            let model = Chain::new();
            let q = SVector::<f64, 102>::from_fn(|i, _| 0.01 * (i as f64).sin());
            let v = SVector::<f64, 102>::from_fn(|i, _| 0.02 * (i as f64).cos());
            let state = PhaseState::from_velocities(&model, q, v);
            let mut sim = Integrator::new_boxed(model, LobattoIIIAIIIB::<5>, 0.1, state);
            let e0 = Diagnostics::of(sim.model(), sim.state()).hamiltonian;
            let report = sim.run(3).expect("steps converge");
            let e1 = Diagnostics::of(sim.model(), sim.state()).hamiltonian;
            (report, e0, e1)
        })
        .expect("thread starts")
        .join()
        .expect("no stack overflow");
    let (iterations, e0, e1) = result;
    println!("510 unknowns: {iterations} Newton iterations in 3 steps, energy {e0} → {e1}");
    assert!((e1 - e0).abs() <= 1e-6 * e0.abs().max(1.0), "{e0} vs {e1}");
    let _ = Boxed;
}

/// The chain's stage Jacobian (510 unknowns, five stages of its block-tridiagonal
/// second derivatives) is factored along an elimination plan, table-driven: its steps
/// agree with the dense LU's, and no pivot fails its test.
#[test]
fn the_chains_stages_are_planned_and_agree_with_the_dense_lu() {
    let result = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            let (model, scheme) = (Chain::new(), LobattoIIIAIIIB::<5>);
            let q = SVector::<f64, 102>::from_fn(|i, _| 0.5 * (i as f64).sin());
            let v = SVector::<f64, 102>::from_fn(|i, _| 0.5 * (i as f64).cos());
            let mut state = PhaseState::from_velocities(&model, q, v);
            let mut planned: PrkWorkspace<f64, 5, 102, 510, Boxed> = model.workspace(&scheme);
            let plan = planned.plan().expect("the chain's stages are planned");
            let dense_flops = (510usize.pow(3) - 510) / 3;
            let mut dense = PrkWorkspace::<f64, 5, 102, 510, Boxed>::lobatto();
            let options = livens::StepOptions::default();
            let mut worst: f64 = 0.0;
            let (mut fallbacks, mut iterations) = (0, 0);
            for _ in 0..3 {
                let (a, report) = prk::step(
                    &model,
                    &scheme,
                    StepContext::new(0.1, state.t),
                    &state,
                    &mut planned,
                    &options,
                )
                .expect("planned step");
                let (b, _) = prk::step(
                    &model,
                    &scheme,
                    StepContext::new(0.1, state.t),
                    &state,
                    &mut dense,
                    &options,
                )
                .expect("dense step");
                fallbacks += report.pivoting_fallbacks;
                iterations += report.iterations;
                let scale = b.q.amax().max(b.p.amax());
                worst = worst.max((a.q - b.q).amax().max((a.p - b.p).amax()) / scale);
                state = b;
            }
            (plan.flops(), dense_flops, worst, fallbacks, iterations)
        })
        .expect("thread starts")
        .join()
        .expect("no stack overflow");
    let (flops, dense_flops, worst, fallbacks, iterations) = result;
    println!(
        "510 stage unknowns: plan {flops} multiply-adds against {dense_flops} dense; \
         {iterations} Newton iterations in 3 steps, planned against dense steps \
         {worst:.1e}, {fallbacks} fallbacks"
    );
    assert!(4 * flops <= dense_flops);
    assert!(worst <= 1e-12, "{worst:e}");
    assert_eq!(fallbacks, 0);
}

/// A non-separable Lagrangian (`D₁₂L` with a pattern that is not symmetric) with a plan: the
/// planned assembly writes exactly the pattern the plan was made for, and its steps
/// agree with the dense LU's, in as many Newton iterations.
#[test]
fn a_magnetic_term_is_planned_and_agrees_with_the_dense_lu() {
    let (model, scheme) = (Charged::new(), LobattoIIIAIIIB::<3>);
    let q = SVector::<f64, 18>::from_fn(|i, _| (i / 3) as f64 + 0.3 * (i as f64).sin());
    let v = SVector::<f64, 18>::from_fn(|i, _| 0.4 * (i as f64).cos());
    let mut state = PhaseState::from_velocities(&model, q, v);
    let mut planned: PrkWorkspace<f64, 3, 18, 54, Inline> = model.workspace::<Inline>(&scheme);
    assert!(
        planned.plan().is_some(),
        "the charged chain's stages are planned"
    );
    let mut dense = PrkWorkspace::<f64, 3, 18, 54, Inline>::lobatto();
    let options = livens::StepOptions::default();
    let (mut worst, mut fallbacks): (f64, u32) = (0.0, 0);
    for _ in 0..20 {
        let (a, report) = prk::step(
            &model,
            &scheme,
            StepContext::new(0.1, state.t),
            &state,
            &mut planned,
            &options,
        )
        .expect("planned step");
        let (b, dense_report) = prk::step(
            &model,
            &scheme,
            StepContext::new(0.1, state.t),
            &state,
            &mut dense,
            &options,
        )
        .expect("dense step");
        fallbacks += report.pivoting_fallbacks;
        // Newton converges to the same root with a wrong Jacobian too, only in more
        // iterations: the same count says the planned Jacobian is the dense one.
        assert_eq!(report.iterations, dense_report.iterations);
        let scale = b.q.amax().max(b.p.amax());
        worst = worst.max((a.q - b.q).amax().max((a.p - b.p).amax()) / scale);
        state = b;
    }
    println!("charged chain, 54 stage unknowns: planned against dense {worst:.1e}, {fallbacks} fallbacks");
    assert!(worst <= 1e-12, "{worst:e}");
    assert_eq!(fallbacks, 0);
}

/// A step so short that `h²` underflows to zero, after a normal one, in the same planned
/// workspace: the assembly must still zero every entry of the plan's pattern, including
/// those that only `h²`-scaled terms reach (`D₁₁L`'s), or they keep values of the last
/// factorisation. The planned step then agrees with the dense LU's, in as many Newton
/// iterations.
#[test]
fn a_step_whose_h_squared_underflows_leaves_no_stale_entry() {
    let (model, scheme) = (Charged::new(), LobattoIIIAIIIB::<3>);
    let q = SVector::<f64, 18>::from_fn(|i, _| (i / 3) as f64 + 0.3 * (i as f64).sin());
    let v = SVector::<f64, 18>::from_fn(|i, _| 0.4 * (i as f64).cos());
    let state = PhaseState::from_velocities(&model, q, v);
    let mut planned: PrkWorkspace<f64, 3, 18, 54, Inline> = model.workspace::<Inline>(&scheme);
    assert!(planned.plan().is_some());
    let mut dense = PrkWorkspace::<f64, 3, 18, 54, Inline>::lobatto();
    let options = livens::StepOptions::default();
    let (state, _) = prk::step(
        &model,
        &scheme,
        StepContext::new(0.1, state.t),
        &state,
        &mut planned,
        &options,
    )
    .expect("a normal step");
    let h = 1e-170;
    assert_eq!(h * h, 0.0);
    let (a, report) = prk::step(
        &model,
        &scheme,
        StepContext::new(h, state.t),
        &state,
        &mut planned,
        &options,
    )
    .expect("planned step");
    let (b, dense_report) = prk::step(
        &model,
        &scheme,
        StepContext::new(h, state.t),
        &state,
        &mut dense,
        &options,
    )
    .expect("dense step");
    assert_eq!(report.iterations, dense_report.iterations);
    assert_eq!(report.pivoting_fallbacks, 0);
    let scale = b.q.amax().max(b.p.amax());
    let worst = (a.q - b.q).amax().max((a.p - b.p).amax()) / scale;
    assert!(worst <= 1e-14, "{worst:e}");
}

// A double pendulum in its angles (spec 002 §6 B: "e.g. a pendulum"), a mass matrix
// that depends on the configuration.
double_pendulum!(
    DoublePendulum,
    LobattoIIIAIIIB(2),
    LobattoIIIAIIIB(3),
    LobattoIIIAIIIB(4),
    LobattoIIIAIIIB(5)
);

fn pendulum_start() -> PhaseState<f64, 2> {
    let model = DoublePendulum::new();
    PhaseState::from_velocities(
        &model,
        SVector::from([0.3, -0.2]),
        SVector::from([0.1, 0.4]),
    )
}

/// A phase state carries no velocities; `node_velocities` gives the ones whose momenta
/// are the state's, through the configuration-dependent mass matrix, and a state that
/// carries velocities gives its own.
#[test]
fn every_state_gives_its_node_velocities() {
    let model = DoublePendulum::new();
    let start = pendulum_start();
    assert!(start.velocities().is_none());
    let after = pendulum::<3>(8, start);
    let v = after.node_velocities(&model);
    let p = model.mass_matrix(&after.q, &v) * v;
    assert!((p - after.p).amax() < 1e-14, "{p} against {}", after.p);
    // Not the momenta themselves: the mass matrix is not the identity.
    assert!((v - after.p).amax() > 1e-3);

    let pendulum = livens_models::Pendulum3d::new();
    let node = pendulum.initial_state().unwrap();
    assert_eq!(node.node_velocities(&pendulum), node.v);
}

/// `(q, p)` of the double pendulum after `steps` steps of `S` stages over `t ≤ 1`.
fn pendulum<const S: usize>(steps: u32, start: PhaseState<f64, 2>) -> PhaseState<f64, 2>
where
    DoublePendulum<f64>: Step<f64, LobattoIIIAIIIB<S>, State = PhaseState<f64, 2>>,
{
    let mut sim = Integrator::new(
        DoublePendulum::new(),
        LobattoIIIAIIIB::<S>,
        1.0 / f64::from(steps),
        start,
    )
    .with_options(NewtonOptions {
        tolerance: 1e-14,
        max_iterations: 50,
        ..NewtonOptions::default()
    });
    sim.run(steps as usize).expect("converges");
    *sim.state()
}

/// Spec 002 §6 B on a pendulum: orders 2s − 2 in `q` and `p` for s = 2..5, against the
/// five-stage method at h = 1/256; and in the node velocities `M(q)⁻¹ p`
/// (`node_velocities`), not in the stored Newton guess `v` (the last stage velocity,
/// order s − 1 at best; printed).
#[test]
fn double_pendulum_orders_are_two_s_minus_two() {
    let model = DoublePendulum::new();
    let reference = pendulum::<5>(256, pendulum_start());
    let reference_v = reference.node_velocities(&model);
    let error = |s: PhaseState<f64, 2>| {
        [
            (s.q - reference.q).amax(),
            (s.p - reference.p).amax(),
            (s.node_velocities(&model) - reference_v).amax(),
            (s.v - reference_v).amax(),
        ]
    };
    let mut measured = Vec::new();
    macro_rules! orders {
        ($s:literal, $n:expr) => {{
            let (a, b) = (
                error(pendulum::<$s>($n, pendulum_start())),
                error(pendulum::<$s>(2 * $n, pendulum_start())),
            );
            let orders = [
                (a[0] / b[0]).log2(),
                (a[1] / b[1]).log2(),
                (a[2] / b[2]).log2(),
            ];
            let guess = (a[3] / b[3]).log2();
            println!(
                "s = {}: orders (q, p, node v) {orders:.2?}, the stored guess {guess:.2}",
                $s
            );
            measured.push(($s, orders));
        }};
    }
    orders!(2, 32);
    orders!(3, 32);
    orders!(4, 16);
    orders!(5, 16);
    for (s, orders) in measured {
        let expected = f64::from(2 * s - 2);
        assert!(
            orders.iter().all(|o| (o - expected).abs() < 0.3),
            "s = {s}: {orders:?}"
        );
    }
}

/// Spec 002 §6 B: the one-step map is symplectic, `Jᵀ Ω J = Ω` to 1e-9, with `J` by
/// central differences (ε = 1e-6) in `(q, p)`, for s = 2..5 at h = 0.1.
#[test]
fn double_pendulum_one_step_map_is_symplectic() {
    fn jacobian<const S: usize>() -> SMatrix<f64, 4, 4>
    where
        DoublePendulum<f64>: Step<f64, LobattoIIIAIIIB<S>, State = PhaseState<f64, 2>>,
    {
        let z0 = pendulum_start();
        let eps = 1e-6;
        let mut jac = SMatrix::<f64, 4, 4>::zeros();
        for k in 0..4 {
            let moved = |s: f64| {
                let mut z = z0;
                if k < 2 {
                    z.q[k] += s;
                } else {
                    z.p[k - 2] += s;
                }
                let next = pendulum::<S>(10, z);
                SVector::<f64, 4>::from([next.q[0], next.q[1], next.p[0], next.p[1]])
            };
            jac.set_column(k, &((moved(eps) - moved(-eps)) / (2.0 * eps)));
        }
        jac
    }
    let mut omega = SMatrix::<f64, 4, 4>::zeros();
    omega[(0, 2)] = 1.0;
    omega[(1, 3)] = 1.0;
    omega[(2, 0)] = -1.0;
    omega[(3, 1)] = -1.0;
    for (s, jac) in [
        (2, jacobian::<2>()),
        (3, jacobian::<3>()),
        (4, jacobian::<4>()),
        (5, jacobian::<5>()),
    ] {
        let defect = (jac.transpose() * omega * jac - omega).amax();
        println!("s = {s}: max|JᵀΩJ − Ω| over ten steps of h = 0.1: {defect:.1e}");
        assert!(defect < 1e-8, "s = {s}: {defect:e}");
    }
}

/// Forces with derivatives outside the Lagrangian's patterns, with a plan: the pattern
/// `model!` planned for has `F_q`'s and `F_v`'s entries, so the planned steps agree with
/// the dense LU's in as many Newton iterations, from a start time other than zero.
#[test]
fn forces_are_planned_and_agree_with_the_dense_lu() {
    let (model, scheme) = (DrivenCharged::new(), LobattoIIIAIIIB::<3>);
    let q = SVector::<f64, 18>::from_fn(|i, _| (i / 3) as f64 + 0.3 * (i as f64).sin());
    let v = SVector::<f64, 18>::from_fn(|i, _| 0.4 * (i as f64).cos());
    let mut state = PhaseState::from_velocities(&model, q, v);
    state.t = 0.7;
    let mut planned: PrkWorkspace<f64, 3, 18, 54, Inline> = model.workspace::<Inline>(&scheme);
    assert!(
        planned.plan().is_some(),
        "the driven chain's stages are planned"
    );
    let mut dense = PrkWorkspace::<f64, 3, 18, 54, Inline>::lobatto();
    let options = livens::StepOptions::default();
    let (mut worst, mut fallbacks): (f64, u32) = (0.0, 0);
    for _ in 0..20 {
        let context = StepContext::new(0.1, state.t);
        let (a, report) = prk::step(&model, &scheme, context, &state, &mut planned, &options)
            .expect("planned step");
        let (b, dense_report) =
            prk::step(&model, &scheme, context, &state, &mut dense, &options).expect("dense step");
        fallbacks += report.pivoting_fallbacks;
        assert_eq!(report.iterations, dense_report.iterations);
        let scale = b.q.amax().max(b.p.amax());
        worst = worst.max((a.q - b.q).amax().max((a.p - b.p).amax()) / scale);
        state = b;
    }
    println!(
        "driven chain, 54 stage unknowns: planned against dense {worst:.1e}, {fallbacks} fallbacks"
    );
    assert!(worst <= 1e-12, "{worst:e}");
    assert_eq!(fallbacks, 0);
}

/// The largest gap over `steps` steps between a step's `p¹`, whose stage forces are
/// continued from the last residual's through the last Jacobian's kernels, and `p¹` from
/// `D₁L + F` evaluated at the stages of Newton's solution, relative to `|p¹|`.
fn continued_momentum_gap<Mdl, const S: usize, const D: usize, const N: usize>(
    model: &Mdl,
    mut state: PhaseState<f64, D>,
    (h, steps): (f64, usize),
    options: &livens::StepOptions<f64>,
) -> f64
where
    Mdl: livens::PointKernels<f64, D>,
{
    let scheme = LobattoIIIAIIIB::<S>;
    let mut ws = PrkWorkspace::<f64, S, D, N, Inline>::lobatto();
    let mut worst: f64 = 0.0;
    for _ in 0..steps {
        let context = StepContext::new(h, state.t);
        let (next, _) = prk::step(model, &scheme, context, &state, &mut ws, options).unwrap();
        let (x, tableau) = (ws.unknowns(), *ws.tableau());
        let v: [SVector<f64, D>; S] =
            core::array::from_fn(|j| SVector::from_fn(|i, _| x[j * D + i]));
        let mut p = state.p;
        for j in 0..S {
            let mut q = state.q;
            for (vl, &a) in v.iter().zip(&tableau.a[j]) {
                q.axpy(h * a, vl, 1.0);
            }
            let t = state.t + tableau.c[j] * h;
            let mut w = model.l_q(&q, &v[j]);
            if Mdl::FORCED {
                w += model.f(t, &q, &v[j], &livens::InputValues::zeros());
            }
            p.axpy(h * tableau.b_hat[j], &w, 1.0);
        }
        worst = worst.max((next.p - p).amax() / next.p.amax().max(1.0));
        state = next;
    }
    worst
}

/// `p¹ = p⁰ + h Σ b̂ⱼ Wʲ` at Newton's solution without evaluating `D₁L` there: the
/// stage forces of the last residual continued to first order (`prk.rs`). Equal to
/// round-off to the forces evaluated at the solution, with the defaults (the last
/// Jacobian an iteration older than the last residual) and with full Newton, on the
/// double pendulum at five stages and on a chain with forces and a plan.
#[test]
fn the_continued_stage_forces_are_the_forces_at_the_solution() {
    let full = livens::StepOptions {
        guess: livens::Guess::Previous,
        newton: NewtonOptions::default(),
    };
    let defaults = livens::families::prk::default_options();
    let pendulum = DoublePendulum::new();
    let start = PhaseState::from_velocities(
        &pendulum,
        SVector::from([2.0, 2.5]),
        SVector::from([0.0, 0.0]),
    );
    let driven = DrivenCharged::new();
    let q = SVector::<f64, 18>::from_fn(|i, _| (i / 3) as f64 + 0.3 * (i as f64).sin());
    let v = SVector::<f64, 18>::from_fn(|i, _| 0.4 * (i as f64).cos());
    let chain = PhaseState::from_velocities(&driven, q, v);
    for (name, options) in [("defaults", &defaults), ("full Newton", &full)] {
        let a = continued_momentum_gap::<_, 5, 2, 10>(&pendulum, start, (0.01, 500), options);
        let b = continued_momentum_gap::<_, 3, 18, 54>(&driven, chain, (0.1, 50), options);
        println!("{name}: continued against evaluated p¹: pendulum {a:.1e}, driven chain {b:.1e}");
        // Measured: 1.6e-15 and 3.5e-16 with the defaults (the first steps, from the
        // state's velocities, converge from far); the residual's forces alone, not
        // continued, are 2.1e-12 and 2.1e-14 away.
        assert!(a <= 1e-14 && b <= 1e-14, "{a:e} {b:e}");
    }
}
