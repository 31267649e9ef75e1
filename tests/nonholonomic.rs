//! The `nonholonomic` block (spec 002 §2): constraints `Φ(q, v) = A(q)·v = 0`, checked
//! at compile time to be linear in the velocities, evaluated with their matrix
//! `A(q) = ∂Φ/∂v`. No scheme integrates them yet (`tests/ui/constraints` pins the
//! refusal); these are the models of spec 002 §5.1 and §5.2 declared without schemes.
use livens::SVector;

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
