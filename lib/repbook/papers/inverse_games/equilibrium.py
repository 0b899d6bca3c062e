"""The forward problem: the quantal response equilibrium (QRE) of a zero-sum matrix game with
payoff Q = φθ at inverse temperature η, its soft value, and the checks of the paper's objects
(features, parameters, policies, counts) the other parts share."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import root

from repbook.core import checks

# ---------------------------------------------------------------------------------------------
# input checks
# ---------------------------------------------------------------------------------------------
SIMPLEX_TOL = 1e-8


def _check_features(phi) -> np.ndarray:
    phi = np.asarray(phi, dtype=np.float64)
    if phi.ndim != 3:
        raise ValueError(
            f"phi must have shape (m, n, d) (actions of player 1, of player 2, "
            f"features), got shape {phi.shape}"
        )
    m, n, d = phi.shape
    if m < 2 or n < 2 or d < 1:
        raise ValueError(
            f"phi must have at least 2 actions per player and 1 feature, got "
            f"shape {phi.shape}"
        )
    if not np.all(np.isfinite(phi)):
        raise ValueError("phi must be finite")
    flat = phi.reshape(m * n, d)
    constant = np.flatnonzero(np.ptp(flat, axis=0) == 0)
    if constant.size:
        raise ValueError(
            f"phi has constant feature(s) {constant.tolist()}: a constant payoff "
            "shift never changes an equilibrium, so its weight can never be "
            "identified; drop it"
        )
    return phi


def _check_theta(theta, d: int, name: str = "theta") -> np.ndarray:
    theta = np.asarray(theta, dtype=np.float64)
    if theta.shape != (d,):
        raise ValueError(
            f"{name} must have shape ({d},) to match phi's {d} features, got "
            f"shape {theta.shape}"
        )
    if not np.all(np.isfinite(theta)):
        raise ValueError(f"{name} must be finite, got {theta!r}")
    return theta


def _check_policy(p, k: int, name: str) -> np.ndarray:
    p = np.asarray(p, dtype=np.float64)
    if p.shape[-1:] != (k,):
        raise ValueError(
            f"{name} must have {k} entries on its last axis, got shape {p.shape}"
        )
    if not np.all(np.isfinite(p)) or np.any(p <= 0):
        raise ValueError(
            f"{name} must be a strictly positive policy on the simplex (a QRE has "
            f"full support); got min {np.min(p)!r}"
        )
    if np.any(np.abs(p.sum(-1) - 1.0) > SIMPLEX_TOL):
        raise ValueError(
            f"{name} must sum to 1 over its last axis, got sums "
            f"{np.unique(np.round(p.sum(-1), 12))[:5]}"
        )
    return p


def _check_counts(counts, k: int, name: str) -> np.ndarray:
    counts = np.asarray(counts)
    if counts.shape[-1:] != (k,):
        raise ValueError(
            f"{name} must have {k} entries on its last axis, got shape {counts.shape}"
        )
    if (
        not np.issubdtype(counts.dtype, np.number)
        or np.any(counts < 0)
        or np.any(counts != np.round(counts))
    ):
        raise ValueError(
            f"{name} must hold non-negative integer counts, got {counts!r}"
        )
    if np.any(counts.sum(-1) == 0):
        raise ValueError(f"{name} must count at least one play, got all-zero counts")
    return counts.astype(np.float64)


# ---------------------------------------------------------------------------------------------
# forward: the quantal response equilibrium
# ---------------------------------------------------------------------------------------------
def softmax(x: np.ndarray) -> np.ndarray:
    """Softmax over the last axis."""
    x = np.asarray(x, dtype=np.float64)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def entropy(p: np.ndarray) -> np.ndarray:
    """Shannon entropy (nats) over the last axis."""
    p = np.asarray(p, dtype=np.float64)
    return -np.sum(np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0), axis=-1)


def payoff(phi, theta) -> np.ndarray:
    """Q(a, b) = φ(a, b)ᵀθ for features `phi` (m, n, d) and `theta` (d,)."""
    phi = _check_features(phi)
    return phi @ _check_theta(theta, phi.shape[2])


@dataclass(frozen=True)
class QRE:
    """A solved quantal response equilibrium: policies, and the largest equation residual."""

    mu: np.ndarray  # (m,) the max player's policy
    nu: np.ndarray  # (n,) the min player's policy
    residual: float  # max |log-policy − log-softmax(η · payoff)| over both players


def qre_residual(Q, mu, nu, eta) -> float:
    """max over both players of |log μ − log softmax(ηQν)| and |log ν − log softmax(−ηQᵀμ)|."""
    Q = np.asarray(Q, dtype=np.float64)
    eta = checks.number("eta", eta, above=0.0)
    mu, nu = _check_policy(mu, Q.shape[0], "mu"), _check_policy(nu, Q.shape[1], "nu")
    r1 = np.log(mu) - np.log(softmax(eta * Q @ nu))
    r2 = np.log(nu) - np.log(softmax(-eta * Q.T @ mu))
    return float(max(np.abs(r1).max(), np.abs(r2).max()))


def _softmax1(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max())
    return e / e.sum()


def _qre_system(Q: np.ndarray, eta: float):
    """F(z) and its Jacobian for the centred-logit equations, z = (x, y), μ = softmax(x),
    ν = softmax(y): F₁ = x − C(ηQν), F₂ = y − C(−ηQᵀμ), C removing the mean."""
    m, n = Q.shape
    eq, eqt = eta * Q, eta * Q.T
    eye = np.eye(m + n)

    def fun(z):
        x, y = z[:m], z[m:]
        mu, nu = _softmax1(x), _softmax1(y)
        gx, gy = eq @ nu, -(eqt @ mu)
        f = np.concatenate([x - gx + gx.mean(), y - gy + gy.mean()])
        jac = eye.copy()
        b12 = eq * nu - np.outer(gx, nu)  # ∂(ηQν)/∂y = ηQ(diag ν − ννᵀ)
        b21 = -(eqt * mu) - np.outer(gy, mu)  # ∂(−ηQᵀμ)/∂x
        jac[:m, m:] = -(b12 - b12.mean(axis=0))
        jac[m:, :m] = -(b21 - b21.mean(axis=0))
        return f, jac

    return fun


def solve_qre(Q, eta, *, z0=None, tol: float = 1e-10) -> QRE:
    """The QRE of the zero-sum game with payoff `Q` (m, n) at inverse temperature `eta`.

    Solves the centred-logit equations x = C(ηQ softmax(y)), y = C(−ηQᵀ softmax(x)) (C removes
    the mean) with `scipy.optimize.root` (MINPACK hybrid method, analytic Jacobian). A damped
    fixed-point iteration is not used: in zero-sum games it cycles instead of converging. If the
    direct solve fails (large η), it follows the equilibrium from η/64 up to η by continuation.
    `z0` is an optional warm start (the m + n centred logits), from which plain Newton steps on
    the same equations are tried first (the MLE's inner loop). Raises RuntimeError if the
    residual stays above `tol`.
    """
    Q = np.asarray(Q, dtype=np.float64)
    if Q.ndim != 2 or min(Q.shape) < 2:
        raise ValueError(
            f"Q must be an (m, n) payoff matrix with m, n ≥ 2, got shape {Q.shape}"
        )
    if not np.all(np.isfinite(Q)):
        raise ValueError("Q must be finite")
    eta = checks.number("eta", eta, above=0.0)
    m, n = Q.shape
    z = np.zeros(m + n) if z0 is None else np.asarray(z0, dtype=np.float64)
    if z.shape != (m + n,):
        raise ValueError(f"z0 must have shape ({m + n},), got {z.shape}")

    def attempt(eta_k, start):
        sol = root(
            _qre_system(Q, eta_k),
            start,
            jac=True,
            method="hybr",
            options={"xtol": 1e-14, "maxfev": 2000},
        )
        return sol.x

    def finish(zk):
        mu, nu = softmax(zk[:m]), softmax(zk[m:])
        return QRE(mu, nu, qre_residual(Q, mu, nu, eta))

    if z0 is not None:  # warm start: a few Newton steps usually suffice
        fun, zk = _qre_system(Q, eta), z.copy()
        for _ in range(6):
            f, jac = fun(zk)
            if np.abs(f).max() < 1e-13:
                break
            zk = zk - np.linalg.solve(jac, f)
        if np.all(np.isfinite(zk)):
            out = finish(zk)
            if out.residual <= tol:
                return out
    out = finish(attempt(eta, z))
    if out.residual <= tol:
        return out
    zk = np.zeros(m + n)
    for eta_k in eta * np.geomspace(1 / 64, 1, 25):
        zk = attempt(eta_k, zk)
    out = finish(zk)
    if out.residual > tol:
        raise RuntimeError(
            f"the QRE solve did not converge at eta={eta}: residual "
            f"{out.residual:.2e} > tol={tol:.0e}"
        )
    return out


def qre(phi, theta, eta, **kw) -> QRE:
    """The QRE of the game with payoff Q = φθ."""
    return solve_qre(payoff(phi, theta), eta, **kw)


def soft_value(Q, mu, nu, eta) -> np.ndarray:
    """μᵀQν + η⁻¹H(μ) − η⁻¹H(ν), over leading batch axes: Q (..., m, n), mu (..., m),
    nu (..., n)."""
    eta = checks.number("eta", eta, above=0.0)
    Q, mu, nu = (np.asarray(v, dtype=np.float64) for v in (Q, mu, nu))
    return (
        np.einsum("...a,...ab,...b->...", mu, Q, nu) + (entropy(mu) - entropy(nu)) / eta
    )
