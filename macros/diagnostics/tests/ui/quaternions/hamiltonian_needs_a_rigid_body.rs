// MPH and EMH build the regular mass matrix M₄ = 4 Q_l J₄ Q_lᵀ of each rigid body from
// its inertia J₀ (spec 001 §1.8) and invert a constant mass matrix on the other
// coordinates: a model without a quaternion, a quaternion without its unit norm, or a
// kinetic energy that is not `½ Ω·J₀Ω` per body with J₀ positive definite, or that
// couples a body to another coordinate, is refused.
livens::model! {
    pub struct Particle {
        params { m = 1.0 }
        coords { x: Scalar }
        kinetic = 0.5 * m * x_dot * x_dot;
        schemes { Emh }
    }
}

livens::model! {
    pub struct BodyWithoutItsNorm {
        params { j = 1.0 }
        coords { q: Quat, r: Vec3 }
        invariants { w: omega(q, q_dot) }
        kinetic = 0.5 * j * dot(w, w) + 0.5 * dot(r_dot, r_dot);
        holonomic { unit: 0.5 * (dot(r, r) - 1.0) }
        schemes { Mph }
    }
}

livens::model! {
    pub struct BodyOnACoupledSpring {
        params { j = 1.0, k = 2.0 }
        coords { q: Quat, x: Scalar }
        invariants { w: omega(q, q_dot) }
        kinetic = 0.5 * j * dot(w, w) + 0.5 * x_dot * x_dot + 0.1 * x_dot * w[0];
        potential = 0.5 * k * x * x;
        holonomic { unit: 0.5 * (dot(q, q) - 1.0) }
        schemes { Emh }
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
