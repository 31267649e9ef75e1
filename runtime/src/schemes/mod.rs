//! Scheme markers: one type per integrator, carrying its documentation and its declared
//! properties ([`SchemeInfo`](crate::SchemeInfo)); schemes with coefficients carry them
//! as values. The discrete equations themselves are emitted by `model!` from the
//! templates in `livens-macros/src/schemes/`.
//!
//! The GGL schemes (Kinon, Betsch, Schneider 2023; spec 000 §2), `d` coordinates and `m`
//! constraints; every one conserves the momentum maps of the model's symmetries and
//! needs a constant mass matrix. Orders and properties are measured by the tests named.
//!
//! ```text
//! scheme      eq.      unknowns (count)          order  energy        symplectic  g = 0 holds at   velocity constraint holds at
//! GglViS      (55)     q¹ p¹ v⁰ λ⁰ γ¹  (3d+2m)   1      oscillates    yes         nodes            q̄ = q⁰ + h v⁰ (nodes only for linear g)
//! GglViA      (79)     q¹ p¹ v¹ λ γ    (3d+2m)   2      oscillates    yes         midpoints        midpoints (G(q^½) v¹)
//! GglViB      (83)     q¹ p¹ v¹ λ γ    (3d+2m)   1      oscillates    yes         nodes            nodes as G v (not G M⁻¹ p)
//! GglThetaA   (76–79)  q¹ p¹ v¹ λ γ    (3d+2m)   2 at ½ oscillates    yes         q^θ              q^θ; stable only at θ = ½
//! GglThetaB   (76–82)  q¹ p¹ v¹ λ γ    (3d+2m)   1      oscillates    yes         nodes            q^θ; stable only for ϑ ≤ ½
//! GglEm       (84)     q¹ p¹ λ¹ γ¹     (2d+2m)   2      exact         no          nodes            nodes (G M⁻¹ p)
//! GglEmG      §2.7     q¹ p¹ λ¹        (2d+m)    2      exact         no          nodes            not enforced
//! ```
//!
//! Tests: `tests/pendulum.rs`, `tests/top.rs`, `tests/four_particles.rs` (conservation,
//! constraint levels, the spec's values, orders), `tests/theta_family.rs`,
//! `tests/derivatives.rs`.
mod ggl_em;
mod ggl_em_g;
mod ggl_theta;
mod ggl_vi_a;
mod ggl_vi_b;
mod ggl_vi_s;
mod lobatto_iiia_iiib;

pub use ggl_em::GglEm;
pub use ggl_em_g::GglEmG;
pub use ggl_theta::{GglThetaA, GglThetaB};
pub use ggl_vi_a::GglViA;
pub use ggl_vi_b::GglViB;
pub use ggl_vi_s::GglViS;
pub use lobatto_iiia_iiib::LobattoIIIAIIIB;
