"""Statistics the chapters share, where a floating-point residue must not decide a verdict."""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np


def spearman_rho(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's ρ between two series, exact where the ranks have no ties.

    Without ties ρ = 1 − 6·Σd²/(n(n² − 1)) is a ratio of integers, computed here as one, so a
    criterion such as ρ ≤ −0.8 on four points (one adjacent swap: exactly −0.8) is not decided by
    a floating-point residue of the Pearson-on-ranks route. With ties: Pearson's r of the average
    ranks. NaN (no verdict can pass) when either series is constant."""
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if a.shape != b.shape or a.ndim != 1 or a.size < 2:
        raise ValueError(
            f"x and y must be 1-D of one length ≥ 2, got {a.shape} and {b.shape}"
        )
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise ValueError("x and y must be finite")
    if np.ptp(a) == 0 or np.ptp(b) == 0:
        return math.nan
    from scipy.stats import rankdata

    ra, rb = rankdata(a), rankdata(b)
    n = a.size
    if len(set(a.tolist())) == n and len(set(b.tolist())) == n:
        d2 = int(round(float(((ra - rb) ** 2).sum())))
        den = n * (n * n - 1)
        return float(Fraction(den - 6 * d2, den))
    return float(np.corrcoef(ra, rb)[0, 1])
