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
code's variance penalty (make the confounder head uninformative); α·I(C;G) as the KL of
the causal node attention to Bernoulli(r); and the contrastive intervention L_mix
(`mix_loss`), which pulls h_o,i + h_c,j towards h_graph,i and away from h_graph,k (k ≠
i).

Data (`make_dataset`): a causal 5-cycle whose node values v ~ U(0, 1) set y = Σv + N(0,
σ²), joined by one edge to a base graph (random tree, ladder or wheel) whose type
follows the y-bin with probability `shortcut`: a structural shortcut.

No printing, plotting or file writing; randomness comes in as generators or explicit
seeds.
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
    h_causal: Tensor  # (graphs, hidden) h_o
    h_conf: Tensor  # (graphs, hidden) h_c
    h_graph: Tensor  # (graphs, hidden) h_G
    node_att: Tensor  # (nodes,) a_o
    edge_att: Tensor  # (edges,) e_o


class CausalGIN(nn.Module):
    """CGR's model: GIN encoder; node and edge attention split causal from confounder; a
    separate BatchNorm per branch, then one shared norm-free weighted GCN layer; sum
    pooling; a causal and a confounder head. `predict` uses the causal branch only."""

    def __init__(self, in_dim: int = 2, hidden: int = 64, layers: int = 3):
        super().__init__()
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
        a = torch.softmax(self.node_att(x), dim=-1)  # [:, 0] c, [:, 1] o
        e = torch.softmax(self.edge_att(torch.cat([x[row], x[col]], -1)), dim=-1)
        return x, a, e

    def _branch(self, x, att, eatt, bn, data):
        z = F.relu(self.shared_conv(bn(att.view(-1, 1) * x), data.edge_index, eatt))
        return sum_pool(z, data.batch, data.num_graphs)

    def forward(self, data) -> CGROutput:
        x, a, e = self._split(data)
        h_o = self._branch(x, a[:, 1], e[:, 1], self.bn_causal, data)
        h_c = self._branch(x, a[:, 0], e[:, 0], self.bn_conf, data)
        return CGROutput(
            y_causal=self.head_causal(h_o),
            y_conf=self.head_conf(h_c),
            h_causal=h_o,
            h_conf=h_c,
            h_graph=sum_pool(x, data.batch, data.num_graphs),
            node_att=a[:, 1],
            edge_att=e[:, 1],
        )

    def predict(self, data) -> Tensor:
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
) -> nn.Module:
    """A freshly initialised model of `kind` in MODELS on `device`; `seed` fixes the
    initial weights (drawn on the CPU, so every device starts alike) without touching
    torch's global generator. `target` = (location, scale) of y (e.g. the training mean
    and standard deviation): every head predicts on that standardised scale."""
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
    """L = L1(ŷ_o, y) + β·conf + α·KL(a_o ‖ Bern(r)) + λ·L_mix.

    `confounder`: "gib" (the paper: β·L1(ŷ_c, y), the confounder head predicts y), "var"
    (the released code: β·Var_batch(ŷ_c)) or "none". λ = 0 removes L_mix. The paper sets
    all weights to 0.5 (its Appendix A.4).
    """

    confounder: str = "gib"
    alpha: float = 0.5
    beta: float = 0.5
    lam: float = 0.5
    r: float = 0.3
    temperature: float = 1.0
    include_positive: bool = False

    def __post_init__(self):
        if self.confounder not in CONFOUNDER_TERMS:
            raise ValueError(
                f"confounder must be one of {CONFOUNDER_TERMS}, got {self.confounder!r}"
            )
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
        if self.alpha:
            parts["I(C;G)"] = self.alpha * bernoulli_kl(out.node_att, self.r)
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
