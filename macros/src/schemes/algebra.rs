//! Vectors, matrices and scalars over the graph's node ids, with operators, so that a
//! template's residual reads like the paper's equation:
//!
//! ```text
//! let r_q = &q1 - &q0 - h * (&minv * &p_half);
//! ```
//!
//! Every value borrows one [`Algebra`], which holds the model for the duration of a
//! template; each operation adds nodes to it (hash-consed, so writing the same
//! expression twice costs nothing). Operations run left to right exactly as written: a
//! template rewritten from the helper functions of `common.rs` in the same order yields
//! the same nodes, hence bit-identical generated code.
use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::{Add, Div, Mul, Neg, Sub};

use crate::ir::Model;
use crate::sym::{Graph, Id, VarId};

/// The model, its graph in particular, while a template builds its equations.
pub struct Algebra<'m> {
    model: RefCell<&'m mut Model>,
}

impl<'m> Algebra<'m> {
    pub fn new(model: &'m mut Model) -> Self {
        Algebra {
            model: RefCell::new(model),
        }
    }

    /// Runs one of `common.rs`'s functions on the model (a discrete gradient, a Hessian
    /// contraction) and takes its result as a vector.
    pub fn call<'a>(&'a self, f: impl FnOnce(&mut Model) -> Vec<Id>) -> Vector<'a, 'm> {
        let ids = f(&mut self.model.borrow_mut());
        Vector { alg: self, ids }
    }

    /// A scheme coefficient: a constant, or a field of the scheme value read at run time.
    pub fn coef<'a>(&'a self, c: super::common::Coef) -> Scalar<'a, 'm> {
        let id = super::common::coef(&mut self.model.borrow_mut(), c);
        self.scalar(id)
    }

    /// `d` zeros.
    pub fn zeros<'a>(&'a self, d: usize) -> Vector<'a, 'm> {
        let zero = self.graph().zero();
        self.vector(&vec![zero; d])
    }

    /// `(1 − θ) a + θ b`, as `common::lerp` builds it.
    pub fn lerp<'a>(
        &'a self,
        a: &Vector<'a, 'm>,
        b: &Vector<'a, 'm>,
        theta: Scalar<'a, 'm>,
    ) -> Vector<'a, 'm> {
        self.call(|model| super::common::lerp(model, &a.ids, &b.ids, theta.id))
    }

    /// `(a + b) / 2`, as `common::midpoint` builds it.
    pub fn midpoint<'a>(&'a self, a: &Vector<'a, 'm>, b: &Vector<'a, 'm>) -> Vector<'a, 'm> {
        self.call(|model| super::common::midpoint(model, &a.ids, &b.ids))
    }

    fn graph(&self) -> std::cell::RefMut<'_, Graph> {
        std::cell::RefMut::map(self.model.borrow_mut(), |m| &mut m.graph)
    }

    /// A vector of existing nodes.
    pub fn vector<'a>(&'a self, ids: &[Id]) -> Vector<'a, 'm> {
        Vector {
            alg: self,
            ids: ids.to_vec(),
        }
    }

    /// A row-major matrix of existing nodes (`M⁻¹`, the rows of discrete gradients).
    pub fn matrix<'a>(&'a self, rows: &[Vec<Id>]) -> Matrix<'a, 'm> {
        Matrix {
            alg: self,
            rows: rows.to_vec(),
            cols: rows.first().map_or(0, Vec::len),
        }
    }

    /// An existing node as a scalar.
    pub fn scalar<'a>(&'a self, id: Id) -> Scalar<'a, 'm> {
        Scalar { alg: self, id }
    }

    /// A constant.
    pub fn constant<'a>(&'a self, x: f64) -> Scalar<'a, 'm> {
        let id = self.graph().constant(x);
        self.scalar(id)
    }

    /// Model quantities `exprs` (written in `q`, `v`) evaluated at `q = at_q` (and
    /// `v = at_v`).
    fn substitute(&self, exprs: &[Id], at_q: &[Id], at_v: Option<&[Id]>) -> Vec<Id> {
        let mut model = self.model.borrow_mut();
        let mut map: HashMap<VarId, Id> =
            model.q.iter().copied().zip(at_q.iter().copied()).collect();
        if let Some(at_v) = at_v {
            map.extend(model.v.iter().copied().zip(at_v.iter().copied()));
        }
        model.graph.substitute(exprs, &map)
    }

    /// `f(q)` for a vector quantity `f` of the model.
    pub fn vector_at<'a>(&'a self, f: &[Id], q: &Vector<'a, 'm>) -> Vector<'a, 'm> {
        let ids = self.substitute(f, &q.ids, None);
        Vector { alg: self, ids }
    }

    /// `f(q, v)` for a vector quantity `f` of the model.
    pub fn vector_at_qv<'a>(
        &'a self,
        f: &[Id],
        q: &Vector<'a, 'm>,
        v: &Vector<'a, 'm>,
    ) -> Vector<'a, 'm> {
        let ids = self.substitute(f, &q.ids, Some(&v.ids));
        Vector { alg: self, ids }
    }

    /// `F(q)` for a Jacobian `F` of the model with respect to `q` (row-major, one
    /// column per coordinate, so that an empty `G` of an unconstrained model still
    /// knows its width).
    pub fn matrix_at<'a>(&'a self, f: &[Vec<Id>], q: &Vector<'a, 'm>) -> Matrix<'a, 'm> {
        let rows = f
            .iter()
            .map(|row| self.substitute(row, &q.ids, None))
            .collect();
        Matrix {
            alg: self,
            rows,
            cols: q.ids.len(),
        }
    }

    fn zip(&self, a: &[Id], b: &[Id], f: fn(&mut Graph, Id, Id) -> Id) -> Vec<Id> {
        debug_assert_eq!(a.len(), b.len(), "vector sizes differ");
        let mut g = self.graph();
        a.iter().zip(b).map(|(&x, &y)| f(&mut g, x, y)).collect()
    }
}

/// A column vector of nodes.
#[derive(Clone)]
pub struct Vector<'a, 'm> {
    alg: &'a Algebra<'m>,
    pub ids: Vec<Id>,
}

/// A row-major matrix of nodes.
#[derive(Clone)]
pub struct Matrix<'a, 'm> {
    alg: &'a Algebra<'m>,
    pub rows: Vec<Vec<Id>>,
    cols: usize,
}

/// The transpose of a [`Matrix`], for `Gᵀ λ`.
pub struct Transposed<'r, 'a, 'm>(&'r Matrix<'a, 'm>);

/// A scalar node.
#[derive(Clone, Copy)]
pub struct Scalar<'a, 'm> {
    alg: &'a Algebra<'m>,
    pub id: Id,
}

impl<'a, 'm> Matrix<'a, 'm> {
    pub fn t<'r>(&'r self) -> Transposed<'r, 'a, 'm> {
        Transposed(self)
    }
}

impl<'a, 'm> Sub for &Vector<'a, 'm> {
    type Output = Vector<'a, 'm>;
    fn sub(self, rhs: Self) -> Vector<'a, 'm> {
        let ids = self.alg.zip(&self.ids, &rhs.ids, Graph::sub);
        Vector { alg: self.alg, ids }
    }
}

impl<'a, 'm> Sub<&Vector<'a, 'm>> for Vector<'a, 'm> {
    type Output = Vector<'a, 'm>;
    fn sub(self, rhs: &Vector<'a, 'm>) -> Vector<'a, 'm> {
        &self - rhs
    }
}

impl<'a, 'm> Sub<Vector<'a, 'm>> for Vector<'a, 'm> {
    type Output = Vector<'a, 'm>;
    fn sub(self, rhs: Vector<'a, 'm>) -> Vector<'a, 'm> {
        &self - &rhs
    }
}

impl<'a, 'm> Add for &Vector<'a, 'm> {
    type Output = Vector<'a, 'm>;
    fn add(self, rhs: Self) -> Vector<'a, 'm> {
        let ids = self.alg.zip(&self.ids, &rhs.ids, Graph::add);
        Vector { alg: self.alg, ids }
    }
}

impl<'a, 'm> Add<Vector<'a, 'm>> for Vector<'a, 'm> {
    type Output = Vector<'a, 'm>;
    fn add(self, rhs: Vector<'a, 'm>) -> Vector<'a, 'm> {
        &self + &rhs
    }
}

impl<'a, 'm> Add<&Vector<'a, 'm>> for Vector<'a, 'm> {
    type Output = Vector<'a, 'm>;
    fn add(self, rhs: &Vector<'a, 'm>) -> Vector<'a, 'm> {
        &self + rhs
    }
}

impl<'a, 'm> Sub for Scalar<'a, 'm> {
    type Output = Scalar<'a, 'm>;
    fn sub(self, rhs: Self) -> Scalar<'a, 'm> {
        let id = self.alg.graph().sub(self.id, rhs.id);
        Scalar { alg: self.alg, id }
    }
}

impl<'a, 'm> Div for Scalar<'a, 'm> {
    type Output = Scalar<'a, 'm>;
    fn div(self, rhs: Self) -> Scalar<'a, 'm> {
        let id = self.alg.graph().div(self.id, rhs.id);
        Scalar { alg: self.alg, id }
    }
}

impl<'a, 'm> Neg for &Vector<'a, 'm> {
    type Output = Vector<'a, 'm>;
    fn neg(self) -> Vector<'a, 'm> {
        let mut g = self.alg.graph();
        let ids = self.ids.iter().map(|&x| g.neg(x)).collect();
        Vector { alg: self.alg, ids }
    }
}

/// `c · a`, elementwise, the scalar on the left as in the papers.
impl<'a, 'm> Mul<&Vector<'a, 'm>> for Scalar<'a, 'm> {
    type Output = Vector<'a, 'm>;
    fn mul(self, rhs: &Vector<'a, 'm>) -> Vector<'a, 'm> {
        let mut g = self.alg.graph();
        let ids = rhs.ids.iter().map(|&x| g.mul(self.id, x)).collect();
        Vector { alg: self.alg, ids }
    }
}

impl<'a, 'm> Mul<Vector<'a, 'm>> for Scalar<'a, 'm> {
    type Output = Vector<'a, 'm>;
    fn mul(self, rhs: Vector<'a, 'm>) -> Vector<'a, 'm> {
        self * &rhs
    }
}

impl<'a, 'm> Mul for Scalar<'a, 'm> {
    type Output = Scalar<'a, 'm>;
    fn mul(self, rhs: Self) -> Scalar<'a, 'm> {
        let id = self.alg.graph().mul(self.id, rhs.id);
        Scalar { alg: self.alg, id }
    }
}

/// `A x`, each entry the dot product of a row with `x`.
impl<'a, 'm> Mul<&Vector<'a, 'm>> for &Matrix<'a, 'm> {
    type Output = Vector<'a, 'm>;
    fn mul(self, x: &Vector<'a, 'm>) -> Vector<'a, 'm> {
        let mut g = self.alg.graph();
        let ids = self.rows.iter().map(|row| g.dot(row, &x.ids)).collect();
        Vector { alg: self.alg, ids }
    }
}

impl<'a, 'm> Mul<Vector<'a, 'm>> for &Matrix<'a, 'm> {
    type Output = Vector<'a, 'm>;
    fn mul(self, x: Vector<'a, 'm>) -> Vector<'a, 'm> {
        self * &x
    }
}

/// `Aᵀ y`, each entry the dot product of a column with `y`.
impl<'a, 'm> Mul<&Vector<'a, 'm>> for Transposed<'_, 'a, 'm> {
    type Output = Vector<'a, 'm>;
    fn mul(self, y: &Vector<'a, 'm>) -> Vector<'a, 'm> {
        let a = self.0;
        let mut g = a.alg.graph();
        let ids = (0..a.cols)
            .map(|j| {
                let col: Vec<Id> = a.rows.iter().map(|row| row[j]).collect();
                g.dot(&col, &y.ids)
            })
            .collect();
        Vector { alg: a.alg, ids }
    }
}
