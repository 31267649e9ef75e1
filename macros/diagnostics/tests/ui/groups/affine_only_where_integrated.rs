// A drifting (affine) nonholonomic constraint on a group is integrated by the
// nonholonomic family; a scheme that does not integrate nonholonomic constraints is
// refused for the block as on any model.
livens::model! {
    pub struct Belt {
        params { speed = 0.3 }
        coords { g: SE2 }
        kinetic = 0.5 * (g_dot.x * g_dot.x + g_dot.y * g_dot.y + g_dot.z * g_dot.z);
        nonholonomic { belt: g_dot.y - speed }
        schemes { NonholonomicLobatto(2), LobattoIIIAIIIB(2) }
    }
}

fn main() {}
