//! Repetition (coordinate arrays, `sum`, constraint families): the edge cases of the
//! compile-time index arithmetic each give an error, never a panic, and a 40-link chain
//! expands quickly and within the schemes' budget.
use proc_macro2::TokenStream;

/// The chain of `livens-models` with `n` links and the given schemes.
fn chain(n: usize, schemes: &str) -> String {
    format!(
        "pub struct Chain {{
            params {{ m = 1.0, l = 1.0, g = 9.81 }}
            coords {{ r: [Vec3; {n}] }}
            kinetic = sum(i in 0..{n}, 0.5 * m * dot(r_dot[i], r_dot[i]));
            potential = sum(i in 0..{n}, m * g * r[i].z);
            let k = 0.5 / (l * l);
            holonomic {{
                pivot: k * dot(r[0], r[0]) - 0.5,
                link: for i in 1..{n} {{ k * norm_squared(r[i] - r[i - 1]) - 0.5 }},
            }}
            momentum {{ jz: rotation(e3) }}
            schemes {{ {schemes} }}
        }}"
    )
}

/// The expansion of `source`: its code, or its first error's message.
fn expand(source: &str) -> Result<String, String> {
    let tokens: TokenStream = source.parse().map_err(|e| format!("lex: {e}"))?;
    let ast = syn::parse2::<crate::dsl::ModelAst>(tokens).map_err(|e| e.to_string())?;
    crate::try_expand(ast)
        .map(|ts| ts.to_string())
        .map_err(|e| e.to_string())
}

#[test]
fn a_forty_link_chain_expands_within_budget() {
    let start = std::time::Instant::now();
    let code = expand(&chain(40, "GglEm, GglViA")).expect("expands");
    // 120 coordinates; the names read `r[39].z`, `link[39]`.
    assert!(code.contains("\"r[39].z\""));
    assert!(code.contains("\"link[39]\""));
    // About 0.7 s in an optimised build of the macro, as a proc macro is built.
    let elapsed = start.elapsed();
    assert!(elapsed.as_secs() < 60, "{elapsed:?}");
}

#[test]
fn index_edge_cases_are_errors() {
    let model = |coords: &str, body: &str| {
        format!(
            "pub struct M {{ params {{ m = 1.0 }} coords {{ {coords} }}
                kinetic = sum(i in 0..2, dot(r_dot[i], r_dot[i])); {body} }}"
        )
    };
    let cases = [
        ("r: [Vec3; 2]", "potential = r[9223372036854775807 + 1].z;", "overflows"),
        ("r: [Vec3; 2]", "potential = r[-9223372036854775807 - 2].z;", "overflows"),
        ("r: [Vec3; 2]", "potential = r[99999999999999999999].z;", "overflows"),
        ("r: [Vec3; 2]", "potential = r[3037000500 * 3037000500].z;", "overflows"),
        ("r: [Vec3; 2]", "potential = r[1 % 0].z;", "remainder by zero"),
        ("r: [Vec3; 2]", "potential = r[1 / 1].z;", "indices support + - * %"),
        ("r: [Vec3; 2]", "potential = r[0][3];", "out of range"),
        ("r: [Vec3; 2]", "potential = r[0][0][0];", "cannot index"),
        ("r: [Vec3; 2]", "potential = sum(i in 0..=9223372036854775807, 1.0);", "overflows"),
        ("r: [Vec3; 2]", "potential = sum(i in -9223372036854775807 - 1..9223372036854775807, 1.0);", "more than"),
        ("r: [Vec3; 2]", "potential = sum(i in 3..1, 1.0);", "is empty"),
        ("r: [Vec3; 2]", "potential = sum(i in 0.., 1.0);", "both ends"),
        ("r: [Vec3; 2]", "potential = sum(i in 0..2);", "expected `,`"),
        ("r: [Vec3; 2]", "potential = sum(i in , 1.0);", "expected a range"),
        ("r: [Vec3; 2]", "potential = sum(i in 0..2, );", "expected the expression"),
        ("r: [Vec3; 2]", "potential = sum(i in 0..2, 1.0, 2.0);", "one expression"),
        ("r: [Vec3; 2]", "potential = sum(i in 0..2, sum(i in 0..2, 1.0));", "shadows the index"),
        ("r: [Vec3; 2]", "potential = sum(pi in 0..2, 1.0);", "shadows the built-in"),
        ("r: [Vec3; 2]", "potential = sum(r_dot in 0..2, 1.0);", "shadows the velocity"),
        ("r: [Vec3; 2]", "potential = sum((i, j) in 0..2, 1.0);", "plain name"),
        ("r: [Vec3; 2]", "potential = sum(i in 0..2, if i { 1.0 });", "unsupported"),
        ("r: [Vec3; 2]", "potential = sum(i in 0..2, i * r[i]);", "must be a scalar"),
        ("r: [Vec3; 2]", "potential = -r;", "is an array"),
        ("r: [Vec3; 2]", "potential = 1.0; holonomic { c: for i in 0..2 { r[i] - r } }", "is an array"),
        ("r: [Vec3; 2]", "potential = 1.0; holonomic { c: for i in 0..2 { let x = 1; x } }", "one expression"),
        ("r: [Vec3; 2]", "potential = 1.0; holonomic { c: 'a: for i in 0..2 { r[i].x } }", "no label"),
        ("r: [Vec3; 18446744073709551616]", "", "at most"),
        ("r: [[Vec3; 2]; 2]", "", "expected identifier"),
        ("r: [Vec3; 2], s: [Vec3; 2]", "potential = 1.0; holonomic { c: for i in 0..2 { s[i] - r[i] }, d: for j in 0..2 { s[j] - r[j] } }", "repeats `c[0].x`"),
    ];
    for (coords, body, expected) in cases {
        let source = model(coords, body);
        let result = std::panic::catch_unwind(|| expand(&source));
        match result {
            Ok(Err(message)) => assert!(
                message.contains(expected),
                "{body}: expected an error containing {expected:?}, got {message:?}"
            ),
            Ok(Ok(_)) => panic!("{body}: expanded; expected an error containing {expected:?}"),
            Err(_) => panic!("{body}: panicked"),
        }
    }
}

/// The temporaries of `scheme`'s step for the chain of `n` links (read off the budget
/// error at a budget of 1).
fn step_size(n: usize, scheme: &str) -> usize {
    let source = chain(n, scheme).replace("schemes {", "schemes(budget = 1) {");
    let e = expand(&source).expect_err("over a budget of 1");
    e.split(" take ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no size in: {e}"))
}

#[test]
fn the_chain_step_grows_linearly_and_sixty_four_links_fit_the_budget() {
    // 13 444 temporaries at 64 links before like terms were collected, constant factors
    // taken outside and negations printed in place: over the default budget.
    let (at40, at64) = (step_size(40, "GglEm"), step_size(64, "GglEm"));
    assert!(at64 <= crate::emit::BUDGET, "GglEm at 64 links: {at64}");
    let growth = at64 as f64 / at40 as f64;
    assert!(
        growth <= 1.8,
        "64 links against 40: {growth} ({at64} / {at40})"
    );
    let rattle = step_size(64, "Rattle");
    assert!(
        rattle <= crate::emit::BUDGET,
        "Rattle at 64 links: {rattle}"
    );
    println!("GglEm: {at40} at 40 links, {at64} at 64; Rattle: {rattle} at 64");
}
