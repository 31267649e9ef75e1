// The stage families need a regular mass matrix: a quaternion's kinetic energy has rank
// 3 of 4, and a coordinate without velocity terms has none.
livens::model! {
    pub struct Top {
        params { j1 = 2.0, j2 = 2.0, j3 = 1.0 }
        coords { q: Quat }
        let w = omega(q, q_dot);
        kinetic = 0.5 * (j1 * w[0] * w[0] + j2 * w[1] * w[1] + j3 * w[2] * w[2]);
        potential = q[1] * q[1];
        holonomic { unit: 0.5 * (dot(q, q) - 1.0) }
        schemes { HolonomicLobatto(2) }
    }
}

livens::model! {
    pub struct Dropped {
        coords { x: Scalar, y: Scalar, z: Scalar }
        kinetic = 0.5 * (x_dot * x_dot + y_dot * y_dot);
        potential = 0.5 * (x * x + y * y + z * z);
        nonholonomic { phi: z_dot - y * x_dot }
        schemes { NonholonomicLobatto(2) }
    }
}

fn main() {}
