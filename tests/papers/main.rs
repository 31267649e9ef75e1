//! The papers' models and two-point schemes: the GGL paper's pendulum, top and four particles, the Livens paper's quaternion and singular-mass schemes, SHAKE and RATTLE, the nonholonomic two-point schemes, symplecticity.
//!
//! One test binary per theme, each file a module: the models and schemes a theme
//! shares are compiled and linked once (`cargo test --test papers MODULE::`).
mod eml;
mod four_particles;
mod long_runs;
mod mixed_constraints;
mod nonholonomic;
mod nonholonomic_models;
mod pendulum;

/// The symplecticity check of two-form areas.
#[path = "../support"]
mod support {
    pub mod symplectic;
}
mod rattle;
mod shake;
mod symplecticity;
mod theta_family;
mod top;
mod torus;
