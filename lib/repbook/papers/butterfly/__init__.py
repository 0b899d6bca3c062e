"""Spawn-and-perturb training and the divergence between the copies (Kwok, Altıntaş, Raffel, Rolnick,
*The Butterfly Effect: Neural Network Training Trajectories Are Highly Sensitive to Initial
Conditions*, ICML 2025, arXiv 2506.13234).

Notation. θ_t are the parameters after t of the T optimisation steps of one deterministic training
run (fixed initialisation, fixed batch order, fixed learning-rate schedule). *Spawn-and-perturb*
copies θ_t (with the optimiser's momentum), adds a perturbation ε to the copy, θ'_t = θ_t + ε, and
trains both copies from step t to T with exactly the same batches and learning rates. The copies
are then compared by

- the L² distance ‖θ_T − θ'_T‖₂ over all parameters;
- the loss barrier along the straight line between them,
  max_α ℓ((1−α)θ_T + αθ'_T) − [(1−α)ℓ(θ_T) + αℓ(θ'_T)] on a grid of α ∈ [0, 1];
- the same two after *weight matching* (Ainsworth et al., 2023), which permutes the hidden units of
  θ'_T to be as close as possible to θ_T without changing the function θ'_T computes;
- linear CKA between the activations of a hidden layer in the two networks (1 = the same up to a
  rotation and scale), or its angular form arccos(CKA).

A Gaussian perturbation of size σ draws ε̂ ~ N(0, s_ℓ²) for every weight of the masked weight
tensors (s_ℓ is the tensor's initialisation standard deviation) and rescales it so that
‖ε‖₂ = σ · sqrt(Σ_{i∈M} s_i²): σ = 1 is a perturbation as large as the initialisation itself.
Biases and normalisation parameters are never perturbed. The smallest possible perturbation,
`nudge_one_ulp`, moves one float32 weight to the next representable number.

Parameters are plain ``dict[str, torch.Tensor]`` (a model's ``named_parameters``); the models are
stateless architectures evaluated with ``torch.func.functional_call``. No function here prints,
plots, writes files or draws from a global random state: randomness comes in as a
``torch.Generator``.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import torch
from scipy.optimize import linear_sum_assignment
from torch import nn
from torch.func import functional_call

Params = dict[str, torch.Tensor]
PermSpec = Mapping[str, tuple[str | None, ...]]
"""For every parameter name, the permutation group acting on each of its axes (None: no group)."""


# ----------------------------------------------------------------------------------------------
# input checks
def _check_positive_int(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive int, got {value!r}")
    return int(value)


def _check_generator(generator) -> torch.Generator:
    if not isinstance(generator, torch.Generator):
        raise TypeError(
            f"generator must be a torch.Generator, got {type(generator).__name__}"
        )
    return generator


def _check_same_keys(a: Mapping, b: Mapping, what: str = "parameters") -> None:
    if list(a) != list(b):
        missing, extra = sorted(set(a) - set(b)), sorted(set(b) - set(a))
        raise ValueError(
            f"the two sets of {what} must have the same names in the same order; "
            f"only in the first: {missing}, only in the second: {extra}"
        )
    for k in a:
        if a[k].shape != b[k].shape:
            raise ValueError(
                f"{what} {k!r} has shape {tuple(a[k].shape)} in the first set and "
                f"{tuple(b[k].shape)} in the second"
            )


def _check_data(X: torch.Tensor, y: torch.Tensor) -> None:
    if not isinstance(X, torch.Tensor) or not isinstance(y, torch.Tensor):
        raise TypeError(
            f"X and y must be torch tensors, got {type(X).__name__} and "
            f"{type(y).__name__}"
        )
    if X.shape[0] != y.shape[0] or X.shape[0] == 0:
        raise ValueError(
            f"X and y must have the same, non-zero number of rows, got {X.shape[0]} "
            f"and {y.shape[0]}"
        )


# ----------------------------------------------------------------------------------------------
# models
class MLP(nn.Module):
    """A ReLU multilayer perceptron; ``sizes`` = (inputs, hidden..., outputs).

    ``forward(x, return_features=True)`` also returns the post-ReLU activations of every hidden
    layer (inputs are flattened first).
    """

    def __init__(self, sizes: Sequence[int]):
        super().__init__()
        sizes = [_check_positive_int("sizes[i]", s) for s in sizes]
        if len(sizes) < 2:
            raise ValueError(
                f"sizes must name at least inputs and outputs, got {sizes!r}"
            )
        self.sizes = tuple(sizes)
        self.layers = nn.ModuleList(
            nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:])
        )

    def forward(self, x, return_features: bool = False):
        h = x.flatten(1)
        feats = []
        for layer in self.layers[:-1]:
            h = torch.relu(layer(h))
            feats.append(h)
        out = self.layers[-1](h)
        return (out, feats) if return_features else out


class LayerNorm2d(nn.Module):
    """Normalise each pixel over the channel axis, then a per-channel scale and shift.

    This is the "layernorm" of the paper's ResNets: it commutes with permutations of channels, so
    weight matching applies, and unlike BatchNorm it keeps no running statistics.
    """

    def __init__(self, channels: int, eps: float = 1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(channels))
        self.bias = nn.Parameter(torch.zeros(channels))
        self.eps = eps

    def forward(self, x):
        mean = x.mean(1, keepdim=True)
        var = x.var(1, keepdim=True, unbiased=False)
        x = (x - mean) / torch.sqrt(var + self.eps)
        return x * self.weight.view(1, -1, 1, 1) + self.bias.view(1, -1, 1, 1)


class _Block(nn.Module):
    def __init__(self, f_in: int, f_out: int, stride: int):
        super().__init__()
        self.conv1 = nn.Conv2d(f_in, f_out, 3, stride=stride, padding=1, bias=False)
        self.norm1 = LayerNorm2d(f_out)
        self.conv2 = nn.Conv2d(f_out, f_out, 3, stride=1, padding=1, bias=False)
        self.norm2 = LayerNorm2d(f_out)
        self.has_shortcut = stride != 1 or f_in != f_out
        if self.has_shortcut:
            self.shortcut_conv = nn.Conv2d(f_in, f_out, 1, stride=stride, bias=False)
            self.shortcut_norm = LayerNorm2d(f_out)

    def forward(self, x):
        out = self.norm2(self.conv2(torch.relu(self.norm1(self.conv1(x)))))
        skip = self.shortcut_norm(self.shortcut_conv(x)) if self.has_shortcut else x
        return torch.relu(out + skip)


class ResNetLN(nn.Module):
    """The CIFAR ResNet of depth 6n + 2 (20 → three stages of three blocks) with ``LayerNorm2d``.

    Stage widths are width, 2·width, 4·width; global average pooling and one linear layer. The
    paper's main model is depth 20, width 32, on CIFAR-10. ``forward(x, return_features=True)``
    also returns every block's output.
    """

    def __init__(
        self,
        depth: int = 20,
        width: int = 32,
        in_channels: int = 3,
        n_classes: int = 10,
    ):
        super().__init__()
        if (
            isinstance(depth, bool)
            or not isinstance(depth, int)
            or depth < 8
            or (depth - 2) % 6
        ):
            raise ValueError(
                f"depth must be 6n + 2 with n ≥ 1 (8, 14, 20, ...), got {depth!r}"
            )
        width = _check_positive_int("width", width)
        self.stem_conv = nn.Conv2d(
            _check_positive_int("in_channels", in_channels),
            width,
            3,
            padding=1,
            bias=False,
        )
        self.stem_norm = LayerNorm2d(width)
        blocks, f_in = [], width
        for stage in range(3):
            f_out = width * 2**stage
            for i in range((depth - 2) // 6):
                blocks.append(_Block(f_in, f_out, 2 if stage > 0 and i == 0 else 1))
                f_in = f_out
        self.blocks = nn.ModuleList(blocks)
        self.fc = nn.Linear(f_in, _check_positive_int("n_classes", n_classes))

    def forward(self, x, return_features: bool = False):
        h = torch.relu(self.stem_norm(self.stem_conv(x)))
        feats = []
        for block in self.blocks:
            h = block(h)
            feats.append(h)
        out = self.fc(h.mean((2, 3)))
        return (out, feats) if return_features else out


def init_stds(model: nn.Module) -> dict[str, float]:
    """The He (Kaiming-normal) initialisation standard deviation sqrt(2 / fan_in) of every weight
    matrix or convolution kernel; 0 for biases and normalisation parameters (never perturbed)."""
    out = {}
    for name, p in model.named_parameters():
        out[name] = math.sqrt(2.0 / (p[0].numel())) if p.dim() > 1 else 0.0
    return out


def init_params(model: nn.Module, *, generator: torch.Generator) -> Params:
    """Fresh parameters for ``model``: He-normal weights, zero biases, unit/zero norm affines."""
    _check_generator(generator)
    stds = init_stds(model)
    params = {}
    for name, p in model.named_parameters():
        if p.dim() > 1:
            params[name] = (
                torch.randn(p.shape, generator=generator, dtype=p.dtype) * stds[name]
            )
        elif name.endswith("weight"):
            params[name] = torch.ones_like(p)
        else:
            params[name] = torch.zeros_like(p)
    return params


def perturbable(model_or_params) -> list[str]:
    """Names of the tensors a perturbation may touch: weights with ≥ 2 axes (no biases, no norms)."""
    items = (
        model_or_params.named_parameters()
        if isinstance(model_or_params, nn.Module)
        else model_or_params.items()
    )
    return [name for name, p in items if p.dim() > 1]


# ----------------------------------------------------------------------------------------------
# deterministic training
def batch_order(
    n: int, *, batch_size: int, epochs: int, generator: torch.Generator
) -> torch.Tensor:
    """The fixed sequence of minibatches: one random permutation of range(n) per epoch, cut into
    ``n // batch_size`` full batches (the remainder is dropped). Shape (steps, batch_size)."""
    n = _check_positive_int("n", n)
    batch_size = _check_positive_int("batch_size", batch_size)
    epochs = _check_positive_int("epochs", epochs)
    _check_generator(generator)
    if batch_size > n:
        raise ValueError(f"batch_size must be at most n = {n}, got {batch_size}")
    per_epoch = n // batch_size
    rows = [
        torch.randperm(n, generator=generator)[: per_epoch * batch_size].view(
            per_epoch, batch_size
        )
        for _ in range(epochs)
    ]
    return torch.cat(rows)


def triangle_schedule(
    total_steps: int, *, peak_lr: float, warmup_frac: float
) -> np.ndarray:
    """Learning rate of steps 0..T−1: linear warm-up to ``peak_lr`` over the first
    ``warmup_frac`` of training, then linear decay to 0 at step T (the paper's "triangle")."""
    total_steps = _check_positive_int("total_steps", total_steps)
    if not (
        isinstance(peak_lr, (int, float)) and peak_lr > 0 and math.isfinite(peak_lr)
    ):
        raise ValueError(f"peak_lr must be a positive finite number, got {peak_lr!r}")
    if not 0.0 <= warmup_frac < 1.0:
        raise ValueError(f"warmup_frac must lie in [0, 1), got {warmup_frac!r}")
    warm = warmup_frac * total_steps
    t = np.arange(total_steps, dtype=np.float64)
    up = (t + 1) / warm if warm > 0 else np.ones_like(t)
    down = (total_steps - t) / (total_steps - warm)
    return peak_lr * np.minimum(np.minimum(up, down), 1.0)


@dataclass(frozen=True)
class TrainState:
    """Parameters and SGD momentum buffers after ``step`` optimisation steps."""

    params: Params
    momentum: Params
    step: int

    @staticmethod
    def start(params: Params) -> "TrainState":
        """Step 0: the given parameters and zero momentum (torch's SGD starts the same way)."""
        return TrainState(
            {k: v.clone() for k, v in params.items()},
            {k: torch.zeros_like(v) for k, v in params.items()},
            0,
        )

    def with_params(self, params: Params) -> "TrainState":
        """The same optimiser state and step with other parameters (a perturbed copy)."""
        _check_same_keys(self.params, params)
        return TrainState(
            params, {k: v.clone() for k, v in self.momentum.items()}, self.step
        )


@dataclass(frozen=True)
class TrainResult:
    """What ``train`` returns: the final state, the states kept at ``save_at`` and the L² distances
    to the reference parameters given in ``distance_to`` (by step)."""

    final: TrainState
    saved: dict[int, TrainState]
    distances: dict[int, float]


def train(
    model: nn.Module,
    state: TrainState,
    X: torch.Tensor,
    y: torch.Tensor,
    order: torch.Tensor,
    lrs,
    *,
    momentum: float = 0.9,
    stop: int | None = None,
    save_at: Sequence[int] = (),
    distance_to: Mapping[int, Params] | None = None,
) -> TrainResult:
    """SGD with (heavy-ball) momentum on the cross-entropy, from ``state.step`` to ``stop``.

    Step s uses the minibatch ``order[s]`` and learning rate ``lrs[s]``: two calls from equal
    states give bit-identical results, whatever happened before. The update is torch's
    ``optim.SGD`` (no dampening, no Nesterov, no weight decay): b ← μ·b + g, θ ← θ − η·b.
    Keeps copies of the states at the steps in ``save_at`` and, for every step s in
    ``distance_to``, the distance ‖θ_s − distance_to[s]‖₂ (both in [state.step, stop]).
    The inputs are not modified.
    """
    _check_data(X, y)
    stop = len(order) if stop is None else stop
    if not 0 <= state.step <= stop <= len(order):
        raise ValueError(
            f"need 0 ≤ state.step ≤ stop ≤ len(order) = {len(order)}, got "
            f"state.step = {state.step}, stop = {stop}"
        )
    if len(lrs) < stop:
        raise ValueError(f"lrs has {len(lrs)} entries, fewer than stop = {stop} steps")
    if not 0.0 <= momentum < 1.0:
        raise ValueError(f"momentum must lie in [0, 1), got {momentum!r}")
    distance_to = {} if distance_to is None else distance_to
    bad = [s for s in list(save_at) + list(distance_to) if not state.step <= s <= stop]
    if bad:
        raise ValueError(
            f"save_at and distance_to steps must lie in [{state.step}, {stop}], "
            f"got {bad}"
        )
    names = list(state.params)
    params = {k: v.detach().clone() for k, v in state.params.items()}
    bufs = {k: v.detach().clone() for k, v in state.momentum.items()}
    saved: dict[int, TrainState] = {}
    distances: dict[int, float] = {}
    wanted = set(int(s) for s in save_at)

    def keep(s):
        if s in wanted:
            saved[s] = TrainState(
                {k: v.clone() for k, v in params.items()},
                {k: v.clone() for k, v in bufs.items()},
                s,
            )
        if s in distance_to:
            distances[s] = l2_distance(params, distance_to[s])

    for s in range(state.step, stop):
        keep(s)
        idx = order[s]
        leaves = {k: params[k].requires_grad_(True) for k in names}
        loss = nn.functional.cross_entropy(
            functional_call(model, leaves, (X[idx],)), y[idx]
        )
        grads = torch.autograd.grad(loss, [leaves[k] for k in names])
        lr = float(lrs[s])
        with torch.no_grad():
            for k, g in zip(names, grads):
                bufs[k] = bufs[k].mul(momentum).add(g)
                params[k] = params[k].detach().add(bufs[k], alpha=-lr)
    keep(stop)
    return TrainResult(TrainState(params, bufs, stop), saved, distances)


# ----------------------------------------------------------------------------------------------
# perturbations
def gaussian_perturbation(
    params: Params,
    stds: Mapping[str, float],
    *,
    sigma: float,
    generator: torch.Generator,
    n_weights: int | None = None,
    names: Sequence[str] | None = None,
) -> Params:
    """A Gaussian perturbation ε of relative size σ (σ = 1: as large as the initialisation).

    ε̂_i ~ N(0, s_i²) for every weight i in the tensors ``names`` (default: all tensors with a
    positive init std), restricted to ``n_weights`` of them chosen uniformly (default: all), then
    rescaled to ‖ε‖₂ = σ · sqrt(Σ_{i ∈ mask} s_i²). Returns a tensor per parameter (zeros outside
    the mask).
    """
    _check_generator(generator)
    if not (isinstance(sigma, (int, float)) and sigma >= 0 and math.isfinite(sigma)):
        raise ValueError(f"sigma must be a finite number ≥ 0, got {sigma!r}")
    names = (
        [k for k in params if stds.get(k, 0.0) > 0] if names is None else list(names)
    )
    unknown = [k for k in names if k not in params or stds.get(k, 0.0) <= 0]
    if unknown or not names:
        raise ValueError(
            f"names must be parameters with a positive init std, got {unknown or names}"
        )
    sizes = [params[k].numel() for k in names]
    total = sum(sizes)
    n_weights = (
        total if n_weights is None else _check_positive_int("n_weights", n_weights)
    )
    if n_weights > total:
        raise ValueError(
            f"n_weights must be at most the {total} maskable weights, got {n_weights}"
        )
    flat_std = torch.cat(
        [
            torch.full((n,), float(stds[k]), dtype=torch.float64)
            for k, n in zip(names, sizes)
        ]
    )
    draw = torch.randn(total, generator=generator, dtype=torch.float64) * flat_std
    mask = torch.zeros(total, dtype=torch.bool)
    mask[torch.randperm(total, generator=generator)[:n_weights]] = True
    draw = torch.where(mask, draw, torch.zeros_like(draw))
    target = sigma * math.sqrt(float((flat_std[mask] ** 2).sum()))
    norm = float(draw.norm())
    flat = draw * (target / norm) if norm > 0 else draw
    noise = {k: torch.zeros_like(v) for k, v in params.items()}
    for k, chunk in zip(names, flat.split(sizes)):
        noise[k] = chunk.view(params[k].shape).to(params[k])
    return noise


def add(params: Params, noise: Params) -> Params:
    """θ + ε, tensor by tensor (new tensors)."""
    _check_same_keys(params, noise)
    return {k: params[k] + noise[k] for k in params}


def nudge_one_ulp(
    params: Params, *, name: str, index: int, direction: int = 1
) -> Params:
    """A copy of ``params`` with one entry moved to the next representable float (one ulp).

    ``index`` is the entry's position in the flattened tensor ``name``; ``direction`` +1 or −1.
    """
    if name not in params:
        raise ValueError(
            f"name must be one of the parameters {list(params)}, got {name!r}"
        )
    numel = params[name].numel()
    if (
        isinstance(index, bool)
        or not isinstance(index, (int, np.integer))
        or not 0 <= index < numel
    ):
        raise ValueError(
            f"index must be an int in [0, {numel}) for {name!r}, got {index!r}"
        )
    if direction not in (1, -1):
        raise ValueError(f"direction must be +1 or −1, got {direction!r}")
    out = {k: v.clone() for k, v in params.items()}
    flat = out[name].view(-1)
    target = torch.tensor(direction * math.inf, dtype=flat.dtype, device=flat.device)
    flat[index] = torch.nextafter(flat[index], target)
    return out


def pick_weight(
    params: Params, names: Sequence[str], *, generator: torch.Generator
) -> tuple[str, int]:
    """One weight drawn uniformly from the tensors ``names``: (tensor name, flat index)."""
    _check_generator(generator)
    missing = [k for k in names if k not in params]
    if missing or not names:
        raise ValueError(
            f"names must be a non-empty list of parameters, got {list(names)}"
        )
    sizes = np.array([params[k].numel() for k in names])
    i = int(torch.randint(int(sizes.sum()), (1,), generator=generator))
    which = int(np.searchsorted(np.cumsum(sizes), i, side="right"))
    return names[which], i - int(np.r_[0, np.cumsum(sizes)][which])


def typical_draws(values: Sequence[float], n: int) -> list[int]:
    """The indices of the ``n`` draws whose ``values`` rank closest to the median (the median
    draw first; ties in rank distance go to the lower index).

    Spawn-and-perturb repeats a few of its perturbations at later steps; with this rule the
    repeated draws are the typical ones, not whichever came first, which matters when single
    draws differ a lot (a one-ulp nudge of an inactive unit's weight never grows)."""
    vals = np.asarray(values, dtype=float)
    if vals.ndim != 1 or len(vals) == 0 or not np.all(np.isfinite(vals)):
        raise ValueError(
            f"values must be a non-empty 1-D sequence of finite numbers, got {values!r}"
        )
    n = _check_positive_int("n", n)
    if n > len(vals):
        raise ValueError(f"n must be at most the {len(vals)} draws, got {n}")
    ranks = np.argsort(np.argsort(vals, kind="stable"), kind="stable")
    mid = (len(vals) - 1) / 2
    return sorted(range(len(vals)), key=lambda r: (abs(ranks[r] - mid), r))[:n]


# ----------------------------------------------------------------------------------------------
# divergence measures
def l2_distance(a: Params, b: Params) -> float:
    """‖θ_a − θ_b‖₂ over all parameters (accumulated in float64)."""
    _check_same_keys(a, b)
    return math.sqrt(
        sum(float(((a[k].double() - b[k].double()) ** 2).sum()) for k in a)
    )


def interpolate(a: Params, b: Params, alpha: float) -> Params:
    """(1 − α)θ_a + αθ_b, computed as θ_a + α(θ_b − θ_a): exactly θ_a at α = 0 and whenever
    θ_a = θ_b, and exactly θ_b at α = 1."""
    _check_same_keys(a, b)
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must lie in [0, 1], got {alpha!r}")
    if alpha == 1.0:
        return {k: v.clone() for k, v in b.items()}
    return {k: a[k] + alpha * (b[k] - a[k]) for k in a}


@torch.no_grad()
def evaluate(
    model: nn.Module,
    params: Params,
    X: torch.Tensor,
    y: torch.Tensor,
    *,
    batch_size: int = 1000,
) -> tuple[float, float]:
    """Mean cross-entropy and error rate of ``params`` on (X, y), in fixed-size chunks."""
    _check_data(X, y)
    batch_size = _check_positive_int("batch_size", batch_size)
    loss, wrong = 0.0, 0
    for i in range(0, len(y), batch_size):
        out = functional_call(model, params, (X[i : i + batch_size],))
        loss += float(
            nn.functional.cross_entropy(out, y[i : i + batch_size], reduction="sum")
        )
        wrong += int((out.argmax(1) != y[i : i + batch_size]).sum())
    return loss / len(y), wrong / len(y)


@dataclass(frozen=True)
class Barrier:
    """Loss and error along the line θ_a → θ_b and the barriers above the straight chord."""

    alphas: np.ndarray
    loss: np.ndarray
    error: np.ndarray
    loss_barrier: float
    error_barrier: float


def _chord_excess(values: np.ndarray, alphas: np.ndarray) -> float:
    chord = values[0] + alphas * (values[-1] - values[0])
    return float(np.max(values - chord))


def loss_barrier(
    model: nn.Module,
    a: Params,
    b: Params,
    X: torch.Tensor,
    y: torch.Tensor,
    *,
    n_alpha: int = 11,
    batch_size: int = 1000,
) -> Barrier:
    """max_α ℓ(θ_α) − [(1−α)ℓ(θ_a) + αℓ(θ_b)] over ``n_alpha`` equally spaced α ∈ [0, 1], for the
    cross-entropy and for the error rate. Both are ≥ 0 (the end points count) and exactly 0 when
    θ_a = θ_b."""
    _check_same_keys(a, b)
    n_alpha = _check_positive_int("n_alpha", n_alpha)
    if n_alpha < 3:
        raise ValueError(
            f"n_alpha must be at least 3 (both ends and one interior point), got {n_alpha}"
        )
    alphas = np.linspace(0.0, 1.0, n_alpha)
    res = np.array(
        [
            evaluate(model, interpolate(a, b, float(al)), X, y, batch_size=batch_size)
            for al in alphas
        ]
    )
    return Barrier(
        alphas,
        res[:, 0],
        res[:, 1],
        _chord_excess(res[:, 0], alphas),
        _chord_excess(res[:, 1], alphas),
    )


@torch.no_grad()
def hidden_features(
    model: nn.Module, params: Params, X: torch.Tensor, *, batch_size: int = 1000
) -> list[torch.Tensor]:
    """The activations of every hidden layer (MLP) or block (ResNet), flattened to (n, features)."""
    chunks = [
        functional_call(
            model, params, (X[i : i + batch_size],), {"return_features": True}
        )[1]
        for i in range(0, len(X), batch_size)
    ]
    return [torch.cat([c[j] for c in chunks]).flatten(1) for j in range(len(chunks[0]))]


def linear_cka(X, Y) -> float:
    """Linear centred kernel alignment between two representations of the same n inputs.

    CKA = ‖Yᶜᵀ Xᶜ‖²_F / (‖Xᶜᵀ Xᶜ‖_F ‖Yᶜᵀ Yᶜ‖_F) with column-centred Xᶜ, Yᶜ (n × p, n × q); the same
    as the cosine between the centred Gram matrices, which is used when p or q exceeds n.
    Invariant to orthogonal transforms (so to permutations of units) and isotropic scaling.
    """
    X = np.asarray(
        X.detach().cpu() if isinstance(X, torch.Tensor) else X, dtype=np.float64
    )
    Y = np.asarray(
        Y.detach().cpu() if isinstance(Y, torch.Tensor) else Y, dtype=np.float64
    )
    if X.ndim != 2 or Y.ndim != 2 or X.shape[0] != Y.shape[0] or X.shape[0] < 2:
        raise ValueError(
            f"X and Y must be 2-D with the same number (≥ 2) of rows, got shapes "
            f"{X.shape} and {Y.shape}"
        )
    if not (np.all(np.isfinite(X)) and np.all(np.isfinite(Y))):
        raise ValueError("X and Y must be finite")
    X = X - X.mean(0)
    Y = Y - Y.mean(0)
    if max(X.shape[1], Y.shape[1]) > X.shape[0]:
        K, L = X @ X.T, Y @ Y.T
        num, den = float(np.sum(K * L)), float(np.linalg.norm(K) * np.linalg.norm(L))
    else:
        num = float(np.linalg.norm(Y.T @ X) ** 2)
        den = float(np.linalg.norm(X.T @ X) * np.linalg.norm(Y.T @ Y))
    if den == 0.0:
        raise ValueError(
            "a representation is constant over the inputs: CKA is undefined"
        )
    return num / den


def angular_cka(X, Y) -> float:
    """arccos(linear CKA) in radians: 0 for equivalent representations, π/2 for unrelated ones."""
    return float(np.arccos(np.clip(linear_cka(X, Y), -1.0, 1.0)))


# ----------------------------------------------------------------------------------------------
# permutation symmetry and weight matching
def mlp_perm_spec(model: MLP) -> dict[str, tuple[str | None, ...]]:
    """Hidden layer ℓ's units form group ``P{ℓ}``; inputs and outputs are not permuted."""
    spec, n = {}, len(model.layers)
    for i in range(n):
        out_p = f"P{i}" if i < n - 1 else None
        in_p = f"P{i - 1}" if i > 0 else None
        spec[f"layers.{i}.weight"] = (out_p, in_p)
        spec[f"layers.{i}.bias"] = (out_p,)
    return spec


def resnet_perm_spec(model: ResNetLN) -> dict[str, tuple[str | None, ...]]:
    """Channel groups of ``ResNetLN``: one per block interior, one per stage's residual stream
    (blocks joined by identity shortcuts share their stream's group)."""
    spec = {
        "stem_conv.weight": ("R0", None, None, None),
        "stem_norm.weight": ("R0",),
        "stem_norm.bias": ("R0",),
    }
    res, n_res = "R0", 0
    for i, block in enumerate(model.blocks):
        inner, p = f"B{i}", f"blocks.{i}."
        out = res
        if block.has_shortcut:
            n_res += 1
            out = f"R{n_res}"
            spec[p + "shortcut_conv.weight"] = (out, res, None, None)
            spec[p + "shortcut_norm.weight"] = (out,)
            spec[p + "shortcut_norm.bias"] = (out,)
        spec[p + "conv1.weight"] = (inner, res, None, None)
        spec[p + "norm1.weight"] = (inner,)
        spec[p + "norm1.bias"] = (inner,)
        spec[p + "conv2.weight"] = (out, inner, None, None)
        spec[p + "norm2.weight"] = (out,)
        spec[p + "norm2.bias"] = (out,)
        res = out
    spec["fc.weight"] = (None, res)
    spec["fc.bias"] = (None,)
    return spec


def _check_spec(params: Params, spec: PermSpec) -> dict[str, int]:
    if set(spec) != set(params):
        raise ValueError(
            f"spec must name exactly the parameters; missing {sorted(set(params) - set(spec))}, "
            f"unknown {sorted(set(spec) - set(params))}"
        )
    sizes: dict[str, int] = {}
    for name, axes in spec.items():
        if len(axes) != params[name].dim():
            raise ValueError(
                f"spec[{name!r}] has {len(axes)} axes, the parameter has "
                f"{params[name].dim()}"
            )
        for ax, group in enumerate(axes):
            if group is None:
                continue
            n = params[name].shape[ax]
            if sizes.setdefault(group, n) != n:
                raise ValueError(
                    f"group {group!r} has size {sizes[group]} elsewhere but {n} on "
                    f"axis {ax} of {name!r}"
                )
    return sizes


def permute(
    params: Params,
    spec: PermSpec,
    perms: Mapping[str, torch.Tensor],
    *,
    skip: tuple[str, int] | None = None,
) -> Params:
    """Apply the unit permutations: along an axis of group g, new unit i is old unit perms[g][i].
    A network permuted consistently (every group on all its axes) computes the same function."""
    out = {}
    for name, p in params.items():
        for ax, group in enumerate(spec[name]):
            if group is not None and (name, ax) != skip:
                p = p.index_select(ax, perms[group].to(p.device))
        out[name] = p
    return out


def weight_matching(
    a: Params,
    b: Params,
    spec: PermSpec,
    *,
    generator: torch.Generator,
    max_sweeps: int = 100,
) -> dict[str, torch.Tensor]:
    """Weight matching (Ainsworth, Hayase & Srinivasa, 2023): the permutations of θ_b's hidden
    units that maximise Σ ⟨θ_a, π(θ_b)⟩, i.e. minimise ‖θ_a − π(θ_b)‖₂.

    Coordinate ascent from the identity: groups are visited in a random order (``generator``),
    each solved exactly by a linear assignment given the others, until a sweep changes nothing.
    Never increases the distance. Returns {group: index tensor} for ``permute``.
    """
    _check_same_keys(a, b)
    _check_generator(generator)
    sizes = _check_spec(a, spec)
    max_sweeps = _check_positive_int("max_sweeps", max_sweeps)
    perms = {g: torch.arange(n) for g, n in sizes.items()}
    where = {
        g: [
            (k, ax) for k, axes in spec.items() for ax, gg in enumerate(axes) if gg == g
        ]
        for g in sizes
    }
    groups = list(sizes)
    a64 = {k: v.detach().cpu().double() for k, v in a.items()}
    b64 = {k: v.detach().cpu().double() for k, v in b.items()}
    for _ in range(max_sweeps):
        changed = False
        for gi in torch.randperm(len(groups), generator=generator).tolist():
            g = groups[gi]
            n = sizes[g]
            cost = torch.zeros(n, n, dtype=torch.float64)
            for name, ax in where[g]:
                wb = permute(
                    {name: b64[name]}, {name: spec[name]}, perms, skip=(name, ax)
                )[name]
                cost += (
                    a64[name].moveaxis(ax, 0).reshape(n, -1)
                    @ wb.moveaxis(ax, 0).reshape(n, -1).T
                )
            _, cols = linear_sum_assignment(cost.numpy(), maximize=True)
            new = torch.as_tensor(cols, dtype=torch.long)
            old_score = float(cost[torch.arange(n), perms[g]].sum())
            new_score = float(cost[torch.arange(n), new].sum())
            if new_score > old_score + 1e-12 * max(1.0, abs(old_score)):
                perms[g] = new
                changed = True
        if not changed:
            break
    return perms


# ----------------------------------------------------------------------------------------------
# two trained networks side by side
def fresh_module(model: nn.Module, params: Params) -> nn.Module:
    """A new module with ``model``'s architecture holding a copy of ``params`` (``model`` itself
    is untouched). For code that needs an ``nn.Module`` with weights: torch's optimisers, peers."""
    net = copy.deepcopy(model)
    _check_same_keys(dict(net.named_parameters()), params)
    net.load_state_dict({k: v.detach().clone() for k, v in params.items()})
    return net


@torch.no_grad()
def weight_activity(
    model: MLP, params: Params, X: torch.Tensor, *, name: str, index: int
) -> tuple[float, float, float]:
    """Whether one weight of a ReLU MLP can pass a signal on the inputs ``X``.

    The weight ``name``[``index``] (flat index into ``layers.ℓ.weight``) reads from unit j of
    the layer below (a hidden unit, or input j for ℓ = 0) and feeds unit i of layer ℓ (a hidden
    unit, or an output, which always passes). Returns the fractions of inputs on which the unit
    read from is non-zero, on which the unit fed is active, and on which both hold. A weight with
    0 in the last place never changes a forward pass, and its gradient is 0.
    """
    if not isinstance(model, MLP):
        raise TypeError(f"model must be a butterfly.MLP, got {type(model).__name__}")
    parts = name.split(".")
    n_layers = len(model.layers)
    if (
        len(parts) != 3
        or parts[0] != "layers"
        or parts[2] != "weight"
        or not parts[1].isdigit()
        or int(parts[1]) >= n_layers
    ):
        raise ValueError(
            f"name must be 'layers.<i>.weight' with i < {n_layers}, got {name!r}"
        )
    layer = int(parts[1])
    n_out, n_in = params[name].shape
    if (
        isinstance(index, bool)
        or not isinstance(index, (int, np.integer))
        or not 0 <= index < n_out * n_in
    ):
        raise ValueError(
            f"index must be an int in [0, {n_out * n_in}) for {name!r}, got {index!r}"
        )
    unit_out, unit_in = divmod(int(index), n_in)
    feats = hidden_features(model, params, X)
    below = X.flatten(1) if layer == 0 else feats[layer - 1]
    active_in = below[:, unit_in] != 0
    active_out = (
        feats[layer][:, unit_out] > 0
        if layer < n_layers - 1
        else torch.ones_like(active_in)
    )
    return (
        float(active_in.float().mean()),
        float(active_out.float().mean()),
        float((active_in & active_out).float().mean()),
    )


@dataclass(frozen=True)
class PairComparison:
    """θ_a and θ_b compared: L² before and after weight matching (θ_b aligned to θ_a), whether
    the matching was the identity, the aligned θ_b, and linear and angular CKA per hidden layer
    (MLP) or block (ResNet) on the inputs given."""

    l2: float
    l2_aligned: float
    identity: bool
    aligned: Params
    cka: tuple[float, ...]
    angular: tuple[float, ...]


def compare_pair(
    model: nn.Module,
    a: Params,
    b: Params,
    spec: PermSpec,
    X: torch.Tensor,
    *,
    generator: torch.Generator,
    features_a: Sequence[torch.Tensor] | None = None,
) -> PairComparison:
    """Weight matching of θ_b to θ_a, the L² distances before and after, and CKA per layer on
    ``X`` (``features_a``: θ_a's hidden features on ``X``, when already computed)."""
    _check_same_keys(a, b)
    perms = weight_matching(a, b, spec, generator=generator)
    identity = all(torch.equal(v, torch.arange(len(v))) for v in perms.values())
    aligned = b if identity else permute(b, spec, perms)
    fa = hidden_features(model, a, X) if features_a is None else list(features_a)
    fb = hidden_features(model, b, X)
    if len(fa) != len(fb):
        raise ValueError(f"features_a has {len(fa)} layers, the model gives {len(fb)}")
    cka = tuple(linear_cka(x, y) for x, y in zip(fa, fb))
    angular = tuple(float(np.arccos(np.clip(c, -1.0, 1.0))) for c in cka)
    return PairComparison(
        l2_distance(a, b), l2_distance(a, aligned), identity, aligned, cka, angular
    )


# ----------------------------------------------------------------------------------------------
# peers: the same measures from other packages
def rebasin_align(
    model: nn.Module, a: Params, b: Params, X: torch.Tensor, *, seed: int
) -> Params:
    """θ_b aligned to θ_a by the ``rebasin`` package's weight matching (its
    ``PermutationCoordinateDescent``, which finds the permutation structure by tracing the model
    on ``X``). Its coordinate descent visits the groups in an order drawn from torch's global
    generator, so it runs inside ``torch.random.fork_rng`` seeded with ``seed``: the same seed
    gives the same result, and the caller's global random state is left as it was."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an int, got {seed!r}")
    from rebasin import PermutationCoordinateDescent

    net_a, net_b = fresh_module(model, a), fresh_module(model, b)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(int(seed))
        PermutationCoordinateDescent(net_a, net_b, X).rebasin()
    return {k: v.detach().clone() for k, v in net_b.named_parameters()}


def repsim_linear_cka(X, Y) -> float:
    """Linear CKA computed by the ``repsim`` package (linear kernel, the biased "Gretton" HSIC
    estimator): the same quantity as ``linear_cka``."""
    import repsim

    def arr(Z):
        Z = Z.detach().cpu() if isinstance(Z, torch.Tensor) else Z
        return np.asarray(Z, dtype=np.float64)

    out = repsim.cka([arr(X), arr(Y)], kernel_type="linear", estimator="gretton")
    return float(out[0, 1])
