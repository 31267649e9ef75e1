//! Renamed items keep their first names, deprecated, for one release: code written
//! against them still compiles and means the same thing.
#![allow(deprecated)]
use livens::prelude::*;
use livens_models::Pendulum3d;
use nalgebra::Vector3;

#[test]
fn ggl_state_is_node_state() {
    let model = Pendulum3d::default();
    let (q, v) = (Vector3::new(1.0, 0.0, 0.0), Vector3::new(0.0, 0.5, 0.0));
    let consistency = Consistency::Reject { tolerance: 1e-12 };
    let old: GglState<f64, 3, 1> = GglState::consistent(&model, q, v, consistency).unwrap();
    let new: NodeState<f64, 3, 1> = NodeState::consistent(&model, q, v, consistency).unwrap();
    assert_eq!(old, new);
}

#[test]
fn families_ggl_is_families_two_point() {
    let model = Pendulum3d::default();
    let node = NodeState::consistent(
        &model,
        Vector3::new(1.0, 0.0, 0.0),
        Vector3::new(0.0, 0.5, 0.0),
        Consistency::Reject { tolerance: 1e-12 },
    )
    .unwrap();
    let context = StepContext::new(0.01, 0.0);
    let options = livens::StepOptions::default();
    let mut workspace = model.workspace::<livens::solve::Inline>(&GglEm);
    let (old, _) =
        livens::families::ggl::step(&model, &GglEm, context, &node, &mut workspace, &options)
            .unwrap();
    let (new, _) =
        livens::families::two_point::step(&model, &GglEm, context, &node, &mut workspace, &options)
            .unwrap();
    assert_eq!(old, new);
    assert!(old.t > node.t);
}
