"""The inverse problem: the linear system A(μ, ν)θ = c(μ, ν), least squares on sampled plays,
the delta method and its generalised χ² (Imhof), the confidence set, and the maximum-likelihood
estimator."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize
from scipy.stats import chi2

from repbook.core import checks

from .equilibrium import (
    _check_counts,
    _check_features,
    _check_policy,
    _check_theta,
    _qre_system,
    solve_qre,
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
    eta = checks.number("eta", eta, above=0.0)
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
    checks.number("smoothing", smoothing, at_least=0.0)
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
    checks.generator("rng", rng)
    n_plays = checks.integer("n_plays", n_plays, at_least=1)
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
    eta = checks.number("eta", eta, above=0.0)
    m, n, d = phi.shape
    mu, nu = _check_policy(mu, m, "mu"), _check_policy(nu, n, "nu")
    Q = phi @ _check_theta(theta, d)
    n_plays = checks.integer("n_plays", n_plays, at_least=1)
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
    checks.number("q", q, above=0.0, below=1.0)
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


def _plugin(phi, counts_mu, counts_nu, eta, smoothing):
    phi = _check_features(phi)
    eta = checks.number("eta", eta, above=0.0)
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
    delta = checks.number("delta", delta, above=0.0, below=1.0)
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
    eta = checks.number("eta", eta, above=0.0)
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
