livens::model! {
    pub struct Driven {
        params { a = 1.0 }
        coords { x: Scalar }
        kinetic = 0.5 * x_dot * x_dot;
        potential = a * x * sin(t);
    }
}

fn main() {}
