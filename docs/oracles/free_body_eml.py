#!/usr/bin/env python3
"""Independent implementation of the Livens EML step for the free rigid body in unit
quaternions, written from the paper (Kinon, Betsch, Multibody Syst. Dyn. 2024):
eqs. (86a)-(86d) with the G-equivariant discrete derivatives (87)-(88) and (93), the
paper's example 5.3 (J0 = diag(6, 8, 3), q0 = (1,0,0,0), Omega0 = (10, 20, 20)).

It shares no code with the Rust library: numpy only, a central finite-difference
Newton Jacobian (as the authors' MATLAB code 'metis' does), Newton's max-norm
tolerance 1e-9 and at most 40 iterations, the trivial initial guess (the previous
state) unless --guess extrapolated.

Schemes:
  paper       EML exactly as published, eqs. (86a)-(86d).
  stabilised  EML with the unit constraint's hidden constraints q.v = 0 and q.p = 0
              held at the nodes (docs/notes/issue30_quaternion.md): (86a) gets
              + h mu q^{n+1/2}, (86b) - h (mu p^{n+1/2} + gamma v^{n+1/2}), (86c)
              - gamma q^{n+1/2}, with the unknowns mu, gamma and the rows
              q^{n+1}.v^{n+1} = 0, q^{n+1}.p^{n+1} = 0.

Usage: python3 free_body_eml.py [--scheme paper|stabilised] [--h 0.05] [--steps N]
       python3 free_body_eml.py --order      # both schemes against RK4 at t = 1
"""
import argparse
import sys

import numpy as np

J0 = np.diag([6.0, 8.0, 3.0])


def hat(a):
    return np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])


def G(a):  # (35a)
    return np.hstack([-a[1:, None], a[0] * np.eye(3) - hat(a[1:])])


def E(a):  # (35b)
    return np.hstack([-a[1:, None], a[0] * np.eye(3) + hat(a[1:])])


def mass(q):  # (46)
    return 4.0 * G(q).T @ J0 @ G(q)


def energy(q, v, p):  # (74), V = 0: E = p.v - T(q, v)
    return p @ v - 0.5 * v @ mass(q) @ v


def momentum(q, p):  # (64)
    return 0.5 * E(q) @ p


def residual_paper(x, q0, v0, p0, h):
    q1, v1, p1, lam = x[0:4], x[4:8], x[8:12], x[12]
    qm, vm, pm = 0.5 * (q0 + q1), 0.5 * (v0 + v1), 0.5 * (p0 + p1)
    om = G(q0) @ v0 + G(q1) @ v1  # (88)
    dq_t = -2.0 * G(vm).T @ J0 @ om  # (87), dOmega/dq = -2 G(v)
    dv_t = 2.0 * G(qm).T @ J0 @ om  # (87), dOmega/dv = 2 G(q)
    r1 = q1 - q0 - h * vm  # (86a)
    r2 = p1 - p0 - h * dq_t + h * lam * qm  # (86b), grad g = q^{n+1/2} (93)
    r3 = pm - dv_t  # (86c)
    r4 = 0.5 * (q1 @ q1 - 1.0)  # (86d)
    return np.concatenate([r1, r2, r3, [r4]])


def residual_stabilised(x, q0, v0, p0, h):
    q1, v1, p1, lam, mu, gam = x[0:4], x[4:8], x[8:12], x[12], x[13], x[14]
    qm, vm, pm = 0.5 * (q0 + q1), 0.5 * (v0 + v1), 0.5 * (p0 + p1)
    om = G(q0) @ v0 + G(q1) @ v1
    dq_t = -2.0 * G(vm).T @ J0 @ om
    dv_t = 2.0 * G(qm).T @ J0 @ om
    r1 = q1 - q0 - h * (vm + mu * qm)
    r2 = p1 - p0 - h * dq_t + h * lam * qm + h * mu * pm + h * gam * vm
    r3 = pm - dv_t + gam * qm
    r4 = 0.5 * (q1 @ q1 - 1.0)
    r5 = q1 @ v1
    r6 = q1 @ p1
    return np.concatenate([r1, r2, r3, [r4, r5, r6]])


def newton(f, x, tol=1e-9, iters=40):
    for k in range(iters + 1):
        r = f(x)
        if np.max(np.abs(r)) <= tol:
            # metis' rule: the residual is tested before the update, one more update
            # is applied after it passes.
            J = jac(f, x)
            return x - np.linalg.solve(J, r), k, np.max(np.abs(r))
        if k == iters:
            break
        x = x - np.linalg.solve(jac(f, x), r)
    return None, iters, np.max(np.abs(f(x)))


def jac(f, x):
    n = x.size
    J = np.empty((n, n))
    for j in range(n):
        d = 1e-7 * (1.0 + abs(x[j]))
        e = np.zeros(n)
        e[j] = d
        J[:, j] = (f(x + e) - f(x - e)) / (2 * d)
    return J


def reference(t_end, n=20000):
    """RK4 on the Euler equations J0 Omega' = J0 Omega x Omega with q' = G(q)^T Omega / 2."""
    jd = np.diag(J0)

    def f(y):
        q, om = y[:4], y[4:]
        return np.concatenate([0.5 * G(q).T @ om, np.cross(jd * om, om) / jd])

    y = np.concatenate([[1.0, 0.0, 0.0, 0.0], [10.0, 20.0, 20.0]])
    dt = t_end / n
    for _ in range(n):
        k1 = f(y)
        k2 = f(y + 0.5 * dt * k1)
        k3 = f(y + 0.5 * dt * k2)
        k4 = f(y + dt * k3)
        y = y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y[:4]


def run(scheme, h, steps, guess="trivial", every=0):
    """Steps the scheme; returns (steps done, final q, figures)."""
    q = np.array([1.0, 0.0, 0.0, 0.0])
    v = 0.5 * G(q).T @ np.array([10.0, 20.0, 20.0])  # (44)
    p = mass(q) @ v
    lam, mu, gam = 0.0, 0.0, 0.0
    e0, l0 = energy(q, v, p), momentum(q, p)
    fig = dict(de=0.0, dl=0.0, qv=0.0, g=0.0, iters=0)
    for n in range(1, steps + 1):
        qg = q + h * v if guess == "extrapolated" else q
        if scheme == "paper":
            f = lambda x: residual_paper(x, q, v, p, h)
            x0 = np.concatenate([qg, v, p, [lam]])
        else:
            f = lambda x: residual_stabilised(x, q, v, p, h)
            x0 = np.concatenate([qg, v, p, [lam, mu, gam]])
        x, it, res = newton(f, x0)
        if x is None:
            print(f"FAIL step {n} t={(n-1)*h:.4f}: Newton did not converge, residual {res:.3g},"
                  f" |q.v| before = {abs(q @ v):.3g}")
            return n - 1, q, fig
        fig["iters"] = max(fig["iters"], it)
        q, v, p, lam = x[0:4], x[4:8], x[8:12], x[12]
        if scheme == "stabilised":
            mu, gam = x[13], x[14]
        de = abs(energy(q, v, p) - e0) / abs(e0)
        fig["de"] = max(fig["de"], de)
        fig["dl"] = max(fig["dl"], np.max(np.abs(momentum(q, p) - l0)) / np.linalg.norm(l0))
        fig["qv"] = max(fig["qv"], abs(q @ v))
        fig["g"] = max(fig["g"], abs(0.5 * (q @ q - 1)))
        if every and n % every == 0:
            print(f"step {n} t={n*h:.3f} iters {it} |E-E0|/E0 {de:.2e} q.v {q@v:+.3e}"
                  f" q.p {q@p:+.3e} lambda {lam:+.4e}")
    return steps, q, fig


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--order", action="store_true",
                    help="error at t = 1 against RK4 for h = 0.01 ... 0.00125")
    ap.add_argument("--scheme", default="paper", choices=["paper", "stabilised"])
    ap.add_argument("--h", type=float, default=0.05)
    ap.add_argument("--steps", type=int, default=400)
    ap.add_argument("--guess", default="trivial", choices=["trivial", "extrapolated"])
    ap.add_argument("--every", type=int, default=0, help="print every k steps")
    args = ap.parse_args()
    if args.order:
        ref = reference(1.0)
        for scheme in ["paper", "stabilised"]:
            errs = []
            for h in [0.01, 0.005, 0.0025, 0.00125]:
                _, q, _ = run(scheme, h, round(1.0 / h))
                errs.append(np.linalg.norm(q - ref))
            ratios = " ".join(f"{a / b:.2f}" for a, b in zip(errs, errs[1:]))
            print(f"{scheme}: |q(1) - q_ref(1)| = " + " ".join(f"{e:.3e}" for e in errs)
                  + f"  ratios {ratios}")
        return 0
    n, q, fig = run(args.scheme, args.h, args.steps, args.guess, args.every)
    print(f"{args.scheme} h={args.h} steps={n}: max|E-E0|/E0 {fig['de']:.2e},"
          f" max|L-L0|/|L0| {fig['dl']:.2e}, max|g| {fig['g']:.2e}, max|q.v| {fig['qv']:.3g},"
          f" max Newton iterations {fig['iters']}")
    return 0 if n == args.steps else 3


if __name__ == "__main__":
    sys.exit(main())
