//! Bad run-time input is an error at the front door, with the right reason: non-finite
//! or unphysical parameters, initial data, step sizes, states and Newton options are
//! refused before any work; `NodeState::consistent` never returns a non-finite field;
//! Newton's failures say whether the step or the tolerance is to blame; the default
//! options work in `f32`.
use livens::prelude::*;
use livens::{InitError, ParameterError, SolveError};
use livens_models::{CartPole, FourParticles, LagrangeTop, Pendulum3d, SphericalPendulum};

fn pendulum_state(model: &Pendulum3d) -> Result<NodeState<f64, 3, 1>, InitError<f64>> {
    let (q, v) = Pendulum3d::initial_positions_velocities();
    NodeState::consistent(model, q, v, Consistency::Project { tolerance: 1e-12 })
}

// ---- parameters --------------------------------------------------------------------------

#[test]
fn unphysical_parameters_are_refused_by_name() {
    let mut m = Pendulum3d::new();
    m.m = -1.0;
    assert_eq!(
        m.check_parameters(),
        Err(ParameterError::Violated {
            requirement: "m > 0.0"
        })
    );
    let e = pendulum_state(&m).unwrap_err();
    assert_eq!(
        e,
        InitError::Parameter(ParameterError::Violated {
            requirement: "m > 0.0"
        })
    );
    assert!(e.to_string().contains("`m > 0.0`"), "{e}");

    let mut m = Pendulum3d::new();
    m.l = 0.0;
    assert_eq!(
        m.check_parameters(),
        Err(ParameterError::Violated {
            requirement: "l > 0.0"
        })
    );

    // The top's principal moments must satisfy the triangle inequalities (its director
    // inertias are then positive).
    let mut top = LagrangeTop::new();
    assert_eq!(top.check_parameters(), Ok(()));
    top.i3 = top.i1 + top.i2 + 1e-6;
    assert_eq!(
        top.check_parameters(),
        Err(ParameterError::Violated {
            requirement: "i3 < i1 + i2"
        })
    );

    let mut four = FourParticles::new();
    assert_eq!(four.check_parameters(), Ok(()));
    four.k24 = -500.0;
    assert_eq!(
        four.check_parameters(),
        Err(ParameterError::Violated {
            requirement: "k24 >= 0.0"
        })
    );
}

#[test]
fn non_finite_parameters_are_refused_even_where_only_lambda_sees_them() {
    // g enters λ but not the constraints: before, a NaN g gave a "consistent" state
    // with λ = NaN.
    for value in [f64::NAN, f64::INFINITY] {
        let mut m = Pendulum3d::new();
        m.g = value;
        let e = pendulum_state(&m).unwrap_err();
        assert!(
            matches!(e, InitError::Parameter(ParameterError::NotFinite { name: "g", value: v }) if v.to_bits() == value.to_bits()),
            "{e:?}"
        );
        assert!(e.to_string().contains("parameter `g`"), "{e}");
    }
}

#[test]
fn parameters_changed_between_steps_are_checked_before_the_next() {
    let model = Pendulum3d::new();
    let initial = pendulum_state(&model).unwrap();
    let mut sim = Integrator::new(model, GglEm, 0.05, initial);
    sim.step().unwrap();
    let before = *sim.state();
    sim.model_mut().m = f64::NAN;
    let e = sim.step().unwrap_err();
    assert!(
        matches!(
            e,
            SolveError::Parameter(ParameterError::NotFinite { name: "m", .. })
        ),
        "{e:?}"
    );
    assert_eq!(*sim.state(), before, "a refused step changed the state");
    sim.model_mut().m = -2.0;
    assert_eq!(
        sim.step(),
        Err(SolveError::Parameter(ParameterError::Violated {
            requirement: "m > 0.0"
        }))
    );
    sim.model_mut().m = 1.0;
    sim.step().unwrap();
}

// ---- consistent initial data -------------------------------------------------------------

#[test]
fn consistent_refuses_non_finite_input() {
    let m = Pendulum3d::new();
    let (q, v) = Pendulum3d::initial_positions_velocities();
    for mode in [
        Consistency::Project { tolerance: 1e-12 },
        Consistency::Reject { tolerance: 1e-12 },
    ] {
        let mut bad_v = v;
        bad_v[1] = f64::NAN;
        assert_eq!(
            NodeState::consistent(&m, q, bad_v, mode),
            Err(InitError::NonFiniteInput { field: "v" })
        );
        let mut bad_q = q;
        bad_q[2] = f64::NEG_INFINITY;
        assert_eq!(
            NodeState::consistent(&m, bad_q, v, mode),
            Err(InitError::NonFiniteInput { field: "q" })
        );
    }
    // A NaN tolerance used to report "inconsistent initial data: max|g| = 0".
    let e = NodeState::consistent(
        &m,
        q,
        v,
        Consistency::Reject {
            tolerance: f64::NAN,
        },
    )
    .unwrap_err();
    assert!(matches!(e, InitError::InvalidTolerance { .. }), "{e:?}");
    assert!(e.to_string().contains("tolerance"), "{e}");
    let e = NodeState::consistent(&m, q, v, Consistency::Project { tolerance: -1.0 }).unwrap_err();
    assert!(matches!(e, InitError::InvalidTolerance { .. }), "{e:?}");
}

#[test]
fn consistent_never_returns_non_finite_fields() {
    // Finite but enormous velocities: λ (the centripetal force m v²/l) and the energy
    // overflow.
    let m = Pendulum3d::new();
    let (q, _) = Pendulum3d::initial_positions_velocities();
    let v = SVector::from([0.0, 1e200, 0.0]);
    let e = NodeState::consistent(&m, q, v, Consistency::Project { tolerance: 1e-12 }).unwrap_err();
    assert!(
        matches!(
            e,
            InitError::NonFiniteResult {
                field: "lambda" | "energy"
            }
        ),
        "{e:?}"
    );
    assert!(e.to_string().contains("too large"), "{e}");
}

// ---- the step's front door ---------------------------------------------------------------

#[test]
fn a_non_finite_state_is_refused_and_kept() {
    let model = Pendulum3d::new();
    let good = pendulum_state(&model).unwrap();
    type Spoil = fn(&mut NodeState<f64, 3, 1>);
    let cases: [(&str, Spoil); 5] = [
        ("t", |s| s.t = f64::NAN),
        ("q", |s| s.q[0] = f64::INFINITY),
        ("p", |s| s.p[1] = f64::NAN),
        ("v", |s| s.v[2] = f64::NAN),
        ("lambda", |s| s.lambda[0] = f64::NAN),
    ];
    for (field, spoil) in cases {
        let mut bad = good;
        spoil(&mut bad);
        for scheme_result in [
            Integrator::new(model, GglEm, 0.05, bad).step(),
            Integrator::new(model, GglViA, 0.05, bad).step(),
        ] {
            assert_eq!(
                scheme_result,
                Err(SolveError::NonFiniteState { field }),
                "{field}"
            );
        }
        let mut sim = Integrator::new(model, Rattle, 0.05, bad);
        let e = sim.step().unwrap_err();
        assert_eq!(e, SolveError::NonFiniteState { field }, "{field}");
        assert!(e.to_string().contains(&format!("`{field}`")), "{e}");
        // Bit for bit what it was (NaN != NaN, so compare the bits).
        let bits = |s: &NodeState<f64, 3, 1>| {
            let mut b = vec![s.t.to_bits()];
            for x in s.q.iter().chain(&s.v).chain(&s.p).chain(&s.lambda) {
                b.push(x.to_bits());
            }
            b
        };
        assert_eq!(bits(sim.state()), bits(&bad), "{field}: state changed");
    }
}

#[test]
fn invalid_newton_options_are_refused_with_the_option_named() {
    let model = Pendulum3d::new();
    let initial = pendulum_state(&model).unwrap();
    let cases = [
        (
            NewtonOptions {
                tolerance: f64::NAN,
                ..NewtonOptions::default()
            },
            "tolerance",
        ),
        (
            NewtonOptions {
                tolerance: 0.0,
                ..NewtonOptions::default()
            },
            "tolerance",
        ),
        (
            NewtonOptions {
                max_iterations: 0,
                ..NewtonOptions::default()
            },
            "budget",
        ),
        (
            NewtonOptions {
                divergence: Some(0.5),
                ..NewtonOptions::default()
            },
            "divergence",
        ),
    ];
    for (options, word) in cases {
        let mut sim = Integrator::new(model, GglEm, 0.05, initial).with_options(options);
        let e = sim.step().unwrap_err();
        assert!(
            matches!(e, SolveError::InvalidOptions { reason } if reason.contains(word)),
            "{options:?}: {e:?}"
        );
        assert_eq!(*sim.state(), initial);
    }
}

// ---- scalar precision --------------------------------------------------------------------

#[test]
fn default_options_work_in_f32() {
    // The paper's tolerance 1e-9 is below f32's round-off; the default follows the
    // scalar's precision.
    assert_eq!(NewtonOptions::<f64>::default().tolerance, 1e-9);
    let tol32 = NewtonOptions::<f32>::default().tolerance;
    assert!(tol32 > 1e-6 && tol32 < 1e-3, "{tol32}");

    let model = Pendulum3d::<f32>::default();
    let initial = pendulum_state(&Pendulum3d::new())
        .unwrap()
        .map(|x| x as f32);
    for run in [
        Integrator::new(model, GglEm, 0.05, initial).run(200),
        Integrator::new(model, GglViA, 0.05, initial).run(200),
        Integrator::new(model, Rattle, 0.05, initial).run(200),
    ] {
        run.unwrap();
    }
    let mut sim = Integrator::new(model, GglEm, 0.05, initial);
    sim.run(200).unwrap();
    let e0 = model.energy(&initial.q, &initial.v);
    let e = model.energy(&sim.state().q, &sim.state().v);
    assert!((e - e0).abs() < 1e-4 * e0.abs().max(1.0), "{e0} → {e}");
}

#[test]
fn an_unreachable_tolerance_is_named_as_such() {
    // f32 with the f64 paper's tolerance, below f32's machine epsilon: refused when the
    // options are set, and by the step, before any iteration.
    let model = Pendulum3d::<f32>::default();
    let initial = pendulum_state(&Pendulum3d::new())
        .unwrap()
        .map(|x| x as f32);
    let below_epsilon = NewtonOptions {
        tolerance: 1e-12,
        ..NewtonOptions::default()
    };
    let mut sim = Integrator::new(model, GglEm, 0.05, initial);
    let e = sim.set_options(below_epsilon).unwrap_err();
    assert!(
        matches!(e, SolveError::InvalidOptions { reason } if reason.contains("machine epsilon")),
        "{e:?}"
    );
    assert_eq!(
        *sim.options(),
        NewtonOptions::default(),
        "the old options are kept"
    );
    let e = sim.clone().with_options(below_epsilon).step().unwrap_err();
    assert!(matches!(e, SolveError::InvalidOptions { .. }), "{e:?}");

    // Above epsilon but below the round-off of this problem's residuals (entries of
    // order g = 9.81): the residual stalls, and the error says so rather than "try a
    // smaller step size".
    let tight = NewtonOptions {
        tolerance: f32::EPSILON,
        ..NewtonOptions::default()
    };
    sim.set_options(tight).unwrap();
    let e = (0..100)
        .find_map(|_| {
            let before = *sim.state();
            sim.step()
                .err()
                .inspect(|_| assert_eq!(*sim.state(), before, "a failed step keeps the state"))
        })
        .expect("round-off stalls the residual within 100 steps");
    let SolveError::ToleranceUnreachable {
        tolerance,
        residual,
    } = e
    else {
        panic!("{e:?}");
    };
    assert_eq!(tolerance, f32::EPSILON);
    assert!(residual > tolerance && residual < 1e-3, "{residual}");
    assert!(e.to_string().contains("loosen the tolerance"), "{e}");

    // A budget too small for a converging iteration is still a budget failure.
    let model = Pendulum3d::new();
    let initial = pendulum_state(&model).unwrap();
    let e = Integrator::new(model, GglEm, 0.05, initial)
        .with_options(NewtonOptions {
            max_iterations: 2,
            ..NewtonOptions::default()
        })
        .step()
        .unwrap_err();
    assert!(
        matches!(e, SolveError::MaxIterations { iterations: 2, .. }),
        "{e:?}"
    );
}

/// A step's context is checked as its step size is: a non-finite start time or input
/// is refused by name before any work, for a generated GGL scheme and an assembled
/// stage family alike, and the state is untouched (it is only read).
#[test]
fn non_finite_times_and_inputs_are_refused() {
    let model = Pendulum3d::new();
    let good = pendulum_state(&model).unwrap();
    let options = livens::StepOptions::default();
    let mut ws = Step::<f64, GglEm>::workspace::<livens::solve::Inline>(&model, &GglEm);
    for t in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let context = StepContext::new(0.05, t);
        let e = model
            .step(&GglEm, context, &good, &mut ws, &options)
            .unwrap_err();
        assert!(
            matches!(e, SolveError::InvalidTime { t: given } if given.to_bits() == t.to_bits())
        );
        assert!(e.to_string().contains("start time"), "{e}");
    }
    let inputs = [0.0, 1.0, f64::NAN];
    let context = StepContext {
        h: 0.05,
        t: 0.0,
        inputs: &inputs,
    };
    let e = model
        .step(&GglEm, context, &good, &mut ws, &options)
        .unwrap_err();
    // The pendulum has no inputs: three are refused by count.
    assert_eq!(
        e,
        SolveError::WrongInputCount {
            expected: 0,
            given: 3
        }
    );
    assert!(e.to_string().contains("given 3 inputs"), "{e}");
    // The cart-pole has one: a NaN there is refused by index.
    let cart = CartPole::new();
    let start = NodeState::consistent(
        &cart,
        SVector::from([0.0, 0.1]),
        SVector::zeros(),
        Consistency::Reject { tolerance: 1e-12 },
    )
    .unwrap();
    let mut cart_ws = Step::<f64, Eml>::workspace::<livens::solve::Inline>(&cart, &Eml);
    let inputs = [f64::NAN];
    let context = StepContext {
        h: 0.05,
        t: 0.0,
        inputs: &inputs,
    };
    let e = cart
        .step(&Eml, context, &start, &mut cart_ws, &options)
        .unwrap_err();
    assert_eq!(e, SolveError::NonFiniteInput { index: 0 });
    assert!(e.to_string().contains("input 0"), "{e}");
    // A stage family, through the same front door.
    let model = SphericalPendulum::new();
    let (q, v) = SphericalPendulum::initial_positions_velocities();
    let state = PhaseState::from_velocities(&model, q, v);
    let scheme = HolonomicLobatto::<2>;
    let mut ws =
        Step::<f64, HolonomicLobatto<2>>::workspace::<livens::solve::Inline>(&model, &scheme);
    let context = StepContext::new(0.05, f64::NAN);
    let e = model
        .step(&scheme, context, &state, &mut ws, &options)
        .unwrap_err();
    assert!(matches!(e, SolveError::InvalidTime { .. }), "{e:?}");
    // A finite context steps.
    let context = StepContext::new(0.05, 0.0);
    assert!(model
        .step(&scheme, context, &state, &mut ws, &options)
        .is_ok());
}
