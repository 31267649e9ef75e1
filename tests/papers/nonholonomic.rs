//! The `nonholonomic` block (spec 002 §2): constraints `Φ(q, v) = A(q)·v = 0`, checked
//! at compile time to be linear in the velocities, evaluated with their matrix
//! `A(q) = ∂Φ/∂v`, and the multiplier of the continuous equations (spec 002 §4.8)
//! against the spec's closed forms; the models of spec 002 §5.1–5.3 declared without
//! schemes (`tests/stages/nonholonomic_lobatto.rs` integrates the particle, and
//! `macros/diagnostics/tests/ui/schemes` pins the refusal of the schemes that would ignore the block).
use livens::{nonholonomic_multiplier, NonholonomicKernels, SVector};

livens::model! {
    /// The nonholonomic particle in a harmonic potential (spec 002 §5.1).
    pub struct Particle {
        coords { x: Scalar, y: Scalar, z: Scalar }
        kinetic = 0.5 * (x_dot * x_dot + y_dot * y_dot + z_dot * z_dot);
        potential = 0.5 * (x * x + y * y);
        nonholonomic { phi: z_dot - y * x_dot }
    }
}

livens::model! {
    /// The pendulum-driven continuously variable transmission (spec 002 §5.2).
    pub struct Transmission {
        params { epsilon = 0.5 }
        coords { x: Scalar, y: Scalar, z: Scalar }
        kinetic = 0.5 * (x_dot * x_dot + y_dot * y_dot + z_dot * z_dot);
        potential = 0.5 * (x * x + z * z - 2.0 * cos(y) + epsilon * sin(2.0 * y));
        nonholonomic { phi: z_dot + sin(y) * x_dot }
    }
}

livens::model! {
    /// The fully chaotic nonholonomic system of McLachlan and Perlmutter with m = 3
    /// (spec 002 §5.3; its 1-based indices shifted down by one).
    pub struct Chaotic {
        coords { q: [Scalar; 7] }
        kinetic = sum(i in 0..7, 0.5 * q_dot[i] * q_dot[i]);
        potential = 0.5 * (sum(i in 0..7, q[i] * q[i]) + q[4] * q[4] * q[5] * q[5]
            + sum(i in 1..4, q[i] * q[i] * q[i + 3] * q[i + 3]));
        nonholonomic { phi: q_dot[0] + sum(i in 4..7, q[i] * q_dot[i]) }
    }
}

/// xorshift64 in [-1, 1).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    }
    fn vector(&mut self) -> SVector<f64, 3> {
        SVector::from_fn(|_, _| self.next())
    }
}

#[test]
fn names_and_the_specs_initial_data() {
    assert_eq!(Particle::NONHOLONOMIC, ["phi"]);
    assert_eq!(Transmission::NONHOLONOMIC, ["phi"]);
    // Spec 002 §5.1 (the re-implementation's data) and §5.2 (both energy levels)
    // satisfy Φ = 0.
    let particle = Particle::new();
    let (q, v) = (
        SVector::from([0.5, 0.3, 0.0]),
        SVector::from([0.2, 0.4, 0.06]),
    );
    assert!(particle.nonholonomic(&q, &v)[0].abs() <= 1e-16);
    let cvt = Transmission::new();
    let q = SVector::from([1.0, 0.0, 1.0]);
    for vy in [3.0 * 10f64.sqrt() / 5.0, 8f64.sqrt()] {
        let v = SVector::from([0.0, vy, 0.0]);
        assert_eq!(cvt.nonholonomic(&q, &v)[0], 0.0);
    }
}

/// `A(q)` is the spec's (`(−y, 0, 1)` and `(sin y, 0, 1)`), `Φ = A(q)·v` at random
/// points, and `A` is `∂Φ/∂v` by central differences.
#[test]
fn the_matrix_is_the_velocity_derivative() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (particle, cvt) = (Particle::new(), Transmission::new());
    let (mut worst, mut worst_fd): (f64, f64) = (0.0, 0.0);
    for _ in 0..100 {
        let (q, v) = (rng.vector(), rng.vector());
        let a = particle.nonholonomic_matrix(&q);
        assert_eq!([a[(0, 0)], a[(0, 1)], a[(0, 2)]], [-q[1], 0.0, 1.0]);
        let b = cvt.nonholonomic_matrix(&q);
        assert_eq!([b[(0, 0)], b[(0, 1)], b[(0, 2)]], [q[1].sin(), 0.0, 1.0]);
        for (phi, a) in [
            (particle.nonholonomic(&q, &v)[0], a),
            (cvt.nonholonomic(&q, &v)[0], b),
        ] {
            worst = worst.max((phi - (a * v)[0]).abs());
        }
        for j in 0..3 {
            let step = 1e-6;
            let (mut vp, mut vm) = (v, v);
            vp[j] += step;
            vm[j] -= step;
            let fd = (cvt.nonholonomic(&q, &vp)[0] - cvt.nonholonomic(&q, &vm)[0]) / (2.0 * step);
            worst_fd = worst_fd.max((fd - b[(0, j)]).abs());
        }
    }
    assert!(worst <= 1e-15, "Φ against A(q)·v: {worst:e}");
    assert!(
        worst_fd <= 1e-9,
        "A against central differences: {worst_fd:e}"
    );
}

/// The multiplier from the continuous equations (spec 002 §4.8) against the spec's
/// closed forms at random points (the formulas hold for any `v`): the particle's
/// `(vₓ v_y − x y)/(1 + y²)`, the transmission's
/// `(z − cos y vₓ v_y + x sin y)/(1 + sin² y)`, the chaotic system's
/// `(a·∇U − ȧ·v)/(a·a)`.
#[test]
fn the_continuous_multiplier_is_the_specs_closed_form() {
    let mut rng = Rng(0x5EED_0002);
    let (particle, cvt, chaotic) = (Particle::new(), Transmission::new(), Chaotic::new());
    let mut worst: f64 = 0.0;
    for _ in 0..50 {
        let (q, v) = (rng.vector(), rng.vector());
        let (x, y, z) = (q[0], q[1], q[2]);
        let got = nonholonomic_multiplier(&particle, &q, &v).expect("regular")[0];
        let want = (v[0] * v[1] - x * y) / (1.0 + y * y);
        worst = worst.max((got - want).abs());
        let got = nonholonomic_multiplier(&cvt, &q, &v).expect("regular")[0];
        let want = (z - y.cos() * v[0] * v[1] + x * y.sin()) / (1.0 + y.sin().powi(2));
        worst = worst.max((got - want).abs());
        let q7 = SVector::<f64, 7>::from_fn(|_, _| rng.next());
        let v7 = SVector::<f64, 7>::from_fn(|_, _| rng.next());
        let a = SVector::<f64, 7>::from_fn(|i, _| match i {
            0 => 1.0,
            4..=6 => q7[i],
            _ => 0.0,
        });
        let a_dot = SVector::<f64, 7>::from_fn(|i, _| if i >= 4 { v7[i] } else { 0.0 });
        let mut grad_u = q7;
        grad_u[4] += q7[4] * q7[5] * q7[5];
        grad_u[5] += q7[5] * q7[4] * q7[4];
        for i in 1..4 {
            grad_u[i] += q7[i] * q7[i + 3] * q7[i + 3];
            grad_u[i + 3] += q7[i + 3] * q7[i] * q7[i];
        }
        let want = (a.dot(&grad_u) - a_dot.dot(&v7)) / a.dot(&a);
        let got = nonholonomic_multiplier(&chaotic, &q7, &v7).expect("regular")[0];
        worst = worst.max((got - want).abs());
    }
    println!("max |λ − closed form| over 150 points: {worst:.1e}");
    assert!(worst < 1e-14, "{worst:e}");
}

/// The kernels against the matrix `A(q)` and central differences of it.
#[test]
fn the_kernels_are_the_derivatives_of_a() {
    let mut rng = Rng(0x5EED_0003);
    let cvt = Transmission::new();
    let (q, v, lambda) = (rng.vector(), rng.vector(), SVector::from([rng.next()]));
    let mut a = [[0.0; 1]; 3];
    cvt.a(&q, &mut a);
    let matrix = cvt.nonholonomic_matrix(&q);
    for j in 0..3 {
        assert_eq!(a[j][0], matrix[(0, j)]);
    }
    let (mut a_t_lambda_q, mut a_v_q) = ([[0.0; 3]; 3], [[0.0; 1]; 3]);
    cvt.a_t_lambda_q(&q, &lambda, &mut a_t_lambda_q);
    cvt.a_v_q(&q, &v, &mut a_v_q);
    let eps = 1e-6;
    for j in 0..3 {
        let mut dq = SVector::<f64, 3>::zeros();
        dq[j] = eps;
        let (plus, minus) = (
            cvt.nonholonomic_matrix(&(q + dq)),
            cvt.nonholonomic_matrix(&(q - dq)),
        );
        let d = (plus - minus) / (2.0 * eps);
        for i in 0..3 {
            assert!((a_t_lambda_q[j][i] - d[(0, i)] * lambda[0]).abs() < 1e-9);
        }
        assert!((a_v_q[j][0] - (d * v)[0]).abs() < 1e-9);
    }
}
