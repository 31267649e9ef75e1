//! `NodeState::consistent` on a 2 MiB thread for a 64-link chain (192 coordinates, 64
//! constraints; its EM step has 512 unknowns), in both modes: the initial-state
//! computation keeps one `D × D` matrix, factored in place, as the step keeps its
//! Jacobian in the workspace.
use livens::prelude::*;

livens::model! {
    /// A chain of 64 point masses on rigid rods (see `livens_models::Chain10`), with
    /// `HolonomicLobatto(2)` (its EM step would be over the macro's budget).
    pub struct Chain64 {
        params { m = 1.0, l = 1.0, g = 9.81 }
        requires { m > 0.0, l > 0.0 }
        coords { r: [Vec3; 64] }
        kinetic = sum(i in 0..64, 0.5 * m * dot(r_dot[i], r_dot[i]));
        potential = sum(i in 0..64, m * g * r[i].z);
        let k = 0.5 / (l * l);
        holonomic {
            pivot: k * dot(r[0], r[0]) - 0.5,
            link: for i in 1..64 { k * norm_squared(r[i] - r[i - 1]) - 0.5 },
        }
        schemes { HolonomicLobatto(2) }
    }
}

const D: usize = 192;
const M: usize = 64;

/// On a thread with a 2 MiB stack, the size a user's worker thread typically gets.
fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("a thread")
        .join()
        .expect("no overflow, no panic");
}

/// Straight out along e1 (`r[k] = (k + 1) e1`), the links stretched by `stretch`, and
/// a velocity with a component along every link (so that both projections have work).
fn data(stretch: f64) -> (SVector<f64, D>, SVector<f64, D>) {
    let (mut q, mut v) = (SVector::zeros(), SVector::zeros());
    for k in 0..M {
        q[3 * k] = (k + 1) as f64 * (1.0 + stretch);
        q[3 * k + 2] = 0.1 * ((k % 3) as f64 - 1.0) * stretch;
        v[3 * k] = 0.01 * k as f64;
        v[3 * k + 1] = 1.0;
    }
    (q, v)
}

#[test]
fn projected_and_checked_on_a_small_stack() {
    on_small_stack(|| {
        let model = Chain64::new();
        let (q, v) = data(1e-3);
        let state = NodeState::<f64, D, M>::consistent(
            &model,
            q,
            v,
            Consistency::Project { tolerance: 1e-12 },
        )
        .expect("projected");
        let g = model.constraints(&state.q).amax();
        let gv = (model.constraint_jacobian(&state.q) * state.v).amax();
        println!("projected: max|g| {g:.1e}, max|G v| {gv:.1e}");
        assert!(g <= 1e-12 && gv <= 1e-12, "{g:e} {gv:e}");
        // The multiplier solves the hidden constraint: with M = I, q̈ = ∂L/∂q − Gᵀλ
        // must satisfy G q̈ + c = 0.
        let g_jac = model.constraint_jacobian(&state.q);
        let acceleration = model.dl_dq(&state.q, &state.v) - g_jac.transpose() * state.lambda;
        let hidden = g_jac * acceleration + model.constraint_curvature(&state.q, &state.v);
        println!("G q̈ + c: {:.1e}", hidden.amax());
        assert!(hidden.amax() <= 1e-9, "{:e}", hidden.amax());
        // The consistent state passes the check unchanged.
        let checked = NodeState::<f64, D, M>::consistent(
            &model,
            state.q,
            state.v,
            Consistency::Reject { tolerance: 1e-12 },
        )
        .expect("consistent");
        assert_eq!((checked.q, checked.v), (state.q, state.v));
        assert!((checked.lambda - state.lambda).amax() <= 1e-9 * state.lambda.amax());
        // Inconsistent data are refused with the violation.
        let (q, v) = data(1e-3);
        match NodeState::<f64, D, M>::consistent(
            &model,
            q,
            v,
            Consistency::Reject { tolerance: 1e-12 },
        ) {
            Err(livens::InitError::Inconsistent { position, .. }) => assert!(position > 1e-4),
            other => panic!("{other:?}"),
        }
        // And the state steps, on the same thread (the workspace boxed: 704 unknowns).
        let start: PhaseState<f64, D> = livens::FromNode::from_node(&state);
        let mut sim = Integrator::new_boxed(model, HolonomicLobatto::<2>, 0.01, start);
        let report = sim.step().expect("a step");
        println!(
            "one HolonomicLobatto(2) step (704 unknowns): {} iterations",
            report.iterations
        );
    });
}
