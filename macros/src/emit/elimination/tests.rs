//! The plans of small patterns, of the chain, and their panels.
use super::straight_line::PANEL_WIDTH;
use super::*;

/// Declared linear pivots go first, in their order, flagged for the run-time test
/// (the arrow's dense unknown 0 included, whatever its fill); the rest is planned
/// as without them. A linear pivot without a structural diagonal gives no plan.
#[test]
fn linear_pivots_go_first() {
    let n = 6;
    let mut nz = vec![];
    for k in 0..n {
        nz.extend([(k, k), (0, k), (k, 0)]);
    }
    let plan = Elimination::plan_with_linear_pivots(n, nz.clone(), &[], &[3, 0]).unwrap();
    assert_eq!(&plan.pivots[..2], &[(3, 3), (0, 0)]);
    assert_eq!(&plan.linear[..2], &[true, true]);
    assert!(plan.linear[2..].iter().all(|&l| !l));
    assert_eq!(plan.linear.len(), plan.pivots.len());
    let plain = Elimination::plan(n, nz.clone(), &[]).unwrap();
    assert!(plain.linear.iter().all(|&l| !l));
    nz.retain(|&e| e != (2, 2));
    assert!(Elimination::plan_with_linear_pivots(n, nz, &[], &[2]).is_none());
}

/// An arrow matrix pointing down-right needs no fill when its dense row and column
/// go last; Markowitz finds that order.
#[test]
fn arrow_is_eliminated_without_fill() {
    let n = 6;
    let mut nz = vec![];
    for k in 0..n {
        nz.push((k, k));
        nz.push((0, k));
        nz.push((k, 0));
    }
    let plan = Elimination::plan(n, nz, &[]).unwrap();
    assert!(plan.fill.is_empty(), "{:?}", plan.fill);
    // The dense row and column go once all but one of the others are gone.
    assert!(
        plan.pivots[..4].iter().all(|&p| p != (0, 0)),
        "{:?}",
        plan.pivots
    );
    assert!(plan.block_columns.is_empty());
}

/// A saddle point `[[A, Bᵀ], [B, 0]]`: the primal block is eliminated statically,
/// the multiplier is left to the dense block, on its filled-in Schur complement.
#[test]
fn saddle_point_leaves_the_multipliers_to_the_block() {
    // A = 2×2 diagonal, B = [1 1].
    let nz = [(0, 0), (1, 1), (0, 2), (1, 2), (2, 0), (2, 1)];
    let plan = Elimination::plan(3, nz, &[]).unwrap();
    assert_eq!(plan.pivots, [(0, 0), (1, 1)]);
    assert_eq!(
        (plan.block_rows.as_slice(), plan.block_columns.as_slice()),
        (&[2][..], &[2][..])
    );
    assert_eq!(plan.fill, [(2, 2)]);
    assert_eq!(plan.flops(), 2 * 2);
}

#[test]
fn a_pattern_without_a_diagonal_has_no_plan() {
    assert!(Elimination::plan(2, [(0, 1), (1, 0)], &[]).is_none());
}

/// The pattern of an EM step for a chain of `links` masses on a line (unknowns
/// `q`, `v`, `λ`, `γ` of link `k` at `4k..4k + 4`; constraint `k` joins masses
/// `k − 1` and `k`), and its multiplier partners.
type Pairs = Vec<(usize, usize)>;

fn chain(links: usize) -> (usize, Pairs, Pairs) {
    let (q, v, l, g) = (|k| 4 * k, |k| 4 * k + 1, |k| 4 * k + 2, |k| 4 * k + 3);
    let mut nz = vec![];
    for k in 0..links {
        let near = |k: usize| k.saturating_sub(1)..(k + 2).min(links);
        let joined = |k: usize| k.saturating_sub(1)..=k;
        for j in near(k) {
            nz.extend([(q(k), q(j)), (v(k), q(j))]);
        }
        nz.extend([(q(k), v(k)), (v(k), v(k)), (q(k), g(k)), (v(k), l(k))]);
        if k + 1 < links {
            nz.extend([(q(k), g(k + 1)), (v(k), l(k + 1))]);
        }
        for j in joined(k) {
            nz.extend([(l(k), q(j)), (g(k), q(j)), (g(k), v(j))]);
        }
    }
    let partners = (0..links).map(|k| (l(k), g(k))).collect();
    (4 * links, nz, partners)
}

/// Panels cover the static steps in order, no wider than `PANEL_WIDTH`, never
/// ending on the first step of a 2 × 2 pivot; on a chain, where neighbouring steps
/// update the same entries, some are wider than one step.
#[test]
fn panels_cover_the_steps_and_keep_pairs_whole() {
    let (n, nz, partners) = chain(10);
    let plan = Elimination::plan(n, nz, &partners).unwrap();
    let panels = plan.panels();
    let mut next = 0;
    for &(k, width) in &panels {
        assert_eq!(k, next);
        assert!((1..=PANEL_WIDTH).contains(&width));
        assert!(width == 1 || !plan.paired[k + width - 1], "{panels:?}");
        next = k + width;
    }
    assert_eq!(next, plan.pivots.len());
    assert!(panels.iter().any(|&(_, width)| width > 1), "{panels:?}");
    assert!(plan.paired.contains(&true));
}

/// Eliminating all primal unknowns first leaves a chain's multipliers a full Schur
/// complement; with the 2 × 2 pivots the work grows linearly with the links.
#[test]
fn a_chain_is_eliminated_in_linear_work_with_pairs_of_multipliers() {
    let flops = |links: usize, pairs: bool| {
        let (n, nz, partners) = chain(links);
        let partners = if pairs { partners } else { vec![] };
        let plan = Elimination::plan(n, nz, &partners).unwrap();
        assert_eq!(plan.paired.contains(&true), pairs);
        plan.flops()
    };
    let (ten, forty) = (flops(10, true), flops(40, true));
    assert!(forty <= 5 * ten, "{ten} → {forty}");
    let (ten, forty) = (flops(10, false), flops(40, false));
    assert!(forty >= 30 * ten, "{ten} → {forty} without pairs");
}
