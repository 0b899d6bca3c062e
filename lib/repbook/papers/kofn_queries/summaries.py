"""What the chapter reads from the protocols' tables: the best of our suite on a family and the
fits of its q* (`fit_family`), the tables as printed (`suite_table`, `estimator_table`), the
curves on a natural instance against greedy (`natural_curves`) and the peer packages' greedy
(`peer_greedy`). No printing, plotting or file writing."""

from __future__ import annotations

import time
import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from repbook.core import checks

from .algorithms import greedy
from .functions import SetFunction
from .protocols import RngFactory, equal_seed_best, fit_slopes, ratio_curves


@dataclass(frozen=True)
class FamilyFit:
    """The best algorithm of our suite on each (n, k) of a family's grid, and the fits of its
    q*: plain (log q* = a + b log n + c log k), with a polylog allowance (b, c on
    log(n / ln^p n) and log k), and the same with every algorithm judged on equal seeds."""

    best: dict  # (n, k) -> the least q* over the suite
    winner: dict  # (n, k) -> the algorithm with that q*
    b: float
    c: float
    b_polylog: float
    c_polylog: float
    equal: dict  # (n, k) -> the least q*, every algorithm on the first grid_seeds seeds
    b_equal: float  # the polylog fit of `equal`
    c_equal: float

    @property
    def differ(self) -> int:
        """On how many cells the equal-seed best differs from the judged best."""
        return sum(self.best[nk] != self.equal[nk] for nk in self.best)


def fit_family(
    suite: Mapping, hits: Mapping, grid_seeds: int, *, polylog: float
) -> FamilyFit:
    """`FamilyFit` of ``q_star_table(..., return_hits=True)``'s (suite, hits)."""
    if not suite:
        raise ValueError("suite must hold at least one cell")
    best = {nk: min(v.values()) for nk, v in suite.items()}
    winner = {nk: min(v, key=v.get) for nk, v in suite.items()}
    b, c = fit_slopes(best)
    b_p, c_p = fit_slopes(best, polylog=polylog)
    equal = equal_seed_best(suite, hits, grid_seeds)
    b_e, c_e = fit_slopes(equal, polylog=polylog)
    return FamilyFit(best, winner, b, c, b_p, c_p, equal, b_e, c_e)


def suite_table(suite: Mapping) -> str:
    """The q* of every algorithm per (n, k), one row per cell (inf: never reached)."""
    if not suite:
        raise ValueError("suite must hold at least one cell")
    names = next(iter(suite.values()))
    lines = [f"{'n':>6} {'k':>3} " + " ".join(f"{a:>17}" for a in names)]
    for (n, k), v in suite.items():
        lines.append(f"{n:>6} {k:>3} " + " ".join(f"{x:>17,.0f}" for x in v.values()))
    return "\n".join(lines)


def estimator_table(est_q: Mapping) -> str:
    """The estimator's q* per (n, k), with n/k and q*/(n/k)."""
    lines = [f"{'n':>6} {'k':>3} {'n/k':>7} {'q*':>8} {'q*/(n/k)':>9}"]
    for (n, k), q in est_q.items():
        lines.append(f"{n:>6} {k:>3} {n / k:>7.1f} {q:>8,.0f} {q / (n / k):>9.2f}")
    return "\n".join(lines)


@dataclass(frozen=True)
class NaturalCurves:
    """Mean f(S)/f(greedy) against the budget on one instance (`ratio_curves`' curves and
    points), and `reach`: per budgeted algorithm but random k, the least budget / n at which
    the mean reaches `level` of greedy's value (inf if never, within q ≤ 2n)."""

    curves: dict
    points: dict
    reach: dict


def natural_curves(
    fn: SetFunction,
    k: int,
    *,
    child_rng: RngFactory,
    seeds: int,
    stream: int,
    level: float = 0.9,
) -> NaturalCurves:
    """`ratio_curves` on the one instance `fn`, against greedy's value (its OPT is unknown),
    one budget per octave up to 2n."""
    level = checks.number("level", level, above=0)
    ref = greedy(fn, k).value
    curves, points = ratio_curves(
        lambda g, fn=fn: fn,
        lambda fn, ref=ref: ref,
        fn.n,
        k,
        child_rng=child_rng,
        seeds=seeds,
        stream=stream,
        per_octave=1,
        q_max=2 * fn.n,
    )
    reach = {
        alg: qs[np.argmax(r >= level)] / fn.n if np.any(r >= level) else np.inf
        for alg, (qs, r) in curves.items()
        if alg != "random k"
    }
    return NaturalCurves(curves, points, reach)


def peer_greedy(similarity, k: int) -> dict[str, tuple[list[int], float]]:
    """Naive greedy facility location by the peer packages apricot and submodlib on a dense
    similarity matrix: {peer: (selected indices, seconds)}; apricot's seconds include its
    numba compilation on first use."""
    sim = checks.array("similarity", similarity, ndim=2)
    if sim.shape[0] != sim.shape[1]:
        raise ValueError(
            f"similarity must be square (dense mode), got shape {sim.shape}"
        )
    k = checks.integer("k", k, at_least=1, at_most=sim.shape[1])
    from submodlib import FacilityLocationFunction

    t0 = time.perf_counter()
    with warnings.catch_warnings():
        # apricot 0.6.1 imports tqdm's notebook widget and numba; neither affects results
        warnings.simplefilter("ignore")
        from apricot import FacilityLocationSelection

        apricot_sel = FacilityLocationSelection(
            k, metric="precomputed", optimizer="naive", verbose=False
        ).fit(similarity)
    t_apricot = time.perf_counter() - t0
    t0 = time.perf_counter()
    sub_fn = FacilityLocationFunction(
        n=sim.shape[0], mode="dense", sijs=similarity, separate_rep=False
    )
    sub_sel = sub_fn.maximize(
        budget=k,
        optimizer="NaiveGreedy",
        stopIfZeroGain=False,
        stopIfNegativeGain=False,
        verbose=False,
        show_progress=False,
    )
    t_sub = time.perf_counter() - t0
    return {
        "apricot": ([int(i) for i in apricot_sel.ranking], t_apricot),
        "submodlib": ([i for i, _ in sub_sel], t_sub),
    }
