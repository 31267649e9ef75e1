//! The GGL energy–momentum step "EM" of the 3D pendulum, written by hand with nalgebra:
//! the yardstick the generated `<Pendulum3d as Step<f64, GglEm>>` is timed against
//! (`benches/handwritten.rs`) and checked against (`tests/derivatives/handwritten_em.rs`).
//!
//! The model is `L = ½ m v·v − m g q₃`, `g(q) = ½ (q·q / l² − 1)`, so `M = m I`,
//! `∇V = (0, 0, m g)`, `G(q) = qᵀ / l²` and `H = I / l²`. Every function involved is at
//! most quadratic, so the discrete derivatives of EM are the midpoint ones (spec 000
//! §2.6, the pendulum's eq. (99)). With the velocity eliminated (`v = p / m`), the
//! unknowns are `x = (q¹, p¹, λ¹, γ¹)`, eight of them, and the equations (84) read
//!
//! ```text
//! (84a) 0 = q¹ − q⁰ − h (p^½ / m + γ¹ q^½ / (m l²))
//! (84b) 0 = p¹ − p⁰ + h ((0, 0, m g) + λ¹ q^½ / l² + γ¹ p^½ / (m l²))
//! (84d) 0 = ½ (q¹·q¹ / l² − 1)
//! (84e) 0 = q¹·p¹ / (m l²)
//! ```
//!
//! with `x^½ = (x⁰ + x¹) / 2`. Newton starts from the known `(q⁰, p⁰, λ⁰, γ⁰)` and
//! follows the authors' stopping rule with tolerance `1e-9`: each iteration measures
//! `max|R|` before the update `x ← x − J⁻¹ R`, and the loop stops once that was at most
//! the tolerance (one more update than needed; at least one iteration). `J` is the exact
//! Jacobian, written out below, factored by nalgebra's dense LU.
use livens::schemes::GglEm;
use livens::{Integrator, NodeState};
use livens_models::Pendulum3d;
use nalgebra::{Matrix3, SMatrix, SVector, Vector3};

/// Newton's tolerance on `max|R|` (the paper's, and the runtime's default).
pub const TOLERANCE: f64 = 1e-9;
/// Newton's iteration budget (the runtime's default).
pub const MAX_ITERATIONS: u32 = 40;

/// The pendulum's parameters: mass `m`, rod length `l`, gravity `g`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pendulum {
    pub m: f64,
    pub l: f64,
    pub g: f64,
}

/// The state at a node: what the generated step carries in `NodeState<f64, 3, 1>`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct State {
    pub t: f64,
    pub q: Vector3<f64>,
    pub v: Vector3<f64>,
    pub p: Vector3<f64>,
    pub lambda: f64,
    pub gamma: f64,
}

/// Why a step failed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StepError {
    /// The residual is NaN or infinite.
    NonFinite,
    /// The Jacobian could not be factored.
    Singular,
    /// The budget ran out with `max|R|` still above the tolerance.
    MaxIterations,
}

/// The residual `R(x)` and its Jacobian `∂R/∂x` at the unknowns `x = (q¹, p¹, λ¹, γ¹)`.
fn equations(
    pendulum: &Pendulum,
    h: f64,
    known: &State,
    x: &SVector<f64, 8>,
) -> (SVector<f64, 8>, SMatrix<f64, 8, 8>) {
    let Pendulum { m, l, g } = *pendulum;
    let q1 = Vector3::new(x[0], x[1], x[2]);
    let p1 = Vector3::new(x[3], x[4], x[5]);
    let (lambda, gamma) = (x[6], x[7]);
    let qm = (known.q + q1) * 0.5;
    let pm = (known.p + p1) * 0.5;
    let c = 1.0 / (l * l);
    let grad_v = Vector3::new(0.0, 0.0, m * g);

    let r1 = q1 - known.q - h * (pm / m + qm * (gamma * c / m));
    let r2 = p1 - known.p + h * (grad_v + qm * (lambda * c) + pm * (gamma * c / m));
    let r3 = 0.5 * (q1.dot(&q1) * c - 1.0);
    let r4 = q1.dot(&p1) * c / m;
    let mut r = SVector::<f64, 8>::zeros();
    r.fixed_rows_mut::<3>(0).copy_from(&r1);
    r.fixed_rows_mut::<3>(3).copy_from(&r2);
    r[6] = r3;
    r[7] = r4;

    let mut j = SMatrix::<f64, 8, 8>::zeros();
    // ∂(84a)/∂(q¹, p¹, λ¹, γ¹)
    j.fixed_view_mut::<3, 3>(0, 0)
        .copy_from(&(Matrix3::identity() * (1.0 - 0.5 * h * gamma * c / m)));
    j.fixed_view_mut::<3, 3>(0, 3)
        .copy_from(&(Matrix3::identity() * (-0.5 * h / m)));
    j.fixed_view_mut::<3, 1>(0, 7)
        .copy_from(&(qm * (-h * c / m)));
    // ∂(84b)/∂(q¹, p¹, λ¹, γ¹)
    j.fixed_view_mut::<3, 3>(3, 0)
        .copy_from(&(Matrix3::identity() * (0.5 * h * lambda * c)));
    j.fixed_view_mut::<3, 3>(3, 3)
        .copy_from(&(Matrix3::identity() * (1.0 + 0.5 * h * gamma * c / m)));
    j.fixed_view_mut::<3, 1>(3, 6).copy_from(&(qm * (h * c)));
    j.fixed_view_mut::<3, 1>(3, 7)
        .copy_from(&(pm * (h * c / m)));
    // ∂(84d)/∂q¹ and ∂(84e)/∂(q¹, p¹)
    j.fixed_view_mut::<1, 3>(6, 0)
        .copy_from(&(q1.transpose() * c));
    j.fixed_view_mut::<1, 3>(7, 0)
        .copy_from(&(p1.transpose() * (c / m)));
    j.fixed_view_mut::<1, 3>(7, 3)
        .copy_from(&(q1.transpose() * (c / m)));
    (r, j)
}

/// One EM step of size `h` from `known`: the new state and the Newton iterations spent.
pub fn step(pendulum: &Pendulum, h: f64, known: &State) -> Result<(State, u32), StepError> {
    let mut x = SVector::<f64, 8>::from_column_slice(&[
        known.q[0],
        known.q[1],
        known.q[2],
        known.p[0],
        known.p[1],
        known.p[2],
        known.lambda,
        known.gamma,
    ]);
    let mut iterations = 0;
    loop {
        let (r, j) = equations(pendulum, h, known, &x);
        let residual = r.amax();
        if !residual.is_finite() {
            return Err(StepError::NonFinite);
        }
        x -= j.lu().solve(&r).ok_or(StepError::Singular)?;
        iterations += 1;
        if residual <= TOLERANCE {
            break;
        }
        if iterations >= MAX_ITERATIONS {
            return Err(StepError::MaxIterations);
        }
    }
    let q = Vector3::new(x[0], x[1], x[2]);
    let p = Vector3::new(x[3], x[4], x[5]);
    let next = State {
        t: known.t + h,
        q,
        v: p / pendulum.m,
        p,
        lambda: x[6],
        gamma: x[7],
    };
    Ok((next, iterations))
}

/// The hand-written parameters and state of a generated model and state.
pub fn from_generated(model: &Pendulum3d, state: &NodeState<f64, 3, 1>) -> (Pendulum, State) {
    let pendulum = Pendulum {
        m: model.m,
        l: model.l,
        g: model.g,
    };
    let state = State {
        t: state.t,
        q: state.q,
        v: state.v,
        p: state.p,
        lambda: state.lambda[0],
        gamma: state.gamma[0],
    };
    (pendulum, state)
}

/// The largest difference between a hand-written and a generated state, over `t`, `q`,
/// `v`, `p`, `λ` and `γ`.
pub fn difference(a: &State, b: &NodeState<f64, 3, 1>) -> f64 {
    [
        (a.t - b.t).abs(),
        (a.q - b.q).amax(),
        (a.v - b.v).amax(),
        (a.p - b.p).amax(),
        (a.lambda - b.lambda[0]).abs(),
        (a.gamma - b.gamma[0]).abs(),
    ]
    .into_iter()
    .fold(0.0, f64::max)
}

/// How closely the hand-written step follows the generated one over a run.
#[derive(Clone, Copy, Debug)]
pub struct Agreement {
    /// Steps compared.
    pub steps: u32,
    /// [`difference`] after the first step.
    pub first_step: f64,
    /// [`difference`] after the last step.
    pub last_step: f64,
    /// The largest [`difference`] over all steps.
    pub max: f64,
    /// Newton iterations of the hand-written and of the generated step, in total.
    pub iterations: (u64, u64),
    /// Steps whose Newton iteration counts differ.
    pub iteration_mismatches: u32,
}

/// Runs both steps side by side for `steps` steps of the paper's pendulum
/// (`h = 0.05` from its initial state), comparing the states after every step.
pub fn agreement(steps: u32) -> Agreement {
    let model = Pendulum3d::new();
    let initial = model
        .initial_state()
        .expect("paper's pendulum data are consistent");
    let h = Pendulum3d::DEFAULT_STEP;
    let (pendulum, mut state) = from_generated(&model, &initial);
    let mut generated = Integrator::new(model, GglEm, h, initial);
    let mut out = Agreement {
        steps,
        first_step: f64::NAN,
        last_step: f64::NAN,
        max: 0.0,
        iterations: (0, 0),
        iteration_mismatches: 0,
    };
    for n in 1..=steps {
        let (next, iterations) =
            step(&pendulum, h, &state).unwrap_or_else(|e| panic!("hand-written step {n}: {e:?}"));
        state = next;
        let report = generated
            .step()
            .unwrap_or_else(|e| panic!("generated step {n}: {e}"));
        out.iterations.0 += u64::from(iterations);
        out.iterations.1 += u64::from(report.iterations);
        if iterations != report.iterations {
            out.iteration_mismatches += 1;
        }
        let d = difference(&state, generated.state());
        if n == 1 {
            out.first_step = d;
        }
        out.last_step = d;
        out.max = out.max.max(d);
    }
    out
}
