//! The `model!` macro of livens, a small compiler in stages, one module each:
//! `dsl` (syn grammar) → `lower` (names, vectors → scalar graph, the `ir`) → `check`
//! (can the model support its schemes?) → `schemes` (templates build the discrete
//! equations) → `emit` (straight-line Rust through the `sym` engine's emitter).
//! Everything below the entry point speaks `proc_macro2`, so it is unit-testable.
#![deny(missing_docs)]

mod check;
#[cfg(test)]
mod deep_tests;
mod dsl;
mod emit;
mod errors;
mod ir;
mod lower;
#[cfg(test)]
mod mutation_tests;
mod quantities;
mod quaternion;
mod schemes;
mod suggest;
mod sym;
#[cfg(test)]
mod test_rng;

use proc_macro::TokenStream;

/// Declares a mechanical model and generates its model-level functions and the step
/// equations of the schemes it lists. This is the language's reference: one grammar, and
/// below it a compiled example of every block.
///
/// # Grammar
///
/// ```text
/// model! {
///     /// docs                                  kept on the generated struct
///     pub struct Name {
///         params { /// docs
///                  m = 1.0, l = 1.0 }           runtime parameters: pub fields of type T
///         requires { m > 0.0, l > 0.0 }         conditions on them (< <= > >=), checked
///                                               before every step
///         coords { r: Vec3, s: Scalar }         velocities are r_dot, s_dot
///         coords { r: [Vec3; 10] }              arrays: r[0] … r[9] (also Scalar, Quat)
///         coords { q: Quat }                    a unit quaternion (q₀, q⃗) of a rigid body;
///                                               its unit norm is a constraint you write
///         invariants { pi: expr, ... }          quadratic invariants T, V and g may use;
///                                               of the velocities too (w: omega(q, q_dot))
///         let name = expr;                      a named subexpression, any number
///         kinetic = expr; potential = expr;     or: lagrangian = expr;
///         holonomic { name: expr, ... }         g(q) = 0, scalar or vector valued
///         holonomic { link: for i in 1..10 { expr } }   a family: link[1] … link[9]
///         nonholonomic { name: expr, ... }      A(q)·v = 0, linear in the velocities
///         momentum { name: rotation(e3), name: translation(e1) }
///         observables { name: expr, ... }       quantities in q, v reported with a state
///         inputs { u: Scalar, f: Vec3 }         control inputs, held over a step; only
///                                               `forces` reads them (also arrays)
///         forces { x: expr, r[2]: expr }        generalized forces F(q, v, t, u) on
///                                               coordinates, of their shape; time `t`
///         schemes { GglEm, GglViA, LobattoIIIAIIIB(3) }
///     }
/// }
/// ```
///
/// Blocks come in any order, each at most once (`let` any number of times).
/// Expressions: numbers, declared names, `+ - * /`, unary `-`, `dot(a, b)`,
/// `cross(a, b)`, `norm(a)`, `norm_squared(a)`, `vec3(x, y, z)`, `diag(a, b, c)` (a
/// matrix; `M * v`), `transpose`, components `.x .y .z` or `[i]`, `powi, sqrt, sin, cos,
/// tan, exp, ln, min, max` as functions or methods (`x.powi(2)`), the unit vectors
/// `e1 e2 e3` and `pi`. The Livens paper's quaternion helpers: `G(q)`, `E(q)`, `Ql(q)`,
/// `Qr(q)`, `R(q)`, `rotate(q, x)`, `omega(q, q_dot)`, `omega_spatial(q, q_dot)`,
/// `quat_mul(a, b)`, `torque(q, tau)`. `sum(i in 0..10, expr)` adds `expr` over the
/// indices (`a..=b` includes `b`; sums nest, and an inner range may depend on an outer
/// index, `j in i + 1..10`, adding nothing where it is empty). Indices (`r[i - 1]`, a
/// range's bounds) are evaluated at expansion time from integer literals and the
/// variables of the enclosing `sum`s and `for`s with `+ - * %`; a variable also reads as
/// a number (`(i + 1) * m`). Names read `r[3].x` and `link[2]` in `COORDINATES` and
/// `CONSTRAINTS`. A symmetry acts on every `Vec3` and `Quat` block (`ξ_Q(q) = a × q` for
/// `rotation(a)`, `a` for `translation(a)`); its momentum map is `J = Σ_b p_b · ξ_Q(q_b)`.
///
/// Write a potential or a constraint through declared `invariants` when the model has a
/// symmetry: the energy–momentum schemes then keep its momentum maps exactly; written in
/// the coordinates (beyond quadratic terms) they keep the energy but not the momentum. A
/// joint written as a vector constraint between bodies is not an invariant of one body:
/// no scheme keeps the angular momentum of such a model exactly (it drifts at the
/// scheme's order). More in the crate's `docs/dsl.md`.
///
/// # Examples
///
/// Particles: parameters and their conditions, coordinate arrays, named subexpressions,
/// invariants, a constraint family, a momentum map, an observable, and the schemes.
///
/// ```
/// livens::model! {
///     /// Two beads on a sphere of radius `l`, joined by a spring, each pulled toward
///     /// the vertical axis.
///     pub struct Beads {
///         params {
///             /// Mass of a bead.
///             m = 1.0,
///             l = 1.0, k = 10.0, c = 2.0, g = 9.81,
///         }
///         requires { m > 0.0, l > 0.0 }
///         coords { r: [Vec3; 2] }
///         invariants {
///             rho0: r[0].x * r[0].x + r[0].y * r[0].y,
///             rho1: r[1].x * r[1].x + r[1].y * r[1].y,
///         }
///         let s = 0.5 / (l * l);
///         kinetic = sum(i in 0..2, 0.5 * m * dot(r_dot[i], r_dot[i]));
///         potential = sum(i in 0..2, m * g * r[i].z) + 0.5 * c * (rho0 + rho1)
///             + 0.5 * k * norm_squared(r[1] - r[0]);
///         holonomic { sphere: for i in 0..2 { s * norm_squared(r[i]) - 0.5 } }
///         momentum { jz: rotation(e3) }
///         observables { height: 0.5 * (r[0].z + r[1].z) }
///         schemes { GglEm, GglViA, HolonomicLobatto(3) }
///     }
/// }
/// use livens::Model;
/// assert_eq!(<Beads as Model<f64, 6, 2>>::CONSTRAINTS, ["sphere[0]", "sphere[1]"]);
/// ```
///
/// A rigid body in a quaternion: invariants of the velocities (its convected angular
/// velocity), a time-dependent torque in `forces`, and the Livens paper's schemes.
///
/// ```
/// livens::model! {
///     /// A free rigid body driven by a torque about e3 that decays in time.
///     pub struct Driven {
///         params { j1 = 1.0, j2 = 2.0, j3 = 3.0, tau = 0.1 }
///         coords { q: Quat }
///         invariants { w: omega(q, q_dot) }
///         kinetic = 0.5 * (j1 * w[0] * w[0] + j2 * w[1] * w[1] + j3 * w[2] * w[2]);
///         holonomic { unit: 0.5 * (dot(q, q) - 1.0) }
///         forces { q: torque(q, tau * exp(-t) * e3) }
///         schemes { Eml, Mpl }
///     }
/// }
/// assert!(<Driven as livens::Model<f64, 4, 1>>::FORCED);
/// ```
///
/// A Lagrangian written whole, and a nonholonomic constraint, stepped by the
/// nonholonomic Lobatto family.
///
/// ```
/// livens::model! {
///     /// A knife edge on an inclined plane.
///     pub struct KnifeEdge {
///         params { m = 1.0, j = 0.2, g = 9.81, alpha = 0.3 }
///         coords { x: Scalar, y: Scalar, phi: Scalar }
///         lagrangian = 0.5 * m * (x_dot * x_dot + y_dot * y_dot) + 0.5 * j * phi_dot * phi_dot
///             + m * g * sin(alpha) * x;
///         nonholonomic { blade: x_dot * sin(phi) - y_dot * cos(phi) }
///         schemes { NonholonomicLobatto(3) }
///     }
/// }
/// assert_eq!(<KnifeEdge as livens::Model<f64, 3, 0>>::NONHOLONOMIC, ["blade"]);
/// ```
///
/// A control input: a cart pushed along its rail, the push held over each step
/// (`Integrator::set_inputs`), its step linearised for a controller (`A = ∂z⁺/∂z`,
/// `B = ∂z⁺/∂u`, for the Lobatto IIIA–IIIB family of a model with inputs).
///
/// ```
/// livens::model! {
///     /// A cart on a spring, pushed.
///     pub struct Cart {
///         params { m = 1.0, k = 4.0 }
///         coords { x: Scalar }
///         inputs { u: Scalar }
///         kinetic = 0.5 * m * x_dot * x_dot;
///         potential = 0.5 * k * x * x;
///         forces { x: u }
///         schemes { LobattoIIIAIIIB(2), Eml }
///     }
/// }
/// use livens::prelude::*;
/// assert_eq!(<Cart as Model<f64, 1, 0>>::INPUTS, ["u"]);
/// let start = PhaseState::from_velocities(&Cart::new(), SVector::zeros(), SVector::zeros());
/// let mut sim = Integrator::new(Cart::new(), LobattoIIIAIIIB::<2>, 0.1, start);
/// sim.set_inputs([1.0]).unwrap();
/// let step = sim.linearize().unwrap();
/// // Störmer–Verlet: ∂q¹/∂u = h²/2m, ∂p¹/∂u = h − k h³/4m.
/// assert!((step.b[(0, 0)] - 0.005).abs() < 1e-15 && (step.b[(1, 0)] - 0.099).abs() < 1e-15);
/// ```
///
/// # What it generates
///
/// `struct Name<T = f64>` with the parameters as documented public fields, `Default`
/// (the declared values) and `Name::new()` (in `f64`); impls of `livens::Model<T, D, M>`
/// (Lagrangian, energy, `∂L/∂q`, `∂L/∂v`, mass matrix, `M⁻¹ p`, `g`, `G`, the curvature
/// term, forces, the names of the inputs), `livens::Parameters`, `livens::MomentumMaps<T, D, K>`,
/// `livens::PointKernels` (the stage families' kernels), `livens::DeclaredSchemes`, and
/// for every listed scheme `livens::Step<T, Scheme>` (a symbolic scheme through
/// `livens::DiscreteSystem`: residual, exact Jacobian, Newton guess, next state), and
/// for a model with inputs `livens::Linearize<T, LobattoIIIAIIIB<S>>`. Every
/// function is straight-line code over fixed-size arrays, generic over
/// `T: RealField + Copy`.
///
/// # Errors
///
/// Every mistake is a compile error on the offending token: unknown names (with a
/// suggestion), shape mismatches, velocities in holonomic constraints, a scheme the
/// model cannot support (a non-constant mass matrix for `GglEm`, holonomic constraints
/// for an unconstrained scheme, forces for a scheme without a force term), degenerate
/// constraints, a momentum map that is not a symmetry, malformed blocks.
/// `macros/tests/ui/` pins each message.
#[proc_macro]
pub fn model(input: TokenStream) -> TokenStream {
    let ast = syn::parse_macro_input!(input as dsl::ModelAst);
    expand(ast).into()
}

fn expand(ast: dsl::ModelAst) -> proc_macro2::TokenStream {
    try_expand(ast).unwrap_or_else(|e| e.to_compile_error())
}

/// The expansion, or the model's errors.
fn try_expand(ast: dsl::ModelAst) -> syn::Result<proc_macro2::TokenStream> {
    // On error, emit the errors alone, as for a parse error: rustc then reports no
    // follow-up errors at the uses of the struct, whereas a placeholder struct without
    // the model's impls gave a cascade of "no function `new`", "`Model` is not
    // implemented", ... (pinned by macros/tests/ui/structure/model_in_use.rs).
    lower::lower(ast).and_then(|(mut model, schemes)| {
        let quantities = quantities::Quantities::new(&mut model);
        check::check(&mut model, &quantities, &schemes)?;
        let mut expansion = emit::expand(&mut model, &quantities, &schemes)?;
        // After the expansion, whose code it leaves as it was.
        expansion.extend(check::momentum_drift(&mut model, &schemes));
        Ok(expansion)
    })
}
