//! A model as the command knows it, and what a run of it is asked to do.
use std::path::PathBuf;

use livens::space::Space;
use livens::{Model, MomentumMaps, Parameters};

use super::error::CliError;
use super::outcome::{Outcome, Violation};
use super::schemes::SchemeEntry;
use super::times::fmt_time;

/// One model: its names, defaults, schemes, and the monomorphised entry points.
#[derive(Debug)]
pub struct ModelEntry {
    /// The name on the command line, e.g. `top`.
    pub name: &'static str,
    /// The model type's name, e.g. `LagrangeTop` (also accepted on the command line).
    pub type_name: &'static str,
    /// The schemes the model's `model!` declares, in order.
    pub schemes: Vec<SchemeEntry>,
    /// Parameter names, for `--param`.
    pub parameters: &'static [&'static str],
    /// The paper's step size.
    pub default_step: f64,
    /// The paper's time span.
    pub default_span: f64,
    /// Sizes, momentum maps and parameter values of the default model.
    pub describe: fn() -> ModelInfo,
    /// Whether the model accepts `--param` values (`Model::check_parameters`), before
    /// anything is written; the reason if not.
    pub check_parameters: fn(&ParamValues) -> Result<(), String>,
    /// Runs `job` (whose scheme must be one of `schemes`).
    pub simulate: fn(&Job) -> Result<Outcome, CliError>,
}

/// `--param NAME=VALUE` pairs, in command-line order.
pub type ParamValues = [(String, f64)];

/// What `livens list` shows of a model.
#[derive(Debug)]
pub struct ModelInfo {
    /// Number of scalar coordinates (velocities; on a group, the algebra's dimension).
    pub coordinates: usize,
    /// Numbers that store a configuration, where it lives on a Lie group (`SO3`, `SE2`
    /// coordinates); `None` in a vector space.
    pub group_storage: Option<usize>,
    /// Number of scalar holonomic constraints.
    pub constraints: usize,
    /// Names of the momentum maps.
    pub momentum_maps: Vec<&'static str>,
    /// Names of the nonholonomic constraints `A(q)·v = 0`.
    pub nonholonomic: Vec<&'static str>,
    /// Parameter names and default values.
    pub parameters: Vec<(&'static str, f64)>,
    /// Whether the model declares generalized forces ([`Model::FORCED`]).
    pub forced: bool,
}

impl ModelInfo {
    pub fn of<Mdl, const D: usize, const M: usize, const K: usize, const Q: usize>(
        model: &Mdl,
    ) -> Self
    where
        Mdl: Model<f64, D, M, Q> + MomentumMaps<f64, D, K, Q> + Parameters<f64>,
    {
        Self {
            coordinates: D,
            group_storage: (!<Mdl::Space as Space<f64, D, Q>>::FLAT).then_some(Q),
            constraints: M,
            momentum_maps: <Mdl as MomentumMaps<f64, D, K, Q>>::NAMES.to_vec(),
            nonholonomic: Mdl::NONHOLONOMIC.to_vec(),
            parameters: Mdl::PARAMETERS
                .iter()
                .map(|&name| (name, model.parameter(name).unwrap_or(f64::NAN)))
                .collect(),
            forced: Mdl::FORCED,
        }
    }
}

/// What to run.
#[derive(Debug)]
pub struct Job<'a> {
    /// The model.
    pub model: &'static ModelEntry,
    /// The scheme.
    pub scheme: &'static SchemeEntry,
    /// Step size.
    pub h: f64,
    /// Number of steps.
    pub steps: usize,
    /// Parameters to set, by name.
    pub params: &'a [(String, f64)],
    /// Where the CSV goes.
    pub csv_path: PathBuf,
    /// Every how many steps a CSV line is written.
    pub csv_every: usize,
    /// Largest `max|g(q)|` at the nodes a run may reach and still pass its check.
    pub constraint_tolerance: f64,
}

impl ModelEntry {
    /// The message of `violation`: it names the scheme, the residual and where it was
    /// worst, and says what to try: a smaller step (the model's paper step, if the step
    /// is larger), or one of the model's schemes that hold `g = 0` at the nodes.
    pub fn violation_message(&self, violation: &Violation, scheme: &SchemeEntry, h: f64) -> String {
        let model = self;
        let why = if scheme.holds_constraints_at_nodes {
            format!("{} solves g = 0 at the nodes, so ", scheme.label)
        } else {
            format!(
                "{} holds g = 0 between the nodes, not at them, and ",
                scheme.label
            )
        };
        let smaller = if h > model.default_step {
            format!(
                "--dt {} (the model's paper step)",
                fmt_time(model.default_step)
            )
        } else {
            format!("--dt {}", fmt_time(h / 2.0))
        };
        let others: Vec<&str> = model
            .schemes
            .iter()
            .filter(|s| s.holds_constraints_at_nodes && s.name != scheme.name)
            .map(|s| s.label.as_str())
            .collect();
        let others = if others.is_empty() {
            String::new()
        } else {
            format!(
                ", or a scheme that holds g = 0 at the nodes ({})",
                others.join(", ")
            )
        };
        format!(
            "{} on {} violates the constraints at the nodes: max|g(q)| = {:.3e} at step {} \
             (t = {}), more than --constraint-tolerance {}; {why}a residual this large \
             means the step h = {} is too large for the motion: try a smaller step, e.g. \
             {smaller}{others}; the run's table and files are written as usual",
            scheme.label,
            model.name,
            violation.residual,
            violation.step,
            fmt_time(violation.t),
            fmt_time(violation.tolerance),
            fmt_time(h),
        )
    }
}
