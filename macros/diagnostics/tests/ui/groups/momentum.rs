livens::model! {
    pub struct Spinner {
        coords { R: SO3 }
        kinetic = 0.5 * dot(R_dot, R_dot);
        momentum { spin: rotation(e3) }
        schemes { LobattoIIIAIIIB(2) }
    }
}

fn main() {}
