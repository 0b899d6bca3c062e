"""Online strategic classification with a revealed or a hidden classifier.

Chapter 09 (Shao, Xie, Yang, "Should Decision-Makers Reveal Classifiers in Online
Strategic Classification?", ICML 2025, arXiv 2506.01936). The paper is theory only and
has no code; every algorithm here is our reconstruction, and the chapter says which
parts come from where.

Notation
--------
- Manipulation graph G = (X, E) on nodes 0..n-1 with a self-loop at every node.
  `adj[x, v]` is True when an agent at x can move to v, i.e. v ∈ N_out[x]. `k_out` and
  `k_in` are the largest |N_out[x]| and |N_in[x]|, self-loops included.
- A finite class H of classifiers h: X → {0, 1}, stored as a boolean matrix `H[j, v]`.
- Best response to a (possibly fractional) classifier h: BR_h(x) = argmax_{v ∈ N_out[x]}
  h(v).
- Strategic realisability: some target h* ∈ H labels every agent x by y = f_{h*}(x) =
  max_{v ∈ N_out[x]} h*(v) (the agent is positive when it can reach a node h* accepts).
  `F[j, x] = f_{H[j]}(x)` are these effective labels.
- One round t: the decision-maker (DM) commits h_t; the adversary, who sees h_t, picks
  an agent (x_t, y_t); the agent moves to a best response v_t; the DM observes (v_t,
  y_t), never x_t; a mistake is h_t(v_t) ≠ y_t.
- Response models (`model=`):
  * "std": Revealed-Std, agents best-respond to h_t and stay at x_t when x_t is a best
    response (other ties are broken by the adversary);
  * "arb": Revealed-Arb, agents best-respond to h_t, every tie broken by the adversary;
  * "weighted": γ-Weighted, agents do not see h_t but best-respond to the discounted
    average h̄_t ∝ Σ_{s<t} γ^{t-1-s} h_s of past classifiers, ties broken by the
    adversary. With no history (t = 1) we fix h̄_1 ≡ 0: every node ties. γ ∈ [0, 1); γ =
    0 means h̄_t = h_{t-1}.
  Agents compare h̄ exactly: two nodes tie only when their histories are identical. (For
  a rational γ = p/q with q > 1, distinct 0/1 histories never give equal sums.)

Nothing here prints, plots or writes files; randomness comes in as a numpy Generator.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cmp_to_key

import numpy as np

MODELS = ("std", "arb", "weighted")
RULES = ("naive", "majority", "threshold", "or", "proper", "once")


# --------------------------------------------------------------------------------------
# Instances
# --------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Instance:
    """A manipulation graph with its hypothesis class.

    `adj[x, v]`: v ∈ N_out[x] (self-loops included); `H[j, v]`: hypothesis j labels node
    v positive; `F[j, x]`: the label of an agent at x when hypothesis j is the target.
    """

    adj: np.ndarray
    H: np.ndarray
    F: np.ndarray
    name: str = ""

    @property
    def n(self) -> int:
        return self.adj.shape[0]

    @property
    def n_hyp(self) -> int:
        return self.H.shape[0]

    @property
    def k_out(self) -> int:
        return int(self.adj.sum(1).max())

    @property
    def k_in(self) -> int:
        return int(self.adj.sum(0).max())


def effective_labels(adj: np.ndarray, H: np.ndarray) -> np.ndarray:
    """F[j, x] = max_{v ∈ N_out[x]} H[j, v]: an agent's label when hypothesis j is the
    target."""
    adj = np.asarray(adj, dtype=bool)
    H = np.asarray(H, dtype=bool)
    return (H.astype(np.int64) @ adj.T.astype(np.int64)) > 0


def make_instance(graph, hypotheses, *, name: str = "") -> Instance:
    """Build an Instance from an adjacency matrix (or a networkx DiGraph on nodes
    0..n-1) and a 0/1 matrix of hypotheses (one row per hypothesis, one column per
    node)."""
    if hasattr(graph, "nodes") and hasattr(graph, "edges"):
        nodes = sorted(graph.nodes)
        if nodes != list(range(len(nodes))):
            raise ValueError(f"graph: nodes must be 0..n-1, got {nodes[:8]}...")
        adj = np.zeros((len(nodes), len(nodes)), dtype=bool)
        for a, b in graph.edges:
            adj[a, b] = True
    else:
        adj = np.asarray(graph)
    if adj.ndim != 2 or adj.shape[0] != adj.shape[1] or adj.shape[0] == 0:
        raise ValueError(
            f"graph must be a non-empty square adjacency matrix, got shape {adj.shape}"
        )
    adj = adj.astype(bool)
    missing = np.flatnonzero(~np.diag(adj))
    if missing.size:
        raise ValueError(
            f"graph: every node needs a self-loop (an agent may stay); "
            f"nodes {missing[:10].tolist()} have none"
        )
    H = np.asarray(hypotheses)
    if H.ndim != 2 or H.shape[0] == 0:
        raise ValueError(
            f"hypotheses: H must be a non-empty 2-D 0/1 matrix, got shape {H.shape}"
        )
    if H.shape[1] != adj.shape[0]:
        raise ValueError(
            f"hypotheses: H has {H.shape[1]} columns but the graph has "
            f"{adj.shape[0]} nodes"
        )
    if not np.isin(H, (0, 1)).all():
        raise ValueError("hypotheses: H must hold only 0 and 1")
    H = H.astype(bool)
    return Instance(adj, H, effective_labels(adj, H), name)


def star_instance(K: int) -> Instance:
    """Leaves 0..K-1 each point to a hub K (so k_in = K + 1 with the hub's self-loop);
    hypothesis j accepts leaf j only. An agent at leaf i is positive iff i is the
    target's leaf."""
    if not isinstance(K, (int, np.integer)) or K < 2:
        raise ValueError(f"K must be an integer ≥ 2, got {K!r}")
    adj = np.eye(K + 1, dtype=bool)
    adj[:K, K] = True
    H = np.zeros((K, K + 1), dtype=bool)
    H[np.arange(K), np.arange(K)] = True
    return make_instance(adj, H, name=f"star K={K}")


SWITCH_ROLES = ("x", "a", "b", "w", "z_a", "z_b")


def switch_gadget(units: int) -> Instance:
    """`units` copies of a two-option switch; the target picks option a or b in every
    unit.

    In a unit, the agent x can move to a or b (x → a, x → b) and is always positive; w
    can move to x and is always negative (so labelling x itself positive costs a false
    positive); the probes z_a → a and z_b → b are positive iff their option is the
    target's. Hypotheses are all 2^units choices; hypothesis 0 picks a everywhere. Node
    of role r in unit u: 6·u + SWITCH_ROLES.index(r).
    """
    if not isinstance(units, (int, np.integer)) or not 1 <= units <= 10:
        raise ValueError(f"units must be an integer in [1, 10], got {units!r}")
    n = 6 * units
    adj = np.eye(n, dtype=bool)
    H = np.zeros((2**units, n), dtype=bool)
    for u in range(units):
        x, a, b, w, za, zb = (6 * u + i for i in range(6))
        adj[x, a] = adj[x, b] = adj[w, x] = adj[za, a] = adj[zb, b] = True
        for j in range(2**units):
            H[j, b if (j >> u) & 1 else a] = True
    return make_instance(adj, H, name=f"switch gadget ×{units}")


def random_dag_instance(
    n: int, k_in: int, n_hyp: int, p_pos: float, rng: np.random.Generator
) -> Instance:
    """A random DAG on n nodes whose largest in-degree (self-loop included) is exactly
    `k_in`, with `n_hyp` distinct random hypotheses, each accepting every node with
    probability `p_pos`.

    Nodes are visited in a random order; each picks up to k_in − 1 in-neighbours
    uniformly among the nodes before it (one node with enough predecessors gets exactly
    k_in − 1).
    """
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator, got {type(rng).__name__}")
    if not isinstance(n, (int, np.integer)) or n < 3:
        raise ValueError(f"n must be an integer ≥ 3, got {n!r}")
    if not isinstance(k_in, (int, np.integer)) or not 2 <= k_in <= n:
        raise ValueError(f"k_in must be an integer in [2, n={n}], got {k_in!r}")
    if not isinstance(n_hyp, (int, np.integer)) or n_hyp < 1:
        raise ValueError(f"n_hyp must be a positive integer, got {n_hyp!r}")
    if not 0.0 < p_pos < 1.0:
        raise ValueError(f"p_pos must lie in (0, 1), got {p_pos!r}")
    order = rng.permutation(n)
    adj = np.eye(n, dtype=bool)
    forced = int(rng.integers(k_in - 1, n))  # a position with ≥ k_in − 1 predecessors
    for pos in range(1, n):
        d = k_in - 1 if pos == forced else int(rng.integers(0, k_in))
        d = min(d, pos)
        parents = rng.choice(order[:pos], size=d, replace=False)
        adj[parents, order[pos]] = True
    rows: list[np.ndarray] = []
    seen: set[bytes] = set()
    for _ in range(100 * n_hyp):
        h = rng.random(n) < p_pos
        key = np.packbits(h).tobytes()
        if key not in seen:
            seen.add(key)
            rows.append(h)
            if len(rows) == n_hyp:
                break
    if len(rows) < n_hyp:
        raise ValueError(
            f"could not draw {n_hyp} distinct hypotheses on {n} nodes "
            f"with p_pos={p_pos}"
        )
    return make_instance(adj, np.array(rows), name=f"random DAG n={n} k_in={k_in}")


def version_space(inst: Instance, xs: Sequence[int], ys: Sequence[int]) -> np.ndarray:
    """The hypotheses that label agents xs by ys (f_h(x_s) = y_s for all s), as a
    boolean mask.

    Raises ValueError when no hypothesis fits (the sequence is not strategically
    realisable).
    """
    xs, ys = np.asarray(xs, dtype=int), np.asarray(ys, dtype=int)
    if xs.shape != ys.shape or xs.ndim != 1:
        raise ValueError(
            f"xs and ys must be 1-D of equal length, got {xs.shape} and {ys.shape}"
        )
    if xs.size and (xs.min() < 0 or xs.max() >= inst.n):
        raise ValueError(
            f"xs: agents must be nodes 0..{inst.n - 1}, got {xs.min()}..{xs.max()}"
        )
    if not np.isin(ys, (0, 1)).all():
        raise ValueError("ys: labels must be 0 or 1")
    mask = np.ones(inst.n_hyp, dtype=bool)
    for x, y in zip(xs, ys):
        mask &= inst.F[:, x] == bool(y)
    if not mask.any():
        raise ValueError(
            "ys: no hypothesis in H fits these labels (the sequence is not realisable)"
        )
    return mask


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


def _check_gamma(gamma) -> float:
    numeric = (int, float, np.integer, np.floating)
    if isinstance(gamma, bool) or not isinstance(gamma, numeric):
        raise ValueError(f"gamma must be a number in [0, 1), got {gamma!r}")
    gamma = float(gamma)
    if not 0.0 <= gamma < 1.0:
        raise ValueError(f"gamma must lie in [0, 1), got {gamma!r}")
    return gamma


def weighted_average(history: Sequence[np.ndarray], gamma: float) -> np.ndarray:
    """h̄_t = (1−γ)/(1−γ^{t−1}) Σ_{τ=0}^{t−2} γ^τ h_{t−1−τ} for history = [h_1, ...,
    h_{t−1}].

    Floating point, for display; with an empty history it is h̄_1 ≡ 0 (our convention).
    γ = 0 gives h_{t−1}.
    """
    gamma = _check_gamma(gamma)
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
    gamma = _check_gamma(gamma)
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
    gamma = _check_gamma(gamma)
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
    gamma = _check_gamma(gamma)
    if not isinstance(history, (int, np.integer)) or history < 1:
        raise ValueError(f"history must be a positive integer, got {history!r}")
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
    gamma = _check_gamma(gamma)
    if not isinstance(history, (int, np.integer)) or history < 1:
        raise ValueError(f"history must be a positive integer, got {history!r}")
    g = Fraction(repr(gamma))
    c, n = 2 - g ** int(history), 0
    while g**n * c >= 1:
        n += 1
    return n


# --------------------------------------------------------------------------------------
# Learners and the adversary
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Learner:
    """A decision-maker's rule, computed from its version space V (hypotheses consistent
    with what it observed, given that it knows the response model and its own past
    classifiers).

    rule: "naive" (halving that treats (v_t, y_t) as a plain example h*(v_t) = y_t:
    ignores strategy; restarts from H if V empties), "majority" (node-wise strict
    majority of V), "threshold" (accept v when at least |V|/m hypotheses of V accept
    it), "or" (accept v when any hypothesis of V does: positive on the version space),
    "proper" (commit one hypothesis of V; on a change, the one nearest in Hamming
    distance), "once" (accept once: in round 1 the "or" rule, from round 2 on the
    node-wise strict majority of V). conservative: in the γ-Weighted model, change the
    classifier only after a mistake made once it has been held r*(γ) rounds.
    """

    name: str
    rule: str
    m: int | None = None
    conservative: bool = False

    def __post_init__(self):
        if self.rule not in RULES:
            raise ValueError(f"rule must be one of {RULES}, got {self.rule!r}")
        if self.rule == "threshold" and (not isinstance(self.m, int) or self.m < 1):
            raise ValueError(
                f"m: the threshold rule needs an integer m ≥ 1, got {self.m!r}"
            )


def halving_naive() -> Learner:
    return Learner("halving (ignores strategy)", "naive")


def halving() -> Learner:
    return Learner("halving", "majority")


def aby_threshold(inst: Instance) -> Learner:
    """Accept nodes backed by ≥ 1/(k_out+1) of V: the Ahmadi–Blum–Yang (2023)-style
    rule."""
    return Learner("ABY threshold", "threshold", m=inst.k_out + 1)


def kin_threshold(inst: Instance) -> Learner:
    """Accept nodes backed by ≥ 1/(k_in·k_out+1) of V: our rule for arbitrary
    tie-breaking."""
    return Learner("k_in threshold", "threshold", m=inst.k_in * inst.k_out + 1)


def positive_on_vs() -> Learner:
    return Learner("positive on VS", "or")


def proper() -> Learner:
    return Learner("proper", "proper")


def accept_once() -> Learner:
    """Accept once, then halving: in round 1 accept every node some hypothesis of V
    accepts ("or"), from round 2 on the strict majority of V (strategic halving).

    Under γ-Weighted with γ > 0 the nodes accepted in round 1 keep a memory above every
    node never accepted, so agents on them stay put however the DM labels them later:
    the learner uses the agents' memory. On the star it makes at most two mistakes for
    every K (a false positive in round 1, then one false negative seen at the target's
    leaf)."""
    return Learner("accept once, then halving", "once")


def conservative(learner: Learner) -> Learner:
    """The same rule, changed only after a settled mistake (our reading of
    Algorithm 2)."""
    return Learner(f"{learner.name} (conservative)", learner.rule, learner.m, True)


@dataclass(frozen=True)
class Adversary:
    """Adaptive adversary. Each round it sees h_t (and the agents' memory), and picks an
    agent and a label that some hypothesis still consistent with all its past choices
    gives (so the sequence stays realisable), and the agent's move among the allowed
    ones.

    It forces a mistake whenever one is available (after round `wait`; before, it only
    plays quiet rounds). Among its options it keeps the most hypotheses consistent, then
    lets the DM learn the least; remaining ties are broken by `rng`. It stops when no
    mistake has been available for `patience` rounds in a row with an unchanged
    classifier (r*(γ) + 2 under γ-Weighted, 2 otherwise), or at the horizon.
    """

    wait: int = 0

    def __post_init__(self):
        if not isinstance(self.wait, (int, np.integer)) or self.wait < 0:
            raise ValueError(f"wait must be a non-negative integer, got {self.wait!r}")


@dataclass(frozen=True, eq=False)
class Trace:
    """One run. Per round: agent x, label y, observed node v, mistake kind (0 none, 1
    false positive, 2 false negative); plus the rounds where the classifier changed and
    the final version spaces (the DM's and the adversary's). `stopped_early`: no mistake
    was left to force; `stalled`: the same uninformative mistake repeats to the horizon.
    """

    x: np.ndarray
    y: np.ndarray
    v: np.ndarray
    kind: np.ndarray
    changes: np.ndarray
    dm_version_space: np.ndarray
    consistent: np.ndarray
    stopped_early: bool
    model: str
    gamma: float | None
    learner: str = field(default="")
    stalled: bool = False

    @property
    def mistakes(self) -> int:
        return int((self.kind > 0).sum())

    @property
    def rounds(self) -> int:
        return int(self.x.size)


def _classifier(
    learner: Learner,
    H: np.ndarray,
    V: np.ndarray,
    prev: np.ndarray | None,
    committed: int | None,
) -> tuple[np.ndarray, int | None]:
    size = int(V.sum())
    if learner.rule == "proper":
        if committed is not None and V[committed]:
            return H[committed], committed
        idx = np.flatnonzero(V)
        if prev is None:
            j = int(idx[0])
        else:
            dist = (H[idx] != prev[None, :]).sum(1)
            j = int(idx[np.argmin(dist)])
        return H[j], j
    counts = H[V].sum(0)
    if learner.rule == "once":
        return (counts >= 1 if prev is None else counts * 2 > size), None
    if learner.rule in ("naive", "majority"):
        return counts * 2 > size, None
    if learner.rule == "threshold":
        return counts * learner.m >= size, None
    return counts >= 1, None


def _dm_update(
    learner: Learner, inst: Instance, V: np.ndarray, v: int, y: int, R: np.ndarray
) -> np.ndarray:
    """The DM's version space after observing (v, y), when agents could move along R."""
    if learner.rule == "naive":
        new = V & (inst.H[:, v] == bool(y))
        return new if new.any() else np.ones_like(V)
    origins = R[:, v]
    return V & (inst.F[:, origins] == bool(y)).any(1)


def _update_sizes(
    learner: Learner, inst: Instance, V: np.ndarray, Ri: np.ndarray
) -> np.ndarray:
    """sizes[v, y] = |V| after observing (v, y), for every node v and label y."""
    out = np.empty((inst.n, 2), dtype=np.int64)
    if learner.rule == "naive":
        cnt1 = inst.H[V].sum(0)
        for y, cnt in ((1, cnt1), (0, int(V.sum()) - cnt1)):
            out[:, y] = np.where(cnt > 0, cnt, inst.n_hyp)
        return out
    FV = inst.F[V].astype(np.int64)
    out[:, 1] = ((FV @ Ri) > 0).sum(0)
    out[:, 0] = (((1 - FV) @ Ri) > 0).sum(0)
    return out


def simulate(
    inst: Instance,
    learner: Learner,
    *,
    model: str,
    horizon: int,
    rng: np.random.Generator,
    gamma: float | None = None,
    adversary: Adversary = Adversary(),
) -> Trace:
    """Play `learner` against the adaptive `adversary` for at most `horizon` rounds.

    When a round changes nothing (a mistake that teaches neither side anything, with a
    settled classifier), every later round repeats it; the run is then completed to the
    horizon at once (`Trace.stalled`), which gives the same counts as playing those
    rounds.
    """
    if not isinstance(inst, Instance):
        raise TypeError(f"inst must be an Instance, got {type(inst).__name__}")
    if not isinstance(learner, Learner):
        raise TypeError(f"learner must be a Learner, got {type(learner).__name__}")
    if model not in MODELS:
        raise ValueError(f"model must be one of {MODELS}, got {model!r}")
    if model == "weighted":
        gamma = _check_gamma(gamma)
    elif gamma is not None:
        raise ValueError(
            f"gamma: only the 'weighted' model takes gamma, got "
            f"gamma={gamma!r} with model={model!r}"
        )
    if not isinstance(horizon, (int, np.integer)) or horizon < 1:
        raise ValueError(f"horizon must be a positive integer, got {horizon!r}")
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator, got {type(rng).__name__}")
    if not isinstance(adversary, Adversary):
        raise TypeError(
            f"adversary must be an Adversary, got {type(adversary).__name__}"
        )

    n, adj, F = inst.n, inst.adj, inst.F
    rstar = r_star(gamma) if model == "weighted" else 0
    patience = rstar + 2 if model == "weighted" else 2
    ties = "std" if model == "std" else "arb"
    big = inst.n_hyp + 1
    V = np.ones(inst.n_hyp, dtype=bool)
    A = np.ones(inst.n_hyp, dtype=bool)
    c, committed = None, None
    s0, pending, last_change = 1, True, 0
    memory = _Memory(n, gamma) if model == "weighted" else None
    xs, ys, vs, kinds, changes = [], [], [], [], []
    quiet_streak, stopped, stalled = 0, False, False

    t = 0
    while t < horizon:
        t += 1
        if pending:
            new, committed = _classifier(learner, inst.H, V, c, committed)
            if c is None or not np.array_equal(new, c):
                if c is not None:
                    changes.append(t)
                    last_change = t
                c, s0 = new, t
        if model == "weighted":
            scores = memory.ranks()
        else:
            scores = c.astype(np.int64)
        R = allowed_moves(adj, scores, ties)

        n1 = F[A].sum(0)
        n0 = int(A.sum()) - n1
        neg, pos = R & ~c[None, :], R & c[None, :]
        fn = neg & (n1 > 0)[:, None]  # agent x, label 1, move v with c(v) = 0
        fp = pos & (n0 > 0)[:, None]  # agent x, label 0, move v with c(v) = 1
        any_mistake = bool(fn.any() or fp.any())
        if any_mistake and t > adversary.wait:
            masks = (fp, fn)
        else:
            masks = (neg & (n0 > 0)[:, None], pos & (n1 > 0)[:, None])
            if not (masks[0].any() or masks[1].any()):
                masks = (fp, fn)
        sizes = _update_sizes(learner, inst, V, R.astype(np.int64))
        best, picks = -1, []
        for y, mask in enumerate(masks):  # masks[y]: options with label y
            if not mask.any():
                continue
            cnt = n1 if y == 1 else n0
            score = np.where(mask, cnt[:, None] * big + sizes[None, :, y], -1)
            top = int(score.max())
            if top > best:
                best, picks = top, []
            if top == best:
                picks += [
                    (int(i), int(j), y) for i, j in zip(*np.nonzero(score == top))
                ]
        x, v, y = picks[int(rng.integers(len(picks)))] if len(picks) > 1 else picks[0]

        kind = 0 if bool(c[v]) == bool(y) else (1 if y == 0 else 2)
        xs.append(x), ys.append(y), vs.append(v), kinds.append(kind)
        A_new = A & (F[:, x] == bool(y))
        V_new = _dm_update(learner, inst, V, v, y, R)
        unchanged = np.array_equal(A_new, A) and np.array_equal(V_new, V)
        A, V = A_new, V_new

        if model == "weighted":
            memory.push(c)
            held = t - s0
            settled = held >= rstar or (s0 == 1 and held >= 1)
            pending = (not learner.conservative) or (kind > 0 and settled)
        else:
            pending = True

        # A mistake that changed nothing, with a classifier that will not change and
        # agents whose preferences are settled, repeats in every later round.
        steady = model != "weighted" or t - s0 >= rstar or (s0 == 1 and t >= 2)
        if kind > 0 and unchanged and steady and t > adversary.wait:
            nxt = _classifier(learner, inst.H, V, c, committed)[0] if pending else c
            if np.array_equal(nxt, c):
                rest = horizon - t
                xs += [x] * rest
                ys += [y] * rest
                vs += [v] * rest
                kinds += [kind] * rest
                stalled = True
                break

        # Before `wait`, a quiet round that changed nothing repeats until `wait`.
        if kind == 0 and unchanged and steady and t < adversary.wait:
            nxt = _classifier(learner, inst.H, V, c, committed)[0] if pending else c
            if np.array_equal(nxt, c):
                rest = min(adversary.wait, horizon) - t
                xs += [x] * rest
                ys += [y] * rest
                vs += [v] * rest
                kinds += [0] * rest
                if memory is not None:
                    memory.t += rest
                t += rest

        quiet_streak = 0 if any_mistake else quiet_streak + 1
        settled_run = quiet_streak >= patience and t - last_change >= patience
        if t > adversary.wait and settled_run:
            stopped = True
            break

    return Trace(
        np.array(xs),
        np.array(ys),
        np.array(vs),
        np.array(kinds),
        np.array(changes),
        V,
        A,
        stopped,
        model,
        gamma,
        learner.name,
        stalled,
    )


# --------------------------------------------------------------------------------------
# Mistake bounds we derived for these learners (not the paper's; see the chapter)
# --------------------------------------------------------------------------------------
def mistake_bound(
    inst: Instance, learner: Learner, model: str, gamma: float | None = None
) -> float | None:
    """An explicit worst-case mistake bound for `learner` under `model`, or None where
    we have none. With B(m) = ⌊ln|H| / −ln(1 − 1/m)⌋ and r = r*(γ):

    - threshold m ≥ k_out+1 under "std", or m ≥ k_in·k_out+1 under "std"/"arb": B(m);
      the conservative version with m ≥ k_in·k_out+1 under "weighted": 1 + (1 + r)·B(m);
    - "or" (positive on VS): |H| − 1 under "std"/"arb"; 2|H| − 1 under "weighted";
    - "proper": |H| − 1 under "std"/"arb"; conservative under "weighted": 1 + (1 +
      r)(|H| − 1).
    """
    if model not in MODELS:
        raise ValueError(f"model must be one of {MODELS}, got {model!r}")
    if model == "weighted":
        gamma = _check_gamma(gamma)
    size, kin, kout = inst.n_hyp, inst.k_in, inst.k_out
    if learner.rule == "threshold":
        m = learner.m
        need = kout + 1 if model == "std" else kin * kout + 1
        if m < need or m < 2:
            return None
        base = math.floor(math.log(size) / -math.log1p(-1.0 / m) + 1e-12)
        if model != "weighted":
            return float(base)
        return float(1 + (1 + r_star(gamma)) * base) if learner.conservative else None
    if learner.rule == "or":
        return float(size - 1) if model != "weighted" else float(2 * size - 1)
    if learner.rule == "proper":
        if model != "weighted":
            return float(size - 1)
        if not learner.conservative:
            return None
        return float(1 + (1 + r_star(gamma)) * (size - 1))
    return None


# --------------------------------------------------------------------------------------
# Protocols of the chapter: the learners run, one run as a record, the sweeps
# --------------------------------------------------------------------------------------
def learner_set(inst: Instance, model: str) -> list[Learner]:
    """The learners the chapter runs on `inst` under `model`: halving that ignores
    strategy, strategic halving, the ABY-style and k_in threshold rules, positive on the
    version space and a proper learner (six). Under "weighted", the rules that can be
    held are made conservative (the naive and "or" rules are left as they are), and a
    seventh, `accept_once`, which uses the agents' memory, is added last (so the
    streams of the first six are those of the revealed runs' learners)."""
    if model not in MODELS:
        raise ValueError(f"model must be one of {MODELS}, got {model!r}")
    base = [
        halving_naive(),
        halving(),
        aby_threshold(inst),
        kin_threshold(inst),
        positive_on_vs(),
        proper(),
    ]
    if model == "weighted":
        base = [L if L.rule in ("naive", "or") else conservative(L) for L in base]
        base.append(accept_once())
    return base


def play(
    inst: Instance,
    learner: Learner,
    model: str,
    gamma: float | None = None,
    *,
    horizon: int,
    rng: np.random.Generator,
    wait: int = 0,
    tag: str = "",
) -> tuple[Trace, dict]:
    """One run of `simulate` and its record: the claim `tag`, instance, model, γ,
    learner, mistakes, rounds, classifier changes, whether the horizon cut it (`capped`)
    and our mistake bound (None where we have none)."""
    tr = simulate(
        inst,
        learner,
        model=model,
        gamma=gamma,
        horizon=horizon,
        rng=rng,
        adversary=Adversary(wait=wait),
    )
    record = dict(
        claim=str(tag),
        instance=inst.name,
        model=model,
        gamma=gamma,
        learner=learner.name,
        mistakes=tr.mistakes,
        rounds=tr.rounds,
        updates=int(tr.changes.size),
        capped=tr.rounds == horizon and not tr.stopped_early,
        bound=mistake_bound(inst, learner, model, gamma),
    )
    return tr, record


def _check_rng_for(rng_for) -> None:
    if not callable(rng_for):
        raise TypeError(
            "rng_for must be a function from a stream number to a numpy Generator "
            f"(e.g. run.child_rng), got {type(rng_for).__name__}"
        )


def _check_settings(settings) -> list[tuple[str, float | None]]:
    out = []
    for s in settings:
        if not (isinstance(s, tuple) and len(s) == 2 and s[0] in MODELS):
            raise ValueError(
                f"settings: each must be (model, gamma) with model in {MODELS}, "
                f"got {s!r}"
            )
        model, gamma = s
        if model == "weighted":
            gamma = _check_gamma(gamma)
        elif gamma is not None:
            raise ValueError(f"settings: only 'weighted' takes a gamma, got {s!r}")
        out.append((model, gamma))
    if not out or len(out) > 10:
        raise ValueError(f"settings: give 1 to 10 (model, gamma) pairs, got {len(out)}")
    return out


def star_horizon(K: int, model: str, gamma: float | None, base: int) -> int:
    """The horizon of a star run: `base`, or under "weighted" long enough for K − 1
    classifier changes each held r*(γ) + 3 rounds, twice over:
    max(base, 2 (K + 1)(r*(γ) + 3))."""
    if not isinstance(base, (int, np.integer)) or base < 1:
        raise ValueError(f"base must be a positive integer, got {base!r}")
    if model != "weighted":
        return int(base)
    return max(int(base), 2 * (int(K) + 1) * (r_star(gamma) + 3))


def star_sweep(
    Ks: Sequence[int],
    settings: Sequence[tuple[str, float | None]],
    *,
    horizon: int,
    rng_for,
    stream0: int = 0,
    tag: str = "1",
) -> list[dict]:
    """Every learner of `learner_set` on `star_instance(K)` for each K and each (model,
    γ) of `settings`, against the adaptive adversary. Run (i, s, j) (size, setting,
    learner) draws its tie-breaks from `rng_for(stream0 + 1000 i + 10 j + s)`; the
    horizon is `star_horizon(K, model, γ, horizon)`. Returns one record per run (see
    `play`) with K added."""
    _check_rng_for(rng_for)
    settings = _check_settings(settings)
    out = []
    for i, K in enumerate(Ks):
        inst = star_instance(K)
        for s, (model, gamma) in enumerate(settings):
            T = star_horizon(K, model, gamma, horizon)
            for j, L in enumerate(learner_set(inst, model)):
                stream = stream0 + 1000 * i + 10 * j + s
                _, rec = play(
                    inst, L, model, gamma, horizon=T, rng=rng_for(stream), tag=tag
                )
                out.append(dict(rec, K=int(K)))
    return out


SWITCH_LEARNERS = (
    "conservative (Alg. 2 analogue)",
    "monotone reduction (Alg. 3 analogue)",
)


def switch_sweep(
    units: int,
    gammas: Sequence[float],
    *,
    wait: int,
    rng_for,
    extra: int = 4000,
    stream0: int = 50_000,
    tag: str = "2",
) -> tuple[list[dict], dict]:
    """The switch gadget of `units` units under γ-Weighted for each γ, with the
    conservative proper learner (our Algorithm 2 analogue) and positive on the version
    space (our Algorithm 3 analogue, a classifier that only loses positives), and once
    revealed (Revealed-Std, proper learner). The adversary waits `wait` quiet rounds;
    runs last at most wait + extra rounds. Run (i, j) draws from
    `rng_for(stream0 + 10 i + j)`, the revealed run from `rng_for(stream0 + 9999)`.

    Returns (hidden records with `label` and `r_star` added, the revealed record)."""
    _check_rng_for(rng_for)
    gad = switch_gadget(units)
    rows = []
    for i, g in enumerate(gammas):
        pair = (conservative(proper()), positive_on_vs())
        for j, (label, L) in enumerate(zip(SWITCH_LEARNERS, pair)):
            _, rec = play(
                gad,
                L,
                "weighted",
                g,
                horizon=wait + extra,
                rng=rng_for(stream0 + 10 * i + j),
                wait=wait,
                tag=tag,
            )
            rows.append(dict(rec, label=label, r_star=r_star(g)))
    _, std = play(
        gad,
        proper(),
        "std",
        horizon=wait + extra,
        rng=rng_for(stream0 + 9999),
        wait=wait,
        tag=tag,
    )
    return rows, std


def dag_sweep(
    n: int,
    kins: Sequence[int],
    per_kin: int,
    n_hyp: int,
    p_pos: float,
    gammas: Sequence[float],
    *,
    horizon: int,
    rng_for,
    stream0: int = 100_000,
    tag: str = "3",
) -> list[dict]:
    """`per_kin` random DAG instances (`random_dag_instance`) for each k_in in `kins`;
    on each, every learner of `learner_set` under Revealed-Std, Revealed-Arb and
    γ-Weighted for each γ. Instance number q (from 1) is drawn from
    `rng_for(stream0 + 1000 q)`, its run (s, j) (setting, learner) from
    `rng_for(stream0 + 1000 q + 10 s + j)`. Returns one record per run with k_in, rep
    (the instance's index within its k_in) and k_out added."""
    _check_rng_for(rng_for)
    if not isinstance(per_kin, (int, np.integer)) or per_kin < 1:
        raise ValueError(f"per_kin must be a positive integer, got {per_kin!r}")
    settings = _check_settings(
        [("std", None), ("arb", None)] + [("weighted", g) for g in gammas]
    )
    out, base = [], stream0
    for kin in kins:
        for rep in range(per_kin):
            base += 1000
            inst = random_dag_instance(n, kin, n_hyp, p_pos, rng_for(base))
            for s, (model, g) in enumerate(settings):
                for j, L in enumerate(learner_set(inst, model)):
                    _, rec = play(
                        inst,
                        L,
                        model,
                        g,
                        horizon=horizon,
                        rng=rng_for(base + 10 * s + j),
                        tag=tag,
                    )
                    out.append(dict(rec, k_in=int(kin), rep=rep, k_out=inst.k_out))
    return out


def t_quantile_k(n: int) -> float:
    """The multiplier of SE for a paired gain over n seeds (or instances): the 97.5 %
    quantile of Student's t with n − 1 degrees of freedom, for every n ≥ 2."""
    if not isinstance(n, (int, np.integer)) or n < 2:
        raise ValueError(f"n must be an integer ≥ 2, got {n!r}")
    from scipy import stats

    return float(stats.t.ppf(0.975, int(n) - 1))
