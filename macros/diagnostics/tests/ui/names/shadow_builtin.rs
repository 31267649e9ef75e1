livens::model! {
    pub struct Pendulum {
        params { m = 1.0, e1 = 2.0 }
        coords { r: Vec3 }
        kinetic = 0.5 * m * e1 * dot(r_dot, r_dot);
    }
}

fn main() {}
