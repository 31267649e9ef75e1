// A requirement the declared defaults break: caught at compile time, not at the first
// step.
livens::model! {
    pub struct Pendulum {
        params { m = -1.0, l = 1.0 }
        requires { m > 0.0, l > 0.0 }
        coords { r: Vec3 }
        kinetic = 0.5 * m * dot(r_dot, r_dot);
        holonomic { length: dot(r, r) - l * l }
        schemes { GglEm }
    }
}

fn main() {}
