"""The benchmark: graphs whose 5-cycle decides y and whose base graph's type follows the
y-bin (a structural shortcut), one seed's splits, and our batching of them.

`make_dataset` draws graphs: cycle values v ~ U(0, 1) set y = Σv + N(0, σ²); the base
graph (random tree, ladder or wheel) has the type `shortcut_type(y_bin(y), shift)` with
probability `shortcut`. `make_splits` draws one seed's training, OOD-validation, IID-test
and OOD-test splits; `split_table` counts them by y-bin and base type. `GraphSet` packs a
split into flat tensors and gathers batches (the peer uses torch-geometric's
`DataLoader` instead).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

import networkx as nx
import numpy as np
import pandas as pd
import torch
from torch import Tensor

from repbook.core import checks

BASE_TYPES = ("tree", "ladder", "wheel")
SHIFTS = ("train", "reversed")
BIN_EDGES = (2.0, 3.0)


# --------------------------------------------------------------------------------------
# data
def y_bin(y: float) -> int:
    """The response bin of y: 0 for y < 2, 1 for 2 ≤ y ≤ 3, 2 for y > 3."""
    y = float(y)
    if not math.isfinite(y):
        raise ValueError(f"y must be finite, got {y!r}")
    return 0 if y < BIN_EDGES[0] else (1 if y <= BIN_EDGES[1] else 2)


def shortcut_type(bin_: int, shift: str) -> int:
    """The base type the shortcut pairs with a y-bin: the bin itself in training, 2 −
    bin when the shortcut is reversed (so the middle bin keeps its pairing)."""
    checks.one_of("shift", shift, SHIFTS)
    checks.one_of("bin_", bin_, (0, 1, 2))
    return bin_ if shift == "train" else 2 - bin_


def base_graph(kind: str, n: int, rng: np.random.Generator) -> nx.Graph:
    """A base (confounder) graph with about `n` nodes: a random recursive tree (n
    nodes), a ladder (2·⌊n/2⌋ nodes) or a wheel (n nodes: a hub and an (n−1)-cycle)."""
    n = checks.integer("n", n, at_least=4)
    checks.generator("rng", rng)
    if kind == "tree":
        g = nx.empty_graph(n)
        g.add_edges_from((i, int(rng.integers(i))) for i in range(1, n))
        return g
    if kind == "ladder":
        return nx.ladder_graph(n // 2)
    if kind == "wheel":
        return nx.wheel_graph(n)
    raise ValueError(f"kind must be one of {BASE_TYPES}, got {kind!r}")


def make_graph(
    cycle_values: Sequence[float],
    y: float,
    base_type: int,
    rng: np.random.Generator,
    *,
    base_nodes: tuple[int, int] = (10, 15),
):
    """One graph as a torch-geometric `Data`: a cycle carrying `cycle_values`, joined by
    one edge to a base graph of type BASE_TYPES[base_type] with U(0, 1) node values.

    Node features are [value, 1]; node order is shuffled. Extra fields: `causal` (bool
    per node, True on the cycle), `base_type` and `y_bin` (one per graph).
    """
    from torch_geometric.data import Data

    checks.generator("rng", rng)
    cycle_values = np.asarray(cycle_values, dtype=np.float64)
    if cycle_values.ndim != 1 or cycle_values.size < 3:
        raise ValueError(
            f"cycle_values must be a 1-D sequence of ≥ 3 values, got shape "
            f"{cycle_values.shape}"
        )
    if base_type not in (0, 1, 2):
        raise ValueError(
            f"base_type must be 0, 1 or 2 (index into {BASE_TYPES}), got {base_type!r}"
        )
    lo, hi = _check_base_nodes(base_nodes)
    k = cycle_values.size
    base = base_graph(BASE_TYPES[base_type], int(rng.integers(lo, hi + 1)), rng)
    n = k + base.number_of_nodes()  # cycle nodes 0..k-1, base after
    g_edges = [(i, (i + 1) % k) for i in range(k)]
    g_edges += [(k + u, k + v) for u, v in base.edges()]
    g_edges.append(
        (int(rng.integers(k)), k + int(rng.integers(base.number_of_nodes())))
    )
    values = np.concatenate([cycle_values, rng.random(n - k)])
    perm = rng.permutation(n)  # node i of g becomes node perm[i]
    x = np.zeros((n, 2), dtype=np.float32)
    x[perm, 0], x[:, 1] = values, 1.0
    causal = np.zeros(n, dtype=bool)
    causal[perm[:k]] = True
    edges = perm[np.array(g_edges, dtype=np.int64).T]
    edge_index = np.concatenate([edges, edges[::-1]], axis=1)
    return Data(
        x=torch.from_numpy(x),
        edge_index=torch.from_numpy(edge_index),
        y=torch.tensor([float(y)], dtype=torch.float32),
        causal=torch.from_numpy(causal),
        base_type=torch.tensor([base_type]),
        y_bin=torch.tensor([y_bin(y)]),
    )


def _check_base_nodes(base_nodes) -> tuple[int, int]:
    try:
        lo, hi = base_nodes
    except (TypeError, ValueError):
        raise ValueError(
            f"base_nodes must be a pair (low, high), got {base_nodes!r}"
        ) from None
    lo, hi = (
        checks.integer("base_nodes[0]", lo, at_least=4),
        checks.integer("base_nodes[1]", hi, at_least=4),
    )
    if hi < lo:
        raise ValueError(f"base_nodes must have low ≤ high, got {base_nodes!r}")
    return lo, hi


def make_dataset(
    n: int,
    rng: np.random.Generator,
    *,
    shortcut: float,
    shift: str = "train",
    cycle_size: int = 5,
    base_nodes: tuple[int, int] = (10, 15),
    noise: float = 0.05,
) -> list:
    """`n` graphs: cycle values v ~ U(0, 1), y = Σv + N(0, noise²); with probability
    `shortcut` the base type is `shortcut_type(y_bin(y), shift)`, otherwise one of the
    two other types."""
    n = checks.integer("n", n, at_least=1)
    checks.generator("rng", rng)
    shortcut = checks.probability("shortcut", shortcut)
    checks.one_of("shift", shift, SHIFTS)
    cycle_size = checks.integer("cycle_size", cycle_size, at_least=3)
    noise = checks.number("noise", noise, at_least=0)
    _check_base_nodes(base_nodes)
    graphs = []
    for _ in range(n):
        values = rng.random(cycle_size)
        y = float(values.sum() + noise * rng.standard_normal())
        paired = shortcut_type(y_bin(y), shift)
        if rng.random() < shortcut:
            kind = paired
        else:
            kind = [t for t in range(3) if t != paired][int(rng.integers(2))]
        graphs.append(make_graph(values, y, kind, rng, base_nodes=base_nodes))
    return graphs


def shortcut_rate(graphs: Sequence, shift: str) -> float:
    """Fraction of graphs whose base type is the one the shortcut pairs with their
    y-bin."""
    if len(graphs) == 0:
        raise ValueError("graphs is empty: need at least one graph")
    hits = [int(g.base_type) == shortcut_type(int(g.y_bin), shift) for g in graphs]
    return float(np.mean(hits))


# --------------------------------------------------------------------------------------
# one seed's splits
SPLITS = ("train", "OOD val", "IID test", "OOD test")


def make_splits(
    rng: np.random.Generator,
    *,
    n_train: int,
    n_val: int,
    n_test: int,
    shortcut: float,
    ood_shortcut: float | None = None,
) -> dict[str, list]:
    """One seed's four splits, drawn in order from `rng`: training and IID test with the
    training pairing at strength `shortcut`; OOD validation and OOD test with the
    reversed pairing at strength `ood_shortcut` (default: `shortcut`)."""
    checks.generator("rng", rng)
    p = checks.probability("shortcut", shortcut)
    q = p if ood_shortcut is None else checks.probability("ood_shortcut", ood_shortcut)
    return {
        "train": make_dataset(n_train, rng, shortcut=p),
        "OOD val": make_dataset(n_val, rng, shortcut=q, shift="reversed"),
        "IID test": make_dataset(n_test, rng, shortcut=p),
        "OOD test": make_dataset(n_test, rng, shortcut=q, shift="reversed"),
    }


def split_table(splits: dict[str, list]) -> pd.DataFrame:
    """Graph counts by (split, y-bin) and base type: the pairing each split holds."""
    if not splits:
        raise ValueError("splits is empty: give at least one split")
    split = [name for name, graphs in splits.items() for _ in graphs]
    bins = [int(g.y_bin) for graphs in splits.values() for g in graphs]
    kinds = [BASE_TYPES[int(g.base_type)] for graphs in splits.values() for g in graphs]
    return pd.crosstab(
        [pd.Series(split, name="split"), pd.Series(bins, name="y-bin")],
        pd.Series(kinds, name="base type"),
    )


# --------------------------------------------------------------------------------------
# batching (our own: the peer uses torch-geometric's DataLoader)
@dataclass(frozen=True)
class GraphBatch:
    """Disjoint union of graphs; field names follow torch-geometric's `Batch`."""

    x: Tensor  # (nodes, features)
    edge_index: Tensor  # (2, edges), global node ids
    batch: Tensor  # (nodes,) graph index of each node
    y: Tensor  # (graphs,)
    causal: Tensor  # (nodes,) True on causal-cycle nodes
    num_graphs: int


class GraphSet:
    """A split packed once into flat tensors on `device`; `batch(idx)` gathers any
    subset."""

    def __init__(self, graphs: Sequence, device: str | torch.device = "cpu"):
        if len(graphs) == 0:
            raise ValueError("graphs is empty: need at least one graph")
        for i, g in enumerate(graphs):
            if g.x is None or g.x.dim() != 2 or g.x.size(0) == 0:
                raise ValueError(
                    f"graphs[{i}] is an empty graph (no nodes); every graph needs "
                    "at least one node"
                )
            if g.edge_index.numel() and int(g.edge_index.max()) >= g.x.size(0):
                raise ValueError(
                    f"graphs[{i}].edge_index names node "
                    f"{int(g.edge_index.max())} of {g.x.size(0)}"
                )
        self.device = torch.device(device)
        n_nodes = torch.tensor([g.x.size(0) for g in graphs])
        n_edges = torch.tensor([g.edge_index.size(1) for g in graphs])
        zero = torch.zeros(1, dtype=torch.long)
        dev = self.device
        self.node_ptr = torch.cat([zero, n_nodes.cumsum(0)]).to(dev)
        self.edge_ptr = torch.cat([zero, n_edges.cumsum(0)]).to(dev)
        self.x = torch.cat([g.x for g in graphs]).float().to(dev)
        self.edge_index = torch.cat([g.edge_index for g in graphs], dim=1).to(
            dev
        )  # local ids
        self.y = torch.cat([g.y.view(-1) for g in graphs]).float().to(dev)
        self.causal = torch.cat([g.causal for g in graphs]).to(dev)
        self.n_nodes, self.n_edges = n_nodes.to(dev), n_edges.to(dev)

    def __len__(self) -> int:
        return self.y.numel()

    def batch(self, idx) -> GraphBatch:
        idx = torch.as_tensor(idx, dtype=torch.long).view(-1).to(self.device)
        if idx.numel() == 0:
            raise ValueError("idx is empty: a batch needs at least one graph")
        if int(idx.min()) < 0 or int(idx.max()) >= len(self):
            raise ValueError(
                f"idx must lie in [0, {len(self)}), got {int(idx.min())}.."
                f"{int(idx.max())}"
            )
        nn_, ne = self.n_nodes[idx], self.n_edges[idx]
        new_nodes = nn_.cumsum(0) - nn_  # first node of each graph, new ids
        new_edges = ne.cumsum(0) - ne
        arange = partial(torch.arange, device=self.device)
        node_ids = torch.repeat_interleave(
            self.node_ptr[idx] - new_nodes, nn_
        ) + arange(int(nn_.sum()))
        edge_ids = torch.repeat_interleave(self.edge_ptr[idx] - new_edges, ne) + arange(
            int(ne.sum())
        )
        return GraphBatch(
            x=self.x[node_ids],
            edge_index=self.edge_index[:, edge_ids]
            + torch.repeat_interleave(new_nodes, ne),
            batch=torch.repeat_interleave(arange(idx.numel()), nn_),
            y=self.y[idx],
            causal=self.causal[node_ids],
            num_graphs=idx.numel(),
        )

    def full(self) -> GraphBatch:
        return self.batch(torch.arange(len(self)))

    def batches(self, batch_size: int, generator: torch.Generator) -> list[GraphBatch]:
        """One shuffled epoch; the last incomplete batch is dropped (BatchNorm and L_mix
        need several graphs)."""
        batch_size = checks.integer("batch_size", batch_size, at_least=2)
        if batch_size > len(self):
            raise ValueError(f"batch_size {batch_size} exceeds the {len(self)} graphs")
        perm = torch.randperm(len(self), generator=generator)  # on the CPU generator
        return [
            self.batch(perm[s : s + batch_size])
            for s in range(0, len(self) - batch_size + 1, batch_size)
        ]
