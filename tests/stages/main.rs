//! The stage families assembled from point kernels: the Lobatto IIIA–IIIB family unconstrained, holonomic, nonholonomic, forced and on a group, and the configuration spaces they step on.
//!
//! One test binary per theme, each file a module: the models and schemes a theme
//! shares are compiled and linked once (`cargo test --test stages MODULE::`).
mod converted;
mod converted_holonomic;
mod prk;
mod sleigh;

/// Test-only spaces, the space laws, the symplecticity check and the pendulum's
/// reference solution.
#[path = "../support"]
mod support {
    pub mod circle;
    pub mod pendulum_reference;
    pub mod space_laws;
    pub mod symplectic;
}
mod forced;
mod galerkin;
mod galerkin_orders;
mod galerkin_structure;
mod holonomic_lobatto;
mod inputs;
mod lie_ball;
mod lie_dsl;
mod lie_lobatto;
mod lie_models;
mod lie_planar;
mod lie_sleigh;
mod lie_unicycle;
mod linearized;
mod linearized_eml;
mod nonholonomic_lobatto;
mod predictor;
mod spaces;
