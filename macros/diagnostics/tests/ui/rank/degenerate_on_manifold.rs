// Constraints independent at generic points that lose rank where they hold: a squared
// constraint, and a product of two constraints beside one of them.
livens::model! {
    pub struct Pendulum {
        coords { r: Vec3 }
        kinetic = 0.5 * dot(r_dot, r_dot);
        potential = 9.81 * r.z;
        holonomic { squared: (dot(r, r) - 1.0).powi(2) }
        schemes { GglEm }
    }
}

livens::model! {
    pub struct Bead {
        coords { r: Vec3 }
        kinetic = 0.5 * dot(r_dot, r_dot);
        potential = 9.81 * r.z;
        holonomic {
            sphere: dot(r, r) - 1.0,
            product: (dot(r, r) - 1.0) * (r.z - 0.5),
        }
        schemes { GglEm }
    }
}

fn main() {}
