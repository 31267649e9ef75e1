livens::model! {
    pub struct Spring {
        coords { a: Vec3, b: Vec3 }
        // An invariant of the velocities is allowed (a rigid body's `omega(q, q_dot)`),
        // but only the kinetic energy may use it.
        invariants { s: dot(b - a, b_dot), w: omega(vector(1.0, a.x, a.y, a.z), vector(0.0, a_dot.x, a_dot.y, a_dot.z)) }
        kinetic = 0.5 * (dot(a_dot, a_dot) + dot(b_dot, b_dot));
        potential = s.powi(2);
        holonomic { tied: w[0] }
    }
}

fn main() {}
