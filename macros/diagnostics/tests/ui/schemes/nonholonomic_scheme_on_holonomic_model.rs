livens::model! {
    pub struct SphericalPendulum {
        coords { q: Vec3 }
        kinetic = 0.5 * dot(q_dot, q_dot);
        potential = 9.81 * q.z;
        holonomic { sphere: dot(q, q) - 1.0 }
        schemes { NonholonomicLobatto(2) }
    }
}

fn main() {}
