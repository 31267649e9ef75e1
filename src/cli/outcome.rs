//! What a run produced: the table row, the plotted series, and the failed step or the
//! violated constraint that stopped or marked it.
use std::path::PathBuf;

use livens::SolveError;

use super::schemes::SchemeEntry;
use super::times::fmt_time;

/// Most points a plotted line gets; longer runs are reduced to the maximum over
/// consecutive steps (every plotted quantity is an error, so the envelope is honest).
const PLOT_POINTS: usize = 1500;

/// What a run produced.
#[derive(Debug)]
pub struct Outcome {
    /// The scheme.
    pub scheme: &'static SchemeEntry,
    /// The table row.
    pub summary: Summary,
    /// The plotted series.
    pub series: Series,
    /// Where Newton failed, if it did.
    pub failure: Option<Failure>,
    /// The constraint residual at the nodes, if it exceeded the job's tolerance.
    pub violation: Option<Violation>,
    /// Ctrl-C stopped the run after [`Summary::steps`] steps.
    pub interrupted: bool,
    /// The CSV written (complete up to the last successful step).
    pub csv_path: PathBuf,
    /// `H⁰` (or `E⁰`, see [`SchemeEntry::generalized_energy`]), the energy of the
    /// initial state.
    pub energy0: f64,
    /// The momentum maps' names and initial values.
    pub momentum0: Vec<(&'static str, f64)>,
    /// The declared observables' names and ranges `[min, max]` over the run, initial
    /// state included.
    pub observables: Vec<(&'static str, f64, f64)>,
}

/// The table row of a run: errors are absolute, against the initial state, and the
/// maxima include it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Summary {
    /// Steps taken successfully.
    pub steps: usize,
    /// `|H − H⁰|` after the last step, `H = H(q, p)` ([`Diagnostics::hamiltonian`]), or
    /// `|E − E⁰|` for a scheme that reports the generalized energy
    /// ([`SchemeEntry::generalized_energy`], [`Diagnostics::energy`]).
    pub final_energy_error: f64,
    /// `max |H − H⁰|`.
    pub max_energy_error: f64,
    /// `max_k max |J_k − J_k⁰|` over the momentum maps; `None` if there are none.
    pub max_momentum_error: Option<f64>,
    /// `max |g(q)|`.
    pub max_position_residual: f64,
    /// The step (0 for the initial state) at which `|g(q)|` was largest.
    pub worst_position_step: usize,
    /// Its time.
    pub worst_position_time: f64,
    /// `max |G(q) M⁻¹ p|`, or `max |G(q) v|` with the state's own `v` for a scheme that
    /// reports the generalized energy ([`SchemeEntry::generalized_energy`]).
    pub max_velocity_residual: f64,
    /// `max |A(q) v|` over the nonholonomic constraints; `None` if there are none.
    pub max_nonholonomic_residual: Option<f64>,
    /// Mean Newton iterations per step.
    pub mean_iterations: f64,
    /// Most Newton iterations of a step.
    pub max_iterations: u32,
    /// Steps per second of wall-clock time spent in `step()` (diagnostics, CSV and
    /// plots not counted).
    pub steps_per_second: f64,
}

/// A failed step.
#[derive(Clone, Copy, Debug)]
pub struct Failure {
    /// 1-based index of the step that failed.
    pub step: usize,
    /// Time at the start of that step (the last state reached).
    pub t: f64,
    /// The step size.
    pub h: f64,
    /// Newton's error.
    pub error: SolveError<f64>,
}

impl Failure {
    /// A message that says when, how, and what to try.
    pub fn message(&self, model: &str, scheme: &SchemeEntry, csv: &std::path::Path) -> String {
        let how = match self.error {
            SolveError::MaxIterations {
                iterations,
                residual,
            } => format!("no convergence in {iterations} iterations, residual max|R| = {residual:.3e}"),
            SolveError::Diverged {
                iteration,
                residual,
                previous,
            } => format!(
                "the residual grew from {previous:.3e} to {residual:.3e} in iteration {iteration}"
            ),
            SolveError::NonFinite { iteration } => {
                format!("the residual became non-finite (NaN or ∞) in iteration {iteration}")
            }
            SolveError::SingularJacobian { iteration, column } => format!(
                "singular Newton Jacobian in iteration {iteration} (column {column}), residual unavailable"
            ),
            SolveError::SingularMatrix { column } => {
                format!("singular matrix (column {column}), residual unavailable")
            }
            SolveError::EnergyBalance {
                change,
                allowed,
                iterations,
            } => format!(
                "converged in {iterations} iterations to another root of the step equations: \
                 the energy changed by {change:.3e}, at most {allowed:.3e} for this scheme"
            ),
            // The runtime advises a library user to loosen the tolerance or widen the
            // scalar; the command has neither option, and the stall is round-off at
            // this step's magnitudes, which another step size changes.
            SolveError::ToleranceUnreachable {
                tolerance,
                residual,
            } => {
                return format!(
                    "step {} of {model} with {} from t = {} failed: Newton's residual stalled \
                     at {residual:.3e}, above its tolerance {tolerance:.3e}, at the round-off \
                     level of f64; try another step size with --dt; the CSV up to t = {} is in {}",
                    self.step,
                    scheme.label,
                    fmt_time(self.t),
                    fmt_time(self.t),
                    csv.display()
                )
            }
            // Refused before any work: a smaller step would not help, so the runtime's
            // own message stands.
            other => {
                return format!(
                    "step {} of {model} with {} from t = {} failed: {other}; the CSV up to t = {} is in {}",
                    self.step,
                    scheme.label,
                    fmt_time(self.t),
                    fmt_time(self.t),
                    csv.display()
                )
            }
        };
        format!(
            "Newton failed for {model} with {} in step {} from t = {} to t = {}: {how}; \
             try a smaller step size, e.g. --dt {}; the CSV up to t = {} is in {}",
            scheme.label,
            self.step,
            fmt_time(self.t),
            fmt_time(self.t + self.h),
            fmt_time(self.h / 2.0),
            fmt_time(self.t),
            csv.display()
        )
    }
}
/// A run whose constraint residual at the nodes, `max|g(q)|`, exceeded the tolerance.
#[derive(Clone, Copy, Debug)]
pub struct Violation {
    /// The largest residual.
    pub residual: f64,
    /// The step where it was reached (0: the initial state).
    pub step: usize,
    /// Its time.
    pub t: f64,
    /// The tolerance it exceeded.
    pub tolerance: f64,
}

/// The plotted quantities, reduced to at most [`PLOT_POINTS`] points by taking the
/// maximum over buckets of consecutive steps.
#[derive(Clone, Debug, Default)]
pub struct Series {
    /// Time at the end of each bucket.
    pub t: Vec<f64>,
    /// `|H − H⁰|`.
    pub energy: Vec<f64>,
    /// `max_k |J_k − J_k⁰|` (zero if the model has no momentum maps).
    pub momentum: Vec<f64>,
    /// `max |g(q)|`.
    pub position: Vec<f64>,
    /// `max |G(q) M⁻¹ p|`.
    pub velocity: Vec<f64>,
    bucket: usize,
    filled: usize,
}

impl Series {
    pub(super) fn new(points: usize) -> Self {
        Self {
            bucket: points.div_ceil(PLOT_POINTS).max(1),
            ..Self::default()
        }
    }

    pub(super) fn push(&mut self, t: f64, values: [f64; 4]) {
        let columns = [
            &mut self.energy,
            &mut self.momentum,
            &mut self.position,
            &mut self.velocity,
        ];
        if self.filled == 0 {
            self.t.push(t);
            for (column, x) in columns.into_iter().zip(values) {
                column.push(x);
            }
        } else {
            if let Some(last) = self.t.last_mut() {
                *last = t;
            }
            for (column, x) in columns.into_iter().zip(values) {
                if let Some(last) = column.last_mut() {
                    *last = last.max(x);
                }
            }
        }
        self.filled = (self.filled + 1) % self.bucket;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stalled_tolerance_gets_advice_the_command_can_follow() {
        let failure = Failure {
            step: 7,
            t: 0.3,
            h: 0.05,
            error: SolveError::ToleranceUnreachable {
                tolerance: 1e-14,
                residual: 3e-13,
            },
        };
        let scheme = SchemeEntry::of::<livens::schemes::GglEm>();
        let m = failure.message("pendulum", &scheme, std::path::Path::new("out/x.csv"));
        assert!(m.contains("--dt") && m.contains("step 7"), "{m}");
        assert!(!m.contains("scalar type") && !m.contains("loosen"), "{m}");
    }

    #[test]
    fn long_runs_are_plotted_as_their_envelope() {
        let mut s = Series::new(3 * PLOT_POINTS);
        for i in 0..3 * PLOT_POINTS {
            let x = if i % 3 == 1 { 1.0 } else { 0.0 };
            s.push(i as f64, [x, 0.0, x, 2.0 * x]);
        }
        assert_eq!(s.t.len(), PLOT_POINTS);
        assert!(s.energy.iter().all(|&e| e == 1.0));
        assert!(s.velocity.iter().all(|&e| e == 2.0));
        assert_eq!(s.t[0], 2.0, "a bucket is plotted at its last time");
    }
}
