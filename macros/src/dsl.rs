//! The model! grammar, parsed with syn. The accepted syntax:
//!
//! ```text
//! model! {
//!     /// docs
//!     pub struct Name {
//!         params { /// docs
//!                  m = 1.0, l = 1.0 }           // runtime parameters with defaults
//!         requires { m > 0.0, l > 0.0 }         // conditions the parameters must meet
//!         coords { r: Vec3, theta: Scalar }     // velocities are r_dot, theta_dot
//!         invariants { pi: expr, ... }          // quadratic invariants the potential may
//!                                               // use (EM's discrete gradient is built on them)
//!         let name = expr;                      // a named subexpression
//!         kinetic = expr;                       // with potential = expr; or:
//!         lagrangian = expr;
//!         holonomic { name: expr, ... }         // scalar- or vector-valued g(q) = 0
//!         momentum { name: rotation(e3), name: translation(e1), ... }
//!         schemes { GglEm, GglViA }
//!     }
//! }
//! ```
//!
//! Blocks may come in any order, each at most once (`let` any number of times).
//! Reserved for later blocks, in the same style:
//! `nonholonomic { name: expr, ... }`, `forces { ... }`, `inputs { u: Vec3 }`, and the
//! coordinate kinds `Quat`, `SO3`, `SE2`.
use proc_macro2::Span;
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
    syn::custom_keyword!(invariants);
    syn::custom_keyword!(momentum);
    syn::custom_keyword!(schemes);
}

/// The words that open a block, for error messages.
const BLOCKS: &str =
    "`params`, `requires`, `coords`, `let`, `invariants`, `kinetic`, `potential`, `lagrangian`, `holonomic`, `momentum` or `schemes`";

/// The same words, to suggest one for a typo.
const BLOCK_WORDS: [&str; 11] = [
    "params",
    "requires",
    "coords",
    "let",
    "invariants",
    "kinetic",
    "potential",
    "lagrangian",
    "holonomic",
    "momentum",
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

/// Words reserved for later blocks and coordinate kinds (see the module docs).
const RESERVED: [&str; 3] = ["nonholonomic", "forces", "inputs"];

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
    pub lets: Vec<(Ident, Expr)>,
    pub kinetic: Option<(Span, Expr)>,
    pub potential: Option<(Span, Expr)>,
    pub lagrangian: Option<(Span, Expr)>,
    pub holonomic: Vec<(Ident, Expr)>,
    pub invariants: Vec<(Ident, Expr)>,
    pub momentum: Vec<(Ident, Expr)>,
    pub schemes: Vec<SchemeAst>,
}

/// `GglEm` or `LobattoIIIAIIIB(3)`: a scheme's marker name and, for families with a
/// stage count, the count.
pub struct SchemeAst {
    pub name: Ident,
    pub stages: Option<syn::LitInt>,
}

impl Parse for SchemeAst {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let name: Ident = input.parse()?;
        let stages = if input.peek(syn::token::Paren) {
            let inner;
            syn::parenthesized!(inner in input);
            Some(inner.parse()?)
        } else {
            None
        };
        Ok(SchemeAst { name, stages })
    }
}

/// `/// doc` `name = default`
pub struct ParamAst {
    pub attrs: Vec<Attribute>,
    pub name: Ident,
    pub default: Expr,
}

/// `name: Kind`
pub struct CoordAst {
    pub name: Ident,
    pub kind: Ident,
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
        let kind = input.parse()?;
        Ok(Coord(CoordAst { name, kind }))
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
        let attrs = input.call(Attribute::parse_outer)?;
        let vis = input.parse()?;
        input.parse::<Token![struct]>()?;
        let name: Ident = input.parse()?;
        let body;
        braced!(body in input);
        let mut m = ModelAst {
            attrs,
            vis,
            name,
            params: Vec::new(),
            requires: Vec::new(),
            coords: Vec::new(),
            lets: Vec::new(),
            kinetic: None,
            potential: None,
            lagrangian: None,
            holonomic: Vec::new(),
            invariants: Vec::new(),
            momentum: Vec::new(),
            schemes: Vec::new(),
        };
        let (mut params, mut coords, mut holo, mut mom, mut schemes) =
            (None, None, None, None, None);
        let mut invariants = None;
        let mut requires = None;
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
                let v = braced_list::<Named>(&body)?
                    .into_iter()
                    .map(|n| (n.0, n.1))
                    .collect();
                set_once(&mut holo, v, k.span, "holonomic")?;
            } else if la.peek(kw::invariants) {
                let k = body.parse::<kw::invariants>()?;
                let v = braced_list::<Named>(&body)?
                    .into_iter()
                    .map(|n| (n.0, n.1))
                    .collect();
                set_once(&mut invariants, v, k.span, "invariants")?;
            } else if la.peek(kw::momentum) {
                let k = body.parse::<kw::momentum>()?;
                let v = braced_list::<Named>(&body)?
                    .into_iter()
                    .map(|n| (n.0, n.1))
                    .collect();
                set_once(&mut mom, v, k.span, "momentum")?;
            } else if la.peek(kw::schemes) {
                let k = body.parse::<kw::schemes>()?;
                let v = braced_list::<SchemeAst>(&body)?;
                set_once(&mut schemes, v, k.span, "schemes")?;
            } else {
                // error: `forces` blocks are not supported yet; a model body contains ...
                //   --> tests/ui/parse/unknown_block.rs
                //    |     forces { ... }
                //    |     ^^^^^^
                let msg = match body.fork().parse::<Ident>() {
                    Ok(id) if RESERVED.contains(&id.to_string().as_str()) => {
                        format!(
                            "`{id}` blocks are not supported yet; a model body contains {BLOCKS}"
                        )
                    }
                    Ok(id) => {
                        let name = id.to_string();
                        let alias = ALIASES.iter().find(|(a, _)| *a == name).map(|(_, w)| w);
                        let typo = alias.or_else(|| BLOCK_WORDS.iter().find(|w| is_typo(&name, w)));
                        let hint =
                            typo.map_or_else(String::new, |w| format!(" (did you mean `{w}`?)"));
                        format!("unknown block `{id}`{hint}; a model body contains {BLOCKS}")
                    }
                    Err(_) => format!("expected {BLOCKS} in the body of a model"),
                };
                return Err(syn::Error::new(body.span(), msg));
            }
        }
        m.params = params.unwrap_or_default();
        m.requires = requires.unwrap_or_default();
        m.coords = coords.unwrap_or_default();
        m.holonomic = holo.unwrap_or_default();
        m.momentum = mom.unwrap_or_default();
        m.invariants = invariants.unwrap_or_default();
        m.schemes = schemes.unwrap_or_default();
        Ok(m)
    }
}
