//! Scheme templates: each integrator written once, as a function that builds the
//! residual of its discrete equations from the model's symbolic quantities. The
//! Jacobian is derived from the residual by the symbolic engine, never hand-written.
mod common;
mod discrete_gradient;
mod ggl_em;
mod ggl_em_g;
mod ggl_theta;
mod ggl_vi_s;

pub use common::{constant_inverse, is_constant, mass_matrix, Template};

use common::Coef;
use ggl_theta::Constraints;

use crate::ir::Model;

/// The schemes a model can request in `schemes { ... }`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SchemeKind {
    GglViS,
    GglViA,
    GglViB,
    GglThetaA,
    GglThetaB,
    GglEm,
    GglEmG,
}

impl SchemeKind {
    const ALL: [SchemeKind; 7] = [
        SchemeKind::GglViS,
        SchemeKind::GglViA,
        SchemeKind::GglViB,
        SchemeKind::GglThetaA,
        SchemeKind::GglThetaB,
        SchemeKind::GglEm,
        SchemeKind::GglEmG,
    ];

    /// The marker type's name in `livens::schemes`.
    pub fn name(self) -> &'static str {
        match self {
            SchemeKind::GglViS => "GglViS",
            SchemeKind::GglViA => "GglViA",
            SchemeKind::GglViB => "GglViB",
            SchemeKind::GglThetaA => "GglThetaA",
            SchemeKind::GglThetaB => "GglThetaB",
            SchemeKind::GglEm => "GglEm",
            SchemeKind::GglEmG => "GglEmG",
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
        let half = Coef::Const(0.5);
        match self {
            SchemeKind::GglViS => ggl_vi_s::template(model),
            SchemeKind::GglViA => ggl_theta::template(model, half, Constraints::Intermediate),
            SchemeKind::GglViB => {
                ggl_theta::template(model, Coef::Const(1.0), Constraints::Trapezoidal(half))
            }
            SchemeKind::GglThetaA => {
                ggl_theta::template(model, Coef::Field("theta"), Constraints::Intermediate)
            }
            SchemeKind::GglThetaB => ggl_theta::template(
                model,
                Coef::Field("theta"),
                Constraints::Trapezoidal(Coef::Field("vartheta")),
            ),
            SchemeKind::GglEm => ggl_em::template(model),
            SchemeKind::GglEmG => ggl_em_g::template(model),
        }
    }

    /// Whether the scheme needs a constant mass matrix (every GGL scheme does).
    pub fn needs_constant_mass(self) -> bool {
        true
    }

    /// Whether the scheme needs constraints of degree ≤ 2 (so that the midpoint gradient
    /// is their discrete gradient).
    pub fn needs_quadratic_constraints(self) -> bool {
        matches!(self, SchemeKind::GglEm | SchemeKind::GglEmG)
    }
}
