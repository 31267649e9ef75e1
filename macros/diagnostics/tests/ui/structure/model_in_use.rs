// An error in a model whose struct is used: one error, no follow-up errors at the uses.
use livens::prelude::*;

livens::model! {
    pub struct Pendulum {
        params { m = 1.0 }
        coords { r: Vec3 }
        kinetic = 0.5 * m * dot(r_dot, r_dott);
        schemes { GglEm }
    }
}

impl Pendulum<f64> {
    pub fn mass(&self) -> f64 {
        self.m
    }
}

fn main() {
    let model = Pendulum::new();
    let _ = model.mass();
    let q = SVector::from([1.0, 0.0, 0.0]);
    let v = SVector::from([0.0, 1.0, 0.0]);
    let state = NodeState::consistent(&model, q, v, Consistency::Reject { tolerance: 1e-12 }).unwrap();
    let mut sim = Integrator::new(model, GglEm, 0.05, state);
    sim.step().unwrap();
}
