"""Embedding norms in self-supervised learning (Draganov et al., ICML 2025, arXiv 2502.09252).

Notation. An encoder maps an input to an embedding z (the projector output, *before* it is
normalised). Cosine-similarity losses only see ẑ = z/‖z‖. For cos(z, z⁺) = ẑ·ẑ⁺ the gradient is

    ∇_z cos(z, z⁺) = (ẑ⁺ − cos(z, z⁺) ẑ) / ‖z‖,

orthogonal to z and of size sin φ / ‖z‖ (φ the angle between z and z⁺). Hence:

- an SGD step on z alone never shrinks ‖z‖ (Pythagoras), so norms grow without weight decay;
- a step turns z by about γ sin φ / ‖z‖², so large norms slow convergence;
- *cut-initialisation* divides every parameter of the network by c > 1 at initialisation
  (small initial norms);
- *GradScale* is the identity in the forward pass and multiplies the gradient reaching z by
  ‖z‖^p in the backward pass (p = 1 cancels the 1/‖z‖).

What is here: the analytic gradient, the two losses (InfoNCE / NT-Xent and a non-contrastive
negative cosine with stop-gradient), GradScale, cut-initialisation, cheap augmentations for small
grey images, a small MLP encoder, a SimCLR training loop with norm and k-NN tracking, the toy
alignment simulation, k-NN accuracy, time-to-accuracy and AUROC with a bootstrap interval.
Randomness comes in as a torch.Generator or numpy Generator; no printing, plotting or files.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn


# ----------------------------------------------------------------------------------------------
# input checks
def _check_positive(name: str, value, *, integer: bool = False):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"{name} must be a positive {'int' if integer else 'number'}, got {value!r}")
    if integer and not float(value).is_integer():
        raise ValueError(f"{name} must be a positive int, got {value!r}")
    if not (value > 0 and math.isfinite(float(value))):
        raise ValueError(f"{name} must be a positive {'int' if integer else 'number'}, got {value!r}")
    return int(value) if integer else float(value)


def _check_pair(z: torch.Tensor, z_pos: torch.Tensor, what: str = "z and z_pos"):
    if not isinstance(z, torch.Tensor) or not isinstance(z_pos, torch.Tensor):
        raise TypeError(f"{what} must be torch tensors, got {type(z).__name__} and "
                        f"{type(z_pos).__name__}")
    if z.shape != z_pos.shape or z.ndim != 2:
        raise ValueError(f"{what} must both have shape (n, d), got {tuple(z.shape)} and "
                         f"{tuple(z_pos.shape)}")
    if z.shape[0] == 0 or z.shape[1] == 0:
        raise ValueError(f"{what} are empty: need n ≥ 1 rows of dimension d ≥ 1")


def _check_generator(generator) -> None:
    if not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator, got {type(generator).__name__}")


# ----------------------------------------------------------------------------------------------
# the gradient law
def cosine_similarity(z: torch.Tensor, z_pos: torch.Tensor) -> torch.Tensor:
    """Row-wise cos(z_i, z⁺_i); rows of zero norm are an error (the cosine is undefined)."""
    _check_pair(z, z_pos)
    nz, np_ = z.norm(dim=1), z_pos.norm(dim=1)
    if bool((nz == 0).any()) or bool((np_ == 0).any()):
        raise ValueError("z and z_pos must have non-zero rows: the cosine of a zero vector is undefined")
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
    """GradScale: identity forward; backward multiplies the gradient of row i by ‖z_i‖^power.

    Apply it to z *before* normalisation. power = 0 is the plain loss; power = 1 cancels the
    1/‖z‖ of the cosine gradient.
    """
    if isinstance(power, bool) or not isinstance(power, (int, float)) or not math.isfinite(power):
        raise ValueError(f"power must be a finite number, got {power!r}")
    if power == 0:
        return z
    return _GradScale.apply(z, float(power))


# ----------------------------------------------------------------------------------------------
# losses
def info_nce_loss(z1: torch.Tensor, z2: torch.Tensor, *, tau: float = 0.5,
                  power: float = 0.0) -> torch.Tensor:
    """NT-Xent (SimCLR's InfoNCE) over the 2n embeddings of two views, mean over all 2n anchors.

    Row i of z1 and row i of z2 are positives; the other 2n − 2 rows are negatives. `power` applies
    GradScale to both views before normalisation.
    """
    _check_pair(z1, z2, "z1 and z2")
    tau = _check_positive("tau", tau)
    n = z1.shape[0]
    if n < 2:
        raise ValueError(f"info_nce_loss needs at least 2 pairs (negatives), got n = {n}")
    z = torch.cat([grad_scale(z1, power), grad_scale(z2, power)])
    zh = F.normalize(z, dim=1)
    logits = zh @ zh.T / tau
    logits = logits.masked_fill(torch.eye(2 * n, dtype=torch.bool, device=z.device), float("-inf"))
    target = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)]).to(z.device)
    return F.cross_entropy(logits, target)


def negative_cosine_loss(p1: torch.Tensor, z2: torch.Tensor, p2: torch.Tensor | None = None,
                         z1: torch.Tensor | None = None, *, power: float = 0.0) -> torch.Tensor:
    """Non-contrastive loss (SimSiam/BYOL form): −mean cos(p, stopgrad(z)).

    With p2 and z1 given it is symmetrised: −½[cos(p1, sg z2) + cos(p2, sg z1)]. GradScale acts on
    the predictions p (the targets carry no gradient).
    """
    _check_pair(p1, z2, "p1 and z2")
    loss = -F.cosine_similarity(grad_scale(p1, power), z2.detach(), dim=1).mean()
    if p2 is None and z1 is None:
        return loss
    if p2 is None or z1 is None:
        raise ValueError("give both p2 and z1 for the symmetric loss, or neither")
    _check_pair(p2, z1, "p2 and z1")
    return 0.5 * (loss - F.cosine_similarity(grad_scale(p2, power), z1.detach(), dim=1).mean())


# ----------------------------------------------------------------------------------------------
# networks and cut-initialisation
class MLPEncoder(nn.Module):
    """Backbone (MLP with ReLU) followed by a projector (Linear–ReLU–Linear, no batch norm).

    `forward` returns the projector output z; `features` the backbone output used for k-NN.
    """

    def __init__(self, in_dim: int, hidden: Sequence[int] = (256, 128), proj_dim: int = 64,
                 generator: torch.Generator | None = None, layer_norm: bool = True):
        super().__init__()
        in_dim = _check_positive("in_dim", in_dim, integer=True)
        proj_dim = _check_positive("proj_dim", proj_dim, integer=True)
        if not hidden:
            raise ValueError("hidden must list at least one backbone width")
        sizes = [in_dim] + [_check_positive("hidden width", h, integer=True) for h in hidden]
        layers: list[nn.Module] = []
        for a, b in zip(sizes[:-1], sizes[1:]):
            layers += [nn.Linear(a, b), nn.ReLU()]
        if layer_norm:  # plays the part of the last batch norm of a ResNet backbone
            layers.append(nn.LayerNorm(sizes[-1]))
        self.backbone = nn.Sequential(*layers)
        self.projector = nn.Sequential(nn.Linear(sizes[-1], sizes[-1]), nn.ReLU(),
                                       nn.Linear(sizes[-1], proj_dim))
        if generator is not None:
            _check_generator(generator)
            for m in self.modules():
                if isinstance(m, nn.Linear):  # PyTorch's default init, drawn from `generator`
                    bound = 1.0 / math.sqrt(m.in_features)
                    with torch.no_grad():
                        m.weight.uniform_(-bound, bound, generator=generator)
                        m.bias.uniform_(-bound, bound, generator=generator)

    def features(self, x: torch.Tensor) -> torch.Tensor:
        return self.backbone(x.flatten(1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.projector(self.features(x))


@torch.no_grad()
def cut_init_(model: nn.Module, c: float) -> nn.Module:
    """Cut-initialisation: divide every parameter of `model` by c, in place; returns `model`.

    c > 1 shrinks the embeddings (for a bias-free ReLU net of L layers, by c^L); c < 1 inflates them.
    """
    c = _check_positive("c", c)
    for p in model.parameters():
        p.div_(c)
    return model


class ConvEncoder(nn.Module):
    """A small conv backbone for square grey images (three stride-2 3×3 convs with ReLU, global
    average pooling, LayerNorm) and the same projector as `MLPEncoder`. Used at full scale."""

    def __init__(self, side: int = 28, width: int = 32, proj_dim: int = 64):
        super().__init__()
        self.side = _check_positive("side", side, integer=True)
        w = _check_positive("width", width, integer=True)
        proj_dim = _check_positive("proj_dim", proj_dim, integer=True)
        self.backbone = nn.Sequential(
            nn.Conv2d(1, w, 3, 2, 1), nn.ReLU(), nn.Conv2d(w, 2 * w, 3, 2, 1), nn.ReLU(),
            nn.Conv2d(2 * w, 4 * w, 3, 2, 1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
            nn.LayerNorm(4 * w))
        self.projector = nn.Sequential(nn.Linear(4 * w, 4 * w), nn.ReLU(), nn.Linear(4 * w, proj_dim))

    def features(self, x: torch.Tensor) -> torch.Tensor:
        return self.backbone(x.reshape(len(x), 1, self.side, self.side))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.projector(self.features(x))


# ----------------------------------------------------------------------------------------------
# augmentations for small grey images
def augment(x: torch.Tensor, *, generator: torch.Generator, max_rotation: float = 15.0,
            scale: tuple[float, float] = (0.8, 1.15), max_shift: float = 0.12,
            noise: float = 0.1, erase: float = 0.35) -> torch.Tensor:
    """A random view of each image in `x` (n, H, W) or (n, H·W) with H = W, values in [0, 1].

    A random affine map (rotation ±max_rotation degrees, zoom in `scale`, shift up to max_shift of
    the width) applied with `grid_sample`, then a random erased square (side `erase` × width, with
    probability ½) and Gaussian pixel noise of s.d. `noise`; clipped to [0, 1]. Same shape as x.
    """
    _check_generator(generator)
    if not isinstance(x, torch.Tensor) or x.ndim not in (2, 3):
        raise ValueError(f"x must be a tensor of shape (n, H, W) or (n, H*W), got "
                         f"{getattr(x, 'shape', type(x).__name__)}")
    flat = x.ndim == 2
    n = x.shape[0]
    if flat:
        side = int(round(math.sqrt(x.shape[1])))
        if side * side != x.shape[1]:
            raise ValueError(f"x has {x.shape[1]} pixels per row, which is not a square image")
        img = x.reshape(n, 1, side, side)
    else:
        if x.shape[1] != x.shape[2]:
            raise ValueError(f"images must be square, got {tuple(x.shape[1:])}")
        side = x.shape[1]
        img = x[:, None]
    if not (0 < scale[0] <= scale[1]):
        raise ValueError(f"scale must be (low, high) with 0 < low ≤ high, got {scale!r}")
    u = torch.rand(n, 6, generator=generator).to(x.device)
    ang = (2 * u[:, 0] - 1) * math.radians(max_rotation)
    s = scale[0] + (scale[1] - scale[0]) * u[:, 1]
    tx, ty = (2 * u[:, 2] - 1) * 2 * max_shift, (2 * u[:, 3] - 1) * 2 * max_shift
    cos, sin = torch.cos(ang) / s, torch.sin(ang) / s
    theta = torch.stack([torch.stack([cos, -sin, tx], 1), torch.stack([sin, cos, ty], 1)], 1)
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
        out = out + noise * torch.randn(out.shape, generator=generator, dtype=out.dtype).to(x.device)
    out = out.clamp(0.0, 1.0)
    return out.reshape(n, -1) if flat else out[:, 0]


# ----------------------------------------------------------------------------------------------
# evaluation
def knn_accuracy(bank: torch.Tensor, bank_y: torch.Tensor, query: torch.Tensor,
                 query_y: torch.Tensor, *, k: int = 20) -> float:
    """k-NN accuracy with cosine similarity and a majority vote (ties: the smallest label)."""
    k = _check_positive("k", k, integer=True)
    if bank.ndim != 2 or query.ndim != 2 or bank.shape[1] != query.shape[1]:
        raise ValueError(f"bank and query must be (n, d) with the same d, got {tuple(bank.shape)} "
                         f"and {tuple(query.shape)}")
    if k > bank.shape[0]:
        raise ValueError(f"k = {k} exceeds the bank size {bank.shape[0]}")
    if len(bank_y) != bank.shape[0] or len(query_y) != query.shape[0]:
        raise ValueError("labels must have one entry per row of bank and query")
    sim = F.normalize(query, dim=1) @ F.normalize(bank, dim=1).T
    nbr = sim.topk(k, dim=1).indices
    votes = F.one_hot(bank_y[nbr], int(bank_y.max()) + 1).sum(1)
    pred = votes.argmax(1)
    return float((pred == query_y).double().mean())


def time_to_accuracy(steps: Sequence[int], accuracy: Sequence[float], target: float) -> float:
    """First evaluation step at which `accuracy` ≥ `target`; +inf if it never gets there."""
    steps, accuracy = np.asarray(steps), np.asarray(accuracy, dtype=float)
    if steps.shape != accuracy.shape or steps.ndim != 1 or steps.size == 0:
        raise ValueError(f"steps and accuracy must be non-empty 1-D arrays of equal length, got "
                         f"{steps.shape} and {accuracy.shape}")
    hit = np.flatnonzero(accuracy >= target)
    return float(steps[hit[0]]) if hit.size else math.inf


def auroc(positive: np.ndarray, negative: np.ndarray) -> float:
    """P(score of a positive > score of a negative) + ½ P(tie): the Mann–Whitney AUROC."""
    pos, neg = np.asarray(positive, dtype=float).ravel(), np.asarray(negative, dtype=float).ravel()
    if pos.size == 0 or neg.size == 0:
        raise ValueError(f"auroc needs non-empty positive and negative scores, got {pos.size} "
                         f"and {neg.size}")
    if not (np.all(np.isfinite(pos)) and np.all(np.isfinite(neg))):
        raise ValueError("auroc scores must be finite")
    allv = np.concatenate([pos, neg])
    order = np.argsort(allv, kind="mergesort")
    ranks = np.empty(allv.size)
    sorted_v = allv[order]
    # average ranks over ties
    _, first, counts = np.unique(sorted_v, return_index=True, return_counts=True)
    avg = first + (counts + 1) / 2.0
    ranks[order] = np.repeat(avg, counts)
    u = ranks[:pos.size].sum() - pos.size * (pos.size + 1) / 2.0
    return float(u / (pos.size * neg.size))


def auroc_interval(positive: np.ndarray, negative: np.ndarray, *, rng: np.random.Generator,
                   n_boot: int = 1000, level: float = 0.95) -> tuple[float, float, float]:
    """AUROC and a percentile bootstrap interval (both groups resampled): (auc, low, high)."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator, got {type(rng).__name__}")
    n_boot = _check_positive("n_boot", n_boot, integer=True)
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    pos, neg = np.asarray(positive, dtype=float).ravel(), np.asarray(negative, dtype=float).ravel()
    auc = auroc(pos, neg)
    boots = [auroc(pos[rng.integers(0, pos.size, pos.size)], neg[rng.integers(0, neg.size, neg.size)])
             for _ in range(n_boot)]
    lo, hi = np.quantile(boots, [(1 - level) / 2, (1 + level) / 2])
    return auc, float(lo), float(hi)


# ----------------------------------------------------------------------------------------------
# the toy simulation: optimise the cosine directly on the embeddings
@dataclass(frozen=True)
class AlignResult:
    """Outcome of `align_pairs`: steps to reach mean cos ≥ 1 − eps (−1 if not reached), the mean
    cosine and mean norm after each step (index 0 = start), and the smallest per-sample change of
    ‖z‖ seen over all steps (≥ 0 up to rounding when norms never shrink)."""

    steps: int
    mean_cos: np.ndarray
    mean_norm: np.ndarray
    min_norm_increment: float


def align_pairs(a: np.ndarray, b: np.ndarray, *, lr: float = 10.0, eps: float = 1e-3,
                max_steps: int = 100_000) -> AlignResult:
    """Plain gradient descent on −mean_i cos(a_i, b_i) over both sets of embeddings (float64).

    The toy experiment of the paper's code: n pairs, one step moves a_i by lr/n · ∇cos (and b_i
    alike); counts the steps until the mean cosine reaches 1 − eps.
    """
    a, b = np.array(a, dtype=np.float64), np.array(b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 2 or a.shape[0] == 0:
        raise ValueError(f"a and b must be non-empty (n, d) arrays of the same shape, got "
                         f"{a.shape} and {b.shape}")
    lr = _check_positive("lr", lr)
    if not 0 < eps < 2:
        raise ValueError(f"eps must lie in (0, 2), got {eps!r}")
    max_steps = _check_positive("max_steps", max_steps, integer=True)
    n = a.shape[0]
    na, nb = np.linalg.norm(a, axis=1), np.linalg.norm(b, axis=1)
    if np.any(na == 0) or np.any(nb == 0):
        raise ValueError("a and b must have non-zero rows: the cosine of a zero vector is undefined")
    cos = np.sum(a * b, 1) / (na * nb)
    mean_cos, mean_norm = [cos.mean()], [0.5 * (na.mean() + nb.mean())]
    min_inc = math.inf
    step = 0
    while mean_cos[-1] < 1 - eps:
        if step >= max_steps:
            return AlignResult(-1, np.array(mean_cos), np.array(mean_norm), float(min_inc))
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


def random_pairs(n: int, d: int, *, norm: float, rng: np.random.Generator,
                 interpolation: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """n pairs of random directions in R^d, both scaled to `norm`.

    With `interpolation` t in (−1, 1) the positive is (1 − |t|)·random − t·anchor, renormalised, so
    t → 1 makes the pair nearly opposite (the paper's "opposite halves" set-up).
    """
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator, got {type(rng).__name__}")
    n, d = _check_positive("n", n, integer=True), _check_positive("d", d, integer=True)
    norm = _check_positive("norm", norm)
    a = rng.standard_normal((n, d))
    a /= np.linalg.norm(a, axis=1, keepdims=True)
    b = rng.standard_normal((n, d))
    b /= np.linalg.norm(b, axis=1, keepdims=True)
    if interpolation is not None:
        if not -1 < interpolation < 1:
            raise ValueError(f"interpolation must lie in (−1, 1), got {interpolation!r}")
        b = (1 - abs(interpolation)) * b - interpolation * a
        b /= np.linalg.norm(b, axis=1, keepdims=True)
    return norm * a, norm * b


# ----------------------------------------------------------------------------------------------
# SimCLR training with norm and k-NN tracking
@dataclass(frozen=True)
class TrainHistory:
    """Per-step loss and mean ‖z‖ of the training batch; per-evaluation step, k-NN accuracy and
    mean ‖z‖ of the monitored test set."""

    loss: np.ndarray
    batch_norm: np.ndarray
    eval_steps: np.ndarray
    knn: np.ndarray
    eval_norm: np.ndarray


def embed(model: nn.Module, X: torch.Tensor, *, features: bool = False,
          batch: int = 2048) -> torch.Tensor:
    """Embeddings (projector output, or backbone features) of X, without gradients."""
    with torch.no_grad():
        out = [(model.features(X[i:i + batch]) if features else model(X[i:i + batch]))
               for i in range(0, len(X), batch)]
    return torch.cat(out)


def train_simclr(model: nn.Module, X: torch.Tensor, *, steps: int, batch_size: int, lr: float,
                 generator: torch.Generator, tau: float = 0.5, power: float = 0.0,
                 momentum: float = 0.9, weight_decay: float = 0.0, warmup: int = 0,
                 monitor: tuple | None = None, eval_every: int = 10, k: int = 20, knn_on: str = "z",
                 aug: dict | None = None) -> TrainHistory:
    """Train `model` in place with SimCLR (two augmented views, InfoNCE) and SGD with momentum.

    `power` > 0 applies GradScale; `warmup` steps of linear learning-rate warm-up, then constant.
    `monitor` = (X_bank, y_bank, X_query, y_query): every `eval_every` steps (and at step 0) the
    k-NN accuracy of the embeddings z (`knn_on="z"`) or of the backbone features
    (`knn_on="features"`) and the mean ‖z‖ of X_query are recorded.
    """
    _check_generator(generator)
    steps = _check_positive("steps", steps, integer=True)
    batch_size = _check_positive("batch_size", batch_size, integer=True)
    lr = _check_positive("lr", lr)
    eval_every = _check_positive("eval_every", eval_every, integer=True)
    if batch_size > len(X):
        raise ValueError(f"batch_size = {batch_size} exceeds the number of samples {len(X)}")
    if knn_on not in ("z", "features"):
        raise ValueError(f"knn_on must be 'z' or 'features', got {knn_on!r}")
    if weight_decay < 0:
        raise ValueError(f"weight_decay must be ≥ 0, got {weight_decay!r}")
    aug = aug or {}
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum, weight_decay=weight_decay)
    losses, norms, ev_steps, ev_knn, ev_norm = [], [], [], [], []

    def evaluate(step):
        Xb, yb, Xq, yq = monitor
        ev_steps.append(step)
        zq = embed(model, Xq)
        feats = knn_on == "features"
        ev_knn.append(knn_accuracy(embed(model, Xb, features=feats), yb,
                                   embed(model, Xq, features=True) if feats else zq, yq, k=k))
        ev_norm.append(float(zq.norm(dim=1).mean()))

    perm, pos = torch.randperm(len(X), generator=generator), 0
    for step in range(steps):
        if monitor is not None and step % eval_every == 0:
            evaluate(step)
        if pos + batch_size > len(X):
            perm, pos = torch.randperm(len(X), generator=generator), 0
        xb = X[perm[pos:pos + batch_size].to(X.device)]
        pos += batch_size
        for g in opt.param_groups:
            g["lr"] = lr * min(1.0, (step + 1) / warmup) if warmup > 0 else lr
        v1, v2 = augment(xb, generator=generator, **aug), augment(xb, generator=generator, **aug)
        z1, z2 = model(v1), model(v2)
        loss = info_nce_loss(z1, z2, tau=tau, power=power)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss.detach()))
        norms.append(float(0.5 * (z1.detach().norm(dim=1).mean() + z2.detach().norm(dim=1).mean())))
    if monitor is not None:
        evaluate(steps)
    return TrainHistory(np.array(losses), np.array(norms), np.array(ev_steps), np.array(ev_knn),
                        np.array(ev_norm))
