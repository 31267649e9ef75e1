// An input is read only by `forces`: a Lagrangian, a constraint, a `let` or an
// observable that mentions one is an error at the use.
livens::model! {
    pub struct Cart {
        params { m = 1.0 }
        coords { x: Scalar, y: Scalar }
        inputs { u: Scalar, f: Vec3 }
        let push = u * 2.0;
        kinetic = 0.5 * m * (x_dot * x_dot + y_dot * y_dot) + f.x;
        holonomic { line: y - u }
        observables { power: u * x_dot }
        forces { x: u + f.y }
        schemes { Eml }
    }
}

fn main() {}
