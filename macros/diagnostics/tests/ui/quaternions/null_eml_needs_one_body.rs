// Null-EML rotates the model's one quaternion: a model with anything else is refused.
livens::model! {
    pub struct BodyOnSpring {
        params { j = 1.0, k = 2.0 }
        coords { q: Quat, x: Scalar }
        invariants { w: omega(q, q_dot) }
        kinetic = 0.5 * j * dot(w, w) + 0.5 * x_dot * x_dot;
        potential = 0.5 * k * x * x;
        holonomic { unit: 0.5 * (dot(q, q) - 1.0) }
        schemes { NullEml }
    }
}

livens::model! {
    pub struct BodyWithoutItsNorm {
        params { j = 1.0 }
        coords { q: Quat }
        invariants { w: omega(q, q_dot) }
        kinetic = 0.5 * j * dot(w, w);
        holonomic { tilt: q.x }
        schemes { NullEml, Reml }
    }
}

fn main() {}
