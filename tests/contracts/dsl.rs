//! The DSL's features, each checked numerically against the formula it should produce:
//! scalar coordinates, `lagrangian`, `let`, matrices, vector helpers, elementary
//! functions, translations, models without constraints or schemes, and a mass matrix
//! that depends on the coordinates (velocity by an LU solve).
use livens::prelude::*;

livens::model! {
    /// A planar pendulum in its angle: M = m l² depends on nothing, but the Lagrangian
    /// is written whole, and `cos` makes the potential non-polynomial.
    pub struct AnglePendulum {
        params { m = 2.0, l = 0.5, g = 9.81 }
        coords { theta: Scalar }
        lagrangian = 0.5 * m * l.powi(2) * theta_dot.powi(2) + m * g * l * cos(theta);
        schemes { GglEm, GglViA }
    }
}

livens::model! {
    /// A particle in 3D with an anisotropic mass (a `diag` matrix) in a potential that
    /// exercises the elementary functions and vector helpers; no constraints.
    pub struct Particle {
        params { k = 3.0 }
        coords { x: Vec3 }
        let mass = diag(1.0, 2.0, 4.0);
        let w = vec3(0.1, -0.2, 0.3);
        kinetic = 0.5 * dot(x_dot, mass * x_dot);
        potential = k * (exp(x.x) - ln(2.0 + x.y.powi(2)) + sqrt(1.0 + norm_squared(x)))
            + sin(dot(w, x)) + tan(0.1 * x[2]) + norm(cross(w, x)) - x.z / 2.0;
        schemes { GglEm }
    }
}

livens::model! {
    /// Two particles bound by a spring, in a field along e3: the rotation about e3 and
    /// the translation along e1 are symmetries (the macro checks that they are).
    pub struct Pair {
        coords { x: Vec3, y: Vec3 }
        kinetic = 0.5 * (dot(x_dot, x_dot) + 2.0 * dot(y_dot, y_dot));
        potential = 0.5 * norm_squared(x - y) + x.z + y.z;
        momentum { jz: rotation(e3), px: translation(e1) }
    }
}

livens::model! {
    /// A bead whose mass depends on its position: ∂²L/∂v² varies with q, so no GGL
    /// scheme applies, and `velocity` solves M(q) v = p at run time.
    pub struct HeavyBead {
        coords { s: Scalar, r: Scalar }
        kinetic = 0.5 * (1.0 + s.powi(2)) * s_dot.powi(2) + 0.5 * r_dot.powi(2) + 0.1 * s * s_dot * r_dot;
    }
}

#[test]
fn lagrangian_form_and_scalar_coordinates() {
    let model = AnglePendulum::new();
    let (q, v) = (SVector::from([0.3]), SVector::from([1.7]));
    let (m, l, g) = (2.0, 0.5, 9.81);
    let lag = 0.5 * m * l * l * 1.7f64.powi(2) + m * g * l * 0.3f64.cos();
    assert!((model.lagrangian(&q, &v) - lag).abs() < 1e-14);
    assert!((model.mass_matrix(&q, &v)[(0, 0)] - m * l * l).abs() < 1e-15);
    assert!((model.dl_dq(&q, &v)[0] + m * g * l * 0.3f64.sin()).abs() < 1e-14);
    assert!((model.potential(&q) + m * g * l * 0.3f64.cos()).abs() < 1e-14);
    assert!((model.velocity(&q, &SVector::from([1.0]))[0] - 1.0 / (m * l * l)).abs() < 1e-15);
    assert_eq!(<AnglePendulum as Model<f64, 1, 0>>::COORDINATES, ["theta"]);
    assert_eq!(AnglePendulum::DIM, 1);
}

/// The non-polynomial potential goes through EM's Gonzalez discrete gradient, which
/// conserves the energy exactly; VI-A is second order but not energy-conserving.
#[test]
fn em_conserves_energy_for_a_non_polynomial_potential() {
    let model = AnglePendulum::new();
    let state = NodeState::consistent(
        &model,
        SVector::from([2.0]),
        SVector::from([0.0]),
        Consistency::Reject { tolerance: 0.0 },
    )
    .expect("no constraints");
    let mut sim = Integrator::new(model, GglEm, 0.1, state);
    let e0 = Diagnostics::of(sim.model(), sim.state()).hamiltonian;
    for _ in 0..1000 {
        sim.step().expect("Newton converges");
    }
    let e1 = Diagnostics::of(sim.model(), sim.state()).hamiltonian;
    assert!(
        (e1 - e0).abs() <= 1e-12 * e0.abs(),
        "energy drift {:e}",
        e1 - e0
    );
}

livens::model! {
    /// Signs of integer exponents: every `-` counts (`--2` is 2, `-(-(-1))` is −1).
    pub struct Exponents {
        coords { x: Scalar, y: Scalar }
        kinetic = 0.5 * (x_dot.powi(2) + y_dot.powi(2));
        potential = x.powi(--2) + y.powi(-(-(-1))) + x.powi(-2);
    }
}

/// `x.powi(--2)` once compiled to x⁻² (the macro counted one sign, whatever their number).
#[test]
fn integer_exponents_count_every_sign() {
    let model = Exponents::new();
    let (x, y) = (1.7_f64, 0.6_f64);
    let q = SVector::from([x, y]);
    let expected = x * x + 1.0 / y + 1.0 / (x * x);
    assert!(
        (model.potential(&q) - expected).abs() < 1e-14,
        "{} vs {expected}",
        model.potential(&q)
    );
}

#[test]
fn vector_helpers_and_elementary_functions() {
    let model = Particle::new();
    let xs = [0.3, -0.4, 0.7];
    let q = SVector::from(xs);
    let v = SVector::from([0.5, 1.5, -1.0]);
    let w = [0.1, -0.2, 0.3];
    let cross = [
        w[1] * xs[2] - w[2] * xs[1],
        w[2] * xs[0] - w[0] * xs[2],
        w[0] * xs[1] - w[1] * xs[0],
    ];
    let norm2: f64 = xs.iter().map(|a| a * a).sum();
    let pot = 3.0 * (xs[0].exp() - (2.0 + xs[1] * xs[1]).ln() + (1.0 + norm2).sqrt())
        + (w[0] * xs[0] + w[1] * xs[1] + w[2] * xs[2]).sin()
        + (0.1 * xs[2]).tan()
        + cross.iter().map(|c| c * c).sum::<f64>().sqrt()
        - xs[2] / 2.0;
    let kin = 0.5 * (0.25 + 2.0 * 2.25 + 4.0 * 1.0);
    assert!(
        (model.potential(&q) - pot).abs() < 1e-14,
        "{} vs {pot}",
        model.potential(&q)
    );
    assert!((model.lagrangian(&q, &v) - (kin - pot)).abs() < 1e-14);
    let mass = model.mass_matrix(&q, &v);
    assert_eq!(
        mass,
        SMatrix::<f64, 3, 3>::from_diagonal(&SVector::from([1.0, 2.0, 4.0]))
    );
    let p = model.dl_dv(&q, &v);
    assert_eq!(model.velocity(&q, &p), v);
    assert_eq!(Particle::N_CONSTRAINTS, 0);
}

#[test]
fn momentum_maps_sum_over_the_vector_blocks() {
    let model = Pair::new();
    let q = SVector::from([0.3, -0.4, 0.7, 1.1, 0.2, -0.5]);
    let p = SVector::from([0.9, 0.1, -0.3, -0.6, 0.8, 0.4]);
    // jz = e3 · (x × p_x + y × p_y), px = e1 · (p_x + p_y).
    let maps = model.momentum_maps(&q, &p);
    let jz = (q[0] * p[1] - q[1] * p[0]) + (q[3] * p[4] - q[4] * p[3]);
    assert!((maps[0] - jz).abs() < 1e-15);
    assert_eq!(maps[1], p[0] + p[3]);
    assert_eq!(<Pair as MomentumMaps<f64, 6, 2>>::NAMES, ["jz", "px"]);
}

#[test]
fn coordinate_dependent_mass_matrix_uses_an_lu_solve() {
    let model = HeavyBead::new();
    let q = SVector::from([0.7, -0.2]);
    let v = SVector::from([1.3, -0.4]);
    let p = model.dl_dv(&q, &v);
    let back = model.velocity(&q, &p);
    assert!((back - v).amax() < 1e-14, "{back} vs {v}");
    let m = model.mass_matrix(&q, &v);
    assert!(
        (m[(0, 0)] - 1.49).abs() < 1e-15 && (m[(0, 1)] - 0.07).abs() < 1e-15 && m[(1, 1)] == 1.0
    );
}

#[test]
fn parameters_by_name() {
    let mut model = AnglePendulum::new();
    assert_eq!(
        <AnglePendulum as Parameters<f64>>::PARAMETERS,
        ["m", "l", "g"]
    );
    assert_eq!(model.parameter("l"), Some(0.5));
    assert_eq!(model.set_parameter("l", 2.0), Ok(()));
    assert_eq!(model.l, 2.0);
    assert_eq!(
        model.set_parameter("length", 1.0),
        Err(livens::UnknownParameter)
    );
    assert_eq!(model.parameter("length"), None);
    assert!(<HeavyBead as Parameters<f64>>::PARAMETERS.is_empty());
}
