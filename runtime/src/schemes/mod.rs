//! Scheme markers: one type per integrator, carrying its documentation and its declared
//! properties ([`SchemeInfo`](crate::SchemeInfo)); schemes with coefficients carry them
//! as values. The discrete equations themselves are emitted by `model!` from the
//! templates in `livens-macros/src/schemes/`.
mod ggl_em;
mod ggl_em_g;
mod ggl_theta;
mod ggl_vi_a;
mod ggl_vi_b;
mod ggl_vi_s;

pub use ggl_em::GglEm;
pub use ggl_em_g::GglEmG;
pub use ggl_theta::{GglThetaA, GglThetaB};
pub use ggl_vi_a::GglViA;
pub use ggl_vi_b::GglViB;
pub use ggl_vi_s::GglViS;
