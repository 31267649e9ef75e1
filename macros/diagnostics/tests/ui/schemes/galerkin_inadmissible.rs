livens::model! {
    pub struct Pendulum {
        params { m = 1.0, g = 9.81 }
        coords { r: Vec3 }
        kinetic = 0.5 * m * dot(r_dot, r_dot);
        potential = m * g * r.z;
        holonomic { length: 0.5 * (dot(r, r) - 1.0) }
        schemes {
            Galerkin(2, 2, Gauss, 2),
            Galerkin(2, 3, Gauss, 3),
            Galerkin(3, 2, Lobatto(2)),
            Galerkin(1, 1, Lobatto, 1),
        }
    }
}

fn main() {}
