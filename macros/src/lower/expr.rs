//! Lowering of the DSL's expressions (vector notation) to scalar graph nodes, with
//! shape checking and scope rules. Every error points at the user's token.
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{BinOp, Expr, Ident, Lit, Member, UnOp};

use super::names::{closest, did_you_mean, Kind, Names, POISONED};
use crate::ir::{Role, Symmetry};
use crate::sym::{Func, Graph, Id, VarId};

/// A lowered value: a scalar, a vector or a (row-major) matrix of graph nodes.
#[derive(Clone, Debug)]
pub enum Val {
    S(Id),
    V(Vec<Id>),
    M(usize, usize, Vec<Id>),
}

impl Val {
    pub fn shape(&self) -> String {
        match self {
            Val::S(_) => "a scalar".into(),
            Val::V(v) => format!("a {}-vector", v.len()),
            Val::M(r, c, _) => format!("a {r}×{c} matrix"),
        }
    }
}

/// What an expression may refer to.
#[derive(Clone, Copy)]
pub enum Scope<'a> {
    /// Anything declared (energies, lets).
    Any,
    /// Positions and parameters only: what is being lowered (for messages, e.g.
    /// "holonomic constraint `c`") and the rule it breaks when it mentions a velocity.
    Positions { what: &'a str, rule: &'a str },
    /// Numbers only (parameter defaults, symmetry axes): the rule ("a symmetry axis must
    /// be constant") and a hint, for messages.
    Constant(&'a str, &'a str),
}

pub struct Lowerer<'a> {
    pub g: &'a mut Graph,
    /// The model's variable roles, for variables created while lowering (invariants).
    pub roles: &'a mut Vec<Role>,
    pub names: Names,
    /// The velocity variables, to catch velocities that reach a holonomic constraint
    /// through a `let`.
    pub velocities: Vec<VarId>,
}

pub type R<T> = syn::Result<T>;

fn err<T>(span: Span, msg: impl std::fmt::Display) -> R<T> {
    Err(syn::Error::new(span, msg))
}

impl Lowerer<'_> {
    /// A fresh variable of the given role (see [`crate::ir::Model::new_var`]).
    pub fn new_var(&mut self, name: String, role: Role) -> (VarId, Id) {
        let (v, id) = self.g.new_var(name);
        debug_assert_eq!(v.0 as usize, self.roles.len());
        self.roles.push(role);
        (v, id)
    }

    fn lookup(&self, id: &Ident, scope: Scope) -> R<Val> {
        let name = id.to_string();
        let Some(sym) = self.names.env.get(&name) else {
            if self.names.poisoned.contains(&name) {
                return err(id.span(), POISONED);
            }
            if let Scope::Constant(what, hint) = scope {
                // Parameter defaults are lowered before anything is declared.
                return err(id.span(), format!("{what}, but mentions `{name}`; {hint}"));
            }
            // error: unknown symbol `gg` (did you mean `g`?); the model declares params [g, m], ...
            let suggestion = closest(&name, self.names.env.keys().map(String::as_str));
            return err(
                id.span(),
                format!(
                    "unknown symbol `{name}`{}; {}",
                    did_you_mean(suggestion),
                    self.names.declared()
                ),
            );
        };
        match (scope, sym.kind) {
            (Scope::Positions { what, rule }, Kind::Velocity) => err(
                id.span(),
                format!("{what} mentions the velocity `{name}`; {rule}"),
            ),
            (Scope::Positions { what, rule }, Kind::Let)
                if self.depends_on_velocities(&sym.val) =>
            {
                err(
                    id.span(),
                    format!("{what} mentions `{name}`, which depends on the velocities; {rule}"),
                )
            }
            (
                Scope::Constant(what, hint),
                Kind::Param | Kind::Coord | Kind::Velocity | Kind::Let,
            ) => {
                let kind = match sym.kind {
                    Kind::Param => "the parameter",
                    Kind::Coord => "the coordinate",
                    Kind::Velocity => "the velocity",
                    _ => "the `let`",
                };
                err(
                    id.span(),
                    format!("{what}, but mentions {kind} `{name}`; {hint}"),
                )
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

    /// `val`, unless one of its entries is an operation on constants that did not fold
    /// to a finite number (`1e300 * 1e300`, `sqrt(-1.0)`, `ln(0.0)`): generated code
    /// would compute an infinity or a NaN there at every call.
    fn finite(&self, val: Val, span: proc_macro2::Span) -> R<Val> {
        let ids = match &val {
            Val::S(x) => std::slice::from_ref(x),
            Val::V(xs) | Val::M(_, _, xs) => xs.as_slice(),
        };
        let unfolded = |&id: &Id| {
            let node = self.g.node(id);
            let mut children = node.children().peekable();
            children.peek().is_some() && children.all(|c| self.g.as_const(c).is_some())
        };
        if ids.iter().any(unfolded) {
            // error: this expression of constants is not a finite number …
            return err(
                span,
                "this expression of constants is not a finite number (it overflows f64, \
                 or is undefined: a square root or logarithm of a negative number, ln(0), \
                 a negative power of 0)",
            );
        }
        Ok(val)
    }

    /// A literal's value; one that overflows `f64` (`1e400`, a 400-digit integer) is an
    /// error here, since no later fold could make it finite.
    fn number(&mut self, x: f64, span: proc_macro2::Span) -> R<Val> {
        if x.is_finite() {
            Ok(Val::S(self.g.constant(x)))
        } else {
            // error: the number is too large for f64 …
            err(
                span,
                "the number is too large for f64 (its magnitude exceeds 1.8e308); \
                 rescale the model's units",
            )
        }
    }

    pub fn lower(&mut self, e: &Expr, scope: Scope) -> R<Val> {
        match e {
            Expr::Lit(l) => match &l.lit {
                Lit::Float(f) => self.number(f.base10_parse::<f64>()?, f.span()),
                Lit::Int(i) => self.number(i.base10_parse::<f64>()?, i.span()),
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
            Expr::Binary(_) => self.binary_chain(e, scope),
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
                let val = self.call(f, args, int_arg, c.span())?;
                self.finite(val, c.span())
            }
            Expr::MethodCall(m) => {
                let mut args = vec![self.lower(&m.receiver, scope)?];
                for a in &m.args {
                    args.push(self.lower(a, scope)?);
                }
                let int_arg = m.args.first();
                let val = self.call(&m.method, args, int_arg, m.span())?;
                self.finite(val, m.span())
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
                let idx = usize::try_from(int_literal(&i.index)?)
                    .map_err(|_| syn::Error::new(i.index.span(), "an index cannot be negative"))?;
                self.component(v, idx, i.index.span())
            }
            other => err(
                other.span(),
                "unsupported expression; use numbers, names, + - * /, function calls and .x/.y/.z",
            ),
        }
    }

    /// A binary expression, without recursion along its left operands: `a + b + c + …`
    /// parses as `((a + b) + c) + …`, as deep as it is long, and a potential of a few
    /// thousand terms overflowed the stack of a proc macro built without optimisation
    /// (a downstream crate's default). The right operands are lowered recursively (as
    /// deep as the user's parentheses).
    fn binary_chain(&mut self, e: &Expr, scope: Scope) -> R<Val> {
        let mut spine = Vec::new();
        let mut leftmost = e;
        while let Expr::Binary(b) = leftmost {
            spine.push(b);
            leftmost = &b.left;
        }
        let mut acc = self.lower(leftmost, scope)?;
        // `b.span()` would print the whole subexpression to find its first and last
        // token, at every level (quadratic in the chain, and recursive): join them.
        let first = leftmost.span();
        for b in spine.into_iter().rev() {
            let r = self.lower(&b.right, scope)?;
            if matches!(b.op, BinOp::Div(_)) && matches!(r, Val::S(d) if self.g.is_zero(d)) {
                return err(
                    b.right.span(),
                    "division by zero: the denominator is 0 (after simplification)",
                );
            }
            let val = self.binary(&b.op, acc, r)?;
            let span = first.join(b.right.span()).unwrap_or(first);
            acc = self.finite(val, span)?;
        }
        Ok(acc)
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
                // Also 0 / 0, which the simplifier would otherwise fold to 0.
                Val::S(d) if self.g.is_zero(d) => err(
                    span,
                    "division by zero: the denominator is 0 (after simplification)",
                ),
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
                let n = i32::try_from(n)
                    .ok()
                    .filter(|n| n.unsigned_abs() <= MAX_POWI)
                    .ok_or_else(|| {
                        // error: the exponent of `powi` must be in -1024..=1024 …
                        syn::Error::new(
                            int_arg.map_or(span, Spanned::span),
                            format!(
                                "the exponent of `powi` must be an integer in \
                                 -{MAX_POWI}..={MAX_POWI}"
                            ),
                        )
                    })?;
                Ok(Val::S(self.g.powi(x, n)))
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

/// Largest `|n|` of `powi(n)` a model may write: enough for any physical law, and far
/// from the overflow of the degree analysis and of differentiation.
const MAX_POWI: u32 = 1024;

/// An integer literal with its signs: every `-` flips it (`--2` is 2).
fn int_literal(e: &Expr) -> R<i64> {
    match e {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Int(i), ..
        }) => i.base10_parse::<i64>(),
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => int_literal(&u.expr)?
            .checked_neg()
            .ok_or_else(|| syn::Error::new(u.span(), "integer literal too large")),
        Expr::Paren(p) => int_literal(&p.expr),
        other => err(other.span(), "expected an integer literal"),
    }
}

pub fn symmetry(lw: &mut Lowerer, e: &Expr) -> R<Symmetry> {
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
