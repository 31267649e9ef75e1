// Eight bodies in mutual gravitation: the EM step is dense and non-polynomial.
livens::model! {
    pub struct Gravity8 {
        params { k = 1.0 }
        coords { b0: Vec3, b1: Vec3, b2: Vec3, b3: Vec3, b4: Vec3, b5: Vec3, b6: Vec3, b7: Vec3 }
        kinetic = 0.5 * (dot(b0_dot, b0_dot) + dot(b1_dot, b1_dot) + dot(b2_dot, b2_dot) + dot(b3_dot, b3_dot) + dot(b4_dot, b4_dot) + dot(b5_dot, b5_dot) + dot(b6_dot, b6_dot) + dot(b7_dot, b7_dot));
        potential = -k * (1.0 / norm(b0 - b1) + 1.0 / norm(b0 - b2) + 1.0 / norm(b0 - b3) + 1.0 / norm(b0 - b4) + 1.0 / norm(b0 - b5) + 1.0 / norm(b0 - b6) + 1.0 / norm(b0 - b7) + 1.0 / norm(b1 - b2) + 1.0 / norm(b1 - b3) + 1.0 / norm(b1 - b4) + 1.0 / norm(b1 - b5) + 1.0 / norm(b1 - b6) + 1.0 / norm(b1 - b7) + 1.0 / norm(b2 - b3) + 1.0 / norm(b2 - b4) + 1.0 / norm(b2 - b5) + 1.0 / norm(b2 - b6) + 1.0 / norm(b2 - b7) + 1.0 / norm(b3 - b4) + 1.0 / norm(b3 - b5) + 1.0 / norm(b3 - b6) + 1.0 / norm(b3 - b7) + 1.0 / norm(b4 - b5) + 1.0 / norm(b4 - b6) + 1.0 / norm(b4 - b7) + 1.0 / norm(b5 - b6) + 1.0 / norm(b5 - b7) + 1.0 / norm(b6 - b7));
        schemes { GglEm }
    }
}

fn main() {}
