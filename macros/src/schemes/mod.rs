//! Scheme templates: each integrator written once, as a function that builds the
//! residual of its discrete equations from the model's symbolic quantities. The
//! Jacobian is derived from the residual by the symbolic engine, never hand-written.
mod algebra;
mod body_hamiltonian;
mod common;
mod constraint_gradient;
mod discrete_gradient;
#[cfg(test)]
mod discrete_gradient_tests;
mod emh;
mod eml;
mod ggl_em;
mod ggl_em_g;
mod ggl_theta;
mod ggl_vi_s;
mod mph;
mod mpl;
mod null_eml;
mod rattle;
mod reml;
mod shake;

pub use common::{InputSize, Template, GGL_INPUTS};

use common::{Coef, Inputs};
use ggl_theta::Constraints;

use crate::ir::Model;
use crate::quantities::Quantities;

/// How a step of a family is built: a symbolic template the macro differentiates, or
/// the runtime's assembly from the point kernels.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Family {
    /// GGL (spec 000): a template, Newton on the emitted `DiscreteSystem`.
    Ggl,
    /// Partitioned Runge–Kutta (spec 002): assembled at run time.
    Prk,
}

/// What a scheme needs of the kinetic energy (mirrors the runtime's `MassRequirement`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Mass {
    Constant,
    Regular,
    Any,
}

/// Which holonomic constraints a scheme accepts (mirrors `ConstraintSupport`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ConstraintSupport {
    Unconstrained,
    Holonomic,
    Nonholonomic,
}

/// What a scheme needs of the model's shape (mirrors `ModelRequirement`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ModelShape {
    Any,
    OneQuaternion,
    RigidBody,
}

/// A template builder: the model, its quantities and the named blocks of the unknowns
/// in, the step equations out.
pub type Build = fn(&mut Model, &Inputs) -> Template;

/// A block of unknowns as declared: its name, its size for the model, and whether there
/// is one per stage.
type BlockSpec = (&'static str, usize, bool);

/// What the macro reads of a catalogue entry.
#[derive(Debug)]
pub struct Entry {
    pub name: &'static str,
    pub family: Family,
    /// `(lo, hi)` for a scheme written `Name(s)`.
    pub stages: Option<(usize, usize)>,
    pub mass: Mass,
    pub constraints: ConstraintSupport,
    pub model: ModelShape,
    /// Whether its equations have the `forces` block's term.
    pub forces: bool,
    /// Blocks of the unknowns for `d` coordinates, `m` holonomic and `k` nonholonomic
    /// constraints: name, size, and whether there is one per stage.
    unknowns: fn(usize, usize, usize) -> Vec<BlockSpec>,
    template: Option<Build>,
}

/// Reads the catalogue into [`CATALOGUE`]; the fields only the runtime needs (docs,
/// label, orders, notes) are ignored.
macro_rules! catalogue {
    (
        sizes($d:ident, $m:ident, $k:ident);
        $(
            $(#[doc = $doc:literal])*
            $name:ident $(<$stages:ident in $lo:literal ..= $hi:literal>)? {
                marker: $marker:ident,
                label: $label:literal,
                family: $family:ident,
                source: $source:literal,
                equations: $equations:literal,
                unknowns: [$($block:ident $([$per_stage:ident])?: $size:expr),+ $(,)?],
                order: { q: $oq:expr, p: $op:expr, multipliers: $olk:ident $(($ol:expr))? $(,)? },
                energy: $energy:ident,
                symplectic: $symplectic:literal,
                requires: {
                    mass: $mass:ident,
                    constraints: $constraints:ident,
                    model: $model_req:ident,
                    forces: $forces:literal $(,)?
                },
                constraints_at_nodes: $at_nodes:literal,
                note: $note:literal,
                $(template: $template:expr,)?
            }
        )+
    ) => {
        /// Every scheme of the catalogue, in declaration order.
        pub static CATALOGUE: &[Entry] = &[$(Entry {
            name: stringify!($name),
            family: Family::$family,
            stages: catalogue!(@stages $($lo $hi)?),
            mass: Mass::$mass,
            constraints: ConstraintSupport::$constraints,
            model: ModelShape::$model_req,
            forces: $forces,
            unknowns: |$d, $m, $k| {
                let _ = ($d, $m, $k);
                vec![$((stringify!($block), $size, catalogue!(@per_stage $($per_stage)?))),+]
            },
            template: catalogue!(@template $($template)?),
        }),+];
    };
    (@stages) => { None };
    (@stages $lo:literal $hi:literal) => { Some(($lo, $hi)) };
    (@per_stage) => { false };
    (@per_stage $per_stage:ident) => { true };
    (@template) => { None };
    (@template $template:expr) => { Some($template) };
}

include!("../../../runtime/src/schemes/catalogue.rs");

/// A scheme as the model's `schemes { ... }` line requests it, with the span of its name
/// (where errors about it land).
pub struct SchemeRequest {
    pub kind: SchemeKind,
    pub span: proc_macro2::Span,
}

/// A scheme a model requests in `schemes { ... }`: its catalogue entry and, for a
/// scheme with a stage count, the count.
#[derive(Clone, Copy, Debug)]
pub struct SchemeKind {
    pub entry: &'static Entry,
    pub stages: Option<usize>,
}

impl PartialEq for SchemeKind {
    fn eq(&self, other: &Self) -> bool {
        self.entry.name == other.entry.name && self.stages == other.stages
    }
}

impl SchemeKind {
    /// The marker type's name in `livens::schemes`.
    pub fn name(self) -> &'static str {
        self.entry.name
    }

    /// The scheme named `name`, with the stage count `stages` if it takes one.
    pub fn from_name(name: &str, stages: Option<usize>) -> Result<Self, String> {
        let entry = CATALOGUE
            .iter()
            .find(|e| e.name == name)
            .ok_or_else(|| Self::unknown(name))?;
        let stages = match (entry.stages, stages) {
            (Some((lo, hi)), Some(s)) if (lo..=hi).contains(&s) => Some(s),
            (Some((lo, hi)), Some(s)) => {
                return Err(format!(
                    "`{name}({s})`: the stage count must be in {lo}..={hi}"
                ))
            }
            (Some((lo, _)), None) => {
                return Err(format!(
                    "`{name}` needs a stage count, e.g. `{name}({})`",
                    lo + 1
                ))
            }
            (None, Some(_)) => return Err(format!("scheme `{name}` takes no stage count")),
            (None, None) => None,
        };
        Ok(SchemeKind { entry, stages })
    }

    /// "unknown scheme": the closest name if there is one, the whole catalogue if not.
    fn unknown(name: &str) -> String {
        match crate::lower::names::closest(name, Self::names()) {
            Some(near) => format!("unknown scheme `{name}` (did you mean `{near}`?)"),
            None => format!(
                "unknown scheme `{name}`; available schemes: {}",
                Self::names().join(", ")
            ),
        }
    }

    pub fn names() -> Vec<&'static str> {
        CATALOGUE.iter().map(|e| e.name).collect()
    }

    pub fn family(self) -> Family {
        self.entry.family
    }

    /// The named blocks of one step's unknowns for `model`, per-stage blocks numbered
    /// from 1 (`V1`, `V2`, …).
    pub fn unknowns(self, model: &Model) -> Vec<(String, usize)> {
        let (d, m, k) = (
            model.dim(),
            model.n_constraints(),
            model.n_velocity_constraints(),
        );
        let mut blocks = Vec::new();
        for (name, size, per_stage) in (self.entry.unknowns)(d, m, k) {
            match (per_stage, self.stages) {
                (true, Some(s)) => blocks.extend((1..=s).map(|i| (format!("{name}{i}"), size))),
                _ => blocks.push((name.to_string(), size)),
            }
        }
        blocks
    }

    /// Builds the step equations of this scheme for `model`; `None` for the families
    /// assembled at run time.
    pub fn template(self, model: &mut Model, quantities: &Quantities) -> Option<Template> {
        let blocks = self.unknowns(model);
        let inputs = Inputs {
            quantities,
            blocks: &blocks,
        };
        self.entry.template.map(|build| build(model, &inputs))
    }

    /// Whether the scheme needs a constant mass matrix (every GGL scheme does).
    pub fn needs_constant_mass(self) -> bool {
        self.entry.mass == Mass::Constant
    }

    /// Whether the scheme supports holonomic constraints.
    pub fn supports_constraints(self) -> bool {
        matches!(self.entry.constraints, ConstraintSupport::Holonomic)
    }

    /// Whether the scheme integrates nonholonomic constraints.
    pub fn integrates_nonholonomic(self) -> bool {
        self.entry.constraints == ConstraintSupport::Nonholonomic
    }

    /// Whether the scheme's template adds the `forces` block's generalized forces (the
    /// Livens family's, at the midpoint in `q`, `v` and `t`, spec 001 §2.4, §3.5). The
    /// others would integrate the unforced system, so `check` refuses a forced model.
    pub fn takes_forces(self) -> bool {
        self.entry.forces
    }

    /// What the scheme needs of the model's shape: one quaternion (Null-EML rotates it,
    /// spec 001 §2.6), one rigid body (the Hamiltonian schemes build `M₄` from its `J₀`,
    /// §2.8–2.9), or nothing.
    pub fn model_shape(self) -> ModelShape {
        self.entry.model
    }

    /// Every scheme of the catalogue (stage counts left open).
    pub fn all() -> impl Iterator<Item = SchemeKind> {
        CATALOGUE.iter().map(|entry| SchemeKind {
            entry,
            stages: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The messages read the catalogue: a near miss names the scheme meant, a far one
    /// lists every scheme (not pinned by trybuild, which would need an edit per scheme).
    #[test]
    fn unknown_names_point_to_the_catalogue() {
        let near = SchemeKind::from_name("GglEM", None).unwrap_err();
        assert_eq!(near, "unknown scheme `GglEM` (did you mean `GglEm`?)");
        let far = SchemeKind::from_name("RungeKutta4", None).unwrap_err();
        for entry in CATALOGUE {
            assert!(far.contains(entry.name), "{far}");
        }
        assert!(SchemeKind::from_name("LobattoIIIAIIIB", None).is_err());
        assert!(SchemeKind::from_name("LobattoIIIAIIIB", Some(1)).is_err());
        assert!(SchemeKind::from_name("GglEm", Some(3)).is_err());
        let s3 = SchemeKind::from_name("LobattoIIIAIIIB", Some(3)).expect("in range");
        assert_eq!((s3.name(), s3.stages), ("LobattoIIIAIIIB", Some(3)));
    }
}
