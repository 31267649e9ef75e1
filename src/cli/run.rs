//! One run of one model with one scheme: the generic [`Integrator`] loop, the
//! invariants at every step, the CSV, the series for the plots, the summary for the
//! table.
use std::path::PathBuf;
use std::time::{Duration, Instant};

use livens::space::Space;
use livens::{
    Configuration, Diagnostics, Integrator, Model, MomentumMaps, NodeValues, SVector, SolveError,
    Step,
};

use super::catalogue::{ModelEntry, SchemeEntry};
use super::csv::Csv;
use super::error::CliError;
use super::interrupt;
use super::progress::Progress;

/// Most points a plotted line gets; longer runs are reduced to the maximum over
/// consecutive steps (every plotted quantity is an error, so the envelope is honest).
const PLOT_POINTS: usize = 1500;

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
            // Refused before any work, or a tolerance the scalar cannot reach: a smaller
            // step would not help, so the runtime's own advice stands.
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

impl Violation {
    /// A message that names the scheme, the residual and where it was worst, and says
    /// what to try: a smaller step (the paper's, if the step is larger), or one of
    /// `model`'s schemes that hold `g = 0` at the nodes.
    pub fn message(&self, model: &ModelEntry, scheme: &SchemeEntry, h: f64) -> String {
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
            self.residual,
            self.step,
            fmt_time(self.t),
            fmt_time(self.tolerance),
            fmt_time(h),
        )
    }
}

/// A time value without the noise of accumulated rounding (`0.30000000000000004` is
/// `0.3`): rounded to 12 significant digits, scientific below 1e-4.
pub fn fmt_time(t: f64) -> String {
    let rounded: f64 = format!("{t:.11e}").parse().unwrap_or(t);
    if rounded != 0.0 && rounded.abs() < 1e-4 {
        format!("{rounded:e}")
    } else {
        format!("{rounded}")
    }
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
    fn new(points: usize) -> Self {
        Self {
            bucket: points.div_ceil(PLOT_POINTS).max(1),
            ..Self::default()
        }
    }

    fn push(&mut self, t: f64, values: [f64; 4]) {
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

/// The CSV columns of a model and a state layout: time, the state (`v` is the state's
/// own or `M⁻¹ p`; the multiplier blocks are the layout's), the invariants and Newton's
/// cost.
fn columns<Mdl, const D: usize, const M: usize, const K: usize, const Q: usize>(
    state: &impl NodeValues<f64, D, Q>,
) -> Vec<String>
where
    Mdl: Model<f64, D, M, Q> + MomentumMaps<f64, D, K, Q>,
{
    let mut c = vec!["t".to_owned()];
    // `q` by its stored numbers, `v` and `p` by the tangent directions.
    c.extend(Mdl::COORDINATES.iter().map(|n| format!("q[{n}]")));
    for block in ["v", "p"] {
        c.extend(Mdl::VELOCITIES.iter().map(|n| format!("{block}[{n}]")));
    }
    state.multiplier_blocks(&mut |block, len| {
        if len == M {
            c.extend(Mdl::CONSTRAINTS.iter().map(|n| format!("{block}[{n}]")));
        } else if len == Mdl::NONHOLONOMIC.len() + M {
            // A nonholonomic state's λ: its constraints', then the holonomic ones'.
            let names = Mdl::NONHOLONOMIC.iter().chain(Mdl::CONSTRAINTS.iter());
            c.extend(names.map(|n| format!("{block}[{n}]")));
        } else {
            c.extend((0..len).map(|i| format!("{block}[{i}]")));
        }
    });
    c.extend(["energy", "hamiltonian", "energy_error"].map(String::from));
    let names = <Mdl as MomentumMaps<f64, D, K, Q>>::NAMES;
    c.extend(names.iter().map(|n| format!("momentum[{n}]")));
    c.extend(names.iter().map(|n| format!("momentum_error[{n}]")));
    c.extend(
        [
            "position_residual",
            "velocity_residual",
            "velocity_residual_v",
        ]
        .map(String::from),
    );
    if !Mdl::NONHOLONOMIC.is_empty() {
        c.push("nonholonomic_residual".to_owned());
    }
    c.extend(Mdl::OBSERVABLES.iter().map(|n| format!("observable[{n}]")));
    c.extend(["newton_iterations", "newton_residual"].map(String::from));
    c
}

/// Integrates `job` from `state`: writes the CSV as it goes, stops at the first failed
/// step (keeping the CSV up to it), and returns the summary and the plot series.
/// Only output errors are `Err`; a Newton failure is in [`Outcome::failure`].
pub fn simulate<Mdl, S, const D: usize, const M: usize, const K: usize, const Q: usize>(
    model: Mdl,
    scheme: S,
    state: <Mdl as Step<f64, S>>::State,
    job: &Job,
) -> Result<Outcome, CliError>
where
    Mdl: Step<f64, S> + Model<f64, D, M, Q> + MomentumMaps<f64, D, K, Q>,
    <Mdl as Step<f64, S>>::State: NodeValues<f64, D, Q>,
{
    let mut csv = Csv::create(&job.csv_path)?;
    csv.header(&columns::<Mdl, D, M, K, Q>(&state))?;
    let mut multiplier_width = 0;
    state.multiplier_blocks(&mut |_, len| multiplier_width += len);

    let d0 = Diagnostics::of(&model, &state);
    // The energy the scheme conserves or keeps bounded: H(q, p), or the generalized
    // energy with the state's own v for a scheme whose p and v are independent.
    let reported = |d: &Diagnostics<f64>| {
        if job.scheme.generalized_energy {
            d.energy
        } else {
            d.hamiltonian
        }
    };
    let j0 = model.momentum_maps(state.positions(), state.momenta());
    let mut sim = Integrator::new(model, scheme, job.h, state);

    let mut summary = Summary {
        max_momentum_error: (K > 0).then_some(0.0),
        max_nonholonomic_residual: (!Mdl::NONHOLONOMIC.is_empty()).then_some(0.0),
        ..Summary::default()
    };
    let mut observables: Vec<(&'static str, f64, f64)> = Mdl::OBSERVABLES
        .iter()
        .map(|&n| (n, f64::INFINITY, f64::NEG_INFINITY))
        .collect();
    let mut series = Series::new(job.steps + 1);
    let mut row = Vec::with_capacity(Q + 2 * D + 2 * M + 2 * K + 9 + observables.len());
    let mut total_iterations: u64 = 0;
    let mut busy = Duration::ZERO;
    let mut progress = Progress::new(job.steps, &job.scheme.label);
    let mut failure = None;
    let mut interrupted = false;
    let mut written = 0;

    // A forced model's energy changes by the forces' work, `h F(q^½, v^½, tⁿ + h/2)·v^½`
    // per step for the schemes that take forces (spec 001 §4 item 11): the error is
    // measured against E⁰ + W. A stage family balances no such midpoint work (its forces
    // act at the stages): its W is the work along the step's cubic Hermite interpolant,
    // so that ΔE is the scheme's error rather than the midpoint rule's O(h²).
    let hermite = job.scheme.stage_family;
    let mut work = 0.0;
    // Step 0 is the initial state; Newton's columns are zero there.
    for n in 0..=job.steps {
        let mut report = None;
        if n > 0 {
            let before = Mdl::FORCED.then(|| {
                let s = sim.state();
                (s.time(), *s.positions(), s.node_velocities(sim.model()))
            });
            if interrupt::requested() {
                interrupted = true;
                break;
            }
            let t = sim.state().time();
            let clock = Instant::now();
            let result = sim.step();
            busy += clock.elapsed();
            match result {
                Ok(r) => {
                    report = Some(r);
                    if let Some(before) = before {
                        work += step_work(sim.model(), job.h, before, sim.state(), hermite);
                    }
                }
                Err(error) => {
                    failure = Some(Failure {
                        step: n,
                        t,
                        h: job.h,
                        error,
                    });
                    break;
                }
            }
        }
        let s = sim.state();
        let d = Diagnostics::of(sim.model(), s);
        let j = sim.model().momentum_maps(s.positions(), s.momenta());
        let energy_error = reported(&d) - reported(&d0) - work;
        let momentum_error = (j - j0).abs().max();

        summary.final_energy_error = energy_error.abs();
        summary.max_energy_error = summary.max_energy_error.max(energy_error.abs());
        if let Some(m) = summary.max_momentum_error.as_mut() {
            *m = m.max(momentum_error);
        }
        if d.position_residual > summary.max_position_residual {
            summary.max_position_residual = d.position_residual;
            summary.worst_position_step = n;
            summary.worst_position_time = s.time();
        }
        let velocity_residual = if job.scheme.generalized_energy {
            // p and v are independent (and M may be singular): the state's own v.
            d.velocity_residual_v
        } else {
            d.velocity_residual
        };
        summary.max_velocity_residual = summary.max_velocity_residual.max(velocity_residual);
        if let Some(a) = summary.max_nonholonomic_residual.as_mut() {
            *a = a.max(d.nonholonomic_residual);
        }
        if let Some(r) = report {
            summary.steps = n;
            summary.max_iterations = summary.max_iterations.max(r.iterations);
            total_iterations += u64::from(r.iterations);
        }
        series.push(
            s.time(),
            [
                energy_error.abs(),
                momentum_error,
                d.position_residual,
                velocity_residual,
            ],
        );

        row.clear();
        row.push(s.time());
        let v = s.node_velocities(sim.model());
        row.extend(s.positions().iter());
        for block in [&v, s.momenta()] {
            row.extend(block.iter());
        }
        // A block the state does not carry yet (a nonholonomic state's λ before its first
        // step) is NaN: the layout's only such block is its last.
        let mut carried = 0;
        s.multipliers(&mut |_, values| {
            row.extend(values);
            carried += values.len();
        });
        row.extend(std::iter::repeat_n(f64::NAN, multiplier_width - carried));
        row.extend([d.energy, d.hamiltonian, energy_error]);
        row.extend(j.iter());
        row.extend((j - j0).iter());
        row.extend([
            d.position_residual,
            d.velocity_residual,
            d.velocity_residual_v,
        ]);
        if summary.max_nonholonomic_residual.is_some() {
            row.push(d.nonholonomic_residual);
        }
        let mut k = 0;
        sim.model().observables(s.positions(), &v, &mut |_, x| {
            row.push(x);
            if let Some((_, lo, hi)) = observables.get_mut(k) {
                *lo = lo.min(x);
                *hi = hi.max(x);
            }
            k += 1;
        });
        let (iterations, residual) =
            report.map_or((0.0, 0.0), |r| (f64::from(r.iterations), r.residual));
        row.extend([iterations, residual]);
        if n % job.csv_every == 0 || n == job.steps {
            csv.row(&row)?;
            written = n;
        }
        progress.update(n, s.time());
    }
    progress.finish();
    // A failed or interrupted run keeps its last good step even between two
    // `--csv-every` lines: `row` still holds it.
    if written != summary.steps {
        csv.row(&row)?;
    }
    csv.flush()?;

    if summary.steps > 0 {
        summary.mean_iterations = total_iterations as f64 / summary.steps as f64;
        summary.steps_per_second = summary.steps as f64 / busy.as_secs_f64().max(1e-12);
    }
    let violation =
        (summary.max_position_residual > job.constraint_tolerance).then_some(Violation {
            residual: summary.max_position_residual,
            step: summary.worst_position_step,
            t: summary.worst_position_time,
            tolerance: job.constraint_tolerance,
        });
    let names = <Mdl as MomentumMaps<f64, D, K, Q>>::NAMES;
    Ok(Outcome {
        scheme: job.scheme,
        summary,
        series,
        failure,
        violation,
        interrupted,
        csv_path: job.csv_path.clone(),
        energy0: reported(&d0),
        momentum0: names.iter().copied().zip(j0.iter().copied()).collect(),
        observables,
    })
}

/// The forces' work over one step, `h F(q^½, v^½, tⁿ + h/2)·v^½`, from `(tⁿ, qⁿ, vⁿ)`
/// and the state after the step. On a group `q^½` is halfway along the retraction's
/// increment; in a vector space the mean, as the schemes' own midpoint. With `hermite`
/// (a stage family, in a vector space), instead `∫ F(q, q̇, t)·q̇ dt` along the cubic
/// Hermite interpolant of `(qⁿ, vⁿ)` and `(qⁿ⁺¹, vⁿ⁺¹)` by three-point Gauss–Legendre:
/// fourth order over a run (the interpolant matches `q` at both ends, so the error of its
/// `q̇` integrates by parts to `O(h⁵)` per step), below the error of the stage families up
/// to `s = 3`.
fn step_work<Mdl, St, const D: usize, const M: usize, const Q: usize>(
    model: &Mdl,
    h: f64,
    (t, q0, v0): (f64, SVector<f64, Q>, SVector<f64, D>),
    after: &St,
    hermite: bool,
) -> f64
where
    Mdl: Model<f64, D, M, Q>,
    St: NodeValues<f64, D, Q>,
{
    type Sp<Mdl, const D: usize, const Q: usize> = <Mdl as Configuration<f64, D, Q>>::Space;
    let (q1, v1) = (*after.positions(), after.node_velocities(model));
    if hermite && <Sp<Mdl, D, Q> as Space<f64, D, Q>>::FLAT && D == Q {
        // In a vector space Q = D: the positions as D numbers.
        let (q0, q1) = (
            q0.fixed_rows::<D>(0).into_owned(),
            q1.fixed_rows::<D>(0).into_owned(),
        );
        let r = 15f64.sqrt() / 10.0;
        let gauss = [
            (0.5 - r, 5.0 / 18.0),
            (0.5, 8.0 / 18.0),
            (0.5 + r, 5.0 / 18.0),
        ];
        return gauss
            .iter()
            .map(|&(s, w)| {
                // The cubic Hermite basis at s ∈ [0, 1] and its derivative.
                let (s2, s3) = (s * s, s * s * s);
                let (h00, h10) = (2.0 * s3 - 3.0 * s2 + 1.0, s3 - 2.0 * s2 + s);
                let (h01, h11) = (-2.0 * s3 + 3.0 * s2, s3 - s2);
                let (d00, d10) = (6.0 * s2 - 6.0 * s, 3.0 * s2 - 4.0 * s + 1.0);
                let (d01, d11) = (-6.0 * s2 + 6.0 * s, 3.0 * s2 - 2.0 * s);
                let q = q0 * h00 + v0 * (h * h10) + q1 * h01 + v1 * (h * h11);
                let v = (q0 * d00 + q1 * d01) / h + v0 * d10 + v1 * d11;
                let mut qs = SVector::<f64, Q>::zeros();
                qs.fixed_rows_mut::<D>(0).copy_from(&q);
                h * w * model.forces(t + s * h, &qs, &v).dot(&v)
            })
            .sum();
    }
    let qm = if <Sp<Mdl, D, Q> as Space<f64, D, Q>>::FLAT {
        (q0 + q1) * 0.5
    } else {
        let half = <Sp<Mdl, D, Q> as Space<f64, D, Q>>::local(&q0, &q1) * 0.5;
        <Sp<Mdl, D, Q> as Space<f64, D, Q>>::retract(&q0, &half)
    };
    let vm = (v0 + v1) * 0.5;
    h * model.forces(t + 0.5 * h, &qm, &vm).dot(&vm)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_print_without_rounding_noise() {
        assert_eq!(fmt_time(0.1 + 0.2), "0.3");
        assert_eq!(fmt_time(2.0), "2");
        assert_eq!(fmt_time(0.002), "0.002");
        assert_eq!(fmt_time(1e-7), "1e-7");
        assert_eq!(fmt_time(0.0), "0");
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
