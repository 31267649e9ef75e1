livens::model! {
    pub struct Pendulum {
        params { m = 1.0 }
        kinetic = 0.5 * m;
    }
}

fn main() {}
