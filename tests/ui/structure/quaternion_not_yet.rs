livens::model! {
    pub struct Body {
        coords { q: Quat }
        kinetic = 0.5 * dot(q_dot, q_dot);
    }
}

fn main() {}
