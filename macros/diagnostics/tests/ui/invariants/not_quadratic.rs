livens::model! {
    pub struct Spring {
        params { k = 1.0 }
        coords { a: Vec3, b: Vec3 }
        invariants { stretch: norm(b - a) }
        kinetic = 0.5 * (dot(a_dot, a_dot) + dot(b_dot, b_dot));
        potential = 0.5 * k * (stretch - 1.0).powi(2);
        schemes { GglEm }
    }
}

fn main() {}
