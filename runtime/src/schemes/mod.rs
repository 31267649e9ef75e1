//! Scheme markers: one zero-sized type per integrator, carrying its documentation and
//! its declared properties ([`SchemeInfo`](crate::SchemeInfo)). The discrete equations
//! themselves are emitted by `model!` from the templates in `livens-macros/src/schemes/`.
mod ggl_em;
mod ggl_vi_a;

pub use ggl_em::GglEm;
pub use ggl_vi_a::GglViA;
