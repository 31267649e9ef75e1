livens::model! {
    pub struct Spring {
        coords { a: Vec3, b: Vec3 }
        invariants { pi: dot(b - a, b_dot) }
        kinetic = 0.5 * (dot(a_dot, a_dot) + dot(b_dot, b_dot));
        potential = pi.powi(2);
    }
}

fn main() {}
