"""The sentences the chapter prints under its tables, generated from the protocols' numbers so
that they cannot go stale: what our stand-in families and estimator show, and how our algorithms
fare on the natural instances. Each returns text (no printing); the sentences that read a
criterion's outcome take that outcome as an argument."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .algorithms import greedy_queries
from .summaries import FamilyFit, NaturalCurves

ELEMENTWISE = ("top singletons", "stochastic greedy", "subsample greedy")
"""The algorithms that query element by element (best of blocks queries arbitrary k-sets)."""


def hidden_cell_reading(suite: Mapping, fit: FamilyFit, n: int, k: int) -> str:
    """The hidden-element family at one cell (n, k), and the growth of the best q*."""
    at = suite[n, k]
    return (
        f"At n = {n}, k = {k}: best of blocks reaches ratio 1/2 in half the seeds at "
        f"q = {at['best of blocks']:,.0f} (n/k = {n // k}), top singletons at "
        f"{at['top singletons']:,.0f}, greedy only at its full cost "
        f"{greedy_queries(n, k):,}.\nThe best algorithm's q* grows like "
        f"n^{fit.b:.2f} k^{fit.c:.2f}."
    )


def hidden_family_reading(
    suite: Mapping, fit: FamilyFit, null_estimate: float, null_opt: float
) -> str:
    """The hidden-element family over the grid: where best of blocks wins, its q* against
    n/k, the element-by-element algorithms' least q*, and the null instance."""
    bob = [v["best of blocks"] / (n / k) for (n, k), v in suite.items()]
    least = min(v[a] / n for (n, k), v in suite.items() for a in ELEMENTWISE)
    n_bob = sum(w == "best of blocks" for w in fit.winner.values())
    return (
        f"Best of blocks, the one algorithm that queries arbitrary k-sets, is the best on "
        f"{n_bob} of {len(fit.winner)} cells; its q* lies between {min(bob):.2f} and "
        f"{max(bob):.2f} times n/k, and the best algorithm's q* "
        + ("falls" if fit.c < -0.2 else "does not fall")
        + f" with k (slope {fit.c:.2f} on log k). The element-by-element algorithms need "
        f"at least {least:.2f} n queries on every cell. The null instance's estimate "
        f"after one query is {null_estimate:.3f} against its OPT {null_opt:.3f}."
    )


def planted_cell_reading(
    suite: Mapping, fit: FamilyFit, curves: Mapping, n: int, k: int
) -> str:
    """The planted family at one cell (n, k): the best algorithm's q*, and best of blocks
    (`curves`: `ratio_curves`' curves at that cell)."""
    bob, q = suite[n, k]["best of blocks"], fit.best[n, k]
    return (
        f"At n = {n}, k = {k} the best algorithm ({fit.winner[n, k]}) needs "
        f"q* = {q:,.0f} = {q / n:.2f} n; best of blocks "
        + (
            f"reaches ratio 1/2 in half the seeds at q = {bob:,.0f}"
            if np.isfinite(bob)
            else "does not reach ratio 1/2 in half the seeds within its ⌈n/k⌉ blocks"
        )
        + f" (mean ratio at its largest budget {curves['best of blocks'][1][-1]:.2f})."
    )


def planted_family_reading(suite: Mapping, fit: FamilyFit, met: bool) -> str:
    """The planted family over the grid, and the criterion's outcome `met` on it."""
    frac = [q / n for (n, k), q in fit.best.items()]
    bob = sum(np.isfinite(v["best of blocks"]) for v in suite.values())
    return (
        f"On this family the best algorithm of ours needs between {min(frac):.2f} n and "
        f"{max(frac):.2f} n queries over the grid; random search over k-sets (best of "
        f"blocks) reaches ratio 1/2 on {bob} of {len(suite)} cells. Criterion "
        + ("met" if met else "not met")
        + " on our family, as our construction implies; this says nothing about the "
        "paper's bound, nor about algorithms we did not write."
    )


def estimator_reading(
    est_q: Mapping, q90: Mapping, n: int, k: int, slope: float
) -> str:
    """Our estimator's q* over the grid (`est_q`), and at (n, k) the least budget with 90 %
    of seeds within a factor 2 per weight shape (`q90`)."""
    per_nk = [q / (nn / kk) for (nn, kk), q in est_q.items()]
    return (
        f"On the planted family our estimator's q* grows like (n/k)^{slope:.2f}, at "
        f"{min(per_nk):.2f}–{max(per_nk):.2f} times n/k. At n = {n}, k = {k}: uniform "
        f"weights need {q90['uniform'] / (n / k):.2g} n/k, Pareto weights "
        f"{q90['pareto'] / n:.2g} n and the rare heavy ones "
        f"{q90['rare heavy'] / n:.2g} n."
    )


def natural_reach_line(name: str, n: int, nat: NaturalCurves) -> str:
    """Random k's share of greedy's value on one natural instance, and each algorithm's
    least budget / n reaching 90 % of greedy."""
    return (
        f"{name} (n = {n}): random k gets {nat.curves['random k'][1][0]:.2f} of "
        f"greedy's value; least budget / n at which the mean reaches 90 % of "
        f"greedy:\n  "
        + ", ".join(
            f"{a} {v:.3f}" if np.isfinite(v) else f"{a} never (q ≤ 2n)"
            for a, v in nat.reach.items()
        )
    )


def natural_summary_lines(natural: Mapping[str, NaturalCurves]) -> list[str]:
    """Per natural instance: random k, the first algorithm to 90 %, those that never get
    there and the largest rise per doubling of the budget; then whether one algorithm is
    first on all."""
    lines = []
    for name, nat in natural.items():
        reach, curves = nat.reach, nat.curves
        first = min(reach, key=reach.get)
        never = [a for a, v in reach.items() if not np.isfinite(v)]
        rise = max(
            float(np.max(np.diff(r))) for _, (_, r) in curves.items() if len(r) > 1
        )
        lines.append(
            f"{name}: random k {curves['random k'][1][0]:.2f} of greedy; first to 90 %: "
            f"{first} at {reach[first]:.3f} n; never (q ≤ 2n): "
            f"{', '.join(never) if never else 'none'}; largest rise per doubling {rise:.2f}"
        )
    firsts = {min(nat.reach, key=nat.reach.get) for nat in natural.values()}
    lines.append(
        "The same algorithm is first on both instances."
        if len(firsts) == 1
        else "No single algorithm of ours is first on both, which is why the suite holds "
        "several."
    )
    return lines
