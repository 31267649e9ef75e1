livens::model! {
    pub struct Pendulum {
        params { m = 1.0 }
        coords { r: Vec3 }
    }
}

fn main() {}
