// A constraint, momentum map or observable name used twice in its list.
livens::model! {
    pub struct Particles {
        coords { a: Vec3, b: Vec3 }
        kinetic = 0.5 * (dot(a_dot, a_dot) + dot(b_dot, b_dot));
        potential = 9.81 * (a.z + b.z);
        holonomic { rod: norm_squared(a - b) - 1.0, rod: dot(a, a) - 1.0 }
        momentum { lz: rotation(e3), lz: translation(e1) }
        observables { h: a.z, h: b.z }
        schemes { GglEm }
    }
}

fn main() {}
