livens::model! {
    pub struct Particle {
        coords { x: Scalar, y: Scalar, z: Scalar }
        kinetic = 0.5 * (x_dot * x_dot + y_dot * y_dot + z_dot * z_dot);
        potential = 0.5 * (x * x + y * y);
        nonholonomic { rolling: z_dot * z_dot - y * x_dot }
    }
}

fn main() {}
