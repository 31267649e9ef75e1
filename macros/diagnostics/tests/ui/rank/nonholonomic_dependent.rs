// Nonholonomic constraints get the holonomic checks: repeated, scaled, or the time
// derivative of a holonomic constraint, decided by the rank of A(q) at sample points.
livens::model! {
    pub struct Sleigh {
        coords { x: Scalar, y: Scalar, theta: Scalar }
        kinetic = 0.5 * (x_dot * x_dot + y_dot * y_dot + theta_dot * theta_dot);
        potential = 0.0;
        holonomic { line: y - x }
        nonholonomic {
            blade: sin(theta) * x_dot - cos(theta) * y_dot,
            again: sin(theta) * x_dot - cos(theta) * y_dot + 0.0 * theta_dot,
            double: 2.0 * (sin(theta) * x_dot - cos(theta) * y_dot),
            along: y_dot - x_dot,
        }
        schemes { NonholonomicLobatto(2) }
    }
}

fn main() {}
