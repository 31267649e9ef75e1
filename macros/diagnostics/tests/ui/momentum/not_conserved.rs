// Declared momentum maps must be symmetries of L and of the constraints, or they are
// not conserved: rotation about e1 fights gravity along e3, a translation along e1
// moves the pendulum's pivot, and a zero axis generates nothing.
livens::model! {
    pub struct Pendulum {
        params { m = 1.0, l = 1.0, g = 9.81 }
        coords { q: Vec3 }
        kinetic = 0.5 * m * dot(q_dot, q_dot);
        potential = m * g * q.z;
        holonomic { length: 0.5 * (dot(q, q) / (l * l) - 1.0) }
        momentum { j1: rotation(e1), j3: rotation(e3), p1: translation(e1), z: rotation(0.0 * e1) }
        schemes { GglEm }
    }
}

// A rotation acts on Vec3 coordinates only: here its momentum map would be zero.
livens::model! {
    pub struct Angles {
        coords { a: Scalar, b: Scalar }
        kinetic = 0.5 * (a_dot * a_dot + b_dot * b_dot);
        momentum { j: rotation(e3) }
    }
}

fn main() {}
