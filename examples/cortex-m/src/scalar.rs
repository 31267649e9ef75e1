//! The two precisions the runs are written once for.
use core::fmt::{Display, LowerExp};

/// `f32` (the Cortex-M4F's FPU) or `f64` (software floating point on this core).
pub trait Scalar: livens::Real + Into<f64> + LowerExp + Display {
    /// `f32` or `f64`.
    const NAME: &'static str;
    /// `x` rounded to this precision.
    fn of(x: f64) -> Self;
}

impl Scalar for f32 {
    const NAME: &'static str = "f32";
    fn of(x: f64) -> Self {
        x as f32
    }
}

impl Scalar for f64 {
    const NAME: &'static str = "f64";
    fn of(x: f64) -> Self {
        x
    }
}
