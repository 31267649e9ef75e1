//! Scheme families: how a step of each family is solved. Two-point families whose
//! equations `model!` emits symbolically ([`ggl`]) get a driver that runs Newton on
//! the generated residual; stage families are assembled here from point kernels, each
//! its equations and block Jacobian over one shared skeleton ([`stages`]).
mod blocks;
pub mod ggl;
pub mod prk;
pub mod prk_holonomic;
pub mod prk_nonholonomic;
pub mod stages;
