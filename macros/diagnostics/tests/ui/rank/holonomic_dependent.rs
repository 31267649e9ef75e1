// Constraints that syntax cannot tell apart from independent ones: decided by the rank
// of their gradients at sample points, each reported on its own name.
livens::model! {
    pub struct Pendulums {
        params { l = 1.0 }
        coords { a: Vec3, b: Vec3 }
        kinetic = 0.5 * (dot(a_dot, a_dot) + dot(b_dot, b_dot));
        potential = 9.81 * (a.z + b.z);
        holonomic {
            length: dot(a, a) - l * l,
            twice: 2.0 * (dot(a, a) - l * l),
            cancelled: (b.x + b.y) * (b.x + b.y) - (b.x * b.x + 2.0 * b.x * b.y + b.y * b.y),
            rod: norm_squared(a - b) - 1.0,
            mirror: norm_squared(a - b) - norm_squared(b - a),
            sum: dot(a, a) + norm_squared(a - b) - l * l - 1.0,
        }
        schemes { GglEm }
    }
}

fn main() {}
