// A constraint of no components used to vanish without a word.
livens::model! {
    pub struct Pendulum {
        coords { r: Vec3 }
        kinetic = 0.5 * dot(r_dot, r_dot);
        potential = 9.81 * r.z;
        holonomic { length: dot(r, r) - 1.0, zv: vector() }
        schemes { GglEm }
    }
}

fn main() {}
