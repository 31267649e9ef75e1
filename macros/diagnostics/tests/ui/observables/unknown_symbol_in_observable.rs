livens::model! {
    pub struct Particle {
        coords { r: Vec3 }
        kinetic = 0.5 * dot(r_dot, r_dot);
        observables { height: r.z * gravity }
    }
}

fn main() {}
