livens::model! {
    pub struct Pendulum {
        params { m = 1.0, g = 9.81 }
        coords { r#type: Vec3 }
        kinetic = 0.5 * m * dot(r#type_dot, r#type_dot);
        potential = m * g * r#type.z;
        schemes { GglViA }
    }
}

fn main() {}
