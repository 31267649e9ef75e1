//! EML (spec 001 §2.2): the Livens energy–momentum scheme for any mass matrix.
//!
//! - The spring pendulum in spherical coordinates (spec 001 §3.2, a configuration-dependent
//!   mass matrix, singular at the poles): the generalized energy `E = p·v − T + V` to
//!   round-off, and the spec's recomputed figures for what EML does not keep (`T + V`,
//!   `p = M(q) v`, the cyclic momentum `p_φ`).
//! - With a constant mass matrix and quadratic constraints EML is EM-G (Remark 4.7):
//!   the two schemes, one written with `M⁻¹` and one without, agree to round-off.
//! - Second order in `q`, `p` and `v`.
use livens::prelude::*;
use livens::Parameters;
use livens_models::{MassSpring, SpringPendulum};

livens::model! {
    /// The spring pendulum with its potential written in `r` rather than in the invariant
    /// `r²`: EML then takes the plain Gonzalez gradient (71) of `V`, as the spec's
    /// re-implementation does.
    pub struct PlainSpringPendulum {
        params { m = 1.0, ea = 300.0, l0 = 1.0 }
        coords { r: Scalar, theta: Scalar, phi: Scalar }
        kinetic = 0.5 * m * (r_dot * r_dot + r * r * theta_dot * theta_dot
            + r * r * sin(theta) * sin(theta) * phi_dot * phi_dot);
        potential = 0.5 * ea * ((r * r - l0 * l0) / (2.0 * l0 * l0)).powi(2);
        schemes { Eml }
    }
}

/// What a run of 100 EML steps at h = 0.01 from the paper's data keeps and loses:
/// `E⁰`, `max|Eⁿ⁺¹ − Eⁿ|` (`E = p·v − T + V`, eq. (74)), `max|E_totⁿ⁺¹ − E_totⁿ|` and
/// `max|E_tot − E⁰|` (`E_tot = T + V`, eq. (80)), `max|p − M(q) v|`, and the drift of
/// `p_φ`.
fn spring_pendulum_figures<Mdl>(model: Mdl) -> [f64; 6]
where
    Mdl: Model<f64, 3, 0> + Step<f64, Eml, State = GglState<f64, 3, 0>> + Copy,
{
    let q = SVector::from([1.05, core::f64::consts::FRAC_PI_2, 0.0]);
    let v = SVector::from([0.0, 1.0, 1.0]);
    let start = GglState::consistent(&model, q, v, Consistency::Reject { tolerance: 0.0 })
        .expect("unconstrained");
    let energies = |s: &GglState<f64, 3, 0>| {
        let potential = -model.lagrangian(&s.q, &SVector::zeros());
        let kinetic = model.lagrangian(&s.q, &s.v) + potential;
        (s.p.dot(&s.v) - kinetic + potential, kinetic + potential)
    };
    let mut sim = Integrator::new(model, Eml, 0.01, start).with_options(NewtonOptions {
        tolerance: 1e-13,
        ..NewtonOptions::default()
    });
    let (e0, etot0) = energies(&start);
    let (mut e_prev, mut tot_prev) = (e0, etot0);
    let mut worst = [e0, 0.0, 0.0, 0.0, 0.0, 0.0];
    for _ in 0..100 {
        sim.step().expect("Newton converges");
        let s = *sim.state();
        let (e, tot) = energies(&s);
        let fiber = (s.p - model.mass_matrix(&s.q, &s.v) * s.v).amax();
        let now = [
            e0,
            (e - e_prev).abs(),
            (tot - tot_prev).abs(),
            (tot - etot0).abs(),
            fiber,
            (s.p[2] - start.p[2]).abs(),
        ];
        for (w, x) in worst.iter_mut().zip(now).skip(1) {
            *w = w.max(x);
        }
        (e_prev, tot_prev) = (e, tot);
    }
    worst
}

/// Spec 001 §3.2 [RECOMPUTED] (EML, correct `∂T/∂r`, h = 0.01, t ≤ 1): `E⁰ =
/// 1.496484375`, `max|Eⁿ⁺¹ − Eⁿ|` 2.4e-15, `max|E_totⁿ⁺¹ − E_totⁿ|` 4.3e-5, `max|E_tot − E⁰|`
/// 2.9e-4, `max|p − M(q) v|` 1.7e-4, `p_φ` drift 5.3e-5 (`φ` is cyclic, but the Gonzalez
/// corrections along `Δq` leak into its component). Reproduced with the plain gradient
/// of `V`; the model's invariant form (`V` in `r²`, as the authors' code) has the same
/// energies and a twentieth of the `p_φ` leak, since only `T`'s correction leaks.
#[test]
fn spring_pendulum_keeps_the_generalized_energy() {
    let names = [
        "E⁰",
        "max|ΔE| per step",
        "E_tot per step",
        "E_tot total",
        "max|p − M v|",
        "p_φ drift",
    ];
    let spec = [1.496484375, 2.4e-15, 4.3e-5, 2.9e-4, 1.7e-4, 5.3e-5];
    let plain = spring_pendulum_figures(PlainSpringPendulum::new());
    let invariant = spring_pendulum_figures(SpringPendulum::new());
    for k in 0..6 {
        println!(
            "{:>17}: plain {:.3e}, invariant {:.3e}, spec {:.1e}",
            names[k], plain[k], invariant[k], spec[k]
        );
    }
    for figures in [plain, invariant] {
        assert!((figures[0] - spec[0]).abs() < 1e-15, "{figures:?}");
        assert!(figures[1] < 1e-13, "{figures:?}");
        for k in 2..5 {
            assert!(
                (figures[k] / spec[k] - 1.0).abs() < 0.05,
                "{}: {figures:?}",
                names[k]
            );
        }
    }
    assert!((plain[5] / spec[5] - 1.0).abs() < 0.05, "{plain:?}");
    assert!(invariant[5] < plain[5] / 10.0, "{invariant:?}");
}

/// Order 2 in `q`, `v` and `p` against a run with a quarter of the smallest step.
#[test]
fn second_order() {
    let model = SpringPendulum::new();
    let start = model.initial_state().expect("the paper's data");
    let run = |steps: u32| {
        let h = SpringPendulum::DEFAULT_SPAN / f64::from(steps);
        let mut sim = Integrator::new(model, Eml, h, start).with_options(NewtonOptions {
            tolerance: 1e-14,
            ..NewtonOptions::default()
        });
        sim.run(steps as usize).expect("converges");
        *sim.state()
    };
    let reference = run(3200);
    let errors = [100, 200, 400].map(|n| {
        let s = run(n);
        [
            (s.q - reference.q).amax(),
            (s.v - reference.v).amax(),
            (s.p - reference.p).amax(),
        ]
    });
    for w in errors.windows(2) {
        let orders = [0, 1, 2].map(|k| (w[0][k] / w[1][k]).log2());
        println!("orders (q, v, p): {orders:.3?}");
        assert!(orders.iter().all(|o| (o - 2.0).abs() < 0.1), "{orders:?}");
    }
}

livens::model! {
    /// The pendulum of spec 000 (a unit mass on a rod of length 1, Cartesian), declaring
    /// EML and EM-G: with a constant mass matrix and a quadratic constraint the two are
    /// the same scheme.
    pub struct Pendulum {
        params { m = 1.0, l = 1.0, g = 9.81 }
        coords { q: Vec3 }
        kinetic = 0.5 * m * dot(q_dot, q_dot);
        potential = m * g * q.z;
        holonomic { length: 0.5 * (dot(q, q) / (l * l) - 1.0) }
        schemes { Eml, GglEmG }
    }
}

/// Remark 4.7: with constant `M` (72c) reads `p^½ = M v^½`, so from `p⁰ = M v⁰` EML keeps
/// `p = M v` and its equations are EM-G's (`∇̄g = G(q^½)` for a quadratic constraint, the
/// same `∇̄V`). Over 1000 steps the two agree in `q`, `p` and `λ` to round-off.
#[test]
fn with_a_constant_mass_matrix_eml_is_em_g() {
    let model = Pendulum::new();
    let q = SVector::from([1.0, 0.0, 0.0]);
    let v = SVector::from([0.0, 1.0, 0.5]);
    let start = GglState::consistent(&model, q, v, Consistency::Reject { tolerance: 1e-15 })
        .expect("consistent");
    let tight = NewtonOptions {
        tolerance: 1e-14,
        ..NewtonOptions::default()
    };
    let mut eml = Integrator::new(model, Eml, 0.05, start).with_options(tight);
    let mut emg = Integrator::new(model, GglEmG, 0.05, start).with_options(tight);
    let (mut dq, mut dp, mut dl): (f64, f64, f64) = (0.0, 0.0, 0.0);
    for _ in 0..1000 {
        eml.step().expect("EML converges");
        emg.step().expect("EM-G converges");
        let (a, b) = (eml.state(), emg.state());
        dq = dq.max((a.q - b.q).amax());
        dp = dp.max((a.p - b.p).amax());
        dl = dl.max((a.lambda - b.lambda).amax());
    }
    println!("EML − EM-G over 1000 steps: q {dq:.1e}, p {dp:.1e}, λ {dl:.1e}");
    assert!(
        dq < 1e-12 && dp < 1e-12 && dl < 1e-11,
        "{dq:e} {dp:e} {dl:e}"
    );
}

/// Spec 001 §3.1: the mass–spring system in redundant coordinates, whose constant mass
/// matrix has rank 2 (no Hamiltonian; EML never inverts it), with the paper's parameters
/// and with the authors' code's (`m₁ = 2`, springs `½ k (x² + x⁴)`), h = 0.1 over t ≤ 10:
/// [RECOMPUTED] `E⁰ = 0.5`, `max|ΔE|` 3e-16, `max|g|` 2e-16 (paper); `E⁰ = 1.0`,
/// `max|ΔE|` 6e-16 (code); the velocity constraint at the nodes about 1e-14.
#[test]
fn mass_spring_with_a_singular_mass_matrix() {
    for (label, code, e0_spec) in [("paper", false, 0.5), ("code", true, 1.0)] {
        let mut model = MassSpring::new();
        if code {
            model.set_parameter("m1", 2.0).expect("declared");
            model.set_parameter("spring", 0.5).expect("declared");
        }
        let start = model
            .initial_state()
            .expect("consistent without inverting M");
        let mut sim = Integrator::new(model, Eml, MassSpring::DEFAULT_STEP, start);
        let e0 = Diagnostics::of(&model, &start).energy;
        let (mut de, mut g, mut gv): (f64, f64, f64) = (0.0, 0.0, 0.0);
        for _ in 0..100 {
            sim.step().expect("Newton converges");
            let d = Diagnostics::of(&model, sim.state());
            de = de.max((d.energy - e0).abs());
            g = g.max(d.position_residual);
            gv = gv.max(d.velocity_residual_v);
        }
        println!("{label}: E⁰ {e0}, max|ΔE| {de:.1e}, max|g| {g:.1e}, max|G v| {gv:.1e}");
        assert_eq!(e0, e0_spec);
        assert!(de < 1e-14 && g < 1e-14 && gv < 1e-12, "{de:e} {g:e} {gv:e}");
    }
}

/// Consistent initial data without inverting the singular mass matrix: `λ⁰` from the
/// augmented matrix `M + α GᵀG` satisfies the continuous equations (`M q̈ = ∂L/∂q − Gᵀλ`,
/// `G q̈ + c = 0` solved with the constraint's own `q̈`), and data off the constraint are
/// projected onto both levels.
#[test]
fn initial_data_for_a_singular_mass_matrix() {
    let model = MassSpring::new();
    // Both springs stretched and the masses moving: λ⁰ is not zero here.
    let start = GglState::consistent(
        &model,
        SVector::from([0.3, 1.4, 0.2]),
        SVector::from([0.5, 0.5, 0.2]),
        Consistency::Reject { tolerance: 1e-14 },
    )
    .expect("consistent");
    let (q, v) = (start.q, start.v);
    let mass = model.mass_matrix(&q, &v);
    let g_jac = model.constraint_jacobian(&q);
    let c = model.constraint_curvature(&q, &v);
    // The oracle: the 4 × 4 saddle system [M Gᵀ; G 0] (q̈, λ) = (∂L/∂q, −c), which
    // needs no inverse of M either, solved by nalgebra.
    let mut saddle = SMatrix::<f64, 4, 4>::zeros();
    saddle.fixed_view_mut::<3, 3>(0, 0).copy_from(&mass);
    saddle
        .fixed_view_mut::<3, 1>(0, 3)
        .copy_from(&g_jac.transpose());
    saddle.fixed_view_mut::<1, 3>(3, 0).copy_from(&g_jac);
    let f = model.dl_dq(&q, &v);
    let rhs = SVector::<f64, 4>::from([f[0], f[1], f[2], -c[0]]);
    let solution = saddle.lu().solve(&rhs).expect("regular saddle system");
    println!(
        "λ⁰ {} against the saddle system's {}",
        start.lambda[0], solution[3]
    );
    assert!(start.lambda[0].abs() > 0.1);
    assert!((start.lambda[0] - solution[3]).abs() < 1e-14);

    let off_q = SVector::from([0.01, 1.2, 0.0]);
    let projected = GglState::consistent(
        &model,
        off_q,
        SVector::from([1.0, 0.9, -1.0]),
        Consistency::Project { tolerance: 1e-14 },
    )
    .expect("projects without inverting M");
    let g = model.constraints(&projected.q)[0];
    let gv = (model.constraint_jacobian(&projected.q) * projected.v)[0];
    assert!(g.abs() <= 1e-14 && gv.abs() <= 1e-14, "{g:e} {gv:e}");
}
