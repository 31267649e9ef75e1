//! The `livens` command: `list`, `run` and `compare`.
//!
//! - [`args`]: the command line (clap).
//! - [`catalogue`]: the models and schemes by name, and the dispatch to the generic
//!   integration loop.
//! - [`run`]: one model × scheme: the loop, the invariants, the CSV ([`csv`]), the
//!   progress bar ([`progress`]).
//! - [`table`], [`list`], [`plot`]: what the user sees.
//! - [`error`]: the errors and their exit codes.
use std::fs;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

mod args;
mod catalogue;
mod csv;
mod error;
mod list;
mod plot;
mod progress;
mod run;
mod table;

use args::{Cli, Command, RunOptions};
use catalogue::{find_model, find_scheme, SchemeEntry};
use error::CliError;
use run::{fmt_time, Job};

/// Parses the command line, runs the command, and maps errors to exit codes.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match execute(cli.command) {
        Ok(()) => ExitCode::from(error::OK),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

fn execute(command: Command) -> Result<(), CliError> {
    match command {
        Command::List => {
            print!("{}", list::render());
            Ok(())
        }
        Command::Run {
            model,
            scheme,
            options,
        } => integrate(&model, &[scheme], &options),
        Command::Compare {
            model,
            schemes,
            options,
        } => integrate(&model, &schemes, &options),
    }
}

/// `run` (one scheme) and `compare` (several, or every scheme the model supports if
/// `scheme_names` is empty).
fn integrate(
    model_name: &str,
    scheme_names: &[String],
    options: &RunOptions,
) -> Result<(), CliError> {
    // Every name is checked before anything is written.
    let model = find_model(model_name)?;
    let mut schemes: Vec<&'static SchemeEntry> = Vec::new();
    for name in scheme_names {
        let scheme = find_scheme(model, name)?;
        if !schemes.contains(&scheme) {
            schemes.push(scheme);
        }
    }
    if schemes.is_empty() {
        schemes.extend(&model.schemes);
    }
    for (name, _) in &options.params {
        if !model.parameters.contains(&name.as_str()) {
            return Err(CliError::UnknownParameter {
                model,
                name: name.clone(),
            });
        }
    }
    let h = options.dt.unwrap_or(model.default_step);
    let t_end = options.t_end.unwrap_or(model.default_span);
    let steps = (t_end / h).round();
    if steps < 1.0 {
        return Err(CliError::InvalidValue(format!(
            "--t-end {} is shorter than half a step of --dt {}: no step to take",
            fmt_time(t_end),
            fmt_time(h)
        )));
    }
    if steps > 1e9 {
        return Err(CliError::InvalidValue(format!(
            "--t-end {} / --dt {} is {steps:.1e} steps, more than 10⁹",
            fmt_time(t_end),
            fmt_time(h)
        )));
    }
    let steps = steps as usize;
    if let Some(note) = rounding_note(t_end, h, steps) {
        eprintln!("{note}");
    }

    fs::create_dir_all(&options.out).map_err(|source| CliError::Output {
        action: "create the output directory",
        path: options.out.clone(),
        source,
    })?;

    let mut outcomes = Vec::new();
    let mut files: Vec<PathBuf> = Vec::new();
    for &scheme in &schemes {
        let job = Job {
            model,
            scheme,
            h,
            steps,
            params: &options.params,
            csv_path: options
                .out
                .join(format!("{}-{}.csv", model.name, scheme.name)),
            csv_every: options.csv_every as usize,
        };
        let outcome = (model.simulate)(&job)?;
        files.push(outcome.csv_path.clone());
        outcomes.push(outcome);
    }

    print!("{}", table::render(model, h, steps, &outcomes));

    if let Some(extension) = options.plot.extension() {
        let names: Vec<&str> = schemes.iter().map(|s| s.name.as_str()).collect();
        let path = options
            .out
            .join(format!("{}-{}.{extension}", model.name, names.join("-")));
        let info = (model.describe)();
        let mut title = format!(
            "{} ({}), h = {}, T = {}",
            model.name,
            model.type_name,
            fmt_time(h),
            fmt_time(h * steps as f64)
        );
        for (name, value) in &options.params {
            title.push_str(&format!(", {name} = {value}"));
        }
        let figure = plot::Figure {
            title,
            t_end: h * steps as f64,
            momentum_maps: &info.momentum_maps,
            outcomes: &outcomes,
        };
        plot::write(&path, options.plot, &figure)?;
        files.push(path);
    }
    let files: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    println!("wrote {}", files.join(", "));

    let failures: Vec<String> = outcomes
        .iter()
        .filter_map(|o| {
            o.failure
                .map(|f| f.message(model.name, o.scheme, &o.csv_path))
        })
        .collect();
    if failures.is_empty() {
        Ok(())
    } else {
        Err(CliError::Newton(failures))
    }
}

/// The note printed when `t_end` is not a whole number of steps of `h`: the run takes
/// `steps = round(t_end / h)` steps and ends at `steps · h`, not at `t_end`. `None` when
/// the two agree to rounding (`--t-end 1 --dt 0.1` is ten steps, whatever `1 / 0.1` is
/// in binary).
fn rounding_note(t_end: f64, h: f64, steps: usize) -> Option<String> {
    let reached = h * steps as f64;
    if (reached - t_end).abs() <= 1e-9 * t_end {
        return None;
    }
    Some(format!(
        "note: --t-end {} is not a whole number of steps of --dt {}: taking {steps} step{}, \
         to t = {} (--t-end {} gives the same run without this note)",
        fmt_time(t_end),
        fmt_time(h),
        if steps == 1 { "" } else { "s" },
        fmt_time(reached),
        fmt_time(reached),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_end_time_between_steps_is_rounded_with_a_note() {
        let note = rounding_note(1.03, 0.05, 21).expect("1.03 is not 21 steps of 0.05");
        assert_eq!(
            note,
            "note: --t-end 1.03 is not a whole number of steps of --dt 0.05: taking 21 \
             steps, to t = 1.05 (--t-end 1.05 gives the same run without this note)"
        );
        // Whole numbers of steps, even when the division is inexact in binary.
        assert_eq!(rounding_note(1.0, 0.1, 10), None);
        assert_eq!(rounding_note(2.0, 0.002, 1000), None);
        assert_eq!(rounding_note(0.3, 0.1, 3), None);
        assert!(rounding_note(0.07, 0.05, 1)
            .unwrap()
            .contains("taking 1 step, to t = 0.05"));
    }
}
