//! The model! grammar, parsed with syn. The grammar itself is documented once, on the
//! `model!` macro (`model.md`), with a compiled example of every block; this module
//! parses exactly that.
//!
//! In expressions, `sum(i in 0..10, expr)` is rewritten to `sum(for i in 0..10 { expr })`
//! before syn parses them (see `rewrite_sums`). Blocks may come in any order, each at
//! most once (`let` any number of times).
use proc_macro2::{Delimiter, Group, Span, TokenStream, TokenTree};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{braced, Attribute, Expr, Ident, Token, Visibility};

mod kw {
    syn::custom_keyword!(params);
    syn::custom_keyword!(requires);
    syn::custom_keyword!(coords);
    syn::custom_keyword!(kinetic);
    syn::custom_keyword!(potential);
    syn::custom_keyword!(lagrangian);
    syn::custom_keyword!(holonomic);
    syn::custom_keyword!(nonholonomic);
    syn::custom_keyword!(invariants);
    syn::custom_keyword!(momentum);
    syn::custom_keyword!(observables);
    syn::custom_keyword!(forces);
    syn::custom_keyword!(inputs);
    syn::custom_keyword!(schemes);
}

/// The words that open a block, for error messages.
const BLOCKS: &str =
    "`params`, `requires`, `coords`, `inputs`, `let`, `invariants`, `kinetic`, `potential`, `lagrangian`, `holonomic`, `nonholonomic`, `momentum`, `observables`, `forces` or `schemes`";

/// The same words, to suggest one for a typo.
const BLOCK_WORDS: [&str; 15] = [
    "params",
    "requires",
    "coords",
    "inputs",
    "let",
    "invariants",
    "kinetic",
    "potential",
    "lagrangian",
    "holonomic",
    "nonholonomic",
    "momentum",
    "observables",
    "forces",
    "schemes",
];

/// Other words for the blocks.
const ALIASES: [(&str, &str); 5] = [
    ("parameters", "params"),
    ("coordinates", "coords"),
    ("constraints", "holonomic"),
    ("momenta", "momentum"),
    ("integrators", "schemes"),
];

/// Whether `word` looks like a typo of `target`: one edit, a swap of neighbours, or a
/// missing or extra trailing `s`.
fn is_typo(word: &str, target: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (word.chars().collect(), target.chars().collect());
    if a == b {
        return false;
    }
    let pre = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suf = a[pre..]
        .iter()
        .rev()
        .zip(b[pre..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (ra, rb) = (&a[pre..a.len() - suf], &b[pre..b.len() - suf]);
    match (ra.len(), rb.len()) {
        (0, 1) | (1, 0) | (1, 1) => true,
        (2, 2) => ra[0] == rb[1] && ra[1] == rb[0],
        _ => false,
    }
}

/// A parsed model, before name resolution.
pub struct ModelAst {
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub name: Ident,
    pub params: Vec<ParamAst>,
    /// Conditions on the parameters (`m > 0.0`), checked at run time.
    pub requires: Vec<Expr>,
    pub coords: Vec<CoordAst>,
    /// Control inputs `u`, read only by `forces`, held over a step.
    pub inputs: Vec<CoordAst>,
    pub lets: Vec<(Ident, Expr)>,
    pub kinetic: Option<(Span, Expr)>,
    pub potential: Option<(Span, Expr)>,
    pub lagrangian: Option<(Span, Expr)>,
    pub holonomic: Vec<(Ident, Expr)>,
    /// Constraints linear in the velocities, `A(q)·v = 0`.
    pub nonholonomic: Vec<(Ident, Expr)>,
    pub invariants: Vec<(Ident, Expr)>,
    pub momentum: Vec<(Ident, Expr)>,
    /// Quantities in `q` and `v` reported with the state.
    pub observables: Vec<(Ident, Expr)>,
    /// Generalized forces `F(q, v, t)` on coordinates.
    pub forces: Vec<ForceAst>,
    pub schemes: Vec<SchemeAst>,
    /// `schemes(budget = N) { … }`: the most temporaries one scheme's step equations
    /// may take, instead of the default.
    pub budget: Option<syn::LitInt>,
}

/// `coordinate: expr` or `coordinate[i]: expr` in `forces`: the generalized force on
/// one coordinate (an element of an array of coordinates), of its shape.
pub struct ForceAst {
    pub coord: Ident,
    pub index: Option<syn::LitInt>,
    pub value: Expr,
}

impl Parse for ForceAst {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let coord: Ident = input.parse()?;
        let index = if input.peek(syn::token::Bracket) {
            let content;
            syn::bracketed!(content in input);
            Some(content.parse::<syn::LitInt>()?)
        } else {
            None
        };
        if !input.peek(Token![:]) {
            return Err(input.error(format!(
                "expected `:` after `{coord}`; forces are written `coordinate: expression` \
                 (or `coordinate[i]: expression` for an array of coordinates)"
            )));
        }
        input.parse::<Token![:]>()?;
        Ok(ForceAst {
            coord,
            index,
            value: input.parse()?,
        })
    }
}

/// `GglEm`, `LobattoIIIAIIIB(3)` or `Name(4, 2, Gauss)` (or `Name(4, 2, Gauss(3))`,
/// [`scheme_args`]): a scheme's marker name and the values of its parameters, if it has
/// any.
pub struct SchemeAst {
    pub name: Ident,
    pub args: Vec<SchemeArgAst>,
}

/// A scheme parameter's value as written: an integer or a name.
pub enum SchemeArgAst {
    Count(syn::LitInt),
    Name(Ident),
}

impl SchemeArgAst {
    pub fn span(&self) -> proc_macro2::Span {
        match self {
            Self::Count(lit) => lit.span(),
            Self::Name(ident) => ident.span(),
        }
    }
}

impl Parse for SchemeArgAst {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if input.peek(syn::LitInt) {
            Ok(Self::Count(input.parse()?))
        } else if input.peek(Ident) {
            Ok(Self::Name(input.parse()?))
        } else {
            Err(input
                .error("a scheme's parameters are integers or names, e.g. `LobattoIIIAIIIB(3)`"))
        }
    }
}

impl Parse for SchemeAst {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let name: Ident = input.parse()?;
        let args = if input.peek(syn::token::Paren) {
            let inner;
            syn::parenthesized!(inner in input);
            scheme_args(&inner)?
        } else {
            Vec::new()
        };
        Ok(SchemeAst { name, args })
    }
}

/// The comma-separated parameters of a scheme, a choice's own in parentheses after it
/// read as the parameters that follow it: `Galerkin(2, 2, Gauss(2))` is
/// `Galerkin(2, 2, Gauss, 2)` (the Galerkin paper's spelling, a rule and its nodes).
fn scheme_args(input: ParseStream) -> syn::Result<Vec<SchemeArgAst>> {
    let mut args = Vec::new();
    while !input.is_empty() {
        let arg = SchemeArgAst::parse(input)?;
        let carries = matches!(arg, SchemeArgAst::Name(_)) && input.peek(syn::token::Paren);
        args.push(arg);
        if carries {
            let inner;
            syn::parenthesized!(inner in input);
            let own = inner.parse_terminated(SchemeArgAst::parse, Token![,])?;
            args.extend(own);
        }
        if input.is_empty() {
            break;
        }
        input.parse::<Token![,]>()?;
    }
    Ok(args)
}

/// `/// doc` `name = default`
pub struct ParamAst {
    pub attrs: Vec<Attribute>,
    pub name: Ident,
    pub default: Expr,
}

/// `name: Kind` or `name: [Kind; N]`
pub struct CoordAst {
    pub name: Ident,
    pub kind: Ident,
    /// The length `N` of an array of coordinates, as written.
    pub len: Option<syn::LitInt>,
}

struct Param(ParamAst);
impl Parse for Param {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let name: Ident = input.parse()?;
        if !input.peek(Token![=]) {
            return Err(input.error(format!(
                "expected `=` after the parameter `{name}`; parameters are declared as `{name} = 1.0`"
            )));
        }
        input.parse::<Token![=]>()?;
        let default = input.parse()?;
        Ok(Param(ParamAst {
            attrs,
            name,
            default,
        }))
    }
}

struct Coord(CoordAst);
impl Parse for Coord {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let name: Ident = input.parse()?;
        if !input.peek(Token![:]) {
            return Err(input.error(format!(
                "expected `:` after the coordinate `{name}`; coordinates are declared as \
                 `{name}: Vec3` or `{name}: Scalar`"
            )));
        }
        input.parse::<Token![:]>()?;
        if !input.peek(syn::token::Bracket) {
            let kind = input.parse()?;
            return Ok(Coord(CoordAst {
                name,
                kind,
                len: None,
            }));
        }
        // `[Vec3; 10]`: an array of coordinates `name[0]` … `name[9]`.
        let inner;
        let bracket = syn::bracketed!(inner in input);
        let kind: Ident = inner.parse()?;
        if inner.peek(syn::token::Bracket) {
            return Err(inner.error(
                "arrays of arrays are not supported; declare one array per row \
                 (`a: [Vec3; 4], b: [Vec3; 4]`) or one longer array",
            ));
        }
        if !inner.peek(Token![;]) {
            return Err(syn::Error::new(
                if inner.is_empty() {
                    bracket.span.close()
                } else {
                    inner.span()
                },
                format!(
                    "expected `;` and the length after `{kind}`; an array of coordinates \
                     is declared as `{name}: [{kind}; 10]`"
                ),
            ));
        }
        inner.parse::<Token![;]>()?;
        if !inner.peek(syn::LitInt) {
            return Err(syn::Error::new(
                if inner.is_empty() {
                    bracket.span.close()
                } else {
                    inner.span()
                },
                format!(
                    "the length of a coordinate array is an integer literal, as in \
                     `{name}: [{kind}; 10]`"
                ),
            ));
        }
        let len = inner.parse()?;
        if !inner.is_empty() {
            return Err(inner.error(format!(
                "unexpected tokens after the length; write `{name}: [{kind}; 10]`"
            )));
        }
        Ok(Coord(CoordAst {
            name,
            kind,
            len: Some(len),
        }))
    }
}

/// `name: expr`
struct Named(Ident, Expr);
impl Parse for Named {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let name: Ident = input.parse()?;
        if !input.peek(Token![:]) {
            return Err(input.error(format!(
                "expected `:` after `{name}`; entries are written `{name}: expression`"
            )));
        }
        input.parse::<Token![:]>()?;
        Ok(Named(name, input.parse()?))
    }
}

/// `{ item, item, ... }`
fn braced_list<T: Parse>(input: ParseStream) -> syn::Result<Vec<T>> {
    let content;
    braced!(content in input);
    Ok(Punctuated::<T, Token![,]>::parse_terminated(&content)?
        .into_iter()
        .collect())
}

/// `{ name: expr, ... }`, as `(name, expr)` pairs.
fn named_list(input: ParseStream) -> syn::Result<Vec<(Ident, Expr)>> {
    Ok(braced_list::<Named>(input)?
        .into_iter()
        .map(|n| (n.0, n.1))
        .collect())
}

/// `= expr ;`, after `what` (`kinetic`, `let name`), which names it in messages.
fn assigned(input: ParseStream, what: &str) -> syn::Result<Expr> {
    if !input.peek(Token![=]) {
        return Err(input.error(format!(
            "expected `=` after `{what}`; write `{what} = expression;`"
        )));
    }
    input.parse::<Token![=]>()?;
    let e = input.parse()?;
    if !input.peek(Token![;]) {
        // error: expected `;` to end `kinetic = ...`
        //    |     potential = m * g * r.z;
        //    |     ^^^^^^^^^
        return Err(input.error(format!("expected `;` to end `{what} = ...`")));
    }
    input.parse::<Token![;]>()?;
    Ok(e)
}

fn set_once<T>(slot: &mut Option<T>, value: T, span: Span, what: &str) -> syn::Result<()> {
    if slot.is_some() {
        return Err(syn::Error::new(
            span,
            format!("`{what}` is declared twice; a model has at most one, so merge the two"),
        ));
    }
    *slot = Some(value);
    Ok(())
}

impl Parse for ModelAst {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let tokens = input.parse::<TokenStream>()?;
        check_nesting(tokens.clone())?;
        let tokens = rewrite_sums(tokens)?;
        syn::parse::Parser::parse2(parse_model, tokens)
    }
}

/// Deepest nesting of brackets and prefix operators an expression may have.
pub const MAX_NESTING: usize = 256;

/// syn parses a bracket or a prefix `-` or `!` by recursion, and so do `rewrite_sums`
/// and `lower`: 2 000 nested minus signs overflowed rustc's stack in a downstream
/// release build, whose proc macros are unoptimised and have large frames. This walk
/// has no recursion: it refuses a model nested deeper than [`MAX_NESTING`] before
/// anything recursive sees it. A chain of binary operators (`a + b + …`) is not
/// nesting here: every pass over it is a loop (`deep_tests.rs`).
fn check_nesting(tokens: TokenStream) -> syn::Result<()> {
    // Per open bracket: its tokens still to walk, and the depth inside it.
    let mut stack = vec![(tokens.into_iter(), 0usize)];
    // Prefix operators just walked, each one more level inside the current bracket.
    let mut run = 0;
    while let Some((tokens, depth)) = stack.last_mut() {
        let depth = *depth;
        let Some(tt) = tokens.next() else {
            stack.pop();
            run = 0;
            continue;
        };
        if depth + run >= MAX_NESTING {
            // error: this expression nests more than 256 levels deep …
            return Err(syn::Error::new(
                tt.span(),
                format!(
                    "this expression nests more than {MAX_NESTING} levels deep (brackets and \
                     prefix `-` or `!` together); name a part of it with `let` and use the name"
                ),
            ));
        }
        match tt {
            TokenTree::Group(g) => {
                stack.push((g.stream().into_iter(), depth + run + 1));
                run = 0;
            }
            TokenTree::Punct(p) if matches!(p.as_char(), '-' | '!') => run += 1,
            _ => run = 0,
        }
    }
    Ok(())
}

/// `sum(i in 0..10, body)` is not Rust syntax, which syn parses: before parsing, its
/// arguments become `for i in 0..10 { body }`, a `for` expression (the form a
/// constraint family is written in) that `lower` sums. Every token keeps its span.
fn rewrite_sums(tokens: TokenStream) -> syn::Result<TokenStream> {
    let mut out = Vec::new();
    let mut after_sum = false;
    for tt in tokens {
        let tt = match tt {
            TokenTree::Group(g) => {
                let mut inner = rewrite_sums(g.stream())?;
                if after_sum && g.delimiter() == Delimiter::Parenthesis {
                    inner = sum_arguments(inner, g.span_close())?;
                }
                let mut group = Group::new(g.delimiter(), inner);
                group.set_span(g.span());
                TokenTree::Group(group)
            }
            other => other,
        };
        after_sum = matches!(&tt, TokenTree::Ident(id) if id == "sum");
        out.push(tt);
    }
    Ok(out.into_iter().collect())
}

/// The arguments of `sum(...)`: `i in RANGE, BODY` becomes `for i in RANGE { BODY }`;
/// anything else is left for `lower` to judge.
fn sum_arguments(args: TokenStream, close: Span) -> syn::Result<TokenStream> {
    const FORM: &str = "`sum(i in 0..10, expression)`";
    let tokens: Vec<TokenTree> = args.clone().into_iter().collect();
    let is_comma = |t: &TokenTree| matches!(t, TokenTree::Punct(p) if p.as_char() == ',');
    let is_in = |t: &TokenTree| matches!(t, TokenTree::Ident(id) if id == "in");
    let Some(at) = tokens.iter().take_while(|t| !is_comma(t)).position(is_in) else {
        return Ok(args);
    };
    let (1, TokenTree::Ident(var)) = (at, &tokens[0]) else {
        return Err(syn::Error::new(
            tokens[0].span(),
            format!("the index of a `sum` is a plain name such as `i`: {FORM}"),
        ));
    };
    let in_token = &tokens[1];
    let Some(comma) = tokens.iter().position(is_comma) else {
        // error: expected `,` and the expression to add after the range …
        return Err(syn::Error::new(
            close,
            format!("expected `,` and the expression to add after the range: {FORM}"),
        ));
    };
    if comma == 2 {
        return Err(syn::Error::new(
            in_token.span(),
            format!("expected a range such as `0..10` after `in`: {FORM}"),
        ));
    }
    let mut body = &tokens[comma + 1..];
    if body.last().is_some_and(is_comma) {
        body = &body[..body.len() - 1];
    }
    if body.is_empty() {
        return Err(syn::Error::new(
            tokens[comma].span(),
            format!("expected the expression to add after `,`: {FORM}"),
        ));
    }
    if let Some(extra) = body.iter().find(|t| is_comma(t)) {
        return Err(syn::Error::new(
            extra.span(),
            format!("`sum` takes a range and one expression: {FORM}"),
        ));
    }
    let mut block = Group::new(Delimiter::Brace, body.iter().cloned().collect());
    block.set_span(body[0].span());
    let mut out = vec![TokenTree::Ident(Ident::new("for", var.span()))];
    out.extend(tokens[..comma].iter().cloned());
    out.push(TokenTree::Group(block));
    Ok(out.into_iter().collect())
}

/// A model with no blocks yet.
fn empty_model(attrs: Vec<Attribute>, vis: Visibility, name: Ident) -> ModelAst {
    ModelAst {
        attrs,
        vis,
        name,
        params: Vec::new(),
        requires: Vec::new(),
        coords: Vec::new(),
        inputs: Vec::new(),
        lets: Vec::new(),
        kinetic: None,
        potential: None,
        lagrangian: None,
        holonomic: Vec::new(),
        nonholonomic: Vec::new(),
        invariants: Vec::new(),
        momentum: Vec::new(),
        observables: Vec::new(),
        forces: Vec::new(),
        schemes: Vec::new(),
        budget: None,
    }
}

/// The error at a model body's token that starts no block: a typo or an alias of one,
/// or not a block at all.
fn unknown_block(body: ParseStream) -> syn::Error {
    // error: unknown block `controls`; a model body contains ...
    //   --> macros/diagnostics/tests/ui/parse/unknown_block.rs
    //    |     controls { ... }
    //    |     ^^^^^^^^
    let msg = match body.fork().parse::<Ident>() {
        Ok(id) => {
            let name = id.to_string();
            let alias = ALIASES.iter().find(|(a, _)| *a == name).map(|(_, w)| w);
            let typo = alias.or_else(|| BLOCK_WORDS.iter().find(|w| is_typo(&name, w)));
            let hint = typo.map_or_else(String::new, |w| format!(" (did you mean `{w}`?)"));
            format!("unknown block `{id}`{hint}; a model body contains {BLOCKS}")
        }
        Err(_) => format!("expected {BLOCKS} in the body of a model"),
    };
    syn::Error::new(body.span(), msg)
}

/// The options of `schemes(…) { … }`, if any: `budget = N`, the one there is.
fn scheme_options(body: ParseStream) -> syn::Result<Option<syn::LitInt>> {
    if !body.peek(syn::token::Paren) {
        return Ok(None);
    }
    let options;
    syn::parenthesized!(options in body);
    let key: Ident = options.parse()?;
    if key != "budget" {
        return Err(syn::Error::new(
            key.span(),
            format!(
                "unknown option `{key}` of `schemes`; the one option is \
                 `schemes(budget = 40000) {{ … }}`"
            ),
        ));
    }
    options.parse::<Token![=]>()?;
    Ok(Some(options.parse()?))
}

fn parse_model(input: ParseStream) -> syn::Result<ModelAst> {
    let attrs = input.call(Attribute::parse_outer)?;
    let vis = input.parse()?;
    input.parse::<Token![struct]>()?;
    let name: Ident = input.parse()?;
    let body;
    braced!(body in input);
    let mut m = empty_model(attrs, vis, name);
    let (mut params, mut coords, mut holo, mut mom, mut schemes) = (None, None, None, None, None);
    let mut nonholo = None;
    let mut invariants = None;
    let mut observables = None;
    let mut forces = None;
    let mut requires = None;
    let mut inputs = None;
    while !body.is_empty() {
        let la = body.lookahead1();
        if la.peek(kw::params) {
            let k = body.parse::<kw::params>()?;
            let v = braced_list::<Param>(&body)?
                .into_iter()
                .map(|p| p.0)
                .collect();
            set_once(&mut params, v, k.span, "params")?;
        } else if la.peek(kw::requires) {
            let k = body.parse::<kw::requires>()?;
            let v = braced_list::<Expr>(&body)?;
            set_once(&mut requires, v, k.span, "requires")?;
        } else if la.peek(kw::coords) {
            let k = body.parse::<kw::coords>()?;
            let v = braced_list::<Coord>(&body)?
                .into_iter()
                .map(|c| c.0)
                .collect();
            set_once(&mut coords, v, k.span, "coords")?;
        } else if la.peek(kw::inputs) {
            let k = body.parse::<kw::inputs>()?;
            let v = braced_list::<Coord>(&body)?
                .into_iter()
                .map(|c| c.0)
                .collect();
            set_once(&mut inputs, v, k.span, "inputs")?;
        } else if la.peek(Token![let]) {
            body.parse::<Token![let]>()?;
            let name: Ident = body.parse()?;
            let e = assigned(&body, &format!("let {name}"))?;
            m.lets.push((name, e));
        } else if la.peek(kw::kinetic) {
            let k = body.parse::<kw::kinetic>()?;
            set_once(
                &mut m.kinetic,
                (k.span, assigned(&body, "kinetic")?),
                k.span,
                "kinetic",
            )?;
        } else if la.peek(kw::potential) {
            let k = body.parse::<kw::potential>()?;
            set_once(
                &mut m.potential,
                (k.span, assigned(&body, "potential")?),
                k.span,
                "potential",
            )?;
        } else if la.peek(kw::lagrangian) {
            let k = body.parse::<kw::lagrangian>()?;
            set_once(
                &mut m.lagrangian,
                (k.span, assigned(&body, "lagrangian")?),
                k.span,
                "lagrangian",
            )?;
        } else if la.peek(kw::holonomic) {
            let k = body.parse::<kw::holonomic>()?;
            set_once(&mut holo, named_list(&body)?, k.span, "holonomic")?;
        } else if la.peek(kw::nonholonomic) {
            let k = body.parse::<kw::nonholonomic>()?;
            set_once(&mut nonholo, named_list(&body)?, k.span, "nonholonomic")?;
        } else if la.peek(kw::invariants) {
            let k = body.parse::<kw::invariants>()?;
            set_once(&mut invariants, named_list(&body)?, k.span, "invariants")?;
        } else if la.peek(kw::momentum) {
            let k = body.parse::<kw::momentum>()?;
            set_once(&mut mom, named_list(&body)?, k.span, "momentum")?;
        } else if la.peek(kw::observables) {
            let k = body.parse::<kw::observables>()?;
            set_once(&mut observables, named_list(&body)?, k.span, "observables")?;
        } else if la.peek(kw::forces) {
            let k = body.parse::<kw::forces>()?;
            set_once(
                &mut forces,
                braced_list::<ForceAst>(&body)?,
                k.span,
                "forces",
            )?;
        } else if la.peek(kw::schemes) {
            let k = body.parse::<kw::schemes>()?;
            if let Some(budget) = scheme_options(&body)? {
                m.budget = Some(budget);
            }
            let v = braced_list::<SchemeAst>(&body)?;
            set_once(&mut schemes, v, k.span, "schemes")?;
        } else {
            return Err(unknown_block(&body));
        }
    }
    m.params = params.unwrap_or_default();
    m.requires = requires.unwrap_or_default();
    m.coords = coords.unwrap_or_default();
    m.inputs = inputs.unwrap_or_default();
    m.holonomic = holo.unwrap_or_default();
    m.nonholonomic = nonholo.unwrap_or_default();
    m.momentum = mom.unwrap_or_default();
    m.invariants = invariants.unwrap_or_default();
    m.observables = observables.unwrap_or_default();
    m.forces = forces.unwrap_or_default();
    m.schemes = schemes.unwrap_or_default();
    Ok(m)
}
