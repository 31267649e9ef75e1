livens::model! {
    pub struct Pendulum {
        params { g = 9.81 }
        coords { r: Vec3 }
        kinetic = 0.5 * r.z * dot(r_dot, r_dot);
        potential = g * r.z;
        schemes { GglEm }
    }
}

fn main() {}
