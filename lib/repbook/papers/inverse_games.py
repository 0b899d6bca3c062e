"""Inverse game theory with entropy regularisation (Liao, Zhu, Fang, Yang, Tarokh, ICML 2025).

Rebuilt from the abstract and the algebra of the quantal response equilibrium (QRE); the paper's
own text (Sec. 3.2) was not available to us, so constants such as the confidence-set radius are
our choice (see `confidence_set`).

Notation.
- A two-player zero-sum matrix game with m actions for the max player (μ) and n for the min player
  (ν). Known features φ(a, b) ∈ ℝ^d, stored as an array `phi` of shape (m, n, d); the unknown
  parameter θ ∈ ℝ^d gives the payoff matrix Q(a, b) = φ(a, b)ᵀθ.
- η > 0 is the inverse temperature (1/η multiplies the entropy bonus). The QRE is the unique
  saddle point of μᵀQν + η⁻¹H(μ) − η⁻¹H(ν):
      μ(a) ∝ exp(η (Qν)(a)),     ν(b) ∝ exp(−η (Qᵀμ)(b)).
- Inverse step: against reference actions a₀ = 0, b₀ = 0 the log-odds are linear in θ,
      log μ(a) − log μ(0) = η Σ_b ν(b) (φ(a, b) − φ(0, b))ᵀθ,          a = 1..m−1
      log ν(b) − log ν(0) = −η Σ_a μ(a) (φ(a, b) − φ(a, 0))ᵀθ,         b = 1..n−1
  i.e. A(μ, ν) θ = c(μ, ν) with (m − 1) + (n − 1) rows. θ is identifiable iff rank A = d.
- Markov games: horizon H, S states, the same stage game at every (h, s) with
  Q_h(s, a, b) = φ_h(s, a, b)ᵀθ_h + Σ_s' P_h(s' | s, a, b) V_{h+1}(s'),
  V_h(s) = μᵀQ_h(s)ν + η⁻¹H(μ) − η⁻¹H(ν) at the stage QRE, V_{H+1} = 0.

Everything is numpy/scipy; no printing, plotting or file writing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize, root
from scipy.stats import chi2

# ---------------------------------------------------------------------------------------------
# input checks
# ---------------------------------------------------------------------------------------------
SIMPLEX_TOL = 1e-8


def _check_eta(eta) -> float:
    if isinstance(eta, bool) or not isinstance(
        eta, (int, float, np.integer, np.floating)
    ):
        raise ValueError(f"eta must be a positive number, got {eta!r}")
    if not np.isfinite(eta) or eta <= 0:
        raise ValueError(f"eta must be a positive finite number, got {eta!r}")
    return float(eta)


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


def _check_positive_int(x, name: str) -> int:
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or x < 1:
        raise ValueError(f"{name} must be a positive int, got {x!r}")
    return int(x)


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
    eta = _check_eta(eta)
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
    eta = _check_eta(eta)
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
    eta = _check_eta(eta)
    Q, mu, nu = (np.asarray(v, dtype=np.float64) for v in (Q, mu, nu))
    return (
        np.einsum("...a,...ab,...b->...", mu, Q, nu) + (entropy(mu) - entropy(nu)) / eta
    )


# ---------------------------------------------------------------------------------------------
# inverse: the linear system, least squares, confidence sets
# ---------------------------------------------------------------------------------------------
def _stage_rows(
    phi: np.ndarray, mu: np.ndarray, nu: np.ndarray, eta: float
) -> np.ndarray:
    """The linear map θ ↦ the QRE log-odds implied by Q = φθ at the policies (μ, ν).

    phi (m, n, d) or (..., m, n, d); mu (..., m); nu (..., n). Returns (..., m + n − 2, d)."""
    d1 = phi[..., 1:, :, :] - phi[..., :1, :, :]  # φ(a, b) − φ(0, b), a ≥ 1
    d2 = phi[..., :, 1:, :] - phi[..., :, :1, :]  # φ(a, b) − φ(a, 0), b ≥ 1
    a1 = eta * np.einsum("...b,...abk->...ak", nu, d1)
    a2 = -eta * np.einsum("...a,...abk->...bk", mu, d2)
    return np.concatenate([a1, a2], axis=-2)


def _log_odds(mu: np.ndarray, nu: np.ndarray) -> np.ndarray:
    return np.concatenate(
        [
            np.log(mu[..., 1:]) - np.log(mu[..., :1]),
            np.log(nu[..., 1:]) - np.log(nu[..., :1]),
        ],
        axis=-1,
    )


def inverse_system(phi, mu, nu, eta) -> tuple[np.ndarray, np.ndarray]:
    """A(μ, ν) and c(μ, ν) with A θ = c exactly when (μ, ν) is the QRE of Q = φθ.

    Rows 1..m−1: η Σ_b ν(b)(φ(a,b) − φ(0,b)) against log μ(a)/μ(0); rows m..m+n−2:
    −η Σ_a μ(a)(φ(a,b) − φ(a,0)) against log ν(b)/ν(0). Leading batch axes on mu and nu are kept:
    mu (..., m), nu (..., n) give A (..., m+n−2, d) and c (..., m+n−2).
    """
    phi = _check_features(phi)
    eta = _check_eta(eta)
    m, n, _ = phi.shape
    mu, nu = _check_policy(mu, m, "mu"), _check_policy(nu, n, "nu")
    if mu.shape[:-1] != nu.shape[:-1]:
        raise ValueError(
            f"mu and nu must have the same batch shape, got {mu.shape[:-1]} and "
            f"{nu.shape[:-1]}"
        )
    return _stage_rows(phi, mu, nu, eta), _log_odds(mu, nu)


def null_space(A, *, rtol: float = 1e-10) -> np.ndarray:
    """An orthonormal basis (d, d − rank) of the null space of A (m+n−2, d)."""
    A = np.asarray(A, dtype=np.float64)
    _, s, vt = np.linalg.svd(A)
    rank = int(np.sum(s > rtol * max(s.max(initial=0.0), 1e-300)))
    return vt[rank:].T


def frequencies(counts, smoothing: float = 0.5) -> np.ndarray:
    """Smoothed empirical policy (counts + s) / (N + s k) over the last axis (add-½ by default),
    so that log-odds stay finite when an action was never played."""
    counts = np.asarray(counts, dtype=np.float64)
    if counts.ndim < 1 or counts.shape[-1] < 2:
        raise ValueError(
            f"counts must have at least 2 entries on the last axis, got shape "
            f"{counts.shape}"
        )
    if np.any(counts < 0):
        raise ValueError(f"counts must be non-negative, got min {counts.min()!r}")
    if not (isinstance(smoothing, (int, float)) and smoothing >= 0):
        raise ValueError(f"smoothing must be a number ≥ 0, got {smoothing!r}")
    total = counts.sum(-1, keepdims=True) + smoothing * counts.shape[-1]
    if np.any(total == 0):
        raise ValueError("counts must count at least one play when smoothing is 0")
    return (counts + smoothing) / total


def sample_play_counts(
    mu, nu, n_plays: int, rng: np.random.Generator, size: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Action counts of `n_plays` independent plays (a, b) ~ μ ⊗ ν; `size` replicates.

    The two players randomise independently, so the marginal counts are independent multinomials.
    Returns counts_mu (size, m) and counts_nu (size, n) (no leading axis when size is None)."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"rng must be a numpy.random.Generator, got {type(rng).__name__}"
        )
    n_plays = _check_positive_int(n_plays, "n_plays")
    mu = _check_policy(mu, np.asarray(mu).shape[-1], "mu")
    nu = _check_policy(nu, np.asarray(nu).shape[-1], "nu")
    return rng.multinomial(n_plays, mu, size=size), rng.multinomial(
        n_plays, nu, size=size
    )


def ls_estimate(
    phi, counts_mu, counts_nu, eta, *, smoothing: float = 0.5
) -> np.ndarray:
    """θ̂ = the minimum-norm least-squares solution of A(μ̂, ν̂)θ = c(μ̂, ν̂) on smoothed frequencies.

    Batch axes are allowed (counts (..., m) and (..., n) → θ̂ (..., d)). When rank A < d the
    minimum-norm solution converges to the projection of θ on the row space of A(μ*, ν*)."""
    phi = _check_features(phi)
    m, n, _ = phi.shape
    mu = frequencies(_check_counts(counts_mu, m, "counts_mu"), smoothing)
    nu = frequencies(_check_counts(counts_nu, n, "counts_nu"), smoothing)
    A, c = inverse_system(phi, mu, nu, eta)
    return np.einsum("...kr,...r->...k", np.linalg.pinv(A), c)


def indifference_inverse(phi, mu, nu) -> np.ndarray:
    """The naive inverse that reads (μ, ν) as a Nash equilibrium (η → ∞): every action in the
    support earns the same payoff, A₀θ = 0 with A₀ = A(μ, ν)/η. A unit vector minimising ‖A₀θ‖
    (the last right singular vector; sign fixed so that its largest entry is positive). With an
    interior QRE and rank A = d, only θ = 0 solves A₀θ = 0, so this returns noise, not θ's
    direction."""
    A, _ = inverse_system(phi, mu, nu, 1.0)
    v = np.linalg.svd(np.asarray(A))[2][-1]
    return v * np.sign(v[np.argmax(np.abs(v))])


# -- the delta method and the generalised chi-square ---------------------------------------------
def residual_covariance(phi, mu, nu, theta, eta, n_plays) -> np.ndarray:
    """Delta-method covariance of r = A(μ̂, ν̂)θ − c(μ̂, ν̂) at the truth, for N = `n_plays` plays.

    μ̂ and ν̂ are independent multinomial frequencies, Cov(μ̂) = (diag μ − μμᵀ)/N; r's Jacobian in
    (μ, ν) is ∂r_a/∂ν(b) = η(Q(a,b) − Q(0,b)), ∂r_a/∂μ = −(e_a/μ(a) − e_0/μ(0)) for the first m − 1
    rows, and symmetrically for the others. Plug in estimates for (μ, ν, θ) in practice."""
    phi = _check_features(phi)
    eta = _check_eta(eta)
    m, n, d = phi.shape
    mu, nu = _check_policy(mu, m, "mu"), _check_policy(nu, n, "nu")
    Q = phi @ _check_theta(theta, d)
    n_plays = _check_positive_int(n_plays, "n_plays")
    k = m + n - 2
    j_mu, j_nu = np.zeros((k, m)), np.zeros((k, n))
    for a in range(1, m):
        j_nu[a - 1] = eta * (Q[a] - Q[0])
        j_mu[a - 1, a], j_mu[a - 1, 0] = -1 / mu[a], 1 / mu[0]
    for b in range(1, n):
        j_mu[m - 2 + b] = -eta * (Q[:, b] - Q[:, 0])
        j_nu[m - 2 + b, b], j_nu[m - 2 + b, 0] = -1 / nu[b], 1 / nu[0]
    cov_mu = (np.diag(mu) - np.outer(mu, mu)) / n_plays
    cov_nu = (np.diag(nu) - np.outer(nu, nu)) / n_plays
    return j_mu @ cov_mu @ j_mu.T + j_nu @ cov_nu @ j_nu.T


def _check_weights(weights) -> np.ndarray:
    w = np.asarray(weights, dtype=np.float64)
    if (
        w.ndim < 1
        or w.shape[-1] < 1
        or not np.all(np.isfinite(w))
        or np.any(w < 0)
        or np.any(w.sum(-1) <= 0)
    ):
        raise ValueError(
            "weights must be non-negative, finite and not all zero, with the "
            f"components on the last axis; got {weights!r}"
        )
    return w


_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(8)


_MAX_PANELS = 32_768


def _imhof(x: float, w: np.ndarray) -> tuple[float, float]:
    """sf and density of Σ w_i Z_i² at x, for weights normalised to sum 1 (see below)."""
    if x <= 0:
        return 1.0, 0.0
    if w.size == 1:
        return float(chi2.sf(x / w[0], 1)), float(chi2.pdf(x / w[0], 1) / w[0])
    # Far out the integrand oscillates with period 4π/x under an envelope 1/(uρ(u)), so the
    # neglected tail is at most about 2·envelope/x: stop where that falls below 1e-10.
    grid_u = np.geomspace(1e-2, 1e9, 300)
    env = 1.0 / (grid_u * np.exp(0.25 * np.log1p(np.outer(grid_u, w) ** 2).sum(1)))
    small = env < 5e-11 * min(x, 1.0)
    upper = grid_u[np.argmax(small)] if np.any(small) else grid_u[-1]
    panel = min(2 * np.pi / x, 2.0)  # at most half the period 4π/x
    n_panels = int(
        min(np.ceil(upper / panel), _MAX_PANELS)
    )  # the cap binds only when one or
    edges = np.linspace(
        0.0, min(upper, n_panels * panel), n_panels + 1
    )  # two weights dominate
    half = np.diff(edges)[:, None] / 2
    u = (edges[:-1, None] + half * (1 + _GL_NODES[None, :])).ravel()
    wq = (half * _GL_WEIGHTS[None, :]).ravel()
    lu = np.outer(u, w)
    theta = 0.5 * np.arctan(lu).sum(1) - 0.5 * x * u
    rho = np.exp(0.25 * np.log1p(lu**2).sum(1))
    sf = 0.5 + np.sum(wq * np.sin(theta) / (u * rho)) / np.pi
    pdf = np.sum(wq * np.cos(theta) / rho) / (2 * np.pi)
    return float(min(max(sf, 0.0), 1.0)), float(max(pdf, 0.0))


def generalized_chi2_sf(x, weights) -> np.ndarray:
    """P(Σ_i w_i Z_i² > x) for independent standard normal Z_i (Imhof's integral).

    P = 1/2 + (1/π) ∫₀^∞ sin(θ(u)) / (u ρ(u)) du, θ(u) = ½Σ arctan(w_i u) − ½xu,
    ρ(u) = Π(1 + w_i²u²)^{1/4}; integrated by 8-point Gauss–Legendre panels of at most half a
    period, up to where the neglected oscillating tail is below about 1e-10 (weights first scaled
    to sum 1).
    Batch: x (...,), weights (..., k). Accurate to about 1e-9 when three or more weights matter;
    when one or two dominate, the integrand decays slowly, the range is capped and the error can
    reach about 1e-6 (the unit tests compare with the chi-square law and with Monte Carlo)."""
    w = _check_weights(weights)
    x = np.asarray(x, dtype=np.float64)
    scale = w.sum(-1)
    xb, wb = np.broadcast_arrays((x / scale)[..., None], w / scale[..., None])
    xb = xb[..., 0]
    out = [
        _imhof(xi, wi)[0] for xi, wi in zip(xb.reshape(-1), wb.reshape(-1, w.shape[-1]))
    ]
    return np.asarray(out).reshape(xb.shape)


def generalized_chi2_quantile(q: float, weights) -> float:
    """The q-quantile of Σ_i w_i Z_i² (one set of weights): Newton steps on Imhof's sf and
    density from the moment-matched scaled chi-square, inside a bracket (bisection fallback)."""
    if not (isinstance(q, (int, float)) and 0 < q < 1):
        raise ValueError(f"q must lie in (0, 1), got {q!r}")
    w = _check_weights(weights)
    if w.ndim != 1:
        raise ValueError(f"weights must be one vector here, got shape {w.shape}")
    scale = w.sum()
    wn = w / scale
    g, h = np.sum(wn**2), 1.0 / np.sum(wn**2)  # scaled χ²: g·χ²_h, same mean, var
    x = float(g * chi2.ppf(q, h))
    lo, hi = 0.0, np.inf
    for _ in range(60):
        sf, pdf = _imhof(x, wn)
        gap = sf - (1 - q)
        if abs(gap) < 1e-11:
            break
        if gap > 0:
            lo = x
        else:
            hi = x
        step = x + gap / pdf if pdf > 0 else np.nan
        x = step if lo < step < hi else (lo + hi) / 2 if np.isfinite(hi) else 2 * x
    return float(x * scale)


@dataclass(frozen=True)
class ConfidenceSet:
    """Θ̂ = {θ : ‖Âθ − ĉ‖² ≤ κ}, with θ̂ its least-squares centre."""

    theta_hat: np.ndarray  # (d,) minimum-norm least-squares solution
    A: np.ndarray  # (m+n−2, d) at the smoothed empirical policies
    c: np.ndarray  # (m+n−2,)
    kappa: float  # radius: the (1 − δ) quantile of ‖r‖² under the delta method
    weights: np.ndarray  # eigenvalues of the residual covariance (its generalised χ²)
    delta: float

    def loss(self, theta) -> np.ndarray:
        """‖Âθ − ĉ‖² for θ (d,) or a batch (..., d)."""
        theta = np.asarray(theta, dtype=np.float64)
        return np.sum((theta @ self.A.T - self.c) ** 2, axis=-1)

    def contains(self, theta) -> np.ndarray:
        return self.loss(theta) <= self.kappa

    @property
    def rank(self) -> int:
        return int(np.linalg.matrix_rank(self.A))

    @property
    def min_loss(self) -> float:
        return float(self.loss(self.theta_hat))

    def diameter(self) -> float:
        """Largest distance between two members: inf when rank Â < d (a slab along the null
        space), 0 when the set is empty (κ below the least-squares loss)."""
        d = self.A.shape[1]
        if self.rank < d:
            return float("inf")
        slack = self.kappa - self.min_loss
        if slack < 0:
            return 0.0
        s_min = np.linalg.svd(self.A, compute_uv=False)[d - 1]
        return float(2 * np.sqrt(slack) / s_min)

    def line_interval(self, point, direction) -> tuple[float, float] | None:
        """The members on the line point + t·direction: the interval [t_lo, t_hi] of t, or None
        when the line misses the set. ‖Â(p + t u) − ĉ‖² ≤ κ is a quadratic inequality in t,
        (Âu·Âu) t² + 2 (Âu·e) t + e·e − κ ≤ 0 with e = Âp − ĉ; when Âu = 0 (u in null(Â)) the
        whole line is in the set or none of it, (−inf, inf) or None."""
        d = self.A.shape[1]
        p = _check_theta(point, d, "point")
        u = _check_theta(direction, d, "direction")
        if not np.any(u):
            raise ValueError("direction must not be the zero vector")
        au, e = self.A @ u, self.A @ p - self.c
        a, b, c0 = float(au @ au), float(au @ e), float(e @ e - self.kappa)
        if a <= 1e-300:
            return (-np.inf, np.inf) if c0 <= 0 else None
        disc = b * b - a * c0
        if disc < 0:
            return None
        root = np.sqrt(disc)
        return float((-b - root) / a), float((-b + root) / a)

    def boundary_2d(self, n_points: int = 200) -> np.ndarray:
        """Points on the boundary of the set for d = 2 (an ellipse), shape (n_points, 2)."""
        if self.A.shape[1] != 2 or self.rank < 2:
            raise ValueError("boundary_2d needs d = 2 and rank 2")
        slack = max(self.kappa - self.min_loss, 0.0)
        evals, evecs = np.linalg.eigh(self.A.T @ self.A)
        t = np.linspace(0, 2 * np.pi, n_points)
        circle = np.stack([np.cos(t), np.sin(t)], axis=1)
        return self.theta_hat + (circle * np.sqrt(slack / evals)) @ evecs.T


def _check_delta(delta) -> float:
    if not (isinstance(delta, (int, float)) and 0 < delta < 1):
        raise ValueError(f"delta must lie in (0, 1), got {delta!r}")
    return float(delta)


def _plugin(phi, counts_mu, counts_nu, eta, smoothing):
    phi = _check_features(phi)
    eta = _check_eta(eta)
    m, n, _ = phi.shape
    cm = _check_counts(counts_mu, m, "counts_mu")
    cn = _check_counts(counts_nu, n, "counts_nu")
    if cm.ndim != 1 or cn.ndim != 1:
        raise ValueError("counts_mu and counts_nu must be one data set each (1-D)")
    if cm.sum() != cn.sum():
        raise ValueError(
            f"counts_mu and counts_nu must count the same plays, got "
            f"{int(cm.sum())} and {int(cn.sum())}"
        )
    mu, nu = frequencies(cm, smoothing), frequencies(cn, smoothing)
    A, c = inverse_system(phi, mu, nu, eta)
    theta_hat = np.linalg.pinv(A) @ c
    cov = residual_covariance(phi, mu, nu, theta_hat, eta, int(cm.sum()))
    weights = np.clip(np.linalg.eigvalsh(cov), 0.0, None)
    return phi, A, c, theta_hat, weights


def confidence_set(
    phi, counts_mu, counts_nu, eta, delta: float, *, smoothing: float = 0.5
) -> ConfidenceSet:
    """The confidence set {θ : ‖Âθ − ĉ‖² ≤ κ_N} from one data set of N plays.

    κ_N is the (1 − δ) quantile of ‖r(θ*)‖², whose delta-method law is Σ_i λ_i Z_i², λ the
    eigenvalues of `residual_covariance` at the plug-in (μ̂, ν̂, θ̂). This calibration is ours: the
    paper's κ_N comes from its concentration bounds, whose constants we could not read."""
    delta = _check_delta(delta)
    _, A, c, theta_hat, weights = _plugin(phi, counts_mu, counts_nu, eta, smoothing)
    kappa = generalized_chi2_quantile(1 - delta, weights)
    return ConfidenceSet(theta_hat, A, c, kappa, weights, delta)


def coverage_pvalue(
    phi, counts_mu, counts_nu, eta, theta, *, smoothing: float = 0.5
) -> float:
    """P(Σλ_i Z_i² > ‖Âθ − ĉ‖²): θ lies in the level-δ confidence set iff this is ≥ δ. One
    integral instead of a quantile search, for coverage studies."""
    phi, A, c, _, weights = _plugin(phi, counts_mu, counts_nu, eta, smoothing)
    theta = _check_theta(theta, phi.shape[2])
    return float(generalized_chi2_sf(np.sum((A @ theta - c) ** 2), weights))


# -- maximum likelihood ---------------------------------------------------------------------------
@dataclass(frozen=True)
class MLEResult:
    theta: np.ndarray
    log_likelihood: float
    converged: bool
    n_solves: int  # inner QRE solves


def mle_estimate(
    phi, counts_mu, counts_nu, eta, *, theta0=None, gtol: float = 1e-9
) -> MLEResult:
    """Maximum likelihood: maximise Σ_a N_a log μ_θ(a) + Σ_b M_b log ν_θ(b), with (μ_θ, ν_θ) the
    QRE of Q = φθ solved inside every evaluation (warm-started). The gradient comes from the
    implicit function theorem on the centred-logit equations. BFGS minimises the mean negative
    log-likelihood per play (so `gtol` does not scale with N); `converged` is BFGS's success or a
    final gradient below 10·gtol (BFGS reports "precision loss" when the objective's own rounding,
    set by the inner solve's 1e-10 tolerance, stops the line search at the optimum). A trial θ at
    which the inner solve fails (far out on a line search, where the MLE runs off to infinity on a
    small data set) is rejected as infinitely unlikely; a fit without a finite likelihood is not
    converged. `theta0` defaults to the least-squares estimate."""
    phi = _check_features(phi)
    eta = _check_eta(eta)
    m, n, d = phi.shape
    cm = _check_counts(counts_mu, m, "counts_mu")
    cn = _check_counts(counts_nu, n, "counts_nu")
    if cm.ndim != 1 or cn.ndim != 1:
        raise ValueError("counts_mu and counts_nu must be one data set each (1-D)")
    theta0 = (
        ls_estimate(phi, cm, cn, eta)
        if theta0 is None
        else _check_theta(theta0, d, "theta0")
    )
    state = {"z": np.zeros(m + n), "solves": 0, "unsolved": 0}
    total = cm.sum() + cn.sum()

    def negloglik(theta):
        Q = phi @ theta
        try:
            eq = solve_qre(Q, eta, z0=state["z"])
        except (RuntimeError, ValueError):
            # a line-search trial far out (max |Q| of 1e7 seen at N = 100): the equilibrium is
            # not resolvable in float64 there (a policy underflows or the residual stalls
            # above tol), so the trial is rejected as infinitely unlikely
            state["unsolved"] += 1
            return np.inf, np.zeros_like(theta)
        state["solves"] += 1
        mu, nu = eq.mu, eq.nu
        x, y = np.log(mu) - np.log(mu).mean(), np.log(nu) - np.log(nu).mean()
        state["z"] = np.concatenate([x, y])
        ll = cm @ np.log(mu) + cn @ np.log(nu)
        _, jac = _qre_system(Q, eta)(state["z"])
        dl = np.concatenate([cm - cm.sum() * mu, cn - cn.sum() * nu])
        f1 = -eta * np.einsum("abk,b->ak", phi, nu)  # ∂F₁/∂θ before centring
        f2 = eta * np.einsum("abk,a->bk", phi, mu)  # ∂F₂/∂θ before centring
        dfdtheta = np.concatenate([f1 - f1.mean(0), f2 - f2.mean(0)])
        lam = np.linalg.solve(jac.T, dl)
        grad = -lam @ dfdtheta
        return -ll / total, -grad / total

    res = minimize(negloglik, theta0, jac=True, method="BFGS", options={"gtol": gtol})
    converged = bool(np.isfinite(res.fun)) and (
        bool(res.success) or bool(np.abs(res.jac).max() <= 10 * gtol)
    )
    return MLEResult(res.x, float(-res.fun * total), converged, state["solves"])


# ---------------------------------------------------------------------------------------------
# random games
# ---------------------------------------------------------------------------------------------
def random_matrix_game(
    m: int, n: int, d: int, rng: np.random.Generator, *, theta_norm: float = 1.0
) -> tuple[np.ndarray, np.ndarray]:
    """Gaussian features φ (m, n, d) and a parameter θ (d,) uniform on the sphere of radius
    `theta_norm`."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"rng must be a numpy.random.Generator, got {type(rng).__name__}"
        )
    m, n, d = (_check_positive_int(v, k) for v, k in ((m, "m"), (n, "n"), (d, "d")))
    if m < 2 or n < 2:
        raise ValueError(f"m and n must be at least 2, got m={m}, n={n}")
    phi = rng.normal(size=(m, n, d))
    theta = rng.normal(size=d)
    return phi, theta * (theta_norm / np.linalg.norm(theta))


def loglog_slope(x, y) -> float:
    """Least-squares slope of log y on log x."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1 or x.size < 2:
        raise ValueError(
            f"x and y must be 1-D of the same length ≥ 2, got {x.shape}, {y.shape}"
        )
    if np.any(x <= 0) or np.any(y <= 0):
        raise ValueError("x and y must be positive for a log-log slope")
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


def bootstrap_slope_se(
    errors, n_plays, rng: np.random.Generator, *, n_boot: int = 200
) -> float:
    """Bootstrap standard error of the log-log slope of the median error on N.

    `errors` (k, reps) holds one error per data set at each of the k sizes in `n_plays`; each
    bootstrap draw resamples the data sets of every size with replacement (independently per
    size, as they were drawn), takes the medians and refits `loglog_slope`. Returns the standard
    deviation (ddof 1) of the `n_boot` slopes."""
    errors = np.asarray(errors, dtype=np.float64)
    sizes = _check_sizes(n_plays)
    if errors.ndim != 2 or errors.shape[0] != sizes.size or errors.shape[1] < 2:
        raise ValueError(
            f"errors must have shape ({sizes.size}, reps ≥ 2) to match n_plays, got "
            f"{errors.shape}"
        )
    if sizes.size < 2:
        raise ValueError("n_plays must hold at least 2 sizes for a slope")
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"rng must be a numpy.random.Generator, got {type(rng).__name__}"
        )
    n_boot = _check_positive_int(n_boot, "n_boot")
    if n_boot < 2:
        raise ValueError(f"n_boot must be at least 2, got {n_boot}")
    k, reps = errors.shape
    idx = rng.integers(0, reps, size=(n_boot, k, reps))
    boot = np.take_along_axis(errors[None], idx, axis=2)  # (n_boot, k, reps)
    med = np.median(boot, axis=2)
    slopes = [loglog_slope(sizes, m) for m in med]
    return float(np.std(slopes, ddof=1))


# ---------------------------------------------------------------------------------------------
# finite-horizon Markov games
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class MarkovGame:
    """Finite-horizon zero-sum Markov game with linear rewards r_h(s,a,b) = φ_h(s,a,b)ᵀθ_h.

    phi (H, S, A, B, d); P (H, S, A, B, S) transition kernels; theta (H, d); eta > 0."""

    phi: np.ndarray
    P: np.ndarray
    theta: np.ndarray
    eta: float

    def __post_init__(self):
        phi = np.asarray(self.phi, dtype=np.float64)
        if phi.ndim != 5:
            raise ValueError(f"phi must have shape (H, S, A, B, d), got {phi.shape}")
        H, S, A, B, d = phi.shape
        P = np.asarray(self.P, dtype=np.float64)
        if P.shape != (H, S, A, B, S):
            raise ValueError(
                f"P must have shape {(H, S, A, B, S)} to fit phi, got {P.shape}"
            )
        if np.any(P < 0) or np.any(np.abs(P.sum(-1) - 1) > SIMPLEX_TOL):
            raise ValueError(
                "P must hold probability distributions over next states "
                "(non-negative, summing to 1 on the last axis)"
            )
        theta = np.asarray(self.theta, dtype=np.float64)
        if theta.shape != (H, d):
            raise ValueError(
                f"theta must have shape {(H, d)} to fit phi, got {theta.shape}"
            )
        for h in range(H):
            for s in range(S):
                _check_features(phi[h, s])
        object.__setattr__(self, "phi", phi)
        object.__setattr__(self, "P", P)
        object.__setattr__(self, "theta", theta)
        object.__setattr__(self, "eta", _check_eta(self.eta))

    @property
    def shape(self) -> tuple[int, int, int, int, int]:
        return self.phi.shape

    def rewards(self, theta=None) -> np.ndarray:
        """r_h(s, a, b) = φ_h(s, a, b)ᵀθ_h, shape (H, S, A, B)."""
        theta = self.theta if theta is None else np.asarray(theta, dtype=np.float64)
        return np.einsum("hsabk,hk->hsab", self.phi, theta)


@dataclass(frozen=True)
class MarkovSolution:
    mu: np.ndarray  # (H, S, A)
    nu: np.ndarray  # (H, S, B)
    Q: np.ndarray  # (H, S, A, B)
    V: np.ndarray  # (H + 1, S), V[H] = 0


def solve_markov_qre(game: MarkovGame) -> MarkovSolution:
    """Backward induction: Q_h = r_h + P_h V_{h+1}, stage QRE at every (h, s), soft value V_h."""
    H, S, A, B, _ = game.shape
    r = game.rewards()
    mu, nu = np.zeros((H, S, A)), np.zeros((H, S, B))
    Q, V = np.zeros((H, S, A, B)), np.zeros((H + 1, S))
    for h in reversed(range(H)):
        Q[h] = r[h] + game.P[h] @ V[h + 1]
        for s in range(S):
            eq = solve_qre(Q[h, s], game.eta)
            mu[h, s], nu[h, s] = eq.mu, eq.nu
        V[h] = soft_value(Q[h], mu[h], nu[h], game.eta)
    return MarkovSolution(mu, nu, Q, V)


@dataclass(frozen=True)
class MarkovData:
    """Plays observed at every (h, s): joint action counts and next-state counts."""

    counts: np.ndarray  # (H, S, A, B) how often (a, b) was played at (h, s)
    next_counts: np.ndarray  # (H, S, A, B, S) next states seen after (h, s, a, b)


def sample_markov_data(
    game: MarkovGame,
    solution: MarkovSolution,
    n_per_state: int,
    rng: np.random.Generator,
) -> MarkovData:
    """`n_per_state` plays at every (h, s) (a generative model): (a, b) ~ μ_h(s) ⊗ ν_h(s), then
    s' ~ P_h(· | s, a, b)."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"rng must be a numpy.random.Generator, got {type(rng).__name__}"
        )
    n = _check_positive_int(n_per_state, "n_per_state")
    H, S, A, B, _ = game.shape
    joint = np.einsum("hsa,hsb->hsab", solution.mu, solution.nu).reshape(H, S, A * B)
    joint = joint / joint.sum(-1, keepdims=True)
    counts = rng.multinomial(n, joint).reshape(H, S, A, B)
    next_counts = rng.multinomial(counts, game.P)
    return MarkovData(counts, next_counts)


@dataclass(frozen=True)
class MarkovEstimate:
    theta: np.ndarray  # (H, d)
    Q: np.ndarray  # (H, S, A, B) recovered soft Q
    V: np.ndarray  # (H + 1, S) plug-in soft values
    P: np.ndarray  # (H, S, A, B, S) estimated transitions
    rank: np.ndarray  # (H,) rank of each step's stacked system


def markov_inverse(
    phi, data: MarkovData, eta, *, smoothing: float = 0.5, P=None, V=None
) -> MarkovEstimate:
    """Recover θ_h backwards from observed plays, with estimated transitions.

    For h = H..1: (1) smoothed policies μ̂_h(s), ν̂_h(s) from the action counts; (2) P̂_h from the
    next-state counts (add-½); (3) Q_h(s) is known to lie in the affine family
    φ_h(s)θ + P̂_h V̂_{h+1}(s), so the stage QRE equations of all states, stacked, are linear in θ:
    Σ_s A_s θ = c_s − A_s[P̂V̂_{h+1}]; θ̂_h is their least-squares solution, Q̂_h = φ_hθ̂_h +
    P̂_hV̂_{h+1}, and the reward r̂_h = Q̂_h − P̂_hV̂_{h+1} = φ_hθ̂_h; (4) V̂_h(s) is the soft value
    of Q̂_h(s) at the observed policies. Errors in V̂_{h+1} and P̂_h enter step h's system.

    `P` (H, S, A, B, S) and `V` (H + 1, S), when given, replace P̂ and V̂_{h+1} in the continuation
    (an oracle that isolates each step's own noise from what the recursion carries back)."""
    phi = np.asarray(phi, dtype=np.float64)
    eta = _check_eta(eta)
    if phi.ndim != 5:
        raise ValueError(f"phi must have shape (H, S, A, B, d), got {phi.shape}")
    H, S, A, B, d = phi.shape
    counts, nxt = np.asarray(data.counts), np.asarray(data.next_counts)
    if counts.shape != (H, S, A, B) or nxt.shape != (H, S, A, B, S):
        raise ValueError(
            f"data must have counts {(H, S, A, B)} and next_counts "
            f"{(H, S, A, B, S)} to fit phi, got {counts.shape} and {nxt.shape}"
        )
    mu = frequencies(counts.sum(3), smoothing)  # (H, S, A)
    nu = frequencies(counts.sum(2), smoothing)  # (H, S, B)
    P_hat = frequencies(nxt, smoothing)  # (H, S, A, B, S)
    if P is not None:
        P = np.asarray(P, dtype=np.float64)
        if P.shape != P_hat.shape:
            raise ValueError(f"P must have shape {P_hat.shape}, got {P.shape}")
    if V is not None:
        V = np.asarray(V, dtype=np.float64)
        if V.shape != (H + 1, S):
            raise ValueError(f"V must have shape {(H + 1, S)}, got {V.shape}")
    theta = np.zeros((H, d))
    Q, Vh = np.zeros((H, S, A, B)), np.zeros((H + 1, S))
    ranks = np.zeros(H, dtype=int)
    for h in reversed(range(H)):
        cont = (P_hat if P is None else P)[h] @ (Vh if V is None else V)[
            h + 1
        ]  # (S, A, B)
        rows = _stage_rows(phi[h], mu[h], nu[h], eta)  # (S, A+B−2, d)
        offset = _stage_rows(cont[..., None], mu[h], nu[h], eta)[..., 0]
        target = _log_odds(mu[h], nu[h]) - offset
        M, t = rows.reshape(-1, d), target.reshape(-1)
        theta[h] = np.linalg.lstsq(M, t, rcond=None)[0]
        ranks[h] = np.linalg.matrix_rank(M)
        Q[h] = phi[h] @ theta[h] + cont
        Vh[h] = soft_value(Q[h], mu[h], nu[h], eta)
    return MarkovEstimate(theta, Q, Vh, P_hat, ranks)


def random_markov_game(
    S: int,
    A: int,
    B: int,
    H: int,
    d: int,
    eta: float,
    rng: np.random.Generator,
    *,
    theta_norm: float = 1.0,
) -> MarkovGame:
    """Gaussian features, Dirichlet(1) transitions, θ_h uniform on the sphere of radius
    `theta_norm`."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"rng must be a numpy.random.Generator, got {type(rng).__name__}"
        )
    S, A, B, H, d = (
        _check_positive_int(v, k)
        for v, k in ((S, "S"), (A, "A"), (B, "B"), (H, "H"), (d, "d"))
    )
    phi = rng.normal(size=(H, S, A, B, d))
    P = rng.dirichlet(np.ones(S), size=(H, S, A, B))
    theta = rng.normal(size=(H, d))
    theta *= theta_norm / np.linalg.norm(theta, axis=1, keepdims=True)
    return MarkovGame(phi, P, theta, eta)


# ---------------------------------------------------------------------------------------------
# peers
# ---------------------------------------------------------------------------------------------
def gambit_qre(Q, eta) -> tuple[np.ndarray, np.ndarray]:
    """The logit QRE at λ = η from `pygambit.qre.logit_solve_lambda`, which traces the principal
    branch of the logit correspondence from λ = 0 (`pygambit.nash.logit_solve` is not this: it
    returns the branch's limit, a Nash equilibrium). Payoffs Q to the row player, −Q to the
    column player."""
    import pygambit

    Q = np.asarray(Q, dtype=np.float64)
    if Q.ndim != 2 or min(Q.shape) < 2:
        raise ValueError(
            f"Q must be an (m, n) payoff matrix with m, n ≥ 2, got shape {Q.shape}"
        )
    eta = _check_eta(eta)
    game = pygambit.Game.from_arrays(Q, -Q)
    profile = pygambit.qre.logit_solve_lambda(game, lam=[eta])[0].profile
    row, col = list(game.players)
    return (
        np.array([float(profile[s]) for s in row.strategies]),
        np.array([float(profile[s]) for s in col.strategies]),
    )


def nash_equilibrium(Q) -> tuple[np.ndarray, np.ndarray]:
    """A Nash equilibrium of the zero-sum game with payoff Q (row player maximises), by nashpy's
    linear program: the η → ∞ limit of the QRE when the equilibrium is unique."""
    import nashpy

    Q = np.asarray(Q, dtype=np.float64)
    if Q.ndim != 2 or min(Q.shape) < 2:
        raise ValueError(
            f"Q must be an (m, n) payoff matrix with m, n ≥ 2, got shape {Q.shape}"
        )
    mu, nu = nashpy.Game(Q).linear_program()
    return np.clip(mu, 0, None) / np.clip(mu, 0, None).sum(), np.clip(
        nu, 0, None
    ) / np.clip(nu, 0, None).sum()


# ---------------------------------------------------------------------------------------------
# experiment protocols: the chapter's sweeps over the number of plays
# ---------------------------------------------------------------------------------------------
def _check_sizes(n_plays) -> np.ndarray:
    sizes = np.asarray(n_plays)
    if (
        sizes.ndim != 1
        or sizes.size < 1
        or not np.issubdtype(sizes.dtype, np.integer)
        or np.any(sizes < 1)
        or np.any(np.diff(sizes) <= 0)
    ):
        raise ValueError(
            "n_plays must be a 1-D increasing sequence of positive integers, "
            f"got {n_plays!r}"
        )
    return sizes.astype(np.int64)


def _check_rngs(rngs, k: int, what: str) -> list:
    rngs = list(rngs)
    if len(rngs) != k:
        raise ValueError(
            f"rngs must hold one generator per {what} ({k}), got {len(rngs)}"
        )
    for r in rngs:
        if not isinstance(r, np.random.Generator):
            raise TypeError(
                f"rngs must hold numpy.random.Generator objects, got {type(r).__name__}"
            )
    return rngs


@dataclass(frozen=True)
class PlaySweep:
    """Estimates from `reps` data sets at each number of plays N (one generator per N).

    estimates (k, reps, d): least squares; diameter (k,): median confidence-set diameter over
    the first `diameter_reps` data sets (NaN when none); mle (k, reps, d) and mle_converged
    (k, reps) when the MLE was fitted, else None."""

    n_plays: np.ndarray
    estimates: np.ndarray
    diameter: np.ndarray
    mle: np.ndarray | None = None
    mle_converged: np.ndarray | None = None

    def errors(self, reference, *, estimator: str = "ls") -> np.ndarray:
        """‖θ̂ − reference‖ per data set, shape (k, reps); estimator "ls" or "mle"."""
        if estimator not in ("ls", "mle"):
            raise ValueError(f"estimator must be 'ls' or 'mle', got {estimator!r}")
        est = self.estimates if estimator == "ls" else self.mle
        if est is None:
            raise ValueError("this sweep fitted no MLE (mle=False)")
        reference = _check_theta(reference, est.shape[-1], "reference")
        return np.linalg.norm(est - reference, axis=-1)

    def median_error(self, reference, *, estimator: str = "ls") -> np.ndarray:
        """Median over data sets of ‖θ̂ − reference‖, shape (k,)."""
        return np.median(self.errors(reference, estimator=estimator), axis=1)


def play_sweep(
    phi,
    mu,
    nu,
    eta,
    n_plays,
    rngs,
    *,
    reps: int,
    delta: float | None = None,
    diameter_reps: int = 0,
    mle: bool = False,
) -> PlaySweep:
    """For each N in `n_plays`: `reps` data sets of N plays from (μ, ν), drawn with that N's
    generator; the least-squares estimate of each, the median diameter of the level-δ confidence
    set over the first `diameter_reps` of them, and (with `mle`) the MLE of each."""
    phi = _check_features(phi)
    eta = _check_eta(eta)
    sizes = _check_sizes(n_plays)
    rngs = _check_rngs(rngs, sizes.size, "number of plays")
    reps = _check_positive_int(reps, "reps")
    if isinstance(diameter_reps, bool) or not isinstance(
        diameter_reps, (int, np.integer)
    ):
        raise ValueError(f"diameter_reps must be an integer, got {diameter_reps!r}")
    if not 0 <= diameter_reps <= reps:
        raise ValueError(
            f"diameter_reps must lie in [0, reps={reps}], got {diameter_reps}"
        )
    if diameter_reps and delta is None:
        raise ValueError("delta is needed for confidence-set diameters")
    d = phi.shape[2]
    est = np.zeros((sizes.size, reps, d))
    diam = np.full(sizes.size, np.nan)
    fits = np.zeros((sizes.size, reps, d)) if mle else None
    ok = np.zeros((sizes.size, reps), dtype=bool) if mle else None
    for j, (N, rng) in enumerate(zip(sizes, rngs)):
        cm, cn = sample_play_counts(mu, nu, int(N), rng, size=reps)
        est[j] = ls_estimate(phi, cm, cn, eta)
        if diameter_reps:
            diam[j] = np.median(
                [
                    confidence_set(phi, cm[i], cn[i], eta, delta).diameter()
                    for i in range(diameter_reps)
                ]
            )
        if mle:
            for i in range(reps):
                f = mle_estimate(phi, cm[i], cn[i], eta)
                fits[j, i], ok[j, i] = f.theta, f.converged
    return PlaySweep(sizes, est, diam, fits, ok)


def null_shift_changes(phi, theta, eta, steps, rng) -> tuple[np.ndarray, np.ndarray]:
    """Move θ by each length in `steps` along a random direction of null(A(μ*, ν*)) and along a
    random direction of ℝ^d (drawn in that order per step), re-solve the QRE, and return the
    largest change of any equilibrium probability for each: (along null(A), random), each of
    shape (len(steps),). Raises when θ is identified (null(A) is empty)."""
    phi = _check_features(phi)
    theta = _check_theta(theta, phi.shape[2])
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"rng must be a numpy.random.Generator, got {type(rng).__name__}"
        )
    steps = np.asarray(steps, dtype=np.float64)
    if steps.ndim != 1 or steps.size < 1 or np.any(steps <= 0):
        raise ValueError(
            f"steps must be a 1-D sequence of positive lengths, got {steps}"
        )
    eq = qre(phi, theta, eta)
    A, _ = inverse_system(phi, eq.mu, eq.nu, eta)
    basis = null_space(A)
    if basis.shape[1] == 0:
        raise ValueError(
            "theta is identified here: null(A) is empty, nothing to move along"
        )

    def change(v, t):
        moved = qre(phi, theta + t * v / np.linalg.norm(v), eta)
        return max(np.abs(moved.mu - eq.mu).max(), np.abs(moved.nu - eq.nu).max())

    along, rand = np.zeros(steps.size), np.zeros(steps.size)
    for k, t in enumerate(steps):
        v_null = basis @ rng.normal(size=basis.shape[1])
        v_rand = rng.normal(size=theta.size)
        along[k], rand[k] = change(v_null, t), change(v_rand, t)
    return along, rand


def coverage_sweep(
    m: int, n: int, d: int, eta, n_plays, delta: float, rngs
) -> np.ndarray:
    """Coverage study: per generator, a new random game (`random_matrix_game`) and then one data
    set at every N in `n_plays`, all drawn from that generator; whether the level-δ confidence
    set holds the true θ. Returns a boolean array (len(rngs), len(n_plays))."""
    eta, delta = _check_eta(eta), _check_delta(delta)
    sizes = _check_sizes(n_plays)
    rngs = list(rngs)
    if not rngs:
        raise ValueError("rngs must hold at least one generator (one per seed)")
    covered = np.zeros((len(rngs), sizes.size), dtype=bool)
    for i, rng in enumerate(rngs):
        phi, theta = random_matrix_game(m, n, d, rng)
        eq = qre(phi, theta, eta)
        for j, N in enumerate(sizes):
            cm, cn = sample_play_counts(eq.mu, eq.nu, int(N), rng)
            covered[i, j] = coverage_pvalue(phi, cm, cn, eta, theta) >= delta
    return covered


@dataclass(frozen=True)
class MarkovSweep:
    """Per-step reward RMS errors (over (s, a, b)) of `markov_inverse`.

    errors (k, reps, H): estimated transitions and values, at each N; oracle (reps, H): the
    same data sets at the largest N, solved with the true P and V in the continuation."""

    n_plays: np.ndarray
    errors: np.ndarray
    oracle: np.ndarray

    def median_error(self) -> np.ndarray:
        """Median over data sets, shape (H, k)."""
        return np.median(self.errors, axis=1).T

    def median_oracle(self) -> np.ndarray:
        """Median over data sets of the oracle-continuation error at the largest N, (H,)."""
        return np.median(self.oracle, axis=0)


def markov_sweep(game: MarkovGame, n_plays, rngs, *, reps: int) -> MarkovSweep:
    """For each N in `n_plays`: `reps` data sets of N plays at every (h, s), drawn with that N's
    generator, recovered by `markov_inverse`; at the largest N each data set is also solved with
    the true continuation (P, V) to isolate each step's own noise."""
    if not isinstance(game, MarkovGame):
        raise TypeError(f"game must be a MarkovGame, got {type(game).__name__}")
    sizes = _check_sizes(n_plays)
    rngs = _check_rngs(rngs, sizes.size, "number of plays")
    reps = _check_positive_int(reps, "reps")
    sol, r_true = solve_markov_qre(game), game.rewards()
    H = game.shape[0]
    errs, oracle = np.zeros((sizes.size, reps, H)), np.zeros((reps, H))

    def rms(est):
        return np.sqrt(np.mean((game.rewards(est.theta) - r_true) ** 2, axis=(1, 2, 3)))

    for j, (N, rng) in enumerate(zip(sizes, rngs)):
        for i in range(reps):
            data = sample_markov_data(game, sol, int(N), rng)
            errs[j, i] = rms(markov_inverse(game.phi, data, game.eta))
            if j == sizes.size - 1:
                oracle[i] = rms(
                    markov_inverse(game.phi, data, game.eta, P=game.P, V=sol.V)
                )
    return MarkovSweep(sizes, errs, oracle)
