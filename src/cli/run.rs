//! One run of one model with one scheme: the generic [`Integrator`] loop, the
//! invariants at every step, the CSV, the series for the plots, the summary for the
//! table.
use std::time::{Duration, Instant};

use livens::space::Space;
use livens::InputValues;
use livens::{
    Configuration, Diagnostics, Integrator, Model, MomentumMaps, NodeValues, SVector, Step,
};

use super::csv::Csv;
use super::entry::Job;
use super::error::CliError;
use super::interrupt;
use super::outcome::{Failure, Outcome, Series, Summary, Violation};
use super::progress::Progress;

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
                h * w
                    * model
                        .forces(t + s * h, &qs, &v, &InputValues::zeros())
                        .dot(&v)
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
    h * model
        .forces(t + 0.5 * h, &qm, &vm, &InputValues::zeros())
        .dot(&vm)
}
