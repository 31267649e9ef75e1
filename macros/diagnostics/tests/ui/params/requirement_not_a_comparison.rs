// A requirement is a comparison of parameter expressions; `==` (never robust in
// floating point), a bare expression and a coordinate are refused.
livens::model! {
    pub struct Pendulum {
        params { m = 1.0, l = 1.0 }
        requires { m == 1.0, l, r.x > 0.0 }
        coords { r: Vec3 }
        kinetic = 0.5 * m * dot(r_dot, r_dot);
        holonomic { length: dot(r, r) - l * l }
        schemes { GglEm }
    }
}

fn main() {}
