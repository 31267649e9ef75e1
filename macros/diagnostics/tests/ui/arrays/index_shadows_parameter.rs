livens::model! {
    pub struct Chain {
        params { m = 1.0, l = 1.0, g = 9.81 }
        coords { r: [Vec3; 10] }
        kinetic = sum(m in 0..10, 0.5 * dot(r_dot[m], r_dot[m]));
    }
}

fn main() {}
