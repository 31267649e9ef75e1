// A translation does not act on a quaternion: the map would be zero.
livens::model! {
    pub struct Body {
        params { j1 = 2.0, j2 = 3.0, j3 = 4.0 }
        coords { q: Quat }
        let w = omega(q, q_dot);
        kinetic = 0.5 * (j1 * w[0] * w[0] + j2 * w[1] * w[1] + j3 * w[2] * w[2]);
        holonomic { unit: 0.5 * (dot(q, q) - 1.0) }
        momentum { pz: translation(e3) }
        schemes { Eml }
    }
}

fn main() {}
