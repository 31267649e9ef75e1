// The quaternion helpers check their arguments' sizes and count.
livens::model! {
    pub struct Body {
        params { j = 1.0 }
        coords { q: Quat, r: Vec3 }
        invariants { w: omega(r, q_dot) }
        let x = rotate(q, vector(1.0, 0.0));
        let m = G(q, q);
        kinetic = 0.5 * j * dot(w, w) + 0.5 * dot(r_dot, r_dot);
        holonomic { unit: 0.5 * (dot(q, q) - 1.0) }
    }
}

fn main() {}
