//! The symbolic engine: a hash-consed expression DAG over `f64` constants and variables.
//!
//! Nodes live in one `Vec` in topological order: every child id is smaller than its
//! parent's (egg's `RecExpr` invariant), so walking the vector in order is already
//! straight-line code, and a node is created at most once (the `memo` map), so common
//! subexpression elimination falls out of construction. Constructors simplify locally
//! (constant folding, neutral elements, common constant factors, canonical operand order
//! and one orientation per difference) before interning; `normal` collects like terms
//! across whole sums.
mod degree;
mod diff;
pub mod emit;
mod eval;
mod normal;
#[cfg(test)]
mod sexp;
mod subst;

use std::collections::HashMap;

/// Index of a node in [`Graph::nodes`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug, Default)]
pub struct Id(u32);

impl Id {
    /// Position in the node vector.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A variable's number, in creation order.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct VarId(pub u32);

/// Smooth unary functions.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Func {
    Sqrt,
    Sin,
    Cos,
    Tan,
    Exp,
    Ln,
}

impl Func {
    pub const ALL: [Func; 6] = [
        Func::Sqrt,
        Func::Sin,
        Func::Cos,
        Func::Tan,
        Func::Exp,
        Func::Ln,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Func::Sqrt => "sqrt",
            Func::Sin => "sin",
            Func::Cos => "cos",
            Func::Tan => "tan",
            Func::Exp => "exp",
            Func::Ln => "ln",
        }
    }

    pub fn apply(self, x: f64) -> f64 {
        match self {
            Func::Sqrt => x.sqrt(),
            Func::Sin => x.sin(),
            Func::Cos => x.cos(),
            Func::Tan => x.tan(),
            Func::Exp => x.exp(),
            Func::Ln => x.ln(),
        }
    }
}

/// Largest exponent a folded power `(x^m)^n` may get (the DSL's own are at most 1024).
pub const MAX_EXPONENT: u32 = 1 << 20;

/// One node of the DAG. Subtraction is `Add(a, Neg(b))`; the emitter prints it as `a - b`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Node {
    /// An `f64` keyed by its bit pattern so that nodes are `Eq + Hash`. Constructors
    /// never create NaN and map `-0.0` to `0.0`, so bit equality is value equality.
    Const(u64),
    Var(VarId),
    Add(Id, Id),
    Mul(Id, Id),
    Div(Id, Id),
    Neg(Id),
    Powi(Id, i32),
    Func(Func, Id),
    /// `if x < y { a } else { b }`: the small-increment branch of discrete gradients.
    SelectLt(Id, Id, Id, Id),
}

impl Node {
    /// Children in order (for traversal).
    pub fn children(&self) -> impl Iterator<Item = Id> {
        let (arr, n): ([Id; 4], usize) = match *self {
            Node::Const(_) | Node::Var(_) => ([Id(0); 4], 0),
            Node::Neg(a) | Node::Powi(a, _) | Node::Func(_, a) => ([a, a, a, a], 1),
            Node::Add(a, b) | Node::Mul(a, b) | Node::Div(a, b) => ([a, b, b, b], 2),
            Node::SelectLt(x, y, a, b) => ([x, y, a, b], 4),
        };
        arr.into_iter().take(n)
    }
}

/// The expression DAG. See the module docs for its invariants.
#[derive(Default)]
pub struct Graph {
    nodes: Vec<Node>,
    /// Hash-consing table: each distinct node has exactly one id.
    memo: HashMap<Node, Id>,
    /// Variable names, indexed by `VarId`.
    var_names: Vec<String>,
    /// Per node, the set of variables it depends on (bit set; words past the end are 0).
    deps: Vec<Vec<u64>>,
    diff_memo: HashMap<(Id, VarId), Id>,
}

impl Graph {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn node(&self, id: Id) -> Node {
        self.nodes[id.index()]
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    #[cfg(test)]
    pub fn var_name(&self, v: VarId) -> &str {
        &self.var_names[v.0 as usize]
    }

    /// A fresh variable (a new `VarId` on every call) and its node.
    pub fn new_var(&mut self, name: impl Into<String>) -> (VarId, Id) {
        let v = VarId(self.var_names.len() as u32);
        self.var_names.push(name.into());
        (v, self.intern(Node::Var(v)))
    }

    /// The node of an existing variable.
    pub fn var_node(&mut self, v: VarId) -> Id {
        self.intern(Node::Var(v))
    }

    #[cfg(test)]
    pub fn var_count(&self) -> usize {
        self.var_names.len()
    }

    /// Whether `id` depends on variable `v`.
    pub fn depends_on(&self, id: Id, v: VarId) -> bool {
        let (w, b) = (v.0 as usize / 64, v.0 % 64);
        self.deps[id.index()]
            .get(w)
            .is_some_and(|word| word >> b & 1 == 1)
    }

    /// Whether `id` depends on any variable for which `pred` holds.
    pub fn depends_on_any(&self, id: Id, pred: impl Fn(VarId) -> bool) -> bool {
        let d = &self.deps[id.index()];
        (0..d.len() * 64).any(|i| d[i / 64] >> (i % 64) & 1 == 1 && pred(VarId(i as u32)))
    }

    fn intern(&mut self, node: Node) -> Id {
        if let Some(&id) = self.memo.get(&node) {
            return id;
        }
        let id = Id(self.nodes.len() as u32);
        debug_assert!(node.children().all(|c| c < id), "children precede parents");
        let mut deps: Vec<u64> = Vec::new();
        match node {
            Node::Var(v) => {
                let (w, b) = (v.0 as usize / 64, v.0 % 64);
                deps.resize(w + 1, 0);
                deps[w] |= 1 << b;
            }
            _ => {
                for c in node.children() {
                    let cd = &self.deps[c.index()];
                    if deps.len() < cd.len() {
                        deps.resize(cd.len(), 0);
                    }
                    for (d, s) in deps.iter_mut().zip(cd) {
                        *d |= s;
                    }
                }
            }
        }
        self.nodes.push(node);
        self.deps.push(deps);
        self.memo.insert(node, id);
        id
    }

    // ---- constants -------------------------------------------------------------------

    /// The node of constant `x`. A NaN or infinity here is a bug in a caller's folding,
    /// which only folds finite results.
    pub fn constant(&mut self, x: f64) -> Id {
        debug_assert!(x.is_finite());
        // -0.0 and 0.0 must share a node: they compare equal and differ only in bits.
        let x = if x == 0.0 { 0.0 } else { x };
        self.intern(Node::Const(x.to_bits()))
    }

    pub fn zero(&mut self) -> Id {
        self.constant(0.0)
    }

    pub fn one(&mut self) -> Id {
        self.constant(1.0)
    }

    /// The value of a constant node.
    pub fn as_const(&self, id: Id) -> Option<f64> {
        match self.node(id) {
            Node::Const(bits) => Some(f64::from_bits(bits)),
            _ => None,
        }
    }

    pub fn is_zero(&self, id: Id) -> bool {
        self.as_const(id) == Some(0.0)
    }

    /// Folds `f` if it gives a finite number; `None` otherwise (then the node is kept).
    fn fold(&mut self, x: f64) -> Option<Id> {
        x.is_finite().then(|| self.constant(x))
    }

    // ---- arithmetic with local simplification -----------------------------------------

    pub fn add(&mut self, a: Id, b: Id) -> Id {
        match (self.as_const(a), self.as_const(b)) {
            (Some(x), Some(y)) => {
                if let Some(id) = self.fold(x + y) {
                    return id;
                }
            }
            (Some(0.0), None) => return b,
            (None, Some(0.0)) => return a,
            _ => {}
        }
        // x + (−x) = 0
        if self.node(b) == Node::Neg(a) || self.node(a) == Node::Neg(b) {
            return self.zero();
        }
        if a == b {
            let two = self.constant(2.0);
            return self.mul(two, a);
        }
        // A common constant factor goes outside: c·x + c·y = c·(x + y) and c·x − c·y =
        // c·(x − y), one multiplication fewer. Every midpoint ½qⁿ + ½qⁿ⁺¹ of a step is
        // such a sum. With this rule, one orientation per difference (below) and
        // negations printed in place (`emit`), the 64-link chain's EM step fell from
        // 13 444 temporaries to 9 752. c·x + x = (c + 1)·x collects a like term.
        if let Some(id) = self.factor_constant(a, b) {
            return id;
        }
        // Canonical order for commutativity; a single Neg operand goes right so that the
        // emitter can print a subtraction.
        let (a, b) = match (self.node(a), self.node(b)) {
            (Node::Neg(x), Node::Neg(y)) => {
                let s = self.add(x, y);
                return self.neg(s);
            }
            (Node::Neg(_), _) => return self.add(b, a),
            // One orientation per difference: `a − y` is `−(y − a)` when `y` is the older
            // node, so that `a − y` and `y − a` share one subtraction (negation is free:
            // the emitter prints it in place, and IEEE subtraction is antisymmetric, so
            // the values are the same to the bit).
            (_, Node::Neg(y)) if y < a => {
                let na = self.neg(a);
                let d = self.add(y, na);
                return self.neg(d);
            }
            (_, Node::Neg(_)) => (a, b),
            _ => (a.min(b), a.max(b)),
        };
        self.intern(Node::Add(a, b))
    }

    /// `a + b` with a common constant factor outside, or a like term collected; `None`
    /// when neither applies.
    fn factor_constant(&mut self, a: Id, b: Id) -> Option<Id> {
        let scaled = |g: &Self, id: Id| match g.node(id) {
            Node::Mul(c, x) => g.as_const(c).map(|k| (k, x)),
            _ => None,
        };
        match (scaled(self, a), scaled(self, b)) {
            (Some((k1, x)), Some((k2, y))) if k1 == k2 => {
                let s = self.add(x, y);
                let c = self.constant(k1);
                Some(self.mul(c, s))
            }
            (Some((k1, x)), Some((k2, y))) if k1 == -k2 => {
                let s = self.sub(x, y);
                let c = self.constant(k1);
                Some(self.mul(c, s))
            }
            (Some((k, x)), None) if x == b => self.fold(k + 1.0).map(|c| self.mul(c, b)),
            (None, Some((k, y))) if y == a => self.fold(k + 1.0).map(|c| self.mul(c, a)),
            _ => None,
        }
    }

    pub fn sub(&mut self, a: Id, b: Id) -> Id {
        if a == b {
            return self.zero();
        }
        let nb = self.neg(b);
        self.add(a, nb)
    }

    pub fn neg(&mut self, a: Id) -> Id {
        if let Some(x) = self.as_const(a) {
            return self.constant(-x);
        }
        match self.node(a) {
            Node::Neg(x) => x,
            Node::Mul(c, x) if self.as_const(c).is_some() => {
                let nc = self.constant(-self.as_const(c).unwrap_or(0.0));
                self.mul(nc, x)
            }
            _ => self.intern(Node::Neg(a)),
        }
    }

    pub fn mul(&mut self, a: Id, b: Id) -> Id {
        // Constants go left.
        let (a, b) = if self.as_const(b).is_some() && self.as_const(a).is_none() {
            (b, a)
        } else {
            (a, b)
        };
        match (self.as_const(a), self.as_const(b)) {
            (Some(x), Some(y)) => {
                if let Some(id) = self.fold(x * y) {
                    return id;
                }
            }
            (Some(x), None) => {
                if x == 0.0 {
                    return self.zero();
                }
                if x == 1.0 {
                    return b;
                }
                if x == -1.0 {
                    return self.neg(b);
                }
                match self.node(b) {
                    // c1 · (c2 · y) = (c1 c2) · y
                    Node::Mul(c2, y) if self.as_const(c2).is_some() => {
                        let c = self.as_const(c2).unwrap_or(1.0) * x;
                        if let Some(cc) = self.fold(c) {
                            return self.mul(cc, y);
                        }
                    }
                    Node::Neg(y) => {
                        let nc = self.constant(-x);
                        return self.mul(nc, y);
                    }
                    _ => {}
                }
                return self.intern(Node::Mul(a, b));
            }
            _ => {}
        }
        // Pull negations out: (−x)·y = −(x·y), so that they can cancel in sums.
        if let Node::Neg(x) = self.node(a) {
            let p = self.mul(x, b);
            return self.neg(p);
        }
        if let Node::Neg(y) = self.node(b) {
            let p = self.mul(a, y);
            return self.neg(p);
        }
        // Pull a constant factor of either operand to the front.
        if let Node::Mul(c, x) = self.node(a) {
            if self.as_const(c).is_some() {
                let p = self.mul(x, b);
                return self.mul(c, p);
            }
        }
        if let Node::Mul(c, y) = self.node(b) {
            if self.as_const(c).is_some() {
                let p = self.mul(a, y);
                return self.mul(c, p);
            }
        }
        if a == b {
            return self.powi(a, 2);
        }
        self.intern(Node::Mul(a.min(b), a.max(b)))
    }

    pub fn div(&mut self, a: Id, b: Id) -> Id {
        if let Some(y) = self.as_const(b) {
            if y == 1.0 {
                return a;
            }
            if let Some(x) = self.as_const(a) {
                if let Some(id) = self.fold(x / y) {
                    return id;
                }
            }
        }
        if self.is_zero(a) {
            return self.zero();
        }
        if a == b {
            return self.one();
        }
        if let Node::Neg(x) = self.node(a) {
            let q = self.div(x, b);
            return self.neg(q);
        }
        self.intern(Node::Div(a, b))
    }

    /// `a^n`; `|n|` at most [`MAX_EXPONENT`] plus the number of differentiations.
    pub fn powi(&mut self, a: Id, n: i32) -> Id {
        match n {
            0 => return self.one(),
            1 => return a,
            _ => {}
        }
        if let Some(x) = self.as_const(a) {
            if let Some(id) = self.fold(x.powi(n)) {
                return id;
            }
        }
        // (x^m)^n = x^(mn), while the exponent stays small enough that differentiating
        // it (n − 1) and the degree analysis (degree · n) cannot overflow.
        if let Node::Powi(x, m) = self.node(a) {
            if let Some(k) = m
                .checked_mul(n)
                .filter(|k| k.unsigned_abs() <= MAX_EXPONENT)
            {
                return self.powi(x, k);
            }
        }
        self.intern(Node::Powi(a, n))
    }

    pub fn func(&mut self, f: Func, a: Id) -> Id {
        if let Some(x) = self.as_const(a) {
            if let Some(id) = self.fold(f.apply(x)) {
                return id;
            }
        }
        self.intern(Node::Func(f, a))
    }

    /// `if x < y { a } else { b }`.
    pub fn select_lt(&mut self, x: Id, y: Id, a: Id, b: Id) -> Id {
        if a == b {
            return a;
        }
        if let (Some(xv), Some(yv)) = (self.as_const(x), self.as_const(y)) {
            return if xv < yv { a } else { b };
        }
        self.intern(Node::SelectLt(x, y, a, b))
    }

    /// Sum of many terms.
    pub fn sum(&mut self, terms: impl IntoIterator<Item = Id>) -> Id {
        let mut acc = self.zero();
        for t in terms {
            acc = self.add(acc, t);
        }
        acc
    }

    /// `Σ a_i b_i`.
    pub fn dot(&mut self, a: &[Id], b: &[Id]) -> Id {
        debug_assert_eq!(a.len(), b.len());
        let terms: Vec<Id> = a.iter().zip(b).map(|(&x, &y)| self.mul(x, y)).collect();
        self.sum(terms)
    }

    /// Recomputes the hash-consing table from the node vector and compares: no two ids
    /// for one node, every node reachable through the table. Debug builds only.
    pub fn check_memo(&self) -> bool {
        self.memo.len() == self.nodes.len()
            && self
                .nodes
                .iter()
                .enumerate()
                .all(|(i, n)| self.memo.get(n) == Some(&Id(i as u32)))
    }
}

#[cfg(test)]
mod tests;
