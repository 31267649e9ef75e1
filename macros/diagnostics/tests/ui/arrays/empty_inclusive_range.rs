// An empty inclusive range is named as written.
livens::model! {
    pub struct Chain {
        coords { q: [Scalar; 3] }
        kinetic = sum(i in 0..3, 0.5 * q_dot[i] * q_dot[i]);
        potential = sum(i in 0..=-1, q[i] * q[i]);
        schemes { LobattoIIIAIIIB(2) }
    }
}

fn main() {}
