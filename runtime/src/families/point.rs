//! The kernels of one point `(Q, V)` that an assembly evaluates into its family's
//! buffers: the Lagrangian's second derivatives, and for a constrained family the
//! constraint matrix `R(Q)` (`DΦ` of the holonomic family, `A` of the nonholonomic one)
//! and its term of `K_qq`. Both constrained families read their constraints through
//! [`ConstraintMatrix`], so that what they share (the forces `Wʲ = D₁L + Rᵀ Λʲ` and a
//! stage's kernels) is written once.
use core::borrow::{Borrow, BorrowMut};
use core::marker::PhantomData;

use nalgebra::SVector;

use super::blocks::{Kernel, Stage};
use super::stages::Known;
use crate::kernels::{ConstraintPatterns, HolonomicKernels, NonholonomicKernels, PointKernels};
use crate::model::Real;
use crate::solve::Storage;

/// `D₁₁L` (or `K_qq`), `D₁₂L` and `D₂₂L` at one point, and the forces' `F_q` and
/// `F_v` there (read only for a model with forces), every matrix in storage `K`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Hessians<T: Real, const D: usize, K: Storage> {
    qq: K::Matrix<T, D>,
    qv: K::Matrix<T, D>,
    vv: K::Matrix<T, D>,
    f_q: K::Matrix<T, D>,
    f_v: K::Matrix<T, D>,
    /// `[x, sin x, cos x]` of the model's trigonometric arguments at the point of the
    /// last [`evaluate_with_first`](Self::evaluate_with_first), room for `2 D` of them
    /// ([`PointKernels::derivatives_anchored`]), and whether they were written.
    anchors: Anchors<T, D>,
    anchored: bool,
}

/// Room for the `[x, sin x, cos x]` of `2 D` trigonometric arguments.
type Anchors<T, const D: usize> = [[[T; 3]; D]; 2];

impl<T: Real, const D: usize, K: Storage> Hessians<T, D, K> {
    pub fn zeros() -> Self {
        Self {
            qq: K::zeros(),
            qv: K::zeros(),
            vv: K::zeros(),
            f_q: K::zeros(),
            f_v: K::zeros(),
            anchors: [[[T::zero(); 3]; D]; 2],
            anchored: false,
        }
    }

    /// `F_q` and `F_v` at `(q, v, t)`, for a model with forces (nothing without).
    pub fn evaluate_forces<Mdl: PointKernels<T, D>>(
        &mut self,
        model: &Mdl,
        (t, u): (T, &Mdl::Inputs),
        (q, v): (&SVector<T, D>, &SVector<T, D>),
    ) {
        if Mdl::FORCED {
            model.f_q(t, q, v, u, self.f_q.borrow_mut());
            model.f_v(t, q, v, u, self.f_v.borrow_mut());
        }
    }

    /// `F_q` and `F_v` as kernels over their patterns, for a model with forces; `None`
    /// without, so that an assembly visits nothing more.
    pub fn forcing<Mdl: PointKernels<T, D>>(&self) -> Option<[Kernel<'_, T, D, D>; 2]> {
        let point = Mdl::PATTERNS;
        Mdl::FORCED.then(|| {
            [
                Kernel::new(self.f_q.borrow(), point.map(|p| p.f_q)),
                Kernel::new(self.f_v.borrow(), point.map(|p| p.f_v)),
            ]
        })
    }

    /// `D₁₂L` and `D₂₂L` at `(q, v)`, and first `D₁₁L` if `qq` (a constrained family
    /// writes `K_qq` there itself).
    pub fn evaluate<Mdl: PointKernels<T, D>>(
        &mut self,
        model: &Mdl,
        (q, v): (&SVector<T, D>, &SVector<T, D>),
        qq: bool,
    ) {
        if qq {
            model.l_qq(q, v, self.qq.borrow_mut());
        }
        model.l_qv(q, v, self.qv.borrow_mut());
        model.l_vv(q, v, self.vv.borrow_mut());
    }

    /// `(D₁L, D₂L)` at `(q, v)`, and `D₁₁L`, `D₁₂L`, `D₂₂L` into the buffers, in one
    /// call ([`PointKernels::derivatives_anchored`]), which also anchors the point's
    /// `sin` and `cos` for [`first_near`](Self::first_near) (a model with at most `2 D`
    /// trigonometric arguments).
    pub fn evaluate_with_first<Mdl: PointKernels<T, D>>(
        &mut self,
        model: &Mdl,
        (q, v): (&SVector<T, D>, &SVector<T, D>),
    ) -> (SVector<T, D>, SVector<T, D>) {
        self.anchored = Mdl::ANCHORS > 0 && Mdl::ANCHORS <= 2 * D;
        let (buffers, anchors) = self.second_and_anchors();
        model.derivatives_anchored(q, v, buffers, anchors.as_flattened_mut())
    }

    /// [`evaluate_with_first`](Self::evaluate_with_first) near the point another
    /// stage's buffers anchored (`from`): their anchors taken, and `sin` and `cos`
    /// continued from them ([`PointKernels::derivatives_near`]). A Lobatto step's first
    /// stage is where the last step's last stage was.
    pub fn evaluate_with_first_near<Mdl: PointKernels<T, D>>(
        &mut self,
        model: &Mdl,
        (q, v): (&SVector<T, D>, &SVector<T, D>),
        from: &Self,
    ) -> (SVector<T, D>, SVector<T, D>) {
        if !from.anchored {
            return self.evaluate_with_first(model, (q, v));
        }
        (self.anchors, self.anchored) = (from.anchors, true);
        let (buffers, anchors) = self.second_and_anchors();
        model.derivatives_near(q, v, buffers, anchors.as_flattened())
    }

    /// The three second-derivative buffers the fused kernels write, and the anchors.
    fn second_and_anchors(&mut self) -> ([&mut [[T; D]; D]; 3], &mut Anchors<T, D>) {
        let buffers = [
            self.qq.borrow_mut(),
            self.qv.borrow_mut(),
            self.vv.borrow_mut(),
        ];
        (buffers, &mut self.anchors)
    }

    /// `(D₁L, D₂L)` at `(q, v)`: their `sin` and `cos` continued from the anchors of
    /// the last [`evaluate_with_first`](Self::evaluate_with_first) where it wrote them
    /// ([`PointKernels::l_q_and_l_v_near`], for a point near that one, as a Newton
    /// iterate is near the last), evaluated otherwise.
    pub fn first_near<Mdl: PointKernels<T, D>>(
        &self,
        model: &Mdl,
        (q, v): (&SVector<T, D>, &SVector<T, D>),
    ) -> (SVector<T, D>, SVector<T, D>) {
        if self.anchored {
            model.l_q_and_l_v_near(q, v, self.anchors.as_flattened())
        } else {
            model.l_q_and_l_v(q, v)
        }
    }

    /// The three as kernels: the first over `qq` (`D₁₁L`'s or `K_qq`'s pattern), the
    /// others over [`PointKernels::PATTERNS`] (every entry without one).
    pub fn kernels<Mdl: PointKernels<T, D>>(
        &self,
        qq: Option<&'static [(u16, u16)]>,
    ) -> [Kernel<'_, T, D, D>; 3] {
        let point = Mdl::PATTERNS;
        [
            Kernel::new(self.qq.borrow(), qq),
            Kernel::new(self.qv.borrow(), point.map(|p| p.l_qv)),
            Kernel::new(self.vv.borrow(), point.map(|p| p.l_vv)),
        ]
    }
}

/// `(Qʲ, Vʲ, Λʲ)` of every stage.
pub(crate) type StageValues<'a, T, const S: usize, const D: usize, const M: usize> = (
    &'a [SVector<T, D>; S],
    &'a [SVector<T, D>; S],
    &'a [SVector<T, M>; S],
);

/// A family's constraints as a matrix `R(q)` of `M` rows (forces `Rᵀ λ`), read from the
/// model's constraint kernels.
pub(crate) trait ConstraintMatrix<T: Real, Mdl, const D: usize, const M: usize> {
    /// The kernels' structural nonzeros.
    fn patterns() -> Option<ConstraintPatterns>;
    /// `R(q)`, `M × D`.
    fn matrix(model: &Mdl, q: &SVector<T, D>, out: &mut [[T; M]; D]);
    /// `∂(R(q)ᵀ λ)/∂q`, `D × D`.
    fn contracted(model: &Mdl, q: &SVector<T, D>, lambda: &SVector<T, M>, out: &mut [[T; D]; D]);
}

/// The holonomic constraints: `R = DΦ`, `∂(Rᵀ λ)/∂q = Σₐ λₐ D²Φᵃ`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Holonomic;

/// The nonholonomic constraints: `R = A`, `∂(Aᵀ λ)/∂q`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Nonholonomic;

/// `impl ConstraintMatrix for $kind` over the kernel trait `$kernels`: the two kernel
/// traits name the same three things differently.
macro_rules! constraint_matrix {
    ($kind:ty, $kernels:ident, $matrix:ident, $contracted:ident) => {
        impl<T, Mdl, const D: usize, const M: usize> ConstraintMatrix<T, Mdl, D, M> for $kind
        where
            T: Real,
            Mdl: $kernels<T, D, M>,
        {
            fn patterns() -> Option<ConstraintPatterns> {
                Mdl::PATTERNS
            }
            fn matrix(model: &Mdl, q: &SVector<T, D>, out: &mut [[T; M]; D]) {
                model.$matrix(q, out)
            }
            fn contracted(
                model: &Mdl,
                q: &SVector<T, D>,
                lambda: &SVector<T, M>,
                out: &mut [[T; D]; D],
            ) {
                model.$contracted(q, lambda, out)
            }
        }
    };
}

constraint_matrix!(Holonomic, HolonomicKernels, phi_q, phi_qq_contracted);
constraint_matrix!(Nonholonomic, NonholonomicKernels, a, a_t_lambda_q);

/// The kernels of one point of a family constrained by `C`: the [`Hessians`] with
/// `K_qq = D₁₁L + ∂(Rᵀ Λ)/∂q` in place of `D₁₁L`, the constraint term alone before it
/// is added, and `R(q)`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Constrained<T: Real, const D: usize, const M: usize, K: Storage, C> {
    pub hessians: Hessians<T, D, K>,
    term: K::Matrix<T, D>,
    pub matrix: [[T; M]; D],
    kind: PhantomData<C>,
}

impl<T: Real, const D: usize, const M: usize, K: Storage, C> Constrained<T, D, M, K, C> {
    pub fn zeros() -> Self {
        Self {
            hessians: Hessians::zeros(),
            term: K::zeros(),
            matrix: [[T::zero(); M]; D],
            kind: PhantomData,
        }
    }

    /// `Wʲ = D₁L(Qʲ, Vʲ) [+ F(Qʲ, Vʲ, t⁰ + cⱼ h)] + R(Qʲ)ᵀ Λʲ` for every stage, `R(Qʲ)`
    /// evaluated into the buffer.
    pub fn forces<Mdl, X, const S: usize>(
        &mut self,
        known: &Known<'_, T, Mdl, X, S, D>,
        (q, v, lambda): StageValues<'_, T, S, D, M>,
    ) -> [SVector<T, D>; S]
    where
        Mdl: PointKernels<T, D>,
        C: ConstraintMatrix<T, Mdl, D, M>,
    {
        let model = known.model;
        core::array::from_fn(|j| {
            let mut w = known.lagrangian_force(j, &q[j], &v[j]);
            C::matrix(model, &q[j], &mut self.matrix);
            for (k, column) in self.matrix.iter().enumerate() {
                for (a, &r) in column.iter().enumerate() {
                    w[k] += r * lambda[j][a];
                }
            }
            w
        })
    }

    /// Stage `j`'s kernels at `(Qʲ, Vʲ, Λʲ)` and its time `t` (evaluated only if
    /// `evaluate`: the pass that zeroes the plan's entries reads none), `Λʲ`'s first
    /// column `multiplier`.
    #[allow(clippy::too_many_arguments)]
    pub fn stage<'s, Mdl, const S: usize>(
        &'s mut self,
        model: &Mdl,
        (j, a_j, h, t): (usize, &'s [f64; S], T, (T, &Mdl::Inputs)),
        (q, v, lambda): (&SVector<T, D>, &SVector<T, D>, &SVector<T, M>),
        multiplier: usize,
        evaluate: bool,
    ) -> Stage<'s, T, D, M, S>
    where
        Mdl: PointKernels<T, D>,
        C: ConstraintMatrix<T, Mdl, D, M>,
    {
        if evaluate {
            let k_qq: &mut [[T; D]; D] = self.hessians.qq.borrow_mut();
            let term: &mut [[T; D]; D] = self.term.borrow_mut();
            model.l_qq(q, v, k_qq);
            C::contracted(model, q, lambda, term);
            for (k, column) in k_qq.iter_mut().enumerate() {
                for (i, e) in column.iter_mut().enumerate() {
                    *e += term[k][i];
                }
            }
            self.hessians.evaluate(model, (q, v), false);
            self.hessians.evaluate_forces(model, t, (q, v));
            C::matrix(model, q, &mut self.matrix);
        }
        let patterns = C::patterns();
        let [qq, qv, vv] = self.hessians.kernels::<Mdl>(patterns.map(|p| p.k_qq));
        let r = Kernel::new(&self.matrix, patterns.map(|p| p.matrix));
        Stage {
            j,
            a_j,
            h,
            qq,
            qv,
            vv,
            multiplier: Some((multiplier, r)),
            forcing: self.hessians.forcing::<Mdl>(),
        }
    }
}
