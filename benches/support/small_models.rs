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
