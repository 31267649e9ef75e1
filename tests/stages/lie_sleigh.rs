//! The multiplier rule of the nonholonomic family on a group, settled on long runs (t =
//! 200) of three systems on SE(2) and SO(3) × R², as the vector family's was on the
//! Chaplygin sleigh (`sleigh.rs`):
//!
//! - **The Chaplygin sleigh on SE(2)** (the contact point's frame, `η = (u, v₂, ω)`,
//!   `η₂ = 0`): the paper's carried multiplier shows the vector family's spurious mode,
//!   the forward speed `u` falls although the physical sleigh never slows down; the
//!   recomputed multiplier keeps `u` from decreasing. So the group family's default is
//!   the recomputed rule, as the vector family's.
//! - **The unicycle** (`lie_unicycle.rs`): both rules keep its energy and `|η₂|` over
//!   2000 steps.
//! - **The ball on the turntable** (`lie_ball.rs`): the carried rule keeps the moving
//!   energy `I4` bounded (7.4e-9 at s = 2); the recomputed one lets it drift linearly
//!   (that test measures both), the price of a map that is not time-symmetric. A user of
//!   a reversible system names the carried rule (`NonholonomicLobattoCarried`).
use livens::families::prk_lie_nonholonomic::{self, Buffers, MultiplierRule};
use livens::families::prk_lie_nonholonomic::{Carried, Recomputed};
use livens::families::stages::{StageEquations, StageWorkspace};
use livens::prelude::*;
use livens::solve::Inline;
use livens::space::Se2;
use livens::tableaux::PartitionedTableau;
use livens::{Configuration, NonholonomicKernels, PointKernels, Real, StepContext, StepOptions};

/// The sleigh of `livens_models::ChaplyginSleigh` (`m = 1`, `a = 0.5`, `I = 0.2`) in the
/// contact point's body velocity: the centre of mass moves at `(v₁, v₂ + a ω)` in the
/// body frame, `ℓ = ½ m (v₁² + (v₂ + a ω)²) + ½ I ω²`, and the blade does not slip,
/// `η₂ = 0`. Nothing depends on `g`.
#[derive(Clone, Copy, Debug)]
struct Sleigh<T> {
    m: T,
    a: T,
    i: T,
}

impl<T: Real> Sleigh<T> {
    fn new() -> Self {
        let c = |x: f64| T::from_subset(&x);
        Self {
            m: c(1.0),
            a: c(0.5),
            i: c(0.2),
        }
    }
}

impl<T: Real> Configuration<T, 3, 3> for Sleigh<T> {
    type Space = Se2;
    type Inputs = [T; 0];
}

impl<T: Real> PointKernels<T, 3, 3> for Sleigh<T> {
    fn l_q(&self, _: &SVector<T, 3>, _: &SVector<T, 3>) -> SVector<T, 3> {
        SVector::zeros()
    }
    fn l_v(&self, _: &SVector<T, 3>, eta: &SVector<T, 3>) -> SVector<T, 3> {
        let side = self.m * (eta[1] + self.a * eta[2]);
        SVector::from([self.m * eta[0], side, self.a * side + self.i * eta[2]])
    }
    fn l_qq(&self, _: &SVector<T, 3>, _: &SVector<T, 3>, out: &mut [[T; 3]; 3]) {
        *out = [[T::zero(); 3]; 3];
    }
    fn l_qv(&self, _: &SVector<T, 3>, _: &SVector<T, 3>, out: &mut [[T; 3]; 3]) {
        *out = [[T::zero(); 3]; 3];
    }
    fn l_vv(&self, _: &SVector<T, 3>, _: &SVector<T, 3>, out: &mut [[T; 3]; 3]) {
        let (m, a, zero) = (self.m, self.a, T::zero());
        *out = [
            [m, zero, zero],
            [zero, m, m * a],
            [zero, m * a, m * a * a + self.i],
        ];
    }
}

impl<T: Real> NonholonomicKernels<T, 3, 1, 3> for Sleigh<T> {
    fn a(&self, _: &SVector<T, 3>, out: &mut [[T; 1]; 3]) {
        *out = [[T::zero()], [T::one()], [T::zero()]];
    }
    fn a_t_lambda_q(&self, _: &SVector<T, 3>, _: &SVector<T, 1>, out: &mut [[T; 3]; 3]) {
        *out = [[T::zero(); 3]; 3];
    }
    fn a_v_q(&self, _: &SVector<T, 3>, _: &SVector<T, 3>, out: &mut [[T; 1]; 3]) {
        *out = [[T::zero()]; 3];
    }
}

type State = NonholonomicState<f64, 3, 1, 3>;

/// Runs the sleigh from `u = 1`, `ω = 2` for `steps` steps of `h`: the largest decrease
/// of `u` between two nodes and the largest energy error (`E₀ = 1.4`).
fn sleigh<Rule, const S: usize, const N: usize>(h: f64, steps: usize) -> (f64, f64)
where
    Rule: MultiplierRule,
    Rule::Scheme<S>: Default,
    Buffers<f64, 3, 1, 3, Rule>: StageEquations<
        f64,
        Sleigh<f64>,
        S,
        3,
        N,
        3,
        Scheme = Rule::Scheme<S>,
        State = State,
        Coefficients = PartitionedTableau<S>,
    >,
{
    let model = Sleigh::<f64>::new();
    let energy = |s: &State| {
        let (u, w) = (s.v[0], s.v[2]);
        0.5 * model.m * u * u + 0.5 * (model.i + model.m * model.a * model.a) * w * w
    };
    let mut ws: StageWorkspace<f64, Buffers<f64, 3, 1, 3, Rule>, S, N, Inline> =
        StageWorkspace::lobatto();
    let mut state =
        State::from_velocities(&model, SVector::zeros(), SVector::from([1.0, 0.0, 2.0]));
    let e0 = energy(&state);
    let mut options = StepOptions::default();
    options.newton.tolerance = 1e-13;
    let scheme = Rule::Scheme::<S>::default();
    let (mut fall, mut drift): (f64, f64) = (0.0, 0.0);
    for _ in 0..steps {
        let context = StepContext::new(h, state.t);
        let next = prk_lie_nonholonomic::step(&model, &scheme, context, &state, &mut ws, &options);
        let Ok((next, _)) = next else {
            // A Newton failure ends the run: the trajectory is already lost.
            return (f64::INFINITY, f64::INFINITY);
        };
        fall = fall.max(state.v[0] - next.v[0]);
        drift = drift.max((energy(&next) - e0).abs());
        state = next;
    }
    (fall, drift)
}

#[test]
fn sleigh_on_se2_needs_the_recomputed_multiplier() {
    let (h, steps) = (0.1, 2000);
    let carried = [
        sleigh::<Carried, 2, 14>(h, steps),
        sleigh::<Carried, 3, 21>(h, steps),
    ];
    let recomputed = [
        sleigh::<Recomputed, 2, 14>(h, steps),
        sleigh::<Recomputed, 3, 21>(h, steps),
    ];
    println!("sleigh on SE(2), h = {h}, t = 200: (largest fall of u, largest |ΔE|)");
    println!("  carried λ, s = 2, 3: {carried:?}");
    println!("  recomputed λ, s = 2, 3: {recomputed:?}");
    for (fall, drift) in carried {
        assert!(
            fall > 0.1,
            "the carried map's mode should show: fall {fall:e}, |ΔE| {drift:e}"
        );
    }
    // The energy error of the method's order: 1.5e-3 = 0.15 h² (s = 2), 8.9e-6 = 0.09 h⁴
    // (s = 3).
    for ((fall, drift), order) in recomputed.into_iter().zip([2, 4]) {
        assert!(fall <= 1e-9, "fall {fall:e}");
        assert!(drift <= 0.5 * h.powi(order), "|ΔE| {drift:e}");
    }
}
