//! Cost of ONE time step for each model × scheme: the pendulum, the Lagrange top and
//! the four-particle system (spec 000), the spherical pendulum, the nonholonomic
//! particle, the transmission and the chaotic system (spec 002), the spring pendulum in
//! spherical coordinates and the mass–spring system with a singular mass matrix (spec
//! 001), and a particle on a torus (a quartic constraint), each with every scheme
//! (and stage count) its `model!` declares (`pendulum/GglEm`, `top/GglViA`,
//! `transmission/NonholonomicLobatto(3)`, ...). The list is read from
//! the models' declarations ([`DeclaredSchemes`]), so a scheme a model declares is
//! benchmarked without an edit here.
//!
//! Every measured iteration is a real `Integrator::step` from a realistic state: the
//! integrator marches along the paper's trajectory from the model's initial state and
//! is reset to it (`set_state`) every `RESET` steps or at the end of the model's
//! `DEFAULT_SPAN`, whichever comes first, so the benchmark samples the start of the run
//! (50 s of pendulum motion at h = 0.05, the paper's 2 s of top motion at h = 0.002, the
//! free rigid body's 2 s at h = 0.05: its parasitic nodal velocity, spec 001 §3.3, makes
//! Newton fail from t ≈ 8.2 on).
//!
//! Before each benchmark the same steps are run once and the mean Newton
//! iteration count is printed to stderr; after it, the mean over all steps criterion
//! actually timed (warm-up included) is printed too.
//!
//! `LIVENS_BENCH_QUICK=1` shortens the run for CI: 1 s measurement, 0.5 s warm-up,
//! 10 samples. Otherwise criterion's defaults apply.
use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use livens::prelude::*;
use livens::{DeclaredSchemes, FromNode, SchemeVisitor};
use livens_models::{
    Chaotic, ClosedLoop, FourParticles, FreeBody, HeavyTop, LagrangeTop, MassSpring,
    NonholonomicParticle, ParticleOnTorus, Pendulum3d, SphericalPendulum, SpringPendulum,
    Transmission,
};

/// Most steps after which the integrator restarts from the initial state.
const RESET: u32 = 1000;

/// Steps after which the integrator restarts: [`RESET`], or fewer to stay within `span`.
fn reset_after(h: f64, span: f64) -> u32 {
    let steps = (span / h).round();
    if steps >= f64::from(RESET) {
        RESET
    } else {
        (steps as u32).max(1)
    }
}

/// Benchmarks one step of `model` with `scheme` as `<group>/<scheme_name>`.
fn bench_scheme<Mdl, S>(
    c: &mut Criterion,
    group: &str,
    scheme_name: &str,
    model: Mdl,
    scheme: S,
    (h, reset): (f64, u32),
    initial: Mdl::State,
) where
    Mdl: Step<f64, S>,
{
    let id = format!("{group}/{scheme_name}");
    let mut sim = Integrator::new(model, scheme, h, initial);

    // Newton iterations over exactly the steps the benchmark cycles through.
    let mut total: u64 = 0;
    for n in 0..reset {
        match sim.step() {
            Ok(report) => total += u64::from(report.iterations),
            Err(e) => panic!("{id}: step {n} failed: {e}"),
        }
    }
    eprintln!(
        "{id}: mean Newton iterations: {:.2} (over the first {reset} steps)",
        total as f64 / f64::from(reset)
    );
    sim.set_state(initial);

    let mut since_reset: u32 = 0;
    let (mut timed_steps, mut timed_iterations) = (0_u64, 0_u64);
    let mut bench_group = c.benchmark_group(group);
    bench_group.bench_function(scheme_name, |b| {
        b.iter(|| {
            if since_reset == reset {
                sim.set_state(initial);
                since_reset = 0;
            }
            since_reset += 1;
            let report = match sim.step() {
                Ok(report) => report,
                Err(e) => panic!("{id}: step failed: {e}"),
            };
            timed_steps += 1;
            timed_iterations += u64::from(report.iterations);
            black_box(report)
        });
    });
    bench_group.finish();
    // Nothing was timed when a filter on the command line left this benchmark out.
    if timed_steps > 0 {
        eprintln!(
            "{id}: mean Newton iterations over the {timed_steps} benchmarked steps: {:.2}",
            timed_iterations as f64 / timed_steps as f64
        );
    }
}

/// One benchmark per scheme a model declares, all from the model's initial node.
struct EveryScheme<'c, Mdl, const D: usize, const M: usize> {
    c: &'c mut Criterion,
    group: &'static str,
    model: Mdl,
    h: f64,
    reset: u32,
    node: NodeState<f64, D, M>,
}

impl<Mdl: Clone, const D: usize, const M: usize> SchemeVisitor<f64, Mdl, D, M>
    for EveryScheme<'_, Mdl, D, M>
{
    fn visit<S>(&mut self, scheme: S)
    where
        S: SchemeInfo,
        Mdl: Step<f64, S>,
        <Mdl as Step<f64, S>>::State: NodeValues<f64, D> + FromNode<f64, D, M>,
    {
        let name = S::INSTANCE.to_string();
        let initial = FromNode::from_node(&self.node);
        bench_scheme(
            self.c,
            self.group,
            &name,
            self.model.clone(),
            scheme,
            (self.h, self.reset),
            initial,
        );
    }
}

/// Benchmarks every scheme `model` declares in group `group`.
fn every_scheme<Mdl, const D: usize, const M: usize>(
    c: &mut Criterion,
    group: &'static str,
    model: Mdl,
    (h, span): (f64, f64),
    node: NodeState<f64, D, M>,
) where
    Mdl: DeclaredSchemes<f64, D, M> + Clone,
{
    Mdl::visit_schemes(&mut EveryScheme {
        c,
        group,
        model,
        h,
        reset: reset_after(h, span),
        node,
    });
}

/// `fn $group(c)`: every scheme `$model` declares, from the model's own initial state
/// and step, as `$group/<scheme>`.
macro_rules! bench_model {
    ($($group:ident => $model:ident),+ $(,)?) => {$(
        fn $group(c: &mut Criterion) {
            let model = $model::new();
            let initial = model
                .initial_state()
                .expect("the paper's initial data are consistent");
            let run = ($model::DEFAULT_STEP, $model::DEFAULT_SPAN);
            every_scheme(c, stringify!($group), model, run, initial);
        }
    )+};
}

bench_model! {
    pendulum => Pendulum3d,
    top => LagrangeTop,
    four_particles => FourParticles,
    spherical_pendulum => SphericalPendulum,
    nonholonomic_particle => NonholonomicParticle,
    transmission => Transmission,
    chaotic => Chaotic,
    spring_pendulum => SpringPendulum,
    mass_spring => MassSpring,
    free_body => FreeBody,
    heavy_top => HeavyTop,
    closed_loop => ClosedLoop,
    torus => ParticleOnTorus,
}

/// Criterion's defaults, or the short CI profile with `LIVENS_BENCH_QUICK=1`.
fn config() -> Criterion {
    let quick = std::env::var("LIVENS_BENCH_QUICK").is_ok_and(|v| v == "1");
    if quick {
        Criterion::default()
            .measurement_time(Duration::from_secs(1))
            .warm_up_time(Duration::from_millis(500))
            .sample_size(10)
    } else {
        Criterion::default()
    }
}

criterion_group! {
    name = benches;
    config = config();
    targets = pendulum, top, four_particles, spherical_pendulum, nonholonomic_particle,
        transmission, chaotic, spring_pendulum, mass_spring, free_body, heavy_top,
        closed_loop, torus
}
criterion_main!(benches);
