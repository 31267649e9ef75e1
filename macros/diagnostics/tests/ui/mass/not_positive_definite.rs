// A negative mass makes the kinetic energy negative for some velocities: the schemes
// that invert the mass matrix refuse it (it used to pass as "nonsingular").
livens::model! {
    pub struct Pendulum {
        params { m = -1.0, g = 9.81 }
        coords { r: Vec3 }
        kinetic = 0.5 * m * dot(r_dot, r_dot);
        potential = m * g * r.z;
        schemes { GglEm }
    }
}

// An indefinite coupling: ½ (x'² + y'²) + 2 x' y' has eigenvalues 3 and −1.
livens::model! {
    pub struct Coupled {
        coords { x: Scalar, y: Scalar }
        kinetic = 0.5 * (x_dot * x_dot + y_dot * y_dot) + 2.0 * x_dot * y_dot;
        potential = 0.5 * (x * x + y * y);
        schemes { GglViS }
    }
}

// A coordinate without kinetic energy.
livens::model! {
    pub struct Massless {
        coords { x: Scalar, y: Scalar }
        kinetic = 0.5 * x_dot * x_dot;
        potential = 0.5 * (x * x + y * y);
        schemes { GglEm }
    }
}

fn main() {}
