livens::model! {
    pub struct Point {
        params { m = 1.0 }
        coords { x: Scalar, y: Scalar }
        kinetic = 0.5 * m * (x_dot * x_dot + y_dot * y_dot);
        potential = 0.0 * x;
        holonomic { a: x - 1.0, b: y - 2.0, c: x + y - 3.0 }
        schemes { GglViA }
    }
}

fn main() {}
