// Constant subexpressions that are not finite numbers, each refused at its span: the
// square root and logarithm of negative numbers, an overflowing product, a negative
// power of zero.
livens::model! {
    pub struct Undefined {
        coords { x: Scalar, y: Scalar, z: Scalar, w: Scalar }
        kinetic = 0.5 * (x_dot * x_dot + y_dot * y_dot + z_dot * z_dot + w_dot * w_dot);
        let a = sqrt(-1.0) * x;
        let b = ln(-2.0) * y;
        let c = 1e300 * 1e300 * z;
        let d = 0.0.powi(-1) * w;
        potential = a + b + c + d;
    }
}

fn main() {}
