//! Errors the user can act on, each with its exit code.
use std::fmt;
use std::io;
use std::path::PathBuf;

use super::catalogue::{self, ModelEntry};

/// Exit code of a successful run.
pub const OK: u8 = 0;
/// Exit code of a command-line mistake: unknown model, scheme or parameter, a scheme
/// the model does not support, an invalid value (clap's own usage errors use it too).
pub const USAGE: u8 = 2;
/// Exit code of a numerical failure: Newton did not converge in some step, or the
/// model's initial data are inconsistent with its parameters.
pub const SOLVE: u8 = 3;
/// Exit code of an output failure: the output directory or a file in it cannot be
/// created or written.
pub const OUTPUT: u8 = 4;

/// The exit codes as `--help` shows them.
pub const EXIT_CODES: &str = "\
Exit codes:
  0  success
  2  usage: unknown model, scheme or parameter, unsupported scheme, invalid value
  3  numerical failure: Newton failed in a step (the CSV up to that step is kept),
     or inconsistent initial data
  4  output: the output directory or a file in it cannot be written";

/// Everything that ends a command early, or with a non-zero exit code.
#[derive(Debug)]
pub enum CliError {
    /// The model name is not in the catalogue.
    UnknownModel(String),
    /// The scheme name is not in the catalogue.
    UnknownScheme(String),
    /// The scheme exists, but the model's `model!` does not declare it.
    Unsupported {
        /// The model's name.
        model: &'static str,
        /// The scheme's name.
        scheme: String,
        /// The schemes the model declares, as a list for the message.
        supported: String,
    },
    /// `--param` names a parameter the model does not have.
    UnknownParameter {
        /// The model.
        model: &'static ModelEntry,
        /// The name given.
        name: String,
    },
    /// An option value outside its domain (e.g. `--t-end` shorter than `--dt`).
    InvalidValue(String),
    /// The model's initial data do not satisfy its constraints (e.g. after `--param`).
    InitialState {
        /// The model's catalogue name.
        model: &'static str,
        /// The runtime's explanation.
        message: String,
    },
    /// Newton failed in one or more runs; one message per failed run.
    Newton(Vec<String>),
    /// A file or directory could not be created or written.
    Output {
        /// What was being done, e.g. "create the output directory".
        action: &'static str,
        /// The path concerned.
        path: PathBuf,
        /// The operating system's reason.
        source: io::Error,
    },
    /// A plot could not be drawn or written.
    Plot {
        /// The plot file.
        path: PathBuf,
        /// The plotting library's reason.
        message: String,
    },
}

impl CliError {
    /// The process exit code for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            Self::UnknownModel(_)
            | Self::UnknownScheme(_)
            | Self::Unsupported { .. }
            | Self::UnknownParameter { .. }
            | Self::InvalidValue(_) => USAGE,
            Self::InitialState { .. } | Self::Newton(_) => SOLVE,
            Self::Output { .. } | Self::Plot { .. } => OUTPUT,
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnknownModel(given) => write!(
                f,
                "unknown model '{given}'; valid models: {} (see 'livens list')",
                catalogue::model_names().join(", ")
            ),
            Self::UnknownScheme(given) => write!(
                f,
                "unknown scheme '{given}'; valid schemes: {} (see 'livens list')",
                catalogue::scheme_list(&catalogue::all_schemes())
            ),
            Self::Unsupported {
                model,
                scheme,
                supported,
            } => write!(
                f,
                "model '{model}' does not support scheme '{scheme}'; it supports: {supported}"
            ),
            Self::UnknownParameter { model, name } => write!(
                f,
                "model '{}' has no parameter '{name}'; its parameters are: {}",
                model.name,
                model.parameters.join(", ")
            ),
            Self::InvalidValue(message) => f.write_str(message),
            Self::InitialState { model, message } => write!(
                f,
                "the initial state of '{model}' is not consistent: {message}; \
                 the model's initial data may not fit the parameters given with --param"
            ),
            Self::Newton(messages) => f.write_str(&messages.join("\nerror: ")),
            Self::Output {
                action,
                path,
                source,
            } => write!(
                f,
                "cannot {action} '{}': {source}; choose another directory with --out",
                path.display()
            ),
            Self::Plot { path, message } => {
                write!(f, "cannot write the plot '{}': {message}", path.display())
            }
        }
    }
}

impl std::error::Error for CliError {}
