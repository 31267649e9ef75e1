//! The closed loop's hook: what runs before each step.
//!
//! Every run calls [`Controller::before_step`] with the integrator before it steps, so
//! a controller sees the state the step starts from and may change what the step
//! uses: a model parameter now (through `Integrator::model_mut`), a model's declared
//! inputs once the DSL has them. An LQR controller, for instance, computes `u = −K x`
//! from `sim.state()` here and hands it to the integrator; nothing else in the runs
//! changes.

/// Decides, before each step, what the step uses.
pub trait Controller<Sim> {
    /// Called with the integrator before each step.
    fn before_step(&mut self, sim: &mut Sim);
}

/// No control: the model steps with its declared parameters and forces.
pub struct OpenLoop;

impl<Sim> Controller<Sim> for OpenLoop {
    fn before_step(&mut self, _sim: &mut Sim) {}
}

use livens::prelude::*;
use livens_models::CartPole;

/// State feedback `u = −K z` on the cart-pole's `z = (x, θ, p_x, p_θ)`, the push held
/// over the next step.
pub struct Lqr<T: livens::Real> {
    /// The gain, from the linearised step and the Riccati equation on the core.
    pub k: SMatrix<T, 1, 4>,
    /// The largest push commanded.
    pub max_push: f64,
    /// Whether every push was accepted (finite).
    pub accepted: bool,
}

impl<T, S> Controller<Integrator<T, CartPole<T>, S>> for Lqr<T>
where
    T: livens::Real + Into<f64>,
    CartPole<T>: Step<T, S, State = PhaseState<T, 2>, Inputs = [T; 1]>,
{
    fn before_step(&mut self, sim: &mut Integrator<T, CartPole<T>, S>) {
        let s = sim.state();
        let z = SVector::from([s.q[0], s.q[1], s.p[0], s.p[1]]);
        let u = -(self.k * z)[0];
        let magnitude: f64 = u.into();
        self.max_push = self.max_push.max(magnitude.abs());
        self.accepted &= sim.set_inputs([u]).is_ok();
    }
}
