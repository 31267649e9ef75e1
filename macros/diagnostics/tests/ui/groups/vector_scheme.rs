livens::model! {
    pub struct FreeBody {
        params { j1 = 6.0, j2 = 8.0, j3 = 3.0 }
        coords { R: SO3 }
        kinetic = 0.5 * (j1 * R_dot.x * R_dot.x + j2 * R_dot.y * R_dot.y + j3 * R_dot.z * R_dot.z);
        schemes { LobattoIIIAIIIB(3), Eml, Rattle }
    }
}

fn main() {}
