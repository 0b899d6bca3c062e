"""The models: ERM (a GIN encoder, sum pooling, a regression head), CGR's `CausalGIN`
(node and edge attention split the causal part from the confounding part, a BatchNorm per
branch, one shared weighted GCN layer, a causal and a confounder head, the Gaussian
bottleneck on h_o) and the torch-geometric peer, with the message passing written out in
torch. `make_model` builds any of them from a seed without touching torch's global
generator.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor, nn
from torch.nn import functional

from repbook.core import checks, nets


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
        x = functional.relu(self.lin_in(self.bn_in(x)))
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
        self.att_temperature = checks.number(
            "att_temperature", att_temperature, above=0
        )
        self.noise = checks.number("noise", noise, at_least=0)
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
        self._noise_gen = torch.Generator().manual_seed(
            checks.integer("seed", seed, at_least=0)
        )

    def sample(self, mu: Tensor) -> Tensor:
        """h_o from its mean: μ + noise·ε in training mode, μ in eval mode."""
        if not self.training or self.noise == 0:
            return mu
        eps = torch.randn(mu.shape, generator=self._noise_gen, dtype=mu.dtype)
        return mu + self.noise * eps.to(mu.device)

    def _branch(self, x, att, eatt, bn, data):
        z = functional.relu(
            self.shared_conv(bn(att.view(-1, 1) * x), data.edge_index, eatt)
        )
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

        x = functional.relu(self.lin_in(self.bn_in(data.x)))
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
    checks.one_of("kind", kind, tuple(MODELS))
    seed = checks.integer("seed", seed, at_least=0)
    in_dim = checks.integer("in_dim", in_dim, at_least=1)
    hidden = checks.integer("hidden", hidden, at_least=1)
    layers = checks.integer("layers", layers, at_least=1)
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
    with nets.seeded(seed):
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
