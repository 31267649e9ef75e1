livens::model! {
    pub struct Chain {
        params { m = 1.0, l = 1.0, g = 9.81 }
        coords { r: [Vec3; 10] }
        kinetic = sum(i in 0..10, 0.5 * m * dot(r_dot[i], r_dot[i]));
        potential = m * g * r[m].z;
    }
}

fn main() {}
