// Once accepted as degree 2: the degree analysis wrapped around in u32 in release builds.
livens::model! {
    pub struct Particle {
        params { m = 1.0 }
        coords { x: Vec3 }
        kinetic = 0.5 * m * dot(x_dot, x_dot);
        potential = (x.x * x.y * x.z).powi(1431655766);
        holonomic { sphere: dot(x, x) - 1.0 }
        schemes { GglEm }
    }
}

fn main() {}
