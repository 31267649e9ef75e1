// Gravity along e3 breaks the rotation about e1 of a quaternion body, and the check
// sees it through the quaternion generator ½ E(q)ᵀ a.
livens::model! {
    pub struct Top {
        params { j1 = 1.0, j3 = 0.5, mgl = 1.0 }
        coords { q: Quat }
        invariants { w: omega(q, q_dot) }
        kinetic = 0.5 * (j1 * (w[0] * w[0] + w[1] * w[1]) + j3 * w[2] * w[2]);
        potential = mgl * dot(e3, rotate(q, e3));
        holonomic { unit: 0.5 * (dot(q, q) - 1.0) }
        momentum { l1: rotation(e1), l3: rotation(e3) }
        schemes { Eml }
    }
}

fn main() {}
