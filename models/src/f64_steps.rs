//! The `f64` step of every model and scheme it declares, instantiated once in this
//! crate (feature `f64-steps`).
//!
//! Generic code is compiled in the crate that names its types: the command and each
//! test binary would otherwise each compile `Integrator::step` for the same models and
//! schemes again. Debug builds share the generic instances of their dependencies
//! (rustc's `share-generics`, on at `opt-level` 0 and 1), so with these compiled here
//! those crates link them instead. A build-time feature: it changes no behaviour, and
//! the `no_std` and embedded builds leave it off.
use core::fmt::Debug;
use livens::{DeclaredSchemes, FromNode, Integrator, NodeValues, SchemeInfo, SchemeVisitor, Step};

struct Instances;

impl<Mdl, const D: usize, const M: usize, const Q: usize> SchemeVisitor<f64, Mdl, D, M, Q>
    for Instances
{
    fn visit<S>(&mut self, _: S)
    where
        S: SchemeInfo + Clone + Debug + 'static,
        Mdl: Step<f64, S>,
        <Mdl as Step<f64, S>>::State: NodeValues<f64, D, Q> + FromNode<f64, D, M, Q>,
    {
        core::hint::black_box(Integrator::<f64, Mdl, S>::step as fn(&mut _) -> _);
    }
}

fn all<Mdl: DeclaredSchemes<f64, D, M, Q>, const D: usize, const M: usize, const Q: usize>() {
    Mdl::visit_schemes(&mut Instances);
}

/// Names every model's `f64` step for each declared scheme, which makes this crate
/// compile them. Never needs to be called.
#[doc(hidden)]
pub fn f64_steps() {
    all::<crate::LagrangeTop<f64>, _, _, _>();
    all::<crate::Pendulum3d<f64>, _, _, _>();
    all::<crate::FourParticles<f64>, _, _, _>();
    all::<crate::SphericalPendulum<f64>, _, _, _>();
    all::<crate::PlanarPendulum<f64>, _, _, _>();
    all::<crate::DoublePendulum3d<f64>, _, _, _>();
    all::<crate::NonholonomicParticle<f64>, _, _, _>();
    all::<crate::Transmission<f64>, _, _, _>();
    all::<crate::Chaotic<f64>, _, _, _>();
    all::<crate::ChaplyginSleigh<f64>, _, _, _>();
    all::<crate::SpringPendulum<f64>, _, _, _>();
    all::<crate::MassSpring<f64>, _, _, _>();
    all::<crate::FreeBody<f64>, _, _, _>();
    all::<crate::HeavyTop<f64>, _, _, _>();
    all::<crate::ClosedLoop<f64>, _, _, _>();
    all::<crate::DoubleTop<f64>, _, _, _>();
    all::<crate::ParticleOnTorus<f64>, _, _, _>();
    all::<crate::ForcedOscillator<f64>, _, _, _>();
    all::<crate::AnglePendulum<f64>, _, _, _>();
}
