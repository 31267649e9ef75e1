//! Per requested scheme: the two-point family's `DiscreteSystem` and `Step` impls (with
//! the budget on their size), the assembled families' `Step` impls, the `Step` impl
//! shared by every family, and the `DeclaredSchemes` visitor.
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::elimination::Elimination;
use super::stage_patterns;
use super::tokens::{
    block, intermediate_derivative_ident, intermediate_ident, lit, private, svector, var_expr,
};
use crate::errors::Errors;
use crate::ir::{Model, Role};
use crate::quantities::Quantities;
use crate::schemes::{Arg, Assembled, SchemeKind, SchemeRequest, Template};
use crate::sym::emit::{emit_sunk, emit_sunk_each, Sink};
use crate::sym::{Id, Node, VarId};

/// The impls of every requested scheme, or the errors of those over the budget.
pub fn impls(
    model: &mut Model,
    quantities: &Quantities,
    schemes: &[SchemeRequest],
) -> syn::Result<TokenStream> {
    let p = private();
    let mut out = TokenStream::new();
    let requests: Vec<_> = schemes.iter().map(|s| (s.kind, s.span)).collect();
    let mut errors = Errors::default();
    for (kind, span) in requests {
        let marker = format_ident!("{}", kind.name());
        match (
            kind.family().assembled(),
            kind.template(model, quantities),
            kind.stages(),
        ) {
            (None, Some(template), None) => {
                match scheme_impl(model, kind, &template, quote!(#p::schemes::#marker)) {
                    Ok(tokens) => out.extend(tokens),
                    Err(message) => errors.push(span, message),
                }
            }
            // A family without stages (the converted schemes) has no count.
            (Some(family), None, stages) => {
                let stages = stages.unwrap_or(0);
                out.extend(assembled_step(model, quantities, kind, family, stages));
            }
            (family, _, _) => unreachable!("catalogue: {kind:?} does not fit family {family:?}"),
        }
    }
    errors.finish()?;
    Ok(out)
}

/// `impl DeclaredSchemes`: the visitor called with every scheme of the model's
/// `schemes { … }` line, in order.
pub fn declared_schemes(model: &Model, schemes: &[SchemeRequest]) -> TokenStream {
    let p = private();
    let name = &model.name;
    let (dl, ml) = (lit(model.dim()), lit(model.n_constraints()));
    let (_, storage) = super::kernels::storage_tokens(model);
    let markers = schemes.iter().map(|s| marker(s.kind));
    quote! {
        impl<T: #p::Real> #p::DeclaredSchemes<T, #dl, #ml #storage> for #name<T> {
            fn visit_schemes<V: #p::SchemeVisitor<T, Self, #dl, #ml #storage>>(visitor: &mut V) {
                #(visitor.visit(<#markers as ::core::default::Default>::default());)*
            }
        }
    }
}

/// The marker type of a requested scheme, with its parameters (a choice is a type of
/// `livens::schemes`).
fn marker(kind: SchemeKind) -> TokenStream {
    let p = private();
    let name = format_ident!("{}", kind.name());
    let args: Vec<TokenStream> = kind.args().map(arg_tokens).collect();
    if args.is_empty() {
        quote!(#p::schemes::#name)
    } else {
        quote!(#p::schemes::#name<#(#args),*>)
    }
}

/// A scheme parameter's value as a generic argument: an integer literal, or the
/// choice's type of `livens::schemes`.
fn arg_tokens(arg: Arg) -> TokenStream {
    let p = private();
    match arg {
        Arg::Count(n) => {
            let n = lit(n);
            quote!(#n)
        }
        Arg::Choice(choice) => {
            let choice = format_ident!("{}", choice);
            quote!(#p::schemes::#choice)
        }
    }
}

/// The budget error, on the scheme's name, with what to do instead: a stage family the
/// model can use (its code grows with the model, not with one step's equations), or a
/// larger budget.
fn over_budget(model: &Model, kind: SchemeKind, temporaries: usize) -> String {
    let instead = if !model.nonholonomic.is_empty() {
        "NonholonomicLobatto(2)"
    } else if model.constraints.is_empty() {
        "LobattoIIIAIIIB(2)"
    } else {
        "HolonomicLobatto(2)"
    };
    // error: the step equations of `GglEm` for `Grav12` take 32229 temporaries …
    format!(
        "the step equations of `{}` for `{}` take {temporaries} temporaries, over the budget \
         of {} (rustc takes about 10 s and 1 GB per 10 000; see docs/ARCHITECTURE.md); use \
         a scheme assembled at run time from point kernels, such as `{instead}` (its code \
         grows with the model, not with a step's equations), or raise the budget with \
         `schemes(budget = {}) {{ … }}`",
        kind.name(),
        model.name,
        model.budget,
        temporaries.next_multiple_of(1000),
    )
}

/// The `DiscreteSystem` impl of one scheme (residual, exact Jacobian, guesses, next
/// state) and its `Step` impl, which hands the sizes to the two-point family's driver; an
/// error if the emitted code would exceed the model's budget.
fn scheme_impl(
    model: &mut Model,
    kind: SchemeKind,
    t: &Template,
    marker: TokenStream,
) -> Result<TokenStream, String> {
    let p = private();
    let (d, m, n) = (model.dim(), model.n_constraints(), t.unknowns.len());
    let (dl, ml, nl) = (lit(d), lit(m), lit(n));
    let ul = lit(model.inputs.len());
    let dw = intermediate_derivatives(model, t, &t.unknowns, 0);
    let nonzero = jacobian_entries(model, t, &dw);
    let intermediates = intermediates_block(model, t, &[]);
    let intermediates_and_derivatives = intermediates_block(model, t, &dw);
    // The Jacobian's elimination plan; with one, the writer below skips the zeros
    // (the plan zeroes its fill itself), without one (structurally singular) it
    // clears the whole matrix for the dense LU.
    let elimination = Elimination::plan_with_linear_pivots(
        n,
        nonzero.iter().map(|&(i, j, _)| (i, j)),
        &multiplier_partners(&t.blocks, m),
        &t.linear_pivots,
    );
    let this = quote!(<Self as #p::families::two_point::DiscreteSystem<T, #marker, #dl, #ml, #nl>>);
    let (plan, clear, planned) = plan_tokens(elimination.as_ref(), &this);
    let (r_stmts, r_only) = block(model, &t.residual);
    let guesses = guesses(model, t, n);
    let accept = accepted_state(model, t);
    let layout = layout_tokens(&t.blocks);
    // The linearised step, for a model with inputs only (the budget, and the output of
    // every other model unchanged).
    let linear = if !model.inputs.is_empty() && linearizes(kind) {
        Some(linearized_system(model, kind, t, &marker)?)
    } else {
        None
    };
    let prologue = input_bindings();
    let name = &model.name;
    let state = quote!(#p::NodeState<T, #dl, #ml>);
    let signature = quote! {
        (
            &self,
            scheme: &#marker,
            h: T,
            known: &#state,
            inputs: &[T; #ul],
            x: &#p::SVector<T, #nl>,
            r: &mut #p::SVector<T, #nl>,
            jac: &mut [[T; #nl]; #nl],
        )
    };
    let writer_body = quote! {
        #prologue
        let x = &x.data.0[0];
        #clear
        #intermediates_and_derivatives
    };
    let writers = residual_and_jacobian_writers(
        model,
        kind,
        t,
        &nonzero,
        elimination.as_ref(),
        &writer_body,
        &signature,
    )?;
    let step = step_impl(
        model,
        &marker,
        &t.blocks,
        &state,
        (
            &quote!(#p::Workspace<T, #nl, K>),
            &quote!(#p::Workspace::new()),
        ),
        &quote!(#p::families::two_point),
    );
    Ok(quote! {
        #[allow(unused_variables, clippy::all)]
        impl<T: #p::Real> #p::families::two_point::DiscreteSystem<T, #marker, #dl, #ml, #nl> for #name<T> {
            const UNKNOWNS: &'static [#p::Block] = &[#(#layout),*];
            const PLAN: ::core::option::Option<&'static #p::Plan> = #plan;

            #planned

            #writers

            fn residual(&self, scheme: &#marker, h: T, known: &#state, inputs: &[T; #ul], x: &#p::SVector<T, #nl>, r: &mut #p::SVector<T, #nl>) {
                #prologue
                let x = &x.data.0[0];
                #intermediates
                #r_stmts
                r.data.0[0] = [#(#r_only),*];
            }

            fn initial_guess(&self, scheme: &#marker, h: T, known: &#state, inputs: &[T; #ul], guess: #p::Guess) -> #p::SVector<T, #nl> {
                #prologue
                #guesses
            }

            fn accept(&self, scheme: &#marker, h: T, known: &#state, inputs: &[T; #ul], x: &#p::SVector<T, #nl>) -> #state {
                #prologue
                let x = &x.data.0[0];
                #intermediates
                #accept
            }
        }

        #step

        #linear
    })
}

/// The exact Jacobian ∂R_i/∂x_j + Σ_k ∂R_i/∂w_k ∂w_k/∂x_j as its nonzero entries
/// `(i, j, expression)`, in row order: only those are written.
fn jacobian_entries(
    model: &mut Model,
    t: &Template,
    dw: &[(usize, usize, Id, Id)],
) -> Vec<(usize, usize, Id)> {
    let mut nonzero = Vec::new();
    for (i, &ri) in t.residual.iter().enumerate() {
        let mut through: Vec<(usize, Id)> = Vec::new();
        for (k, &(wk, _)) in t.intermediates.iter().enumerate() {
            let e = model.graph.diff(ri, wk);
            if !model.graph.is_zero(e) {
                through.push((k, e));
            }
        }
        for (j, &xj) in t.unknowns.iter().enumerate() {
            let mut e = model.graph.diff(ri, xj);
            for &(k, dr_dw) in &through {
                if let Some(&(_, _, dw_kj, _)) = dw.iter().find(|d| (d.0, d.1) == (k, j)) {
                    let term = model.graph.mul(dr_dw, dw_kj);
                    e = model.graph.add(e, term);
                }
            }
            if !model.graph.is_zero(e) {
                nonzero.push((i, j, e));
            }
        }
    }
    nonzero
}

/// The symbolic schemes whose step `model!` linearises, on a model with inputs: EML,
/// stabilised (the default) and the paper's, whose next state `(q¹, v¹, p¹)` is read
/// off the unknowns. [`linearized_system`] is written for any template; the others
/// join this list with a check of their `[A B]` against differences of their step
/// (`tests/stages/linearized_eml.rs` is EML's).
fn linearizes(kind: SchemeKind) -> bool {
    matches!(kind.name(), "Eml" | "EmlPaper")
}

/// The variable a node of the known state is.
fn as_var(model: &Model, id: Id) -> VarId {
    match model.graph.node(id) {
        Node::Var(v) => v,
        other => unreachable!("the known state's entries are variables, not {other:?}"),
    }
}

/// The next state's entries of the known block `name` (`Template::known`).
fn next_block<'a>(t: &'a Template, name: &str) -> &'a [Id] {
    match name {
        "q" => &t.next.q,
        "v" => &t.next.v,
        "p" => &t.next.p,
        "lambda" => &t.next.lambda,
        "gamma" => &t.next.gamma,
        other => unreachable!("template: no known block {other:?}"),
    }
}

/// The carried state `z` of a template's step (spec `next_packages.md` §D.3): the known
/// blocks its residual or intermediates read, and those the next state of a carried
/// block reads, to a fixed point; a block the step never reads (EML's `λ`, `γ`: only
/// Newton's guess does) is not part of `z`. As `(name, known entries, next entries)`,
/// in the order of `Template::known`.
fn carried_blocks<'a>(model: &Model, t: &'a Template) -> Vec<(&'static str, &'a [Id], &'a [Id])> {
    let reads = |exprs: &[Id], block: &[Id]| {
        let vars: Vec<VarId> = block.iter().map(|&id| as_var(model, id)).collect();
        exprs
            .iter()
            .any(|&e| model.graph.depends_on_any(e, |v| vars.contains(&v)))
    };
    let mut equations = t.residual.clone();
    equations.extend(t.intermediates.iter().map(|w| w.1));
    let mut carried: Vec<bool> = t
        .known
        .iter()
        .map(|(_, block)| !block.is_empty() && reads(&equations, block))
        .collect();
    loop {
        let mut grown = false;
        for b in 0..t.known.len() {
            let block = &t.known[b].1;
            let read_by_next = (0..t.known.len())
                .filter(|&c| carried[c])
                .any(|c| reads(next_block(t, t.known[c].0), block));
            if !carried[b] && !block.is_empty() && read_by_next {
                carried[b] = true;
                grown = true;
            }
        }
        if !grown {
            break;
        }
    }
    t.known
        .iter()
        .zip(carried)
        .filter(|(_, on)| *on)
        .map(|((name, block), _)| (*name, block.as_slice(), next_block(t, name)))
        .collect()
}

/// For a model with inputs, the scheme's `LinearizedSystem` impl and its `Linearize`
/// impl (`runtime/src/families/two_point_linear.rs`): the derivatives of the residual `R` and
/// of the carried part of the next state `Ψ` with respect to the carried state `z`
/// ([`carried_blocks`]) and the inputs `u`, and of `Ψ` with respect to the unknowns
/// `x`, through the template's intermediates by the chain rule as [`jacobian_entries`]
/// does for `∂R/∂x`; only the nonzeros are written. An error if they would exceed
/// the model's budget.
fn linearized_system(
    model: &mut Model,
    kind: SchemeKind,
    t: &Template,
    marker: &TokenStream,
) -> Result<TokenStream, String> {
    let p = private();
    let (d, m, n, nu) = (
        model.dim(),
        model.n_constraints(),
        t.unknowns.len(),
        model.inputs.len(),
    );
    let blocks = carried_blocks(model, t);
    let nz: usize = blocks.iter().map(|b| b.1.len()).sum();
    let carried = carried_names(model, &blocks);
    // The columns: the unknowns `x`, then `z`, then `u`.
    let mut columns: Vec<VarId> = t.unknowns.clone();
    columns.extend(blocks.iter().flat_map(|b| b.1).map(|&id| as_var(model, id)));
    columns.extend(t.controls.iter().map(|&id| as_var(model, id)));
    let psi: Vec<Id> = blocks.iter().flat_map(|b| b.2.iter().copied()).collect();
    // ∂w_k/∂(column c), on `z` and `u` for `R`, on `x` too where `Ψ` reads a `w_k`.
    let is_intermediate = |model: &Model, e: Id| {
        model
            .graph
            .depends_on_any(e, |v| matches!(model.role(v), Role::Intermediate(_)))
    };
    let first = if psi.iter().any(|&e| is_intermediate(model, e)) {
        0
    } else {
        n
    };
    let dw = intermediate_derivatives(model, t, &columns, first);
    // d e / d(column c) = ∂e/∂c + Σ_k ∂e/∂w_k ∂w_k/∂c.
    let total = |model: &mut Model, e: Id, c: usize| {
        let mut out = model.graph.diff(e, columns[c]);
        for &(k, _, dw_kc, _) in dw.iter().filter(|d| d.1 == c) {
            let de_dw = model.graph.diff(e, t.intermediates[k].0);
            if !model.graph.is_zero(de_dw) {
                let term = model.graph.mul(de_dw, dw_kc);
                out = model.graph.add(out, term);
            }
        }
        out
    };
    // (block, row, column, expression): R_z, R_u, then Ψ_x, Ψ_z, Ψ_u.
    let mut entries: Vec<(&str, usize, usize, Id)> = Vec::new();
    let block_of = |c: usize| {
        if c < n {
            (0, c)
        } else if c < n + nz {
            (1, c - n)
        } else {
            (2, c - n - nz)
        }
    };
    for (rows, names, from) in [
        (&t.residual, ["", "r_z", "r_u"], n),
        (&psi, ["psi_x", "psi_z", "psi_u"], 0),
    ] {
        for (i, &e) in rows.iter().enumerate() {
            for c in from..n + nz + nu {
                let de = total(model, e, c);
                if !model.graph.is_zero(de) {
                    let (b, j) = block_of(c);
                    entries.push((names[b], i, j, de));
                }
            }
        }
    }
    let ids: Vec<Id> = entries.iter().map(|e| e.3).collect();
    let store = |k: usize, value: &TokenStream| {
        let (field, i, j, _) = entries[k];
        let (field, i, j) = (format_ident!("{}", field), lit(i), lit(j));
        quote!(out.#field.data.0[#j][#i] = #value;)
    };
    let var = |v| var_expr(model, v);
    let written = emit_sunk(&model.graph, &ids, &var, &p, &store);
    if written.temporaries > model.budget {
        return Err(over_budget(model, kind, written.temporaries));
    }
    let stmts = written.stmts;
    let intermediates = intermediates_block(model, t, &dw);
    let prologue = input_bindings();
    let name = &model.name;
    let (dl, ml, nl, nzl, nul) = (lit(d), lit(m), lit(n), lit(nz), lit(nu));
    let state = quote!(#p::NodeState<T, #dl, #ml>);
    let linear = quote!(#p::families::two_point_linear);
    let trait_impl = linearize_impl(model, marker, (&carried, &state, nz), &linear);
    Ok(quote! {
        #[allow(unused_variables, unused_mut, clippy::all)]
        impl<T: #p::Real> #linear::LinearizedSystem<T, #marker, #dl, #ml, #nl, #nzl, #nul> for #name<T> {
            fn sensitivities(
                &self,
                scheme: &#marker,
                h: T,
                known: &#state,
                inputs: &[T; #nul],
                x: &#p::SVector<T, #nl>,
                out: &mut #linear::Sensitivities<T, #nl, #nzl, #nul>,
            ) {
                #prologue
                let x = &x.data.0[0];
                #intermediates
                #stmts
            }
        }

        #trait_impl
    })
}

/// The carried state's entries by name (`q.x`, `lambda.rod`), in the order of `z`.
fn carried_names(model: &Model, blocks: &[(&'static str, &[Id], &[Id])]) -> Vec<String> {
    let mut carried = Vec::new();
    for &(block, entries, _) in blocks {
        for i in 0..entries.len() {
            let component = match block {
                "q" | "v" | "p" => &model.coord_names[i],
                _ => &model.constraints[i].name,
            };
            carried.push(format!("{block}.{component}"));
        }
    }
    carried
}

/// The intermediates' nonzero derivatives `∂w_k/∂(column c)`, for the columns from
/// `first` on, as `(k, c, variable, expression)`: each a variable of the Jacobian's
/// expressions, computed ahead of them. The step's columns are its unknowns `x`; the
/// linearised step's are `x`, then the carried state `z` and the inputs `u`.
fn intermediate_derivatives(
    model: &mut Model,
    t: &Template,
    columns: &[VarId],
    first: usize,
) -> Vec<(usize, usize, Id, Id)> {
    let mut dw = Vec::new();
    for (k, &(_, def)) in t.intermediates.iter().enumerate() {
        for (c, &var) in columns.iter().enumerate().skip(first) {
            let e = model.graph.diff(def, var);
            if !model.graph.is_zero(e) {
                let (_, v) =
                    model.new_var(format!("dw_{k}_{c}"), Role::IntermediateDerivative(k, c));
                dw.push((k, c, v, e));
            }
        }
    }
    dw
}

/// The `PLAN` constant's value, what the writer does before it writes (clear the whole
/// matrix for the dense LU when there is no plan) and the plan's methods.
fn plan_tokens(
    elimination: Option<&Elimination>,
    this: &TokenStream,
) -> (TokenStream, TokenStream, TokenStream) {
    let p = private();
    match elimination {
        Some(e) => {
            let plan = e.tokens();
            let methods = e.methods(&quote!(match #this::PLAN {
                ::core::option::Option::Some(plan) => plan,
                ::core::option::Option::None => return ::core::default::Default::default(),
            }));
            (
                quote!(::core::option::Option::Some(&#plan)),
                quote!(),
                methods,
            )
        }
        None => (
            quote!(::core::option::Option::None),
            quote!(#p::zero_matrix(jac);),
            quote!(),
        ),
    }
}

/// Every input block bound from where the family's table says it lives.
fn input_bindings() -> TokenStream {
    let bindings = crate::schemes::GGL_INPUTS.iter().map(|input| {
        let name = format_ident!("{}", input.name);
        let source: TokenStream = input.source.parse().expect("input sources are Rust paths");
        match input.size {
            crate::schemes::InputSize::Scalar | crate::schemes::InputSize::Inputs => {
                quote!(let #name = #source;)
            }
            _ => quote!(let #name = &#source.data.0[0];),
        }
    });
    quote!(#(#bindings)*)
}

/// The body of `initial_guess`: the template's guess from the previous step, or its
/// extrapolated one.
fn guesses(model: &Model, t: &Template, n: usize) -> TokenStream {
    let p = private();
    debug_assert!(
        t.guess.iter().chain(&t.guess_extrapolated).all(|&g| {
            !model
                .graph
                .depends_on_any(g, |v| matches!(model.role(v), Role::Intermediate(_)))
        }),
        "a guess may not use the intermediates"
    );
    let (g_stmts, g_vals) = block(model, &t.guess);
    let guess = svector(n, &g_vals);
    let (ge_stmts, ge_vals) = block(model, &t.guess_extrapolated);
    let guess_extrapolated = svector(n, &ge_vals);
    quote! {
        match guess {
            #p::Guess::Previous => {
                #g_stmts
                #guess
            }
            #p::Guess::Extrapolated => {
                #ge_stmts
                #guess_extrapolated
            }
        }
    }
}

/// The end of `accept`: the template's next state `(q, v, p, λ, γ)` as a `NodeState`.
fn accepted_state(model: &Model, t: &Template) -> TokenStream {
    let p = private();
    let (d, m) = (model.dim(), model.n_constraints());
    let nx = &t.next;
    let next_ids = [
        nx.q.clone(),
        nx.v.clone(),
        nx.p.clone(),
        nx.lambda.clone(),
        nx.gamma.clone(),
    ]
    .concat();
    let (a_stmts, a_vals) = block(model, &next_ids);
    let (qa, rest) = a_vals.split_at(d);
    let (va, rest) = rest.split_at(d);
    let (pa, rest) = rest.split_at(d);
    let (la, ga) = rest.split_at(m);
    let (qa, va, pa) = (svector(d, qa), svector(d, va), svector(d, pa));
    let (la, ga) = (svector(m, la), svector(m, ga));
    quote! {
        #a_stmts
        #p::NodeState { t: known.t + h, q: #qa, v: #va, p: #pa, lambda: #la, gamma: #ga }
    }
}

/// The order in which the writer computes its outputs (the residuals, then the
/// Jacobian's `nonzero` entries, as indices into both): equation by equation, each
/// residual and then its row of the Jacobian (`nonzero` is in row order).
fn row_by_row(n: usize, nonzero: &[(usize, usize, Id)]) -> Vec<usize> {
    let mut by_row: Vec<usize> = Vec::with_capacity(n + nonzero.len());
    let mut entries = nonzero.iter().enumerate().peekable();
    for i in 0..n {
        by_row.push(i);
        while let Some((k, _)) = entries.next_if(|(_, e)| e.0 == i) {
            by_row.push(n + k);
        }
    }
    by_row
}

/// `residual_and_jacobian` (and, with a packed plan in release builds, its packed
/// writer), each starting with `body`; an error if it would exceed the model's budget.
///
/// The writer stores each output as soon as it is computed (see `emit_sunk`): the
/// Jacobian's entry (i, j) at `position(i, j)` of `jac`, counted column-major.
fn residual_and_jacobian_writers(
    model: &Model,
    kind: SchemeKind,
    t: &Template,
    nonzero: &[(usize, usize, Id)],
    elimination: Option<&Elimination>,
    body: &TokenStream,
    signature: &TokenStream,
) -> Result<TokenStream, String> {
    let p = private();
    let n = t.unknowns.len();
    let mut outputs = t.residual.clone();
    outputs.extend(nonzero.iter().map(|(_, _, e)| *e));
    let by_row = row_by_row(n, nonzero);
    debug_assert_eq!(
        by_row.len(),
        outputs.len(),
        "the Jacobian's entries in row order"
    );
    let ordered: Vec<Id> = by_row.iter().map(|&k| outputs[k]).collect();
    // In release builds a plan may pack its entries (see `Elimination::packing`): the
    // planned writer then puts entry (i, j) at its position, and unpacks for the
    // column-stored contract; debug builds compile only the column-stored writer (the
    // table-driven factorisation reads that layout). The two writers differ only in
    // where they store the Jacobian's entries, so their statements are built once.
    let packing = elimination
        .and_then(|e| e.packing())
        .zip(elimination.and_then(|e| e.unpacking()));
    let store = |position: &dyn Fn(usize, usize) -> usize, k: usize, value: &TokenStream| {
        let k = by_row[k];
        if k < n {
            let k = lit(k);
            quote!(r.data.0[0][#k] = #value;)
        } else {
            let (i, j, _) = nonzero[k - n];
            let at = position(i, j);
            let (i, j) = (lit(at % n), lit(at / n));
            quote!(jac[#j][#i] = #value;)
        }
    };
    let column_stored = |k: usize, value: &TokenStream| store(&|i, j| j * n + i, k, value);
    let packed = packing.as_ref().map(|(position, _)| {
        move |k: usize, value: &TokenStream| store(&|i, j| position[&(i, j)], k, value)
    });
    let mut sinks: Vec<Sink> = vec![&column_stored];
    if let Some(packed) = &packed {
        sinks.push(packed);
    }
    let var = |v| var_expr(model, v);
    let blocks = emit_sunk_each(&model.graph, &ordered, &var, &p, &sinks);
    let temporaries = blocks.first().map_or(0, |b| b.temporaries);
    if temporaries > model.budget {
        return Err(over_budget(model, kind, temporaries));
    }
    let mut writers = blocks.into_iter().map(|block| {
        let stmts = block.stmts;
        quote! {
            #body
            #stmts
        }
    });
    let dense_writer = writers.next();
    Ok(match (packing, writers.next()) {
        (Some((_, unpack)), Some(packed_writer)) => {
            quote! {
                #[cfg(debug_assertions)]
                fn residual_and_jacobian #signature {
                    #dense_writer
                }

                #[cfg(not(debug_assertions))]
                fn residual_and_jacobian #signature {
                    self.residual_and_jacobian_planned(scheme, h, known, inputs, x, r, jac);
                    #unpack
                }

                #[cfg(not(debug_assertions))]
                #[inline(never)]
                fn residual_and_jacobian_planned #signature {
                    #packed_writer
                }
            }
        }
        _ => quote! {
            fn residual_and_jacobian #signature {
                #dense_writer
            }
        },
    })
}

/// `let (w_0, …, dw_k_j, …) = { … };`: the template's intermediates and the given
/// derivatives `(k, j, variable, expression)`, computed ahead of the expressions that
/// use them (nothing for a template without intermediates).
fn intermediates_block(
    model: &Model,
    t: &Template,
    derivatives: &[(usize, usize, Id, Id)],
) -> TokenStream {
    if t.intermediates.is_empty() {
        return TokenStream::new();
    }
    let mut names: Vec<_> = (0..t.intermediates.len()).map(intermediate_ident).collect();
    names.extend(
        derivatives
            .iter()
            .map(|&(k, j, ..)| intermediate_derivative_ident(k, j)),
    );
    let mut outputs: Vec<Id> = t.intermediates.iter().map(|&(_, def)| def).collect();
    outputs.extend(derivatives.iter().map(|d| d.3));
    let (stmts, vals) = block(model, &outputs);
    quote! {
        let (#(#names,)*) = {
            #stmts
            (#(#vals,)*)
        };
    }
}

/// `impl Step<T, Scheme>` for the model: the scheme's state and workspace types with
/// the sizes filled in, its unknowns' layout, and `step` and `equations` delegating to
/// the family's driver module (`families::two_point`, `families::prk`).
///
/// Every scheme takes its default options from its driver module (`default_options`:
/// the papers', or the predicting stage families').
pub(crate) fn step_impl(
    model: &Model,
    marker: &TokenStream,
    layout: &[(String, usize)],
    state: &TokenStream,
    (workspace, new_workspace): (&TokenStream, &TokenStream),
    family: &TokenStream,
) -> TokenStream {
    let p = private();
    let options = quote! {
        fn default_options(&self, scheme: &#marker) -> #p::StepOptions<T> {
            #family::default_options()
        }
    };
    let name = &model.name;
    let layout = layout_tokens(layout);
    let (dl, ml) = (lit(model.dim()), lit(model.n_constraints()));
    let (_, storage) = super::kernels::storage_tokens(model);
    let ul = lit(model.inputs.len());
    quote! {
        impl<T: #p::Real> #p::Step<T, #marker> for #name<T> {
            type State = #state;
            type Inputs = [T; #ul];
            type Workspace<K: #p::Storage> = #workspace;
            const UNKNOWNS: &'static [#p::Block] = &[#(#layout),*];

            fn workspace<K: #p::Storage>(&self, scheme: &#marker) -> Self::Workspace<K> {
                #new_workspace
            }

            fn time(state: &Self::State) -> T {
                #p::NodeValues::time(state)
            }

            #options

            #[inline]
            fn step<K: #p::Storage>(
                &self,
                scheme: &#marker,
                context: #p::StepContext<'_, T>,
                state: &Self::State,
                workspace: &mut Self::Workspace<K>,
                options: &#p::StepOptions<T>,
            ) -> ::core::result::Result<(Self::State, #p::StepReport<T>), #p::SolveError<T>> {
                let parameters = <Self as #p::Model<T, #dl, #ml #storage>>::check_parameters(self);
                #p::check_step(parameters, #ul, context, state, &options.newton)?;
                #family::step(self, scheme, context, state, workspace, options)
            }

            fn equations<K: #p::Storage>(
                &self,
                scheme: &#marker,
                context: #p::StepContext<'_, T>,
                state: &Self::State,
                workspace: &mut Self::Workspace<K>,
                x: &[T],
                r: &mut [T],
                jac: &mut [T],
            ) -> ::core::result::Result<(), #p::WrongLength> {
                #family::equations(self, scheme, context, state, workspace, x, r, jac)
            }
        }
    }
}

/// `Block { name, offset, len }` for each named block, offsets accumulated.
pub(crate) fn layout_tokens(blocks: &[(String, usize)]) -> Vec<TokenStream> {
    let p = private();
    let mut offset = 0;
    blocks
        .iter()
        .map(|(name, len)| {
            let (o, l) = (lit(offset), lit(*len));
            offset += len;
            quote!(#p::Block { name: #name, offset: #o, len: #l })
        })
        .collect()
}

/// `impl Step<T, Scheme<…>>` of a scheme of an assembled family, from the family's
/// catalogue entry: its workspace and state with the scheme's parameters (an integer
/// as a literal, a choice as its type of `livens::schemes`) and the model's sizes, its
/// driver module, and the elimination plan of its Jacobian's pattern
/// (`stage_patterns`, with the multipliers it may pivot on in pairs of stages) when it
/// costs at most a [`STAGE_PLAN_SHARE`]th of the dense LU's multiply–adds.
fn assembled_step(
    model: &mut Model,
    quantities: &Quantities,
    kind: SchemeKind,
    family: &Assembled,
    stages: usize,
) -> TokenStream {
    let p = private();
    let count = |model: &Model, name: &str| match name {
        "d" => model.dim(),
        "m" => model.n_constraints(),
        "k" => model.n_velocity_constraints(),
        param => match kind.arg(param) {
            Some(Arg::Count(n)) => n,
            other => unreachable!("catalogue: family size {param:?} is {other:?}"),
        },
    };
    let generic = |model: &Model, name: &str| match kind.arg(name) {
        Some(arg @ Arg::Choice(_)) => arg_tokens(arg),
        _ => {
            let n = lit(count(model, name));
            quote!(#n)
        }
    };
    let layout = kind.unknowns(model);
    let n: usize = layout.iter().map(|(_, len)| len).sum();
    let workspace_sizes: Vec<_> = family
        .workspace_sizes
        .iter()
        .map(|s| generic(model, s))
        .collect();
    let state_sizes: Vec<_> = family
        .state_sizes
        .iter()
        .map(|s| generic(model, s))
        .collect();
    let nl = lit(n);
    let marker = marker(kind);
    if model.is_group() {
        return group_step(
            model,
            &marker,
            &layout,
            family,
            (workspace_sizes, state_sizes, n),
        );
    }
    let (driver, workspace, state) = (
        format_ident!("{}", family.driver),
        format_ident!("{}", family.workspace),
        format_ident!("{}", family.state),
    );
    // The multipliers follow the `S` blocks of stage velocities.
    let partners = family.partners.map_or_else(Vec::new, |(block, first)| {
        stage_multiplier_partners(stages * model.dim(), count(model, block), first..stages)
    });
    // A family with a pattern rule takes the plan, if it pays; one without has no
    // `with_plan` (the dense LU).
    let new_workspace = quote!(#p::families::#driver::#workspace::declared());
    let new_workspace = match family.pattern {
        Some(rule) => {
            let pattern = stage_patterns::of(rule, model, quantities, stages);
            let plan = stage_plan(n, pattern, &partners);
            quote!(#new_workspace.with_plan(#plan))
        }
        None => new_workspace,
    };
    let step = step_impl(
        model,
        &marker,
        &layout,
        &quote!(#p::#state<T, #(#state_sizes),*>),
        (
            &quote!(#p::families::#driver::#workspace<T, #(#workspace_sizes,)* #nl, K>),
            &new_workspace,
        ),
        &quote!(#p::families::#driver),
    );
    // The families whose step the runtime linearises, for a model with inputs.
    let linear_driver = match family.driver {
        "prk" => Some("prk_linear"),
        "prk_holonomic" => Some("prk_holonomic_linear"),
        _ => None,
    };
    let linear = linear_driver
        .filter(|_| !model.inputs.is_empty())
        .map(|driver| stage_linearize_impl(model, &marker, driver));
    quote!(#step #linear)
}

/// `impl Step` of a stage scheme on a model whose configuration lives on a group: the
/// same family written on the group (`families::prk_lie` for `LobattoIIIAIIIB`,
/// `families::prk_lie_nonholonomic` for the nonholonomic ones, which `check` alone
/// lets through), its workspace and state with the storage size `Q` after the
/// family's sizes, dense (no plan).
fn group_step(
    model: &Model,
    marker: &TokenStream,
    layout: &[(String, usize)],
    family: &Assembled,
    (workspace_sizes, state_sizes, n): (Vec<TokenStream>, Vec<TokenStream>, usize),
) -> TokenStream {
    let p = private();
    let (driver, workspace) = match (family.driver, family.workspace) {
        ("prk", _) => ("prk_lie", "PrkLieWorkspace"),
        ("prk_nonholonomic", "PrkNonholonomicWorkspace") => {
            ("prk_lie_nonholonomic", "PrkLieNonholonomicWorkspace")
        }
        ("prk_nonholonomic", "PrkNonholonomicCarriedWorkspace") => {
            ("prk_lie_nonholonomic", "PrkLieNonholonomicCarriedWorkspace")
        }
        other => unreachable!("check: family {other:?} on a group model"),
    };
    let (driver, workspace) = (format_ident!("{driver}"), format_ident!("{workspace}"));
    let state = format_ident!("{}", family.state);
    let (ql, nl) = (lit(model.storage_dim()), lit(n));
    step_impl(
        model,
        marker,
        layout,
        &quote!(#p::#state<T, #(#state_sizes,)* #ql>),
        (
            &quote!(#p::families::#driver::#workspace<T, #(#workspace_sizes,)* #ql, #nl, K>),
            &quote!(#p::families::#driver::#workspace::declared()),
        ),
        &quote!(#p::families::#driver),
    )
}

/// `impl Linearize` for a scheme on a model with inputs: the carried state's names, its
/// state type and size `nz`, and the runtime module whose `linearize` forms
/// `A = ∂z⁺/∂z`, `B = ∂z⁺/∂u` (`runtime/src/families/prk_linear.rs`,
/// `prk_holonomic_linear.rs`, `ggl_linear.rs`), after the step's front door.
fn linearize_impl(
    model: &Model,
    marker: &TokenStream,
    (carried, state, nz): (&[String], &TokenStream, usize),
    linear: &TokenStream,
) -> TokenStream {
    let p = private();
    let name = &model.name;
    let (dl, ml) = (lit(model.dim()), lit(model.n_constraints()));
    let (nzl, nul) = (lit(nz), lit(model.inputs.len()));
    quote! {
        impl<T: #p::Real> #p::Linearize<T, #marker> for #name<T> {
            const CARRIED: &'static [&'static str] = &[#(#carried),*];
            type Linearized = #p::Linearized<#state, T, #nzl, #nul>;

            fn linearize<K: #p::Storage>(
                &self,
                scheme: &#marker,
                context: #p::StepContext<'_, T>,
                state: &Self::State,
                workspace: &mut Self::Workspace<K>,
                options: &#p::StepOptions<T>,
            ) -> ::core::result::Result<Self::Linearized, #p::SolveError<T>> {
                let parameters = <Self as #p::Model<T, #dl, #ml>>::check_parameters(self);
                #p::check_step(parameters, #nul, context, state, &options.newton)?;
                #linear::linearize(self, scheme, context, state, workspace, options)
            }
        }
    }
}

/// `impl Linearize` for a Lobatto IIIA–IIIB family, on the ambient `z = (q, p)`.
fn stage_linearize_impl(model: &Model, marker: &TokenStream, driver: &str) -> TokenStream {
    let p = private();
    let driver = format_ident!("{}", driver);
    let carried: Vec<String> = ["q", "p"]
        .iter()
        .flat_map(|z| model.coord_names.iter().map(move |c| format!("{z}.{c}")))
        .collect();
    let dl = lit(model.dim());
    let state = quote!(#p::PhaseState<T, #dl>);
    let linear = quote!(#p::families::#driver);
    linearize_impl(model, marker, (&carried, &state, 2 * model.dim()), &linear)
}

/// The stage Jacobian is planned when its plan takes at most this share of the dense
/// LU's multiply–adds: the plan is followed table-driven, several times the
/// instructions per multiply–add of the dense LU's loops, and it also zeroes and scans
/// the pattern. Measured with `benches/stages.rs`, step time planned / dense, against
/// dense / plan multiply–adds: the spherical pendulum with `HolonomicLobatto(2, 4, 5)`
/// 1.20, 1.09, 1.15 at 9.8, 5.4, 4.8 times fewer; the nonholonomic particle at s = 2
/// and 4, 0.97 and 0.81 at 57 and 29 times; the chaotic system at s = 2 and 3, 0.45
/// and 0.44 at 160 and 51 times; the ten masses on springs (s = 3, 5) 0.12 to 0.14
/// at 26 times, the ten-link chain with `HolonomicLobatto(2, 3)` 0.22 and 0.19 at 208
/// and 51 times. The first choice, 4, planned the spherical pendulum.
const STAGE_PLAN_SHARE: usize = 16;

/// `Option<&'static Plan>`: the elimination plan of an assembled family's `n × n`
/// Jacobian with the structural nonzeros `pattern` and the multipliers that may be
/// pivoted on in pairs `partners` ([`Elimination::plan`]), if it costs at most a
/// [`STAGE_PLAN_SHARE`]th of the dense LU's multiply–adds.
fn stage_plan(n: usize, pattern: Vec<(usize, usize)>, partners: &[(usize, usize)]) -> TokenStream {
    let p = private();
    let dense_flops = (n * n * n - n) / 3;
    let plan = Elimination::plan(n, pattern, partners);
    let plan = plan.filter(|plan| plan.flops() * STAGE_PLAN_SHARE <= dense_flops);
    match plan {
        Some(plan) => {
            let plan = plan.tokens();
            quote!(::core::option::Option::Some({
                const PLAN: #p::Plan = #plan;
                &PLAN
            }))
        }
        None => quote!(::core::option::Option::None),
    }
}

/// The stage families' multipliers a plan may pivot on together
/// ([`Elimination::plan`]): constraint `a`'s at any two of the stages `stages`, with
/// the `m` multipliers of stage `j` at `first + j m`. Once the stage velocities are
/// eliminated, a constraint's multipliers at two stages are coupled through the bodies
/// it joins: on the ten-link chain with `HolonomicLobatto(3)` the plan takes 22 k
/// multiply–adds with these pairs, 30 k with every multiplier left to the Schur
/// complement.
fn stage_multiplier_partners(
    first: usize,
    m: usize,
    stages: std::ops::Range<usize>,
) -> Vec<(usize, usize)> {
    let at = |j: usize, a: usize| first + j * m + a;
    let mut partners = Vec::new();
    for a in 0..m {
        for j in stages.clone() {
            partners.extend((j + 1..stages.end).map(|l| (at(j, a), at(l, a))));
        }
    }
    partners
}

/// The unknowns a plan may pivot on together: entry `k` of every two blocks of `m`
/// unknowns after the first (the new positions), that is constraint `k`'s multipliers
/// (`λ` and `γ` of the GGL schemes, `λ⁰` and `λ¹` of RATTLE). The plan takes a pair only
/// if both turn out to be multipliers (no structural diagonal).
fn multiplier_partners(blocks: &[(String, usize)], m: usize) -> Vec<(usize, usize)> {
    let mut start = 0;
    let mut of_size_m = Vec::new();
    for (b, (_, size)) in blocks.iter().enumerate() {
        if b > 0 && *size == m {
            of_size_m.push(start);
        }
        start += size;
    }
    let mut partners = Vec::new();
    for (a, &first) in of_size_m.iter().enumerate() {
        for &second in &of_size_m[a + 1..] {
            partners.extend((0..m).map(|k| (first + k, second + k)));
        }
    }
    partners
}

#[cfg(test)]
mod tests {
    //! What `linearized_system` emits: for EML on a model with inputs only, on the
    //! known blocks the step reads.
    use proc_macro2::TokenStream;

    /// The expansion of a forced pendulum on a cart with the schemes `schemes`, its push
    /// an input (`with_inputs`) or a parameter.
    fn expand(with_inputs: bool, schemes: &str) -> String {
        let (inputs, push) = if with_inputs {
            ("inputs { u: Scalar }", "")
        } else {
            ("", "u = 0.0,")
        };
        let source = format!(
            "pub struct Pushed {{
                params {{ m = 0.1, l = 0.5, g = 9.81, {push} }}
                coords {{ x: Scalar, theta: Scalar }}
                {inputs}
                kinetic = 0.5 * (1.0 + m) * x_dot * x_dot + m * l * cos(theta) * x_dot * theta_dot
                    + 0.5 * m * l * l * theta_dot * theta_dot;
                potential = m * g * l * cos(theta);
                forces {{ x: u }}
                schemes {{ {schemes} }}
            }}"
        );
        let tokens: TokenStream = source.parse().expect("tokens");
        let ast = syn::parse2::<crate::dsl::ModelAst>(tokens).expect("parses");
        crate::try_expand(ast).expect("expands").to_string()
    }

    #[test]
    fn eml_is_linearised_on_q_v_p_for_a_model_with_inputs() {
        let code = expand(true, "Eml, EmlPaper");
        assert_eq!(code.matches("LinearizedSystem <").count(), 2, "{code}");
        // λ and γ only seed Newton: not carried (and, unconstrained, empty anyway).
        let carried = "\"q.x\" , \"q.theta\" , \"v.x\" , \"v.theta\" , \"p.x\" , \"p.theta\"";
        assert_eq!(code.matches(carried).count(), 2, "{code}");
        // R_u: the push enters (72b) at the midpoint, `−h` on the row of `q¹`'s balance.
        assert!(code.contains("out . r_u . data . 0 [0] [0]"), "{code}");
    }

    /// A scheme with several parameters (`Galerkin(s, w, rule, r)`, or `Galerkin(s, w,
    /// rule(r))`): the marker with every argument in order, the choice as its type, the
    /// workspace with the parameters it names, the blocks repeated for `S` and for `W`.
    #[test]
    fn every_parameter_reaches_the_step_impl() {
        let code = expand(false, "Galerkin(3, 2, Lobatto, 4)");
        let p = ":: livens :: __private";
        let marker =
            format!("{p} :: schemes :: Galerkin < 3 , 2 , {p} :: schemes :: Lobatto , 4 >");
        assert!(code.contains(&format!("Step < T , {marker} >")), "{code}");
        let workspace = format!(
            "galerkin :: GalerkinWorkspace < T , 3 , 2 , {p} :: schemes :: Lobatto , \
             4 , 2 , 0 , 6 , K >"
        );
        assert!(code.contains(&workspace), "{code}");
        assert!(code.contains("GalerkinWorkspace :: declared ()"), "{code}");
        for block in [
            "\"q3\" , offset : 4 , len : 2",
            "\"lambda2\" , offset : 6 , len : 0",
        ] {
            assert!(code.contains(block), "{block}: {code}");
        }
        // The paper's spelling, the rule's nodes with the rule.
        assert_eq!(expand(false, "Galerkin(3, 2, Lobatto(4))"), code);
    }

    #[test]
    fn nothing_is_emitted_without_inputs_or_for_other_schemes() {
        let code = expand(false, "Eml");
        assert!(!code.contains("ggl_linear") && !code.contains("Linearize"));
        let code = expand(true, "Mpl");
        assert!(!code.contains("ggl_linear"), "{code}");
    }
}
