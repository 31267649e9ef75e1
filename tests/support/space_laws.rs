//! The laws every configuration space's maps obey (spec `next_packages.md` §A.2),
//! checked at given points with dual numbers as the independent oracle of each
//! derivative map: a space passes if its retraction, inverse retraction, trivialised
//! tangent `B`, its derivative `E`, `Ad` and `ad` agree with one another and with the
//! derivatives of the retraction itself.
use livens::space::Space;
use livens::{SMatrix, SVector};
use num_dual::Dual64;

/// A matrix from column storage.
fn matrix<const D: usize>(columns: &[[f64; D]; D]) -> SMatrix<f64, D, D> {
    SMatrix::from_fn(|i, j| columns[j][i])
}

fn dual<const N: usize>(x: &SVector<f64, N>) -> SVector<Dual64, N> {
    x.map(Dual64::from)
}

/// `x + ε d` with `ε` the dual unit.
fn seeded<const N: usize>(x: &SVector<f64, N>, d: &SVector<f64, N>) -> SVector<Dual64, N> {
    SVector::from_fn(|i, _| Dual64::new(x[i], d[i]))
}

fn eps<const N: usize>(x: &SVector<Dual64, N>) -> SVector<f64, N> {
    x.map(|v| v.eps)
}

fn re<const N: usize>(x: &SVector<Dual64, N>) -> SVector<f64, N> {
    x.map(|v| v.re)
}

/// Checks every law at the configuration `q` and the tangent vectors `xi`, `delta`,
/// `y`, `m`, to `tol` (relative to the values' size); returns the largest defect.
pub fn check<Sp, const D: usize, const Q: usize>(
    q: &SVector<f64, Q>,
    xi: &SVector<f64, D>,
    delta: &SVector<f64, D>,
    y: &SVector<f64, D>,
    m: &SVector<f64, D>,
    tol: f64,
) -> f64
where
    Sp: Space<f64, D, Q> + Space<Dual64, D, Q>,
{
    let mut worst = 0.0_f64;
    let mut agree = |what: &str, a: &[f64], b: &[f64]| {
        let scale = 1.0 + b.iter().fold(0.0_f64, |s, x| s.max(x.abs()));
        let defect = a
            .iter()
            .zip(b)
            .fold(0.0_f64, |s, (x, y)| s.max((x - y).abs()))
            / scale;
        assert!(
            defect <= tol,
            "{}: {what}: {a:?} against {b:?}",
            <Sp as Space<f64, D, Q>>::NAME
        );
        worst = worst.max(defect);
    };
    let zero = SVector::<f64, D>::zeros();
    let mut b = [[0.0; D]; D];
    let mut b_inv = [[0.0; D]; D];
    <Sp as Space<f64, D, Q>>::dtau_inv(xi, &mut b);
    <Sp as Space<f64, D, Q>>::dtau(xi, &mut b_inv);
    let (b, b_inv) = (matrix(&b), matrix(&b_inv));

    // τ(0) = e, and local inverts retract.
    let moved = <Sp as Space<f64, D, Q>>::retract(q, xi);
    agree(
        "retract(q, 0) = q",
        <Sp as Space<f64, D, Q>>::retract(q, &zero).as_slice(),
        q.as_slice(),
    );
    agree(
        "local(q, retract(q, ξ)) = ξ",
        <Sp as Space<f64, D, Q>>::local(q, &moved).as_slice(),
        xi.as_slice(),
    );

    // B(ξ)⁻¹ is the inverse of B(ξ).
    agree(
        "B(ξ)⁻¹ B(ξ) = I",
        (b_inv * b).as_slice(),
        SMatrix::<f64, D, D>::identity().as_slice(),
    );

    // The defining property: d/dε τ(ξ + εδ) = τ(ξ) · (B(ξ)⁻¹ δ)^, in storage.
    let along = <Sp as Space<Dual64, D, Q>>::retract(&dual(q), &seeded(xi, delta));
    let through =
        <Sp as Space<Dual64, D, Q>>::retract(&dual(&moved), &seeded(&zero, &(b_inv * delta)));
    agree(
        "d/dε retract(q, ξ + εδ)",
        eps(&along).as_slice(),
        eps(&through).as_slice(),
    );
    agree(
        "retract with duals",
        re(&along).as_slice(),
        moved.as_slice(),
    );

    // E(ξ, y) δ = ∂_ξ[B(ξ) y] δ.
    let mut e = [[0.0; D]; D];
    <Sp as Space<f64, D, Q>>::dtau_inv_derivative(xi, y, &mut e);
    let mut b_dual = [[Dual64::from(0.0); D]; D];
    <Sp as Space<Dual64, D, Q>>::dtau_inv(&seeded(xi, delta), &mut b_dual);
    let b_dual = SMatrix::<Dual64, D, D>::from_fn(|i, j| b_dual[j][i]);
    agree(
        "E(ξ, y) δ = ∂_ξ[B(ξ) y] δ",
        (matrix(&e) * delta).as_slice(),
        eps(&(b_dual * dual(y))).as_slice(),
    );

    // ∂_ξ(B(ξ)ᵀ m) δ, against duals.
    let mut bt = [[0.0; D]; D];
    <Sp as Space<f64, D, Q>>::dtau_inv_t_derivative(xi, m, &mut bt);
    agree(
        "∂_ξ(B(ξ)ᵀ m) δ",
        (matrix(&bt) * delta).as_slice(),
        eps(&(b_dual.transpose() * dual(m))).as_slice(),
    );

    // The derivatives of E(ξ, y)ᵀ π in ξ and in y, against duals of E.
    let (mut e_xi, mut e_y) = ([[0.0; D]; D], [[0.0; D]; D]);
    <Sp as Space<f64, D, Q>>::dtau_inv_derivative_t_derivatives(xi, y, m, &mut e_xi, &mut e_y);
    let e_t_pi = |xi: &SVector<Dual64, D>, y: &SVector<Dual64, D>| {
        let mut e = [[Dual64::from(0.0); D]; D];
        <Sp as Space<Dual64, D, Q>>::dtau_inv_derivative(xi, y, &mut e);
        SMatrix::<Dual64, D, D>::from_fn(|i, j| e[j][i]).transpose() * dual(m)
    };
    agree(
        "∂_ξ(E(ξ, y)ᵀ π) δ",
        (matrix(&e_xi) * delta).as_slice(),
        eps(&e_t_pi(&seeded(xi, delta), &dual(y))).as_slice(),
    );
    agree(
        "∂_y(E(ξ, y)ᵀ π) δ",
        (matrix(&e_y) * delta).as_slice(),
        eps(&e_t_pi(&dual(xi), &seeded(y, delta))).as_slice(),
    );

    // B(−ξ)⁻¹ = Ad_{τ(ξ)} B(ξ)⁻¹.
    let mut ad_tau = [[0.0; D]; D];
    <Sp as Space<f64, D, Q>>::ad_tau(xi, &mut ad_tau);
    let ad_tau = matrix(&ad_tau);
    let mut b_inv_minus = [[0.0; D]; D];
    <Sp as Space<f64, D, Q>>::dtau(&-xi, &mut b_inv_minus);
    agree(
        "B(−ξ)⁻¹ = Ad_τ(ξ) B(ξ)⁻¹",
        matrix(&b_inv_minus).as_slice(),
        (ad_tau * b_inv).as_slice(),
    );

    // ∂_ξ(Ad_{τ(ξ)}ᵀ m) δ = ad_uᵀ Ad_{τ(ξ)}ᵀ m with u = B(ξ)⁻¹ δ.
    let mut ad_dual = [[Dual64::from(0.0); D]; D];
    <Sp as Space<Dual64, D, Q>>::ad_tau(&seeded(xi, delta), &mut ad_dual);
    let ad_dual = SMatrix::<Dual64, D, D>::from_fn(|i, j| ad_dual[j][i]);
    let mut ad_u = [[0.0; D]; D];
    <Sp as Space<f64, D, Q>>::ad(&(b_inv * delta), &mut ad_u);
    let expected = matrix(&ad_u).transpose() * (ad_tau.transpose() * m);
    agree(
        "∂_ξ(Ad_τ(ξ)ᵀ m) δ",
        eps(&(ad_dual.transpose() * dual(m))).as_slice(),
        expected.as_slice(),
    );

    // ∂_u(ad_uᵀ w) δ = ad_δᵀ w.
    let mut ad_t = [[0.0; D]; D];
    <Sp as Space<f64, D, Q>>::ad_t_derivative(m, &mut ad_t);
    let mut ad_delta = [[0.0; D]; D];
    <Sp as Space<f64, D, Q>>::ad(delta, &mut ad_delta);
    agree(
        "∂_u(ad_uᵀ w) δ = ad_δᵀ w",
        (matrix(&ad_t) * delta).as_slice(),
        (matrix(&ad_delta).transpose() * m).as_slice(),
    );
    worst
}
