#!/usr/bin/env python3
"""EML on a double heavy top, from the paper's equations (Kinon, Betsch 2024: (72) with
the G-equivariant (87)-(88) per body, (93), midpoint gradients of the quadratic V and g),
and the stabilised forms of docs/notes/issue30_quaternion.md. numpy only, shares no code
with the Rust library; finite-difference Newton, tolerance 1e-9 (max-norm), 40 iterations.

The model (livens_models::DoubleTop): two cones (rho = 2700, a = 0.1, r = a/2, l = 3a/4),
the first on its tip at the origin, the second hanging by its tip from the centre of
the first one's base; coordinates q = (q1, phi, q2); constraints |q1| = |q2| = 1 and the
joint R(q1)(a e3) - phi - R(q2)(l e3) = 0; gravity 9.81 along -e3.

Forms (--form):
  paper   (72) as published.
  unit    the hidden constraints q.v = 0, q.p = const of both unit norms at the nodes.
  all     the hidden constraints G(q) v = 0, G(q) p = const of every constraint.
  emh     not EML: the Hamiltonian scheme EMH (App. D, (146)) on both bodies, state (q, p),
          the co-energy 1/8 t.J4^-1 t per body plus |p_phi|^2/2m; H = T* + V is E here.

At h = 0.01, `all` fails in step 1065 (as the crate's Eml and Reml do) and `emh` runs
10^4 steps with H to 2e-14 relative (issue 30).

Usage: python3 double_top_eml.py --form all --h 0.001 --t-end 3
"""
import argparse
import sys

import numpy as np

RHO, A, GRAV = 2700.0, 0.1, 9.81
R_ = 0.5 * A
MASS = RHO * np.pi * R_ * R_ * A / 3.0
L_ = 0.75 * A
JC = 3.0 / 80.0 * MASS * (4 * R_ * R_ + A * A)
J1 = np.diag([JC + MASS * L_ * L_, JC + MASS * L_ * L_, 0.3 * MASS * R_ * R_])
J2 = np.diag([JC, JC, 0.3 * MASS * R_ * R_])
E3 = np.array([0.0, 0.0, 1.0])
B1, PH, B2 = slice(0, 4), slice(4, 7), slice(7, 11)
NQ, NC = 11, 5


def hat(a):
    return np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])


def G(a):
    return np.hstack([-a[1:, None], a[0] * np.eye(3) - hat(a[1:])])


def E(a):
    return np.hstack([-a[1:, None], a[0] * np.eye(3) + hat(a[1:])])


def rot(q):  # (50)
    return E(q) @ G(q).T


def bar(x):  # (137)
    return np.block([[np.zeros((1, 1)), -x[None, :]], [x[:, None], -hat(x)]])


def constraints(q):
    q1, phi, q2 = q[B1], q[PH], q[B2]
    joint = rot(q1) @ (A * E3) - phi - rot(q2) @ (L_ * E3)
    return np.concatenate([[0.5 * (q1 @ q1 - 1), 0.5 * (q2 @ q2 - 1)], joint])


def jacobian(q):  # d(R(q) X)/dq = 2 E(q) bar(X)
    q1, q2 = q[B1], q[B2]
    jac = np.zeros((NC, NQ))
    jac[0, B1] = q1
    jac[1, B2] = q2
    jac[2:, B1] = 2 * E(q1) @ bar(A * E3)
    jac[2:, PH] = -np.eye(3)
    jac[2:, B2] = -2 * E(q2) @ bar(L_ * E3)
    return jac


def hess_times(x):
    """H_k x for every constraint k, as the rows of a matrix: the constraints are
    quadratic, so d/dq (grad g_k(q) . x) = grad g_k(x) - grad g_k(0)."""
    return jacobian(x) - jacobian(np.zeros(NQ))


def potential_gradient(q):
    g = np.zeros(NQ)
    a = q[B1]
    g[B1] = 2 * MASS * GRAV * L_ * np.array([a[0], -a[1], -a[2], a[3]])  # (116)
    g[6] = MASS * GRAV
    return g


def potential(q):
    a = q[B1]
    return MASS * GRAV * L_ * (a[0] ** 2 - a[1] ** 2 - a[2] ** 2 + a[3] ** 2) + MASS * GRAV * q[6]


def kinetic(q, v):
    o1, o2 = 2 * G(q[B1]) @ v[B1], 2 * G(q[B2]) @ v[B2]
    return 0.5 * o1 @ J1 @ o1 + 0.5 * MASS * v[PH] @ v[PH] + 0.5 * o2 @ J2 @ o2


def kinetic_gradients(q0, q1, v0, v1):  # (87)-(88) per body; translation: midpoint
    qm, vm = 0.5 * (q0 + q1), 0.5 * (v0 + v1)
    dq, dv = np.zeros(NQ), np.zeros(NQ)
    for b, j in ((B1, J1), (B2, J2)):
        om = G(q0[b]) @ v0[b] + G(q1[b]) @ v1[b]
        dq[b] = -2 * G(vm[b]).T @ j @ om
        dv[b] = 2 * G(qm[b]).T @ j @ om
    dv[PH] = MASS * vm[PH]
    return dq, dv


def residual(x, q0, v0, p0, h, rows):
    """rows: the constraints whose hidden constraints the form holds at the nodes."""
    k = len(rows)
    q1, v1, p1 = x[:NQ], x[NQ:2 * NQ], x[2 * NQ:3 * NQ]
    lam = x[3 * NQ:3 * NQ + NC]
    mu = x[3 * NQ + NC:3 * NQ + NC + k]
    gam = x[3 * NQ + NC + k:]
    qm, vm, pm = 0.5 * (q0 + q1), 0.5 * (v0 + v1), 0.5 * (p0 + p1)
    dq_t, dv_t = kinetic_gradients(q0, q1, v0, v1)
    w = jacobian(qm)  # grad g(q^1/2), exact discrete gradient of quadratic g (93)
    ws = w[rows]
    r1 = q1 - q0 - h * (vm + ws.T @ mu)
    r2 = (p1 - p0 - h * dq_t + h * potential_gradient(qm) + h * w.T @ lam
          + h * hess_times(pm)[rows].T @ mu + h * hess_times(vm)[rows].T @ gam)
    r3 = pm - dv_t + ws.T @ gam
    r4 = constraints(q1)
    r5 = (jacobian(q1) @ v1)[rows]
    r6 = (jacobian(q1) @ p1 - jacobian(q0) @ p0)[rows]
    return np.concatenate([r1, r2, r3, r4, r5, r6])


def j4_inverse(j0):
    j4 = np.zeros((4, 4))
    j4[0, 0] = 0.5 * np.trace(j0)
    j4[1:, 1:] = j0
    return np.linalg.inv(j4)


J4_INV = (j4_inverse(J1), j4_inverse(J2))


def q_left(a):  # Q_l(q) = [q, G(q)^T], (145): t = Q_l(q)^T p
    return np.hstack([a[:, None], G(a).T])


def co_energy_velocity(q, p):
    """v = dT*/dp: Q_l(q) c per body with c = J4^-1 t / 4 (138), p/m on phi."""
    v = np.zeros(NQ)
    for b, j4i in zip((B1, B2), J4_INV):
        v[b] = q_left(q[b]) @ (0.25 * j4i @ q_left(q[b]).T @ p[b])
    v[PH] = p[PH] / MASS
    return v


def residual_emh(x, q0, p0, h):
    """(146) per body, the midpoint rule on phi (constant mass); unknowns (q1, p1, lam)."""
    q1, p1, lam = x[:NQ], x[NQ:2 * NQ], x[2 * NQ:]
    qm, pm = 0.5 * (q0 + q1), 0.5 * (p0 + p1)
    r1 = q1 - q0
    r2 = p1 - p0 + h * potential_gradient(qm) + h * jacobian(qm).T @ lam
    for b, j4i in zip((B1, B2), J4_INV):
        tm = 0.5 * (q_left(q0[b]).T @ p0[b] + q_left(q1[b]).T @ p1[b])
        c = 0.25 * j4i @ tm
        r1[b] -= h * q_left(qm[b]) @ c
        r2[b] += h * np.hstack([pm[b][:, None], -G(pm[b]).T]) @ c
    r1[PH] -= h * pm[PH] / MASS
    return np.concatenate([r1, r2, constraints(q1)])


def jac_fd(f, x):
    n = x.size
    out = np.empty((n, n))
    for j in range(n):
        d = 1e-7 * (1.0 + abs(x[j]))
        e = np.zeros(n)
        e[j] = d
        out[:, j] = (f(x + e) - f(x - e)) / (2 * d)
    return out


def newton(f, x, tol=1e-9, iters=40):
    for k in range(iters + 1):
        r = f(x)
        if np.max(np.abs(r)) <= tol:
            return x - np.linalg.solve(jac_fd(f, x), r), k
        if k == iters:
            return None, k
        x = x - np.linalg.solve(jac_fd(f, x), r)


def initial_state(spin=None):
    th, wp = np.pi / 3, 10.0
    j1, j3 = J1[0, 0], J1[2, 2]
    ws = MASS * GRAV * L_ / (j3 * wp) + (j1 - j3) / j3 * wp * np.cos(th)  # (118)
    if spin is not None:
        ws = spin
    q1 = np.array([np.cos(th / 2), np.sin(th / 2), 0, 0])
    d3 = np.array([0, -np.sin(th), np.cos(th)])
    w1 = wp * E3 + ws * d3
    q2 = np.array([1.0, 0, 0, 0])
    w2 = wp * E3
    q = np.concatenate([q1, A * d3 - L_ * E3, q2])
    v = np.concatenate([0.5 * E(q1).T @ w1, A * np.cross(w1, d3), 0.5 * E(q2).T @ w2])
    # p = dL/dv
    p = np.zeros(NQ)
    p[B1] = 4 * G(q1).T @ J1 @ G(q1) @ v[B1]
    p[PH] = MASS * v[PH]
    p[B2] = 4 * G(q2).T @ J2 @ G(q2) @ v[B2]
    return q, v, p


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--form", default="paper", choices=["paper", "unit", "all", "emh"])
    ap.add_argument("--h", type=float, default=0.01)
    ap.add_argument("--t-end", type=float, default=1.0)
    ap.add_argument("--every", type=int, default=0)
    ap.add_argument("--spin", type=float, default=None,
                    help="the first cone's spin (default: the heavy top's, 135.6 rad/s)")
    args = ap.parse_args()
    if args.form == "emh":
        return main_emh(args)
    rows = {"paper": [], "unit": [0, 1], "all": list(range(NC))}[args.form]
    h, steps = args.h, int(round(args.t_end / args.h))
    q, v, p = initial_state(args.spin)
    lam, mu, gam = np.zeros(NC), np.zeros(len(rows)), np.zeros(len(rows))
    energy = lambda q, v, p: p @ v - kinetic(q, v) + potential(q)
    e0 = energy(q, v, p)
    worst = dict(e=0.0, g=0.0, gv=0.0)
    for n in range(1, steps + 1):
        f = lambda x: residual(x, q, v, p, h, rows)
        x, it = newton(f, np.concatenate([q, v, p, lam, mu, gam]))
        if x is None:
            print(f"FAIL step {n} t={(n - 1) * h:.4f}: Newton did not converge; "
                  f"max|G v| before {np.max(np.abs(jacobian(q) @ v)):.3g}")
            break
        q, v, p = x[:NQ], x[NQ:2 * NQ], x[2 * NQ:3 * NQ]
        lam = x[3 * NQ:3 * NQ + NC]
        mu, gam = x[3 * NQ + NC:3 * NQ + NC + len(rows)], x[3 * NQ + NC + len(rows):]
        worst["e"] = max(worst["e"], abs(energy(q, v, p) - e0) / abs(e0))
        worst["g"] = max(worst["g"], np.max(np.abs(constraints(q))))
        worst["gv"] = max(worst["gv"], np.max(np.abs(jacobian(q) @ v)))
        if args.every and n % args.every == 0:
            print(f"t={n * h:.3f} it={it} |E-E0|/E0={abs(energy(q, v, p) - e0) / abs(e0):.1e} "
                  f"max|Gv|={np.max(np.abs(jacobian(q) @ v)):.2e} lambda={lam[0]:+.3e}")
    else:
        n = steps + 1
    print(f"{args.form} h={h}: {n - 1} steps, E0={e0:.6f}, max|E-E0|/E0 {worst['e']:.1e}, "
          f"max|g| {worst['g']:.1e}, max|G v| {worst['gv']:.2e}")
    return 0 if n == steps + 1 else 3


def main_emh(args):
    h, steps = args.h, int(round(args.t_end / args.h))
    q, v, p = initial_state(args.spin)
    lam = np.zeros(NC)
    energy = lambda q, p: p @ co_energy_velocity(q, p) - kinetic(q, co_energy_velocity(q, p)) + potential(q)
    e0 = energy(q, p)
    worst = dict(e=0.0, g=0.0)
    for n in range(1, steps + 1):
        f = lambda x: residual_emh(x, q, p, h)
        # Newton from q0 + h v0 (the paper's footnote 5: from q0 it diverges).
        x, it = newton(f, np.concatenate([q + h * co_energy_velocity(q, p), p, lam]))
        if x is None:
            print(f"FAIL step {n} t={(n - 1) * h:.4f}: Newton did not converge")
            break
        q, p, lam = x[:NQ], x[NQ:2 * NQ], x[2 * NQ:]
        worst["e"] = max(worst["e"], abs(energy(q, p) - e0) / abs(e0))
        worst["g"] = max(worst["g"], np.max(np.abs(constraints(q))))
        if args.every and n % args.every == 0:
            print(f"t={n * h:.3f} it={it} |H-H0|/H0={abs(energy(q, p) - e0) / abs(e0):.1e}")
    else:
        n = steps + 1
    print(f"emh h={h}: {n - 1} steps, H0={e0:.6f}, max|H-H0|/H0 {worst['e']:.1e}, "
          f"max|g| {worst['g']:.1e}")
    return 0 if n == steps + 1 else 3


if __name__ == "__main__":
    sys.exit(main())
