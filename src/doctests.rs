//! Documentation written in another crate, tested here. The `model!` reference lives
//! with the macro (`macros/src/model.md`), but its examples need this facade, and a
//! dev-dependency of the macro on it would build the runtime and nalgebra a second time
//! for the host: they run as this crate's doctests instead (the macro's crate sets
//! `doctest = false`).

#[doc = include_str!("../macros/src/model.md")]
pub struct ModelReference;
