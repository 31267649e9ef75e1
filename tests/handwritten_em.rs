//! The hand-written EM pendulum step that `benches/handwritten.rs` times against the
//! generated one computes the same thing: the same states to round-off after one step
//! and along 10³ steps, with the same Newton iteration counts.
#[path = "../benches/support/handwritten_em.rs"]
mod handwritten_em;

#[test]
fn handwritten_em_step_follows_the_generated_one() {
    let check = handwritten_em::agreement(1000);
    assert_eq!(check.steps, 1000);
    assert!(check.first_step <= 1e-14, "{check:?}");
    assert!(check.max <= 1e-12, "{check:?}");
    assert_eq!(check.iteration_mismatches, 0, "{check:?}");
    assert_eq!(check.iterations.0, check.iterations.1, "{check:?}");
}
