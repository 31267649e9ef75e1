//! Scheme markers: one type per integrator, carrying its documentation and its
//! catalogue entry ([`SchemeInfo`]); schemes with coefficients carry them as values,
//! schemes with parameters as generics (a stage count as a const parameter, a named
//! choice as a type of this module). The discrete equations are emitted
//! by `model!` (symbolic families) or assembled by [`families`](crate::families).
//!
//! Every scheme is declared once, in the `livens-catalogue` crate; the markers, their
//! [`SchemeInfo`] and [`CATALOGUE`] are generated from it here, the macro's checks and
//! dispatch in `livens-macros`. [`CATALOGUE`] lists them all with their unknowns,
//! orders, properties and requirements; the README's table is rendered from it.
mod converted_tableau;
mod ggl_theta;
pub mod info;

pub use converted_tableau::{ConvertedTableau, USER_STAGES};
pub use ggl_theta::{GglThetaA, GglThetaB};
use info::{
    BlockSpec, ConstraintSupport, Energy, Entry, MassRequirement, ModelRequirement, OrderText,
    Orders, Param, ParamKind, Requirements, SchemeInfo,
};

/// Reads the catalogue (`livens_catalogue`): a trait and a unit type per named choice, a
/// marker struct per `unit` entry, a [`SchemeInfo`] impl and a [`CATALOGUE`] row per
/// entry. The `template` field is the macro crate's.
///
/// A scheme's parameters become the marker's generics in order: an integer range a
/// `const usize`, a choice a type parameter bounded by its set's trait. Generic lists
/// cannot be written by a macro call, so `@generics` builds them one parameter at a
/// time (the declaration, the use, the values) before `@emit` writes the items.
macro_rules! catalogue {
    (
        sizes($d:ident, $m:ident, $k:ident);
        choices { $($set:ident { $($option:ident),+ $(,)? })* }
        families { $($family_decl:tt)* }
        $(
            $(#[doc = $doc:literal])*
            $name:ident $(< $($param:ident in $($lo:literal ..= $hi:literal)? $($pset:ident)?),+ >)? {
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
        $(catalogue!(@choices $set [$($option)+]);)*

        /// Every set of named choices a scheme parameter ranges over, with its options.
        pub const CHOICES: &[(&str, &[&str])] = &[$((stringify!($set), &[$(stringify!($option)),+])),*];

        $(
            catalogue!(@scheme [$marker] [$($doc)*] $name
                [$($( ($param [$($lo $hi)?] [$($pset)?]) )+)?]
                [$oq, $op, $olk $(($ol))?]
                Entry {
                    name: stringify!($name),
                    label: $label,
                    family: stringify!($family),
                    source: $source,
                    equations: $equations,
                    params: &[$($(catalogue!(@param $param [$($lo $hi)?] [$($pset)?])),+)?],
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
                }
            );
        )+

        /// Every scheme of the catalogue, in declaration order.
        pub const CATALOGUE: &[&Entry] = &[$(<catalogue!(@instance $name []
            $($( ($param [$($lo $hi)?] [$($pset)?]) )+)?) as SchemeInfo>::ENTRY),+];
    };

    // A set of named choices: its trait, and a unit type per option.
    (@choices $set:ident [$($option:ident)+]) => {
        #[doc = concat!("The named choices `", stringify!($set), "` of a scheme parameter: ",
            $("`", stringify!($option), "` ",)+ ".")]
        pub trait $set: info::Choice {}
        impl $set for info::Unchosen {}
        $(
            #[doc = concat!("The choice `", stringify!($option), "` of [`", stringify!($set), "`].")]
            #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
            pub struct $option;
            impl info::Choice for $option {
                const NAME: &'static str = stringify!($option);
            }
            impl $set for $option {}
        )+
    };

    (@param $param:ident [$lo:literal $hi:literal] []) => {
        Param { name: stringify!($param), kind: ParamKind::Count { lo: $lo, hi: $hi } }
    };
    (@param $param:ident [] [$set:ident]) => {
        Param { name: stringify!($param), kind: ParamKind::Choice { set: stringify!($set) } }
    };

    // A scheme without parameters.
    (@scheme [$marker:ident] [$($doc:literal)*] $name:ident [] [$oq:expr, $op:expr, $olk:ident $(($ol:expr))?] $entry:expr) => {
        catalogue!(@marker $marker [$($doc)*] $name [] [] []);
        impl SchemeInfo for $name {
            const ENTRY: &'static Entry = &$entry;
            const ORDER: Orders = Orders {
                q: $oq,
                p: $op,
                multipliers: $olk$(($ol))?,
            };
        }
    };
    (@scheme [$marker:ident] [$($doc:literal)*] $name:ident [$($params:tt)+] $orders:tt $entry:expr) => {
        catalogue!(@generics [$marker] [$($doc)*] $name $orders $entry; [] [] [] []; $($params)+);
    };

    // The generics one parameter at a time: [declaration] [use] [values] [choice types].
    (@generics $marker:tt $docs:tt $name:ident $orders:tt $entry:expr;
        [$($decl:tt)*] [$($use:tt)*] [$($args:tt)*] [$($choice:tt)*];
        ($param:ident [$lo:literal $hi:literal] []) $($rest:tt)*) => {
        catalogue!(@generics $marker $docs $name $orders $entry;
            [$($decl)* const $param: usize,] [$($use)* $param,]
            [$($args)* info::Arg::Count($param),] [$($choice)*]; $($rest)*);
    };
    (@generics $marker:tt $docs:tt $name:ident $orders:tt $entry:expr;
        [$($decl:tt)*] [$($use:tt)*] [$($args:tt)*] [$($choice:tt)*];
        ($param:ident [] [$set:ident]) $($rest:tt)*) => {
        catalogue!(@generics $marker $docs $name $orders $entry;
            [$($decl)* $param: $set,] [$($use)* $param,]
            [$($args)* info::Arg::Choice(<$param as info::Choice>::NAME),] [$($choice)* $param]; $($rest)*);
    };
    // The orders are expressions in the parameters: an integer parameter is its
    // `usize`, a choice its name, bound under the parameter's own name (a type
    // parameter's name is free in the value namespace).
    (@generics [$marker:ident] [$($doc:literal)*] $name:ident
        [$oq:expr, $op:expr, $olk:ident $(($ol:expr))?] $entry:expr;
        [$($decl:tt)*] [$($use:tt)*] [$($args:tt)*] [$($choice:ident)*];) => {
        catalogue!(@marker $marker [$($doc)*] $name [$($decl)*] [$($use)*] [$($choice)*]);
        impl<$($decl)*> SchemeInfo for $name<$($use)*> {
            const ENTRY: &'static Entry = &$entry;
            const ARGS: &'static [info::Arg] = &[$($args)*];
            #[allow(non_snake_case, unused_variables)]
            const ORDER: Orders = {
                $(let $choice = <$choice as info::Choice>::NAME;)*
                Orders {
                    q: ($oq) as u32,
                    p: ($op) as u32,
                    multipliers: $olk$((($ol) as u32))?,
                }
            };
        }
    };

    (@marker unit [$($doc:literal)*] $name:ident [] [] []) => {
        $(#[doc = $doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct $name;
    };
    (@marker unit [$($doc:literal)*] $name:ident [$($decl:tt)+] [$($use:tt)+] []) => {
        $(#[doc = $doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct $name<$($decl)+>;
    };
    // With choices, the struct holds their types as a `PhantomData` and is built by
    // `Default` (`Name::<4, 2, Gauss>::default()`).
    (@marker unit [$($doc:literal)*] $name:ident [$($decl:tt)+] [$($use:tt)+] [$($choice:ident)+]) => {
        $(#[doc = $doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct $name<$($decl)+>(core::marker::PhantomData<fn() -> ($($choice,)+)>);
    };
    (@marker defined [$($doc:literal)*] $name:ident $decl:tt $use:tt $choice:tt) => {};

    // The instance whose row `CATALOGUE` reads: each integer at its least value, each
    // choice `Unchosen`.
    (@instance $name:ident []) => { $name };
    (@instance $name:ident [$($acc:tt)+]) => { $name<$($acc)+> };
    (@instance $name:ident [$($acc:tt)*] ($param:ident [$lo:literal $hi:literal] []) $($rest:tt)*) => {
        catalogue!(@instance $name [$($acc)* $lo,] $($rest)*)
    };
    (@instance $name:ident [$($acc:tt)*] ($param:ident [] [$set:ident]) $($rest:tt)*) => {
        catalogue!(@instance $name [$($acc)* info::Unchosen,] $($rest)*)
    };

    (@per_stage) => { None };
    (@per_stage $per_stage:ident) => { Some(stringify!($per_stage)) };
    (@order_text None) => { None };
    (@order_text Some($ol:expr)) => { Some(stringify!($ol)) };
}

livens_catalogue::with_catalogue!(catalogue);

/// The catalogue's order of `Galerkin(s, w, rule, r)`, the rule by its name
/// ([`tableaux::galerkin_order`](crate::tableaux::galerkin_order)).
const fn galerkin_order(s: usize, w: usize, rule: &str, r: usize) -> u32 {
    match crate::tableaux::Quadrature::named(rule) {
        Some(rule) => crate::tableaux::galerkin_order(s, w, rule, r),
        None => panic!("the order of a Galerkin scheme needs its quadrature rule"),
    }
}

/// The catalogue's order of `Converted(layer, bias)`: the standard layer's
/// ([`tableaux::layer_order`](crate::tableaux::layer_order)), the next even one with the
/// symmetric bias (spec `next_packages.md` §C.1; measured in `families::converted`'s
/// tests).
const fn converted_order(layer: &str, bias: &str) -> u32 {
    let order = match crate::tableaux::layer_order(layer) {
        Some(order) => order as u32,
        None => panic!("the order of a converted scheme needs its standard layer"),
    };
    if crate::tableaux::same(bias, "Symmetric") {
        order + order % 2
    } else {
        order
    }
}

/// The reader on a small catalogue of its own with a named choice and several parameters
/// (as `Galerkin` has) and a scheme without: the markers, their generics and their rows,
/// independent of the real catalogue's entries.
#[cfg(test)]
mod several_parameters {
    mod example {
        use crate::schemes::info::{
            self, BlockSpec, ConstraintSupport, Energy, Entry, MassRequirement, ModelRequirement,
            OrderText, Orders, Param, ParamKind, Requirements, SchemeInfo,
        };
        catalogue! {
            sizes(d, m, k);
            choices { Rule { Gauss, Lobatto } }
            families {}

            /// A scheme with three parameters.
            Example<S in 1..=6, W in 1..=6, R in Rule> {
                marker: unit,
                label: "example",
                family: Prk,
                source: "none",
                equations: "(0)",
                unknowns: [V[S]: d, Lambda[W]: m],
                order: { q: 2 * S, p: 2 * S, multipliers: Some(W) },
                energy: Oscillates,
                symplectic: true,
                requires: { mass: Regular, constraints: Holonomic, model: Any, forces: false },
                constraints_at_nodes: true,
                note: "none",
            }

            /// A scheme without.
            Plain {
                marker: unit,
                label: "plain",
                family: TwoPoint,
                source: "none",
                equations: "(0)",
                unknowns: [q1: d],
                order: { q: 1, p: 1, multipliers: None },
                energy: Drifts,
                symplectic: false,
                requires: { mass: Constant, constraints: Unconstrained, model: Any, forces: false },
                constraints_at_nodes: false,
                note: "none",
            }
        }
    }
    use super::info::{Arg, ParamKind, SchemeInfo};
    use example::{Example, Gauss, Lobatto, Plain, CATALOGUE, CHOICES};

    #[test]
    fn markers_rows_and_names_carry_every_parameter() {
        type E = Example<4, 2, Gauss>;
        assert_eq!(
            E::ARGS,
            &[Arg::Count(4), Arg::Count(2), Arg::Choice("Gauss")]
        );
        assert_eq!(E::STAGES, Some(4));
        assert_eq!((E::ORDER.q, E::ORDER.multipliers), (8, Some(2)));
        extern crate alloc;
        use alloc::string::ToString;
        assert_eq!(E::INSTANCE.to_string(), "Example(4, 2, Gauss)");
        assert_eq!(
            <Example<3, 1, Lobatto>>::INSTANCE.to_string(),
            "Example(3, 1, Lobatto)"
        );
        assert_eq!(Plain::INSTANCE.to_string(), "Plain");
        assert_eq!(Plain::STAGES, None);
        assert_eq!(E::default(), E::default());
        assert_eq!(CHOICES, &[("Rule", &["Gauss", "Lobatto"][..])]);
        assert_eq!(CATALOGUE.len(), 2);
        let kinds: [ParamKind; 3] = core::array::from_fn(|i| CATALOGUE[0].params[i].kind);
        assert_eq!(
            kinds,
            [
                ParamKind::Count { lo: 1, hi: 6 },
                ParamKind::Count { lo: 1, hi: 6 },
                ParamKind::Choice { set: "Rule" }
            ]
        );
        assert!(CATALOGUE[1].params.is_empty());
    }
}

/// The Galerkin markers' orders are the tables' (`tableaux::galerkin_order`), their rule
/// reaching the order expressions by its name: every choice of `Quadrature` names a rule.
#[cfg(test)]
mod galerkin_orders {
    use super::{Galerkin, Gauss, Lobatto, SchemeInfo, CHOICES};
    use crate::tableaux::Quadrature;

    #[test]
    fn the_rule_reaches_the_orders() {
        let q = |o: crate::Orders| (o.q, o.p, o.multipliers);
        assert_eq!(q(Galerkin::<2, 2, Gauss, 2>::ORDER), (4, 4, Some(4)));
        assert_eq!(q(Galerkin::<3, 3, Gauss, 3>::ORDER), (6, 6, Some(6)));
        assert_eq!(q(Galerkin::<3, 3, Lobatto, 3>::ORDER), (4, 4, Some(4)));
        assert_eq!(q(Galerkin::<6, 3, Lobatto, 7>::ORDER), (2, 2, Some(2)));
        let (_, options) = CHOICES.iter().find(|c| c.0 == "Quadrature").unwrap();
        assert!(options.iter().all(|o| Quadrature::named(o).is_some()));
    }
}

/// Every choice of `StandardLayer` and `Bias` names a built-in layer and bias (what the
/// converted workspace builds from), and the orders follow the bias.
#[cfg(test)]
mod converted_orders {
    use super::{Converted, Euler, Forward, Heun, Kutta3, Rk4, SchemeInfo, Symmetric, CHOICES};
    use crate::families::converted::node_form::Bias;
    use crate::tableaux::{layer_order, Tableau};

    #[test]
    fn every_choice_is_built_in() {
        let options = |set: &str| CHOICES.iter().find(|c| c.0 == set).unwrap().1;
        assert!(options("StandardLayer")
            .iter()
            .all(|o| Tableau::standard_layer(o).is_some() && layer_order(o).is_some()));
        assert!(options("Bias").iter().all(|o| Bias::named(o).is_some()));
        let q = |o: crate::Orders| (o.q, o.p, o.multipliers);
        assert_eq!(q(Converted::<Euler, Forward>::ORDER), (1, 1, None));
        assert_eq!(q(Converted::<Euler, Symmetric>::ORDER), (2, 2, None));
        assert_eq!(q(Converted::<Heun, Symmetric>::ORDER), (2, 2, None));
        assert_eq!(q(Converted::<Kutta3, Forward>::ORDER), (3, 3, None));
        assert_eq!(q(Converted::<Kutta3, Symmetric>::ORDER), (4, 4, None));
        assert_eq!(q(Converted::<Rk4, Symmetric>::ORDER), (4, 4, None));
    }
}
