"""Evaluation: k-NN accuracy (overall and by norm quantile), time to an accuracy, the area
under an accuracy curve, and AUROC with a bootstrap interval (scipy)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import torch
from scipy import stats
from torch.nn import functional

from repbook.core import checks


# --------------------------------------------------------------------------------------
# evaluation
def knn_accuracy(
    bank: torch.Tensor,
    bank_y: torch.Tensor,
    query: torch.Tensor,
    query_y: torch.Tensor,
    *,
    k: int = 20,
) -> float:
    """k-NN accuracy with cosine similarity and a majority vote (ties: the smallest
    label)."""
    k = checks.integer("k", k, at_least=1)
    if bank.ndim != 2 or query.ndim != 2 or bank.shape[1] != query.shape[1]:
        raise ValueError(
            f"bank and query must be (n, d) with the same d, got "
            f"{tuple(bank.shape)} and {tuple(query.shape)}"
        )
    if k > bank.shape[0]:
        raise ValueError(f"k = {k} exceeds the bank size {bank.shape[0]}")
    if len(bank_y) != bank.shape[0] or len(query_y) != query.shape[0]:
        raise ValueError("labels must have one entry per row of bank and query")
    sim = functional.normalize(query, dim=1) @ functional.normalize(bank, dim=1).T
    nbr = sim.topk(k, dim=1).indices
    votes = functional.one_hot(bank_y[nbr], int(bank_y.max()) + 1).sum(1)
    pred = votes.argmax(1)
    return float((pred == query_y).double().mean())


def knn_accuracy_by_norm(
    bank: torch.Tensor,
    bank_y: torch.Tensor,
    query: torch.Tensor,
    query_y: torch.Tensor,
    *,
    n_bins: int = 5,
    k: int = 20,
) -> np.ndarray:
    """k-NN accuracy of the queries split into `n_bins` equal-count bins of ‖query‖
    (bin 0: the smallest norms). The neighbours come from the whole bank."""
    n_bins = checks.integer("n_bins", n_bins, at_least=1)
    norms = query.norm(dim=1).cpu().numpy()
    if n_bins > len(norms):
        raise ValueError(
            f"n_bins = {n_bins} exceeds the number of queries {len(norms)}"
        )
    edges = np.quantile(norms, np.arange(1, n_bins) / n_bins)
    which = np.searchsorted(edges, norms, side="right")
    out = []
    for b in range(n_bins):
        sel = torch.as_tensor(which == b, device=query.device)
        out.append(knn_accuracy(bank, bank_y, query[sel], query_y[sel], k=k))
    return np.array(out)


def time_to_accuracy(
    steps: Sequence[int], accuracy: Sequence[float], target: float
) -> float:
    """First evaluation step at which `accuracy` ≥ `target`; +inf if it never gets
    there."""
    steps, accuracy = np.asarray(steps), np.asarray(accuracy, dtype=float)
    if steps.shape != accuracy.shape or steps.ndim != 1 or steps.size == 0:
        raise ValueError(
            f"steps and accuracy must be non-empty 1-D arrays of equal "
            f"length, got {steps.shape} and {accuracy.shape}"
        )
    hit = np.flatnonzero(accuracy >= target)
    return float(steps[hit[0]]) if hit.size else math.inf


def accuracy_area(steps: Sequence[int], accuracy: Sequence[float]) -> float:
    """Mean accuracy over training: the trapezoidal area under the accuracy curve
    divided by the length of the run. A run that gets to high accuracy earlier scores
    higher."""
    steps, accuracy = np.asarray(steps, dtype=float), np.asarray(accuracy, dtype=float)
    if steps.shape != accuracy.shape or steps.ndim != 1 or steps.size < 2:
        raise ValueError(
            f"steps and accuracy must be 1-D arrays of equal length ≥ 2, "
            f"got {steps.shape} and {accuracy.shape}"
        )
    if np.any(np.diff(steps) <= 0):
        raise ValueError("steps must increase")
    widths = np.diff(steps)
    return float(np.sum(widths * (accuracy[1:] + accuracy[:-1]) / 2) / widths.sum())


def _scores(name: str, x) -> np.ndarray:
    x = np.asarray(x, dtype=float).ravel()
    if x.size == 0:
        raise ValueError(f"auroc needs non-empty {name} scores, got none")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"auroc scores must be finite; the {name} scores are not")
    return x


def _auc_statistic(pos, neg, axis=-1):
    u = stats.mannwhitneyu(pos, neg, axis=axis, method="asymptotic").statistic
    return u / (pos.shape[axis] * neg.shape[axis])


def auroc(positive: np.ndarray, negative: np.ndarray) -> float:
    """P(score of a positive > score of a negative) + ½ P(tie): the Mann–Whitney U
    statistic of the positives divided by n₊·n₋ (scipy.stats.mannwhitneyu)."""
    pos, neg = _scores("positive", positive), _scores("negative", negative)
    return float(_auc_statistic(pos, neg))


def auroc_interval(
    positive: np.ndarray,
    negative: np.ndarray,
    *,
    rng: np.random.Generator,
    n_boot: int = 1000,
    level: float = 0.95,
) -> tuple[float, float, float]:
    """AUROC and a percentile bootstrap interval, both groups resampled independently
    (scipy.stats.bootstrap around mannwhitneyu): (auc, low, high)."""
    checks.generator("rng", rng)
    n_boot = checks.integer("n_boot", n_boot, at_least=1)
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    pos, neg = _scores("positive", positive), _scores("negative", negative)
    res = stats.bootstrap(
        (pos, neg),
        _auc_statistic,
        n_resamples=n_boot,
        confidence_level=level,
        method="percentile",
        vectorized=True,
        random_state=rng,
    )
    ci = res.confidence_interval
    return auroc(pos, neg), float(ci.low), float(ci.high)
