livens::model! {
    pub struct Pendulum {
        params { m = 1.0, g = 9.81 }
        coords { r: Vec3 }
        kinetic = 0.5 * m * dot(r_dot, r_dot);
        potential = m * g * r.z;
        holonomic { length: 0.5 * (dot(r, r) - 1.0) }
        schemes { Converted(Rk4, Symmetric) }
    }
}

fn main() {}
