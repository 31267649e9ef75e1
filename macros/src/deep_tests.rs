//! Long expressions: a sum of thousands of terms is a chain of as many nested nodes, in
//! syn's tree and in the graph, and every pass over it must work without recursing once
//! per term (a proc macro built without optimisation, a downstream crate's default, has
//! large frames; `.ci/downstream.sh` builds a 5000-term potential that way).
use proc_macro2::TokenStream;

/// A model whose potential has `n` terms, each with its own coefficient.
fn long_model(n: usize) -> TokenStream {
    let c = ["a.x", "a.y", "a.z", "b.x", "b.y", "b.z"];
    let terms: Vec<String> = (0..n)
        .map(|i| {
            let coef = 1.0 + i as f64 / 1000.0;
            let (x, y) = (c[i % 6], c[(i / 6) % 6]);
            match i % 3 {
                0 => format!("{coef:?} * k * {x}"),
                1 => format!("{coef:?} * {x} * {y}"),
                _ => format!("{coef:?} * {x} * {y} * {}", c[(i / 36) % 6]),
            }
        })
        .collect();
    format!(
        "pub struct Long {{
            params {{ k = 1.0 }}
            coords {{ a: Vec3, b: Vec3 }}
            kinetic = 0.5 * (dot(a_dot, a_dot) + dot(b_dot, b_dot));
            potential = {};
            schemes {{ }}
        }}",
        terms.join(" - ")
    )
    .parse()
    .expect("tokens")
}

#[test]
fn a_long_potential_expands_on_a_small_stack() {
    const TERMS: usize = 20_000;
    // 20 000 levels of recursion take more than this at any optimisation level.
    let expanded = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            let tokens = long_model(TERMS);
            let ast = syn::parse2::<crate::dsl::ModelAst>(tokens).expect("parses");
            let out = crate::try_expand(ast).map(|ts| ts.to_string());
            out.map_err(|e| e.to_string())
        })
        .expect("thread")
        .join()
        .expect("no panic");
    let code = expanded.expect("expands");
    assert!(code.contains("fn dl_dq"));
}
