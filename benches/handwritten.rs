//! The generated EM step of the 3D pendulum against the same step written by hand with
//! nalgebra (`benches/support/handwritten_em.rs`: the same unknowns, equations, exact
//! Jacobian, Newton guess, stopping rule and tolerance, with nalgebra's dense LU), in
//! one criterion run: `pendulum_em/handwritten` and `pendulum_em/generated`.
//!
//! Before timing, both are run side by side over 10³ steps from the paper's initial
//! state and must agree: to 1e-14 after the first step and to 1e-12 over the whole run
//! (the bench panics otherwise). The timed steps cycle through states as
//! `benches/step.rs` does: each measured iteration is one step along the trajectory, and
//! the state is reset to the initial one every `RESET` steps.
//!
//! At the end the medians of both, their ratio generated/handwritten and the mean Newton
//! iterations of each over the timed steps are printed to stderr. The medians are those
//! criterion reports: the median over its samples of time per step.
//!
//! `LIVENS_BENCH_QUICK=1` shortens the run for CI: 1 s measurement, 0.5 s warm-up,
//! 10 samples. Otherwise criterion's defaults apply.

use livens::prelude::*;
use livens_models::Pendulum3d;

#[path = "support/handwritten_em.rs"]
mod handwritten_em;
#[path = "support/record.rs"]
mod record;
use record::Record;

/// Steps after which both steppers restart from the initial state.
const RESET: u32 = 1000;

/// Steps over which the two are compared before timing.
const CHECK_STEPS: u32 = 1000;

fn main() {
    let check = handwritten_em::agreement(CHECK_STEPS);
    eprintln!(
        "pendulum_em: hand-written vs generated state: {:.1e} after the first step, {:.1e} \
         after {} steps, at most {:.1e} on the way; Newton iterations {} vs {} ({} steps \
         differ)",
        check.first_step,
        check.last_step,
        check.steps,
        check.max,
        check.iterations.0,
        check.iterations.1,
        check.iteration_mismatches,
    );
    assert!(
        check.first_step <= 1e-14,
        "the hand-written step disagrees with the generated one: {check:?}"
    );
    assert!(
        check.max <= 1e-12,
        "the hand-written trajectory leaves the generated one: {check:?}"
    );

    let (config, samples) = record::config();
    let mut c = config.configure_from_args();
    let model = Pendulum3d::new();
    let initial = model
        .initial_state()
        .expect("paper's pendulum data are consistent");
    let h = Pendulum3d::DEFAULT_STEP;
    let (pendulum, hand_initial) = handwritten_em::from_generated(&model, &initial);

    let mut group = c.benchmark_group("pendulum_em");

    let mut hand = Record::default();
    let mut state = hand_initial;
    let mut since_reset: u32 = 0;
    group.bench_function("handwritten", |b| {
        b.iter_custom(|iters| {
            hand.time(iters, || {
                if since_reset == RESET {
                    state = hand_initial;
                    since_reset = 0;
                }
                since_reset += 1;
                let (next, iterations) = match handwritten_em::step(&pendulum, h, &state) {
                    Ok(done) => done,
                    Err(e) => panic!("pendulum_em/handwritten: step failed: {e:?}"),
                };
                state = next;
                iterations
            })
        });
    });

    let mut generated = Record::default();
    let mut sim = Integrator::new(model, GglEm, h, initial);
    let mut since_reset: u32 = 0;
    group.bench_function("generated", |b| {
        b.iter_custom(|iters| {
            generated.time(iters, || {
                if since_reset == RESET {
                    sim.set_state(initial);
                    since_reset = 0;
                }
                since_reset += 1;
                match sim.step() {
                    Ok(report) => report.iterations,
                    Err(e) => panic!("pendulum_em/generated: step failed: {e}"),
                }
            })
        });
    });
    group.finish();
    c.final_summary();

    for (name, record) in [("handwritten", &hand), ("generated", &generated)] {
        if let Some(median) = record.median_ns(samples) {
            eprintln!(
                "pendulum_em/{name}: median {median:.0} ns per step, mean Newton iterations \
                 {:.2} over the {} timed steps",
                record.mean_iterations(),
                record.steps(),
            );
        }
    }
    if let (Some(hand), Some(generated)) = (hand.median_ns(samples), generated.median_ns(samples)) {
        eprintln!(
            "pendulum_em: generated / handwritten = {:.2}",
            generated / hand
        );
    }
}
