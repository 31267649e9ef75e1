// Constraints that constrain nothing or one thing twice: each reported on its own name.
livens::model! {
    pub struct Pendulum {
        params { m = 1.0, g = 9.81, l = 1.0 }
        coords { r: Vec3 }
        kinetic = 0.5 * m * dot(r_dot, r_dot);
        potential = m * g * r.z;
        holonomic {
            length: dot(r, r) - l * l,
            nothing: r.x - r.x,
            fixed: l - 1.0,
            again: dot(r, r) - l * l,
        }
        schemes { GglEm }
    }
}

fn main() {}
