//! The `model!` macro of livens, a small compiler in stages, one module each:
//! `dsl` (syn grammar) → `lower` (names, vectors → scalar graph, the `ir`) → `check`
//! (can the model support its schemes?) → `schemes` (templates build the discrete
//! equations) → `emit` (straight-line Rust through the `sym` engine's emitter).
//! Everything below the entry point speaks `proc_macro2`, so it is unit-testable.
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
/// equations of the schemes it lists.
///
/// # Grammar
///
/// ```text
/// model! {
///     /// docs                              (kept on the generated struct)
///     pub struct Name {
///         params { /// docs
///                  m = 1.0, l = 1.0 }       runtime parameters: pub fields of type T
///         requires { m > 0.0, l > 0.0 }     conditions on them, checked before each step
///         coords { r: Vec3, s: Scalar }     velocities are r_dot, s_dot
///         coords { r: [Vec3; 10] }          an array: r[0] … r[9], velocities r_dot[i]
///         let name = expr;                  a named subexpression, any number
///         kinetic = expr;                   with an optional potential = expr;
///         lagrangian = expr;                … or the Lagrangian itself
///         holonomic { name: expr, ... }     g(q) = 0, scalar or vector valued
///         holonomic { link: for i in 1..10 { expr } }   a family: link[1] … link[9]
///         nonholonomic { name: expr, ... }  A(q)·v = 0, linear in the velocities
///         momentum { name: rotation(e3), name: translation(e1) }
///         schemes { GglEm, GglViA }
///     }
/// }
/// ```
///
/// Expressions: numbers, declared names, `+ - * /`, unary `-`, `dot(a, b)`,
/// `cross(a, b)`, `norm(a)`, `norm_squared(a)`, `vec3(x, y, z)`, `diag(a, b, c)` (a
/// matrix; `M * v`), components `.x .y .z` or `[i]`, and `powi, sqrt, sin, cos, tan,
/// exp, ln` as functions or methods (`x.powi(2)`). Built-ins: `e1 e2 e3` (unit vectors)
/// and `pi`. `sum(i in 0..10, expr)` adds `expr` over the indices (`a..=b` includes
/// `b`; sums nest, and an inner range may depend on an outer index, `j in i + 1..10`,
/// adding nothing where it is empty). Indices (`r[i - 1]`, a range's bounds) are
/// evaluated at expansion time from integer literals and the variables of the
/// enclosing `sum`s and `for`s with `+ - * %`; a variable also reads as a number
/// (`(i + 1) * m`). Names read `r[3].x` and `link[2]` in `COORDINATES` and
/// `CONSTRAINTS`. A symmetry acts on every `Vec3` coordinate block, each element of a
/// `Vec3` array included (`ξ_Q(q) = a × q` for `rotation(a)`, `a` for
/// `translation(a)`); its momentum map is `J = Σ_b p_b · ξ_Q(q_b)`.
///
/// # What it generates
///
/// `struct Name<T = f64>` with the parameters as fields, `Default` (the declared values)
/// and `Name::new()` (in `f64`); impls of `livens::Model<T, D, M>` (Lagrangian, energy,
/// `∂L/∂q`, `∂L/∂v`, mass matrix, `M⁻¹ p`, `g`, `G`, the curvature term `vᵀ H_k v`),
/// `livens::MomentumMaps<T, D, K>`, and for every listed scheme
/// `livens::Discretization<T, Scheme, D, M, N>` (residual, exact Jacobian, Newton guess,
/// next state). Every function is straight-line code over fixed-size arrays, generic over
/// `T: RealField + Copy`.
///
/// # Errors
///
/// Every mistake is a compile error on the offending token: unknown names (with a
/// suggestion), shape mismatches, velocities in holonomic constraints, a scheme the
/// model cannot support (a non-constant mass matrix for `GglEm`, holonomic constraints
/// for an unconstrained scheme), malformed blocks. `macros/tests/ui/` pins each message.
///
/// # Growing the grammar
///
/// Later capabilities slot in as blocks and coordinate kinds of the same shape:
/// `coords { q: Quat }` (with `G(q)`, `E(q)`, `rotate(q, v)` helpers), `invariants { pi:
/// expr, ... }` with `potential` written through them, `forces { ... }` and `inputs {
/// u: Vec3 }`, and `coords { R: SO3 }` for Lie-group coordinates.
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
        emit::expand(&mut model, &quantities, &schemes)
    })
}
