"""The chapter's basin measurements, in the order it makes them: the barrier of every perturbed
copy and reference pair (``grid_barriers``), the recipe scan and its table (``scan_recipes``,
``scan_table``), the copies of the judged recipe (``judged_copies``), weight matching and CKA of
the copies at t = 0 and the reference pairs (``alignment``), the peer packages on the same pairs
(``peer_checks``) and the optimiser steps a run of the chapter plans (``planned_steps``,
``full_scale_line``). The readings of claims 3 and 4 are in ``claims``.

Streams of ``rng_for`` (the chapter's ``run.torch_generator``): 20 000 + 10·kind + draw, 25 000 + n
and 30 000 + n for the weight matching of the grid's copies, training-noise and independent
pairs; 50 000 + 100·kind + draw, 55 000 + 10·kind + draw and 59 000 for the judged recipe's
copies, their matching and its independent pair. No function here prints, plots or writes files.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from repbook.core import checks

from .experiment import BaseRuns, Grid, Setting
from .matching import mlp_perm_spec
from .measures import (
    Barrier,
    PairComparison,
    hidden_features,
    l2_distance,
    linear_cka,
    loss_barrier,
    rebasin_align,
    repsim_linear_cka,
)
from .models import Params, init_stds, perturbable
from .perturb import typical_draws
from .protocol import (
    Perturbation,
    Recipe,
    RecipeRuns,
    compare_with_barrier,
    scan_recipe,
    spawn_copy,
)


def barrier_on(
    s: Setting, *, n_barrier: int, n_alpha: int
) -> Callable[[Params, Params], Barrier]:
    """The loss and error barrier between two parameter sets of the recipe's model, on the
    first ``n_barrier`` training digits and ``n_alpha`` points."""
    n_barrier = checks.integer("n_barrier", n_barrier, at_least=1)
    Xbar, ybar = s.Xtr[:n_barrier], s.ytr[:n_barrier]

    def barrier(a, b):
        return loss_barrier(s.model, a, b, Xbar, ybar, n_alpha=n_alpha)

    return barrier


@dataclass(frozen=True)
class Barriers:
    """The grid's rows with their loss and error barriers to the base run, and the barriers of
    the training-noise and the independent pairs (``Barrier`` objects and their loss
    barriers)."""

    runs: pd.DataFrame
    orders: list[Barrier]
    independent: list[Barrier]

    @property
    def order_lb(self) -> np.ndarray:
        """The loss barrier of every training-noise pair."""
        return np.array([b.loss_barrier for b in self.orders])

    @property
    def indep_lb(self) -> np.ndarray:
        """The loss barrier of every independent pair."""
        return np.array([b.loss_barrier for b in self.independent])

    @property
    def share(self) -> float:
        """The mean training-noise barrier as a share of the mean independent-init barrier
        (NaN when the latter is not positive)."""
        indep = self.indep_lb.mean()
        return self.order_lb.mean() / indep if indep > 0 else math.nan

    def median_table(
        self, kinds: Sequence[str], t_steps: Sequence[int]
    ) -> pd.DataFrame:
        """The median loss barrier over the draws, by kind (rows) and perturbation step."""
        table = self.runs.groupby(["kind", "t"]).loss_barrier.median().unstack("t")
        return table.loc[list(kinds), list(t_steps)]


def grid_barriers(b: BaseRuns, grid: Grid, barrier: Callable) -> Barriers:
    """The barrier of every perturbed copy to the base run, then of every independent and
    every training-noise pair."""
    bars = []
    for (kind, t, rep), params in grid.finals.items():
        bb = barrier(b.theta_T, params)
        bars.append(
            dict(
                kind=kind,
                t=t,
                rep=rep,
                loss_barrier=bb.loss_barrier,
                error_barrier=bb.error_barrier,
            )
        )
    runs = grid.runs.merge(pd.DataFrame(bars), on=["kind", "t", "rep"])
    ind, orders = b.independent, b.orders
    indep = [barrier(ind.finals[i], ind.finals[j]) for i, j in ind.pairs]
    noise = [barrier(orders.finals[i], orders.finals[j]) for i, j in orders.pairs]
    return Barriers(runs, noise, indep)


def scan_table(
    chapter: tuple[float, float, float],
    scan: Sequence[RecipeRuns],
    *,
    gate_share: float,
    chapter_name: str = "chapter recipe",
) -> pd.DataFrame:
    """One row per recipe, the chapter's (its noise barrier, independent barrier and train
    loss) first, then the scan's: the two barriers, the base run's train loss, the share noise
    / independent and whether it meets ``gate_share``."""
    chain = [(chapter_name, *chapter)] + [
        (r.recipe.name, r.noise_barrier, r.indep_barrier, r.train_loss) for r in scan
    ]
    columns = ["recipe", "noise barrier", "indep. barrier", "train loss"]
    table = pd.DataFrame(chain, columns=columns).set_index("recipe")
    table["share"] = table["noise barrier"] / table["indep. barrier"]
    table["meets gate"] = table["share"] >= gate_share
    return table


def scan_recipes_for(*, width: int, lr: float) -> list[Recipe]:
    """The three recipes of the scan, each one step further from the chapter's (three hidden
    layers of ``width``, peak learning rate ``lr``, 2 % warm-up) towards what the paper and its
    official code report as unstable: no warm-up; three times the learning rate, no warm-up
    (ours); deep and narrow (eight layers of 64 units), no warm-up."""
    width = checks.integer("width", width, at_least=1)
    return [
        Recipe("no warm-up", (width,) * 3, lr, 0.0, "official small scripts"),
        Recipe(
            f"lr {3 * lr:g}, no warm-up (ours)",
            (width,) * 3,
            3 * lr,
            0.0,
            "ours: an extrapolation (larger early steps)",
        ),
        Recipe("deep & narrow, no warm-up", (64,) * 8, lr, 0.0, "ResNet-34-16"),
    ]


def scan_recipes(
    s: Setting,
    recipes: Sequence[Recipe],
    *,
    save_at: Sequence[int],
    n_barrier: int,
    n_alpha: int,
) -> list[RecipeRuns]:
    """``scan_recipe`` for each recipe with the chapter's data: base run from initialisation 1
    on the shared order (states kept at ``save_at``), training-noise partner on order 1,
    independent partner from initialisation 2; barriers on the first ``n_barrier`` training
    digits. Every recipe gets fresh generators, so each is the same whatever ran before."""
    Xbar, ybar = s.Xtr[:n_barrier], s.ytr[:n_barrier]
    return [
        scan_recipe(
            r,
            s.Xtr,
            s.ytr,
            Xbar,
            ybar,
            orders=[s.order, s.make_order(1)],
            inits=[s.rng_for(1), s.rng_for(2)],
            momentum=s.momentum,
            save_at=save_at,
            n_alpha=n_alpha,
        )
        for r in recipes
    ]


@dataclass(frozen=True)
class JudgedCopies:
    """The judged recipe's perturbed copies: one row per copy (kind, t, rep, and at t = 0 the
    pair comparison's numbers; at t = T/2 the L² and barrier of the median draw), and the
    comparison row of its independent pair."""

    runs: pd.DataFrame
    independent: dict
    kinds: list[str]


def judged_copies(
    s: Setting,
    rr: RecipeRuns,
    kinds: Mapping[str, tuple[float, int | None]],
    *,
    reps_t0: int,
    t_half: int,
    n_barrier: int,
    n_alpha: int,
) -> JudgedCopies:
    """Perturbed copies of a scan recipe's base run: for each kind (name → (σ, n_weights),
    Gaussian over the recipe's weights), ``reps_t0`` draws at t = 0 compared with the base
    run (barrier, weight matching, CKA on the held-out digits) and the median draw again at
    ``t_half`` (its barrier); then the recipe's independent pair compared the same way."""
    model, final = rr.model, rr.base.final.params
    stds, names = init_stds(model), tuple(perturbable(model))
    spec = mlp_perm_spec(model)
    Xbar, ybar = s.Xtr[:n_barrier], s.ytr[:n_barrier]
    perts = {
        kind: Perturbation("gaussian", names, sigma=sigma, n_weights=n)
        for kind, (sigma, n) in kinds.items()
    }

    def barrier(a, b):
        return loss_barrier(model, a, b, Xbar, ybar, n_alpha=n_alpha).loss_barrier

    rows = []
    for ki, (kind, pert) in enumerate(perts.items()):
        l2s = []
        for rep in range(reps_t0):
            c = spawn_copy(
                rr.runner,
                rr.base.saved[0],
                pert,
                stds,
                final,
                s.order,
                generator=s.rng_for(50_000 + 100 * ki + rep),
            )
            row, _ = compare_with_barrier(
                model,
                final,
                c.final,
                spec,
                s.Xte,
                barrier,
                barrier(final, c.final),
                generator=s.rng_for(55_000 + 10 * ki + rep),
            )
            rows.append(dict(kind=kind, t=0, rep=rep, **row))
            l2s.append(c.l2)
        rep = typical_draws(l2s, 1)[0]
        c = spawn_copy(
            rr.runner,
            rr.base.saved[t_half],
            pert,
            stds,
            final,
            s.order,
            generator=s.rng_for(50_000 + 100 * ki + rep),
        )
        rows.append(
            dict(kind=kind, t=t_half, rep=rep, l2=c.l2, barrier=barrier(final, c.final))
        )
    indep, _ = compare_with_barrier(
        model,
        final,
        rr.indep_final,
        spec,
        s.Xte,
        barrier,
        rr.indep_barrier,
        generator=s.rng_for(59_000),
    )
    return JudgedCopies(pd.DataFrame(rows), indep, list(perts))


@dataclass(frozen=True)
class Alignment:
    """Weight matching, aligned L² and barrier and CKA per layer of the grid's copies at t = 0
    and of the reference pairs: one row per pair (``table``, with the ratios to the
    training-noise pairs), the compared parameters and comparison by (label, rep), and the
    number of hidden layers (or blocks) compared."""

    table: pd.DataFrame
    comparisons: dict[tuple[str, int], tuple[Params, Params, PairComparison]]
    n_layers: int


def alignment(
    s: Setting,
    b: BaseRuns,
    grid: Grid,
    bars: Barriers,
    barrier: Callable,
    *,
    kinds: Sequence[str],
    reps_t0: int,
    orders_label: str,
    indep_label: str,
) -> Alignment:
    """Compare the base run with every copy perturbed at t = 0 (``reps_t0`` draws of each
    kind), then every training-noise and every independent pair; ratios to the mean of the
    training-noise pairs."""
    feats_base = hidden_features(s.model, b.theta_T, s.Xte)
    rows, comparisons = [], {}
    runs = bars.runs

    def compare(a_params, b_params, label, rep, key, lb):
        row, c = compare_with_barrier(
            s.model,
            a_params,
            b_params,
            s.spec,
            s.Xte,
            lambda u, v: barrier(u, v).loss_barrier,
            lb,
            generator=s.rng_for(key),
            features_a=feats_base if a_params is b.theta_T else None,
        )
        rows.append(dict(kind=label, rep=rep, **row))
        comparisons[(label, rep)] = (a_params, b_params, c)

    for ki, kind in enumerate(kinds):
        for rep in range(reps_t0):
            r = runs[(runs.kind == kind) & (runs.t == 0) & (runs.rep == rep)].iloc[0]
            compare(
                b.theta_T,
                grid.finals[(kind, 0, rep)],
                kind,
                rep,
                20_000 + 10 * ki + rep,
                float(r.loss_barrier),
            )
    references = [
        (orders_label, b.orders, bars.order_lb, 25_000),
        (indep_label, b.independent, bars.indep_lb, 30_000),
    ]
    for label, ref, lbs, key in references:
        for n, (i, j) in enumerate(ref.pairs):
            compare(ref.finals[i], ref.finals[j], label, n, key + n, float(lbs[n]))
    table = pd.DataFrame(rows)
    noise = table[table.kind == orders_label]
    table["angular CKA / noise"] = table.ang_mean / noise.ang_mean.mean()
    table["aligned L² / noise"] = table.l2_aligned / noise.l2_aligned.mean()
    table["CKA ratio − L² ratio"] = (
        table["angular CKA / noise"] - table["aligned L² / noise"]
    )
    table["kept by alignment"] = table.l2_aligned / table.l2
    return Alignment(table, comparisons, len(feats_base))


def peer_checks(
    s: Setting,
    comparisons: Mapping[tuple[str, int], tuple[Params, Params, PairComparison]],
    *,
    skip: str,
    every: str,
    n_inputs: int,
    seed: int,
) -> pd.DataFrame:
    """``repsim``'s linear CKA and ``rebasin``'s weight matching on the first draw of each
    compared kind and on every pair labelled ``every`` (pairs labelled ``skip`` left out):
    one row per pair with the largest |CKA ours − repsim| over the layers (on ``n_inputs``
    held-out digits) and the L² before and after our matching and rebasin's (rebasin seeded
    with 1000·seed + the row number)."""
    rows = []
    for (label, rep), (a_params, b_params, ours) in comparisons.items():
        if label == skip or (rep > 0 and label != every):
            continue
        fa = hidden_features(s.model, a_params, s.Xte[:n_inputs])
        fb = hidden_features(s.model, b_params, s.Xte[:n_inputs])
        gap = max(
            abs(repsim_linear_cka(xa, xb) - linear_cka(xa, xb))
            for xa, xb in zip(fa, fb)
        )
        theirs = rebasin_align(
            s.model, a_params, b_params, s.Xtr[:2], seed=seed * 1_000 + len(rows)
        )
        rows.append(
            dict(
                kind=label,
                rep=rep,
                cka_max_abs_diff=gap,
                l2=ours.l2,
                ours=ours.l2_aligned,
                rebasin=l2_distance(a_params, theirs),
            )
        )
    return pd.DataFrame(rows)


def full_scale_line(sizes: Mapping, *, step_seconds: float) -> str:
    """The full scale's steps (``planned_steps``) priced at ``step_seconds`` a step on these 2
    CPU cores."""
    T, steps = planned_steps(sizes)
    return (
        f"full scale: T = {T} steps a run, {steps:,} optimiser steps in all; at "
        f"{step_seconds} s a step on these 2 CPU cores about "
        f"{steps * step_seconds / 3600:.0f} hours (barriers, matching and CKA not "
        "counted): run it on a GPU"
    )


def planned_steps(sizes: Mapping) -> tuple[int, int]:
    """Optimiser steps of one run of the chapter with the size table ``sizes``: T, and the
    steps of every run it trains (the grid, claim 1's extra draws, the reference runs)."""
    T = sizes["epochs"] * (sizes["n_train"] // sizes["batch"])
    ts = sorted({int(round(f * T)) for f in sizes["t_fracs"]})
    later = sum(T - t for t in ts[1:])
    n_kinds = 1 + len(sizes["sigmas"])  # one ulp + the Gaussian kinds
    steps = (
        2 + sizes["n_orders"] - 1 + sizes["n_independent"] - 1
    ) * T  # reference runs
    steps += n_kinds * (sizes["reps_t0"] * T + sizes["reps"] * later)  # the grid
    steps += sizes["claim1_draws"] * T + sizes["reps"] * later  # one weight, claims 1-2
    steps += (sizes["claim1_draws"] - sizes["reps_t0"]) * T  # Gaussian 1e-4, claim 1
    return T, steps
