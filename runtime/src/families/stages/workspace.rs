//! The memory of a step of any assembled family: Newton's workspace, the coefficients, the
//! family's kernel buffers and the elimination plan `model!` chose, if any.
use nalgebra::SVector;

use super::predict::Predictor;
use super::system::Stages;
use super::{Known, KnownOf, StageBuffers, StageEquations, StepStart};
use crate::model::Real;
use crate::solve::sparse::Plan;
use crate::solve::{Storage, Workspace};
use crate::state::NodeValues;
use crate::tableaux::PartitionedTableau;

/// Memory of a step with `S` stages and `N` unknowns: Newton's workspace, the
/// coefficients `C` (a tableau, or a family's own), the family's kernel buffers `F`,
/// every `N × N` matrix in storage `K`. Each family names it after itself (a type alias
/// over its buffers).
#[derive(Clone, Debug, PartialEq)]
pub struct StageWorkspace<
    T: Real,
    F,
    const S: usize,
    const N: usize,
    K: Storage,
    C = PartitionedTableau<S>,
> {
    newton: Workspace<T, N, K>,
    tableau: C,
    kernels: F,
    plan: Option<&'static Plan>,
    predictor: Predictor<T, S>,
}

impl<T: Real, F: StageBuffers, const S: usize, const N: usize, K: Storage>
    StageWorkspace<T, F, S, N, K>
{
    /// A workspace for the Lobatto IIIA–IIIB pair with `S` stages.
    pub fn lobatto() -> Self {
        let tableau = PartitionedTableau::lobatto_iiia_iiib();
        let mut ws = Self::with_coefficients(tableau);
        ws.predictor = Predictor::new(Some(&tableau.c));
        ws
    }

    /// The workspace of a scheme a model declares (what `model!` emits for every
    /// assembled family): here the Lobatto IIIA–IIIB pair.
    pub fn declared() -> Self {
        Self::lobatto()
    }
}

impl<T: Real, F: StageBuffers, const S: usize, const N: usize, K: Storage, C>
    StageWorkspace<T, F, S, N, K, C>
{
    /// A workspace for the family's equations with the coefficients `coefficients`.
    pub fn with_coefficients(coefficients: C) -> Self {
        const {
            assert!(
                N == S * F::PER_STAGE + F::AFTER_STAGES,
                "N must be the family's unknowns for S stages"
            )
        };
        Self {
            newton: Workspace::new(),
            tableau: coefficients,
            kernels: F::zeros(),
            plan: None,
            predictor: Predictor::new(None),
        }
    }

    /// The workspace factoring the step Jacobian along `plan` (an elimination plan of
    /// its `N × N` pattern, see the family's module) instead of by the dense LU.
    pub fn with_plan(mut self, plan: Option<&'static Plan>) -> Self {
        if let Some(plan) = plan {
            assert_eq!(plan.n, N, "a plan of the step Jacobian's size");
        }
        self.plan = plan;
        self
    }

    /// The unknowns of the last step: its solution if it succeeded.
    pub fn unknowns(&self) -> SVector<T, N> {
        self.newton.x
    }

    /// The coefficients (the tableau).
    pub fn tableau(&self) -> &C {
        &self.tableau
    }

    /// The plan the step Jacobian is factored along, if any.
    pub fn plan(&self) -> Option<&'static Plan> {
        self.plan
    }

    /// The extrapolation of the stage polynomial and the unknowns it continues, if the
    /// last step this workspace solved produced `state` with step size `h`
    /// (`predict.rs`).
    pub(super) fn continued<const D: usize, const Q: usize>(
        &mut self,
        h: T,
        state: &impl NodeValues<T, D, Q>,
    ) -> Option<([[f64; S]; S], SVector<T, N>)> {
        let x = self.newton.x;
        self.predictor.take(h, state).map(|e| (*e, x))
    }

    /// Remembers that the unknowns solve a step of size `h` that produced `next`.
    pub(crate) fn solved<const D: usize, const Q: usize>(
        &mut self,
        h: T,
        next: &impl NodeValues<T, D, Q>,
    ) {
        self.predictor.solved(h, next);
    }

    /// Newton's workspace, and the step equations at `(t⁰, q⁰, p⁰)` and `extra` over the
    /// rest.
    pub(super) fn split<'w, 's, Mdl, const D: usize, const Q: usize>(
        &'w mut self,
        model: &'s Mdl,
        (h, t0, inputs): (T, T, &'s [T]),
        (q0, p0): (&'s SVector<T, Q>, &'s SVector<T, D>),
        extra: <F::State as StepStart<T, Mdl, D, Q>>::Extra,
    ) -> (
        &'w mut Workspace<T, N, K>,
        Stages<'s, T, Mdl, F, S, D, N, Q>,
    )
    where
        'w: 's,
        F: StageEquations<T, Mdl, S, D, N, Q, Coefficients = C>,
    {
        let known: KnownOf<'s, T, Mdl, F, S, D, N, Q> = Known {
            model,
            tableau: &self.tableau,
            h,
            t0,
            q0,
            p0,
            inputs,
            extra,
        };
        // The unknowns are about to be overwritten: no step continues them until one is
        // solved ([`solved`](Self::solved)).
        self.predictor.forget();
        let system = Stages {
            known,
            kernels: &mut self.kernels,
            plan: self.plan,
        };
        (&mut self.newton, system)
    }
}
