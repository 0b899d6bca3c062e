"""The query oracle, the query counts and the algorithms (greedy, lazy, stochastic and
subsample greedy, random k, top singletons, best of blocks; `run_budgeted` fits a budget q).
Every algorithm returns a `Selection` (indices, referee value, queries used)."""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from repbook.core import checks

from .functions import _check_fn, _k, _subset

ALGORITHMS = (
    "top singletons",
    "best of blocks",
    "stochastic greedy",
    "subsample greedy",
    "random k",
)
"""Algorithms that fit any budget q (``run_budgeted``); greedy and lazy greedy have fixed costs."""


# ----------------------------------------------------------------------------------------------
# the oracle
class BudgetExceeded(RuntimeError):
    """An algorithm asked for more queries than its budget allows."""


class QueryOracle:
    """Counts value queries to a set function (see the package docstring for the query model).

    ``value(S)`` costs one query; ``extend(state, cands)`` returns f(S + e) for each candidate e of
    the current set S and costs len(cands) queries. With ``budget`` set, a call that would exceed
    it raises ``BudgetExceeded`` before evaluating anything.
    """

    def __init__(self, fn, budget: int | None = None):
        _check_fn(fn)
        self.fn = fn
        self.budget = (
            None if budget is None else checks.integer("budget", budget, at_least=0)
        )
        self.queries = 0

    def _charge(self, count: int) -> None:
        if self.budget is not None and self.queries + count > self.budget:
            raise BudgetExceeded(
                f"{self.queries} + {count} queries exceed the budget {self.budget}"
            )
        self.queries += count

    def value(self, S) -> float:
        self._charge(1)
        return self.fn.value(S)

    def values(self, rows) -> np.ndarray:
        """f of each row of a 2-D array of equal-size sets: one query per row."""
        rows = np.asarray(rows, dtype=np.int64)
        if rows.ndim != 2:
            raise ValueError(
                f"rows must be a 2-D array of sets, got shape {rows.shape}"
            )
        for r in rows[:1]:
            _subset(r, self.fn.n)
        self._charge(rows.shape[0])
        return np.asarray(self.fn._values(rows), dtype=np.float64)

    def start(self):
        return self.fn._start()

    def extend(self, state, cands) -> np.ndarray:
        cands = np.asarray(cands, dtype=np.int64)
        self._charge(int(cands.size))
        return np.asarray(self.fn._extend(state, cands), dtype=np.float64)

    def add(self, state, e, new_value) -> None:
        self.fn._add(state, e, new_value)


@dataclass(frozen=True)
class Selection:
    """An algorithm's output: the chosen indices, f of them (by the referee) and queries used."""

    indices: np.ndarray
    value: float
    queries: int


def _selection(fn, indices, queries: int) -> Selection:
    idx = np.asarray(indices, dtype=np.int64)
    return Selection(idx, fn.value(idx), int(queries))


# ----------------------------------------------------------------------------------------------
# query counts
def greedy_queries(n: int, k: int) -> int:
    """Greedy's exact count: step i (0-based) queries the n - i remaining elements."""
    n = checks.integer("n", n, at_least=1)
    k = _k(k, n)
    return n * k - k * (k - 1) // 2


def stochastic_greedy_sample_size(n: int, k: int, epsilon: float) -> int:
    """ceil((n/k) ln(1/epsilon)) elements per step (Mirzasoleiman et al. 2015)."""
    n = checks.integer("n", n, at_least=1)
    k = _k(k, n)
    if not (isinstance(epsilon, (int, float)) and 0 < epsilon < 1):
        raise ValueError(f"epsilon must lie in (0, 1), got {epsilon!r}")
    return max(1, math.ceil(n / k * math.log(1 / epsilon)))


def stochastic_greedy_queries(n: int, k: int, sample_size: int) -> int:
    """Exact count: step i queries min(sample_size, n - i) elements."""
    n = checks.integer("n", n, at_least=1)
    k = _k(k, n)
    s = checks.integer("sample_size", sample_size, at_least=1)
    return sum(min(s, n - i) for i in range(k))


def min_budget(name: str, n: int, k: int) -> int:
    """The least budget ``run_budgeted`` accepts for algorithm ``name``."""
    n = checks.integer("n", n, at_least=1)
    k = _k(k, n)
    if name not in ALGORITHMS:
        raise ValueError(f"algorithm must be one of {ALGORITHMS}, got {name!r}")
    return {
        "top singletons": 1,
        "best of blocks": 1,
        "stochastic greedy": k,
        "subsample greedy": greedy_queries(k, k),
        "random k": 0,
    }[name]


# ----------------------------------------------------------------------------------------------
# algorithms
def _greedy_on(oracle: QueryOracle, pool: np.ndarray, k: int) -> list[int]:
    state = oracle.start()
    remaining = np.asarray(pool, dtype=np.int64)
    for _ in range(k):
        vals = oracle.extend(state, remaining)
        j = int(np.argmax(vals))
        oracle.add(state, remaining[j], vals[j])
        remaining = np.delete(remaining, j)
    return state.members


def greedy(fn, k: int) -> Selection:
    """Nemhauser-Wolsey-Fisher greedy: add the element of largest gain, k times.

    Queries: n k - k(k-1)/2 exactly (``greedy_queries``). Ties go to the lowest index.
    """
    _check_fn(fn)
    k = _k(k, fn.n)
    oracle = QueryOracle(fn)
    chosen = _greedy_on(oracle, np.arange(fn.n), k)
    return _selection(fn, chosen, oracle.queries)


def lazy_greedy(fn, k: int) -> Selection:
    """Minoux's lazy greedy: gains only shrink (submodularity), so re-evaluate the top stale bound.

    Same output as greedy up to ties; n queries for the first step, then one per re-evaluation, so
    never more than greedy's count. Ties go to the lowest index.
    """
    _check_fn(fn)
    k = _k(k, fn.n)
    oracle = QueryOracle(fn)
    state = oracle.start()
    vals = oracle.extend(state, np.arange(fn.n))
    heap = [
        (-float(v), int(e), 0) for e, v in enumerate(vals)
    ]  # (−bound, e, step evaluated)
    heapq.heapify(heap)
    for step in range(k):
        while True:
            neg, e, when = heapq.heappop(heap)
            if when == step:
                oracle.add(state, e, state.value - neg)
                break
            v = oracle.extend(state, [e])[0]
            heapq.heappush(heap, (-(float(v) - state.value), e, step))
    return _selection(fn, state.members, oracle.queries)


def stochastic_greedy(
    fn,
    k: int,
    rng: np.random.Generator,
    *,
    epsilon: float | None = None,
    sample_size: int | None = None,
) -> Selection:
    """Stochastic greedy (Mirzasoleiman et al. 2015): each step, the best of a random sample.

    Give ``epsilon`` (sample size ceil((n/k) ln(1/epsilon)), expected ratio >= 1 - 1/e - epsilon)
    or ``sample_size`` directly. Samples are drawn without replacement from the remaining
    elements; queries: ``stochastic_greedy_queries(n, k, sample_size)`` exactly.
    """
    _check_fn(fn)
    k = _k(k, fn.n)
    rng = checks.generator("rng", rng)
    if (epsilon is None) == (sample_size is None):
        raise ValueError("give exactly one of epsilon and sample_size")
    s = (
        stochastic_greedy_sample_size(fn.n, k, epsilon)
        if sample_size is None
        else checks.integer("sample_size", sample_size, at_least=1)
    )
    oracle = QueryOracle(fn)
    state = oracle.start()
    remaining = np.arange(fn.n)
    for _ in range(k):
        pick = rng.choice(remaining.size, size=min(s, remaining.size), replace=False)
        vals = oracle.extend(state, remaining[pick])
        j = int(pick[int(np.argmax(vals))])
        oracle.add(state, remaining[j], vals.max())
        remaining = np.delete(remaining, j)
    return _selection(fn, state.members, oracle.queries)


def subsample_greedy(fn, k: int, rng: np.random.Generator, *, m: int) -> Selection:
    """Greedy on m elements drawn at random: m k - k(k-1)/2 queries exactly (k <= m <= n)."""
    _check_fn(fn)
    k = _k(k, fn.n)
    rng = checks.generator("rng", rng)
    m = checks.integer("m", m, at_least=k, at_most=fn.n)
    oracle = QueryOracle(fn)
    pool = np.sort(rng.choice(fn.n, size=m, replace=False))
    chosen = _greedy_on(oracle, pool, k)
    return _selection(fn, chosen, oracle.queries)


def random_k(fn, k: int, rng: np.random.Generator) -> Selection:
    """k elements at random: 0 queries (the referee measures the value)."""
    _check_fn(fn)
    k = _k(k, fn.n)
    return _selection(
        fn, checks.generator("rng", rng).choice(fn.n, size=k, replace=False), 0
    )


def top_singletons(fn, k: int, rng: np.random.Generator, *, budget: int) -> Selection:
    """Query f({e}) for ``budget`` random elements (a fixed random order) and keep the k best.

    Nested in the budget: the same rng gives the same order for every budget, so a larger budget
    sees a superset. Returns fewer than k elements if budget < k. Queries: min(budget, n).
    """
    _check_fn(fn)
    k = _k(k, fn.n)
    q = checks.integer("budget", budget, at_least=1)
    order = checks.generator("rng", rng).permutation(fn.n)[: min(q, fn.n)]
    oracle = QueryOracle(fn, budget=q)
    vals = oracle.extend(oracle.start(), order)
    keep = order[np.argsort(-vals, kind="stable")[:k]]
    return _selection(fn, keep, oracle.queries)


def best_of_blocks(fn, k: int, rng: np.random.Generator, *, budget: int) -> Selection:
    """Random search over feasible sets: split a random order into disjoint k-blocks, query the
    first ``budget`` blocks (one query each) and keep the best.

    Nested in the budget like ``top_singletons``. Queries: min(budget, ceil(n/k)).
    """
    _check_fn(fn)
    k = _k(k, fn.n)
    q = checks.integer("budget", budget, at_least=1)
    order = checks.generator("rng", rng).permutation(fn.n)
    full = fn.n // k
    rows = order[: min(q, full) * k].reshape(-1, k)
    oracle = QueryOracle(fn, budget=q)
    vals = list(oracle.values(rows)) if len(rows) else []
    blocks = list(rows)
    if q > full and fn.n % k:  # the last, shorter block
        blocks.append(order[full * k :])
        vals.append(oracle.value(blocks[-1]))
    return _selection(fn, blocks[int(np.argmax(vals))], oracle.queries)


def run_budgeted(
    name: str, fn, k: int, budget: int, rng: np.random.Generator
) -> Selection:
    """Run algorithm ``name`` (one of ALGORITHMS), its parameter chosen to use <= budget queries.

    stochastic greedy: sample size floor(budget/k); subsample greedy: the largest m with
    m k - k(k-1)/2 <= budget; top singletons and best of blocks: the budget itself; random k: none.
    A budget below ``min_budget(name, n, k)`` is an error.
    """
    _check_fn(fn)
    k = _k(k, fn.n)
    need = min_budget(name, fn.n, k)
    q = checks.integer("budget", budget, at_least=0)
    if q < need:
        raise ValueError(
            f"budget {q} is below the minimum {need} of {name!r} (n={fn.n}, k={k})"
        )
    if name == "top singletons":
        return top_singletons(fn, k, rng, budget=q)
    if name == "best of blocks":
        return best_of_blocks(fn, k, rng, budget=q)
    if name == "stochastic greedy":
        return stochastic_greedy(fn, k, rng, sample_size=q // k)
    if name == "subsample greedy":
        m = min(fn.n, (q + k * (k - 1) // 2) // k)
        return subsample_greedy(fn, k, rng, m=m)
    return random_k(fn, k, rng)


def brute_force_opt(fn, k: int) -> Selection:
    """OPT by enumerating every k-set (f monotone, so |S| = k suffices); n <= 25 only.

    ``queries`` is the number of sets evaluated, C(n, k).
    """
    _check_fn(fn)
    n = fn.n
    if n > 25:
        raise ValueError(f"brute force is for n <= 25, got n={n}")
    k = _k(k, n)
    best, best_set, count = -math.inf, None, 0
    for combo in itertools.combinations(range(n), k):
        v = fn.value(np.array(combo))
        count += 1
        if v > best:
            best, best_set = v, combo
    return Selection(np.array(best_set, dtype=np.int64), float(best), count)


def least_budget(
    ratio_at: Callable[[int], float], target: float, lo: int, hi: int
) -> int | None:
    """The least q in [lo, hi] with ratio_at(q) >= target, by bisection.

    None if ratio_at(hi) < target.

    Valid only for a ratio that never decreases with q, as for the nested algorithms
    (``top_singletons``, ``best_of_blocks``) with a fixed rng seed.
    """
    if not callable(ratio_at):
        raise TypeError(f"ratio_at must be callable, got {type(ratio_at).__name__}")
    if (
        isinstance(target, bool)
        or not isinstance(target, (int, float, np.floating))
        or not math.isfinite(target)
    ):
        raise ValueError(f"target must be a finite number, got {target!r}")
    lo, hi = checks.integer("lo", lo, at_least=0), checks.integer("hi", hi, at_least=0)
    if lo > hi:
        raise ValueError(f"need lo <= hi, got lo={lo}, hi={hi}")
    if ratio_at(hi) < target:
        return None
    while lo < hi:
        mid = (lo + hi) // 2
        if ratio_at(mid) >= target:
            hi = mid
        else:
            lo = mid + 1
    return lo
