// A parameter default that makes a constraint infinite or NaN everywhere.
livens::model! {
    pub struct Pendulum {
        params { l = 0.0 }
        coords { r: Vec3 }
        kinetic = 0.5 * dot(r_dot, r_dot);
        potential = 9.81 * r.z;
        holonomic { length: dot(r, r) / l - l }
        schemes { GglEm }
    }
}

fn main() {}
