//! The models the command knows, the schemes each declares, and the dispatch from their
//! names to the generic [`Integrator`](livens::Integrator) loop in [`run`].
//!
//! Adding a model is one line of the table below. Schemes need no line: each model's
//! list is read from its `model!` declaration ([`DeclaredSchemes`]) and every scheme of
//! the library from [`livens::schemes::CATALOGUE`].
use std::sync::LazyLock;

use livens::{
    DeclaredSchemes, FromNode, Model, MomentumMaps, NodeState, NodeValues, Parameters, SchemeInfo,
    SchemeVisitor, Step,
};
use livens_models::*;

use super::entry::{Job, ModelEntry, ModelInfo, ParamValues};
use super::error::CliError;
use super::outcome::Outcome;
use super::run;
use super::schemes::{all_schemes, scheme_list, SchemeEntry};

catalogue! {
    // name on the command line => model type
    "pendulum" => Pendulum3d,
    "top" => LagrangeTop,
    "four-particles" => FourParticles,
    "spherical-pendulum" => SphericalPendulum,
    "planar-pendulum" => PlanarPendulum,
    "double-pendulum" => DoublePendulum3d,
    "nonholonomic-particle" => NonholonomicParticle,
    "transmission" => Transmission,
    "chaotic" => Chaotic,
    "sleigh" => ChaplyginSleigh,
    "spring-pendulum" => SpringPendulum,
    "mass-spring" => MassSpring,
    "free-body" => FreeBody,
    "heavy-top" => HeavyTop,
    "closed-loop" => ClosedLoop,
    "double-top" => DoubleTop,
    "torus" => ParticleOnTorus,
    "forced-oscillator" => ForcedOscillator,
    "angle-pendulum" => AnglePendulum,
    "unicycle" => Unicycle,
    "turntable-ball" => TurntableBall,
    "free-body-so3" => FreeBodySo3,
}

/// Collects the [`SchemeEntry`] of every scheme a model declares.
struct ListSchemes(Vec<SchemeEntry>);

impl<Mdl, const D: usize, const M: usize, const Q: usize> SchemeVisitor<f64, Mdl, D, M, Q>
    for ListSchemes
{
    fn visit<S>(&mut self, _scheme: S)
    where
        S: SchemeInfo,
        Mdl: Step<f64, S>,
    {
        self.0.push(SchemeEntry::of::<S>());
    }
}

/// The schemes `Mdl` declares.
fn declared<Mdl, const D: usize, const M: usize, const Q: usize>() -> Vec<SchemeEntry>
where
    Mdl: DeclaredSchemes<f64, D, M, Q>,
{
    let mut list = ListSchemes(Vec::new());
    Mdl::visit_schemes(&mut list);
    list.0
}

/// Runs the job's scheme when the visitor reaches it.
struct Simulate<'j, Mdl, const D: usize, const M: usize, const K: usize, const Q: usize> {
    job: &'j Job<'j>,
    model: Mdl,
    node: NodeState<f64, D, M, Q>,
    outcome: Option<Result<Outcome, CliError>>,
}

impl<Mdl, const D: usize, const M: usize, const K: usize, const Q: usize>
    SchemeVisitor<f64, Mdl, D, M, Q> for Simulate<'_, Mdl, D, M, K, Q>
where
    Mdl: Model<f64, D, M, Q> + MomentumMaps<f64, D, K, Q> + Clone,
{
    fn visit<S>(&mut self, scheme: S)
    where
        S: SchemeInfo,
        Mdl: Step<f64, S>,
        <Mdl as Step<f64, S>>::State: NodeValues<f64, D, Q> + FromNode<f64, D, M, Q>,
    {
        if self.outcome.is_none() && SchemeEntry::of::<S>().name == self.job.scheme.name {
            let state = FromNode::from_node(&self.node);
            self.outcome = Some(run::simulate(self.model.clone(), scheme, state, self.job));
        }
    }
}

/// The runtime's reason an initial state failed, without its advice to library users
/// (`Consistency::Project`, starting closer to the manifold): the command's only lever
/// is `--param`, which its own message names.
fn initial_state_message(e: &livens::InitError<f64>) -> String {
    match e {
        livens::InitError::Inconsistent { position, velocity } => {
            format!("max|g(q)| = {position:?}, max|G(q) v| = {velocity:?}")
        }
        livens::InitError::ProjectionFailed {
            iterations,
            residual,
        } => format!(
            "projecting the initial positions onto g(q) = 0 did not converge in \
             {iterations} iterations (residual {residual:?})"
        ),
        other => other.to_string(),
    }
}

/// Runs `job` with `model` from `node`: visits the model's schemes, runs the one named.
fn simulate_declared<Mdl, const D: usize, const M: usize, const K: usize, const Q: usize>(
    model: Mdl,
    node: NodeState<f64, D, M, Q>,
    job: &Job,
) -> Result<Outcome, CliError>
where
    Mdl: DeclaredSchemes<f64, D, M, Q> + MomentumMaps<f64, D, K, Q> + Clone,
{
    let mut run = Simulate::<Mdl, D, M, K, Q> {
        job,
        model,
        node,
        outcome: None,
    };
    Mdl::visit_schemes(&mut run);
    run.outcome.unwrap_or_else(|| {
        Err(CliError::Unsupported {
            model: job.model.name,
            scheme: job.scheme.name.clone(),
            supported: scheme_list(&job.model.schemes),
        })
    })
}

/// Expands the table into [`MODELS`]: one [`ModelEntry`] per line, whose `simulate`
/// visits the model's declared schemes and runs [`run::simulate`] on the one named, so
/// that the sizes `D`, `M`, `K` are inferred from the model's unique trait impls.
macro_rules! catalogue {
    ($($name:literal => $model:ident),+ $(,)?) => {
        /// Every model the command runs, in `livens list` order.
        pub static MODELS: LazyLock<Vec<ModelEntry>> = LazyLock::new(|| vec![$(ModelEntry {
            name: $name,
            type_name: stringify!($model),
            schemes: declared::<$model, _, _, _>(),
            parameters: <$model as Parameters<f64>>::PARAMETERS,
            default_step: <$model>::DEFAULT_STEP,
            default_span: <$model>::DEFAULT_SPAN,
            describe: {
                fn describe() -> ModelInfo {
                    ModelInfo::of(&<$model>::new())
                }
                describe
            },
            check_parameters: {
                fn check_parameters(params: &ParamValues) -> Result<(), String> {
                    let mut model = <$model>::new();
                    for (name, value) in params {
                        model
                            .set_parameter(name, *value)
                            .map_err(|e| format!("{e} `{name}`"))?;
                    }
                    model.check_parameters().map_err(|e| e.to_string())
                }
                check_parameters
            },
            simulate: {
                // The unit tests resolve names and check lists; the runs are tested
                // through the binary (tests/command). Leaving the monomorphised runs of
                // every model and scheme out of the test build halves its cost.
                #[cfg(test)]
                fn simulate(_: &Job) -> Result<Outcome, CliError> {
                    unreachable!("the command's unit tests do not run models")
                }
                #[cfg(not(test))]
                fn simulate(job: &Job) -> Result<Outcome, CliError> {
                    let mut model = <$model>::new();
                    set_parameters(&mut model, job)?;
                    let node = model.initial_state().map_err(|e| CliError::InitialState {
                        model: job.model.name,
                        message: initial_state_message(&e),
                    })?;
                    simulate_declared(model, node, job)
                }
                simulate
            },
        }),+]);
    };
}
// Path-based scope, so that the table at the top can use the macro defined here.
use catalogue;

/// Sets the `--param NAME=VALUE` values on `model`: the one place where a run changes
/// a model's parameters. Names and values were checked before anything was written
/// (`ModelEntry::check_parameters`); the step checks the values again.
fn set_parameters<P: Parameters<f64>>(model: &mut P, job: &Job) -> Result<(), CliError> {
    for (name, value) in job.params {
        model
            .set_parameter(name, *value)
            .map_err(|_| CliError::UnknownParameter {
                model: job.model.name,
                name: name.clone(),
                parameters: job.model.parameters,
            })?;
    }
    Ok(())
}

/// Names compared without case, `-` or `_`: `GglViA`, `ggl-vi-a`, `VI-A` and `via`
/// all match.
fn normalise(name: &str) -> String {
    name.chars()
        .filter(|c| *c != '-' && *c != '_' && *c != ' ')
        .flat_map(char::to_lowercase)
        .collect()
}

/// The model called `given` (its command-line name or its type name).
pub fn find_model(given: &str) -> Result<&'static ModelEntry, CliError> {
    find_model_in(&MODELS, given)
}

fn find_model_in<'m>(models: &'m [ModelEntry], given: &str) -> Result<&'m ModelEntry, CliError> {
    let key = normalise(given);
    models
        .iter()
        .find(|m| normalise(m.name) == key || normalise(m.type_name) == key)
        .ok_or_else(|| CliError::UnknownModel {
            given: given.to_owned(),
            valid: model_names().join(", "),
        })
}

/// The scheme called `given` (its name or its label), checked against the schemes
/// `model` declares; a scheme of the catalogue the model lacks is "unsupported".
pub fn find_scheme<'m>(model: &'m ModelEntry, given: &str) -> Result<&'m SchemeEntry, CliError> {
    let key = normalise(given);
    let matches = |s: &SchemeEntry| normalise(&s.name) == key || normalise(&s.label) == key;
    if let Some(scheme) = model.schemes.iter().find(|s| matches(s)) {
        return Ok(scheme);
    }
    let base = |s: &str| normalise(s.split('(').next().unwrap_or(s));
    match all_schemes()
        .into_iter()
        .find(|s| matches(s) || base(&s.name) == base(given))
    {
        Some(scheme) => Err(CliError::Unsupported {
            model: model.name,
            // `NonholonomicLobatto(1)` for a model that declares other stage counts is
            // named as given: the model does support the family.
            scheme: if model.schemes.iter().any(|s| base(&s.name) == base(given)) {
                given.to_owned()
            } else {
                scheme.name
            },
            supported: scheme_list(&model.schemes),
        }),
        None => Err(CliError::UnknownScheme {
            given: given.to_owned(),
            valid: scheme_list(&all_schemes()),
        }),
    }
}

/// The command-line names of all models.
pub fn model_names() -> Vec<&'static str> {
    MODELS.iter().map(|m| m.name).collect()
}

#[cfg(test)]
mod tests {
    use livens::schemes::CATALOGUE;

    use super::*;

    fn no_describe() -> ModelInfo {
        unreachable!()
    }

    fn no_simulate(_: &Job) -> Result<Outcome, CliError> {
        unreachable!()
    }

    /// A model that declares EM only: VI-A is known to the catalogue but unsupported.
    fn em_only() -> ModelEntry {
        ModelEntry {
            name: "em-only",
            type_name: "EmOnly",
            schemes: vec![SchemeEntry::of::<livens::schemes::GglEm>()],
            parameters: &["m"],
            default_step: 0.1,
            default_span: 1.0,
            describe: no_describe,
            check_parameters: |_| Ok(()),
            simulate: no_simulate,
        }
    }

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
        let valid = format!("valid schemes: {}", scheme_list(&all_schemes()));
        assert!(e.to_string().contains(&valid), "{e}");
        for name in [
            "GglViS (VI-S)",
            "GglEm (EM)",
            "LobattoIIIAIIIB(s) (Lobatto IIIA-IIIB)",
        ] {
            assert!(valid.contains(name), "{valid}");
        }
    }

    #[test]
    fn initial_state_messages_carry_no_library_advice() {
        let e = livens::InitError::Inconsistent {
            position: 0.5,
            velocity: 0.0,
        };
        let m = super::initial_state_message(&e);
        assert_eq!(m, "max|g(q)| = 0.5, max|G(q) v| = 0.0");
        let e = livens::InitError::<f64>::ProjectionFailed {
            iterations: 20,
            residual: 1e-3,
        };
        assert!(!super::initial_state_message(&e).contains("start closer"));
    }

    #[test]
    fn a_known_scheme_the_model_lacks_is_unsupported() {
        let model = em_only();
        let e = find_scheme(&model, "VI-A").unwrap_err();
        assert!(matches!(&e, CliError::Unsupported { scheme, .. } if scheme == "GglViA"));
        assert_eq!(e.exit_code(), super::super::error::USAGE);
        assert_eq!(
            e.to_string(),
            "model 'em-only' does not support scheme 'GglViA'; it supports: GglEm (EM)"
        );
        // A staged scheme of the catalogue, with or without its stage count.
        for given in ["LobattoIIIAIIIB(3)", "LobattoIIIAIIIB"] {
            let e = find_scheme(&model, given).unwrap_err();
            assert!(matches!(e, CliError::Unsupported { .. }), "{given}: {e}");
        }
        assert!(find_model_in(std::slice::from_ref(&model), "EmOnly").is_ok());
    }

    #[test]
    fn the_schemes_that_hold_the_constraints_at_the_nodes_come_from_the_catalogue() {
        let at_nodes: Vec<String> = MODELS[0]
            .schemes
            .iter()
            .filter(|s| s.holds_constraints_at_nodes)
            .map(|s| s.label.clone())
            .collect();
        assert_eq!(
            at_nodes,
            ["VI-S", "VI-B", "VI-θB", "EM", "EM-G", "RATTLE"],
            "VI-A holds g = 0 at the midpoints, VI-θA at q^θ"
        );
    }

    /// The command's lists come from the models' declarations and the library's
    /// catalogue, not from a list kept here.
    #[test]
    fn every_declared_scheme_is_offered() {
        let names: Vec<_> = MODELS[0].schemes.iter().map(|s| s.name.as_str()).collect();
        // The GGL paper's schemes, in the pendulum's declaration order, and nothing the
        // catalogue does not know.
        let ggl = [
            "GglViS",
            "GglViA",
            "GglViB",
            "GglThetaA",
            "GglThetaB",
            "GglEm",
            "GglEmG",
        ];
        assert_eq!(names[..ggl.len()], ggl);
        assert!(
            names.iter().all(|n| CATALOGUE.iter().any(|e| e.name == *n)),
            "{names:?}"
        );
        let all: Vec<_> = all_schemes().into_iter().map(|s| s.name).collect();
        assert_eq!(all.len(), CATALOGUE.len());
        assert!(all.iter().any(|n| n == "LobattoIIIAIIIB(s)"), "{all:?}");
    }
}
