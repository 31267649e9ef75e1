// A force acts on a coordinate, has its shape, and names one element of an array.
livens::model! {
    pub struct Particles {
        params { m = 1.0, c = 0.1 }
        coords { r: Vec3, s: [Scalar; 2] }
        kinetic = 0.5 * m * (dot(r_dot, r_dot) + s_dot[0] * s_dot[0] + s_dot[1] * s_dot[1]);
        forces {
            m: 1.0,
            r: -c * r_dot.x,
            s: 1.0,
            s[2]: 1.0,
            r[0]: e1,
        }
        schemes { Eml }
    }
}

fn main() {}
