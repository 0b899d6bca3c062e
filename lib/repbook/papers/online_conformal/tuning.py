"""Metrics (pinball loss, coverage), the choice of a configuration, the grid searches of each
method, and the Newey–West (HAC) test of loss differences."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from repbook.core import checks

from .baselines import _pi_core, aci
from .tracking import (
    DECAY,
    _check_alpha,
    _check_p,
    _check_positive,
    _check_schedule,
    _check_scores,
    _lqt_numpy,
    _schedule_factors,
    default_theta0,
    lqt,
    sqt,
)


def pinball_loss(scores, q, alpha: float) -> np.ndarray:
    """Per-round pinball loss ρ_{1−α}(s_t − q_t) = max((1−α)(s−q), α(q−s)); q may be (K, T)."""
    alpha = _check_alpha(alpha)
    s = _check_scores(scores)
    q = np.asarray(q, dtype=np.float64)
    if q.shape[-1] != s.size:
        raise ValueError(
            f"q must end in the number of scores {s.size}, got shape {q.shape}"
        )
    u = s - q
    with np.errstate(invalid="ignore"):
        return np.maximum((1 - alpha) * u, -alpha * u)


def coverage(scores, q):
    """Fraction of rounds with s_t ≤ q_t (float, or one per row of a (K, T) q)."""
    s = _check_scores(scores)
    q = np.asarray(q, dtype=np.float64)
    if q.shape[-1] != s.size:
        raise ValueError(
            f"q must end in the number of scores {s.size}, got shape {q.shape}"
        )
    out = np.mean(s <= q, axis=-1)
    return float(out) if q.ndim == 1 else out


def miscoverage_path(scores, q) -> np.ndarray:
    """Running miscoverage (1/t) Σ_{i≤t} err_i for t = 1..T (q 1-D)."""
    s = _check_scores(scores)
    q = np.asarray(q, dtype=np.float64)
    if q.shape != s.shape:
        raise ValueError(f"q must have the shape of scores {s.shape}, got {q.shape}")
    return np.cumsum(s > q) / np.arange(1, s.size + 1)


def select_config(scores, q, alpha: float, tol: float = 0.01) -> int:
    """Row of q (K, T) with the lowest mean pinball loss among those whose coverage is within `tol`
    of 1 − α; the lowest loss overall when none is. Non-finite thresholds count as infinite loss."""
    q = np.asarray(q, dtype=np.float64)
    if q.ndim != 2 or q.shape[0] == 0:
        raise ValueError(
            f"q must be 2-D (configurations, T) with at least one row, got {q.shape}"
        )
    loss = pinball_loss(scores, q, alpha).mean(axis=1)
    loss = np.where(np.isfinite(loss) & np.all(np.isfinite(q), axis=1), loss, np.inf)
    return _choose(loss, coverage(scores, q), alpha, tol)


def _choose(loss: np.ndarray, cov: np.ndarray, alpha: float, tol: float) -> int:
    ok = (np.abs(cov - (1 - alpha)) <= tol) & np.isfinite(loss)
    if np.any(ok):
        return int(np.flatnonzero(ok)[np.argmin(loss[ok])])
    return int(np.argmin(loss))


def _streams(streams) -> np.ndarray:
    S = np.asarray(streams, dtype=np.float64)
    if S.ndim == 1:
        S = S[None]
    return _check_scores(S, allow_2d=True)


@dataclass(frozen=True)
class Tuned:
    """The configuration `select_config` chose for each stream, and its thresholds on that stream."""

    params: list[dict]
    q: np.ndarray  # (streams, T)


def tune_lqt(
    streams,
    *,
    alpha: float,
    lrs,
    biases,
    ps,
    schedule: str = "fixed",
    tol: float = 0.01,
) -> Tuned:
    """Grid search of LQT over lr × bias × p on each stream (1-D, or 2-D of equal-length streams);
    all configurations of all streams run together. Selection rule: `select_config`."""
    alpha = _check_alpha(alpha)
    S = _streams(streams)
    lrs, biases = (
        _check_positive("lrs", lrs).ravel(),
        _check_positive("biases", biases).ravel(),
    )
    factors = _schedule_factors(S.shape[1], _check_schedule(schedule), DECAY)
    grid_lr, grid_b = (a.ravel() for a in np.meshgrid(lrs, biases, indexing="ij"))
    n_cfg, n_s = grid_lr.size, S.shape[0]
    params, losses, covs = [], [], []
    for p in ps:
        p = _check_p(p)
        rows = np.repeat(np.arange(n_s), n_cfg)
        th0 = np.broadcast_to(default_theta0(p), (rows.size, p + 1))
        loss, cov, _, _ = _lqt_numpy(
            S,
            alpha,
            p,
            np.tile(grid_lr, n_s),
            np.tile(grid_b, n_s),
            factors,
            th0,
            None,
            rows=rows,
            metrics_only=True,
        )
        params += [
            {"p": p, "lr": float(grid_lr[c]), "bias": float(grid_b[c])}
            for c in range(n_cfg)
        ]
        losses.append(loss.reshape(n_s, n_cfg))
        covs.append(cov.reshape(n_s, n_cfg))
    losses, covs = np.concatenate(losses, axis=1), np.concatenate(covs, axis=1)
    chosen = [params[_choose(losses[i], covs[i], alpha, tol)] for i in range(n_s)]
    q = np.stack(
        [lqt(S[i], alpha=alpha, **chosen[i], schedule=schedule).q for i in range(n_s)]
    )
    return Tuned(chosen, q)


def tune_sqt(
    streams,
    *,
    alpha: float,
    lrs,
    schedule: str = "fixed",
    q0: float = 1.0,
    tol: float = 0.01,
) -> Tuned:
    """Grid search of SQT's learning rate on each stream (see `tune_lqt`)."""
    alpha = _check_alpha(alpha)
    S = _streams(streams)
    lrs = _check_positive("lrs", lrs).ravel()
    factors = _schedule_factors(S.shape[1], _check_schedule(schedule), DECAY)
    rows = np.repeat(np.arange(S.shape[0]), lrs.size)
    loss, cov, _, _ = _lqt_numpy(
        S,
        alpha,
        0,
        np.tile(lrs, S.shape[0]),
        np.ones(rows.size),
        factors,
        np.full((rows.size, 1), float(q0)),
        None,
        rows=rows,
        metrics_only=True,
    )
    loss, cov = loss.reshape(S.shape[0], -1), cov.reshape(S.shape[0], -1)
    chosen = [
        {"lr": float(lrs[_choose(loss[i], cov[i], alpha, tol)])}
        for i in range(S.shape[0])
    ]
    q = np.stack(
        [
            sqt(S[i], alpha=alpha, lr=c["lr"], schedule=schedule, q0=q0).q
            for i, c in enumerate(chosen)
        ]
    )
    return Tuned(chosen, q)


def tune_aci(streams, *, alpha: float, gammas, tol: float = 0.01) -> Tuned:
    """Grid search of ACI's γ on each stream (see `tune_lqt`)."""
    S = _streams(streams)
    gammas = _check_positive("gammas", gammas).ravel()
    params, best = [], []
    for s in S:
        q = aci(s, alpha=alpha, gamma=gammas)
        k = select_config(s, q, alpha, tol)
        params.append({"gamma": float(gammas[k])})
        best.append(q[k])
    return Tuned(params, np.stack(best))


def tune_pi(
    streams, *, alpha: float, lrs, c_sats, k_is, window: int = 20, tol: float = 0.01
) -> Tuned:
    """Grid search of conformal PI over lr × c_sat × k_i on each stream (see `tune_lqt`). `k_is`
    is one grid for all streams, or one grid per stream (2-D, streams × grid)."""
    alpha = _check_alpha(alpha)
    S = _streams(streams)
    n_s = S.shape[0]
    lrs, c_sats = (
        _check_positive("lrs", lrs).ravel(),
        _check_positive("c_sats", c_sats).ravel(),
    )
    ki = np.asarray(k_is, dtype=np.float64)
    if ki.ndim not in (1, 2) or (ki.ndim == 2 and ki.shape[0] != n_s):
        raise ValueError(
            f"k_is must be one grid (1-D) or one grid per stream ({n_s} rows), got "
            f"shape {ki.shape}"
        )
    ki = np.broadcast_to(ki, (n_s, ki.shape[-1]))
    _check_positive("k_is", ki.ravel())
    g_lr, g_cs, g_j = (
        a.ravel()
        for a in np.meshgrid(lrs, c_sats, np.arange(ki.shape[1]), indexing="ij")
    )
    n_cfg = g_lr.size
    rows = np.repeat(np.arange(n_s), n_cfg)
    ki_k = ki[rows, np.tile(g_j, n_s)]
    loss, cov = _pi_core(
        S,
        rows,
        alpha,
        np.tile(g_lr, n_s),
        np.tile(g_cs, n_s),
        ki_k,
        window,
        0.0,
        metrics_only=True,
    )
    loss, cov = loss.reshape(n_s, n_cfg), cov.reshape(n_s, n_cfg)
    ks = [_choose(loss[i], cov[i], alpha, tol) for i in range(n_s)]
    chosen = [
        {"lr": float(g_lr[k]), "c_sat": float(g_cs[k]), "k_i": float(ki[i, g_j[k]])}
        for i, k in enumerate(ks)
    ]
    q = _pi_core(
        S,
        np.arange(n_s),
        alpha,
        np.array([c["lr"] for c in chosen]),
        np.array([c["c_sat"] for c in chosen]),
        np.array([c["k_i"] for c in chosen]),
        window,
        0.0,
    )
    return Tuned(chosen, q)


@dataclass(frozen=True)
class HACTest:
    """A one-sample t-test of mean(d) = 0 against mean(d) > 0 with a Newey–West standard error."""

    mean: float
    se: float
    t: float
    p_greater: float
    lags: int


def newey_west_test(d, lags: int | None = None) -> HACTest:
    """Test mean(d) > 0 for a dependent series d (e.g. per-round loss differences).

    The standard error is statsmodels' HAC estimate for a regression on a constant: Bartlett kernel
    with `lags` lags (default ⌊4(T/100)^(2/9)⌋), no small-sample correction; normal p-value.
    """
    import statsmodels.api as sm

    d = _check_scores(d)
    T = d.size
    if T < 2:
        raise ValueError(f"d needs at least 2 values, got {T}")
    if lags is None:
        lags = int(math.floor(4 * (T / 100) ** (2 / 9)))
    checks.integer("lags", lags, at_least=0, at_most=T - 1)
    fit = sm.OLS(d, np.ones(T)).fit(
        cov_type="HAC", cov_kwds={"maxlags": int(lags), "use_correction": False}
    )
    se = float(fit.bse[0])
    mean = float(d.mean())
    if not se > 0:
        t = math.inf if mean > 0 else (-math.inf if mean < 0 else 0.0)
    else:
        t = mean / se
    return HACTest(mean, se, float(t), float(stats.norm.sf(t)), int(lags))
