//! Errors the user can act on, each with its exit code.
use std::fmt;
use std::io;
use std::path::PathBuf;

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
/// Exit code of a run that finished but whose result fails a check: its constraint
/// residual at the nodes exceeds `--constraint-tolerance`.
pub const CHECK: u8 = 5;
/// Exit code of a run stopped by Ctrl-C (SIGINT): 128 + 2, the shells' convention.
pub const INTERRUPTED: u8 = 130;

/// One exit code as `--help` and the README's table show it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExitCodeInfo {
    /// The code.
    pub code: u8,
    /// What it means, in a word or two.
    pub meaning: &'static str,
    /// Everything that causes it.
    pub causes: &'static str,
}

/// Every exit code of the command and every cause, in order. The README's table of exit
/// codes is this list (checked by a unit test below), and `--help` prints it.
pub const EXIT_CODES: &[ExitCodeInfo] = &[
    ExitCodeInfo {
        code: OK,
        meaning: "success",
        causes: "every run finished and passed its checks; also `livens list` and `--help`",
    },
    ExitCodeInfo {
        code: USAGE,
        meaning: "usage",
        causes: "an unknown model, scheme or parameter (the message lists the valid ones); \
                 a scheme the model does not declare (the message lists those it does); \
                 an invalid value (e.g. `--dt 0`, a `--t-end` shorter than half a step, or a \
                 `--param` the model's `requires` block refuses, such as `m=-1`); \
                 CSV files that would exceed 1 GB without --force (checked before anything \
                 is written); a misspelt or missing option (clap's own errors)",
    },
    ExitCodeInfo {
        code: SOLVE,
        meaning: "numerical failure",
        causes: "Newton failed in a step (the message gives the step, its time interval \
                 and the residual; the CSV up to the last good step, the table and the plot \
                 are kept); the model's initial data do not fit its parameters",
    },
    ExitCodeInfo {
        code: OUTPUT,
        meaning: "output",
        causes: "the output directory or a file in it cannot be created or written",
    },
    ExitCodeInfo {
        code: CHECK,
        meaning: "result fails a check",
        causes: "every run finished, but a scheme's largest constraint residual at the \
                 nodes, max|g(q)|, exceeds --constraint-tolerance (default 0.1); the message \
                 names the scheme, the residual and the step where it was worst; the CSV, \
                 the table and the plot are written. A run that also failed in Newton exits \
                 with 3",
    },
    ExitCodeInfo {
        code: INTERRUPTED,
        meaning: "interrupted",
        causes: "Ctrl-C (SIGINT) during a run: the run stops at the next step boundary, \
                 its CSV up to that step is flushed, the table and the plot of the partial \
                 run are written, schemes not yet started are skipped, and the message \
                 gives the time reached; a second Ctrl-C ends the command at once",
    },
];

/// The exit codes as `--help` shows them, after the options.
pub fn exit_codes_help() -> String {
    const WIDTH: usize = 88;
    let mut out = String::from("Exit codes:");
    for info in EXIT_CODES {
        let mut line = format!("  {:<3}  {}:", info.code, info.meaning);
        for word in info.causes.replace('`', "").split_whitespace() {
            if line.chars().count() + 1 + word.chars().count() > WIDTH {
                out.push('\n');
                out.push_str(&line);
                line = " ".repeat(7);
            } else {
                line.push(' ');
            }
            line.push_str(word);
        }
        out.push('\n');
        out.push_str(&line);
    }
    out
}

/// Everything that ends a command early, or with a non-zero exit code.
#[derive(Debug)]
pub enum CliError {
    /// The model name is not in the catalogue.
    UnknownModel {
        /// The name given.
        given: String,
        /// The catalogue's models, as a list for the message.
        valid: String,
    },
    /// The scheme name is not in the catalogue.
    UnknownScheme {
        /// The name given.
        given: String,
        /// The catalogue's schemes, as a list for the message.
        valid: String,
    },
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
        /// The model's name.
        model: &'static str,
        /// The name given.
        name: String,
        /// The model's parameters.
        parameters: &'static [&'static str],
    },
    /// An option value outside its domain (e.g. `--t-end` shorter than `--dt`).
    InvalidValue(String),
    /// The CSV files would exceed the size limit and `--force` was not given.
    CsvTooLarge(String),
    /// The model's initial data do not satisfy its constraints (e.g. after `--param`).
    InitialState {
        /// The model's catalogue name.
        model: &'static str,
        /// The runtime's explanation.
        message: String,
    },
    /// Newton failed in one or more runs; one message per failed run (and one per
    /// failed check of the others).
    Newton(Vec<String>),
    /// Ctrl-C stopped a run; the interruption's message first, then those of failed
    /// runs and checks.
    Interrupted(Vec<String>),
    /// Every run finished, but one or more fail a check of their result; one message
    /// per run.
    Check(Vec<String>),
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
            Self::UnknownModel { .. }
            | Self::UnknownScheme { .. }
            | Self::Unsupported { .. }
            | Self::UnknownParameter { .. }
            | Self::InvalidValue(_)
            | Self::CsvTooLarge(_) => USAGE,
            Self::InitialState { .. } | Self::Newton(_) => SOLVE,
            Self::Output { .. } | Self::Plot { .. } => OUTPUT,
            Self::Check(_) => CHECK,
            Self::Interrupted(_) => INTERRUPTED,
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnknownModel { given, valid } => write!(
                f,
                "unknown model '{given}'; valid models: {valid} (see 'livens list')"
            ),
            Self::UnknownScheme { given, valid } => write!(
                f,
                "unknown scheme '{given}'; valid schemes: {valid} (see 'livens list')"
            ),
            Self::Unsupported {
                model,
                scheme,
                supported,
            } => write!(
                f,
                "model '{model}' does not support scheme '{scheme}'; it supports: {supported}"
            ),
            Self::UnknownParameter {
                model,
                name,
                parameters,
            } => write!(
                f,
                "model '{model}' has no parameter '{name}'; its parameters are: {}",
                parameters.join(", ")
            ),
            Self::InvalidValue(message) | Self::CsvTooLarge(message) => f.write_str(message),
            Self::InitialState { model, message } => write!(
                f,
                "the initial state of '{model}' is not consistent: {message}; \
                 the model's initial data may not fit the parameters given with --param"
            ),
            Self::Newton(messages) | Self::Check(messages) | Self::Interrupted(messages) => {
                f.write_str(&messages.join("\nerror: "))
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The README's table of exit codes, between its two markers, as (code, meaning,
    /// causes) rows.
    fn readme_table() -> Vec<(u8, String, String)> {
        let readme = include_str!("../../README.md");
        let start = "<!-- exit codes: checked by src/cli/error.rs -->";
        let body = readme
            .split(start)
            .nth(1)
            .and_then(|rest| rest.split("<!-- end of exit codes -->").next())
            .expect("the README has the exit-code table between its markers");
        body.lines()
            .filter(|l| l.starts_with('|'))
            .skip(2)
            .map(|l| {
                assert_eq!(
                    l.replace("\\|", "").matches('|').count(),
                    4,
                    "three cells, a `|` inside one escaped as `\\|`: {l:?}"
                );
                let cells: Vec<&str> = l.trim_matches('|').split(" | ").map(str::trim).collect();
                assert_eq!(cells.len(), 3, "three cells in {l:?}");
                let code = cells[0].trim_matches('`').parse().expect("a numeric code");
                // A `|` inside a cell is escaped as `\|` in Markdown.
                let unescape = |c: &str| c.replace("\\|", "|");
                (code, unescape(cells[1]), unescape(cells[2]))
            })
            .collect()
    }

    #[test]
    fn readme_lists_every_exit_code_and_cause() {
        let code: Vec<_> = EXIT_CODES
            .iter()
            .map(|i| (i.code, i.meaning.to_owned(), i.causes.to_owned()))
            .collect();
        assert_eq!(readme_table(), code);
    }

    #[test]
    fn every_error_has_a_listed_exit_code() {
        let listed: Vec<u8> = EXIT_CODES.iter().map(|i| i.code).collect();
        let errors = [
            CliError::UnknownModel {
                given: "x".into(),
                valid: "y".into(),
            },
            CliError::InvalidValue("x".into()),
            CliError::Newton(vec![]),
            CliError::Check(vec![]),
            CliError::Interrupted(vec![]),
            CliError::CsvTooLarge("x".into()),
            CliError::InitialState {
                model: "x",
                message: "x".into(),
            },
            CliError::Plot {
                path: PathBuf::new(),
                message: "x".into(),
            },
        ];
        for e in errors {
            assert!(listed.contains(&e.exit_code()), "{e:?}");
        }
        let help = exit_codes_help();
        for info in EXIT_CODES {
            assert!(
                help.contains(&format!("\n  {:<3}  {}:", info.code, info.meaning)),
                "{help}"
            );
        }
        assert!(help.lines().all(|l| l.chars().count() <= 88), "{help}");
    }
}
