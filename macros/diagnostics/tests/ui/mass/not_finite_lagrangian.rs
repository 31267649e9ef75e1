// A potential that is NaN everywhere is reported as such, not as a broken symmetry.
livens::model! {
    pub struct Particle {
        coords { r: Vec3 }
        kinetic = 0.5 * dot(r_dot, r_dot);
        potential = sqrt(-1.0 - dot(r, r));
        momentum { lz: rotation(e3) }
        schemes { GglEm }
    }
}

fn main() {}
