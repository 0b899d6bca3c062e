"""Instances: a manipulation graph with its hypothesis class (`Instance`), the star, the
switch gadget and random DAGs of the chapter, and the version space of a labelled sequence."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from repbook.core import checks


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
    checks.integer("K", K, at_least=2)
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
    checks.integer("units", units, at_least=1, at_most=10)
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
    checks.generator("rng", rng)
    checks.integer("n", n, at_least=3)
    checks.integer("k_in", k_in, at_least=2, at_most=n)
    checks.integer("n_hyp", n_hyp, at_least=1)
    checks.number("p_pos", p_pos, above=0.0, below=1.0)
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
