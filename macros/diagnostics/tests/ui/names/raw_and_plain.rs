// `r#m` and `m` are one name: declared raw, used plain, or declared twice.
livens::model! {
    pub struct Oscillator {
        params { r#m = 2.0, k = 1.0, r#k = 3.0 }
        coords { x: Scalar }
        kinetic = 0.5 * m * x_dot * x_dot;
        potential = 0.5 * k * x * x;
        schemes { LobattoIIIAIIIB(2) }
    }
}

fn main() {}
