livens::model! {
    pub struct Pendulum {
        params { m = 1.0, g = 9.81 }
        coords { r: Vec3 }
        let speed2 = dot(r_dot, r_dot);
        kinetic = 0.5 * m * speed2;
        potential = m * g * r.z;
        holonomic { length: dot(r, r) + speed2 - 1.0 }
    }
}

fn main() {}
