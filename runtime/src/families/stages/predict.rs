//! Newton's starting point from the last step: the stage polynomial of the step that
//! produced the state, continued over the next interval.
//!
//! The stage values of an `S`-stage step are those of polynomials of degree `S − 1` at
//! the nodes `cⱼ` (the Lobatto IIIA collocation polynomial's derivative for the stage
//! velocities). Evaluated at `1 + cᵢ` they predict the next step's stage values to
//! `O(hˢ)`, where the state's own values (every stage velocity set to the node's) are
//! off by `O(h)`: Newton starts closer and needs fewer iterations, and its root is the
//! same.
//!
//! The workspace remembers the step it last solved: its step size and a fingerprint of
//! the state it produced (time, positions, momenta, bit for bit). A step whose state
//! and `h` match continues that step's polynomial; any other step (the first, a new
//! `h`, a state set by hand, a failed step before it) starts from the state's values,
//! as without a predictor.
use nalgebra::SVector;

use crate::model::Real;
use crate::state::NodeValues;

/// `E[i][j] = ℓⱼ(1 + cᵢ)`: the Lagrange basis on the nodes `c` at the next interval's
/// nodes, so that `Σⱼ E[i][j] yʲ` continues the polynomial through `(cⱼ, yʲ)` to
/// `1 + cᵢ`.
pub fn extrapolation<const S: usize>(c: &[f64; S]) -> [[f64; S]; S] {
    core::array::from_fn(|i| {
        core::array::from_fn(|j| {
            c.iter()
                .enumerate()
                .filter(|&(m, _)| m != j)
                .map(|(_, &cm)| (1.0 + c[i] - cm) / (c[j] - cm))
                .product()
        })
    })
}

/// What a workspace keeps to predict the next step: the extrapolation of its nodes (none
/// for coefficients without stage nodes), and the step it last solved.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Predictor<T, const S: usize> {
    extrapolation: Option<[[f64; S]; S]>,
    last: Option<Solved<T>>,
}

/// A solved step: its `h` and the fingerprint of the state it produced.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Solved<T> {
    h: T,
    fingerprint: u64,
}

impl<T: Real, const S: usize> Predictor<T, S> {
    /// A predictor over the nodes `c`, or none (`None`).
    pub fn new(nodes: Option<&[f64; S]>) -> Self {
        Self {
            extrapolation: nodes.map(extrapolation),
            last: None,
        }
    }

    /// The extrapolation, if the last solved step produced `state` with step size `h`;
    /// forgets that step either way (the workspace's unknowns are about to change).
    pub fn take<const D: usize, const Q: usize>(
        &mut self,
        h: T,
        state: &impl NodeValues<T, D, Q>,
    ) -> Option<&[[f64; S]; S]> {
        let last = self.last.take()?;
        let continues = last.h == h && Some(last.fingerprint) == fingerprint(state);
        continues.then_some(self.extrapolation.as_ref()).flatten()
    }

    /// Remembers a solved step of size `h` that produced `next`.
    pub fn solved<const D: usize, const Q: usize>(
        &mut self,
        h: T,
        next: &impl NodeValues<T, D, Q>,
    ) {
        self.last = fingerprint(next).map(|fingerprint| Solved { h, fingerprint });
    }

    /// Forgets the last solved step (the unknowns were overwritten).
    pub fn forget(&mut self) {
        self.last = None;
    }
}

/// A hash (FNV-1a's, a word at a time) of the bits of the state's time, positions and momenta, or `None` for a
/// scalar type without an exact `f64` value (then nothing is predicted).
fn fingerprint<T: Real, const D: usize, const Q: usize>(
    state: &impl NodeValues<T, D, Q>,
) -> Option<u64> {
    let values = core::iter::once(state.time())
        .chain(state.positions().iter().copied())
        .chain(state.momenta().iter().copied());
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for value in values {
        let bits = nalgebra::try_convert::<T, f64>(value)?.to_bits();
        hash = (hash ^ bits).wrapping_mul(0x0000_0100_0000_01b3);
        hash ^= hash >> 29;
    }
    Some(hash)
}

/// The next step's stage blocks from the last step's: `xⁱ = Σⱼ E[i][j] previousʲ` for
/// each stage's `P` unknowns from `first + i·P` (the stage velocities from 0, `P = D`).
pub fn extrapolate_stages<T: Real, const S: usize, const N: usize>(
    e: &[[f64; S]; S],
    previous: &SVector<T, N>,
    x: &mut SVector<T, N>,
    (first, per_stage): (usize, usize),
) {
    for (i, row) in e.iter().enumerate() {
        for k in 0..per_stage {
            let mut value = T::zero();
            for (j, &e_ij) in row.iter().enumerate() {
                let e_ij: T = nalgebra::convert(e_ij);
                value += e_ij * previous[first + j * per_stage + k];
            }
            x[first + i * per_stage + k] = value;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tableaux::PartitionedTableau;

    /// The extrapolation continues every polynomial of degree `S − 1` through the nodes
    /// exactly (to round-off), and no polynomial of degree `S`.
    #[test]
    fn continues_the_polynomials_of_degree_below_the_stage_count() {
        let c = PartitionedTableau::<4>::lobatto_iiia_iiib().c;
        let e = extrapolation(&c);
        let cubic = |t: f64| 0.3 - 1.7 * t + 2.2 * t * t - 0.9 * t * t * t;
        let quartic = |t: f64| t.powi(4);
        for (i, row) in e.iter().enumerate() {
            let at =
                |p: &dyn Fn(f64) -> f64| row.iter().zip(&c).map(|(e, &cj)| e * p(cj)).sum::<f64>();
            assert!((at(&cubic) - cubic(1.0 + c[i])).abs() <= 1e-13);
            if i > 0 {
                assert!((at(&quartic) - quartic(1.0 + c[i])).abs() > 1e-3);
            }
        }
    }

    /// A state that differs in one bit is not the one the last step produced.
    #[test]
    fn a_state_one_bit_away_is_another_state() {
        use crate::state::PhaseState;
        let state = PhaseState::<f64, 2> {
            t: 0.5,
            q: nalgebra::SVector::from([1.0, 2.0]),
            p: nalgebra::SVector::from([3.0, 4.0]),
            v: nalgebra::SVector::zeros(),
        };
        let mut predictor = Predictor::<f64, 4>::new(Some(&[0.0, 0.25, 0.75, 1.0]));
        predictor.solved(0.1, &state);
        assert!(predictor.take(0.1, &state).is_some());
        assert!(predictor.take(0.1, &state).is_none(), "taken once");
        let mut nudged = state;
        nudged.p[1] = f64::from_bits(nudged.p[1].to_bits() + 1);
        predictor.solved(0.1, &state);
        assert!(predictor.take(0.1, &nudged).is_none());
        predictor.solved(0.1, &state);
        assert!(predictor.take(0.2, &state).is_none(), "another step size");
    }
}
