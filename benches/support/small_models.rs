//! Small unconstrained models for the tests and benches of the assembled family,
//! declared through `model!` with the schemes each caller needs. The file is included
//! with `#[macro_use] #[path = ...] mod`.

/// Declares `$name`, the Hénon–Heiles system (separable, nonlinear, unconstrained:
/// `L = ½ |ẋ|² − ½ |x|² − λ (x² y − y³ / 3)`), with the schemes `$scheme`.
#[allow(unused_macros)]
macro_rules! henon_heiles {
    ($name:ident, $($scheme:tt)*) => {
        livens::model! {
            /// The Hénon–Heiles system.
            pub struct $name {
                params { lambda = 1.0 }
                coords { x: Scalar, y: Scalar }
                kinetic = 0.5 * (x_dot * x_dot + y_dot * y_dot);
                potential = 0.5 * (x * x + y * y) + lambda * (x * x * y - y.powi(3) / 3.0);
                schemes { $($scheme)* }
            }
        }
    };
}

/// Declares `$name`, `$n` unit masses in space, neighbours joined by springs of
/// stiffness `k`, each in a quartic well `¼ c |rᵢ|⁴`, with the schemes `$scheme`: its
/// second derivatives are block tridiagonal, so its stage Jacobians are sparse.
#[allow(unused_macros)]
macro_rules! springs {
    ($name:ident, $n:literal, $($scheme:tt)*) => {
        livens::model! {
            /// Unit masses in space on springs, each in a quartic well.
            pub struct $name {
                params { k = 1.0, c = 0.1 }
                coords { r: [Vec3; $n] }
                kinetic = sum(i in 0..$n, 0.5 * dot(r_dot[i], r_dot[i]));
                potential = sum(i in 1..$n, 0.5 * k * norm_squared(r[i] - r[i - 1]))
                    + sum(i in 0..$n, 0.25 * c * norm_squared(r[i]) * norm_squared(r[i]));
                schemes { $($scheme)* }
            }
        }
    };
}

/// Declares `$name`, a double pendulum in its joint angles (`m₁ = 1`, `m₂ = 0.7`,
/// `l₁ = 1`, `l₂ = 0.8`, `g = 9.81`), with the schemes `$scheme`: its mass matrix depends
/// on the configuration, so `D₁₂L` and `D₂₂L(q)` are not trivial.
#[allow(unused_macros)]
macro_rules! double_pendulum {
    ($name:ident, $($scheme:tt)*) => {
        livens::model! {
            /// A double pendulum in its joint angles.
            pub struct $name {
                params { m1 = 1.0, m2 = 0.7, l1 = 1.0, l2 = 0.8, g = 9.81 }
                coords { a: Scalar, b: Scalar }
                kinetic = 0.5 * (m1 + m2) * l1 * l1 * a_dot * a_dot
                    + 0.5 * m2 * l2 * l2 * b_dot * b_dot
                    + m2 * l1 * l2 * cos(a - b) * a_dot * b_dot;
                potential = -(m1 + m2) * g * l1 * cos(a) - m2 * g * l2 * cos(b);
                schemes { $($scheme)* }
            }
        }
    };
}
