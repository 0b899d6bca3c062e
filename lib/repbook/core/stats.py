"""Statistics the chapters share: exact rank correlation (a floating-point residue must not decide a
verdict) and the summary of paired per-seed differences that `paired_gain(k="t")` judges."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
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


def t_quantile(n: int) -> float:
    """Student's 97.5 % quantile on n − 1 degrees of freedom: the multiple of the standard error
    that gives a two-sided 95 % interval for the mean of n values (n ≥ 2)."""
    from scipy import stats

    if isinstance(n, bool) or int(n) != n or n < 2:
        raise ValueError(f"n must be an int ≥ 2, got {n!r}")
    return float(stats.t.ppf(0.975, int(n) - 1))


@dataclass(frozen=True)
class PairedSummary:
    """Paired per-seed differences summarised as `paired_gain(k="t")` reads them."""

    mean: float
    se: float
    half: float  # t · SE
    n: int
    positive: int  # how many differences are > 0

    @property
    def reading(self) -> str:
        """'above 0', 'below 0' or 'within the noise' (the interval spans 0)."""
        if self.mean - self.half > 0:
            return "above 0"
        if self.mean + self.half < 0:
            return "below 0"
        return "within the noise"


def paired_summary(diffs: Sequence[float]) -> PairedSummary:
    """Mean, standard error (sd / √n), t·SE half-width and sign count of paired differences."""
    x = np.asarray(diffs, dtype=float).ravel()
    if x.size < 2:
        raise ValueError(f"paired differences need at least 2 values, got {x.size}")
    se = float(x.std(ddof=1) / math.sqrt(x.size))
    return PairedSummary(
        float(x.mean()), se, t_quantile(x.size) * se, int(x.size), int((x > 0).sum())
    )


def gain_line(
    name: str, diffs: Sequence[float], *, unit: str = "seeds", digits: int = 4
) -> str:
    """One printed line for paired differences: mean ± t·SE, how many, how many positive."""
    s = paired_summary(diffs)
    return (
        f"{name}: {s.mean:+.{digits}f} ± {s.half:.{digits}f} (t·SE, {s.n} {unit}; "
        f"positive on {s.positive} of {s.n})"
    )
