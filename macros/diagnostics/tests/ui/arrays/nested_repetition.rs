// Nested repetitions multiply: 10 000 × 10 000 terms would expand for minutes.
livens::model! {
    pub struct Chain {
        coords { q: [Scalar; 3] }
        kinetic = sum(i in 0..3, 0.5 * q_dot[i] * q_dot[i]);
        potential = sum(i in 0..10000, sum(j in 0..10000, q[0] * q[0]));
        schemes { LobattoIIIAIIIB(2) }
    }
}

fn main() {}
