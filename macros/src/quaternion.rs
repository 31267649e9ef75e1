//! Quaternion algebra on graph nodes, as the Livens paper writes it (Kinon, Betsch,
//! "Conserving integration of multibody systems with singular and non-constant mass
//! matrix including quaternion-based rigid body dynamics", Sect. 3.1; spec 001 §1.5–1.6):
//! a quaternion is `a = (a₀, a⃗)` with the scalar part first, and every helper is a
//! polynomial in its components, so that discrete gradients and the degree analysis see
//! through it. Matrices are row-major `Vec<Id>`.
//!
//! ```text
//! (35a) G(a) = [ −a⃗ ,  a₀ I₃ − â⃗ ]   (3 × 4)     (33a) Q_l(a) = [ a  G(a)ᵀ ]   a∘b = Q_l(a) b
//! (35b) E(a) = [ −a⃗ ,  a₀ I₃ + â⃗ ]   (3 × 4)     (33b) Q_r(b) = [ b  E(b)ᵀ ]   a∘b = Q_r(b) a
//! (50)  R(q) = E(q) G(q)ᵀ            (43) Ω = 2 G(q) q̇ (convected), ω = 2 E(q) q̇ (spatial)
//! ```
use crate::sym::{Graph, Id};

/// `a × b` for 3-vectors (the DSL's `cross`, and the cross term of the product below).
pub fn cross(g: &mut Graph, a: &[Id], b: &[Id]) -> [Id; 3] {
    let mut c = |i: usize, j: usize| {
        let (x, y) = (g.mul(a[i], b[j]), g.mul(a[j], b[i]));
        g.sub(x, y)
    };
    [c(1, 2), c(2, 0), c(0, 1)]
}

/// `hat(a)`, the cross-product matrix: `hat(a) x = a × x`.
fn hat(g: &mut Graph, a: &[Id]) -> [[Id; 3]; 3] {
    let zero = g.zero();
    let neg = |g: &mut Graph, x: Id| g.neg(x);
    let (n0, n1, n2) = (neg(g, a[0]), neg(g, a[1]), neg(g, a[2]));
    [[zero, n2, a[1]], [a[2], zero, n0], [n1, a[0], zero]]
}

/// `[ −a⃗ , a₀ I₃ + sign · hat(a⃗) ]`: `G` for `sign = −1`, `E` for `+1`.
fn g_or_e(g: &mut Graph, a: &[Id], sign: f64) -> Vec<Id> {
    let vec = &a[1..4];
    let h = hat(g, vec);
    let zero = g.zero();
    let mut out = Vec::with_capacity(12);
    for i in 0..3 {
        out.push(g.neg(vec[i]));
        for (j, &hij) in h[i].iter().enumerate() {
            let diag = if i == j { a[0] } else { zero };
            let off = if sign < 0.0 { g.neg(hij) } else { hij };
            out.push(g.add(diag, off));
        }
    }
    out
}

/// `G(a)`, eq. (35a), 3 × 4.
pub fn g_matrix(g: &mut Graph, a: &[Id]) -> Vec<Id> {
    g_or_e(g, a, -1.0)
}

/// `E(a)`, eq. (35b), 3 × 4.
pub fn e_matrix(g: &mut Graph, a: &[Id]) -> Vec<Id> {
    g_or_e(g, a, 1.0)
}

/// `[ a  Bᵀ ]` for a 3 × 4 `B`: the 4 × 4 product matrices (33a–b).
fn column_then_transpose(a: &[Id], b: &[Id]) -> Vec<Id> {
    let mut out = Vec::with_capacity(16);
    for i in 0..4 {
        out.push(a[i]);
        out.extend((0..3).map(|k| b[k * 4 + i]));
    }
    out
}

/// `Q_l(a)`, eq. (33a): `a∘b = Q_l(a) b`.
pub fn left_matrix(g: &mut Graph, a: &[Id]) -> Vec<Id> {
    let gm = g_matrix(g, a);
    column_then_transpose(a, &gm)
}

/// `Q_r(b)`, eq. (33b): `a∘b = Q_r(b) a`.
pub fn right_matrix(g: &mut Graph, b: &[Id]) -> Vec<Id> {
    let em = e_matrix(g, b);
    column_then_transpose(b, &em)
}

/// `A x` for a row-major `rows × x.len()` matrix.
pub fn mat_vec(g: &mut Graph, a: &[Id], x: &[Id]) -> Vec<Id> {
    a.chunks(x.len()).map(|row| g.dot(row, x)).collect()
}

/// `Aᵀ x` for a row-major `x.len() × cols` matrix.
pub fn mat_t_vec(g: &mut Graph, a: &[Id], x: &[Id]) -> Vec<Id> {
    let cols = a.len() / x.len();
    (0..cols)
        .map(|j| {
            let col: Vec<Id> = (0..x.len()).map(|i| a[i * cols + j]).collect();
            g.dot(&col, x)
        })
        .collect()
}

/// `R(q) = E(q) G(q)ᵀ`, eq. (50), 3 × 3: a rotation for unit `q`, `‖q‖² R` otherwise.
pub fn rotation_matrix(g: &mut Graph, q: &[Id]) -> Vec<Id> {
    let (e, gm) = (e_matrix(g, q), g_matrix(g, q));
    let mut out = Vec::with_capacity(9);
    for i in 0..3 {
        for j in 0..3 {
            out.push(g.dot(&e[i * 4..i * 4 + 4], &gm[j * 4..j * 4 + 4]));
        }
    }
    out
}

/// `a∘b`, eq. (28), as `Q_l(a) b`.
pub fn product(g: &mut Graph, a: &[Id], b: &[Id]) -> Vec<Id> {
    let ql = left_matrix(g, a);
    mat_vec(g, &ql, b)
}

/// `2 G(q) v`, the convected angular velocity (43), or `2 E(q) v`, the spatial one (44).
pub fn angular_velocity(g: &mut Graph, q: &[Id], v: &[Id], spatial: bool) -> Vec<Id> {
    let m = if spatial {
        e_matrix(g, q)
    } else {
        g_matrix(g, q)
    };
    let two = g.constant(2.0);
    mat_vec(g, &m, v)
        .into_iter()
        .map(|x| g.mul(two, x))
        .collect()
}

#[cfg(test)]
mod tests {
    //! Spec 001 §4 A item 1, on the nodes the DSL emits: the identities (28), (33),
    //! (35)–(36), (43), (50)–(51), (134)–(137) at pseudo-random quaternions, to 1e-14
    //! relative.
    use super::*;
    use crate::sym::VarId;

    struct Fixture {
        g: Graph,
        a: Vec<Id>,
        b: Vec<Id>,
        x: Vec<Id>,
        vars: Vec<VarId>,
    }

    fn fixture() -> Fixture {
        let mut g = Graph::new();
        let mut vars = Vec::new();
        let mut block = |g: &mut Graph, name: &str, n: usize| {
            (0..n)
                .map(|k| {
                    let (v, id) = g.new_var(format!("{name}{k}"));
                    vars.push(v);
                    id
                })
                .collect::<Vec<Id>>()
        };
        let a = block(&mut g, "a", 4);
        let b = block(&mut g, "b", 4);
        let x = block(&mut g, "x", 3);
        Fixture { g, a, b, x, vars }
    }

    /// Deterministic pseudo-random values in (−1, 1).
    fn values(seed: u64, n: usize) -> Vec<f64> {
        let mut s = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (0..n)
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
            })
            .collect()
    }

    fn eval(f: &Fixture, e: &[Id], point: &[f64]) -> Vec<f64> {
        let index = |v: VarId| f.vars.iter().position(|&w| w == v).unwrap();
        f.g.eval_many(e, &|v| point[index(v)])
    }

    fn assert_close(a: &[f64], b: &[f64], what: &str) {
        let scale = a.iter().chain(b).fold(1.0f64, |m, x| m.max(x.abs()));
        for (x, y) in a.iter().zip(b) {
            assert!((x - y).abs() <= 1e-14 * scale, "{what}: {a:?} vs {b:?}");
        }
    }

    /// (28) written out: `(a₀b₀ − a⃗·b⃗, a₀b⃗ + b₀a⃗ + a⃗ × b⃗)`.
    fn product_28(a: &[f64], b: &[f64]) -> Vec<f64> {
        let c = [
            a[2] * b[3] - a[3] * b[2],
            a[3] * b[1] - a[1] * b[3],
            a[1] * b[2] - a[2] * b[1],
        ];
        let mut out = vec![a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3]];
        out.extend((0..3).map(|i| a[0] * b[i + 1] + b[0] * a[i + 1] + c[i]));
        out
    }

    #[test]
    fn products_and_matrices() {
        let mut f = fixture();
        let (a, b, x) = (f.a.clone(), f.b.clone(), f.x.clone());
        let ab = product(&mut f.g, &a, &b);
        let qr = right_matrix(&mut f.g, &b);
        let ab_r = mat_vec(&mut f.g, &qr, &a);
        let (ga, ea) = (g_matrix(&mut f.g, &a), e_matrix(&mut f.g, &a));
        let (gb, eb) = (g_matrix(&mut f.g, &b), e_matrix(&mut f.g, &b));
        let ql = left_matrix(&mut f.g, &a);
        let ga_a = mat_vec(&mut f.g, &ga, &a);
        let ea_a = mat_vec(&mut f.g, &ea, &a);
        let ga_b = mat_vec(&mut f.g, &ga, &b);
        let gb_a = mat_vec(&mut f.g, &gb, &a);
        let ea_b = mat_vec(&mut f.g, &ea, &b);
        let eb_a = mat_vec(&mut f.g, &eb, &a);
        // ξ⁺a = E(a)ᵀ ξ: the product (0, ξ)∘a.
        let zero = f.g.zero();
        let xi_quat = [zero, x[0], x[1], x[2]];
        let xi_a = product(&mut f.g, &xi_quat, &a);
        let ea_t_xi = mat_t_vec(&mut f.g, &ea, &x);
        // (137): G(a)ᵀ x = x̄ a with x̄ a = a∘(0, −x)... checked through (28) below.
        let ga_t_x = mat_t_vec(&mut f.g, &ga, &x);
        for seed in 0..8 {
            let p = values(seed, 11);
            let (av, bv, xv) = (&p[0..4], &p[4..8], &p[8..11]);
            let want = product_28(av, bv);
            assert_close(&eval(&f, &ab, &p), &want, "(33a) Q_l(a) b = a∘b");
            assert_close(&eval(&f, &ab_r, &p), &want, "(33b) Q_r(b) a = a∘b");
            // Q_l(a) Q_l(a)ᵀ = |a|² I (134), from the numeric matrix.
            let m = eval(&f, &ql, &p);
            let n2: f64 = av.iter().map(|x| x * x).sum();
            for i in 0..4 {
                for j in 0..4 {
                    let s: f64 = (0..4).map(|k| m[i * 4 + k] * m[j * 4 + k]).sum();
                    let want = if i == j { n2 } else { 0.0 };
                    assert!((s - want).abs() <= 1e-14 * n2.max(1.0), "(134)");
                }
            }
            // (135): G(a) a = E(a) a = 0; G Gᵀ = E Eᵀ = |a|² I; GᵀG = EᵀE = |a|² I − a aᵀ.
            assert_close(&eval(&f, &ga_a, &p), &[0.0; 3], "(135) G(a) a");
            assert_close(&eval(&f, &ea_a, &p), &[0.0; 3], "(135) E(a) a");
            let (gn, en) = (eval(&f, &ga, &p), eval(&f, &ea, &p));
            for m in [&gn, &en] {
                for i in 0..3 {
                    for j in 0..3 {
                        let s: f64 = (0..4).map(|k| m[i * 4 + k] * m[j * 4 + k]).sum();
                        let want = if i == j { n2 } else { 0.0 };
                        assert!((s - want).abs() <= 1e-14, "(135) G Gᵀ");
                    }
                }
                for i in 0..4 {
                    for j in 0..4 {
                        let s: f64 = (0..3).map(|k| m[k * 4 + i] * m[k * 4 + j]).sum();
                        let want = if i == j { n2 } else { 0.0 } - av[i] * av[j];
                        assert!((s - want).abs() <= 1e-14, "(135) GᵀG");
                    }
                }
            }
            // (136): G(a) b = −G(b) a, E(a) b = −E(b) a.
            let neg = |v: Vec<f64>| v.into_iter().map(|x| -x).collect::<Vec<_>>();
            assert_close(&eval(&f, &ga_b, &p), &neg(eval(&f, &gb_a, &p)), "(136) G");
            assert_close(&eval(&f, &ea_b, &p), &neg(eval(&f, &eb_a, &p)), "(136) E");
            // (136): E(a) G(b)ᵀ = E(b) G(a)ᵀ.
            let (gbn, ebn) = (eval(&f, &gb, &p), eval(&f, &eb, &p));
            for i in 0..3 {
                for j in 0..3 {
                    let l: f64 = (0..4).map(|k| en[i * 4 + k] * gbn[j * 4 + k]).sum();
                    let r: f64 = (0..4).map(|k| ebn[i * 4 + k] * gn[j * 4 + k]).sum();
                    assert!((l - r).abs() <= 1e-14, "(136) E(a)G(b)ᵀ");
                }
            }
            // ξ⁺a = E(a)ᵀ ξ (spec 001 §1.7).
            assert_close(&eval(&f, &xi_a, &p), &eval(&f, &ea_t_xi, &p), "ξ⁺a");
            // (137): G(a)ᵀ x = x̄ a, x̄ = [[0, −xᵀ], [x, −hat(x)]].
            let xbar_a = {
                let (a0, av3) = (av[0], &av[1..4]);
                let dot: f64 = (0..3).map(|i| xv[i] * av3[i]).sum();
                let cr = [
                    xv[1] * av3[2] - xv[2] * av3[1],
                    xv[2] * av3[0] - xv[0] * av3[2],
                    xv[0] * av3[1] - xv[1] * av3[0],
                ];
                let mut out = vec![-dot];
                out.extend((0..3).map(|i| xv[i] * a0 - cr[i]));
                out
            };
            assert_close(&eval(&f, &ga_t_x, &p), &xbar_a, "(137)");
        }
    }

    #[test]
    fn rotation_matrix_is_51_and_orthogonal() {
        let mut f = fixture();
        let a = f.a.clone();
        let r = rotation_matrix(&mut f.g, &a);
        for seed in 0..8 {
            let mut p = values(100 + seed, 11);
            let n = (p[0..4].iter().map(|x| x * x).sum::<f64>()).sqrt();
            p[0..4].iter_mut().for_each(|x| *x /= n);
            let [q0, q1, q2, q3] = [p[0], p[1], p[2], p[3]];
            let want = [
                q0 * q0 + q1 * q1 - q2 * q2 - q3 * q3,
                2.0 * (q1 * q2 - q0 * q3),
                2.0 * (q1 * q3 + q0 * q2),
                2.0 * (q2 * q1 + q0 * q3),
                q0 * q0 - q1 * q1 + q2 * q2 - q3 * q3,
                2.0 * (q2 * q3 - q0 * q1),
                2.0 * (q3 * q1 - q0 * q2),
                2.0 * (q3 * q2 + q0 * q1),
                q0 * q0 - q1 * q1 - q2 * q2 + q3 * q3,
            ];
            let m = eval(&f, &r, &p);
            assert_close(&m, &want, "(51)");
            for i in 0..3 {
                for j in 0..3 {
                    let s: f64 = (0..3).map(|k| m[i * 3 + k] * m[j * 3 + k]).sum();
                    assert!((s - f64::from(u8::from(i == j))).abs() <= 1e-14, "RᵀR = I");
                }
            }
            let det = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6])
                + m[2] * (m[3] * m[7] - m[4] * m[6]);
            assert!((det - 1.0).abs() <= 1e-14, "det R = 1");
        }
    }

    #[test]
    fn derivative_of_rotated_vector_is_2_e_xbar() {
        // ∂/∂q [R(q) X] = 2 E(q) X̄ for any q (spec 001 §1.6, used in (126)).
        let mut f = fixture();
        let (a, x) = (f.a.clone(), f.x.clone());
        let r = rotation_matrix(&mut f.g, &a);
        let rx = mat_vec(&mut f.g, &r, &x);
        let a_vars = f.vars[0..4].to_vec();
        let jac: Vec<Id> = rx
            .iter()
            .flat_map(|&e| a_vars.iter().map(|&v| (e, v)).collect::<Vec<_>>())
            .map(|(e, v)| f.g.diff(e, v))
            .collect();
        let e = e_matrix(&mut f.g, &a);
        for seed in 0..8 {
            let p = values(200 + seed, 11);
            let (en, xv) = (eval(&f, &e, &p), &p[8..11]);
            // X̄ = [[0, −Xᵀ], [X, −hat(X)]] (4 × 4).
            let mut xbar = [[0.0; 4]; 4];
            for i in 0..3 {
                xbar[0][i + 1] = -xv[i];
                xbar[i + 1][0] = xv[i];
            }
            let hx = [
                [0.0, -xv[2], xv[1]],
                [xv[2], 0.0, -xv[0]],
                [-xv[1], xv[0], 0.0],
            ];
            for i in 0..3 {
                for j in 0..3 {
                    xbar[i + 1][j + 1] = -hx[i][j];
                }
            }
            let want: Vec<f64> = (0..3)
                .flat_map(|i| {
                    let en = &en;
                    let xbar = &xbar;
                    (0..4)
                        .map(move |j| 2.0 * (0..4).map(|k| en[i * 4 + k] * xbar[k][j]).sum::<f64>())
                })
                .collect();
            assert_close(&eval(&f, &jac, &p), &want, "2 E(q) X̄");
        }
    }

    #[test]
    fn exponential_36() {
        // Q_l(exp_S3((0, a/2))) = cos(|a|/2) I₄ + sin(|a|/2)/|a| a⁺, a⁺ = Q_l((0, a)).
        let mut f = fixture();
        let a = f.a.clone();
        let ql = left_matrix(&mut f.g, &a);
        for seed in 0..8 {
            let mut p = values(300 + seed, 11);
            let th = &p[4..7].to_vec();
            let n = (th.iter().map(|x| x * x).sum::<f64>()).sqrt();
            let (c, s) = ((n / 2.0).cos(), (n / 2.0).sin());
            let e = [c, s * th[0] / n, s * th[1] / n, s * th[2] / n];
            p[0..4].copy_from_slice(&e);
            let lhs = eval(&f, &ql, &p);
            let mut pure = p.clone();
            pure[0..4].copy_from_slice(&[0.0, th[0], th[1], th[2]]);
            let plus = eval(&f, &ql, &pure);
            let want: Vec<f64> = (0..16)
                .map(|k| c * f64::from(u8::from(k % 5 == 0)) + s / n * plus[k])
                .collect();
            assert_close(&lhs, &want, "(36)");
        }
    }
}
