livens::model! {
    pub struct Pushed {
        coords { g: SE2 }
        kinetic = 0.5 * (g_dot.x * g_dot.x + g_dot.y * g_dot.y + g_dot.z * g_dot.z);
        inputs { u: Scalar }
        forces { g: vec3(u, 0.0, 0.0) }
        schemes { LobattoIIIAIIIB(2) }
    }
}

fn main() {}
