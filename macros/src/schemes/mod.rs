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
    /// The Lobatto IIIA–IIIB partitioned Runge–Kutta method with the given number of
    /// stages (spec 002 S1), assembled at run time from the point kernels: no template.
    LobattoIIIAIIIB(usize),
}

/// Stage counts `LobattoIIIAIIIB(s)` accepts. The tableau exists for any `s ≥ 2`; the
/// bound keeps the dense `s·d × s·d` Newton matrix of a step within reason.
pub const STAGES: core::ops::RangeInclusive<usize> = 2..=10;

impl SchemeKind {
    pub const ALL: [SchemeKind; 8] = [
        SchemeKind::GglViS,
        SchemeKind::GglViA,
        SchemeKind::GglViB,
        SchemeKind::GglThetaA,
        SchemeKind::GglThetaB,
        SchemeKind::GglEm,
        SchemeKind::GglEmG,
        SchemeKind::LobattoIIIAIIIB(0),
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
            SchemeKind::LobattoIIIAIIIB(_) => "LobattoIIIAIIIB",
        }
    }

    /// The scheme named `name`, with the stage count `stages` if it takes one.
    pub fn from_name(name: &str, stages: Option<usize>) -> Result<Self, String> {
        let kind = Self::ALL
            .into_iter()
            .find(|k| k.name() == name)
            .ok_or_else(|| {
                format!(
                    "unknown scheme `{name}`; available schemes: {}",
                    Self::names().join(", ")
                )
            })?;
        match (kind, stages) {
            (SchemeKind::LobattoIIIAIIIB(_), Some(s)) if STAGES.contains(&s) => {
                Ok(SchemeKind::LobattoIIIAIIIB(s))
            }
            (SchemeKind::LobattoIIIAIIIB(_), Some(s)) => Err(format!(
                "`{name}({s})`: the stage count must be in {}..={}",
                STAGES.start(),
                STAGES.end()
            )),
            (SchemeKind::LobattoIIIAIIIB(_), None) => Err(format!(
                "`{name}` needs a stage count, e.g. `{name}(3)` for the fourth-order method"
            )),
            (_, Some(_)) => Err(format!("scheme `{name}` takes no stage count")),
            (kind, None) => Ok(kind),
        }
    }

    pub fn names() -> Vec<&'static str> {
        Self::ALL.iter().map(|k| k.name()).collect()
    }

    /// Builds the step equations of this scheme for `model`; `None` for the families
    /// assembled at run time.
    pub fn template(self, model: &mut Model) -> Option<Template> {
        let half = Coef::Const(0.5);
        Some(match self {
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
            SchemeKind::LobattoIIIAIIIB(_) => return None,
        })
    }

    /// Whether the scheme needs a constant mass matrix (every GGL scheme does).
    pub fn needs_constant_mass(self) -> bool {
        !matches!(self, SchemeKind::LobattoIIIAIIIB(_))
    }

    /// Whether the scheme supports holonomic constraints (not yet the partitioned
    /// Runge–Kutta family: its constrained forms are spec 002 S2–S4).
    pub fn supports_constraints(self) -> bool {
        !matches!(self, SchemeKind::LobattoIIIAIIIB(_))
    }

    /// Whether the scheme needs constraints of degree ≤ 2 (so that the midpoint gradient
    /// is their discrete gradient).
    pub fn needs_quadratic_constraints(self) -> bool {
        matches!(self, SchemeKind::GglEm | SchemeKind::GglEmG)
    }
}
