// Only the schemes whose equations have a force term take a forced model (the stage
// families do: `LobattoIIIAIIIB(2)` is accepted); time appears in forces only.
livens::model! {
    pub struct Damped {
        params { m = 1.0, c = 0.1, w = 2.0 }
        coords { x: Scalar }
        kinetic = 0.5 * m * x_dot * x_dot;
        potential = 0.5 * x * x * (1.0 + t);
        forces { x: -c * x_dot + sin(w * t) }
        schemes { Eml, GglEm }
    }
}

livens::model! {
    pub struct Driven {
        params { m = 1.0, c = 0.1, w = 2.0 }
        coords { x: Scalar }
        kinetic = 0.5 * m * x_dot * x_dot;
        forces { x: -c * x_dot + sin(w * t) }
        schemes { Eml, GglEm, LobattoIIIAIIIB(2) }
    }
}

fn main() {}
