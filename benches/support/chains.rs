//! Chains of `n` point masses for the scaling benchmark and test, declared through
//! `model!` with the same declaration as `livens_models::Chain10` (a pivot rod and
//! `n − 1` links, gravity along −e3), with the EM scheme only. `chain!(Chain40, 40)`
//! declares one; the file is included with `#[macro_use] #[path = ...] mod`.

/// Declares `$name`, a chain of `$n` masses, and its initial state: straight out along
/// e1 at rest (`r[k] = (k + 1) l e1`, exactly consistent).
macro_rules! chain {
    ($name:ident, $n:literal) => {
        livens::model! {
            /// A chain of point masses on rigid rods (see `livens_models::Chain10`).
            pub struct $name {
                params { m = 1.0, l = 1.0, g = 9.81 }
                requires { m > 0.0, l > 0.0 }
                coords { r: [Vec3; $n] }
                kinetic = sum(i in 0..$n, 0.5 * m * dot(r_dot[i], r_dot[i]));
                potential = sum(i in 0..$n, m * g * r[i].z);
                let k = 0.5 / (l * l);
                holonomic {
                    pivot: k * dot(r[0], r[0]) - 0.5,
                    link: for i in 1..$n { k * norm_squared(r[i] - r[i - 1]) - 0.5 },
                }
                schemes { GglEm }
            }
        }

        impl $name<f64> {
            /// Straight out along e1 at rest.
            pub fn initial_state(&self) -> livens::NodeState<f64, { 3 * $n }, $n> {
                let mut q = livens::SVector::<f64, { 3 * $n }>::zeros();
                for k in 0..$n {
                    q[3 * k] = (k + 1) as f64 * self.l;
                }
                livens::NodeState::consistent(
                    self,
                    q,
                    livens::SVector::zeros(),
                    livens::Consistency::Reject { tolerance: 1e-12 },
                )
                .expect("the straight chain is consistent")
            }
        }
    };
}
