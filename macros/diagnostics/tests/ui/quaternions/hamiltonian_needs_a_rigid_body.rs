// MPH and EMH build the regular mass matrix M₄ = 4 Q_l J₄ Q_lᵀ from the inertia J₀ of
// the model's one rigid body (spec 001 §1.8): a model that is not one body about a
// fixed point, or whose kinetic energy is not `½ Ω·J₀Ω` with J₀ positive definite, is
// refused.
livens::model! {
    pub struct BodyOnSpring {
        params { j = 1.0, k = 2.0 }
        coords { q: Quat, x: Scalar }
        invariants { w: omega(q, q_dot) }
        kinetic = 0.5 * j * dot(w, w) + 0.5 * x_dot * x_dot;
        potential = 0.5 * k * x * x;
        holonomic { unit: 0.5 * (dot(q, q) - 1.0) }
        schemes { Mph }
    }
}

livens::model! {
    pub struct PointOnSphere {
        params { m = 1.0 }
        coords { q: Quat }
        kinetic = 0.5 * m * dot(q_dot, q_dot);
        holonomic { unit: 0.5 * (dot(q, q) - 1.0) }
        schemes { Eml, Emh }
    }
}

livens::model! {
    pub struct Needle {
        params { j = 1.0 }
        coords { q: Quat }
        invariants { w: omega(q, q_dot) }
        kinetic = 0.5 * j * (w[0] * w[0] + w[1] * w[1]);
        holonomic { unit: 0.5 * (dot(q, q) - 1.0) }
        schemes { Mph }
    }
}

fn main() {}
