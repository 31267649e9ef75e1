//! The mathematical pendulum in its angle, `θ̈ = −9.81 sin θ`, by classical RK4 on its
//! first-order system in steps of at most 5e-5 (error below 1e-14 over a few seconds):
//! the reference the converted schemes' orders are measured against, independent of
//! their standard layer.

/// `(θ, ω)` after a time `t` (of either sign) from `(theta, omega)`.
pub fn pendulum_reference(theta: f64, omega: f64, t: f64) -> (f64, f64) {
    let n = (t.abs() * 20_000.0).ceil().max(1.0) as usize;
    let h = t / n as f64;
    let f = |q: f64, v: f64| (v, -9.81 * q.sin());
    let (mut q, mut v) = (theta, omega);
    for _ in 0..n {
        let k1 = f(q, v);
        let k2 = f(q + 0.5 * h * k1.0, v + 0.5 * h * k1.1);
        let k3 = f(q + 0.5 * h * k2.0, v + 0.5 * h * k2.1);
        let k4 = f(q + h * k3.0, v + h * k3.1);
        q += h / 6.0 * (k1.0 + 2.0 * k2.0 + 2.0 * k3.0 + k4.0);
        v += h / 6.0 * (k1.1 + 2.0 * k2.1 + 2.0 * k3.1 + k4.1);
    }
    (q, v)
}
