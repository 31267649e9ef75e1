// Four velocity constraints on three coordinates.
livens::model! {
    pub struct Particle {
        coords { x: Scalar, y: Scalar, z: Scalar }
        kinetic = 0.5 * (x_dot * x_dot + y_dot * y_dot + z_dot * z_dot);
        potential = 0.5 * (x * x + y * y);
        nonholonomic {
            a: z_dot - y * x_dot,
            b: x_dot + y_dot,
            c: y_dot - z * z_dot,
            d: x_dot - z_dot,
        }
        schemes { NonholonomicLobatto(2) }
    }
}

fn main() {}
