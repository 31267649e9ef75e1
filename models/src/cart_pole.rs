//! The cart-pole of the control package (spec `next_packages.md` §D.4): a cart on a
//! rail pushed by a control input, a pendulum on it balanced upright. Twice: in minimal
//! coordinates ([`CartPole`], C1, configuration-dependent mass matrix) and in redundant
//! ones with the rod as a holonomic constraint ([`CartPoleConstrained`], C2, constant
//! mass matrix). Both read the push `u` through their `forces` block.
use livens_macros::model;

model! {
    /// C1: a cart of mass `mc` at `x` on a rail, a point mass `m` on a massless rod of
    /// length `l` at the angle `theta` from the upward vertical (`theta = 0` upright),
    /// the cart pushed along the rail by the input `u`:
    /// `L = ½(mc + m) ẋ² + m l cos θ ẋ θ̇ + ½ m l² θ̇² − m g l cos θ`, `F_x = u`.
    pub struct CartPole {
        params {
            /// Mass of the cart.
            mc = 1.0,
            /// Mass of the pendulum's bob.
            m = 0.1,
            /// Length of the rod.
            l = 0.5,
            /// Gravitational acceleration.
            g = 9.81,
        }
        requires { mc > 0.0, m > 0.0, l > 0.0 }
        coords { x: Scalar, theta: Scalar }
        inputs { u: Scalar }
        kinetic = 0.5 * (mc + m) * x_dot * x_dot + m * l * cos(theta) * x_dot * theta_dot
            + 0.5 * m * l * l * theta_dot * theta_dot;
        potential = m * g * l * cos(theta);
        forces { x: u }
        schemes { LobattoIIIAIIIB(2), LobattoIIIAIIIB(3), Eml }
    }
}

model! {
    /// C2: the same cart-pole in redundant coordinates, the cart at `xc`, the bob at
    /// `(xb, zb)` (`zb` up), the rod a holonomic constraint
    /// `g(q) = ½((xb − xc)² + zb² − l²)/l²`: a constant mass matrix
    /// `diag(mc, m, m)`, `V = m g zb`, the cart pushed by the input `u`.
    pub struct CartPoleConstrained {
        params {
            /// Mass of the cart.
            mc = 1.0,
            /// Mass of the pendulum's bob.
            m = 0.1,
            /// Length of the rod.
            l = 0.5,
            /// Gravitational acceleration.
            g = 9.81,
        }
        requires { mc > 0.0, m > 0.0, l > 0.0 }
        coords { xc: Scalar, xb: Scalar, zb: Scalar }
        inputs { u: Scalar }
        kinetic = 0.5 * mc * xc_dot * xc_dot + 0.5 * m * (xb_dot * xb_dot + zb_dot * zb_dot);
        potential = m * g * zb;
        holonomic {
            rod: 0.5 * ((xb - xc) * (xb - xc) + zb * zb - l * l) / (l * l),
        }
        forces { xc: u }
        schemes { HolonomicLobatto(2), Eml, EmlPaper }
    }
}
