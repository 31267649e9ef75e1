//! The command line, declared with clap's derive API.
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use super::error::exit_codes_help;

/// Integrate a livens model with structure-preserving schemes; print its invariants,
/// write CSV and plots.
#[derive(Debug, Parser)]
#[command(name = "livens", version, after_help = exit_codes_help())]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List the models, the schemes each supports, and their parameters.
    List,
    /// Integrate one model with one scheme.
    #[command(after_help = exit_codes_help())]
    Run {
        /// The model (see `livens list`).
        model: String,
        /// The scheme, by name or label: GglEm or EM, GglViA or VI-A, ...
        #[arg(long, short)]
        scheme: String,
        #[command(flatten)]
        options: RunOptions,
    },
    /// Integrate one model with several schemes: one table row and one plotted line
    /// per scheme.
    #[command(after_help = exit_codes_help())]
    Compare {
        /// The model (see `livens list`).
        model: String,
        /// Comma-separated schemes, by name or label (default: every scheme the model
        /// supports).
        #[arg(long, short, value_delimiter = ',')]
        schemes: Vec<String>,
        #[command(flatten)]
        options: RunOptions,
    },
}

/// Options shared by `run` and `compare`.
#[derive(Debug, Args)]
pub struct RunOptions {
    /// Step size h (default: the model's, from its paper).
    #[arg(long, value_name = "H", value_parser = positive)]
    pub dt: Option<f64>,
    /// End time T; the run takes round(T / h) steps and says so on stderr when T is not
    /// a whole number of steps (default: the model's).
    #[arg(long, value_name = "T", value_parser = positive)]
    pub t_end: Option<f64>,
    /// Set a model parameter, e.g. `--param g=1.62`; repeat for several.
    #[arg(long = "param", value_name = "NAME=VALUE", value_parser = parameter)]
    pub params: Vec<(String, f64)>,
    /// Directory for the CSV files and the plot (created if missing).
    #[arg(long, value_name = "DIR", default_value = "out")]
    pub out: PathBuf,
    /// Plot format.
    #[arg(long, value_enum, default_value_t = PlotFormat::Svg)]
    pub plot: PlotFormat,
    /// Write every K-th step to the CSV (the table and the plot use every step).
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub csv_every: u32,
    /// Largest constraint residual max|g(q)| at the nodes a run may reach and exit 0;
    /// above it the command exits with 5. The default, 0.1, is five times the largest
    /// residual of any scheme at its paper's step (VI-A on the top, 2.0e-2): schemes
    /// that hold g = 0 between the nodes (VI-A, VI-θA) are not meant to hold it at them
    /// to round-off, so this catches steps too large for the motion, not rounding. The
    /// models' constraints are dimensionless (0.1 is a 10 % violation); `inf` turns the
    /// check off.
    #[arg(long, value_name = "TOL", default_value_t = 0.1, value_parser = tolerance)]
    pub constraint_tolerance: f64,
    /// Write the CSV even when it would exceed 1 GB (the estimate is about 20 bytes per
    /// number; without --force such a run is refused before anything is written).
    #[arg(long)]
    pub force: bool,
}

/// The plot's file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PlotFormat {
    /// Scalable vector graphics.
    Svg,
    /// Portable network graphics (1200 × 820 pixels).
    Png,
    /// No plot.
    None,
}

impl PlotFormat {
    /// The file extension, if a plot is written.
    pub fn extension(self) -> Option<&'static str> {
        match self {
            Self::Svg => Some("svg"),
            Self::Png => Some("png"),
            Self::None => None,
        }
    }
}

/// A finite number greater than zero.
fn positive(s: &str) -> Result<f64, String> {
    let x: f64 = s.parse().map_err(|e| format!("{e}"))?;
    if x.is_finite() && x > 0.0 {
        Ok(x)
    } else {
        Err("must be a finite number greater than zero".to_owned())
    }
}

/// A number greater than zero, `inf` included.
fn tolerance(s: &str) -> Result<f64, String> {
    let x: f64 = s.parse().map_err(|e| format!("{e}"))?;
    if x > 0.0 {
        Ok(x)
    } else {
        Err("must be a number greater than zero, or inf".to_owned())
    }
}

/// `NAME=VALUE` with a finite value.
fn parameter(s: &str) -> Result<(String, f64), String> {
    let (name, value) = s
        .split_once('=')
        .ok_or_else(|| "expected NAME=VALUE, e.g. g=1.62".to_owned())?;
    let value: f64 = value
        .trim()
        .parse()
        .map_err(|e| format!("value of '{name}': {e}"))?;
    if !value.is_finite() {
        return Err(format!("value of '{name}' must be finite"));
    }
    Ok((name.trim().to_owned(), value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_parse() {
        let cli = Cli::try_parse_from([
            "livens",
            "compare",
            "top",
            "--schemes",
            "EM,VI-A",
            "--dt",
            "0.01",
            "--param",
            "g=1.62",
            "--plot",
            "png",
        ])
        .unwrap();
        let Command::Compare {
            model,
            schemes,
            options,
        } = cli.command
        else {
            panic!("not compare");
        };
        assert_eq!((model.as_str(), schemes.len()), ("top", 2));
        assert_eq!(options.dt, Some(0.01));
        assert_eq!(options.params, [("g".to_owned(), 1.62)]);
        assert_eq!(options.plot, PlotFormat::Png);
        assert!(Cli::try_parse_from(["livens", "run", "top", "-s", "EM", "--dt", "-1"]).is_err());
        assert!(Cli::try_parse_from(["livens", "run", "top", "-s", "EM", "--param", "g"]).is_err());
    }
}
