"""The networks of the butterfly chapter and their parameters: a ReLU ``MLP`` and the paper's
LayerNorm ResNet (``ResNetLN``), He-normal initialisation drawn from a generator (``init_params``,
``init_stds``), the tensors a perturbation may touch (``perturbable``) and a module holding given
parameters (``fresh_module``). Parameters are plain ``dict[str, torch.Tensor]``; the models are
stateless architectures evaluated with ``torch.func.functional_call``.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping, Sequence

import torch
from torch import nn

from repbook.core import checks

Params = dict[str, torch.Tensor]
PermSpec = Mapping[str, tuple[str | None, ...]]
"""For every parameter name, the permutation group acting on each of its axes (None: no group)."""


# ----------------------------------------------------------------------------------------------
# checks of the chapter's own objects
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
        sizes = [checks.integer("sizes[i]", s, at_least=1) for s in sizes]
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
        width = checks.integer("width", width, at_least=1)
        self.stem_conv = nn.Conv2d(
            checks.integer("in_channels", in_channels, at_least=1),
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
        self.fc = nn.Linear(f_in, checks.integer("n_classes", n_classes, at_least=1))

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
    checks.torch_generator("generator", generator)
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


def fresh_module(model: nn.Module, params: Params) -> nn.Module:
    """A new module with ``model``'s architecture holding a copy of ``params`` (``model`` itself
    is untouched). For code that needs an ``nn.Module`` with weights: torch's optimisers, peers."""
    net = copy.deepcopy(model)
    _check_same_keys(dict(net.named_parameters()), params)
    net.load_state_dict({k: v.detach().clone() for k, v in params.items()})
    return net
