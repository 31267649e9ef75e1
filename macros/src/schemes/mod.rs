//! Scheme templates: each integrator written once, as a function that builds the
//! residual of its discrete equations from the model's symbolic quantities. The
//! Jacobian is derived from the residual by the symbolic engine, never hand-written.
mod algebra;
mod body_hamiltonian;
mod common;
mod constraint_gradient;
pub(crate) mod discrete_gradient;
#[cfg(test)]
mod discrete_gradient_tests;
mod emh;
mod eml;
mod galerkin;
mod ggl_em;
mod ggl_em_g;
mod ggl_theta;
mod ggl_vi_s;
mod hidden;
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

/// A scheme family as the catalogue's `families` block declares it: how a step of it is
/// built.
#[derive(Debug)]
pub struct Family {
    pub name: &'static str,
    pub kind: FamilyKind,
}

/// A template per scheme the macro differentiates, or the runtime's assembly.
#[derive(Debug)]
pub enum FamilyKind {
    /// Two-point schemes (seeds 000, 001, SHAKE, RATTLE): a template, Newton on the
    /// emitted `DiscreteSystem`.
    Symbolic,
    /// Stage families (seed 002 and on): assembled at run time from point kernels.
    Assembled(Assembled),
}

/// What `model!` needs to hand a model to an assembled family's runtime driver.
#[derive(Debug)]
pub struct Assembled {
    /// The module of `livens::families` that steps it.
    pub driver: &'static str,
    /// Its workspace type there, and the sizes it takes between the scalar and the
    /// unknowns' count (`S`, `d`, `m`, `k`).
    pub workspace: &'static str,
    pub workspace_sizes: &'static [&'static str],
    /// The state it carries (a type of `livens`), and its sizes after the scalar.
    pub state: &'static str,
    pub state_sizes: &'static [&'static str],
    /// The kernels beyond the point kernels it reads.
    pub kernels: &'static [Kernels],
    /// The rule of its Jacobian's pattern (`emit/stage_patterns.rs`), if it has one; the
    /// dense LU without.
    pub pattern: Option<StagePattern>,
    /// The multipliers a plan may pivot on in pairs of stages: the size of a stage's
    /// block (`m`, `k`) and the first stage that has them as unknowns of their own.
    pub partners: Option<(&'static str, usize)>,
}

/// Kernels a family reads besides the point kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernels {
    Holonomic,
    Nonholonomic,
    /// The Euler–Lagrange expression's third and fourth derivatives, from which a
    /// converted scheme's standard layer gets the acceleration and its derivatives.
    EulerLagrange,
    /// The holonomic constraints' third derivatives `∂(D²Φ(v, v))/∂q`, which a
    /// constrained converted scheme's standard layer reads.
    Curvature,
}

/// The pattern rules of `emit/stage_patterns.rs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StagePattern {
    Unconstrained,
    Holonomic,
    Nonholonomic,
}

impl Family {
    /// Whether the family is assembled at run time.
    pub fn assembled(&self) -> Option<&Assembled> {
        match &self.kind {
            FamilyKind::Assembled(a) => Some(a),
            FamilyKind::Symbolic => None,
        }
    }
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

/// A block of unknowns as declared: its name, its size for the model, and the integer
/// parameter it is repeated for (`V[S]`: one block per stage).
type BlockSpec = (&'static str, usize, Option<&'static str>);

/// Most parameters a scheme may declare: [`SchemeKind`] keeps its values inline, so
/// that it stays `Copy`.
const MAX_PARAMS: usize = 4;

pub use livens_catalogue::{Arg, Param, ParamKind};

/// A parameter's value as written in `schemes { … }`, before it is checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Given {
    Count(usize),
    Name(String),
}

/// What the macro reads of a catalogue entry.
#[derive(Debug)]
pub struct Entry {
    pub name: &'static str,
    /// Its family's name in [`FAMILIES`].
    family: &'static str,
    /// The parameters of a scheme written `Name(…)`, in order.
    pub params: &'static [Param],
    pub mass: Mass,
    pub constraints: ConstraintSupport,
    pub model: ModelShape,
    /// Whether its equations have the `forces` block's term.
    pub forces: bool,
    /// Whether it conserves the energy exactly (an energy–momentum scheme).
    pub energy_exact: bool,
    /// Blocks of the unknowns for `d` coordinates, `m` holonomic and `k` nonholonomic
    /// constraints: name, size, and the parameter it is repeated for.
    unknowns: fn(usize, usize, usize) -> Vec<BlockSpec>,
    template: Option<Build>,
}

/// Reads the catalogue (`livens_catalogue`) into [`CATALOGUE`] and [`CHOICES`]; the
/// fields only the runtime needs (docs, label, orders, notes) are ignored.
macro_rules! catalogue {
    (
        sizes($d:ident, $m:ident, $k:ident);
        choices { $($set:ident { $($option:ident),+ $(,)? })* }
        families { $($(#[doc = $fdoc:literal])* $family_name:ident { $($family_field:tt)* })* }
        $(
            $(#[doc = $doc:literal])*
            $name:ident $(< $($param:ident in $($lo:literal ..= $hi:literal)? $($pset:ident)?),+ >)? {
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
        /// Every set of named choices, with its options.
        pub static CHOICES: &[(&str, &[&str])] = &[$((stringify!($set), &[$(stringify!($option)),+])),*];

        /// Every family of the catalogue.
        pub static FAMILIES: &[Family] = &[$(Family {
            name: stringify!($family_name),
            kind: catalogue!(@family $($family_field)*),
        }),*];

        /// Every scheme of the catalogue, in declaration order.
        pub static CATALOGUE: &[Entry] = &[$(Entry {
            name: stringify!($name),
            family: stringify!($family),
            params: &[$($(catalogue!(@param $param [$($lo $hi)?] [$($pset)?])),+)?],
            mass: Mass::$mass,
            constraints: ConstraintSupport::$constraints,
            model: ModelShape::$model_req,
            forces: $forces,
            energy_exact: catalogue!(@exact $energy),
            unknowns: |$d, $m, $k| {
                let _ = ($d, $m, $k);
                vec![$((stringify!($block), $size, catalogue!(@per_stage $($per_stage)?))),+]
            },
            template: catalogue!(@template $($template)?),
        }),+];
    };
    (@family kind: symbolic) => { FamilyKind::Symbolic };
    (@exact Exact) => { true };
    (@exact $other:ident) => { false };
    (@family
        kind: assembled,
        driver: $driver:ident,
        workspace: $workspace:ident [$($wsize:ident),*],
        state: $state:ident [$($ssize:ident),*],
        kernels: [$($kernels:ident),*],
        pattern: $pattern:ident,
        partners: $partners:ident $(($psize:ident, $pfirst:literal))? $(,)?
    ) => {
        FamilyKind::Assembled(Assembled {
            driver: stringify!($driver),
            workspace: stringify!($workspace),
            workspace_sizes: &[$(stringify!($wsize)),*],
            state: stringify!($state),
            state_sizes: &[$(stringify!($ssize)),*],
            kernels: &[$(Kernels::$kernels),*],
            pattern: catalogue!(@pattern $pattern),
            partners: catalogue!(@partners $partners $(($psize, $pfirst))?),
        })
    };
    (@pattern none) => { None };
    (@pattern $pattern:ident) => { Some(StagePattern::$pattern) };
    (@partners none) => { None };
    (@partners multipliers($size:ident, $first:literal)) => { Some((stringify!($size), $first)) };
    (@param $param:ident [$lo:literal $hi:literal] []) => {
        Param { name: stringify!($param), kind: ParamKind::Count { lo: $lo, hi: $hi } }
    };
    (@param $param:ident [] [$set:ident]) => {
        Param { name: stringify!($param), kind: ParamKind::Choice { set: stringify!($set) } }
    };
    (@per_stage) => { None };
    (@per_stage $per_stage:ident) => { Some(stringify!($per_stage)) };
    (@template) => { None };
    (@template $template:expr) => { Some($template) };
}

livens_catalogue::with_catalogue!(catalogue);

/// A scheme as the model's `schemes { ... }` line requests it, with the span of its name
/// (where errors about it land).
pub struct SchemeRequest {
    pub kind: SchemeKind,
    pub span: proc_macro2::Span,
}

/// A scheme a model requests in `schemes { ... }`: its catalogue entry and the values of
/// its parameters.
#[derive(Clone, Copy, Debug)]
pub struct SchemeKind {
    pub entry: &'static Entry,
    args: [Option<Arg>; MAX_PARAMS],
}

impl PartialEq for SchemeKind {
    fn eq(&self, other: &Self) -> bool {
        self.entry.name == other.entry.name && self.args == other.args
    }
}

/// Why a requested scheme is refused, and which of its arguments is wrong (`None`: the
/// name, or the argument list as a whole).
#[derive(Debug, PartialEq, Eq)]
pub struct SchemeError {
    pub argument: Option<usize>,
    pub message: String,
}

impl SchemeError {
    fn at(argument: Option<usize>, message: String) -> Self {
        Self { argument, message }
    }
}

impl SchemeKind {
    /// The marker type's name in `livens::schemes`.
    pub fn name(self) -> &'static str {
        self.entry.name
    }

    /// The values of the scheme's parameters, in order.
    pub fn args(self) -> impl Iterator<Item = Arg> {
        self.args.into_iter().map_while(|a| a)
    }

    /// The stage count: the first integer parameter (`S` of the Lobatto families).
    pub fn stages(self) -> Option<usize> {
        self.args().find_map(|a| match a {
            Arg::Count(n) => Some(n),
            Arg::Choice(_) => None,
        })
    }

    /// The value of the parameter `name`.
    pub fn arg(self, name: &str) -> Option<Arg> {
        let index = self.entry.params.iter().position(|p| p.name == name)?;
        self.args().nth(index)
    }

    /// The value of the integer parameter `name`.
    fn count(self, name: &str) -> Option<usize> {
        match self.arg(name)? {
            Arg::Count(n) => Some(n),
            Arg::Choice(_) => None,
        }
    }

    /// The scheme named `name` with the parameters `given`, checked against the
    /// catalogue.
    pub fn resolve(name: &str, given: &[Given]) -> Result<Self, SchemeError> {
        resolve(CATALOGUE, CHOICES, name, given)
    }

    /// "unknown scheme": the closest name if there is one, the whole catalogue if not.
    fn unknown(catalogue: &[Entry], name: &str) -> String {
        let names: Vec<_> = catalogue.iter().map(|e| e.name).collect();
        match crate::suggest::closest(name, names.iter().copied()) {
            Some(near) => format!("unknown scheme `{name}` (did you mean `{near}`?)"),
            None => format!(
                "unknown scheme `{name}`; available schemes: {}",
                names.join(", ")
            ),
        }
    }

    /// The scheme's family.
    pub fn family(self) -> &'static Family {
        FAMILIES
            .iter()
            .find(|f| f.name == self.entry.family)
            .expect("the catalogue declares every family its schemes name")
    }

    /// The named blocks of one step's unknowns for `model`, repeated blocks numbered
    /// from 1 (`V1`, `V2`, …).
    pub fn unknowns(self, model: &Model) -> Vec<(String, usize)> {
        let (d, m, k) = (
            model.dim(),
            model.n_constraints(),
            model.n_velocity_constraints(),
        );
        let mut blocks = Vec::new();
        for (name, size, repeated) in (self.entry.unknowns)(d, m, k) {
            match repeated.and_then(|param| self.count(param)) {
                Some(s) => blocks.extend((1..=s).map(|i| (format!("{name}{i}"), size))),
                None => blocks.push((name.to_string(), size)),
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

    /// Whether the scheme needs a regular (not necessarily constant) mass matrix.
    pub fn needs_regular_mass(self) -> bool {
        self.entry.mass == Mass::Regular
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

    /// Whether the scheme conserves the energy exactly: its discrete gradients keep a
    /// momentum map only for the terms written in declared invariants
    /// (`check::momentum_drift`).
    pub fn conserves_energy(self) -> bool {
        self.entry.energy_exact
    }

    /// What the scheme needs of the model's shape: one quaternion (Null-EML rotates it,
    /// spec 001 §2.6), rigid bodies (the Hamiltonian schemes build each `M₄` from its `J₀`,
    /// §2.8–2.9), or nothing.
    pub fn model_shape(self) -> ModelShape {
        self.entry.model
    }

    /// Every scheme of the catalogue (parameters left open).
    pub fn all() -> impl Iterator<Item = SchemeKind> {
        CATALOGUE.iter().map(|entry| SchemeKind {
            entry,
            args: [None; MAX_PARAMS],
        })
    }
}

/// [`SchemeKind::resolve`] over a given catalogue (the unit tests read a small one of
/// their own, so that their messages do not change with the real catalogue's entries).
fn resolve(
    catalogue: &'static [Entry],
    choices: &[(&str, &[&'static str])],
    name: &str,
    given: &[Given],
) -> Result<SchemeKind, SchemeError> {
    let entry = catalogue
        .iter()
        .find(|e| e.name == name)
        .ok_or_else(|| SchemeError::at(None, SchemeKind::unknown(catalogue, name)))?;
    let params = entry.params;
    let options = |set: &str| -> &[&'static str] {
        choices.iter().find(|(s, _)| *s == set).map_or(&[], |c| c.1)
    };
    let written = |given: &[Given]| {
        let values: Vec<_> = given
            .iter()
            .map(|g| match g {
                Given::Count(n) => n.to_string(),
                Given::Name(s) => s.clone(),
            })
            .collect();
        format!("`{name}({})`", values.join(", "))
    };
    let example = || {
        let values: Vec<_> = params
            .iter()
            .map(|p| match p.kind {
                ParamKind::Count { lo, hi } => (lo + 1).min(hi).to_string(),
                ParamKind::Choice { set } => options(set).first().unwrap_or(&"?").to_string(),
            })
            .collect();
        format!("`{name}({})`", values.join(", "))
    };
    let single_stage_count =
        matches!(params, [p] if p.name == "S" && matches!(p.kind, ParamKind::Count { .. }));
    if params.is_empty() && !given.is_empty() {
        return Err(SchemeError::at(
            None,
            format!("scheme `{name}` takes no parameters"),
        ));
    }
    if given.is_empty() && !params.is_empty() {
        let message = if single_stage_count {
            format!("`{name}` needs a stage count, e.g. {}", example())
        } else {
            format!(
                "`{name}` needs {} parameters ({}), e.g. {}",
                params.len(),
                describe(params, &options),
                example()
            )
        };
        return Err(SchemeError::at(None, message));
    }
    if given.len() != params.len() {
        let noun = if params.len() == 1 {
            "parameter"
        } else {
            "parameters"
        };
        return Err(SchemeError::at(
            None,
            format!(
                "{}: `{name}` takes {} {noun} ({}), e.g. {}",
                written(given),
                params.len(),
                describe(params, &options),
                example()
            ),
        ));
    }
    assert!(
        params.len() <= MAX_PARAMS,
        "catalogue: more than {MAX_PARAMS} parameters"
    );
    let mut args = [None; MAX_PARAMS];
    for (i, (param, value)) in params.iter().zip(given).enumerate() {
        let arg = argument(
            param,
            value,
            &options,
            &|| written(given),
            single_stage_count,
        );
        args[i] = Some(arg.map_err(|message| SchemeError::at(Some(i), message))?);
    }
    let kind = SchemeKind { entry, args };
    admissible(kind).map_err(|(argument, rule)| {
        SchemeError::at(Some(argument), format!("{}: {rule}", written(given)))
    })?;
    Ok(kind)
}

/// Whether the parameters, each in its range, make a scheme of the family: the rule
/// broken and the argument that breaks it if not (the Galerkin family's
/// [`galerkin::admissible`]; the other families take every value in range).
fn admissible(kind: SchemeKind) -> Result<(), (usize, &'static str)> {
    match kind.entry.family {
        "Galerkin" => galerkin::admissible(kind),
        _ => Ok(()),
    }
}

/// The value `value` gives parameter `param`, or the message of its refusal;
/// `written` is the scheme as written, for messages.
fn argument<'a>(
    param: &Param,
    value: &Given,
    options: &dyn Fn(&str) -> &'a [&'static str],
    written: &dyn Fn() -> String,
    single_stage_count: bool,
) -> Result<Arg, String> {
    Ok(match (param.kind, value) {
        (ParamKind::Count { lo, hi }, Given::Count(n)) if (lo..=hi).contains(n) => Arg::Count(*n),
        (ParamKind::Count { lo, hi }, Given::Count(_)) if single_stage_count => {
            return Err(format!(
                "{}: the stage count must be in {lo}..={hi}",
                written()
            ))
        }
        (ParamKind::Count { lo, hi }, Given::Count(_)) => {
            return Err(format!(
                "{}: parameter `{}` must be in {lo}..={hi}",
                written(),
                param.name
            ))
        }
        (ParamKind::Count { lo, hi }, Given::Name(_)) => {
            return Err(format!(
                "{}: parameter `{}` is an integer in {lo}..={hi}",
                written(),
                param.name
            ))
        }
        (ParamKind::Choice { set }, Given::Name(s)) => {
            let options = options(set);
            match options.iter().find(|o| **o == s.as_str()) {
                Some(option) => Arg::Choice(option),
                None => {
                    let hint = match crate::suggest::closest(s, options.iter().copied()) {
                        Some(near) => format!("did you mean `{near}`?"),
                        None => format!("one of {}", options.join(", ")),
                    };
                    return Err(format!("{}: `{s}` is not a `{set}` ({hint})", written()));
                }
            }
        }
        (ParamKind::Choice { set }, Given::Count(_)) => {
            return Err(format!(
                "{}: parameter `{}` is a `{set}`, one of {}",
                written(),
                param.name,
                options(set).join(", ")
            ))
        }
    })
}

/// `S in 2..=10, R: Gauss or Lobatto`.
fn describe<'a>(params: &[Param], options: &dyn Fn(&str) -> &'a [&'static str]) -> String {
    let each: Vec<_> = params
        .iter()
        .map(|p| match p.kind {
            ParamKind::Count { lo, hi } => format!("{} in {lo}..={hi}", p.name),
            ParamKind::Choice { set } => format!("{}: {}", p.name, options(set).join(" or ")),
        })
        .collect();
    each.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn given(name: &str, args: &[Given]) -> Result<SchemeKind, SchemeError> {
        SchemeKind::resolve(name, args)
    }

    /// The messages read the catalogue: a near miss names the scheme meant, a far one
    /// lists every scheme (not pinned by trybuild, which would need an edit per scheme).
    #[test]
    fn unknown_names_point_to_the_catalogue() {
        let near = given("GglEM", &[]).unwrap_err();
        assert_eq!(
            near.message,
            "unknown scheme `GglEM` (did you mean `GglEm`?)"
        );
        let far = given("RungeKutta4", &[]).unwrap_err().message;
        for entry in CATALOGUE {
            assert!(far.contains(entry.name), "{far}");
        }
        assert!(given("LobattoIIIAIIIB", &[]).is_err());
        assert!(given("LobattoIIIAIIIB", &[Given::Count(1)]).is_err());
        let em = given("GglEm", &[Given::Count(3)]).unwrap_err();
        assert_eq!(em.message, "scheme `GglEm` takes no parameters");
        let s3 = given("LobattoIIIAIIIB", &[Given::Count(3)]).expect("in range");
        assert_eq!((s3.name(), s3.stages()), ("LobattoIIIAIIIB", Some(3)));
        let two = given("LobattoIIIAIIIB", &[Given::Count(3), Given::Count(2)]).unwrap_err();
        assert_eq!(
            two.message,
            "`LobattoIIIAIIIB(3, 2)`: `LobattoIIIAIIIB` takes 1 parameter (S in 2..=10), e.g. `LobattoIIIAIIIB(3)`"
        );
    }

    /// Every scheme names a family the catalogue declares, and every assembled family
    /// its sizes among the ones `model!` knows.
    #[test]
    fn families_are_declared() {
        for kind in SchemeKind::all() {
            let family = kind.family();
            if let Some(a) = family.assembled() {
                let params = kind.entry.params.iter().map(|p| p.name);
                let known: Vec<_> = ["d", "m", "k"].into_iter().chain(params).collect();
                let sizes = a.workspace_sizes.iter().chain(a.state_sizes);
                assert!(sizes.clone().all(|s| known.contains(s)), "{}", family.name);
            }
        }
    }

    /// No scheme has more parameters than [`SchemeKind`] keeps.
    #[test]
    fn the_catalogue_fits_the_kind() {
        assert!(CATALOGUE.iter().all(|e| e.params.len() <= MAX_PARAMS));
    }

    /// The reader and the checks on a catalogue with several parameters and a named
    /// choice, as `Galerkin` declares them: `Example(4, 2, Gauss)`.
    mod several_parameters {
        use super::super::*;

        catalogue! {
            sizes(d, m, k);
            choices { Rule { Gauss, Lobatto } }
            families {
                /// A family that reads the holonomic kernels, planned by its own rule.
                Prk {
                    kind: assembled,
                    driver: example,
                    workspace: ExampleWorkspace[S, d, m],
                    state: PhaseState[d],
                    kernels: [Holonomic],
                    pattern: Holonomic,
                    partners: multipliers(m, 1),
                }
            }

            /// A scheme with three parameters.
            Example<S in 1..=6, W in 1..=6, R in Rule> {
                marker: unit,
                label: "example",
                family: Prk,
                source: "none",
                equations: "(0)",
                unknowns: [V[S]: d, Lambda[W]: m, v1: d],
                order: { q: 2 * S, p: 2 * S, multipliers: Some(W) },
                energy: Oscillates,
                symplectic: true,
                requires: { mass: Regular, constraints: Holonomic, model: Any, forces: false },
                constraints_at_nodes: true,
                note: "none",
            }
        }

        fn example(args: &[Given]) -> Result<SchemeKind, SchemeError> {
            resolve(CATALOGUE, CHOICES, "Example", args)
        }
        use Given::{Count as C, Name as N};
        fn n(s: &str) -> Given {
            N(s.to_owned())
        }

        #[test]
        fn every_parameter_is_read_and_checked() {
            let kind = example(&[C(4), C(2), n("Gauss")]).expect("admissible");
            let args: Vec<Arg> = kind.args().collect();
            assert_eq!(args, [Arg::Count(4), Arg::Count(2), Arg::Choice("Gauss")]);
            assert_eq!((kind.stages(), kind.count("W")), (Some(4), Some(2)));
            let blocks: Vec<usize> = (kind.entry.unknowns)(3, 1, 0).iter().map(|b| b.1).collect();
            assert_eq!(blocks, [3, 1, 3]);
            assert_ne!(kind, example(&[C(4), C(2), n("Lobatto")]).unwrap());
            let family = FAMILIES.iter().find(|f| f.name == kind.entry.family);
            let assembled = family
                .and_then(Family::assembled)
                .expect("an assembled family");
            assert_eq!(
                (
                    assembled.workspace_sizes,
                    assembled.kernels,
                    assembled.partners
                ),
                (
                    &["S", "d", "m"][..],
                    &[Kernels::Holonomic][..],
                    Some(("m", 1))
                )
            );
            assert_eq!(assembled.pattern, Some(StagePattern::Holonomic));

            let error = |args: &[Given]| example(args).unwrap_err();
            assert_eq!(
                error(&[C(4), C(2), n("Gaus")]),
                SchemeError::at(
                    Some(2),
                    "`Example(4, 2, Gaus)`: `Gaus` is not a `Rule` (did you mean `Gauss`?)".into()
                )
            );
            assert_eq!(
                error(&[C(4), C(2), n("Radau")]).message,
                "`Example(4, 2, Radau)`: `Radau` is not a `Rule` (one of Gauss, Lobatto)"
            );
            assert_eq!(
                error(&[C(4), C(7), n("Gauss")]),
                SchemeError::at(
                    Some(1),
                    "`Example(4, 7, Gauss)`: parameter `W` must be in 1..=6".into()
                )
            );
            assert_eq!(
                error(&[n("Gauss"), C(2), n("Gauss")]).message,
                "`Example(Gauss, 2, Gauss)`: parameter `S` is an integer in 1..=6"
            );
            assert_eq!(
                error(&[C(4), C(2), C(3)]).message,
                "`Example(4, 2, 3)`: parameter `R` is a `Rule`, one of Gauss, Lobatto"
            );
            assert_eq!(
                error(&[C(4), C(2)]),
                SchemeError::at(
                    None,
                    "`Example(4, 2)`: `Example` takes 3 parameters (S in 1..=6, W in 1..=6, \
                     R: Gauss or Lobatto), e.g. `Example(2, 2, Gauss)`"
                        .into()
                )
            );
            assert_eq!(
                error(&[]).message,
                "`Example` needs 3 parameters (S in 1..=6, W in 1..=6, R: Gauss or Lobatto), \
                 e.g. `Example(2, 2, Gauss)`"
            );
        }
    }
}
