livens::model! {
    pub struct Free {
        coords { x: Scalar, y: Scalar }
        kinetic = 0.5 * (x_dot * x_dot + y_dot * y_dot);
        potential = 0.5 * (x * x + y * y);
        schemes { NonholonomicLobatto(2) }
    }
}

fn main() {}
