//! Mutation test of the macro front end: deterministic variants of the catalogue models
//! (tokens deleted, duplicated, swapped, renamed, literals replaced by edge values,
//! blocks dropped, emptied or duplicated, and a few mutations at once), each of which
//! must give a spanned error or output that parses as Rust, never a panic.
//!
//! A failure lists every panicking variant with its class, its mutation and the panic
//! message; the variant is determined by the model, the class and its number, so it
//! reproduces. `cargo test -p livens-macros mutation -- --nocapture` prints the counts.
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashSet};
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

use proc_macro2::{Delimiter, Group, Ident, Spacing, Span, TokenStream, TokenTree};

use crate::dsl::ModelAst;
use crate::test_rng::Rng;

const MODELS: [(&str, &str); 6] = [
    ("pendulum", include_str!("../../models/src/pendulum.rs")),
    ("top", include_str!("../../models/src/top.rs")),
    (
        "four_particles",
        include_str!("../../models/src/four_particles.rs"),
    ),
    ("chain", include_str!("../../models/src/chain.rs")),
    // A nonholonomic model (its first, the particle with `ż = y ẋ`) and a quaternion
    // one (the free rigid body, with invariants and nine schemes).
    (
        "nonholonomic",
        include_str!("../../models/src/nonholonomic.rs"),
    ),
    ("free_body", include_str!("../../models/src/rigid_body.rs")),
];

/// Variants drawn per model and class (duplicates of an earlier variant are skipped)
/// in a plain `cargo test`: a sample, the first draws of the full set, so that the test
/// suite stays quick. `LIVENS_MUTANTS=n` draws `n` instead: CI runs the full set,
/// `LIVENS_MUTANTS=15` (about 100 s on two cores against 20 s for the sample), and
/// `LIVENS_MUTANTS_SEED` changes the draws, for a longer search by hand.
const PER_CLASS: usize = 3;

/// The classes of mutation, in the order of the report.
const CLASSES: [&str; 10] = [
    "delete",
    "duplicate",
    "swap",
    "rename",
    "literal",
    "drop-block",
    "empty-block",
    "duplicate-block",
    "nested-group",
    "compound",
];

/// Replacements of a literal: zeros of both signs, values out of `f64`'s range, the
/// edges of `f64`, `i32` and `u32`, a negative number.
const EDGE_LITERALS: [&str; 11] = [
    "0.0",
    "-0.0",
    "1e400",
    "1e-400",
    "0",
    "1e308",
    "-1.0",
    "4294967296",
    "2147483648",
    "-2147483649",
    "LONG",
];

/// New names an identifier may get (besides another identifier of the model).
const NAMES: [&str; 7] = ["fresh_name", "r#type", "T", "f64", "self", "Self", "q_dot"];

/// The tokens inside `model! { ... }` of a catalogue file.
fn model_body(source: &str) -> TokenStream {
    let tokens: Vec<TokenTree> = source
        .parse::<TokenStream>()
        .expect("a catalogue file is Rust")
        .into_iter()
        .collect();
    tokens
        .windows(3)
        .find_map(|w| match w {
            [TokenTree::Ident(m), TokenTree::Punct(bang), TokenTree::Group(g)]
                if m == "model" && bang.as_char() == '!' && g.delimiter() == Delimiter::Brace =>
            {
                Some(g.stream())
            }
            _ => None,
        })
        .expect("a catalogue file invokes model! { ... }")
}

/// Where a token list sits: the indices of the groups to descend through.
type Path = Vec<usize>;

/// Every token list in `ts` (the top level and each group's contents), with its path.
fn lists(ts: &TokenStream) -> Vec<(Path, Vec<TokenTree>)> {
    fn walk(path: &mut Path, tokens: Vec<TokenTree>, out: &mut Vec<(Path, Vec<TokenTree>)>) {
        for (i, t) in tokens.iter().enumerate() {
            if let TokenTree::Group(g) = t {
                path.push(i);
                walk(path, g.stream().into_iter().collect(), out);
                path.pop();
            }
        }
        out.push((path.clone(), tokens));
    }
    let mut out = Vec::new();
    walk(&mut Vec::new(), ts.clone().into_iter().collect(), &mut out);
    out
}

/// `ts` with the token list at `path` replaced by `f` of it.
fn edit(ts: &TokenStream, path: &[usize], f: &mut dyn FnMut(&mut Vec<TokenTree>)) -> TokenStream {
    let mut tokens: Vec<TokenTree> = ts.clone().into_iter().collect();
    match path.split_first() {
        None => f(&mut tokens),
        Some((&i, rest)) => {
            let TokenTree::Group(g) = &tokens[i] else {
                unreachable!("paths lead through groups")
            };
            let mut new = Group::new(g.delimiter(), edit(&g.stream(), rest, f));
            new.set_span(g.span());
            tokens[i] = TokenTree::Group(new);
        }
    }
    tokens.into_iter().collect()
}

fn edge_literal(s: &str) -> Vec<TokenTree> {
    let s = if s == "LONG" {
        "9".repeat(400)
    } else {
        s.to_string()
    };
    s.parse::<TokenStream>()
        .expect("edge literals are tokens")
        .into_iter()
        .collect()
}

fn new_ident(name: &str, span: Span) -> Ident {
    match name.strip_prefix("r#") {
        Some(raw) => Ident::new_raw(raw, span),
        None => Ident::new(name, span),
    }
}

fn is_punct(t: &TokenTree, c: char) -> bool {
    matches!(t, TokenTree::Punct(p) if p.as_char() == c)
}

/// The blocks of a token list: `name { ... }`, `name = ... ;` and `let name = ... ;`,
/// and `#[...]` attributes, as index ranges.
fn blocks(tokens: &[TokenTree]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    for i in 0..tokens.len() {
        match (&tokens[i], tokens.get(i + 1)) {
            (TokenTree::Ident(_), Some(TokenTree::Group(g)))
                if g.delimiter() == Delimiter::Brace =>
            {
                out.push(i..i + 2)
            }
            (TokenTree::Punct(p), Some(TokenTree::Group(g)))
                if p.as_char() == '#' && g.delimiter() == Delimiter::Bracket =>
            {
                out.push(i..i + 2)
            }
            (TokenTree::Ident(_), Some(TokenTree::Punct(p)))
                if p.as_char() == '=' && p.spacing() == Spacing::Alone =>
            {
                let start = match i.checked_sub(1).map(|j| &tokens[j]) {
                    Some(TokenTree::Ident(l)) if l == "let" => i - 1,
                    _ => i,
                };
                if let Some(end) = (i + 2..tokens.len()).find(|&j| is_punct(&tokens[j], ';')) {
                    out.push(start..end + 1);
                }
            }
            _ => {}
        }
    }
    out
}

/// One variant of `base` of the given class, with a description of the mutation, or
/// `None` when the draw found nothing to mutate.
fn mutate(base: &TokenStream, class: &str, rng: &mut Rng) -> Option<(TokenStream, String)> {
    let all = lists(base);
    let nonempty: Vec<&(Path, Vec<TokenTree>)> =
        all.iter().filter(|(_, t)| !t.is_empty()).collect();
    let (path, tokens) = *rng.pick(&nonempty)?;
    let at = |i: usize| format!("{path:?}[{i}] `{}`", tokens[i]);
    match class {
        "delete" => {
            let i = rng.below(tokens.len());
            let out = edit(base, path, &mut |t| {
                t.remove(i);
            });
            Some((out, format!("delete {}", at(i))))
        }
        "duplicate" => {
            let i = rng.below(tokens.len());
            let out = edit(base, path, &mut |t| t.insert(i, t[i].clone()));
            Some((out, format!("duplicate {}", at(i))))
        }
        "swap" => {
            if tokens.len() < 2 {
                return None;
            }
            let i = rng.below(tokens.len() - 1);
            let out = edit(base, path, &mut |t| t.swap(i, i + 1));
            Some((out, format!("swap {} with the next", at(i))))
        }
        "rename" => rename(base, &all, rng),
        "literal" => literal(base, &all, rng),
        "drop-block" | "empty-block" | "duplicate-block" => block_mutation(base, &all, class, rng),
        "nested-group" => {
            // Empty a parenthesised or braced group, or delete a token inside one.
            let inner: Vec<&(Path, Vec<TokenTree>)> = nonempty
                .iter()
                .copied()
                .filter(|(p, _)| p.len() >= 2)
                .collect();
            let (p, t) = *rng.pick(&inner)?;
            let i = rng.below(t.len());
            let what = format!("{p:?}[{i}] `{}`", t[i]);
            let out = match (&t[i], rng.below(2)) {
                (TokenTree::Group(g), 0) => edit(base, p, &mut |t| {
                    let mut empty = Group::new(g.delimiter(), TokenStream::new());
                    empty.set_span(g.span());
                    t[i] = TokenTree::Group(empty);
                }),
                _ => edit(base, p, &mut |t| {
                    t.remove(i);
                }),
            };
            Some((out, format!("nested {what}")))
        }
        "compound" => {
            let mut ts = base.clone();
            let mut what = Vec::new();
            for _ in 0..2 + rng.below(3) {
                let class = *rng.pick(&CLASSES[..CLASSES.len() - 1])?;
                if let Some((next, d)) = mutate(&ts, class, rng) {
                    ts = next;
                    what.push(d);
                }
            }
            Some((ts, what.join("; ")))
        }
        _ => unreachable!("unknown class {class}"),
    }
}

/// A variant with one identifier renamed: to another of the model's, or to one of
/// [`NAMES`].
fn rename(
    base: &TokenStream,
    all: &[(Path, Vec<TokenTree>)],
    rng: &mut Rng,
) -> Option<(TokenStream, String)> {
    let idents: Vec<(Path, usize)> = all
        .iter()
        .flat_map(|(p, t)| {
            t.iter()
                .enumerate()
                .filter(|(_, x)| matches!(x, TokenTree::Ident(_)))
                .map(move |(i, _)| (p.clone(), i))
        })
        .collect();
    let names: Vec<String> = all
        .iter()
        .flat_map(|(_, t)| t.iter())
        .filter_map(|x| match x {
            TokenTree::Ident(id) => Some(id.to_string()),
            _ => None,
        })
        .collect();
    let (p, i) = rng.pick(&idents)?.clone();
    let to = if rng.below(2) == 0 {
        rng.pick(&names)?.clone()
    } else {
        rng.pick(&NAMES)?.to_string()
    };
    let mut from = String::new();
    let out = edit(base, &p, &mut |t| {
        from = t[i].to_string();
        t[i] = TokenTree::Ident(new_ident(&to, t[i].span()));
    });
    Some((out, format!("rename {p:?}[{i}] `{from}` to `{to}`")))
}

/// A variant with one number replaced by one of [`EDGE_LITERALS`].
fn literal(
    base: &TokenStream,
    all: &[(Path, Vec<TokenTree>)],
    rng: &mut Rng,
) -> Option<(TokenStream, String)> {
    let lits: Vec<(Path, usize)> = all
        .iter()
        .flat_map(|(p, t)| {
            t.iter()
                .enumerate()
                .filter(
                    |(_, x)| matches!(x, TokenTree::Literal(l) if !l.to_string().starts_with('"')),
                )
                .map(move |(i, _)| (p.clone(), i))
        })
        .collect();
    let (p, i) = rng.pick(&lits)?.clone();
    let value = *rng.pick(&EDGE_LITERALS)?;
    let mut from = String::new();
    let out = edit(base, &p, &mut |t| {
        from = t[i].to_string();
        t.splice(i..i + 1, edge_literal(value));
    });
    let shown = if value == "LONG" {
        "a 400-digit integer"
    } else {
        value
    };
    Some((out, format!("literal {p:?}[{i}] `{from}` to `{shown}`")))
}

/// A variant with one block (`name { … }`, an attribute, `name = …;`) dropped,
/// emptied or duplicated, as `class` says.
fn block_mutation(
    base: &TokenStream,
    all: &[(Path, Vec<TokenTree>)],
    class: &str,
    rng: &mut Rng,
) -> Option<(TokenStream, String)> {
    let with_blocks: Vec<(&Path, std::ops::Range<usize>)> = all
        .iter()
        .flat_map(|(p, t)| blocks(t).into_iter().map(move |r| (p, r)))
        .collect();
    let (p, r) = rng.pick(&with_blocks)?.clone();
    let mut shown = String::new();
    let out = edit(base, p, &mut |t| {
        shown = t[r.clone()]
            .iter()
            .take(2)
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(" ");
        match class {
            "drop-block" => {
                t.drain(r.clone());
            }
            "duplicate-block" => {
                let copy: Vec<TokenTree> = t[r.clone()].to_vec();
                t.splice(r.end..r.end, copy);
            }
            _ => {
                // `name { }`, `#[]`, or `name = ;`
                if let TokenTree::Group(g) = &t[r.start + 1] {
                    let mut empty = Group::new(g.delimiter(), TokenStream::new());
                    empty.set_span(g.span());
                    t[r.start + 1] = TokenTree::Group(empty);
                } else {
                    let eq = (r.start..r.end)
                        .find(|&j| is_punct(&t[j], '='))
                        .unwrap_or(r.start);
                    t.drain(eq + 1..r.end - 1);
                }
            }
        }
    });
    let shown: String = shown.chars().take(60).collect();
    Some((
        out,
        format!("{class} {p:?}[{}..{}] `{shown}`", r.start, r.end),
    ))
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Outcome {
    ParseError,
    Error,
    Valid,
    Panic,
}

thread_local! {
    /// While set, panics on this thread print nothing (they are caught and reported).
    static QUIET: Cell<bool> = const { Cell::new(false) };
    /// Where the last panic on this thread happened.
    static LOCATION: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Runs the front end on one variant.
fn run(tokens: TokenStream) -> Result<Outcome, String> {
    let ast = match syn::parse2::<ModelAst>(tokens) {
        Ok(ast) => ast,
        Err(e) => {
            assert!(!e.to_compile_error().is_empty(), "an error emits tokens");
            return Ok(Outcome::ParseError);
        }
    };
    match crate::try_expand(ast) {
        Err(e) => {
            assert!(!e.to_compile_error().is_empty(), "an error emits tokens");
            Ok(Outcome::Error)
        }
        Ok(out) => match syn::parse2::<syn::File>(out) {
            Ok(_) => Ok(Outcome::Valid),
            Err(e) => Err(format!("the output is not Rust: {e}")),
        },
    }
}

fn catching(tokens: TokenStream) -> Result<Outcome, String> {
    QUIET.with(|q| q.set(true));
    let result = panic::catch_unwind(AssertUnwindSafe(|| run(tokens)));
    QUIET.with(|q| q.set(false));
    match result {
        Ok(r) => r,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "(no message)".into());
            let at = LOCATION.with(|l| l.borrow().clone());
            Err(format!("panicked at {at}: {msg}"))
        }
    }
}

/// Silences the caught panics of the calling thread (see `QUIET`); every other panic
/// goes to the hook that was installed before. Installed once, for all the tests that
/// run in parallel here, and never removed.
fn install_quiet_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if QUIET.with(Cell::get) {
                let at = info
                    .location()
                    .map_or_else(String::new, ToString::to_string);
                LOCATION.with(|l| *l.borrow_mut() = at);
            } else {
                previous(info);
            }
        }));
    });
}

/// The mutants of one model of `MODELS`: every class, `PER_CLASS` variants each (or
/// `LIVENS_MUTANTS`). One test per model, so that the test harness runs them in
/// parallel: most of the time goes to parsing the valid variants' expansions.
fn mutants_of(m: usize) {
    install_quiet_hook();
    let (model, source) = MODELS[m];
    let start = std::time::Instant::now();
    let mut counts: BTreeMap<(&str, Outcome), usize> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut seen = HashSet::new();
    let env = |name: &str| std::env::var(name).ok().and_then(|s| s.parse::<u64>().ok());
    let per_class = env("LIVENS_MUTANTS").map_or(PER_CLASS, |n| n as usize);
    let seed = env("LIVENS_MUTANTS_SEED").unwrap_or(0x5EED);
    let base = model_body(source);
    // The unmutated model expands.
    assert_eq!(
        catching(base.clone()),
        Ok(Outcome::Valid),
        "{model} expands"
    );
    for (c, class) in CLASSES.iter().enumerate() {
        let mut rng = Rng(seed ^ ((m as u64) << 32) ^ ((c as u64) << 16));
        let (mut made, mut draws) = (0, 0);
        while made < per_class && draws < 20 * per_class {
            draws += 1;
            let Some((tokens, what)) = mutate(&base, class, &mut rng) else {
                continue;
            };
            if !seen.insert(tokens.to_string()) {
                continue;
            }
            made += 1;
            let outcome = catching(tokens).unwrap_or_else(|msg| {
                failures.push(format!("{model} / {class} #{made}: {what}\n    {msg}"));
                Outcome::Panic
            });
            *counts.entry((class, outcome)).or_default() += 1;
        }
    }

    let get = |class: &str, o: Outcome| counts.get(&(class, o)).copied().unwrap_or(0);
    let mut report = format!(
        "{model}\n{:<16} {:>8} {:>8} {:>8} {:>8} {:>8}\n",
        "class", "parse", "error", "valid", "panic", "total"
    );
    let mut total = [0; 5];
    for class in CLASSES {
        let row = [
            get(class, Outcome::ParseError),
            get(class, Outcome::Error),
            get(class, Outcome::Valid),
            get(class, Outcome::Panic),
        ];
        let sum: usize = row.iter().sum();
        report += &format!(
            "{class:<16} {:>8} {:>8} {:>8} {:>8} {sum:>8}\n",
            row[0], row[1], row[2], row[3]
        );
        for (t, x) in total.iter_mut().zip(row.iter().chain([&sum])) {
            *t += x;
        }
        assert!(sum > 0, "{model}: the class {class} produced no variant");
    }
    report += &format!(
        "{:<16} {:>8} {:>8} {:>8} {:>8} {:>8}   ({:.1} s)",
        "all",
        total[0],
        total[1],
        total[2],
        total[3],
        total[4],
        start.elapsed().as_secs_f64()
    );
    println!("{report}");
    assert!(
        failures.is_empty(),
        "{} variants failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn mutants_of_the_pendulum_give_spanned_errors_or_valid_code_never_panics() {
    mutants_of(0);
}

#[test]
fn mutants_of_the_top_give_spanned_errors_or_valid_code_never_panics() {
    mutants_of(1);
}

#[test]
fn mutants_of_four_particles_give_spanned_errors_or_valid_code_never_panics() {
    mutants_of(2);
}

#[test]
fn mutants_of_the_chain_give_spanned_errors_or_valid_code_never_panics() {
    mutants_of(3);
}

#[test]
fn mutants_of_the_nonholonomic_particle_give_spanned_errors_or_valid_code_never_panics() {
    mutants_of(4);
}

#[test]
fn mutants_of_the_free_body_give_spanned_errors_or_valid_code_never_panics() {
    mutants_of(5);
}

#[test]
fn edits_reach_nested_groups() {
    let base: TokenStream = "a { b ( c d ) } e".parse().unwrap();
    let out = edit(&base, &[1, 1], &mut |t| {
        t.remove(0);
    });
    assert_eq!(out.to_string(), "a { b (d) } e");
    let ts: TokenStream = "x = 1 ; let y = 2 ; z { } # [doc]".parse().unwrap();
    let tokens: Vec<TokenTree> = ts.into_iter().collect();
    assert_eq!(blocks(&tokens), vec![0..4, 4..9, 9..11, 11..13]);
}
