"""Causal graph regression (Yin, Qu, Wang, Chen, ICML 2025, arXiv 2507.00440).

A graph G is split by learned soft masks into a causal part C and a confounding part S.
Notation (the paper's, where it helps):

- ``a_o`` / ``a_c``: node attention of the causal ("object") and confounding ("context")
  part, a softmax over two columns, so a_o + a_c = 1 per node; edges get ``e_o`` /
  ``e_c`` likewise;
- ``h_o`` / ``h_c``: the causal and confounding graph embeddings (H_c, H_s in the
  paper), made by one *shared* weighted GCN layer after a *separate* BatchNorm per
  branch, then sum pooling;
- ``h_graph``: the sum-pooled encoder embedding of the whole graph (H_g);
- the prediction comes from the causal head only: ŷ = head_o(h_o).

Losses (`CGRLoss`): L1 on the causal head (−I(C;Y)); the confounder term, either the
paper's enhanced GIB (the confounder head also predicts y, −β·I(S;Y)) or the released
code's variance penalty (make the confounder head uninformative); α·I(C;G), the paper's
Gaussian bottleneck ½E‖μ(G)‖² (h_o = μ + ε, ε ~ N(0, I), sampled in training; divided
by the width, a rescaling of α) or GSAT's KL of the causal node attention to
Bernoulli(r); and the contrastive intervention L_mix (`mix_loss`), which pulls
h_o,i + h_c,j towards h_graph,i and away from h_graph,k (k ≠ i). The protocol:
`make_splits` (one seed's splits), `train_methods` (the methods on them) and
`attention_search` / `write_mechanism_search` (the bounded search for a set-up where
the causal mask separates the cycle, recorded in data/16_causal_graph_regression/).

Data (`make_dataset`): a causal 5-cycle whose node values v ~ U(0, 1) set y = Σv + N(0,
σ²), joined by one edge to a base graph (random tree, ladder or wheel) whose type
follows the y-bin with probability `shortcut`: a structural shortcut.

No printing or plotting; the one function that writes a file is
`write_mechanism_search`; randomness comes in as generators or explicit seeds.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial

import networkx as nx
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn

BASE_TYPES = ("tree", "ladder", "wheel")
SHIFTS = ("train", "reversed")
CONFOUNDER_TERMS = ("gib", "var", "none")
INFO_TERMS = ("embedding", "kl")
BIN_EDGES = (2.0, 3.0)


# --------------------------------------------------------------------------------------
# argument checks
def _positive_int(name: str, value, minimum: int = 1) -> int:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, np.integer))
        or value < minimum
    ):
        raise ValueError(f"{name} must be an int ≥ {minimum}, got {value!r}")
    return int(value)


def _probability(name: str, value) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float, np.integer, np.floating))
        or not 0.0 <= float(value) <= 1.0
    ):
        raise ValueError(f"{name} must be a probability in [0, 1], got {value!r}")
    return float(value)


def _non_negative(name: str, value) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float, np.integer, np.floating))
        or not math.isfinite(float(value))
        or float(value) < 0
    ):
        raise ValueError(f"{name} must be a finite number ≥ 0, got {value!r}")
    return float(value)


def _check_rng(rng) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"rng must be a numpy.random.Generator, got {type(rng).__name__}"
        )
    return rng


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
    if shift not in SHIFTS:
        raise ValueError(f"shift must be one of {SHIFTS}, got {shift!r}")
    if bin_ not in (0, 1, 2):
        raise ValueError(f"bin_ must be 0, 1 or 2, got {bin_!r}")
    return bin_ if shift == "train" else 2 - bin_


def base_graph(kind: str, n: int, rng: np.random.Generator) -> nx.Graph:
    """A base (confounder) graph with about `n` nodes: a random recursive tree (n
    nodes), a ladder (2·⌊n/2⌋ nodes) or a wheel (n nodes: a hub and an (n−1)-cycle)."""
    n = _positive_int("n", n, 4)
    _check_rng(rng)
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

    _check_rng(rng)
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
        _positive_int("base_nodes[0]", lo, 4),
        _positive_int("base_nodes[1]", hi, 4),
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
    n = _positive_int("n", n)
    _check_rng(rng)
    shortcut = _probability("shortcut", shortcut)
    if shift not in SHIFTS:
        raise ValueError(f"shift must be one of {SHIFTS}, got {shift!r}")
    cycle_size = _positive_int("cycle_size", cycle_size, 3)
    noise = _non_negative("noise", noise)
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
        batch_size = _positive_int("batch_size", batch_size, 2)
        if batch_size > len(self):
            raise ValueError(f"batch_size {batch_size} exceeds the {len(self)} graphs")
        perm = torch.randperm(len(self), generator=generator)  # on the CPU generator
        return [
            self.batch(perm[s : s + batch_size])
            for s in range(0, len(self) - batch_size + 1, batch_size)
        ]


# --------------------------------------------------------------------------------------
# message passing, written out in torch
def sum_neighbours(
    x: Tensor, edge_index: Tensor, weight: Tensor | None = None
) -> Tensor:
    """out_i = Σ_{(j→i) ∈ edges} w_ji · x_j (sum aggregation at the edge's target)."""
    msg = x[edge_index[0]]
    if weight is not None:
        msg = msg * weight.view(-1, 1)
    return torch.zeros_like(x).index_add_(0, edge_index[1], msg)


def sum_pool(x: Tensor, batch: Tensor, num_graphs: int) -> Tensor:
    """Graph embeddings: the sum of each graph's node rows."""
    return x.new_zeros(num_graphs, x.size(1)).index_add_(0, batch, x)


def _mlp(hidden: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Linear(hidden, hidden),
        nn.BatchNorm1d(hidden),
        nn.ReLU(),
        nn.Linear(hidden, hidden),
        nn.ReLU(),
    )


class GINLayer(nn.Module):
    """GIN with ε = 0: x_i ← MLP(x_i + Σ_{j ∈ N(i)} x_j)."""

    def __init__(self, mlp: nn.Module):
        super().__init__()
        self.nn = mlp

    def forward(self, x: Tensor, edge_index: Tensor) -> Tensor:
        return self.nn(x + sum_neighbours(x, edge_index))


class WeightedGCNLayer(nn.Module):
    """GCN with edge weights and unit self-loops, no normalisation layer inside: out_i =
    Σ_j w̃_ji / √(d_i d_j) · (x_j W) + b, with w̃ the edge weights plus the self-loop
    and d_i = 1 + Σ_j w_ji."""

    def __init__(self, in_dim: int, out_dim: int):
        super().__init__()
        self.lin = nn.Linear(in_dim, out_dim, bias=False)
        self.bias = nn.Parameter(torch.zeros(out_dim))

    def forward(self, x: Tensor, edge_index: Tensor, weight: Tensor) -> Tensor:
        xw = self.lin(x)
        deg = torch.ones(x.size(0), dtype=x.dtype, device=x.device).index_add_(
            0, edge_index[1], weight
        )
        inv = deg.rsqrt()
        norm = inv[edge_index[0]] * weight * inv[edge_index[1]]
        return (
            sum_neighbours(xw, edge_index, norm)
            + xw * (inv * inv).view(-1, 1)
            + self.bias
        )


class GINEncoder(nn.Module):
    """BatchNorm of the input, a linear lift to `hidden`, then `layers` GIN layers."""

    def __init__(self, in_dim: int, hidden: int, layers: int):
        super().__init__()
        self.bn_in = nn.BatchNorm1d(in_dim)
        self.lin_in = nn.Linear(in_dim, hidden)
        self.convs = nn.ModuleList(GINLayer(_mlp(hidden)) for _ in range(layers))

    def forward(self, x: Tensor, edge_index: Tensor) -> Tensor:
        x = F.relu(self.lin_in(self.bn_in(x)))
        for conv in self.convs:
            x = conv(x, edge_index)
        return x


class TargetHead(nn.Module):
    """The regression head (BatchNorm, Linear, ReLU, BatchNorm, Linear, as released) on a
    standardised scale: ŷ = loc + scale · MLP(h). `loc` and `scale` are fixed buffers (set by
    `make_model` from the training targets), so the last layers need not learn y's offset."""

    def __init__(self, hidden: int):
        super().__init__()
        self.mlp = nn.Sequential(
            nn.BatchNorm1d(hidden),
            nn.Linear(hidden, hidden),
            nn.ReLU(),
            nn.BatchNorm1d(hidden),
            nn.Linear(hidden, 1),
        )
        self.register_buffer("loc", torch.zeros(()))
        self.register_buffer("scale", torch.ones(()))

    def forward(self, h: Tensor) -> Tensor:
        return self.loc + self.scale * self.mlp(h).view(-1)


def _head(hidden: int) -> TargetHead:
    return TargetHead(hidden)


class GINRegressor(nn.Module):
    """ERM: the GIN encoder, sum pooling and a regression head."""

    def __init__(self, in_dim: int = 2, hidden: int = 64, layers: int = 3):
        super().__init__()
        self.encoder = GINEncoder(in_dim, hidden, layers)
        self.head = _head(hidden)

    def forward(self, data) -> Tensor:
        _check_batch(data)
        x = self.encoder(data.x, data.edge_index)
        return self.head(sum_pool(x, data.batch, data.num_graphs))

    predict = forward


@dataclass(frozen=True)
class CGROutput:
    y_causal: Tensor  # (graphs,) the prediction
    y_conf: Tensor  # (graphs,) the confounder head
    h_causal: Tensor  # (graphs, hidden) h_o: μ + ε in training (noise > 0), else μ
    h_conf: Tensor  # (graphs, hidden) h_c
    h_graph: Tensor  # (graphs, hidden) h_G
    node_att: Tensor  # (nodes,) a_o
    edge_att: Tensor  # (edges,) e_o
    mu_causal: Tensor | None = None  # (graphs, hidden) μ(G), the mean of h_o


class CausalGIN(nn.Module):
    """CGR's model: GIN encoder; node and edge attention split causal from confounder; a
    separate BatchNorm per branch, then one shared norm-free weighted GCN layer; sum
    pooling; a causal and a confounder head. `predict` uses the causal branch only.
    `att_temperature` divides the attention logits before their softmax (1 as released;
    below 1 sharpens the split).

    The causal embedding is the paper's Gaussian bottleneck: its mean μ(G) is the pooled
    causal branch; in training mode `forward` samples h_o = μ + noise·ε, ε ~ N(0, I), from
    the model's own generator (seeded by `seed_noise`, or by `make_model`), and feeds
    that sample to the causal head and to L_mix; in eval mode h_o = μ. `noise` = 0 gives
    the deterministic embedding."""

    def __init__(
        self,
        in_dim: int = 2,
        hidden: int = 64,
        layers: int = 3,
        att_temperature: float = 1.0,
        noise: float = 1.0,
    ):
        super().__init__()
        t = _non_negative("att_temperature", att_temperature)
        if t == 0:
            raise ValueError("att_temperature must be > 0, got 0")
        self.att_temperature = t
        self.noise = _non_negative("noise", noise)
        self.seed_noise(0)
        self.encoder = GINEncoder(in_dim, hidden, layers)
        self.node_att = nn.Linear(hidden, 2)
        self.edge_att = nn.Linear(2 * hidden, 2)
        self.bn_causal = nn.BatchNorm1d(hidden)
        self.bn_conf = nn.BatchNorm1d(hidden)
        self.shared_conv = WeightedGCNLayer(hidden, hidden)
        self.head_causal = _head(hidden)
        self.head_conf = _head(hidden)

    def _split(self, data):
        _check_batch(data)
        x = self.encoder(data.x, data.edge_index)
        row, col = data.edge_index
        t = self.att_temperature
        a = torch.softmax(self.node_att(x) / t, dim=-1)  # [:, 0] c, [:, 1] o
        e = torch.softmax(self.edge_att(torch.cat([x[row], x[col]], -1)) / t, dim=-1)
        return x, a, e

    def seed_noise(self, seed: int) -> None:
        """Restart the generator of the bottleneck's noise ε at `seed` (a CPU generator:
        every device draws the same ε)."""
        self._noise_gen = torch.Generator().manual_seed(_positive_int("seed", seed, 0))

    def sample(self, mu: Tensor) -> Tensor:
        """h_o from its mean: μ + noise·ε in training mode, μ in eval mode."""
        if not self.training or self.noise == 0:
            return mu
        eps = torch.randn(mu.shape, generator=self._noise_gen, dtype=mu.dtype)
        return mu + self.noise * eps.to(mu.device)

    def _branch(self, x, att, eatt, bn, data):
        z = F.relu(self.shared_conv(bn(att.view(-1, 1) * x), data.edge_index, eatt))
        return sum_pool(z, data.batch, data.num_graphs)

    def forward(self, data) -> CGROutput:
        x, a, e = self._split(data)
        mu = self._branch(x, a[:, 1], e[:, 1], self.bn_causal, data)
        h_o = self.sample(mu)
        h_c = self._branch(x, a[:, 0], e[:, 0], self.bn_conf, data)
        return CGROutput(
            y_causal=self.head_causal(h_o),
            y_conf=self.head_conf(h_c),
            h_causal=h_o,
            h_conf=h_c,
            h_graph=sum_pool(x, data.batch, data.num_graphs),
            node_att=a[:, 1],
            edge_att=e[:, 1],
            mu_causal=mu,
        )

    def predict(self, data) -> Tensor:
        """The causal head on h_o = μ (no noise, whatever the mode)."""
        x, a, e = self._split(data)
        return self.head_causal(
            self._branch(x, a[:, 1], e[:, 1], self.bn_causal, data)
        ).view(-1)


class PygGINRegressor(nn.Module):
    """The peer: ERM built from torch-geometric's `GINConv` and `global_add_pool` (same
    widths, MLPs and head as `GINRegressor`); feed it torch-geometric batches."""

    def __init__(self, in_dim: int = 2, hidden: int = 64, layers: int = 3):
        super().__init__()
        from torch_geometric.nn import GINConv

        self.bn_in = nn.BatchNorm1d(in_dim)
        self.lin_in = nn.Linear(in_dim, hidden)
        self.convs = nn.ModuleList(
            GINConv(_mlp(hidden), eps=0.0, train_eps=False) for _ in range(layers)
        )
        self.head = _head(hidden)

    def forward(self, data) -> Tensor:
        from torch_geometric.nn import global_add_pool

        x = F.relu(self.lin_in(self.bn_in(data.x)))
        for conv in self.convs:
            x = conv(x, data.edge_index)
        return self.head(global_add_pool(x, data.batch, size=data.num_graphs))

    predict = forward


def copy_erm_weights(src: GINRegressor, dst: PygGINRegressor) -> PygGINRegressor:
    """Give the torch-geometric ERM `dst` the weights of our ERM `src` (same widths); the
    two then compute the same function. Returns `dst`."""
    if not isinstance(src, GINRegressor) or not isinstance(dst, PygGINRegressor):
        raise TypeError(
            f"src must be a GINRegressor and dst a PygGINRegressor, got "
            f"{type(src).__name__} and {type(dst).__name__}"
        )
    state = {k.removeprefix("encoder."): v for k, v in src.state_dict().items()}
    result = dst.load_state_dict(state, strict=False)
    extra = [k for k in result.missing_keys if not k.endswith(".eps")]
    if extra or result.unexpected_keys:
        raise ValueError(
            f"src and dst differ in shape: missing {extra}, unexpected "
            f"{result.unexpected_keys}"
        )
    return dst


MODELS = {"erm": GINRegressor, "cgr": CausalGIN, "pyg-erm": PygGINRegressor}


def make_model(
    kind: str,
    *,
    seed: int,
    in_dim: int = 2,
    hidden: int = 64,
    layers: int = 3,
    device: str | torch.device = "cpu",
    target: tuple[float, float] = (0.0, 1.0),
    att_temperature: float = 1.0,
    noise: float = 1.0,
) -> nn.Module:
    """A freshly initialised model of `kind` in MODELS on `device`; `seed` fixes the
    initial weights (drawn on the CPU, so every device starts alike) without touching
    torch's global generator. `target` = (location, scale) of y (e.g. the training mean
    and standard deviation): every head predicts on that standardised scale.
    `att_temperature` is CGR's attention temperature and `noise` the standard deviation
    of its Gaussian bottleneck (kind "cgr" only; its noise generator is seeded with
    `seed`)."""
    if kind not in MODELS:
        raise ValueError(f"kind must be one of {tuple(MODELS)}, got {kind!r}")
    seed = _positive_int("seed", seed, 0)
    in_dim = _positive_int("in_dim", in_dim)
    hidden = _positive_int("hidden", hidden)
    layers = _positive_int("layers", layers)
    try:
        loc, scale = (float(t) for t in target)
    except (TypeError, ValueError):
        raise ValueError(
            f"target must be a pair (location, scale), got {target!r}"
        ) from None
    if not (math.isfinite(loc) and math.isfinite(scale) and scale > 0):
        raise ValueError(
            f"target must be a finite location and a scale > 0, got {target!r}"
        )
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        if kind == "cgr":
            model = CausalGIN(
                in_dim, hidden, layers, att_temperature=att_temperature, noise=noise
            )
            model.seed_noise(seed)
        elif att_temperature != 1.0:
            raise ValueError(
                f"att_temperature applies to kind 'cgr' only, got {att_temperature!r} "
                f"for kind {kind!r}"
            )
        else:
            model = MODELS[kind](in_dim, hidden, layers)
    for m in model.modules():
        if isinstance(m, TargetHead):
            m.loc.fill_(loc)
            m.scale.fill_(scale)
    return model.to(device)


def _check_batch(data) -> None:
    if data.x.size(0) == 0:
        raise ValueError("data is an empty graph batch (no nodes)")
    if data.num_graphs < 1:
        raise ValueError(
            f"data must hold at least one graph, got num_graphs={data.num_graphs}"
        )


# --------------------------------------------------------------------------------------
# losses
def mix_loss(
    h_causal: Tensor,
    h_conf: Tensor,
    h_graph: Tensor,
    *,
    temperature: float = 1.0,
    include_positive: bool = False,
) -> Tensor:
    """Contrastive intervention L_mix over all ordered pairs i ≠ j of the batch.

    h_mix[i, j] = h_causal[i] + h_conf[j]; s(u, v) is cosine similarity over
    `temperature`. ℓ_ij = −s(h_mix_ij, h_graph_i) + log Σ_k exp s(h_mix_ij, h_graph_k),
    the sum over k ≠ i (the released code) or over all k (`include_positive`, standard
    InfoNCE); returns the mean of ℓ_ij. One (B, B, B) einsum, no Python loop.
    """
    if not (h_causal.shape == h_conf.shape == h_graph.shape) or h_causal.dim() != 2:
        raise ValueError(
            f"h_causal, h_conf, h_graph must share one (B, D) shape, got "
            f"{tuple(h_causal.shape)}, {tuple(h_conf.shape)}, {tuple(h_graph.shape)}"
        )
    b = h_causal.size(0)
    if b < 2:
        raise ValueError(
            f"mix_loss needs a batch of at least 2 graphs (pairs i ≠ j), got {b}"
        )
    if not (isinstance(temperature, (int, float)) and temperature > 0):
        raise ValueError(f"temperature must be a positive number, got {temperature!r}")
    mix = F.normalize(h_causal[:, None, :] + h_conf[None, :, :], dim=-1)  # (B, B, D)
    g = F.normalize(h_graph, dim=-1)  # (B, D)
    sim = torch.einsum("ijd,kd->ijk", mix, g) / temperature  # (B, B, B)
    eye = torch.eye(b, dtype=torch.bool, device=h_causal.device)
    pos = torch.diagonal(sim, dim1=0, dim2=2).T  # sim[i, j, i]
    if not include_positive:
        sim = sim.masked_fill(eye[:, None, :].expand(b, b, b), float("-inf"))
    loss = -pos + torch.logsumexp(sim, dim=-1)  # (B, B)
    return loss[~eye].mean()


def embedding_info(mu: Tensor, *, per_width: bool = False) -> Tensor:
    """The paper's I(C;G) proxy (its Eq. 8): ½·E‖μ(G)‖², the mean over graphs of half the
    squared norm of the causal embedding's mean. For h_o ~ N(μ, I) it is
    KL(N(μ, I) ‖ N(0, I)); `CausalGIN` samples that h_o in training. `per_width`
    divides by the width D: a rescaling of the weight α by 1/D."""
    if mu.dim() != 2 or mu.numel() == 0:
        raise ValueError(f"mu must be a non-empty (B, D) tensor, got {tuple(mu.shape)}")
    kl = 0.5 * mu.pow(2).sum(-1).mean()
    return kl / mu.size(1) if per_width else kl


def bernoulli_kl(att: Tensor, r: float = 0.3, eps: float = 1e-6) -> Tensor:
    """Mean over nodes of KL(Bernoulli(a) ‖ Bernoulli(r)): the I(C;G) proxy on node
    attention."""
    if not 0.0 < r < 1.0:
        raise ValueError(f"r must lie in (0, 1), got {r!r}")
    if att.numel() == 0:
        raise ValueError("att is empty: need the attention of at least one node")
    a = att.clamp(eps, 1 - eps)
    return (a * torch.log(a / r) + (1 - a) * torch.log((1 - a) / (1 - r))).mean()


@dataclass(frozen=True)
class CGRLoss:
    """L = L1(ŷ_o, y) + β·conf + α·I(C;G) + λ·L_mix.

    `info`: the I(C;G) proxy, "embedding" (the paper's ½E‖μ(G)‖², `embedding_info`) or
    "kl" (GSAT's KL(a_o ‖ Bern(r)) on node attention, `bernoulli_kl`). `confounder`:
    "gib" (the paper: β·L1(ŷ_c, y), the confounder head predicts y), "var" (the released
    code: β·Var_batch(ŷ_c)) or "none". λ = 0 removes L_mix. The paper sets
    all weights to 0.5 (its Appendix A.4).
    """

    confounder: str = "gib"
    info: str = "embedding"
    alpha: float = 0.5
    beta: float = 0.5
    lam: float = 0.5
    r: float = 0.3
    per_width: bool = True  # "embedding": α·½E‖μ‖²/D, i.e. the weight α/D
    temperature: float = 1.0
    include_positive: bool = False

    def __post_init__(self):
        if self.confounder not in CONFOUNDER_TERMS:
            raise ValueError(
                f"confounder must be one of {CONFOUNDER_TERMS}, got {self.confounder!r}"
            )
        if self.info not in INFO_TERMS:
            raise ValueError(f"info must be one of {INFO_TERMS}, got {self.info!r}")
        for name in ("alpha", "beta", "lam"):
            _non_negative(name, getattr(self, name))
        if not 0.0 < self.r < 1.0:
            raise ValueError(f"r must lie in (0, 1), got {self.r!r}")

    def parts(self, out: CGROutput, y: Tensor) -> dict[str, Tensor]:
        parts = {"causal L1": F.l1_loss(out.y_causal, y)}
        if self.confounder == "gib":
            parts["confounder"] = self.beta * F.l1_loss(out.y_conf, y)
        elif self.confounder == "var":
            parts["confounder"] = self.beta * torch.var(out.y_conf)
        if self.alpha and self.info == "kl":
            parts["I(C;G)"] = self.alpha * bernoulli_kl(out.node_att, self.r)
        elif self.alpha:
            mu = out.h_causal if out.mu_causal is None else out.mu_causal
            parts["I(C;G)"] = self.alpha * embedding_info(mu, per_width=self.per_width)
        if self.lam:
            parts["L_mix"] = self.lam * mix_loss(
                out.h_causal,
                out.h_conf,
                out.h_graph,
                temperature=self.temperature,
                include_positive=self.include_positive,
            )
        return parts

    def __call__(self, out: CGROutput, y: Tensor) -> Tensor:
        return sum(self.parts(out, y).values())


def erm_loss(pred: Tensor, y: Tensor) -> Tensor:
    """ERM's objective: L1 (the metric is MAE)."""
    return F.l1_loss(pred, y)


# --------------------------------------------------------------------------------------
# training and evaluation
@dataclass(frozen=True)
class Fit:
    """A trained model at its selected epoch (best OOD-validation MAE after
    `select_after`)."""

    model: nn.Module
    best_epoch: int
    val_mae: np.ndarray  # per epoch, 1-based epochs at index epoch − 1


def predict(model: nn.Module, data) -> Tensor:
    """Eval-mode predictions (CGR: causal head only), without gradients."""
    model.eval()
    with torch.no_grad():
        return model.predict(data)


def mae(model: nn.Module, data) -> float:
    """Mean absolute error of `predict` on a batch."""
    return float((predict(model, data) - data.y.view(-1)).abs().mean())


def fit(
    model: nn.Module,
    objective: Callable,
    batches: Callable[[int], Iterable],
    val,
    *,
    epochs: int,
    lr: float = 1e-3,
    min_lr: float = 1e-8,
    select_after: int = 10,
) -> Fit:
    """Adam with cosine annealing from `lr` to `min_lr` over `epochs`; `batches(epoch)`
    yields the epoch's training batches; `objective(model_output, y)` is the loss. After
    each epoch the MAE on `val` (one batch) is recorded; the returned model carries the
    weights of the best epoch among epochs > `select_after` (as the released training
    loop selects)."""
    epochs = _positive_int("epochs", epochs)
    select_after = _positive_int("select_after", select_after, 0)
    if select_after >= epochs:
        raise ValueError(
            f"select_after ({select_after}) must be below epochs ({epochs})"
        )
    if not (isinstance(lr, (int, float)) and lr > 0):
        raise ValueError(f"lr must be a positive number, got {lr!r}")
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(
        opt, T_max=epochs, eta_min=min_lr
    )
    val_curve, best, best_epoch = [], math.inf, -1
    best_state = None
    for epoch in range(1, epochs + 1):
        model.train()
        for data in batches(epoch):
            opt.zero_grad()
            loss = objective(model(data), data.y.view(-1).float())
            loss.backward()
            opt.step()
        sched.step()
        v = mae(model, val)
        val_curve.append(v)
        if epoch > select_after and v < best:
            best, best_epoch = v, epoch
            best_state = copy.deepcopy(model.state_dict())
    model.load_state_dict(best_state)
    model.eval()
    return Fit(model=model, best_epoch=best_epoch, val_mae=np.array(val_curve))


def attention_by_part(model: CausalGIN, data: GraphBatch) -> dict[str, float]:
    """Mean causal node attention a_o on the causal-cycle nodes and on the base
    nodes."""
    if not isinstance(model, CausalGIN):
        raise TypeError(f"model must be a CausalGIN, got {type(model).__name__}")
    model.eval()
    with torch.no_grad():
        _, a, _ = model._split(data)
    a_o = a[:, 1]
    return {
        "cycle": float(a_o[data.causal].mean()),
        "base": float(a_o[~data.causal].mean()),
    }


def node_attention(model: CausalGIN, data: GraphBatch) -> Tensor:
    """a_o for every node of the batch (eval mode)."""
    if not isinstance(model, CausalGIN):
        raise TypeError(f"model must be a CausalGIN, got {type(model).__name__}")
    model.eval()
    with torch.no_grad():
        return model._split(data)[1][:, 1]


# --------------------------------------------------------------------------------------
# the experiment protocol: one seed's splits and the methods trained on them
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
    _check_rng(rng)
    p = _probability("shortcut", shortcut)
    q = p if ood_shortcut is None else _probability("ood_shortcut", ood_shortcut)
    return {
        "train": make_dataset(n_train, rng, shortcut=p),
        "OOD val": make_dataset(n_val, rng, shortcut=q, shift="reversed"),
        "IID test": make_dataset(n_test, rng, shortcut=p),
        "OOD test": make_dataset(n_test, rng, shortcut=q, shift="reversed"),
    }


@dataclass(frozen=True)
class Method:
    """A model kind of MODELS and its objective; kind "pyg-erm" trains on
    torch-geometric's `DataLoader` and batches, the others on `GraphSet.batches`."""

    kind: str
    objective: Callable
    att_temperature: float = 1.0
    noise: float = 1.0  # CGR's bottleneck noise (kind "cgr" only)

    def __post_init__(self):
        if self.kind not in MODELS:
            raise ValueError(f"kind must be one of {tuple(MODELS)}, got {self.kind!r}")
        _non_negative("noise", self.noise)
        if not callable(self.objective):
            raise TypeError("objective must be callable (model output, y) → loss")


def train_methods(
    splits: dict[str, list],
    methods: dict[str, Method],
    *,
    model_seed: int,
    batch_seed: int,
    hidden: int,
    layers: int,
    epochs: int,
    batch: int,
    select_after: int,
    lr: float = 1e-3,
    device: str | torch.device = "cpu",
) -> tuple[list[dict], dict[str, nn.Module]]:
    """Fit every method of `methods` on one seed's `splits` (keys SPLITS), selecting the
    epoch on the OOD validation split. Every method starts from `model_seed` and sees
    the batches of a generator seeded with `batch_seed` (the peer: torch-geometric's
    shuffling with that generator); Adam starts at `lr`. Returns one row per method
    (method, epoch, IID and OOD test MAE, and for CGR models the mean a_o on cycle and
    base nodes of the OOD test graphs) and the fitted models by name."""
    from torch_geometric.data import Batch
    from torch_geometric.loader import DataLoader

    missing = [k for k in SPLITS if k not in splits]
    if missing:
        raise ValueError(f"splits lacks {missing}; it needs the keys {SPLITS}")
    if not methods:
        raise ValueError("methods is empty: name at least one method")
    for name, m in methods.items():
        if not isinstance(m, Method):
            raise TypeError(
                f"methods[{name!r}] must be a Method, got {type(m).__name__}"
            )
    batch = _positive_int("batch", batch, 2)
    train = GraphSet(splits["train"], device)
    target = (float(train.y.mean()), float(train.y.std()))
    ours = {k: GraphSet(splits[k], device).full() for k in SPLITS[1:]}
    arch = dict(hidden=hidden, layers=layers, device=device, target=target)
    fit_kw = dict(epochs=epochs, select_after=select_after, lr=lr)
    rows, models = [], {}
    for name, m in methods.items():
        gen = torch.Generator().manual_seed(int(batch_seed))
        cgr_kw = (
            dict(att_temperature=m.att_temperature, noise=m.noise)
            if m.kind == "cgr"
            else {}
        )
        model = make_model(m.kind, seed=model_seed, **cgr_kw, **arch)
        if m.kind == "pyg-erm":
            loader = DataLoader(
                splits["train"],
                batch_size=batch,
                shuffle=True,
                drop_last=True,
                generator=gen,
            )
            data = {k: Batch.from_data_list(splits[k]).to(device) for k in SPLITS[1:]}
            f = fit(
                model,
                m.objective,
                lambda e: (b.to(device) for b in loader),
                data["OOD val"],
                **fit_kw,
            )
        else:
            data = ours
            f = fit(
                model,
                m.objective,
                lambda e: train.batches(batch, gen),
                data["OOD val"],
                **fit_kw,
            )
        row = dict(
            method=name,
            epoch=f.best_epoch,
            IID=mae(f.model, data["IID test"]),
            OOD=mae(f.model, data["OOD test"]),
        )
        if isinstance(f.model, CausalGIN):
            att = attention_by_part(f.model, ours["OOD test"])
            row.update({"a_o cycle": att["cycle"], "a_o base": att["base"]})
        rows.append(row)
        models[name] = f.model
    return rows, models


SETUP_KEYS = (
    "info",
    "per_width",
    "noise",
    "att_temperature",
    "lr",
    "epochs",
    "n_train",
    "layers",
)

# The bounded mechanism search (`write_mechanism_search`): quick-scale set-ups of CGR
# alone, chosen for whether its causal mask can separate the cycle, never for an MAE.
# Each changes one or two things from the paper's form as the chapter runs it.
MECHANISM_SETUPS = {
    name: dict(zip(SETUP_KEYS, values))
    for name, values in {
        "as the chapter (α/D, noise 1)": (
            "embedding",
            True,
            1.0,
            1.0,
            1e-3,
            20,
            600,
            3,
        ),
        "α on ½‖μ‖² (no /D)": ("embedding", False, 1.0, 1.0, 1e-3, 20, 600, 3),
        "deterministic h_o (noise 0)": ("embedding", True, 0.0, 1.0, 1e-3, 20, 600, 3),
        "GSAT KL, no noise": ("kl", True, 0.0, 1.0, 1e-3, 20, 600, 3),
        "lr 3e-3": ("embedding", True, 1.0, 1.0, 3e-3, 20, 600, 3),
        "lr 1e-2": ("embedding", True, 1.0, 1.0, 1e-2, 20, 600, 3),
        "τ 0.3, lr 3e-3": ("embedding", True, 1.0, 0.3, 3e-3, 20, 600, 3),
        "1,200 graphs, lr 3e-3": ("embedding", True, 1.0, 1.0, 3e-3, 20, 1200, 3),
        "100 epochs, lr 3e-3": ("embedding", True, 1.0, 1.0, 3e-3, 100, 600, 3),
    }.items()
}


def attention_search(
    setups: dict[str, dict],
    seeds: Sequence[int],
    *,
    n_val: int,
    n_test: int,
    hidden: int,
    batch: int,
    select_after: int,
    shortcut: float,
    device: str | torch.device = "cpu",
) -> list[dict]:
    """A bounded search for a set-up where CGR's causal attention separates the cycle:
    for each named set-up (keys SETUP_KEYS) and seed, train CGR alone on
    `make_splits(default_rng([seed, 100]))` and return a row with its OOD and IID MAE,
    a_o on cycle and base nodes and their difference. The set-ups are chosen for the
    attention, never for an MAE."""
    if not setups:
        raise ValueError("setups is empty: name at least one set-up")
    if len(seeds) == 0:
        raise ValueError("seeds is empty: name at least one seed")
    rows = []
    for name, s in setups.items():
        if set(s) != set(SETUP_KEYS):
            raise ValueError(
                f"setup {name!r} must have exactly the keys {sorted(SETUP_KEYS)}, got "
                f"{sorted(s)}"
            )
        for r in seeds:
            sp = make_splits(
                np.random.default_rng([int(r), 100]),
                n_train=s["n_train"],
                n_val=n_val,
                n_test=n_test,
                shortcut=shortcut,
            )
            loss = CGRLoss(info=s["info"], per_width=s["per_width"])
            method = Method("cgr", loss, s["att_temperature"], s["noise"])
            (row,), _ = train_methods(
                sp,
                {name: method},
                model_seed=int(r),
                batch_seed=int(r),
                hidden=hidden,
                layers=s["layers"],
                epochs=s["epochs"],
                batch=batch,
                select_after=select_after,
                lr=s["lr"],
                device=device,
            )
            row = dict(row, setup=name, seed=int(r), **s)
            row["a_o cycle − base"] = row["a_o cycle"] - row["a_o base"]
            rows.append(row)
    return rows


def _git_commit() -> str:
    """The checkout's commit, with "+uncommitted changes" when the tree is dirty."""
    import subprocess

    from repbook.core.data import repo_root

    def git(*args):
        return subprocess.run(
            ["git", *args], cwd=repo_root(), capture_output=True, text=True
        ).stdout.strip()

    head = git("rev-parse", "--short", "HEAD") or "unknown"
    return head + ("+uncommitted changes" if git("status", "--porcelain") else "")


SEARCH_FILE = ("16_causal_graph_regression", "mechanism_search.json")


def write_mechanism_search(
    path=None,
    *,
    setups: dict[str, dict] | None = None,
    seeds: Sequence[int] = (0, 1),
    n_val: int = 200,
    n_test: int = 300,
    hidden: int = 32,
    batch: int = 64,
    select_after: int = 10,
    shortcut: float = 0.9,
    gate: float = 0.05,
    commit: str | None = None,
) -> dict:
    """Run `attention_search` (default: MECHANISM_SETUPS on seeds 0 and 1 at the quick
    scale's sizes) and write its rows, with the parameters and the commit that made
    them, as JSON to `path` (default: data/16_causal_graph_regression/, file
    mechanism_search.json, whose SHA256SUMS is rewritten). The one file-writing function of this module.
    Returns what it wrote."""
    import json
    import time
    from pathlib import Path

    from repbook.core.data import repo_root, sha256

    setups = MECHANISM_SETUPS if setups is None else setups
    params = dict(
        seeds=[int(r) for r in seeds],
        n_val=n_val,
        n_test=n_test,
        hidden=hidden,
        batch=batch,
        select_after=select_after,
        shortcut=shortcut,
    )
    start = time.perf_counter()
    rows = attention_search(setups, **params)
    record = dict(
        commit=_git_commit() if commit is None else commit,
        torch=torch.__version__,
        seconds=round(time.perf_counter() - start, 1),
        gate=gate,
        params=params,
        setups=setups,
        rows=rows,
    )
    default = path is None
    path = Path(
        repo_root() / "data" / SEARCH_FILE[0] / SEARCH_FILE[1] if default else path
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
    if default:
        (path.parent / "SHA256SUMS").write_text(f"{sha256(path)}  {path.name}\n")
    return record


def search_summary(record: dict) -> list[dict]:
    """Per set-up of a `write_mechanism_search` record: the a_o gap per seed, its mean,
    whether every seed meets the record's gate, and the mean OOD and IID MAE."""
    if not record.get("rows"):
        raise ValueError("record has no rows: is it a write_mechanism_search record?")
    out = []
    for name in record["setups"]:
        rs = [r for r in record["rows"] if r["setup"] == name]
        gaps = [r["a_o cycle − base"] for r in rs]
        out.append(
            dict(
                setup=name,
                gaps=gaps,
                mean_gap=float(np.mean(gaps)),
                meets_gate=bool(min(gaps) >= record["gate"]),
                OOD=float(np.mean([r["OOD"] for r in rs])),
                IID=float(np.mean([r["IID"] for r in rs])),
            )
        )
    return out
