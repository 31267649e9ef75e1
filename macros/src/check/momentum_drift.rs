//! An energy–momentum scheme keeps a declared momentum map exactly only where its
//! discrete gradients are equivariant: terms of the potential and the constraints
//! written in declared (quadratic) invariants get the invariant-based gradient, and
//! terms of degree at most two in the coordinates the midpoint gradient (its Gonzalez
//! correction vanishes); any other term gets Gonzalez's correction along `q¹ − q⁰`,
//! which is not orthogonal to the symmetry's generator. A torus written in plain
//! coordinates drifts 3.5e-4 in `J₃` under `GglEm`; written through
//! `rho2 = x² + y²`, 1e-14 (`docs/dsl.md`). The model is still right, and such a term
//! may be what the user wants, so this is a warning, not an error.
//!
//! Stable Rust has no warnings from procedural macros; the warning is the `deprecated`
//! lint of a use, spanned on the momentum map's declaration, of an item deprecated with
//! the message (the usual way, e.g. the `proc-macro-warning` crate's).
use proc_macro2::TokenStream;
use quote::{format_ident, quote_spanned};
use syn::spanned::Spanned;

use crate::ir::{CoordKind, Model};
use crate::schemes::discrete_gradient::invariant_groups;
use crate::schemes::SchemeRequest;
use crate::sym::{Id, VarId};

/// The warnings, as items to append to the expansion: one per momentum map, naming
/// the energy–momentum schemes and the terms that keep them from keeping it.
pub fn momentum_drift(model: &mut Model, schemes: &[SchemeRequest]) -> TokenStream {
    let em: Vec<&str> = schemes
        .iter()
        .filter(|s| s.kind.conserves_energy())
        .map(|s| s.kind.name())
        .collect();
    if model.momenta.is_empty() || em.is_empty() {
        return TokenStream::new();
    }
    // The coordinates a symmetry moves: every `Vec3` and `Quat` block's.
    let acted: Vec<VarId> = model
        .coords
        .iter()
        .filter(|c| matches!(c.kind, CoordKind::Vec3 | CoordKind::Quat))
        .flat_map(|c| (c.offset..c.offset + c.kind.len()).collect::<Vec<_>>())
        .map(|i| model.q[i])
        .collect();
    let q = model.q.clone();
    let mut breaking = Vec::new();
    let raw: Vec<(String, Id)> =
        std::iter::once(("the potential".to_string(), model.potential_raw))
            .chain(
                model
                    .constraints
                    .iter()
                    .zip(&model.constraints_raw)
                    .map(|(c, &e)| (format!("the constraint `{}`", c.name), e)),
            )
            .collect();
    for (what, e) in raw {
        let (rest, _) = invariant_groups(model, e);
        let g = &model.graph;
        let moves = g.depends_on_any(rest, |v| acted.contains(&v));
        let beyond_quadratic = g.degree(rest, &|v| q.contains(&v)).is_none_or(|d| d > 2);
        if moves && beyond_quadratic {
            breaking.push(what);
        }
    }
    if breaking.is_empty() {
        return TokenStream::new();
    }
    let mut out = TokenStream::new();
    for (k, m) in model.momenta.iter().enumerate() {
        let note = format!(
            "momentum map `{}` may drift under {}: {} has terms of degree above two in the \
             coordinates that are not written in declared `invariants`, whose discrete \
             gradients are not equivariant; write them through quadratic invariants \
             (e.g. `rho2: x.x * x.x + x.y * x.y`) for the map to be kept to round-off",
            m.name,
            em.join(", "),
            breaking.join(" and "),
        );
        let span = m.tokens.span();
        let item = format_ident!("momentum_map_may_drift_{}", k, span = span);
        out.extend(quote_spanned! {span=>
            const _: () = {
                #[deprecated(note = #note)]
                #[allow(non_camel_case_types)]
                struct #item;
                let _ = #item;
            };
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use proc_macro2::TokenStream;

    /// The particle on a torus with the rotation about e3, its constraint written `body`.
    fn torus(body: &str) -> String {
        let tokens: TokenStream = format!(
            "pub struct Torus {{
                params {{ m = 1.0, g = 9.81, r0 = 2.0, r1 = 0.5 }}
                coords {{ x: Vec3 }}
                invariants {{ rho2: x.x * x.x + x.y * x.y, z2: x.z * x.z }}
                kinetic = 0.5 * m * dot(x_dot, x_dot);
                potential = m * g * x.z;
                holonomic {{ torus: {body} }}
                momentum {{ j3: rotation(e3) }}
                schemes {{ GglEm, Rattle }}
            }}"
        )
        .parse()
        .expect("tokens");
        crate::expand(syn::parse2(tokens).expect("a model")).to_string()
    }

    #[test]
    fn a_constraint_outside_the_invariants_warns_and_one_through_them_does_not() {
        // (ρ² + z² + R² − r²)² − 4R²ρ², degree 4.
        let plain = "(dot(x, x) + r0 * r0 - r1 * r1) * (dot(x, x) + r0 * r0 - r1 * r1) \
                     - 4.0 * r0 * r0 * (x.x * x.x + x.y * x.y)";
        let invariant = "(rho2 + z2 + r0 * r0 - r1 * r1) * (rho2 + z2 + r0 * r0 - r1 * r1) \
                         - 4.0 * r0 * r0 * rho2";
        let warned = torus(plain);
        assert!(warned.contains("momentum_map_may_drift_0"), "{warned}");
        assert!(warned.contains("may drift under GglEm"));
        assert!(warned.contains("the constraint `torus`"));
        assert!(!torus(invariant).contains("momentum_map_may_drift"));
    }
}
