//! Every model of the livens seed papers, declared with `model!`, with the papers'
//! parameters and consistent initial states, and a ten-link chain declared through the
//! DSL's repetition. One model per file; the doc is the physics.
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

// The generated code names the runtime through `::livens`; this crate depends on the
// runtime directly (the facade depends on this crate), so alias it.
extern crate livens_runtime as livens;

mod angle_pendulum;
mod cart_pole;
mod chain;
mod closed_loop;
mod double_pendulum;
mod double_top;
#[cfg(feature = "f64-steps")]
mod f64_steps;
mod forced_oscillator;
mod four_particles;
mod lie_group;
mod mass_spring;
mod nonholonomic;
mod pendulum;
mod planar_pendulum;
mod rigid_body;
mod sleigh;
mod spherical_pendulum;
mod spring_pendulum;
mod top;
mod torus;

pub use angle_pendulum::AnglePendulum;
pub use cart_pole::{CartPole, CartPoleConstrained};
pub use chain::Chain10;
pub use closed_loop::ClosedLoop;
pub use double_pendulum::DoublePendulum3d;
pub use double_top::DoubleTop;
#[cfg(feature = "f64-steps")]
pub use f64_steps::f64_steps;
pub use forced_oscillator::ForcedOscillator;
pub use four_particles::FourParticles;
pub use lie_group::{FreeBodySo3, TurntableBall, Unicycle};
pub use mass_spring::MassSpring;
pub use nonholonomic::{Chaotic, NonholonomicParticle, Transmission};
pub use pendulum::Pendulum3d;
pub use planar_pendulum::PlanarPendulum;
pub use rigid_body::{FreeBody, FreeBodyGeneric, HeavyTop};
pub use sleigh::ChaplyginSleigh;
pub use spherical_pendulum::SphericalPendulum;
pub use spring_pendulum::SpringPendulum;
pub use top::LagrangeTop;
pub use torus::ParticleOnTorus;
