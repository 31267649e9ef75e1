//! Symplecticity, checked numerically as spec 000 §4 item 3 prescribes: two variations
//! `(δq, δp)` of a step's input with `G(q⁰) δq = 0` are propagated by central differences
//! (ε = 1e-6) through ten full steps, and the symplectic form
//! `ω(a, b) = δq_a · δp_b − δp_a · δq_b` is compared before and after. The variational
//! integrators keep it to the accuracy of the differences; the energy–momentum schemes
//! do not, which shows that the test can tell.
use livens::prelude::*;
use livens_models::FourParticles;

const EPS: f64 = 1e-6;
const STEPS: usize = 10;

/// `(q, p)` after `STEPS` steps from `(q, p)` with the rest of `base`.
fn flow<S: SchemeInfo + Copy>(
    scheme: S,
    base: &NodeState<f64, 12, 2>,
    q: SVector<f64, 12>,
    p: SVector<f64, 12>,
) -> (SVector<f64, 12>, SVector<f64, 12>)
where
    FourParticles: Step<f64, S, State = NodeState<f64, 12, 2>>,
{
    let state = NodeState { q, p, ..*base };
    let mut sim = Integrator::new(FourParticles::new(), scheme, 0.01, state);
    for _ in 0..STEPS {
        sim.step().expect("Newton converges");
    }
    (sim.state().q, sim.state().p)
}

/// A state well inside the motion: the paper's data after 0.5 s of EM. (Outside the
/// generic functions, whose where-clause would shadow the `GglEm` impl in inference.)
fn base_state() -> NodeState<f64, 12, 2> {
    let model = FourParticles::new();
    let mut sim = Integrator::new(
        model,
        GglEm,
        0.01,
        model.initial_state().expect("consistent"),
    );
    for _ in 0..50 {
        sim.step().expect("Newton converges");
    }
    *sim.state()
}

/// Relative change of ω between two variations over `STEPS` steps.
fn omega_change<S: SchemeInfo + Copy>(scheme: S) -> f64
where
    FourParticles: Step<f64, S, State = NodeState<f64, 12, 2>>,
{
    let model = FourParticles::new();
    let base = base_state();
    // Variations tangent to the constraints: project pseudo-random directions onto ker G.
    let jac = model.constraint_jacobian(&base.q);
    let project = |w: SVector<f64, 12>| {
        let gg = jac * jac.transpose();
        let y = gg.lu().solve(&(jac * w)).expect("G has full rank");
        w - jac.transpose() * y
    };
    let dir = |k: f64| SVector::<f64, 12>::from_fn(|i, _| ((i as f64 + 1.0) * k).sin());
    let variations = [(project(dir(0.7)), dir(1.3)), (project(dir(2.1)), dir(0.4))];
    let propagate = |(dq, dp): (SVector<f64, 12>, SVector<f64, 12>)| {
        let (qa, pa) = flow(scheme, &base, base.q + dq * EPS, base.p + dp * EPS);
        let (qb, pb) = flow(scheme, &base, base.q - dq * EPS, base.p - dp * EPS);
        ((qa - qb) / (2.0 * EPS), (pa - pb) / (2.0 * EPS))
    };
    let omega = |a: &(SVector<f64, 12>, SVector<f64, 12>),
                 b: &(SVector<f64, 12>, SVector<f64, 12>)| {
        a.0.dot(&b.1) - a.1.dot(&b.0)
    };
    let before = omega(&variations[0], &variations[1]);
    let after = omega(&propagate(variations[0]), &propagate(variations[1]));
    ((after - before) / before).abs()
}

#[test]
fn variational_integrators_are_symplectic_energy_momentum_schemes_are_not() {
    let symplectic = [
        ("VI-S", omega_change(GglViS)),
        ("VI-A", omega_change(GglViA)),
        ("VI-B", omega_change(GglViB)),
    ];
    let not_symplectic = [("EM", omega_change(GglEm)), ("EM-G", omega_change(GglEmG))];
    for (label, change) in symplectic {
        eprintln!("{label}: relative change of ω over {STEPS} steps {change:e}");
        assert!(change <= 1e-7, "{label}: {change:e}");
    }
    for (label, change) in not_symplectic {
        eprintln!("{label}: relative change of ω over {STEPS} steps {change:e}");
        assert!(change >= 1e-5, "{label} should not preserve ω: {change:e}");
    }
}
