"""The encoders (an MLP and a small conv net, each with a projector), cut-initialisation, and
R small MLPs run side by side (`RunsMLP`). PyTorch's default initialisation is drawn from a
torch.Generator (the core's `nets.default_init_` and `nets.mlp`)."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

from repbook.core import checks
from repbook.core.nets import default_init_, mlp


# --------------------------------------------------------------------------------------
# networks and cut-initialisation
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
        in_dim = checks.integer("in_dim", in_dim, at_least=1)
        proj_dim = checks.integer("proj_dim", proj_dim, at_least=1)
        if not hidden:
            raise ValueError("hidden must list at least one backbone width")
        sizes = [in_dim] + [
            checks.integer("hidden width", h, at_least=1) for h in hidden
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
    c = checks.number("c", c, above=0)
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
        self.side = checks.integer("side", side, at_least=1)
        w = checks.integer("width", width, at_least=1)
        proj_dim = checks.integer("proj_dim", proj_dim, at_least=1)
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
