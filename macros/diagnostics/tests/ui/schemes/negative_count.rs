// A negative or suffixed stage count says why it is refused.
livens::model! {
    pub struct Oscillator {
        coords { x: Scalar }
        kinetic = 0.5 * x_dot * x_dot;
        potential = 0.5 * x * x;
        schemes { LobattoIIIAIIIB(-2), LobattoIIIAIIIB(3usize) }
    }
}

fn main() {}
