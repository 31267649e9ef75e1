// An input is a `Scalar` or a `Vec3` (or an array of them), is not named `t` (the
// forces' time), and clashes with no other name.
livens::model! {
    pub struct Cart {
        params { m = 1.0 }
        coords { x: Scalar }
        inputs { q: Quat, t: Scalar, x: Scalar, w: [Scalar; 0] }
        kinetic = 0.5 * m * x_dot * x_dot;
        forces { x: 1.0 }
        schemes { Eml }
    }
}

fn main() {}
