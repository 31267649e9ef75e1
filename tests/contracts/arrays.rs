//! Repetition in the DSL: coordinate arrays (`r: [Vec3; N]`, `theta: [Scalar; N]`),
//! indexed sums (`sum(i in 0..N, ...)`) and constraint families
//! (`link: for i in 1..N { ... }`), each checked against the same model written out by
//! hand and against the formulas; the ten-link chain of `livens-models` stepped by EM.
use livens::prelude::*;
use livens_models::Chain10;

livens::model! {
    /// A three-link chain through the DSL's repetition.
    pub struct Chain3 {
        params { m = 1.3, l = 0.8, g = 9.81 }
        coords { r: [Vec3; 3] }
        kinetic = sum(i in 0..3, 0.5 * m * dot(r_dot[i], r_dot[i]));
        potential = sum(i in 0..3, m * g * r[i].z);
        holonomic {
            pivot: 0.5 * (dot(r[0], r[0]) / (l * l) - 1.0),
            link: for i in 1..3 { 0.5 * (norm_squared(r[i] - r[i - 1]) / (l * l) - 1.0) },
        }
        momentum { jz: rotation(e3) }
        schemes { GglEm }
    }
}

livens::model! {
    /// The same chain written out, one coordinate per particle.
    pub struct Chain3Unrolled {
        params { m = 1.3, l = 0.8, g = 9.81 }
        coords { a: Vec3, b: Vec3, c: Vec3 }
        kinetic = 0.5 * m * dot(a_dot, a_dot) + 0.5 * m * dot(b_dot, b_dot)
            + 0.5 * m * dot(c_dot, c_dot);
        potential = m * g * a.z + m * g * b.z + m * g * c.z;
        holonomic {
            pivot: 0.5 * (dot(a, a) / (l * l) - 1.0),
            link1: 0.5 * (norm_squared(b - a) / (l * l) - 1.0),
            link2: 0.5 * (norm_squared(c - b) / (l * l) - 1.0),
        }
        momentum { jz: rotation(e3) }
        schemes { GglEm }
    }
}

livens::model! {
    /// Scalar arrays, nested sums over pairs (`j in i + 1..5`, empty at `i = 4`), an
    /// index used as a number, `%` (a ring), `..=`, and a vector-valued sum.
    pub struct Ring {
        params { k = 2.0 }
        coords { theta: [Scalar; 5], x: [Vec3; 2] }
        let centre = sum(i in 0..2, 0.5 * x[i]);
        kinetic = sum(i in 0..=4, 0.5 * (i + 1) * theta_dot[i].powi(2))
            + sum(i in 0..2, 0.5 * dot(x_dot[i], x_dot[i]));
        potential = sum(i in 0..5, 0.5 * k * (theta[(i + 1) % 5] - theta[i]).powi(2))
            + sum(i in 0..5, sum(j in i + 1..5, 0.1 * theta[i] * theta[j]))
            + norm_squared(centre) + x[1][2];
        holonomic {
            grid: for i in 0..2 { for j in 0..2 { x[i][j] - 0.1 * (i - j) } },
            tie: for i in 1..2 { vec3(theta[i], theta[i + 1] - x[i].z, theta[i + 2]) },
        }
    }
}

/// SplitMix64 to uniform numbers in [-1, 1).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }

    fn vector<const D: usize>(&mut self) -> SVector<f64, D> {
        SVector::from_fn(|_, _| self.next())
    }
}

#[test]
fn chain_names() {
    assert_eq!(
        <Chain3 as Model<f64, 9, 3>>::COORDINATES,
        [
            "r[0].x", "r[0].y", "r[0].z", "r[1].x", "r[1].y", "r[1].z", "r[2].x", "r[2].y",
            "r[2].z"
        ]
    );
    assert_eq!(
        <Chain3 as Model<f64, 9, 3>>::CONSTRAINTS,
        ["pivot", "link[1]", "link[2]"]
    );
    assert_eq!(<Chain3 as MomentumMaps<f64, 9, 1>>::NAMES, ["jz"]);
    assert_eq!(<Chain10 as Model<f64, 30, 10>>::COORDINATES[29], "r[9].z");
    assert_eq!(
        <Chain10 as Model<f64, 30, 10>>::CONSTRAINTS,
        [
            "pivot", "link[1]", "link[2]", "link[3]", "link[4]", "link[5]", "link[6]", "link[7]",
            "link[8]", "link[9]"
        ]
    );
}

/// The array model equals the model written out, and both equal the formulas, at
/// random points: L, ∂L/∂q, M, g, G, the curvature term and J.
#[test]
fn chain_matches_the_unrolled_model_and_the_formulas() {
    let (arrays, unrolled) = (Chain3::new(), Chain3Unrolled::new());
    let (m, l, g) = (1.3, 0.8, 9.81);
    let mut rng = Rng(7);
    for _ in 0..100 {
        let (q, v, p) = (rng.vector::<9>(), rng.vector::<9>(), rng.vector::<9>());
        let r = |k: usize| q.fixed_rows::<3>(3 * k).into_owned();
        let lag = (0..3)
            .map(|k| 0.5 * m * v.fixed_rows::<3>(3 * k).norm_squared() - m * g * r(k)[2])
            .sum::<f64>();
        let constraints = [
            0.5 * (r(0).norm_squared() / (l * l) - 1.0),
            0.5 * ((r(1) - r(0)).norm_squared() / (l * l) - 1.0),
            0.5 * ((r(2) - r(1)).norm_squared() / (l * l) - 1.0),
        ];
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-14 * (1.0 + b.abs());
        assert!(close(arrays.lagrangian(&q, &v), lag));
        assert!(close(unrolled.lagrangian(&q, &v), lag));
        for (k, c) in constraints.iter().enumerate() {
            assert!(close(arrays.constraints(&q)[k], *c));
            assert!(close(unrolled.constraints(&q)[k], *c));
        }
        let same = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(x, y)| close(*x, *y));
        assert!(same(
            arrays.dl_dq(&q, &v).as_slice(),
            unrolled.dl_dq(&q, &v).as_slice()
        ));
        assert!(same(
            arrays.mass_matrix(&q, &v).as_slice(),
            unrolled.mass_matrix(&q, &v).as_slice()
        ));
        assert!(same(
            arrays.constraint_jacobian(&q).as_slice(),
            unrolled.constraint_jacobian(&q).as_slice()
        ));
        assert!(same(
            arrays.constraint_curvature(&q, &v).as_slice(),
            unrolled.constraint_curvature(&q, &v).as_slice()
        ));
        let jz: f64 = (0..3)
            .map(|k| r(k)[0] * p[3 * k + 1] - r(k)[1] * p[3 * k])
            .sum();
        assert!(close(arrays.momentum_maps(&q, &p)[0], jz));
        assert!(close(unrolled.momentum_maps(&q, &p)[0], jz));
    }
}

/// `Chain10` (written with `k = 1 / (2 l²)`) against its formulas at random points.
#[test]
fn chain10_matches_the_formulas() {
    let model = Chain10 {
        m: 1.7,
        l: 0.6,
        g: 9.81,
    };
    let (m, l, g) = (1.7, 0.6, 9.81);
    let mut rng = Rng(3);
    for _ in 0..50 {
        let (q, v) = (rng.vector::<30>(), rng.vector::<30>());
        let r = |k: usize| q.fixed_rows::<3>(3 * k).into_owned();
        let lag = (0..10)
            .map(|k| 0.5 * m * v.fixed_rows::<3>(3 * k).norm_squared() - m * g * r(k)[2])
            .sum::<f64>();
        assert!((model.lagrangian(&q, &v) - lag).abs() <= 1e-14 * lag.abs().max(1.0));
        let c = model.constraints(&q);
        assert!((c[0] - 0.5 * (r(0).norm_squared() / (l * l) - 1.0)).abs() <= 1e-14);
        for k in 1..10 {
            let link = 0.5 * ((r(k) - r(k - 1)).norm_squared() / (l * l) - 1.0);
            assert!(
                (c[k] - link).abs() <= 1e-14 * link.abs().max(1.0),
                "link[{k}]"
            );
        }
    }
}

#[test]
fn scalar_arrays_nested_sums_and_families() {
    assert_eq!(
        <Ring as Model<f64, 11, 7>>::COORDINATES,
        [
            "theta[0]", "theta[1]", "theta[2]", "theta[3]", "theta[4]", "x[0].x", "x[0].y",
            "x[0].z", "x[1].x", "x[1].y", "x[1].z"
        ]
    );
    assert_eq!(
        <Ring as Model<f64, 11, 7>>::CONSTRAINTS,
        [
            "grid[0][0]",
            "grid[0][1]",
            "grid[1][0]",
            "grid[1][1]",
            "tie[1].x",
            "tie[1].y",
            "tie[1].z"
        ]
    );
    let model = Ring::new();
    let mut rng = Rng(11);
    for _ in 0..20 {
        let (q, v) = (rng.vector::<11>(), rng.vector::<11>());
        let (th, x0, x1) = (
            q.fixed_rows::<5>(0).into_owned(),
            q.fixed_rows::<3>(5).into_owned(),
            q.fixed_rows::<3>(8).into_owned(),
        );
        let kin: f64 = (0..5)
            .map(|i| 0.5 * (i + 1) as f64 * v[i] * v[i])
            .sum::<f64>()
            + 0.5 * v.fixed_rows::<6>(5).norm_squared();
        let mut pot = 0.0;
        for i in 0..5 {
            pot += 0.5 * 2.0 * (th[(i + 1) % 5] - th[i]).powi(2);
            for j in i + 1..5 {
                pot += 0.1 * th[i] * th[j];
            }
        }
        pot += (0.5 * (x0 + x1)).norm_squared() + x1[2];
        let lag = model.lagrangian(&q, &v);
        assert!((lag - (kin - pot)).abs() < 1e-13, "{lag} vs {}", kin - pot);
        let c = model.constraints(&q);
        let expected = [
            x0[0],
            x0[1] + 0.1,
            x1[0] - 0.1,
            x1[1],
            th[1],
            th[2] - x1[2],
            th[3],
        ];
        for (a, b) in c.iter().zip(expected) {
            assert!((a - b).abs() < 1e-15, "{c} vs {expected:?}");
        }
    }
}

/// The ten-link chain of `livens-models`, falling from the horizontal: EM keeps the
/// energy and the constraints at the nodes, and J₃ (zero here) stays zero.
#[test]
fn chain10_em_conserves_energy_and_constraints() {
    let model = Chain10::new();
    let state = model
        .initial_state()
        .expect("the initial state is consistent");
    let mut sim = Integrator::new(model, GglEm, 0.01, state);
    let e0 = Diagnostics::of(sim.model(), sim.state()).hamiltonian;
    let (mut worst_e, mut worst_g, mut worst_gv) = (0.0f64, 0.0f64, 0.0f64);
    for _ in 0..200 {
        sim.step().expect("Newton converges");
        let d = Diagnostics::of(sim.model(), sim.state());
        worst_e = worst_e.max((d.hamiltonian - e0).abs());
        worst_g = worst_g.max(d.position_residual);
        worst_gv = worst_gv.max(d.velocity_residual);
    }
    // H⁰ = 0 (at rest on the line z = 0): relative to the largest kinetic energy
    // reached instead, which the potential's range bounds.
    let q = sim.state().positions();
    let drop: f64 = (0..10).map(|k| -9.81 * q[3 * k + 2]).sum();
    assert!(drop > 10.0, "the chain falls ({drop})");
    assert!(
        worst_e <= 1e-10 * drop,
        "energy drift {worst_e:e} against a kinetic energy of {drop}"
    );
    assert!(worst_g <= 1e-10, "max|g| = {worst_g:e}");
    assert!(worst_gv <= 1e-10, "max|G M⁻¹ p| = {worst_gv:e}");
    let j = sim.model().momentum_maps(q, sim.state().momenta())[0];
    assert!(j.abs() < 1e-12, "J₃ = {j:e}");
}
