//! The names a model declares: the symbol table and declaration with its errors.
use std::collections::{HashMap, HashSet};

use syn::Ident;

use super::value::Val;
use crate::errors::Errors;
use crate::sym::Graph;

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Builtin,
    Param,
    Coord,
    Velocity,
    Let,
    Invariant,
    /// A control input of the `inputs` block, readable only in `forces`.
    Input,
}

pub struct Sym {
    pub val: Val,
    pub kind: Kind,
}

/// The message of an error that stands for one already reported (a use of a name whose
/// declaration failed); [`report`] drops it, so that one mistake gives one error.
pub const POISONED: &str = "livens: already reported";

/// Adds `e` to `errors`, without the follow-up errors of a failed declaration.
pub fn report(errors: &mut Errors, e: syn::Error) {
    for e in e {
        if e.to_string() != POISONED {
            errors.add(e);
        }
    }
}

const BUILTINS: [&str; 4] = ["e1", "e2", "e3", "pi"];

/// The symbol table: every declared name, and the names whose declaration failed.
pub struct Names {
    pub env: HashMap<String, Sym>,
    /// Names whose declaration failed (already reported): uses of them are not errors.
    pub poisoned: HashSet<String>,
}

impl Names {
    /// An empty table (parameter defaults are lowered against it: numbers only).
    pub fn empty() -> Self {
        Names {
            env: HashMap::new(),
            poisoned: HashSet::new(),
        }
    }

    /// The table with the built-ins `e1 e2 e3` (unit vectors) and `pi`.
    pub fn with_builtins(g: &mut Graph) -> Self {
        let mut names = Names::empty();
        for (i, n) in ["e1", "e2", "e3"].iter().enumerate() {
            let mut e = vec![g.zero(); 3];
            e[i] = g.one();
            names.env.insert(
                (*n).into(),
                Sym {
                    val: Val::V(e),
                    kind: Kind::Builtin,
                },
            );
        }
        let pi = g.constant(std::f64::consts::PI);
        names.env.insert(
            "pi".into(),
            Sym {
                val: Val::S(pi),
                kind: Kind::Builtin,
            },
        );
        names
    }

    /// Whether `name` is taken, by a declaration or a failed one.
    pub fn taken(&self, name: &str) -> bool {
        self.env.contains_key(name) || self.poisoned.contains(name)
    }

    /// Marks `name` as failed: later uses of it are silent.
    pub fn poison(&mut self, name: String) {
        self.env.remove(&name);
        self.poisoned.insert(name);
    }

    /// Declares `id`. A name declared twice is removed and poisoned: its uses are
    /// ambiguous, not errors of their own.
    pub fn declare(&mut self, errors: &mut Errors, id: &Ident, sym: Sym) {
        // `r#m` and `m` are one name in Rust, and so here.
        let name = syn::ext::IdentExt::unraw(id).to_string();
        if BUILTINS.contains(&name.as_str()) {
            errors.push(
                id.span(),
                format!("`{name}` is a built-in name (e1, e2, e3 are the unit vectors, pi is π); choose another name"),
            );
            // Uses of the name mean the user's declaration: no follow-up shape errors.
            self.env.insert(name, sym);
        } else if self.taken(&name) {
            if sym.kind == Kind::Velocity {
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
            self.poison(name);
        } else {
            self.env.insert(name, sym);
        }
    }

    /// What the model declares, for unknown-name messages.
    pub fn declared(&self) -> String {
        let by_kind = |k: Kind| {
            // An array is listed with its indices: `r[0..10]`.
            let mut names: Vec<String> = self
                .env
                .iter()
                .filter(|(_, s)| s.kind == k)
                .map(|(n, s)| match &s.val {
                    Val::A(items) => format!("{n}[0..{}]", items.len()),
                    _ => n.clone(),
                })
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
        let u = by_kind(Kind::Input);
        if !u.is_empty() {
            s += &format!(", inputs [{u}]");
        }
        if !l.is_empty() {
            s += &format!(", lets [{l}]");
        }
        s + ", and the built-ins e1, e2, e3, pi"
    }
}
