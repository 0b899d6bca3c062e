"""Summaries of D(Δt) curves and of their seeds: the saturation time and where it sits
(`saturation_time`, `plateau_window`, `still_rising`), the slopes (`trend_slope`,
`early_slope`, `layer_slopes`), how far a curve still moves at its end
(`plateau_drift`), and the correlations and paired band the chapter reads (`spearman`,
`pearson`, `partial_r`, `t_band`). A curve's value i is D at Δt = i + 1.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from repbook.core import checks


# --------------------------------------------------------------------------------------
# the saturation phase
def saturation_time(
    curve, *, fraction: float = 0.9, tail: float = 1 / 3, interpolate: bool = False
) -> float:
    """When a D(Δt) curve (curve[i] is D at Δt = i + 1) first reaches `fraction` of its
    plateau, the plateau being the mean of the last `tail` share of the curve.

    With `interpolate=False` the first Δt (an integer) whose value reaches the level.
    With `interpolate=True` the crossing on a continuous scale: the curve is read as
    piecewise linear between its points and as 0 at Δt = 0 (a snapshot against itself
    has D = 0), and the first point where that line reaches the level is returned, a
    float in (0, first integer Δt]. It needs a curve ≥ 0 with a positive plateau."""
    c = np.asarray(curve, dtype=np.float64)
    if c.ndim != 1 or c.size < 3:
        raise ValueError(
            f"curve must be 1-D with at least 3 points, got shape {c.shape}"
        )
    if not np.all(np.isfinite(c)):
        raise ValueError("curve must be finite")
    checks.number("fraction", fraction, above=0.0, at_most=1.0)
    checks.number("tail", tail, above=0.0, below=1.0)
    m = max(1, int(round(tail * c.size)))
    level = fraction * c[-m:].mean()
    i = int(np.argmax(c >= level))
    if not interpolate:
        return i + 1
    if np.any(c < 0) or not level > 0:
        raise ValueError(
            "an interpolated saturation time needs a curve ≥ 0 with a positive plateau"
        )
    before = 0.0 if i == 0 else c[i - 1]  # D at Δt = i
    return float(i + (level - before) / (c[i] - before))


# --------------------------------------------------------------------------------------
# curve summaries
def _curve(curve, lo: int) -> np.ndarray:
    c = np.asarray(curve, dtype=np.float64)
    if c.ndim != 1 or c.size < lo:
        raise ValueError(
            f"curve must be 1-D with at least {lo} points, got shape {c.shape}"
        )
    if not np.all(np.isfinite(c)):
        raise ValueError("curve must be finite")
    return c


def trend_slope(curve) -> float:
    """Least-squares slope of curve[i] against Δt = i + 1 (per task learned since)."""
    c = _curve(curve, 2)
    x = np.arange(1, c.size + 1, dtype=np.float64)
    x -= x.mean()
    return float(np.dot(x, c - c.mean()) / np.dot(x, x))


def plateau_drift(curve, *, tail: float = 1 / 3) -> float:
    """How far the curve still moves over its last `tail` share, relative to its level
    there: the least-squares slope over those m points times their span m − 1 in Δt,
    divided by their mean. Near 0 on a plateau. For a straight line through the origin
    sampled at Δt = 1..n it is (m − 1) / (n − (m − 1)/2): 4/13 ≈ 0.31 for n = 15 (m =
    5), 9/26.5 ≈ 0.34 for n = 31 (m = 10), tending to 0.4 at large n with tail = 1/3."""
    c = _curve(curve, 3)
    checks.number("tail", tail, above=0.0, below=1.0)
    m = max(2, int(round(tail * c.size)))
    last = c[-m:]
    if last.mean() <= 0:
        raise ValueError("the curve's last points must have a positive mean")
    return trend_slope(last) * (m - 1) / float(last.mean())


def early_slope(curve, *, head: float = 1 / 3) -> float:
    """Least-squares slope over the first `head` share of a D(Δt) curve (curve[i] at
    Δt = i + 1; at least 2 points): how fast it rises in its forgetting phase."""
    c = _curve(curve, 2)
    checks.number("head", head, above=0.0, at_most=1.0)
    return trend_slope(c[: max(2, int(round(head * c.size)))])


def layer_slopes(tau) -> np.ndarray:
    """Each row's least-squares slope of τ_k against the layer index k = 1..K.

    `tau` is (seeds × K) (or one row of K ≥ 2 values): one slope per seed, negative
    when τ falls with depth."""
    t = np.asarray(tau, dtype=np.float64)
    if t.ndim == 1:
        t = t[None, :]
    if t.ndim != 2 or t.shape[1] < 2 or t.shape[0] < 1:
        raise ValueError(
            f"tau must be (seeds × layers) with at least 2 layers, got shape {t.shape}"
        )
    return np.array([trend_slope(row) for row in t])


def plateau_window(n_points: int, *, tail: float = 1 / 3) -> tuple[int, int]:
    """The Δt range (first, last) whose mean `saturation_time` takes as the plateau of
    a curve of `n_points` values (Δt = 1..n_points)."""
    n = checks.integer("n_points", n_points, at_least=3)
    checks.number("tail", tail, above=0.0, below=1.0)
    m = max(1, int(round(tail * n)))
    return n - m + 1, n


def still_rising(tau, n_points: int, *, tail: float = 1 / 3) -> np.ndarray:
    """True where an interpolated saturation time lies past Δt = first − 1 of the
    plateau window: the curve first reached its level at a point of the window over
    which that level is averaged, so it was still rising there."""
    first, _ = plateau_window(n_points, tail=tail)
    t = np.asarray(tau, dtype=np.float64)
    if not np.all(np.isfinite(t)):
        raise ValueError("tau must be finite")
    return t > first - 1


# --------------------------------------------------------------------------------------
# correlations and the paired band
def spearman(x, y) -> float:
    """Spearman's ρ, rounded to 12 decimals (one swap of four ranks is exactly 0.8, not
    0.7999…); NaN (no warning) when either side is constant."""
    rx, ry = stats.rankdata(x), stats.rankdata(y)
    if np.std(rx) == 0 or np.std(ry) == 0:
        return float("nan")
    return round(float(np.corrcoef(rx, ry)[0, 1]), 12)


def pearson(x, y) -> float:
    """Pearson's r; NaN (no warning) when either side is constant."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    if np.std(x) == 0 or np.std(y) == 0:
        return float("nan")
    return float(stats.pearsonr(x, y)[0])


def partial_r(x, y, z) -> float:
    """Pearson r of x and y after removing from each its least-squares line in z."""
    Z = np.column_stack([np.ones(len(z)), np.asarray(z, float)])

    def resid(v):
        v = np.asarray(v, float)
        return v - Z @ np.linalg.lstsq(Z, v, rcond=None)[0]

    return pearson(resid(x), resid(y))


def t_band(x) -> tuple[float, float, str]:
    """(mean, half-width t·SE, "above 0" | "below 0" | "spans 0") of per-seed gains, as
    `paired_gain` with k="t" reads them (t: Student's 97.5 % quantile on n − 1 d.f.)."""
    x = np.asarray(x, float)
    m = float(x.mean())
    h = float(stats.t.ppf(0.975, x.size - 1) * x.std(ddof=1) / np.sqrt(x.size))
    return m, h, "above 0" if m - h > 0 else "below 0" if m + h <= 0 else "spans 0"
