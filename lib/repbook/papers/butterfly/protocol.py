"""Experiment protocols of the butterfly-effect chapter (Kwok et al., ICML 2025): reference runs,
spawn-and-perturb copies, the pair comparison with its aligned barrier, and the scan of training
recipes for one where training noise leaves a barrier (the regime in which the paper's barrier
claims can show). The building blocks (training loop, perturbations, barriers, weight matching,
CKA) are in the package's other files.

A *runner* is a function ``runner(state, order, distance_to) -> TrainResult`` that trains one
copy from ``state`` to the end of ``order`` with a fixed recipe (model, data, learning rates,
momentum); every protocol here trains through one, so the same recipe serves every copy. No
function here prints, plots, writes files or draws from a global random state.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import torch
from torch import nn

from repbook.core.stats import spearman_rho  # noqa: F401 (the chapter calls it here)

from .measures import (
    PairComparison,
    compare_pair,
    evaluate,
    l2_distance,
    loss_barrier,
)
from .models import MLP, Params, init_params
from .perturb import add, gaussian_perturbation, nudge_one_ulp, pick_weight
from .training import TrainResult, TrainState, train, triangle_schedule

Runner = Callable[..., TrainResult]


def make_runner(
    model: nn.Module,
    X: torch.Tensor,
    y: torch.Tensor,
    lrs,
    *,
    momentum: float,
    save_at: Sequence[int] = (),
) -> Runner:
    """``runner(state, order, distance_to=None, save=False)``: ``butterfly.train`` with this
    recipe, keeping the states at ``save_at`` when ``save`` is true."""

    def runner(state, order, distance_to=None, save=False):
        return train(
            model,
            state,
            X,
            y,
            order,
            lrs,
            momentum=momentum,
            save_at=save_at if save else (),
            distance_to=distance_to,
        )

    return runner


@dataclass(frozen=True)
class ReferenceRuns:
    """Final parameters of the base run and of n − 1 further runs (base first), the further
    runs' distance curves to the base run, and every pair (i, j), i < j."""

    finals: list[Params]
    curves: list[dict[int, float]]
    pairs: list[tuple[int, int]]

    def l2(self) -> np.ndarray:
        """‖θ_i − θ_j‖ for every pair."""
        return np.array(
            [l2_distance(self.finals[i], self.finals[j]) for i, j in self.pairs]
        )


def reference_runs(
    runner: Runner,
    base_final: Params,
    starts: Sequence[Params],
    orders: Sequence[torch.Tensor],
    *,
    distance_to: Mapping[int, Params] | None = None,
) -> ReferenceRuns:
    """Train one run per (start, order) pair besides the base run (training noise: one start,
    other orders; independent runs: other starts, one order)."""
    if len(starts) != len(orders):
        raise ValueError(
            f"starts and orders must have the same length, got {len(starts)} and "
            f"{len(orders)}"
        )
    finals, curves = [base_final], []
    for start, order in zip(starts, orders):
        res = runner(TrainState.start(start), order, distance_to)
        finals.append(res.final.params)
        curves.append(res.distances)
    n = len(finals)
    return ReferenceRuns(
        finals, curves, [(i, j) for i in range(n) for j in range(i + 1, n)]
    )


@dataclass(frozen=True)
class Perturbation:
    """A kind of perturbation: ``"ulp"`` (one weight moved by one float ulp) or ``"gaussian"``
    of size ``sigma`` on ``n_weights`` weights (None: all), normalised as
    ``butterfly.gaussian_perturbation`` does (scaled over the mask: one weight moves by σ·s_i).
    ``names`` are the tensors it may touch."""

    kind: str
    names: tuple[str, ...]
    sigma: float = 0.0
    n_weights: int | None = None

    def __post_init__(self):
        if self.kind not in ("ulp", "gaussian"):
            raise ValueError(f"kind must be 'ulp' or 'gaussian', got {self.kind!r}")
        if not self.names:
            raise ValueError("names must list at least one weight tensor")
        if self.kind == "gaussian" and not (
            isinstance(self.sigma, (int, float))
            and self.sigma > 0
            and math.isfinite(self.sigma)
        ):
            raise ValueError(
                f"a Gaussian perturbation needs sigma > 0, got {self.sigma!r}"
            )

    def apply(
        self, params: Params, stds: Mapping[str, float], *, generator: torch.Generator
    ) -> tuple[Params, tuple[str, int] | None]:
        """θ + ε, and the moved weight (tensor, flat index) when one weight moves."""
        if self.kind == "ulp":
            name, idx = pick_weight(params, list(self.names), generator=generator)
            return nudge_one_ulp(params, name=name, index=idx), (name, idx)
        eps = gaussian_perturbation(
            params,
            stds,
            sigma=self.sigma,
            generator=generator,
            n_weights=self.n_weights,
            names=list(self.names),
        )
        where = None
        if self.n_weights == 1:
            name = next(k for k in self.names if bool(eps[k].ne(0).any()))
            where = (name, int(eps[name].view(-1).ne(0).nonzero()[0]))
        return add(params, eps), where


@dataclass(frozen=True)
class Copy:
    """A perturbed copy trained to the end: its final parameters, ‖θ_T − θ'_T‖ to the reference
    final, ‖ε‖, the moved weight (one-weight kinds) and its distance curve."""

    final: Params
    l2: float
    eps: float
    where: tuple[str, int] | None
    distances: dict[int, float] = field(default_factory=dict)


def spawn_copy(
    runner: Runner,
    spawn: TrainState,
    perturbation: Perturbation,
    stds: Mapping[str, float],
    reference_final: Params,
    order: torch.Tensor,
    *,
    generator: torch.Generator,
    distance_to: Mapping[int, Params] | None = None,
) -> Copy:
    """Spawn-and-perturb: perturb the state at its step (momentum kept), train to the end of
    ``order`` and measure the final distance to ``reference_final`` (the unperturbed run)."""
    moved, where = perturbation.apply(spawn.params, stds, generator=generator)
    res = runner(spawn.with_params(moved), order, distance_to)
    return Copy(
        res.final.params,
        l2_distance(res.final.params, reference_final),
        l2_distance(moved, spawn.params),
        where,
        res.distances,
    )


def compare_with_barrier(
    model: nn.Module,
    a: Params,
    b: Params,
    spec,
    X: torch.Tensor,
    barrier: Callable[[Params, Params], float],
    lb: float,
    *,
    generator: torch.Generator,
    features_a=None,
) -> tuple[dict, PairComparison]:
    """Weight matching of θ_b to θ_a, the aligned L² and loss barrier (``lb``, the unaligned
    barrier, again when the matching is the identity), CKA per layer on ``X``: a row of numbers
    and the comparison itself."""
    c = compare_pair(model, a, b, spec, X, generator=generator, features_a=features_a)
    lb_aligned = lb if c.identity else float(barrier(a, c.aligned))
    row = dict(
        identity=c.identity,
        l2=c.l2,
        l2_aligned=c.l2_aligned,
        barrier=lb,
        barrier_aligned=lb_aligned,
        ang_mean=float(np.mean(c.angular)),
    )
    row.update({f"cka{i + 1}": v for i, v in enumerate(c.cka)})
    row.update({f"ang{i + 1}": v for i, v in enumerate(c.angular)})
    return row, c


# ----------------------------------------------------------------------------------------------
# the recipe scan: where does training noise leave a barrier?
@dataclass(frozen=True)
class Recipe:
    """An MLP training recipe: hidden widths, peak learning rate, warm-up fraction of the
    triangle schedule, and where it comes from."""

    name: str
    hidden: tuple[int, ...]
    lr: float
    warmup: float
    source: str = ""

    def __post_init__(self):
        if not self.hidden or any(
            isinstance(h, bool) or not isinstance(h, int) or h < 1 for h in self.hidden
        ):
            raise ValueError(f"hidden must be positive int widths, got {self.hidden!r}")
        if not (self.lr > 0 and math.isfinite(self.lr)):
            raise ValueError(f"lr must be positive and finite, got {self.lr!r}")
        if not 0.0 <= self.warmup < 1.0:
            raise ValueError(f"warmup must lie in [0, 1), got {self.warmup!r}")


@dataclass(frozen=True)
class RecipeRuns:
    """One recipe's base run (states kept at ``save_at``), its training-noise partner (same
    initialisation, other batch order) and its independent partner (other initialisation, same
    order), with the two barriers to the base run and the share noise / independent."""

    recipe: Recipe
    model: nn.Module
    lrs: np.ndarray
    base: TrainResult
    noise_final: Params
    indep_final: Params
    noise_barrier: float
    indep_barrier: float
    train_loss: float
    runner: Runner

    @property
    def share(self) -> float:
        """Training-noise barrier as a fraction of the independent-init barrier (NaN when the
        latter is not positive)."""
        return (
            self.noise_barrier / self.indep_barrier
            if self.indep_barrier > 0
            else math.nan
        )


def scan_recipe(
    recipe: Recipe,
    X: torch.Tensor,
    y: torch.Tensor,
    Xbar: torch.Tensor,
    ybar: torch.Tensor,
    *,
    orders: Sequence[torch.Tensor],
    inits: Sequence[torch.Generator],
    momentum: float,
    save_at: Sequence[int] = (),
    n_alpha: int = 11,
) -> RecipeRuns:
    """Train the base run (``inits[0]``, ``orders[0]``), the training-noise run (``inits[0]``,
    ``orders[1]``) and the independent run (``inits[1]``, ``orders[0]``) of one recipe, and
    their loss barriers to the base run on (Xbar, ybar)."""
    if len(orders) != 2 or len(inits) != 2:
        raise ValueError("orders and inits must each hold two entries (base, other)")
    if len(orders[0]) != len(orders[1]):
        raise ValueError("both batch orders must have the same number of steps")
    n_classes = int(y.max()) + 1
    model = MLP([X[0].numel(), *recipe.hidden, n_classes])
    lrs = triangle_schedule(
        len(orders[0]), peak_lr=recipe.lr, warmup_frac=recipe.warmup
    )
    runner = make_runner(model, X, y, lrs, momentum=momentum, save_at=save_at)
    theta = [init_params(model, generator=g) for g in inits]
    base = runner(TrainState.start(theta[0]), orders[0], save=True)
    noise = runner(TrainState.start(theta[0]), orders[1]).final.params
    indep = runner(TrainState.start(theta[1]), orders[0]).final.params
    final = base.final.params

    def lb(other):
        return loss_barrier(model, final, other, Xbar, ybar, n_alpha=n_alpha)

    return RecipeRuns(
        recipe,
        model,
        lrs,
        base,
        noise,
        indep,
        lb(noise).loss_barrier,
        lb(indep).loss_barrier,
        evaluate(model, final, X, y)[0],
        runner,
    )


def first_meeting(runs: Sequence[RecipeRuns], share: float) -> int | None:
    """Index of the first recipe (in scan order) whose training-noise barrier is at least
    ``share`` of its independent-init barrier; None when none is."""
    if not 0.0 < share <= 1.0:
        raise ValueError(f"share must lie in (0, 1], got {share!r}")
    for i, r in enumerate(runs):
        if r.share >= share:
            return i
    return None


def excess_divergence(l2: Sequence[float], eps: Sequence[float]) -> np.ndarray:
    """L²_T − ‖ε‖: how much farther apart the copies end than the perturbation put them."""
    a, b = np.asarray(l2, dtype=float), np.asarray(eps, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(
            f"l2 and eps must be 1-D of one length, got {a.shape} and {b.shape}"
        )
    return a - b


def adjacent_rises(values: Sequence[float]) -> list[tuple[int, float]]:
    """The swaps of a series that should fall: every (i, values[i + 1] − values[i]) where it
    rises from one point to the next. On four points a Spearman ρ of exactly −0.8 is one such
    adjacent swap."""
    v = np.asarray(values, dtype=float)
    if v.ndim != 1 or v.size < 2 or not np.isfinite(v).all():
        raise ValueError(f"values must be 1-D, finite, of length ≥ 2, got {values!r}")
    return [(i, float(v[i + 1] - v[i])) for i in range(v.size - 1) if v[i + 1] > v[i]]


def barrier_kept(
    barrier: Sequence[float], aligned: Sequence[float], *, floor: float
) -> tuple[np.ndarray, int]:
    """Aligned / unaligned barrier on the draws whose unaligned barrier is at least ``floor``
    (below it the ratio is noise over noise, or 0/0), and how many draws were read."""
    b, a = np.asarray(barrier, dtype=float), np.asarray(aligned, dtype=float)
    if b.shape != a.shape or b.ndim != 1:
        raise ValueError(
            f"barrier and aligned must be 1-D of one length, got {b.shape} and {a.shape}"
        )
    if not (floor > 0 and math.isfinite(floor)):
        raise ValueError(f"floor must be positive and finite, got {floor!r}")
    read = b >= floor
    return a[read] / b[read], int(read.sum())
