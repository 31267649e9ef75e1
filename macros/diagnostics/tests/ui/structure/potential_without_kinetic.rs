livens::model! {
    pub struct Pendulum {
        params { m = 1.0, g = 9.81 }
        coords { r: Vec3 }
        potential = m * g * r.z;
    }
}

fn main() {}
