//! Emission of `EulerLagrangeKernels`, what a converted scheme's standard layer reads
//! besides the point kernels (spec `next_packages.md` §C.2): the derivatives of the
//! Euler–Lagrange expression
//!
//! ```text
//! E(q, v, a) = L_vv a + L_vq v − L_q,    Eᵢ = Σⱼ ∂²L/∂vᵢ∂vⱼ aⱼ + Σⱼ ∂²L/∂vᵢ∂qⱼ vⱼ − ∂L/∂qᵢ
//! ```
//!
//! by `q` and `v` (third derivatives of `L`), and those of its derivative along a
//! direction `(dq, dv, da)`, `E′ = E_q dq + E_v dv + E_a da`, by `q`, `v` and `a`
//! (fourth derivatives: `∂E′/∂q` is `E_q`'s own derivative along the direction, since
//! the direction is constant). `a`, `dq`, `dv`, `da` are inputs of the kernels, as `λ`
//! is of the constraint kernels. Emitted only for a model that declares a converted
//! scheme: fourth derivatives of every model would cost every model's build.
use proc_macro2::TokenStream;
use quote::quote;

use super::tokens::{block, lit, private};
use crate::ir::{Model, Role};
use crate::quantities::Quantities;
use crate::sym::{Id, VarId};

/// The `d` variables `name0 … name{d−1}`, read as `name[i]` in the generated code.
fn inputs(model: &mut Model, name: &'static str) -> (Vec<VarId>, Vec<Id>) {
    (0..model.dim())
        .map(|i| model.new_var(format!("{name}{i}"), Role::Input(name, Some(i))))
        .unzip()
}

/// `∂eᵢ/∂xⱼ` as rows `i`.
fn jacobian(model: &mut Model, e: &[Id], x: &[VarId]) -> Vec<Vec<Id>> {
    e.iter().map(|&ei| model.graph.gradient(ei, x)).collect()
}

/// Statements writing each `d × d` matrix `entries[r][c]` into its column storage `out`
/// (`out[c][r]`), every entry written; one block, so that the matrices share their
/// common subexpressions.
fn store_columns(model: &Model, outputs: &[(TokenStream, &[Vec<Id>])]) -> TokenStream {
    let d = model.dim();
    let all: Vec<Id> = outputs.iter().flat_map(|(_, m)| m.concat()).collect();
    let (stmts, values) = block(model, &all);
    let slots = outputs
        .iter()
        .flat_map(|(out, _)| (0..d * d).map(move |k| (out, k)));
    let stores = slots.zip(values).map(|((out, k), value)| {
        let (r, c) = (lit(k / d), lit(k % d));
        quote!(#out[#c][#r] = #value;)
    });
    quote! {
        #stmts
        #(#stores)*
    }
}

/// `impl EulerLagrangeKernels<T, D>` for the model (see the module's doc).
pub fn kernels(model: &mut Model, quantities: &Quantities) -> TokenStream {
    let p = private();
    let (dl, ml) = (lit(model.dim()), lit(model.n_constraints()));
    let (q, v) = (model.q.clone(), model.v.clone());
    let (a, a_nodes) = inputs(model, "a");
    let (_, dq) = inputs(model, "dq");
    let (_, dv) = inputs(model, "dv");
    let (_, da) = inputs(model, "da");
    let velocity: Vec<Id> = v.iter().map(|&x| model.graph.var_node(x)).collect();
    // Eᵢ from the rows of ∂(∂L/∂v)/∂v and ∂(∂L/∂v)/∂q.
    let e: Vec<Id> = (0..model.dim())
        .map(|i| {
            let l_v = quantities.dl_dv[i];
            let by_v = model.graph.gradient(l_v, &v);
            let by_q = model.graph.gradient(l_v, &q);
            let inertia = model.graph.dot(&by_v, &a_nodes);
            let gyroscopic = model.graph.dot(&by_q, &velocity);
            let sum = model.graph.add(inertia, gyroscopic);
            model.graph.sub(sum, quantities.dl_dq[i])
        })
        .collect();
    let (e_q, e_v, e_a) = (
        jacobian(model, &e, &q),
        jacobian(model, &e, &v),
        jacobian(model, &e, &a),
    );
    // E′ᵢ = Σⱼ (E_q)ᵢⱼ dqⱼ + (E_v)ᵢⱼ dvⱼ + (E_a)ᵢⱼ daⱼ.
    let tangent: Vec<Id> = (0..model.dim())
        .map(|i| {
            let terms = [
                model.graph.dot(&e_q[i], &dq),
                model.graph.dot(&e_v[i], &dv),
                model.graph.dot(&e_a[i], &da),
            ];
            model.graph.sum(terms)
        })
        .collect();
    let (t_q, t_v, t_a) = (
        jacobian(model, &tangent, &q),
        jacobian(model, &tangent, &v),
        jacobian(model, &tangent, &a),
    );
    let jacobians = store_columns(model, &[(quote!(e_q), &e_q), (quote!(e_v), &e_v)]);
    let tangents = store_columns(
        model,
        &[
            (quote!(e_q), &t_q),
            (quote!(e_v), &t_v),
            (quote!(e_a), &t_a),
        ],
    );
    let name = &model.name;
    let vec = quote!(#p::SVector<T, #dl>);
    let matrix = quote!(&mut [[T; #dl]; #dl]);
    quote! {
        #[allow(unused_variables, clippy::all)]
        impl<T: #p::Real> #p::EulerLagrangeKernels<T, #dl> for #name<T> {
            fn lagrangian(&self, q: &#vec, v: &#vec) -> T {
                <Self as #p::Model<T, #dl, #ml>>::lagrangian(self, q, v)
            }
            fn e_jacobians(&self, q: &#vec, v: &#vec, a: &#vec, e_q: #matrix, e_v: #matrix) {
                let (q, v, a) = (&q.data.0[0], &v.data.0[0], &a.data.0[0]);
                #jacobians
            }
            fn e_tangent_jacobians(
                &self,
                q: &#vec,
                v: &#vec,
                a: &#vec,
                direction: (&#vec, &#vec, &#vec),
                e_q: #matrix,
                e_v: #matrix,
                e_a: #matrix,
            ) {
                let (q, v, a) = (&q.data.0[0], &v.data.0[0], &a.data.0[0]);
                let (dq, dv, da) =
                    (&direction.0.data.0[0], &direction.1.data.0[0], &direction.2.data.0[0]);
                #tangents
            }
        }
    }
}
