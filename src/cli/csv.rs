//! The CSV file of one run: a header line, then one line per recorded step, flushed
//! as it goes so that a failed run keeps everything up to its last good step.
use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufWriter, Write as _};
use std::path::{Path, PathBuf};

use super::error::CliError;

/// A CSV file being written.
pub struct Csv {
    path: PathBuf,
    out: BufWriter<File>,
    line: String,
}

impl Csv {
    /// Creates (or truncates) the file at `path`.
    pub fn create(path: &Path) -> Result<Self, CliError> {
        let file = File::create(path).map_err(|source| CliError::Output {
            action: "create the CSV file",
            path: path.to_owned(),
            source,
        })?;
        Ok(Self {
            path: path.to_owned(),
            out: BufWriter::new(file),
            line: String::new(),
        })
    }

    /// Writes the header line.
    pub fn header(&mut self, columns: &[String]) -> Result<(), CliError> {
        self.line.clear();
        self.line.push_str(&columns.join(","));
        self.write_line()
    }

    /// Writes one line of numbers: plain decimals where they are short, scientific
    /// notation for very small or large magnitudes; always the shortest text that
    /// reads back as the same `f64`.
    pub fn row(&mut self, values: &[f64]) -> Result<(), CliError> {
        self.line.clear();
        for (i, x) in values.iter().enumerate() {
            if i > 0 {
                self.line.push(',');
            }
            let a = x.abs();
            // Writing into a String cannot fail.
            let _ = if a == 0.0 || (1e-4..1e15).contains(&a) || !a.is_finite() {
                write!(self.line, "{x}")
            } else {
                write!(self.line, "{x:e}")
            };
        }
        self.write_line()
    }

    fn write_line(&mut self) -> Result<(), CliError> {
        self.line.push('\n');
        self.out
            .write_all(self.line.as_bytes())
            .map_err(|source| self.error(source))
    }

    /// Flushes everything written so far to the file.
    pub fn flush(&mut self) -> Result<(), CliError> {
        self.out.flush().map_err(|source| self.error(source))
    }

    fn error(&self, source: std::io::Error) -> CliError {
        CliError::Output {
            action: "write the CSV file",
            path: self.path.clone(),
            source,
        }
    }
}
