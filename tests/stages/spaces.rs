//! Configuration spaces (`livens::space`): the laws of their retractions and trivialised
//! tangents at random points, with dual numbers as the oracle of every derivative map.
use crate::support::circle::Circle;
use crate::support::space_laws::check;
use livens::space::{Euclidean, Product, Se2, So3, Space};
use livens::SVector;
use num_dual::Dual64;

/// A small deterministic generator of points in `[-1, 1]`.
struct Points(u64);

impl Points {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    }
    fn vector<const N: usize>(&mut self, scale: f64) -> SVector<f64, N> {
        SVector::from_fn(|_, _| scale * self.next())
    }
    /// The laws of `Sp` at `q` and at tangent vectors drawn here (`ξ` within ±2, `δ`,
    /// `y`, `m` within ±1), to `tol`: the largest defect.
    fn laws<Sp, const D: usize, const Q: usize>(&mut self, q: &SVector<f64, Q>, tol: f64) -> f64
    where
        Sp: Space<f64, D, Q> + Space<Dual64, D, Q>,
    {
        let xi = self.vector(2.0);
        let (delta, y, m) = (self.vector(1.0), self.vector(1.0), self.vector(1.0));
        check::<Sp, D, Q>(q, &xi, &delta, &y, &m, tol)
    }
}

#[test]
fn euclidean_space_obeys_the_laws() {
    let mut points = Points(7);
    for _ in 0..100 {
        let q = points.vector(3.0);
        let worst = points.laws::<Euclidean, 4, 4>(&q, 1e-15);
        assert!(worst <= 1e-15);
    }
}

#[test]
fn circle_obeys_the_laws() {
    let mut points = Points(11);
    for _ in 0..100 {
        let angle = 3.0 * points.next();
        let z = SVector::from([angle.cos(), angle.sin()]);
        points.laws::<Circle, 1, 2>(&z, 1e-14);
    }
}

#[test]
fn rotations_obey_the_laws() {
    let mut points = Points(13);
    for _ in 0..100 {
        let q: SVector<f64, 4> = points.vector(1.0);
        points.laws::<So3, 3, 4>(&q.normalize(), 1e-13);
    }
}

#[test]
fn planar_motions_obey_the_laws() {
    let mut points = Points(17);
    for _ in 0..100 {
        // Headings over several turns: θ is stored unwrapped.
        let g = SVector::from([
            3.0 * points.next(),
            3.0 * points.next(),
            10.0 * points.next(),
        ]);
        points.laws::<Se2, 3, 3>(&g, 1e-13);
    }
}

/// SO(3) × R², the ball on a turntable's space, and SE(2) × R: block-diagonal maps
/// obey the laws because each factor does; a block written to the wrong place would not.
#[test]
fn products_obey_the_laws() {
    let mut points = Points(23);
    for _ in 0..100 {
        // A unit quaternion, then the position in the plane.
        let r = points.vector::<4>(1.0).normalize();
        let q = SVector::from([r[0], r[1], r[2], r[3], points.next(), points.next()]);
        points.laws::<Product<So3, Euclidean, 3, 4, 2, 2>, 5, 6>(&q, 1e-13);
        let g = SVector::from([
            points.next(),
            points.next(),
            5.0 * points.next(),
            points.next(),
        ]);
        points.laws::<Product<Se2, Euclidean, 3, 3, 1, 1>, 4, 4>(&g, 1e-13);
    }
}

/// SE(2)'s retraction is the Cayley map of its 3 × 3 matrices: `g · cay(ξ)` with
/// `cay(ξ) = (I − ξ̂/2)⁻¹ (I + ξ̂/2)`, computed here by a matrix inverse, independently of
/// the closed forms of `Se2`.
#[test]
fn planar_retraction_is_the_matrix_cayley_map() {
    use livens::SMatrix;
    let matrix = |g: &SVector<f64, 3>| {
        let (s, c) = g[2].sin_cos();
        SMatrix::<f64, 3, 3>::new(c, -s, g[0], s, c, g[1], 0.0, 0.0, 1.0)
    };
    let mut points = Points(19);
    for _ in 0..100 {
        let g = SVector::from([points.next(), points.next(), 5.0 * points.next()]);
        let xi: SVector<f64, 3> = points.vector(2.0);
        let hat = SMatrix::<f64, 3, 3>::new(0.0, -xi[2], xi[0], xi[2], 0.0, xi[1], 0.0, 0.0, 0.0);
        let id = SMatrix::<f64, 3, 3>::identity();
        let cay = (id - hat * 0.5).try_inverse().unwrap() * (id + hat * 0.5);
        let moved = <Se2 as Space<f64, 3, 3>>::retract(&g, &xi);
        let defect = (matrix(&moved) - matrix(&g) * cay).abs().max();
        assert!(defect <= 1e-14, "g · cay(ξ) differs by {defect:e}");
    }
}

/// The unit norm is kept by the retraction itself, to round-off, over many steps (no
/// projection of the scheme's).
#[test]
fn circle_keeps_its_norm_without_a_projection() {
    let mut points = Points(3);
    let mut z = SVector::from([1.0, 0.0]);
    let mut worst = 0.0_f64;
    for _ in 0..100_000 {
        z = <Circle as Space<f64, 1, 2>>::retract(&z, &points.vector(0.5));
        worst = worst.max((z.norm() - 1.0).abs());
    }
    assert!(worst <= 1e-14, "|z| − 1 reached {worst:e}");
}
