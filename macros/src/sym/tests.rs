//! Unit tests of the symbolic engine, written like the math: one case per line.
use std::collections::HashMap;

use super::*;

/// Parses `input`, applies `f` and compares the printed result with `expected`.
macro_rules! sexp_test {
    ($name:ident, $f:expr, $($input:literal => $expected:literal),+ $(,)?) => {
        #[test]
        fn $name() {
            $(
                let mut g = Graph::new();
                let e = g.parse_sexp($input);
                let f: &dyn Fn(&mut Graph, Id) -> Id = &$f;
                let r = f(&mut g, e);
                assert_eq!(g.to_sexp(r), $expected, "input {}", $input);
                debug_assert!(g.check_memo());
            )+
        }
    };
}

fn dx(g: &mut Graph, e: Id) -> Id {
    g.diff(e, VarId(0))
}

sexp_test!(simplify, |_, e| e,
    "(+ x 0)" => "x",
    "(* 1 x)" => "x",
    "(* 0 x)" => "0.0",
    "(- x x)" => "0.0",
    "(+ (* 2 3) 1)" => "7.0",
    "(* 2 (* 3 x))" => "(* 6.0 x)",
    "(- (- x))" => "x",
    "(+ x (- x))" => "0.0",
    "(+ y x)" => "(+ y x)",
    "(/ x 1)" => "x",
    "(/ x x)" => "1.0",
    "(powi (powi x 2) 3)" => "(powi x 6)",
    "(sin 0)" => "0.0",
    "(* x x)" => "(powi x 2)",
    "(+ (- x) (- y))" => "(- (+ x y))",
);

sexp_test!(derivatives, dx,
    "x" => "1.0",
    "(+ x (* 2 y))" => "1.0",
    "(* x y)" => "y",
    "(powi x 3)" => "(* 3.0 (powi x 2))",
    "(sin x)" => "(cos x)",
    "(cos x)" => "(- (sin x))",
    "(exp x)" => "(exp x)",
    "(ln x)" => "(/ 1.0 x)",
    "(- x (* 2 x))" => "-1.0",
    "(select< x 1 (* 2 x) (* 3 x))" => "(select< x 1.0 2.0 3.0)",
);

#[test]
fn hash_consing_shares_nodes() {
    let mut g = Graph::new();
    let a = g.parse_sexp("(+ (sin x) (* y z))");
    let n = g.len();
    let b = g.parse_sexp("(+ (* z y) (sin x))");
    assert_eq!(a, b, "commutative operands are canonically ordered");
    assert_eq!(g.len(), n, "no new node for an equal expression");
    assert!(g.check_memo());
}

#[test]
fn negative_zero_shares_the_zero_node() {
    let mut g = Graph::new();
    assert_eq!(g.constant(-0.0), g.constant(0.0));
}

#[test]
fn degree_analysis() {
    let mut g = Graph::new();
    let cases = [
        ("(* m (+ (powi x 2) (* x y)))", Some(2)),
        ("(/ (powi x 2) l)", Some(2)),
        ("(powi (+ (powi x 2) -1) 2)", Some(4)),
        ("(/ 1 x)", None),
        ("(sin x)", None),
        ("(sin m)", Some(0)),
        ("(* (sin m) x)", Some(1)),
    ];
    let vars: Vec<(String, Option<u32>)> = cases.iter().map(|(s, d)| (s.to_string(), *d)).collect();
    for (s, d) in vars {
        let e = g.parse_sexp(&s);
        let names = ["x", "y"];
        let in_vars = |v: VarId| names.contains(&g.var_name(v));
        assert_eq!(g.degree(e, &in_vars), d, "degree of {s}");
    }
}

#[test]
fn substitution_rebuilds_and_simplifies() {
    let mut g = Graph::new();
    let e = g.parse_sexp("(+ (* x y) (sin x))");
    let z = g.parse_sexp("0");
    let y = g.parse_sexp("y");
    let map: HashMap<VarId, Id> = [(VarId(0), z)].into();
    let r = g.substitute(&[e], &map)[0];
    assert_eq!(g.to_sexp(r), "0.0");
    let two_y = g.parse_sexp("(* 2 y)");
    let map: HashMap<VarId, Id> = [(VarId(0), two_y)].into();
    let r = g.substitute(&[e], &map)[0];
    let expected = g.parse_sexp("(+ (* 2 (powi y 2)) (sin (* 2 y)))");
    assert_eq!(r, expected);
    let _ = y;
}

/// Symbolic derivatives of random expressions against central finite differences.
#[test]
fn derivatives_match_finite_differences() {
    let exprs = [
        "(* (sin (* x y)) (exp (/ x (+ 2 (powi y 2)))))",
        "(/ (sqrt (+ 1 (powi x 2))) (+ 3 (cos (* x y))))",
        "(ln (+ 2 (* (tan (* 0.3 x)) y)))",
        "(powi (- (* x x) (* y y)) 3)",
    ];
    let mut seed = 0x9e3779b97f4a7c15u64;
    let mut rnd = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    for s in exprs {
        let mut g = Graph::new();
        let e = g.parse_sexp(s);
        let vars = [VarId(0), VarId(1)];
        let grad = g.gradient(e, &vars);
        for _ in 0..20 {
            let p = [rnd(), rnd()];
            for (k, &dk) in grad.iter().enumerate() {
                let eps = 1e-6;
                let at = |d: f64| {
                    let mut q = p;
                    q[k] += d;
                    move |v: VarId| q[v.0 as usize]
                };
                let fd = (g.eval(e, &at(eps)) - g.eval(e, &at(-eps))) / (2.0 * eps);
                let sym = g.eval(dk, &at(0.0));
                assert!(
                    (fd - sym).abs() <= 1e-7 * (1.0 + sym.abs()),
                    "{s}: d/d{k} {sym} vs {fd}"
                );
            }
        }
    }
}

#[test]
fn emission_names_each_needed_node_once() {
    let mut g = Graph::new();
    let e = g.parse_sexp("(+ (* (sin x) (sin x)) (- (sin x) y))");
    let block = emit::emit(&g, &[e], &|v| quote::quote!(input[#v]), &quote::quote!(p));
    let code = block.stmts.to_string();
    assert_eq!(code.matches(". sin ()").count(), 1, "{code}");
    assert!(code.contains(" - "), "subtraction printed as such: {code}");
}

/// Outputs are stored right after the statement computing them (a variable's first of
/// all), and each output's operations come in a depth-first walk from it: the second
/// output's `cos` is not computed before the first output is stored.
#[test]
fn emission_stores_each_output_as_soon_as_it_is_computed() {
    let mut g = Graph::new();
    let first = g.parse_sexp("(* (sin x) y)");
    let second = g.parse_sexp("(+ (cos x) (sin x))");
    let x = g.parse_sexp("x");
    let store = |k: usize, value: &proc_macro2::TokenStream| quote::quote!(out[#k] = #value;);
    let block = emit::emit_sunk(
        &g,
        &[second, first, x],
        &|v| quote::quote!(input[#v]),
        &quote::quote!(p),
        &store,
    );
    let code = block.stmts.to_string();
    let at = |text: &str| {
        code.find(text)
            .unwrap_or_else(|| panic!("{text:?} in {code}"))
    };
    // The variable, then `second`'s operations and store, then `first`'s.
    assert!(at("out [2usize] = input") < at("t0 ="), "{code}");
    assert!(at("out [0usize]") < at("* input"), "{code}");
    assert!(at("out [0usize]") > at(". cos ()"), "{code}");
    assert!(at("out [1usize]") > at("* input"), "{code}");
    assert_eq!(code.matches(". sin ()").count(), 1, "{code}");
    assert_eq!(
        block.temporaries, 4,
        "sin, cos, their sum, the product: {code}"
    );
}

/// One emission for several sinks: each block is the single-sink block of its own
/// sink, so a writer's two layouts cannot drift apart.
#[test]
fn emission_for_several_sinks_matches_each_alone() {
    let mut g = Graph::new();
    let outputs = [
        g.parse_sexp("(* (sin x) y)"),
        g.parse_sexp("(+ (cos x) (sin x))"),
        g.parse_sexp("y"),
    ];
    let var = |v: VarId| quote::quote!(input[#v]);
    let here = |k: usize, value: &proc_macro2::TokenStream| quote::quote!(out[#k] = #value;);
    let there = |k: usize, value: &proc_macro2::TokenStream| {
        let k = 10 + k;
        quote::quote!(elsewhere[#k] = #value;)
    };
    let both = emit::emit_sunk_each(&g, &outputs, &var, &quote::quote!(p), &[&here, &there]);
    assert_eq!(both.len(), 2);
    for (block, sink) in both.iter().zip([&here as emit::Sink, &there]) {
        let alone = emit::emit_sunk(&g, &outputs, &var, &quote::quote!(p), sink);
        assert_eq!(block.stmts.to_string(), alone.stmts.to_string());
        assert_eq!(block.temporaries, alone.temporaries);
    }
    let (first, second) = (both[0].stmts.to_string(), both[1].stmts.to_string());
    assert!(first.contains("out [2usize] = input") && !first.contains("elsewhere"));
    assert!(second.contains("elsewhere [12usize] = input") && !second.contains("out ["));
}

impl quote::ToTokens for VarId {
    fn to_tokens(&self, tokens: &mut proc_macro2::TokenStream) {
        let i = self.0 as usize;
        tokens.extend(quote::quote!(#i));
    }
}
