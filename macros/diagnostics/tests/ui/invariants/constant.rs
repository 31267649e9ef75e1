// Invariants that the motion cannot change: identically zero, cancelling, a number.
livens::model! {
    pub struct Spring {
        coords { a: Vec3, b: Vec3 }
        invariants {
            stretch: norm_squared(b - a),
            zero: dot(a, a) - dot(a, a),
            cancelled: (a.x + a.y) * (a.x + a.y) - (a.x * a.x + 2.0 * a.x * a.y + a.y * a.y),
            one: 1.0 + 0.0 * a.x,
        }
        kinetic = 0.5 * (dot(a_dot, a_dot) + dot(b_dot, b_dot));
        potential = 0.5 * stretch + zero + cancelled + one;
        schemes { GglEm }
    }
}

fn main() {}
