livens::model! {
    pub struct Tethered {
        coords { g: SE2 }
        kinetic = 0.5 * (g_dot.x * g_dot.x + g_dot.y * g_dot.y + g_dot.z * g_dot.z);
        holonomic { tether: g.x * g.x + g.y * g.y - 1.0 }
        schemes { LobattoIIIAIIIB(2) }
    }
}

fn main() {}
