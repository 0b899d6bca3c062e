"""Partitions of the input space into K regions. `OnlineKMeans` is the code's: K centroids drawn
from N(0, 1) in the (normalised) input space; each step assigns the real and synthetic points to
the nearest centroid, then moves the centroids with the synthetic points only, MacQueen style
c_k ← (1 − 1/n_k)·c_k + x/n_k per point (n_k the running count), which keeps every centroid the
running mean of the points it received. `kmeans_regions` is the alternative: scikit-learn's
k-means fitted on real ∪ synthetic."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from repbook.core import checks

from .data import N_CLASSES, _labels, single_thread


def _check_points(name: str, x) -> torch.Tensor:
    if not isinstance(x, torch.Tensor) or x.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D torch tensor (n, d), got "
            f"{getattr(x, 'shape', type(x).__name__)}"
        )
    return x


def assign_regions(x: torch.Tensor, centroids: torch.Tensor) -> torch.Tensor:
    """The index of the nearest centroid (Euclidean) for every row of x."""
    x, centroids = _check_points("x", x), _check_points("centroids", centroids)
    if x.shape[1] != centroids.shape[1]:
        raise ValueError(
            f"x has {x.shape[1]} features but the centroids have {centroids.shape[1]}"
        )
    return torch.cdist(x, centroids).argmin(dim=1)


@dataclass(frozen=True)
class OnlineKMeans:
    """The code's prototype partition: centroids and the running count of points each received."""

    centroids: torch.Tensor  # (K, d)
    counts: torch.Tensor  # (K,) int64

    @classmethod
    def init(cls, K: int, dim: int, generator: torch.Generator) -> "OnlineKMeans":
        """K centroids drawn from N(0, 1) in d dimensions, counts 0 (as the code does)."""
        K = checks.integer("K", K, at_least=1)
        dim = checks.integer("dim", dim, at_least=1)
        checks.torch_generator("generator", generator)
        return cls(
            torch.randn(K, dim, generator=generator), torch.zeros(K, dtype=torch.int64)
        )

    @property
    def K(self) -> int:
        return self.centroids.shape[0]

    def update(self, x: torch.Tensor, regions: torch.Tensor) -> "OnlineKMeans":
        """MacQueen updates with the points x in their `regions`, one point at a time in effect:
        c_k ← (1 − 1/n_k)·c_k + x/n_k after each point. After m new points, c_k is the running mean
        (n_old·c_old + Σx)/(n_old + m); a centroid's random start is forgotten at its first point."""
        x = _check_points("x", x).detach()
        if regions.shape != (x.shape[0],):
            raise ValueError(
                f"regions must have shape ({x.shape[0]},), got {tuple(regions.shape)}"
            )
        if x.shape[1] != self.centroids.shape[1]:
            raise ValueError(
                f"x has {x.shape[1]} features but the centroids have "
                f"{self.centroids.shape[1]}"
            )
        m = torch.bincount(regions, minlength=self.K)
        sums = torch.zeros_like(self.centroids).index_add_(
            0, regions, x.to(self.centroids.dtype)
        )
        counts = self.counts + m
        safe = counts.clamp(min=1).to(self.centroids.dtype)[:, None]
        moved = (
            self.counts.to(self.centroids.dtype)[:, None] * self.centroids + sums
        ) / safe
        centroids = torch.where((m > 0)[:, None], moved, self.centroids)
        return OnlineKMeans(centroids, counts)

    def step(
        self, x_real: torch.Tensor, x_syn: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, "OnlineKMeans"]:
        """One training step's partition: assign both sets to the current centroids, then update
        the centroids with the synthetic points. Returns (real regions, synthetic regions, new)."""
        r_real, r_syn = (
            assign_regions(x_real, self.centroids),
            assign_regions(x_syn, self.centroids),
        )
        return r_real, r_syn, self.update(x_syn, r_syn)


def online_regions(
    x_real: torch.Tensor,
    x_syn: torch.Tensor,
    K: int,
    steps: int,
    generator: torch.Generator,
) -> tuple[torch.Tensor, torch.Tensor]:
    """The regions the online partition gives at its `steps`-th step (what `train` uses at its
    last step with the same generator): (real regions, synthetic regions)."""
    steps = checks.integer("steps", steps, at_least=1)
    state = OnlineKMeans.init(K, x_syn.shape[1], generator)
    with single_thread():
        for _ in range(steps):
            r_real, r_syn, state = state.step(x_real, x_syn)
    return r_real, r_syn


@dataclass(frozen=True)
class PartitionSummary:
    """How a partition splits the synthetic points (numbers)."""

    regions_used: int  # regions holding at least one synthetic point
    purity: float  # share of synthetic points whose region's majority class is theirs
    synthetic_share: (
        float  # share of synthetic points in regions that hold a real point
    )
    regions_shared: int  # regions holding both real and synthetic points


def summarise_partition(regions_real, regions_syn, y_syn, K: int) -> PartitionSummary:
    """Regions used, class purity and overlap with the real points of a partition."""
    K = checks.integer("K", K, at_least=1)
    r_real = np.asarray(regions_real, dtype=np.int64)
    r_syn = np.asarray(regions_syn, dtype=np.int64)
    y_syn = _labels("y_syn", np.asarray(y_syn), len(r_syn))
    for name, r in (("regions_real", r_real), ("regions_syn", r_syn)):
        if r.ndim != 1 or (len(r) and (r.min() < 0 or r.max() >= K)):
            raise ValueError(f"{name} must be 1-D with values in 0..K-1 = 0..{K - 1}")
    if len(r_syn) == 0:
        raise ValueError("regions_syn is empty: nothing to summarise")
    counts = np.zeros((K, N_CLASSES), dtype=np.int64)
    np.add.at(counts, (r_syn, y_syn), 1)
    has_real = np.bincount(r_real, minlength=K) > 0
    has_syn = counts.sum(1) > 0
    return PartitionSummary(
        int(has_syn.sum()),
        float(counts.max(1).sum() / len(r_syn)),
        float(has_real[r_syn].mean()),
        int((has_real & has_syn).sum()),
    )


def kmeans_regions(
    x_real, x_syn, K: int, *, seed: int, n_init: int = 3
) -> tuple[np.ndarray, np.ndarray]:
    """The alternative partition: scikit-learn k-means with K clusters fitted on real ∪ synthetic.
    Returns the region of every real and every synthetic point."""
    from sklearn.cluster import KMeans

    x_real, x_syn = (
        np.asarray(x_real, dtype=np.float64),
        np.asarray(x_syn, dtype=np.float64),
    )
    if x_real.ndim != 2 or x_syn.ndim != 2 or x_real.shape[1] != x_syn.shape[1]:
        raise ValueError(
            f"x_real and x_syn must be 2-D with the same number of features, got "
            f"{x_real.shape} and {x_syn.shape}"
        )
    K = checks.integer("K", K, at_least=1)
    both = np.concatenate([x_real, x_syn])
    if K > len(both):
        raise ValueError(f"K must be at most the {len(both)} points, got {K}")
    with single_thread():
        labels = KMeans(K, n_init=n_init, random_state=seed).fit_predict(both)
    return labels[: len(x_real)], labels[len(x_real) :]
