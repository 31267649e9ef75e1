livens::model! {
    pub struct Particle {
        coords { r: Vec3 }
        kinetic = 0.5 * dot(r_dot, r_dot);
        observables { speed: dot(r_dot, r_dot), stretch: diag(r.x, r.y, r.z) }
    }
}

fn main() {}
