//! The scheme catalogue of livens: every scheme it offers, declared once, as data.
//!
//! Both `livens-runtime` and `livens-macros` read it, each with a `macro_rules!` reader
//! of its own that takes the fields it needs and ignores the rest:
//!
//! ```text
//! macro_rules! catalogue { (sizes($d:ident, $m:ident, $k:ident); choices { … } …) => { … } }
//! livens_catalogue::with_catalogue!(catalogue);
//! ```
//!
//! From it are generated, never hand-kept: the marker types and their rustdoc,
//! `SchemeInfo`, `livens::schemes::CATALOGUE` (runtime), the macro's scheme names and
//! their parameters, requirement checks and template dispatch (macro). The README's
//! scheme table is checked against it (`tests/contracts/catalogue.rs`). It is a crate of its own,
//! rather than a file both crates `include!`, so that each crate reads it without
//! reaching outside its own folder and each can be packaged. The tokens of a `template:`
//! field name functions of the macro crate: the reader resolves them where it is
//! invoked, as `macro_rules!` resolves paths.
//!
//! # Grammar
//!
//! `sizes(d, m, k);` names the model's sizes the `unknowns` use. `families { … }`
//! declares how a step of each family is built: `symbolic` (a template per scheme), or
//! `assembled` from point kernels by a runtime module (`driver`) with its workspace (the
//! sizes it takes between the scalar and the unknowns' count), the state it carries, the
//! kernels beyond the point kernels it needs (`Holonomic`, `Nonholonomic`), the rule of
//! its Jacobian's pattern in the macro crate's `stage_patterns` (`none`: the dense LU)
//! and the multipliers an elimination plan may pivot on in pairs of stages. A new
//! assembled family is its equations file in the runtime, its entry here and its `mod`
//! line; `model!` emits its kernels, plan and `Step` impl from the entry. `choices { Set { A, B } … }`
//! declares the named choices a scheme parameter may range over (`Quadrature { Gauss,
//! Lobatto }`, the rule of the Galerkin schemes). Then one entry
//! per scheme; adding a scheme is one entry here and its template (a symbolic family) or
//! nothing (an assembled family). Fields, in this order:
//!
//! - doc comment: the marker's rustdoc, with the paper's equations;
//! - `Name`, or `Name<P in …, …>` for a scheme with parameters, each an integer range
//!   (`S in 2..=10`) or a named choice (`R in Quadrature`). A scheme with parameters is
//!   written `Name(3)`, `Name(4, 2, Gauss)` in `model!` and `Name<3>`, `Name<4, 2, Gauss>`
//!   in Rust (a choice is a type of `livens::schemes`); in `model!` a choice may carry the
//!   parameters that follow it, `Galerkin(2, 2, Gauss(2))` for `Galerkin(2, 2, Gauss, 2)`;
//! - `marker`: `unit` (the struct is generated from the entry) or `defined` (a struct
//!   with run-time coefficients, written in the runtime's `schemes/` module);
//! - `label`, `family` (one of `families`), `source`, `equations`;
//! - `unknowns`: the blocks of one step's unknowns with their sizes in `d` (coordinates),
//!   `m` (holonomic constraints) and `k` (the velocity-level constraints a nonholonomic
//!   scheme integrates: the nonholonomic ones, and in a model that also has holonomic
//!   ones their velocity forms `G(q) v = 0`, so `k + m`); `V[S]: d` is one block `Vᵢ` of
//!   size `d` for each `i` up to the integer parameter `S`;
//! - `order` in `q`, `p` and the multipliers (`None`: none, or not stated and not
//!   measured), expressions in the parameters if there are any: an integer parameter is
//!   its `usize`, a choice its name (`"Gauss"`), and a function they call resolves where
//!   the runtime's reader is invoked (`galerkin_order(S, W, Q, R)`);
//! - `energy` (`Exact`, `Oscillates`, `Drifts`), `symplectic`;
//! - `requires`: `mass` (`Constant`, `Regular`, `Any`), `constraints` (`Unconstrained`,
//!   `Holonomic`, `Nonholonomic`), `model` (`Any`; `OneQuaternion`: one `Quat` with its
//!   unit norm only; `RigidBody`: that, with the kinetic energy `½ Ω·J₀Ω`) and `forces`
//!   (whether the template adds the `forces` block's term; `model!` refuses a forced
//!   model otherwise);
//! - `constraints_at_nodes`: whether `g(q) = 0` is one of its equations at the nodes
//!   (`false` for schemes without constraints);
//! - `note`: where the constraints hold, what to watch for (one line, for the README);
//! - `template` (symbolic families only): the function in the macro crate's `schemes/`
//!   that builds the step equations from the model, its quantities and the unknowns'
//!   blocks (`Inputs`).
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

/// A parameter of a scheme, as the catalogue declares it: `S in 2..=10`. Both readers
/// hold their entries' parameters in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param {
    /// Its name, e.g. `S`.
    pub name: &'static str,
    /// The values `model!` accepts.
    pub kind: ParamKind,
}

/// The values a scheme parameter takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// An integer in `lo..=hi` (a stage count, a polynomial degree): a const generic
    /// `usize` of the marker.
    Count {
        /// The least value.
        lo: usize,
        /// The greatest value.
        hi: usize,
    },
    /// One of the named choices of the set `set` (declared in the catalogue's
    /// `choices`): a type parameter of the marker, bounded by the set's trait.
    Choice {
        /// The set's name, e.g. `Quadrature`.
        set: &'static str,
    },
}

/// The value of one parameter of a scheme instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    /// An integer parameter's value.
    Count(usize),
    /// A named choice, e.g. `Gauss`.
    Choice(&'static str),
}

impl core::fmt::Display for Arg {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Count(n) => write!(f, "{n}"),
            Self::Choice(name) => f.write_str(name),
        }
    }
}

/// Invokes the macro `$reader` with the whole catalogue (grammar in the crate docs).
#[macro_export]
macro_rules! with_catalogue {
    ($reader:ident) => {
        $reader! {
            sizes(d, m, k);
            choices {
                Quadrature { Gauss, Lobatto }
                StandardLayer { Euler, Heun, Kutta3, Rk4 }
                Bias { Forward, Symmetric }
            }
            families {
                /// Two-point schemes whose step equations a template in the macro crate
                /// builds symbolically; Newton on the emitted system (`families::two_point`).
                TwoPoint { kind: symbolic }
                /// The variational partitioned Runge–Kutta family, assembled at run time
                /// from the point kernels (`families::prk`; on a group `families::prk_lie`).
                Prk {
                    kind: assembled,
                    driver: prk,
                    workspace: PrkWorkspace[S, d],
                    state: PhaseState[d],
                    kernels: [],
                    pattern: Unconstrained,
                    partners: none,
                }
                /// Its holonomically constrained form (`families::prk_holonomic`): every
                /// stage's multipliers, pivoted in pairs of stages when planned.
                PrkHolonomic {
                    kind: assembled,
                    driver: prk_holonomic,
                    workspace: PrkHolonomicWorkspace[S, d, m],
                    state: PhaseState[d],
                    kernels: [Holonomic],
                    pattern: Holonomic,
                    partners: multipliers(m, 0),
                }
                /// Its nonholonomic form (`families::prk_nonholonomic`), each step's first
                /// multiplier from the continuous equations; the first stage's multipliers
                /// have a trivial equation of their own.
                PrkNonholonomic {
                    kind: assembled,
                    driver: prk_nonholonomic,
                    workspace: PrkNonholonomicWorkspace[S, d, k],
                    state: NonholonomicState[d, k],
                    kernels: [Nonholonomic],
                    pattern: Nonholonomic,
                    partners: multipliers(k, 1),
                }
                /// The same equations with the first multiplier carried from the previous
                /// step, as the paper's map on `(q, p, λ)`.
                PrkNonholonomicCarried {
                    kind: assembled,
                    driver: prk_nonholonomic,
                    workspace: PrkNonholonomicCarriedWorkspace[S, d, k],
                    state: NonholonomicState[d, k],
                    kernels: [Nonholonomic],
                    pattern: Nonholonomic,
                    partners: multipliers(k, 1),
                }
                /// The Galerkin variational integrators (`families::galerkin`): control
                /// points of the positions and multipliers at Lobatto points, the tables
                /// built from the scheme's rule; the dense LU (no pattern rule yet).
                Galerkin {
                    kind: assembled,
                    driver: galerkin,
                    workspace: GalerkinWorkspace[S, W, Q, R, d, m],
                    state: GalerkinState[d, m],
                    kernels: [Holonomic],
                    pattern: none,
                    partners: none,
                }
                /// Variational integrators converted from one-step methods
                /// (`families::converted`): the standard layer run on the model's
                /// second-order system, whose acceleration and its derivatives come from
                /// the Euler–Lagrange kernels; one step's unknowns are a segment state
                /// and the next momentum, not stages.
                Converted {
                    kind: assembled,
                    driver: converted,
                    workspace: ConvertedWorkspace[L, B, d],
                    state: ConvertedState[d],
                    kernels: [EulerLagrange],
                    pattern: none,
                    partners: none,
                }
                /// The same with a tableau given as data (`families::converted_tableau`):
                /// the scheme value carries it, the workspace only Newton's memory.
                ConvertedTableau {
                    kind: assembled,
                    driver: converted_tableau,
                    workspace: ConvertedTableauWorkspace[d],
                    state: ConvertedState[d],
                    kernels: [EulerLagrange],
                    pattern: none,
                    partners: none,
                }
                /// The same with holonomic constraints (`families::converted_holonomic`):
                /// the constrained acceleration from the saddle system, the end points
                /// projected onto the constraints; the Jacobian by differences.
                ConvertedHolonomic {
                    kind: assembled,
                    driver: converted_holonomic,
                    workspace: ConvertedHolonomicWorkspace[L, B, d, m],
                    state: ConvertedState[d],
                    kernels: [Holonomic, EulerLagrange, Curvature],
                    pattern: none,
                    partners: none,
                }
            }

            /// First-order GGL variational integrator, "VI-S" (Kinon, Betsch, Schneider 2023,
            /// Sect. 4.1, eq. (55); spec 000 §2.1), a generalisation of the symplectic Euler method:
            ///
            /// ```text
            /// (55a) q¹ − q⁰ = h v⁰ + h M⁻¹ G(q̄)ᵀ γ¹,            q̄ = q⁰ + h v⁰
            /// (55b) p¹ − p⁰ = h ∂L/∂q(q⁰, v⁰) − h G(q⁰)ᵀ λ⁰ − h T(q̄, γ¹) M⁻¹ p¹
            /// (55c) ∂L/∂v(q⁰, v⁰) = (I + h T(q̄, γ¹) M⁻¹) p¹
            /// (55d) 0 = g(q¹)
            /// (55e) 0 = G(q̄) M⁻¹ p¹
            /// ```
            ///
            /// with `T(q, γ) = Σ_k γ_k H_k(q)`. Unknowns `(q¹, p¹, v⁰, λ⁰, γ¹)`, `3d + 2m`.
            ///
            /// **Index quirk:** `v⁰`, the velocity of `[tⁿ, tⁿ⁺¹]`, is solved in the step n → n+1,
            /// so after a step the state's `v` is the velocity of the interval that just ended; the
            /// user's initial `v` only sets `p⁰` and the Newton guess.
            ///
            /// Properties: symplectic, momentum maps conserved, first order; energy oscillates.
            /// `g = 0` at the nodes; the secondary constraint holds at `q̄`, so `G(qⁿ) M⁻¹ pⁿ` is
            /// zero only for linear constraints and special cases such as the pendulum.
            GglViS {
                marker: unit,
                label: "VI-S",
                family: TwoPoint,
                source: "Kinon, Betsch, Schneider 2023, Sect. 4.1; spec 000 §2.1",
                equations: "(55)",
                unknowns: [q1: d, p1: d, v0: d, lambda0: m, gamma1: m],
                order: { q: 1, p: 1, multipliers: None },
                energy: Oscillates,
                symplectic: true,
                requires: { mass: Constant, constraints: Holonomic, model: Any, forces: false },
                constraints_at_nodes: true,
                note: "`g = 0` at nodes, `G M⁻¹ p = 0` at `q̄ = q⁰ + h v⁰` (at nodes for linear `g`); the state's `v` lags one step",
                template: ggl_vi_s::template,
            }

            /// GGL variational integrator, one-stage θ-method with option A and θ = ½, "VI-A"
            /// (Kinon, Betsch, Schneider 2023, Sect. 4.3.1, eq. (79); spec 000 §2.4):
            ///
            /// ```text
            /// (79a) q¹ − q⁰ = h v¹ + h M⁻¹ G(q^θ)ᵀ γ
            /// (79b) p¹ − p⁰ = h ∂L/∂q(q^θ, v¹) − h G(q^θ)ᵀ λ − h Σ_k γ_k H_k(q^θ) v¹
            /// (79c) ∂L/∂v(q^θ, v¹) = θ p⁰ + (1 − θ) p¹
            /// (79d) 0 = g(q^θ)
            /// (79e) 0 = G(q^θ) v¹
            /// ```
            ///
            /// with `q^θ = (1 − θ) q⁰ + θ q¹`. Unknowns `(q¹, p¹, v¹, λ, γ)`, `3d + 2m` equations.
            /// `v¹` is the velocity of the interval `[tⁿ, tⁿ⁺¹]` and the multipliers belong to it.
            ///
            /// Properties: symplectic, momentum maps conserved, second order; energy not conserved
            /// but bounded. Both constraint levels hold exactly at the midpoints `q^½`, not at the
            /// nodes (except for linear constraints). Requires a constant mass matrix.
            GglViA {
                marker: unit,
                label: "VI-A",
                family: TwoPoint,
                source: "Kinon, Betsch, Schneider 2023, Sect. 4.3.1; spec 000 §2.4",
                equations: "(79), θ = ½",
                unknowns: [q1: d, p1: d, v1: d, lambda: m, gamma: m],
                order: { q: 2, p: 2, multipliers: None },
                energy: Oscillates,
                symplectic: true,
                requires: { mass: Constant, constraints: Holonomic, model: Any, forces: false },
                constraints_at_nodes: false,
                note: "`g = 0` and `G v = 0` at the midpoints, not at the nodes",
                template: |model, inputs| ggl_theta::template(model, inputs, Coef::Const(0.5), Constraints::Intermediate),
            }

            /// GGL variational θ-method with option B, θ = 1 and ϑ = ½, "VI-B" (Kinon, Betsch,
            /// Schneider 2023, Sect. 4.3.2, eq. (83); spec 000 §2.5):
            ///
            /// ```text
            /// (83a) q¹ − q⁰ = h v¹ + h M⁻¹ G(q¹)ᵀ γ
            /// (83b) p¹ − p⁰ = h ∂L/∂q(q¹, v¹) − (h/2)(G(q⁰) + G(q¹))ᵀ λ − h T(q¹, γ) v¹
            /// (83c) ∂L/∂v(q¹, v¹) = p⁰ − (h/2) G(q⁰)ᵀ λ
            /// (83d) 0 = g(q¹)
            /// (83e) 0 = G(q¹) v¹
            /// ```
            ///
            /// Unknowns `(q¹, p¹, v¹, λ, γ)`, `3d + 2m`. Properties: symplectic, momentum maps
            /// conserved, first order. `g(qⁿ) = 0` and `G(qⁿ) vⁿ = 0` exactly, but `G M⁻¹ p ≠ 0`:
            /// `pⁿ` belongs with `vⁿ⁺¹`. Its `λ` oscillates with period 2 around the physical
            /// multiplier (spec 000 §2.5); do not compare it directly with other schemes'. For
            /// θ = 1 its positions follow the VI-S recursion.
            GglViB {
                marker: unit,
                label: "VI-B",
                family: TwoPoint,
                source: "Kinon, Betsch, Schneider 2023, Sect. 4.3.2; spec 000 §2.5",
                equations: "(83), θ = 1, ϑ = ½",
                unknowns: [q1: d, p1: d, v1: d, lambda: m, gamma: m],
                order: { q: 1, p: 1, multipliers: None },
                energy: Oscillates,
                symplectic: true,
                requires: { mass: Constant, constraints: Holonomic, model: Any, forces: false },
                constraints_at_nodes: true,
                note: "`g = 0` and `G v = 0` at nodes (`G M⁻¹ p ≠ 0`); `λ` oscillates with period 2",
                template: |model, inputs| {
                    ggl_theta::template(model, inputs, Coef::Const(1.0), Constraints::Trapezoidal(Coef::Const(0.5)))
                },
            }

            /// The θ-method with its coefficients at run time: see the struct's documentation.
            GglThetaA {
                marker: defined,
                label: "VI-θA",
                family: TwoPoint,
                source: "Kinon, Betsch, Schneider 2023, Sect. 4.3.1; spec 000 §2.3–2.4",
                equations: "(76)–(79)",
                unknowns: [q1: d, p1: d, v1: d, lambda: m, gamma: m],
                order: { q: 1, p: 1, multipliers: None },
                energy: Oscillates,
                symplectic: true,
                requires: { mass: Constant, constraints: Holonomic, model: Any, forces: false },
                constraints_at_nodes: false,
                note: "second order at θ = ½; `g = 0` and `G v = 0` at `q^θ`; stable only at θ = ½",
                template: |model, inputs| {
                    ggl_theta::template(model, inputs, Coef::Field("theta"), Constraints::Intermediate)
                },
            }

            /// The θ-method with its coefficients at run time: see the struct's documentation.
            GglThetaB {
                marker: defined,
                label: "VI-θB",
                family: TwoPoint,
                source: "Kinon, Betsch, Schneider 2023, Sect. 4.3.2; spec 000 §2.5",
                equations: "(76)–(82)",
                unknowns: [q1: d, p1: d, v1: d, lambda: m, gamma: m],
                order: { q: 1, p: 1, multipliers: None },
                energy: Oscillates,
                symplectic: true,
                requires: { mass: Constant, constraints: Holonomic, model: Any, forces: false },
                constraints_at_nodes: true,
                note: "`g = 0` at nodes, `G v = 0` at `q^θ`; stable only for ϑ ≤ ½",
                template: |model, inputs| {
                    let trapezoidal = Constraints::Trapezoidal(Coef::Field("vartheta"));
                    ggl_theta::template(model, inputs, Coef::Field("theta"), trapezoidal)
                },
            }

            /// GGL energy–momentum scheme, "EM" (Kinon, Betsch, Schneider 2023, Sect. 5, eq. (84);
            /// spec 000 §2.6), with the velocity eliminated as in the authors' code:
            ///
            /// ```text
            /// (84a) q¹ − q⁰ = h M⁻¹ p^½ + h (𝖣_p gᵛ)ᵀ γ¹
            /// (84b) p¹ − p⁰ = −h 𝖣V(q⁰,q¹) − h 𝖣g(q⁰,q¹)ᵀ λ¹ − h (𝖣_q gᵛ)ᵀ γ¹
            /// (84d) 0 = g(q¹)
            /// (84e) 0 = G(q¹) M⁻¹ p¹
            /// ```
            ///
            /// Unknowns `(q¹, p¹, λ¹, γ¹)`, `2d + 2m` equations; `v¹ = M⁻¹ p¹` afterwards.
            /// `x^½` is the arithmetic mean. For `V` and `g` of degree ≤ 2 the discrete gradients
            /// `𝖣` are the midpoint gradients (exact directionality): `𝖣g = G(q^½)`,
            /// `𝖣_p gᵛ = G(q^½) M⁻¹`, `(𝖣_q gᵛ)ᵀ γ = Σ_k γ_k H_k M⁻¹ p^½`. Other functions get
            /// the Gonzalez formula (energy, not in general momentum maps), or the invariant-based
            /// discrete gradient for terms written in declared invariants (both); the velocity
            /// constraint `gᵛ = G M⁻¹ p` gets a partitioned discrete derivative in `(q, p)`.
            ///
            /// Properties: energy `H` conserved exactly, momentum maps conserved, `g` and
            /// `G M⁻¹ p` exactly zero at every node; second order in `q` and `p`, first in `λ`; not
            /// symplectic. Requires a constant mass matrix.
            GglEm {
                marker: unit,
                label: "EM",
                family: TwoPoint,
                source: "Kinon, Betsch, Schneider 2023, Sect. 5; spec 000 §2.6",
                equations: "(84)",
                unknowns: [q1: d, p1: d, lambda1: m, gamma1: m],
                order: { q: 2, p: 2, multipliers: Some(1) },
                energy: Exact,
                symplectic: false,
                requires: { mass: Constant, constraints: Holonomic, model: Any, forces: false },
                constraints_at_nodes: true,
                note: "`g = 0` and `G M⁻¹ p = 0` at nodes",
                template: ggl_em::template,
            }

            /// Gonzalez's energy–momentum scheme with primary constraints only, "EM-G" (Gonzalez
            /// 1999; the reference scheme of Kinon, Betsch, Schneider 2023, Sect. 6.3; spec 000
            /// §2.7):
            ///
            /// ```text
            /// q¹ − q⁰ = h M⁻¹ p^½
            /// p¹ − p⁰ = −h 𝖣V(q⁰, q¹) − h 𝖣g(q⁰, q¹)ᵀ λ¹
            /// 0 = g(q¹)
            /// ```
            ///
            /// Unknowns `(q¹, p¹, λ¹)`, `2d + m`. Conserves energy and momentum maps (with
            /// invariant-based `𝖣V`), `g = 0` at the nodes; the secondary constraint `G M⁻¹ p` is
            /// not enforced and drifts. Second order in `q`, `p`; first in `λ`. The state's `γ` is 0.
            GglEmG {
                marker: unit,
                label: "EM-G",
                family: TwoPoint,
                source: "Gonzalez 1999; Kinon, Betsch, Schneider 2023, Sect. 6.3; spec 000 §2.7",
                equations: "Gonzalez 1999",
                unknowns: [q1: d, p1: d, lambda1: m],
                order: { q: 2, p: 2, multipliers: Some(1) },
                energy: Exact,
                symplectic: false,
                requires: { mass: Constant, constraints: Holonomic, model: Any, forces: false },
                constraints_at_nodes: true,
                note: "`g = 0` at nodes; `G M⁻¹ p` not enforced",
                template: ggl_em_g::template,
            }

            /// EML, the energy–momentum scheme from the Livens principle (Kinon, Betsch,
            /// "Conserving integration of multibody systems with singular and non-constant mass
            /// matrix including quaternion-based rigid body dynamics", Sect. 4.2; spec 001 §2.2),
            /// for any `L = T(q, v) − V(q)`, the mass matrix possibly configuration-dependent and
            /// singular (never inverted), with the constraints' hidden constraints held at the
            /// nodes (stabilised; `EmlPaper` is the paper's form):
            ///
            /// ```text
            /// (72a') q¹ − q⁰ = h v^½ + h G(q^½)ᵀ μ
            /// (72b') p¹ − p⁰ = h ∂̄_q T − h ∇̄V − h ∇̄gᵀ λ − h Σ_k (μ_k H_k p^½ + γ_k H_k v^½)
            /// (72c') p^½ = ∂̄_v T − G(q^½)ᵀ γ
            /// (72d)  0 = g(q¹),   0 = G(q¹) v¹,   0 = G(q¹) p¹ − G(q⁰) p⁰
            /// ```
            ///
            /// with the partitioned Gonzalez derivatives of `T`, eqs. (129)–(131) (midpoint
            /// gradients where `T` is of degree ≤ 2 in an argument), the invariant-based `∇̄V` and
            /// Gonzalez gradients of `g` (`H_k` the constant Hessians; constraints of degree > 2
            /// keep the paper's rows, `μ_k = γ_k = 0`). In the paper's form the node velocity's
            /// components along the constraint normals (for a unit quaternion, along `q`, where
            /// the mass matrix is singular) alternate from step to step and grow until Newton
            /// fails (the free body at `h = 0.05`, `t ≈ 8`; a double heavy top within a second);
            /// the added terms are exact differences of `G(q) v` and `G(q) p` in the energy
            /// balance and cancel in the momentum balance of invariant constraints. Unknowns
            /// `(q¹, v¹, p¹, λ, μ, γ)`, `3d + 3m`; the state carries `λ` and `γ`.
            ///
            /// Properties: the generalized energy `E = p·v − T + V` (eq. (74)) exact; `g = 0` and
            /// `G(q) v = 0` at the nodes; second order. Not preserved: `T + V` when `M` depends on
            /// `q`, `p = M(q) v` at the nodes (`p` is `∂_v L` less a part along the constraint
            /// normals); momentum maps only with equivariant discrete gradients.
            Eml {
                marker: unit,
                label: "EML",
                family: TwoPoint,
                source: "Kinon, Betsch 2024, Sect. 4.2; spec 001 §2.2; stabilised, docs/schemes.md",
                equations: "(72')",
                unknowns: [q1: d, v1: d, p1: d, lambda: m, mu: m, gamma: m],
                order: { q: 2, p: 2, multipliers: None },
                energy: Exact,
                symplectic: false,
                requires: { mass: Any, constraints: Holonomic, model: Any, forces: true },
                constraints_at_nodes: true,
                note: "`E = p·v − T + V` exact; `g = 0` and `G v = 0` at nodes (stabilised); `p ≠ M(q) v` at nodes",
                template: eml::template,
            }

            /// EML as the paper writes it, the energy–momentum scheme from the Livens principle (Kinon, Betsch,
            /// "Conserving integration of multibody systems with singular and non-constant mass
            /// matrix including quaternion-based rigid body dynamics", Sect. 4.2; spec 001 §2.2),
            /// for any `L = T(q, v) − V(q)`, the mass matrix possibly configuration-dependent and
            /// singular (never inverted):
            ///
            /// ```text
            /// (72a) q¹ − q⁰ = h v^½
            /// (72b) p¹ − p⁰ = h ∂̄_q T − h ∇̄V − h ∇̄gᵀ λ
            /// (72c) p^½ = ∂̄_v T
            /// (72d) 0 = g(q¹)
            /// ```
            ///
            /// with the partitioned Gonzalez derivatives of `T`, eqs. (129)–(131) (midpoint
            /// gradients where `T` is of degree ≤ 2 in an argument), the invariant-based `∇̄V` and
            /// Gonzalez gradients of `g`. Unknowns `(q¹, v¹, p¹, λ)`, `3d + m`; the state's `λ` is
            /// the step's (Newton's next starting point), `γ = 0`.
            ///
            /// Properties: the generalized energy `E = p·v − T + V` (eq. (74)) exact; `g = 0` at
            /// the nodes; second order. Not preserved: `T + V` when `M` depends on `q`,
            /// `p = M(q) v` at the nodes, `G(q) v = 0` at the nodes; momentum maps only with
            /// equivariant discrete gradients. For a unit quaternion the node velocity's
            /// component along `q` alternates in sign and can grow until Newton fails (`Eml`,
            /// the default, holds it at 0).
            EmlPaper {
                marker: unit,
                label: "EML-paper",
                family: TwoPoint,
                source: "Kinon, Betsch 2024, Sect. 4.2; spec 001 §2.2",
                equations: "(72)",
                unknowns: [q1: d, v1: d, p1: d, lambda: m],
                order: { q: 2, p: 2, multipliers: None },
                energy: Exact,
                symplectic: false,
                requires: { mass: Any, constraints: Holonomic, model: Any, forces: true },
                constraints_at_nodes: true,
                note: "EML as published; `g = 0` at nodes; `G v` alternates at nodes and can grow until Newton fails",
                template: eml::paper,
            }

            /// REML, the size-reduced EML (Kinon, Betsch, "Conserving integration of multibody
            /// systems with singular and non-constant mass matrix including quaternion-based
            /// rigid body dynamics", Sect. 4.5, eqs. (101)–(103); spec 001 §2.5): EML with `v¹`
            /// and `p¹` eliminated in closed form,
            ///
            /// ```text
            /// (101) v¹ = (2/h)(q¹ − q⁰) − v⁰,   (102) p¹ = 2 ∂̄_v T − p⁰
            /// (103) p¹ − p⁰ = h ∂̄_q T − h ∇̄V − h ∇̄gᵀ λ + h F(q^½, v^½, tⁿ + h/2),   0 = g(q¹)
            /// ```
            ///
            /// Stabilised as EML is (`RemlPaper`: the paper's form): (72a') and (72c') solved
            /// instead, `v¹` and `p¹` less `2 G(q^½)ᵀ μ` and `2 G(q^½)ᵀ γ`, (103) with (72b')'s
            /// terms and the rows of `μ`, `γ`. Unknowns `(Δq, λ, μ, γ)` (the increment
            /// `Δq = q¹ − q⁰`: an unknown `q¹`, known to `ε|q|`, would put `2ε|q|/h` into `v¹`
            /// through (101)), `d + 3m`. The same
            /// trajectory and properties as EML, forces included.
            Reml {
                marker: unit,
                label: "REML",
                family: TwoPoint,
                source: "Kinon, Betsch 2024, Sect. 4.5; spec 001 §2.5; stabilised, docs/schemes.md",
                equations: "(101)–(103)",
                unknowns: [dq: d, lambda: m, mu: m, gamma: m],
                order: { q: 2, p: 2, multipliers: None },
                energy: Exact,
                symplectic: false,
                requires: { mass: Any, constraints: Holonomic, model: Any, forces: true },
                constraints_at_nodes: true,
                note: "EML with `v¹`, `p¹` eliminated: the same steps; `g = 0` at nodes",
                template: reml::template,
            }

            /// REML as the paper writes it, the size-reduced `EmlPaper` (Kinon, Betsch, "Conserving integration of multibody
            /// systems with singular and non-constant mass matrix including quaternion-based
            /// rigid body dynamics", Sect. 4.5, eqs. (101)–(103); spec 001 §2.5): EML with `v¹`
            /// and `p¹` eliminated in closed form,
            ///
            /// ```text
            /// (101) v¹ = (2/h)(q¹ − q⁰) − v⁰,   (102) p¹ = 2 ∂̄_v T − p⁰
            /// (103) p¹ − p⁰ = h ∂̄_q T − h ∇̄V − h ∇̄gᵀ λ + h F(q^½, v^½, tⁿ + h/2),   0 = g(q¹)
            /// ```
            ///
            /// Unknowns `(Δq, λ)` (the increment `Δq = q¹ − q⁰`, so that (101) does not turn
            /// the round-off of `q¹` into `ε|q|/h` in `v¹`), `d + m`. The same trajectory and
            /// properties as EML, forces included.
            RemlPaper {
                marker: unit,
                label: "REML-paper",
                family: TwoPoint,
                source: "Kinon, Betsch 2024, Sect. 4.5; spec 001 §2.5",
                equations: "(101)–(103)",
                unknowns: [dq: d, lambda: m],
                order: { q: 2, p: 2, multipliers: None },
                energy: Exact,
                symplectic: false,
                requires: { mass: Any, constraints: Holonomic, model: Any, forces: true },
                constraints_at_nodes: true,
                note: "EML-paper with `v¹`, `p¹` eliminated: the same steps; `g = 0` at nodes",
                template: reml::paper,
            }

            /// Null-EML, the discrete null-space form of EML for one rigid body in a unit
            /// quaternion (Kinon, Betsch, "Conserving integration of multibody systems with
            /// singular and non-constant mass matrix including quaternion-based rigid body
            /// dynamics", Remark 4.11, eqs. (104)–(105); spec 001 §2.6): the update
            /// `q¹ = exp_S³((0, ½ϑ)) ∘ q⁰` keeps the unit norm by construction, `v¹`, `p¹` as in
            /// REML, and (72b) premultiplied by `G(q^½)` drops the multiplier:
            ///
            /// ```text
            /// (104) 0 = G(q^½) (p¹ − p⁰ − h ∂̄_q T + h ∇̄V − h F(q^½, v^½, tⁿ + h/2))
            /// ```
            ///
            /// Unknown: the rotation vector `ϑ`, `d − m = 3`; `λ` is not computed (0 in the
            /// state). Requires a model of one `Quat` coordinate with its unit-norm constraint.
            /// Stabilised as EML is, its `μ`, `γ` in closed form for the one unit norm (`v¹`,
            /// `p¹` from (72a'), (72c'), and (72b')'s terms inside the projection);
            /// `NullEmlPaper` is the paper's.
            NullEml {
                marker: unit,
                label: "Null-EML",
                family: TwoPoint,
                source: "Kinon, Betsch 2024, Remark 4.11; spec 001 §2.6; stabilised, docs/schemes.md",
                equations: "(104)–(105)",
                unknowns: [theta: d - m],
                order: { q: 2, p: 2, multipliers: None },
                energy: Exact,
                symplectic: false,
                requires: { mass: Any, constraints: Holonomic, model: OneQuaternion, forces: true },
                constraints_at_nodes: true,
                note: "one rigid body, unknown the rotation `ϑ`; `g = 0` at nodes by construction; λ not computed",
                template: null_eml::template,
            }

            /// Null-EML as the paper writes it, the discrete null-space form of `EmlPaper` for one rigid body in a unit
            /// quaternion (Kinon, Betsch, "Conserving integration of multibody systems with
            /// singular and non-constant mass matrix including quaternion-based rigid body
            /// dynamics", Remark 4.11, eqs. (104)–(105); spec 001 §2.6): the update
            /// `q¹ = exp_S³((0, ½ϑ)) ∘ q⁰` keeps the unit norm by construction, `v¹`, `p¹` as in
            /// REML, and (72b) premultiplied by `G(q^½)` drops the multiplier:
            ///
            /// ```text
            /// (104) 0 = G(q^½) (p¹ − p⁰ − h ∂̄_q T + h ∇̄V − h F(q^½, v^½, tⁿ + h/2))
            /// ```
            ///
            /// Unknown: the rotation vector `ϑ`, `d − m = 3`; `λ` is not computed (0 in the
            /// state). Requires a model of one `Quat` coordinate with its unit-norm constraint.
            NullEmlPaper {
                marker: unit,
                label: "Null-EML-paper",
                family: TwoPoint,
                source: "Kinon, Betsch 2024, Remark 4.11; spec 001 §2.6",
                equations: "(104)–(105)",
                unknowns: [theta: d - m],
                order: { q: 2, p: 2, multipliers: None },
                energy: Exact,
                symplectic: false,
                requires: { mass: Any, constraints: Holonomic, model: OneQuaternion, forces: true },
                constraints_at_nodes: true,
                note: "one rigid body, unknown the rotation `ϑ`; `g = 0` at nodes by construction; λ not computed",
                template: null_eml::paper,
            }

            /// MPL, the midpoint rule from the Livens principle (Kinon, Betsch, "Conserving
            /// integration of multibody systems with singular and non-constant mass matrix
            /// including quaternion-based rigid body dynamics", App. B, Def. B.1; spec 001 §2.7):
            /// EML's equations with every derivative at the midpoint,
            ///
            /// ```text
            /// (132) q¹ − q⁰ = h v^½
            ///       p¹ − p⁰ = h ∂_q L(q^½, v^½) − h G(q^½)ᵀ λ
            ///       p^½     = ∂_v L(q^½, v^½)
            ///       0       = g(q¹)
            /// ```
            ///
            /// Unknowns `(q¹, v¹, p¹, λ)`, `3d + m`, as EML's.
            ///
            /// Properties: second order; `g = 0` at the nodes; momentum maps of symmetries whose
            /// generator is linear (rotations, translations, and a quaternion body's `½ a⁺ q`)
            /// conserved exactly, since the midpoint rule keeps bilinear invariants; the energy
            /// is not conserved (the paper's reference for what EML adds).
            Mpl {
                marker: unit,
                label: "MPL",
                family: TwoPoint,
                source: "Kinon, Betsch 2024, App. B; spec 001 §2.7",
                equations: "(132)",
                unknowns: [q1: d, v1: d, p1: d, lambda: m],
                order: { q: 2, p: 2, multipliers: None },
                energy: Drifts,
                symplectic: false,
                requires: { mass: Any, constraints: Holonomic, model: Any, forces: true },
                constraints_at_nodes: true,
                note: "midpoint rule of the Livens principle; `g = 0` at nodes; momentum maps exact, energy not",
                template: mpl::template,
            }

            /// MPH, the midpoint rule on the Hamiltonian form of rigid bodies (Kinon, Betsch,
            /// "Conserving integration of multibody systems with singular and non-constant mass
            /// matrix including quaternion-based rigid body dynamics", App. B, Def. B.2; spec 001
            /// §2.8), with the regular mass matrix `M₄ = 4 Q_l(q) J₄ Q_l(q)ᵀ` of App. D (139):
            ///
            /// ```text
            /// (133) q¹ − q⁰ = h M₄(q^½)⁻¹ p^½
            ///       p¹ − p⁰ = −h ∂_q T*(q^½, p^½) − h ∇V(q^½) − h G(q^½)ᵀ λ
            ///       0       = g(q¹)
            /// ```
            ///
            /// with `T* = ⅛ t·J₄⁻¹t`, `t = Q_l(q)ᵀ p` (138), (145). Unknowns `(q¹, p¹, λ)`,
            /// `2d + m`; the state's `v` is `M₄⁻¹ p`. Newton starts from `q⁰ + h v⁰` for either
            /// guess (the paper's footnote 5). Requires every `Quat` coordinate to carry its
            /// unit-norm constraint and the kinetic energy `½ Ω·J₀Ω` of a rigid body (`J₀` is
            /// read off it), the other coordinates a constant mass matrix, and no term coupling
            /// a body to another coordinate. The paper writes App. D for one body; the co-energy
            /// of several is the sum of theirs.
            ///
            /// Properties: second order; `g = 0` at the nodes; momentum maps of linear symmetries
            /// conserved; the Hamiltonian is not (the paper's reference for what EMH adds).
            Mph {
                marker: unit,
                label: "MPH",
                family: TwoPoint,
                source: "Kinon, Betsch 2024, App. B; spec 001 §2.8",
                equations: "(133)",
                unknowns: [q1: d, p1: d, lambda: m],
                order: { q: 2, p: 2, multipliers: None },
                energy: Drifts,
                symplectic: false,
                requires: { mass: Any, constraints: Holonomic, model: RigidBody, forces: false },
                constraints_at_nodes: true,
                note: "rigid bodies, Hamiltonian form with `M₄`; `g = 0` at nodes; momentum maps exact, energy not",
                template: mph::template,
            }

            /// EMH, the energy–momentum scheme of Betsch and Siebert (2009) on the Hamiltonian
            /// form of rigid bodies (Kinon, Betsch, "Conserving integration of multibody systems
            /// with singular and non-constant mass matrix including quaternion-based rigid body
            /// dynamics", App. D, Def. D.2; spec 001 §2.9):
            ///
            /// ```text
            /// (146) q¹ − q⁰ = (h/4) Q_l(q^½) J₄⁻¹ t^½
            ///       p¹ − p⁰ = −(h/4) [p^½, −G(p^½)ᵀ] J₄⁻¹ t^½ − h ∇̄V(q⁰, q¹) − h ∇̄g(q⁰, q¹)ᵀ λ
            ///       0       = g(q¹),         t^½ = ½ (Q_l(q¹)ᵀ p¹ + Q_l(q⁰)ᵀ p⁰)
            /// ```
            ///
            /// Unknowns `(q¹, p¹, λ)`, `2d + m`; the state's `v` is `M₄⁻¹ p`. Newton starts from
            /// `q⁰ + h v⁰` for either guess (footnote 5). Requirements as [`Mph`]'s.
            ///
            /// Properties: second order; `H = T* + V` and the momentum maps conserved exactly;
            /// `g = 0` and `q·p = 0` at the nodes (Remark D.1).
            Emh {
                marker: unit,
                label: "EMH",
                family: TwoPoint,
                source: "Kinon, Betsch 2024, App. D; spec 001 §2.9",
                equations: "(146)",
                unknowns: [q1: d, p1: d, lambda: m],
                order: { q: 2, p: 2, multipliers: None },
                energy: Exact,
                symplectic: false,
                requires: { mass: Any, constraints: Holonomic, model: RigidBody, forces: false },
                constraints_at_nodes: true,
                note: "rigid bodies, Hamiltonian form with `M₄`; `H = T* + V` exact; `g = 0` and `q·p = 0` at nodes; state `(q, p)`, no parasitic modes",
                template: emh::template,
            }

            /// RATTLE (Andersen 1983), the Störmer–Verlet method for holonomic constraints, in
            /// the form of Martín de Diego, Sato Martín de Almagro, "High-order geometric methods
            /// for nonholonomic mechanical systems", Sec. 4.3 (spec 002 S2): the discrete Legendre
            /// transforms of the trapezoidal discrete Lagrangian with the constraint forces
            /// `(h/2) G(q)ᵀ λ` at both ends. For `L = ½ vᵀMv − V(q)`, `v = (q¹ − q⁰)/h`:
            ///
            /// ```text
            /// p⁰ = M v + (h/2) ∇V(q⁰) − (h/2) G(q⁰)ᵀ λ⁰
            /// p¹ = M v − (h/2) ∇V(q¹) + (h/2) G(q¹)ᵀ λ¹
            /// 0  = g(q¹),    0 = G(q¹) M⁻¹ p¹
            /// ```
            ///
            /// Unknowns `(q¹, p¹, λ⁰, λ¹)`, `2d + 2m`; the new state carries `λ⁰` as `lambda`
            /// and `λ¹` as `gamma` (the paper's sign: the force is `+Gᵀλ`, the opposite of the GGL
            /// schemes'), and `v = M⁻¹ p¹`.
            ///
            /// Properties: symplectic on the constrained phase space, second order, momentum maps
            /// of symmetries that preserve the constraints conserved; `g = 0` and `G M⁻¹ p = 0` at
            /// the nodes. Without constraints it is the Störmer–Verlet method, i.e.
            /// [`LobattoIIIAIIIB<2>`](LobattoIIIAIIIB). Requires a constant mass matrix.
            Rattle {
                marker: unit,
                label: "RATTLE",
                family: TwoPoint,
                source: "Martín de Diego, Sato Martín de Almagro, Sec. 4.3; spec 002 S2",
                equations: "Sec. 4.3",
                unknowns: [q1: d, p1: d, lambda0: m, lambda1: m],
                order: { q: 2, p: 2, multipliers: None },
                energy: Oscillates,
                symplectic: true,
                requires: { mass: Constant, constraints: Holonomic, model: Any, forces: false },
                constraints_at_nodes: true,
                note: "`g = 0` and `G M⁻¹ p = 0` at nodes; without constraints, Störmer–Verlet",
                template: rattle::template,
            }

            /// SHAKE (Ryckaert, Ciccotti, Berendsen 1977) in the form of Martín de Diego, Sato
            /// Martín de Almagro, "High-order geometric methods for nonholonomic mechanical
            /// systems", Sec. 4.3 (spec 002 S2): the discrete Euler–Lagrange equations of the
            /// trapezoidal discrete Lagrangian forced by `h G(q⁰)ᵀ λ`, as a one-step map on the
            /// discrete momentum `p⁰ = D₂L_d(q⁻¹, q⁰)`. For `L = ½ vᵀMv − V(q)`:
            ///
            /// ```text
            /// q¹ = q⁰ + h M⁻¹ (p⁰ − (h/2) ∇V(q⁰) + h G(q⁰)ᵀ λ),     0 = g(q¹)
            /// p¹ = p⁰ − (h/2) (∇V(q⁰) + ∇V(q¹)) + h G(q⁰)ᵀ λ
            /// ```
            ///
            /// Unknowns `(q¹, λ)`, `d + m`; `p¹` is explicit. The state's `λ` is the step's
            /// multiplier (the paper's sign, an approximation of the continuous one after the
            /// first step, which from a tangent momentum takes half), `γ = 0`, `v = M⁻¹ p¹`.
            ///
            /// Properties: the positions are RATTLE's; the momentum is RATTLE's minus
            /// `(h/2) G(q¹)ᵀ λ¹`, so it is not tangent to the constraint (`G M⁻¹ p = O(h)`) and
            /// first order as an approximation of `p(t)`. Symplectic on the constraint manifold
            /// in the positions, `g = 0` at the nodes. Requires a constant mass matrix.
            Shake {
                marker: unit,
                label: "SHAKE",
                family: TwoPoint,
                source: "Martín de Diego, Sato Martín de Almagro, Sec. 4.3; spec 002 S2",
                equations: "Sec. 4.3",
                unknowns: [q1: d, lambda: m],
                order: { q: 2, p: 1, multipliers: None },
                energy: Oscillates,
                symplectic: true,
                requires: { mass: Constant, constraints: Holonomic, model: Any, forces: false },
                constraints_at_nodes: true,
                note: "RATTLE's positions; `g = 0` at nodes, `G M⁻¹ p = O(h)`",
                template: shake::template,
            }

            /// The variational partitioned Runge–Kutta method of the Lobatto IIIA–IIIB pair with `S`
            /// stages (Martín de Diego, Sato Martín de Almagro, "High-order geometric methods for
            /// nonholonomic mechanical systems", Thm 4.2, eq. (9); spec 002 S1), for unconstrained
            /// models with any regular Lagrangian:
            ///
            /// ```text
            /// q¹ = q⁰ + h Σⱼ bⱼ Vʲ,            p¹ = p⁰ + h Σᵢ b̂ᵢ Wⁱ
            /// Qⁱ = q⁰ + h Σⱼ aᵢⱼ Vʲ,           Pⁱ = p⁰ + h Σⱼ âᵢⱼ Wʲ
            /// Wⁱ = D₁L(Qⁱ, Vⁱ) + F(Qⁱ, Vⁱ, t⁰ + cᵢ h),   Pⁱ = D₂L(Qⁱ, Vⁱ)
            /// ```
            ///
            /// Unknowns: the stage velocities `V¹ … Vˢ` (`S·d`); the residual is
            /// `Rᵢ = D₂L(Qⁱ, Vⁱ) − p⁰ − h Σⱼ âᵢⱼ Wʲ`. The generalized forces `F` of a `forces` block
            /// enter every `Wⁱ` at the stage's time (`cᵢ = Σⱼ aᵢⱼ`, the Lobatto IIIA nodes): the
            /// discrete Lagrange–d'Alembert principle (spec `next_packages.md` §D.2); without
            /// forces `F = 0`. The step is assembled at run time from the model's point kernels with
            /// its exact block Jacobian (with `∂F/∂q`, `∂F/∂v`), for any `S ≥ 2`.
            ///
            /// Properties: order `2S − 2` in `q` and `p` (also with smooth forces); symplectic and
            /// conserving the momentum maps of the Lagrangian's symmetries without forces; at
            /// `S = 2` it is the Störmer–Verlet method.
            LobattoIIIAIIIB<S in 2..=10> {
                marker: unit,
                label: "Lobatto IIIA-IIIB",
                family: Prk,
                source: "Martín de Diego, Sato Martín de Almagro, Thm 4.2; spec 002 S1",
                equations: "(9)",
                unknowns: [V[S]: d],
                order: { q: 2 * S - 2, p: 2 * S - 2, multipliers: None },
                energy: Oscillates,
                symplectic: true,
                requires: { mass: Regular, constraints: Unconstrained, model: Any, forces: true },
                constraints_at_nodes: false,
                note: "`s = 2` is Störmer–Verlet; momentum maps of the Lagrangian's symmetries conserved; on `SE2`/`SO3` coordinates the family written on the group (eqs. (26)–(27))",
            }

            /// The holonomically constrained Lobatto IIIA–IIIB method with `S` stages (Martín de
            /// Diego, Sato Martín de Almagro, "High-order geometric methods for nonholonomic
            /// mechanical systems", eqs. (12)–(13); spec 002 S3), for any regular Lagrangian and
            /// holonomic constraints `Φ(q) = 0`:
            ///
            /// ```text
            /// q¹ = q⁰ + h Σⱼ bⱼ Vʲ,            p¹ = p⁰ + h Σⱼ b̂ⱼ Wʲ
            /// Qⁱ = q⁰ + h Σⱼ aᵢⱼ Vʲ,           Pⁱ = p⁰ + h Σⱼ âᵢⱼ Wʲ
            /// Wⁱ = D₁L(Qⁱ, Vⁱ) + F(Qⁱ, Vⁱ, t⁰ + cᵢ h) + DΦ(Qⁱ)ᵀ Λⁱ,   Pⁱ = D₂L(Qⁱ, Vⁱ)
            /// 0 = Φ(Qⁱ) (i = 2 … s),           0 = DΦ(q¹) v¹,   D₂L(q¹, v¹) = p¹
            /// ```
            ///
            /// `F` are the generalized forces of a `forces` block at the stage's time (`cᵢ`, the
            /// Lobatto IIIA nodes; spec `next_packages.md` §D.2), zero without one.
            ///
            /// Unknowns: the stage velocities `V¹ … Vˢ`, every stage multiplier `Λ¹ … Λˢ` and the
            /// new node's velocity `v¹` (`S·d + S·m + d`); the constraint is imposed at stages
            /// 2 … s only (at stage 1 it is `Φ(q⁰) = 0`, which would make the Jacobian singular).
            /// Assembled at run time from the model's point and constraint kernels, for any
            /// `S ≥ 2`.
            ///
            /// Properties: order `2S − 2` in `q` and `p` on the constraint manifold; symplectic on
            /// it; `Φ = 0` and `DΦ v = 0` at the nodes; at `S = 2` it is RATTLE.
            HolonomicLobatto<S in 2..=10> {
                marker: unit,
                label: "Lobatto IIIA-IIIB, holonomic",
                family: PrkHolonomic,
                source: "Martín de Diego, Sato Martín de Almagro, eqs. (12)-(13); spec 002 S3",
                equations: "(13)",
                unknowns: [V[S]: d, Lambda[S]: m, v1: d],
                order: { q: 2 * S - 2, p: 2 * S - 2, multipliers: None },
                energy: Oscillates,
                symplectic: true,
                requires: { mass: Regular, constraints: Holonomic, model: Any, forces: true },
                constraints_at_nodes: true,
                note: "`g = 0` and `G v = 0` at nodes; `s = 2` is RATTLE for any regular Lagrangian",
            }

            /// The nonholonomic partitioned Runge–Kutta method of the Lobatto IIIA–IIIB pair with
            /// `S` stages (Martín de Diego, Sato Martín de Almagro, "High-order geometric methods
            /// for nonholonomic mechanical systems", eqs. (14), App. D; spec 002 S4), for any
            /// regular Lagrangian and nonholonomic constraints `A(q) v = 0`, each step's first
            /// multiplier `Λ¹ = λₖ` taken from the continuous equations at `(qₖ, vₖ, tₖ)`:
            ///
            /// ```text
            /// qₖ₊₁ = qₖ + h Σⱼ bⱼ Vʲ,              pₖ₊₁ = pₖ + h Σⱼ b̂ⱼ Wʲ
            /// Qⁱ = qₖ + h Σⱼ aᵢⱼ Vʲ,               D₂L(Qⁱ, Vⁱ) = pₖ + h Σⱼ âᵢⱼ Wʲ
            /// Wⁱ = D₁L(Qⁱ, Vⁱ) + F(Qⁱ, Vⁱ, tₖ + cᵢ h) + A(Qⁱ)ᵀ Λⁱ,   pⁱ = pₖ + h Σⱼ aᵢⱼ Wʲ = D₂L(Qⁱ, vⁱ)
            /// A(Qⁱ) vⁱ = 0 (i = 2 … s),           Λ¹ = λ(qₖ, vₖ, tₖ),  vₖ₊₁ = vˢ
            /// (A M⁻¹ Aᵀ) λ(q, v, t) = −(∂(A v)/∂q) v − A M⁻¹ (D₁L + F − (∂D₂L/∂q) v),   M = D₂₂L
            /// ```
            ///
            /// `F` are the generalized forces of a `forces` block at the stage's time (`cᵢ`, the
            /// Lobatto IIIA nodes; spec `next_packages.md` §D.2), zero without one.
            ///
            /// The paper's map carries `λₖ₊₁ = Λˢ` to the next step
            /// ([`NonholonomicLobattoCarried`]); that map has a spurious mode, almost pure `λ`,
            /// multiplied each step by `(−1)^(s−1) (1 + κh/(s−1))` (`R_A(∞)` of Lobatto IIIA and
            /// an `O(h)` correction), which grows wherever `κ > 0`: on the Chaplygin sleigh
            /// (`κ = m a u/(I + m a²)`) it turns the sleigh around. Taking `Λ¹` from the
            /// continuous equations every step leaves no `λ` to carry, and the mode is gone
            /// (docs/schemes.md).
            ///
            /// Unknowns: the stage velocities `V¹ … Vˢ`, the multipliers `Λ¹ … Λˢ` and the
            /// velocities `v¹ … vˢ` paired with the IIIA momenta (`Λ¹` and `v¹` with trivial
            /// equations), `S (2d + k)`. The state's `λ` is the continuous multiplier at the
            /// node (an output: the next step recomputes it). Assembled at run time from the
            /// model's point and nonholonomic kernels.
            ///
            /// A model that also has holonomic constraints `g(q) = 0` gets their velocity forms
            /// `G(q) v = 0` as the last rows of `A` (so `k` counts both, and `λ` ends with the
            /// holonomic multipliers): the paper's method on the index-2 form, whose theory covers
            /// any constraints linear in the velocities. `G v = 0` then holds at the nodes, `g`
            /// to the method's order (`tests/papers/mixed_constraints.rs`).
            ///
            /// Properties: order `2S − 2` in `q`, `p` and `λ` (measured, `tests/stages/sleigh.rs`);
            /// `A(q) v = 0` at every node and stage; not symplectic. Not time-symmetric: a step
            /// back misses by `O(h^(S+2))`, and on a reversible system (the transmission of
            /// spec 002 §5.2) the energy error grows slowly where the carried map's stays
            /// bounded; use [`NonholonomicLobattoCarried`] there if the `λ` mode stays small.
            NonholonomicLobatto<S in 2..=10> {
                marker: unit,
                label: "Lobatto IIIA-IIIB, nonholonomic",
                family: PrkNonholonomic,
                source: "Martín de Diego, Sato Martín de Almagro, eqs. (14), App. D; spec 002 S4; λₖ recomputed",
                equations: "(14), Λ¹ from §2.2",
                unknowns: [V[S]: d, Lambda[S]: k, v[S]: d],
                order: { q: 2 * S - 2, p: 2 * S - 2, multipliers: Some(2 * S - 2) },
                energy: Drifts,
                symplectic: false,
                requires: { mass: Regular, constraints: Nonholonomic, model: Any, forces: true },
                constraints_at_nodes: false,
                note: "`A(q) v + a(q) = 0` at nodes and stages (holonomic `g` at velocity level: `G v = 0`, `g` to the order); `λₖ` recomputed each step: no growing `λ` mode, not time-symmetric; on `SE2`/`SO3` coordinates the family on the group (App. F)",
            }

            /// The nonholonomic Lobatto IIIA–IIIB method with `S` stages as the paper defines it
            /// (Martín de Diego, Sato Martín de Almagro, eqs. (14), App. D; spec 002 S4): the
            /// equations of [`NonholonomicLobatto`] with `Λ¹ = λₖ` carried from the previous
            /// step, `λₖ₊₁ = Λˢ`, a map on `(q, p, λ)`. A state without `λ` gets the multiplier
            /// of the continuous equations (spec 002 §4.8), without which the orders drop.
            ///
            /// Properties: order `2S − 2` in `q` and `p`, `λ` of order `S` for even `S` and
            /// `S − 1` for odd `S` (spec 002 eq. (20)); `A(q) v = 0` at every node and stage;
            /// time-symmetric; not symplectic. The carried `λ` has a spurious mode multiplied
            /// each step by `(−1)^(s−1) (1 + κh/(s−1))`: where `κ > 0` for long (the Chaplygin
            /// sleigh) it grows until the trajectory is wrong (docs/schemes.md); the
            /// reproduction of the paper's results, not the scheme for new work.
            NonholonomicLobattoCarried<S in 2..=10> {
                marker: unit,
                label: "Lobatto IIIA-IIIB, nonholonomic, carried λ",
                family: PrkNonholonomicCarried,
                source: "Martín de Diego, Sato Martín de Almagro, eqs. (14), App. D; spec 002 S4",
                equations: "(14)",
                unknowns: [V[S]: d, Lambda[S]: k, v[S]: d],
                order: { q: 2 * S - 2, p: 2 * S - 2, multipliers: Some(S - S % 2) },
                energy: Oscillates,
                symplectic: false,
                requires: { mass: Regular, constraints: Nonholonomic, model: Any, forces: true },
                constraints_at_nodes: false,
                note: "the paper's map on `(q, p, λ)`, `λ` carried; its `λ` mode can grow (the Chaplygin sleigh): for reproducing the paper, and reversible systems (the turntable ball's `I4` stays bounded); on `SE2`/`SO3` too",
            }

            /// The Galerkin variational integrator with positions of degree `S`, multipliers of
            /// degree `W` and the Lagrangian integrated by the rule `Q` with `R` nodes (Wenger,
            /// Ober-Blöbaum, Leyendecker, "Construction and analysis of higher order variational
            /// integrators for dynamical systems with holonomic constraints", eq. (22), case A;
            /// seed `003_7c34c28b0df0e267.txt`; spec `next_packages.md` §B), for any regular
            /// Lagrangian and holonomic constraints `g(q) = 0`. On a step `q_d(τ) = Σ_ν q^ν ℓ_ν(τ)`
            /// through the control points `q⁰ = qₖ … qˢ = qₖ₊₁`, the multipliers `λ⁰ … λ^w` at the
            /// `w + 1` Lobatto points `f_a` (`λ^w` the next step's `λ⁰`):
            ///
            /// ```text
            /// ∂_ν L_d = Σᵢ bᵢ [ h ℓ_ν(cᵢ) (D₁L + F)(Qᵢ, Vᵢ, t + cᵢ h) + ℓ̇_ν(cᵢ) D₂L(Qᵢ, Vᵢ) ]
            /// 0 = p̃ₖ + ∂₀L_d − ω h e₀ G(qₖ)ᵀ λ⁰ − F₀,    0 = ∂_ν L_d − F_ν  (ν = 1 … s − 1)
            /// 0 = g(q_d(f_a))  (a = 1 … w),              p̃ₖ₊₁ = ∂_s L_d − F_s
            /// ```
            ///
            /// (`ω = 1` on a first step, 2 after: `λₖ⁰` is shared with the step before), with `F_ν = h Σ_a e_a ℓ_ν(f_a) G(X_a)ᵀ λ^a` the constraint forces at the interior
            /// multiplier points and `F` the generalized forces of a `forces` block at the
            /// quadrature nodes (the discrete Lagrange–d'Alembert principle). Unknowns: the
            /// control points `q¹ … qˢ` and the multipliers `λ⁰ … λ^{w−1}` (`S·d + W·m`).
            /// The state reports the projected momentum `ℙ p̃` (eq. (4)) and the multiplier of
            /// the continuous equations (70), carrying `p̃` and the lagged `(p⁰, λ⁰)` besides.
            ///
            /// Admissible for `1 ≤ W ≤ S`, `R ≥ S` and `R ≥ 2` for Lobatto (`model!` refuses the
            /// rest). Properties: symplectic on the constraint manifold; order (Thm 2, Tables
            /// 1–2; [`galerkin_order`](crate::tableaux::galerkin_order)) `min(ordL, 2W)` for
            /// `S ≤ W + 1` (`ordL = 2R` for Gauss, `2R − 2` for Lobatto), else
            /// `max(2, 2(2W − S + 1))`, in `q` and so in the recomputed `p` and `λ`. `(1, 1,
            /// Lobatto, 2)` is SHAKE's positions and RATTLE's momenta; `(S, S − 1, Lobatto, S)`
            /// is [`HolonomicLobatto<S>`](HolonomicLobatto).
            Galerkin<S in 1..=6, W in 1..=6, Q in Quadrature, R in 1..=8> {
                marker: unit,
                label: "Galerkin",
                family: Galerkin,
                source: "Wenger, Ober-Blöbaum, Leyendecker, eq. (22), case A; spec next_packages §B",
                equations: "(22), (4), (70)",
                unknowns: [q[S]: d, lambda[W]: m],
                order: {
                    q: galerkin_order(S, W, Q, R),
                    p: galerkin_order(S, W, Q, R),
                    multipliers: Some(galerkin_order(S, W, Q, R)),
                },
                energy: Oscillates,
                symplectic: true,
                requires: { mass: Regular, constraints: Holonomic, model: Any, forces: true },
                constraints_at_nodes: true,
                note: "`g = 0` at nodes and at the multiplier points; the state reports the projected momentum `ℙp̃` and the multiplier of the continuous equations (70)",
            }

            /// A one-step method turned into a variational integrator of the same order
            /// (Patrick, Cuell, Spiteri, Zhang, Sect. 3 and 4.2; spec next_packages §C.3):
            /// the explicit Runge–Kutta method `L` (the standard layer) is run on
            /// `q̇ = v, v̇ = A(q, v), Ṡ = L(q, v)` from a segment state `w = (q, v)`,
            /// giving end maps `x^± = R^q_{hα^±}(w)` and the discrete Lagrangian
            /// `L_d = R^S_{hα⁺}(w) − R^S_{hα⁻}(w)`; the bias `B` places the segment,
            /// `(α⁻, α⁺) = (0, 1)` (`Forward`) or `(−½, ½)` (`Symmetric`). One step from
            /// the node `(x_k, p_k)` solves for `(w, μ)`:
            ///
            /// ```text
            /// x⁻(w) − x_k = 0
            /// DL_d(w) + p_kᵀ Dx⁻(w) − μᵀ Dx⁺(w) = 0
            /// x_{k+1} = x⁺(w),   p_{k+1} = μ
            /// ```
            ///
            /// Unknowns `(q, v, μ)`, `3d`, Newton with the exact Jacobian (the second-order
            /// variational equations of the standard layer), or the paper's chord
            /// iteration with `JacobianUpdate::Chord`. Symplectic, momentum maps of the
            /// node conserved; the order of `L`, the next even one with `Symmetric`.
            /// The first step starts from the node's `p = ∂L/∂v(q₀, v₀)`, not the paper's
            /// `−D₁L_d(w₀)` (`families::converted::from_segment`): the same order.
            Converted<L in StandardLayer, B in Bias> {
                marker: unit,
                label: "Converted",
                family: Converted,
                source: "Patrick, Cuell, Spiteri, Zhang, Sect. 3, 4.2; spec next_packages §C",
                equations: "node form (spec §C.3); chord from (4.9)",
                unknowns: [q: d, v: d, mu: d],
                order: {
                    q: converted_order(L, B),
                    p: converted_order(L, B),
                    multipliers: None,
                },
                energy: Oscillates,
                symplectic: true,
                requires: { mass: Regular, constraints: Unconstrained, model: Any, forces: false },
                constraints_at_nodes: false,
                note: "the state reports the node `(x, p)`; the standard layer's segment state `(q, v)` rides along as the next step's guess",
            }

            /// `Converted` with any explicit Runge–Kutta tableau of up to eight stages
            /// as its standard layer, given at run time
            /// (`ConvertedTableau::new(tableau, bias, claimed_order)`) and checked first:
            /// explicit, `c = A·1`, and the order conditions (one per rooted tree) up to
            /// the order it claims; a tableau that fails them is refused with the order
            /// they give. Its order, the tableau's (the next even one with the symmetric
            /// bias), is `ConvertedTableau::order()`; the catalogue's is the least,
            /// that of a consistent tableau. The default is RK4 with the forward bias.
            ConvertedTableau {
                marker: defined,
                label: "Converted, tableau as data",
                family: ConvertedTableau,
                source: "Patrick, Cuell, Spiteri, Zhang, Sect. 3, 4.2; spec next_packages §C",
                equations: "node form (spec §C.3); chord from (4.9)",
                unknowns: [q: d, v: d, mu: d],
                order: { q: 1, p: 1, multipliers: None },
                energy: Oscillates,
                symplectic: true,
                requires: { mass: Regular, constraints: Unconstrained, model: Any, forces: false },
                constraints_at_nodes: false,
                note: "the order is the tableau's (`ConvertedTableau::order()`), at least 1; the state reports the node `(x, p)`",
            }

            /// The conversion with holonomic constraints `g(q) = 0` (Patrick, Cuell,
            /// Spiteri, Zhang, Sect. 3, Figs. 1–2; spec next_packages §C.4 with its two
            /// corrections): the standard layer `L` runs on the constrained second-order
            /// system, `[[L_vv, −Gᵀ], [−G, 0]] [A; λ] = [L_q − L_vq v; D²g(v, v)]`, and
            /// the end points are projected onto the constraints by
            /// `ℙ(q̂) = (q, θ)`: `q̂ − q − Dg(q)ᵀθ = 0`, `g(q) = 0` (3.2), the momenta by
            /// `Dℙᵀ` (4.7). One step from the node `(q̄, μ)` (Phase B):
            ///
            /// ```text
            /// R^q_{hα⁻}(w) − q̄ − Dg(q̄)ᵀθ⁺ = 0
            /// DL_h(w) − λ̂⁺ DR^q_{hα⁺}(w) + μ̂ DR^q_{hα⁻}(w) − ν₁[Dg(q), 0] − ν₂[vᵀD²g(q), Dg(q)] = 0
            /// λ⁺ Dg(q⁺)ᵀ = 0,   g(q) = 0,   Dg(q) v = 0
            /// x_{k+1} = q⁺ = ℙ(R^q_{hα⁺}(w)),   p_{k+1} = λ⁺
            /// ```
            ///
            /// Unknowns `(q, v, θ⁺, λ⁺, ν₁, ν₂)`, `3d + 3m`, Newton with a difference
            /// Jacobian (nested solves of ℙ and `Dℙᵀ` inside the residual). `g = 0` at
            /// every node, `g = 0` and `Dg v = 0` at every segment; the order of `L`, the
            /// next even one with `Symmetric`.
            ConvertedHolonomic<L in StandardLayer, B in Bias> {
                marker: unit,
                label: "Converted, holonomic",
                family: ConvertedHolonomic,
                source: "Patrick, Cuell, Spiteri, Zhang, Sect. 3, Figs. 1–2; spec next_packages §C.4",
                equations: "Phase B (spec §C.4)",
                unknowns: [q: d, v: d, theta: m, lambda: d, nu1: m, nu2: m],
                order: {
                    q: converted_order(L, B),
                    p: converted_order(L, B),
                    multipliers: None,
                },
                energy: Oscillates,
                symplectic: true,
                requires: { mass: Regular, constraints: Holonomic, model: Any, forces: false },
                constraints_at_nodes: true,
                note: "`g = 0` at nodes; `g = 0` and `Dg v = 0` at the segments; the Jacobian is by differences",
            }
        }
    };
}
