//! What the catalogue says about a scheme, as types: the row every tool reads
//! ([`Entry`]), and the per-marker constants ([`SchemeInfo`]).

/// Convergence orders of a scheme, separately for positions, momenta and multipliers:
/// they differ (the GGL energy–momentum schemes are second order in `q` and `p`, first
/// in `λ`; the constrained Lobatto schemes' `λ` order depends on the parity of `s`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Orders {
    /// Order in the positions `q`.
    pub q: u32,
    /// Order in the momenta `p`.
    pub p: u32,
    /// Order in the multipliers; `None` when the scheme has none, or when neither its
    /// paper states the order nor a test here measures it.
    pub multipliers: Option<u32>,
}

/// How a scheme treats the energy of a conservative model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Energy {
    /// Conserved to round-off (energy–momentum schemes).
    Exact,
    /// Not conserved, but bounded and oscillating over long times (symplectic schemes).
    Oscillates,
    /// Not conserved, with no long-time bound (a non-symplectic method that is not an
    /// energy–momentum one: the Livens midpoint rule).
    Drifts,
}

/// What a scheme needs of the model's kinetic energy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MassRequirement {
    /// `L = ½ vᵀMv − V(q)` with a constant, nonsingular `M` (every GGL scheme).
    Constant,
    /// Any Lagrangian whose `∂²L/∂v²` is nonsingular along the motion.
    Regular,
    /// Any Lagrangian: `∂²L/∂v²` may depend on `q` and be singular (never inverted).
    Any,
}

/// Which holonomic constraints `g(q) = 0` a scheme accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConstraintSupport {
    /// None: the scheme is for unconstrained models.
    Unconstrained,
    /// Holonomic constraints of any form.
    Holonomic,
    /// Nonholonomic constraints `A(q) v = 0` (at least one), no holonomic ones.
    Nonholonomic,
}

/// What a scheme requires of a model; `model!` refuses the rest with a spanned error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Requirements {
    /// Kinetic energy.
    pub mass: MassRequirement,
    /// Holonomic constraints.
    pub constraints: ConstraintSupport,
    /// The model's shape, for schemes written for rigid bodies.
    pub model: ModelRequirement,
    /// Whether the scheme's equations have the `forces` block's term (`model!` refuses
    /// a forced model for the others, which would integrate the unforced system).
    pub forces: bool,
}

/// What a scheme requires of the model's coordinates and kinetic energy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelRequirement {
    /// Any model the other requirements admit.
    Any,
    /// One `Quat` coordinate whose only constraint is its unit norm (the update rotates
    /// it: Null-EML).
    OneQuaternion,
    /// Rigid bodies and particles: every `Quat` coordinate with its unit norm among the
    /// constraints and the kinetic energy `½ Ω·J₀Ω` of a rigid body, `Ω = 2 G(q) q̇`, the
    /// other coordinates with a constant mass matrix, no term coupling a body to another
    /// coordinate (the Hamiltonian schemes build the regular mass matrix `M₄` of each
    /// body from its `J₀`).
    RigidBody,
}

/// One block of a scheme's unknowns as the catalogue declares it: `q1` of size `d`, or
/// the stage velocities `V¹ … Vˢ`, one block of size `d` per stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockSpec {
    /// The block's name, e.g. `q1`, `lambda1`, `V`.
    pub name: &'static str,
    /// Its size in the model's dimensions, as written: `d` or `m`.
    pub size: &'static str,
    /// For a block per stage, the stage count's name (`S`); `None` for a single block.
    pub per_stage: Option<&'static str>,
}

pub use livens_catalogue::{Arg, Param, ParamKind};

/// A named choice of a scheme parameter: a unit type of [`livens::schemes`](crate::schemes)
/// generated from the catalogue's `choices` (e.g. `Gauss` of `Quadrature`), implementing
/// its set's trait.
pub trait Choice: Copy + Default + core::fmt::Debug + Eq + 'static {
    /// The choice's name as `model!` reads it.
    const NAME: &'static str;
}

/// Stands for every choice in the rows of [`CATALOGUE`](crate::schemes::CATALOGUE),
/// which do not depend on the parameters' values; it implements every set's trait, but
/// `model!` never names it, so no step is built with it.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Unchosen;

impl Choice for Unchosen {
    const NAME: &'static str = "_";
}

/// A scheme instance's name as `model!` writes it: `GglEm`, `LobattoIIIAIIIB(3)`,
/// `Name(4, 2, Gauss)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InstanceName {
    /// The marker's name.
    pub name: &'static str,
    /// Its parameters' values.
    pub args: &'static [Arg],
}

impl core::fmt::Display for InstanceName {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name)?;
        if let Some((first, rest)) = self.args.split_first() {
            write!(f, "({first}")?;
            for arg in rest {
                write!(f, ", {arg}")?;
            }
            f.write_str(")")?;
        }
        Ok(())
    }
}

/// Orders as the catalogue writes them, for schemes whose orders depend on a parameter
/// (`2 * S - 2`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OrderText {
    /// Order in `q`.
    pub q: &'static str,
    /// Order in `p`.
    pub p: &'static str,
    /// Order in the multipliers, `None` as in [`Orders::multipliers`].
    pub multipliers: Option<&'static str>,
}

/// One row of the scheme catalogue, for every scheme whether or not a model declares
/// it: what `livens list`, the README's table and the tests read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The marker type's name in [`livens::schemes`](crate::schemes), e.g. `GglEm`.
    pub name: &'static str,
    /// The papers' short label, e.g. `EM`.
    pub label: &'static str,
    /// The family whose driver steps it, as the catalogue's `families` name it (`TwoPoint`: a
    /// symbolic template solved by Newton; `Prk`, `PrkHolonomic`, `PrkNonholonomic`:
    /// assembled at run time from the point kernels).
    pub family: &'static str,
    /// The paper and section it comes from, and the spec that implements it.
    pub source: &'static str,
    /// The paper's equation numbers.
    pub equations: &'static str,
    /// The scheme's parameters, in order (`S in 2..=10` for the Lobatto families):
    /// a scheme with parameters is written `Name(3)`, `Name(4, 2, Gauss)` in `model!`.
    pub params: &'static [Param],
    /// The blocks of the unknowns of one step, in order.
    pub unknowns: &'static [BlockSpec],
    /// Convergence orders, as written.
    pub order: OrderText,
    /// Energy behaviour.
    pub energy: Energy,
    /// Whether the scheme is symplectic.
    pub symplectic: bool,
    /// What it needs of a model.
    pub requires: Requirements,
    /// Whether `g(q) = 0` is one of its equations at the nodes (rather than at
    /// midpoints or at `q^θ`); `false` for schemes without constraints.
    pub constraints_at_nodes: bool,
    /// One line on where the constraints hold and what to watch for.
    pub note: &'static str,
}

/// Static facts about a scheme, generated from its catalogue entry: read by docs, tests
/// and tools.
pub trait SchemeInfo {
    /// The scheme's catalogue row.
    const ENTRY: &'static Entry;
    /// The marker type's name, e.g. `GglEm`.
    const NAME: &'static str = Self::ENTRY.name;
    /// Short label used in the papers and on the command line, e.g. `EM`.
    const LABEL: &'static str = Self::ENTRY.label;
    /// The values of this instance's parameters, in the order of
    /// [`Entry::params`]; empty for a scheme without.
    const ARGS: &'static [Arg] = &[];
    /// The stage count of this instance: its first integer parameter (`S` of the Lobatto
    /// families), if it has one.
    const STAGES: Option<usize> = first_count(Self::ARGS);
    /// The instance's name as `model!` writes it, e.g. `LobattoIIIAIIIB(3)`.
    const INSTANCE: InstanceName = InstanceName {
        name: Self::ENTRY.name,
        args: Self::ARGS,
    };
    /// Convergence orders stated by the paper (and measured by the tests), for this
    /// instance of the scheme (its stage count filled in).
    const ORDER: Orders;
    /// Whether the scheme conserves the energy to round-off.
    const CONSERVES_ENERGY: bool = matches!(Self::ENTRY.energy, Energy::Exact);
    /// Whether the scheme is symplectic.
    const SYMPLECTIC: bool = Self::ENTRY.symplectic;
}

/// The first integer among `args`.
const fn first_count(args: &[Arg]) -> Option<usize> {
    let mut i = 0;
    while i < args.len() {
        if let Arg::Count(n) = args[i] {
            return Some(n);
        }
        i += 1;
    }
    None
}
