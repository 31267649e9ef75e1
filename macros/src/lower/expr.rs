//! Lowering of the DSL's expressions (vector notation) to scalar graph nodes, with
//! shape checking and scope rules. Every error points at the user's token.
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{BinOp, Expr, ExprForLoop, Ident, Lit, Member, UnOp};

use super::names::{Kind, Names, POISONED};
use super::value::{element_kind, Val};
use crate::ir::{Role, Symmetry};
use crate::quaternion::{self, cross};
use crate::suggest::{closest, did_you_mean};
use crate::sym::{Func, Graph, Id, VarId};

/// Largest number of terms of a `sum` or members of a constraint family, and of
/// elements of a coordinate array: far beyond any model whose step equations fit the
/// schemes' budget, and small enough that a typo (`0..100000000`) fails at once
/// instead of expanding for minutes.
pub const MAX_REPEAT: i64 = 10_000;

/// What an index may be made of, for messages.
const INDEX_RULE: &str = "an index is computed at compile time from integer literals and \
    the variables of the enclosing `sum(i in ..)` or `for i in ..`, with + - * %";

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
    /// The declared invariants that depend on the velocities (`omega(q, q_dot)`), which
    /// count as velocities wherever only positions are allowed.
    pub velocity_invariants: Vec<VarId>,
    /// The time variable, while lowering the `forces` block (the only place `t` means
    /// something).
    pub time: Option<Id>,
    /// The kinetic energy as written, once lowered (`kinetic = …`).
    pub kinetic: Option<Id>,
    /// The variables of the enclosing `sum`s and `for`s and their current values,
    /// innermost last.
    pub indices: Vec<(String, i64)>,
    /// The lengths of the enclosing `sum`s and `for`s, innermost last: their product is
    /// how many times the current family is expanded.
    pub extents: Vec<i64>,
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
        let name = syn::ext::IdentExt::unraw(id).to_string();
        let Some(sym) = self.names.env.get(&name) else {
            if self.names.poisoned.contains(&name) {
                return err(id.span(), POISONED);
            }
            if let Scope::Constant(what, hint) = scope {
                // Parameter defaults are lowered before anything is declared.
                return err(id.span(), format!("{what}, but mentions `{name}`; {hint}"));
            }
            if name == "t" {
                if let Some(time) = self.time {
                    return Ok(Val::S(time));
                }
                // error: time `t` is available only in `forces` ...
                return err(
                    id.span(),
                    format!(
                        "time `t` is available only in `forces` (generalized forces F(q, v, t)); \
                         the energies and constraints of a model do not depend on time; {}",
                        self.names.declared()
                    ),
                );
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
        if sym.kind == Kind::Input && self.time.is_none() {
            // error: the input `u` is read only by `forces` ...
            return err(
                id.span(),
                format!(
                    "the input `{name}` is read only by `forces` (generalized forces \
                     F(q, v, t, u)): the Lagrangian, constraints, invariants and observables \
                     of a model do not depend on its inputs"
                ),
            );
        }
        match (scope, sym.kind) {
            (Scope::Positions { what, rule }, Kind::Velocity) => err(
                id.span(),
                format!("{what} mentions the velocity `{name}`; {rule}"),
            ),
            (Scope::Positions { what, rule }, Kind::Let | Kind::Invariant)
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
        val.ids().iter().any(|&x| {
            self.g.depends_on_any(x, |v| {
                self.velocities.contains(&v) || self.velocity_invariants.contains(&v)
            })
        })
    }

    /// `val`, unless one of its entries is an operation on constants that did not fold
    /// to a finite number (`1e300 * 1e300`, `sqrt(-1.0)`, `ln(0.0)`): generated code
    /// would compute an infinity or a NaN there at every call.
    fn finite(&self, val: Val, span: proc_macro2::Span) -> R<Val> {
        let ids = val.ids();
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
    /// A finite number (the literal's value; [`literal_form`] has checked how it is written).
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
                Lit::Float(f) => {
                    literal_form(&f.to_string(), f.suffix(), f.base10_digits(), f.span())?;
                    self.number(f.base10_parse::<f64>()?, f.span())
                }
                Lit::Int(i) => {
                    literal_form(&i.to_string(), i.suffix(), i.base10_digits(), i.span())?;
                    self.number(i.base10_parse::<f64>()?, i.span())
                }
                other => err(
                    l.span(),
                    format!(
                        "expected a number such as `1.0`, found `{}`",
                        quote::ToTokens::to_token_stream(other)
                    ),
                ),
            },
            Expr::Path(p) => self.path(p, scope),
            Expr::Paren(p) => self.lower(&p.expr, scope),
            Expr::Group(g) => self.lower(&g.expr, scope),
            Expr::Unary(u) => match u.op {
                UnOp::Neg(_) => {
                    let v = self.lower(&u.expr, scope)?;
                    Ok(self.map(v, &|g, x| g.neg(x)))
                }
                _ => err(u.op.span(), "only unary `-` is supported"),
            },
            Expr::Binary(_) => self.binary_chain(e, scope),
            Expr::Call(c) => self.function_call(c, scope),
            Expr::MethodCall(m) => {
                let mut args = vec![self.lower(&m.receiver, scope)?];
                for a in &m.args {
                    args.push(self.lower(a, scope)?);
                }
                let int_arg = m.args.first();
                let val = self.call(&m.method, args, int_arg, m.span())?;
                self.finite(val, m.span())
            }
            Expr::Field(f) => self.field(f, scope),
            Expr::Index(i) => {
                // An array is a value only here, where the index takes it apart.
                let (v, name) = match &*i.expr {
                    Expr::Path(p) => match p.path.get_ident() {
                        Some(id) if self.index_value(id).is_none() => {
                            (self.lookup(id, scope)?, Some(id))
                        }
                        _ => (self.lower(&i.expr, scope)?, None),
                    },
                    base => (self.lower(base, scope)?, None),
                };
                let k = self.index(&i.index)?;
                self.element(v, k, name, &i.index)
            }
            Expr::ForLoop(f) => err(
                f.for_token.span,
                "a `for` family is an entry of `holonomic` (`link: for i in 1..10 { ... }`, \
                 one constraint per index); to add terms, write `sum(i in 0..10, ...)`",
            ),
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
    /// A name: an index variable's value, or the value the name is bound to (never a
    /// whole array).
    fn path(&mut self, p: &syn::ExprPath, scope: Scope) -> R<Val> {
        match p.path.get_ident() {
            Some(id) => {
                if let Some(k) = self.index_value(id) {
                    // The variable of an enclosing `sum` or `for`, as a number.
                    #[allow(clippy::cast_precision_loss)]
                    return Ok(Val::S(self.g.constant(k as f64)));
                }
                match self.lookup(id, scope)? {
                    // error: `r` is an array of 10 3-vectors; use one element …
                    Val::A(items) => err(
                        id.span(),
                        format!(
                            "`{id}` is an array of {} {}; use one element, `{id}[0]` to \
                             `{id}[{}]`, or add them with `sum(i in 0..{}, ... {id}[i] ...)`",
                            items.len(),
                            element_kind(&items),
                            items.len().saturating_sub(1),
                            items.len()
                        ),
                    ),
                    val => Ok(val),
                }
            }
            None => err(p.span(), "expected a single name"),
        }
    }

    /// A function call `f(args)`; `sum` takes its family unlowered.
    fn function_call(&mut self, c: &syn::ExprCall, scope: Scope) -> R<Val> {
        let Expr::Path(p) = &*c.func else {
            return err(c.func.span(), "expected a function name");
        };
        let Some(f) = p.path.get_ident() else {
            return err(p.span(), "expected a function name");
        };
        if f == "sum" {
            return match c.args.first() {
                Some(Expr::ForLoop(family)) if c.args.len() == 1 => self.sum(family, scope),
                _ => err(c.span(), SUM_FORM),
            };
        }
        let args = c
            .args
            .iter()
            .map(|a| self.lower(a, scope))
            .collect::<R<Vec<_>>>()?;
        let int_arg = c.args.iter().nth(1);
        let val = self.call(f, args, int_arg, c.span())?;
        self.finite(val, c.span())
    }

    /// A component `v.x`, `v.y`, `v.z` or `v.0`.
    fn field(&mut self, f: &syn::ExprField, scope: Scope) -> R<Val> {
        let v = self.lower(&f.base, scope)?;
        let idx = match &f.member {
            Member::Named(n) => match n.to_string().as_str() {
                "x" => 0,
                "y" => 1,
                "z" => 2,
                // The heading of an `SE2` coordinate, stored `(x, y, θ)`.
                "theta" => 2,
                other => {
                    return err(
                        n.span(),
                        format!(
                        "unknown component `.{other}`; use .x, .y, .z (.theta of an SE2) or [i]"
                    ),
                    )
                }
            },
            Member::Unnamed(i) => i.index as usize,
        };
        self.component(v, idx, f.member.span())
    }

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

    /// The value of the variable `id` of an enclosing `sum` or `for`.
    fn index_value(&self, id: &Ident) -> Option<i64> {
        self.indices
            .iter()
            .rev()
            .find(|(name, _)| id == name)
            .map(|&(_, k)| k)
    }

    /// `" at i = 3, j = 4"`: the values of the enclosing indices, for messages about
    /// one term of a `sum` or member of a family.
    fn at(&self) -> String {
        if self.indices.is_empty() {
            return String::new();
        }
        let values: Vec<String> = self
            .indices
            .iter()
            .map(|(name, k)| format!("{name} = {k}"))
            .collect();
        format!(" (at {})", values.join(", "))
    }

    /// An index, evaluated now: integer literals and the variables of the enclosing
    /// `sum`s and `for`s with `+ - * %`.
    pub fn index(&self, e: &Expr) -> R<i64> {
        let overflow = |span: Span| syn::Error::new(span, "this index overflows a 64-bit integer");
        match e {
            Expr::Lit(l) => match &l.lit {
                Lit::Int(i) => i.base10_parse::<i64>().map_err(|_| overflow(i.span())),
                // error: an index is an integer, found `1.0`; write `1` …
                Lit::Float(f) => {
                    let hint = match f.base10_parse::<f64>() {
                        #[allow(clippy::cast_possible_truncation)]
                        Ok(x) if x.fract() == 0.0 && x.abs() < 1e15 => {
                            format!("; write `{}`", x as i64)
                        }
                        _ => String::new(),
                    };
                    err(
                        f.span(),
                        format!("an index is an integer, found `{f}`{hint}"),
                    )
                }
                other => err(
                    l.span(),
                    format!(
                        "an index is an integer, found `{}`",
                        quote::ToTokens::to_token_stream(other)
                    ),
                ),
            },
            Expr::Path(p) => {
                let Some(id) = p.path.get_ident() else {
                    return err(p.span(), format!("expected an index; {INDEX_RULE}"));
                };
                if let Some(k) = self.index_value(id) {
                    return Ok(k);
                }
                let name = syn::ext::IdentExt::unraw(id).to_string();
                let what = match self.names.env.get(&name).map(|s| s.kind) {
                    Some(Kind::Param) => format!("`{name}` is a parameter, not an index"),
                    Some(Kind::Coord) => format!("`{name}` is a coordinate, not an index"),
                    Some(Kind::Velocity) => format!("`{name}` is a velocity, not an index"),
                    Some(Kind::Let) => format!("`{name}` is a `let`, not an index"),
                    Some(Kind::Invariant) => format!("`{name}` is an invariant, not an index"),
                    Some(Kind::Builtin) => format!("`{name}` is a built-in, not an index"),
                    Some(Kind::Input) => format!("`{name}` is an input, not an index"),
                    None if self.names.poisoned.contains(&name) => return err(id.span(), POISONED),
                    None if self.indices.is_empty() => format!(
                        "unknown index `{name}`: no enclosing `sum(i in ..)` or `for i in ..` \
                         declares it"
                    ),
                    None => {
                        let bound = self.indices.iter().map(|(n, _)| n.as_str());
                        format!(
                            "unknown index `{name}`{}",
                            did_you_mean(closest(&name, bound))
                        )
                    }
                };
                err(id.span(), format!("{what}; {INDEX_RULE}"))
            }
            Expr::Paren(p) => self.index(&p.expr),
            Expr::Group(g) => self.index(&g.expr),
            Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => self
                .index(&u.expr)?
                .checked_neg()
                .ok_or_else(|| overflow(u.span())),
            Expr::Binary(b) => {
                let (l, r) = (self.index(&b.left)?, self.index(&b.right)?);
                let value = match b.op {
                    BinOp::Add(_) => l.checked_add(r),
                    BinOp::Sub(_) => l.checked_sub(r),
                    BinOp::Mul(_) => l.checked_mul(r),
                    BinOp::Rem(_) if r == 0 => {
                        return err(b.right.span(), format!("remainder by zero{}", self.at()))
                    }
                    BinOp::Rem(_) => l.checked_rem_euclid(r),
                    _ => {
                        return err(
                            b.op.span(),
                            format!("indices support + - * % only; {INDEX_RULE}"),
                        )
                    }
                };
                value.ok_or_else(|| overflow(b.op.span()))
            }
            other => err(other.span(), format!("expected an index; {INDEX_RULE}")),
        }
    }

    /// Element `k` of an array, or component `k` of a vector.
    fn element(&self, v: Val, k: i64, name: Option<&Ident>, index_expr: &Expr) -> R<Val> {
        // The whole index, `i + 1`, not only its first token.
        let err = |msg: String| Err(syn::Error::new_spanned(index_expr, msg));
        let index = format!("index {k}{}", self.at());
        let hint = if self.indices.is_empty() {
            ""
        } else {
            "; check the range of the enclosing `sum` or `for` against the index"
        };
        let name = name.map_or_else(String::new, |n| format!("`{n}`, "));
        match v {
            Val::A(items) => match usize::try_from(k).ok().and_then(|k| items.get(k)) {
                Some(item) => Ok(item.clone()),
                // error: index 10 (at i = 9) is out of range for `r`, an array of 10 …
                None => err(format!(
                    "{index} is out of range for {name}an array of {} {} with indices 0 \
                         to {}{hint}",
                    items.len(),
                    element_kind(&items),
                    items.len().saturating_sub(1)
                )),
            },
            Val::V(items) => match usize::try_from(k).ok().and_then(|k| items.get(k)) {
                Some(&x) => Ok(Val::S(x)),
                None => err(format!(
                    "{index} is out of range for {name}a {}-vector with components 0 to \
                         {} (or .x .y .z){hint}",
                    items.len(),
                    items.len().saturating_sub(1)
                )),
            },
            other => err(format!(
                "cannot index {name}{}: only arrays of coordinates (declared \
                     `r: [Vec3; 10]`, used as `r[i]`) and vectors (`v[2]`) have elements",
                other.shape()
            )),
        }
    }

    /// The variable, range and body of `for i in a..b { body }` (also the form of
    /// `sum(i in a..b, body)`), after checking them. A range whose emptiness does not
    /// depend on an enclosing index is an error; inside a `sum` or `for`, an empty
    /// range has no terms (`sum(j in i + 1..n, ...)` at `i = n - 1`).
    pub fn family<'e>(&self, f: &'e ExprForLoop) -> R<(String, std::ops::Range<i64>, &'e Expr)> {
        if let Some(label) = &f.label {
            return err(label.name.span(), "a `sum` or `for` family takes no label");
        }
        let var = match &*f.pat {
            syn::Pat::Ident(p)
                if p.by_ref.is_none() && p.mutability.is_none() && p.subpat.is_none() =>
            {
                &p.ident
            }
            pat => {
                return err(
                    pat.span(),
                    "the index of a `sum` or `for` is a plain name such as `i`",
                )
            }
        };
        let name = syn::ext::IdentExt::unraw(var).to_string();
        // error: the index `m` shadows the parameter `m` …
        let shadowed = match self.names.env.get(&name).map(|s| s.kind) {
            _ if self.index_value(var).is_some() => {
                Some("the index of an enclosing `sum` or `for`")
            }
            Some(Kind::Param) => Some("the parameter"),
            Some(Kind::Coord) => Some("the coordinate"),
            Some(Kind::Velocity) => Some("the velocity"),
            Some(Kind::Let) => Some("the `let`"),
            Some(Kind::Invariant) => Some("the invariant"),
            Some(Kind::Builtin) => Some("the built-in"),
            Some(Kind::Input) => Some("the input"),
            None if self.names.poisoned.contains(&name) => Some("the declaration"),
            None => None,
        };
        if let Some(what) = shadowed {
            return err(
                var.span(),
                format!(
                    "the index `{name}` shadows {what} `{name}`; choose a name the model does \
                     not declare, such as `i`, `j` or `k`"
                ),
            );
        }
        let range = self.range(&f.expr)?;
        if range.is_empty() && self.indices.is_empty() {
            // The range as written: `0..=-1` is empty, not `0..0`.
            let written = quote::ToTokens::to_token_stream(&f.expr)
                .to_string()
                .replace(' ', "");
            let hint = if written.contains("..=") {
                "the end of `..=` is inclusive (`0..=9` is 0 to 9)"
            } else {
                "the end is exclusive (`0..10` is 0 to 9)"
            };
            // error: the range 5..5 is empty …
            return Err(syn::Error::new_spanned(
                &f.expr,
                format!(
                    "the range {written} is empty: it has no indices, so the `sum` or family \
                     would have no terms; {hint}"
                ),
            ));
        }
        let len = range.end.saturating_sub(range.start);
        let expanded = self
            .extents
            .iter()
            .fold(len.max(0), |n, &e| n.saturating_mul(e));
        if len <= MAX_REPEAT && expanded > MAX_REPEAT {
            // error: nested repetitions expand to 100000000 terms …
            return Err(syn::Error::new_spanned(
                &f.expr,
                format!(
                    "this repetition inside {} enclosing `sum` or `for` expands {expanded} \
                     times in all, more than {MAX_REPEAT}; a model this large is beyond \
                     what the schemes can expand",
                    self.extents.len()
                ),
            ));
        }
        if len > MAX_REPEAT {
            return Err(syn::Error::new_spanned(
                &f.expr,
                format!(
                    "the range {}..{} has more than {MAX_REPEAT} indices; a model this large \
                     is beyond what the schemes can expand",
                    range.start, range.end
                ),
            ));
        }
        match f.body.stmts.as_slice() {
            [syn::Stmt::Expr(body, None)] => Ok((name, range, body)),
            _ => err(
                f.body.brace_token.span.join(),
                "the body of a `sum` or `for` family is one expression, without `;`",
            ),
        }
    }

    /// `a..b` or `a..=b`, as a half-open range.
    fn range(&self, e: &Expr) -> R<std::ops::Range<i64>> {
        let expected = "expected a range of indices such as `0..10` (0 to 9) or `1..=9`";
        match e {
            Expr::Paren(p) => self.range(&p.expr),
            Expr::Group(g) => self.range(&g.expr),
            Expr::Range(r) => {
                let (Some(start), Some(end)) = (&r.start, &r.end) else {
                    return err(
                        r.span(),
                        format!("{expected}; a range of indices has both ends"),
                    );
                };
                let (start, end) = (self.index(start)?, self.index(end)?);
                let end = match r.limits {
                    syn::RangeLimits::HalfOpen(_) => end,
                    syn::RangeLimits::Closed(_) => end.checked_add(1).ok_or_else(|| {
                        syn::Error::new(r.span(), "this index overflows a 64-bit integer")
                    })?,
                };
                Ok(start..end)
            }
            other => err(other.span(), expected),
        }
    }

    /// `sum(i in a..b, body)`: the terms, added (an empty inner sum is 0).
    fn sum(&mut self, f: &ExprForLoop, scope: Scope) -> R<Val> {
        let (var, range, body) = self.family(f)?;
        let mut terms = Vec::new();
        self.extents.push(range.end - range.start);
        for k in range {
            self.indices.push((var.clone(), k));
            let term = self.lower(body, scope);
            self.indices.pop();
            match term {
                Ok(term) => terms.push((k, term)),
                Err(e) => {
                    self.extents.pop();
                    return Err(e);
                }
            }
        }
        self.extents.pop();
        let Some((k0, first)) = terms.first() else {
            return Ok(Val::S(self.g.zero()));
        };
        let mut acc = first.ids();
        let shape = first.shape();
        let mut columns: Vec<Vec<Id>> = acc.iter().map(|&x| vec![x]).collect();
        for (k, term) in &terms[1..] {
            let ids = term.ids();
            if term.shape() != shape || ids.len() != columns.len() {
                // error: the terms of this sum have different shapes …
                return err(
                    body.span(),
                    format!(
                        "the terms of this sum have different shapes: {shape} at {var} = {k0}, \
                         {} at {var} = {k}",
                        term.shape()
                    ),
                );
            }
            for (column, x) in columns.iter_mut().zip(ids) {
                column.push(x);
            }
        }
        acc.clear();
        for column in columns {
            acc.push(self.g.sum(column));
        }
        Ok(match first {
            Val::S(_) => Val::S(acc[0]),
            Val::V(_) => Val::V(acc),
            Val::M(r, c, _) => Val::M(*r, *c, acc),
            Val::A(_) => return err(body.span(), "a sum adds scalars, vectors or matrices"),
        })
    }

    fn component(&self, v: Val, idx: usize, span: Span) -> R<Val> {
        match v {
            Val::V(items) if idx < items.len() => Ok(Val::S(items[idx])),
            other => err(span, format!("component {idx} of {}", other.shape())),
        }
    }

    fn map(&mut self, v: Val, f: &impl Fn(&mut Graph, Id) -> Id) -> Val {
        match v {
            Val::S(x) => Val::S(f(self.g, x)),
            Val::V(xs) => Val::V(xs.into_iter().map(|x| f(self.g, x)).collect()),
            Val::M(r, c, xs) => Val::M(r, c, xs.into_iter().map(|x| f(self.g, x)).collect()),
            Val::A(items) => Val::A(items.into_iter().map(|v| self.map(v, f)).collect()),
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
                Val::S(d) => Ok(self.map(l, &|g, x| g.div(x, d))),
                r => err(span, format!("cannot divide by {}", r.shape())),
            },
            _ => err(span, "only + - * / are supported; use .powi(n) for powers"),
        }
    }

    fn mul(&mut self, l: Val, r: Val, span: Span) -> R<Val> {
        match (l, r) {
            (Val::S(a), r) => Ok(self.map(r, &|g, x| g.mul(a, x))),
            (l, Val::S(b)) => Ok(self.map(l, &|g, x| g.mul(x, b))),
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
            "sum" => err(span, SUM_FORM),
            "powi" => {
                arity(2)?;
                let x = scalar(&args[0])?;
                let n = powi_exponent(int_arg, span)?;
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
                // An empty vector would make a constraint or observable of no
                // components, which vanished without a word.
                if items.is_empty() {
                    return err(
                        span,
                        "`vector()` has no components; a vector needs at least one, e.g. \
                         `vector(x, y)`",
                    );
                }
                Ok(Val::V(items))
            }
            "diag" => {
                let items = args.iter().map(scalar).collect::<R<Vec<_>>>()?;
                Ok(diag(self.g, items))
            }
            "min" | "max" => {
                // A kink, not a smooth function: for loads switched on and off in time
                // (`max(0.0, min(t, 1.0 - t))`), whose derivative in `t` no step needs.
                arity(2)?;
                let (a, b) = (scalar(&args[0])?, scalar(&args[1])?);
                Ok(Val::S(if name == "min" {
                    self.g.select_lt(a, b, a, b)
                } else {
                    self.g.select_lt(a, b, b, a)
                }))
            }
            "transpose" => {
                arity(1)?;
                transpose(&args[0], span)
            }
            _ if QUATERNION_FUNCTIONS.contains(&name.as_str()) => {
                self.quaternion_call(&name, &args, span)
            }
            _ => unknown_function(f),
        }
    }
}

/// `diag(a, b, …)`: the square matrix with those entries on its diagonal.
fn diag(g: &mut Graph, items: Vec<Id>) -> Val {
    let n = items.len();
    let mut m = vec![g.zero(); n * n];
    for (i, x) in items.into_iter().enumerate() {
        m[i * n + i] = x;
    }
    Val::M(n, n, m)
}

/// `transpose(m)` of a matrix (stored by rows); anything else is an error at `span`.
fn transpose(arg: &Val, span: Span) -> R<Val> {
    match arg {
        Val::M(r, c, m) => Ok(Val::M(
            *c,
            *r,
            (0..r * c).map(|k| m[(k % r) * c + k / r]).collect(),
        )),
        other => err(
            span,
            format!("`transpose` expects a matrix, found {}", other.shape()),
        ),
    }
}

/// The quaternion helpers of the Livens paper (spec 001 §1.5–1.6), on 4-vectors
/// `(q₀, q⃗)`: `G(q)`, `E(q)` (3 × 4, eq. (35)), `Ql(q)`, `Qr(q)` (4 × 4, eq. (33)), `R(q)`
/// (eq. (50)), `rotate(q, x) = R(q) x`, `omega(q, v) = 2 G(q) v` (convected angular
/// velocity, eq. (43)), `omega_spatial(q, v) = 2 E(q) v`, `quat_mul(a, b) = a∘b` (28),
/// `torque(q, tau) = 2 E(q)ᵀ τ`, the generalized force of a spatial torque `τ` (its power
/// `τ·ω` with `ω = 2 E(q) q̇`, eq. (128)).
const QUATERNION_FUNCTIONS: [&str; 10] = [
    "G",
    "E",
    "Ql",
    "Qr",
    "R",
    "rotate",
    "omega",
    "omega_spatial",
    "quat_mul",
    "torque",
];

impl Lowerer<'_> {
    /// One of [`QUATERNION_FUNCTIONS`].
    fn quaternion_call(&mut self, name: &str, args: &[Val], span: Span) -> R<Val> {
        let unary = matches!(name, "G" | "E" | "Ql" | "Qr" | "R");
        let arity = if unary { 1 } else { 2 };
        if args.len() != arity {
            return err(
                span,
                format!("`{name}` takes {arity} argument(s), found {}", args.len()),
            );
        }
        let vector = |k: usize, len: usize, what: &str| match &args[k] {
            Val::V(x) if x.len() == len => Ok(x.clone()),
            other => err(
                span,
                format!(
                    "`{name}` expects {what} (a {len}-vector) as argument {}, found {}",
                    k + 1,
                    other.shape()
                ),
            ),
        };
        let quat = |k: usize| vector(k, 4, "a quaternion");
        let g = &mut *self.g;
        Ok(match name {
            "G" => Val::M(3, 4, quaternion::g_matrix(g, &quat(0)?)),
            "E" => Val::M(3, 4, quaternion::e_matrix(g, &quat(0)?)),
            "Ql" => Val::M(4, 4, quaternion::left_matrix(g, &quat(0)?)),
            "Qr" => Val::M(4, 4, quaternion::right_matrix(g, &quat(0)?)),
            "R" => Val::M(3, 3, quaternion::rotation_matrix(g, &quat(0)?)),
            "rotate" => {
                let (q, x) = (quat(0)?, vector(1, 3, "a vector")?);
                let r = quaternion::rotation_matrix(g, &q);
                Val::V(quaternion::mat_vec(g, &r, &x))
            }
            "torque" => {
                let (q, tau) = (quat(0)?, vector(1, 3, "a torque")?);
                let e = quaternion::e_matrix(g, &q);
                let two = g.constant(2.0);
                let f = quaternion::mat_t_vec(g, &e, &tau);
                Val::V(f.into_iter().map(|x| g.mul(two, x)).collect())
            }
            "omega" | "omega_spatial" => {
                let (q, v) = (quat(0)?, vector(1, 4, "a quaternion velocity")?);
                let spatial = name == "omega_spatial";
                Val::V(quaternion::angular_velocity(g, &q, &v, spatial))
            }
            _ => Val::V(quaternion::product(g, &quat(0)?, &quat(1)?)),
        })
    }
}

/// How `sum` is written, for messages.
const SUM_FORM: &str = "`sum` is written `sum(i in 0..10, expression)`: an index, a range \
    and the expression to add for each index";

/// Largest `|n|` of `powi(n)` a model may write: enough for any physical law, and far
/// from the overflow of the degree analysis and of differentiation.
const MAX_POWI: u32 = 1024;

/// The exponent of `powi(x, n)`: an integer literal within `MAX_POWI`.
fn powi_exponent(int_arg: Option<&Expr>, span: Span) -> R<i32> {
    let n = int_arg.map(int_literal).transpose()?.unwrap_or(0);
    i32::try_from(n)
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
        })
}

/// The error of a call to a function the DSL lacks, with the closest name and every
/// available one.
fn unknown_function<T>(f: &Ident) -> R<T> {
    let name = f.to_string();
    let builtins = [
        "sum",
        "dot",
        "cross",
        "norm",
        "norm_squared",
        "vec3",
        "vector",
        "diag",
        "powi",
        "min",
        "max",
        "transpose",
    ];
    let all: Vec<&str> = builtins
        .into_iter()
        .chain(QUATERNION_FUNCTIONS)
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

/// A number in a model is an `f64` written in decimal, without a suffix: the generated
/// code converts every constant to the model's scalar type, so `1.0f32` would not be an
/// `f32` and `1u8` not an integer, and `0x10` reads as 16 where the user may have meant
/// something else. A literal whose digits are not all zero must not round to zero
/// (`1e-400`).
fn literal_form(text: &str, suffix: &str, digits: &str, span: proc_macro2::Span) -> R<()> {
    if !suffix.is_empty() {
        // error: the number `1.0f32` has a type suffix …
        return err(
            span,
            format!(
                "the number `{text}` has a type suffix `{suffix}`; numbers in a model are \
                 written without one (`{digits}`): every constant is converted to the \
                 scalar type the model is used with"
            ),
        );
    }
    let lower = text.to_ascii_lowercase();
    if ["0x", "0o", "0b"].iter().any(|p| lower.starts_with(p)) {
        return err(
            span,
            format!("the number `{text}` is not decimal; write it in decimal (`{digits}`)"),
        );
    }
    let mantissa = digits.split(['e', 'E']).next().unwrap_or(digits);
    let nonzero = mantissa.chars().any(|c| ('1'..='9').contains(&c));
    if nonzero && digits.parse::<f64>().is_ok_and(|x| x == 0.0) {
        return err(
            span,
            format!(
                "the number `{text}` is below the smallest f64 (about 4.9e-324) and would \
                 become 0; rescale the model's units"
            ),
        );
    }
    Ok(())
}
