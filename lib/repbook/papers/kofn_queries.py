"""Selecting k out of n with few value queries (chapter 02, ICML 2025; paper not identified).

The problem: a set function f on the ground set {0, ..., n-1}, monotone and submodular (or
additive), is known only through a *value oracle*; pick |S| <= k maximising f(S), or estimate
OPT = max_{|S|<=k} f(S), with as few oracle calls ("queries") as possible.

Query model, decided once for the whole module:

- one query = one evaluation of f on one set; f(empty set) = 0 is known and free;
- an algorithm keeps f(S) of its current set, so a marginal gain f(S + e) - f(S) costs one query;
- there is no cache: asking the same set twice costs two queries (our algorithms never do it,
  except lazy greedy, whose re-evaluations are of new sets);
- the value of an algorithm's output is measured by a referee outside the budget
  (``Selection.value``), so a random k-set costs 0 queries.

Instances (frozen dataclasses with ``n``, ``value(S)`` and an incremental interface used by the
algorithms): ``Additive``, ``Coverage``, ``FacilityLocation``, ``HiddenElement`` (a family of ours,
see there) and ``CallableFunction`` (any small function, e.g. for brute force).

Algorithms return a ``Selection`` (indices, referee value, queries used): ``greedy``
(n k - k(k-1)/2 queries), ``lazy_greedy``, ``stochastic_greedy`` (Mirzasoleiman et al. 2015),
``subsample_greedy``, ``random_k``, ``top_singletons`` and ``best_of_blocks``; ``run_budgeted``
fits a budget q.

The OPT-value estimator for additive f, ``level_estimate``, is *our illustration*, not the paper's
algorithm: from q sampled singleton values, estimate the level counts c_l = #{e : w_e >= 2^l} by
(n/q) times the count in the sample and return sum_l 2^l min(k, c_l). With exact counts it lies
strictly between OPT/2 and 2 OPT.

Everything is numpy/scipy; no printing, plotting or file writing.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import sparse

ALGORITHMS = (
    "top singletons",
    "best of blocks",
    "stochastic greedy",
    "subsample greedy",
    "random k",
)
"""Algorithms that fit any budget q (``run_budgeted``); greedy and lazy greedy have fixed costs."""

ADDITIVE_KINDS = ("uniform", "pareto", "planted", "rare heavy")


# ----------------------------------------------------------------------------------------------
# input checks
def _int(name: str, value, lo: int | None = None, hi: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an int, got {value!r}")
    value = int(value)
    if lo is not None and value < lo:
        raise ValueError(f"{name} must be >= {lo}, got {value}")
    if hi is not None and value > hi:
        raise ValueError(f"{name} must be <= {hi}, got {value}")
    return value


def _k(k, n: int) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise ValueError(f"k must be an int in [1, n={n}], got {k!r}")
    if not 1 <= int(k) <= n:
        raise ValueError(f"k must lie in [1, n={n}], got {k}")
    return int(k)


def _positive(name: str, value) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float, np.integer, np.floating))
        or not math.isfinite(value)
        or value <= 0
    ):
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    return float(value)


def _rng(rng) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"rng must be a numpy.random.Generator, got {type(rng).__name__}"
        )
    return rng


def _nonnegative(name: str, x) -> np.ndarray:
    arr = np.asarray(x, dtype=np.float64)
    if arr.size == 0:
        raise ValueError(f"{name} is empty")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite, got a non-finite entry")
    if np.any(arr < 0):
        raise ValueError(
            f"{name} must be nonnegative (a monotone f needs it), got minimum "
            f"{arr.min():g}"
        )
    return arr


def _subset(S, n: int) -> np.ndarray:
    idx = np.asarray(S, dtype=np.int64).ravel()
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise ValueError(
            f"set indices must lie in [0, {n - 1}], got {idx.min()}..{idx.max()}"
        )
    if np.unique(idx).size != idx.size:
        raise ValueError("a set must not repeat an element")
    return idx


# ----------------------------------------------------------------------------------------------
# set functions
class _State:
    """Mutable working state of one algorithm run (the current set and what f needs about it)."""

    __slots__ = ("members", "value", "aux")

    def __init__(self, aux):
        self.members: list[int] = []
        self.value = 0.0
        self.aux = aux


@dataclass(frozen=True)
class Additive:
    """f(S) = sum of w_e over S, with nonnegative weights w."""

    weights: np.ndarray

    def __post_init__(self):
        object.__setattr__(
            self, "weights", _nonnegative("weights", self.weights).ravel()
        )

    @property
    def n(self) -> int:
        return self.weights.size

    def value(self, S) -> float:
        return float(self.weights[_subset(S, self.n)].sum())

    def _values(self, rows):
        return self.weights[rows].sum(axis=1)

    def _start(self):
        return _State(None)

    def _extend(self, state, cands):
        return state.value + self.weights[cands]

    def _add(self, state, e, new_value):
        state.members.append(int(e))
        state.value = float(new_value)


@dataclass(frozen=True)
class Coverage:
    """f(S) = total weight of the items covered by the sets of S (weighted coverage).

    ``incidence`` is an (n, items) 0/1 matrix (row e = the items element e covers), stored as CSR.
    """

    incidence: sparse.csr_matrix
    item_weights: np.ndarray

    def __post_init__(self):
        inc = sparse.csr_matrix(self.incidence, dtype=np.float64)
        w = _nonnegative("item_weights", self.item_weights).ravel()
        if inc.shape[1] != w.size:
            raise ValueError(
                f"incidence has {inc.shape[1]} items but item_weights has {w.size}"
            )
        if inc.nnz and (
            inc.data.min() < 0 or np.any((inc.data != 0) & (inc.data != 1))
        ):
            raise ValueError("incidence must be a 0/1 matrix")
        object.__setattr__(self, "incidence", inc)
        object.__setattr__(self, "item_weights", w)

    @property
    def n(self) -> int:
        return self.incidence.shape[0]

    def value(self, S) -> float:
        idx = _subset(S, self.n)
        if idx.size == 0:
            return 0.0
        covered = np.asarray(self.incidence[idx].sum(axis=0)).ravel() > 0
        return float(self.item_weights[covered].sum())

    def _values(self, rows):
        b, size = rows.shape
        pick = sparse.csr_matrix(
            (np.ones(rows.size), (np.repeat(np.arange(b), size), rows.ravel())),
            shape=(b, self.n),
        )
        hits = (pick @ self.incidence).tocsr()
        hits.data[:] = 1.0  # covered at least once
        return hits @ self.item_weights

    def _start(self):
        return _State(self.item_weights.copy())  # weight of each item not yet covered

    def _extend(self, state, cands):
        return state.value + self.incidence[cands] @ state.aux

    def _add(self, state, e, new_value):
        state.members.append(int(e))
        state.value = float(new_value)
        state.aux[self.incidence[int(e)].indices] = 0.0


@dataclass(frozen=True)
class FacilityLocation:
    """f(S) = sum over rows i of max_{j in S} sim[i, j] (0 for the empty set), sim >= 0.

    Columns are the n candidates; rows are the points to be represented (often the same points).
    """

    similarity: np.ndarray

    def __post_init__(self):
        sim = _nonnegative("similarity", self.similarity)
        if sim.ndim != 2:
            raise ValueError(f"similarity must be a 2-D matrix, got shape {sim.shape}")
        object.__setattr__(self, "similarity", sim)

    @property
    def n(self) -> int:
        return self.similarity.shape[1]

    def value(self, S) -> float:
        idx = _subset(S, self.n)
        if idx.size == 0:
            return 0.0
        return float(self.similarity[:, idx].max(axis=1).sum())

    def _values(self, rows):
        out = [
            self.similarity[:, chunk].max(axis=2).sum(axis=0)
            for chunk in np.array_split(rows, max(1, len(rows) // 32))
        ]
        return np.concatenate(out)

    def _start(self):
        return _State(
            np.zeros(self.similarity.shape[0])
        )  # best similarity so far, per row

    def _extend(self, state, cands):
        return np.maximum(self.similarity[:, cands], state.aux[:, None]).sum(axis=0)

    def _add(self, state, e, new_value):
        state.members.append(int(e))
        np.maximum(state.aux, self.similarity[:, int(e)], out=state.aux)
        state.value = float(state.aux.sum())


@dataclass(frozen=True)
class HiddenElement:
    """A family of ours: f(S) = min(1, |S minus {x*}| / m + [x* in S]), with x* = ``star``.

    Monotone submodular (a concave function of a nonnegative modular one). Every element is worth
    1/m except the hidden x*, worth 1; sets of m or more elements saturate at 1 and say nothing.
    With m > 2k a k-set reaches ratio 1/2 only if it contains x*. ``star = -1`` is the null
    instance without a hidden element (OPT = k/m), which no query can tell apart from a planted
    one unless a queried set of fewer than m elements contains x*. It forces about n/m queries,
    the order n/k of the earlier lower bound: it is *not* the paper's construction.
    """

    n_elements: int
    m: int
    star: int = -1

    def __post_init__(self):
        n = _int("n_elements", self.n_elements, lo=1)
        _int("m", self.m, lo=1)
        _int("star", self.star, lo=-1, hi=n - 1)

    @property
    def n(self) -> int:
        return self.n_elements

    def value(self, S) -> float:
        idx = _subset(S, self.n)
        has = bool(self.star >= 0 and np.any(idx == self.star))
        return float(min(1.0, (idx.size - has) / self.m + has))

    def _values(self, rows):
        has = (
            (rows == self.star).any(axis=1)
            if self.star >= 0
            else np.zeros(len(rows), bool)
        )
        return np.minimum(1.0, (rows.shape[1] - has) / self.m + has)

    def _start(self):
        return _State(False)  # whether x* is in the current set

    def _extend(self, state, cands):
        size, has = len(state.members), state.aux
        gets = np.asarray(cands) == self.star
        now = has | gets
        return np.minimum(1.0, (size + 1 - now) / self.m + now)

    def _add(self, state, e, new_value):
        state.members.append(int(e))
        state.aux = bool(state.aux or int(e) == self.star)
        state.value = float(new_value)


@dataclass(frozen=True)
class CallableFunction:
    """Any set function given as a Python callable on index arrays (slow; for small n)."""

    n_elements: int
    f: Callable[[np.ndarray], float] = field(repr=False)

    def __post_init__(self):
        _int("n_elements", self.n_elements, lo=1)
        if not callable(self.f):
            raise TypeError(f"f must be callable, got {type(self.f).__name__}")

    @property
    def n(self) -> int:
        return self.n_elements

    def value(self, S) -> float:
        return float(self.f(_subset(S, self.n)))

    def _values(self, rows):
        return np.array([self.value(r) for r in rows])

    def _start(self):
        return _State(None)

    def _extend(self, state, cands):
        base = list(state.members)
        return np.array(
            [self.f(np.array(base + [int(e)], dtype=np.int64)) for e in cands],
            dtype=np.float64,
        )

    def _add(self, state, e, new_value):
        state.members.append(int(e))
        state.value = float(new_value)


SetFunction = Additive | Coverage | FacilityLocation | HiddenElement | CallableFunction


def _check_fn(fn) -> None:
    if not isinstance(
        fn, (Additive, Coverage, FacilityLocation, HiddenElement, CallableFunction)
    ):
        raise TypeError(
            "fn must be one of Additive, Coverage, FacilityLocation, HiddenElement, "
            f"CallableFunction; got {type(fn).__name__}"
        )


def check_monotone_submodular(
    fn, rng: np.random.Generator, *, trials: int = 200, tol: float = 1e-9
) -> None:
    """Spot-check monotonicity and diminishing returns on random S within T and e outside T.

    Raises ValueError naming the first violation found (decreasing values, or a marginal gain that
    grows when the set grows). A pass is evidence, not proof.
    """
    _check_fn(fn)
    rng = _rng(rng)
    trials = _int("trials", trials, lo=1)
    n = fn.n
    if n < 2:
        return
    for _ in range(trials):
        perm = rng.permutation(n)
        t = int(rng.integers(0, n))  # |T| <= n - 1 so that some e lies outside T
        s = int(rng.integers(0, t + 1))
        T, S, e = perm[:t], perm[:s], int(perm[t])
        fS, fT = fn.value(S), fn.value(T)
        gS, gT = fn.value(np.append(S, e)) - fS, fn.value(np.append(T, e)) - fT
        if fT < fS - tol or gT < -tol:
            raise ValueError(
                f"f is not monotone: its values decrease (f(S)={fS:g} for |S|={s}, "
                f"f(T)={fT:g} for |T|={t}, gain of {e} to T = {gT:g})"
            )
        if gT > gS + tol:
            raise ValueError(
                f"f is not submodular: the gain of element {e} grows from {gS:g} "
                f"(|S|={s}) to {gT:g} (|T|={t} containing S)"
            )


# ----------------------------------------------------------------------------------------------
# the oracle
class BudgetExceeded(RuntimeError):
    """An algorithm asked for more queries than its budget allows."""


class QueryOracle:
    """Counts value queries to a set function (see the module docstring for the query model).

    ``value(S)`` costs one query; ``extend(state, cands)`` returns f(S + e) for each candidate e of
    the current set S and costs len(cands) queries. With ``budget`` set, a call that would exceed
    it raises ``BudgetExceeded`` before evaluating anything.
    """

    def __init__(self, fn, budget: int | None = None):
        _check_fn(fn)
        self.fn = fn
        self.budget = None if budget is None else _int("budget", budget, lo=0)
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
    n = _int("n", n, lo=1)
    k = _k(k, n)
    return n * k - k * (k - 1) // 2


def stochastic_greedy_sample_size(n: int, k: int, epsilon: float) -> int:
    """ceil((n/k) ln(1/epsilon)) elements per step (Mirzasoleiman et al. 2015)."""
    n = _int("n", n, lo=1)
    k = _k(k, n)
    if not (isinstance(epsilon, (int, float)) and 0 < epsilon < 1):
        raise ValueError(f"epsilon must lie in (0, 1), got {epsilon!r}")
    return max(1, math.ceil(n / k * math.log(1 / epsilon)))


def stochastic_greedy_queries(n: int, k: int, sample_size: int) -> int:
    """Exact count: step i queries min(sample_size, n - i) elements."""
    n = _int("n", n, lo=1)
    k = _k(k, n)
    s = _int("sample_size", sample_size, lo=1)
    return sum(min(s, n - i) for i in range(k))


def min_budget(name: str, n: int, k: int) -> int:
    """The least budget ``run_budgeted`` accepts for algorithm ``name``."""
    n = _int("n", n, lo=1)
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
    rng = _rng(rng)
    if (epsilon is None) == (sample_size is None):
        raise ValueError("give exactly one of epsilon and sample_size")
    s = (
        stochastic_greedy_sample_size(fn.n, k, epsilon)
        if sample_size is None
        else _int("sample_size", sample_size, lo=1)
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
    rng = _rng(rng)
    m = _int("m", m, lo=k, hi=fn.n)
    oracle = QueryOracle(fn)
    pool = np.sort(rng.choice(fn.n, size=m, replace=False))
    chosen = _greedy_on(oracle, pool, k)
    return _selection(fn, chosen, oracle.queries)


def random_k(fn, k: int, rng: np.random.Generator) -> Selection:
    """k elements at random: 0 queries (the referee measures the value)."""
    _check_fn(fn)
    k = _k(k, fn.n)
    return _selection(fn, _rng(rng).choice(fn.n, size=k, replace=False), 0)


def top_singletons(fn, k: int, rng: np.random.Generator, *, budget: int) -> Selection:
    """Query f({e}) for ``budget`` random elements (a fixed random order) and keep the k best.

    Nested in the budget: the same rng gives the same order for every budget, so a larger budget
    sees a superset. Returns fewer than k elements if budget < k. Queries: min(budget, n).
    """
    _check_fn(fn)
    k = _k(k, fn.n)
    q = _int("budget", budget, lo=1)
    order = _rng(rng).permutation(fn.n)[: min(q, fn.n)]
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
    q = _int("budget", budget, lo=1)
    order = _rng(rng).permutation(fn.n)
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
    q = _int("budget", budget, lo=0)
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
    lo, hi = _int("lo", lo, lo=0), _int("hi", hi, lo=0)
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


# ----------------------------------------------------------------------------------------------
# instances
def additive_opt(weights, k: int) -> float:
    """OPT of an additive f: the sum of the k largest weights."""
    w = _nonnegative("weights", weights).ravel()
    k = _k(k, w.size)
    return float(np.sort(w)[-k:].sum())


def additive_instance(
    kind: str,
    n: int,
    k: int,
    rng: np.random.Generator,
    *,
    heavy: float = 3.0,
    pareto_shape: float = 1.5,
    rare: int = 2,
    rare_factor: float = 5.0,
) -> Additive:
    """Additive weights of one of ADDITIVE_KINDS (all ours):

    - ``uniform``: w ~ U(0, 1);
    - ``pareto``: w ~ 1 + Pareto(``pareto_shape``) (heavy tail);
    - ``planted``: U(0, 1) background and k planted elements of weight ``heavy`` at random places
      (OPT is about heavy k; the background hides them from set queries);
    - ``rare heavy``: U(0, 1) background and ``rare`` < k elements of weight
      ``rare_factor`` k each, which carry most of OPT but are seen by few singleton samples.
    """
    n = _int("n", n, lo=1)
    k = _k(k, n)
    rng = _rng(rng)
    heavy = _positive("heavy", heavy)
    pareto_shape = _positive("pareto_shape", pareto_shape)
    rare_factor = _positive("rare_factor", rare_factor)
    if kind == "uniform":
        return Additive(rng.random(n))
    if kind == "pareto":
        return Additive(1.0 + rng.pareto(pareto_shape, n))
    if kind == "planted":
        w = rng.random(n)
        w[rng.choice(n, size=k, replace=False)] = heavy
        return Additive(w)
    if kind == "rare heavy":
        rare = _int("rare", rare, lo=1, hi=n)
        w = rng.random(n)
        w[rng.choice(n, size=rare, replace=False)] = rare_factor * k
        return Additive(w)
    raise ValueError(f"kind must be one of {ADDITIVE_KINDS}, got {kind!r}")


def hidden_element_instance(
    n: int, k: int, rng: np.random.Generator, *, ratio: int = 4, planted: bool = True
) -> HiddenElement:
    """``HiddenElement`` with m = ratio k and x* uniform (or no x* when ``planted`` is False)."""
    n = _int("n", n, lo=1)
    k = _k(k, n)
    ratio = _int("ratio", ratio, lo=1)
    star = int(_rng(rng).integers(n)) if planted else -1
    return HiddenElement(n, ratio * k, star)


def coverage_instance(
    n: int, n_items: int, rng: np.random.Generator, *, mean_size: float = 5.0
) -> Coverage:
    """Random sparse coverage: element e covers 1 + Poisson(mean_size - 1) items chosen with
    Zipf-like popularity (item j drawn with probability proportional to 1/(j+1)); unit weights."""
    n = _int("n", n, lo=1)
    n_items = _int("n_items", n_items, lo=1)
    rng = _rng(rng)
    if _positive("mean_size", mean_size) < 1:
        raise ValueError(f"mean_size must be >= 1, got {mean_size!r}")
    sizes = np.minimum(1 + rng.poisson(mean_size - 1, n), n_items)
    p = 1.0 / np.arange(1, n_items + 1)
    p /= p.sum()
    rows = np.repeat(np.arange(n), sizes)
    cols = rng.choice(n_items, size=int(sizes.sum()), p=p)
    inc = sparse.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n, n_items))
    inc.data[:] = 1.0  # duplicates summed: back to 0/1
    return Coverage(inc, np.ones(n_items))


def rbf_similarity(X, *, gamma: float | None = None) -> np.ndarray:
    """exp(-gamma |x_i - x_j|^2) with gamma = 1 / median squared distance when not given."""
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 2:
        raise ValueError(
            f"X must be a 2-D array with at least 2 rows, got shape {X.shape}"
        )
    sq = np.einsum("ij,ij->i", X, X)
    d2 = np.maximum(sq[:, None] + sq[None, :] - 2 * X @ X.T, 0.0)
    if gamma is None:
        med = float(np.median(d2[np.triu_indices_from(d2, 1)]))
        if med <= 0:
            raise ValueError(
                "X has (almost) no distinct rows: the median distance is 0"
            )
        gamma = 1.0 / med
    else:
        gamma = _positive("gamma", gamma)
    return np.exp(-gamma * d2)


# ----------------------------------------------------------------------------------------------
# the illustrative OPT-value estimator for additive f (ours)
def level_estimate(sample, n: int, k: int) -> float | np.ndarray:
    """Our illustration, not the paper's estimator: OPT ~ sum_l 2^l min(k, c_l_hat).

    ``sample`` holds the singleton values of q distinct elements drawn at random (one query each);
    a 2-D array holds one sample per row and gives one estimate per row. c_l_hat = (n/q) times the
    number of sampled values >= 2^l, for the integer levels l from floor(log2) of the smallest
    positive sampled value to that of the largest. With the whole ground set (q = n) the counts are
    exact and the estimate lies strictly between OPT/2 and 2 OPT.
    """
    w = _nonnegative("sample", sample)
    n = _int("n", n, lo=1)
    k = _k(k, n)
    if w.ndim == 2:
        return _level_estimates_rows(w, n, k)
    if w.ndim != 1:
        raise ValueError(f"sample must be 1-D (q,) or 2-D (samples, q), got {w.ndim}-D")
    q = w.size
    if q > n:
        raise ValueError(
            f"a sample of distinct elements has at most n={n} values, got q={q}"
        )
    pos = w[w > 0]
    if pos.size == 0:
        return 0.0
    levels = np.floor(np.log2(pos)).astype(np.int64)
    lo, hi = int(levels.min()), int(levels.max())
    counts = np.bincount(levels - lo, minlength=hi - lo + 1)[::-1].cumsum()[
        ::-1
    ]  # #{w >= 2^l}
    c_hat = counts * (n / q)
    return float(np.sum(np.exp2(np.arange(lo, hi + 1)) * np.minimum(k, c_hat)))


def _level_estimates_rows(w: np.ndarray, n: int, k: int) -> np.ndarray:
    """``level_estimate`` of every row at once (same q per row), vectorised over rows."""
    rows, q = w.shape
    if q > n:
        raise ValueError(
            f"a sample of distinct elements has at most n={n} values, got q={q}"
        )
    out = np.zeros(rows)
    pos = w > 0
    if not pos.any():
        return out
    with np.errstate(divide="ignore"):
        lev = np.where(pos, np.floor(np.log2(np.where(pos, w, 1.0))), -np.inf)
    row_min = np.where(pos, lev, np.inf).min(axis=1)  # each row's lowest level
    for level in range(int(row_min[np.isfinite(row_min)].min()), int(lev.max()) + 1):
        c_hat = (lev >= level).sum(axis=1) * (n / q)
        out += np.where(row_min <= level, np.exp2(level) * np.minimum(k, c_hat), 0.0)
    return out


def sampled_level_estimates(
    weights, k: int, budgets: Sequence[int], rng: np.random.Generator
) -> np.ndarray:
    """``level_estimate`` after each budget q in ``budgets``, along one random order (nested)."""
    w = _nonnegative("weights", weights).ravel()
    k = _k(k, w.size)
    order = _rng(rng).permutation(w.size)
    out = []
    for q in budgets:
        q = _int("budget", q, lo=1, hi=w.size)
        out.append(level_estimate(w[order[:q]], w.size, k))
    return np.array(out)


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
    if not callable(child_rng):
        raise TypeError(
            "child_rng must be callable (stream -> numpy.random.Generator), got "
            f"{type(child_rng).__name__}"
        )
    return child_rng


def _seeds(name: str, seeds) -> int:
    return _int(name, seeds, lo=1, hi=_MAX_SEEDS)


def budget_grid(lo: int, hi: int, per_octave: int = 4) -> np.ndarray:
    """Distinct integer budgets from lo to hi, spaced by a factor 2^(1/per_octave).

    Bounds below 1 are raised to 1; both ends are included (after rounding).
    """
    lo, hi = _int("lo", lo), _int("hi", hi)
    per_octave = _int("per_octave", per_octave, lo=1)
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
    n = _int("n", n, lo=1)
    k = _k(k, n)
    child_rng = _factory(child_rng)
    stream = _int("stream", stream, lo=0)
    seeds = _seeds("seeds", seeds)
    grid_seeds = _int("grid_seeds", grid_seeds, lo=1, hi=seeds)
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
    grid_seeds = _int("grid_seeds", grid_seeds, lo=1)
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
    n = _int("n", n, lo=1)
    k = _k(k, n)
    child_rng = _factory(child_rng)
    seeds = _seeds("seeds", seeds)
    stream = _int("stream", stream, lo=0)
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
    n = _int("n", n, lo=1)
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
    instances = _int("instances", instances, lo=1)
    rng = _rng(rng)
    child_rng = _factory(child_rng)
    stochastic_seeds = _int("stochastic_seeds", stochastic_seeds, lo=1, hi=100)
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
