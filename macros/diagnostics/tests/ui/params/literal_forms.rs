// Numbers are decimal f64 literals without a suffix; one that rounds to 0 is refused.
livens::model! {
    pub struct Oscillator {
        params { k = 1.0f32, m = 0x10 }
        coords { x: Scalar }
        kinetic = 0.5 * m * x_dot * x_dot * 1u8;
        potential = 0.5 * k * x * x + 1e-400 * x;
        schemes { LobattoIIIAIIIB(2) }
    }
}

fn main() {}
