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

/// `n` nested minus signs or parentheses around `x` in the potential.
fn nested_model(n: usize, parens: bool) -> String {
    let x = if parens {
        format!("{}x{}", "(".repeat(n), ")".repeat(n))
    } else {
        format!("{}x", "- ".repeat(n))
    };
    format!(
        "pub struct Deep {{
            coords {{ x: Scalar }}
            kinetic = 0.5 * x_dot * x_dot;
            potential = 0.5 * x * x + {x};
            schemes {{ }}
        }}"
    )
}

#[test]
fn deep_nesting_is_refused_before_anything_recurses() {
    // A small stack: 5 000 levels would overflow it in syn's parser or in `lower` if the
    // model reached them (a downstream crash at 2 000 minus signs).
    let results = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            [(5_000, false), (5_000, true), (200, false), (200, true)].map(|(n, parens)| {
                let tokens: TokenStream = nested_model(n, parens).parse().expect("tokens");
                syn::parse2::<crate::dsl::ModelAst>(tokens)
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            })
        })
        .expect("thread")
        .join()
        .expect("no stack overflow");
    for r in &results[..2] {
        let e = r.as_ref().expect_err("refused");
        assert!(e.contains("nests more than 256 levels"), "{e}");
    }
    for r in &results[2..] {
        assert!(r.is_ok(), "200 levels parse: {:?}", r.as_ref().err());
    }
}

#[test]
fn like_terms_written_out_collect_and_fit_the_budget() {
    // The potential m g z + Σᵢ i·z², its 5 000 terms written out: refused as over the
    // budget when its terms stayed apart.
    let terms: Vec<String> = (1..=5000).map(|i| format!("{i}.0 * r.z * r.z")).collect();
    let tokens: TokenStream = format!(
        "pub struct Collected {{
            params {{ m = 1.0, g = 9.81 }}
            coords {{ r: Vec3 }}
            kinetic = 0.5 * m * dot(r_dot, r_dot);
            potential = m * g * r.z + {};
            schemes {{ GglViA }}
        }}",
        terms.join(" + ")
    )
    .parse()
    .expect("tokens");
    let ast = syn::parse2::<crate::dsl::ModelAst>(tokens).expect("parses");
    let code = crate::try_expand(ast)
        .map_err(|e| e.to_string())
        .expect("expands")
        .to_string();
    // The collected coefficient Σ i = 12 502 500 appears; no term of its own does.
    assert!(code.contains("12502500"), "collected coefficient");
    assert!(!code.contains("4999f64"), "a term survived");
}

#[test]
fn a_raised_budget_admits_a_step_over_the_default() {
    // Three bodies in mutual gravitation with one rod: GglEm's step is over a budget of
    // 500 and under the default; `schemes(budget = …)` moves the line both ways.
    let model = |budget: &str| -> Result<(), String> {
        let tokens: TokenStream = format!(
            "pub struct Bodies {{
                coords {{ a: Vec3, b: Vec3, c: Vec3 }}
                kinetic = 0.5 * (dot(a_dot, a_dot) + dot(b_dot, b_dot) + dot(c_dot, c_dot));
                potential = -(1.0 / norm(a - b) + 1.0 / norm(a - c) + 1.0 / norm(b - c));
                holonomic {{ rod: norm_squared(a - b) - 1.0 }}
                schemes{budget} {{ GglEm }}
            }}"
        )
        .parse()
        .expect("tokens");
        let ast = syn::parse2::<crate::dsl::ModelAst>(tokens).map_err(|e| e.to_string())?;
        crate::try_expand(ast)
            .map(|_| ())
            .map_err(|e| e.to_string())
    };
    assert!(model("").is_ok());
    let refused = model("(budget = 500)").expect_err("over 500");
    assert!(
        refused.contains("over the budget of 500")
            && refused.contains("HolonomicLobatto(2)")
            && refused.contains("schemes(budget = "),
        "{refused}"
    );
    let needed: usize = refused
        .split("budget = ")
        .nth(1)
        .and_then(|s| s.split(')').next())
        .and_then(|s| s.parse().ok())
        .expect("a budget named");
    assert!(model(&format!("(budget = {needed})")).is_ok());
}
