//! The Chaplygin sleigh (issue 30) with the nonholonomic Lobatto IIIA–IIIB family: the
//! paper's carried multiplier turns the sleigh around, the recomputed one does not.
use livens::prelude::*;
use livens::SolveError;
use livens_models::ChaplyginSleigh;

type State = NonholonomicState<f64, 3, 1>;

fn tight() -> NewtonOptions<f64> {
    NewtonOptions {
        tolerance: 1e-13,
        ..NewtonOptions::default()
    }
}

fn start(model: &ChaplyginSleigh<f64>) -> State {
    let node = model.initial_state().expect("consistent");
    NonholonomicState::from_velocities(model, node.q, node.v)
}

/// Runs `steps` steps of `scheme` at `h` from the default start, calling `visit` with
/// every node (the start included).
fn run<Sch>(
    scheme: Sch,
    h: f64,
    steps: usize,
    mut visit: impl FnMut(&State),
) -> Result<(), SolveError<f64>>
where
    ChaplyginSleigh<f64>: Step<f64, Sch, State = State>,
{
    let model = ChaplyginSleigh::new();
    let mut sim = Integrator::new(model, scheme, h, start(&model)).with_options(tight());
    visit(sim.state());
    for _ in 0..steps {
        sim.step()?;
        visit(sim.state());
    }
    Ok(())
}

fn explore<Sch>(name: &str, scheme: Sch, h: f64)
where
    ChaplyginSleigh<f64>: Step<f64, Sch, State = State>,
{
    let model = ChaplyginSleigh::new();
    let steps = (200.0 / h).round() as usize;
    let (mut u_prev, mut worst_drop, mut e_min, mut e_max): (f64, f64, f64, f64) =
        (f64::NAN, 0.0, f64::MAX, f64::MIN);
    let mut u_min = f64::MAX;
    let mut t_drop = 0.0;
    let e0 = 1.4;
    let res = run(scheme, h, steps, |s| {
        let (u, _) = ChaplyginSleigh::forward_and_turn(&s.q, &s.v);
        let e = model.energy_of(&s.q, &s.v) - e0;
        if u_prev - u > worst_drop {
            worst_drop = u_prev - u;
            t_drop = s.t;
        }
        u_prev = u;
        u_min = u_min.min(u);
        e_min = e_min.min(e);
        e_max = e_max.max(e);
    });
    println!("{name} h={h}: {res:?} worst drop {worst_drop:.3e} at t={t_drop:.2}, u_min {u_min:.3}, last u {u_prev:.4}, energy err [{e_min:.3e}, {e_max:.3e}]");
}

#[test]
fn explore_all() {
    for h in [0.1, 0.025] {
        explore("rec 2", NonholonomicLobatto::<2>, h);
        explore("rec 3", NonholonomicLobatto::<3>, h);
        explore("rec 4", NonholonomicLobatto::<4>, h);
        explore("rec 5", NonholonomicLobatto::<5>, h);
        explore("car 2", NonholonomicLobattoCarried::<2>, h);
        explore("car 3", NonholonomicLobattoCarried::<3>, h);
        explore("car 4", NonholonomicLobattoCarried::<4>, h);
        explore("car 5", NonholonomicLobattoCarried::<5>, h);
    }
}
