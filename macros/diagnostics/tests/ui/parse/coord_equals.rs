livens::model! {
    pub struct Pendulum {
        params { m = 1.0 }
        coords { r = Vec3 }
        kinetic = 0.5 * m * dot(r_dot, r_dot);
    }
}

fn main() {}
