"""Claim 2's reading: the coverage conditional on the past of trackers on AR(p) series, whose
conditional quantile is linear in the past scores (`ar_conditional_coverage`), summarised
over seeds and over rounds."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .data import ar_conditional_coverage
from .tuning import coverage


def conditional_coverages(Y, Q, coef) -> np.ndarray:
    """P(s_t ≤ q_t | past) per seed and round: Y and Q are (seeds, T) series and thresholds."""
    Y, Q = np.asarray(Y, dtype=np.float64), np.asarray(Q, dtype=np.float64)
    if Y.ndim != 2 or Y.shape != Q.shape:
        raise ValueError(
            f"Y and Q must be (seeds, T) of one shape, got {Y.shape} and {Q.shape}"
        )
    return np.stack([ar_conditional_coverage(Y[k], Q[k], coef) for k in range(len(Y))])


def conditional_summary(
    Y,
    runs: Mapping,
    cond_cov: Mapping[str, np.ndarray],
    theta_star,
    *,
    alpha: float,
    rounds: slice,
) -> pd.DataFrame:
    """Claim 2's table, one row per method (`runs`: name → TrackerRun on the seeds of Y): the
    largest final ‖θ − θ*‖ over seeds (for trackers with θ* 's dimension), the mean over seeds
    and `rounds` of |P(cover | past) − (1 − α)|, and the smallest and largest marginal
    coverage over seeds."""
    Y = np.asarray(Y, dtype=np.float64)
    theta_star = np.asarray(theta_star, dtype=np.float64)
    rows = []
    for name, r in runs.items():
        cc = cond_cov[name]
        cover = [coverage(Y[k], r.q[k]) for k in range(len(Y))]
        rows.append(
            {
                "method": name,
                "final ‖θ − θ*‖ (max over seeds)": (
                    np.linalg.norm(r.theta - theta_star, axis=1).max()
                    if r.theta.shape[1] == theta_star.size
                    else np.nan
                ),
                "conditional gap (mean)": np.mean(np.abs(cc[:, rounds] - (1 - alpha))),
                "marginal coverage min": min(cover),
                "marginal coverage max": max(cover),
            }
        )
    return pd.DataFrame(rows).set_index("method")


def gap_drop(cond_cov, *, alpha: float, early: slice, late: slice) -> np.ndarray:
    """Per seed: the mean |P(cover | past) − (1 − α)| over the `early` rounds minus that over
    the `late` rounds (> 0: the gap shrinks), the paired drop claim 2's "tends to" is read on."""
    gap = np.abs(np.asarray(cond_cov, dtype=np.float64) - (1 - alpha))
    if gap.ndim != 2:
        raise ValueError(f"cond_cov must be (seeds, T), got shape {gap.shape}")
    return gap[:, early].mean(axis=1) - gap[:, late].mean(axis=1)


def rolling_gap(cond_cov, *, alpha: float, window: int, points: int = 300):
    """For the figure: the mean over seeds of |P(cover | past) − (1 − α)| from round 3 on, as a
    rolling mean over `window` rounds, at about `points` log-spaced rounds. Returns (rounds,
    values)."""
    gap = np.abs(np.asarray(cond_cov)[:, 2:] - (1 - alpha)).mean(axis=0)
    roll = np.convolve(gap, np.ones(window) / window, mode="valid")
    t_axis = np.arange(roll.size) + window + 2
    sel = np.unique(np.geomspace(1, roll.size, points).astype(int)) - 1
    return t_axis[sel], roll[sel]


def conditional_reading(
    summary: pd.DataFrame, drop, *, t: float, lqt: str, sqt: str, fixed: str
) -> str:
    """The sentence that reads claim 2: the mean conditional gaps of `sqt`, `lqt` (decaying)
    and `fixed` (fixed-step LQT) from `conditional_summary`, the marginal coverage, and the
    per-seed drop of LQT's gap (`gap_drop`) with its t-interval half-width (`t`: Student's
    97.5 % quantile for the seeds)."""
    drop = np.asarray(drop, dtype=np.float64)
    gap = summary["conditional gap (mean)"]
    cov_dev = coverage_deviation(summary)
    half = t * drop.std(ddof=1) / np.sqrt(drop.size)
    return (
        f"Over the second half of the rounds, the coverage given the past is off by "
        f"{gap[sqt]:.3f} on average for SQT, {gap[lqt]:.4f} for decaying LQT and "
        f"{gap[fixed]:.4f} for fixed-step LQT; marginal coverage is within {cov_dev:.4f} "
        f"of 0.9 for all three. Decaying LQT's gap drops from rounds [T/10, T/5] to "
        f"[T/2, T] by {drop.mean():.4f} on average (per seed "
        f"{', '.join(f'{x:.4f}' for x in drop)}; t-interval half-width {half:.4f})."
    )


def coverage_deviation(summary: pd.DataFrame, target: float = 0.9) -> float:
    """The largest |marginal coverage − target| of any method and seed in a
    `conditional_summary`."""
    return max(
        abs(summary["marginal coverage min"] - target).max(),
        abs(summary["marginal coverage max"] - target).max(),
    )


@dataclass(frozen=True)
class Claim2Values:
    """Claim 2's values: the mean conditional gaps of LQT and SQT (`conditional_summary`),
    LQT's per-seed drop of the gap (`gap_drop`), its final ‖θ − θ*‖ per seed, and the largest
    deviation of any marginal coverage from 0.9 (`coverage_deviation`)."""

    gap_lqt: float
    gap_sqt: float
    drop: np.ndarray
    theta_err: np.ndarray
    cov_dev: float


def claim2_values(
    summary: pd.DataFrame,
    runs: Mapping,
    cond_cov: Mapping,
    theta_star,
    *,
    lqt: str,
    sqt: str,
    alpha: float,
    early: slice,
    late: slice,
) -> Claim2Values:
    """`Claim2Values` of the method `lqt` (decaying LQT) against `sqt`."""
    gap = summary["conditional gap (mean)"]
    return Claim2Values(
        gap_lqt=gap.loc[lqt],
        gap_sqt=gap.loc[sqt],
        drop=gap_drop(cond_cov[lqt], alpha=alpha, early=early, late=late),
        theta_err=np.linalg.norm(runs[lqt].theta - np.asarray(theta_star), axis=1),
        cov_dev=coverage_deviation(summary),
    )


@dataclass(frozen=True)
class ConditionalStudy:
    """Claim 2's reading of the trackers' runs on AR series (see `conditional_study`)."""

    cond_cov: dict
    summary: pd.DataFrame
    values: Claim2Values
    rolling: dict


def conditional_study(
    Y,
    runs: Mapping,
    coef,
    theta_star,
    *,
    lqt: str,
    sqt: str,
    alpha: float,
    early: slice,
    late: slice,
    window: int,
) -> ConditionalStudy:
    """For each run (name → TrackerRun on the seeds of Y): the conditional coverage at every
    round (`conditional_coverages`), the summary over the `late` rounds
    (`conditional_summary`), claim 2's values for `lqt` against `sqt` (`claim2_values`) and,
    for the figure, the rolling mean gap over `window` rounds (`rolling_gap`)."""
    cond_cov = {k: conditional_coverages(Y, r.q, coef) for k, r in runs.items()}
    summary = conditional_summary(
        Y, runs, cond_cov, theta_star, alpha=alpha, rounds=late
    )
    values = claim2_values(summary, runs, cond_cov, theta_star, lqt=lqt, sqt=sqt,
                           alpha=alpha, early=early, late=late)  # fmt: skip
    rolling = {
        k: rolling_gap(cc, alpha=alpha, window=window) for k, cc in cond_cov.items()
    }
    return ConditionalStudy(cond_cov, summary, values, rolling)
