livens::model! {
    pub struct Oscillator {
        params { k = 1.0 }
        coords { x: Scalar }
        kinetic = 0.5 * x_dot * x_dot;
        potential = 0.5 * k * x * x;
        schemes { Converted(Rk5, Forward) }
    }
}

fn main() {}
