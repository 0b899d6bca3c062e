"""The chapter's experiment protocols: q* of every algorithm on a family and over an (n, k)
grid, ratio curves against the budget, slope fits, the estimator's q* and success curves, and
greedy against brute force. No printing, plotting or file writing."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from repbook.core import checks

from .algorithms import (
    ALGORITHMS,
    best_of_blocks,
    brute_force_opt,
    greedy,
    greedy_queries,
    lazy_greedy,
    least_budget,
    min_budget,
    run_budgeted,
    stochastic_greedy,
    top_singletons,
)
from .functions import (
    Additive,
    FacilityLocation,
    HiddenElement,
    SetFunction,
    _k,
    _nonnegative,
)
from .instances import (
    additive_instance,
    additive_opt,
    coverage_instance,
    hidden_element_instance,
    level_estimate,
    sampled_level_estimates,
)


# --------------------------------------------------------------------------------------
# experiment protocols (the chapter's sweeps)
#
# Every protocol takes ``child_rng``, a callable from a stream number to a fresh
# numpy.random.Generator (the chapter passes ``run.child_rng``), and a ``stream``
# base: the instance of seed s comes from stream + s, the algorithms' randomness from
# fixed offsets of it, so one call is reproducible on its own, whatever ran before.
RngFactory = Callable[[int], np.random.Generator]

TARGET = 0.5
"""The ratio f(S)/OPT a selection must reach to count (claims 1 and 2)."""

NESTED = ("best of blocks", "top singletons")
"""Budgeted algorithms whose output at budget q sees a superset of what it saw at
q - 1 (for a fixed rng): their least successful budget is found by bisection."""

GRIDDED = ("stochastic greedy", "subsample greedy")
"""Budgeted algorithms scanned on a grid of budgets (not nested)."""

_NESTED_ALG = {"best of blocks": best_of_blocks, "top singletons": top_singletons}
_MAX_SEEDS = 1000  # per-seed streams are offsets below 1000 of fixed bases
_MAX_KS = 10  # cells (n_i, k_j) use streams 10 i + j


def _factory(child_rng) -> RngFactory:
    return checks.function(
        "child_rng", child_rng, "callable (stream -> numpy.random.Generator)"
    )


def _seeds(name: str, seeds) -> int:
    return checks.integer(name, seeds, at_least=1, at_most=_MAX_SEEDS)


def budget_grid(lo: int, hi: int, per_octave: int = 4) -> np.ndarray:
    """Distinct integer budgets from lo to hi, spaced by a factor 2^(1/per_octave).

    Bounds below 1 are raised to 1; both ends are included (after rounding).
    """
    lo, hi = checks.integer("lo", lo), checks.integer("hi", hi)
    per_octave = checks.integer("per_octave", per_octave, at_least=1)
    lo, hi = max(lo, 1), max(hi, 1)
    if lo > hi:
        raise ValueError(f"need lo <= hi, got lo={lo}, hi={hi}")
    steps = int(np.ceil(per_octave * np.log2(hi / lo))) + 1
    return np.unique(np.round(np.geomspace(lo, hi, steps)).astype(int))


def upper_half(hits: Sequence[int | float | None]) -> float:
    """The least budget by which at least half of the seeds succeed (inf if none).

    ``hits`` holds each seed's least successful budget, None (or inf) where it never
    succeeded.
    """
    if len(hits) == 0:
        raise ValueError("hits is empty")
    h = np.sort(np.array([np.inf if x is None else x for x in hits], dtype=float))
    return float(h[math.ceil(len(h) / 2) - 1])


def q_star_suite(
    make: Callable[[np.random.Generator], SetFunction],
    opt_of: Callable[[SetFunction], float],
    n: int,
    k: int,
    *,
    child_rng: RngFactory,
    stream: int,
    seeds: int,
    grid_seeds: int,
    target: float = TARGET,
    return_hits: bool = False,
):
    """q* of every algorithm in our suite on the instances make(child_rng(stream + s)).

    q* is the least budget at which the output reaches f(S) >= target OPT
    (OPT = opt_of(fn)) in at least half of the instances. The nested algorithms are
    bisected per seed on all ``seeds`` instances (top singletons up to n queries, best
    of blocks up to ceil(n/k)); the gridded ones are scanned on ``budget_grid`` from
    their minimum budget to greedy's cost, on the first ``grid_seeds`` instances;
    greedy has its fixed cost or inf. Keys: NESTED, GRIDDED, "greedy"; inf where never
    reached. With ``return_hits``, returns (q*, hits): hits[name] lists, for each
    nested algorithm, every seed's least successful budget (inf where never), so that
    its q* on the first ``grid_seeds`` seeds alone costs nothing more
    (``equal_seed_best``).
    """
    if not isinstance(return_hits, bool):
        raise TypeError("return_hits must be True or False")
    n = checks.integer("n", n, at_least=1)
    k = _k(k, n)
    child_rng = _factory(child_rng)
    stream = checks.integer("stream", stream, at_least=0)
    seeds = _seeds("seeds", seeds)
    grid_seeds = checks.integer("grid_seeds", grid_seeds, at_least=1, at_most=seeds)
    out: dict[str, float] = {}
    all_hits: dict[str, list[float]] = {}
    inst = [make(child_rng(stream + s)) for s in range(seeds)]
    opts = [opt_of(fn) for fn in inst]
    for a, name in enumerate(NESTED):
        alg = _NESTED_ALG[name]
        hi = n if name == "top singletons" else math.ceil(n / k)
        hits = []
        for s, (fn, opt) in enumerate(zip(inst, opts)):
            alg_stream = stream + 50_000 + 1000 * a + s  # the same order for every q

            def ratio_at(q, fn=fn, opt=opt, alg=alg, alg_stream=alg_stream):
                return alg(fn, k, child_rng(alg_stream), budget=q).value / opt

            hits.append(least_budget(ratio_at, target, 1, hi))
        out[name] = upper_half(hits)
        all_hits[name] = [math.inf if h is None else float(h) for h in hits]
    few = range(grid_seeds)
    for a, name in enumerate(GRIDDED):
        out[name] = np.inf
        for q in budget_grid(min_budget(name, n, k), greedy_queries(n, k)):
            ok = [
                run_budgeted(
                    name, inst[s], k, int(q), child_rng(stream + 90_000 + 1000 * a + s)
                ).value
                >= target * opts[s]
                for s in few
            ]
            if np.mean(ok) >= 0.5:
                out[name] = float(q)
                break
    ok = [greedy(inst[s], k).value >= target * opts[s] for s in few]
    out["greedy"] = float(greedy_queries(n, k)) if np.mean(ok) >= 0.5 else np.inf
    return (out, all_hits) if return_hits else out


def q_star_table(
    family: Callable[[int, int], Callable[[np.random.Generator], SetFunction]],
    ns: Sequence[int],
    ks: Sequence[int],
    *,
    child_rng: RngFactory,
    stream: int,
    seeds: int,
    grid_seeds: int,
    target: float = TARGET,
    return_hits: bool = False,
):
    """``q_star_suite`` on every (n, k) of the grid ns x ks, OPT from ``family_opt``.

    ``family(n, k)`` gives the instance maker (``hidden_family``,
    ``planted_family``); cell (ns[i], ks[j]) uses the streams from
    stream + 100000 (10 i + j). With ``return_hits``, returns (table, hits), hits
    keyed by cell as ``q_star_suite`` gives them.
    """
    if not isinstance(return_hits, bool):
        raise TypeError("return_hits must be True or False")
    if len(ks) > _MAX_KS:
        raise ValueError(
            f"at most {_MAX_KS} values of k (streams 10 i + j), got {len(ks)}"
        )
    table, hits = {}, {}
    for i, n in enumerate(ns):
        for j, k in enumerate(ks):
            table[n, k], hits[n, k] = q_star_suite(
                family(n, k),
                lambda fn, k=k: family_opt(fn, k),
                n,
                k,
                child_rng=child_rng,
                stream=stream + 100_000 * (10 * i + j),
                seeds=seeds,
                grid_seeds=grid_seeds,
                target=target,
                return_hits=True,
            )
    return (table, hits) if return_hits else table


def equal_seed_best(table, hits, grid_seeds: int) -> dict[tuple[int, int], float]:
    """The best algorithm's q* per cell with every algorithm judged on the same seeds.

    ``table`` and ``hits`` come from ``q_star_table(..., return_hits=True)``: the
    gridded algorithms and greedy were judged on the first ``grid_seeds`` seeds, the
    nested ones on all; here the nested ones' q* is recomputed (``upper_half``) on the
    first ``grid_seeds`` seeds, and the minimum over the suite taken.
    """
    grid_seeds = checks.integer("grid_seeds", grid_seeds, at_least=1)
    if set(table) != set(hits):
        raise ValueError("table and hits must have the same cells")
    out = {}
    for cell, qs in table.items():
        per = dict(qs)
        for name, h in hits[cell].items():
            if len(h) < grid_seeds:
                raise ValueError(
                    f"cell {cell}: {name} has {len(h)} seeds, fewer than "
                    f"grid_seeds={grid_seeds}"
                )
            per[name] = upper_half(h[:grid_seeds])
        out[cell] = min(per.values())
    return out


def ratio_curves(
    make: Callable[[np.random.Generator], SetFunction],
    opt_of: Callable[[SetFunction], float],
    n: int,
    k: int,
    *,
    child_rng: RngFactory,
    seeds: int,
    stream: int,
    per_octave: int = 2,
    q_max: int | None = None,
):
    """Mean ratio f(S)/OPT against the budget, for every algorithm in ALGORITHMS.

    Budgets: ``budget_grid`` from each algorithm's minimum to ``q_max`` (default
    greedy's cost); random k at budget 1 only; an algorithm whose minimum exceeds q_max
    is left out. Returns (curves, points): curves[name] = (budgets, mean ratios over
    ``seeds`` instances make(child_rng(stream + s))); points[name] = (mean queries,
    mean ratio) of greedy and lazy greedy on the first min(5, seeds) instances (their
    costs are fixed).
    """
    n = checks.integer("n", n, at_least=1)
    k = _k(k, n)
    child_rng = _factory(child_rng)
    seeds = _seeds("seeds", seeds)
    stream = checks.integer("stream", stream, at_least=0)
    inst = [make(child_rng(stream + s)) for s in range(seeds)]
    opts = np.array([opt_of(fn) for fn in inst])
    curves = {}
    q_max = q_max or greedy_queries(n, k)
    for a, name in enumerate(ALGORITHMS):
        lo = max(1, min_budget(name, n, k))
        if lo > q_max:
            continue
        qs = budget_grid(lo, q_max, per_octave) if name != "random k" else np.array([1])
        r = [
            [
                run_budgeted(
                    name, fn, k, int(q), child_rng(stream + 7000 + 100 * a + s)
                ).value
                / opts[s]
                for s, fn in enumerate(inst)
            ]
            for q in qs
        ]
        curves[name] = (qs, np.mean(r, axis=1))
    few = range(min(5, seeds))
    fixed = {
        "greedy": [greedy(inst[s], k) for s in few],
        "lazy greedy": [lazy_greedy(inst[s], k) for s in few],
    }
    points = {
        name: (
            np.mean([s.queries for s in sels]),
            np.mean([s.value for s in sels] / opts[: len(sels)]),
        )
        for name, sels in fixed.items()
    }
    return curves, points


def fit_slopes(table, polylog: float = 0.0) -> tuple[float, float]:
    """Least squares log q* = a + b log(n / ln^p n) + c log k over the finite q* of
    {(n, k): q*}, with p = ``polylog`` (0: the plain slope on log n).

    With p > 0 a q* proportional to n / ln^p n has b = 1: the fit allows a factor
    ln^p n below linear. Returns (b, c); (nan, nan) with fewer than 4 finite cells.
    """
    p = float(polylog)
    if not (math.isfinite(p) and p >= 0):
        raise ValueError(f"polylog must be a finite number >= 0, got {polylog!r}")
    rows = [(n, k, q) for (n, k), q in table.items() if np.isfinite(q)]
    if len(rows) < 4:
        return math.nan, math.nan
    n_, k_, q_ = (np.array(c, dtype=float) for c in zip(*rows))
    if p > 0 and np.any(n_ <= math.e):
        raise ValueError("polylog > 0 needs every n > e (ln n > 1)")
    x = np.log(n_) - p * np.log(np.log(n_)) if p > 0 else np.log(n_)
    A = np.column_stack([np.ones_like(n_), x, np.log(k_)])
    coef = np.linalg.lstsq(A, np.log(q_), rcond=None)[0]
    return float(coef[1]), float(coef[2])


def ratio_slope(table) -> float:
    """Least-squares slope of log q* on log(n/k) over the finite q* of {(n, k): q*}
    (nan with fewer than 2 distinct n/k)."""
    rows = [(n / k, q) for (n, k), q in table.items() if np.isfinite(q)]
    if len({r for r, _ in rows}) < 2:
        return math.nan
    r_, q_ = (np.log(np.array(c, dtype=float)) for c in zip(*rows))
    return float(np.polyfit(r_, q_, 1)[0])


def hidden_family(n: int, k: int) -> Callable[[np.random.Generator], HiddenElement]:
    """The maker rng -> ``hidden_element_instance(n, k, rng)`` (claim 1's family)."""
    return lambda g: hidden_element_instance(n, k, g)


def planted_family(n: int, k: int) -> Callable[[np.random.Generator], Additive]:
    """The maker rng -> ``additive_instance("planted", n, k, rng)`` (claim 2's)."""
    return lambda g: additive_instance("planted", n, k, g)


def family_opt(fn, k: int) -> float:
    """OPT of a k-selection on our families: ``additive_opt`` for ``Additive``; for
    ``HiddenElement`` 1 with x* planted (a k-set with x* saturates), min(1, k/m)
    without."""
    if isinstance(fn, Additive):
        return additive_opt(fn.weights, k)
    if isinstance(fn, HiddenElement):
        k = _k(k, fn.n)
        return 1.0 if fn.star >= 0 else min(1.0, k / fn.m)
    raise TypeError(
        f"fn must be an Additive or HiddenElement instance, got {type(fn).__name__}"
    )


def estimator_success(
    kind: str,
    n: int,
    k: int,
    budgets: Sequence[int],
    *,
    seeds: int,
    child_rng: RngFactory,
    stream: int,
):
    """Our estimator along one random order per seed, on ``additive_instance(kind)``.

    Per budget: the share of seeds whose estimate lies in [OPT/2, 2 OPT]; and the
    (seeds, budgets) array of ratios estimate/OPT. Seed s draws its instance and its
    order from child_rng(stream + s).
    """
    child_rng = _factory(child_rng)
    seeds = _seeds("seeds", seeds)
    ratios = np.empty((seeds, len(budgets)))
    for s in range(seeds):
        g = child_rng(stream + s)
        fn = additive_instance(kind, n, k, g)
        est = sampled_level_estimates(fn.weights, k, budgets, g)
        ratios[s] = est / additive_opt(fn.weights, k)
    ok = (ratios >= 0.5) & (ratios <= 2.0)
    return ok.mean(axis=0), ratios


def q_star_estimator(
    n: int,
    k: int,
    *,
    seeds: int,
    child_rng: RngFactory,
    stream: int,
    share: float = 0.9,
    per_octave: int = 8,
) -> float:
    """Least budget (``budget_grid(1, n, per_octave)``) at which at least ``share``
    of the seeds' estimates lie in [OPT/2, 2 OPT], on the planted family; inf if none.

    Seed s draws its instance and its sampling order from child_rng(stream + s).
    """
    n = checks.integer("n", n, at_least=1)
    k = _k(k, n)
    child_rng = _factory(child_rng)
    seeds = _seeds("seeds", seeds)
    if not (isinstance(share, (int, float)) and 0 < share <= 1):
        raise ValueError(f"share must lie in (0, 1], got {share!r}")
    W, opts = np.empty((seeds, n)), np.empty(seeds)
    for s in range(seeds):
        g = child_rng(stream + s)
        fn = additive_instance("planted", n, k, g)
        W[s] = fn.weights[g.permutation(n)]  # the weights in the order sampled
        opts[s] = additive_opt(fn.weights, k)
    for q in budget_grid(1, n, per_octave=per_octave):
        r = level_estimate(W[:, :q], n, k) / opts
        if np.mean((r >= 0.5) & (r <= 2.0)) >= share:
            return float(q)
    return np.inf


def estimator_q_table(
    ns: Sequence[int],
    ks: Sequence[int],
    *,
    seeds: int,
    child_rng: RngFactory,
    stream: int,
) -> dict[tuple[int, int], float]:
    """``q_star_estimator`` on every (n, k) of ns x ks; cell (ns[i], ks[j]) uses the
    streams from stream + 100000 (10 i + j)."""
    if len(ks) > _MAX_KS:
        raise ValueError(
            f"at most {_MAX_KS} values of k (streams 10 i + j), got {len(ks)}"
        )
    return {
        (n, k): q_star_estimator(
            n,
            k,
            seeds=seeds,
            child_rng=child_rng,
            stream=stream + 100_000 * (10 * i + j),
        )
        for i, n in enumerate(ns)
        for j, k in enumerate(ks)
    }


def greedy_against_brute_force(
    similarity: np.ndarray,
    instances: int,
    rng: np.random.Generator,
    *,
    child_rng: RngFactory,
    stream: int,
    n: int = 14,
    stochastic_seeds: int = 20,
    epsilon: float = 0.1,
) -> tuple[list[float], list[float]]:
    """Greedy/OPT and mean stochastic-greedy/OPT on small instances, OPT by brute force.

    Instance t cycles through coverage, facility location on a random 60 x n block of
    ``similarity``, additive (Pareto 1.2 weights) and the hidden-element family, all
    drawn from ``rng`` in turn, with k = 2 + t mod 3; stochastic greedy (``epsilon``)
    runs ``stochastic_seeds`` times on child_rng(stream + 100 t + s).
    """
    sim = _nonnegative("similarity", similarity)
    if sim.ndim != 2 or sim.shape[0] < 60 or sim.shape[1] < n:
        raise ValueError(
            f"similarity must be a 2-D matrix of at least 60 x {n}, got {sim.shape}"
        )
    instances = checks.integer("instances", instances, at_least=1)
    rng = checks.generator("rng", rng)
    child_rng = _factory(child_rng)
    stochastic_seeds = checks.integer(
        "stochastic_seeds", stochastic_seeds, at_least=1, at_most=100
    )
    greedy_ratio, stoch_ratio = [], []
    for t in range(instances):
        kind = t % 4
        if kind == 0:
            fn = coverage_instance(n, 25, rng, mean_size=3.0)
        elif kind == 1:
            rows = rng.choice(sim.shape[0], 60, replace=False)
            cols = rng.choice(sim.shape[1], n, replace=False)
            fn = FacilityLocation(sim[np.ix_(rows, cols)])
        elif kind == 2:
            fn = Additive(rng.pareto(1.2, n))
        else:
            fn = hidden_element_instance(n, 3, rng)
        k = 2 + t % 3
        opt = brute_force_opt(fn, k).value
        greedy_ratio.append(greedy(fn, k).value / opt)
        stoch = [
            stochastic_greedy(
                fn, k, child_rng(stream + 100 * t + s), epsilon=epsilon
            ).value
            for s in range(stochastic_seeds)
        ]
        stoch_ratio.append(float(np.mean(stoch)) / opt)
    return greedy_ratio, stoch_ratio


def estimator_success_by_kind(
    n: int,
    k: int,
    budgets: Sequence[int],
    *,
    seeds: int,
    child_rng: RngFactory,
    stream: int,
    kinds: Sequence[str] = ("uniform", "pareto", "planted", "rare heavy"),
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """``estimator_success`` for each weight shape of ``kinds``, the a-th from the streams
    stream + 100000 a: {kind: (share of seeds within [OPT/2, 2 OPT] per budget, ratios)}."""
    return {
        kind: estimator_success(
            kind,
            n,
            k,
            budgets,
            seeds=seeds,
            child_rng=child_rng,
            stream=stream + 100_000 * a,
        )
        for a, kind in enumerate(kinds)
    }
