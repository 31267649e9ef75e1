//! The models and schemes the command knows, and the dispatch from their names to the
//! generic [`Integrator`](livens::Integrator) loop in [`run`].
//!
//! Adding a model is one line of the table below; adding a scheme is its name in the
//! braces of every model whose `model!` declares it (the `schemes { … }` line there).
// Globs, so that a new model or scheme needs no import, only its line in the table.
use livens::schemes::*;
use livens::{Model, MomentumMaps, Parameters, SchemeInfo};
use livens_models::*;

use super::error::CliError;
use super::run::{self, Job, Outcome};

catalogue! {
    // name on the command line => model type { schemes its model! declares }
    "pendulum" => Pendulum3d { GglViS, GglViA, GglViB, GglEm, GglEmG },
    "top" => LagrangeTop { GglViS, GglViA, GglViB, GglEm, GglEmG },
    "four-particles" => FourParticles { GglViS, GglViA, GglViB, GglEm, GglEmG },
}

/// One scheme: its marker type's name and its [`SchemeInfo`].
#[derive(Debug, PartialEq, Eq)]
pub struct SchemeEntry {
    /// The marker type's name, e.g. `GglEm`.
    pub name: &'static str,
    /// The papers' label, e.g. `EM`.
    pub label: &'static str,
    /// Convergence order.
    pub order: u32,
    /// Conserves the energy to round-off.
    pub conserves_energy: bool,
    /// Symplectic.
    pub symplectic: bool,
}

impl SchemeEntry {
    /// The entry of marker type `S`, named `name`.
    pub const fn of<S: SchemeInfo>(name: &'static str) -> Self {
        Self {
            name,
            label: S::LABEL,
            order: S::ORDER,
            conserves_energy: S::CONSERVES_ENERGY,
            symplectic: S::SYMPLECTIC,
        }
    }

    /// `GglEm (EM)`.
    pub fn display(&self) -> String {
        format!("{} ({})", self.name, self.label)
    }
}

/// One model: its names, defaults, schemes, and the monomorphised entry points.
#[derive(Debug)]
pub struct ModelEntry {
    /// The name on the command line, e.g. `top`.
    pub name: &'static str,
    /// The model type's name, e.g. `LagrangeTop` (also accepted on the command line).
    pub type_name: &'static str,
    /// The schemes the model's `model!` declares.
    pub schemes: &'static [SchemeEntry],
    /// Parameter names, for `--param`.
    pub parameters: &'static [&'static str],
    /// The paper's step size.
    pub default_step: f64,
    /// The paper's time span.
    pub default_span: f64,
    /// Sizes, momentum maps and parameter values of the default model.
    pub describe: fn() -> ModelInfo,
    /// Runs `job` (whose scheme must be one of `schemes`).
    pub simulate: fn(&Job) -> Result<Outcome, CliError>,
}

/// What `livens list` shows of a model.
#[derive(Debug)]
pub struct ModelInfo {
    /// Number of scalar coordinates.
    pub coordinates: usize,
    /// Number of scalar holonomic constraints.
    pub constraints: usize,
    /// Names of the momentum maps.
    pub momentum_maps: Vec<&'static str>,
    /// Parameter names and default values.
    pub parameters: Vec<(&'static str, f64)>,
}

impl ModelInfo {
    fn of<Mdl, const D: usize, const M: usize, const K: usize>(model: &Mdl) -> Self
    where
        Mdl: Model<f64, D, M> + MomentumMaps<f64, D, K> + Parameters<f64>,
    {
        Self {
            coordinates: D,
            constraints: M,
            momentum_maps: <Mdl as MomentumMaps<f64, D, K>>::NAMES.to_vec(),
            parameters: Mdl::PARAMETERS
                .iter()
                .map(|&name| (name, model.parameter(name).unwrap_or(f64::NAN)))
                .collect(),
        }
    }
}

/// Expands the table into [`MODELS`]: one [`ModelEntry`] per line, whose `simulate`
/// calls [`run::simulate`] with the concrete model and scheme types, so that the sizes
/// `D`, `M`, `N`, `K` are inferred from their unique trait impls.
macro_rules! catalogue {
    ($($name:literal => $model:ident { $($scheme:ident),+ $(,)? }),+ $(,)?) => {
        /// Every model the command runs, in `livens list` order.
        pub static MODELS: &[ModelEntry] = &[$(ModelEntry {
            name: $name,
            type_name: stringify!($model),
            schemes: &[$(SchemeEntry::of::<$scheme>(stringify!($scheme))),+],
            parameters: <$model as Parameters<f64>>::PARAMETERS,
            default_step: <$model>::DEFAULT_STEP,
            default_span: <$model>::DEFAULT_SPAN,
            describe: {
                fn describe() -> ModelInfo {
                    ModelInfo::of(&<$model>::new())
                }
                describe
            },
            simulate: {
                fn simulate(job: &Job) -> Result<Outcome, CliError> {
                    let mut model = <$model>::new();
                    set_parameters(&mut model, job)?;
                    let state = model.initial_state().map_err(|e| CliError::InitialState {
                        model: job.model.name,
                        message: e.to_string(),
                    })?;
                    $(if job.scheme.name == stringify!($scheme) {
                        // Markers with run-time coefficients (θ) take their defaults.
                        return run::simulate(model, <$scheme>::default(), state, job);
                    })+
                    Err(CliError::Unsupported { model: job.model, scheme: job.scheme.name })
                }
                simulate
            },
        }),+];
    };
}
// Path-based scope, so that the table at the top can use the macro defined here.
use catalogue;

fn set_parameters<P: Parameters<f64>>(model: &mut P, job: &Job) -> Result<(), CliError> {
    for (name, value) in job.params {
        model
            .set_parameter(name, *value)
            .map_err(|_| CliError::UnknownParameter {
                model: job.model,
                name: name.clone(),
            })?;
    }
    Ok(())
}

/// Names compared without case, `-` or `_`: `GglViA`, `ggl-vi-a`, `VI-A` and `via`
/// all match.
fn normalise(name: &str) -> String {
    name.chars()
        .filter(|c| *c != '-' && *c != '_')
        .flat_map(char::to_lowercase)
        .collect()
}

/// The model called `given` (its command-line name or its type name).
pub fn find_model(given: &str) -> Result<&'static ModelEntry, CliError> {
    find_model_in(MODELS, given)
}

fn find_model_in(
    models: &'static [ModelEntry],
    given: &str,
) -> Result<&'static ModelEntry, CliError> {
    let key = normalise(given);
    models
        .iter()
        .find(|m| normalise(m.name) == key || normalise(m.type_name) == key)
        .ok_or_else(|| CliError::UnknownModel(given.to_owned()))
}

/// The scheme called `given` (its marker name or its label), checked against the
/// schemes `model` supports.
pub fn find_scheme(
    model: &'static ModelEntry,
    given: &str,
) -> Result<&'static SchemeEntry, CliError> {
    let key = normalise(given);
    let matches = |s: &&SchemeEntry| normalise(s.name) == key || normalise(s.label) == key;
    if let Some(scheme) = model.schemes.iter().find(matches) {
        return Ok(scheme);
    }
    match all_schemes().find(matches) {
        Some(scheme) => Err(CliError::Unsupported {
            model,
            scheme: scheme.name,
        }),
        None => Err(CliError::UnknownScheme(given.to_owned())),
    }
}

/// Every scheme of the catalogue, once, in order of first appearance.
pub fn all_schemes() -> impl Iterator<Item = &'static SchemeEntry> {
    MODELS
        .iter()
        .flat_map(|m| m.schemes.iter())
        .enumerate()
        .filter(|(i, s)| {
            !MODELS
                .iter()
                .flat_map(|m| m.schemes.iter())
                .take(*i)
                .any(|t| t.name == s.name)
        })
        .map(|(_, s)| s)
}

/// The command-line names of all models.
pub fn model_names() -> Vec<&'static str> {
    MODELS.iter().map(|m| m.name).collect()
}

/// `GglEm (EM), GglViA (VI-A)`.
pub fn scheme_list<'a>(schemes: impl Iterator<Item = &'a SchemeEntry>) -> String {
    schemes
        .map(SchemeEntry::display)
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_describe() -> ModelInfo {
        unreachable!()
    }

    fn no_simulate(_: &Job) -> Result<Outcome, CliError> {
        unreachable!()
    }

    /// A model that declares EM only: VI-A is known to the catalogue but unsupported.
    static EM_ONLY: ModelEntry = ModelEntry {
        name: "em-only",
        type_name: "EmOnly",
        schemes: &[SchemeEntry::of::<GglEm>("GglEm")],
        parameters: &["m"],
        default_step: 0.1,
        default_span: 1.0,
        describe: no_describe,
        simulate: no_simulate,
    };

    #[test]
    fn names_and_labels_resolve_without_case() {
        let top = find_model("top").unwrap();
        assert_eq!(top.type_name, "LagrangeTop");
        assert_eq!(find_model("lagrangetop").unwrap().name, "top");
        for given in ["GglViA", "ggl-vi-a", "VI-A", "via"] {
            assert_eq!(find_scheme(top, given).unwrap().name, "GglViA", "{given}");
        }
        assert_eq!(find_scheme(top, "em").unwrap().name, "GglEm");
    }

    #[test]
    fn unknown_names_list_the_valid_ones() {
        let e = find_model("pendulum4").unwrap_err();
        assert_eq!(e.exit_code(), super::super::error::USAGE);
        assert!(
            e.to_string()
                .contains("valid models: pendulum, top, four-particles"),
            "{e}"
        );
        let e = find_scheme(&MODELS[0], "GglXyz").unwrap_err();
        assert!(
            e.to_string()
                .contains("valid schemes: GglViS (VI-S), GglViA (VI-A), GglViB (VI-B), GglEm (EM), GglEmG (EM-G)"),
            "{e}"
        );
    }

    #[test]
    fn a_known_scheme_the_model_lacks_is_unsupported() {
        let e = find_scheme(&EM_ONLY, "VI-A").unwrap_err();
        assert!(matches!(
            e,
            CliError::Unsupported {
                scheme: "GglViA",
                ..
            }
        ));
        assert_eq!(e.exit_code(), super::super::error::USAGE);
        assert_eq!(
            e.to_string(),
            "model 'em-only' does not support scheme 'GglViA'; it supports: GglEm (EM)"
        );
        assert!(find_model_in(std::slice::from_ref(&EM_ONLY), "EmOnly").is_ok());
    }

    #[test]
    fn every_scheme_is_listed_once() {
        let names: Vec<_> = all_schemes().map(|s| s.name).collect();
        assert_eq!(names, ["GglViS", "GglViA", "GglViB", "GglEm", "GglEmG"]);
    }
}
