use livens::{Consistency, InitError, NodeState, SVector};
use livens_macros::model;
use nalgebra::ComplexField;

model! {
    /// A particle on a torus under gravity, in Cartesian coordinates: a constraint of
    /// degree 4, the test of the energy–momentum schemes' discrete gradients for
    /// non-quadratic constraints (spec 000 §2.6; spec 001 §2.1, invariant-based
    /// gradients for constraints).
    ///
    /// `L = ½ m v·v − m g x₃`. The torus of radii `R` (centre line) and `r` (tube),
    /// `(√ρ² − R)² + z² = r²`, is not polynomial; its polynomial form
    /// `(ρ² + z² + R² − r²)² − 4R² ρ² = 0` (the product of the tube's equations at `±√ρ²`)
    /// is written through the quadratic invariants `ρ² = x₁² + x₂²` and `z² = x₃²`, so
    /// that its discrete gradient lies along `∇ρ²`, `∇z²` and the rotation about e3 stays
    /// a discrete symmetry: `J₃ = (x × p)·e3` is conserved by EM, EM-G and EML. Divided
    /// by `8R²r`, `g` is about the distance from the surface.
    pub struct ParticleOnTorus {
        params {
            /// Mass (kg).
            m = 1.0,
            /// Gravitational acceleration (m/s²), along −e3.
            g = 9.81,
            /// Radius of the centre line (m).
            big_r = 2.0,
            /// Radius of the tube (m).
            small_r = 0.5,
        }
        requires { m > 0.0, small_r > 0.0, big_r > small_r }
        coords { x: Vec3 }
        invariants { rho2: x.x * x.x + x.y * x.y, z2: x.z * x.z }
        kinetic = 0.5 * m * dot(x_dot, x_dot);
        potential = m * g * x.z;
        holonomic {
            torus: ((rho2 + z2 + big_r * big_r - small_r * small_r).powi(2)
                - 4.0 * big_r * big_r * rho2) / (8.0 * big_r * big_r * small_r),
        }
        momentum { j3: rotation(e3) }
        schemes { GglEm, GglEmG, Eml, Rattle }
    }
}

impl ParticleOnTorus<f64> {
    /// About 60 steps per revolution about the tube at the initial speed.
    pub const DEFAULT_STEP: f64 = 0.01;
    /// A few revolutions about the tube and part of one about e3.
    pub const DEFAULT_SPAN: f64 = 5.0;

    /// On the outer upper side of the tube (tube angle 0.6 rad above the equator, in the
    /// x₁–x₃ plane), moving along e2 (azimuthally, `J₃ ≠ 0`) and up the tube
    /// (meridionally).
    pub fn initial_positions_velocities() -> (SVector<f64, 3>, SVector<f64, 3>) {
        let (big_r, small_r, phi) = (2.0, 0.5, 0.6);
        let (s, c) = (ComplexField::sin(phi), ComplexField::cos(phi));
        let q = SVector::from([big_r + small_r * c, 0.0, small_r * s]);
        // azimuthal 1.5 e2, meridional 2 (−sin φ, 0, cos φ)
        let v = SVector::from([-2.0 * s, 1.5, 2.0 * c]);
        (q, v)
    }

    /// The initial state, checked (not projected) against both constraint levels.
    pub fn initial_state(&self) -> Result<NodeState<f64, 3, 1>, InitError<f64>> {
        let (q, v) = Self::initial_positions_velocities();
        NodeState::consistent(self, q, v, Consistency::Reject { tolerance: 1e-14 })
    }
}
