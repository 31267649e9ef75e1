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
