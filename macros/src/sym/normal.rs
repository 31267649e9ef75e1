//! A normal form for sums of products: like terms collected, constant factors in front.
//!
//! The constructors simplify locally (`x + x = 2x`, `c₁(c₂x) = (c₁c₂)x`), which cannot
//! see that the 1st and the 5 000th term of a written-out sum are alike: a potential
//! `m g z + Σᵢ i·z²` stayed 5 000 terms, and its step equations were over budget. This
//! pass sees each sum whole: it flattens the sum into terms `c·monomial`, keys each
//! monomial by the multiset of its factors (so `x·(y·z)` and `(x·y)·z` are one
//! monomial), adds the coefficients of equal keys and rebuilds the sum. Products are not
//! expanded over sums: `(x + y)²` stays a square, so the size can only fall.
//!
//! Sharing is kept. A sum flattens through an inner sum (or its negation, or a constant
//! multiple of it) only where that inner node has no other use; a shared one (a `let`,
//! a hash-consed repeat) stays a single term, computed once. A sum in which nothing
//! combines is returned as it was, so models without like terms keep their code.
use std::collections::HashMap;

use super::{Graph, Id, Node};

/// A monomial's key: its factors and their powers, sorted by id.
type Key = Vec<(Id, i32)>;

impl Graph {
    /// `roots` with every sum in them collected (see the module docs); the result at
    /// `k` has the value of `roots[k]`, up to the rounding of the reordered sums.
    pub fn collect_like_terms(&mut self, roots: &[Id]) -> Vec<Id> {
        let uses = self.use_counts(roots);
        let mut memo: HashMap<Id, Id> = HashMap::new();
        let mut terms_of: HashMap<Id, Vec<(f64, Id)>> = HashMap::new();
        // Post-order without recursion: a model's nesting can be thousands deep (a chain
        // of `let`s), and a proc macro's stack is the compiler's.
        for &root in roots {
            let mut stack = vec![(root, false)];
            while let Some((id, ready)) = stack.pop() {
                if memo.contains_key(&id) {
                    continue;
                }
                if !ready {
                    stack.push((id, true));
                    let children: Vec<Id> = match self.node(id) {
                        Node::Add(..) => {
                            let terms = self.sum_terms(id, &uses);
                            let children = terms.iter().map(|&(_, t)| t).collect();
                            terms_of.insert(id, terms);
                            children
                        }
                        node => node.children().collect(),
                    };
                    stack.extend(
                        children
                            .into_iter()
                            .filter(|c| !memo.contains_key(c))
                            .map(|c| (c, false)),
                    );
                    continue;
                }
                let new = match terms_of.remove(&id) {
                    Some(terms) => self.collect_sum(id, &terms, &memo),
                    None => self.rebuild(id, &memo),
                };
                memo.insert(id, new);
            }
        }
        roots.iter().map(|r| memo[r]).collect()
    }

    /// How many parents (and roots) use each node reachable from `roots`.
    fn use_counts(&self, roots: &[Id]) -> Vec<u32> {
        let len = roots.iter().map(|r| r.index() + 1).max().unwrap_or(0);
        let mut uses = vec![0u32; len];
        for r in roots {
            uses[r.index()] += 1;
        }
        // Ids are topological: a parent comes after its children.
        for i in (0..len).rev() {
            if uses[i] > 0 {
                for c in self.nodes[i].children() {
                    uses[c.index()] += 1;
                }
            }
        }
        uses
    }

    /// The terms of the sum at `root`, each with the constant it is multiplied by,
    /// flattened through inner sums, negations and constant multiples used only here.
    fn sum_terms(&self, root: Id, uses: &[u32]) -> Vec<(f64, Id)> {
        let mut terms = Vec::new();
        let mut stack = vec![(1.0, root)];
        while let Some((m, id)) = stack.pop() {
            let private = id == root || uses[id.index()] == 1;
            let is_sum = |x: Id| matches!(self.node(x), Node::Add(..)) && uses[x.index()] == 1;
            match self.node(id) {
                Node::Add(a, b) if private => {
                    stack.push((m, b));
                    stack.push((m, a));
                }
                Node::Neg(a) if private && is_sum(a) => stack.push((-m, a)),
                Node::Mul(c, a) if private && is_sum(a) => match self.as_const(c) {
                    Some(c) => stack.push((m * c, a)),
                    None => terms.push((m, id)),
                },
                _ => terms.push((m, id)),
            }
        }
        terms
    }

    /// `id` with its children replaced by their normal forms, through the constructors.
    fn rebuild(&mut self, id: Id, memo: &HashMap<Id, Id>) -> Id {
        let node = self.node(id);
        let m = |c: Id| memo.get(&c).copied().unwrap_or(c);
        if node.children().all(|c| m(c) == c) {
            return id;
        }
        match node {
            Node::Const(_) | Node::Var(_) => id,
            Node::Add(a, b) => self.add(m(a), m(b)),
            Node::Mul(a, b) => self.mul(m(a), m(b)),
            Node::Div(a, b) => self.div(m(a), m(b)),
            Node::Neg(a) => self.neg(m(a)),
            Node::Powi(a, n) => self.powi(m(a), n),
            Node::Func(f, a) => self.func(f, m(a)),
            Node::SelectLt(x, y, a, b) => self.select_lt(m(x), m(y), m(a), m(b)),
        }
    }

    /// The sum of `terms` (each `multiplier · term`, the terms in normal form through
    /// `memo`) with like terms collected; `id` itself if nothing changed.
    fn collect_sum(&mut self, id: Id, terms: &[(f64, Id)], memo: &HashMap<Id, Id>) -> Id {
        let mut index: HashMap<Key, usize> = HashMap::new();
        // Per monomial: its coefficient, the monomial itself (coefficient 1) and how many
        // terms it collects.
        let mut collected: Vec<(f64, Id, usize)> = Vec::new();
        let mut changed = false;
        for &(multiplier, term) in terms {
            let normal = memo.get(&term).copied().unwrap_or(term);
            changed |= normal != term;
            let (coefficient, monomial) = self.split_coefficient(normal);
            let key = self.monomial_key(monomial);
            let coefficient = multiplier * coefficient;
            match index.get(&key) {
                Some(&k) => {
                    collected[k].0 += coefficient;
                    collected[k].2 += 1;
                    changed = true;
                }
                None => {
                    index.insert(key, collected.len());
                    collected.push((coefficient, monomial, 1));
                }
            }
        }
        if !changed || collected.iter().any(|(c, _, _)| !c.is_finite()) {
            return id;
        }
        let mut sum = self.zero();
        for (coefficient, monomial, _) in collected {
            let c = self.constant(coefficient);
            let term = self.mul(c, monomial);
            sum = self.add(sum, term);
        }
        sum
    }

    /// `c · monomial` for a term: its constant factor and negations taken out (a
    /// constant term is `c · 1`).
    fn split_coefficient(&mut self, mut term: Id) -> (f64, Id) {
        let mut c = 1.0;
        loop {
            match self.node(term) {
                Node::Neg(a) => {
                    c = -c;
                    term = a;
                }
                Node::Mul(k, a) if self.as_const(k).is_some() => {
                    c *= self.as_const(k).unwrap_or(1.0);
                    term = a;
                }
                Node::Const(_) => {
                    let x = self.as_const(term).unwrap_or(0.0);
                    return (c * x, self.one());
                }
                _ => return (c, term),
            }
        }
    }

    /// The factors of a monomial with their powers, sorted: products flattened, a
    /// power `xⁿ` (`n > 0`) counted as `n` factors `x`. A negative power is a factor of
    /// its own, so that `x · x⁻¹` is not taken for a constant (it is NaN at 0).
    fn monomial_key(&self, monomial: Id) -> Key {
        let mut powers: HashMap<Id, i32> = HashMap::new();
        let mut stack = vec![(monomial, 1i32)];
        while let Some((id, n)) = stack.pop() {
            let mut factor = |x: Id, k: i32| {
                let e = powers.entry(x).or_default();
                *e = e.saturating_add(k);
            };
            match self.node(id) {
                Node::Mul(a, b) => {
                    stack.push((a, n));
                    stack.push((b, n));
                }
                Node::Powi(a, k) if k > 0 => match k.checked_mul(n) {
                    Some(kn) => stack.push((a, kn)),
                    None => factor(id, n),
                },
                _ => factor(id, n),
            }
        }
        let mut key: Key = powers.into_iter().collect();
        key.sort_unstable();
        key
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Operations reachable from `id` (its size as emitted).
    fn ops(g: &Graph, id: Id) -> usize {
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![id];
        while let Some(x) = stack.pop() {
            if seen.insert(x) {
                stack.extend(g.node(x).children());
            }
        }
        seen.iter()
            .filter(|&&x| !matches!(g.node(x), Node::Const(_) | Node::Var(_)))
            .count()
    }

    fn at(g: &Graph, e: Id, x: &[f64]) -> f64 {
        g.eval(e, &|v| x[v.0 as usize])
    }

    #[test]
    fn like_terms_are_collected_with_their_coefficients() {
        let mut g = Graph::new();
        let (_, x) = g.new_var("x");
        let (_, y) = g.new_var("y");
        let two_x = {
            let c = g.constant(2.0);
            g.mul(c, x)
        };
        // x + y + 2x − x·(−3) − y  =  6x
        let a = g.add(x, y);
        let b = g.add(a, two_x);
        let three = g.constant(-3.0);
        let minus = g.mul(x, three);
        let c = g.sub(b, minus);
        let e = g.sub(c, y);
        let [normal] = g.collect_like_terms(&[e])[..] else {
            unreachable!()
        };
        assert!(ops(&g, normal) == 1, "{}", ops(&g, normal));
        assert_eq!(at(&g, normal, &[0.7, 0.2]), 6.0 * 0.7);
    }

    #[test]
    fn a_written_out_sum_of_five_thousand_terms_collects_to_two() {
        // m g z + Σᵢ i·z², as written: one node per term before.
        let mut g = Graph::new();
        let (_, z) = g.new_var("z");
        let (_, m) = g.new_var("m");
        let mg = g.mul(m, z);
        let mut sum = mg;
        for i in 1..=5000 {
            let c = g.constant(i as f64);
            let zz = g.mul(z, z);
            let t = g.mul(c, zz);
            sum = g.add(sum, t);
        }
        assert!(ops(&g, sum) > 5000);
        let normal = g.collect_like_terms(&[sum])[0];
        assert!(ops(&g, normal) <= 4, "{}", ops(&g, normal));
        let (zv, mv) = (0.3, 2.0);
        let want = mv * zv + 12_502_500.0 * zv * zv;
        assert!((at(&g, normal, &[zv, mv]) - want).abs() <= 1e-12 * want);
    }

    #[test]
    fn products_are_compared_as_multisets_of_factors() {
        let mut g = Graph::new();
        let (_, x) = g.new_var("x");
        let (_, y) = g.new_var("y");
        let (_, z) = g.new_var("z");
        let yz = g.mul(y, z);
        let left = g.mul(x, yz);
        let xy = g.mul(x, y);
        let right = g.mul(xy, z);
        assert_ne!(left, right);
        let e = g.sub(left, right);
        let normal = g.collect_like_terms(&[e])[0];
        assert!(g.is_zero(normal));
        // x²·y and x·(x·y) are alike; x·x⁻¹ is not a constant.
        let x2 = g.powi(x, 2);
        let x2y = g.mul(x2, y);
        let xxy = g.mul(x, xy);
        let inv = g.powi(x, -1);
        let one_ish = g.mul(x, inv);
        let one = g.one();
        let s = g.add(x2y, xxy);
        let s = g.add(s, one_ish);
        let s = g.sub(s, one);
        let normal = g.collect_like_terms(&[s])[0];
        let v = [0.5, 3.0, 0.0];
        assert!((at(&g, normal, &v) - (2.0 * 0.25 * 3.0 + 1.0 - 1.0)).abs() < 1e-15);
        assert!(at(&g, normal, &[0.0, 3.0, 0.0]).is_nan(), "x·x⁻¹ kept");
    }

    #[test]
    fn shared_sums_stay_shared_and_unchanged_sums_keep_their_node() {
        let mut g = Graph::new();
        let (_, a) = g.new_var("a");
        let (_, b) = g.new_var("b");
        let (_, c) = g.new_var("c");
        let s = g.add(a, b);
        let square = g.mul(s, s);
        let e = g.add(s, c);
        let out = g.collect_like_terms(&[square, e]);
        assert_eq!(out, vec![square, e]);
        // A sum used once is flattened: (a + b) − a = b.
        let (_, d) = g.new_var("d");
        let t = g.add(c, d);
        let u = g.sub(t, c);
        assert_eq!(g.collect_like_terms(&[u]), vec![d]);
    }
}
