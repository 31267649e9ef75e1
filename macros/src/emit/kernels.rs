//! Emission of the point kernels (`PointKernels`: `D₁L`, `D₂L` and the second
//! derivatives of `L` at one point), from which the runtime assembles the stage
//! families. Their size depends on the model only, never on a stage count.
use proc_macro2::TokenStream;
use quote::quote;

use super::stage_patterns::ConstraintPatterns;
use super::stage_patterns::{
    matrix_pattern, velocity_constraint_affine, velocity_constraint_matrix,
};
use super::tokens::{block, lit, private, svector, var_expr};
use crate::ir::{Model, Role};
use crate::quantities::Quantities;
use crate::sym::emit::{emit_sunk, emit_with_funcs};
use crate::sym::{Func, Graph, Id, Node, VarId};

/// Statements writing the `rows × cols` matrix `entries[r][c]` into column storage
/// `out` (`out[c][r]`): zero everything, then the structurally nonzero entries.
fn columns_body(model: &Model, entries: &[Vec<Id>]) -> TokenStream {
    let p = private();
    let nonzero: Vec<(usize, usize, Id)> = entries
        .iter()
        .enumerate()
        .flat_map(|(r, row)| row.iter().enumerate().map(move |(c, &e)| (r, c, e)))
        .filter(|&(_, _, e)| !model.graph.is_zero(e))
        .collect();
    let ids: Vec<Id> = nonzero.iter().map(|&(_, _, e)| e).collect();
    // Each entry stored as soon as it is computed (see `emit_sunk`).
    let store = |k: usize, value: &TokenStream| {
        let (r, c) = (lit(nonzero[k].0), lit(nonzero[k].1));
        quote!(out[#c][#r] = #value;)
    };
    let stmts = emit_sunk(&model.graph, &ids, &|v| var_expr(model, v), &p, &store).stmts;
    quote! {
        #p::zero_matrix(out);
        #stmts
    }
}

/// The body of `PointKernels::derivatives`: `D₁L` and `D₂L` returned, the three `D × D`
/// matrices `second` written into `out[0..3]` (column storage, their structural zeros
/// zeroed first), all from one straight-line block: the terms they share are computed
/// once, and LLVM pairs `sin x` and `cos x` into one `sincos` only within a basic block.
fn derivatives_body(
    model: &Model,
    (l_q, l_v): (&[Id], &[Id]),
    second: [&[Vec<Id>]; 3],
    anchoring: Anchoring,
) -> TokenStream {
    let p = private();
    let d = l_q.len();
    let mut ids: Vec<Id> = [l_q, l_v].concat();
    // (matrix, row, column) of each output after the first 2d.
    let mut places: Vec<(usize, usize, usize)> = Vec::new();
    for (m, entries) in second.iter().enumerate() {
        for (r, row) in entries.iter().enumerate() {
            for (c, &e) in row.iter().enumerate() {
                if !model.graph.is_zero(e) {
                    ids.push(e);
                    places.push((m, r, c));
                }
            }
        }
    }
    // Then, to anchor, `[x, sin x, cos x]` of each argument, into `anchors`.
    let first_anchor = ids.len();
    if let Anchoring::Write(anchors) = anchoring {
        ids.extend(anchors.iter().flatten());
    }
    let store = |k: usize, value: &TokenStream| {
        if let Some(a) = k.checked_sub(first_anchor) {
            let (i, m) = (lit(a / 3), lit(a % 3));
            return quote!(anchors[#i][#m] = #value;);
        }
        match k.checked_sub(2 * d) {
            None => TokenStream::new(),
            Some(k) => {
                let (m, r, c) = places[k];
                let (m, r, c) = (lit(m), lit(r), lit(c));
                quote!(out[#m][#c][#r] = #value;)
            }
        }
    };
    let arguments = match anchoring {
        Anchoring::Read(arguments) => arguments,
        _ => &[],
    };
    let near = near_funcs(arguments);
    let var = |v| var_expr(model, v);
    let b = emit_with_funcs(&model.graph, &ids, (&var, &p), &store, &near);
    let stmts = b.stmts;
    let (first, second) = (svector(d, &b.values[..d]), svector(d, &b.values[d..2 * d]));
    quote! {
        let mut out = out;
        for matrix in out.iter_mut() {
            #p::zero_matrix(matrix);
        }
        #stmts
        (#first, #second)
    }
}

/// What a kernel does with the anchors of its `sin` and `cos`
/// (`PointKernels::derivatives_anchored`).
#[derive(Clone, Copy)]
enum Anchoring<'a> {
    /// Evaluates them.
    None,
    /// Evaluates them and writes `[x, sin x, cos x]` of each argument.
    Write(&'a [[Id; 3]]),
    /// Continues them from the anchors of these arguments (`sin_cos_near`).
    Read(&'a [Id]),
}

/// `sin x` and `cos x` of the anchored `arguments` continued from `anchors[i]`
/// (`__private::sin_cos_near`), every other function evaluated.
fn near_funcs(arguments: &[Id]) -> impl Fn(Func, Id, &TokenStream) -> Option<TokenStream> + '_ {
    let p = private();
    move |f: Func, x: Id, operand: &TokenStream| {
        let i = lit(arguments.iter().position(|&a| a == x)?);
        match f {
            Func::Sin => Some(quote!(#p::sin_cos_near(#operand, anchors[#i]).0)),
            Func::Cos => Some(quote!(#p::sin_cos_near(#operand, anchors[#i]).1)),
            _ => None,
        }
    }
}

/// The arguments of every `sin` and `cos` that `outputs` read, each once, in the order
/// a walk from the outputs meets them: the anchors of
/// `PointKernels::derivatives_anchored`.
fn trigonometric_arguments(g: &Graph, outputs: &[Id]) -> Vec<Id> {
    let mut seen = std::collections::HashSet::new();
    let mut stack: Vec<Id> = outputs.to_vec();
    let mut arguments = Vec::new();
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        let node = g.node(id);
        if let Node::Func(Func::Sin | Func::Cos, x) = node {
            if !arguments.contains(&x) {
                arguments.push(x);
            }
        }
        stack.extend(node.children());
    }
    arguments
}

/// The items `ANCHORS`, `derivatives_anchored`, `derivatives_near` and
/// `l_q_and_l_v_near` of a model whose `D₁L`, `D₂L` read `sin` or `cos` (nothing for
/// one that does not: the defaults).
fn anchored_kernels(
    model: &mut Model,
    (l_q, l_v): (&[Id], &[Id]),
    second: [&[Vec<Id>]; 3],
    (qvec, vec): (&TokenStream, &TokenStream),
) -> TokenStream {
    let first: Vec<Id> = [l_q, l_v].concat();
    let arguments = trigonometric_arguments(&model.graph, &first);
    if arguments.is_empty() {
        return TokenStream::new();
    }
    let anchors: Vec<[Id; 3]> = arguments
        .iter()
        .map(|&x| {
            let sin = model.graph.func(Func::Sin, x);
            [x, sin, model.graph.func(Func::Cos, x)]
        })
        .collect();
    let model = &*model;
    let p = private();
    let dl = lit(l_q.len());
    let count = lit(anchors.len());
    let anchored = derivatives_body(model, (l_q, l_v), second, Anchoring::Write(&anchors));
    let continued = derivatives_body(model, (l_q, l_v), second, Anchoring::Read(&arguments));
    let (var, none) = (
        |v| var_expr(model, v),
        |_: usize, _: &TokenStream| TokenStream::new(),
    );
    let near = near_funcs(&arguments);
    let b = emit_with_funcs(&model.graph, &first, (&var, &p), &none, &near);
    let (stmts, d) = (b.stmts, l_q.len());
    let (l_q, l_v) = (svector(d, &b.values[..d]), svector(d, &b.values[d..]));
    quote! {
        const ANCHORS: usize = #count;
        #[inline]
        fn derivatives_anchored(
            &self,
            q: &#qvec,
            v: &#vec,
            out: [&mut [[T; #dl]; #dl]; 3],
            anchors: &mut [[T; 3]],
        ) -> (#vec, #vec) {
            let ::core::option::Option::Some(anchors) = anchors.first_chunk_mut::<#count>() else {
                return self.derivatives(q, v, out);
            };
            let (q, v) = (&q.data.0[0], &v.data.0[0]);
            #anchored
        }
        #[inline]
        fn derivatives_near(
            &self,
            q: &#qvec,
            v: &#vec,
            out: [&mut [[T; #dl]; #dl]; 3],
            anchors: &[[T; 3]],
        ) -> (#vec, #vec) {
            let ::core::option::Option::Some(anchors) = anchors.first_chunk::<#count>() else {
                return self.derivatives(q, v, out);
            };
            let (q, v) = (&q.data.0[0], &v.data.0[0]);
            #continued
        }
        #[inline]
        fn l_q_and_l_v_near(&self, q: &#qvec, v: &#vec, anchors: &[[T; 3]]) -> (#vec, #vec) {
            let ::core::option::Option::Some(anchors) = anchors.first_chunk::<#count>() else {
                return self.l_q_and_l_v(q, v);
            };
            let (q, v) = (&q.data.0[0], &v.data.0[0]);
            #stmts
            (#l_q, #l_v)
        }
    }
}

/// `out[r][c] = entries[r][c]` for every entry, the structural zeros written as zeros:
/// a matrix stored row by row (`∂F/∂u`, whose rows are the inputs' arrays).
fn rows_body(model: &Model, entries: &[Vec<Id>]) -> TokenStream {
    let (stmts, values) = block(model, &entries.concat());
    let mut values = values.into_iter();
    let rows = entries.iter().map(|row| {
        let row: Vec<TokenStream> = row.iter().filter_map(|_| values.next()).collect();
        quote!([#(#row),*])
    });
    quote! {
        #stmts
        *out = [#(#rows),*];
    }
}

/// `impl PointKernels<T, D>`: `l_q`, `l_v`, `l_qq`, `l_qv`, `l_vv`, the fused
/// `l_q_and_l_v` and `derivatives`, and for a model with a `forces` block
/// ([`forced_kernels`]) `FORCED`, `f`, `f_q`, `f_v` and `f_u`.
pub fn point_kernels(model: &mut Model, quantities: &Quantities) -> TokenStream {
    let p = private();
    let d = model.dim();
    let dl = lit(d);
    let (qv, vv) = (model.q.clone(), model.v.clone());
    let (l_q, l_v) = (&quantities.dl_dq, &quantities.dl_dv);
    // `ℓ_ζζ = (∂ℓ_ζ/∂q) Lg` on a group (`config_gradient`), `∂²L/∂q²` in a vector space.
    let l_qq: Vec<Vec<Id>> = l_q.iter().map(|&e| model.config_gradient(e)).collect();
    let l_qv: Vec<Vec<Id>> = l_q.iter().map(|&e| model.graph.gradient(e, &vv)).collect();
    let l_vv: Vec<Vec<Id>> = l_v.iter().map(|&e| model.graph.gradient(e, &vv)).collect();
    let uv: Vec<VarId> = model.inputs.iter().map(|&(var, _)| var).collect();
    let forces = model.forces.clone().map(|f| {
        let f_q: Vec<Vec<Id>> = f.iter().map(|&e| model.graph.gradient(e, &qv)).collect();
        let f_v: Vec<Vec<Id>> = f.iter().map(|&e| model.graph.gradient(e, &vv)).collect();
        let f_u: Vec<Vec<Id>> = f.iter().map(|&e| model.graph.gradient(e, &uv)).collect();
        (f, f_q, f_v, f_u)
    });
    let vector = |model: &Model, es: &[Id]| {
        let (s, v) = block(model, es);
        let vec = svector(es.len(), &v);
        quote!(#s #vec)
    };
    // Both in one block: the statements they share computed once.
    let fused = {
        let (stmts, values) = block(model, &[l_q.as_slice(), l_v.as_slice()].concat());
        let (first, second) = values.split_at(d);
        let (first, second) = (svector(d, first), svector(d, second));
        quote!(#stmts (#first, #second))
    };
    let derivatives = derivatives_body(model, (l_q, l_v), [&l_qq, &l_qv, &l_vv], Anchoring::None);
    let (l_q, l_v) = (vector(model, l_q), vector(model, l_v));
    let pattern = |entries: &[Vec<Id>]| pattern_tokens(&matrix_pattern(model, entries));
    let (qq, qv, vv) = (pattern(&l_qq), pattern(&l_qv), pattern(&l_vv));
    let (f_q_pattern, f_v_pattern) = match &forces {
        Some((_, f_q, f_v, _)) => (pattern(f_q), pattern(f_v)),
        None => (quote!(&[]), quote!(&[])),
    };
    let vec = quote!(#p::SVector<T, #dl>);
    let (qvec, storage) = storage_tokens(model);
    let anchored = anchored_kernels(
        model,
        (&quantities.dl_dq, &quantities.dl_dv),
        [&l_qq, &l_qv, &l_vv],
        (&qvec, &vec),
    );
    let forced = forces.map(|forces| forced_kernels(model, forces, uv.len()));
    let (l_qq, l_qv, l_vv) = (
        columns_body(model, &l_qq),
        columns_body(model, &l_qv),
        columns_body(model, &l_vv),
    );
    let name = &model.name;
    quote! {
        #[allow(unused_variables, clippy::all)]
        impl<T: #p::Real> #p::PointKernels<T, #dl #storage> for #name<T> {
            const PATTERNS: ::core::option::Option<#p::KernelPatterns> =
                ::core::option::Option::Some(#p::KernelPatterns {
                    l_qq: #qq, l_qv: #qv, l_vv: #vv, f_q: #f_q_pattern, f_v: #f_v_pattern,
                });
            #forced
            #anchored

            #[inline]
            fn l_q(&self, q: &#qvec, v: &#vec) -> #vec {
                let (q, v) = (&q.data.0[0], &v.data.0[0]);
                #l_q
            }
            #[inline]
            fn l_v(&self, q: &#qvec, v: &#vec) -> #vec {
                let (q, v) = (&q.data.0[0], &v.data.0[0]);
                #l_v
            }
            #[inline]
            fn l_q_and_l_v(&self, q: &#qvec, v: &#vec) -> (#vec, #vec) {
                let (q, v) = (&q.data.0[0], &v.data.0[0]);
                #fused
            }
            #[inline]
            fn derivatives(
                &self,
                q: &#qvec,
                v: &#vec,
                out: [&mut [[T; #dl]; #dl]; 3],
            ) -> (#vec, #vec) {
                let (q, v) = (&q.data.0[0], &v.data.0[0]);
                #derivatives
            }
            #[inline]
            fn l_qq(&self, q: &#qvec, v: &#vec, out: &mut [[T; #dl]; #dl]) {
                let (q, v) = (&q.data.0[0], &v.data.0[0]);
                #l_qq
            }
            #[inline]
            fn l_qv(&self, q: &#qvec, v: &#vec, out: &mut [[T; #dl]; #dl]) {
                let (q, v) = (&q.data.0[0], &v.data.0[0]);
                #l_qv
            }
            #[inline]
            fn l_vv(&self, q: &#qvec, v: &#vec, out: &mut [[T; #dl]; #dl]) {
                let (q, v) = (&q.data.0[0], &v.data.0[0]);
                #l_vv
            }
        }
    }
}

/// A `forces` block's `F` and its derivatives `F_q`, `F_v`, `F_u` (rows of `F`).
type Forces = (Vec<Id>, Vec<Vec<Id>>, Vec<Vec<Id>>, Vec<Vec<Id>>);

/// The forces' items of `impl PointKernels<T, D>` for a model with a `forces` block:
/// `FORCED`, `f`, `f_q`, `f_v` and `f_u` (the block's time variable the argument
/// `time`), which the stage families add to their stage forces.
fn forced_kernels(model: &Model, (f, f_q, f_v, f_u): Forces, inputs: usize) -> TokenStream {
    let p = private();
    let (d, ul) = (model.dim(), lit(inputs));
    let dl = lit(d);
    let vec = quote!(#p::SVector<T, #dl>);
    let f = {
        let (stmts, values) = block(model, &f);
        let value = svector(d, &values);
        quote!(#stmts #value)
    };
    let (f_q, f_v) = (columns_body(model, &f_q), columns_body(model, &f_v));
    let f_u = rows_body(model, &f_u);
    quote! {
        const FORCED: bool = true;
        #[inline]
        fn f(&self, time: T, q: &#vec, v: &#vec, u: &[T; #ul]) -> #vec {
            let (q, v) = (&q.data.0[0], &v.data.0[0]);
            #f
        }
        #[inline]
        fn f_q(&self, time: T, q: &#vec, v: &#vec, u: &[T; #ul], out: &mut [[T; #dl]; #dl]) {
            let (q, v) = (&q.data.0[0], &v.data.0[0]);
            #f_q
        }
        #[inline]
        fn f_v(&self, time: T, q: &#vec, v: &#vec, u: &[T; #ul], out: &mut [[T; #dl]; #dl]) {
            let (q, v) = (&q.data.0[0], &v.data.0[0]);
            #f_v
        }
        #[inline]
        fn f_u(&self, time: T, q: &#vec, v: &#vec, u: &[T; #ul], out: &mut [[T; #ul]; #dl]) {
            let (q, v) = (&q.data.0[0], &v.data.0[0]);
            #f_u
        }
    }
}

/// The type of a configuration argument and the trait parameter `, Q` of a model on a
/// group, whose `Q` storage numbers differ from its `D` velocities; a model in a vector
/// space keeps the default `Q = D` (its impls as before groups).
pub(super) fn storage_tokens(model: &Model) -> (TokenStream, TokenStream) {
    let p = private();
    if model.is_group() {
        let ql = lit(model.storage_dim());
        (quote!(#p::SVector<T, #ql>), quote!(, #ql))
    } else {
        let dl = lit(model.dim());
        (quote!(#p::SVector<T, #dl>), TokenStream::new())
    }
}

/// `&[(row, column), …]`, a kernel's pattern as the runtime's `KernelPatterns` and
/// `ConstraintPatterns` hold it.
fn pattern_tokens(pattern: &[(usize, usize)]) -> TokenStream {
    let entries = pattern.iter().map(|&(r, c)| {
        let (r, c) = (r as u16, c as u16);
        quote!((#r, #c))
    });
    quote!(&[#(#entries),*])
}

/// `Some(ConstraintPatterns { … })`, the patterns of the kernels of the constraint
/// matrix `rows`, as the runtime's `HolonomicKernels::PATTERNS` and
/// `NonholonomicKernels::PATTERNS` hold them.
fn constraint_patterns(
    model: &mut Model,
    quantities: &Quantities,
    rows: &[Vec<Id>],
    affine: &[Id],
) -> TokenStream {
    let p = private();
    let patterns = ConstraintPatterns::new(model, quantities, rows, affine);
    let [matrix, contracted, k_qq, times_v] = [
        &patterns.matrix,
        &patterns.contracted,
        &patterns.k_qq,
        &patterns.times_v,
    ]
    .map(|pattern| pattern_tokens(pattern));
    quote! {
        ::core::option::Option::Some(#p::ConstraintPatterns {
            matrix: #matrix,
            contracted: #contracted,
            k_qq: #k_qq,
            times_v: #times_v,
        })
    }
}

/// `∂(Rᵀ λ)/∂q` (`d × d`, row `i` the gradient of `Σₐ λₐ Rₐᵢ`) and `∂(R v + a)/∂q`
/// (`k × d`) of the `k × d` matrix `rows` of expressions in `q` and their affine terms
/// `affine` (none for holonomic constraints): the constraint kernels' contractions,
/// each one gradient per row, left-trivialised on a group
/// ([`Model::config_gradient`]). `λ` is read from `lambda[a]`, `v` from `v[i]`.
fn contractions(
    model: &mut Model,
    rows: &[Vec<Id>],
    affine: &[Id],
) -> (Vec<Vec<Id>>, Vec<Vec<Id>>) {
    let (d, k) = (model.dim(), rows.len());
    let lambda: Vec<Id> = (0..k)
        .map(|a| {
            model
                .new_var(format!("lambda{a}"), Role::Input("lambda", Some(a)))
                .1
        })
        .collect();
    let velocity: Vec<Id> = model
        .v
        .clone()
        .into_iter()
        .map(|v| model.graph.var_node(v))
        .collect();
    let transposed = (0..d)
        .map(|i| {
            let column: Vec<Id> = rows.iter().map(|row| row[i]).collect();
            let s = model.graph.dot(&lambda, &column);
            model.config_gradient(s)
        })
        .collect();
    let times_v = rows
        .iter()
        .enumerate()
        .map(|(a, row)| {
            let t = model.graph.dot(row, &velocity);
            let t = match affine.get(a) {
                Some(&affine) => model.graph.add(t, affine),
                None => t,
            };
            model.config_gradient(t)
        })
        .collect();
    (transposed, times_v)
}

/// `impl HolonomicKernels<T, D, M>`: `Φ`, `DΦ`, `Σₐ λₐ D²Φᵃ` and `∂(DΦ v)/∂q`, for the
/// holonomically constrained stage family.
pub fn holonomic_kernels(model: &mut Model, quantities: &Quantities) -> TokenStream {
    let p = private();
    let (d, m) = (model.dim(), model.n_constraints());
    let (dl, ml) = (lit(d), lit(m));
    let patterns = constraint_patterns(model, quantities, &quantities.jac, &[]);
    let jac = &quantities.jac;
    let (contracted, phi_qv) = contractions(model, jac, &[]);
    let phi = {
        let (s, v) = block(model, &quantities.g);
        let vec = svector(m, &v);
        quote!(#s #vec)
    };
    let (phi_q, contracted, phi_qv) = (
        columns_body(model, jac),
        columns_body(model, &contracted),
        columns_body(model, &phi_qv),
    );
    let name = &model.name;
    let (vec, mvec) = (quote!(#p::SVector<T, #dl>), quote!(#p::SVector<T, #ml>));
    quote! {
        #[allow(unused_variables, clippy::all)]
        impl<T: #p::Real> #p::HolonomicKernels<T, #dl, #ml> for #name<T> {
            const PATTERNS: ::core::option::Option<#p::ConstraintPatterns> = #patterns;

            #[inline]
            fn phi(&self, q: &#vec) -> #mvec {
                let q = &q.data.0[0];
                #phi
            }
            #[inline]
            fn phi_q(&self, q: &#vec, out: &mut [[T; #ml]; #dl]) {
                let q = &q.data.0[0];
                #phi_q
            }
            #[inline]
            fn phi_qq_contracted(&self, q: &#vec, lambda: &#mvec, out: &mut [[T; #dl]; #dl]) {
                let (q, lambda) = (&q.data.0[0], &lambda.data.0[0]);
                #contracted
            }
            #[inline]
            fn phi_qv(&self, q: &#vec, v: &#vec, out: &mut [[T; #ml]; #dl]) {
                let (q, v) = (&q.data.0[0], &v.data.0[0]);
                #phi_qv
            }
        }
    }
}

/// `impl CurvatureKernels<T, D, M>`: `∂(D²Φᵃ(q)(v, v))/∂q`, third derivatives of the
/// holonomic constraints, which the constrained converted schemes' standard layer reads
/// (the saddle system's right-hand side `D²Φ(v, v)` differentiated by `q`). Emitted only
/// for a model that declares such a scheme.
pub fn curvature_kernels(model: &mut Model, quantities: &Quantities) -> TokenStream {
    let p = private();
    let (dl, ml) = (lit(model.dim()), lit(model.n_constraints()));
    let qv = model.q.clone();
    let velocity: Vec<Id> = model
        .v
        .clone()
        .into_iter()
        .map(|v| model.graph.var_node(v))
        .collect();
    let rows: Vec<Vec<Id>> = quantities
        .jac
        .iter()
        .map(|row| {
            // D²Φᵃ(v, v) = Σₖ vₖ ∂(DΦᵃ v)/∂qₖ.
            let times_v = model.graph.dot(row, &velocity);
            let by_q = model.graph.gradient(times_v, &qv);
            let curvature = model.graph.dot(&by_q, &velocity);
            model.graph.gradient(curvature, &qv)
        })
        .collect();
    let body = columns_body(model, &rows);
    let name = &model.name;
    let vec = quote!(#p::SVector<T, #dl>);
    quote! {
        #[allow(unused_variables, clippy::all)]
        impl<T: #p::Real> #p::CurvatureKernels<T, #dl, #ml> for #name<T> {
            #[inline]
            fn phi_vv_q(&self, q: &#vec, v: &#vec, out: &mut [[T; #ml]; #dl]) {
                let (q, v) = (&q.data.0[0], &v.data.0[0]);
                #body
            }
        }
    }
}

/// `impl NonholonomicKernels<T, D, K>` for a model with a `nonholonomic` block: `A(q)`,
/// `∂(Aᵀ λ)/∂q`, `∂(A v + a)/∂q` and, where a constraint has terms without velocities,
/// the affine term `a(q)`; nothing without one. In a model that also has holonomic
/// constraints `g(q) = 0`, their velocity forms `G(q) v = 0` are `A`'s last rows
/// ([`Model::n_velocity_constraints`]): the nonholonomic method integrates them as the
/// index-2 constraints they are, and `g` holds to the method's order, not exactly. On a
/// group the derivatives along `q` are left-trivialised and the dense family reads no
/// patterns.
pub fn nonholonomic_kernels(model: &mut Model, quantities: &Quantities) -> TokenStream {
    if model.nonholonomic.is_empty() {
        return TokenStream::new();
    }
    let p = private();
    let (d, k) = (model.dim(), model.n_velocity_constraints());
    let (dl, kl) = (lit(d), lit(k));
    let a = velocity_constraint_matrix(model);
    let affine = velocity_constraint_affine(model);
    let patterns = if model.is_group() {
        quote!(::core::option::Option::None)
    } else {
        constraint_patterns(model, quantities, &a, &affine)
    };
    let (transposed, times_v) = contractions(model, &a, &affine);
    let affine = affine.iter().any(|&e| !model.graph.is_zero(e)).then(|| {
        let (stmts, values) = block(model, &affine);
        let kvec = svector(k, &values);
        let (qvec, _) = storage_tokens(model);
        quote! {
            #[inline]
            fn affine(&self, q: &#qvec) -> #p::SVector<T, #kl> {
                let q = &q.data.0[0];
                #stmts
                #kvec
            }
        }
    });
    let (a, transposed, times_v) = (
        columns_body(model, &a),
        columns_body(model, &transposed),
        columns_body(model, &times_v),
    );
    let name = &model.name;
    let (vec, kvec) = (quote!(#p::SVector<T, #dl>), quote!(#p::SVector<T, #kl>));
    let (qvec, storage) = storage_tokens(model);
    quote! {
        #[allow(unused_variables, clippy::all)]
        impl<T: #p::Real> #p::NonholonomicKernels<T, #dl, #kl #storage> for #name<T> {
            const PATTERNS: ::core::option::Option<#p::ConstraintPatterns> = #patterns;

            #[inline]
            fn a(&self, q: &#qvec, out: &mut [[T; #kl]; #dl]) {
                let q = &q.data.0[0];
                #a
            }
            #[inline]
            fn a_t_lambda_q(&self, q: &#qvec, lambda: &#kvec, out: &mut [[T; #dl]; #dl]) {
                let (q, lambda) = (&q.data.0[0], &lambda.data.0[0]);
                #transposed
            }
            #[inline]
            fn a_v_q(&self, q: &#qvec, v: &#vec, out: &mut [[T; #kl]; #dl]) {
                let (q, v) = (&q.data.0[0], &v.data.0[0]);
                #times_v
            }
            #affine
        }
    }
}
