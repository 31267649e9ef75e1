//! The generated code is hygienic against the names a user may legally choose: a model
//! named like the generated code's scalar type (`T`), its workspace storage (`K`), its
//! visitor (`V`), a primitive (`f64`) or a prelude item (`Option`), and parameters named
//! like them, compile and step as any other model.
// The names are the point of the test.
#![allow(non_snake_case)]
use livens::prelude::*;
use livens::{InitError, Parameters};

macro_rules! oscillator {
    ($name:ident, $param:ident) => {
        livens::model! {
            /// A harmonic oscillator with a rigid rod, under a user's awkward names.
            #[allow(non_camel_case_types)]
            pub struct $name {
                params { $param = 1.0, k = 4.0 }
                requires { $param > 0.0 }
                coords { x: Vec3 }
                kinetic = 0.5 * $param * dot(x_dot, x_dot);
                potential = 0.5 * k * x.z * x.z;
                holonomic { rod: 0.5 * (dot(x, x) - 1.0) }
                momentum { jz: rotation(e3) }
                schemes { GglEm, Rattle }
            }
        }
    };
}

oscillator!(T, T);
oscillator!(K, K);
oscillator!(V, V);
oscillator!(f64, f64);
oscillator!(Option, Result);

fn run<Mdl>(
    model: Mdl,
    name: &str,
    parameter: &str,
) -> Result<(), InitError<::core::primitive::f64>>
where
    Mdl: Model<::core::primitive::f64, 3, 1>
        + Parameters<::core::primitive::f64>
        + Step<::core::primitive::f64, GglEm, State = NodeState<::core::primitive::f64, 3, 1>>
        + Copy,
{
    assert_eq!(Mdl::NAME, name);
    assert_eq!(Mdl::PARAMETERS, [parameter, "k"]);
    assert_eq!(model.parameter(parameter), Some(1.0));
    let q = SVector::from([0.6, 0.0, 0.8]);
    let v = SVector::from([0.0, 1.0, 0.0]);
    let state = NodeState::consistent(&model, q, v, Consistency::Reject { tolerance: 1e-12 })?;
    let e0 = model.energy(&state.q, &state.v);
    let mut sim = Integrator::new(model, GglEm, 0.05, state);
    sim.run(100).expect("steps");
    let end = sim.state();
    let e1 = model.energy(&end.q, &end.v);
    assert!((e1 - e0).abs() < 1e-10 * e0.abs(), "{name}: {e0} → {e1}");
    Ok(())
}

#[test]
fn awkward_names_compile_and_step() {
    run(T::new(), "T", "T").unwrap();
    run(K::new(), "K", "K").unwrap();
    run(V::new(), "V", "V").unwrap();
    run(f64::new(), "f64", "f64").unwrap();
    run(Option::new(), "Option", "Result").unwrap();
    // The parameter named like the model is an ordinary field.
    let mut t = T::new();
    t.T = 2.0;
    assert_eq!(t.parameter("T"), Some(2.0));
    let mut f = f64::new();
    f.f64 = -1.0;
    assert!(f.check_parameters().is_err());
}
