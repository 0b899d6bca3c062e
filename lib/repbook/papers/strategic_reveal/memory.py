"""Best responses and the agents' memory: the moves an agent may make under each tie rule,
the discounted average h̄_t of past classifiers, its exact order (`memory_ranks`), and the
stale rounds r*(γ) after a swap."""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from functools import cmp_to_key

import numpy as np

from repbook.core import checks


# --------------------------------------------------------------------------------------
# Best responses and the agents' memory
# --------------------------------------------------------------------------------------
def best_response(adj: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """BR[x, v]: v ∈ argmax_{u ∈ N_out[x]} scores[u] (exact comparison of the given
    scores)."""
    adj = np.asarray(adj, dtype=bool)
    scores = np.asarray(scores)
    if scores.shape != (adj.shape[0],):
        raise ValueError(
            f"scores must have one value per node ({adj.shape[0]}), got "
            f"shape {scores.shape}"
        )
    s = scores.astype(float) if scores.dtype == bool else scores
    masked = np.where(adj, s[None, :], -np.inf)
    top = masked.max(1)
    return adj & (s[None, :] == top[:, None])


def allowed_moves(adj: np.ndarray, scores: np.ndarray, ties: str) -> np.ndarray:
    """R[x, v]: the agent at x may end at v. `ties="std"`: it stays when x is a best
    response, else any best response; `ties="arb"`: any best response."""
    if ties not in ("std", "arb"):
        raise ValueError(f"ties must be 'std' or 'arb', got {ties!r}")
    br = best_response(adj, scores)
    if ties == "arb":
        return br
    stay = np.diag(br).copy()
    out = br.copy()
    out[stay] = False
    out[stay, np.flatnonzero(stay)] = True
    return out


def weighted_average(history: Sequence[np.ndarray], gamma: float) -> np.ndarray:
    """h̄_t = (1−γ)/(1−γ^{t−1}) Σ_{τ=0}^{t−2} γ^τ h_{t−1−τ} for history = [h_1, ...,
    h_{t−1}].

    Floating point, for display; with an empty history it is h̄_1 ≡ 0 (our convention).
    γ = 0 gives h_{t−1}.
    """
    gamma = checks.number("gamma", gamma, at_least=0.0, below=1.0)
    if len(history) == 0:
        raise ValueError(
            "history: give at least one past classifier (h̄_1 ≡ 0 needs "
            "the node count; use np.zeros(n))"
        )
    hs = np.asarray(history, dtype=float)
    if gamma == 0.0:
        return hs[-1].copy()
    weights = gamma ** np.arange(len(hs))[::-1]
    return (weights @ hs) / weights.sum()


class _Memory:
    """The agents' discounted memory of past classifiers, with exact comparisons.

    Nodes with identical 0/1 histories share a pattern id; `P[id]` is that history
    compressed into segments (maximal runs of rounds with the same classifier; `starts`
    are their first rounds). `ranks()` orders the nodes by S(v) = Σ_{s ≤ t} γ^{t−s}
    h_s(v), the unnormalised h̄_{t+1}(v): higher is preferred, equal ranks are exact
    ties (identical histories).
    """

    def __init__(self, n: int, gamma: float):
        self.n, self.gamma = n, gamma
        self.g = Fraction(repr(gamma))
        self.ids = np.zeros(n, dtype=np.int64)
        self.P = np.zeros((1, 0), dtype=bool)
        self.starts: list[int] = []
        self.last: np.ndarray | None = None
        self.t = 0
        self.lex_rank = np.zeros(1, dtype=np.int64)  # per pattern, for γ ≤ 1/2
        self.pairs: dict[tuple[int, int], int] = {}

    def push(self, c: np.ndarray) -> None:
        """Add the classifier of the next round to the history."""
        c = np.asarray(c, dtype=bool)
        self.t += 1
        if self.last is not None and np.array_equal(c, self.last):
            return
        key = self.ids * 2 + c
        uniq, inv = np.unique(key, return_inverse=True)
        old, bit = uniq // 2, (uniq % 2).astype(bool)
        self.P = np.hstack([self.P[old], bit[:, None]])
        if 0.0 < self.gamma <= 0.5:
            # For γ ≤ 1/2 a round outweighs all older rounds together, so histories
            # compare lexicographically from the newest round: the new segment's bit
            # first, then the previous order (distinct patterns never tie).
            order = np.lexsort((self.lex_rank[old], bit))
            self.lex_rank = np.empty(uniq.size, dtype=np.int64)
            self.lex_rank[order] = np.arange(uniq.size)
        self.ids = np.asarray(inv).ravel()
        self.starts.append(self.t)
        self.last = c.copy()
        self.pairs = {}

    def ranks(self) -> np.ndarray:
        if self.t == 0:
            return np.zeros(self.n, dtype=np.int64)
        if self.gamma == 0.0:
            return self.last.astype(np.int64)
        if self.gamma <= 0.5:
            return self.lex_rank[self.ids]
        P, gamma = self.P, self.gamma
        u = P.shape[0]
        starts = np.asarray(self.starts, dtype=np.int64)
        ends = np.append(starts[1:], self.t + 1)
        expo = self.t + 1 - ends  # segment weight: γ^expo · (1 − γ^length) / (1 − γ)
        lengths = ends - starts
        w = gamma ** expo.astype(float) * -np.expm1(lengths * np.log(gamma))
        f = P.astype(float) @ w
        order = list(np.argsort(f, kind="stable"))
        if u == 1:
            return np.zeros(self.n, dtype=np.int64)
        fs = f[order]
        near = np.diff(fs) <= 1e-9 * np.maximum(fs[1:], fs[:-1])
        if not near.any():
            rank_u = np.empty(u, dtype=np.int64)
            rank_u[np.asarray(order)] = np.arange(u)
            return rank_u[self.ids]

        def cmp(a: int, b: int) -> int:
            # Two histories with the same newest bit keep their order while the newest
            # segment grows (their difference only shrinks by γ each round): cache them.
            key = (a, b) if a < b else (b, a)
            same_end = P[a, -1] == P[b, -1]
            s = self.pairs.get(key) if same_end else None
            if s is None:
                s = _compare_histories(
                    P[key[0]], P[key[1]], expo, lengths, gamma, self.g
                )
                if same_end:
                    self.pairs[key] = s
            return s if a < b else -s

        i = 0
        while i < near.size:
            if not near[i]:
                i += 1
                continue
            j = i
            while j < near.size and near[j]:
                j += 1
            order[i : j + 1] = sorted(order[i : j + 1], key=cmp_to_key(cmp))
            i = j + 1
        rank_u = np.empty(u, dtype=np.int64)
        r = 0
        for pos, p in enumerate(order):
            if pos > 0 and not (near[pos - 1] and cmp(p, order[pos - 1]) == 0):
                r += 1
            rank_u[p] = r
        return rank_u[self.ids]


def _compare_histories(
    pa: np.ndarray,
    pb: np.ndarray,
    expo: np.ndarray,
    lengths: np.ndarray,
    gamma: float,
    g: Fraction,
) -> int:
    """Sign of S(a) − S(b) for two segment patterns: in floating point over the segments
    where they differ (scaled by the newest one), exactly with fractions when that is
    too close."""
    d = pa.astype(np.int64) - pb.astype(np.int64)
    idx = np.flatnonzero(d)
    if idx.size == 0:
        return 0
    e, L, dd = expo[idx], lengths[idx], d[idx]
    e0 = int(e.min())
    terms = dd * gamma ** (e - e0).astype(float) * -np.expm1(L * np.log(gamma))
    total = terms.sum()
    if abs(total) > 1e-9 * np.abs(terms).sum():
        return 1 if total > 0 else -1
    exact = sum(
        int(s) * g ** (int(a) - e0) * (1 - g ** int(b)) for s, a, b in zip(dd, e, L)
    )
    return (exact > 0) - (exact < 0)


def memory_ranks(
    history: Sequence[np.ndarray], gamma: float, n: int | None = None
) -> np.ndarray:
    """Exact preference ranks of the nodes for agents with discounted memory of
    `history` (= [h_1, ..., h_{t−1}]): higher is preferred, equal ranks tie exactly.
    Same order as `weighted_average`, without its rounding. An empty history (t = 1)
    ties every node."""
    gamma = checks.number("gamma", gamma, at_least=0.0, below=1.0)
    if len(history) == 0:
        if n is None:
            raise ValueError("n: with an empty history, give the number of nodes")
        return np.zeros(n, dtype=np.int64)
    first = np.asarray(history[0])
    mem = _Memory(first.shape[0], gamma)
    for h in history:
        h = np.asarray(h)
        if h.shape != first.shape or not np.isin(h, (0, 1)).all():
            raise ValueError(
                f"history: classifiers must be 0/1 vectors of one length, "
                f"got shape {h.shape}"
            )
        mem.push(h)
    return mem.ranks()


def r_star(gamma: float) -> int:
    """r*(γ) = ⌈ln 2 / ln(1/γ)⌉ (1 for γ = 0): the smallest r ≥ 1 with γ^r ≤ 1/2,
    computed exactly. After a swap, agents with a long memory keep preferring the old
    choice for r*(γ) rounds."""
    gamma = checks.number("gamma", gamma, at_least=0.0, below=1.0)
    if gamma == 0.0:
        return 1
    g = Fraction(repr(gamma))
    r = max(1, math.ceil(math.log(2) / math.log(1 / gamma)) - 1)
    while g**r > Fraction(1, 2):
        r += 1
    while r > 1 and g ** (r - 1) <= Fraction(1, 2):
        r -= 1
    return r


def stale_rounds(gamma: float, history: int) -> int:
    """Rounds an agent who can reach a or b still moves to a after the DM, having
    accepted only a for `history` rounds, switches to accepting only b (ties go to a:
    adversarial). Uses the same exact memory as the simulator."""
    gamma = checks.number("gamma", gamma, at_least=0.0, below=1.0)
    checks.integer("history", history, at_least=1)
    old, new = np.array([0, 1, 0], bool), np.array([0, 0, 1], bool)  # nodes x, a, b
    adj = np.array([[1, 1, 1], [0, 1, 0], [0, 0, 1]], bool)
    mem = _Memory(3, gamma)
    for _ in range(history):
        mem.push(old)
    count = 0
    for _ in range(10 * r_star(gamma) + 10):
        if not best_response(adj, mem.ranks())[0, 1]:
            break
        count += 1
        mem.push(new)
    return count


def stale_rounds_closed_form(gamma: float, history: int) -> int:
    """#{n ≥ 0 : γ^n (2 − γ^m) ≥ 1} with m = history: the same count from the geometric
    sums."""
    gamma = checks.number("gamma", gamma, at_least=0.0, below=1.0)
    checks.integer("history", history, at_least=1)
    g = Fraction(repr(gamma))
    c, n = 2 - g ** int(history), 0
    while g**n * c >= 1:
        n += 1
    return n
