livens::model! {
    pub struct Pendulum {
        params { m = 1.0, l = 1.0, g = 9.81 }
        coords { theta: Scalar, phi: Scalar }
        kinetic = 0.5 * m * l * l * (theta_dot * theta_dot + phi_dot * phi_dot * sin(theta).powi(2));
        potential = -m * g * l * cos(theta);
        schemes { GglViA }
    }
}

fn main() {}
