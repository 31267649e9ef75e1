livens::model! {
    pub struct Chain {
        params { m = 1.0, l = 1.0, g = 9.81 }
        coords { theta: [Scalar; 5] }
        kinetic = sum(i in 0..=5, 0.5 * m * theta_dot[i].powi(2));
    }
}

fn main() {}
