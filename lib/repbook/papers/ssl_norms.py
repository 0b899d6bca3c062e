"""Embedding norms in self-supervised learning (Draganov et al., ICML 2025, 2502.09252).

Notation. An encoder maps an input to an embedding z (the projector output, *before* it
is normalised). Cosine-similarity losses only see ẑ = z/‖z‖. For cos(z, z⁺) = ẑ·ẑ⁺ the
gradient is

    ∇_z cos(z, z⁺) = (ẑ⁺ − cos(z, z⁺) ẑ) / ‖z‖,

orthogonal to z and of size sin φ / ‖z‖ (φ the angle between z and z⁺). Hence:

- an SGD step on z alone never shrinks ‖z‖ (Pythagoras), so norms grow without weight
  decay;
- a step turns z by about γ sin φ / ‖z‖², so large norms slow convergence;
- *cut-initialisation* divides the weights of the network by c > 1 at initialisation
  (small initial norms);
- *GradScale* is the identity in the forward pass and multiplies the gradient reaching z
  by ‖z‖^p in the backward pass (p = 1 cancels the 1/‖z‖).

What is here: the analytic gradient, the two losses (InfoNCE / NT-Xent and a
non-contrastive negative cosine with stop-gradient), GradScale, cut-initialisation,
cheap augmentations for small grey images (on the fly, or a precomputed set of views), a
small MLP encoder, a SimCLR training loop with norm and k-NN tracking, the toy alignment
simulation, the class-imbalance simulation of the paper's code, k-NN accuracy (overall
and by norm quantile), time to accuracy, the area under an accuracy curve and AUROC with
a bootstrap interval (scipy). Randomness comes in as a torch.Generator or numpy
Generator; no printing, plotting or files.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from scipy import stats
from torch import nn


# --------------------------------------------------------------------------------------
# input checks
def _check_positive(name: str, value, *, integer: bool = False):
    kind = "int" if integer else "number"
    if isinstance(value, bool) or not isinstance(
        value, (int, float, np.integer, np.floating)
    ):
        raise ValueError(f"{name} must be a positive {kind}, got {value!r}")
    if integer and not float(value).is_integer():
        raise ValueError(f"{name} must be a positive int, got {value!r}")
    if not (value > 0 and math.isfinite(float(value))):
        raise ValueError(f"{name} must be a positive {kind}, got {value!r}")
    return int(value) if integer else float(value)


def _check_pair(z: torch.Tensor, z_pos: torch.Tensor, what: str = "z and z_pos"):
    if not isinstance(z, torch.Tensor) or not isinstance(z_pos, torch.Tensor):
        raise TypeError(
            f"{what} must be torch tensors, got {type(z).__name__} and "
            f"{type(z_pos).__name__}"
        )
    if z.shape != z_pos.shape or z.ndim != 2:
        raise ValueError(
            f"{what} must both have shape (n, d), got {tuple(z.shape)} "
            f"and {tuple(z_pos.shape)}"
        )
    if z.shape[0] == 0 or z.shape[1] == 0:
        raise ValueError(f"{what} are empty: need n ≥ 1 rows of dimension d ≥ 1")


def _check_generator(generator) -> None:
    if not isinstance(generator, torch.Generator):
        raise TypeError(
            f"generator must be a torch.Generator, got {type(generator).__name__}"
        )


def _check_rng(rng) -> None:
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator, got {type(rng).__name__}")


# --------------------------------------------------------------------------------------
# the gradient law
def cosine_similarity(z: torch.Tensor, z_pos: torch.Tensor) -> torch.Tensor:
    """Row-wise cos(z_i, z⁺_i); a row of zero norm is an error (undefined cosine)."""
    _check_pair(z, z_pos)
    nz, np_ = z.norm(dim=1), z_pos.norm(dim=1)
    if bool((nz == 0).any()) or bool((np_ == 0).any()):
        raise ValueError(
            "z and z_pos must have non-zero rows: the cosine of a zero "
            "vector is undefined"
        )
    return (z * z_pos).sum(1) / (nz * np_)


def cosine_grad(z: torch.Tensor, z_pos: torch.Tensor) -> torch.Tensor:
    """Analytic ∇_{z_i} cos(z_i, z⁺_i) = (ẑ⁺_i − cos_i ẑ_i) / ‖z_i‖, row by row."""
    cos = cosine_similarity(z, z_pos)
    nz = z.norm(dim=1, keepdim=True)
    zh, ph = z / nz, z_pos / z_pos.norm(dim=1, keepdim=True)
    return (ph - cos[:, None] * zh) / nz


class _GradScale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, z, power):
        ctx.save_for_backward(z)
        ctx.power = power
        return z.view_as(z)

    @staticmethod
    def backward(ctx, grad):
        (z,) = ctx.saved_tensors
        return grad * z.norm(dim=-1, keepdim=True) ** ctx.power, None


def grad_scale(z: torch.Tensor, power: float = 1.0) -> torch.Tensor:
    """GradScale: identity forward; backward multiplies row i's gradient by ‖z_i‖^power.

    Apply it to z *before* normalisation. power = 0 is the plain loss; power = 1 cancels
    the 1/‖z‖ of the cosine gradient.
    """
    if (
        isinstance(power, bool)
        or not isinstance(power, (int, float))
        or not math.isfinite(power)
    ):
        raise ValueError(f"power must be a finite number, got {power!r}")
    if power == 0:
        return z
    return _GradScale.apply(z, float(power))


# --------------------------------------------------------------------------------------
# losses
def info_nce_loss(
    z1: torch.Tensor, z2: torch.Tensor, *, tau: float = 0.5, power: float = 0.0
) -> torch.Tensor:
    """NT-Xent (SimCLR's InfoNCE) over the 2n embeddings of two views, mean of anchors.

    Row i of z1 and row i of z2 are positives; the other 2n − 2 rows are negatives.
    `power` applies GradScale to both views before normalisation.
    """
    _check_pair(z1, z2, "z1 and z2")
    tau = _check_positive("tau", tau)
    n = z1.shape[0]
    if n < 2:
        raise ValueError(
            f"info_nce_loss needs at least 2 pairs (negatives), got n = {n}"
        )
    z = torch.cat([grad_scale(z1, power), grad_scale(z2, power)])
    zh = F.normalize(z, dim=1)
    logits = zh @ zh.T / tau
    eye = torch.eye(2 * n, dtype=torch.bool, device=z.device)
    logits = logits.masked_fill(eye, float("-inf"))
    target = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)]).to(z.device)
    return F.cross_entropy(logits, target)


def negative_cosine_loss(
    p1: torch.Tensor,
    z2: torch.Tensor,
    p2: torch.Tensor | None = None,
    z1: torch.Tensor | None = None,
    *,
    power: float = 0.0,
) -> torch.Tensor:
    """Non-contrastive loss (SimSiam/BYOL form): −mean cos(p, stopgrad(z)).

    With p2 and z1 given it is symmetrised: −½[cos(p1, sg z2) + cos(p2, sg z1)].
    GradScale acts on the predictions p (the targets carry no gradient).
    """
    _check_pair(p1, z2, "p1 and z2")
    loss = -F.cosine_similarity(grad_scale(p1, power), z2.detach(), dim=1).mean()
    if p2 is None and z1 is None:
        return loss
    if p2 is None or z1 is None:
        raise ValueError("give both p2 and z1 for the symmetric loss, or neither")
    _check_pair(p2, z1, "p2 and z1")
    other = F.cosine_similarity(grad_scale(p2, power), z1.detach(), dim=1).mean()
    return 0.5 * (loss - other)


def paired_supervised_info_nce(
    z: torch.Tensor,
    labels: torch.Tensor,
    *,
    generator: torch.Generator,
    tau: float = 1.0,
) -> torch.Tensor:
    """Supervised InfoNCE with one random same-class positive per sample (the loss of
    the paper's class-imbalance simulation).

    Each row i picks one other row j of its class at random; the pairs are made
    symmetric (i attracts j and j attracts i), so a row may end up with several
    positives. The loss of row i is −log(Σ_pos exp(cos/τ) / Σ_{m≠i} exp(cos/τ)),
    averaged over the rows that have a positive; rows alone in their class in the batch
    are left out.

    z is (n, d) with labels (n,), giving a scalar; or (R, n, d) with labels (R, n) for R
    independent runs side by side, giving one loss per run, shape (R,).
    """
    _check_generator(generator)
    tau = _check_positive("tau", tau)
    if not isinstance(z, torch.Tensor) or z.ndim not in (2, 3) or z.shape[-2] < 2:
        raise ValueError(
            f"z must be a tensor of shape (n ≥ 2, d) or (R, n ≥ 2, d), "
            f"got {getattr(z, 'shape', type(z).__name__)}"
        )
    if not isinstance(labels, torch.Tensor) or labels.shape != z.shape[:-1]:
        raise ValueError(
            f"labels must be a tensor of shape {tuple(z.shape[:-1])}, got "
            f"{getattr(labels, 'shape', type(labels).__name__)}"
        )
    n = z.shape[-2]
    eye = torch.eye(n, dtype=torch.bool, device=z.device)
    same = (labels[..., :, None] == labels[..., None, :]) & ~eye
    has = same.any(-1)
    if not bool(has.any(-1).all()):
        raise ValueError("no two rows share a label: the loss has no positive pair")
    # one uniform pick among the same-class rows: the largest of uniform keys there
    keys = torch.rand(same.shape, generator=generator).to(z.device)
    pick = keys.masked_fill(~same, -1.0).argmax(-1)
    pos = F.one_hot(pick, n).bool() & has[..., None]
    pos = pos | pos.transpose(-1, -2)
    zh = F.normalize(z, dim=-1)
    logits = (zh @ zh.transpose(-1, -2) / tau).masked_fill(eye, float("-inf"))
    log_den = torch.logsumexp(logits, -1)
    log_num = torch.logsumexp(logits.masked_fill(~pos, float("-inf")), -1)
    valid = pos.any(-1)
    per_row = torch.where(valid, log_den - log_num, torch.zeros_like(log_den))
    return per_row.sum(-1) / valid.sum(-1)


# --------------------------------------------------------------------------------------
# networks and cut-initialisation
@torch.no_grad()
def default_init_(module: nn.Module, generator: torch.Generator) -> nn.Module:
    """PyTorch's default initialisation of every Linear and Conv2d in `module`, drawn
    from `generator`: weights and biases uniform on ±1/√fan_in (what
    `kaiming_uniform_(a=√5)` gives). Normalisation layers keep their ones and zeros.
    Returns `module`."""
    _check_generator(generator)
    for m in module.modules():
        if isinstance(m, (nn.Linear, nn.Conv2d)):
            fan_in = m.weight[0].numel()
            bound = 1.0 / math.sqrt(fan_in)
            m.weight.uniform_(-bound, bound, generator=generator)
            if m.bias is not None:
                m.bias.uniform_(-bound, bound, generator=generator)
    return module


class MLPEncoder(nn.Module):
    """Backbone (MLP with ReLU) followed by a projector (Linear–ReLU–Linear, no batch
    norm).

    `forward` returns the projector output z; `features` the backbone output used for
    k-NN.
    """

    def __init__(
        self,
        in_dim: int,
        hidden: Sequence[int] = (256, 128),
        proj_dim: int = 64,
        generator: torch.Generator | None = None,
        layer_norm: bool = True,
    ):
        super().__init__()
        in_dim = _check_positive("in_dim", in_dim, integer=True)
        proj_dim = _check_positive("proj_dim", proj_dim, integer=True)
        if not hidden:
            raise ValueError("hidden must list at least one backbone width")
        sizes = [in_dim] + [
            _check_positive("hidden width", h, integer=True) for h in hidden
        ]
        layers: list[nn.Module] = []
        for a, b in zip(sizes[:-1], sizes[1:]):
            layers += [nn.Linear(a, b), nn.ReLU()]
        if layer_norm:  # plays the part of the last batch norm of a ResNet backbone
            layers.append(nn.LayerNorm(sizes[-1]))
        self.backbone = nn.Sequential(*layers)
        self.projector = nn.Sequential(
            nn.Linear(sizes[-1], sizes[-1]), nn.ReLU(), nn.Linear(sizes[-1], proj_dim)
        )
        if generator is not None:
            default_init_(self, generator)

    def features(self, x: torch.Tensor) -> torch.Tensor:
        return self.backbone(x.flatten(1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.projector(self.features(x))


NORM_LAYERS = (nn.LayerNorm, nn.BatchNorm1d, nn.BatchNorm2d, nn.GroupNorm)


@torch.no_grad()
def cut_init_(model: nn.Module, c: float, *, norm_layers: bool = False) -> nn.Module:
    """Cut-initialisation: divide the weights and biases of `model` by c, in place.

    By default the parameters of normalisation layers (LayerNorm, BatchNorm, GroupNorm)
    are left alone: only the layers that carry the network's weights are cut.
    `norm_layers=True` divides every parameter, normalisation layers included, as the
    official code's `cut_weights` does. c > 1 shrinks the embeddings (for a bias-free
    ReLU net of L cut layers and no normalisation, by c^L); c < 1 inflates them. Returns
    `model`.
    """
    c = _check_positive("c", c)
    for m in model.modules():
        if isinstance(m, NORM_LAYERS) and not norm_layers:
            continue
        for p in m.parameters(recurse=False):
            p.div_(c)
    return model


class ConvEncoder(nn.Module):
    """A small conv backbone for square grey images (three stride-2 3×3 convs with ReLU,
    global average pooling, LayerNorm) and the same projector as `MLPEncoder`. Used at
    full scale."""

    def __init__(
        self,
        side: int = 28,
        width: int = 32,
        proj_dim: int = 64,
        generator: torch.Generator | None = None,
    ):
        super().__init__()
        self.side = _check_positive("side", side, integer=True)
        w = _check_positive("width", width, integer=True)
        proj_dim = _check_positive("proj_dim", proj_dim, integer=True)
        self.backbone = nn.Sequential(
            nn.Conv2d(1, w, 3, 2, 1),
            nn.ReLU(),
            nn.Conv2d(w, 2 * w, 3, 2, 1),
            nn.ReLU(),
            nn.Conv2d(2 * w, 4 * w, 3, 2, 1),
            nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
            nn.Flatten(),
            nn.LayerNorm(4 * w),
        )
        self.projector = nn.Sequential(
            nn.Linear(4 * w, 4 * w), nn.ReLU(), nn.Linear(4 * w, proj_dim)
        )
        if generator is not None:
            default_init_(self, generator)

    def features(self, x: torch.Tensor) -> torch.Tensor:
        return self.backbone(x.reshape(len(x), 1, self.side, self.side))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.projector(self.features(x))


def mlp(sizes: Sequence[int], *, generator: torch.Generator) -> nn.Sequential:
    """Linear layers of the given widths with ReLU between them (none after the last),
    with PyTorch's default initialisation drawn from `generator`."""
    sizes = [_check_positive("layer width", s, integer=True) for s in sizes]
    if len(sizes) < 2:
        raise ValueError(
            f"sizes must give at least an input and an output width, got {sizes!r}"
        )
    layers: list[nn.Module] = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        layers += [nn.Linear(a, b), nn.ReLU()]
    return default_init_(nn.Sequential(*layers[:-1]), generator)


class RunsMLP(nn.Module):
    """R independent MLPs of the same widths, run side by side on (R, n, in) input.

    Run r is initialised exactly as `mlp(sizes, generator=generators[r])` and computes
    the same function; stacking the runs lets small networks train together at the cost
    of one.
    """

    def __init__(self, sizes: Sequence[int], generators: Sequence[torch.Generator]):
        super().__init__()
        if not generators:
            raise ValueError("give one generator per run, got none")
        nets = [mlp(sizes, generator=g) for g in generators]
        linears = [[m for m in net if isinstance(m, nn.Linear)] for net in nets]
        self.weights = nn.ParameterList(
            [
                nn.Parameter(torch.stack([run[i].weight.detach() for run in linears]))
                for i in range(len(linears[0]))
            ]
        )
        self.biases = nn.ParameterList(
            [
                nn.Parameter(torch.stack([run[i].bias.detach() for run in linears]))
                for i in range(len(linears[0]))
            ]
        )

    @property
    def runs(self) -> int:
        return self.weights[0].shape[0]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.ndim != 3 or x.shape[0] != self.runs:
            raise ValueError(
                f"x must have shape ({self.runs}, n, in), got {tuple(x.shape)}"
            )
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            x = torch.baddbmm(b[:, None, :], x, w.transpose(1, 2))
            if i < len(self.weights) - 1:
                x = torch.relu(x)
        return x


# --------------------------------------------------------------------------------------
# augmentations for small grey images
def augment(
    x: torch.Tensor,
    *,
    generator: torch.Generator,
    max_rotation: float = 15.0,
    scale: tuple[float, float] = (0.8, 1.15),
    max_shift: float = 0.12,
    noise: float = 0.1,
    erase: float = 0.35,
) -> torch.Tensor:
    """A random view of each image in `x` (n, H, W) or (n, H·W) with H = W, values in
    [0, 1].

    A random affine map (rotation ±max_rotation degrees, zoom in `scale`, shift up to
    max_shift of the width) applied with `grid_sample`, then a random erased square
    (side `erase` × width, with probability ½) and Gaussian pixel noise of s.d. `noise`;
    clipped to [0, 1]. Same shape as x.
    """
    _check_generator(generator)
    if not isinstance(x, torch.Tensor) or x.ndim not in (2, 3):
        raise ValueError(
            f"x must be a tensor of shape (n, H, W) or (n, H*W), got "
            f"{getattr(x, 'shape', type(x).__name__)}"
        )
    flat = x.ndim == 2
    n = x.shape[0]
    if flat:
        side = int(round(math.sqrt(x.shape[1])))
        if side * side != x.shape[1]:
            raise ValueError(
                f"x has {x.shape[1]} pixels per row, which is not a square image"
            )
        img = x.reshape(n, 1, side, side)
    else:
        if x.shape[1] != x.shape[2]:
            raise ValueError(f"images must be square, got {tuple(x.shape[1:])}")
        side = x.shape[1]
        img = x[:, None]
    if not (0 < scale[0] <= scale[1]):
        raise ValueError(
            f"scale must be (low, high) with 0 < low ≤ high, got {scale!r}"
        )
    u = torch.rand(n, 6, generator=generator).to(x.device)
    ang = (2 * u[:, 0] - 1) * math.radians(max_rotation)
    s = scale[0] + (scale[1] - scale[0]) * u[:, 1]
    tx, ty = (2 * u[:, 2] - 1) * 2 * max_shift, (2 * u[:, 3] - 1) * 2 * max_shift
    cos, sin = torch.cos(ang) / s, torch.sin(ang) / s
    theta = torch.stack(
        [torch.stack([cos, -sin, tx], 1), torch.stack([sin, cos, ty], 1)], 1
    )
    grid = F.affine_grid(theta.to(img.dtype), list(img.shape), align_corners=False)
    out = F.grid_sample(img, grid, align_corners=False, padding_mode="zeros")
    if erase > 0:
        w = max(1, int(round(erase * side)))
        r0 = (u[:, 4] * (side - w + 1)).long().clamp(max=side - w)
        c0 = (u[:, 5] * (side - w + 1)).long().clamp(max=side - w)
        idx = torch.arange(side, device=x.device)
        rows = (idx[None] >= r0[:, None]) & (idx[None] < r0[:, None] + w)
        cols = (idx[None] >= c0[:, None]) & (idx[None] < c0[:, None] + w)
        on = (torch.rand(n, generator=generator) < 0.5).to(x.device)
        mask = rows[:, :, None] & cols[:, None, :] & on[:, None, None]
        out = out.masked_fill(mask[:, None], 0.0)
    if noise > 0:
        eps = torch.randn(out.shape, generator=generator, dtype=out.dtype).to(x.device)
        out = out + noise * eps
    out = out.clamp(0.0, 1.0)
    return out.reshape(n, -1) if flat else out[:, 0]


@dataclass(frozen=True)
class AugmentedViews:
    """A fixed set of augmented views of n images: `views[v, i]` is view v of image i.

    Training draws two *different* views of each image at each step, so the per-step
    cost is a gather instead of two image warps. Build it with `make_views`.
    """

    views: torch.Tensor  # (n_views, n, ...)

    def __post_init__(self):
        if not isinstance(self.views, torch.Tensor) or self.views.ndim < 3:
            got = getattr(self.views, "shape", type(self.views).__name__)
            raise ValueError(
                f"views must be a tensor of shape (n_views, n, ...), got {got}"
            )
        if self.views.shape[0] < 2:
            raise ValueError(
                f"need at least 2 views per image to draw a positive "
                f"pair, got {self.views.shape[0]}"
            )

    def __len__(self) -> int:
        return self.views.shape[1]

    @property
    def n_views(self) -> int:
        return self.views.shape[0]

    def subset(self, index: torch.Tensor) -> "AugmentedViews":
        """The views of the images selected by `index` (a boolean mask or indices)."""
        return AugmentedViews(self.views[:, index])

    def pairs(
        self, index: torch.Tensor, *, generator: torch.Generator
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Two different views, drawn uniformly, of each image in `index`."""
        _check_generator(generator)
        m = len(index)
        v1 = torch.randint(0, self.n_views, (m,), generator=generator)
        shift = torch.randint(1, self.n_views, (m,), generator=generator)
        v2 = (v1 + shift) % self.n_views
        idx = index.cpu()
        return (
            self.views[v1.to(self.views.device), idx.to(self.views.device)],
            self.views[v2.to(self.views.device), idx.to(self.views.device)],
        )


def make_views(
    X: torch.Tensor,
    n_views: int,
    *,
    generator: torch.Generator,
    chunk: int = 1024,
    **aug,
) -> AugmentedViews:
    """`n_views` independent `augment` views of every image in X (keyword arguments go
    to `augment`), computed in chunks of `chunk` images."""
    n_views = _check_positive("n_views", n_views, integer=True)
    chunk = _check_positive("chunk", chunk, integer=True)
    out = torch.stack(
        [
            torch.cat(
                [
                    augment(X[i : i + chunk], generator=generator, **aug)
                    for i in range(0, len(X), chunk)
                ]
            )
            for _ in range(n_views)
        ]
    )
    return AugmentedViews(out)


# --------------------------------------------------------------------------------------
# evaluation
def knn_accuracy(
    bank: torch.Tensor,
    bank_y: torch.Tensor,
    query: torch.Tensor,
    query_y: torch.Tensor,
    *,
    k: int = 20,
) -> float:
    """k-NN accuracy with cosine similarity and a majority vote (ties: the smallest
    label)."""
    k = _check_positive("k", k, integer=True)
    if bank.ndim != 2 or query.ndim != 2 or bank.shape[1] != query.shape[1]:
        raise ValueError(
            f"bank and query must be (n, d) with the same d, got "
            f"{tuple(bank.shape)} and {tuple(query.shape)}"
        )
    if k > bank.shape[0]:
        raise ValueError(f"k = {k} exceeds the bank size {bank.shape[0]}")
    if len(bank_y) != bank.shape[0] or len(query_y) != query.shape[0]:
        raise ValueError("labels must have one entry per row of bank and query")
    sim = F.normalize(query, dim=1) @ F.normalize(bank, dim=1).T
    nbr = sim.topk(k, dim=1).indices
    votes = F.one_hot(bank_y[nbr], int(bank_y.max()) + 1).sum(1)
    pred = votes.argmax(1)
    return float((pred == query_y).double().mean())


def knn_accuracy_by_norm(
    bank: torch.Tensor,
    bank_y: torch.Tensor,
    query: torch.Tensor,
    query_y: torch.Tensor,
    *,
    n_bins: int = 5,
    k: int = 20,
) -> np.ndarray:
    """k-NN accuracy of the queries split into `n_bins` equal-count bins of ‖query‖
    (bin 0: the smallest norms). The neighbours come from the whole bank."""
    n_bins = _check_positive("n_bins", n_bins, integer=True)
    norms = query.norm(dim=1).cpu().numpy()
    if n_bins > len(norms):
        raise ValueError(
            f"n_bins = {n_bins} exceeds the number of queries {len(norms)}"
        )
    edges = np.quantile(norms, np.arange(1, n_bins) / n_bins)
    which = np.searchsorted(edges, norms, side="right")
    out = []
    for b in range(n_bins):
        sel = torch.as_tensor(which == b, device=query.device)
        out.append(knn_accuracy(bank, bank_y, query[sel], query_y[sel], k=k))
    return np.array(out)


def time_to_accuracy(
    steps: Sequence[int], accuracy: Sequence[float], target: float
) -> float:
    """First evaluation step at which `accuracy` ≥ `target`; +inf if it never gets
    there."""
    steps, accuracy = np.asarray(steps), np.asarray(accuracy, dtype=float)
    if steps.shape != accuracy.shape or steps.ndim != 1 or steps.size == 0:
        raise ValueError(
            f"steps and accuracy must be non-empty 1-D arrays of equal "
            f"length, got {steps.shape} and {accuracy.shape}"
        )
    hit = np.flatnonzero(accuracy >= target)
    return float(steps[hit[0]]) if hit.size else math.inf


def accuracy_area(steps: Sequence[int], accuracy: Sequence[float]) -> float:
    """Mean accuracy over training: the trapezoidal area under the accuracy curve
    divided by the length of the run. A run that gets to high accuracy earlier scores
    higher."""
    steps, accuracy = np.asarray(steps, dtype=float), np.asarray(accuracy, dtype=float)
    if steps.shape != accuracy.shape or steps.ndim != 1 or steps.size < 2:
        raise ValueError(
            f"steps and accuracy must be 1-D arrays of equal length ≥ 2, "
            f"got {steps.shape} and {accuracy.shape}"
        )
    if np.any(np.diff(steps) <= 0):
        raise ValueError("steps must increase")
    widths = np.diff(steps)
    return float(np.sum(widths * (accuracy[1:] + accuracy[:-1]) / 2) / widths.sum())


def _scores(name: str, x) -> np.ndarray:
    x = np.asarray(x, dtype=float).ravel()
    if x.size == 0:
        raise ValueError(f"auroc needs non-empty {name} scores, got none")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"auroc scores must be finite; the {name} scores are not")
    return x


def _auc_statistic(pos, neg, axis=-1):
    u = stats.mannwhitneyu(pos, neg, axis=axis, method="asymptotic").statistic
    return u / (pos.shape[axis] * neg.shape[axis])


def auroc(positive: np.ndarray, negative: np.ndarray) -> float:
    """P(score of a positive > score of a negative) + ½ P(tie): the Mann–Whitney U
    statistic of the positives divided by n₊·n₋ (scipy.stats.mannwhitneyu)."""
    pos, neg = _scores("positive", positive), _scores("negative", negative)
    return float(_auc_statistic(pos, neg))


def auroc_interval(
    positive: np.ndarray,
    negative: np.ndarray,
    *,
    rng: np.random.Generator,
    n_boot: int = 1000,
    level: float = 0.95,
) -> tuple[float, float, float]:
    """AUROC and a percentile bootstrap interval, both groups resampled independently
    (scipy.stats.bootstrap around mannwhitneyu): (auc, low, high)."""
    _check_rng(rng)
    n_boot = _check_positive("n_boot", n_boot, integer=True)
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    pos, neg = _scores("positive", positive), _scores("negative", negative)
    res = stats.bootstrap(
        (pos, neg),
        _auc_statistic,
        n_resamples=n_boot,
        confidence_level=level,
        method="percentile",
        vectorized=True,
        random_state=rng,
    )
    ci = res.confidence_interval
    return auroc(pos, neg), float(ci.low), float(ci.high)


# --------------------------------------------------------------------------------------
# the toy simulation: optimise the cosine directly on the embeddings
@dataclass(frozen=True)
class AlignResult:
    """Outcome of `align_pairs`: steps to reach mean cos ≥ 1 − eps (−1 if not reached),
    the mean cosine and mean norm after each step (index 0 = start), and the smallest
    per-sample change of ‖z‖ seen over all steps (≥ 0 up to rounding when norms never
    shrink)."""

    steps: int
    mean_cos: np.ndarray
    mean_norm: np.ndarray
    min_norm_increment: float


def align_pairs(
    a: np.ndarray,
    b: np.ndarray,
    *,
    lr: float = 10.0,
    eps: float = 1e-3,
    max_steps: int = 100_000,
) -> AlignResult:
    """Plain gradient descent on −mean_i cos(a_i, b_i) over both sets of embeddings
    (float64).

    The toy experiment of the paper's code: n pairs, one step moves a_i by lr/n · ∇cos
    (and b_i alike); counts the steps until the mean cosine reaches 1 − eps.
    """
    a, b = np.array(a, dtype=np.float64), np.array(b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 2 or a.shape[0] == 0:
        raise ValueError(
            f"a and b must be non-empty (n, d) arrays of the same shape, "
            f"got {a.shape} and {b.shape}"
        )
    lr = _check_positive("lr", lr)
    if not 0 < eps < 2:
        raise ValueError(f"eps must lie in (0, 2), got {eps!r}")
    max_steps = _check_positive("max_steps", max_steps, integer=True)
    n = a.shape[0]
    na, nb = np.linalg.norm(a, axis=1), np.linalg.norm(b, axis=1)
    if np.any(na == 0) or np.any(nb == 0):
        raise ValueError(
            "a and b must have non-zero rows: the cosine of a zero vector is undefined"
        )
    cos = np.sum(a * b, 1) / (na * nb)
    mean_cos, mean_norm = [cos.mean()], [0.5 * (na.mean() + nb.mean())]
    min_inc = math.inf
    step = 0
    while mean_cos[-1] < 1 - eps:
        if step >= max_steps:
            return AlignResult(
                -1, np.array(mean_cos), np.array(mean_norm), float(min_inc)
            )
        ah, bh = a / na[:, None], b / nb[:, None]
        ga = (bh - cos[:, None] * ah) / na[:, None]
        gb = (ah - cos[:, None] * bh) / nb[:, None]
        a += lr / n * ga
        b += lr / n * gb
        na_new, nb_new = np.linalg.norm(a, axis=1), np.linalg.norm(b, axis=1)
        min_inc = min(min_inc, float(np.min(na_new - na)), float(np.min(nb_new - nb)))
        na, nb = na_new, nb_new
        cos = np.sum(a * b, 1) / (na * nb)
        mean_cos.append(cos.mean())
        mean_norm.append(0.5 * (na.mean() + nb.mean()))
        step += 1
    return AlignResult(step, np.array(mean_cos), np.array(mean_norm), float(min_inc))


def random_pairs(
    n: int,
    d: int,
    *,
    norm: float,
    rng: np.random.Generator,
    interpolation: float | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """n pairs of random directions in R^d, both scaled to `norm`.

    With `interpolation` t in (−1, 1) the positive is (1 − |t|)·random − t·anchor,
    renormalised, so t → 1 makes the pair nearly opposite (the paper's "opposite
    halves").
    """
    _check_rng(rng)
    n, d = _check_positive("n", n, integer=True), _check_positive("d", d, integer=True)
    norm = _check_positive("norm", norm)
    a = rng.standard_normal((n, d))
    a /= np.linalg.norm(a, axis=1, keepdims=True)
    b = rng.standard_normal((n, d))
    b /= np.linalg.norm(b, axis=1, keepdims=True)
    if interpolation is not None:
        if not -1 < interpolation < 1:
            raise ValueError(
                f"interpolation must lie in (−1, 1), got {interpolation!r}"
            )
        b = (1 - abs(interpolation)) * b - interpolation * a
        b /= np.linalg.norm(b, axis=1, keepdims=True)
    return norm * a, norm * b


# --------------------------------------------------------------------------------------
# the class-imbalance simulation of the paper's code
def spherical_classes(
    n: int,
    class_weights: Sequence[float],
    *,
    rng: np.random.Generator,
    latent_dim: int = 10,
    data_dim: int = 64,
    spread: float = 1.0,
    gain: float = 10.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Labelled points whose classes are drawn with probabilities ∝ `class_weights`.

    Each class has a random centre on the unit sphere of R^latent_dim; a point is its
    centre plus N(0, spread²) noise, projected back to the sphere, then mapped to
    R^data_dim by one random matrix with N(0, gain²) entries. Returns (X (n, data_dim)
    float32, labels (n,) int64). The set-up of the paper's `SphericalDataset`.
    """
    _check_rng(rng)
    n = _check_positive("n", n, integer=True)
    w = np.asarray(class_weights, dtype=float)
    if w.ndim != 1 or w.size < 2 or np.any(w <= 0) or not np.all(np.isfinite(w)):
        raise ValueError(
            f"class_weights must be ≥ 2 positive numbers, got {class_weights!r}"
        )
    latent_dim = _check_positive("latent_dim", latent_dim, integer=True)
    data_dim = _check_positive("data_dim", data_dim, integer=True)
    spread, gain = _check_positive("spread", spread), _check_positive("gain", gain)
    centres = rng.standard_normal((w.size, latent_dim))
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    labels = np.sort(rng.choice(w.size, size=n, p=w / w.sum()))
    pts = centres[labels] + spread * rng.standard_normal((n, latent_dim))
    pts /= np.linalg.norm(pts, axis=1, keepdims=True)
    obs = pts @ (gain * rng.standard_normal((data_dim, latent_dim))).T
    return obs.astype(np.float32), labels.astype(np.int64)


def train_class_norms(
    model: RunsMLP,
    X: torch.Tensor,
    labels: torch.Tensor,
    *,
    epochs: int,
    batch_size: int,
    lr: float,
    generator: torch.Generator,
    tau: float = 1.0,
    record_every: int = 1,
) -> np.ndarray:
    """Train R runs side by side with `paired_supervised_info_nce` and plain SGD, each
    on its own data set (X (R, n, d), labels (R, n)) in its own shuffled mini-batches
    (the last one smaller), and record each class's mean ‖z‖ over the whole set before
    training and after every `record_every`-th epoch (and the last): an (R, records,
    n_classes) array. The runs share nothing: the summed loss gives each run exactly its
    own gradient.
    """
    _check_generator(generator)
    epochs = _check_positive("epochs", epochs, integer=True)
    batch_size = _check_positive("batch_size", batch_size, integer=True)
    lr = _check_positive("lr", lr)
    record_every = _check_positive("record_every", record_every, integer=True)
    if X.ndim != 3 or X.shape[0] != model.runs:
        raise ValueError(
            f"X must have shape ({model.runs}, n, d), got {tuple(X.shape)}"
        )
    if labels.shape != X.shape[:2]:
        raise ValueError(
            f"labels must have shape {tuple(X.shape[:2])}, got {tuple(labels.shape)}"
        )
    runs, n = X.shape[:2]
    classes = torch.unique(labels)
    onehot = (labels[..., None] == classes).to(X.dtype)  # (R, n, C)
    counts = onehot.sum(1)
    if bool((counts == 0).any()):
        raise ValueError("every class must appear in every run's data set")
    opt = torch.optim.SGD(model.parameters(), lr=lr)

    def class_norms():
        with torch.no_grad():
            nz = model(X).norm(dim=-1)  # (R, n)
        return ((nz[..., None] * onehot).sum(1) / counts).cpu().numpy()

    out = [class_norms()]
    rows = torch.arange(runs)[:, None]
    for epoch in range(1, epochs + 1):
        perm = torch.stack(
            [torch.randperm(n, generator=generator) for _ in range(runs)]
        )
        for i in range(0, n, batch_size):
            idx = perm[:, i : i + batch_size]
            if idx.shape[1] < 2:
                continue
            loss = paired_supervised_info_nce(
                model(X[rows, idx]), labels[rows, idx], tau=tau, generator=generator
            ).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
        if epoch % record_every == 0 or epoch == epochs:
            out.append(class_norms())
    return np.stack(out, axis=1)


def recorded_epochs(epochs: int, record_every: int = 1) -> np.ndarray:
    """The epochs at which `train_class_norms` records the norms (0 = before training)."""
    epochs = _check_positive("epochs", epochs, integer=True)
    record_every = _check_positive("record_every", record_every, integer=True)
    return np.unique(np.r_[np.arange(0, epochs + 1, record_every), epochs])


@dataclass(frozen=True)
class Trend:
    """Per-run least-squares slopes of a per-class quantity on log₂(class weight), after
    removing each run's mean, and the mean slope with its t confidence interval."""

    slopes: np.ndarray
    mean: float
    low: float
    high: float


def frequency_trend(
    values: np.ndarray, class_weights: Sequence[float], *, level: float = 0.95
) -> Trend:
    """How a per-class quantity (values: runs × classes, e.g. norm growth) rises with
    the class's sampling weight: the slope on log₂(weight) in each run (runs are
    independent replicates) and a t interval for the mean slope over runs."""
    v = np.asarray(values, dtype=float)
    w = np.asarray(class_weights, dtype=float)
    if v.ndim != 2 or v.shape[1] != w.size or v.shape[0] < 2:
        raise ValueError(
            f"values must be (runs ≥ 2, {w.size}) for {w.size} class "
            f"weights, got {v.shape}"
        )
    if w.size < 2 or np.any(w <= 0) or np.ptp(w) == 0:
        raise ValueError(
            f"class_weights must be ≥ 2 positive, not all equal numbers, "
            f"got {class_weights!r}"
        )
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    x = np.log2(w) - np.log2(w).mean()
    slopes = (v - v.mean(1, keepdims=True)) @ x / (x @ x)
    ci = stats.ttest_1samp(slopes, 0.0).confidence_interval(level)
    return Trend(slopes, float(slopes.mean()), float(ci.low), float(ci.high))


# --------------------------------------------------------------------------------------
# SimCLR training with norm and k-NN tracking
@dataclass(frozen=True)
class TrainHistory:
    """Per-step loss and mean ‖z‖ of the training batch; per-evaluation step, k-NN
    accuracy and mean ‖z‖ of the monitored query set."""

    loss: np.ndarray
    batch_norm: np.ndarray
    eval_steps: np.ndarray
    knn: np.ndarray
    eval_norm: np.ndarray


def embed(
    model: nn.Module, X: torch.Tensor, *, features: bool = False, batch: int = 2048
) -> torch.Tensor:
    """Embeddings (projector output, or backbone features) of X, without gradients."""
    with torch.no_grad():
        out = [
            (model.features(X[i : i + batch]) if features else model(X[i : i + batch]))
            for i in range(0, len(X), batch)
        ]
    return torch.cat(out)


def train_simclr(
    model: nn.Module,
    X: torch.Tensor | AugmentedViews,
    *,
    steps: int,
    batch_size: int,
    lr: float,
    generator: torch.Generator,
    tau: float = 0.5,
    power: float = 0.0,
    momentum: float = 0.9,
    weight_decay: float = 0.0,
    warmup: int = 0,
    monitor: tuple | None = None,
    eval_every: int = 10,
    k: int = 20,
    knn_on: str = "z",
    aug: dict | None = None,
) -> TrainHistory:
    """Train `model` in place with SimCLR (two views, InfoNCE) and SGD with momentum.

    X is either a tensor of images, augmented on the fly with `augment(**aug)`, or an
    `AugmentedViews` set, from which two different views of each image are drawn per
    step. `power` > 0 applies GradScale; `warmup` steps of linear learning-rate warm-up,
    then constant. `monitor` = (X_bank, y_bank, X_query, y_query): every `eval_every`
    steps (and at step 0 and the end) the k-NN accuracy of the embeddings z
    (`knn_on="z"`) or of the backbone features (`knn_on="features"`) and the mean ‖z‖ of
    X_query are recorded.
    """
    _check_generator(generator)
    steps = _check_positive("steps", steps, integer=True)
    batch_size = _check_positive("batch_size", batch_size, integer=True)
    lr = _check_positive("lr", lr)
    eval_every = _check_positive("eval_every", eval_every, integer=True)
    fixed = isinstance(X, AugmentedViews)
    if fixed and aug:
        raise ValueError(
            "aug applies to images augmented on the fly, not to AugmentedViews"
        )
    if batch_size > len(X):
        raise ValueError(
            f"batch_size = {batch_size} exceeds the number of samples {len(X)}"
        )
    if knn_on not in ("z", "features"):
        raise ValueError(f"knn_on must be 'z' or 'features', got {knn_on!r}")
    if weight_decay < 0:
        raise ValueError(f"weight_decay must be ≥ 0, got {weight_decay!r}")
    aug = aug or {}
    opt = torch.optim.SGD(
        model.parameters(), lr=lr, momentum=momentum, weight_decay=weight_decay
    )
    losses, norms, ev_steps, ev_knn, ev_norm = [], [], [], [], []

    def evaluate(step):
        Xb, yb, Xq, yq = monitor
        ev_steps.append(step)
        zq = embed(model, Xq)
        feats = knn_on == "features"
        query = embed(model, Xq, features=True) if feats else zq
        keys = embed(model, Xb, features=feats)
        ev_knn.append(knn_accuracy(keys, yb, query, yq, k=k))
        ev_norm.append(float(zq.norm(dim=1).mean()))

    perm, pos = torch.randperm(len(X), generator=generator), 0
    for step in range(steps):
        if monitor is not None and step % eval_every == 0:
            evaluate(step)
        if pos + batch_size > len(X):
            perm, pos = torch.randperm(len(X), generator=generator), 0
        idx = perm[pos : pos + batch_size]
        pos += batch_size
        for g in opt.param_groups:
            g["lr"] = lr * min(1.0, (step + 1) / warmup) if warmup > 0 else lr
        if fixed:
            v1, v2 = X.pairs(idx, generator=generator)
        else:
            xb = X[idx.to(X.device)]
            v1 = augment(xb, generator=generator, **aug)
            v2 = augment(xb, generator=generator, **aug)
        z1, z2 = model(v1), model(v2)
        loss = info_nce_loss(z1, z2, tau=tau, power=power)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss.detach()))
        norms.append(
            float(
                0.5 * (z1.detach().norm(dim=1).mean() + z2.detach().norm(dim=1).mean())
            )
        )
    if monitor is not None:
        evaluate(steps)
    return TrainHistory(
        np.array(losses),
        np.array(norms),
        np.array(ev_steps),
        np.array(ev_knn),
        np.array(ev_norm),
    )


# --------------------------------------------------------------------------------------
# experiment protocols of the chapter: one SimCLR run, the tuning budget, time to target,
# the trend of the norms
@dataclass(frozen=True)
class SimCLRProtocol:
    """Everything the SimCLR runs of a comparison share: the training data (a tensor of
    images augmented on the fly with `aug`, or an `AugmentedViews` set), the k-NN bank,
    the encoder kind ("mlp" or "conv"), the run length and the optimiser's settings.
    Seed s draws its initial weights from `init_generator(s)` and its batches and views
    from `train_generator(s)`, so the variants of a seed start from the same weights."""

    data: torch.Tensor | AugmentedViews
    bank: tuple[torch.Tensor, torch.Tensor]
    init_generator: object
    train_generator: object
    encoder: str = "mlp"
    steps: int = 240
    batch_size: int = 256
    warmup: int = 50
    eval_every: int = 20
    aug: dict | None = None

    def __post_init__(self):
        if self.encoder not in ("mlp", "conv"):
            raise ValueError(f"encoder must be 'mlp' or 'conv', got {self.encoder!r}")
        if not callable(self.init_generator) or not callable(self.train_generator):
            raise TypeError(
                "init_generator and train_generator must be callables: seed → "
                "torch.Generator"
            )
        _check_positive("steps", self.steps, integer=True)
        _check_positive("eval_every", self.eval_every, integer=True)
        if self.warmup < 0:
            raise ValueError(f"warmup must be ≥ 0, got {self.warmup!r}")
        if isinstance(self.data, AugmentedViews) and self.aug:
            raise ValueError("aug applies to images augmented on the fly, not to views")

    def encoder_for(self, seed: int, c: float = 1.0, *, cut_all: bool = True):
        """The seed's initial encoder, cut by c (every parameter with `cut_all`, as the
        official code's `cut_weights`; the linear and conv layers only otherwise)."""
        gen = self.init_generator(seed)
        if self.encoder == "conv":
            model = ConvEncoder(side=28, generator=gen)
        else:
            model = MLPEncoder(784, (256, 128), 64, generator=gen)
        return cut_init_(model, c, norm_layers=cut_all) if c != 1.0 else model

    def run(
        self,
        seed: int,
        lr: float,
        *,
        c: float = 1.0,
        power: float = 0.0,
        weight_decay: float = 0.0,
        cut_all: bool = True,
        data=None,
        steps: int | None = None,
        queries: tuple | None = None,
        device=None,
    ) -> tuple[nn.Module, TrainHistory]:
        """Train seed `seed` at learning rate `lr` (cut-init c, GradScale power, weight
        decay); `queries` = (X, y) are monitored every `eval_every` steps against the
        bank (None: no monitoring). Returns the trained model and its history."""
        model = self.encoder_for(seed, c, cut_all=cut_all)
        if device is not None:
            model = model.to(device)
        monitor = None if queries is None else (self.bank[0], self.bank[1], *queries)
        hist = train_simclr(
            model,
            self.data if data is None else data,
            steps=self.steps if steps is None else steps,
            batch_size=self.batch_size,
            lr=lr,
            warmup=self.warmup,
            generator=self.train_generator(seed),
            power=power,
            weight_decay=weight_decay,
            eval_every=self.eval_every,
            monitor=monitor,
            aug=None if isinstance(self.data, AugmentedViews) else self.aug,
        )
        return model, hist


def tuning_score(history: TrainHistory) -> float:
    """The score of a tuning run: its mean k-NN accuracy over the second half of the run
    (`accuracy_area` from half-way); −inf when the loss stopped being finite (a diverged
    run scores below every run that trained)."""
    if not np.all(np.isfinite(history.loss)) or not np.all(np.isfinite(history.knn)):
        return -math.inf
    steps = history.eval_steps
    late = steps >= steps[-1] / 2
    if late.sum() < 2:
        raise ValueError(
            "a tuning run needs at least two evaluations in its second half"
        )
    return accuracy_area(steps[late], history.knn[late])


@dataclass(frozen=True)
class Bracket:
    """The outcome of `bracket_learning_rate`: every rate tried with its score, the best
    rate, and whether the best is bracketed (a worse-scoring rate tried on each side)."""

    scores: dict
    best: float
    bracketed: bool


def bracket_learning_rate(
    score, grid: Sequence[float], *, max_extensions: int = 2
) -> Bracket:
    """Score the learning rates of `grid` (increasing, geometric) with `score(lr)`; while
    the best lies at an end of the rates tried, try one more rate beyond that end (the
    grid's outermost ratio at that end), at most `max_extensions` times. The same rule
    for every variant is the same tuning budget. Ties go to the smaller rate."""
    rates = sorted(float(v) for v in grid)
    if len(rates) < 2 or rates[0] <= 0 or len(set(rates)) != len(rates):
        raise ValueError(f"grid must hold ≥ 2 distinct positive rates, got {grid!r}")
    if not isinstance(max_extensions, int) or max_extensions < 0:
        raise ValueError(
            f"max_extensions must be an integer ≥ 0, got {max_extensions!r}"
        )
    lo_ratio, hi_ratio = rates[1] / rates[0], rates[-1] / rates[-2]
    scores = {lr: float(score(lr)) for lr in rates}
    for _ in range(max_extensions):
        tried = sorted(scores)
        best = max(tried, key=lambda lr: (scores[lr], -lr))
        if best == tried[0]:
            new = tried[0] / lo_ratio
        elif best == tried[-1]:
            new = tried[-1] * hi_ratio
        else:
            break
        scores[new] = float(score(new))
    tried = sorted(scores)
    best = max(tried, key=lambda lr: (scores[lr], -lr))
    bracketed = tried[0] < best < tried[-1]
    return Bracket({lr: scores[lr] for lr in tried}, best, bracketed)


def times_to_target(histories: dict, targets: Sequence[float], *, never: float) -> dict:
    """For each run {(variant, seed): TrainHistory}, the first evaluation step at which
    its k-NN accuracy reaches its seed's target (`targets[seed]`), `never` when it does
    not within the run."""
    out = {}
    for (name, s), h in histories.items():
        if not 0 <= s < len(targets):
            raise ValueError(f"no target for seed {s} (got {len(targets)} targets)")
        out[name, s] = min(time_to_accuracy(h.eval_steps, h.knn, targets[s]), never)
    return out


def norm_trend(steps: Sequence[float], norms: Sequence[float]) -> tuple[float, float]:
    """Mann–Kendall trend of a norm curve: Kendall's τ between the evaluation step and
    the norm, and its one-sided p-value against "no upward trend" (scipy)."""
    steps, norms = np.asarray(steps, dtype=float), np.asarray(norms, dtype=float)
    if steps.shape != norms.shape or steps.ndim != 1 or steps.size < 3:
        raise ValueError(
            f"steps and norms must be 1-D of equal length ≥ 3, got {steps.shape} and "
            f"{norms.shape}"
        )
    if not np.all(np.isfinite(norms)):
        raise ValueError("norms must be finite")
    res = stats.kendalltau(steps, norms, alternative="greater")
    return float(res.statistic), float(res.pvalue)
