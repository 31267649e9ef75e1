//! The symplectic-form check the constrained schemes' tests share: tangent pairs
//! `ξ = (δq, δp)` and their images `J ξ` under a step's derivative.
use livens::SVector;

/// A tangent vector `(δq, δp)` of phase space.
pub type Tangent<const D: usize> = (SVector<f64, D>, SVector<f64, D>);

/// `ω(ξ, η) = δq_ξ · δp_η − δp_ξ · δq_η`.
pub fn omega<const D: usize>((aq, ap): Tangent<D>, (bq, bp): Tangent<D>) -> f64 {
    aq.dot(&bp) - ap.dot(&bq)
}

/// Asserts `ω(J ξᵢ, J ξⱼ) = ω(ξᵢ, ξⱼ)` within `tolerance` for every pair `i < j`,
/// printing both sides.
pub fn assert_omega_kept<const D: usize>(
    directions: &[Tangent<D>],
    images: &[Tangent<D>],
    tolerance: f64,
) {
    for i in 0..directions.len() {
        for j in i + 1..directions.len() {
            let before = omega(directions[i], directions[j]);
            let after = omega(images[i], images[j]);
            println!("ω(ξ{i}, ξ{j}) = {before:.12}, after one step {after:.12}");
            assert!((after - before).abs() < tolerance, "{before} → {after}");
        }
    }
}
