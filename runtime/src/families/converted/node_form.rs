//! One step of the converted variational integrator in node variables (seed 004,
//! Sect. 3 and 4.2; spec `next_packages.md` §C.3): with the standard layer's end maps
//! `x^±(w) = R^q_{hα^±}(w)`, their derivatives `J^± = Dx^±` and the discrete
//! Lagrangian's derivative `ℓ = DR^S_{hα⁺} − DR^S_{hα⁻}`, the node `(x_k, p_k)` steps
//! to `(x_{k+1}, p_{k+1})` through the unknowns `w = (q, v)` and `μ`:
//!
//! ```text
//! x⁻(w) − x_k = 0                              (N)
//! ℓ(w) + p_kᵀ J⁻(w) − μᵀ J⁺(w) = 0             (2N: its q and v halves)
//! x_{k+1} = x⁺(w),   p_{k+1} = μ
//! ```
//!
//! Solved by the paper's "approximate" iteration (Sect. 4.2, (4.9)), a chord method
//! whose matrix takes `ℓ_q ≈ h L_q`, `ℓ_v ≈ h vᵀM₀`, `J^± ≈ [I, hα^± I]`:
//!
//! ```text
//! A₀ = [[I, hα⁻I, 0], [0, 0, −I], [0, hM₀, −hα⁺I]],   M₀ = L_vv(x_k, v_guess)
//! ```
//!
//! whose solve needs one `N × N` factorisation, of `M₀`. It converges linearly, with a
//! factor that shrinks with `h`.
use nalgebra::{SMatrix, SVector};

use super::standard::{flow, flow_tangent, Flow};
use super::SecondOrderKernels;
use crate::error::SolveError;
use crate::model::Real;
use crate::solve::lu::Lu;
use crate::solve::max_abs;
pub use crate::state::ConvertedState;
use crate::tableaux::{LayerError, Tableau};

/// Where the end points of a segment sit in the step: `x⁻ = R^q_{hα⁻}`,
/// `x⁺ = R^q_{hα⁺}`, with `α⁺ − α⁻ = 1`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bias {
    /// `(α⁻, α⁺) = (0, 1)`: the segment starts at the node; order of the tableau.
    Forward,
    /// `(α⁻, α⁺) = (−½, ½)`: the segment straddles the step (the paper prints
    /// `α⁻ = α⁺ = ½`, a typo, spec §C.1); self-adjoint with a self-adjoint standard
    /// layer, the next even order otherwise (spec §C.6's calibrations).
    Symmetric,
}

impl Bias {
    /// `(α⁻, α⁺)`.
    pub fn alphas(self) -> (f64, f64) {
        match self {
            Bias::Forward => (0.0, 1.0),
            Bias::Symmetric => (-0.5, 0.5),
        }
    }

    /// The end maps' signed steps `(t⁻, t⁺) = (hα⁻, hα⁺)`.
    pub fn signed_steps<T: Real>(self, h: T) -> (T, T) {
        let (alpha_minus, alpha_plus) = self.alphas();
        (
            h * nalgebra::convert(alpha_minus),
            h * nalgebra::convert(alpha_plus),
        )
    }

    /// The bias named `name`, as the catalogue's `Bias` choices are (`Forward`,
    /// `Symmetric`); `None` for another name.
    pub fn named(name: &str) -> Option<Self> {
        match name {
            "Forward" => Some(Bias::Forward),
            "Symmetric" => Some(Bias::Symmetric),
            _ => None,
        }
    }
}

/// A converted scheme: an explicit tableau for the standard layer and a bias.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Conversion<const S: usize> {
    /// The standard layer's tableau (explicit).
    pub tableau: Tableau<S>,
    /// Where the segment's end points sit.
    pub bias: Bias,
}

impl<const S: usize> Conversion<S> {
    /// A converted scheme from a tableau given as data, checked first
    /// ([`Tableau::check_layer`]): finite, explicit, `c = A·1`, and every order condition
    /// up to `claimed` holds. A tableau that fails its claimed order is refused with
    /// the order its conditions give and the defect ([`LayerError::Order`]).
    pub fn checked(tableau: Tableau<S>, bias: Bias, claimed: usize) -> Result<Self, LayerError> {
        tableau.check_layer(claimed)?;
        Ok(Self { tableau, bias })
    }

    /// The converted scheme's order: its tableau's (its order conditions at
    /// [`ORDER_TOLERANCE`](crate::tableaux::ORDER_TOLERANCE)), the next even one with
    /// the symmetric bias (spec §C.1, measured in this module's tests), as the
    /// catalogue's `converted_order` for the built-in layers.
    pub fn order(&self) -> usize {
        let order = self.tableau.order(crate::tableaux::ORDER_TOLERANCE);
        match self.bias {
            Bias::Forward => order,
            Bias::Symmetric => order + order % 2,
        }
    }
}

/// How the step's equations are iterated.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Iteration {
    /// The paper's approximate iteration (Sect. 4.2): the chord matrix `A₀` of the
    /// module's doc, one factorisation of `M₀` per step, linear convergence.
    Chord,
    /// Newton's method with the exact Jacobian: the momentum rows' derivatives in `w`
    /// from the second-order variational equations ([`flow_tangent`]), which read the
    /// model's [`acceleration_second`](SecondOrderKernels::acceleration_second);
    /// quadratic convergence. Each iteration runs the standard layer with a tangent
    /// `4N` times.
    Newton,
    /// Newton's method with the exact blocks where the equations give them (`J⁻` in the
    /// position rows, `−J^±ᵀ` for `μ`) and central differences of the residual in `w`
    /// for the rest: a robustness path and a check of the chord's solution (spec
    /// §C.3). Each iteration evaluates the standard layer `2 + 8N` times.
    FiniteDifferenceNewton,
}

/// The step's iteration, stopping rule and budget.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConvertedOptions<T> {
    /// Stop when the largest update is at most this (absolute).
    pub tolerance: T,
    /// Iterations before [`SolveError::MaxIterations`].
    pub max_iterations: u32,
    /// Chord or Newton.
    pub iteration: Iteration,
}

/// The residual's three blocks at `(w, μ)`, and the end maps' derivatives there.
pub(super) struct Residual<T: Real, const N: usize> {
    pub(super) position: SVector<T, N>,
    pub(super) momentum_q: SVector<T, N>,
    pub(super) momentum_v: SVector<T, N>,
    pub(super) minus: Flow<T, N>,
    pub(super) plus: Flow<T, N>,
}

/// One step's equations at the node `(x_k, p_k)`: the model, the standard layer's
/// tableau and the end maps' signed steps `t^± = hα^±`.
pub(super) struct Equations<'a, T: Real, K, const N: usize, const S: usize> {
    pub(super) model: &'a K,
    pub(super) tableau: &'a Tableau<S>,
    pub(super) t_minus: T,
    pub(super) t_plus: T,
    pub(super) x: SVector<T, N>,
    pub(super) p: SVector<T, N>,
}

impl<'a, T: Real, K: SecondOrderKernels<T, N>, const N: usize, const S: usize>
    Equations<'a, T, K, N, S>
{
    pub(super) fn new(
        model: &'a K,
        scheme: &'a Conversion<S>,
        h: T,
        x: SVector<T, N>,
        p: SVector<T, N>,
    ) -> Self {
        let (t_minus, t_plus) = scheme.bias.signed_steps(h);
        Self {
            model,
            tableau: &scheme.tableau,
            t_minus,
            t_plus,
            x,
            p,
        }
    }

    /// The standard layer at `w` over `t⁻` and `t⁺`: the end maps and their derivatives.
    fn flows(&self, q: &SVector<T, N>, v: &SVector<T, N>) -> (Flow<T, N>, Flow<T, N>) {
        (
            flow(self.model, self.tableau, self.t_minus, q, v),
            flow(self.model, self.tableau, self.t_plus, q, v),
        )
    }

    pub(super) fn residual(
        &self,
        q: &SVector<T, N>,
        v: &SVector<T, N>,
        mu: &SVector<T, N>,
    ) -> Residual<T, N> {
        let (minus, plus) = self.flows(q, v);
        let p = &self.p;
        // ℓ + p_kᵀ J⁻ − μᵀ J⁺, transposed to columns, in its q and v halves.
        let momentum_q =
            plus.action_q - minus.action_q + minus.q_q.transpose() * p - plus.q_q.transpose() * mu;
        let momentum_v =
            plus.action_v - minus.action_v + minus.q_v.transpose() * p - plus.q_v.transpose() * mu;
        Residual {
            position: minus.q - self.x,
            momentum_q,
            momentum_v,
            minus,
            plus,
        }
    }

    /// The momentum rows' derivatives by central differences of the residual, each
    /// column from two residuals.
    fn difference_blocks(
        &self,
        q: &SVector<T, N>,
        v: &SVector<T, N>,
        mu: &SVector<T, N>,
    ) -> MomentumBlocks<T, N> {
        // ε^(1/3), the step of a central difference balancing truncation and round-off.
        let cube_root_eps = T::default_epsilon().cbrt();
        MomentumBlocks::by_columns(|half, j| {
            let mut shift = [SVector::<T, N>::zeros(); 2];
            let x = if half == 0 { q[j] } else { v[j] };
            let e = cube_root_eps * (T::one() + x.abs());
            shift[half][j] = e;
            let a = self.residual(&(q + shift[0]), &(v + shift[1]), mu);
            let b = self.residual(&(q - shift[0]), &(v - shift[1]), mu);
            let two_e = e + e;
            [
                (a.momentum_q - b.momentum_q) / two_e,
                (a.momentum_v - b.momentum_v) / two_e,
            ]
        })
    }

    /// The momentum rows' derivatives in `w`, exactly: along each unit direction `u` of
    /// `w`, `Q′ = ℓ_q′ + (J⁻_q′)ᵀ p_k − (J⁺_q′)ᵀ μ` and `V′` likewise, with the primes
    /// from [`flow_tangent`] at both end maps.
    pub(super) fn exact_blocks(
        &self,
        q: &SVector<T, N>,
        v: &SVector<T, N>,
        mu: &SVector<T, N>,
    ) -> MomentumBlocks<T, N> {
        let p = &self.p;
        MomentumBlocks::by_columns(|half, j| {
            let mut u = [SVector::<T, N>::zeros(); 2];
            u[half][j] = T::one();
            let tangent =
                |t: T| flow_tangent(self.model, self.tableau, t, (q, v), (&u[0], &u[1])).1;
            let (minus, plus) = (tangent(self.t_minus), tangent(self.t_plus));
            [
                plus.action_q - minus.action_q + minus.q_q.transpose() * p
                    - plus.q_q.transpose() * mu,
                plus.action_v - minus.action_v + minus.q_v.transpose() * p
                    - plus.q_v.transpose() * mu,
            ]
        })
    }
}

/// One step of `scheme` from `state` with step `h`, by the chord iteration of the
/// module's doc from the previous segment state: the new state and the iterations
/// taken. A failed solve is an error and leaves `state` to the caller unchanged.
pub fn step<T: Real, K: SecondOrderKernels<T, N>, const N: usize, const S: usize>(
    model: &K,
    scheme: &Conversion<S>,
    h: T,
    state: &ConvertedState<T, N>,
    options: &ConvertedOptions<T>,
) -> Result<(ConvertedState<T, N>, u32), SolveError<T>> {
    let equations = Equations::new(model, scheme, h, state.x, state.p);
    let (t_minus, t_plus) = (equations.t_minus, equations.t_plus);
    // The guess: the last segment velocity, its position placed so that x⁻ ≈ x_k.
    let mut v = state.v;
    let mut q = state.x - v * t_minus;
    let mut mu = state.p;
    // M₀ = L_vv(x_k, v_guess), factored once.
    let mass = Lu::factor(model.l_vv(&state.x, &v)).map_err(singular(0))?;
    for iteration in 1..=options.max_iterations {
        let r = equations.residual(&q, &v, &mu);
        let (delta_q, delta_v, delta_mu) = match options.iteration {
            Iteration::Chord => {
                // A₀ δ = −r:  δμ = r_q;  h M₀ δv = −r_v + hα⁺ δμ;  δq = −r_x − hα⁻ δv.
                let delta_mu = r.momentum_q;
                let mut delta_v = (delta_mu * t_plus - r.momentum_v) / h;
                mass.solve_in_place(&mut delta_v);
                (-r.position - delta_v * t_minus, delta_v, delta_mu)
            }
            Iteration::Newton | Iteration::FiniteDifferenceNewton => {
                let blocks = if options.iteration == Iteration::Newton {
                    equations.exact_blocks(&q, &v, &mu)
                } else {
                    equations.difference_blocks(&q, &v, &mu)
                };
                newton_update(&r, &blocks).map_err(singular(iteration))?
            }
        };
        q += delta_q;
        v += delta_v;
        mu += delta_mu;
        // `max_abs` keeps a NaN (a plain `max` passes over it).
        let size = largest(&[delta_q, delta_v, delta_mu]);
        if !size.is_finite() {
            return Err(SolveError::NonFinite { iteration });
        }
        if size <= options.tolerance {
            let x = flow(model, &scheme.tableau, t_plus, &q, &v).q;
            return Ok((
                ConvertedState {
                    t: state.t + h,
                    x,
                    p: mu,
                    q,
                    v,
                },
                iteration,
            ));
        }
    }
    let r = equations.residual(&q, &v, &mu);
    Err(SolveError::MaxIterations {
        iterations: options.max_iterations,
        residual: largest(&[r.position, r.momentum_q, r.momentum_v]),
    })
}

/// The largest `|entry|` of the blocks, or a non-finite one if there is any.
fn largest<T: Real, const N: usize>(blocks: &[SVector<T, N>; 3]) -> T {
    // A non-finite entry, once met, stays (`x > NaN` is false).
    blocks.iter().map(max_abs).fold(
        T::zero(),
        |m, x| if !x.is_finite() || x > m { x } else { m },
    )
}

/// `∂/∂q` and `∂/∂v` of the momentum rows (`Q` the rows of `ℓ_q + …`, `V` of
/// `ℓ_v + …`), exactly or by central differences.
pub(super) struct MomentumBlocks<T: Real, const N: usize> {
    pub(super) q_q: SMatrix<T, N, N>,
    pub(super) q_v: SMatrix<T, N, N>,
    pub(super) v_q: SMatrix<T, N, N>,
    pub(super) v_v: SMatrix<T, N, N>,
}

impl<T: Real, const N: usize> MomentumBlocks<T, N> {
    /// The blocks column by column: `column(half, j)` gives the derivatives of the `Q`
    /// and `V` rows by `w`'s entry `j` of `q` (`half = 0`) or of `v` (`half = 1`).
    fn by_columns(mut column: impl FnMut(usize, usize) -> [SVector<T, N>; 2]) -> Self {
        let zero = SMatrix::<T, N, N>::zeros();
        let mut blocks = Self {
            q_q: zero,
            q_v: zero,
            v_q: zero,
            v_v: zero,
        };
        for half in 0..2 {
            for j in 0..N {
                let [dq, dv] = column(half, j);
                let (q_block, v_block) = if half == 0 {
                    (&mut blocks.q_q, &mut blocks.v_q)
                } else {
                    (&mut blocks.q_v, &mut blocks.v_v)
                };
                q_block.set_column(j, &dq);
                v_block.set_column(j, &dv);
            }
        }
        blocks
    }
}

/// Newton's update `J δ = −r` by block elimination, every solve `N × N`. With `P` the
/// position rows (`J⁻`), `Q`, `V` the momentum rows and `Q_μ = −J⁺_qᵀ`, `V_μ = −J⁺_vᵀ`:
///
/// ```text
/// δq = a + B δv,       a = −P_q⁻¹ r_P,               B = −P_q⁻¹ P_v
/// δμ = c + D δv,       c = −Q_μ⁻¹ (r_Q + Q_q a),     D = −Q_μ⁻¹ (Q_q B + Q_v)
/// (V_q B + V_v + V_μ D) δv = −r_V − V_q a − V_μ c
/// ```
///
/// (`P_q` and `Q_μ` are `I + O(h)`). A singular block is `SolveError::SingularMatrix`.
#[allow(clippy::type_complexity)]
fn newton_update<T: Real, const N: usize>(
    r: &Residual<T, N>,
    blocks: &MomentumBlocks<T, N>,
) -> Result<(SVector<T, N>, SVector<T, N>, SVector<T, N>), SolveError<T>> {
    let p_q = Lu::factor(r.minus.q_q)?;
    let mut a = -r.position;
    p_q.solve_in_place(&mut a);
    let mut b = -r.minus.q_v;
    p_q.solve_matrix_in_place(&mut b);
    let (q_mu, v_mu) = (-r.plus.q_q.transpose(), -r.plus.q_v.transpose());
    let q_mu_lu = Lu::factor(q_mu)?;
    let mut c = -(r.momentum_q + blocks.q_q * a);
    q_mu_lu.solve_in_place(&mut c);
    let mut d = -(blocks.q_q * b + blocks.q_v);
    q_mu_lu.solve_matrix_in_place(&mut d);
    let schur = blocks.v_q * b + blocks.v_v + v_mu * d;
    let mut delta_v = -(r.momentum_v + blocks.v_q * a + v_mu * c);
    Lu::factor(schur)?.solve_in_place(&mut delta_v);
    Ok((a + b * delta_v, delta_v, c + d * delta_v))
}

/// The first segment state `w₀` from initial positions and velocities (spec §C.3,
/// initialisation (i)): `(q₀, v₀)` itself for the forward bias; for the symmetric one,
/// whose segment sits at the middle of its step, the standard layer run from
/// `(q₀, v₀)` over `−α⁻h`.
pub fn first_segment<T: Real, K: SecondOrderKernels<T, N>, const N: usize, const S: usize>(
    model: &K,
    scheme: &Conversion<S>,
    h: T,
    q0: &SVector<T, N>,
    v0: &SVector<T, N>,
) -> (SVector<T, N>, SVector<T, N>) {
    let alpha_minus: T = nalgebra::convert(scheme.bias.alphas().0);
    if alpha_minus == T::zero() {
        (*q0, *v0)
    } else {
        let start = flow(model, &scheme.tableau, -(h * alpha_minus), q0, v0);
        (start.q, start.v)
    }
}

/// The node of a segment state `w = (q, v)`, as the paper's construction starts
/// (spec §C.3, initialisation (i), with `w` from [`first_segment`]): `x = x⁻(w)`,
/// `p = −D₁L_d(w)`. `D₁L_d` and `D₂L_d` follow from `ℓ = D₁L_d J⁻ + D₂L_d J⁺` by block
/// elimination (`N × N` solves only):
///
/// ```text
/// b = (J⁺_vᵀ)⁻¹ (ℓ_v − J⁻_vᵀ a),   (J⁻_qᵀ − J⁺_qᵀ (J⁺_vᵀ)⁻¹ J⁻_vᵀ) a = ℓ_q − J⁺_qᵀ (J⁺_vᵀ)⁻¹ ℓ_v
/// ```
///
/// with `a = D₁L_d`, `b = D₂L_d`. The state carries `w`, which the first step then
/// solves for again from `(x, p)`. A singular block is an error.
pub fn from_segment<T: Real, K: SecondOrderKernels<T, N>, const N: usize, const S: usize>(
    model: &K,
    scheme: &Conversion<S>,
    h: T,
    q: &SVector<T, N>,
    v: &SVector<T, N>,
) -> Result<ConvertedState<T, N>, SolveError<T>> {
    // Only the end maps: no node yet.
    let ends = Equations::new(model, scheme, h, SVector::zeros(), SVector::zeros());
    let (minus, plus) = ends.flows(q, v);
    let (l_q, l_v) = (
        plus.action_q - minus.action_q,
        plus.action_v - minus.action_v,
    );
    let k = Lu::factor(plus.q_v.transpose()).map_err(singular(0))?;
    let mut k_l_v = l_v;
    k.solve_in_place(&mut k_l_v);
    let mut k_j_minus_v = minus.q_v.transpose();
    k.solve_matrix_in_place(&mut k_j_minus_v);
    let schur = minus.q_q.transpose() - plus.q_q.transpose() * k_j_minus_v;
    let mut a = l_q - plus.q_q.transpose() * k_l_v;
    Lu::factor(schur)
        .map_err(singular(0))?
        .solve_in_place(&mut a);
    Ok(ConvertedState {
        t: T::zero(),
        x: minus.q,
        p: -a,
        q: *q,
        v: *v,
    })
}

/// A singular matrix met while solving a step (in `iteration`; 0 before the first),
/// reported as a singular Jacobian at the same column.
fn singular<T>(iteration: u32) -> impl Fn(SolveError<T>) -> SolveError<T> {
    move |error| SolveError::SingularJacobian {
        iteration,
        column: match error {
            SolveError::SingularMatrix { column } => column,
            _ => 0,
        },
    }
}
