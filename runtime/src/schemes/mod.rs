//! Scheme markers: one type per integrator, carrying its documentation and its
//! catalogue entry ([`SchemeInfo`]); schemes with coefficients carry them as values,
//! schemes with a stage count as a const parameter. The discrete equations are emitted
//! by `model!` (symbolic families) or assembled by [`families`](crate::families).
//!
//! Every scheme is declared once, in `schemes/catalogue.rs`; the markers, their
//! [`SchemeInfo`] and [`CATALOGUE`] are generated from it here, the macro's checks and
//! dispatch in `livens-macros`. [`CATALOGUE`] lists them all with their unknowns,
//! orders, properties and requirements; the README's table is rendered from it.
mod ggl_theta;
pub mod info;

pub use ggl_theta::{GglThetaA, GglThetaB};
use info::{
    BlockSpec, ConstraintSupport, Energy, Entry, MassRequirement, ModelRequirement, OrderText,
    Orders, Requirements, SchemeInfo,
};

/// Reads the catalogue: a marker struct per `unit` entry, a [`SchemeInfo`] impl and a
/// [`CATALOGUE`] row per entry. The `template` field is the macro crate's.
macro_rules! catalogue {
    (
        sizes($d:ident, $m:ident, $k:ident);
        $(
            $(#[doc = $doc:literal])*
            $name:ident $(<$stages:ident in $lo:literal ..= $hi:literal>)? {
                marker: $marker:ident,
                label: $label:literal,
                family: $family:ident,
                source: $source:literal,
                equations: $equations:literal,
                unknowns: [$($block:ident $([$per_stage:ident])?: $size:expr),+ $(,)?],
                order: { q: $oq:expr, p: $op:expr, multipliers: $olk:ident $(($ol:expr))? $(,)? },
                energy: $energy:ident,
                symplectic: $symplectic:literal,
                requires: {
                    mass: $mass:ident,
                    constraints: $constraints:ident,
                    model: $model_req:ident,
                    forces: $forces:literal $(,)?
                },
                constraints_at_nodes: $at_nodes:literal,
                note: $note:literal,
                $(template: $template:expr,)?
            }
        )+
    ) => {
        $(
            catalogue!(@marker $marker [$($doc)*] $name [$($stages)?]);
            catalogue!(@info $name [$($stages)?] [$oq, $op, $olk $(($ol))?] Entry {
                name: stringify!($name),
                label: $label,
                family: stringify!($family),
                source: $source,
                equations: $equations,
                stages: catalogue!(@stages $($stages $lo $hi)?),
                unknowns: &[$(BlockSpec {
                    name: stringify!($block),
                    size: stringify!($size),
                    per_stage: catalogue!(@per_stage $($per_stage)?),
                }),+],
                order: OrderText {
                    q: stringify!($oq),
                    p: stringify!($op),
                    multipliers: catalogue!(@order_text $olk $(($ol))?),
                },
                energy: Energy::$energy,
                symplectic: $symplectic,
                requires: Requirements {
                    mass: MassRequirement::$mass,
                    constraints: ConstraintSupport::$constraints,
                    model: ModelRequirement::$model_req,
                    forces: $forces,
                },
                constraints_at_nodes: $at_nodes,
                note: $note,
            });
        )+

        /// Every scheme of the catalogue, in declaration order.
        pub const CATALOGUE: &[&Entry] = &[$(<catalogue!(@instance $name [$($stages $lo)?])
            as SchemeInfo>::ENTRY),+];
    };

    (@marker unit [$($doc:literal)*] $name:ident []) => {
        $(#[doc = $doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct $name;
    };
    (@marker unit [$($doc:literal)*] $name:ident [$stages:ident]) => {
        $(#[doc = $doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct $name<const $stages: usize>;
    };
    (@marker defined [$($doc:literal)*] $name:ident [$($stages:ident)?]) => {};

    (@info $name:ident [] [$oq:expr, $op:expr, $olk:ident $(($ol:expr))?] $entry:expr) => {
        impl SchemeInfo for $name {
            const ENTRY: &'static Entry = &$entry;
            const ORDER: Orders = Orders {
                q: $oq,
                p: $op,
                multipliers: $olk$(($ol))?,
            };
        }
    };
    // The orders are expressions in the stage count, a `usize`.
    (@info $name:ident [$stages:ident] [$oq:expr, $op:expr, $olk:ident $(($ol:expr))?] $entry:expr) => {
        impl<const $stages: usize> SchemeInfo for $name<$stages> {
            const ENTRY: &'static Entry = &$entry;
            const STAGES: Option<usize> = Some($stages);
            const ORDER: Orders = Orders {
                q: ($oq) as u32,
                p: ($op) as u32,
                multipliers: $olk$((($ol) as u32))?,
            };
        }
    };

    (@instance $name:ident []) => { $name };
    (@instance $name:ident [$stages:ident $lo:literal]) => { $name<$lo> };
    (@stages) => { None };
    (@stages $stages:ident $lo:literal $hi:literal) => {
        Some((stringify!($stages), $lo, $hi))
    };
    (@per_stage) => { None };
    (@per_stage $per_stage:ident) => { Some(stringify!($per_stage)) };
    (@order_text None) => { None };
    (@order_text Some($ol:expr)) => { Some(stringify!($ol)) };
}

include!("catalogue.rs");
