livens::model! {
    pub struct Pendulum {
        params { m = 1.0, g = 9.81 }
        coords { r: Vec3 }
        kinetic = 0.5 * m * dot(r_dot, r_dot);
        potential = m * g * r.z;
        schemes { GglEm, GglEM }
    }
}

fn main() {}
