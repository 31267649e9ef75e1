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
mod entry;
mod error;
mod interrupt;
mod list;
mod outcome;
mod plot;
mod progress;
mod run;
mod schemes;
mod table;
mod times;

use args::{Cli, Command, RunOptions};
use catalogue::{find_model, find_scheme};
use entry::{Job, ModelInfo};
use error::CliError;
use schemes::SchemeEntry;
use times::fmt_time;

/// Parses the command line, runs the command, and maps errors to exit codes.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    interrupt::install();
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
                model: model.name,
                name: name.clone(),
                parameters: model.parameters,
            });
        }
    }
    // Values the model refuses (its `requires` block: a negative mass, an inertia that
    // violates the triangle inequality) are usage errors, found before anything is
    // written.
    (model.check_parameters)(&options.params).map_err(|reason| {
        let given: Vec<String> = options
            .params
            .iter()
            .map(|(n, v)| format!("{n}={v}"))
            .collect();
        CliError::InvalidValue(format!(
            "{} refuses --param {}: {reason}",
            model.name,
            given.join(" --param ")
        ))
    })?;
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
    let info = (model.describe)();
    let columns = csv_columns(&info);
    if !options.force {
        check_csv_size(columns, steps, options.csv_every as usize, schemes.len())?;
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
            constraint_tolerance: options.constraint_tolerance,
        };
        let outcome = (model.simulate)(&job)?;
        files.push(outcome.csv_path.clone());
        outcomes.push(outcome);
        if interrupt::requested() {
            break;
        }
    }

    print!("{}", table::render(model, h, steps, &outcomes));

    if let Some(extension) = options.plot.extension() {
        // The schemes that ran (Ctrl-C skips the rest).
        let names: Vec<&str> = outcomes.iter().map(|o| o.scheme.name.as_str()).collect();
        let path = options
            .out
            .join(format!("{}-{}.{extension}", model.name, names.join("-")));
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
        // An interrupted run's time axis ends where the runs got to, not at T.
        let mut t_end = h * steps as f64;
        if outcomes.iter().any(|o| o.interrupted) {
            let reached = outcomes.iter().map(|o| o.summary.steps).max().unwrap_or(0);
            t_end = h * reached.max(1) as f64;
            title.push_str(&format!(", interrupted at t = {}", fmt_time(t_end)));
        }
        let figure = plot::Figure {
            title,
            t_end,
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
    let violations: Vec<String> = outcomes
        .iter()
        .filter_map(|o| {
            o.violation
                .map(|v| model.violation_message(&v, o.scheme, h))
        })
        .collect();
    // Ctrl-C's code wins, then a failed step's; every message is shown.
    if let Some(o) = outcomes.iter().find(|o| o.interrupted) {
        let skipped: Vec<&str> = schemes[outcomes.len()..]
            .iter()
            .map(|s| s.label.as_str())
            .collect();
        let mut message = format!(
            "interrupted (Ctrl-C) at t = {} after {} of {steps} steps of {} on {}; the CSV up \
             to t = {} is in {}, and the table and the plot show the partial run",
            fmt_time(h * o.summary.steps as f64),
            o.summary.steps,
            o.scheme.label,
            model.name,
            fmt_time(h * o.summary.steps as f64),
            o.csv_path.display()
        );
        if !skipped.is_empty() {
            message.push_str(&format!("; not run: {}", skipped.join(", ")));
        }
        Err(CliError::Interrupted(
            [vec![message], failures, violations].concat(),
        ))
    } else if !failures.is_empty() {
        Err(CliError::Newton([failures, violations].concat()))
    } else if !violations.is_empty() {
        Err(CliError::Check(violations))
    } else {
        Ok(())
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

/// Most bytes the CSV files of one command may take without `--force`: 1 GB.
pub const CSV_LIMIT: u64 = 1_000_000_000;
/// Bytes per number in the CSV, comma included, for the size estimate: the shortest
/// round-trip text of an `f64` with a sign and an exponent is up to 24 characters,
/// measured files of every model × scheme average 17.3 to 20.2.
const CSV_BYTES_PER_NUMBER: u64 = 20;

/// The CSV's columns for a model: `t`, `q`, `v`, `p`, two multiplier blocks (at most;
/// the state layout decides), three energies, the momentum maps and their drifts, three
/// residuals and Newton's two figures.
fn csv_columns(info: &ModelInfo) -> u64 {
    let (d, m, k) = (
        info.coordinates as u64,
        info.constraints as u64,
        info.momentum_maps.len() as u64,
    );
    let q = info.group_storage.map_or(d, |q| q as u64);
    1 + q + 2 * d + 2 * m + 3 + 2 * k + 5
}

/// Lines of numbers in a CSV of `steps` steps written every `every` steps: the initial
/// state, every `every`-th step, and the last step.
fn csv_lines(steps: usize, every: usize) -> u64 {
    let (steps, every) = (steps as u64, every as u64);
    steps / every + 1 + u64::from(steps % every != 0)
}

/// The estimated size of the CSV files in bytes.
fn csv_size(columns: u64, steps: usize, every: usize, files: usize) -> u64 {
    columns * CSV_BYTES_PER_NUMBER * csv_lines(steps, every) * files as u64
}

/// `88 GB`, `1.3 GB`, `420 MB`, `12 kB` (decimal units).
fn fmt_bytes(bytes: u64) -> String {
    let x = bytes as f64;
    let (value, unit) = match x {
        _ if x >= 1e9 => (x / 1e9, "GB"),
        _ if x >= 1e6 => (x / 1e6, "MB"),
        _ if x >= 1e3 => (x / 1e3, "kB"),
        _ => return format!("{bytes} bytes"),
    };
    if value < 10.0 {
        format!("{value:.1} {unit}").replace(".0 ", " ")
    } else {
        format!("{value:.0} {unit}")
    }
}

/// Refuses a run whose CSV files would exceed [`CSV_LIMIT`], before anything is
/// written, with the estimate and the ways out.
fn check_csv_size(columns: u64, steps: usize, every: usize, files: usize) -> Result<(), CliError> {
    let size = csv_size(columns, steps, every, files);
    if size <= CSV_LIMIT {
        return Ok(());
    }
    // The smallest --csv-every that fits (the size falls like 1 / K).
    let mut k = every.max(size.div_ceil(CSV_LIMIT) as usize * every);
    while k > 1 && csv_size(columns, steps, k - 1, files) <= CSV_LIMIT {
        k -= 1;
    }
    while csv_size(columns, steps, k, files) > CSV_LIMIT && k < steps {
        k += 1;
    }
    let fits = csv_size(columns, steps, k, files) <= CSV_LIMIT;
    let files_text = if files == 1 {
        String::new()
    } else {
        format!(" in {files} files")
    };
    let every_text = if fits {
        format!("write every K-th step with --csv-every {k} or more, ")
    } else {
        String::new()
    };
    Err(CliError::CsvTooLarge(format!(
        "the CSV would take about {}{files_text} ({} lines of {} numbers, about {} bytes \
         each), more than the limit of {}; {every_text}take a larger --dt or a shorter \
         --t-end, or pass --force to write it anyway",
        fmt_bytes(size),
        csv_lines(steps, every),
        columns,
        columns * CSV_BYTES_PER_NUMBER,
        fmt_bytes(CSV_LIMIT),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_csv_over_the_limit_is_refused_with_the_estimate_and_the_ways_out() {
        // The pendulum (22 columns) at the paper's h = 0.05 to t = 10⁷: 2·10⁸ steps.
        let (columns, steps) = (22, 200_000_000);
        let size = csv_size(columns, steps, 1, 1);
        assert_eq!(size, 22 * 20 * 200_000_001);
        assert_eq!(fmt_bytes(size), "88 GB");
        let e = check_csv_size(columns, steps, 1, 1).unwrap_err();
        assert_eq!(e.exit_code(), error::USAGE);
        let message = e.to_string();
        assert!(message.starts_with("the CSV would take about 88 GB (200000001 lines"));
        assert!(message.contains("more than the limit of 1 GB"), "{message}");
        assert_eq!(fmt_bytes(1_340_000), "1.3 MB");
        assert!(message.contains("--force"), "{message}");
        // The suggested --csv-every is the smallest that fits.
        let k: usize = message
            .split("--csv-every ")
            .nth(1)
            .and_then(|s| s.split_whitespace().next())
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("{message}"));
        assert!(csv_size(columns, steps, k, 1) <= CSV_LIMIT);
        assert!(csv_size(columns, steps, k - 1, 1) > CSV_LIMIT);
        assert!(check_csv_size(columns, steps, k, 1).is_ok());
        // Several files count together.
        assert!(check_csv_size(columns, steps, k, 2).is_err());
        // The paper's runs are far below the limit.
        assert!(check_csv_size(65, 1000, 1, 8).is_ok());
    }

    #[test]
    fn csv_lines_count_the_initial_state_and_the_last_step() {
        assert_eq!(csv_lines(20, 1), 21);
        assert_eq!(csv_lines(20, 5), 5);
        assert_eq!(csv_lines(21, 5), 6);
    }

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
