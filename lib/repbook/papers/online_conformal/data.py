"""Data: autoregressions (and their exact conditional coverage), bounded streams, forecaster
residuals and their normalisation."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy import stats
from scipy.signal import lfilter

from repbook.core import checks

from .tracking import _check_alpha, _check_scores


def ar_series(
    coef, T: int, rng: np.random.Generator, *, sigma: float = 1.0, burn_in: int = 1000
) -> np.ndarray:
    """y_t = Σ_j coef_j y_{t−j} + σ ε_t with ε_t ~ N(0, 1), after `burn_in` discarded rounds."""
    c = np.atleast_1d(np.asarray(coef, dtype=np.float64))
    if c.ndim != 1 or c.size == 0 or not np.all(np.isfinite(c)):
        raise ValueError(
            f"coef must be a non-empty 1-D array of finite numbers, got {coef!r}"
        )
    if np.any(np.abs(np.roots(np.r_[1.0, -c])) >= 1):
        raise ValueError(f"coef {c.tolist()} gives a non-stationary autoregression")
    checks.integer("T", T, at_least=1)
    checks.generator("rng", rng)
    eps = sigma * rng.standard_normal(int(T) + int(burn_in))
    return lfilter([1.0], np.r_[1.0, -c], eps)[int(burn_in) :]


def ar_conditional_mean(y, coef) -> np.ndarray:
    """μ_t = Σ_j coef_j y_{t−j} for t = 1..T (NaN where a lag falls before the series)."""
    y = _check_scores(y)
    c = np.atleast_1d(np.asarray(coef, dtype=np.float64))
    mu = np.full(y.size, np.nan)
    k = c.size
    if y.size > k:
        mu[k:] = sum(c[j] * y[k - 1 - j : y.size - 1 - j] for j in range(k))
    return mu


def ar_conditional_coverage(y, q, coef, sigma: float = 1.0) -> np.ndarray:
    """P(y_t ≤ q_t | past) = Φ((q_t − μ_t)/σ) for a Gaussian autoregression (NaN for the first lags)."""
    q = np.asarray(q, dtype=np.float64)
    mu = ar_conditional_mean(y, coef)
    return stats.norm.cdf((q - mu) / sigma)


def ar1_set_size_reduction(phi) -> np.ndarray:
    """1 − √(1 − φ²): how much smaller the conditional (1−α)-quantile of an AR(1) is, on average,
    than its marginal one (and how much lower its pinball loss is), for any α < 1/2."""
    phi = np.asarray(phi, dtype=np.float64)
    if np.any(np.abs(phi) >= 1):
        raise ValueError(f"|phi| must be < 1 for a stationary AR(1), got {phi!r}")
    return 1.0 - np.sqrt(1.0 - phi**2)


def regime_switch_stream(
    T: int, rng: np.random.Generator, *, mean_length: float = 2000.0, bound: float = 1.0
) -> np.ndarray:
    """Bounded scores in [0, bound] whose law switches at random times (geometric run lengths) among
    uniform laws on [0, 0.2], [0.4, 0.6] and [0.8, 1] (times `bound`) and a two-point law {0, 1}."""
    checks.integer("T", T, at_least=1)
    out = np.empty(int(T))
    t = 0
    while t < T:
        n = int(rng.geometric(1.0 / mean_length))
        kind = int(rng.integers(4))
        if kind < 3:
            lo = (0.0, 0.4, 0.8)[kind]
            seg = lo + 0.2 * rng.random(n)
        else:
            seg = (rng.random(n) < 0.5).astype(float)
        out[t : t + n] = bound * seg[: T - t]
        t += n
    return out


def sawtooth_stream(T: int, *, period: int = 1000, bound: float = 1.0) -> np.ndarray:
    """s_t = bound·(t mod period)/period: a slow ramp that drops back to 0."""
    checks.integer("T", T, at_least=1)
    return bound * (np.arange(int(T)) % period) / period


def miss_when_possible(bound: float = 1.0) -> Callable[[int, float], float]:
    """An adversary on [0, bound]: the top score whenever it lies above q_t (a miss), else 0."""
    return lambda t, q: bound if q < bound else 0.0


def delayed_moving_average(y, *, delay: int, window: int) -> np.ndarray:
    """Forecast ŷ_t = mean(y_{t−delay}, …, y_{t−delay+window−1}) for t = delay..T−1."""
    y = _check_scores(y)
    if not (
        isinstance(delay, (int, np.integer))
        and isinstance(window, (int, np.integer))
        and 1 <= window <= delay < y.size
    ):
        raise ValueError(
            f"need 1 ≤ window ≤ delay < len(y); got window={window!r}, "
            f"delay={delay!r}, len(y)={y.size}"
        )
    c = np.r_[0.0, np.cumsum(y)]
    starts = np.arange(y.size - delay)
    return (c[starts + window] - c[starts]) / window


def lag1_autocorrelation(x) -> float:
    """Sample lag-1 autocorrelation."""
    x = _check_scores(x)
    if x.size < 3:
        raise ValueError(f"need at least 3 values, got {x.size}")
    e = x - x.mean()
    return float((e[1:] @ e[:-1]) / (e @ e))


def split_conformal_threshold(calibration, alpha: float) -> float:
    """The split-conformal threshold of a calibration set of n scores: its ⌈(1 − α)(n + 1)⌉-th
    smallest score (the largest when that rank exceeds n). Held fixed, it has no guarantee on a
    stream whose law changes or reacts to it."""
    alpha = _check_alpha(alpha)
    c = np.sort(_check_scores(calibration))
    r = math.ceil((1.0 - alpha) * (c.size + 1))
    return float(c[min(r, c.size) - 1])


def best_constant_gap(scores, alpha: float) -> float:
    """min over every constant threshold q of |mean(s_t > q) − α| on a fixed stream: how close
    the best constant in hindsight comes to miscoverage α (0 when some q reaches it exactly).
    The achievable miscoverages are 1 (q below every score) and #{s > v}/T at each distinct v."""
    alpha = _check_alpha(alpha)
    s = _check_scores(scores)
    _, counts = np.unique(s, return_counts=True)
    miss = np.r_[1.0, 1.0 - np.cumsum(counts) / s.size]
    return float(np.abs(miss - alpha).min())


def minmax_normalise(scores, n_val: int) -> np.ndarray:
    """(s − m)/(M − m) with m, M the smallest and largest of the first `n_val` scores (the
    validation part): one constant shift and scale, known before the test part starts."""
    s = _check_scores(scores)
    if isinstance(n_val, bool) or not isinstance(n_val, (int, np.integer)):
        raise ValueError(f"n_val must be an int, got {n_val!r}")
    if not 2 <= n_val <= s.size:
        raise ValueError(f"n_val must lie in [2, {s.size}], got {n_val!r}")
    lo, hi = float(s[:n_val].min()), float(s[:n_val].max())
    if not hi > lo:
        raise ValueError("the validation part is constant: nothing to normalise by")
    return (s - lo) / (hi - lo)


def offline_series() -> dict:
    """Claim 4's three real series that ship inside `pmdarima`, as {name: (scores, validation
    fraction)}: electricity (`load_taylor`, half-hourly demand, forecast by the mean of the 24
    half-hours that started one day earlier; 25 %), MSFT (`load_msft`, daily close, forecast
    by the previous close, the last 3,000 days; 33 %) and sunspots (`load_sunspots`, monthly,
    forecast by the previous month; 25 %). Scores are |y − ŷ|."""
    from pmdarima.datasets import load_msft, load_sunspots, load_taylor

    y_el = load_taylor()
    s_el = np.abs(y_el[48:] - delayed_moving_average(y_el, delay=48, window=24))
    close = load_msft()["Close"].to_numpy(dtype=float)
    s_ms = np.abs(np.diff(close))[-3000:]
    s_sun = np.abs(np.diff(np.asarray(load_sunspots(), dtype=float)))
    return {
        "electricity (Taylor)": (s_el, 0.25),
        "MSFT": (s_ms, 0.33),
        "sunspots": (s_sun, 0.25),
    }
