"""The set functions of the k-of-n problem: additive, coverage, facility location, our
hidden-element family and any small callable, each with `n`, `value(S)` and the incremental
interface the algorithms use (see the package docstring for the query model)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from scipy import sparse

from repbook.core import checks


# ----------------------------------------------------------------------------------------------
# input checks of the set functions' own objects (the rest: repbook.core.checks)
def _k(k, n: int) -> int:
    """k as an int in [1, n]: a selection of k out of n."""
    return checks.integer("k", k, at_least=1, at_most=n)


def _nonnegative(name: str, x) -> np.ndarray:
    """Finite, non-empty and nonnegative values (a monotone f needs them) as float64."""
    arr = checks.array(name, x)
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
        n = checks.integer("n_elements", self.n_elements, at_least=1)
        checks.integer("m", self.m, at_least=1)
        checks.integer("star", self.star, at_least=-1, at_most=n - 1)

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
        checks.integer("n_elements", self.n_elements, at_least=1)
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
    rng = checks.generator("rng", rng)
    trials = checks.integer("trials", trials, at_least=1)
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
