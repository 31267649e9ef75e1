livens::model! {
    pub struct Pendulum {
        params { m = 1.0 }
        coords { r: Vec3 }
        let v2 = dot(r_dot, rdot);
        kinetic = 0.5 * m * v2;
    }
}

fn main() {}
