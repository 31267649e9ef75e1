//! `model!` on Lie groups (`coords { g: SE2 }`, `coords { R: SO3, x: Scalar, … }`): the
//! generated left-trivialised kernels (`ℓ_ζ = Lgᵀ ∂ℓ/∂s`, `ℓ_ζζ = (∂ℓ_ζ/∂s) Lg`, the
//! constraints' `A`, `a`, `(Aᵀλ)_ζ`, `(Aη + a)_ζ`) of the catalogue's `Unicycle` and
//! `TurntableBall` and of a heavy top declared here equal the hand-written models' of
//! `lie_unicycle.rs`, `lie_ball.rs` and `lie_lobatto.rs` at random points, whose
//! kernels the Jacobian tests there check against dual numbers.
use crate::lie_ball::Ball;
use crate::lie_lobatto::{uniform, HeavyTop};
use crate::lie_unicycle::Unicycle;
use livens::prelude::*;
use livens::{NonholonomicKernels, PointKernels};
use livens_models::{TurntableBall, Unicycle as ModelUnicycle};

livens::model! {
    /// The heavy top of `lie_lobatto.rs` on SO(3): `ℓ = ½ Ωᵀ J Ω − m g (R χ)·e₃`.
    pub struct DslTop {
        params { j1 = 2.0, j2 = 3.0, j3 = 1.5, mg = 4.0 }
        coords { R: SO3 }
        kinetic = 0.5 * (j1 * R_dot.x * R_dot.x + j2 * R_dot.y * R_dot.y + j3 * R_dot.z * R_dot.z);
        potential = mg * rotate(R, vec3(0.1, 0.2, 0.5)).z;
        schemes { LobattoIIIAIIIB(3) }
    }
}

/// A point kernel writing a `D × D` matrix.
type SquareKernel<M, const D: usize, const Q: usize> =
    fn(&M, &SVector<f64, Q>, &SVector<f64, D>, &mut [[f64; D]; D]);

/// The largest difference of the point kernels of `a` and `b` at `(q, v)`.
fn point_defect<A, B, const D: usize, const Q: usize>(
    (a, b): (&A, &B),
    (q, v): (&SVector<f64, Q>, &SVector<f64, D>),
) -> f64
where
    A: PointKernels<f64, D, Q>,
    B: PointKernels<f64, D, Q>,
{
    let mut worst = largest(a.l_q(q, v).as_slice(), b.l_q(q, v).as_slice());
    worst = worst.max(largest(a.l_v(q, v).as_slice(), b.l_v(q, v).as_slice()));
    let squares: [SquareKernel<A, D, Q>; 3] = [A::l_qq, A::l_qv, A::l_vv];
    let others: [SquareKernel<B, D, Q>; 3] = [B::l_qq, B::l_qv, B::l_vv];
    for (fa, fb) in squares.iter().zip(&others) {
        let (mut x, mut y) = ([[0.0; D]; D], [[0.0; D]; D]);
        fa(a, q, v, &mut x);
        fb(b, q, v, &mut y);
        worst = worst.max(largest(x.as_flattened(), y.as_flattened()));
    }
    worst
}

/// `max |xᵢ − yᵢ|`.
fn largest(x: &[f64], y: &[f64]) -> f64 {
    x.iter().zip(y).fold(0.0, |m, (x, y)| m.max((x - y).abs()))
}

/// The largest difference of every point kernel and constraint kernel of `a` and `b` at
/// `count` random points `(q, v, λ)`.
fn kernel_defect<A, B, const D: usize, const K: usize, const Q: usize>(
    (a, b): (&A, &B),
    count: usize,
    mut point: impl FnMut() -> (SVector<f64, Q>, SVector<f64, D>, SVector<f64, K>),
) -> f64
where
    A: PointKernels<f64, D, Q> + NonholonomicKernels<f64, D, K, Q>,
    B: PointKernels<f64, D, Q> + NonholonomicKernels<f64, D, K, Q>,
{
    let mut worst: f64 = 0.0;
    for _ in 0..count {
        let (q, v, lambda) = point();
        worst = worst.max(point_defect((a, b), (&q, &v)));
        worst = worst.max(largest(a.affine(&q).as_slice(), b.affine(&q).as_slice()));
        let (mut x, mut y) = ([[0.0; K]; D], [[0.0; K]; D]);
        a.a(&q, &mut x);
        b.a(&q, &mut y);
        worst = worst.max(largest(x.as_flattened(), y.as_flattened()));
        a.a_v_q(&q, &v, &mut x);
        b.a_v_q(&q, &v, &mut y);
        worst = worst.max(largest(x.as_flattened(), y.as_flattened()));
        let (mut x, mut y) = ([[0.0; D]; D], [[0.0; D]; D]);
        a.a_t_lambda_q(&q, &lambda, &mut x);
        b.a_t_lambda_q(&q, &lambda, &mut y);
        worst = worst.max(largest(x.as_flattened(), y.as_flattened()));
    }
    worst
}

#[test]
fn generated_unicycle_kernels_are_the_hand_written_ones() {
    let mut u = uniform(5);
    let worst = kernel_defect((&ModelUnicycle::new(), &Unicycle::new(0.0)), 50, || {
        (
            SVector::from([2.0 * u(), 2.0 * u(), 4.0 * u()]),
            SVector::from_fn(|_, _| 2.0 * u()),
            SVector::from([u()]),
        )
    });
    println!("unicycle: generated kernels against hand-written: {worst:.2e}");
    assert!(worst <= 1e-14, "{worst:e}");
}

#[test]
fn generated_ball_kernels_are_the_hand_written_ones() {
    let mut u = uniform(6);
    let worst = kernel_defect((&TurntableBall::new(), &Ball::new()), 50, || {
        let quat = nalgebra::Vector4::from_fn(|_, _| u()).normalize();
        (
            SVector::from([quat[0], quat[1], quat[2], quat[3], u(), u()]),
            SVector::from_fn(|_, _| 2.0 * u()),
            SVector::from_fn(|_, _| u()),
        )
    });
    println!("ball: generated kernels against hand-written: {worst:.2e}");
    assert!(worst <= 1e-14, "{worst:e}");
}

/// On SO(3) the left generator is `½ G(q)ᵀ`: the heavy top's `ℓ_ζ = −m g χ × Γ` and
/// `ℓ_ζζ = −m g χ̂ Γ̂` at unit quaternions (off the sphere the two Lagrangians differ:
/// the generated one reads `R(q)`, which scales with `|q|²`).
#[test]
fn generated_top_kernels_are_the_hand_written_ones() {
    let (dsl, top) = (DslTop::new(), HeavyTop::new());
    let mut u = uniform(7);
    let mut worst: f64 = 0.0;
    for _ in 0..50 {
        let q = nalgebra::Vector4::from_fn(|_, _| u()).normalize();
        let v = SVector::<f64, 3>::from_fn(|_, _| 2.0 * u());
        worst = worst.max(point_defect((&dsl, &top), (&q, &v)));
    }
    println!("heavy top: generated kernels against hand-written: {worst:.2e}");
    assert!(worst <= 1e-14, "{worst:e}");
}
