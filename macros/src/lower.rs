//! Name resolution and lowering of the DSL's vector expressions to scalar graph nodes.
//! Every error points at the user's token.
use std::collections::{HashMap, HashSet};

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{BinOp, Expr, Ident, Lit, Member, UnOp};

use crate::dsl::ModelAst;
use crate::errors::Errors;
use crate::ir::{
    Constraint, Coord, CoordKind, Model, Momentum, Param, Role, SchemeRequest, Symmetry,
};
use crate::schemes::SchemeKind;
use crate::sym::{Func, Graph, Id, VarId};

/// A lowered value: a scalar, a vector or a (row-major) matrix of graph nodes.
#[derive(Clone, Debug)]
pub enum Val {
    S(Id),
    V(Vec<Id>),
    M(usize, usize, Vec<Id>),
}

impl Val {
    fn shape(&self) -> String {
        match self {
            Val::S(_) => "a scalar".into(),
            Val::V(v) => format!("a {}-vector", v.len()),
            Val::M(r, c, _) => format!("a {r}×{c} matrix"),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Builtin,
    Param,
    Coord,
    Velocity,
    Let,
}

struct Sym {
    val: Val,
    kind: Kind,
}

/// What an expression may refer to.
#[derive(Clone, Copy)]
enum Scope<'a> {
    /// Anything declared (energies, lets).
    Any,
    /// Positions and parameters only: a holonomic constraint, named for messages.
    Positions(&'a str),
    /// Numbers only (parameter defaults, symmetry axes): the rule ("a symmetry axis must
    /// be constant") and a hint, for messages.
    Constant(&'a str, &'a str),
}

/// The message of an error that stands for one already reported (a use of a name whose
/// declaration failed); [`report`] drops it, so that one mistake gives one error.
const POISONED: &str = "livens: already reported";

/// Adds `e` to `errors`, without the follow-up errors of a failed declaration.
fn report(errors: &mut Errors, e: syn::Error) {
    for e in e {
        if e.to_string() != POISONED {
            errors.add(e);
        }
    }
}

/// The candidate closest to `name` by edit distance, if it is close enough to be a typo.
fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let dist = |a: &str, b: &str| {
        let b: Vec<char> = b.chars().collect();
        let mut row: Vec<usize> = (0..=b.len()).collect();
        for (i, ca) in a.chars().enumerate() {
            let mut prev = row[0];
            row[0] = i + 1;
            for (j, &cb) in b.iter().enumerate() {
                let cur = row[j + 1];
                row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(cur + 1);
                prev = cur;
            }
        }
        row[b.len()]
    };
    let limit = (name.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .map(|c| (dist(name, c), c))
        .filter(|&(d, _)| d <= limit)
        .min()
        .map(|(_, c)| c)
}

/// `" (did you mean `x`?)"`, or nothing.
fn did_you_mean(suggestion: Option<&str>) -> String {
    suggestion.map_or_else(String::new, |s| format!(" (did you mean `{s}`?)"))
}

const BUILTINS: [&str; 4] = ["e1", "e2", "e3", "pi"];

struct Lowerer<'a> {
    g: &'a mut Graph,
    env: HashMap<String, Sym>,
    /// Names whose declaration failed (already reported): uses of them are not errors.
    poisoned: HashSet<String>,
    /// The velocity variables, to catch velocities that reach a holonomic constraint
    /// through a `let`.
    velocities: Vec<VarId>,
}

type R<T> = syn::Result<T>;

fn err<T>(span: Span, msg: impl std::fmt::Display) -> R<T> {
    Err(syn::Error::new(span, msg))
}

impl Lowerer<'_> {
    fn lookup(&self, id: &Ident, scope: Scope) -> R<Val> {
        let name = id.to_string();
        let Some(sym) = self.env.get(&name) else {
            if self.poisoned.contains(&name) {
                return err(id.span(), POISONED);
            }
            if let Scope::Constant(what, hint) = scope {
                // Parameter defaults are lowered before anything is declared.
                return err(id.span(), format!("{what}, but mentions `{name}`; {hint}"));
            }
            // error: unknown symbol `gg` (did you mean `g`?); the model declares params [g, m], ...
            let suggestion = closest(&name, self.env.keys().map(String::as_str));
            return err(
                id.span(),
                format!(
                    "unknown symbol `{name}`{}; {}",
                    did_you_mean(suggestion),
                    self.declared()
                ),
            );
        };
        match (scope, sym.kind) {
            (Scope::Positions(c), Kind::Velocity) => err(
                id.span(),
                format!(
                    "holonomic constraint `{c}` mentions the velocity `{name}`; holonomic \
                     constraints depend on positions only (velocity-dependent constraints \
                     are nonholonomic)"
                ),
            ),
            (Scope::Positions(c), Kind::Let) if self.depends_on_velocities(&sym.val) => err(
                id.span(),
                format!(
                    "holonomic constraint `{c}` mentions `{name}`, which depends on the velocities; \
                     holonomic constraints depend on positions only (velocity-dependent \
                     constraints are nonholonomic)"
                ),
            ),
            (Scope::Constant(what, hint), Kind::Param | Kind::Coord | Kind::Velocity | Kind::Let) => {
                let kind = match sym.kind {
                    Kind::Param => "the parameter",
                    Kind::Coord => "the coordinate",
                    Kind::Velocity => "the velocity",
                    _ => "the `let`",
                };
                err(id.span(), format!("{what}, but mentions {kind} `{name}`; {hint}"))
            }
            _ => Ok(sym.val.clone()),
        }
    }

    fn depends_on_velocities(&self, val: &Val) -> bool {
        let ids = match val {
            Val::S(x) => std::slice::from_ref(x),
            Val::V(xs) | Val::M(_, _, xs) => xs.as_slice(),
        };
        ids.iter()
            .any(|&x| self.g.depends_on_any(x, |v| self.velocities.contains(&v)))
    }

    fn declared(&self) -> String {
        let by_kind = |k: Kind| {
            let mut names: Vec<&str> = self
                .env
                .iter()
                .filter(|(_, s)| s.kind == k)
                .map(|(n, _)| n.as_str())
                .collect();
            names.sort_unstable();
            names.join(", ")
        };
        let (p, c, v, l) = (
            by_kind(Kind::Param),
            by_kind(Kind::Coord),
            by_kind(Kind::Velocity),
            by_kind(Kind::Let),
        );
        let mut s = format!("the model declares params [{p}], coords [{c}], velocities [{v}]");
        if !l.is_empty() {
            s += &format!(", lets [{l}]");
        }
        s + ", and the built-ins e1, e2, e3, pi"
    }

    fn lower(&mut self, e: &Expr, scope: Scope) -> R<Val> {
        match e {
            Expr::Lit(l) => match &l.lit {
                Lit::Float(f) => Ok(Val::S(self.g.constant(f.base10_parse::<f64>()?))),
                Lit::Int(i) => Ok(Val::S(self.g.constant(i.base10_parse::<f64>()?))),
                other => err(
                    l.span(),
                    format!(
                        "expected a number such as `1.0`, found `{}`",
                        quote::ToTokens::to_token_stream(other)
                    ),
                ),
            },
            Expr::Path(p) => match p.path.get_ident() {
                Some(id) => self.lookup(id, scope),
                None => err(p.span(), "expected a single name"),
            },
            Expr::Paren(p) => self.lower(&p.expr, scope),
            Expr::Group(g) => self.lower(&g.expr, scope),
            Expr::Unary(u) => match u.op {
                UnOp::Neg(_) => {
                    let v = self.lower(&u.expr, scope)?;
                    Ok(self.map(v, |g, x| g.neg(x)))
                }
                _ => err(u.op.span(), "only unary `-` is supported"),
            },
            Expr::Binary(b) => {
                let l = self.lower(&b.left, scope)?;
                let r = self.lower(&b.right, scope)?;
                self.binary(&b.op, l, r)
            }
            Expr::Call(c) => {
                let Expr::Path(p) = &*c.func else {
                    return err(c.func.span(), "expected a function name");
                };
                let Some(f) = p.path.get_ident() else {
                    return err(p.span(), "expected a function name");
                };
                let args = c
                    .args
                    .iter()
                    .map(|a| self.lower(a, scope))
                    .collect::<R<Vec<_>>>()?;
                let int_arg = c.args.iter().nth(1);
                self.call(f, args, int_arg, c.span())
            }
            Expr::MethodCall(m) => {
                let mut args = vec![self.lower(&m.receiver, scope)?];
                for a in &m.args {
                    args.push(self.lower(a, scope)?);
                }
                let int_arg = m.args.first();
                self.call(&m.method, args, int_arg, m.span())
            }
            Expr::Field(f) => {
                let v = self.lower(&f.base, scope)?;
                let idx = match &f.member {
                    Member::Named(n) => match n.to_string().as_str() {
                        "x" => 0,
                        "y" => 1,
                        "z" => 2,
                        other => {
                            return err(
                                n.span(),
                                format!("unknown component `.{other}`; use .x, .y, .z or [i]"),
                            )
                        }
                    },
                    Member::Unnamed(i) => i.index as usize,
                };
                self.component(v, idx, f.member.span())
            }
            Expr::Index(i) => {
                let v = self.lower(&i.expr, scope)?;
                let idx = int_literal(&i.index)?;
                self.component(v, idx, i.index.span())
            }
            other => err(
                other.span(),
                "unsupported expression; use numbers, names, + - * /, function calls and .x/.y/.z",
            ),
        }
    }

    fn component(&self, v: Val, idx: usize, span: Span) -> R<Val> {
        match v {
            Val::V(items) if idx < items.len() => Ok(Val::S(items[idx])),
            other => err(span, format!("component {idx} of {}", other.shape())),
        }
    }

    fn map(&mut self, v: Val, f: impl Fn(&mut Graph, Id) -> Id) -> Val {
        match v {
            Val::S(x) => Val::S(f(self.g, x)),
            Val::V(xs) => Val::V(xs.into_iter().map(|x| f(self.g, x)).collect()),
            Val::M(r, c, xs) => Val::M(r, c, xs.into_iter().map(|x| f(self.g, x)).collect()),
        }
    }

    fn zip(
        &mut self,
        l: Val,
        r: Val,
        span: Span,
        op: &str,
        f: impl Fn(&mut Graph, Id, Id) -> Id,
    ) -> R<Val> {
        match (l, r) {
            (Val::S(a), Val::S(b)) => Ok(Val::S(f(self.g, a, b))),
            (Val::V(a), Val::V(b)) if a.len() == b.len() => Ok(Val::V(
                a.iter().zip(&b).map(|(&x, &y)| f(self.g, x, y)).collect(),
            )),
            (Val::M(r1, c1, a), Val::M(r2, c2, b)) if (r1, c1) == (r2, c2) => Ok(Val::M(
                r1,
                c1,
                a.iter().zip(&b).map(|(&x, &y)| f(self.g, x, y)).collect(),
            )),
            (l, r) => err(
                span,
                format!(
                    "cannot {op} {} and {}; both operands must have the same shape",
                    l.shape(),
                    r.shape()
                ),
            ),
        }
    }

    fn binary(&mut self, op: &BinOp, l: Val, r: Val) -> R<Val> {
        let span = op.span();
        match op {
            BinOp::Add(_) => self.zip(l, r, span, "add", |g, a, b| g.add(a, b)),
            BinOp::Sub(_) => self.zip(l, r, span, "subtract", |g, a, b| g.sub(a, b)),
            BinOp::Mul(_) => self.mul(l, r, span),
            BinOp::Div(_) => match r {
                Val::S(d) => Ok(self.map(l, |g, x| g.div(x, d))),
                r => err(span, format!("cannot divide by {}", r.shape())),
            },
            _ => err(span, "only + - * / are supported; use .powi(n) for powers"),
        }
    }

    fn mul(&mut self, l: Val, r: Val, span: Span) -> R<Val> {
        match (l, r) {
            (Val::S(a), r) => Ok(self.map(r, |g, x| g.mul(a, x))),
            (l, Val::S(b)) => Ok(self.map(l, |g, x| g.mul(x, b))),
            (Val::M(r, c, a), Val::V(v)) if c == v.len() => {
                let out = (0..r)
                    .map(|i| self.g.dot(&a[i * c..(i + 1) * c], &v))
                    .collect();
                Ok(Val::V(out))
            }
            (Val::M(r1, c1, a), Val::M(r2, c2, b)) if c1 == r2 => {
                let mut out = Vec::with_capacity(r1 * c2);
                for i in 0..r1 {
                    for j in 0..c2 {
                        let col: Vec<Id> = (0..r2).map(|k| b[k * c2 + j]).collect();
                        out.push(self.g.dot(&a[i * c1..(i + 1) * c1], &col));
                    }
                }
                Ok(Val::M(r1, c2, out))
            }
            (Val::V(_), Val::V(_)) => err(
                span,
                "`*` of two vectors is ambiguous; use dot(a, b) or cross(a, b)",
            ),
            (l, r) => err(
                span,
                format!("cannot multiply {} by {}", l.shape(), r.shape()),
            ),
        }
    }

    fn call(&mut self, f: &Ident, args: Vec<Val>, int_arg: Option<&Expr>, span: Span) -> R<Val> {
        let name = f.to_string();
        let arity = |n: usize| -> R<()> {
            if args.len() == n {
                Ok(())
            } else {
                err(
                    span,
                    format!("`{name}` takes {n} argument(s), found {}", args.len()),
                )
            }
        };
        let scalar = |v: &Val| match v {
            Val::S(x) => Ok(*x),
            other => err(
                span,
                format!("`{name}` expects a scalar, found {}", other.shape()),
            ),
        };
        let vector = |v: &Val| match v {
            Val::V(x) => Ok(x.clone()),
            other => err(
                span,
                format!("`{name}` expects a vector, found {}", other.shape()),
            ),
        };
        if let Some(func) = Func::ALL.into_iter().find(|fu| fu.name() == name) {
            arity(1)?;
            let x = scalar(&args[0])?;
            return Ok(Val::S(self.g.func(func, x)));
        }
        match name.as_str() {
            "powi" => {
                arity(2)?;
                let x = scalar(&args[0])?;
                let n = int_arg.map(int_literal).transpose()?.unwrap_or(0);
                let n =
                    i32::try_from(n).map_err(|_| syn::Error::new(span, "exponent too large"))?;
                let neg = matches!(int_arg, Some(Expr::Unary(_)));
                Ok(Val::S(self.g.powi(x, if neg { -n } else { n })))
            }
            "dot" => {
                arity(2)?;
                let (a, b) = (vector(&args[0])?, vector(&args[1])?);
                if a.len() != b.len() {
                    return err(
                        span,
                        format!("dot of a {}-vector and a {}-vector", a.len(), b.len()),
                    );
                }
                Ok(Val::S(self.g.dot(&a, &b)))
            }
            "norm_squared" | "norm" => {
                arity(1)?;
                let a = vector(&args[0])?;
                let n2 = self.g.dot(&a, &a);
                Ok(Val::S(if name == "norm" {
                    self.g.func(Func::Sqrt, n2)
                } else {
                    n2
                }))
            }
            "cross" => {
                arity(2)?;
                let (a, b) = (vector(&args[0])?, vector(&args[1])?);
                if a.len() != 3 || b.len() != 3 {
                    return err(span, "cross needs two 3-vectors");
                }
                Ok(Val::V(cross(self.g, &a, &b).to_vec()))
            }
            "vec3" | "vector" => {
                let items = args.iter().map(scalar).collect::<R<Vec<_>>>()?;
                if name == "vec3" {
                    arity(3)?;
                }
                Ok(Val::V(items))
            }
            "diag" => {
                let items = args.iter().map(scalar).collect::<R<Vec<_>>>()?;
                let n = items.len();
                let zero = self.g.zero();
                let mut m = vec![zero; n * n];
                for (i, x) in items.into_iter().enumerate() {
                    m[i * n + i] = x;
                }
                Ok(Val::M(n, n, m))
            }
            _ => {
                let builtins = [
                    "dot",
                    "cross",
                    "norm",
                    "norm_squared",
                    "vec3",
                    "vector",
                    "diag",
                    "powi",
                ];
                let all: Vec<&str> = builtins
                    .into_iter()
                    .chain(Func::ALL.map(Func::name))
                    .collect();
                err(
                    f.span(),
                    format!(
                        "unknown function `{name}`{}; available: {}",
                        did_you_mean(closest(&name, all.iter().copied())),
                        all.join(", ")
                    ),
                )
            }
        }
    }
}

/// `a × b` for 3-vectors.
pub fn cross(g: &mut Graph, a: &[Id], b: &[Id]) -> [Id; 3] {
    let mut c = |i: usize, j: usize| {
        let (x, y) = (g.mul(a[i], b[j]), g.mul(a[j], b[i]));
        g.sub(x, y)
    };
    [c(1, 2), c(2, 0), c(0, 1)]
}

fn int_literal(e: &Expr) -> R<usize> {
    match e {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Int(i), ..
        }) => i.base10_parse(),
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => int_literal(&u.expr),
        other => err(other.span(), "expected an integer literal"),
    }
}

/// Lowers the parsed model to the IR, collecting every error.
pub fn lower(ast: ModelAst) -> Result<Model, syn::Error> {
    let mut errors = Errors::default();
    let mut model = Model {
        graph: Graph::new(),
        roles: Vec::new(),
        attrs: ast.attrs,
        vis: ast.vis,
        name: ast.name,
        params: Vec::new(),
        coords: Vec::new(),
        q: Vec::new(),
        v: Vec::new(),
        p: Vec::new(),
        coord_names: Vec::new(),
        lagrangian: crate::sym::Id::default(),
        lagrangian_span: Span::call_site(),
        potential: crate::sym::Id::default(),
        constraints: Vec::new(),
        momenta: Vec::new(),
        schemes: Vec::new(),
    };
    let mut env: HashMap<String, Sym> = HashMap::new();
    let mut poisoned: HashSet<String> = HashSet::new();
    // Built-ins.
    for (i, n) in ["e1", "e2", "e3"].iter().enumerate() {
        let mut e = vec![model.graph.zero(); 3];
        e[i] = model.graph.one();
        env.insert(
            (*n).into(),
            Sym {
                val: Val::V(e),
                kind: Kind::Builtin,
            },
        );
    }
    let pi = model.graph.constant(std::f64::consts::PI);
    env.insert(
        "pi".into(),
        Sym {
            val: Val::S(pi),
            kind: Kind::Builtin,
        },
    );

    // A name declared twice is removed and poisoned: its uses are ambiguous, not errors.
    let declare = |env: &mut HashMap<String, Sym>,
                   poisoned: &mut HashSet<String>,
                   errors: &mut Errors,
                   id: &Ident,
                   sym: Sym| {
        let name = id.to_string();
        let twice = env.contains_key(&name) || poisoned.contains(&name);
        let velocity = sym.kind == Kind::Velocity;
        if BUILTINS.contains(&name.as_str()) {
            errors.push(
                id.span(),
                format!("`{name}` is a built-in name (e1, e2, e3 are the unit vectors, pi is π); choose another name"),
            );
            // Uses of the name mean the user's declaration: no follow-up shape errors.
            env.insert(name, sym);
        } else if twice {
            if velocity {
                // The span is the coordinate's name: say where `r_dot` comes from.
                errors.push(
                    id.span(),
                    format!(
                        "the velocity `{name}` of this coordinate clashes with another declaration \
                         of `{name}`; rename one"
                    ),
                );
            } else {
                errors.push(
                    id.span(),
                    format!("`{name}` is declared twice; rename one of the declarations"),
                );
            }
            env.remove(&name);
            poisoned.insert(name);
        } else {
            env.insert(name, sym);
        }
    };

    // Parameters: numbers only.
    for p in ast.params {
        let mut lw = Lowerer {
            g: &mut model.graph,
            env: HashMap::new(),
            poisoned: HashSet::new(),
            velocities: Vec::new(),
        };
        let scope = Scope::Constant(
            "a parameter's default must be a number",
            "write a number such as `1.0`, and derive quantities from parameters with `let`",
        );
        let default = match lw.lower(&p.default, scope) {
            Ok(Val::S(x)) => match model.graph.as_const(x) {
                Some(v) => v,
                None => {
                    errors.add(syn::Error::new_spanned(
                        &p.default,
                        "a parameter's default must be a number",
                    ));
                    0.0
                }
            },
            Ok(other) => {
                errors.add(syn::Error::new_spanned(
                    &p.default,
                    format!("a parameter is a scalar, found {}", other.shape()),
                ));
                0.0
            }
            Err(e) => {
                errors.add(e);
                0.0
            }
        };
        let (_, node) = model.new_var(p.name.to_string(), Role::Param(model.params.len()));
        declare(
            &mut env,
            &mut poisoned,
            &mut errors,
            &p.name,
            Sym {
                val: Val::S(node),
                kind: Kind::Param,
            },
        );
        model.params.push(Param {
            attrs: p.attrs,
            name: p.name,
            default,
        });
    }

    // Coordinates and their velocities; momenta are model-level variables too.
    let declares_coords = !ast.coords.is_empty();
    for c in ast.coords {
        let kind = match c.kind.to_string().as_str() {
            "Scalar" => CoordKind::Scalar,
            "Vec3" => CoordKind::Vec3,
            other => {
                errors.push(
                    c.kind.span(),
                    format!("unknown coordinate kind `{other}`; the kinds are `Scalar` and `Vec3`"),
                );
                // Uses of the coordinate and its velocity are not errors of their own.
                poisoned.insert(c.name.to_string());
                poisoned.insert(format!("{}_dot", c.name));
                continue;
            }
        };
        let offset = model.q.len();
        let (mut qs, mut vs) = (Vec::new(), Vec::new());
        for k in 0..kind.len() {
            let i = offset + k;
            let label = match kind {
                CoordKind::Scalar => c.name.to_string(),
                CoordKind::Vec3 => format!("{}.{}", c.name, ["x", "y", "z"][k]),
            };
            let (qv, qn) = model.new_var(format!("q{i}"), Role::Q(i));
            let (vv, vn) = model.new_var(format!("v{i}"), Role::V(i));
            let (pv, _) = model.new_var(format!("p{i}"), Role::P(i));
            model.q.push(qv);
            model.v.push(vv);
            model.p.push(pv);
            model.coord_names.push(label);
            qs.push(qn);
            vs.push(vn);
        }
        let (qval, vval) = match kind {
            CoordKind::Scalar => (Val::S(qs[0]), Val::S(vs[0])),
            CoordKind::Vec3 => (Val::V(qs), Val::V(vs)),
        };
        let dot_name = Ident::new(&format!("{}_dot", c.name), c.name.span());
        let coord_twice =
            env.contains_key(&c.name.to_string()) || poisoned.contains(&c.name.to_string());
        declare(
            &mut env,
            &mut poisoned,
            &mut errors,
            &c.name,
            Sym {
                val: qval,
                kind: Kind::Coord,
            },
        );
        if coord_twice {
            // Already reported: a coordinate declared twice has its velocity declared twice.
            env.remove(&dot_name.to_string());
            poisoned.insert(dot_name.to_string());
        } else {
            declare(
                &mut env,
                &mut poisoned,
                &mut errors,
                &dot_name,
                Sym {
                    val: vval,
                    kind: Kind::Velocity,
                },
            );
        }
        model.coords.push(Coord { kind, offset });
    }

    let mut lw = Lowerer {
        g: &mut model.graph,
        env,
        poisoned,
        velocities: model.v.clone(),
    };
    for (name, e) in &ast.lets {
        match lw.lower(e, Scope::Any) {
            Ok(val) => declare(
                &mut lw.env,
                &mut lw.poisoned,
                &mut errors,
                name,
                Sym {
                    val,
                    kind: Kind::Let,
                },
            ),
            Err(e) => {
                report(&mut errors, e);
                lw.poisoned.insert(name.to_string());
            }
        }
    }

    // The Lagrangian: `lagrangian`, or `kinetic − potential`.
    let scalar = |lw: &mut Lowerer, e: &Expr, what: &str, errors: &mut Errors| -> Option<Id> {
        match lw.lower(e, Scope::Any) {
            Ok(Val::S(x)) => Some(x),
            Ok(other) => {
                errors.add(syn::Error::new_spanned(
                    e,
                    format!("{what} must be a scalar, found {}", other.shape()),
                ));
                None
            }
            Err(e) => {
                report(errors, e);
                None
            }
        }
    };
    let lagrangian = match (&ast.lagrangian, &ast.kinetic, &ast.potential) {
        (Some((span, e)), None, None) => {
            scalar(&mut lw, e, "the Lagrangian", &mut errors).map(|l| (l, *span))
        }
        (Some((span, _)), _, _) => {
            errors.push(
                *span,
                "declare either `lagrangian` or `kinetic` and `potential`, not both",
            );
            None
        }
        (None, Some((span, t)), v) => {
            let t = scalar(&mut lw, t, "the kinetic energy", &mut errors);
            let v = match v {
                Some((_, v)) => scalar(&mut lw, v, "the potential energy", &mut errors),
                None => Some(lw.g.zero()),
            };
            t.zip(v).map(|(t, v)| (lw.g.sub(t, v), *span))
        }
        (None, None, Some((span, _))) => {
            errors.push(
                *span,
                "a `potential` needs a `kinetic` energy beside it; add `kinetic = ...;`, or declare \
                 `lagrangian = ...;` instead of both",
            );
            None
        }
        (None, None, None) => {
            errors.push(
                model.name.span(),
                "the model declares no `kinetic` energy or `lagrangian`; add `kinetic = ...;` \
                 (with an optional `potential = ...;`) or `lagrangian = ...;`",
            );
            None
        }
    };
    if model.q.is_empty() && !declares_coords {
        errors.push(
            model.name.span(),
            "the model declares no coordinates; add `coords { name: Vec3 }`",
        );
    }

    // Holonomic constraints: positions only; vector-valued ones give one per component.
    let mut constraints = Vec::new();
    for (name, e) in &ast.holonomic {
        let label = name.to_string();
        match lw.lower(e, Scope::Positions(&label)) {
            Ok(Val::S(x)) => constraints.push(Constraint {
                name: label,
                expr: x,
                span: name.span(),
            }),
            Ok(Val::V(xs)) => {
                for (k, x) in xs.into_iter().enumerate() {
                    let comp = ["x", "y", "z"]
                        .get(k)
                        .map_or_else(|| k.to_string(), |s| (*s).to_string());
                    constraints.push(Constraint {
                        name: format!("{label}.{comp}"),
                        expr: x,
                        span: name.span(),
                    });
                }
            }
            Ok(other) => errors.add(syn::Error::new_spanned(
                e,
                format!(
                    "a constraint is a scalar or a vector, found {}",
                    other.shape()
                ),
            )),
            Err(e) => report(&mut errors, e),
        }
    }

    // Momentum maps: `rotation(axis)` or `translation(axis)` with a constant axis.
    let mut momenta = Vec::new();
    for (name, e) in &ast.momentum {
        match symmetry(&mut lw, e) {
            Ok(symmetry) => momenta.push(Momentum {
                name: name.clone(),
                symmetry,
            }),
            Err(e) => report(&mut errors, e),
        }
    }

    let mut schemes = Vec::new();
    for s in &ast.schemes {
        match SchemeKind::from_name(&s.to_string()) {
            Some(kind) => schemes.push(SchemeRequest {
                kind,
                span: s.span(),
            }),
            None => errors.push(
                s.span(),
                format!(
                    "unknown scheme `{s}`; available schemes: {}",
                    SchemeKind::names().join(", ")
                ),
            ),
        }
    }

    errors.finish()?;
    let Some((lagrangian, span)) = lagrangian else {
        return Err(syn::Error::new(model.name.span(), "no Lagrangian"));
    };
    model.lagrangian = lagrangian;
    model.lagrangian_span = span;
    model.constraints = constraints;
    model.momenta = momenta;
    model.schemes = schemes;
    // V(q) = −L(q, 0).
    let zero = model.graph.zero();
    let map = model.v.iter().map(|&v| (v, zero)).collect();
    let l0 = model.graph.substitute(&[lagrangian], &map)[0];
    model.potential = model.graph.neg(l0);
    Ok(model)
}

fn symmetry(lw: &mut Lowerer, e: &Expr) -> R<Symmetry> {
    const EXPECTED: &str =
        "expected `rotation(axis)` or `translation(axis)` with a constant axis such as `e3`";
    let Expr::Call(c) = e else {
        return Err(syn::Error::new_spanned(e, EXPECTED));
    };
    let name = match &*c.func {
        Expr::Path(p) => p
            .path
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default(),
        _ => String::new(),
    };
    if c.args.len() != 1 || !(name == "rotation" || name == "translation") {
        return Err(syn::Error::new_spanned(e, EXPECTED));
    }
    let axis_expr = &c.args[0];
    let scope = Scope::Constant(
        "a symmetry axis must be constant",
        "use a constant 3-vector such as `e3` or `vec3(0.0, 0.0, 1.0)`",
    );
    let axis = match lw.lower(axis_expr, scope)? {
        Val::V(v) if v.len() == 3 => v,
        other => {
            return Err(syn::Error::new_spanned(
                axis_expr,
                format!(
                    "a symmetry axis is a 3-vector such as `e3`, found {}",
                    other.shape()
                ),
            ))
        }
    };
    let mut a = [0.0; 3];
    for (k, x) in axis.into_iter().enumerate() {
        a[k] = lw.g.as_const(x).ok_or_else(|| {
            syn::Error::new_spanned(axis_expr, "a symmetry axis must be constant")
        })?;
    }
    Ok(if name == "rotation" {
        Symmetry::Rotation(a)
    } else {
        Symmetry::Translation(a)
    })
}
