//! Scheme templates: each integrator written once, as a function that builds the
//! residual of its discrete equations from the model's symbolic quantities. The
//! Jacobian is derived from the residual by the symbolic engine, never hand-written.
mod common;
mod ggl_em;
mod ggl_vi_a;

pub use common::{constant_inverse, is_constant, mass_matrix, Template};

use crate::ir::Model;

/// The schemes a model can request in `schemes { ... }`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SchemeKind {
    GglEm,
    GglViA,
}

impl SchemeKind {
    const ALL: [SchemeKind; 2] = [SchemeKind::GglEm, SchemeKind::GglViA];

    /// The marker type's name in `livens::schemes`.
    pub fn name(self) -> &'static str {
        match self {
            SchemeKind::GglEm => "GglEm",
            SchemeKind::GglViA => "GglViA",
        }
    }

    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == s)
    }

    pub fn names() -> Vec<&'static str> {
        Self::ALL.iter().map(|k| k.name()).collect()
    }

    /// Builds the step equations of this scheme for `model`.
    pub fn template(self, model: &mut Model) -> Template {
        match self {
            SchemeKind::GglEm => ggl_em::template(model),
            SchemeKind::GglViA => ggl_vi_a::template(model, 0.5),
        }
    }

    /// Whether the scheme needs a constant mass matrix (every GGL scheme does).
    pub fn needs_constant_mass(self) -> bool {
        true
    }

    /// Whether the scheme needs constraints of degree ≤ 2 (so that the midpoint gradient
    /// is their discrete gradient).
    pub fn needs_quadratic_constraints(self) -> bool {
        matches!(self, SchemeKind::GglEm)
    }
}
